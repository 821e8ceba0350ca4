"""The MuJoCo engine plugin aurgen.hydrostatics (runtime/native/plugin).

Oracle: the Python runtime layer (Simulation, whose forces are checked against
closed forms, quadrature and Lamb/Kirchhoff references in the other runtime
tests) on the same model without the plugin declaration.  A model stepped by
plain MuJoCo with the plugin must follow bitwise the same trajectory, under
every integrator; threads (rollout, Batch) must be bitwise equal to a serial
loop; a subprocess that imports only mujoco floats the BlueBoat at its specs
draft; bad configuration fails model compilation naming the key.
"""
from __future__ import annotations

import math
import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import mujoco
import numpy as np
import pytest

from aurgen.cli import main
from aurgen.runtime import plugin as hplugin
from aurgen.runtime.sim import Simulation

from simfixtures import body, geom, mjcf, water_env

if not hplugin.library_path().exists():
    pytest.skip(f"the plugin library is not built ({hplugin.library_path()})", allow_module_level=True)
hplugin.load()

INTEGRATORS = ("Euler", "implicitfast", "implicit", "RK4")


def declare(xml: str, config: str = "") -> str:
    """The MJCF with one aurgen.hydrostatics instance declared (emitted worlds declare it already)."""
    if hplugin.NAME in xml:
        return xml if not config else xml.replace('<instance name="hydrostatics"/>',
                                                  f'<instance name="hydrostatics">{config}</instance>')
    decl = (f'<extension><plugin plugin="{hplugin.NAME}"><instance name="hydrostatics">{config}'
            f"</instance></plugin></extension>")
    return xml.replace("<worldbody", decl + "<worldbody", 1)


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    out = tmp_path_factory.mktemp("build")
    assert main(["build", "blueboat.yaml", "bluerov2.yaml", "-o", str(out)]) == 0
    assert main(["worlds", "open_water", "open_sea", "-o", str(out)]) == 0
    return out


def _world_xml(world, integrator, name="open_water"):
    path = world / "worlds" / f"{name}.xml"
    text = path.read_text().replace('file="../', f'file="{world}/')
    return text.replace('integrator="implicitfast"', f'integrator="{integrator}"')


def _lamb_xml(integrator):
    """A 5:1 prolate spheroid at half the water's density, tilted, moving: added mass dominates."""
    g = geom("ellipsoid", (0.5, 0.1, 0.1), extra='fluidshape="ellipsoid"')
    b = body("e", (0, 0, -2.0), 0.5 * 1000.0 * 4 / 3 * math.pi * 0.5 * 0.01, (0.01, 0.05, 0.05), g,
             euler=(0.3, 0.5, 0.2), simple=False)
    return mjcf(b, env=water_env(1000.0), integrator=integrator)


def _trajectories(xml, n, kick=None):
    """(plugin qpos, qvel), (Simulation qpos, qvel) after n steps from the same state."""
    m = mujoco.MjModel.from_xml_string(declare(xml))
    d = mujoco.MjData(m)
    sim = Simulation(xml, engine="callback")
    for dd in (d, sim.data):
        if kick is not None:
            dd.qvel[:] = kick
    mujoco.mj_forward(m, d)
    sim.forward()
    for _ in range(n):
        mujoco.mj_step(m, d)
    sim.step(n)
    out = (d.qpos.copy(), d.qvel.copy()), (sim.data.qpos.copy(), sim.data.qvel.copy())
    sim.close()
    return out


@pytest.mark.parametrize("integrator", INTEGRATORS)
def test_world_steps_bitwise_like_the_python_layer(world, integrator):
    (qp, qv), (sp, sv) = _trajectories(_world_xml(world, integrator), 400)
    assert np.array_equal(qp, sp) and np.array_equal(qv, sv)


@pytest.mark.parametrize("integrator", INTEGRATORS)
def test_added_mass_in_the_mass_matrix_bitwise_like_the_python_layer(integrator):
    kick = np.array([0.3, -0.2, 0.1, 0.5, -1.0, 0.7])
    (qp, qv), (sp, sv) = _trajectories(_lamb_xml(integrator), 300, kick)
    assert np.array_equal(qp, sp) and np.array_equal(qv, sv)
    assert np.all(np.isfinite(qv)) and np.abs(qv).max() > 1e-3  # it moved


