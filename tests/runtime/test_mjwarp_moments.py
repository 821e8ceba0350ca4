"""MuJoCo Warp takes the moments (issue 48): the sea's Froude-Krylov force by volume moments on Warp
against the plugin's.

runtime/mjwarp/sea_moments.py mirrors sea_moments.cc ``FroudeKrylovMoments``: a box or a mesh hull's
piece clipped by its cell's planes (the tangent plane among them) and split at the mean level, its
moments about the piece's centroid to the order each component's certified bound needs, and the
components whose bound fails at the largest order integrated by the columns with the cap's hydrostatic
term. A sea that declares no ``waves.fk`` takes them on both backends (the plugin's default), so here
the float64 hydrostatics ``m.aurgen.qfrc`` are compared with the plugin's generalized force computed from
exactly the kinematics the Warp kernels read (warpscenes.plugin_at), per state relative to its largest
component (the force scale), to TOL = 1e-12: what is left is the two implementations' arithmetic.

The seas: a regular wave (one component: the box takes the columns on both, the plugin's
kMomentsMinWaves, the mesh the moments), JONSWAP of 8 components in water 6 m deep and of 64 in deep
water, and JONSWAP 8 with a short component (40 rad/s) whose bound fails on these pieces (the
per-component fallback to the columns). The states: across the surface with heels up to 1.2 rad,
heeled by 0.9 to 1.4 rad across the surface, and fully submerged (the piece whole below the mean
level). Where a state's gap passes TOL, the plugin's own force there moves by as much when the geom is
moved by 1e-15 m, and such states are rare (at most one of a case's 24): the force is not continuous
in the pose at that level (the order the bound picks steps with the piece's extent; the mesh's hull
polyhedron, cut from its nearly coplanar float32 faces, has edges of 3e-10 m), and at such a state the
two implementations' rounding may land on either side (measured: one mesh state in JONSWAP 64, 1.6e-10
against the plugin's own jump of 1.8e-10). That the moments are what Warp took: the plugin's columns (the same sea declaring fk: exact)
differ from its moments by far more than TOL on these states.

Frames and units: world frame, SI. The first run compiles the Warp kernels (minutes on two cores).
"""
from __future__ import annotations

import copy
import math

import mujoco
import numpy as np
import pytest

mjw = pytest.importorskip("mujoco_warp", reason="the MuJoCo Warp backend's tests need mujoco-warp and warp-lang "
                                                "(pip install 'aurgen[gpu]')")
wp = pytest.importorskip("warp", reason="the MuJoCo Warp backend's tests need warp-lang (pip install 'aurgen[gpu]')")

from aurgen.runtime import mjwarp  # noqa: E402
from aurgen.runtime.sim import Simulation  # noqa: E402

from seascenes import component, finite_k, sea_env  # noqa: E402
from simfixtures import G  # noqa: E402
from warpscenes import _box_xml, _f32, _mesh_xml, plugin_at, warp_cpu, warp_forward  # noqa: E402, F401

TOL = 1e-12  # of the force scale, float64 from identical inputs (test_mjwarp_exact.py's)
NSTATE = 8  # per kind of state
SCENES = {"box": (_box_xml, 0.37), "mesh": (_mesh_xml, 0.3)}  # (MJCF maker, half-extent for the heights, m)


def _sea(name):
    """The seas (waves.fk left out: the plugin's default, the moments)."""
    from aurgen.runtime.environment import waves

    if name == "regular":  # a 2.5 s wave of 8 cm, deep water, ramped in over 5 s
        return sea_env([component(0.08, 2 * math.pi / 2.5, (2 * math.pi / 2.5) ** 2 / G, 0.5)], ramp=5.0)
    if name == "jonswap8":  # Hs 0.4 m, Tp 3 s, 6 m deep
        sea = waves.synthesize({"spectrum": "jonswap", "hs": 0.4, "tp": 3.0, "components": 8, "seed": 7,
                                "direction": 20.0}, (0.0, 0.0, 1.0), G, 6.0)
        return sea_env(sea.components, depth=6.0)
    if name == "jonswap64":  # Hs 0.3 m, Tp 2 s, deep water: short components the bound sends high
        sea = waves.synthesize({"spectrum": "jonswap", "hs": 0.3, "tp": 2.0, "components": 64, "seed": 3,
                                "direction": -35.0}, (0.0, 0.0, 1.0), G)
        return sea_env(sea.components)
    # "fallback": JONSWAP 8 in 6 m and a 40 rad/s component (|k| 163 rad/m) whose bound fails on these pieces
    env = _sea("jonswap8")
    k = 40.0 ** 2 / G
    env["waves"]["components"].append(component(0.002, 40.0, k, 1.1, 0.3))
    return env


