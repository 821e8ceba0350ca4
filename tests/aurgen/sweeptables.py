"""Helpers the sweep tests share: a sweep file in a folder, the table a run wrote, whether Ray is there."""

from __future__ import annotations

import csv
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
