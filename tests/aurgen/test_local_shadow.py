"""A local config that hides a bundled one (issue 28): a bare name that resolves to ``./vehicles/blueboat.yaml``
says so once on stderr; the gym environments and the bundled sweep use the bundled vehicles regardless (a
user's edited ``blueboat.yaml`` broke the bundled payload sweep, silently), and take another when told."""

from __future__ import annotations

import importlib.util

import pytest

from aurgen.cli import main
from aurgen.config import vehicle as vehicle_config
from aurgen.core.resources import data_dir

# a broken local copy: any use of it is an error naming it
BROKEN = "name: blueboat\nbase: {type: no_such_chassis}\n"


@pytest.fixture
def shadowed(tmp_path, monkeypatch):
    (tmp_path / "vehicles").mkdir()
    (tmp_path / "vehicles" / "blueboat.yaml").write_text((data_dir("vehicles") / "blueboat.yaml").read_text()
                                                         .replace("name: blueboat", "name: blueboat  # mine", 1))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(vehicle_config, "_NOTED", set())
    return tmp_path


def test_a_local_config_hiding_a_bundled_one_is_noted_once(shadowed, capsys):
    assert main(["specs", "blueboat.yaml"]) == 0
    assert main(["specs", "blueboat"]) == 0
    out, err = capsys.readouterr()
    assert err == "aurgen: note: ./vehicles/blueboat.yaml hides the bundled blueboat.yaml\n", err
    assert str(shadowed / "vehicles" / "blueboat.yaml") in out
    assert main(["specs", "bluerov2.yaml"]) == 0  # nothing hidden, nothing said
    assert main(["specs", "vehicles/blueboat.yaml"]) == 0  # a path is no surprise
    assert capsys.readouterr().err == ""


def test_an_identical_local_copy_hides_nothing(tmp_path, monkeypatch, capsys):
    """A clone's own ./vehicles/ and ./worlds/ are the bundled configs' sources: the same bytes, no note."""
    for kind, name in (("vehicles", "blueboat.yaml"), ("worlds", "open_water.yaml")):
        (tmp_path / kind).mkdir()
        (tmp_path / kind / name).write_bytes((data_dir(kind) / name).read_bytes())
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(vehicle_config, "_NOTED", set())
    assert main(["specs", "blueboat.yaml"]) == 0
    assert main(["worlds", "open_water", "-o", str(tmp_path / "out")]) == 0
    assert "hides" not in capsys.readouterr().err


def test_the_bundled_sweep_sweeps_the_bundled_vehicle(shadowed, capsys):
    from aurgen.analysis.sweep.spec import load_sweep

    (shadowed / "vehicles" / "blueboat.yaml").write_text(BROKEN)
    sweep = load_sweep("blueboat_payload.yaml")
    assert sweep.base_path == str((data_dir("vehicles") / "blueboat.yaml").resolve())
    assert sweep.base["base"]["type"] == "blueboat_chassis"
    mine = shadowed / "my_sweep.yaml"  # a sweep of the user's own resolves its vehicle as the CLI does
    mine.write_text((data_dir("sweeps") / "blueboat_payload.yaml").read_text())
    assert load_sweep(str(mine)).base_path == str(shadowed / "vehicles" / "blueboat.yaml")


@pytest.mark.skipif(importlib.util.find_spec("gymnasium") is None, reason="gymnasium is not installed")
def test_gym_uses_the_bundled_vehicle_unless_given_one(shadowed):
    import gymnasium

    import aurgen.gym  # noqa: F401  (registers the ids)

    (shadowed / "vehicles" / "blueboat.yaml").write_text(BROKEN)
    env = gymnasium.make("BlueBoatStationKeeping-v0")  # the broken local copy is not read
    env.close()
    with pytest.raises(Exception, match="vehicles/blueboat.yaml"):
        gymnasium.make("BlueBoatStationKeeping-v0", config="blueboat.yaml")
    with pytest.raises(Exception, match="vehicles/blueboat.yaml"):
        gymnasium.make("BlueBoatStationKeeping-v0", config=str(shadowed / "vehicles" / "blueboat.yaml"))
