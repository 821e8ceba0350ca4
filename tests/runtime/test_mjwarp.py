"""The MuJoCo Warp backend (aurgen.runtime.mjwarp) against the plugin, on Warp's CPU device.

One set of held-scene force checks runs against both backends (``backend`` below: the plugin's
qfrc_passive from mj_forward, or MuJoCo Warp's from mjw.forward with the hydrostatics as its
passive callback), so a change to the physics cannot land on one and not the other; then the
Warp backend against the plugin at random float32 states, over 1,000-step trajectories (Euler,
implicitfast, RK4) with plain MuJoCo Warp vs plain MuJoCo as the baseline, per-world densities,
the refusals and determinism.

MuJoCo Warp is float32: its state (qpos, qvel, the kinematics, qfrc_passive) is float32 while the
hydrostatics inside its kernels are float64, so the agreement is float32's (figures measured in
docs/runtime.md "MuJoCo Warp"). Skipped, with the reason, where mujoco-warp is not installed.
The first run compiles MuJoCo Warp's kernels (minutes on two cores, cached in Warp's kernel
cache: ~/.cache/warp, or WARP_CACHE_PATH); later runs load them.
"""
from __future__ import annotations

import math
import os

import mujoco
import numpy as np
import pytest

mjw = pytest.importorskip("mujoco_warp", reason="the MuJoCo Warp backend's tests need mujoco-warp and warp-lang "
                                                "(pip install 'aurgen[gpu]')")
wp = pytest.importorskip("warp", reason="the MuJoCo Warp backend's tests need warp-lang (pip install 'aurgen[gpu]')")

from aurgen.runtime import mjwarp  # noqa: E402
from aurgen.runtime.sim import Simulation  # noqa: E402

from seascenes import component, sea_env  # noqa: E402
from simfixtures import G, body, geom, mjcf, water_env  # noqa: E402
from warpscenes import (AIR, BOX, RHO, R, _box_xml, _capsule_xml, _currents_env, _cylinder_xml,  # noqa: E402
                        _ellipsoid_xml, _f32, _mesh_xml, field_env, _random_states, _sea_states, _sphere_xml, follow, sea_scene,
                        warp_forward)

# float32: the state and qfrc_passive are float32 (eps 6e-8), the kinematics float32 arithmetic;
# measured worst per-state relative difference 3e-6 (BlueBoat), 1e-6 (box, sphere): see the tests
TOL_STATE = 2e-5
TOL_HELD = {"plugin": 1e-12, "warp": 1e-6}


