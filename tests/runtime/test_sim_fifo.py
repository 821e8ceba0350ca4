"""A world whose included vehicle file is a FIFO (or a folder) is refused before MuJoCo opens it: MuJoCo's
read of a FIFO blocks forever, and ``aurgen sim`` of such a world hung. The refusal names the world, the
element and the file; exit 2, no traceback, nothing written."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from aurgen.cli import main

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")


@pytest.fixture
def world(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["worlds", "open_water"]) == 0
    return tmp_path / "build" / "worlds" / "open_water.xml"


@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_a_world_whose_vehicle_file_is_not_a_file_is_refused(world, kind, capsys):
    vehicle = world.parent.parent / "blueboat" / "blueboat.xml"
    vehicle.unlink()
    os.mkfifo(vehicle) if kind == "fifo" else vehicle.mkdir()
    # in a child with a deadline: the bug was a hang, which must fail the test, not stall the suite
    code = ("import sys; from aurgen.cli import main; "
            f"sys.exit(main(['sim', {str(world)!r}, '--duration', '0.1', '--quiet', '--out', 'o.csv']))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=world.parent)
    assert r.returncode == 2, r.stderr
    assert '<model file="../blueboat/blueboat.xml"> is not a regular file' in r.stderr and "Traceback" not in r.stderr
    assert not (world.parent / "o.csv").exists()


def test_the_same_world_with_its_files_still_runs(world):
    assert main(["sim", str(world), "--duration", "0.05", "--quiet"]) == 0
    shutil.rmtree(world.parent.parent / "blueboat")  # a missing file is MuJoCo's to name, as before
    assert main(["sim", str(world), "--duration", "0.05", "--quiet"]) == 2


@pytest.mark.parametrize("flag", [["--water", "1025"], ["--vacuum"]])
def test_a_hand_written_world_attaching_a_fifo_is_refused_with_water(tmp_path, flag):
    """The same FIFO behind a hand-written world run with --water (or --vacuum): the CLI read the file
    (MjSpec, to see whether it declares an environment) before the Simulation's own check, and hung."""
    (tmp_path / "wo").mkdir()
    (tmp_path / "vf").mkdir()
    world = tmp_path / "wo" / "w.xml"
    world.write_text('<mujoco><asset><model name="v" file="../vf/v.xml"/></asset><worldbody><frame name="v">'
                     '<attach model="v" body="base_link" prefix="v/"/></frame></worldbody></mujoco>')
    os.mkfifo(tmp_path / "vf" / "v.xml")
    code = ("import sys; from aurgen.cli import main; "
            f"sys.exit(main(['sim', 'wo/w.xml', *{flag!r}, '--duration', '0.01', '--quiet', '--out', 'o.csv']))")
    try:
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    except subprocess.TimeoutExpired:
        pytest.fail("aurgen sim hung on a world whose <model file> is a FIFO")
    assert r.returncode == 2, r.stderr
    assert '<model file="../vf/v.xml"> is not a regular file' in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert not (tmp_path / "o.csv").exists()
