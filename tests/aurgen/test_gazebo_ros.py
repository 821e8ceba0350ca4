"""What a Gazebo and ROS user drives (issue 12): sensors, thrusters, controllers, drag marks,
the world's systems and current, the ros_gz bridge and the launch file.

Expected values come from elsewhere than the emitter: the catalog's YAML read directly
(counts, rotations, thrust limits), libsdformat (what loads, and each sensor's type and
topic), the URDF (links), the reference's conventions (docs/sources.md §5) and
closed forms (Cd, compass directions).
"""

from __future__ import annotations

import ast
import math
import re
from pathlib import Path

import pytest
import yaml
from lxml import etree

from aurgen.emit import worlds
from aurgen.config import world as world_config
from aurgen.emit.build import bundled_vehicles
from aurgen.config.catalog import catalog_for
from aurgen.compose.resolve import resolve

DATA = Path(__file__).parents[1] / "data"
FEATURES = DATA / "emit_features"
CONFIGS = [str(p) for p in bundled_vehicles()] + [str(FEATURES / n) for n in
                                                  ("features.yaml", "equipped_rov.yaml", "equipped_boat.yaml")]
IDS = [Path(c).stem for c in CONFIGS]
GZ = "{http://gazebosim.org/schema}"


def _bundled(name: str) -> str:
    """The bundled vehicle config of that name (bundled_vehicles() is sorted, and grows)."""
    return str(next(p for p in bundled_vehicles() if p.stem == name))


@pytest.fixture(scope="module")
def out(built_vehicles):
    return built_vehicles  # CONFIGS, built once per session (tests/conftest.py)


def _files(out, config):
    v = resolve(config)
    d = out / v.name
    return v, etree.parse(str(d / "model.sdf")).getroot(), etree.parse(str(d / f"{v.name}.urdf")).getroot()


def _catalog_yaml(v, part_type) -> dict:
    """A part's catalog entry read as plain YAML (not through aurgen's loader)."""
    return yaml.safe_load(Path(catalog_for(v.source).path_of(part_type)).read_text(encoding="utf-8"))


# ---------------------------------------------------------------- sensors


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_sensor_count_and_types_follow_the_catalog(out, config, sdf_checker):
    v, sdf, _ = _files(out, config)
    want = []  # (link, type) from each fitted part's own YAML
    for part_type, name in v.specs.parts:
        for s in (_catalog_yaml(v, part_type).get("sensors") or {}).values():
            want.append((name, s["type"]))
            if s["type"] == "rgbd_camera" and s.get("ros_frame"):  # its cloud's depth camera (test_gz_sensor_frames)
                want.append((name, "depth_camera"))
    ok, text = sdf_checker(out / v.name / "model.sdf")
    assert ok, text
    assert f" sensors {len(want)}" in text, text
    sdf_type = {"dvl": "custom", "rgbd_camera": "rgbd_camera"}
    got = sorted(re.findall(r": sensor (\S+) \S+ (\S+) \S+", text))
    assert got == sorted((link, sdf_type.get(t, t)) for link, t in want)


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_every_sensor_frame_id_is_a_urdf_link_under_the_namespace(out, config):
    v, sdf, urdf = _files(out, config)
    links = {link.get("name") for link in urdf.findall("link")}
    for s in sdf.iter("sensor"):
        ns, _, link = s.findtext("gz_frame_id").partition("/")
        assert ns == v.namespace and link in links, (s.get("name"), s.findtext("gz_frame_id"))


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_topics_follow_namespace_name_quantity(out, config):
    v, sdf, _ = _files(out, config)
    for s in sdf.iter("sensor"):
        topic = s.findtext("topic")
        if s.get("type") == "rgbd_camera":  # publishes <topic>/image, /depth_image, /points, /camera_info
            assert topic == f"/{v.namespace}/{s.get('name')}"
        elif s.get("type") == "depth_camera":  # an rgbd camera's cloud: <its topic>/cloud/depth
            assert topic == f"/{v.namespace}/{s.get('name').removesuffix('_cloud')}/cloud/depth"
        else:
            assert re.fullmatch(rf"/{v.namespace}/{s.get('name')}/[a-z_]+", topic), topic


