"""The sea's Froude-Krylov force on the curved shapes and meshes, MuJoCo Warp against the plugin.

runtime/mjwarp/sea_shapes.py mirrors the column rules of sea.cc ``FroudeKrylov`` for every displacement
geom the plugin serves (``Disk``: a sphere, an ellipsoid as the scaled unit sphere, a capsule's
hemispheres; ``Cylinder``: axial or across; ``BoxColumns`` through a mesh hull's face planes), with
runtime/mjwarp/sea.py's chords (``Sums::Column``, ``Sums::CapAt``). Here a sphere, an ellipsoid, a
vertical and a tilted cylinder, a capsule and a convex mesh, each crossing the surface of a regular
wave (deep water, ramped in) and of a JONSWAP sea in water 1.2 m deep, at random float32 states and
times (the waves short enough against the geoms, 2 to 4 m, for the correction to carry a real share
of the force and the Gauss orders to climb):

* ``qfrc_passive`` (float32) matches the plugin's at the same state to float32's precision, per state
  relative to its largest component (TOL_STATE, as tests/runtime/test_mjwarp.py's box in a sea);
* the hydrostatics' float64 sum ``m.aurgen.qfrc`` matches the plugin's force computed from exactly
  the kinematics the Warp kernels read (warpscenes.plugin_at) to TOL_EXACT: what is left is the two
  implementations' arithmetic;
* the mesh's face planes (mjwarp_sea.hull_planes) are the plugin's HullPlanes of its own hull (core
  BuildHull, aurgen.runtime._native.hull_from_points) to rounding, with its bounding box bitwise.

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
from aurgen.runtime.mjwarp import sea as mjwarp_sea  # noqa: E402
from aurgen.runtime.sim import Simulation  # noqa: E402

from seascenes import sea_env  # noqa: E402
from simfixtures import G, body, geom, mjcf, water_env  # noqa: E402
from warpscenes import _f32, _mesh_xml, plugin_at, warp_cpu, warp_forward  # noqa: E402, F401  (warp_cpu: the module's fixture)

TOL_STATE = 2e-5  # float32 state and qfrc_passive (test_mjwarp.py's)
TOL_EXACT = 1e-12  # float64 from identical inputs (test_mjwarp_exact.py's)
TOL_SHORT = 1e-10  # the same, in waves of 1000 rad/s (test_short_waves_and_the_seabed_match_the_plugin)
NSTATE = 40
MESH = int(mujoco.mjtGeom.mjGEOM_MESH)


def _one(name, type_, size, pos, extra=""):
    return mjcf(body(name, (0, 0, 0), 3.0, (0.05, 0.06, 0.07), geom(type_, size, pos=pos, extra=extra)))


# scene: (MJCF, the largest heel of its states (rad)); each geom off its body's origin (the moments)
SHAPES = {
    "sphere": (_one("s", "sphere", [0.1], (0.02, -0.01, 0.03)), 1.2),
    "ellipsoid": (_one("e", "ellipsoid", [0.3, 0.18, 0.1], (0.03, 0.02, -0.02), 'euler="0.3 0.2 0.1"'), 1.2),
    # within 45 degrees of up: Cylinder's axial columns (Disk); the tilted one across (Kinks)
    "cylinder_vertical": (_one("c", "cylinder", [0.12, 0.25], (0.02, 0.0, 0.01)), 0.5),
    "cylinder_tilted": (_one("c", "cylinder", [0.12, 0.25], (0.02, 0.0, 0.01), 'euler="1.35 0 0.4"'), 0.25),
    "capsule": (_one("k", "capsule", [0.1, 0.2], (0.0, 0.03, 0.02)), 1.2),
    "mesh": (_mesh_xml(), 1.2),
}
AXIAL = {"cylinder_vertical": True, "cylinder_tilted": False}


def _sea(name):
    """"regular": a 1.2 s wave (2.25 m long) 12 cm high toward 30 degrees, ramped in over 5 s, deep
    water; "jonswap_finite": Hs 0.15 m, Tp 1.6 s, 8 components (seed 7) toward 20 degrees, 1.2 m deep;
    "short_finite" (issue 37): components of 40, 314 and 1000 rad/s at half the breaking limit and a
    1.2 s one, 1.2 m deep (chords along which the field spans more than a double's range, integrated
    from their upper end; the states half under the seabed, where the depth factor is held)."""
    from aurgen.runtime.environment import waves

    if name == "short_finite":
        comps = []
        for j, omega in enumerate((40.0, 314.0, 1000.0, 2 * math.pi / 1.2)):
            k = waves.wavenumber(omega, G, 1.2)
            a = 0.02 if j == 3 else 0.5 * math.pi / 7 / k
            comps.append([a, omega, k * math.cos(0.3 * j), k * math.sin(0.3 * j), 0.0, 0.7 * j])
        return sea_env(comps, depth=1.2, fk="exact")
    if name == "regular":
        sea = waves.synthesize({"spectrum": "regular", "height": 0.12, "period": 1.2, "direction": 30.0},
                               (0.0, 0.0, 1.0), G)
        return sea_env(sea.components, ramp=5.0, fk="exact")
    sea = waves.synthesize({"spectrum": "jonswap", "hs": 0.15, "tp": 1.6, "components": 8, "seed": 7,
                            "direction": 20.0}, (0.0, 0.0, 1.0), G, 1.2)
    return sea_env(sea.components, depth=1.2, fk="exact")


def _eta(env, x, t):
    """The sea's elevation (m) at the world point x, time t (runtime.waves.elevation): for placing the
    states across the surface only."""
    from types import SimpleNamespace

    from aurgen.runtime.environment import waves

    w = env["waves"]
    return float(waves.elevation(SimpleNamespace(components=w["components"], ramp=w.get("ramp", 0.0)), x, t))


def _extent(m, d, g):
    """(lowest, highest) world height of geom g's surface at d's pose."""
    R = d.geom_xmat[g].reshape(3, 3)
    l = R[2]  # up in the geom frame
    s, typ = m.geom_size[g], int(m.geom_type[g])
    if typ == MESH:
        a, n = int(m.mesh_vertadr[m.geom_dataid[g]]), int(m.mesh_vertnum[m.geom_dataid[g]])
        h = np.asarray(m.mesh_vert[a:a + n], float) @ l
        return d.geom_xpos[g, 2] + h.min(), d.geom_xpos[g, 2] + h.max()
    h = {int(mujoco.mjtGeom.mjGEOM_SPHERE): s[0],
         int(mujoco.mjtGeom.mjGEOM_ELLIPSOID): math.sqrt(float(np.sum((s * l) ** 2))),
         int(mujoco.mjtGeom.mjGEOM_CYLINDER): s[0] * math.hypot(l[0], l[1]) + s[1] * abs(l[2]),
         int(mujoco.mjtGeom.mjGEOM_CAPSULE): s[1] * abs(l[2]) + s[0]}[typ]
    return d.geom_xpos[g, 2] - h, d.geom_xpos[g, 2] + h


def _states(sim, env, heel, seed, n=NSTATE):
    """n float32 states and times with the geom across the sea's surface where it stands: heel up to
    ``heel`` rad about a random axis, a random yaw, the geom's centre between 0.8 of its half-height
    below and above the local elevation, random velocities; t in [0, 30] s (through the ramp)."""
    rng = np.random.default_rng(seed)
    m, d = sim.model, mujoco.MjData(sim.model)
    q, v = np.tile(m.qpos0, (n, 1)), rng.normal(0, 0.6, (n, m.nv))
    t = _f32(rng.uniform(0.0, 30.0, n))
    for i in range(n):
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        ang, yaw = rng.uniform(0, heel), rng.uniform(-math.pi, math.pi)
        quat = np.zeros(4)
        mujoco.mju_mulQuat(quat, [math.cos(yaw / 2), 0, 0, math.sin(yaw / 2)],
                           np.r_[math.cos(ang / 2), axis * math.sin(ang / 2)])
        q[i, :2], q[i, 2], q[i, 3:7] = rng.uniform(-1, 1, 2), 0.0, _f32(quat / np.linalg.norm(quat))
        d.qpos[:] = q[i]
        mujoco.mj_kinematics(m, d)
        lo, hi = _extent(m, d, 0)
        mid = 0.5 * (lo + hi)
        q[i, 2] = _eta(env, d.geom_xpos[0], float(t[i])) - mid + rng.uniform(-0.8, 0.8) * 0.5 * (hi - lo)
    return _f32(q), _f32(v), t


_RUNS: dict = {}


def _run(shape, seaname):
    """Per state, once per (shape, sea): the float32 gap of qfrc_passive, the float64 gap from
    identical inputs (relative to the state's largest component), the plugin's forces and its forces
    in still water at the same states, and up in each state's geom frame."""
    if (shape, seaname) in _RUNS:
        return _RUNS[shape, seaname]
    xml, heel = SHAPES[shape]
    env = _sea(seaname)
    sim = Simulation(xml, environment=env)
    q, v, t = _states(sim, env, heel, seed=31 if seaname == "regular" else 32)
    if seaname == "short_finite":  # every other state 3 m down: under the 1.2 m seabed
        q[::2, 2] = _f32(q[::2, 2] - 3.0)
    mjm, config = mjwarp.plain_model(sim.to_xml())
    m = mjwarp.put_model(mjm, config=config)
    d = warp_forward(m, mjm, q, v, t)
    got32, got64 = d.qfrc_passive.numpy().astype(float), m.aurgen.qfrc.numpy()
    still = Simulation(xml, environment=water_env(1025.0, 1.225))
    ref, calm, up = [], [], []
    for sm, out in ((sim, ref), (still, calm)):
        dm = mujoco.MjData(sm.model)
        for i in range(len(q)):
            dm.qpos[:], dm.qvel[:], dm.time = q[i], v[i], float(t[i])
            mujoco.mj_forward(sm.model, dm)
            out.append(dm.qfrc_passive.copy())
            if sm is sim:
                up.append(dm.geom_xmat[0].reshape(3, 3)[2].copy())
    ref, calm = np.array(ref), np.array(calm)
    exact = np.array([plugin_at(sim.model, mjm, d, i) for i in range(len(q))])
    scale = np.maximum(np.abs(ref).max(axis=1), 1e-300)
    out = {"f32": np.abs(got32 - ref).max(axis=1) / scale,
           "f64": np.abs(got64 - exact).max(axis=1) / np.maximum(np.abs(exact).max(axis=1), 1e-300),
           "ref": ref, "calm": calm, "up": np.array(up)}
    _RUNS[shape, seaname] = out
    return out


SEAS = ["regular", "jonswap_finite"]


@pytest.mark.parametrize("seaname", SEAS)
@pytest.mark.parametrize("shape", list(SHAPES))
def test_sea_forces_match_the_plugin_at_random_float32_states(shape, seaname):
    """qfrc_passive in a sea matches the plugin's on the same float32 state; the states cross the
    surface, the sea changes the force (against still water at the same states), and the cylinders'
    states take the rule they are named for (axial within 45 degrees of up)."""
    r = _run(shape, seaname)
    sea_part = np.abs(r["ref"] - r["calm"]).max(axis=1) / np.abs(r["ref"]).max(axis=1)
    assert (sea_part > 1e-2).mean() >= 0.75, np.sort(sea_part)
    if shape in AXIAL:
        assert np.all((r["up"][:, 2] ** 2 >= 0.5) == AXIAL[shape]), r["up"][:, 2]
    err = r["f32"]
    print(f"{shape} {seaname}: float32 worst {err.max():.3g} (median {np.median(err):.3g}); the sea's share "
          f"median {np.median(sea_part):.3g}")
    assert err.max() <= TOL_STATE, (err.max(), int(err.argmax()))


@pytest.mark.parametrize("seaname", SEAS)
@pytest.mark.parametrize("shape", list(SHAPES))
def test_float64_sea_forces_match_the_plugin_from_identical_inputs(shape, seaname):
    """m.aurgen.qfrc against the plugin's force from the kinematics the Warp kernels read."""
    err = _run(shape, seaname)["f64"]
    print(f"{shape} {seaname}: float64 from identical inputs worst {err.max():.3g} (median {np.median(err):.3g})")
    assert err.max() <= TOL_EXACT, (err.max(), int(err.argmax()))


@pytest.mark.parametrize("shape", list(SHAPES))
def test_short_waves_and_the_seabed_match_the_plugin(shape):
    """Issue 37: waves of up to the loader's 1000 rad/s across the surface and a seabed under half the
    states: the forces are finite and the float64 sum matches the plugin's from identical inputs, to
    TOL_SHORT: a phase k.x of k = 1e5 rad/m carries the rounding of x (the two implementations' world
    points differ in the last bits) times 1e5. (float32 states are not compared: float32 places a point
    to 1e-7 m, a phase error of 0.01 rad in a 63 um wave.)"""
    r = _run(shape, "short_finite")
    assert np.isfinite(r["ref"]).all() and np.isfinite(r["f32"]).all()
    err = r["f64"]
    print(f"{shape} short_finite: float64 from identical inputs worst {err.max():.3g}")
    assert np.isfinite(err).all() and err.max() <= TOL_SHORT, (err.max(), int(err.argmax()))


def test_set_waves_refuses_what_the_loader_refuses():
    """set_waves checks each world's sea with the loader's _waves: the overflowing rows of issue 37 are
    refused in the loader's (and the plugin's) words."""
    sim = Simulation(SHAPES["sphere"][0], environment=_sea("regular"))
    mjm, config = mjwarp.plain_model(sim.to_xml())
    m = mjwarp.put_model(mjm, config=config)
    for row, words in (([0.0, 1e160, 1e300, 0.0, 0.0, 0.0], "omega 1e+160 rad/s must be at most 1000.0"),
                       ([0.0, 4e154, 1e308, 1e308, 0.0, 0.0], "omega 4e+154 rad/s must be at most 1000.0"),
                       ([0.0, 1.0, 1e308, 1e308, 0.0, 0.0], "|k| 1.4142135623730951e+308 rad/m must be from")):
        with pytest.raises(mjwarp.MjWarpRefused) as info:
            m.aurgen.set_waves([row])
        assert str(info.value).startswith("set_waves: world 0: waves.components[0]: " + words), str(info.value)


def _plugin_hull_planes(pack):
    """sea.cc HullPlanes::Build on the plugin's hull pack (hull_from_points): (rows (F, 4), lo, hi)."""
    verts, _, edges, fstart = pack[0], pack[1], pack[2], pack[3]
    rows = []
    for f in range(len(fstart) - 1):
        e = edges[fstart[f]:fstart[f] + 2]  # the face's first two directed edges
        u, v = e[0, 3:] - e[0, :3], e[1, 3:] - e[1, :3]
        n = np.array([u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]])
        L = math.sqrt(n @ n)
        if L > 0:
            n = n / L
            rows.append([*n, n @ e[0, :3]])
    return np.array(rows), verts.min(axis=0), verts.max(axis=0)


