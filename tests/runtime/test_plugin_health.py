"""The health ledger kept by the plugin (aurgen.hydrostatics advance, plugin_state), and
mesh displacement geoms served by the plugin.

Oracles: the ledger the callback engine keeps from its Python step loop (the layer the
plugin replaced: q0 copied before each mj_step, the record flag set, Ledger.account after),
energies and work computed in numpy from the trajectory (closed forms for a box in water),
the step's own count of MuJoCo's resets, and for meshes the convex hull of trimesh/scipy
(runtime/hydrostatics/geoms.py hull_of, pack_hulls) and the callback engine's trajectory.
"""
from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest

from aurgen.runtime.sim import health
from aurgen.runtime.sim import mjwarn
from aurgen.runtime import plugin as hplugin
from aurgen.runtime.sim import Simulation

from simfixtures import G, body, geom, mjcf, water_env

if not hplugin.library_path().exists():
    pytest.skip(f"the plugin library is not built ({hplugin.library_path()})", allow_module_level=True)
hplugin.load()

INTEGRATORS = ("Euler", "implicitfast", "implicit", "RK4")
RHO = 1000.0


def _cube(integrator="Euler", dt=0.002, a=0.05, z=0.01, mass=None, env=True):
    """A box of half-size a, half the water's density unless mass is given, its centre at z."""
    mass = 0.5 * RHO * 8 * a ** 3 if mass is None else mass
    b = body("c", (0, 0, z), mass, (mass * (2 * a) ** 2 / 6,) * 3, geom("box", [a] * 3))
    return mjcf(b, env=water_env(RHO, None) if env else None, timestep=dt, integrator=integrator)


def _lamb(integrator):
    g = geom("ellipsoid", (0.5, 0.1, 0.1), extra='fluidshape="ellipsoid"')
    b = body("e", (0, 0, -2.0), 0.5 * RHO * 4 / 3 * math.pi * 0.5 * 0.01, (0.01, 0.05, 0.05), g,
             euler=(0.3, 0.5, 0.2), simple=False)
    return mjcf(b, env=water_env(RHO), integrator=integrator)


def _drive(sim, n, kick):
    """Kick, then n steps with an applied wrench and generalized force (work done) in single steps."""
    sim.data.qvel[:] = kick
    sim.forward()
    for i in range(n):
        sim.data.qfrc_applied[2] = 0.3 * math.sin(0.05 * i)
        sim.data.xfrc_applied[1, 3:] = (0.0, 0.02, 0.01 * math.cos(0.03 * i))
        sim.step(1)


@pytest.mark.parametrize("integrator", INTEGRATORS)
@pytest.mark.parametrize("xml", ["cube", "lamb"])
def test_the_plugins_ledger_is_bitwise_the_python_step_loops(xml, integrator):
    """Every integrator: the ledger advanced inside mj_step (advance runs after qpos, qvel and
    time are integrated, the other arrays still those of the step's last evaluation, which is
    what the Python loop read after mj_step returned) equals the Python loop's, bit for bit."""
    src = _cube(integrator) if xml == "cube" else _lamb(integrator)
    kick = np.array([0.1, -0.2, 0.3, 0.5, -1.0, 0.7])
    with Simulation(src) as a, Simulation(src, engine="callback") as b:
        assert a._plugin and a.monitor.plugin is not None and not b._plugin
        _drive(a, 400, kick)
        _drive(b, 400, kick)
        assert np.array_equal(a.data.qpos, b.data.qpos) and np.array_equal(a.data.qvel, b.data.qvel)
        assert np.array_equal(a.monitor.state, b.monitor.state)
        assert np.array_equal(a.monitor.zbuf, b.monitor.zbuf)
        assert a.monitor.state[health.S_N] == 400 and a.monitor.state[health.S_W] != 0.0
        assert a.check() == b.check()


def _box_energy(qpos, qvel, mass, a):
    """Closed form for an upright box of half-size a in water (surface z = 0), numpy: kinetic
    (translation; the box does not turn) + m g z + the buoyancy potential 1/2 rho g A h^2, h the
    depth of its bottom (pressure rho g (-z) integrated over the submerged part)."""
    z = qpos[2]
    h = min(max(a - z, 0.0), 2 * a)
    depth_term = 0.5 * RHO * G * (2 * a) ** 2 * (h ** 2 if z >= -a else (4 * a * -z))
    return 0.5 * mass * float(qvel[:3] @ qvel[:3]) + mass * G * z + depth_term


