"""The sea's per-component work in lanes (runtime/native/core/sincos.cc, sea_series.cc): the phases'
cos and sin at every count of angles give each angle's bits alone (the inline pairs below 8, the
four-wide vectors and their padded tail above), and the Froude-Krylov moments, their components in
chunks of 32 lanes, agree with the exact columns (``fk: exact``, the independent quadrature) within the
certified bound on seas of more components than a chunk holds, long-crested (one direction: one group
of 40) and spread (many groups), deep and finite, with a component the bound sends to the columns in
the middle of a chunk."""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest

from aurgen.runtime import _native

import seascenes as ss


def sincos(x):
    x = np.ascontiguousarray(x, dtype=np.float64)
    c, s = np.empty_like(x), np.empty_like(x)
    _native.sincos_into(x, c, s)
    return c, s


def test_every_count_of_angles_gives_each_angles_bits():
    x = np.random.default_rng(11).uniform(-80.0, 80.0, 23)
    alone = [sincos(x[i:i + 1]) for i in range(len(x))]
    for n in range(1, len(x) + 1):
        c, s = sincos(x[:n])
        assert c.tobytes() == b"".join(a[0].tobytes() for a in alone[:n])
        assert s.tobytes() == b"".join(a[1].tobytes() for a in alone[:n])


HALF = np.array([0.5, 0.2, 0.15])  # the box's half sizes, m
R = float(np.linalg.norm(HALF))


def _sea(rng, n, spread, depth, steep_at=None):
    """n components, k R from 0.05 to 2 (orders 2 to 10 at the default tolerance) in declared order,
    one direction (spread None) or random ones; steep_at: that component with k R = 12 (no order of
    the bound meets it: the exact columns)."""
    comps = []
    th0 = rng.uniform(0, 2 * math.pi)
    for j in range(n):
        kR = 12.0 if j == steep_at else 0.05 + 1.95 * j / (n - 1)
        k = kR / R
        om = math.sqrt(ss.G * k * (1.0 if depth is None else math.tanh(k * depth)))
        a = min(0.01, 0.2 / k) * rng.uniform(0.3, 1.0)
        th = th0 if spread is None else th0 + rng.uniform(-spread, spread)
        comps.append(ss.component(a, om, k, th, rng.uniform(0, 2 * math.pi)))
    return comps


def _force(comps, fk, depth, pos, quat, t):
    env = ss.sea_env(comps, depth=depth, air=None, fk=fk)
    m = mujoco.MjModel.from_xml_string(ss.scene(ss.free_body(ss.gm("box", HALF)), env))
    d = mujoco.MjData(m)
    d.qpos[:] = np.r_[pos, quat]
    d.time = t
    mujoco.mj_forward(m, d)
    return d.qfrc_passive[:6].copy()


@pytest.mark.parametrize("depth", [None, 3.0], ids=["deep", "h=3"])
@pytest.mark.parametrize("spread", [None, 1.0], ids=["long-crested", "spread"])
def test_moments_in_lanes_within_the_bound_of_the_columns(spread, depth):
    ss.load()
    rng = np.random.default_rng(5 + (0 if depth is None else 1) + (0 if spread is None else 2))
    comps = _sea(rng, 40, spread, depth, steep_at=17)
    # the bound's scale (test_waves_moments.py's): rho g a (k V + A) summed, V the box's volume and A its
    # largest face (the piece's are smaller), and the lever R for the moment
    V, A = 8 * np.prod(HALF), 4 * HALF[0] * HALF[1]
    S = sum(ss.RHO * ss.G * c[0] * (math.hypot(c[2], c[3]) * V + A) for c in comps)
    for trial in range(3):
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        pos = np.r_[rng.uniform(-2, 2, 2), rng.uniform(-0.1, 0.1)]
        t = rng.uniform(0, 30)
        fm = _force(comps, "moments", depth, pos, q, t)
        fe = _force(comps, "exact", depth, pos, q, t)
        assert np.abs(fe).max() > 1e-3 * S  # the sea acts on the piece
        assert np.abs(fm[:3] - fe[:3]).max() <= 1e-4 * S, (trial, fm - fe, S)
        assert np.abs(fm[3:] - fe[3:]).max() <= 1e-4 * S * 2 * R, (trial, fm - fe, S)
