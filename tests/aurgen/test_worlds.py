"""Worlds: world configs to SDF (libsdformat) and MJCF (MuJoCo) worlds, checked by their consumers."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import mujoco
import numpy as np
import pytest
from lxml import etree

import aurgen
from aurgen.core import files, spatial
from aurgen.emit import worlds
from aurgen.config import world as world_config
from aurgen.cli import main
from aurgen.core.errors import ConfigError
from aurgen.core.resources import data_dir

ROOT = Path(__file__).resolve().parents[2]

# libsdformat loading a *world* (tests/conftest.py's sdf_checker expects a model file).
WORLD_CHECK_CC = r"""
#include <iostream>
#include <sdf/sdf.hh>
int main(int argc, char **argv) {
  sdf::Root root;
  sdf::Errors errors = root.Load(argv[1]);
  for (const auto &e : errors) std::cout << "error: " << e << std::endl;
  if (!errors.empty()) return 1;
  if (root.WorldCount() != 1) { std::cout << "error: " << root.WorldCount() << " worlds" << std::endl; return 1; }
  const sdf::World *w = root.WorldByIndex(0);
  std::cout << "world " << w->Name() << std::endl;
  for (uint64_t i = 0; i < w->ModelCount(); ++i) {
    const sdf::Model *m = w->ModelByIndex(i);
    std::cout << "model " << m->Name();
    for (uint64_t j = 0; j < m->LinkCount(); ++j) std::cout << " " << m->LinkByIndex(j)->Name();
    std::cout << std::endl;
  }
  return 0;
}
"""


@pytest.fixture(scope="session")
def world_checker(tmp_path_factory):
    """``check(path, resource_root) -> (ok, {model: [links]}, output)`` with libsdformat."""
    def missing(reason):  # as tests/conftest.py: mandatory in CI (AURGEN_REQUIRE_CONSUMERS=1)
        if os.environ.get("AURGEN_REQUIRE_CONSUMERS") == "1":
            pytest.fail(f"{reason} (AURGEN_REQUIRE_CONSUMERS=1: consumers are mandatory)", pytrace=False)
        pytest.skip(reason)

    gxx, pkg = shutil.which("g++"), shutil.which("pkg-config")
    if gxx is None or pkg is None:
        missing("g++ or pkg-config not found: cannot build the libsdformat world checker")
    flags = subprocess.run([pkg, "--cflags", "--libs", "sdformat12"], capture_output=True, text=True)
    if flags.returncode != 0:
        missing("libsdformat (sdformat12) not found by pkg-config")
    d = tmp_path_factory.mktemp("world_check")
    (d / "world_check.cc").write_text(WORLD_CHECK_CC)
    exe = d / "world_check"
    res = subprocess.run([gxx, "-std=c++17", str(d / "world_check.cc"), "-o", str(exe), *flags.stdout.split()],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr

    def check(path, resource_root):
        env = dict(os.environ, SDF_PATH=str(resource_root))
        out = subprocess.run([str(exe), str(path)], capture_output=True, text=True, env=env)
        models = {}
        for line in out.stdout.splitlines():
            if line.startswith("model "):
                name, *links = line.split()[1:]
                models[name] = links
        return out.returncode == 0, models, out.stdout + out.stderr

    return check


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Every bundled world written into one output root; notes collected."""
    out = tmp_path_factory.mktemp("build")
    notes = []
    written = worlds.write_worlds(None, out, note=notes.append)
    return out, written, notes


def _placed(name):
    w = world_config.load_world(name)
    return w, worlds.place_vehicles(w)


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


OPEN = """\
timestep: 0.002
planes:
  surface: {normal: [0, 0, 1], offset: 0.0}
  seabed: {normal: [0, 0, 1], offset: -30.0}
cells:
  air: {above: [surface], density: 1.225}
  water: {below: [surface], above: [seabed], density: DENSITY}
ground: seabed
vehicles:
  - {config: blueboat.yaml, xyz: [0, 0, 0.05]}
"""


# ---------------------------------------------------------------- bundled worlds

