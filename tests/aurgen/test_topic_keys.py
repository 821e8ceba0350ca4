"""Topic keys on part entries (issue 23): ``topic``, ``gz_topic``, ``ros_topic`` honoured on both sides
of the bridge or refused naming the key; every bridge entry typed as ros_gz_bridge's table types it.

The topics a Gazebo system hears are checked against the bridge in test_gz_topics.py (topic_keys.yaml
is one of its configs). Here the expected topics are written out from the config's keys by the rule
docs/config.md states, and the bridge YAML is read as ros_gz_bridge reads it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from lxml import etree

from aurgen.compose.resolve import resolve
from aurgen.core.errors import AurgenError
from aurgen.emit import ros
from aurgen.emit.build import bundled_vehicles

FEATURES = Path(__file__).parents[1] / "data" / "emit_features"
CONFIG = FEATURES / "topic_keys.yaml"
CONFIGS = [str(p) for p in bundled_vehicles()] + [str(FEATURES / n) for n in
                                                  ("features.yaml", "equipped_rov.yaml", "equipped_boat.yaml",
                                                   "topic_keys.yaml")]

# ros_gz_bridge's type table: ros_gz_bridge/ros_gz_bridge/mappings.py, MAPPINGS (jazzy branch), the packages
# a vehicle's bridge uses, as (ROS type, Gazebo type) -- plus marine_acoustic_msgs' Dvl, added by
# gazebosim/ros_gz pull request #789 ("Bridge DVL messages", ros_gz_bridge/src/convert/marine_acoustic_msgs.cpp)
# and released in ros_gz_bridge 1.0.22 (Jazzy), 2.1.16 (Kilted), 3.0.8 (Rolling).
ROS_GZ_MAPPINGS = {
    ("sensor_msgs/msg/" + r, "gz.msgs." + g) for r, g in (
        ("BatteryState", "BatteryState"), ("CameraInfo", "CameraInfo"), ("FluidPressure", "FluidPressure"),
        ("Image", "Image"), ("Imu", "IMU"), ("JointState", "Model"), ("Joy", "Joy"), ("LaserScan", "LaserScan"),
        ("MagneticField", "Magnetometer"), ("NavSatFix", "NavSat"), ("PointCloud2", "PointCloudPacked"))
} | {
    ("std_msgs/msg/" + r, "gz.msgs." + g) for r, g in (
        ("Bool", "Boolean"), ("ColorRGBA", "Color"), ("Empty", "Empty"), ("Float32", "Float"),
        ("Float64", "Double"), ("Header", "Header"), ("Int32", "Int32"), ("UInt32", "UInt32"),
        ("String", "StringMsg"))
} | {("marine_acoustic_msgs/msg/Dvl", "gz.msgs.DVLVelocityTracking")}


@pytest.fixture(scope="module")
def out(built_vehicles):
    return built_vehicles  # CONFIGS, built once per session (tests/conftest.py)


def _bridge(out, name):
    return yaml.safe_load((out / "ros" / f"{name}_bridge.yaml").read_text(encoding="utf-8"))


def test_each_key_lands_on_its_side_of_the_bridge(out):
    by_gz = {e["gz_topic_name"]: e["ros_topic_name"] for e in _bridge(out, "topic_keys")}
    # topic: echo on the sonar renamed 'sonar' -> /<ns>/echo/<quantity> on both sides
    assert by_gz["/tk/echo/scan"] == "/tk/echo/scan"
    # gz_topic: cam_raw, ros_topic: sensors_cam on the rgbd camera -> each side its own base
    for q in ("image", "depth_image", "camera_info"):
        assert by_gz[f"/tk/cam_raw/{q}"] == f"/tk/sensors_cam/{q}"
    # its cloud from the depth camera beside it (test_gz_sensor_frames.py), Gazebo topic under cam_raw
    assert by_gz["/tk/cam_raw/cloud/depth/points"] == "/tk/sensors_cam/points"
    # an absolute ros_topic: no namespace on the ROS side
    assert by_gz["/tk/dvl/velocity"] == "/nav/dvl/velocity"
    assert by_gz["/tk/thruster_1/cmd"] == "/teleop/thruster_1/cmd"
    # a nested slot's entry (a gripper jaw): its position command
    assert by_gz["/tk/claw/left/cmd_pos"] == "/tk/claw/left/cmd_pos"
    assert by_gz["/tk/gripper_jaw_right/cmd_pos"] == "/tk/gripper_jaw_right/cmd_pos"
    # and the SDF says the same on the Gazebo side
    sdf = etree.parse(str(out / "topic_keys" / "model.sdf")).getroot()
    topics = {s.get("name"): s.findtext("topic") for s in sdf.iter("sensor")}
    assert topics["sonar"] == "/tk/echo/scan" and topics["camera"] == "/tk/cam_raw" and \
        topics["dvl"] == "/tk/dvl/velocity"


@pytest.mark.parametrize("config", CONFIGS, ids=[Path(c).stem for c in CONFIGS])
def test_every_bridge_entry_is_one_ros_gz_bridge_parses_and_types(out, config):
    """ros_gz_bridge src/bridge_config.cpp parseEntry: both type names set, a known direction, a
    boolean lazy; the (ROS, Gazebo) pair in its table (mappings.py), or the bridge is not created."""
    v = resolve(config)
    text = (out / "ros" / f"{v.name}_bridge.yaml").read_text(encoding="utf-8")
    assert "# not bridged" not in text  # every topic the SDF names has a ROS type now (the DVL's too)
    for e in yaml.safe_load(text):
        assert set(e) <= {"ros_topic_name", "gz_topic_name", "ros_type_name", "gz_type_name", "direction",
                          "lazy"}, e
        assert (e["ros_type_name"], e["gz_type_name"]) in ROS_GZ_MAPPINGS, e
        assert e["direction"] in ("GZ_TO_ROS", "ROS_TO_GZ"), e
        # sensors: Gazebo renders and publishes only while a ROS node subscribes
        assert e.get("lazy") is (True if e["direction"] == "GZ_TO_ROS" and
                                 e["gz_type_name"] != "gz.msgs.Model" else None), e


def _config(tmp_path, line: str) -> Path:
    p = tmp_path / "v.yaml"
    text = CONFIG.read_text(encoding="utf-8").split("parts:\n")
    p.write_text(text[0] + "parts:\n" + line + "\n" + text[1], encoding="utf-8")
    (tmp_path / "parts").mkdir(exist_ok=True)
    return p


@pytest.mark.parametrize("line, key, words", [
    ("  - {slot: battery, type: br_liion_18ah, topic: power}", "parts[0].topic", "has no topic"),
    ("  - {slot: payload, type: payload_skid, gz_topic: skid}", "parts[0].gz_topic", "has no topic"),
    ("  - {slot: thruster_2, type: t200_prop_ccw, topic: a, ros_topic: b}", "parts[0].ros_topic",
     "mutually exclusive"),
    ("  - {slot: thruster_2, type: t200_prop_ccw, topic: a, gz_topic: b}", "parts[0].gz_topic",
     "mutually exclusive"),
    ("  - {slot: thruster_2, type: t200_prop_ccw, ros_topic: 'a//b'}", "parts[0].ros_topic", "is not a topic"),
    ("  - {slot: thruster_2, type: t200_prop_ccw, topic: 3}", "parts[0].topic", "expected a topic"),
    ("  - {slot: thruster_2, type: t200_prop_ccw, topic: thruster_3}", "parts[0].topic", "share the Gazebo topic"),
    ("  - {slot: thruster_2, type: t200_prop_ccw, ros_topic: /teleop/thruster_1}", "parts[0].ros_topic",
     "share the ROS topic"),
])
def test_a_bad_topic_key_is_refused_naming_it(tmp_path, line, key, words):
    p = _config(tmp_path, line)
    with pytest.raises(AurgenError) as exc:
        ros.topics(resolve(str(p)))
    msg = str(exc.value)
    assert key in msg and words in msg and f"{p}:" in msg and ":8:" in msg.replace(str(p), ""), msg


def test_a_bad_topic_key_is_one_line_from_the_cli(tmp_path, capsys):
    from aurgen.cli import main

    p = _config(tmp_path, "  - {slot: battery, type: br_liion_18ah, ros_topic: /power}")
    code = main(["build", str(p), "-o", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2 and "parts[0].ros_topic" in err and "Traceback" not in err, err