def test_ledger_in_plugin_state_matches_the_python_layer(world):
    xml = _world_xml(world, "implicitfast")
    m = mujoco.MjModel.from_xml_string(declare(xml))
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    a = int(m.plugin_stateadr[0])
    with Simulation(xml, engine="callback") as sim:
        sim.forward()
        ref = sim._plan.led[:5].copy()
    got = d.plugin_state[a:a + 5]
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12 * np.abs(ref).max())


@pytest.mark.parametrize("name", ["open_water", "open_sea"])
def test_rollout_and_batch_on_two_threads_are_bitwise_serial(world, name):
    """Threads (rollout, Batch) step bitwise as one loop, in still water and in a sea (its phase
    from each MjData's time: the same sea in every host)."""
    from mujoco import rollout
    from mujoco.batch import Batch

    m = mujoco.MjModel.from_xml_string(declare(_world_xml(world, "implicitfast", name)))
    nroll, nstep = 6, 150
    d0 = mujoco.MjData(m)
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    rng = np.random.default_rng(3)
    states = []
    for i in range(nroll):
        mujoco.mj_resetData(m, d0)
        d0.qvel[:] = rng.normal(scale=0.2, size=m.nv)
        s = np.empty(mujoco.mj_stateSize(m, spec))
        mujoco.mj_getState(m, d0, s, spec)
        states.append(s)
    states = np.array(states)
    serial = []
    for s in states:
        mujoco.mj_setState(m, d0, s, spec)
        mujoco.mj_forward(m, d0)
        for _ in range(nstep):
            mujoco.mj_step(m, d0)
        serial.append(d0.qpos.copy())
    datas = [mujoco.MjData(m) for _ in range(2)]
    st, _ = rollout.rollout(m, datas, states, nstep=nstep)
    qadr = 1  # FULLPHYSICS: time, then qpos
    threaded = st[:, -1, qadr:qadr + m.nq]
    assert np.array_equal(threaded, np.array(serial))
    # Batch: its simulations start from the model's reset state; two threads against one loop
    batch = Batch(m, nsim=nroll, nthread=2)
    batch.reset()
    batch.step(nstep=nstep)
    ref = mujoco.MjData(m)
    mujoco.mj_forward(m, ref)
    for _ in range(nstep):
        mujoco.mj_step(m, ref)
    for i in range(nroll):
        got = batch.get_data(i)
        assert np.array_equal(got.qpos, ref.qpos) and np.array_equal(got.qvel, ref.qvel)


@pytest.mark.parametrize("config,needle", [
    ('<config key="drag" value="maybe"/>', "drag"),
    ('<config key="added_mass" value="2"/>', "added_mass"),
    ('<config key="damping" value="no"/>', "damping"),
])
def test_bad_config_fails_compilation_naming_the_key(config, needle):
    with pytest.raises(Exception, match=needle):
        mujoco.MjModel.from_xml_string(declare(_lamb_xml("Euler"), config))


@pytest.mark.parametrize("env_text,needle", [
    ("{not json", "does not parse"),
    ('{"planes": [[0, 0, 2, 0]], "cells": []}', "unit vector"),
    ('{"planes": [[0, 0, 1, 0]], "cells": [{"signs": [-1], "density": -1}]}', "density"),
    # size limits, the Python loader's (runtime/environment/schema.py MAX_*): 200,000 planes once made the
    # plugin reserve clip scratch for their square (std::bad_alloc)
    ('{"planes": [' + ",".join(["[0, 0, 1, 0]"] * 1025) + '], "cells": []}',
     "1025 planes, more than the 1024"),
    ('{"planes": [], "cells": [' + ",".join('{"name": "c%d"}' % i for i in range(257)) + ']}',
     "257 cells, more than the 256"),
    ('{"planes": [' + ",".join(["[0, 0, 1, %d]" % i for i in range(65)]) + '], "cells": [{"signs": ['
     + ",".join(["-1"] * 65) + ']}]}', "bounded by 65 planes, more than the 64"),
])
def test_bad_environment_fails_compilation_with_the_reason(env_text, needle):
    xml = declare(_lamb_xml("Euler"))
    start = xml.index("<custom>")
    end = xml.index("</custom>") + len("</custom>")
    xml = xml[:start] + f"<custom><text name=\"aurgen:environment\" data='{env_text}'/></custom>" + xml[end:]
    with pytest.raises(Exception, match=needle):
        mujoco.MjModel.from_xml_string(xml)


def _entry_point_installed() -> bool:
    return any(ep.value == "aurgen.runtime.plugin:load" for ep in metadata.entry_points(group="mujoco.plugins"))


