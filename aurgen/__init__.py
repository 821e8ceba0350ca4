"""aurgen: compose marine vehicles from a parts catalog, emit MJCF/SDF/URDF, simulate."""

__version__ = "0.1.0"


class SourceTreeError(ModuleNotFoundError):
    """aurgen.runtime imported from a source checkout that is not installed (see below)."""


def _source_tree_runtime_hint() -> None:
    """In a source checkout imported as it is (``python -m ...`` or ``python -c`` from the clone's
    root put it first on sys.path), ``aurgen.runtime`` is the folder ``runtime/`` beside this
    package, which only an install maps there: its import then fails with a message saying so
    and what to do, instead of a bare ModuleNotFoundError. An installed aurgen (wheel or
    editable) never gets here."""
    import sys
    from pathlib import Path

    here = Path(__file__).resolve().parent
    if (here / "runtime").is_dir() or not (here.parent / "runtime" / "__init__.py").is_file():
        return

    class _Hint:
        @staticmethod
        def find_spec(fullname, path=None, target=None):
            if fullname == "aurgen.runtime" or fullname.startswith("aurgen.runtime."):
                raise SourceTreeError(
                    f"aurgen was imported from its source tree ({here}), which has no aurgen.runtime: that is "
                    f"the folder {here.parent / 'runtime'} once installed. Run from another folder (`python -m "
                    "pytest` and `python -m aurgen` put the current folder first on sys.path; plain `pytest` "
                    "does not), or install aurgen editable (pip install -e .)", name=fullname)
            return None

    sys.meta_path.append(_Hint)


_source_tree_runtime_hint()
