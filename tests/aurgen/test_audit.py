"""``aurgen audit``: clean builds pass; hand edits, stale configs and lost displacement are caught."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from lxml import etree

from aurgen.check import audit
from aurgen.emit.build import build, bundled_vehicles
from aurgen.cli import main

ROOT = Path(__file__).resolve().parents[2]
GZ = "{http://gazebosim.org/schema}"


@pytest.fixture(scope="module")
def clean_build(tmp_path_factory):
    """Every bundled vehicle (and world) built once, read-only for the tests."""
    out = tmp_path_factory.mktemp("build")
    assert main(["build", "--all", "-o", str(out)]) == 0
    return out


@pytest.fixture
def boat(tmp_path):
    """A private copy of the blueboat config, built into tmp_path/out/blueboat."""
    cfg = tmp_path / "blueboat.yaml"
    shutil.copy(ROOT / "vehicles" / "blueboat.yaml", cfg)
    build([str(cfg)], tmp_path / "out")
    return cfg, tmp_path / "out" / "blueboat"


def _run(capsys, *paths, config=()):
    code = main(["audit", *map(str, paths), *(a for c in config for a in ("--config", str(c)))])
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def _rows(out: str, path) -> list[str]:
    return [line for line in out.splitlines() if line.startswith(str(path))]


def test_clean_build_audits_clean(clean_build, capsys):
    code, out, err = _run(capsys, clean_build)
    assert code == 0, out + err
    n = len(bundled_vehicles())  # each: 4 files and a ROS package of 6; and 7 world files (open_water,
    # open_sea and pool: MJCF and SDF; tilted_tank: MJCF only)
    assert f"clean ({4 * n + 7 + 6 * n} files" in out and err == ""


def test_clean_single_files_and_directory(boat, capsys):
    _, d = boat
    for target in (d, d / "blueboat.xml", d / "model.sdf", d / "blueboat.urdf"):
        code, out, err = _run(capsys, target)
        assert code == 0, out + err


def test_hand_edited_mass_is_caught(boat, capsys):
    _, d = boat
    xml = d / "blueboat.xml"
    text = xml.read_text()
    assert text.count('mass="14.1952708"') == 1  # the chassis
    xml.write_text(text.replace('mass="14.1952708"', 'mass="14.6952708"'))
    code, out, _ = _run(capsys, d)
    assert code == 1
    rows = _rows(out, xml)
    content = [r for r in rows if re.search(r"\bcontent\s+total mass\s+17\.80*\s", r)]
    assert content, out
    assert re.search(r"\s17\.30*\s", content[0])
    # SDF and URDF agree with their comments and with each other: the MJCF is the odd one out
    assert not any(f for f in ("model.sdf", "blueboat.urdf") if _rows(out, d / f))
    assert any(re.search(r"formats\s+mass\s+17\.80*\s.*17\.30*\s.*vs model\.sdf", r) for r in rows), out


def test_hand_edited_inertial_pose_moves_the_com(boat, capsys):
    _, d = boat
    sdf = d / "model.sdf"
    root = etree.parse(str(sdf))
    pose = root.find(".//link[@name='base_link']/inertial/pose")
    v = pose.text.split()
    v[2] = repr(float(v[2]) + 0.01)
    pose.text = " ".join(v)
    text = sdf.read_text()
    sdf.write_text(text.split("<sdf")[0] + etree.tostring(root.getroot(), encoding="unicode") + "\n")
    code, out, _ = _run(capsys, sdf)
    assert code == 1
    assert any(re.search(r"content\s+center of mass", r) for r in _rows(out, sdf)), out


def test_stale_config_is_caught(boat, capsys):
    cfg, d = boat
    text = cfg.read_text()
    assert "height: 0.18," in text
    cfg.write_text(text.replace("height: 0.18,", "height: 0.2,"))
    code, out, _ = _run(capsys, d, config=[cfg])
    assert code == 1
    # grouped by figure: one row each, naming the file set ([1]: the three files, listed once)
    legend = out.split("  [1] ", 1)[-1].split("\n\n", 1)[0]  # the file set, wrapped at 100 columns
    assert all(f in legend for f in ("blueboat.xml", "model.sdf", "blueboat.urdf")), out
    assert len(re.findall(r"^config sha256\s.*\[1\]$", out, re.M)) == 1 and "rebuild" in out, out
    # the figures that changed are named too (displacement grows with the pontoon height)
    assert re.search(r"^displaced volume\s.*→.*\[1\]$", out, re.M), out
    # content still agrees with the comment: the files are self-consistent, just stale
    assert not any(" content " in r for r in out.splitlines())
    build([str(cfg)], d.parent)  # rebuild: clean again
    assert _run(capsys, d, config=[cfg])[0] == 0


def test_stale_catalog_entry_is_caught(tmp_path, capsys):
    """A part's catalog entry changing makes the file stale too (the sha covers used parts)."""
    cfg = tmp_path / "bluerov2.yaml"
    shutil.copy(ROOT / "vehicles" / "bluerov2.yaml", cfg)
    build([str(cfg)], tmp_path / "out")
    cfg.write_text(cfg.read_text() + "\n# a comment changes the file, and so its hash\n")
    code, out, _ = _run(capsys, tmp_path / "out" / "bluerov2" / "bluerov2.xml", config=[cfg])
    assert code == 1 and "config sha256" in out