def test_bundled_worlds_written(built):
    out, written, notes = built
    names = {p.name for p in written if p.parent == out / "worlds"}
    assert names == {"open_sea.xml", "open_sea.sdf", "open_water.xml", "open_water.sdf", "pool.xml", "pool.sdf",
                     "tilted_tank.xml"}
    assert (out / "blueboat" / "model.sdf").is_file() and (out / "bluerov2" / "bluerov2.xml").is_file()
    assert not [p for p in (out / "worlds").iterdir() if p.name.startswith(".") and p.name not in
                (files.MARKER, files.LOCK)], "temp files left behind"
    tilted = [n for n in notes if "tilted_tank" in n]
    assert len(tilted) == 1 and "surface" in tilted[0] and "horizontal" in tilted[0]
    # open_sea's SDF is still water, said once (tests/aurgen/test_worlds_sea_sdf.py); the pool's water as a
    # camera sees it is the MJCF's alone, said once; no other world has a note
    sea = [n for n in notes if "'open_sea'" in n]
    pool = [n for n in notes if "pool.yaml" in n]
    assert len(sea) == 1 and "still water" in sea[0], notes
    assert len(pool) == 1 and "underwater" in pool[0] and "Gazebo's cameras see clear water" in pool[0], notes
    assert len(notes) == 3, notes


@pytest.mark.parametrize("world", world_config.bundled_names())
def test_world_mjcf_compiles_with_vehicles(built, world):
    out, _, _ = built
    w, placed = _placed(world)
    m = mujoco.MjModel.from_xml_path(str(out / "worlds" / f"{world}.xml"))
    bodies = {m.body(i).name for i in range(m.nbody)}
    actuators = {m.actuator(i).name for i in range(m.nu)}
    numerics = {m.numeric(i).name for i in range(m.nnumeric)}
    assert m.opt.timestep == w.timestep
    assert m.opt.integrator == getattr(mujoco.mjtIntegrator, f"mjINT_{w.integrator.upper()}")
    assert sum(m.jnt_type == mujoco.mjtJoint.mjJNT_FREE) == len(placed)
    d = mujoco.MjData(m)
    mujoco.mj_kinematics(m, d)
    for pl in placed:
        v, pre = pl.vehicle, pl.name + "/"
        assert {pre + link.name for link in v.links} <= bodies
        assert {pre + t.name for t in v.thrusters} <= actuators
        assert {pre + n for n in numerics_of(v)} <= numerics
        base = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, pre + v.base)
        assert m.body_jntnum[base] == 1 and m.jnt_type[m.body_jntadr[base]] == mujoco.mjtJoint.mjJNT_FREE
        np.testing.assert_allclose(d.xpos[base], pl.placement.xyz, atol=1e-12)
        np.testing.assert_allclose(d.xmat[base].reshape(3, 3), spatial.rot_rpy(pl.placement.rpy), atol=1e-12)
        # marks: every displacement box user 1, windage user 2, in their bodies
        disp = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, pre + v.displacement.link)
        marks = [int(m.geom_user[g][0]) for g in range(m.ngeom) if m.geom_bodyid[g] == disp]
        assert marks == [1] * len(v.displacement.boxes)
        if v.windage:
            wb = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, pre + "windage")
            assert [int(m.geom_user[g][0]) for g in range(m.ngeom) if m.geom_bodyid[g] == wb] == [2, 2]
        total = sum(m.body_mass[b] for b in range(m.nbody) if m.body_rootid[b] == base)
        assert total == pytest.approx(v.specs.total_mass, rel=1e-9)


def numerics_of(vehicle):
    kinds = set()
    for name, _ in vehicle.hydrodynamics:
        kinds.add("added_mass" if "Dot" in name else "damping_quadratic" if "abs" in name else "damping_linear")
    return {f"aurgen:{k}:{vehicle.base}" for k in kinds}


