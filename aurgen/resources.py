"""Where the bundled data lives, installed or in a source checkout."""

from __future__ import annotations

from pathlib import Path

_PKG = Path(__file__).resolve().parent


def data_dir(name: str) -> Path:
    """Directory of bundled data ``name`` (templates, vehicles or worlds).

    Installed, the data sits inside the package (``aurgen/vehicles``); in a
    source checkout (editable install) it sits beside the package.
    """
    inside = _PKG / name
    if inside.is_dir():
        return inside
    return _PKG.parent / name


def catalog_dir() -> Path:
    """The bundled parts catalog, ``vehicles/parts``."""
    return data_dir("vehicles") / "parts"
