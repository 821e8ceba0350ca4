"""``aurgen audit`` of a sweep's outputs (aurgen.check.audit_sweep): sweep.md lists the sweep's inputs
(the sweep file's, the base config's and each catalog entry's sha256, aurgen's version) and ends in a
seal naming the sha256 of the journal, the tables and the figures. A one-character edit of any file,
a file missing or added, and a sweep file, base config or catalog part changed since are each a row
naming the file (before, a sweep folder was no audit target, and ``audit build`` skipped
build/sweeps/). The sweeps run in this process on the local runner (no Ray).
"""

from __future__ import annotations

import io
import json
import os
import shutil
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from aurgen.cli import main
from aurgen.core.resources import data_dir

SWEEP = """\
vehicle: blueboat.yaml
parts:
  payload:
    description: a payload box of swept mass
    mass: 1.0
    collision: [{shape: box, size: [0.2, 0.2, 0.1]}]
add:
  - {type: payload, name: payload, parent: base_link, xyz: [0.299, 0.0, 0.147]}
grid:
  catalog.payload.mass: {name: payload, values: [0, 5]}
"""
SEALED = ["capsize_boundary.png", "distributions.png", "gm_t_payload.png", "rows.jsonl", "sweep.csv", "sweep.parquet"]


def _main(args) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        rc = main([str(a) for a in args])
    return rc, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """A folder with the sweep s.yaml, its base blueboat.yaml and that config's own parts/ (a copy of
    the bundled blueboat_flag part), and the sweep's outputs in build/sweeps/s."""
    tmp = tmp_path_factory.mktemp("sweep")
    shutil.copy(data_dir("vehicles") / "blueboat.yaml", tmp / "blueboat.yaml")
    (tmp / "parts").mkdir()
    shutil.copy(data_dir("vehicles") / "parts" / "blueboat_flag.yaml", tmp / "parts" / "blueboat_flag.yaml")
    (tmp / "s.yaml").write_text(SWEEP)
    rc, _, err = _main(["sweep", tmp / "s.yaml", "-o", tmp / "build" / "sweeps" / "s", "--quiet"])
    assert rc == 0, err
    return tmp


def _copy(made, tmp_path) -> tuple[Path, Path]:
    work = tmp_path / "w"
    shutil.copytree(made, work)
    return work, work / "build" / "sweeps" / "s"


def _audit(work, *paths):
    return _main(["audit", "--config", work / "s.yaml", *paths])


def _rows(out: str, name: str) -> list[str]:
    return [line for line in out.splitlines() if f"/{name}" in line]


def test_a_fresh_sweep_audits_clean(made, tmp_path):
    work, sw = _copy(made, tmp_path)
    assert sorted(p.name for p in sw.iterdir() if not p.name.startswith(".")) == sorted(SEALED + ["sweep.md"])
    for target in (work / "build", sw, sw / "sweep.md", sw / "sweep.csv"):
        rc, out, err = _audit(work, target)
        assert rc == 0 and not err, out + err
    rc, out, _ = _main(["audit", "--config", work / "s.yaml", "--json", work / "build"])
    files = json.loads(out)["files"]
    assert rc == 0 and sorted(Path(f).name for f in files) == sorted(SEALED + ["sweep.md"])
    text = (sw / "sweep.md").read_text()
    assert "input part blueboat_flag: sha256:" in text and "input sweep s.yaml: sha256:" in text
    assert "input vehicle blueboat.yaml: sha256:" in text and text.endswith(" -->\n")


def _flip(path: Path, at: str | None = None) -> None:
    data = bytearray(path.read_bytes())
    k = data.index(at.encode()) + len(at) if at else len(data) // 2
    data[k] = ord("8") if data[k] != ord("8") else ord("9")
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("name,at,named", [(n, None, n) for n in SEALED if n != "sweep.csv"] + [
    ("sweep.csv", "\n0,", "sweep.csv"),  # the first row's first figure after its variant number
    ("rows.jsonl", '"total_mass_kg": 1', "rows.jsonl"),
    ("sweep.md", "2 variants of blueboat.yaml (", "sweep.md"),  # the count of rows with a reason
    ("sweep.md", "input part blueboat_flag: sha256:", "sweep.md"),
    ("sweep.md", "seal: config s.yaml sha256:", "sweep.md"),
    ("sweep.md", "sweep.csv:", "sweep.csv"),  # the seal's hash of the table: the table no longer matches it
])
def test_a_one_character_edit_of_any_sweep_file_is_reported(made, tmp_path, name, at, named):
    work, sw = _copy(made, tmp_path)
    before = (sw / name).read_bytes()
    _flip(sw / name, at)
    assert (sw / name).read_bytes() != before and len((sw / name).read_bytes()) == len(before)
    for target in (work / "build", sw):
        rc, out, err = _audit(work, target)
        assert rc == 1 and not err, out + err
        assert _rows(out, named), out
        assert "edited" in out


@pytest.mark.parametrize("name", SEALED)
def test_a_missing_sweep_file_is_reported(made, tmp_path, name):
    work, sw = _copy(made, tmp_path)
    (sw / name).unlink()
    rc, out, err = _audit(work, work / "build")
    assert rc == 1 and not err, out + err
    (row,) = _rows(out, name)
    assert "missing" in row and "sweep.md's seal lists" in row