def test_deleted_displacement_box_mjcf(boat, capsys):
    _, d = boat
    xml = d / "blueboat.xml"
    lines = xml.read_text().splitlines(keepends=True)
    marked = [i for i, line in enumerate(lines) if 'user="1 1.19"' in line]  # the hull's boxes: mark 1, C_D 1.19
    assert len(marked) == 12
    del lines[marked[0]]
    xml.write_text("".join(lines))
    code, out, _ = _run(capsys, d)
    assert code == 1
    rows = _rows(out, xml)
    assert any(re.search(r"content\s+displaced volume", r) for r in rows), out
    assert any(re.search(r"content\s+center of buoyancy", r) for r in rows), out
    # two files carry displacement: the one whose content disagrees with its comment is reported
    assert any(re.search(r"formats\s+displaced volume.*vs model\.sdf", r) for r in rows), out
    assert not _rows(out, d / "model.sdf")
    assert not any("displaced volume" in r for r in _rows(out, d / "blueboat.urdf"))  # URDF has none, by design


def test_moved_displacement_box_changes_the_equilibrium_mjcf(boat, capsys):
    """A displacement box raised 1 cm by hand: the recomputed draft (and attitude) no longer match the comment."""
    _, d = boat
    xml = d / "blueboat.xml"
    text = xml.read_text()
    line = next(ln for ln in text.splitlines() if 'user="1 1.19"' in ln)
    m = re.search(r'pos="(\S+) (\S+) (\S+)"', line)
    moved = line.replace(m.group(0), f'pos="{m.group(1)} {m.group(2)} {float(m.group(3)) + 0.01!r}"')
    xml.write_text(text.replace(line, moved))
    code, out, _ = _run(capsys, xml)
    assert code == 1
    rows = _rows(out, xml)
    draft = [r for r in rows if re.search(r"content\s+draft\s", r)]
    assert draft and "0.013715" in draft[0], out
    for figure in ("heel", "trim", "GM_T", "GM_L"):
        assert any(re.search(rf"content\s+{figure}\s", r) for r in rows), out


def test_equilibrium_status_wording_is_checked(clean_build, tmp_path, capsys):
    """A neutral UUV's draft row rewritten in the floating form is caught as a status difference."""
    xml = tmp_path / "bluerov2.xml"
    text = (clean_build / "bluerov2" / "bluerov2.xml").read_text()
    row = re.search(r"neutral: holds any depth once submerged \(awash at (\S+) m at the root link origin\)", text)
    assert row, text[:2000]
    xml.write_text(text.replace(row.group(0), f"{row.group(1)} m at the root link origin (positive: below the waterline)"))
    code, out, _ = _run(capsys, xml)
    assert code == 1
    rows = [r for r in _rows(out, xml) if re.search(r"content\s+draft\s+neutral\s+floating", r)]
    assert rows, out


