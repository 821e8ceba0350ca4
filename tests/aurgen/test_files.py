"""aurgen.core.files, the one writer: what it confines, where it may write."""

from __future__ import annotations

import os

import pytest

from aurgen.core.files import OutputError, confine, write_set


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


def test_a_folder_the_system_refuses_is_an_output_error_naming_it(tmp_path):
    """The operating system's refusal (here: a file where the folder should be) is an
    OutputError naming the path, not an OSError; no temp file is left behind."""
    from aurgen.core.files import append_text, claim_dir, write_with

    blocker = tmp_path / "not_a_folder"
    blocker.write_text("a user's file\n")
    calls = [lambda: write_with(blocker / "run.csv", lambda tmp: tmp.write_text("t,z\n")),
             lambda: write_set({blocker / "sub" / "a.xml": "x"}, root=blocker / "sub"),
             lambda: claim_dir(blocker / "sub"),
             lambda: append_text(blocker / "sub" / "j.jsonl", "{}\n", root=blocker / "sub")]
    for call in calls:
        with pytest.raises(OutputError, match=r"not_a_folder(/sub)?: cannot write there \("):
            call()
    assert blocker.read_text() == "a user's file\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["not_a_folder"]


@pytest.mark.parametrize("argv", [["report", "blueboat.yaml", "-o", "{blocker}/report"],
                                  ["build", "blueboat.yaml", "-o", "{blocker}/build"],
                                  ["sim", "{world}", "--water", "1025", "--duration", "0.02", "--plot", "/proc/aurgen-z.png"]])
def test_cli_unwritable_output_is_exit_2_without_traceback(tmp_path, capsys, argv):
    """A folder the system refuses (a file in the way; /proc, which nobody may write) is bad
    input: exit 2, the path and the reason, no traceback, the user's file untouched."""
    from aurgen.cli import main

    blocker = tmp_path / "not_a_folder"
    blocker.write_text("a user's file\n")
    world = tmp_path / "w"
    assert main(["build", "blueboat.yaml", "-o", str(world)]) == 0
    capsys.readouterr()
    args = [a.format(blocker=blocker, world=world / "blueboat" / "blueboat.xml") for a in argv]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    last = err.strip().splitlines()[-1]  # after the report's progress lines
    assert last.startswith("aurgen: error: ") and "cannot write there" in last, err
    assert "not_a_folder" in last or "/proc" in last, err
    assert blocker.read_text() == "a user's file\n"


def test_write_with_replaces_only_what_its_owner_test_recognises(tmp_path):
    """write_with(..., ours=...) re-checks at write time: a file that appeared meanwhile and is
    not aurgen's is left alone (OutputError), a file that is aurgen's is replaced."""
    from aurgen.core.files import write_with

    target = tmp_path / "run.csv"
    target.write_text("someone else's\n")
    ours = lambda head: head.startswith(b"time [s],")  # noqa: E731
    with pytest.raises(OutputError, match="exists and is not a file aurgen wrote"):
        write_with(target, lambda tmp: tmp.write_text("time [s],z\n"), ours=ours)
    assert target.read_text() == "someone else's\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.csv"]
    target.write_text("time [s],z [m]\n0,1\n")
    write_with(target, lambda tmp: tmp.write_text("time [s],z [m]\n0,2\n"), ours=ours)
    assert target.read_text() == "time [s],z [m]\n0,2\n"
