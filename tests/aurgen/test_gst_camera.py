"""``ardupilot: true``: every camera sensor in model.sdf streams its video with ardupilot_gazebo's
GstCameraPlugin, read as the plugin reads it.

Consumer re-implemented: ArduPilot/ardupilot_gazebo ``src/GstCameraPlugin.cc`` (commit 082a0fe231f6),
``GstCameraPlugin::Configure`` (attached to a sensor entity, else refused; udp_host, udp_port,
rtmp_location / use_basic_pipeline, use_cuda, image_topic, enable_topic with their defaults) and
``GstCameraPlugin::PreUpdate`` (image and enable topics defaulting to the sensor's topic and topic +
"/enable_streaming"): tests/data/gst_camera_plugin.cc, with libsdformat. ``Impl::OnImage`` reads each
image as 8-bit RGB (``CV_8UC3``, ``COLOR_RGB2YUV_I420``): the camera's pixel format must be RGB_INT8.
``CreateGenericPipeline`` (``use_basic_pipeline``) sends RTP H.264 to udp_host:udp_port, what the
README's ``gst-launch-1.0 udpsrc port=5600 ... rtph264depay`` and QGroundControl's "UDP h.264" take.

Where the RGB image is published (gz-sensors 8): a ``camera`` on its own topic (CameraSensor::Load
advertises this->Topic()); an ``rgbd_camera`` on ``<topic>/image`` (RgbdCameraSensor::Load: Topic() +
"/image"). The ports: camera k (0, 1, … in the SDF's order) of instance N on 5600 + 10·N + k.

Before this change model.sdf carried no GstCameraPlugin: every test here but the last failed on it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from aurgen.cli import main
from aurgen.core.resources import data_dir

DATA = Path(__file__).parent.parent / "data"
WIRED = ("blueboat", "bluerov2", "bluerov2_heavy")  # the bundled vehicles ArduPilot can fly
WITH_CAMERA = {"bluerov2", "bluerov2_heavy"}  # the bundled ones with a camera (exploreHD, camera slot)


@pytest.fixture(scope="module")
def gst_reader(tmp_path_factory):
    gxx, pkg = shutil.which("g++"), shutil.which("pkg-config")
    flags = subprocess.run([pkg or "pkg-config", "--cflags", "--libs", "sdformat12"],
                           capture_output=True, text=True) if gxx and pkg else None
    if flags is None or flags.returncode != 0:
        if os.environ.get("AURGEN_REQUIRE_CONSUMERS") == "1":
            pytest.fail("libsdformat (sdformat12) not found (AURGEN_REQUIRE_CONSUMERS=1)")
        pytest.skip("g++ or libsdformat (sdformat12) not found")
    exe = tmp_path_factory.mktemp("gst") / "gst_camera_plugin"
    b = subprocess.run([gxx, "-std=c++17", str(DATA / "gst_camera_plugin.cc"), "-o", str(exe), *flags.stdout.split()],
                       capture_output=True, text=True)
    assert b.returncode == 0, b.stderr

    def read(path):
        r = subprocess.run([str(exe), str(path)], capture_output=True, text=True)
        assert r.returncode == 0, r.stdout + r.stderr
        out = {"cameras": [], "gst": {}, "model_level": []}
        for line in r.stdout.splitlines():
            kind, *f = line.split()
            if kind == "camera":
                out["cameras"].append(dict(zip(("link", "sensor", "type", "format", "topic"), f)))
            elif kind == "gst":
                key = (f[0], f[1])
                assert key not in out["gst"], f"two GstCameraPlugin blocks in {key}"
                out["gst"][key] = dict(zip(("filename", "host", "port", "pipeline", "cuda", "image", "enable"), f[2:]))
            else:
                out["model_level"].append(f)
        return out

    return read


def _config(tmp_path: Path, vehicle: str, extra: str, parts: str = "") -> Path:
    text = (data_dir("vehicles") / f"{vehicle}.yaml").read_text()
    if parts:
        assert "parts: []\n" in text
        text = text.replace("parts: []\n", "parts:\n" + parts)
    p = tmp_path / f"{vehicle}.yaml"
    p.write_text(text + "\n" + extra)
    return p


def _sdf(tmp_path, cfg) -> Path:
    assert main(["build", str(cfg), "-o", str(tmp_path / "out")]) == 0
    return tmp_path / "out" / cfg.stem / "model.sdf"


def _check(got, instance: int) -> list:
    """Every RGB camera streams, as the plugin reads its block; the cameras in SDF order."""
    assert got["model_level"] == []  # a model-level block gets the model entity: Configure refuses it
    streamed = [c for c in got["cameras"] if c["type"] in ("camera", "rgbd_camera")]
    assert set(got["gst"]) == {(c["link"], c["sensor"]) for c in streamed}
    for k, c in enumerate(streamed):
        g = got["gst"][(c["link"], c["sensor"])]
        assert g["filename"] == "GstCameraPlugin"
        assert (g["host"], int(g["port"])) == ("127.0.0.1", 5600 + 10 * instance + k)
        assert (g["pipeline"], g["cuda"]) == ("basic", "0")
        assert c["format"] == "RGB_INT8"  # OnImage: 8-bit RGB
        image = c["topic"] if c["type"] == "camera" else c["topic"] + "/image"  # gz-sensors' RGB image topic
        assert g["image"] == image
        assert g["enable"] == c["topic"] + "/enable_streaming"
    return streamed


@pytest.mark.parametrize("vehicle", WIRED)
def test_every_bundled_camera_streams(tmp_path, vehicle, gst_reader, sdf_checker):
    sdf = _sdf(tmp_path, _config(tmp_path, vehicle, "ardupilot: true\n"))
    ok, out = sdf_checker(sdf)
    assert ok, out
    streamed = _check(gst_reader(sdf), 0)
    assert bool(streamed) == (vehicle in WITH_CAMERA)
    if streamed:
        assert [(c["sensor"], c["type"]) for c in streamed] == [("camera", "camera")]


@pytest.mark.parametrize("instance", [0, 3, 255])
def test_two_cameras_rgbd_and_instances(tmp_path, instance, gst_reader):
    """An RGB-D camera in the camera slot and an exploreHD in an ad hoc slot: ports 5600 + 10·N + 0, 1."""
    parts = "  - {slot: camera, type: marinesitu_c3}\n  - {slot: aft_camera, type: explorehd_camera}\n"
    extra = (f"ardupilot: {{instance: {instance}}}\n"
             "slots:\n  - {of: base_link, name: aft_camera, xyz: [-0.2, 0, 0.1], rpy: [0, 0, 3.141592653589793], "
             "accepts: [explorehd_camera], default: none}\n")
    streamed = _check(gst_reader(_sdf(tmp_path, _config(tmp_path, "bluerov2", extra, parts))), instance)
    assert sorted(c["type"] for c in streamed) == ["camera", "rgbd_camera"]


def test_no_plugin_without_ardupilot(tmp_path, gst_reader):
    for flag in ("", "ardupilot: false\n"):
        sdf = _sdf(tmp_path, _config(tmp_path, "bluerov2", flag))
        got = gst_reader(sdf)
        assert got["gst"] == {} and got["model_level"] == [] and got["cameras"]
        assert "GstCameraPlugin" not in sdf.read_text()


def test_more_cameras_than_ports_refused(tmp_path, capsys):
    slots = "".join(f"  - {{of: base_link, name: cam{i}, xyz: [0, 0, 0.1], rpy: [0, 0, 0], "
                    "accepts: [explorehd_camera], default: explorehd_camera}\n" for i in range(10))
    cfg = _config(tmp_path, "bluerov2", "ardupilot: true\nslots:\n" + slots)
    assert main(["build", str(cfg), "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "bluerov2.yaml" in err and "11 cameras" in err and "ardupilot" in err, err
    assert not (tmp_path / "out" / "bluerov2").exists()