@pytest.fixture(scope="module", autouse=True)
def warp_cpu():
    """Warp on its CPU device (AURGEN_WARP_DEVICE to choose another), its kernels compiled once
    for the module: a box stepped once under each integrator."""
    wp.config.quiet = True
    wp.set_device(os.environ.get("AURGEN_WARP_DEVICE", "cpu"))
    for integrator in ("Euler", "implicitfast", "RK4"):
        m, mjm = _warp(_sim(_box_xml(integrator=integrator), water_env()))
        d = mjw.make_data(mjm, nworld=1)
        mjw.step(m, d)
    wp.synchronize()
    yield


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    from aurgen.cli import main

    out = tmp_path_factory.mktemp("mjwarp_build")
    assert main(["build", "blueboat.yaml", "bluerov2.yaml", "-o", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def blueboat(built):
    return built / "blueboat" / "blueboat.xml"


@pytest.fixture(scope="module")
def bluerov2(built):
    return built / "bluerov2" / "bluerov2.xml"


def _sim(source, env, **kw):
    return Simulation(source, environment=env, **kw)


def _warp(sim, integrator=None):
    """(MuJoCo Warp model with the hydrostatics, the plain MjModel it came from) for a Simulation."""
    mjm, config = mjwarp.plain_model(sim.to_xml())
    if integrator is not None:
        mjm.opt.integrator = integrator
    return mjwarp.put_model(mjm, config=config), mjm


def qfrc(backend, sim, qpos, qvel, wm=None, t=None):
    """qfrc_passive (n, nv) at the states (n, nq), (n, nv) (and times (n,), float32; None: 0), from
    ``backend`` "plugin" (mj_forward on the Simulation's model) or "warp" (mjw.forward, one world per
    state)."""
    qpos, qvel = np.atleast_2d(qpos), np.atleast_2d(qvel)
    t = np.zeros(len(qpos)) if t is None else np.asarray(t, float)
    if backend == "plugin":
        d = mujoco.MjData(sim.model)
        out = []
        for q, v, ti in zip(qpos, qvel, t):
            d.qpos[:], d.qvel[:], d.time = q, v, ti
            mujoco.mj_forward(sim.model, d)
            out.append(d.qfrc_passive.copy())
        return np.array(out)
    m, mjm = wm if wm is not None else _warp(sim)
    return warp_forward(m, mjm, qpos, qvel, t).qfrc_passive.numpy().astype(float)


# ---------------------------------------------------------------- one set of checks, every backend

@pytest.mark.parametrize("backend", ["plugin", "warp"])
def test_held_box_feels_rho_g_v_submerged(backend):
    """A level box held at centre heights z: F_z = rho g 4ab (c - z) + rho_air g (V - V_sub), no
    moment, no horizontal force (drag and damping are zero at rest)."""
    a, b, c = BOX
    z = _f32(np.linspace(-0.15, 0.15, 13))
    sim = _sim(_box_xml(), water_env(RHO, AIR))
    q = np.tile(sim.model.qpos0, (len(z), 1))
    q[:, 2] = z
    got = qfrc(backend, sim, q, np.zeros((len(z), 6)))
    vsub = 4 * a * b * np.clip(c - z, 0.0, 2 * c)
    want = RHO * G * vsub + AIR * G * (8 * a * b * c - vsub)
    scale = RHO * G * 8 * a * b * c
    assert np.abs(got[:, 2] - want).max() <= TOL_HELD[backend] * scale
    assert np.abs(got[:, [0, 1, 3, 4, 5]]).max() <= TOL_HELD[backend] * scale


@pytest.mark.parametrize("backend", ["plugin", "warp"])
def test_held_sphere_feels_its_cap(backend):
    """A sphere held at centre heights z: F_z = rho g V_cap + rho_air g (V - V_cap), the cap of
    height h = R - z: V_cap = pi h^2 (3R - h) / 3."""
    z = _f32(np.linspace(-0.15, 0.15, 13))
    sim = _sim(_sphere_xml(), water_env(RHO, AIR))
    q = np.tile(sim.model.qpos0, (len(z), 1))
    q[:, 2] = z
    got = qfrc(backend, sim, q, np.zeros((len(z), 6)))
    h = np.clip(R - z, 0.0, 2 * R)
    vcap = math.pi * h * h * (3 * R - h) / 3
    want = RHO * G * vcap + AIR * G * (4 / 3 * math.pi * R**3 - vcap)
    scale = RHO * G * 4 / 3 * math.pi * R**3
    assert np.abs(got[:, 2] - want).max() <= TOL_HELD[backend] * scale
    assert np.abs(got[:, [0, 1, 3, 4, 5]]).max() <= TOL_HELD[backend] * scale


@pytest.mark.parametrize("backend", ["plugin", "warp"])
def test_held_heeled_box_rights_itself_about_its_centre_of_buoyancy(backend):
    """A box half submerged, heeled by theta about x: the waterline crosses the two long sides, the
    submerged section is a trapezoid whose centroid (closed form below) sets the moment about the
    box centre: M_x = rho g V_sub y_B (y_B the centroid's world y), F_z = rho g V_sub, V_sub = 4abc (half the box)."""
    a, b, c = BOX
    sim = _sim(_box_xml(), water_env(RHO, 0.0))  # no air: the water's force alone
    th = np.float32(0.2)
    q = sim.model.qpos0.copy()
    q[3:7] = [math.cos(th / 2), math.sin(th / 2), 0, 0]
    q = _f32(q)
    qw = q[3:7] / np.linalg.norm(q[3:7])
    th = 2 * math.atan2(qw[1], qw[0])
    got = qfrc(backend, sim, q, np.zeros(6))[0]
    # body frame (y, z) section 2b x 2c; the water is the half below the world plane through the
    # centre; in body coordinates: points with sin(th) y + cos(th) z <= 0. Its centroid by the
    # polygon formula, written here.
    corners = [(-b, -c), (b, -c), (b, c), (-b, c)]
    n = (math.sin(th), math.cos(th))
    poly = []
    for i in range(4):
        p, r = corners[i], corners[(i + 1) % 4]
        sp, sr = n[0] * p[0] + n[1] * p[1], n[0] * r[0] + n[1] * r[1]
        if sp <= 0:
            poly.append(p)
        if (sp < 0) != (sr < 0):
            t = sp / (sp - sr)
            poly.append((p[0] + t * (r[0] - p[0]), p[1] + t * (r[1] - p[1])))
    A = cy = cz = 0.0
    for i in range(len(poly)):
        (y0, z0), (y1, z1) = poly[i], poly[(i + 1) % len(poly)]
        cr = y0 * z1 - y1 * z0
        A += cr / 2
        cy += (y0 + y1) * cr / 6
        cz += (z0 + z1) * cr / 6
    cy, cz = cy / A, cz / A
    vsub = 2 * a * A
    yw = math.cos(th) * cy - math.sin(th) * cz  # the centroid's world y
    scale = RHO * G * 8 * a * b * c
    assert abs(vsub - 4 * a * b * c) <= 1e-12 * vsub
    assert got[2] == pytest.approx(RHO * G * vsub, abs=TOL_HELD[backend] * scale)
    assert got[3] == pytest.approx(RHO * G * vsub * yw, abs=TOL_HELD[backend] * scale * c)
    assert got[3] < -0.1 * RHO * G * vsub * b * math.sin(th)  # it rights: a real restoring moment


# ---------------------------------------------------------------- Warp against the plugin

def _compare(sim, q, v, wm=None):
    ref = qfrc("plugin", sim, q, v)
    got = qfrc("warp", sim, q, v, wm)
    scale = np.maximum(np.abs(ref).max(axis=1), 1e-300)
    return np.abs(got - ref).max(axis=1) / scale, ref


@pytest.mark.parametrize("envname", ["open", "currents", "central"])
@pytest.mark.parametrize("scene", ["box", "sphere", "cylinder", "ellipsoid", "capsule", "mesh", "blueboat"])
def test_forces_match_the_plugin_at_random_float32_states(scene, envname, blueboat):
    """qfrc_passive at 96 random float32 states (crossing the surface, heeled, submerged, in air,
    moving: buoyancy, drag, surface damping and declared damping all acting; in a central field the
    bodies' weights and gradient torques too) matches the plugin's on the same state to float32
    precision, per state relative to its largest component."""
    env = {"open": lambda: water_env(RHO, AIR, flow=(0.3, -0.1, 0.0)), "currents": _currents_env,
           "central": lambda: field_env("central")}[envname]()
    src, extent = {"box": (_box_xml(), 0.35), "sphere": (_sphere_xml(), 0.1), "cylinder": (_cylinder_xml(), 0.28),
                   "ellipsoid": (_ellipsoid_xml(), 0.3), "capsule": (_capsule_xml(), 0.3), "mesh": (_mesh_xml(), 0.3),
                   "blueboat": (blueboat, 0.8)}[scene]
    sim = _sim(src, env)
    rng = np.random.default_rng(26)
    q, v = _random_states(rng, sim, 96, extent, x_away=extent + 1.2 if envname == "currents" else 0.0)
    err, ref = _compare(sim, q, v)
    if envname != "central":  # (a field: the weights as well; the states are open water's)
        wet = np.abs(ref[:, 2]) > 10 * AIR * G * 0.01  # water reached some
        assert wet.sum() >= 40 and (~wet).sum() >= 5, (wet.sum(), (~wet).sum())  # both kinds sampled
    print(f"{scene} {envname}: worst per-state relative difference {err.max():.3g} (median {np.median(err):.3g})")
    assert err.max() <= TOL_STATE, (err.max(), int(err.argmax()))


def test_warp_honours_the_instance_config_and_per_world_flow(blueboat):
    """drag="false" damping="false" in the instance's config reach the Warp kernels (plain_model);
    per-world flow (set_cells) moves the drag as the plugin's environment with that current does."""
    rng = np.random.default_rng(3)
    sim = _sim(blueboat, water_env(RHO, AIR), drag=False, damping=False)
    q, v = _random_states(rng, sim, 16, 0.8)
    err, _ = _compare(sim, q, v)
    assert err.max() <= TOL_STATE
    still = _sim(blueboat, water_env(RHO, AIR))
    m, mjm = _warp(still)
    flows = rng.uniform(-1, 1, (16, 3))
    m.aurgen.set_cells(16, flow=np.stack([np.zeros((16, 3)), flows], axis=1))
    got = qfrc("warp", still, q, v, (m, mjm))
    for i in (0, 7, 15):
        ref = qfrc("plugin", _sim(blueboat, water_env(RHO, AIR, flow=tuple(flows[i]))), q[i], v[i])[0]
        assert np.abs(got[i] - ref).max() <= TOL_STATE * np.abs(ref).max()


# ---------------------------------------------------------------- trajectories

INTEGRATORS = {"Euler": mujoco.mjtIntegrator.mjINT_EULER, "implicitfast": mujoco.mjtIntegrator.mjINT_IMPLICITFAST,
               "RK4": mujoco.mjtIntegrator.mjINT_RK4}
NSTEP = 1000
GAP_FACTOR = 5.0  # the hydrostatics may widen MuJoCo Warp's own float32 gap this much (measured: 3.2 for
# the free BlueBoat under Euler, where the forces' stiffness feeds float32's state error back; ~1 in the worlds)
GAP_FLOOR = 1e-6  # m, rad: float32 resolution of a state of ~1


@pytest.mark.parametrize("integrator", list(INTEGRATORS))
def test_trajectories_follow_the_plugin_within_plain_mujoco_warps_gap(integrator, blueboat):
    """The BlueBoat dropped heeled and moving in open water, 1,000 steps: MuJoCo Warp (float32, world
    0) against the plugin (float64), and the baseline (world 1: plain MuJoCo Warp given the plugin's
    forces along its run, warpscenes.follow) against the same run. float32 cannot follow float64 to
    1e-9; the hydrostatics' gap must stay within GAP_FACTOR x the baseline's, float32's own (floored
    at float32's resolution). Figures: docs/runtime.md."""
    sim = _sim(blueboat, water_env(1025.0, AIR, flow=(0.2, 0.1, 0.0)))
    sim.model.opt.integrator = INTEGRATORS[integrator]
    m, mjm = _warp(sim, INTEGRATORS[integrator])
    q0 = sim.model.qpos0.copy()
    q0[2] = 0.05
    q0[3:7] = [math.cos(0.1), math.sin(0.1), 0, 0]
    q0 = _f32(q0)
    q0[3:7] = _f32(q0[3:7] / np.linalg.norm(q0[3:7]))
    v0 = _f32(np.array([0.3, 0.0, -0.2, 0.4, 0.2, 0.3] + [0.0] * (sim.model.nv - 6)))
    gaps, dh = follow(sim.model, m, mjm, q0, v0, NSTEP)
    z = dh.qpos[2]
    assert -0.2 < z < 0.05  # it floats
    print(f"{integrator}: hydro gap {gaps[0]:.3g}, plain gap {gaps[1]:.3g}")
    assert gaps[0] <= GAP_FACTOR * max(gaps[1], GAP_FLOOR), gaps


def test_per_world_density_floats_each_world_at_the_plugins_draft():
    """Three worlds of one model, water 800, 1000 and 1500 kg/m^3 (set_cells): after 1,000 steps
    each box's height matches the plugin run with that density, and the three settle near the
    closed-form drafts m / (rho 4ab) (ordered: the denser the water, the higher it floats)."""
    a, b, c = BOX
    mass = 12.0
    dens = np.array([800.0, 1000.0, 1500.0])
    xml = _box_xml(z=0.02, mass=mass)
    sim = _sim(xml, water_env(1000.0, AIR))
    m, mjm = _warp(sim)
    m.aurgen.set_cells(3, density=np.column_stack([np.full(3, AIR), dens]))
    d = mjw.make_data(mjm, nworld=3)
    for _ in range(NSTEP):
        mjw.step(m, d)
    zw = d.qpos.numpy()[:, 2].astype(float)
    zp = []
    for rho in dens:
        with _sim(xml, water_env(rho, AIR)) as s:
            s.step(NSTEP)
            zp.append(s.data.qpos[2])
    zp = np.array(zp)
    want = c - mass / (dens * 4 * a * b)  # the centre's height at equilibrium (air neglected)
    assert np.abs(zw - zp).max() <= 1e-4, (zw, zp)
    assert np.abs(zw - want).max() <= 5e-3, (zw, want)
    assert zw[0] < zw[1] < zw[2]


# ---------------------------------------------------------------- refusals and determinism

def _refused(source, env):
    mjm = mujoco.MjModel.from_xml_string(mjcf(source, env=env)) if isinstance(source, str) else source
    with pytest.raises(mjwarp.MjWarpRefused) as info:
        mjwarp.put_model(mjm)
    return str(info.value)


def test_refusals_say_what_and_why(bluerov2, blueboat):
    box = body("b", (0, 0, 0), 10.0, (1, 1, 1), geom("box", BOX))
    sim = _sim(bluerov2, water_env())
    msg = _refused(mjwarp.plain_model(sim.to_xml())[0], None)
    assert "added mass must enter the mass matrix" in msg and "passive callback cannot" in msg
    sea = sea_env([component(0.1, 1.0, 1.0 / G)])
    m = mjwarp.put_model(mujoco.MjModel.from_xml_string(mjcf(box, env=water_env())))
    with pytest.raises(mjwarp.MjWarpRefused, match="set_waves: the model's environment has no sea"):
        m.aurgen.set_waves([[0.1, 1.0, 1.0 / G, 0, 0, 0]])
    m = mjwarp.put_model(mujoco.MjModel.from_xml_string(mjcf(box, env=sea)))
    with pytest.raises(mjwarp.MjWarpRefused, match=r"set_waves: world 1: waves.components\[0\]: omega and k do "
                                                   "not satisfy"):
        m.aurgen.set_waves([[[0.1, 1.0, 1.0 / G, 0, 0, 0]], [[0.1, 1.0, 2.0 / G, 0, 0, 0]]])
    central = {"planes": [], "cells": [], "gravity": {"type": "central", "mu": 3.986e14, "centre": [0, 0, -6.4e6]}}
    assert "option gravity must be 0 0 0: the plugin applies the environment's gravity field" in _refused(box, central)
    assert "option gravity must equal the environment's uniform gravity" in _refused(
        box, {**water_env(), "gravity": {"type": "uniform", "g": [0, 0, -9.0]}})
    assert "has no <custom><text name=\"aurgen:environment\">" in _refused(box, None)
    msg = _refused(_sim(blueboat, water_env()).model, None)  # the plugin's MjModel itself
    assert "declares an engine plugin instance" in msg and "pass put_model the MJCF path or string" in msg
    with pytest.raises(mjwarp.MjWarpRefused, match="config 'drag'"):
        mjwarp.put_model(mujoco.MjModel.from_xml_string(mjcf(box, env=water_env())), config={"drag": "no"})
    m = mjwarp.put_model(mujoco.MjModel.from_xml_string(mjcf(box, env=water_env())))
    with pytest.raises(mjwarp.MjWarpRefused, match="density must be a finite array of shape"):
        m.aurgen.set_cells(2, density=np.ones((3, 2)))
    # a negative viscosity would drive what it damps (a box from 1 to 54 m/s in 0.2 s): refused, as the
    # environment refuses it, naming the world and the cell
    with pytest.raises(mjwarp.MjWarpRefused, match=r"viscosity must be >= 0 Pa s .* got -1000.0 in world 1, cell 1"):
        m.aurgen.set_cells(2, viscosity=[[0.0, 1.8e-5], [1.8e-5, -1e3]])


def test_two_runs_are_bitwise_identical(blueboat):
    """Same model, same start, 200 steps in 4 worlds (different densities): bitwise the same twice
    (the projection sums in a fixed order, no atomics)."""
    sim = _sim(blueboat, water_env(1025.0, AIR, flow=(0.3, 0, 0)))
    rng = np.random.default_rng(5)
    q, v = _random_states(rng, sim, 4, 0.3)
    out = []
    for _ in range(2):
        m, mjm = _warp(sim)
        m.aurgen.set_cells(4, density=np.column_stack([np.full(4, AIR), [990.0, 1000.0, 1025.0, 1100.0]]))
        d = mjw.make_data(mjm, nworld=4)
        d.qpos.assign(q.astype(np.float32))
        d.qvel.assign(v.astype(np.float32))
        for _ in range(200):
            mjw.step(m, d)
        out.append((d.qpos.numpy().tobytes(), d.qvel.numpy().tobytes(), d.qfrc_passive.numpy().tobytes()))
    assert out[0] == out[1]
    assert np.all(np.isfinite(np.frombuffer(out[0][0], np.float32)))


# ---------------------------------------------------------------- a sea

@pytest.mark.parametrize("seaname", ["regular", "jonswap_finite"])
@pytest.mark.parametrize("scene", ["box", "blueboat"])
def test_sea_forces_match_the_plugin(scene, seaname, blueboat):
    """In a sea (sea.cc mirrored in runtime/mjwarp/sea.py: tangent planes, the orbital velocity, the
    Froude-Krylov correction over a box's columns): qfrc_passive at 48 random float32 states and
    times matches the plugin's to float32 precision."""
    env = sea_scene(seaname)
    src, extent = {"box": (_box_xml(), 0.35), "blueboat": (blueboat, 0.8)}[scene]
    sim = _sim(src, env)
    q, v, t = _sea_states(sim, 48, extent, 25)
    ref = qfrc("plugin", sim, q, v, t=t)
    got = qfrc("warp", sim, q, v, t=t)
    err = np.abs(got - ref).max(axis=1) / np.maximum(np.abs(ref).max(axis=1), 1e-300)
    print(f"{scene} {seaname}: worst per-state relative difference {err.max():.3g} (median {np.median(err):.3g})")
    assert err.max() <= TOL_STATE, (err.max(), int(err.argmax()))


def test_per_world_seas_each_match_the_plugin_in_that_sea():
    """set_waves: two worlds with seas of different seeds feel different forces at the same state, each
    the plugin's in that world's sea."""
    from aurgen.runtime.environment import waves

    seas = [waves.synthesize({"spectrum": "jonswap", "hs": 0.3, "tp": 2.5, "components": 6, "seed": s},
                             (0.0, 0.0, 1.0), G).components for s in (1, 2)]
    sims = [_sim(_box_xml(), sea_env(c, fk="exact")) for c in seas]
    q, v, t = _sea_states(sims[0], 1, 0.35, 3)
    q, v, t = np.repeat(q, 2, axis=0), np.repeat(v, 2, axis=0), np.repeat(t, 2)
    wm = _warp(sims[0])
    wm[0].aurgen.set_waves(np.stack(seas))
    got = qfrc("warp", sims[0], q, v, wm, t=t)
    for i, sim in enumerate(sims):
        ref = qfrc("plugin", sim, q[i:i + 1], v[i:i + 1], t=t[i:i + 1])[0]
        assert np.abs(got[i] - ref).max() <= TOL_STATE * np.abs(ref).max(), (i, got[i], ref)
    assert np.abs(got[0] - got[1]).max() > 1e-3 * np.abs(got[0]).max()
