"""Helpers the sweep tests share: a sweep file in a folder, the table a run wrote, whether Ray is there."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

#: a sweep file's parts: section declaring a payload box whose mass the sweeps vary
PAYLOAD_PART = """\
parts:
  payload:
    description: a payload box of swept mass
    mass: 1.0
    collision: [{shape: box, size: [0.2, 0.2, 0.1]}]
"""


def write(tmp_path, text, name="sweep.yaml") -> Path:
    """``text`` as ``tmp_path/name``."""
    p = tmp_path / name
    p.write_text(text)
    return p


def table(folder: Path) -> list[dict]:
    """The rows of ``folder/sweep.csv`` (strings, as written)."""
    with open(folder / "sweep.csv", newline="") as fh:
        return list(csv.DictReader(fh))


def num(text):
    """A table cell as a float (None for an empty cell)."""
    return float(text) if text != "" else None


def have_ray() -> bool:
    """Whether Ray (the scale extra) imports."""
    try:
        import ray  # noqa: F401
    except ImportError:
        return False
    return True


def run_aurgen(args, cwd: Path) -> subprocess.CompletedProcess:
    """``python -m aurgen <args>`` in a process of its own, run from ``cwd`` (:func:`run_python`)."""
    return run_python(["-m", "aurgen", *args], cwd)


def run_python(args, cwd: Path) -> subprocess.CompletedProcess:
    """``python <args>`` in a process of its own, run from ``cwd``, with a Ray temp folder of its own
    (RAY_TMPDIR, where Ray keeps its sessions): a Ray sweep's driver. Ray ends the process that drives
    it when its cluster stops answering (on a loaded machine), which would take a test worker down with
    it; and Ray puts the driver's working directory first on every Ray worker's sys.path, so ``cwd`` is
    kept out of any checkout. ``--ray auto`` still finds any cluster on the machine (it scans the
    processes): tests that start or join one take conftest.py's ``ray_alone``."""
    import os
    import shutil
    import tempfile

    ray_tmp = tempfile.mkdtemp(prefix="ray", dir="/tmp")  # short: Ray's socket paths must fit 107 bytes
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"} | {"RAY_TMPDIR": ray_tmp}
    try:
        return subprocess.run([sys.executable, *map(str, args)], cwd=cwd, capture_output=True,
                              text=True, timeout=900, env=env)
    finally:
        shutil.rmtree(ray_tmp, ignore_errors=True)