@pytest.mark.parametrize("integrator", INTEGRATORS)
def test_the_ledger_against_energy_and_work_from_the_trajectory(integrator):
    """E, E0 and W of the plugin's ledger against numpy on the trajectory: E of the state at
    each step's start (closed form), W the applied force times the step's mean velocity
    (v0 + v1) / 2 (Euler, implicitfast, implicit: core/ledger.h StepWork), RK4 the force
    times its stage velocities weighted 1, 2, 2, 1 (the stages integrated here, in closed form:
    the box's acceleration (F + rho g A h(z)) / m - g)."""
    a, dt = 0.05, 0.002
    mass = 0.5 * RHO * 8 * a ** 3

    def acc(z, F):
        h = min(max(a - z, 0.0), 2 * a)
        return (F + RHO * G * (2 * a) ** 2 * h) / mass - G

    def rk4_mean_velocity(z0, v0, F):  # (v0 + 2 v1 + 2 v2 + v3) / 6, MuJoCo's RK4 tableau
        v1 = v0 + 0.5 * dt * acc(z0, F)
        z1 = z0 + 0.5 * dt * v0
        v2 = v0 + 0.5 * dt * acc(z1, F)
        z2 = z0 + 0.5 * dt * v1
        v3 = v0 + dt * acc(z2, F)
        return (v0 + 2 * v1 + 2 * v2 + v3) / 6

    with Simulation(_cube(integrator, dt, a, z=0.02), drag=False, damping=False) as sim:
        assert sim._plugin
        E, W = [], [0.0]
        for i in range(300):
            F = 2.0 * math.sin(0.02 * i)
            sim.data.qfrc_applied[2] = F
            E.append(_box_energy(sim.data.qpos, sim.data.qvel, mass, a))
            z0, v0 = sim.data.qpos[2], sim.data.qvel[2]
            sim.step(1)
            v = rk4_mean_velocity(z0, v0, F) if integrator == "RK4" else 0.5 * (v0 + sim.data.qvel[2])
            W.append(W[-1] + F * v * dt)
        st = sim.monitor.state
        assert abs(sim.data.qvel[3:]).max() < 1e-12  # it does not turn: the closed form holds
        tol = 1e-9 * abs(E[0])
        assert st[health.S_E] - st[health.S_E0] == pytest.approx(E[-1] - E[0], abs=tol)
        assert st[health.S_W] == pytest.approx(W[-1], abs=tol)
        # the residual of the last step: its energy minus the work done before it
        assert st[health.S_RES] == pytest.approx(E[-1] - E[0] - W[-2], abs=tol)
        assert abs(W[-1]) > 1e3 * tol and abs(E[-1] - E[0]) > 1e3 * tol  # work was done, energy moved


def test_a_user_forward_and_state_edit_between_steps_changes_nothing():
    """Runge-Kutta: the plugin records the evaluations at the step's start time, not the inner
    stages; a user mj_forward, then a state edit, before mj_step must not leave a stale record."""
    for integrator in INTEGRATORS:
        xml = _lamb(integrator)
        m = mujoco.MjModel.from_xml_string(_declared(xml))
        da, db = mujoco.MjData(m), mujoco.MjData(m)
        rng = np.random.default_rng(5)
        for _ in range(60):
            kick = rng.normal(scale=0.05, size=m.nv)
            mujoco.mj_forward(m, db)  # records the state before the edit
            for d in (da, db):
                d.qvel[:] += kick
                mujoco.mj_step(m, d)
        assert np.array_equal(da.plugin_state, db.plugin_state), integrator
        assert np.array_equal(da.qpos, db.qpos)


def _declared(xml: str) -> str:
    decl = (f'<extension><plugin plugin="{hplugin.NAME}"><instance name="hydrostatics"/></plugin></extension>')
    return xml.replace("<worldbody", decl + "<worldbody", 1)


