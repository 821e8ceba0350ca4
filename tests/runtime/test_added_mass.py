"""Added mass in the mass matrix: impulse response a = F/(m + m_a), energy conservation.

The reference virtual masses are Lamb's, computed here by quadrature of the
ellipsoid integrals (independently of MuJoCo's geom_fluid).
"""

import math

import numpy as np
import pytest
from scipy.integrate import quad

from aurgen.runtime.sim import Simulation

from simfixtures import body, geom, mjcf, water_env

RHO = 1000.0


def lamb(a, b, c):
    """(m1, m2, m3, I1, I2, I3) per unit fluid density."""
    def alpha(k):
        ax = (a, b, c)
        f = lambda lam: 1.0 / ((ax[k] ** 2 + lam) * math.sqrt((a * a + lam) * (b * b + lam) * (c * c + lam)))  # noqa: E731
        return a * b * c * quad(f, 0, np.inf, limit=200, epsabs=0, epsrel=1e-13)[0]

    al = [alpha(k) for k in range(3)]
    V = 4.0 / 3.0 * math.pi * a * b * c
    m = [V * x / (2 - x) for x in al]
    ax = (a, b, c)
    I = []
    for i in range(3):
        j, k = (i + 1) % 3, (i + 2) % 3
        p, q = ax[j], ax[k]
        num = (p * p - q * q) ** 2 * (al[k] - al[j])
        den = 2 * (p * p - q * q) + (p * p + q * q) * (al[j] - al[k])
        I.append(0.0 if num == 0 else V / 5.0 * num / den)
    return np.array(m + I), V


def ell_body(semi, rho_body, euler=(0, 0, 0), z=-3.0):
    a, b, c = semi
    V = 4.0 / 3.0 * math.pi * a * b * c
    m = rho_body * V
    inertia = (m * (b * b + c * c) / 5, m * (a * a + c * c) / 5, m * (a * a + b * b) / 5)
    g = geom("ellipsoid", semi, extra='fluidshape="ellipsoid"')
    return body("e", (0, 0, z), m, inertia, g, euler=euler, simple=False), m, np.array(inertia)


CASES = [((0.1, 0.1, 0.1), 1000.0), ((0.1, 0.1, 0.1), 500.0),
         ((0.5, 0.1, 0.1), 1000.0), ((0.5, 0.1, 0.1), 500.0)]


@pytest.mark.parametrize("semi,rho_body", CASES)
def test_impulse_gives_F_over_m_plus_ma(semi, rho_body):
    coeffs, V = lamb(*semi)
    ma = RHO * coeffs
    xml_body, m, inertia = ell_body(semi, rho_body)
    with Simulation(mjcf(xml_body), environment=water_env(RHO, None), drag=False) as sim:
        d = sim.data
        sim.forward()
        base = d.qacc.copy()  # net buoyancy acceleration (vertical), no rotation
        for axis in range(3):
            F = 10.0
            d.xfrc_applied[1, :] = 0
            d.xfrc_applied[1, axis] = F
            sim.forward()
            a = d.qacc[axis] - base[axis]
            assert a == pytest.approx(F / (m + ma[axis]), rel=1e-6), (axis, ma[axis] / m)
            d.xfrc_applied[1, :] = 0
            d.xfrc_applied[1, 3 + axis] = F
            sim.forward()
            al = d.qacc[3 + axis] - base[3 + axis]
            assert al == pytest.approx(F / (inertia[axis] + ma[3 + axis]), rel=1e-6)
        d.xfrc_applied[:] = 0


def test_slender_body_lateral_added_mass_exceeds_its_mass_and_stays_stable():
    semi = (0.5, 0.1, 0.1)
    coeffs, V = lamb(*semi)
    xml_body, m, _ = ell_body(semi, 500.0)
    assert RHO * coeffs[1] / m > 1.7  # ~1.8 at half the fluid's density
    with Simulation(mjcf(xml_body, integrator="implicitfast"), environment=water_env(RHO, None)) as sim:
        sim.data.qvel[:] = [0.3, 0.5, -0.2, 0.4, -0.7, 1.1]
        sim.step(2000)
        assert sim.check().ok
        assert np.all(np.isfinite(sim.data.qvel)) and np.abs(sim.data.qvel).max() < 10


def _energy_run(dt, T=2.0):
    semi = (0.5, 0.1, 0.1)
    coeffs, V = lamb(*semi)
    MA = RHO * coeffs
    xml_body, m, inertia = ell_body(semi, 1000.0, euler=(0.2, 0.4, -0.3))
    with Simulation(mjcf(xml_body, timestep=dt, integrator="Euler"), environment=water_env(RHO, None),
                    drag=False) as sim:
        d = sim.data
        d.qvel[:] = [0.4, 0.3, -0.2, 0.5, -0.8, 0.6]

        def ke():
            R = d.xmat[1].reshape(3, 3)
            vb = R.T @ d.qvel[0:3]  # body origin = centre: body-frame velocity
            w = d.qvel[3:6]
            return 0.5 * (np.sum((m + MA[:3]) * vb**2) + np.sum((inertia + MA[3:]) * w**2))

        E0 = ke()
        err = 0.0
        for _ in range(int(round(T / dt))):
            sim.step()
            err = max(err, abs(ke() - E0))
        assert sim.check().ok
        return err / E0


def test_kinetic_energy_with_added_mass_is_conserved_and_converges():
    e1 = _energy_run(0.004)
    e2 = _energy_run(0.002)
    assert e1 < 1e-2
    assert e2 < e1 / 1.8