def test_plain_mujoco_process_floats_the_blueboat_at_its_specs_draft(world, tmp_path):
    if not _entry_point_installed():
        pytest.skip("the installed aurgen declares no mujoco.plugins entry point (an install from "
                    "before it existed: reinstall aurgen)")
    from test_vehicles_sim import specs_rows

    path = tmp_path / "open_water_plugin.xml"
    path.write_text(declare(_world_xml(world, "implicitfast")))
    code = ("import sys, mujoco\n"
            "m = mujoco.MjModel.from_xml_path(sys.argv[1]); d = mujoco.MjData(m)\n"
            "b = m.body('blueboat/base_link').id\n"
            "for _ in range(5000): mujoco.mj_step(m, d)\n"
            "print(repr(float(d.xpos[b, 2])), d.ncon, sorted(k for k in sys.modules if k.startswith('aurgen.runtime.')))\n")
    r = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, cwd=tmp_path,
                       env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert r.returncode == 0, r.stderr[-2000:]
    z, ncon, mods = r.stdout.split(" ", 2)
    # only the loader (and its build record): no aurgen force code in the process
    assert set(eval(mods)) <= {"aurgen.runtime.plugin", "aurgen.runtime._build_info"}
    assert int(ncon) == 0
    rows = specs_rows(world / "blueboat" / "blueboat.xml")
    draft = float(rows["draft"].split()[0])
    assert -float(z) == pytest.approx(draft, abs=1e-3)


def test_a_c_host_floats_the_blueboat_and_without_the_library_gets_the_documented_error(world, tmp_path,
                                                                                       mujoco_host):
    """A MuJoCo host with no Python (tests/data/mujoco_host.c: the C API, as MuJoCo's simulate app
    or a C++ controller) loads the plugin library with mj_loadPluginLibrary and floats the BlueBoat
    at its specs draft; without the library the world fails to load with MuJoCo's error, which
    docs/guide/simulate.md quotes next to the fix."""
    from test_vehicles_sim import specs_rows

    path = tmp_path / "open_water_plugin.xml"
    path.write_text(declare(_world_xml(world, "implicitfast")))
    r = mujoco_host(hplugin.library_path(), path, 5000, "blueboat/base_link")
    assert r.returncode == 0, r.stderr[-2000:]
    z, ncon = r.stdout.split()
    assert int(ncon) == 0
    draft = float(specs_rows(world / "blueboat" / "blueboat.xml")["draft"].split()[0])
    assert -float(z) == pytest.approx(draft, abs=1e-3)

    r = mujoco_host(None, path, 1, "blueboat/base_link")
    assert r.returncode == 1 and r.stdout == ""
    error = r.stderr.splitlines()[0]
    assert f"plugin {hplugin.NAME} not found" in error, r.stderr
    page = Path(__file__).resolve().parents[2] / "docs" / "guide" / "simulate.md"
    if page.exists():  # a source checkout (the installed wheel has no docs)
        assert f"\"{error}\"" in " ".join(page.read_text().split())


@pytest.mark.parametrize("source, kwargs", [("blueboat/blueboat.xml", {"water": 1025.0}),
                                            ("bluerov2/bluerov2.xml", {"water": 997.0, "drag": False}),
                                            ("worlds/open_water.xml", {"settle_window": 0.5})])
def test_to_xml_runs_in_a_plain_mujoco_process_bit_for_bit(world, tmp_path, source, kwargs):
    """Simulation.to_xml(): the MJCF the simulation runs (plugin instance, its config, the
    environment), saved next to the source (a world names its vehicles' files relative to
    its own folder) and stepped in a process that imports only mujoco, follows the
    Simulation's trajectory bitwise (a vehicle file holds no plugin or water of its own)."""
    if not _entry_point_installed():
        pytest.skip("the installed aurgen declares no mujoco.plugins entry point (reinstall aurgen)")
    with Simulation(world / source, **kwargs) as sim:
        text = sim.to_xml()
        sim.step(700)
        want = sim.data.qpos.tobytes().hex()
        window = sim.monitor.plugin.nz
    path = (world / source).with_name("to_xml_saved.xml")
    path.write_text(text)
    code = ("import sys, mujoco\n"
            "m = mujoco.MjModel.from_xml_path(sys.argv[1]); d = mujoco.MjData(m)\n"
            "for _ in range(700): mujoco.mj_step(m, d)\n"
            "print(d.qpos.tobytes().hex(), m.nplugin, "
            "sorted(k for k in sys.modules if k.startswith('aurgen.runtime.')))\n")
    try:
        r = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True,
                           cwd=tmp_path, env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    finally:
        path.unlink()
    assert r.returncode == 0, r.stderr[-2000:]
    got, nplugin, mods = r.stdout.split(" ", 2)
    assert set(eval(mods)) <= {"aurgen.runtime.plugin", "aurgen.runtime._build_info"}
    assert int(nplugin) == 1 and got == want
    assert f'plugin="{hplugin.NAME}"' in text and f'value="{0.5 if "settle_window" in kwargs else 1.0}"' in text
    assert window > 0