@pytest.mark.parametrize("world", world_config.bundled_names())
def test_world_mjcf_environment(built, world):
    out, _, _ = built
    w = world_config.load_world(world)
    path = out / "worlds" / f"{world}.xml"
    m = mujoco.MjModel.from_xml_path(str(path))
    tid = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_TEXT, "aurgen:environment")
    assert tid >= 0
    adr, n = m.text_adr[tid], m.text_size[tid]
    env = json.loads(bytes(m.text_data[adr:adr + n - 1]).decode())
    assert env == world_config.environment(w)
    assert set(env) == ({"planes", "cells", "gravity", "waves"} if w.waves is not None else {"planes", "cells", "gravity"})
    assert (w.waves is not None) == (world == "open_sea")  # every other bundled world is still water
    for p in env["planes"]:
        assert len(p) == 4 and np.linalg.norm(p[:3]) == pytest.approx(1.0, abs=1e-15)
    for c in env["cells"]:
        assert list(c)[:5] == ["name", "signs", "density", "viscosity", "flow"]
        assert len(c["signs"]) == len(env["planes"]) and set(c["signs"]) <= {-1, 0, 1}
    assert env["gravity"]["type"] == "uniform"
    np.testing.assert_array_equal(m.opt.gravity, env["gravity"]["g"])
    first = path.read_text().splitlines()[0]
    cfg = data_dir("worlds") / f"{world}.yaml"  # named by file name and content hash, never by folder
    sha = hashlib.sha256(cfg.read_bytes()).hexdigest()
    assert first == f"<!-- generated by aurgen {aurgen.__version__} from {world}.yaml sha256:{sha}; do not edit -->"


def test_open_water_environment_values():
    env = world_config.environment(world_config.load_world("open_water"))
    assert env["planes"] == [[0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 1.0, -30.0]]
    air, water = env["cells"]
    assert (air["name"], air["signs"], air["density"]) == ("air", [1, 0], 1.225)
    assert (water["name"], water["signs"], water["density"]) == ("water", [-1, 1], 1025.0)
    assert water["viscosity"] == 1.08e-3 and water["flow"] == [0.0, 0.0, 0.0]


def test_pool_ground_planes_face_the_water(built):
    out, _, _ = built
    m = mujoco.MjModel.from_xml_path(str(out / "worlds" / "pool.xml"))
    d = mujoco.MjData(m)
    mujoco.mj_kinematics(m, d)
    inside = np.array([0.0, 0.0, -2.5])
    for name in ("floor", "east", "west", "north", "south"):
        g = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_GEOM, name)
        assert g >= 0 and m.geom_contype[g] == 1
        n = d.geom_xmat[g].reshape(3, 3)[:, 2]  # MuJoCo's plane is solid below its local z
        assert n @ (inside - d.geom_xpos[g]) > 0, name
    assert m.nbody == 1  # no vehicles: the bundled ones are declared for seawater


@pytest.mark.parametrize("world", ["open_water", "pool"])
def test_world_sdf_loads_in_libsdformat(built, world_checker, world):
    out, _, _ = built
    ok, models, output = world_checker(out / "worlds" / f"{world}.sdf", out)
    assert ok, output
    w, placed = _placed(world)
    for pl in placed:
        assert pl.name in models, output
        assert pl.vehicle.displacement.link in models[pl.name]
    for g in w.ground:
        assert g in models


@pytest.mark.parametrize("world", ["open_water", "pool"])
def test_enable_lines_name_exactly_the_displacement_links(built, world):
    out, _, _ = built
    root = etree.parse(str(out / "worlds" / f"{world}.sdf")).getroot()
    plugins = root.findall(".//plugin[@filename='gz-sim-buoyancy-system']")
    assert len(plugins) == 1
    enables = [e.text for e in plugins[0].findall("enable")]
    _, placed = _placed(world)
    assert enables == [f"{pl.name}::{pl.vehicle.displacement.link}" for pl in placed]
    for e in enables:
        assert "::" in e and "windage" not in e
    for pl in placed:  # the enabled link exists in the included model and displaces only boxes
        inc = [i for i in root.iter("include") if i.findtext("name") == pl.name]
        assert len(inc) == 1 and inc[0].findtext("uri") == f"model://{pl.vehicle.name}"
        model = etree.parse(str(out / pl.vehicle.name / "model.sdf")).getroot()
        link = model.find(f".//link[@name='{pl.vehicle.displacement.link}']")
        assert link is not None
        assert len(link.findall("collision")) == len(pl.vehicle.displacement.boxes)


