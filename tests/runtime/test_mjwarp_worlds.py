"""The bundled worlds on MuJoCo Warp against the plugin: 1,000 steps of each built world MJCF.

Each world's vehicles (open_water and open_sea: the BlueBoat and the BlueROV2; tilted_tank: the
BlueROV2 under a tilted surface; pool has none) are put on MuJoCo Warp from the world's own file
(aurgen.runtime.mjwarp.put_model(path)), with added mass off on both backends (the ROV's added mass
must enter the mass matrix, which MuJoCo Warp's passive callback cannot: the backend refuses it),
and stepped beside the plugin under the world's integrator (implicitfast), and open_water under
Euler too (RK4 runs on the BlueBoat in test_mjwarp.py: its baseline cannot be given the exact forces
of its inner stages, and falling freely, it leaves out the propellers' float32 spin-up below). MuJoCo Warp is float32, so the figure is the gap to the plugin's float64 run
against the gap of plain MuJoCo Warp given the plugin's own forces along that run (warpscenes.follow:
float32's dynamics alone), as in tests/runtime/test_mjwarp.py; the forces themselves are checked in
float64 in test_mjwarp_exact.py. The propellers' hinges (inertia ~7e-6 kg m^2) carry most of both
gaps: float32's rounding of the vehicle's large forces spins them up in either world.
"""
from __future__ import annotations

import mujoco
import numpy as np
import pytest

mjw = pytest.importorskip("mujoco_warp", reason="the MuJoCo Warp backend's tests need mujoco-warp and warp-lang "
                                                "(pip install 'aurgen[gpu]')")
wp = pytest.importorskip("warp", reason="the MuJoCo Warp backend's tests need warp-lang (pip install 'aurgen[gpu]')")

from aurgen.runtime import mjwarp  # noqa: E402
from aurgen.runtime.sim import Simulation  # noqa: E402

from warpscenes import follow, warp_cpu  # noqa: E402, F401  (warp_cpu: the module's fixture)

NSTEP = 1000
GAP_FACTOR = 5.0  # as test_mjwarp.py: the hydrostatics may widen MuJoCo Warp's own float32 gap this much
GAP_FLOOR = 1e-6
INTEGRATORS = {"Euler": mujoco.mjtIntegrator.mjINT_EULER, "implicitfast": mujoco.mjtIntegrator.mjINT_IMPLICITFAST,
               "RK4": mujoco.mjtIntegrator.mjINT_RK4}


@pytest.fixture(scope="module")
def worlds(tmp_path_factory):
    from aurgen.cli import main

    out = tmp_path_factory.mktemp("mjwarp_worlds")
    assert main(["build", "blueboat.yaml", "bluerov2.yaml", "-o", str(out)]) == 0
    assert main(["worlds", "open_water", "open_sea", "tilted_tank", "-o", str(out)]) == 0
    return out / "worlds"


@pytest.mark.parametrize("name,integrator", [("open_water", "implicitfast"), ("open_water", "Euler"),
                                             ("open_sea", "implicitfast"), ("tilted_tank", "implicitfast")])
def test_bundled_world_follows_the_plugin(worlds, name, integrator):
    path = worlds / f"{name}.xml"
    with pytest.raises(mjwarp.MjWarpRefused, match="added mass must enter the mass matrix"):
        mjwarp.put_model(path)  # the ROV, as declared
    sim = Simulation(path, added_mass=False)
    m = mjwarp.put_model(path, config={"added_mass": False})
    mjm = m.aurgen.mjm
    assert mjm.opt.integrator == INTEGRATORS["implicitfast"]  # the world's own
    sim.model.opt.integrator = mjm.opt.integrator = INTEGRATORS[integrator]
    if integrator != "implicitfast":
        m = mjwarp.put_model(mjm, config={"added_mass": False})
    q0 = sim.model.qpos0.copy()
    v0 = np.zeros(sim.model.nv)
    v0[: min(6, sim.model.nv)] = [0.2, 0.0, -0.1, 0.1, 0.05, 0.1][: min(6, sim.model.nv)]  # the first vehicle moving
    gaps, dh = follow(sim.model, m, mjm, np.float32(q0).astype(float), np.float32(v0).astype(float), NSTEP)
    assert not m.aurgen.flags.numpy().any()
    assert np.abs(dh.qpos - q0).max() < 1.0  # the vehicles float near where they were placed
    print(f"{name} {integrator}: hydro gap {gaps[0]:.3g}, plain gap {gaps[1]:.3g}")
    assert gaps[0] <= GAP_FACTOR * max(gaps[1], GAP_FLOOR), gaps
