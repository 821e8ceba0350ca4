"""Gravity fields: central and linear fields integrated over the mass distribution."""

import math

import numpy as np
import pytest

from aurgen.runtime.sim import Simulation

from simfixtures import body, geom, mjcf

MU = 3.986004418e14
I_BODY = np.array([2.0, 150.0, 151.0])  # elongated along its x axis


def central(centre=(0, 0, 0)):
    return {"planes": [], "cells": [], "gravity": {"type": "central", "mu": MU, "centre": list(centre)}}


@pytest.mark.parametrize("tilt_deg", [0.0, 10.0, 30.0, 45.0, 80.0])
def test_gravity_gradient_torque_in_a_central_field(tilt_deg):
    pos = np.array([7.0e6, 1.0e5, -2.0e5])
    th = math.radians(tilt_deg)
    b = body("sat", pos, 500.0, I_BODY, geom("box", [3.0, 0.5, 0.5], mark=0), euler=(0.1, 0.05, th))
    with Simulation(mjcf(b, gravity=(0, 0, 0)), environment=central()) as sim:
        d = sim.data
        R = d.xmat[1].reshape(3, 3)
        Iw = R @ np.diag(I_BODY) @ R.T
        r = d.xipos[1].copy()
        Rn = np.linalg.norm(r)
        tau = 3 * MU / Rn**5 * np.cross(r, Iw @ r)
        got = R @ (I_BODY * d.qacc[3:6])  # at rest: I alpha = tau (local), to world
        scale = 3 * MU / Rn**3 * I_BODY.max()
        assert np.allclose(got, tau, rtol=0, atol=1e-9 * max(np.linalg.norm(tau), 1e-3 * scale))
        if tilt_deg:
            assert np.linalg.norm(got - tau) <= 1e-9 * np.linalg.norm(tau)
        acc = d.qacc[0:3]
        assert np.allclose(acc, -MU * r / Rn**3, rtol=1e-12)


def test_zero_gradient_torque_when_aligned_with_the_radius():
    pos = np.array([7.0e6, 0.0, 0.0])  # body x axis along the radius
    b = body("sat", pos, 500.0, I_BODY, geom("box", [3.0, 0.5, 0.5], mark=0))
    with Simulation(mjcf(b, gravity=(0, 0, 0)), environment=central()) as sim:
        tau = I_BODY * sim.data.qacc[3:6]
        assert np.abs(tau).max() <= 1e-12 * 3 * MU / 7.0e6**3 * I_BODY.max()


def test_linear_field_force_and_torque():
    G = np.array([[1e-3, 2e-4, 0.0], [2e-4, -5e-4, 1e-4], [0.0, 1e-4, -5e-4]])
    g0 = np.array([0.0, 0.0, -9.81])
    env = {"planes": [], "cells": [], "gravity": {"type": "linear", "g0": list(g0), "G": G.tolist()}}
    pos = np.array([3.0, -2.0, 5.0])
    b = body("b", pos, 10.0, I_BODY, geom("box", [1, 1, 1], mark=0), euler=(0.3, -0.2, 0.7))
    with Simulation(mjcf(b, gravity=(0, 0, 0)), environment=env) as sim:
        d = sim.data
        R = d.xmat[1].reshape(3, 3)
        Iw = R @ np.diag(I_BODY) @ R.T
        # tau = integral of r x (G r) dm = eps_iab (G I)_ab  (independent: from J = tr(I)/2 - I)
        J = 0.5 * np.trace(Iw) * np.eye(3) - Iw  # second moment of mass about the CoM
        eps = np.zeros((3, 3, 3))
        eps[0, 1, 2] = eps[1, 2, 0] = eps[2, 0, 1] = 1
        eps[0, 2, 1] = eps[2, 1, 0] = eps[1, 0, 2] = -1
        tau = np.einsum("ijk,jl,kl->i", eps, J, G)  # integral r_j G_kl r_l
        got = R @ (I_BODY * d.qacc[3:6])
        assert np.allclose(got, tau, rtol=1e-9, atol=1e-12)
        assert np.allclose(d.qacc[:3], g0 + G @ d.xipos[1], rtol=1e-12)


def test_energy_is_conserved_in_orbit():
    r0 = 7.0e6
    v0 = math.sqrt(MU / r0)
    b = body("sat", (r0, 0, 0), 500.0, I_BODY, geom("box", [3.0, 0.5, 0.5], mark=0), euler=(0, 0, 0.3))
    with Simulation(mjcf(b, gravity=(0, 0, 0), timestep=0.5, integrator="RK4"), environment=central()) as sim:
        sim.data.qvel[1] = v0
        sim.step(2000)
        h = sim.check()
        assert h.ok, h.reason
        r = np.linalg.norm(sim.data.xipos[1])
        assert abs(r - r0) / r0 < 1e-6