def test_to_xml_of_a_string_writes_what_the_attachment_changed(tmp_path):
    """An MJCF string whose body carries added mass without simple="false", with two
    <option> elements setting gravity and density: to_xml writes simple="false", the environment and the options
    exactly (repr), and a plain mujoco compiles it to the same model, stepping bitwise."""
    g = geom("ellipsoid", (0.5, 0.1, 0.1), extra='fluidshape="ellipsoid"')
    b = body("e", (0, 0, -2.0), 0.5 * 1000.0 * 4 / 3 * math.pi * 0.5 * 0.01, (0.01, 0.05, 0.05), g,
             euler=(0.3, 0.5, 0.2))
    xml = mjcf(b, integrator="RK4", gravity=(0.1, 0.0, -9.7)).replace("<option ", '<option density="1.2" ')
    xml = xml.replace("<worldbody", '<option gravity="0 0 -1" density="3"/><worldbody', 1)  # a later one
    assert "simple" not in xml and xml.count("<option ") == 2
    env = water_env(1000.0 / 3, g=9.80665)
    with Simulation(xml, environment=env) as sim:
        text = sim.to_xml()
        m = mujoco.MjModel.from_xml_string(text)
        d = mujoco.MjData(m)
        for _ in range(300):
            mujoco.mj_step(m, d)
        sim.step(300)
        assert np.array_equal(d.qpos, sim.data.qpos) and np.array_equal(d.qvel, sim.data.qvel)
    assert 'simple="false"' in text and repr(1000.0 / 3) in text
    assert m.body("e").simple == 0 and m.opt.density == 0  # the plugin, not MuJoCo's fluid model
    assert np.array_equal(m.opt.gravity, [0.0, 0.0, -9.80665])  # the environment's


def _with_sleep(xml: str) -> str:
    assert xml.count("<option ") == 1
    return xml.replace("<option ", '<option><flag sleep="enable"/></option><option ', 1)


def test_sleep_enabled_leaves_the_vehicles_awake_and_a_body_kept_awake_bitwise(world):
    """MuJoCo's sleep (mjENBL_SLEEP) stops a tree whose speed stayed under
    opt.sleep_tolerance: the emitted vehicles are actuated, which MuJoCo's compiler
    keeps awake (mjSLEEP_AUTO_NEVER), so their world steps bitwise as without sleep.
    A passive floating body may fall asleep while it still settles (docs/runtime.md,
    the limits); sleep="never" on it gives back the trajectory without sleep, bit for bit."""
    def run(xml, n):
        m = mujoco.MjModel.from_xml_string(declare(xml))
        d = mujoco.MjData(m)
        for _ in range(n):
            mujoco.mj_step(m, d)
        return m, d

    xml = _world_xml(world, "implicitfast")
    m, d = run(_with_sleep(xml), 3000)
    assert m.opt.enableflags & mujoco.mjtEnableBit.mjENBL_SLEEP
    assert set(m.tree_sleep_policy.tolist()) == {int(mujoco.mjtSleepPolicy.mjSLEEP_AUTO_NEVER)}
    assert np.array_equal(d.qpos, run(xml, 3000)[1].qpos)

    g = geom("box", (0.5, 0.3, 0.2))
    box = mjcf(body("b", (0, 0, 0.1), 0.5 * 1000 * 0.24, (1, 1, 1), g), env=water_env(1000.0),
               integrator="implicitfast")
    awake = run(box, 6000)[1]
    m, asleep = run(_with_sleep(box), 6000)
    assert m.tree_sleep_policy[0] == mujoco.mjtSleepPolicy.mjSLEEP_AUTO_ALLOWED
    assert asleep.tree_asleep[0] >= 0  # asleep (MuJoCo: < 0 counts down while awake)
    assert abs(asleep.qpos[2] - awake.qpos[2]) > 1e-4  # stopped before the equilibrium
    kept = run(_with_sleep(box).replace('<body name="b"', '<body name="b" sleep="never"'), 6000)[1]
    assert np.array_equal(kept.qpos, awake.qpos) and np.array_equal(kept.qvel, awake.qvel)


