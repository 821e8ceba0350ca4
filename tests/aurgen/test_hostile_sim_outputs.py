"""``aurgen sim --out/--plot`` through the link-safe writer, and the names aurgen's tree reserves (issue 22).

The run's CSV and plot are written relative to their folder's descriptor (aurgen.core.outdir.replace_file):
a link at the file is refused, never followed, and a folder swapped for a link while the run is being
written does not lead the write outside (before, the temp file and the rename went by path, through the
new link). A vehicle named ``report``, ``ros`` or ``worlds`` (any case) shared a folder with aurgen's own
(the audit skipped a vehicle named ``report``, and ``ros``'s files sat among the bridge files): refused,
naming the key.
"""

from __future__ import annotations

import os

import pytest

from aurgen.cli import main
from test_hostile import BOAT, fingerprint, good_build, run_refused, setup_case  # noqa: F401 (the fixture)

OPTIONS = {"--out": ("run.csv", "time [s],x [m]\n0.0,1.0\n"), "--plot": ("run.png", None)}


def _argv(option: str, target: str) -> list[str]:
    return ["sim", "out/v/v.xml", "--duration", "0.02", "--water", "1025", "--quiet", option, target]


# (id, what the target is: a link to ..., or a thing)
PLANTED = [("link-to-user-file", "@link {ABS}/secret"), ("link-to-aurgen-output", "@link {ABS}/ours"),
           ("link-dangling", "@link {ABS}/nowhere"), ("link-to-folder", "@link {ABS}"),
           ("link-relative-up", "@link ../../../abs/secret"), ("fifo", "@fifo"), ("folder", "@dir")]


@pytest.mark.parametrize("option", sorted(OPTIONS))
@pytest.mark.parametrize("case,what", PLANTED, ids=[c[0] for c in PLANTED])
def test_a_planted_output_is_never_followed(capsys, monkeypatch, tmp_path, good_build, option, case, what):
    name, ours = OPTIONS[option]
    work, abs_dir = setup_case(tmp_path, good_build, {})
    (abs_dir / "secret").write_text("a user's file\n")
    if ours is not None:
        (abs_dir / "ours").write_text(ours)
    target = work / name
    if what.startswith("@link "):
        target.symlink_to(what[6:].replace("{ABS}", str(abs_dir)))
    elif what == "@fifo":
        os.mkfifo(target)
    else:
        target.mkdir()
    monkeypatch.chdir(work)
    before = fingerprint(tmp_path / "abs"), fingerprint(work / "out")
    assert main(_argv(option, name)) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.startswith("aurgen: error: ") and err.count("\n") == 1, err
    assert option in err and name in err, err
    assert (fingerprint(tmp_path / "abs"), fingerprint(work / "out")) == before
    assert not [p for p in work.iterdir() if p.name.startswith(".aurgen-")]


def _swap_folder_for_link(folder, outside):
    """Move ``folder`` aside and plant a link to ``outside`` in its place (a hostile hand mid-run)."""
    os.rename(folder, str(folder) + "_moved")
    os.symlink(outside, folder)


@pytest.mark.parametrize("option", sorted(OPTIONS))
def test_a_folder_swapped_for_a_link_mid_write_is_not_followed(monkeypatch, tmp_path, good_build, option):
    """The fill runs (the CSV writer, savefig), then the folder is swapped for a link to ``outside``:
    the file lands in the folder that was checked (now ``d_moved``), nothing outside."""
    import aurgen.runtime.sim.cli as simcli

    name, _ = OPTIONS[option]
    work, _ = setup_case(tmp_path, good_build, {})
    d, outside = work / "d", tmp_path / "outside"
    d.mkdir()
    outside.mkdir()
    swapped = []

    def swap_first(fill):
        def wrapped(*args, **kwargs):
            if not swapped:
                _swap_folder_for_link(d, outside)
                swapped.append(True)
            return fill(*args, **kwargs)
        return wrapped

    if option == "--out":
        monkeypatch.setattr(simcli, "_csv", swap_first(simcli._csv))
    else:
        import matplotlib.figure

        monkeypatch.setattr(matplotlib.figure.Figure, "savefig", swap_first(matplotlib.figure.Figure.savefig))
    monkeypatch.chdir(work)
    assert main(_argv(option, f"d/{name}")) == 0
    assert swapped
    assert sorted(os.listdir(outside)) == []  # before: the temp file and the rename went through the link
    assert sorted(os.listdir(str(d) + "_moved")) == [name]


