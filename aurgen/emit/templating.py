"""The one Jinja environment over the bundled templates, compiled once per wheel.

Jinja compiles a template to Python source and then to bytecode; for the
bundled templates that was about 30 ms of every cold ``aurgen build`` (238 ->
210 ms, measured from a venv).  The
wheel's build runs :func:`compile_templates` (runtime/native/CMakeLists.txt),
which writes the compiled templates to
``aurgen/data/templates_compiled/`` with a manifest: the jinja2 version, the
environment's options and each template's sha256.  :func:`environment` loads
those modules (Jinja's ``ModuleLoader``) only when the manifest matches the
installed jinja2 and the templates as they are; otherwise (a source checkout,
another jinja2) it compiles the templates from source.  Either way the output
is the same text.

Imports only jinja2 and the standard library, so the build can run it with
nothing of aurgen installed.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

MANIFEST = "manifest.json"
FILTERS = ("f", "v")  # the emitters' number and vector formatters (aurgen.emit.render.num, vec)
OPTIONS = {"trim_blocks": True, "lstrip_blocks": True, "keep_trailing_newline": True}


def _make(loader, filters: dict):
    import jinja2

    env = jinja2.Environment(loader=loader,
                             autoescape=jinja2.select_autoescape(default=True, default_for_string=True),
                             undefined=jinja2.StrictUndefined, **OPTIONS)
    env.filters.update(filters)
    return env


def _unused(x):
    """A filter's stand-in at compile time (Jinja checks the name; the module looks the
    function up in the environment that runs it)."""
    raise AssertionError("compile-time stand-in called")


def manifest(src: Path) -> dict:
    """What compiled templates were made from: jinja2's version, the options, and
    each template's sha256 (the ``*.j2`` files of ``src``)."""
    import jinja2

    return {"jinja2": jinja2.__version__, "options": sorted(OPTIONS.items()), "filters": list(FILTERS),
            "templates": {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(src.glob("*.j2"))}}


def compile_templates(src: Path, out: Path) -> None:
    """Compile every template of ``src`` into ``out`` (Python modules and the manifest)."""
    import jinja2

    env = _make(jinja2.FileSystemLoader(str(src)), {name: _unused for name in FILTERS})
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("tmpl_*.py"):  # a template since removed leaves no module behind
        old.unlink()
    env.compile_templates(str(out), zip=None, ignore_errors=False,
                          filter_func=lambda name: name.endswith(".j2"))
    (out / MANIFEST).write_text(json.dumps(manifest(src), indent=1, sort_keys=True) + "\n")


def compiled_matches(src: Path, compiled: Path) -> bool:
    """Whether ``compiled`` holds ``src``'s templates compiled by this jinja2 and these options."""
    try:
        return json.loads((compiled / MANIFEST).read_text()) == json.loads(json.dumps(manifest(src)))
    except (OSError, ValueError):
        return False


def environment(src: Path, compiled: Path, filters: dict):
    """The environment over the templates in ``src``: from ``compiled`` when it
    matches them, else compiled from source.  ``filters``: the functions for
    :data:`FILTERS`."""
    import jinja2

    if set(filters) != set(FILTERS):
        raise ValueError(f"filters {sorted(filters)}, expected {sorted(FILTERS)}")
    if compiled_matches(src, compiled):
        return _make(jinja2.ModuleLoader(str(compiled)), filters)
    return _make(jinja2.FileSystemLoader(str(src)), filters)
