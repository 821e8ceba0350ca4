"""Buoyancy through the runtime: hover, spherical caps, ballast, keel righting moment."""

import math

import mujoco
import numpy as np
import pytest

from aurgen.runtime.sim import Simulation

from simfixtures import G, body, geom, mjcf, water_env

R = 0.1
V = 4.0 / 3.0 * math.pi * R**3


def sphere_sim(z, rho_body, rho=1000.0, air=1.225, **kw):
    xml = mjcf(body("s", (0, 0, z), rho_body * V, (1, 1, 1), geom("sphere", [R])))
    return Simulation(xml, environment=water_env(rho, air), **kw)


def test_sphere_of_fluid_density_hovers():
    for integrator in ("Euler", "implicitfast", "RK4"):
        xml = mjcf(body("s", (0.3, -0.2, -1.0), 1000.0 * V, (1, 1, 1), geom("sphere", [R])),
                   integrator=integrator)
        with Simulation(xml, environment=water_env(1000.0)) as sim:
            assert abs(sim.data.qacc[2]) <= 1e-9
            sim.step(500)
            assert abs(sim.data.qacc[2]) <= 1e-9
            assert abs(sim.data.qpos[2] + 1.0) < 1e-9
            assert sim.check().ok


@pytest.mark.parametrize("z", [0.2, 0.1, 0.07, 0.03, 0.0, -0.01, -0.05, -0.099, -0.1, -0.15])
def test_buoyant_force_is_rho_g_vcap(z):
    rho, air, m = 1000.0, 1.225, 3.0
    xml = mjcf(body("s", (0, 0, z), m, (1, 1, 1), geom("sphere", [R])))
    with Simulation(xml, environment=water_env(rho, air), drag=False) as sim:
        h = min(max(R - z, 0.0), 2 * R)  # height of the submerged cap
        vcap = math.pi * h * h * (3 * R - h) / 3.0
        expect = rho * G * vcap + air * G * (V - vcap)
        Fz = m * (sim.data.qacc[2] + G)
        assert Fz == pytest.approx(expect, rel=1e-12, abs=1e-12)


def test_ballast_changes_net_force_by_minus_k_g_plus_own_buoyancy():
    rho = 1000.0
    a = 0.2  # float: a box 0.4 m cube, neutral
    Vf = (2 * a) ** 3
    mf = rho * Vf
    k, rb = 7.5, 0.05  # ballast kg, and its own displacing sphere radius
    vb = 4.0 / 3.0 * math.pi * rb**3
    base = body("f", (0, 0, -2), mf, (5, 5, 5), geom("box", [a, a, a]))
    with Simulation(mjcf(base), environment=water_env(rho, None), drag=False) as s0:
        F0 = mf * (s0.data.qacc[2] + G)
        assert abs(F0 - mf * G) < 1e-9 * mf * G  # neutral: buoyancy balances weight
    ballast = (f'<body name="ballast" pos="0 0 -0.3"><inertial pos="0 0 0" mass="{k}" diaginertia="0.01 0.01 0.01"/>'
               f'{geom("sphere", [rb])}</body>')
    withb = body("f", (0, 0, -2), mf, (5, 5, 5), geom("box", [a, a, a]), extra=ballast)
    with Simulation(mjcf(withb), environment=water_env(rho, None), drag=False) as s1:
        net = (mf + k) * s1.data.qacc[2]  # total vertical force incl. weight
        assert net == pytest.approx(-k * G + rho * G * vb, rel=1e-9)


@pytest.mark.parametrize("deg", [5, 15, 30, 45])
def test_keel_righting_acceleration_fully_submerged(deg):
    rho = 1000.0
    a, b, c = 0.5, 0.2, 0.15
    Vh = 8 * a * b * c
    m = 0.9 * rho * Vh
    BG = 0.08  # centre of mass below the centre of buoyancy
    Ixx = 2.5
    th = math.radians(deg)
    hull = body("h", (0, 0, -3), m, (Ixx, 4.0, 4.5), geom("box", [a, b, c], pos=(0, 0, BG)),
                ipos=(0, 0, -BG) if False else (0, 0, 0), euler=(th, 0, 0))
    # the body frame is at the CoM; the displacement box sits BG above it
    with Simulation(mjcf(hull), environment=water_env(rho, None)) as sim:
        alpha = sim.data.qacc[3]  # about the body x axis (local)
        expect = -rho * G * Vh * BG * math.sin(th) / Ixx
        assert alpha == pytest.approx(expect, rel=1e-6)


def test_keel_released_at_30_returns_through_zero():
    rho = 1000.0
    a, b, c = 0.5, 0.2, 0.15
    Vh = 8 * a * b * c
    hull = body("h", (0, 0, -3), rho * Vh, (2.5, 4.0, 4.5), geom("box", [a, b, c], pos=(0, 0, 0.08)),
                euler=(math.radians(30), 0, 0))
    with Simulation(mjcf(hull, integrator="implicitfast"), environment=water_env(rho, None)) as sim:
        rolls = []
        for _ in range(300):
            sim.step(5)
            rolls.append(sim.body_state(1)["roll"])
        assert min(rolls) < 0.0 < rolls[0]
        assert sim.check().ok


def test_no_environment_is_bitwise_plain_mujoco():
    xml = mjcf(body("s", (0, 0, 1.0), 2.0, (0.1, 0.2, 0.3), geom("sphere", [R]), euler=(0.1, 0.2, 0.3)),
               integrator="RK4")
    sim = Simulation(xml)
    assert sim.environment is None
    m = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(m)
    d.qvel[:] = sim.data.qvel[:] = [0.1, -0.2, 0.3, 1.0, -2.0, 0.5]
    for _ in range(300):
        sim.step()
        mujoco.mj_step(m, d)
    assert np.array_equal(sim.data.qpos, d.qpos) and np.array_equal(sim.data.qvel, d.qvel)


def test_two_runs_are_bitwise_identical():
    def run():
        xml = mjcf(body("s", (0, 0, 0.15), 600 * V, (1e-3, 1e-3, 1e-3), geom("ellipsoid", [R, 0.6 * R, 0.4 * R],
                                                                          extra='fluidshape="ellipsoid"'),
                        euler=(0.3, 0.2, 0.1), simple=False), integrator="RK4")
        with Simulation(xml, environment=water_env(1000.0)) as sim:
            sim.step(400)
            return sim.data.qpos.copy(), sim.data.qvel.copy()

    (p1, v1), (p2, v2) = run(), run()
    assert np.array_equal(p1, p2) and np.array_equal(v1, v2)