@pytest.mark.parametrize("option", sorted(OPTIONS))
def test_a_rerun_replaces_its_own_output_and_leaves_no_temp(capsys, monkeypatch, tmp_path, good_build, option):
    name, _ = OPTIONS[option]
    work, _ = setup_case(tmp_path, good_build, {})
    monkeypatch.chdir(work)
    assert main(_argv(option, name)) == 0
    first = (work / name).read_bytes()
    assert main(_argv(option, name)) == 0
    assert (work / name).read_bytes()[:8] == first[:8]
    assert (work / name).stat().st_mode & 0o777 == 0o666 & ~_umask()
    assert not [p for p in work.iterdir() if p.name.startswith(".aurgen-")]


def _umask() -> int:
    from aurgen.core.outdir import umask

    return umask()


@pytest.mark.parametrize("target", ["", ".", "..", "d/.."], ids=["empty", "dot", "dotdot", "d-dotdot"])
def test_an_output_that_names_no_file_is_refused(capsys, monkeypatch, tmp_path, good_build, target):
    work, _ = setup_case(tmp_path, good_build, {})
    (work / "d").mkdir()
    monkeypatch.chdir(work)
    before = fingerprint(work)
    assert main(_argv("--out", target)) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 1 and "--out" in err, err
    assert fingerprint(work) == before


# ---- names aurgen's output tree keeps for itself
RESERVED = [("name-report", {"v.yaml": BOAT.replace("name: v", "name: report")}, None,
             ["v.yaml:1:", "name:", "'report' is reserved", "another name"]),
            ("name-ros", {"v.yaml": BOAT.replace("name: v", "name: ros")}, None, ["v.yaml:1:", "'ros' is reserved"]),
            ("name-worlds", {"v.yaml": BOAT.replace("name: v", "name: worlds")}, None, ["'worlds' is reserved"]),
            ("name-ROS-case", {"v.yaml": BOAT.replace("name: v", "name: ROS")}, None, ["'ROS' is reserved"]),
            ("name-Report-case", {"v.yaml": BOAT.replace("name: v", "name: Report")}, None, ["'Report' is reserved"]),
            ("stem-report", {"report.yaml": BOAT.replace("name: v\n", "")}, ["build", "report.yaml", "-o", "out"],
             ["report.yaml", "'report' is reserved", "it is the file's name now"]),
            ("stem-ros", {"ros.yaml": BOAT.replace("name: v\n", "")}, ["build", "ros.yaml", "-o", "out"],
             ["ros.yaml", "'ros' is reserved"]),
            ("specs-name-ros", {"v.yaml": BOAT.replace("name: v", "name: ros")}, ["specs", "v.yaml"],
             ["'ros' is reserved"]),
            ("report-name-report", {"v.yaml": BOAT.replace("name: v", "name: report")},
             ["report", "v.yaml", "--quiet"], ["'report' is reserved"])]


@pytest.mark.parametrize("case,files,argv,expected", RESERVED, ids=[c[0] for c in RESERVED])
def test_reserved_vehicle_names_are_refused(capsys, monkeypatch, tmp_path, good_build, case, files, argv, expected):
    run_refused(capsys, monkeypatch, tmp_path, good_build, files, argv, expected)


def test_a_name_that_only_contains_a_reserved_word_builds(monkeypatch, tmp_path, good_build):
    work, _ = setup_case(tmp_path, good_build, {"v.yaml": BOAT.replace("name: v", "name: ros_boat")})
    monkeypatch.chdir(work)
    assert main(["build", "v.yaml", "-o", "out2"]) == 0
    assert (work / "out2" / "ros_boat" / "ros_boat.xml").is_file()
