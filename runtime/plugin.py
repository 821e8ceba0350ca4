"""The MuJoCo engine plugin ``aurgen.hydrostatics`` (runtime/native/plugin).

``import mujoco`` calls :func:`load` through the ``mujoco.plugins`` entry point
(pyproject.toml), so any MuJoCo host in this Python (``mujoco.viewer``,
``mujoco.batch``, ``mujoco.rollout``, a plain ``MjData`` loop) runs aurgen
worlds with their environment forces, and no aurgen code runs per step.

The library is bound to the MuJoCo version it was compiled against
(``_build_info.MUJOCO_VERSION``); :func:`load` refuses another version with an
ImportError that says how to fix it (MuJoCo reports it as a warning naming the
entry point), instead of loading a library that would crash.
"""
from __future__ import annotations

import ctypes
import sys
from importlib import metadata
from pathlib import Path

NAME = "aurgen.hydrostatics"
_handle = None


def library_path() -> Path:
    """The plugin library installed next to this module."""
    suffix = {"darwin": ".dylib", "win32": ".dll"}.get(sys.platform, ".so")
    return Path(__file__).with_name(f"libaurgen_hydrostatics{suffix}")


def built_for() -> str | None:
    """The mujoco version the plugin was compiled against (None for a source tree without a build)."""
    try:
        from aurgen.runtime._build_info import MUJOCO_VERSION
    except ImportError:
        return None
    return MUJOCO_VERSION


def _mujoco_version() -> str:
    """The installed mujoco's version, as the build recorded it (``mujoco.__version__``).

    ``import mujoco`` calls :func:`load` with its module already holding ``__version__``;
    reading it there spares a scan of the installed distributions' metadata (5 ms of every
    command that imports mujoco). Before mujoco is imported, the distribution's metadata says.
    """
    version = getattr(sys.modules.get("mujoco"), "__version__", None)
    return version if isinstance(version, str) else metadata.version("mujoco")


def load() -> None:
    """Load the plugin library once (it registers itself with MuJoCo)."""
    global _handle
    if _handle is not None:
        return
    want = built_for()
    have = _mujoco_version()
    if want is not None and want.split(".")[:2] != have.split(".")[:2]:
        raise ImportError(f"{NAME} was built against mujoco {want} but mujoco {have} is installed; "
                          f"reinstall aurgen (pip install --force-reinstall aurgen) or install mujoco=={want}")
    path = library_path()
    if not path.exists():
        raise ImportError(f"{NAME}: {path} is missing (aurgen was installed without its compiled runtime)")
    _handle = ctypes.CDLL(str(path))


# ---------------------------------------------------------------- the instance's refusals, in the plugin's words
# (runtime/native/plugin/schema.h kTrackWorld, kMinTimestep .. kMaxTimestep and kTimestepWhy; config.cc)


def track_world_refusal(name: str) -> str:
    """The plugin's words for a ``track`` config naming the world body (body 0, which never moves)."""
    from aurgen.runtime._native import TRACK_WORLD

    return f"config key 'track' is '{name}': {TRACK_WORLD}"


def timestep_limits() -> tuple:
    """(least, most, why): the timestep (s) the plugin takes, and why those bounds."""
    from aurgen.runtime._native import TIMESTEP_LIMITS

    return tuple(TIMESTEP_LIMITS)


def timestep_problem(dt, subject: str = "the model's timestep") -> str | None:
    """Why ``dt`` (s) is no timestep the plugin takes, in its words ("<subject> is ... s; expected ..."), or None."""
    lo, hi, why = timestep_limits()
    try:
        dt = float(dt)
    except (TypeError, ValueError):
        return f"{subject} is {dt!r}; expected a number of seconds"
    if lo <= dt <= hi:
        return None
    return f"{subject} is {dt:g} s; expected {lo:g} to {hi:g} s ({why})"
