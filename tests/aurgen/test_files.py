"""aurgen.files, the one writer: what it confines, where it may write."""

from __future__ import annotations

import os

import pytest

from aurgen.files import OutputError, confine, write_set


def test_the_root_itself_and_what_is_inside_it(tmp_path):
    root = tmp_path / "build" / "blueboat" / "report"
    root.mkdir(parents=True)
    assert confine(root, root) == root.resolve()
    assert confine(root, root / "report.md") == root.resolve() / "report.md"
    assert confine(tmp_path / "build", root / "x.png") == root.resolve() / "x.png"


def test_escapes_are_refused(tmp_path):
    root = tmp_path / "out"
    root.mkdir()
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", root / "link")
    for target in (root / ".." / "escaped.xml", tmp_path / "sibling" / "a.xml", root / "link" / "a.xml"):
        with pytest.raises(OutputError):
            confine(root, target)
    with pytest.raises(OutputError):
        write_set({root / "link" / "a.xml": "x"}, root=root)
    assert not list((tmp_path / "elsewhere").iterdir())


def test_a_set_into_a_new_folder_that_is_the_root(tmp_path):
    """`aurgen report` writes its set into the folder it names (the root itself)."""
    root = tmp_path / "build" / "blueboat" / "report"
    write_set({root / "report.md": "# r\n", root / "a.png": "png"}, root=root)
    write_set({root / "report.md": "# r2\n"}, root=root)  # again: its own folder now
    assert (root / "report.md").read_text() == "# r2\n" and (root / "a.png").read_text() == "png"
