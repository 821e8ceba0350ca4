"""aurgen.runtime: the hydrostatic engine on MuJoCo (importable as ``aurgen.runtime``).

The force stage's JIT-compiled (numba) kernels cache their machine code in a
per-user cache directory, never inside the installed package (a cache there
outlives ``pip uninstall`` and turns ``aurgen`` into a namespace package):
``$AURGEN_CACHE_DIR`` if set, else the platform's user cache
(``~/.cache/aurgen`` on Linux), in a folder per aurgen version. A
``NUMBA_CACHE_DIR`` the user set is left alone.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from aurgen import __version__


def cache_dir() -> Path:
    """Where compiled kernels are cached: ``$AURGEN_CACHE_DIR`` or the user cache, per version."""
    base = os.environ.get("AURGEN_CACHE_DIR")
    if not base:
        import platformdirs

        base = platformdirs.user_cache_dir("aurgen", appauthor=False)
    return Path(base) / f"jit-{__version__}"


if "NUMBA_CACHE_DIR" not in os.environ:
    os.environ["NUMBA_CACHE_DIR"] = str(cache_dir())
    if "numba" in sys.modules:  # imported before us: its config has read the environment already
        sys.modules["numba"].config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"]

_noted = False


def note_first_compile() -> None:
    """One line on stderr when the JIT cache is empty: the next call compiles (tens of seconds)."""
    global _noted
    if _noted:
        return
    _noted = True
    d = Path(os.environ["NUMBA_CACHE_DIR"])
    if not any(d.rglob("*.nbi")) if d.is_dir() else True:
        print(f"aurgen: compiling the runtime's kernels once (first run; about 20-40 s; cached in {d})",
              file=sys.stderr)
