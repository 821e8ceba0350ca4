"""Rest at any mass: cubes of density 500 from 40 g to 40 t dropped 1 cm onto water.

Closed form: a centrally symmetric body of half the water's density floats with
its centre exactly on the surface whatever its attitude (any plane through the
centre halves it), so the settled height of the centre is z = 0 (no air here).
A cube at s.g. 0.5 is unstable face-up; it tips to 45 degrees, its stable state.
"""

import math

import pytest

from aurgen.runtime.sim.health import S_E, S_E0, S_RESMAX, S_SCALE
from aurgen.runtime.sim import Simulation

from simfixtures import body, geom, mjcf, water_env


@pytest.mark.parametrize("mass", [0.04, 0.4, 4.0, 40.0, 400.0, 4000.0, 40000.0])
def test_cube_comes_to_rest_at_its_draft(mass):
    s = (mass / 500.0) ** (1.0 / 3.0)
    a = s / 2
    inertia = mass * s * s / 6
    xml = mjcf(body("c", (0, 0, a + 0.01), mass, (inertia,) * 3, geom("box", [a, a, a]),
                    euler=(math.radians(0.5), 0, 0)))  # default timestep 0.002, Euler
    with Simulation(xml, environment=water_env(1000.0, None)) as sim:
        E0 = sim.energy()
        for _ in range(60):
            sim.step(250)
            h = sim.check()
            assert h.ok, h.reason
            st = sim.monitor.state
            # never above the initial energy plus the work done (none): ledger residual bounded
            assert st[S_E] <= st[S_E0] + 0.05 * st[S_SCALE] + 1e-9 * abs(E0)
        assert sim.check().settled, sim.height_range()
        assert sim.height_range() < 1e-4
        assert abs(sim.data.qpos[2]) < 1e-4
        assert sim.energy() < E0
        assert st[S_RESMAX] <= 0.05 * st[S_SCALE]
        roll = abs(math.degrees(sim.body_state(1)["roll"]))
        assert roll == pytest.approx(45.0, abs=0.5) or roll < 0.5