def test_mesh_hull_planes_are_the_plugins():
    """hull_planes' block for the mesh geom: its hull's bounding box (rows 0, 1) bitwise the plugin's, its
    face planes the plugin's as a set (each within 1e-14 of one of the other's: the triangulations of
    the coplanar faces differ, the planes do not)."""
    from aurgen.runtime._native import hull_from_points

    from aurgen.runtime.environment import schema as envmod

    sim = Simulation(_mesh_xml(), environment=_sea("regular"))
    mjm, config = mjwarp.plain_model(sim.to_xml())
    r = mjwarp.records(mjm, envmod.from_model(mjm), config)
    planes, ranges = mjwarp_sea.hull_planes(r)
    a, b = ranges[0]
    mid = int(mjm.geom_dataid[0])
    va, vn = int(mjm.mesh_vertadr[mid]), int(mjm.mesh_vertnum[mid])
    rows, lo, hi = _plugin_hull_planes(hull_from_points(np.ascontiguousarray(mjm.mesh_vert[va:va + vn])))
    assert np.array_equal(planes[a, :3], lo) and np.array_equal(planes[a + 1, :3], hi)
    ours = planes[a + 2:b]
    assert len(ours) >= 8 and len(rows) >= 8
    gap = lambda x, y: np.abs(x[:, None, :] - y[None, :, :]).max(axis=2).min(axis=1).max()  # noqa: E731
    assert gap(ours, rows) <= 1e-14 and gap(rows, ours) <= 1e-14, (gap(ours, rows), gap(rows, ours))


