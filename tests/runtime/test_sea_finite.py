"""Any sea the loader accepts steps finitely (issue 37, "legal short waves make a run non-finite").

Along a chord of a geom the sea's field is ``W(s) = W(a) e^{gamma (s - a)}``, integrated exactly
from its lower end (runtime/native/core/sea.cc ``Integrals``); a short wave (``k`` thousands of rad/m)
on a chord rising toward the surface had ``W(a) = e^{k zeta(a)}`` underflow to 0 while
``e^{gamma L}`` overflowed: 0 x inf, a NaN force at the first evaluation (a BlueROV2 at -3 m under
waves of 0.02 s, a box under a zero-amplitude component of 300 rad/s). Such a chord is now integrated
from its upper end, where ``|W| <= 1``; and below a finite-depth sea's seabed (``zeta < -h``, where the
field's continuation ``e^{-k (zeta + 2 h)}`` grows without bound) the depth factor is held at its
seabed value, as it is held at its mean-level value above the surface.

Swept: omega from 0.5 rad/s to the loader's limit (schema.MAX_OMEGA), amplitudes 0, half and all of the
breaking limit, deep water and 2 m deep, over a box, a sphere, a capsule and an ellipsoid (tilted,
so their chords are oblique), each across the surface, submerged and under the seabed, at rest and
moving, and every component at once in one sea; and the BlueROV2 at -3 m. Every force is finite and
a few steps stay finite; where the exact answer is known it is checked: a body submerged many
wavelengths deep feels none of a short wave (its force is still water's).
"""
from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest

from aurgen.runtime.environment import schema as envmod
from aurgen.runtime.environment import waves
from aurgen.runtime.sim import Simulation

from seascenes import sea_env
from simfixtures import G, body, geom, mjcf

OMEGAS = [0.5, 3.0, 20.0, 150.0, 300.0, 1000.0]
STEEP = [0.0, 0.5, 1.0 - 1e-9]  # of the breaking limit a |k| / pi = 1/7
DEPTHS = [None, 2.0]
SHAPES = [("box", [0.3, 0.2, 0.1], "0.3 0.4 0.2"), ("sphere", [0.15], "0 0 0"),
          ("capsule", [0.1, 0.25], "1.1 0.3 0.2"), ("ellipsoid", [0.3, 0.2, 0.12], "0.4 0.2 0.7")]
HEIGHTS = {"across": 0.0, "submerged": -1.0, "under the seabed": -25.0}  # the sea's cell has no bottom


def _k(omega, depth):
    return waves.wavenumber(omega, G, depth)


def _bodies():
    """Each shape at each height (x apart), a free body of neutral-ish mass."""
    out, names = [], []
    for i, (typ, size, euler) in enumerate(SHAPES):
        for j, (where, z) in enumerate(HEIGHTS.items()):
            name = f"{typ}_{j}"
            g = geom(typ, size, extra=f'euler="{euler}"')
            out.append(body(name, (3.0 * i, 3.0 * j, z), 10.0, (0.2, 0.3, 0.4), g))
            names.append((typ, where))
    return "".join(out), names


BODIES, NAMES = _bodies()


def _sim(components, depth, bodies=BODIES, **kw):
    env = sea_env(components, depth=depth)
    envmod.parse(env)  # the loader accepts it (and so the plugin)
    return Simulation(mjcf(bodies), environment=env, **kw)


def _still(bodies=BODIES, **kw):
    env = sea_env([[0.0, 1.0, 1.0 / G, 0.0, 0.0, 0.0]])
    del env["waves"]
    return Simulation(mjcf(bodies), environment=env, **kw)


def _forces(sim, t, qvel):
    m = sim.model
    d = mujoco.MjData(m)
    d.time = t
    d.qvel[:] = qvel
    mujoco.mj_forward(m, d)
    return d.qfrc_passive.reshape(-1, 6).copy(), m, d


def _steps_finite(m, d, n=5):
    for _ in range(n):
        mujoco.mj_step(m, d)
    resets = sum(d.warning[int(w)].number for w in (mujoco.mjtWarning.mjWARN_BADQACC,
                                                    mujoco.mjtWarning.mjWARN_BADQVEL,
                                                    mujoco.mjtWarning.mjWARN_BADQPOS))
    return np.isfinite(d.qpos).all() and np.isfinite(d.qvel).all() and resets == 0


@pytest.mark.parametrize("depth", DEPTHS, ids=["deep", "h=2"])
@pytest.mark.parametrize("omega", OMEGAS)
def test_every_legal_component_gives_finite_forces(omega, depth):
    k = _k(omega, depth)
    rng = np.random.default_rng(int(omega * 10))
    qvel = rng.normal(0.0, 0.5, 6 * len(NAMES))
    for steep in STEEP:
        a = steep * math.pi / 7.0 / k
        sim = _sim([[a, omega, 0.6 * k, 0.8 * k, 0.0, 0.3]], depth)
        for t in (0.0, 0.37):
            F, m, d = _forces(sim, t, qvel)
            bad = [NAMES[i] for i in range(len(NAMES)) if not np.isfinite(F[i]).all()]
            assert not bad, (omega, depth, steep, t, bad)
        assert _steps_finite(m, d), (omega, depth, steep)


