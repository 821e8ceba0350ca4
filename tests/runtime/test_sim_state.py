"""``Simulation.state()`` reports the state at the time it names, for every integrator.

After ``mj_step`` MuJoCo's kinematics (``xpos``, ``xquat``, ``cvel``) describe the
pose before the step (Euler, implicitfast) or an RK4 stage; the readouts must be
those of ``qpos``/``qvel`` at ``data.time``. References: closed forms of the
integrators on a free body (no environment: plain MuJoCo), computed here.
"""

import math

import mujoco
import numpy as np
import pytest

from aurgen.runtime.sim import Simulation

from simfixtures import G, body, geom, mjcf, water_env

DT = 0.002
N = 250


def _ball(integrator, gravity=(0, 0, -G), extra=""):
    return mjcf(body("b", (0.1, -0.2, 3.0), 2.0, (0.01, 0.01, 0.01), geom("sphere", [0.1]), extra=extra),
                timestep=DT, integrator=integrator, gravity=gravity)


def _free_fall_z(integrator, n):
    """Height after n steps from rest at z0 = 3: semi-implicit Euler (v first, then x with the
    new v) for Euler and implicitfast (no damping: the same update); exact for RK4 (a quadratic)."""
    if integrator == "RK4":
        t = n * DT
        return 3.0 - 0.5 * G * t * t
    return 3.0 - G * DT * DT * n * (n + 1) / 2


@pytest.mark.parametrize("integrator", ["Euler", "implicitfast", "RK4"])
def test_free_fall_state_is_at_the_named_time(integrator):
    with Simulation(_ball(integrator)) as sim:
        sim.step(N)
        st = sim.state()
        b = st["bodies"][0]
        assert st["time"] == pytest.approx(N * DT, abs=1e-12)
        assert b["position"][2] == pytest.approx(_free_fall_z(integrator, N), abs=1e-9)
        np.testing.assert_allclose(b["position"][:2], [0.1, -0.2], atol=1e-12)
        assert b["velocity"][2] == pytest.approx(-G * N * DT, abs=1e-9)


@pytest.mark.parametrize("integrator", ["Euler", "implicitfast", "RK4"])
def test_uniform_motion_state_is_at_the_named_time(integrator):
    v = np.array([0.7, -0.3, 0.2])
    w = np.array([0.0, 0.0, 0.5])  # spin about z: yaw = w t for a sphere (no torque)
    with Simulation(_ball(integrator, gravity=(0, 0, 0))) as sim:
        sim.data.qvel[:3] = v
        sim.data.qvel[3:6] = w
        sim.step(N)
        b = sim.state()["bodies"][0]
        t = N * DT
        np.testing.assert_allclose(b["position"], np.array([0.1, -0.2, 3.0]) + v * t, atol=1e-12)
        np.testing.assert_allclose(b["velocity"], v, atol=1e-12)
        assert b["yaw"] == pytest.approx(0.5 * t, abs=1e-9)


def test_reading_the_state_leaves_the_trajectory_bitwise_unchanged():
    xml = mjcf(body("c", (0, 0, 0.05), 4.0, (0.02, 0.02, 0.02), geom("box", [0.1, 0.1, 0.1]),
                    euler=(0.2, 0.1, 0)), timestep=DT, integrator="RK4")
    with Simulation(xml, environment=water_env(1000.0)) as a, Simulation(xml, environment=water_env(1000.0)) as b:
        for _ in range(50):
            a.step(7)
            b.step(7)
            a.state()  # b never reads
        assert np.array_equal(a.data.qpos, b.data.qpos) and np.array_equal(a.data.qvel, b.data.qvel)


def test_readout_matches_a_fresh_forward_pass():
    """Independent of the formula above: a second MjData set to the same qpos/qvel and run
    through mj_forward gives the pose and velocity state() reports."""
    with Simulation(_ball("implicitfast")) as sim:
        sim.data.qvel[:6] = [0.3, 0.1, 1.0, 0.4, -0.2, 0.9]
        sim.step(123)
        b = sim.state()["bodies"][0]
        d2 = mujoco.MjData(sim.model)
        d2.qpos[:] = sim.data.qpos
        d2.qvel[:] = sim.data.qvel
        mujoco.mj_forward(sim.model, d2)
        np.testing.assert_array_equal(b["position"], d2.xpos[1])
        np.testing.assert_array_equal(b["quaternion"], d2.xquat[1])
        assert math.isclose(b["roll"], math.atan2(d2.xmat[1][7], d2.xmat[1][8]), abs_tol=0)


def test_bad_arguments_are_refused_naming_them():
    """Simulation's arguments and step/run's: a clear error naming the argument, never a silent
    no-op (step(-1) did nothing), a wrong fluid (water= beside a model's own environment was
    ignored), or MuJoCo's or Python's own message (run(every=0): modulo by zero)."""
    from aurgen.runtime.sim import SimulationError

    boat = mjcf(body("b", (0, 0, 0), 2.0, (0.01, 0.01, 0.01), geom("box", [0.1, 0.1, 0.1])))
    world = mjcf(body("b", (0, 0, 0), 2.0, (0.01, 0.01, 0.01), geom("box", [0.1, 0.1, 0.1])), env=water_env(1000.0))
    for kwargs, needle in (({"water": -1}, "water=-1: expected a fluid density"),
                           ({"water": "x"}, "water='x'"),
                           ({"water": 1000.0, "environment": water_env(1000.0)}, "not both"),
                           ({"settle_tol": float("nan")}, "settle_tol=nan"),
                           ({"settle_window": 0}, "settle_window=0")):
        with pytest.raises(SimulationError, match=needle):
            Simulation(boat, **kwargs)
    with pytest.raises(SimulationError, match="water= is for a model without an environment"):
        Simulation(world, water=1025.0)
    with Simulation(world) as sim:
        for call, needle in ((lambda: sim.step(-1), r"step\(n\).*got -1"),
                             (lambda: sim.step(2.5), r"step\(n\).*got 2.5"),
                             (lambda: sim.run(float("nan")), r"run\(duration\).*got nan"),
                             (lambda: sim.run(0.01, callback=lambda s: None, every=0), r"every=.*got 0")):
            with pytest.raises(ValueError, match=needle):
                call()
        assert sim.data.time == 0.0  # nothing stepped
        sim.step(np.int64(3))
        sim.step(0)
        assert sim.data.time == pytest.approx(3 * sim.model.opt.timestep)