def test_open_water_sdf_buoyancy_and_placement(built):
    out, _, _ = built
    root = etree.parse(str(out / "worlds" / "open_water.sdf")).getroot()
    assert root.get("version") == "1.9"
    graded = root.find(".//plugin[@filename='gz-sim-buoyancy-system']/graded_buoyancy")
    assert float(graded.findtext("default_density")) == 1025.0
    changes = graded.findall("density_change")
    assert [(float(c.findtext("above_depth")), float(c.findtext("density"))) for c in changes] == [(0.0, 1.225)]
    assert float(root.findtext(".//physics/max_step_size")) == 0.002
    assert [float(x) for x in root.findtext("world/gravity").split()] == [0.0, 0.0, -9.81]
    files = {p.get("filename") for p in root.iter("plugin")}
    assert {"gz-sim-physics-system", "gz-sim-user-commands-system", "gz-sim-scene-broadcaster-system"} <= files
    poses = {i.findtext("name"): [float(x) for x in i.findtext("pose").split()] for i in root.iter("include")}
    assert poses == {"blueboat": [0, 0, 0.05, 0, 0, 0], "bluerov2": [5, 0, -3, 0, 0, 0]}
    assert root.find(".//model[@name='seabed']/pose").text.split()[:3] == ["0.0", "0.0", "-30.0"]
    assert root.find(".//light[@name='sun']") is not None
    assert (out / "worlds" / "open_water.sdf").read_text().startswith("<!-- generated by aurgen ")


# ---------------------------------------------------------------- density and expressibility

def test_density_mismatch_is_an_error_with_both_numbers(tmp_path):
    path = _write(tmp_path, "fresh.yaml", OPEN.replace("DENSITY", "1000.0"))
    with pytest.raises(ConfigError) as exc:
        worlds.write_worlds([str(path)], tmp_path / "out")
    msg = str(exc.value)
    assert "1025" in msg and "1000" in msg and "fluid_density" in msg
    assert str(path) in msg and "vehicles[0]" in msg and ":10:" in msg
    assert not (tmp_path / "out").exists()  # nothing written


def test_placing_blueboat_in_the_pool_is_the_density_error(tmp_path, capsys):
    text = (ROOT / "worlds" / "pool.yaml").read_text().replace(
        "vehicles: []", "vehicles:\n  - {config: blueboat.yaml, xyz: [0, 0, 0.05]}")
    path = _write(tmp_path, "pool.yaml", text)
    assert main(["worlds", str(path), "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "1025" in err and "1000" in err and "blueboat" in err and "Traceback" not in err


def test_freshwater_variant_goes_in_the_pool(tmp_path, built, world_checker):
    cfg = (ROOT / "vehicles" / "blueboat.yaml").read_text().replace("segments: 6}",
                                                                       "segments: 6, fluid_density: 1000}")
    assert "fluid_density: 1000" in cfg
    _write(tmp_path, "blueboat_fresh.yaml", cfg.replace("name: blueboat", "name: blueboat_fresh"))
    text = (ROOT / "worlds" / "pool.yaml").read_text().replace(
        "vehicles: []", "vehicles:\n  - {config: blueboat_fresh.yaml, xyz: [0, 0, 0.05]}")
    path = _write(tmp_path, "pool.yaml", text)
    out = tmp_path / "out"
    worlds.write_worlds([str(path)], out)
    ok, models, output = world_checker(out / "worlds" / "pool.sdf", out)
    assert ok, output
    assert "hull_displacement" in models["blueboat_fresh"]
    m = mujoco.MjModel.from_xml_path(str(out / "worlds" / "pool.xml"))
    assert mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, "blueboat_fresh/hull_displacement") > 0


def test_tilted_plane_refuses_sdf_and_builds_mjcf(tmp_path):
    notes = []
    out = tmp_path / "out"
    (out / "worlds").mkdir(parents=True)
    (out / "worlds" / "tilted_tank.sdf").write_text("<!-- generated by aurgen 0 from x; do not edit -->\nold")
    # a stale SDF (aurgen's own: a foreign file would make the folder refused) must not survive
    written = worlds.write_worlds(["tilted_tank"], out, note=notes.append)
    assert out / "worlds" / "tilted_tank.xml" in written
    assert not (out / "worlds" / "tilted_tank.sdf").exists()
    assert len(notes) == 1 and "'surface'" in notes[0] and "not horizontal" in notes[0]
    m = mujoco.MjModel.from_xml_path(str(out / "worlds" / "tilted_tank.xml"))
    assert mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, "bluerov2/buoyancy_displacement") > 0
    with pytest.raises(worlds.NotExpressible):
        worlds.render_sdf(*_placed("tilted_tank"))


def test_tilted_tank_cli_says_so_and_exits_0(tmp_path, capsys):
    assert main(["worlds", "tilted_tank", "-o", str(tmp_path)]) == 0
    cap = capsys.readouterr()
    assert "no SDF world for 'tilted_tank'" in cap.err
    assert "tilted_tank.xml" in cap.out and "tilted_tank.sdf" not in cap.out