@pytest.mark.parametrize("depth", DEPTHS, ids=["deep", "h=2"])
def test_every_component_at_once_gives_finite_forces(depth):
    """One sea of every omega, each at the breaking limit less a little, in random directions."""
    rng = np.random.default_rng(37)
    comps = []
    for omega in OMEGAS + [0.8, 7.0, 60.0, 600.0, 999.0]:
        k = _k(omega, depth)
        th = rng.uniform(0, 2 * math.pi)
        comps.append([0.9 * math.pi / 7 / k, omega, k * math.cos(th), k * math.sin(th), 0.0, rng.uniform(0, 6)])
    sim = _sim(comps, depth)
    qvel = rng.normal(0.0, 0.5, 6 * len(NAMES))
    for t in (0.0, 0.11, 2.5):
        F, m, d = _forces(sim, t, qvel)
        assert np.isfinite(F).all(), [NAMES[i] for i in range(len(NAMES)) if not np.isfinite(F[i]).all()]
    assert _steps_finite(m, d)


@pytest.mark.parametrize("depth", DEPTHS, ids=["deep", "h=2"])
@pytest.mark.parametrize("omega", [150.0, 300.0, 1000.0])
def test_a_body_deep_under_a_short_wave_feels_still_water(omega, depth):
    """k of 2,300 to 100,000 rad/m: e^{k zeta} is 0 a metre down (and at the seabed: the depth factor
    there, 1 / cosh k h, is 0 too), so the force on the submerged and the under-seabed bodies is
    still water's, whatever the amplitude."""
    k = _k(omega, depth)
    calm, _, _ = _forces(_still(), 0.0, 0.0)
    for steep in STEEP:
        F, _, _ = _forces(_sim([[steep * math.pi / 7 / k, omega, k, 0.0, 0.0, 0.0]], depth), 0.25, 0.0)
        for i, (typ, where) in enumerate(NAMES):
            if where == "across":
                continue
            scale = np.abs(calm[i]).max()
            assert np.abs(F[i] - calm[i]).max() <= 1e-12 * scale, (typ, where, steep, F[i], calm[i])


def test_under_the_seabed_the_field_is_the_seabeds():
    """Below a finite-depth sea's seabed the depth factor is held at its seabed value 1 / cosh k h, so a
    sphere (radius R, centre c) there in a long wave feels p_d = rho g a cos(k x - omega t) / cosh k h
    over its volume: F = -int grad p_d dV, horizontal, of the closed form rho g a k V 3 j1(kR) / (kR)
    sin(k c_x - omega t) / cosh k h (the sphere's integral of e^{i k x}), no vertical part and no moment
    about c; the buoyancy is still water's. (Its continuation e^{-k (zeta + 2 h)} was 1e27 times that
    here.)"""
    depth, omega, a, R, c = 2.0, 1.2, 0.05, 0.3, (0.4, 0.0, -30.0)
    k = _k(omega, depth)
    one = body("s", c, 10.0, (0.2, 0.2, 0.2), geom("sphere", [R]))
    t = 0.7
    F, _, _ = _forces(_sim([[a, omega, k, 0.0, 0.0, 0.0]], depth, one, drag=False), t, 0.0)
    calm, _, _ = _forces(_still(one, drag=False), t, 0.0)
    kr = k * R
    j1 = (math.sin(kr) - kr * math.cos(kr)) / kr ** 2
    V = 4.0 / 3.0 * math.pi * R ** 3
    fx = 1025.0 * G * a * k * V * 3.0 * j1 / kr * math.sin(k * c[0] - omega * t) / math.cosh(k * depth)
    gap = F[0] - calm[0]
    assert abs(gap[0] - fx) <= 1e-8 * abs(fx), (gap[0], fx)
    assert np.abs(gap[1:]).max() <= 1e-9 * abs(fx), gap


@pytest.fixture(scope="module")
def bluerov2(tmp_path_factory):
    from aurgen.cli import main

    out = tmp_path_factory.mktemp("sea_finite")
    assert main(["build", "bluerov2.yaml", "-o", str(out)]) == 0
    return out / "bluerov2" / "bluerov2.xml"


def test_the_bluerov2_under_waves_of_a_fiftieth_of_a_second(bluerov2):
    """The issue's world: regular waves 1e-5 m high of 0.02 s (omega 314 rad/s), the BlueROV2 at -3 m:
    its force at t = 0 is still water's (the waves' reach, e^{-k z} with k = 10,060 rad/m, is nothing
    three metres down), and 200 steps stay finite and healthy."""
    sea = waves.synthesize({"spectrum": "regular", "height": 1.0e-5, "period": 0.02}, (0.0, 0.0, 1.0), G)
    sims = [Simulation(str(bluerov2), environment=sea_env(c)) for c in
            (sea.components, [[0.0, 1.0, 1.0 / G, 0.0, 0.0, 0.0]])]
    out = []
    for sim in sims:
        m = sim.model
        d = mujoco.MjData(m)
        d.qpos[2] = -3.0
        mujoco.mj_forward(m, d)
        out.append(d.qfrc_passive.copy())
    assert np.isfinite(out[0]).all()
    assert np.abs(out[0] - out[1]).max() <= 1e-12 * np.abs(out[1]).max(), (out[0], out[1])
    sim = sims[0]
    sim.data.qpos[2] = -3.0
    mujoco.mj_forward(sim.model, sim.data)
    for _ in range(200):
        sim.step()
    assert np.isfinite(sim.data.qpos).all()
    h = sim.check()
    assert h.ok, h