COB_RGBA = (0.15, 0.45, 1.0, 1.0)  # hydro.cc kCobRgba


def _cob_geoms(m, d, com: bool):
    """The scene's centre-of-buoyancy spheres (the plugin's visualize), with MuJoCo's
    "centre of mass" flag as given."""
    scn, opt, cam = mujoco.MjvScene(m, 1000), mujoco.MjvOption(), mujoco.MjvCamera()
    opt.flags[mujoco.mjtVisFlag.mjVIS_COM] = com
    mujoco.mjv_updateScene(m, d, opt, None, cam, mujoco.mjtCatBit.mjCAT_ALL, scn)
    return [scn.geoms[i] for i in range(scn.ngeom) if np.allclose(scn.geoms[i].rgba, COB_RGBA)]


def test_visualize_marks_the_centre_of_buoyancy_of_a_level_box():
    """Shown with MuJoCo's centre of mass: the displaced volume's centroid, each cell's
    part weighted by its density, against the closed form for a level box 0.15 m deep."""
    a, b, c, z0 = 0.5, 0.3, 0.2, 0.05
    xml = mjcf(body("b", (0.3, -0.2, z0), 100.0, (1, 1, 1), geom("box", (a, b, c))), env=water_env(1000.0))
    m = mujoco.MjModel.from_xml_string(declare(xml))
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    assert _cob_geoms(m, d, com=False) == []
    (g,) = _cob_geoms(m, d, com=True)
    vw, va = 4 * a * b * (c - z0), 4 * a * b * (c + z0)  # below and above z = 0
    zw, za = (z0 - c) / 2, (z0 + c) / 2
    z = (1000.0 * vw * zw + 1.225 * va * za) / (1000.0 * vw + 1.225 * va)
    np.testing.assert_allclose(g.pos, [0.3, -0.2, z], atol=1e-7)  # float32 in the scene
    assert g.type == mujoco.mjtGeom.mjGEOM_SPHERE and g.objid == m.body("b").id
    assert g.size[0] == pytest.approx(m.vis.scale.com * m.stat.meansize, rel=1e-6)


def test_visualize_at_rest_the_centre_of_buoyancy_is_plumb_with_the_centre_of_mass(world):
    """After 10 s in open_water each vehicle is at rest: weight through its centre of mass,
    buoyancy through the centre of buoyancy the plugin draws, so the two are on one
    vertical (moment balance), the ROV's centre of buoyancy above its centre of mass and
    the boat's below (stable by its waterplane)."""
    m = mujoco.MjModel.from_xml_string(declare(_world_xml(world, "implicitfast")))
    d = mujoco.MjData(m)
    for _ in range(5000):
        mujoco.mj_step(m, d)
    mujoco.mj_forward(m, d)
    cob = {m.body(g.objid).name: np.array(g.pos, dtype=float) for g in _cob_geoms(m, d, com=True)}
    assert set(cob) == {"blueboat/base_link", "bluerov2/base_link"}
    for name, x in cob.items():
        com = d.subtree_com[m.body(name).id]
        assert np.abs(x[:2] - com[:2]).max() < 1e-5, (name, x, com)
    assert cob["bluerov2/base_link"][2] > d.subtree_com[m.body("bluerov2/base_link").id][2] + 0.01
    assert cob["blueboat/base_link"][2] < d.subtree_com[m.body("blueboat/base_link").id][2] - 0.01


def test_to_xml_of_an_mjmodel_is_a_clear_error(world):
    from aurgen.runtime.sim import SimulationError

    m = mujoco.MjModel.from_xml_string(declare(_world_xml(world, "implicitfast")))
    with Simulation(m) as sim, pytest.raises(SimulationError, match="made from an MjModel.*pass the MJCF path"):
        sim.to_xml()