def test_simulation_step_is_one_mj_step_call(monkeypatch):
    """No Python per step: step(n) hands MuJoCo n steps in one call."""
    calls = []
    real = mujoco.mj_step

    def spy(m, d, nstep=1):
        calls.append(nstep)
        real(m, d, nstep=nstep)

    with Simulation(_cube()) as sim:
        monkeypatch.setattr(mujoco, "mj_step", spy)
        sim.step(500)
        assert calls == [500]
        assert sim.monitor.state[health.S_N] == 500  # and the ledger advanced 500 times


@pytest.mark.parametrize("integrator", INTEGRATORS)
def test_a_model_with_no_environment_keeps_its_health_in_the_plugin(integrator, monkeypatch):
    """No environment: the plugin, in ledger plain (no forces), keeps the state checks and the
    height window inside mj_step, bit for bit what the Python step loop keeps, and the
    trajectory is plain MuJoCo's; step(n) is one mj_step call."""
    src = _cube(integrator, z=1.0, env=False)
    kick = np.array([0.1, -0.2, 0.3, 0.5, -1.0, 0.7])
    with Simulation(src) as a, Simulation(src, engine="callback") as b:
        assert a.monitor.plugin is not None and b.monitor.plugin is None
        assert "plain" in a.model.plugin_attr.tobytes().decode(errors="replace")  # config ledger plain
        _drive(a, 300, kick)
        _drive(b, 300, kick)
        assert np.array_equal(a.data.qpos, b.data.qpos) and np.array_equal(a.data.qvel, b.data.qvel)
        assert np.array_equal(a.monitor.state, b.monitor.state)
        assert np.array_equal(a.monitor.zbuf, b.monitor.zbuf)
        assert a.monitor.state[health.S_N] == 300 and a.check() == b.check()
        calls = []
        real = mujoco.mj_step
        monkeypatch.setattr(mujoco, "mj_step", lambda m, d, nstep=1: (calls.append(nstep), real(m, d, nstep=nstep)))
        a.step(50)
        assert calls == [50] and a.monitor.state[health.S_N] == 350
    m = mujoco.MjModel.from_xml_string(src)  # no forces: plain MuJoCo's trajectory
    d = mujoco.MjData(m)
    with Simulation(src) as sim:
        mujoco.mj_step(m, d, nstep=200)
        sim.step(200)
        assert np.array_equal(sim.data.qpos, d.qpos) and np.array_equal(sim.data.qvel, d.qvel)


def test_a_batch_worlds_health_is_a_serial_simulations():
    """health_of reads any MjData stepped with the plugin: mujoco.batch.Batch on 2 threads."""
    from mujoco.batch import Batch

    with Simulation(_cube(z=0.03), settle_window=0.2) as sim:
        sim.step(1500)
        want = sim.check()
        ref = sim.monitor.state.copy(), sim.monitor.zbuf.copy()
        batch = Batch(sim.model, nsim=4, nthread=2)
        batch.reset()
        batch.step(nstep=1500)
        for i in range(4):
            d = batch.get_data(i)
            got = health.health_of(sim.model, d)
            assert got == want and got.settled and got.ok
            led = health.PluginLedger(sim.model, d)
            assert np.array_equal(led.state, ref[0]) and np.array_equal(led.zbuf, ref[1])


def test_resets_are_counted_by_the_plugin_in_a_plain_loop(tmp_path, monkeypatch):
    """A plain mj_step loop (no Simulation, no Python per step): the plugin counts each of MuJoCo's
    state resets and re-arms its counter (MuJoCo alone would stop at 1); a user mj_resetData starts
    a new run."""
    mjwarn.install()  # MuJoCo's messages: not printed, not logged to a file
    monkeypatch.chdir(tmp_path)
    m = mujoco.MjModel.from_xml_string(_declared(_cube()))
    d = mujoco.MjData(m)
    mujoco.mj_step(m, d, nstep=10)
    k = 5
    for _ in range(k):
        d.qfrc_applied[2] = math.nan  # MuJoCo zeroes it with the reset
        mujoco.mj_step(m, d, nstep=3)
    h = health.health_of(m, d)
    assert not h.ok and not h.settled
    r = health.PluginLedger(m, d).resets()
    assert r.count == k and r.kinds == (("mjWARN_BADQACC", k),)
    assert r.first == ("mjWARN_BADQACC", pytest.approx(10 * 0.002, abs=1e-12))
    assert r.time_reached == pytest.approx(10 * 0.002, abs=1e-12)  # later resets came at 3 dt
    assert "MuJoCo reset the state to the initial one 5 times (mjWARN_BADQACC 5)" in h.reason
    assert d.warning[mujoco.mjtWarning.mjWARN_BADQACC].number == 0  # re-armed
    assert list(tmp_path.iterdir()) == []
    mujoco.mj_resetData(m, d)
    assert health.PluginLedger(m, d).resets().count == 0  # a new run: the count no longer applies
    mujoco.mj_step(m, d, nstep=5)
    assert health.health_of(m, d).ok
    assert int(health.PluginLedger(m, d).tally[health.T_RESETS]) == 0


