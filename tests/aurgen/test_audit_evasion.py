"""The audit can't be fooled (issue 10): each evasion that once audited clean is now a difference.

Every case starts from a fresh, clean build (the audit of it exits 0: asserted), changes the files
the way the issue describes, and asserts the audit no longer exits 0. The reference is the edit
itself: a file that is not what aurgen wrote must never be called clean.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from aurgen.cli import main

HULL = "hull_displacement: {length: 1.05, width: 0.18, height: 0.18, x: 0.027, y: 0.361, z: 0.059, segments: 6}\n"


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    root = tmp_path_factory.mktemp("clean")
    assert main(["build", "blueboat.yaml", "bluerov2.yaml", "-o", str(root / "out")]) == 0
    assert main(["worlds", "open_water", "-o", str(root / "out")]) == 0
    return root


@pytest.fixture
def out(clean, tmp_path, capsys):
    shutil.copytree(clean / "out", tmp_path / "out", symlinks=True)
    capsys.readouterr()
    assert main(["audit", str(tmp_path / "out")]) == 0, capsys.readouterr().out
    capsys.readouterr()
    return tmp_path / "out"


def audit(capsys, *paths):
    code = main(["audit", *map(str, paths)])
    cap = capsys.readouterr()
    assert "Traceback" not in cap.err
    return code, cap.out + cap.err


def edit(path: Path, old: str, new: str, count: int = 1):
    text = path.read_text()
    assert text.count(old) >= count, (old, path)
    path.write_text(text.replace(old, new, count))


EDITS = [  # (id, file, old, new): physics edits that keep the mass
    ("freejoint-removed", "blueboat.xml", '      <freejoint name="root"/>\n', ""),
    ("ctrlrange", "blueboat.xml", 'ctrlrange="-39.9130655 51.4849125"', 'ctrlrange="-4000 5000"'),
    ("gear-sign", "blueboat.xml", 'gear="1.0 0.0 0.0 0.0 0.0 0.0"', 'gear="-1.0 0.0 0.0 0.0 0.0 0.0"'),
    ("damping", "blueboat.xml", "0.0 -20.0 0.0", "0.0 2000.0 0.0"),
    ("collision-box-x10", "blueboat.xml", 'size="0.219559 0.0785515 0.039972" pos="-0.002666 0.368156 0.131239" '
     'group="0"', 'size="2.19559 0.785515 0.39972" pos="-0.002666 0.368156 0.131239" group="0"'),
    ("visual-removed", "blueboat.xml", '<geom name="base_link_visual_0"', '<!-- x --><geom name="x"'),
    ("model-config", "model.config", "<model>", "<model><!-- edited -->"),
    ("sdf-joint-axis", "model.sdf", "<xyz>1.0 0.0 0.0</xyz>", "<xyz>0.0 0.0 1.0</xyz>"),
    ("urdf-limit", "blueboat.urdf", "<robot", "<!-- x --><robot"),
]


@pytest.mark.parametrize("case,fname,old,new", EDITS, ids=[e[0] for e in EDITS])
def test_physics_edit_is_a_difference(out, capsys, case, fname, old, new):
    edit(out / "blueboat" / fname, old, new)
    code, text = audit(capsys, out / "blueboat")
    assert code == 1, text
    assert fname in text and "fresh build" in text


def test_mixed_set_from_two_configs_of_one_name(out, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.yaml").write_text("name: v\nbase: {type: blueboat_chassis}\n" + HULL)
    (tmp_path / "b.yaml").write_text("name: v\nbase: {type: blueboat_chassis}\n" + HULL.replace("width: 0.18", "width: 0.2"))
    assert main(["build", "a.yaml", "-o", "out"]) == 0
    keep = (out / "v" / "model.sdf").read_bytes()
    assert main(["build", "b.yaml", "-o", "out"]) == 0
    (out / "v" / "model.sdf").write_bytes(keep)
    capsys.readouterr()
    code, text = audit(capsys, out / "v")
    assert code == 1 and "mixed set" in text, text


@pytest.mark.parametrize("src,dst", [("bluerov2/model.sdf", "blueboat/model.sdf"),
                                     ("bluerov2/bluerov2.xml", "blueboat/blueboat.xml"),
                                     ("bluerov2/bluerov2.xml", "blueboat/bluerov2.xml")])
def test_another_vehicles_file_in_the_folder(out, capsys, src, dst):
    shutil.copy(out / src, out / dst)
    code, text = audit(capsys, out / "blueboat")
    assert code == 1, text


def test_header_line_deleted(out, capsys):
    p = out / "blueboat" / "blueboat.xml"
    p.write_text(p.read_text().split("\n", 1)[1])
    code, text = audit(capsys, out / "blueboat")
    assert code == 1 and "blueboat.xml" in text and "not an aurgen file" in text, text


def test_files_deleted(out, capsys):
    (out / "blueboat" / "model.sdf").unlink()
    (out / "blueboat" / "blueboat.xml").unlink()
    code, text = audit(capsys, out / "blueboat")
    assert code == 1 and "model.sdf" in text and "blueboat.xml" in text and "missing" in text, text


def test_garbage_file(out, capsys):
    (out / "blueboat" / "blueboat.xml").write_text("garbage")
    code, text = audit(capsys, out / "blueboat")
    assert code == 1 and "not an aurgen file" in text, text


def test_garbage_after_a_header_is_unreadable(out, capsys):
    p = out / "blueboat" / "blueboat.xml"
    p.write_text(p.read_text().split("\n", 1)[0] + "\ngarbage\n")
    code, text = audit(capsys, out / "blueboat")
    assert code == 2, text


def test_world_follows_its_vehicles(out, capsys):
    edit(out / "blueboat" / "blueboat.xml", 'ctrlrange="-39.9130655 51.4849125"', 'ctrlrange="-4000 5000"')
    code, text = audit(capsys, out / "worlds" / "open_water.xml")
    assert code == 1 and "blueboat.xml" in text, text


def test_stale_rows_include_the_equilibrium(out, tmp_path, capsys, monkeypatch):
    from aurgen.config.vehicle import resolve_config_path

    (tmp_path / "vehicles").mkdir()
    text = resolve_config_path("blueboat.yaml").read_text()
    assert "height: 0.18," in text
    (tmp_path / "vehicles" / "blueboat.yaml").write_text(text.replace("width: 0.18,", "width: 0.2,"))
    monkeypatch.chdir(tmp_path)
    code, text = audit(capsys, out / "blueboat" / "blueboat.xml")
    assert code == 1, text
    rows = {line.split()[0] for line in text.splitlines() if line and not line[0].isspace()}  # the stale table
    assert {"draft", "GM_T"} <= rows, text


def test_json_output(out, capsys):
    edit(out / "blueboat" / "blueboat.xml", 'ctrlrange="-39.9130655 51.4849125"', 'ctrlrange="-4000 5000"')
    code = main(["audit", "--json", str(out / "blueboat")])
    doc = json.loads(capsys.readouterr().out)
    assert code == 1 and doc["status"] == "differences"
    assert any(d["figure"].endswith(" ctrlrange") and d["found"] == "-4000 5000" and d["expected"] == "-39.9130655 51.4849125"
               for d in doc["differences"]), doc
    assert main(["audit", "--json", str(out / "bluerov2")]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "clean"


def test_table_columns_are_not_cut(out, capsys):
    edit(out / "blueboat" / "blueboat.xml", 'ctrlrange="-39.9130655 51.4849125"', 'ctrlrange="-4000 5000"')
    code, text = audit(capsys, out / "blueboat")
    line = next(x for x in text.splitlines() if "-4000 5000" in x)
    assert "general[motor_port] ctrlrange" in line and "-39.9130655 51.4849125" in line and "fresh build" in line, line


# ---- the render compare reads meaning: element, attribute, numbers to 1e-9 relative (aurgen.check.xmldiff)

def _line_of(path: Path, text: str) -> int:
    return next(i + 1 for i, line in enumerate(path.read_text().splitlines()) if text in line)


def _render_rows(doc) -> list:
    return [d for d in doc["differences"] if d["check"] == "render"]


def audit_json(capsys, path):
    code = main(["audit", "--json", str(path)])
    return code, json.loads(capsys.readouterr().out)


SEMANTIC = [  # (id, file, old, new, marker of the line to blame, figure, found, expected)
    ("ctrlrange", "blueboat.xml", 'ctrlrange="-39.9130655 51.4849125"', 'ctrlrange="-4000 5000"', "-4000 5000",
     "general[motor_port] ctrlrange", "-4000 5000", "-39.9130655 51.4849125"),
    ("gear-sign", "blueboat.xml", 'gear="1.0 0.0 0.0 0.0 0.0 0.0"', 'gear="-1.0 0.0 0.0 0.0 0.0 0.0"',
     'gear="-1.0', "general[motor_port] gear", "-1.0 0.0 0.0 0.0 0.0 0.0", "1.0 0.0 0.0 0.0 0.0 0.0"),
    ("damping-entry", "blueboat.xml", "0.0 -20.0 0.0", "0.0 2000.0 0.0", "2000.0",
     "numeric[aurgen:damping_linear:base_link] data[21]", "2000.0", "-20.0"),
    ("freejoint-removed", "blueboat.xml", '      <freejoint name="root"/>\n', "", '<body name="base_link"',
     "body[base_link] (element)", "(absent)", '<freejoint name="root">'),
    ("sdf-joint-axis", "model.sdf", "<xyz>1.0 0.0 0.0</xyz>", "<xyz>0.0 0.0 1.0</xyz>", "<xyz>0.0 0.0 1.0</xyz>",
     "joint[motor_port_joint]/axis/xyz (text)", "0.0 0.0 1.0", "1.0 0.0 0.0"),
    ("specs-row", "blueboat.urdf", "total mass:         17.3", "total mass:         99.3", "total mass:",
     "(top) (comment)", "total mass:         99.300000 kg", "total mass:         17.300000 kg"),
]


@pytest.mark.parametrize("fname,old,new,marker,figure,found,expected", [c[1:] for c in SEMANTIC],
                         ids=[c[0] for c in SEMANTIC])
def test_render_rows_name_element_and_attribute(out, capsys, fname, old, new, marker, figure, found, expected):
    path = out / "blueboat" / fname
    edit(path, old, new)
    code, doc = audit_json(capsys, out / "blueboat")
    assert code == 1
    rows = [d for d in _render_rows(doc) if d["figure"] == figure]
    assert len(rows) == 1, _render_rows(doc)
    assert rows[0]["file"] == f"{path}:{_line_of(path, marker)}"
    assert (rows[0]["found"], rows[0]["expected"]) == (found, expected)


def test_numbers_agree_to_1e_9_relative(out, capsys):
    """A number rewritten within 1e-9 relative (another notation, a last-digit change) means the same;
    one changed by 1e-8 relative is a difference, reported with its size and tolerance."""
    path = out / "blueboat" / "blueboat.xml"
    original = path.read_text()
    near = -39.9130655 * (1 + 2e-10)
    assert repr(near) != "-39.9130655"
    edit(path, 'ctrlrange="-39.9130655 51.4849125"', f'ctrlrange="{near!r} 5.14849125e1"')
    edit(path, '<freejoint name="root"/>', '<freejoint   name="root" />')  # whitespace inside a tag
    assert audit_json(capsys, out / "blueboat")[0] == 0
    path.write_text(original)
    far = -39.9130655 * (1 + 1e-8)
    edit(path, 'ctrlrange="-39.9130655 51.4849125"', f'ctrlrange="{far!r} 51.4849125"')
    code, doc = audit_json(capsys, out / "blueboat")
    assert code == 1
    (row,) = _render_rows(doc)
    assert row["figure"] == "general[motor_port] ctrlrange"
    assert row["diff"] == pytest.approx(abs(far + 39.9130655), rel=1e-6)
    assert row["tol"] == pytest.approx(1e-9 * abs(far), rel=1e-6)


def test_another_root_falls_back_to_the_line_diff(out, capsys):
    path = out / "blueboat" / "blueboat.xml"
    edit(path, '<mujoco model="blueboat">', '<mujo model="blueboat">')
    edit(path, "</mujoco>", "</mujo>")
    code, doc = audit_json(capsys, out / "blueboat")
    assert code == 1
    (row,) = _render_rows(doc)
    line = _line_of(path, '<mujo model="blueboat">')
    assert row["file"] == f"{path}:{line}" and row["figure"] == "content"
    assert (row["found"], row["expected"]) == ('<mujo model="blueboat">', '<mujoco model="blueboat">')


def test_many_differences_are_capped_with_a_count(out, capsys):
    from aurgen.check.audit_fresh import MAX_RENDER_ROWS

    path = out / "blueboat" / "blueboat.xml"
    n = path.read_text().count('contype="0"')
    assert n > MAX_RENDER_ROWS
    edit(path, 'contype="0"', 'contype="5"', count=n)
    code, doc = audit_json(capsys, out / "blueboat")
    rows = _render_rows(doc)
    assert code == 1 and len(rows) == MAX_RENDER_ROWS + 1
    assert rows[-1]["found"] == f"{n - MAX_RENDER_ROWS} more differences"


@pytest.mark.parametrize("old,new,figure,found,expected", [
    ('timestep="0.002"', 'timestep="0.01"', "mujoco/option timestep", "0.01", "0.002"),
    ('<frame name="blueboat" pos="0.0 0.0 0.05"', '<frame name="blueboat" pos="0.0 0.0 0.5"', "frame[blueboat] pos",
     "0.0 0.0 0.5", "0.0 0.0 0.05"),
])
def test_world_edit_names_element_and_attribute(out, capsys, old, new, figure, found, expected):
    path = out / "worlds" / "open_water.xml"
    edit(path, old, new)
    code, doc = audit_json(capsys, path)
    assert code == 1
    rows = [d for d in doc["differences"] if d["figure"] == figure]
    assert len(rows) == 1, doc["differences"]
    assert rows[0]["file"] == f"{path}:{_line_of(path, new)}"
    assert (rows[0]["found"], rows[0]["expected"]) == (found, expected)


def test_world_with_the_same_meaning_is_current(out, capsys):
    path = out / "worlds" / "open_water.xml"
    edit(path, 'timestep="0.002"', 'timestep="2e-3"')
    assert audit_json(capsys, path)[0] == 0


@pytest.mark.parametrize("folder, name, copy_of", [
    ("blueboat", ".blueboat.xml", "blueboat.xml"),  # an edited copy, hidden beside the set
    ("blueboat", ".notes", None),
    ("blueboat", ".aurgen-notes.tmp", None),  # aurgen's temp prefix, but no marker lists it
    ("worlds", ".open_water.xml", "open_water.xml"),
])
def test_a_dot_file_in_a_set_folder_is_named(out, capsys, folder, name, copy_of):
    """Every file in a set folder that aurgen did not write is named, hidden ones too (issue 45: an
    edited ``.blueboat.xml`` beside the set audited clean); only aurgen's marker and lock are its own."""
    target = out / folder / name
    if copy_of:
        target.write_text((out / folder / copy_of).read_text().replace("<mujoco", "<mujoco ", 1))
    else:
        target.write_text("mine\n")
    code, text = audit(capsys, out / folder)
    assert code == 1 and name in text and "not an aurgen file" in text, text
    code, text = audit(capsys, out)
    assert code == 1 and name in text, text
