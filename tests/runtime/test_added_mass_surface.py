"""Added mass through the surface (issue 27 item 6): a sphere heaving through the free surface
carries added mass scaled by its submerged fraction, m_a(z) = 1/2 rho V_sub(z) (Lamb's sphere,
MuJoCo's fluidshape="ellipsoid" coefficients times the fraction), and its motion must be the
Lagrangian one.

Reference, derived here and not from the code: a sphere of mass m, radius r, centre height z
(the surface at z = 0, water below, vacuum above), L = 1/2 (m + m_a(z)) zdot^2 - m g z - U_b(z),
U_b' = -rho g V_sub(z).  Euler-Lagrange:

    (m + m_a) zddot + 1/2 m_a'(z) zdot^2 = -m g + rho g V_sub(z),   m_a' = -1/2 rho A(z),

A = pi (r^2 - z^2) the waterplane area (|z| < r), V_sub the spherical cap below z = 0.  The
energy E = 1/2 (m + m_a) zdot^2 + m g z + U_b is conserved.  Integrated by scipy's DOP853.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from aurgen.runtime import plugin as hplugin
from aurgen.runtime.sim import Simulation

from simfixtures import G, body, geom, heave, mjcf, water_env

if not hplugin.library_path().exists():
    pytest.skip("the plugin library is not built", allow_module_level=True)
scipy_integrate = pytest.importorskip("scipy.integrate")

RHO, R, RHO_BODY = 1000.0, 0.1, 500.0
VOL = 4.0 / 3.0 * math.pi * R ** 3
MASS = RHO_BODY * VOL


def v_sub(z):
    """Volume of the sphere (centre z) below z = 0."""
    t = min(max(-z, -R), R)  # the plane's offset from the centre
    return math.pi * (R * R * t - t ** 3 / 3 + 2 * R ** 3 / 3)


def area(z):
    return math.pi * (R * R - z * z) if abs(z) < R else 0.0


def m_a(z):
    return 0.5 * RHO * v_sub(z)


def rhs(t, y, surface_term=True):
    z, zd = y
    f = -MASS * G + RHO * G * v_sub(z)
    if surface_term:
        f -= 0.5 * (-0.5 * RHO * area(z)) * zd * zd
    return [zd, f / (MASS + m_a(z))]


def u_b(z):
    """-rho g integral of V_sub from 0 to z (closed form over the cap, linear beyond)."""
    def prim(zz):  # antiderivative of v_sub on |z| <= R (t = -z)
        t = -zz
        return -math.pi * (R * R * t * t / 2 - t ** 4 / 12 + 2 * R ** 3 * t / 3)
    zc = min(max(z, -R), R)
    I = prim(zc) - prim(0.0)
    if z < -R:
        I += VOL * (z + R)
    return -RHO * G * I


def energy(z, zd):
    return 0.5 * (MASS + m_a(z)) * zd * zd + MASS * G * z + u_b(z)


def _xml(z0, integrator, dt):
    g = geom("sphere", [R], extra='fluidshape="ellipsoid"')
    b = body("s", (0, 0, z0), MASS, (0.4 * MASS * R * R,) * 3, g, simple=False)
    return mjcf(b, env=water_env(RHO, None), integrator=integrator, timestep=dt)


def _run(z0, integrator, dt, T):
    return heave(_xml(z0, integrator, dt), energy, dt, T)


@pytest.mark.parametrize("integrator,dt", [("RK4", 5e-4), ("Euler", 1e-4), ("implicitfast", 1e-4)])
def test_a_sphere_heaving_through_the_surface_follows_the_lagrangian_reference(integrator, dt):
    z0, T = 0.9 * R, 2.0  # released nearly out of the water: it oscillates through the surface
    ts, zs, es, h = _run(z0, integrator, dt, T)
    ref = scipy_integrate.solve_ivp(rhs, (0, T), [z0, 0.0], method="DOP853", rtol=1e-11, atol=1e-13,
                                    t_eval=ts)
    assert ref.success
    e_ref = [energy(z, zd) for z, zd in ref.y.T]
    assert max(e_ref) - min(e_ref) < 1e-8  # the reference conserves its energy
    assert zs.min() < -0.5 * R and zs.max() > 0.5 * R  # it crosses the surface both ways
    tol = 1e-4 if integrator == "RK4" else 2e-3
    err = np.abs(zs - ref.y[0]).max()
    assert err < tol * R, err
    # the energy computed here from the sim's trajectory drifts by no more than the
    # integrator's error (first order for Euler)
    assert np.ptp(es) < (1e-6 if integrator == "RK4" else 2e-3) * abs(es[0] - energy(0.0, 0.0)) + 1e-9, np.ptp(es)
    assert h.ok, h.reason
    # and the test can tell: without the 1/2 m_a' zdot^2 term the reference goes elsewhere
    wrong = scipy_integrate.solve_ivp(lambda t, y: rhs(t, y, False), (0, T), [z0, 0.0], method="DOP853",
                                      rtol=1e-11, atol=1e-13, t_eval=ts)
    assert np.abs(wrong.y[0] - ref.y[0]).max() > 20 * tol * R


def test_a_sphere_wholly_under_water_keeps_its_whole_added_mass():
    """Fully submerged (no section area): the surface terms add nothing; an impulse still gives
    a = F / (m + 1/2 rho V) (MuJoCo's Lamb coefficient for a sphere is 1/2 to 3e-7)."""
    with Simulation(_xml(-1.0, "Euler", 1e-3), drag=False, damping=False) as sim:
        d = sim.data
        d.xfrc_applied[1, 0] = 10.0
        sim.step(1)
        assert d.qvel[0] == pytest.approx(10.0 * 1e-3 / (MASS + 0.5 * RHO * VOL), rel=1e-6)
