"""``aurgen audit`` of a report folder (aurgen.check.audit_report): report.md's seal names the config
(and the composed vehicle's sha256), each PNG's sha256 and its own text's; an edit of any file, a file
added or removed, and a config changed since are each reported, naming the file. Before, report/ was
skipped by the audit (a report.md showing the old mass after a config change audited clean).

Also: planted links on every component of a report's and a sweep's output path are refused before
any write (exit 2, one line, nothing written outside).
"""

from __future__ import annotations

import io
import os
import shutil
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from aurgen.cli import main
from aurgen.core.resources import data_dir


def _main(args) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        rc = main([str(a) for a in args])
    return rc, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """(config, a built tree with the report at its default place, build/blueboat/report)."""
    tmp = tmp_path_factory.mktemp("report")
    cfg = tmp / "blueboat.yaml"
    shutil.copy(data_dir("vehicles") / "blueboat.yaml", cfg)
    build = tmp / "build"
    assert _main(["build", cfg, "-o", build])[0] == 0
    rc, _, err = _main(["report", cfg, "-o", build / "blueboat" / "report", "--quiet", "--no-roll-decay"])
    assert rc == 0, err
    return cfg, build


def _copy(made, tmp_path):
    cfg, build = made
    shutil.copytree(build, tmp_path / "build")
    shutil.copy(cfg, tmp_path / "blueboat.yaml")
    return tmp_path / "blueboat.yaml", tmp_path / "build", tmp_path / "build" / "blueboat" / "report"


def _audit(cfg, *paths):
    return _main(["audit", "--config", cfg, *paths])


def test_a_fresh_report_audits_clean(made, tmp_path):
    cfg, build, rep = _copy(made, tmp_path)
    pngs = sorted(p.name for p in rep.glob("*.png"))
    assert len(pngs) >= 3
    for target in (build, rep, rep / "report.md"):
        rc, out, err = _audit(cfg, target)
        assert rc == 0 and not err, out + err
    rc, out, _ = _main(["audit", "--config", cfg, "--json", rep])
    assert rc == 0 and all(f"report/{n}" in out for n in pngs + ["report.md"])


def _one_character(path: Path, text_at: str | None = None):
    data = bytearray(path.read_bytes())
    k = data.index(text_at.encode()) + len(text_at) if text_at else len(data) // 2
    data[k] = ord("8") if data[k] != ord("8") else ord("9")
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("what", ["report.md number", "report.md seal", "mass.png", "gz_heel.png",
                                  "criteria.png", "load_line.png"])
def test_an_edit_of_any_report_file_is_reported(made, tmp_path, what):
    cfg, build, rep = _copy(made, tmp_path)
    name = what.split()[0]
    at = {"report.md number": "| total mass | 17.", "report.md seal": "seal: config blueboat.yaml sha256:"}.get(what)
    _one_character(rep / name, at)
    rc, out, err = _audit(cfg, build)
    assert rc == 1, out + err
    assert f"report/{name}" in out and ("edited" in out or "config sha256" in out), out


def test_a_file_added_or_removed_is_reported(made, tmp_path):
    cfg, build, rep = _copy(made, tmp_path)
    (rep / "notes.txt").write_text("mine\n")
    (rep / "mass.png").unlink()
    rc, out, _ = _audit(cfg, build)
    assert rc == 1 and "report/notes.txt" in out and "not in the report" in out
    assert "report/mass.png" in out and "missing" in out


def test_no_seal_is_reported(made, tmp_path):
    cfg, build, rep = _copy(made, tmp_path)
    md = rep / "report.md"
    md.write_text("".join(md.read_text().splitlines(keepends=True)[:-1]))
    rc, out, _ = _main(["audit", rep])
    assert rc == 1 and "report/report.md" in out and "no seal line" in out


def test_a_report_of_a_changed_config_is_stale(made, tmp_path):
    cfg, build, rep = _copy(made, tmp_path)
    text = cfg.read_text()
    assert "\nparts: []\n" in text
    cfg.write_text(text.replace("\nparts: []\n", "\nparts: [{slot: port_fwd, type: br_lipo_10ah}]\n", 1))
    rc, out, err = _audit(cfg, rep)
    assert rc == 1, out + err
    assert "report/report.md" in out and "config sha256" in out and "rerun aurgen report" in out