def test_ping2_is_one_downward_ray_as_the_reference_writes_it(out):
    v, sdf, _ = _files(out, _bundled('blueboat'))  # blueboat
    assert v.name == "blueboat"
    # the reference's names, which its users' nodes subscribe to (issue 37)
    (ping,) = [s for s in sdf.iter("sensor") if s.get("name") == "ping"]
    assert ping.get("type") == "gpu_lidar"
    assert ping.findtext("topic") == "/blueboat/ping/range"
    assert ping.findtext("gz_frame_id") == "blueboat/ping_beam"
    assert float(ping.findtext("update_rate")) == 10.0
    scan = ping.find("lidar/scan")
    assert int(scan.findtext("horizontal/samples")) == 1 and int(scan.findtext("vertical/samples")) == 1
    assert float(scan.findtext("vertical/min_angle")) == pytest.approx(-1.5708, abs=1e-4)
    rng = ping.find("lidar/range")
    assert (float(rng.findtext("min")), float(rng.findtext("max")), float(rng.findtext("resolution"))) == \
        (0.5, 100.0, 0.01)


def test_dvl_is_gz_sims_dvl(out):
    v, sdf, _ = _files(out, str(FEATURES / "equipped_rov.yaml"))
    (dvl,) = [s for s in sdf.iter("sensor") if s.get("type") == "custom"]
    assert dvl.get(f"{GZ}type") == "dvl"
    beams = dvl.findall(f"{GZ}dvl/arrangement/beam")
    assert len(beams) == 4
    assert {float(b.findtext("tilt")) for b in beams} == {22.5}  # the A50's beam angle, degrees


def test_base_sensors(out):
    boat, sdf_b, _ = _files(out, _bundled('blueboat'))
    rov, sdf_r, _ = _files(out, _bundled('bluerov2'))
    assert {s.get("type") for s in sdf_b.find("model/link[@name='base_link']").iter("sensor")} == \
        {"imu", "navsat", "magnetometer", "air_pressure"}
    assert {s.get("type") for s in sdf_r.find("model/link[@name='base_link']").iter("sensor")} == \
        {"imu", "magnetometer", "air_pressure"}


# ---------------------------------------------------------------- thrusters and controllers


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_thrusters_follow_the_reference_convention(out, config):
    v, sdf, urdf = _files(out, config)
    plugins = sdf.findall("model/plugin[@filename='gz-maritime-thruster-system']")
    part_of = {name: t for t, name in v.specs.parts}
    props = [name for name in part_of if "drive" in _catalog_yaml(v, part_of[name])]
    assert sorted(p.findtext("joint_name") for p in plugins) == sorted(f"{n}_joint" for n in props)
    for p in plugins:
        name = p.findtext("joint_name")[: -len("_joint")]
        drive = _catalog_yaml(v, part_of[name])["drive"]
        if "thrust_curve" in drive:  # the limits are the named table's extremes (plain YAML; kgf as published)
            d = Path(catalog_for(v.source).path_of(part_of[name])).parent / "thrust_curves"
            curve = yaml.safe_load((d / f"{drive['thrust_curve']}.yaml").read_text(encoding="utf-8"))
            k = {"N": 1.0, "kgf": 9.80665}[curve["unit"]]
            drive = dict(drive, max_thrust=max(t for _, t in curve["points"]) * k,
                         min_thrust=min(t for _, t in curve["points"]) * k)
        assert p.findtext("topic") == f"/{v.namespace}/{name}/cmd"
        assert p.findtext("use_normalized_cmd") == "true"
        assert p.findtext("velocity_control") == "true"
        coeff = float(p.findtext("thrust_coefficient"))
        assert math.copysign(1.0, coeff) == (1.0 if drive["rotation"] == "ccw" else -1.0)
        assert float(p.findtext("max_thrust_cmd")) == drive["max_thrust"]
        assert float(p.findtext("min_thrust_cmd")) == drive["min_thrust"]
        assert float(p.findtext("fluid_density")) == v.displacement.fluid_density
        if drive.get("deadband", 0) > 0:
            assert float(p.findtext("deadband")) == drive["deadband"]
        else:
            assert p.find("deadband") is None
        # the joint spins: continuous in the URDF too
        assert urdf.find(f"joint[@name='{name}_joint']").get("type") == "continuous"


def test_a_declared_deadband_is_written(out):
    _, sdf, _ = _files(out, str(FEATURES / "equipped_rov.yaml"))
    assert [p.findtext("deadband") for p in sdf.iter("plugin") if p.find("deadband") is not None] == ["0.5"]


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_joint_position_controllers_and_joint_state_publisher(out, config):
    v, sdf, urdf = _files(out, config)
    limited = {j.get("name") for j in urdf.findall("joint") if j.get("type") in ("revolute", "prismatic")}
    ctl = sdf.findall("model/plugin[@filename='gz-sim-joint-position-controller-system']")
    assert {c.findtext("joint_name") for c in ctl} == limited
    for c in ctl:
        child = urdf.find(f"joint[@name='{c.findtext('joint_name')}']/child").get("link")
        assert c.findtext("topic") == f"/{v.namespace}/{child}/cmd_pos"
    (jsp,) = sdf.findall("model/plugin[@filename='gz-sim-joint-state-publisher-system']")
    assert jsp.findtext("topic") == f"/{v.namespace}/joint_states"