def test_central_gravity_refuses_sdf(tmp_path):
    text = OPEN.replace("DENSITY", "1025.0").replace("timestep: 0.002",
                                                     "gravity: {type: central, mu: 3.986e+14, centre: [0, 0, -6.371e+6]}")
    path = _write(tmp_path, "planet.yaml", text)
    notes = []
    worlds.write_worlds([str(path)], tmp_path / "out", note=notes.append)
    assert "central gravity" in notes[0]
    m = mujoco.MjModel.from_xml_path(str(tmp_path / "out" / "worlds" / "planet.xml"))
    np.testing.assert_array_equal(m.opt.gravity, [0, 0, 0])  # the runtime applies it from the JSON
    assert world_config.environment(world_config.load_world(path))["gravity"] == {"type": "central", "mu": 3.986e14,
                                                                       "centre": [0.0, 0.0, -6.371e6]}


def test_sloped_ground_is_expressible():
    w = world_config.load_world("open_water")
    env = worlds.gazebo_environment(w)
    assert env == {"gravity": [0.0, 0.0, -9.81], "default_density": 1025.0, "changes": [(0.0, 1.225)]}


def test_layers_stack_in_gazebo(tmp_path):
    text = """\
planes:
  surface: {normal: [0, 0, 1], offset: 0.0}
  cline: {normal: [0, 0, -1], offset: 10.0}
cells:
  air: {above: [surface], density: 1.225}
  upper: {below: [surface], below: [cline], density: 1020.0}
"""
    # duplicate 'below' is a YAML error naming the line
    with pytest.raises(ConfigError, match=r"dup\.yaml:6: below: duplicate key"):
        world_config.load_world(_write(tmp_path, "dup.yaml", text))
    text = """\
planes:
  surface: {normal: [0, 0, 1], offset: 0.0}
  cline: {normal: [0, 0, -1], offset: 10.0}
cells:
  air: {above: [surface], density: 1.225}
  upper: {below: [surface, cline], density: 1020.0}
  deep: {above: [cline], below: [surface], density: 1028.0}
"""
    w = world_config.load_world(_write(tmp_path, "layers.yaml", text))
    env = worlds.gazebo_environment(w)  # cline: -z·x <= 10  is  z >= -10
    assert env["default_density"] == 1028.0
    assert env["changes"] == [(-10.0, 1020.0), (0.0, 1.225)]
    assert w.water.name == "deep"


# ---------------------------------------------------------------- validation

@pytest.mark.parametrize("edit, pattern", [
    (("planes:", "planse:"), r"planse: unknown key \(did you mean 'planes'\?\)"),
    (("above: [seabed]", "above: [seabad]"), r":7: cells\.water\.above: unknown plane 'seabad' \(did you mean "
                                             r"'seabed'\?\)"),
    (("ground: seabed", "ground: seabod"), r"ground: unknown plane 'seabod'"),
    (("{above: [surface], density: 1.225}", "{density: 1.225}"), r"cells 'air' and 'water' overlap"),
    (("offset: -30.0", "offset: -30.0, colour: red"), r"planes\.seabed\.colour: unknown key"),
    (("normal: [0, 0, 1], offset: 0.0", "normal: [0, 0, 0], offset: 0.0"), r"planes\.surface\.normal: the normal is "
                                                                          r"zero"),
    (("density: DENSITY", "density: -1"), r"cells\.water\.density: must be positive"),
    (("timestep: 0.002", "timestep: fast"), r":1: timestep: expected a number"),
    (("xyz: [0, 0, 0.05]", "xyz: [0, 0, -31]"), r"vehicles\[0\]\.xyz: .*inside the solid behind ground plane "
                                                r"'seabed'"),
    (("config: blueboat.yaml", "config: blueboot.yaml"), r":10: vehicles\[0\]\.config: vehicle config "
                                                         r"'blueboot.yaml' not found"),
    (("config: blueboat.yaml,", "config: blueboat.yaml, pose: 1,"), r"vehicles\[0\]\.pose: unknown key"),
    (("ground: seabed", "ground: surface"), r"ground: plane 'surface' is solid but has fluid cells on both sides"),
])
def test_world_config_errors(tmp_path, edit, pattern):
    assert edit[0] in OPEN
    path = _write(tmp_path, "w.yaml", OPEN.replace(*edit).replace("DENSITY", "1025.0"))
    with pytest.raises(ConfigError, match=pattern) as exc:
        worlds.place_vehicles(world_config.load_world(path))
    assert str(path) in str(exc.value)