def test_with_auto_reset_disabled_a_bad_state_is_no_reset(tmp_path, monkeypatch):
    """mjDSBL_AUTORESET: MuJoCo warns of the bad acceleration but keeps the state; the plugin
    counts no reset, and the ledger's own check reports the non-finite state."""
    mjwarn.install()
    monkeypatch.chdir(tmp_path)
    m = mujoco.MjModel.from_xml_string(_declared(_cube()))
    m.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_AUTORESET
    d = mujoco.MjData(m)
    mujoco.mj_step(m, d, nstep=5)
    d.qfrc_applied[2] = math.nan
    mujoco.mj_step(m, d)
    assert d.warning[mujoco.mjtWarning.mjWARN_BADQACC].number >= 1  # MuJoCo saw it
    assert not np.all(np.isfinite(d.qacc))  # and kept the state
    assert health.PluginLedger(m, d).resets().count == 0
    h = health.health_of(m, d)
    assert not h.ok and h.reason.startswith("non-finite state") and "MuJoCo reset" not in h.reason, h.reason
    assert list(tmp_path.iterdir()) == []


def test_settle_window_and_track_go_to_the_plugin():
    xml = mjcf(body("a", (0, 0, 0.0), 0.5, (1e-3,) * 3, geom("box", [0.05] * 3))  # both at their draft
               + body("b", (1, 0, 0.0), 0.5, (1e-3,) * 3, geom("box", [0.05] * 3)),
               env=water_env(RHO, None), timestep=0.004)
    with Simulation(xml, settle_window=0.5, track="b") as sim:
        led = sim.monitor.plugin
        assert led.nz == 125 and sim.monitor.zbuf.shape == (125,)  # 0.5 s / 0.004 s
        assert led.track == sim.model.body("b").id
        sim.data.qpos[2] += 0.02  # only body a moves
        sim.step(200)
        assert sim.height_range() < 1e-12 and sim.check().settled
    with Simulation(xml, settle_window=0.5, track="a") as sim:  # a still bobs
        assert sim.monitor.plugin.track == sim.model.body("a").id
        sim.data.qpos[2] += 0.02
        sim.step(200)
        assert sim.height_range() > 1e-4 and not sim.check().settled


@pytest.mark.parametrize("config,needle", [
    ('<config key="settle_window" value="-1"/>', "settle_window"),
    ('<config key="settle_window" value="soon"/>', "settle_window"),
    ('<config key="track" value="nobody"/>', "track"),
    ('<config key="ledger" value="some"/>', "ledger"),
])
def test_bad_health_config_fails_compilation_naming_the_key(config, needle):
    xml = _declared(_cube()).replace('<instance name="hydrostatics"/>',
                                     f'<instance name="hydrostatics">{config}</instance>')
    with pytest.raises(Exception, match=needle):
        mujoco.MjModel.from_xml_string(xml)


def test_an_mjmodel_without_the_plugin_is_a_clear_error():
    from aurgen.runtime.sim import SimulationError

    m = mujoco.MjModel.from_xml_string(_cube())
    with pytest.raises(SimulationError, match="no aurgen.hydrostatics instance"):
        Simulation(m)


# ---------------------------------------------------------------- meshes

