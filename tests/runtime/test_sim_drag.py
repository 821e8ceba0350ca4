"""The documented drag model, checked against its closed form on simple pieces."""

import math

import pytest

from aurgen.runtime.sim import Simulation

from simfixtures import G, body, geom, mjcf, water_env


def test_current_on_a_submerged_sphere():
    r, rho, mu, u = 0.1, 1000.0, 1e-3, 0.7
    V = 4 / 3 * math.pi * r**3
    m = rho * V
    xml = mjcf(body("s", (0, 0, -2), m, (1, 1, 1), geom("sphere", [r])))
    with Simulation(xml, environment=water_env(rho, None, flow=(u, 0, 0), mu=mu)) as sim:
        d = 2 * r  # the sphere of its own volume
        F = (3 * math.pi * mu * d + 0.5 * rho * 1.0 * math.pi * r * r * u) * u
        assert m * sim.data.qacc[0] == pytest.approx(F, rel=1e-12)


def test_wind_acts_on_the_windage_part_above_the_surface_only():
    a, b, c = 0.5, 0.1, 0.2
    wind, rho_a, mu_a = 8.0, 1.225, 1.81e-5
    zc = 0.05  # box centre 5 cm above the surface: 3/4 of it in air
    env = water_env(1000.0, rho_a)
    env["cells"][0]["flow"] = [0, wind, 0]
    env["cells"][0]["viscosity"] = mu_a
    env["cells"][1]["flow"] = [0, 0, 0]
    xml = mjcf(body("w", (0, 0, zc), 10.0, (1, 1, 1), geom("box", [a, b, c], mark=2)))
    with Simulation(xml, environment=env) as sim:
        f = (c + zc) / (2 * c)
        Vg = 8 * a * b * c
        d = (6 * Vg / math.pi) ** (1 / 3)
        Ap = 4 * a * c  # across y
        F = (3 * math.pi * mu_a * d + 0.5 * rho_a * 1.0 * Ap * wind) * f * wind
        assert 10.0 * sim.data.qacc[1] == pytest.approx(F, rel=1e-12)
        assert 10.0 * (sim.data.qacc[2] + G) == pytest.approx(0.0, abs=1e-12)  # windage: no buoyancy
