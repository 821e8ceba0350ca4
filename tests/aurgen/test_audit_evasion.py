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
    ("ctrlrange", "blueboat.xml", 'ctrlrange="-40.2 51.5"', 'ctrlrange="-4000 5000"'),
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
    edit(out / "blueboat" / "blueboat.xml", 'ctrlrange="-40.2 51.5"', 'ctrlrange="-4000 5000"')
    code, text = audit(capsys, out / "worlds" / "open_water.xml")
    assert code == 1 and "blueboat.xml" in text, text


def test_stale_rows_include_the_equilibrium(out, tmp_path, capsys, monkeypatch):
    from aurgen.config import resolve_config_path

    (tmp_path / "vehicles").mkdir()
    text = resolve_config_path("blueboat.yaml").read_text()
    assert "height: 0.18," in text
    (tmp_path / "vehicles" / "blueboat.yaml").write_text(text.replace("width: 0.18,", "width: 0.2,"))
    monkeypatch.chdir(tmp_path)
    code, text = audit(capsys, out / "blueboat" / "blueboat.xml")
    assert code == 1, text
    rows = {line.split()[2] for line in text.splitlines()[3:] if len(line.split()) > 2}
    assert {"draft", "GM_T"} <= rows, text


def test_json_output(out, capsys):
    edit(out / "blueboat" / "blueboat.xml", 'ctrlrange="-40.2 51.5"', 'ctrlrange="-4000 5000"')
    code = main(["audit", "--json", str(out / "blueboat")])
    doc = json.loads(capsys.readouterr().out)
    assert code == 1 and doc["status"] == "differences"
    assert any(d["found"].endswith('ctrlrange="-4000 5000"/>') for d in doc["differences"]), doc
    assert main(["audit", "--json", str(out / "bluerov2")]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "clean"


def test_table_columns_are_not_cut(out, capsys):
    edit(out / "blueboat" / "blueboat.xml", 'ctrlrange="-40.2 51.5"', 'ctrlrange="-4000 5000"')
    code, text = audit(capsys, out / "blueboat")
    line = next(x for x in text.splitlines() if 'ctrlrange="-4000 5000"' in x)
    assert 'ctrlrange="-4000 5000"/>' in line and 'ctrlrange="-40.2 51.5"/>' in line, line