def test_a_sea_without_fk_takes_the_moments_and_a_declared_exact_the_columns():
    """Issue 48: the Warp kernels take the Froude-Krylov force as the plugin does: a sea that declares no
    waves.fk (or fk: moments) by the volume moments (runtime/mjwarp/sea_moments.py), one that declares fk:
    exact by the columns. So here Warp without fk matches the plugin's default from identical inputs, and
    Warp with fk: exact the plugin's columns, each to TOL_EXACT; the two methods differ (the moments'
    truncation and the columns' silhouette), so each agreement is its own method's (tests/runtime/
    test_mjwarp_moments.py compares the moments on more seas and states)."""
    xml = SHAPES["mesh"][0]
    exact = _sea("jonswap_finite")
    bare = copy.deepcopy(exact)
    del bare["waves"]["fk"]
    sims = {name: Simulation(xml, environment=env) for name, env in (("exact", exact), ("bare", bare))}
    q, v, t = _states(sims["bare"], bare, 1.2, seed=33, n=12)
    got = {}
    for name, sim in sims.items():
        mjm, config = mjwarp.plain_model(sim.to_xml())
        m = mjwarp.put_model(mjm, config=config)
        assert m.aurgen.fkm == (name == "bare")
        d = warp_forward(m, mjm, q, v, t)
        got[name] = (m.aurgen.qfrc.numpy(), np.array([plugin_at(sim.model, mjm, d, i) for i in range(len(q))]))
    scale = np.maximum(np.abs(got["exact"][1]).max(axis=1), 1e-300)
    err = {name: np.abs(w - p).max(axis=1) / scale for name, (w, p) in got.items()}
    moved = np.abs(got["bare"][1] - got["exact"][1]).max(axis=1) / scale
    print(f"mesh: Warp without fk against the plugin's moments worst {err['bare'].max():.3g}, with fk: exact "
          f"against its columns worst {err['exact'].max():.3g}; the methods apart median {np.median(moved):.3g}")
    assert err["bare"].max() <= TOL_EXACT and err["exact"].max() <= TOL_EXACT, err
    assert np.median(moved) > 1e3 * TOL_EXACT