def _mesh_xml(pts, integrator="Euler", mass=None):
    vs = " ".join(repr(float(x)) for x in np.asarray(pts).ravel())
    mass = 0.5 * RHO * _hull_volume(pts) if mass is None else mass
    b = body("m", (0, 0, 0.0), mass, (mass * 0.01,) * 3,
             '<geom type="mesh" mesh="hull" user="1" contype="0" conaffinity="0"/>', euler=(0.2, 0.1, 0.0))
    xml = mjcf(b, env=water_env(RHO), integrator=integrator)
    return xml.replace("<worldbody>", f'<asset><mesh name="hull" vertex="{vs}"/></asset><worldbody>', 1)


def _hull_volume(pts):
    from scipy.spatial import ConvexHull

    return float(ConvexHull(np.asarray(pts)).volume)


def _points(seed):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(60, 3)) * [0.3, 0.15, 0.1]


def _box_points():
    return np.array([[x, y, z] for x in (-0.3, 0.3) for y in (-0.1, 0.1) for z in (-0.08, 0.08)])


@pytest.mark.parametrize("pts", [_points(1), _points(2), _box_points()], ids=["random1", "random2", "box"])
def test_the_plugins_mesh_hull_is_the_python_sides(pts):
    """MuJoCo's hull (mesh_graph, read by AppendHull) and the one the plugin builds (BuildHull)
    against runtime/hydrostatics/geoms.py's (scipy's qhull): the same vertices, as many faces, the same volume and centre, the same clip of the
    mesh by random planes (the triangles' order differs: equal to rounding, not bitwise)."""
    from aurgen.runtime._native import hull_from_graph
    from aurgen.runtime.hydrostatics.geoms import hull_of, pack_hulls
    from aurgen.runtime.hydrostatics.kernel import clip_into

    m = mujoco.MjModel.from_xml_string(_mesh_xml(pts))
    va, vn, ga = int(m.mesh_vertadr[0]), int(m.mesh_vertnum[0]), int(m.mesh_graphadr[0])
    V = np.ascontiguousarray(m.mesh_vert[va:va + vn])
    from aurgen.runtime._native import hull_from_points

    ref = pack_hulls([hull_of(np.array(V, dtype=float))])
    for ours in (hull_from_graph(V, np.ascontiguousarray(m.mesh_graph[ga:])), hull_from_points(V)):
        assert sorted(map(tuple, ours[0])) == sorted(map(tuple, ref[0]))
        for i in (1, 3, 4):
            assert np.array_equal(ours[i], ref[i])
        np.testing.assert_allclose(ours[5], ref[5], rtol=1e-13)
        np.testing.assert_allclose(ours[6], ref[6], rtol=0, atol=1e-13 * np.abs(V).max())
    ours = hull_from_points(V)
    rng = np.random.default_rng(7)
    n = 200
    types = np.full(n, 7, dtype=np.int64)
    sizes = np.tile(m.geom_aabb[0, 3:6], (n, 1))
    pos = rng.normal(scale=0.1, size=(n, 3))
    q = rng.normal(size=(n, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    mats = np.zeros((n, 9))
    for k in range(n):
        mujoco.mju_quat2Mat(mats[k], q[k])
    mats = mats.reshape(n, 3, 3)
    ids = np.zeros(n, dtype=np.int64)
    for plane in ([0, 0, 1, 0.0], [0.3, -0.2, 0.93, 0.02]):
        planes = np.array([plane])
        planes[0, :3] /= np.linalg.norm(planes[0, :3])
        oa, ob = np.zeros((n, 14)), np.zeros((n, 14))
        clip_into(types, sizes, pos, mats, ids, ours, planes, oa, True)
        clip_into(types, sizes, pos, mats, ids, ref, planes, ob, True)
        np.testing.assert_allclose(oa, ob, rtol=1e-10, atol=1e-12)
        assert np.any((oa[:, 0] > 0) & (oa[:, 0] < 0.99 * ref[5][0]))  # partly submerged poses


@pytest.mark.parametrize("integrator", ("Euler", "implicitfast", "RK4"))
def test_a_mesh_world_runs_on_the_plugin_like_the_callback_engine(integrator):
    xml = _mesh_xml(_points(3), integrator)
    with Simulation(xml) as a, Simulation(xml, engine="callback") as b:
        assert a._plugin and a.model.nplugin == 1
        a.step(1500)
        b.step(1500)
        np.testing.assert_allclose(a.data.qpos, b.data.qpos, rtol=0, atol=1e-9)
        np.testing.assert_allclose(a.data.qvel, b.data.qvel, rtol=0, atol=1e-8)
        assert a.check().ok and b.check().ok
        assert a.energy() == pytest.approx(b.energy(), rel=1e-9)
        assert abs(a.data.qpos[:3] - Simulation(xml).data.qpos[:3]).max() > 1e-3  # it moved


def test_a_mesh_box_floats_at_its_closed_form_draft():
    """A box-shaped mesh at half the water's density floats with half its height under water."""
    pts = _box_points()
    xml = _mesh_xml(pts, "implicitfast").replace('euler="0.2 0.1 0.0"', 'euler="0.0 0.0 0.0"')
    with Simulation(xml) as sim:
        assert sim._plugin
        sim.step(15000)
        assert sim.check().ok
        assert sim.data.qpos[2] == pytest.approx(0.0, abs=1e-4)  # centre at the surface: draft 0.08 m


def test_a_reduced_collision_hull_does_not_reduce_the_displacement():
    """maxhullvert makes MuJoCo's hull (mesh_graph) a subset of the convex hull; the plugin builds
    its own from the mesh's vertices (core/hull.h BuildHull), so the displaced volume is the full
    hull's (scipy's qhull), not the reduced one's."""
    pts = _points(4)
    full = _declared(_mesh_xml(pts))
    reduced = full.replace('<mesh name="hull"', '<mesh name="hull" maxhullvert="6"')
    m = mujoco.MjModel.from_xml_string(reduced)
    assert m.mesh_graph[0] == 6  # MuJoCo's hull has 6 vertices
    va, vn = int(m.mesh_vertadr[0]), int(m.mesh_vertnum[0])
    V = np.array(m.mesh_vert[va:va + vn], dtype=float)
    with Simulation(reduced) as a, Simulation(full) as b:
        # at rest (no drag: its area comes from the mesh frame's bounding box, which MuJoCo
        # orients by the hull it computed) the same buoyancy: the same hull in the world
        a.forward()
        b.forward()
        # (mesh_vert is float32, stored in frames MuJoCo orients by its own hull: 1e-7 apart)
        np.testing.assert_allclose(a.data.qfrc_passive, b.data.qfrc_passive, rtol=1e-6, atol=1e-9)
        assert abs(b.data.qfrc_passive[2]) > 1.0
    from aurgen.runtime._native import hull_from_graph

    V32 = np.ascontiguousarray(m.mesh_vert[va:va + vn])
    with pytest.raises(ValueError, match="outside its convex hull"):  # MuJoCo's is reduced
        hull_from_graph(V32, np.ascontiguousarray(m.mesh_graph))
    from aurgen.runtime._native import hull_from_points

    assert hull_from_points(np.ascontiguousarray(m.mesh_vert[va:va + vn]))[5][0] == pytest.approx(
        _hull_volume(V), rel=1e-13)


TRACK_WORLD = ("config key 'track' is 'world': the world body (body 0), which never moves and would read as settled "
               "at once; name a body that moves")


def test_track_naming_the_world_body_is_refused_by_both_with_the_same_words():
    """``track`` naming the world body (body 0, never moves) was settled at once with health ok (issue 45):
    the plugin refuses it at init, and Simulation before compiling anything, in the same words."""
    from aurgen.runtime.sim import SimulationError

    xml = _declared(_cube()).replace('<instance name="hydrostatics"/>',
                                     '<instance name="hydrostatics"><config key="track" value="world"/></instance>')
    with pytest.raises(ValueError) as exc:
        mujoco.MjModel.from_xml_string(xml)
    assert TRACK_WORLD in str(exc.value), str(exc.value)
    plain = mjcf(body("a", (0, 0, 0.0), 0.5, (1e-3,) * 3, geom("box", [0.05] * 3)), env=water_env(RHO, None))
    with pytest.raises(SimulationError) as exc:
        Simulation(plain, track="world")
    assert TRACK_WORLD in str(exc.value), str(exc.value)
    with pytest.raises(SimulationError) as exc:  # a file declaring it: the plugin's words, through MuJoCo's error
        Simulation(xml)
    assert TRACK_WORLD in str(exc.value), str(exc.value)
