"""The MuJoCo Warp tests' scenes and their comparison with the plugin at identical inputs.

The scenes (one free body with one displacement geom of each type the plugin serves; two waters
with their own densities and currents) are shared by tests/runtime/test_mjwarp*.py. ``plugin_at``
gives the plugin's generalized force computed from exactly the kinematics MuJoCo Warp's kernels saw
(its float32 poses, velocities and dofs, promoted to float64), so the float64 hydrostatics of the
two backends can be compared without float32's state in the way: ``m.aurgen.qfrc`` (the Warp
kernels' float64 sum) against it.
"""
from __future__ import annotations

import math
import os

import mujoco
import numpy as np
import pytest

from seascenes import component, sea_env
from simfixtures import G, body, geom, mjcf

RHO, AIR = 1000.0, 1.225
BOX = (0.3, 0.2, 0.1)  # half sizes
R = 0.1  # the sphere's radius


def _box_xml(z=0.0, integrator="Euler", mass=12.0, extra_geom=""):
    return mjcf(body("b", (0, 0, z), mass, (0.2, 0.3, 0.4), geom("box", BOX) + extra_geom), integrator=integrator)


def _sphere_xml(z=0.0):
    return mjcf(body("s", (0, 0, z), 2.0, (0.01, 0.01, 0.01), geom("sphere", [R])))


def _cylinder_xml(z=0.0):
    return mjcf(body("c", (0, 0, z), 6.0, (0.1, 0.1, 0.05), geom("cylinder", [0.12, 0.25])))


def _ellipsoid_xml(z=0.0):
    return mjcf(body("e", (0, 0, z), 4.0, (0.05, 0.08, 0.1), geom("ellipsoid", [0.3, 0.18, 0.1])))


def _capsule_xml(z=0.0):
    return mjcf(body("k", (0, 0, z), 3.0, (0.05, 0.05, 0.02), geom("capsule", [0.1, 0.2])))


# a convex polytope (a cube with two corners cut, off-centre vertices): the hull MuJoCo's mesh keeps
_MESH_VERTS = [(x, y, z) for x in (-0.2, 0.25) for y in (-0.15, 0.15) for z in (-0.1, 0.12)
               if (x, y, z) not in ((0.25, 0.15, 0.12), (-0.2, -0.15, -0.1))]
_MESH_VERTS += [(0.25, 0.15, 0.0), (0.1, 0.15, 0.12), (0.25, 0.05, 0.12), (-0.2, -0.15, 0.0), (-0.05, -0.15, -0.1),
                (-0.2, -0.05, -0.1)]


def _mesh_xml(z=0.0):
    vert = "  ".join(" ".join(repr(float(c)) for c in v) for v in _MESH_VERTS)
    xml = mjcf(body("m", (0, 0, z), 5.0, (0.05, 0.06, 0.07), '<geom type="mesh" mesh="hull" user="1" '
                    'contype="0" conaffinity="0"/>'))
    return xml.replace("<worldbody>", f'<asset><mesh name="hull" vertex="{vert}"/></asset><worldbody>', 1)


def _currents_env():
    """Air above z = 0; below it two waters split at x = 0, each with its own density and current."""
    return {"planes": [[0, 0, 1, 0], [1, 0, 0, 0]],
            "cells": [{"name": "air", "signs": [1, 0], "density": AIR, "viscosity": 1.81e-5, "flow": [1.0, 0, 0]},
                      {"name": "west", "signs": [-1, -1], "density": 1000.0, "viscosity": 1e-3, "flow": [0.4, -0.2, 0]},
                      {"name": "east", "signs": [-1, 1], "density": 1025.0, "viscosity": 1.2e-3,
                       "flow": [0.0, 0.3, 0.05]}],
            "gravity": {"type": "uniform", "g": [0, 0, -G]}}


def _f32(x):
    return np.asarray(x, np.float32).astype(float)


def _random_states(rng, sim, n, extent, x_away=0.0):
    """n float32 states: heights from well in air to fully submerged, random attitudes (heel up to
    ~70 degrees), random velocities; |x| >= x_away (clear of a vertical plane at x = 0)."""
    m = sim.model
    q = np.tile(m.qpos0, (n, 1))
    x = rng.uniform(x_away, x_away + 1.0, n) * rng.choice([-1.0, 1.0], n)
    q[:, 0] = x
    q[:, 1] = rng.uniform(-1, 1, n)
    q[:, 2] = rng.uniform(-2.0 * extent, 2.0 * extent, n)
    axis = rng.normal(size=(n, 3))
    axis /= np.linalg.norm(axis, axis=1, keepdims=True)
    ang = rng.uniform(0, 1.2, n)
    quat = np.column_stack([np.cos(ang / 2), axis * np.sin(ang / 2)[:, None]])
    yaw = rng.uniform(-math.pi, math.pi, n)
    qz = np.column_stack([np.cos(yaw / 2), np.zeros(n), np.zeros(n), np.sin(yaw / 2)])
    for i in range(n):
        out = np.zeros(4)
        mujoco.mju_mulQuat(out, qz[i], quat[i])
        q[i, 3:7] = out
    q[:, 7:] = rng.uniform(-1, 1, (n, m.nq - 7))
    v = rng.normal(0, 0.6, (n, m.nv))
    q = _f32(q)
    for i in range(n):  # the float32 quaternion normalised in float32, as MuJoCo Warp reads it
        q[i, 3:7] = _f32(q[i, 3:7] / np.linalg.norm(q[i, 3:7]))
    return q, _f32(v)


