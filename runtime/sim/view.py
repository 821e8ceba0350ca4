"""``aurgen view <world-or-model> [--water RHO]``: the MuJoCo viewer with the runtime.

Loads the file as :class:`~aurgen.runtime.sim.Simulation` does (a world
carries its environment; a vehicle file gets open water, ``--water`` kg/m^3,
default 1025, surface z = 0), so the model holds the ``aurgen.hydrostatics``
plugin instance, and hands it to ``mujoco.viewer.launch``: the viewer's own
physics loop then applies buoyancy, drag and added mass, with no aurgen code
per step. Needs a display.
"""

from __future__ import annotations


def load(model: str, water: float | None = None):
    """(MjModel, MjData) of the file with the plugin instance attached, at its initial state."""
    from aurgen.runtime.sim.cli import _check_water, _declares_environment
    from aurgen.runtime.sim.simulation import Simulation

    _check_water(model, water)
    if water is None and not _declares_environment(model):
        water = 1025.0
    sim = Simulation(model, water=water)  # a file always gets the plugin instance (or a clear error)
    return sim.model, sim.data


def no_display_reason(platform: str, environ) -> str | None:
    """Why the viewer cannot open a window here, or None: on Linux (and the BSDs) GLFW needs an
    X11 or Wayland display, which ``DISPLAY`` or ``WAYLAND_DISPLAY`` names (over SSH: ``ssh -X``)."""
    if platform.startswith(("linux", "freebsd", "openbsd", "netbsd")) and not (
            environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY")):
        return "no display (DISPLAY and WAYLAND_DISPLAY are unset)"
    return None


def cli_view(args, launch=None) -> int:
    """Open the viewer (``launch(model, data)``, default ``mujoco.viewer.launch``); blocks until closed.
    The model is loaded (and its errors reported) first; then, for the real viewer, a machine
    with no display is a clear error instead of GLFW's "could not initialize"."""
    import os
    import sys

    from aurgen.core.errors import AurgenError

    m, d = load(args.model, args.water)
    if launch is None:
        why = no_display_reason(sys.platform, os.environ)
        if why:
            raise AurgenError(f"aurgen view: {why}: run it on a desktop or with X forwarding (ssh -X); "
                              f"'aurgen sim {args.model}' simulates without a window")
        import mujoco.viewer

        launch = mujoco.viewer.launch
    launch(m, d)
    return 0