def test_the_gripper_and_the_sampler_get_two_controllers_each(out):
    _, sdf, _ = _files(out, str(FEATURES / "equipped_rov.yaml"))
    ctl = sdf.findall("model/plugin[@filename='gz-sim-joint-position-controller-system']")
    assert sorted(c.findtext("topic") for c in ctl) == [
        "/rov/gripper_jaw_left/cmd_pos", "/rov/gripper_jaw_right/cmd_pos",
        "/rov/sampler_cup_left/cmd_pos", "/rov/sampler_cup_right/cmd_pos"]


def test_the_test_vehicles_fit_every_bundled_part_type():
    from aurgen.config.catalog import Catalog

    used = {t for c in CONFIGS for t, _ in resolve(c).specs.parts}
    assert set(Catalog().names()) <= used, sorted(set(Catalog().names()) - used)


# ---------------------------------------------------------------- drag


def test_windage_boxes_carry_current_and_wind_marks_with_the_identified_cd(out):
    v, sdf, _ = _files(out, _bundled('blueboat'))
    boxes = sdf.findall("model/link[@name='windage']/collision")
    assert len(boxes) == 2
    # facts §5: Cd chosen so that 0.5 rho Cd (2 width draft) = 7.0 (the identified xUabsU) at the
    # reference boat's draft m / (rho 2 L W), m = 12 + 2 x 0.074472 + 0.0216994 + 0.0586769 + 0.0754089
    rho, L, W = 1025.0, 1.05, 0.18
    draft = (12 + 2 * 0.074472 + 0.0216994 + 0.0586769 + 0.0754089) / (rho * 2 * L * W)
    for b in boxes:
        assert b.get(f"{GZ}wind") == "true" and b.get(f"{GZ}ocean_current") == "true"
        assert b.get(f"{GZ}buoyancy") is None
        cd = float(b.get(f"{GZ}ocean_current_cd"))
        assert 0.5 * rho * cd * (2 * W * draft) == pytest.approx(7.0, rel=0.03)
    for b in sdf.findall("model/link[@name='hull_displacement']/collision"):
        assert b.get(f"{GZ}ocean_current") is None  # never on the displacement link


# ---------------------------------------------------------------- worlds


@pytest.fixture(scope="module")
def world_out(tmp_path_factory):
    root = tmp_path_factory.mktemp("worlds")
    worlds.write_worlds(["open_water"], root)
    return root


def test_world_loads_the_systems_its_sensors_need(world_out):
    sdf = etree.parse(str(world_out / "worlds" / "open_water.sdf")).getroot()
    names = {p.get("name") for p in sdf.iter("plugin")}
    for system in ("gz::sim::systems::Sensors", "gz::sim::systems::Imu", "gz::sim::systems::NavSat",
                   "gz::sim::systems::Magnetometer", "gz::sim::systems::AirPressure",
                   "gz::sim::maritime::OceanCurrent"):
        assert system in names
    assert sdf.find("world/spherical_coordinates/latitude_deg") is not None  # NavSat needs it
    buoy = sdf.find("world/plugin[@name='gz::sim::systems::Buoyancy']")
    current = sdf.find("world/plugin[@name='gz::sim::maritime::OceanCurrent']")
    # the world density matches the configs: open_water.yaml's water cell and each placed vehicle's
    # declared fluid_density (read as plain YAML)
    w = world_config.load_world("open_water")
    water = yaml.safe_load(Path(w.path).read_text(encoding="utf-8"))["cells"]["water"]["density"]
    assert float(buoy.findtext("graded_buoyancy/default_density")) == water
    assert float(current.findtext("water_density")) == water
    for pl in worlds.place_vehicles(w):
        cfg = yaml.safe_load(Path(pl.vehicle.source).read_text(encoding="utf-8"))
        declared = (cfg.get("buoyancy") or cfg.get("hull_displacement") or {}).get("fluid_density", 1025.0)
        assert declared == water


