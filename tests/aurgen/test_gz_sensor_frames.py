"""Every bridged sensor message is stamped with the frame its data is in (issue 23).

Re-implemented from gz-sensors 8 (Harmonic; checked at tag gz-sensors8_8.2.2):

- ``src/RgbdCameraSensor.cc``, ``RgbdCameraSensor::CreateCameras``: the image, depth image, cloud
  (``InitPointCloudPacked(pointMsg, OpticalFrameId(), ...)``) and camera_info are all stamped
  with one frame, ``<camera><optical_frame_id>`` if set, else the sensor's frame id
  (``<gz_frame_id>``); topics ``<topic>/image``, ``/depth_image``, ``/points``, ``/camera_info``.
- ``src/DepthCameraSensor.cc``, ``DepthCameraSensor::CreateCamera``: the same frame for its depth
  image (``<topic>``) and cloud (``<topic>/points``); ``src/CameraSensor.cc``,
  ``CameraSensor::AdvertiseInfo``: camera_info on the topic's parent + ``/camera_info``.
- The data's axes: images in the optical convention (z forward, x right, y down: REP-103), the
  cloud in the sensor's own axes, x forward (``test/integration/rgbd_camera.cc``: the middle
  point's x equals the depth, a point left of it has a larger y).

A frame id ``<ns>/<link>`` names a URDF link (robot_state_publisher's ``frame_prefix``); its
rotation relative to the sensor (the SDF sensor pose on its link) must be the optical rotation for
an image and the identity for a cloud. On the old output the cloud is stamped optical: fails.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import yaml
from lxml import etree

from aurgen.compose.resolve import resolve

FEATURES = Path(__file__).parents[1] / "data" / "emit_features"
CONFIGS = ["equipped_rov.yaml", "topic_keys.yaml"]
IMAGE, CLOUD = "sensor_msgs/msg/Image", "sensor_msgs/msg/PointCloud2"


def _rot(rpy):
    r, p, y = rpy
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), math.cos(y), math.sin(y)
    return np.array([[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
                     [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
                     [-sp, cp * sr, cp * cr]])


# optical axes in the sensor's: x_opt = -y, y_opt = -z, z_opt = x
OPTICAL = np.array([[0.0, 0.0, 1.0], [-1.0, 0.0, 0.0], [0.0, -1.0, 0.0]])


def gz_published(sdf_root):
    """gz topic -> (frame id, sensor, link) for every camera-like message, as gz-sensors 8 stamps it."""
    out = {}
    for link in sdf_root.find("model").findall("link"):
        for s in link.findall("sensor"):
            kind, topic = s.get("type"), s.findtext("topic")
            frame = s.findtext("camera/optical_frame_id") or s.findtext("gz_frame_id")
            if kind == "rgbd_camera":
                topics = [topic + q for q in ("/image", "/depth_image", "/points", "/camera_info")]
            elif kind == "depth_camera":
                topics = [topic, topic + "/points", topic.rsplit("/", 1)[0] + "/camera_info"]
            else:
                continue
            for t in topics:
                out[t] = (frame, s, link.get("name"))
    return out


def urdf_rotation(urdf_root, frame_link, sensor_link):
    """Rotation of URDF link ``frame_link`` in ``sensor_link`` (walking up fixed joints)."""
    parent = {j.find("child").get("link"): j for j in urdf_root.findall("joint")}
    R, name = np.eye(3), frame_link
    while name != sensor_link:
        j = parent[name]
        o = j.find("origin")
        R = _rot([float(x) for x in (o.get("rpy") or "0 0 0").split()]) @ R
        name = j.find("parent").get("link")
    return R


@pytest.mark.parametrize("config", CONFIGS)
def test_every_bridged_image_and_cloud_is_stamped_with_its_data_frame(built_vehicles, config):
    v = resolve(FEATURES / config)
    sdf = etree.parse(str(built_vehicles / v.name / "model.sdf")).getroot()
    urdf = etree.parse(str(built_vehicles / v.name / f"{v.name}.urdf")).getroot()
    bridge = yaml.safe_load((built_vehicles / "ros" / f"{v.name}_bridge.yaml").read_text(encoding="utf-8"))
    pub = gz_published(sdf)
    checked = {IMAGE: 0, CLOUD: 0}
    for e in bridge:
        if e["ros_type_name"] not in checked or e["gz_topic_name"] not in pub:
            continue
        frame, sensor, link = pub[e["gz_topic_name"]]
        ns, _, frame_link = frame.partition("/")
        assert ns == v.namespace
        pose = [float(x) for x in sensor.findtext("pose").split()]
        R = _rot(pose[3:]).T @ urdf_rotation(urdf, frame_link, link)
        want = OPTICAL if e["ros_type_name"] == IMAGE else np.eye(3)
        assert np.allclose(R, want, atol=1e-12), (e["gz_topic_name"], frame, R.round(6).tolist())
        checked[e["ros_type_name"]] += 1
    assert checked[CLOUD] >= 1 and checked[IMAGE] >= 2


def test_the_cloud_sensor_sits_where_the_rgbd_camera_does(built_vehicles):
    sdf = etree.parse(str(built_vehicles / "equipped_rov" / "model.sdf")).getroot()
    (cam,) = sdf.findall(".//sensor[@name='camera']")
    (cloud,) = sdf.findall(".//sensor[@name='camera_cloud']")
    assert cloud.get("type") == "depth_camera" and cloud.findtext("camera/image/format") == "R_FLOAT32"
    for tag in ("pose", "update_rate", "camera/horizontal_fov", "camera/image/width", "camera/image/height",
                "camera/clip/near", "camera/clip/far"):
        assert cam.findtext(tag) == cloud.findtext(tag), tag
    assert cloud.findtext("topic") == "/rov/camera/cloud/depth" and cloud.findtext("gz_frame_id") == "rov/camera"