@pytest.mark.parametrize("name", ["notes.txt", "old.png", "variant_extra.csv",
                                  ".sweep.csv", ".aurgen-notes.tmp"])  # hidden ones too (issue 45)
def test_an_extra_file_is_reported(made, tmp_path, name):
    work, sw = _copy(made, tmp_path)
    (sw / name).write_text("mine\n")
    rc, out, err = _audit(work, sw)
    assert rc == 1 and not err, out + err
    (row,) = _rows(out, name)
    assert "not in the sweep" in row


def test_a_link_in_place_of_a_sealed_file_is_reported(made, tmp_path):
    work, sw = _copy(made, tmp_path)
    shutil.move(sw / "sweep.csv", work / "elsewhere.csv")
    os.symlink(work / "elsewhere.csv", sw / "sweep.csv")  # the same bytes, through a link
    rc, out, _ = _audit(work, sw)
    assert rc == 1 and _rows(out, "sweep.csv"), out


def test_no_seal_is_reported(made, tmp_path):
    work, sw = _copy(made, tmp_path)
    text = (sw / "sweep.md").read_text()
    (sw / "sweep.md").write_text(text[:text.rindex("<!-- aurgen ")])
    rc, out, _ = _main(["audit", sw])  # (no seal names the sweep file a --config would be for)
    assert rc == 1 and "no seal line" in out and "/sweep.md" in out, out


@pytest.mark.parametrize("what", ["sweep file", "base config", "catalog part"])
def test_a_stale_sweep_is_reported_naming_what_changed(made, tmp_path, what):
    work, sw = _copy(made, tmp_path)
    changed, key = {"sweep file": (work / "s.yaml", "sweep s.yaml"),
                    "base config": (work / "blueboat.yaml", "vehicle blueboat.yaml"),
                    "catalog part": (work / "parts" / "blueboat_flag.yaml", "part blueboat_flag")}[what]
    text = changed.read_text()
    changed.write_text(text.replace("mass: ", "mass: 1", 1) if what == "catalog part" else text + "# changed\n")
    rc, out, err = _audit(work, work / "build")
    assert rc == 1 and not err, out + err
    assert "stale" in out and "rerun aurgen sweep s.yaml" in out and "/sweep.md" in out, out
    (row,) = [line for line in out.splitlines() if line.startswith(key)]
    assert "sha256:" in row and "→" in row
    # a fresh run of the changed sweep audits clean again
    assert _main(["sweep", work / "s.yaml", "-o", sw, "--quiet", "--fresh"])[0] == 0
    rc, out, err = _audit(work, work / "build")
    assert rc == 0, out + err


def test_a_part_appearing_before_the_bundled_one_makes_the_sweep_stale(made, tmp_path, monkeypatch):
    """A part the base takes from the bundled catalog, hidden now by one in $AURGEN_PARTS_PATH."""
    work, sw = _copy(made, tmp_path)
    (tmp_path / "pp").mkdir()
    src = (data_dir("vehicles") / "parts" / "blueboat_antenna_mast.yaml").read_text()
    (tmp_path / "pp" / "blueboat_antenna_mast.yaml").write_text(src + "# a local copy, edited\n")
    monkeypatch.setenv("AURGEN_PARTS_PATH", str(tmp_path / "pp"))
    rc, out, _ = _audit(work, sw)
    assert rc == 1 and "stale: blueboat_antenna_mast changed since" in out and "/sweep.md" in out, out


def test_the_sweep_file_is_found_by_name_or_config(made, tmp_path, monkeypatch):
    work, sw = _copy(made, tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    rc, out, _ = _main(["audit", sw])
    assert rc == 1 and "s.yaml not found" in out and "pass --config PATH" in out, out
    monkeypatch.chdir(work)  # ./s.yaml
    assert _main(["audit", sw])[0] == 0
    monkeypatch.chdir(elsewhere)
    rc, out, err = _main(["audit", "--config", work / "s.yaml", sw])
    assert rc == 0 and not err, out + err


def test_a_rerun_without_figures_leaves_only_what_sweep_md_lists(made, tmp_path):
    work, sw = _copy(made, tmp_path)
    (sw / "notes.txt").write_text("mine\n")  # not aurgen's: kept, and reported
    rc, _, err = _main(["sweep", work / "s.yaml", "-o", sw, "--quiet", "--no-figures"])
    assert rc == 0, err
    assert not list(sw.glob("*.png")) and (sw / "notes.txt").read_text() == "mine\n"
    rc, out, _ = _audit(work, sw)
    assert rc == 1 and len([line for line in out.splitlines() if "/" in line and "sweep" in line]) == 1, out
    (sw / "notes.txt").unlink()
    assert _audit(work, sw)[0] == 0


def test_a_planted_link_at_sweep_md_is_refused(made, tmp_path):
    work, sw = _copy(made, tmp_path)
    victim = tmp_path / "victim"
    (sw / "sweep.md").unlink()
    os.symlink(victim, sw / "sweep.md")
    before = sorted((p.name, p.read_bytes() if p.is_file() and not p.is_symlink() else b"") for p in sw.iterdir())
    rc, _, err = _main(["sweep", work / "s.yaml", "-o", sw, "--quiet"])
    assert rc == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert not victim.exists()
    assert sorted((p.name, p.read_bytes() if p.is_file() and not p.is_symlink() else b"") for p in sw.iterdir()) == before