def _states(sim, extent, seed):
    """3 NSTATE float32 states and times: across the surface (heel up to 1.2 rad), heeled (0.9 to 1.4
    rad) across it, and fully submerged (3 extents down); random yaw and velocities, t in [0, 30] s."""
    rng = np.random.default_rng(seed)
    m = sim.model
    n = 3 * NSTATE
    q, v = np.tile(m.qpos0, (n, 1)), rng.normal(0, 0.6, (n, m.nv))
    for i in range(n):
        kind = i // NSTATE
        lo, hi = (0.0, 1.2) if kind == 0 else (0.9, 1.4) if kind == 1 else (0.0, math.pi)
        axis = rng.normal(size=3)
        axis[2] = 0.0 if kind == 1 else axis[2]
        axis /= np.linalg.norm(axis)
        ang, yaw = rng.uniform(lo, hi), rng.uniform(-math.pi, math.pi)
        quat = np.zeros(4)
        mujoco.mju_mulQuat(quat, [math.cos(yaw / 2), 0, 0, math.sin(yaw / 2)],
                           np.r_[math.cos(ang / 2), axis * math.sin(ang / 2)])
        q[i, :2] = rng.uniform(-1, 1, 2)
        q[i, 2] = rng.uniform(-0.6, 0.6) * extent if kind < 2 else -3.0 * extent
        q[i, 3:7] = quat / np.linalg.norm(quat)
    q = _f32(q)
    for i in range(n):  # the float32 quaternion normalised in float32, as MuJoCo Warp reads it
        q[i, 3:7] = _f32(q[i, 3:7] / np.linalg.norm(q[i, 3:7]))
    return q, _f32(v), _f32(rng.uniform(0.0, 30.0, n))


def _own_jump(model, plain, dw, world):
    """The largest change of the plugin's force (warpscenes.plugin_at, N or N m) at MuJoCo Warp's inputs of
    ``world`` when its geom 0 is moved by 1e-15 m along each world axis: how far the plugin's force at that
    state is from a smooth function of the pose."""
    from warpscenes import KINEMATICS

    def at(shift):
        out = []
        for m in (model, plain):
            d = mujoco.MjData(m)
            d.qpos[:], d.qvel[:] = dw.qpos.numpy()[world], dw.qvel.numpy()[world]
            d.time = float(dw.time.numpy()[world])
            mujoco.mj_forward(m, d)
            for name in KINEMATICS:
                dst = getattr(d, name)
                dst[:] = np.asarray(getattr(dw, name).numpy()[world], float).reshape(dst.shape)
            d.geom_xpos[0] += shift
            mujoco.mj_passive(m, d)
            out.append(d.qfrc_passive.copy())
        return out[0] - out[1]

    base = at(np.zeros(3))
    return max(np.abs(at(s * 1e-15 * np.eye(3)[a]) - base).max() for a in range(3) for s in (-1.0, 1.0))


_RUNS: dict = {}


def _run(scene, seaname):
    """Per state, once per (scene, sea): Warp's float64 gap to the plugin's moments from identical inputs,
    and the plugin's moments' gap to its own columns, each relative to the state's force scale."""
    if (scene, seaname) in _RUNS:
        return _RUNS[scene, seaname]
    make, extent = SCENES[scene]
    env = _sea(seaname)
    exact = copy.deepcopy(env)
    exact["waves"]["fk"] = "exact"
    sim, sim_exact = Simulation(make(), environment=env), Simulation(make(), environment=exact)
    q, v, t = _states(sim, extent, seed=sum(map(ord, scene + seaname)))
    mjm, config = mjwarp.plain_model(sim.to_xml())
    m = mjwarp.put_model(mjm, config=config)
    assert m.aurgen.fkm == 1
    d = warp_forward(m, mjm, q, v, t)
    got = m.aurgen.qfrc.numpy()
    ref = np.array([plugin_at(sim.model, mjm, d, i) for i in range(len(q))])
    cols = np.array([plugin_at(sim_exact.model, mjm, d, i) for i in range(len(q))])
    scale = np.maximum(np.abs(ref).max(axis=1), 1e-300)
    err = np.abs(got - ref).max(axis=1) / scale
    # where Warp is off by more than TOL, the plugin's own change when the geom moves by 1e-15 m (its pieces'
    # polyhedra are not smooth functions of the pose at that level: _own_jump)
    jump = np.array([_own_jump(sim.model, mjm, d, i) if err[i] > TOL else 0.0 for i in range(len(q))]) / scale
    out = {"err": err, "jump": jump, "moved": np.abs(cols - ref).max(axis=1) / scale}
    _RUNS[scene, seaname] = out
    return out


