"""Health: ok, or invalid with a named reason; settled by the height range."""

import math

import numpy as np

from aurgen.runtime.sim import Simulation

from simfixtures import body, geom, mjcf, water_env


def cube(dt, mass=0.04):
    s = (mass / 500.0) ** (1 / 3)
    return mjcf(body("c", (0, 0, s / 2 + 0.01), mass, (mass * s * s / 6,) * 3, geom("box", [s / 2] * 3)),
                timestep=dt)


def test_unstable_timestep_is_flagged_as_energy_gain():
    # buoyancy stiffness rho g A on 40 g: omega ~ 21 rad/s; dt = 0.12 s puts omega dt > 2
    with Simulation(cube(0.12), environment=water_env(1000.0, None)) as sim:
        for _ in range(200):
            sim.step()
            if not sim.check().ok:
                break
        h = sim.check()
        assert not h.ok
        assert "energy gained" in h.reason or "non-finite" in h.reason or "MuJoCo warning" in h.reason


def test_stable_run_is_ok_and_settles():
    with Simulation(cube(0.002), environment=water_env(1000.0, None)) as sim:
        assert not sim.check().settled
        sim.step(10000)
        h = sim.check()
        assert h.ok and h.settled and h.reason is None
        assert str(h) == "ok, settled"


def test_non_finite_state_is_named():
    with Simulation(cube(0.002), environment=water_env(1000.0, None)) as sim:
        sim.step(10)
        sim.data.qvel[2] = math.nan
        sim.step(2)
        h = sim.check()
        assert not h.ok
        assert "non-finite" in h.reason or "BADQVEL" in h.reason


def test_mujoco_warning_is_named_without_environment():
    xml = mjcf(body("c", (0, 0, 1), 1.0, (0.1, 0.1, 0.1), geom("box", [0.1] * 3)))
    with Simulation(xml) as sim:
        sim.data.qacc_warmstart[:] = 0
        sim.data.qvel[0] = np.inf
        sim.step(1)
        h = sim.check()
        assert not h.ok and ("MuJoCo warning" in h.reason or "non-finite" in h.reason)
