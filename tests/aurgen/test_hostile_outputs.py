"""Hostile output trees (issue 22): one writer that cannot be led outside the output root.

A link planted at every folder and file a command touches (the vehicle's folder, its marker, its
lock, each file it writes, the marker's staging name; the same for ``ros/`` and ``worlds/``),
pointing outside the root at a folder, a file or nowhere: the command exits 2 with one line naming
a symbolic link, and nothing anywhere changes (the fingerprint of the whole case folder, the outside
targets included). Before issue 22 a planted ``out/v/.aurgen.lock`` link created its target outside
the root (exit 0), and ``aurgen worlds`` wrote the vehicles before refusing a linked ``worlds/``.
"""

from __future__ import annotations

import os

import pytest

from aurgen.cli import main
from test_hostile import BOAT, fingerprint, good_build, setup_case  # noqa: F401 (the fixture)

WORLD = ("planes: {surface: {normal: [0, 0, 1], offset: 0}}\ncells: {water: {below: [surface], density: 1025}}\n"
         "vehicles: [{config: v.yaml}]\n")
BUILD = ["build", "v.yaml", "-o", "out"]
WORLDS = ["worlds", "w.yaml", "-o", "out"]
VEHICLE_PATHS = ["out/v", "out/v/.aurgen", "out/v/.aurgen.lock", "out/v/v.xml", "out/v/model.sdf", "out/v/v.urdf",
                 "out/v/model.config", "out/v/.aurgen.marker.tmp", "out/ros", "out/ros/.aurgen", "out/ros/.aurgen.lock",
                 "out/ros/v_bridge.yaml"]
WORLD_PATHS = ["out/worlds", "out/worlds/.aurgen", "out/worlds/.aurgen.lock", "out/worlds/w.xml", "out/worlds/w.sdf",
               "out/worlds/.aurgen.marker.tmp", "out/ros/w.launch.py"]
TARGETS = {"dir": "{ABS}/elsewhere", "file": "{ABS}/secret", "nowhere": "{ABS}/new"}

CASES = ([(f"build:{p}:{k}", BUILD, p, k) for p in VEHICLE_PATHS for k in TARGETS]
         + [(f"worlds:{p}:{k}", WORLDS, p, k) for p in VEHICLE_PATHS[:8] + WORLD_PATHS for k in TARGETS])


def _plant(work, abs_dir, rel, kind):
    p = work / rel
    (abs_dir / "elsewhere").mkdir(exist_ok=True)
    (abs_dir / "elsewhere" / "x").write_text("mine\n")
    (abs_dir / "secret").write_text("mine\n")
    if p.is_dir() and not p.is_symlink():
        import shutil

        shutil.rmtree(p)
    elif p.exists() or p.is_symlink():
        p.unlink()
    p.parent.mkdir(parents=True, exist_ok=True)
    p.symlink_to(TARGETS[kind].replace("{ABS}", str(abs_dir)))


def _refused(capsys, tmp_path, argv):
    before = fingerprint(tmp_path)
    code = main(argv)
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert code == 2, err
    assert err.startswith("aurgen: error: ") and err.count("\n") == 1, err
    after = fingerprint(tmp_path)
    assert after == before, sorted(set(after.items()) ^ set(before.items()))[:5]
    return err


@pytest.mark.parametrize("case,argv,rel,kind", CASES, ids=[c[0] for c in CASES])
def test_a_planted_link_is_never_followed(capsys, monkeypatch, tmp_path, good_build, case, argv, rel, kind):
    work, abs_dir = setup_case(tmp_path, good_build, {"v.yaml": BOAT, "w.yaml": WORLD})
    _plant(work, abs_dir, rel, kind)
    monkeypatch.chdir(work)
    err = _refused(capsys, tmp_path, argv)
    assert "symbolic link" in err or f"did not write ({os.path.basename(rel)})" in err, err
    assert not (abs_dir / "new").exists()


def test_the_case_ids_are_unique():
    assert len({c[0] for c in CASES}) == len(CASES)


def test_a_lock_in_an_unmarked_folder_is_not_aurgens(capsys, monkeypatch, tmp_path, good_build):
    """`.aurgen.lock` is aurgen's only where aurgen's marker is: in a folder of the user's it is theirs."""
    work, _ = setup_case(tmp_path, good_build, {"v.yaml": BOAT.replace("name: v", "name: w"),
                                                "out/w/.aurgen.lock": "the user's\n"})
    monkeypatch.chdir(work)
    assert "files aurgen did not write (.aurgen.lock)" in _refused(capsys, tmp_path, BUILD)


