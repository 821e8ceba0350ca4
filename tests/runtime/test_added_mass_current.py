"""Added mass in a uniform current: Galilean invariance (issue 27, bundled added mass).

In water moving at a uniform, constant velocity u every fluid force depends on the body's motion
relative to the water: added mass (the fluid's momentum is M_A (v - u, w), and Kirchhoff's equations
hold in the frame moving with u, which is inertial), drag and damping. So a vehicle released at rest
in a current u moves, relative to the frame moving with u, exactly as the same vehicle released at
-u in still water: x_current(t) = x_still(t) + u t, the same attitude, qvel shifted by u. The
reference is the runtime's own still-water run, which the still-water tests check against
independent references; the law compared is Galilean invariance, not the code.

Before the added mass's velocity-product terms used the body's velocity relative to the water,
the BlueROV2 (declaring the published added mass) drifting in a current turned under a Munk
moment of about (Y_vdot - X_udot) u v, a moment still water would not give it.
"""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from aurgen.analysis import timedomain as td
from aurgen.compose.resolve import resolve
from aurgen.compose.stamp import equilibrium_of
from aurgen.emit.build import bundled_vehicles

U = np.array([0.4, -0.3, 0.05])
ROVS = [str(p) for p in bundled_vehicles() if p.stem.startswith("bluerov2")]


def _run(xml, v, eq, current, v0, seconds, integrator):
    m = td.compiled(xml, td.environment_of(1025.0, current, current))
    m.opt.integrator = integrator
    d = mujoco.MjData(m)
    d.qpos[:7] = td.start_pose(v, eq, 0.0, 0.0)
    d.qpos[2] -= 5.0  # 5 m down: no surface, no floor
    d.qvel[:3] = v0
    d.qvel[3:6] = [0.1, -0.05, 0.2]  # and turning
    mujoco.mj_forward(m, d)
    n = int(round(seconds / m.opt.timestep))
    for _ in range(n):
        mujoco.mj_step(m, d)
    return d.qpos.copy(), d.qvel.copy(), d.time


@pytest.mark.parametrize("integrator", [mujoco.mjtIntegrator.mjINT_EULER, mujoco.mjtIntegrator.mjINT_RK4],
                         ids=["Euler", "RK4"])
@pytest.mark.parametrize("config", ROVS, ids=[p.rsplit("/", 1)[-1] for p in ROVS])
def test_a_rov_in_a_current_moves_as_in_still_water_seen_from_the_water(config, integrator):
    v = resolve(config)
    assert any(n.endswith("Dot" + n[0].upper()) or "Dot" in n for n, _ in v.hydrodynamics)  # it declares added mass
    xml, eq = td.mjcf_of(v), equilibrium_of(v)
    qs, vs, t = _run(xml, v, eq, [0.0, 0.0, 0.0], -U, 20.0, integrator)
    qc, vc, _ = _run(xml, v, eq, U, [0.0, 0.0, 0.0], 20.0, integrator)
    np.testing.assert_allclose(qc[:3], qs[:3] + U * t, rtol=0, atol=1e-9)
    np.testing.assert_allclose(qc[3:7], qs[3:7], rtol=0, atol=1e-9)
    np.testing.assert_allclose(vc[:3], vs[:3] + U, rtol=0, atol=1e-9)
    np.testing.assert_allclose(vc[3:6], vs[3:6], rtol=0, atol=1e-9)
    assert np.linalg.norm(vs[3:6]) > 1e-3 or np.linalg.norm(qs[3:7] - [1, 0, 0, 0]) > 1e-3  # it moved


def test_through_simulation_in_a_current_galilean_too():
    """The same law through Simulation (the engine the force-stage crosscheck repeats with the
    numba oracle: tests/runtime/test_native_forces.py), a ROV for 5 s."""
    from aurgen.runtime.sim import Simulation

    v = resolve(ROVS[0])
    xml, eq = td.mjcf_of(v), equilibrium_of(v)
    out = []
    for current, v0 in (([0.0, 0.0, 0.0], -U), (U, [0.0, 0.0, 0.0])):
        with Simulation(xml, environment=td.environment_of(1025.0, current, current)) as sim:
            d = sim.data
            d.qpos[:7] = td.start_pose(v, eq, 0.0, 0.0)
            d.qpos[2] -= 5.0
            d.qvel[:3] = v0
            d.qvel[3:6] = [0.1, -0.05, 0.2]
            sim.forward()
            sim.step(2500)
            assert sim.check().ok
            out.append((d.qpos.copy(), d.qvel.copy(), d.time))
    (qs, vs, t), (qc, vc, _) = out
    np.testing.assert_allclose(qc[:3], qs[:3] + U * t, rtol=0, atol=1e-9)
    np.testing.assert_allclose(qc[3:7], qs[3:7], rtol=0, atol=1e-9)
    np.testing.assert_allclose(vc[:3], vs[:3] + U, rtol=0, atol=1e-9)
