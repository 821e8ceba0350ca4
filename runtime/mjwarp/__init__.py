"""The hydrostatics on MuJoCo Warp (GPU, or Warp's CPU device): ``put_model`` and its passive callback.

Only a GPU user touches it: aurgen.gym's Warp environments and bench/gpu.py import it, nothing
else does. It imports the environment schema (aurgen.runtime.environment) and the plugin's loader,
never the simulation. ``host`` builds the model's records and the callback (``put_model``,
``plain_model``, ``Hydro``); the device side mirrors the plugin's force stage module for module
(``kernels``: the force stage; ``box``, ``smooth``, ``mesh``: the clip tiers; ``gravity``; ``sea``,
``sea_shapes`` and ``sea_box``: the columns; ``sea_moments`` and ``sea_poly``, with ``sea_hull`` on the
host: the volume moments; docs/runtime.md "MuJoCo Warp" has the mirroring table).

    import mujoco_warp as mjw
    from aurgen.runtime import mjwarp
    m = mjwarp.put_model("build/worlds/open_water.xml", config={"added_mass": False})
    d = mjw.make_data(m.aurgen.mjm, nworld=4096)
    mjw.step(m, d)
"""

from aurgen.runtime.mjwarp.host import (C_D, C_S, GAS_DENSITY, MARK_DISPLACEMENT, MARK_WINDAGE, Hydro,
                                        MjWarpRefused, backend, plain_model, put_model, records, thresholds)

__all__ = ["C_D", "C_S", "GAS_DENSITY", "MARK_DISPLACEMENT", "MARK_WINDAGE", "Hydro", "MjWarpRefused", "backend",
           "plain_model", "put_model", "records", "thresholds"]