@pytest.mark.parametrize("what", ["dir", "file-link"])
def test_a_marker_that_is_not_a_file_leaves_nothing(capsys, monkeypatch, tmp_path, good_build, what):
    work, _ = setup_case(tmp_path, good_build, {"v.yaml": BOAT})
    marker = work / "out" / "v" / ".aurgen"
    marker.unlink()
    marker.mkdir() if what == "dir" else marker.symlink_to("v.xml")
    monkeypatch.chdir(work)
    assert ".aurgen" in _refused(capsys, tmp_path, BUILD)
    assert not [p for p in (work / "out" / "v").iterdir() if p.name.endswith(".tmp")]


def test_a_users_own_tmp_file_beside_a_set_is_kept(capsys, monkeypatch, tmp_path, good_build):
    work, _ = setup_case(tmp_path, good_build, {"v.yaml": BOAT, "out/v/.aurgen-notes.tmp": "my notes\n"})
    monkeypatch.chdir(work)
    assert main(BUILD) == 0, capsys.readouterr().err
    assert (work / "out" / "v" / ".aurgen-notes.tmp").read_text() == "my notes\n"


def test_a_stale_temp_the_marker_lists_is_removed(capsys, monkeypatch, tmp_path, good_build):
    work, _ = setup_case(tmp_path, good_build, {"v.yaml": BOAT, "out/v/.aurgen-0123456789ab.tmp": "half\n"})
    marker = work / "out" / "v" / ".aurgen"
    marker.write_text(marker.read_text() + "tmp .aurgen-0123456789ab.tmp\n")
    monkeypatch.chdir(work)
    assert main(BUILD) == 0, capsys.readouterr().err
    assert not (work / "out" / "v" / ".aurgen-0123456789ab.tmp").exists()
    assert not [x for x in marker.read_text().splitlines() if x.startswith("tmp ")]


def test_the_marker_lists_what_aurgen_wrote(good_build):
    lines = (good_build / "out" / "v" / ".aurgen").read_text().splitlines()
    assert {x for x in lines[2:]} == {"file v.xml", "file model.sdf", "file v.urdf", "file model.config",
                                      "file v_sitl.parm"}  # the boat's chassis declares ArduPilot wiring


def test_a_file_the_marker_does_not_list_is_not_replaced(capsys, monkeypatch, tmp_path, good_build):
    """A file of the user's with a target's name in a marked folder (no aurgen header, not listed)."""
    work, _ = setup_case(tmp_path, good_build, {"v.yaml": BOAT})
    marker = work / "out" / "ros" / ".aurgen"
    marker.write_text("\n".join(x for x in marker.read_text().splitlines() if "v_bridge" not in x) + "\n")
    (work / "out" / "ros" / "v_bridge.yaml").write_text("my own bridge\n")
    monkeypatch.chdir(work)
    assert "marker does not list" in _refused(capsys, tmp_path, BUILD)


def test_worlds_refuses_before_writing_a_vehicle(capsys, monkeypatch, tmp_path, good_build):
    """A linked worlds/ is refused before out/v is (re)written: the vehicle config changed, so a
    write would show in the fingerprint."""
    work, abs_dir = setup_case(tmp_path, good_build, {"v.yaml": BOAT.replace("y: 0.361", "y: 0.37"),
                                                      "w.yaml": WORLD, "out/worlds": "@link {ABS}"})
    monkeypatch.chdir(work)
    assert "symbolic link" in _refused(capsys, tmp_path, WORLDS)


LOOP_PATHS = ["out", "out/v", "out/ros", "out/ros/v_description", "out/ros/v_description/urdf"]


@pytest.mark.parametrize("rel", LOOP_PATHS)
def test_a_symlink_loop_is_refused_naming_it(capsys, monkeypatch, tmp_path, good_build, rel):
    """A link to itself (``ln -s loop loop``) where the build writes: ELOOP from the ROS package's
    check of another vehicle's package was a traceback; now one line naming the link, nothing written."""
    work, _ = setup_case(tmp_path, good_build, {"v.yaml": BOAT, "w.yaml": WORLD})
    p = work / rel
    if p.exists() and not p.is_symlink():
        import shutil

        shutil.rmtree(p)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.symlink_to(p.name)
    monkeypatch.chdir(work)
    err = _refused(capsys, tmp_path, BUILD)
    assert "symbolic link" in err and rel.split("/")[-1] in err, err