# ----------------------------------------------------------------------------- planted links


def _tree(root: Path):
    return sorted((str(p.relative_to(root)), p.is_symlink()) for p in root.rglob("*"))


OUTPUT_PATHS = {  # (command, every folder of its output path aurgen's tree holds: the default path under build/)
    "report": (["report", "blueboat.yaml", "--quiet", "--no-roll-decay"], ["build/blueboat", "build/blueboat/report"]),
    "sweep": (["sweep", "s.yaml", "--quiet"], ["build/sweeps", "build/sweeps/s"]),
}
LINK_CASES = [(cmd, rel) for cmd, (_, rels) in OUTPUT_PATHS.items() for rel in rels]


@pytest.mark.parametrize("cmd,rel", LINK_CASES, ids=[f"{c}:{r}" for c, r in LINK_CASES])
def test_a_planted_link_on_a_default_output_path_is_refused(tmp_path, monkeypatch, cmd, rel):
    """A link at any folder of the default output path (build/<vehicle>/report, build/sweeps/<stem>)
    pointing outside: refused before any write. Before, a link at build/blueboat or build/sweeps
    was followed (the root was the report's or sweep's own folder). ``build`` itself is the root, the
    user's to place (a link there is followed, as by ``aurgen build``)."""
    base, outside = tmp_path / "work", tmp_path / "outside"
    for d in ("blueboat/report", "sweeps/s", "report", "s"):
        (outside / d).mkdir(parents=True, exist_ok=True)
    base.mkdir()
    (base / "s.yaml").write_text("vehicle: blueboat.yaml\ngrid:\n  slot.port_fwd: [none, br_lipo_10ah]\n")
    parent = (base / rel).parent
    parent.mkdir(parents=True, exist_ok=True)
    os.symlink(outside / Path(rel).relative_to("build"), base / rel)
    before, inside = _tree(outside), _tree(base)
    monkeypatch.chdir(base)
    rc, out, err = _main(OUTPUT_PATHS[cmd][0])
    assert rc == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert "symbolic link" in err, err
    assert _tree(outside) == before and _tree(base) == inside


@pytest.mark.parametrize("cmd", sorted(OUTPUT_PATHS))
def test_an_output_folder_that_is_a_link_is_refused(tmp_path, monkeypatch, cmd):
    base, outside = tmp_path / "work", tmp_path / "outside"
    outside.mkdir()
    base.mkdir()
    (base / "s.yaml").write_text("vehicle: blueboat.yaml\ngrid:\n  slot.port_fwd: [none, br_lipo_10ah]\n")
    os.symlink(outside, base / "o")
    before, inside = _tree(outside), _tree(base)
    monkeypatch.chdir(base)
    rc, out, err = _main(OUTPUT_PATHS[cmd][0] + ["-o", "o"])
    assert rc == 2 and len(err.strip().splitlines()) == 1 and "symbolic link" in err, err
    assert _tree(outside) == before and _tree(base) == inside


@pytest.mark.parametrize("name", ["rows.jsonl", "sweep.csv", "sweep.parquet", "gm_t_payload.png", ".aurgen",
                                  ".aurgen.lock"])
def test_a_planted_link_on_a_sweep_output_file_is_refused(tmp_path, name):
    sweep = tmp_path / "s.yaml"
    sweep.write_text("vehicle: blueboat.yaml\ngrid:\n  slot.port_fwd: [none, br_lipo_10ah]\n")
    out = tmp_path / "o"
    out.mkdir()
    victim = tmp_path / "victim"
    os.symlink(victim, out / name)
    rc, _, err = _main(["sweep", sweep, "-o", out, "--quiet"])
    assert rc == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert not victim.exists() and sorted(p.name for p in out.iterdir()) == [name]


@pytest.mark.parametrize("name", ["report.md", "mass.png", ".aurgen", ".aurgen.lock"])
def test_a_planted_link_on_a_report_output_file_is_refused(tmp_path, name):
    out = tmp_path / "o"
    out.mkdir()
    victim = tmp_path / "victim"
    os.symlink(victim, out / name)
    rc, _, err = _main(["report", "blueboat.yaml", "-o", out, "--quiet", "--no-roll-decay"])
    assert rc == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert not victim.exists() and sorted(p.name for p in out.iterdir()) == [name]