def test_two_vehicles_one_name(tmp_path):
    text = OPEN.replace("DENSITY", "1025.0") + "  - {config: blueboat.yaml, xyz: [5, 0, 0.05]}\n"
    with pytest.raises(ConfigError, match=r"vehicles\[1\]\.name: a second vehicle named 'blueboat'"):
        worlds.place_vehicles(world_config.load_world(_write(tmp_path, "w.yaml", text)))
    text = text.replace("xyz: [5, 0, 0.05]}", "name: boat2, xyz: [5, 0, 0.05]}")
    placed = worlds.place_vehicles(world_config.load_world(_write(tmp_path, "w.yaml", text)))
    assert [p.name for p in placed] == ["blueboat", "boat2"]


def test_bad_world_cli_exit_2(tmp_path, capsys):
    path = _write(tmp_path, "w.yaml", "planes: 3\ncells: {}\n")
    assert main(["worlds", str(path), "-o", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "planes: expected a mapping" in err and "Traceback" not in err
    assert main(["worlds", "no_such_world", "-o", str(tmp_path / "o")]) == 2


# ---------------------------------------------------------------- determinism

def test_deterministic(tmp_path, built):
    out, _, _ = built
    worlds.write_worlds(None, tmp_path, note=lambda m: None)
    for f in sorted((out / "worlds").iterdir()):
        assert (tmp_path / "worlds" / f.name).read_bytes() == f.read_bytes(), f.name
    again = tmp_path / "again"
    worlds.write_worlds(["open_water"], again, build_vehicles=False)
    assert (again / "worlds" / "open_water.sdf").read_bytes() == (out / "worlds" / "open_water.sdf").read_bytes()
    assert not (again / "blueboat").exists()


def test_placement_rpy_is_fixed_axis_in_both_formats(tmp_path):
    text = OPEN.replace("DENSITY", "1025.0").replace("xyz: [0, 0, 0.05]}", "xyz: [1, 2, 0.05], rpy: [0.1, -0.2, 0.3]}")
    path = _write(tmp_path, "turned.yaml", text)
    out = tmp_path / "out"
    worlds.write_worlds([str(path)], out)
    m = mujoco.MjModel.from_xml_path(str(out / "worlds" / "turned.xml"))
    d = mujoco.MjData(m)
    mujoco.mj_kinematics(m, d)
    base = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, "blueboat/base_link")
    np.testing.assert_allclose(d.xmat[base].reshape(3, 3), spatial.rot_rpy((0.1, -0.2, 0.3)), atol=1e-12)
    np.testing.assert_allclose(d.xpos[base], [1, 2, 0.05], atol=1e-12)
    root = etree.parse(str(out / "worlds" / "turned.sdf")).getroot()
    assert root.findtext(".//include/pose") == "1.0 2.0 0.05 0.1 -0.2 0.3"


@pytest.mark.parametrize("value", ["1e-300", "1e-7", "0.6", "1e300"])
def test_a_timestep_outside_the_plugins_bound_is_refused_at_build(tmp_path, monkeypatch, capsys, value):
    """A world timestep of 1e-300 s built and ran (1e300 steps a simulated second, issue 45): refused with
    the plugin's bound and why, one line, exit 2, nothing written."""
    text = OPEN.replace("timestep: 0.002", f"timestep: {value}").replace("DENSITY", "1025.0")
    path = _write(tmp_path, "w.yaml", text)
    monkeypatch.chdir(tmp_path)
    assert main(["worlds", str(path), "-o", "out"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert f"{path}:1: timestep: the world's timestep is {float(value):g} s; expected 1e-06 to 0.5 s (" in err, err
    assert "settle window" in err and not (tmp_path / "out").exists()


@pytest.mark.parametrize("value", ["0.000001", "0.5"])
def test_the_timestep_bounds_themselves_are_accepted(tmp_path, value):
    text = OPEN.replace("timestep: 0.002", f"timestep: {value}").replace("DENSITY", "1025.0")
    path = _write(tmp_path, "w.yaml", text)
    assert world_config.load_world(path).timestep == float(value)
