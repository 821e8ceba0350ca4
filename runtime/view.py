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
    from .cli import _declares_environment
    from .sim import Simulation

    if water is None and not _declares_environment(model):
        water = 1025.0
    sim = Simulation(model, water=water)  # a file always gets the plugin instance (or a clear error)
    return sim.model, sim.data


def cli_view(args, launch=None) -> int:
    """Open the viewer (``launch(model, data)``, default ``mujoco.viewer.launch``); blocks until closed."""
    m, d = load(args.model, args.water)
    if launch is None:
        import mujoco.viewer

        launch = mujoco.viewer.launch
    launch(m, d)
    return 0