@pytest.mark.parametrize("integrator", ("implicitfast", "RK4"))
def test_simulation_runs_on_the_plugin_with_no_callback(world, integrator):
    """Simulation attaches the instance through MjSpec (the world file declares none) and
    installs no passive callback; trajectory and health as the callback engine's."""
    xml = _world_xml(world, integrator)
    with Simulation(xml) as a, Simulation(xml, engine="callback") as b:
        assert a._plugin and a.model.nplugin == 1 and not b._plugin
        seen = []
        mujoco.set_mjcb_passive(lambda m, d: seen.append(1))
        try:
            a.step(300)
        finally:
            mujoco.set_mjcb_passive(None)
        assert len(seen) >= 300  # the passive callback is free: a probe installed there ran, and added nothing
        b.step(300)
        assert np.array_equal(a.data.qpos, b.data.qpos) and np.array_equal(a.data.qvel, b.data.qvel)
        assert a.check().ok and b.check().ok
        assert a.energy() == pytest.approx(b.energy(), rel=1e-12)


def test_aurgen_ships_no_global_callback_engine():
    """No module of the installed package touches MuJoCo's global callbacks, and an engine
    name it doesn't know is a clear error (the tests' "callback" is theirs, registered by
    conftest.py from callback_engine.py)."""
    import aurgen
    from aurgen.runtime import sim as simmod
    from aurgen.runtime.sim import SimulationError

    roots = {Path(aurgen.__file__).parent, Path(simmod.__file__).parent}
    sources = [f for r in roots for f in r.rglob("*.py")]
    assert len(sources) > 20
    for f in sources:
        text = f.read_text()
        assert "set_mjcb_" not in text, f  # installs no MuJoCo callback
    with pytest.raises(SimulationError, match="engine 'nope': expected 'plugin'"):
        Simulation("<mujoco/>", engine="nope")


def test_aurgen_view_hands_the_viewer_a_model_that_floats_by_itself(world):
    """aurgen view can't be tested without a display: check what it hands to the viewer."""
    from aurgen.cli import build_parser
    from aurgen.runtime.sim.view import cli_view

    args = build_parser().parse_args(["view", str(world / "blueboat" / "blueboat.xml")])
    got = []
    assert cli_view(args, launch=lambda m, d: got.append((m, d))) == 0
    (m, d), = got
    assert m.nplugin == 1
    b = m.body("base_link").id
    for _ in range(3000):  # the viewer's loop: plain mj_step
        mujoco.mj_step(m, d)
    from test_vehicles_sim import specs_rows

    draft = float(specs_rows(world / "blueboat" / "blueboat.xml")["draft"].split()[0])
    assert -d.xpos[b, 2] == pytest.approx(draft, abs=2e-3)


def test_load_reads_the_mujoco_version_the_build_recorded(monkeypatch):
    """``load`` compares the build's mujoco version with the installed one: ``mujoco.__version__``
    when mujoco is imported (as during ``import mujoco``), else the distribution's metadata; both
    name the installed mujoco (the metadata is the oracle). Another minor version is an
    ImportError saying how to fix it, and nothing is loaded."""
    assert hplugin._mujoco_version() == metadata.version("mujoco")
    monkeypatch.delitem(sys.modules, "mujoco")
    assert hplugin._mujoco_version() == metadata.version("mujoco")
    monkeypatch.setitem(sys.modules, "mujoco", mujoco)
    monkeypatch.setattr(hplugin, "_handle", None)
    monkeypatch.setattr(hplugin, "built_for", lambda: "0.1.0")
    with pytest.raises(ImportError, match=r"built against mujoco 0\.1\.0 but mujoco \d+\.\d+"):
        hplugin.load()
    assert hplugin._handle is None


def test_the_libraries_export_none_of_the_core():
    """The plugin and the Python module each link a copy of the core: neither exports its
    symbols (a host or the other copy could otherwise bind to the wrong one), GCC's target_clones
    dispatchers included (the version scripts bindings/native.map, plugin/plugin.map): the module
    exports its init alone, the plugin nothing (MuJoCo dlopens it; its constructor registers it)."""
    import shutil

    from aurgen.runtime import _native

    nm = shutil.which("nm")
    if nm is None or not sys.platform.startswith("linux"):
        pytest.skip("the version scripts are Linux's (ELF); nm (binutils) reads them")
    exported = {}
    for lib in (hplugin.library_path(), Path(_native.__file__)):
        out = subprocess.run([nm, "-D", "--defined-only", str(lib)], capture_output=True, text=True,
                             check=True).stdout
        exported[lib.name] = [line.split()[-1] for line in out.splitlines() if line.strip()]
    assert exported[Path(_native.__file__).name] == ["PyInit__native"], exported  # nm reads them
    assert exported[hplugin.library_path().name] == [], exported  # mangled core names: ...6aurgen...