def test_equilibrium_status_of_rows():
    assert audit.equilibrium_status(draft_row="0.008039 m at the root link origin (positive: below the waterline)") \
        == "floating"
    assert audit.equilibrium_status(
        draft_row="neutral: holds any depth once submerged (awash at 0.085056 m at the root link origin)") == "neutral"
    assert audit.equilibrium_status(draft_row="none: sinks (weight exceeds full buoyancy by 1.2 kg of mass)") \
        == "none: sinks"
    assert audit.equilibrium_status(draft_row="none: capsizes") == "none: capsizes"


def test_deleted_displacement_box_sdf(boat, capsys):
    _, d = boat
    sdf = d / "model.sdf"
    root = etree.parse(str(sdf))
    cols = [c for c in root.iter("collision") if c.get(GZ + "buoyancy") == "true"]
    assert len(cols) == 12
    cols[-1].getparent().remove(cols[-1])
    text = sdf.read_text()
    sdf.write_text(text.split("<sdf")[0] + etree.tostring(root.getroot(), encoding="unicode") + "\n")
    code, out, _ = _run(capsys, sdf)
    assert code == 1
    assert any(re.search(r"content\s+displaced volume\s+0\.06237", r) for r in _rows(out, sdf)), out


def test_deleted_part_link_is_caught(boat, capsys):
    _, d = boat
    urdf = d / "blueboat.urdf"
    root = etree.parse(str(urdf)).getroot()
    flag = root.find("link[@name='flag']")
    joint = [j for j in root.findall("joint") if j.find("child").get("link") == "flag"][0]
    root.remove(flag)
    root.remove(joint)
    text = urdf.read_text()
    urdf.write_text(text.split("<robot")[0] + etree.tostring(root, encoding="unicode") + "\n")
    code, out, _ = _run(capsys, urdf)
    assert code == 1
    rows = _rows(out, urdf)
    assert any(re.search(r"content\s+parts\s+missing flag", r) for r in rows), out
    assert any(re.search(r"content\s+total mass", r) for r in rows), out