def _sea_states(sim, n, extent, seed):
    rng = np.random.default_rng(seed)
    q, v = _random_states(rng, sim, n, extent)
    q[:, 2] = _f32(rng.uniform(-0.6 * extent, 0.3 * extent, n))  # mostly across the surface
    return q, v, _f32(rng.uniform(0.0, 30.0, n))


def field_env(kind: str) -> dict:
    """Air above z = 0 and water below it in a gravity field the plugin applies: "linear" (g0 9.81 m/s^2
    down, a symmetric gradient of 1e-2 / s^2), "central" (a planet of radius 50 m under the origin,
    9.81 m/s^2 at its surface) or "percell" (uniform, each cell its own g: 9.81 m/s^2 in the water,
    9.0 in the air)."""
    env = {"planes": [[0, 0, 1, 0]],
           "cells": [{"name": "air", "signs": [1], "density": AIR, "viscosity": 1.81e-5},
                     {"name": "water", "signs": [-1], "density": RHO, "viscosity": 1e-3, "flow": [0.2, 0.1, 0]}]}
    if kind == "linear":
        env["gravity"] = {"type": "linear", "g0": [0, 0, -G],
                          "G": [[1e-2, 2e-3, 0.0], [2e-3, -5e-3, 1e-3], [0.0, 1e-3, -5e-3]]}
    elif kind == "central":
        env["gravity"] = {"type": "central", "mu": G * 50.0**2, "centre": [0, 0, -50.0]}
    else:
        env["gravity"] = {"type": "uniform", "g": [0, 0, -G]}
        env["cells"][0]["gravity"], env["cells"][1]["gravity"] = [0, 0, -9.0], [0, 0, -G]
    return env


def follow(model, m, mjm, q0, v0, nstep: int):
    """Steps MuJoCo Warp's model ``m`` in two worlds from (q0, v0) beside MuJoCo (float64) on ``model``
    (with the plugin): world 0 with the hydrostatics, against that reference run; world 1, the
    baseline, plain MuJoCo Warp (zero density and viscosity everywhere: the callback adds nothing):
    under Euler and implicitfast given the plugin's force of the reference run's state at each step
    as qfrc_applied (its qfrc_passive less ``mjm``'s own passive force there), against the reference
    run: the same dynamics, the forces exact, float32 the only difference; under RK4 (whose stages
    would need the force at their own states) left to fall, against plain MuJoCo on ``mjm``.
    Returns (gaps (2,): the largest difference of qpos, and of qvel x timestep, sampled every 50
    steps, of each world to its reference; the reference MjData)."""
    import mujoco_warp as mjw

    forced = model.opt.integrator != mujoco.mjtIntegrator.mjINT_RK4
    nc = len(m.aurgen.records["density"])
    m.aurgen.set_cells(2, density=[m.aurgen.records["density"], np.zeros(nc)],
                       viscosity=[m.aurgen.records["viscosity"], np.zeros(nc)])
    d = mjw.make_data(mjm, nworld=2)
    d.qpos.assign(np.tile(q0, (2, 1)).astype(np.float32))
    d.qvel.assign(np.tile(v0, (2, 1)).astype(np.float32))
    dh, dp = mujoco.MjData(model), mujoco.MjData(mjm)
    for dd in (dh, dp):
        dd.qpos[:], dd.qvel[:] = q0, v0
    applied = np.zeros((2, mjm.nv), np.float32)
    gaps = np.zeros(2)
    for k in range(nstep):
        if forced:
            mujoco.mj_forward(model, dh)
            dp.qpos[:], dp.qvel[:], dp.time = dh.qpos, dh.qvel, dh.time
            mujoco.mj_forward(mjm, dp)
            applied[1] = dh.qfrc_passive - dp.qfrc_passive
            d.qfrc_applied.assign(applied)
        else:
            mujoco.mj_step(mjm, dp)
        mjw.step(m, d)
        mujoco.mj_step(model, dh)
        if k % 50 == 49 or k == nstep - 1:
            qw, vw = d.qpos.numpy().astype(float), d.qvel.numpy().astype(float)
            assert np.all(np.isfinite(qw)) and np.all(np.isfinite(vw))
            for i, ref in enumerate((dh, dh if forced else dp)):
                gaps[i] = max(gaps[i], np.abs(qw[i] - ref.qpos).max(),
                              np.abs(vw[i] - ref.qvel).max() * model.opt.timestep)
    return gaps, dh


