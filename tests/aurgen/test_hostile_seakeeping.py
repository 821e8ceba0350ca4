"""``--seakeeping-set`` refuses what it would otherwise misread or silently drop: numbers the config
language refuses (``1_0``, other scripts' digits), a peak enhancement for a spectrum that has none,
and the generated sea's keys beside ``sea.world`` (whose sea is the world's own)."""

from __future__ import annotations

import pytest

from aurgen.analysis.seakeeping import SeakeepingInvalid, parse_settings
from aurgen.cli import main


@pytest.mark.parametrize("pair,match", [
    ("periods=1_0", r"seakeeping\.periods: expected a number, got '1_0'"),
    ("periods=\uff12", r"seakeeping\.periods: expected a number"),
    ("periods=2,\u0665", r"seakeeping\.periods: expected a number"),
    ("height=0x1", r"seakeeping\.height: expected a number"),
    ("sea.hs=1_0", r"seakeeping\.sea\.hs: expected a number"),
])
def test_numbers_are_read_as_the_config_language_reads_them(pair, match):
    with pytest.raises(SeakeepingInvalid, match=match):
        parse_settings([pair])


def test_plain_numbers_still_read():
    s = parse_settings(["periods=2, 5,1e1", "height=.05", "sea.hs=+0.5"])
    assert s["periods"] == [2.0, 5.0, 10.0] and s["height"] == 0.05 and s["sea.hs"] == 0.5


@pytest.mark.parametrize("pairs", [["sea.gamma=5", "sea.spectrum=pierson_moskowitz"],
                                   ["sea.spectrum=pierson_moskowitz", "sea.gamma=5"]])
def test_gamma_with_pierson_moskowitz_is_refused_in_either_order(pairs):
    with pytest.raises(SeakeepingInvalid, match=r"seakeeping\.sea\.gamma: only for sea\.spectrum=jonswap"):
        parse_settings(pairs)
    assert parse_settings(["sea.spectrum=jonswap", "sea.gamma=5"])["sea.gamma"] == 5.0


@pytest.mark.parametrize("key", ["sea.hs=1.0", "sea.tp=6", "sea.seed=3", "sea.components=8", "sea.headings=head",
                                 "sea.spectrum=jonswap", "sea.ramp=5"])
def test_a_world_sea_refuses_the_generated_seas_keys(key):
    with pytest.raises(SeakeepingInvalid, match=r"the sea of sea\.world=open_sea is the world's own"):
        parse_settings(["sea.world=open_sea", key])
    assert parse_settings(["sea.world=open_sea", "sea.duration=60"])["sea.world"] == "open_sea"


def test_the_cli_says_so_and_exits_2(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["report", "blueboat.yaml", "--seakeeping-set", "periods=1_0", "-o", "r"]) == 2
    err = capsys.readouterr().err
    assert "seakeeping.periods: expected a number, got '1_0'" in err and "Traceback" not in err
    assert not (tmp_path / "r").exists()
