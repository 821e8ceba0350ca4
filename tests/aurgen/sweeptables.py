"""Helpers the sweep tests share: a sweep file in a folder, and the table a run wrote."""

from __future__ import annotations

import csv
from pathlib import Path


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
