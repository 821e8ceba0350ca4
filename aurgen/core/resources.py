"""Where the bundled data lives, installed or in a source checkout."""

from __future__ import annotations

from pathlib import Path

_PKG = Path(__file__).resolve().parent.parent  # aurgen/, this file being aurgen/core/resources.py


def data_dir(name: str) -> Path:
    """Directory of bundled data ``name`` (``templates``, ``vehicles``, ``worlds`` or ``sweeps``;
    ``templates_compiled`` exists only in a wheel, aurgen.emit.templating).

    Installed (a wheel), the data sits in ``aurgen/data/<name>``: plain folders with no
    ``__init__.py``, so none of them can shadow a module.  In a source checkout (an
    editable install) it sits beside the package, at ``<checkout>/<name>``.
    """
    installed = _PKG / "data" / name
    if installed.is_dir():
        return installed
    return _PKG.parent / name


def catalog_dir() -> Path:
    """The bundled parts catalog, ``vehicles/parts``."""
    return data_dir("vehicles") / "parts"