@pytest.mark.parametrize("content", [
    "not xml at all",
    "<robot name='x'/>\n",  # no aurgen header
    None,  # header and specs kept, XML body truncated
    "",
])
def test_unreadable_input_exits_2(boat, tmp_path, capsys, content):
    _, d = boat
    f = tmp_path / "bad.urdf"
    if content is None:
        text = (d / "blueboat.urdf").read_text()
        content = text[: len(text) // 2]
    f.write_text(content)
    code, out, err = _run(capsys, f)
    assert code == 2
    assert str(f) in err and "Traceback" not in err


def test_unreadable_wins_over_differences(boat, tmp_path, capsys):
    _, d = boat
    (d / "blueboat.xml").write_text((d / "blueboat.xml").read_text().replace('mass="14.1952708"', 'mass="15.1952708"'))
    code, out, err = _run(capsys, d, tmp_path / "missing.sdf")
    assert code == 2
    assert "total mass" in out and "missing.sdf: no such file" in err


def test_empty_dir_exits_2(tmp_path, capsys):
    code, _, err = _run(capsys, tmp_path)
    assert code == 2 and "no generated files" in err


def test_world_file_audits_clean(clean_build, capsys):
    for f in ("open_water.xml", "open_water.sdf", "tilted_tank.xml"):
        code, out, err = _run(capsys, clean_build / "worlds" / f)
        assert code == 0, out + err


def _unwrapped(text: str) -> str:
    """The stale table's file sets on one line each: a set of names wraps after a comma where the
    folder's path is long (as pytest's temporary folders are under xdist)."""
    return re.sub(r",\n +", ", ", text)


def test_stale_and_edited_worlds_are_caught(tmp_path, capsys):
    from aurgen.emit.worlds import write_worlds

    cfg = tmp_path / "sea.yaml"
    shutil.copy(ROOT / "worlds" / "open_water.yaml", cfg)
    out = tmp_path / "out"
    write_worlds([str(cfg)], out)
    assert _run(capsys, out, config=[cfg])[0] == 0
    cfg.write_text(cfg.read_text().replace("timestep: 0.002", "timestep: 0.001"))
    code, text, _ = _run(capsys, out / "worlds", config=[cfg])
    assert code == 1
    text = _unwrapped(text)
    # grouped by figure: one 'world' row naming the file set of both (listed once above the table)
    ref = re.search(rf"^  \[(\d+)\] {re.escape(str(out / 'worlds'))}/{{sea.sdf, sea.xml}}$", text, re.M)
    assert ref, text
    assert re.search(rf"^world\s+differs from line .*\[{ref[1]}\]$", text, re.M) and "rebuild" in text, text
    assert "sea.launch.py" in text  # the world's ROS 2 launch file is stale with it
    write_worlds([str(cfg)], out)
    assert _run(capsys, out, config=[cfg])[0] == 0
    sdf = out / "worlds" / "sea.sdf"
    sdf.write_text(sdf.read_text().replace("<enable>bluerov2::buoyancy_displacement</enable>", ""))
    shutil.rmtree(out / "blueboat")
    code, text, _ = _run(capsys, out / "worlds", config=[cfg])
    assert code == 1
    text = _unwrapped(text)
    refs = dict((m[2], m[1]) for m in re.finditer(r"^  \[(\d+)\] (\S+)$", text, re.M))  # file set -> [n]
    assert re.search(rf"^world\s+differs.*\[{refs[str(sdf)]}\]$", text, re.M), text
    assert re.search(rf"^vehicle files\s+\S+/blueboat/\S+\s+\[{refs[str(out / 'worlds' / 'sea.xml')]}\]\n\s+missing",
                     text, re.M), text


def test_numbers_and_tolerances():
    assert audit.numbers("[0.022465, -0.002024, 0.068371] m") == [(0.022465, 6), (-0.002024, 6), (0.068371, 6)]
    assert audit.numbers("+54.636 kg") == [(54.636, 3)]
    assert audit.printed_tol(6, 15.1) == pytest.approx(5e-7 + 1.51e-8)


def test_table_is_aligned():
    diffs = [audit.Difference("a.xml", "content", "total mass", "1", "2", 1.0, 5e-7, "x"),
             audit.Difference("long/path/b.sdf", "formats", "CoM", "[1, 2, 3]", "[1, 2, 4]", 1.0, 1e-9)]
    lines = audit.table(diffs).splitlines()
    assert lines[0].split()[:4] == ["file", "check", "figure", "found"]
    starts = {line.index("content") if "content" in line else line.index("formats") for line in lines[2:]}
    assert len(starts) == 1


def test_a_config_the_audit_cannot_use_is_an_error_not_ignored(boat, tmp_path, capsys):
    """--config naming a file no header names (or no file at all) used to be ignored silently:
    the audit then passed against the config the header's name finds, not the one the user
    meant. Exit 2 naming it; the matching config still audits clean."""
    cfg, d = boat
    other = tmp_path / "my_boat.yaml"
    shutil.copy(cfg, other)
    code, out, err = _run(capsys, d, config=[other])
    assert code == 2 and "clean" not in out
    assert f"--config {other}: no audited file was built from a config named 'my_boat.yaml'" in err
    assert "blueboat.yaml" in err, err
    code, _, err = _run(capsys, d, config=[tmp_path / "missing.yaml"])
    assert code == 2 and "missing.yaml: no such file" in err
    assert _run(capsys, d, config=[cfg])[0] == 0
