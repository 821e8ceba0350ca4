"""A slot occupant's composed name (carrier_slot, to the end of a chain of nested slots marked
``carrier_prefix``, or where the slot's name is taken) longer than
a name may be (limits.NAME_MAX) is refused: exit 2, one line naming the config, the key that placed
the chain (or the entry), the slot chain, the limit and what to do; nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest

from aurgen.cli import main
from aurgen.core import limits

BOX = "collision: [{shape: box, size: [0.05, 0.06, 0.06]}]\n"


def _tree(tmp_path: Path, slots: list[str], entry: str = "") -> Path:
    """A vehicle on a hull whose slot chain ``slots`` fills by catalog defaults (part c<i> in slot i)."""
    parts = tmp_path / "parts"
    parts.mkdir()
    types = ["hull"] + [f"c{i}" for i in range(len(slots))]
    for i, t in enumerate(types):
        text = f"description: {t}\nmass: 1\n{BOX}"
        if i < len(slots):
            text += f"slots:\n  {slots[i]}:\n    xyz: [0, 0, 0.1]\n    default: {types[i + 1]}\n"
            if i:  # a nested slot named under its carrier (a nested slot's occupant takes the slot's name otherwise)
                text += "    carrier_prefix: true\n"
        (parts / f"{t}.yaml").write_text(text)
    cfg = tmp_path / "v.yaml"
    cfg.write_text("name: v\nbase: {type: hull}\nbuoyancy: {net_buoyancy: 0.1}\n" + entry)
    return cfg


def _run(tmp_path, capsys, monkeypatch, *argv) -> tuple[int, str]:
    monkeypatch.chdir(tmp_path)
    code = main(list(argv))
    return code, capsys.readouterr().err


def test_a_default_chain_too_long_is_refused(tmp_path, capsys, monkeypatch):
    slots = ["s" + "a" * 24, "s" + "b" * 24, "s" + "c" * 24]  # the third occupant: 25*3 + 2 = 77 characters
    _tree(tmp_path, slots)
    code, err = _run(tmp_path, capsys, monkeypatch, "build", "v.yaml", "-o", "out")
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err
    line = lines[0]
    assert line.startswith("aurgen: error: ") and "v.yaml:2: base.type:" in line  # the config, the key placing it
    assert f"'base_link' -> slot '{slots[0]}' -> slot '{slots[1]}' -> slot '{slots[2]}'" in line
    assert f"77 characters: a name has at most {limits.NAME_MAX}" in line
    assert f"{{slot: {slots[2]}, of: {slots[0]}_{slots[1]}, name: <shorter>}}" in line
    assert str(tmp_path / "parts" / "c1.yaml") in line  # the catalog file of the slot to rename
    assert not (tmp_path / "out").exists()


def test_an_unnamed_entry_too_long_is_refused_and_a_named_one_composes(tmp_path, capsys, monkeypatch):
    a, b = "a" * 60, "b" * 60
    cfg = _tree(tmp_path, [a, b], f"parts:\n  - {{slot: {b}, of: {a}, type: c1}}\n")
    code, err = _run(tmp_path, capsys, monkeypatch, "build", "v.yaml", "-o", "out")
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "v.yaml:5: parts[0]:" in err and "121 characters" in err and "give the entry a name:" in err
    assert not (tmp_path / "out").exists()
    cfg.write_text(cfg.read_text().replace("type: c1}", "type: c1, name: leaf}"))
    code, err = _run(tmp_path, capsys, monkeypatch, "build", "v.yaml", "-o", "out")
    assert code == 0, err
    assert 'name="leaf"' in (tmp_path / "out" / "v" / "v.xml").read_text()


@pytest.mark.parametrize("length,ok", [(limits.NAME_MAX, True), (limits.NAME_MAX + 1, False)])
def test_the_limit_is_the_name_limit(tmp_path, capsys, monkeypatch, length, ok):
    first = "a" * 20
    second = "b" * (length - len(first) - 1)  # the occupant: first_second, ``length`` characters
    _tree(tmp_path, [first, second])
    code, err = _run(tmp_path, capsys, monkeypatch, "specs", "v.yaml")
    assert code == (0 if ok else 2), err
    if not ok:
        assert f"{length} characters" in err