@pytest.mark.parametrize("seaname", ["regular", "jonswap8", "jonswap64", "fallback"])
@pytest.mark.parametrize("scene", list(SCENES))
def test_warp_moments_match_the_plugins(scene, seaname):
    """m.aurgen.qfrc in a sea without fk (the moments) against the plugin's from identical inputs, on states
    across the surface, heeled and fully submerged: within TOL of each state's force scale."""
    r = _run(scene, seaname)
    err, jump = r["err"], r["jump"]
    for kind, sl in (("across", slice(0, NSTATE)), ("heeled", slice(NSTATE, 2 * NSTATE)),
                     ("submerged", slice(2 * NSTATE, None))):
        print(f"{scene} {seaname} {kind}: Warp against the plugin's moments worst {err[sl].max():.3g}; the "
              f"plugin's columns against its moments median {np.median(r['moved'][sl]):.3g}")
    off = err > TOL  # past TOL only where the plugin itself jumps by as much under a 1e-15 m shift, and rarely
    if off.any():
        print(f"{scene} {seaname}: past TOL at states {np.flatnonzero(off)}: {err[off]}; the plugin's own jump "
              f"there {jump[off]}")
    assert np.isfinite(err).all() and off.sum() <= 1 and np.all(err[off] <= 2.0 * jump[off]), (err, jump)


@pytest.mark.parametrize("scene", list(SCENES))
def test_the_moments_are_what_warp_took(scene):
    """On JONSWAP 8 the plugin's columns differ from its moments by far more than TOL on most states (the
    truncation and the columns' own errors), so Warp's agreement with the moments to TOL is the moments'."""
    moved = _run(scene, "jonswap8")["moved"]
    assert (moved > 1e3 * TOL).mean() >= 0.5, np.sort(moved)


@pytest.mark.parametrize("tolerance", [None, 1e-9])
def test_a_box_takes_the_moments_in_a_sea_of_two_components(tolerance):
    """Fast: one box across the surface of a two-component sea (the fewest a box takes the moments in),
    three heeled states, Warp's moments against the plugin's to TOL; at the default truncation tolerance
    and a declared waves.fk_tolerance (the orders the bound picks follow it on both)."""
    env = sea_env([component(0.05, 2.0, finite_k(2.0, 4.0), 0.3), component(0.03, 3.0, finite_k(3.0, 4.0), -0.8, 1.0)],
                  depth=4.0)
    if tolerance is not None:
        env["waves"]["fk_tolerance"] = tolerance
    sim = Simulation(_box_xml(), environment=env)
    q = _f32(np.tile(sim.model.qpos0, (3, 1)))
    for i, (ang, z) in enumerate(((0.3, -0.05), (1.0, 0.1), (0.6, -0.9))):
        q[i, 2], q[i, 3:7] = z, _f32([math.cos(ang / 2), math.sin(ang / 2), 0.0, 0.0])
    v, t = np.zeros((3, sim.model.nv)), _f32([1.0, 7.5, 13.0])
    mjm, config = mjwarp.plain_model(sim.to_xml())
    m = mjwarp.put_model(mjm, config=config)
    assert m.aurgen.fktol == (tolerance or 1e-4)
    d = warp_forward(m, mjm, q, v, t)
    got = m.aurgen.qfrc.numpy()
    ref = np.array([plugin_at(sim.model, mjm, d, i) for i in range(3)])
    err = np.abs(got - ref).max(axis=1) / np.abs(ref).max(axis=1)
    assert err.max() <= TOL, err


def test_per_world_seas_take_the_moments_each_in_its_own_directions():
    """set_waves with the moments: world 0 a long-crested JONSWAP (one direction group), world 1 a
    short-crested one (spreading 4: a group per component), 8 components each in water 6 m deep; the box
    heeled across the surface at one state, each world's qfrc against the plugin's in that world's sea
    from identical inputs, to TOL."""
    from aurgen.runtime.environment import waves

    decl = {"spectrum": "jonswap", "hs": 0.4, "tp": 3.0, "components": 8, "seed": 5, "direction": 10.0}
    seas = [waves.synthesize(dict(decl, **extra), (0.0, 0.0, 1.0), G, 6.0).components
            for extra in ({}, {"spreading": 4.0})]
    sims = [Simulation(_box_xml(), environment=sea_env(c, depth=6.0)) for c in seas]
    q = _f32(np.tile(sims[0].model.qpos0, (2, 1)))
    q[:, 2], q[:, 3:7] = -0.05, _f32([math.cos(0.35), math.sin(0.35), 0.0, 0.0])
    v, t = np.zeros((2, sims[0].model.nv)), _f32([6.5, 6.5])
    mjm, config = mjwarp.plain_model(sims[0].to_xml())
    m = mjwarp.put_model(mjm, config=config)
    m.aurgen.set_waves(np.stack(seas))
    assert m.aurgen.ndir.numpy().tolist() == [1, 8]
    d = warp_forward(m, mjm, q, v, t)
    got = m.aurgen.qfrc.numpy()
    for i, sim in enumerate(sims):
        ref = plugin_at(sim.model, mjm, d, i)
        assert np.abs(got[i] - ref).max() <= TOL * np.abs(ref).max(), (i, got[i], ref)
    assert np.abs(got[0] - got[1]).max() > 1e-3 * np.abs(got[0]).max()