def sea_scene(name: str) -> dict:
    """The tests' seas: "regular" (a 2.5 s wave of 8 cm, 0.5 rad off +x, a 5 s ramp, deep water) or
    "jonswap_finite" (Hs 0.4 m, Tp 3 s, 8 components, seed 7, toward 20 degrees, 6 m deep); each declaring
    waves.fk: exact, the columns both backends integrate (the plugin's default is the moments)."""
    from aurgen.runtime.environment import waves

    if name == "regular":
        return sea_env([component(0.08, 2 * math.pi / 2.5, (2 * math.pi / 2.5) ** 2 / G, 0.5)], ramp=5.0,
                       fk="exact")
    sea = waves.synthesize({"spectrum": "jonswap", "hs": 0.4, "tp": 3.0, "components": 8, "seed": 7,
                            "direction": 20.0}, (0.0, 0.0, 1.0), G, 6.0)
    return sea_env(sea.components, depth=6.0, fk="exact")


@pytest.fixture(scope="module", autouse=True)
def warp_cpu():
    """Warp on its CPU device (AURGEN_WARP_DEVICE to choose another), quiet: a Warp test module's
    fixture (imported there)."""
    import warp as wp

    wp.config.quiet = True
    wp.set_device(os.environ.get("AURGEN_WARP_DEVICE", "cpu"))
    yield


def warp_forward(m, mjm, q, v, t=None):
    """MuJoCo Warp's data of ``m`` (from the plain MjModel ``mjm``), one world per state (n, nq),
    (n, nv) (times (n,); None: 0), float32, after mjw.forward; no world flagged (a geom cut by two
    planes of one cell)."""
    import mujoco_warp as mjw
    import warp as wp

    d = mjw.make_data(mjm, nworld=len(q))
    d.qpos.assign(np.asarray(q, np.float32))
    d.qvel.assign(np.asarray(v, np.float32))
    d.time.assign(np.zeros(len(q), np.float32) if t is None else np.asarray(t, np.float32))
    mjw.forward(m, d)
    wp.synchronize()
    assert not m.aurgen.flags.numpy().any()
    return d


SCENES = {"box": (_box_xml, 0.35), "sphere": (_sphere_xml, 0.1), "cylinder": (_cylinder_xml, 0.28),
          "ellipsoid": (_ellipsoid_xml, 0.3), "capsule": (_capsule_xml, 0.3), "mesh": (_mesh_xml, 0.3)}

# what the plugin reads of mjData for its forces (hydro.cc Hydro::Compute's ForceData), as MuJoCo
# Warp's Data names them: overwritten in MuJoCo's data by Warp's values
KINEMATICS = ("geom_xpos", "geom_xmat", "xpos", "xmat", "xipos", "ximat", "subtree_com", "cvel", "cdof")


def plugin_at(model, plain, dw, world: int) -> np.ndarray:
    """The plugin's qfrc_passive share (nv,) at MuJoCo Warp's inputs of ``world``: MuJoCo's data of
    ``model`` (with the plugin) at Warp's qpos, qvel and time, mj_forward'd, its kinematics replaced by
    Warp's (KINEMATICS, float32 promoted) and its masses and inertias float32's as Warp's model holds
    them, then mj_passive; minus mj_passive of ``plain`` (the same
    model without the plugin) on the same inputs (joint damping and springs, if any)."""
    out = []
    keep = model.body_mass.copy(), model.body_inertia.copy()
    model.body_mass[:] = np.float32(keep[0])  # MuJoCo Warp's model is float32 too (the plugin reads them live)
    model.body_inertia[:] = np.float32(keep[1])
    for m in (model, plain):
        d = mujoco.MjData(m)
        d.qpos[:] = dw.qpos.numpy()[world]
        d.qvel[:] = dw.qvel.numpy()[world]
        d.time = float(dw.time.numpy()[world])
        mujoco.mj_forward(m, d)
        for name in KINEMATICS:
            dst = getattr(d, name)
            dst[:] = np.asarray(getattr(dw, name).numpy()[world], float).reshape(dst.shape)
        mujoco.mj_passive(m, d)
        out.append(d.qfrc_passive.copy())
    model.body_mass[:], model.body_inertia[:] = keep
    return out[0] - out[1]
