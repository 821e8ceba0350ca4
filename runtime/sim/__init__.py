"""The simulation on MuJoCo: ``Simulation``, the plan the plugin's forces run from, health, the commands.

What a MuJoCo host runs: a world or vehicle MJCF loaded and stepped with the engine plugin
``aurgen.hydrostatics`` (runtime/native/plugin) attached (``simulation``, ``loading``, ``attach``),
the arrays of its force stage (``plan``, ``forces``, ``added_mass``), its health and MuJoCo's
warnings (``health``, ``mjwarn``), and the ``aurgen sim`` and ``aurgen view`` commands (``cli``,
``view``). Imported by the time-domain analyses (aurgen.analysis), the gym environments, the
CLI, and the ArduPilot bridge in runtime/sitl/; it imports the static hydrostatics and
the environment, never the analyses, the emitters or the MuJoCo Warp backend.

    from aurgen.runtime.sim import Simulation
    sim = Simulation("build/worlds/open_water.xml")
    sim.step(500)
    sim.check()
"""

from aurgen.runtime.sim.plan import MARK_DISPLACEMENT, MARK_WINDAGE, SimulationError
from aurgen.runtime.sim.simulation import Simulation, register_engine

__all__ = ["MARK_DISPLACEMENT", "MARK_WINDAGE", "Simulation",
           "SimulationError", "register_engine"]