def test_one_current_declaration_reaches_gazebo_and_the_runtime(tmp_path):
    src = (Path(worlds.__file__).parent.parent / "worlds" / "open_water.yaml")
    if not src.is_file():
        from aurgen.core.resources import data_dir
        src = data_dir("worlds") / "open_water.yaml"
    text = src.read_text(encoding="utf-8")
    # water sets towards north-east at 0.5 m/s; the air blows from the west at 3 m/s (towards +x)
    text = text.replace("density: 1025.0, viscosity: 1.08e-3, flow: [0, 0, 0]",
                        f"density: 1025.0, viscosity: 1.08e-3, flow: [{0.5 * math.sqrt(0.5)!r}, "
                        f"{0.5 * math.sqrt(0.5)!r}, 0]")
    text = text.replace("viscosity: 1.81e-5, flow: [0, 0, 0]", "viscosity: 1.81e-5, flow: [3.0, 0, 0]")
    text = text.replace("config: blueboat.yaml", "config: " + _bundled('blueboat'))
    text = text.replace("config: bluerov2.yaml", "config: " + _bundled('bluerov2'))
    path = tmp_path / "current.yaml"
    path.write_text(text, encoding="utf-8")
    w = world_config.load_world(path)
    sdf = etree.fromstring(worlds.render_sdf(w, worlds.place_vehicles(w)).split("\n", 1)[1].encode())
    current = sdf.find("world/plugin[@name='gz::sim::maritime::OceanCurrent']")
    assert float(current.findtext("speed")) == pytest.approx(0.5, abs=1e-12)
    assert float(current.findtext("direction")) == pytest.approx(45.0, abs=1e-9)  # sets towards NE
    wind = sdf.find("world/plugin[@name='gz::sim::maritime::Wind']")
    assert float(wind.findtext("speed")) == pytest.approx(3.0)
    assert float(wind.findtext("direction")) == pytest.approx(270.0)  # comes from the west
    # the runtime reads the same declaration (the environment JSON's cell flow)
    water = [c for c in world_config.environment(w)["cells"] if c["name"] == "water"][0]
    assert water["flow"][:2] == pytest.approx([0.5 * math.sqrt(0.5)] * 2)


# ---------------------------------------------------------------- ROS: bridge and launch


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_bridge_topics_equal_the_model_topics(out, config):
    v, sdf, _ = _files(out, config)
    text = (out / "ros" / f"{v.name}_bridge.yaml").read_text(encoding="utf-8")
    entries = yaml.safe_load(text)
    bridged = {e["gz_topic_name"] for e in entries}
    for e in entries:
        # an rgbd camera's cloud: the depth camera's <topic>/cloud/depth/points on <topic>/points in ROS
        cloud = e["gz_topic_name"].endswith("/cloud/depth/points")
        assert e["ros_topic_name"] == (e["gz_topic_name"].replace("/cloud/depth/", "/") if cloud
                                       else e["gz_topic_name"])
        assert e["direction"] in ("GZ_TO_ROS", "ROS_TO_GZ")
        assert e["ros_type_name"].count("/msg/") == 1 and e["gz_type_name"].startswith("gz.msgs.")
    unbridged = set(re.findall(r"^# not bridged: (\S+) ", text, re.M))
    model_topics = {t.text for t in sdf.iter("topic")}
    # sub-topics a sensor publishes beside its own: a camera's camera_info, an rgbd camera's streams
    derived = set()
    for s in sdf.iter("sensor"):
        t = s.findtext("topic")
        if s.get("type") == "camera":
            derived.add(t.rsplit("/", 1)[0] + "/camera_info")
        elif s.get("type") == "rgbd_camera":
            # its cloud from the depth camera beside it, when there is one (stamped in the body frame)
            apart = sdf.find(f".//sensor[@name='{s.get('name')}_cloud']") is not None
            derived |= {t + q for q in ("/image", "/depth_image", "/points", "/camera_info")
                        if not (apart and q == "/points")}
            model_topics.discard(t)
        elif s.get("type") == "depth_camera":  # only its cloud is bridged
            derived.add(t + "/points")
            model_topics.discard(t)
    assert bridged | unbridged == model_topics | derived
    assert not bridged & unbridged
    assert not unbridged  # the DVL too: ros_gz_bridge >= 1.0.22 (Jazzy) types it (test_topic_keys.py)


def test_launch_file_is_python_and_names_files_that_exist(world_out):
    path = world_out / "ros" / "open_water.launch.py"
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    assert any(isinstance(n, ast.FunctionDef) and n.name == "generate_launch_description" for n in tree.body)
    consts = {n.targets[0].id: ast.literal_eval(n.value) for n in tree.body
              if isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Name) and n.targets[0].id in
              ("WORLD", "VEHICLES")}
    output = path.parent.parent
    named = [consts["WORLD"]] + [p for _, urdf, bridge in consts["VEHICLES"] for p in (urdf, bridge)]
    assert len(consts["VEHICLES"]) == 2  # open_water places the BlueBoat and the BlueROV2
    for rel in named:
        assert (output / rel).is_file(), rel
    # every string in the file that looks like one of aurgen's outputs is one of those
    strings = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    for s in strings:
        if re.fullmatch(r"[\w/]+\.(sdf|urdf|yaml)", s):
            assert (output / s).is_file(), s
