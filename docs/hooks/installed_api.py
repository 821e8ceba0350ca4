"""MkDocs hook: the API pages document the INSTALLED aurgen, never the checkout.

The source tree is not the package: ``runtime/`` installs as ``aurgen.runtime`` (pyproject.toml,
``[tool.scikit-build] wheel.packages``), so griffe, reading ``aurgen`` from the repository's root,
would find no ``aurgen.runtime`` at all. Here mkdocstrings' Python handler is given one search
path, the folder the installed ``aurgen`` package lies in (its site-packages), found on
``sys.path`` with the repository's root left out (``python -m mkdocs`` puts the current folder
first). Without an installed aurgen, or with one that is not laid out as the wheel lays it out
(an editable install maps ``aurgen.runtime`` at import time, which griffe cannot follow), the
build stops with a one-line error saying what to do."""

from __future__ import annotations

import importlib.machinery
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority


def installed_root(repo: Path) -> Path:
    """The folder holding the installed ``aurgen`` package (site-packages), looked up on
    ``sys.path`` without ``repo`` (the checkout) or the current folder."""
    repo = repo.resolve()
    entries = [p for p in sys.path if p and Path(p).resolve() != repo]
    spec = importlib.machinery.PathFinder.find_spec("aurgen", entries)
    if spec is None or not spec.submodule_search_locations:
        raise PluginError("the API pages document the installed aurgen, and none is installed in this Python "
                          f"({sys.executable}): pip install '.[docs]' from the repository's root")
    package = Path(next(iter(spec.submodule_search_locations))).resolve()
    if package.parent == repo or not (package / "runtime" / "__init__.py").is_file():
        raise PluginError(f"the aurgen found ({package}) is not laid out as the wheel installs it (no "
                          "aurgen/runtime/ inside: an editable install or the source tree); install it as a wheel: "
                          "pip install '.[docs]'")
    return package.parent


@event_priority(100)  # before mkdocstrings makes its handler (it reads `paths` when it does)
def on_config(config, **kwargs):
    plugin = config["plugins"].get("mkdocstrings")
    if plugin is None:
        raise PluginError("mkdocs.yml names docs/hooks/installed_api.py but not the mkdocstrings plugin")
    python = plugin.config.handlers.setdefault("python", {})
    python["paths"] = [str(installed_root(Path(config["config_file_path"]).parent))]
    return config
