"""``ardupilot: true``: the SDF's ArduPilotPlugin block, read as ardupilot_gazebo reads it; the SITL parameter files.

Consumers re-implemented (each read from its source, cited):

- ArduPilot/ardupilot_gazebo ``src/ArduPilotPlugin.cc`` (commit 082a0fe231f6): what Configure,
  InitSockets, LoadImuSensors and LoadControlChannels read is read by tests/data/ardupilot_plugin.cc
  with libsdformat and ign-transport's TopicUtils; ``UpdateMotorCommands`` (pwm 0: no output; else
  ``raw = clamp((pwm - servo_min) / (servo_max - servo_min), 0, 1)``, ``cmd = multiplier * (raw +
  offset)``) and ``CreateStateJSON`` (``wldAToBdyA = gazeboXYZToNED^-1 * worldPose *
  modelXYZToAirplaneXForwardZDown``) below in Python.
- gz-maritime (HonuRobotics, 13f11a9) ``gz_thruster/src/Thruster.cc`` ``OnCmdThrust`` in normalised
  mode: ``v = clamp(v, -1, 1); thrust = v >= 0 ? v * max_thrust_cmd : -v * min_thrust_cmd``; the
  topic it subscribes to from the gz_topics fixture (tests/data/gz_topics.cc, Thruster::Configure).
- gz-sim ``src/systems/imu/Imu.cc`` ``ImuPrivate::AddSensor``: a sensor with no ``<topic>`` publishes
  on its scoped name + "/imu", the topic ArduPilotPlugin::PreUpdate subscribes to.
- ArduPilot ``libraries/SRV_Channel/SRV_Channel.h`` (00d81afc0f24): k_motor1..8 = 33..40,
  k_throttleLeft = 73, k_throttleRight = 74.

Before this change aurgen wrote no ArduPilotPlugin block, no ardupilot_imu and no .parm file, and
refused the ``ardupilot`` key: every test here failed on that output.
"""

from __future__ import annotations

import math
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from aurgen.cli import main
from aurgen.core.resources import data_dir

DATA = Path(__file__).parent.parent / "data"
KGF = 9.80665
SRV = {"k_motor1": 33, "k_motor8": 40, "k_throttleLeft": 73, "k_throttleRight": 74}  # SRV_Channel.h
# the chassis wiring as the real vehicles ship (docs: sitl.md; the catalog's ardupilot: keys)
WIRING = {
    "bluerov2": {f"thruster_{k}": (k, SRV["k_motor1"] + k - 1) for k in range(1, 7)},
    "bluerov2_heavy": {f"thruster_{k}": (k, SRV["k_motor1"] + k - 1) for k in range(1, 9)},
    "blueboat": {"motor_stbd": (1, SRV["k_throttleRight"]), "motor_port": (3, SRV["k_throttleLeft"])},
}


@pytest.fixture(scope="module")
def plugin_reader(tmp_path_factory):
    gxx, pkg = shutil.which("g++"), shutil.which("pkg-config")
    flags = subprocess.run([pkg or "pkg-config", "--cflags", "--libs", "sdformat12", "ignition-transport11"],
                           capture_output=True, text=True) if gxx and pkg else None
    if flags is None or flags.returncode != 0:
        if os.environ.get("AURGEN_REQUIRE_CONSUMERS") == "1":
            pytest.fail("libsdformat (sdformat12) or ign-transport11 not found (AURGEN_REQUIRE_CONSUMERS=1)")
        pytest.skip("g++, libsdformat (sdformat12) or ign-transport11 not found")
    exe = tmp_path_factory.mktemp("ap") / "ardupilot_plugin"
    b = subprocess.run([gxx, "-std=c++17", str(DATA / "ardupilot_plugin.cc"), "-o", str(exe), *flags.stdout.split()],
                       capture_output=True, text=True)
    assert b.returncode == 0, b.stderr

    def read(path):
        r = subprocess.run([str(exe), str(path)], capture_output=True, text=True)
        assert r.returncode == 0, r.stdout + r.stderr
        out = {"conf": {}, "pose": {}, "controls": []}
        for line in r.stdout.splitlines():
            kind, rest = line.split(" ", 1)
            if kind == "conf":
                k, v = rest.split(" ", 1)
                out["conf"][k] = v
            elif kind == "pose":
                k, *v = rest.split()
                out["pose"][k] = [float(x) for x in v]
            elif kind == "imu":
                out["imu"] = rest.split()
            else:
                ch, typ, joint, topic, lo, hi, off, mul = rest.split()
                out["controls"].append({"channel": int(ch), "type": typ, "joint": joint, "topic": topic,
                                        "servo_min": float(lo), "servo_max": float(hi), "offset": float(off),
                                        "multiplier": float(mul)})
        return out

    return read


def _sitl_config(tmp_path: Path, vehicle: str, extra: str = "ardupilot: true\n") -> Path:
    text = (data_dir("vehicles") / f"{vehicle}.yaml").read_text()
    p = tmp_path / f"{vehicle}.yaml"
    p.write_text(text + "\n" + extra)
    return p


def _build(tmp_path, *configs) -> int:
    return main(["build", *map(str, configs), "-o", str(tmp_path / "out")])


def update_motor_command(pwm, c):
    """ArduPilotPlugin::UpdateMotorCommands for one control: None (no output) at pwm 0."""
    if pwm == 0:
        return None
    raw = min(max((pwm - c["servo_min"]) / (c["servo_max"] - c["servo_min"]), 0.0), 1.0)
    return c["multiplier"] * (raw + c["offset"])


def on_cmd_thrust(value, cmd_min, cmd_max):
    """gz-maritime Thruster OnCmdThrust, normalised mode."""
    value = min(max(value, -1.0), 1.0)
    value = value * cmd_max if value >= 0.0 else -value * cmd_min
    return min(max(value, cmd_min), cmd_max)


def _thruster_limits(sdf_text: str) -> dict:
    import xml.etree.ElementTree as ET

    root = ET.fromstring(sdf_text.split("\n", 1)[1])
    return {p.findtext("joint_name"): (float(p.findtext("min_thrust_cmd")), float(p.findtext("max_thrust_cmd")))
            for p in root.iter("plugin") if p.get("name") == "gz::sim::maritime::Thruster"}


@pytest.mark.parametrize("vehicle", sorted(WIRING))
def test_plugin_block_as_ardupilot_gazebo_reads_it(tmp_path, vehicle, plugin_reader, gz_topics, sdf_checker):
    assert _build(tmp_path, _sitl_config(tmp_path, vehicle)) == 0
    sdf = tmp_path / "out" / vehicle / "model.sdf"
    ok, out = sdf_checker(sdf)
    assert ok, out
    got = plugin_reader(sdf)
    conf = got["conf"]
    assert conf["filename"] == "ArduPilotPlugin"
    assert (conf["fdm_addr"], conf["fdm_port_in"], conf["lock_step"]) == ("127.0.0.1", "9002", "1")
    assert conf["have_32_channels"] == "0"  # every servo <= 16: ArduPilot's 16-channel packet (magic 18458)
    # the IMU the plugin resolves (scoped: link::sensor), an IMU with no topic: gz-sim publishes it on
    # <scoped name>/imu, which is where the plugin subscribes
    link, sensor, kind, topic = got["imu"]
    assert (link, sensor, kind, topic) == ("base_link", "ardupilot_imu", "imu", "-")
    # frames: a vehicle at rest at the ENU origin facing east (x forward = east, z up) is, for ArduPilot,
    # level and heading east (yaw +90 deg in NED); one turned to face north has yaw 0
    g2n, m2a = got["pose"]["gazeboXYZToNED"], got["pose"]["modelXYZToAirplaneXForwardZDown"]
    R_g2n, R_m2a = _rot(g2n[3:]), _rot(m2a[3:])
    for yaw_enu, yaw_ned in ((0.0, math.pi / 2), (math.pi / 2, 0.0)):
        R = R_g2n.T @ _rot((0.0, 0.0, yaw_enu)) @ R_m2a  # wldAToBdyA's rotation (CreateStateJSON)
        np.testing.assert_allclose(R, _rot((0.0, 0.0, yaw_ned)), atol=1e-12)
    # the IMU reads forward-right-down: its pose in the link is the chassis IMU's turned pi about x
    # controls: one per wired thruster, SERVOn on channel n-1, COMMAND onto the thruster's own topic
    wiring = WIRING[vehicle]
    want = {f"{name}_joint": servo - 1 for name, (servo, _) in wiring.items()}
    assert {c["joint"]: c["channel"] for c in got["controls"]} == want
    thruster_topic = {joint: topic for system, joint, topic in gz_topics(sdf) if system == "thruster"}
    limits = _thruster_limits(sdf.read_text())
    for c in got["controls"]:
        assert c["type"] == "COMMAND" and "<no-joint>" not in c["topic"]
        assert c["topic"] == thruster_topic[c["joint"]]
        assert update_motor_command(0, c) is None
        cmd = {pwm: update_motor_command(pwm, c) for pwm in (1000, 1100, 1500, 1900, 2000)}
        assert cmd == {1000: -1.0, 1100: -1.0, 1500: 0.0, 1900: 1.0, 2000: 1.0}
        lo, hi = limits[c["joint"]]
        assert on_cmd_thrust(cmd[1100], lo, hi) == lo == pytest.approx(-4.07 * KGF)
        assert on_cmd_thrust(cmd[1900], lo, hi) == hi == pytest.approx(5.25 * KGF)
        assert on_cmd_thrust(cmd[1500], lo, hi) == 0.0


def _rot(rpy):
    from aurgen.core import spatial

    return np.asarray(spatial.rot_rpy(rpy), float)


def test_ardupilot_imu_is_the_chassis_imu_turned(tmp_path):
    import xml.etree.ElementTree as ET

    assert _build(tmp_path, _sitl_config(tmp_path, "blueboat")) == 0
    root = ET.fromstring((tmp_path / "out" / "blueboat" / "model.sdf").read_text().split("\n", 1)[1])
    base = next(link for link in root.iter("link") if link.get("name") == "base_link")
    sensors = {s.get("name"): s for s in base.iter("sensor")}
    imu, ap = sensors["imu"], sensors["ardupilot_imu"]
    p, q = [float(x) for x in imu.findtext("pose").split()], [float(x) for x in ap.findtext("pose").split()]
    assert q[:3] == p[:3]
    np.testing.assert_allclose(_rot(q[3:]), _rot(p[3:]) @ _rot((math.pi, 0.0, 0.0)), atol=1e-12)
    assert ap.find("topic") is None and imu.find("topic") is not None
    assert float(ap.findtext("update_rate")) >= 500.0  # at least the bundled worlds' step rate (0.002 s)


@pytest.mark.parametrize("vehicle", sorted(WIRING))
def test_default_sdf_has_no_block(tmp_path, vehicle):
    """No key, or ardupilot: false: no plugin, no extra IMU; both builds say the same."""
    from aurgen.compose.stamp import strip

    a = tmp_path / "a"
    b = tmp_path / "b"
    a.mkdir()
    b.mkdir()
    assert main(["build", vehicle, "-o", str(a / "out")]) == 0
    assert _build(b, _sitl_config(b, vehicle, "ardupilot: false\n")) == 0
    sa = (a / "out" / vehicle / "model.sdf").read_text()
    sb = (b / "out" / vehicle / "model.sdf").read_text()
    assert "ArduPilotPlugin" not in sa and "ardupilot_imu" not in sa
    assert strip(sa) == strip(sb)


def _parm(path: Path) -> dict:
    out = {}
    for line in path.read_text().splitlines():
        if line and not line.startswith("#"):
            name, value = line.split()
            assert name not in out, name
            out[name] = float(value)
    return out


@pytest.mark.parametrize("vehicle", sorted(WIRING))
def test_parm_file_matches_wiring(tmp_path, vehicle):
    assert main(["build", vehicle, "-o", str(tmp_path)]) == 0  # no ardupilot key: written all the same
    path = tmp_path / vehicle / f"{vehicle}_sitl.parm"
    text = path.read_text()
    assert text.startswith(f"# generated by aurgen ") and f"from {vehicle}.yaml sha256:" in text.splitlines()[0]
    p = _parm(path)
    servos = {int(k[5:-9]): int(v) for k, v in p.items() if k.startswith("SERVO") and k.endswith("_FUNCTION")}
    assert servos == {servo: fn for servo, fn in WIRING[vehicle].values()}
    for n in servos:
        assert (p[f"SERVO{n}_MIN"], p[f"SERVO{n}_MAX"], p[f"SERVO{n}_TRIM"]) == (1100, 1900, 1500)
    if vehicle == "blueboat":
        assert (p["FRAME_CLASS"], p["MOT_THST_ASYM"]) == (2, 1.6)
        assert (p["RNGFND1_TYPE"], p["RNGFND1_ORIENT"]) == (100, 25)  # its Ping2 looks down
        assert "sim_vehicle.py -v Rover -f rover-skid --model JSON --add-param-file=blueboat_sitl.parm" in text
    else:
        assert p["FRAME_CONFIG"] == {"bluerov2": 1, "bluerov2_heavy": 2}[vehicle]
        assert "RNGFND1_TYPE" not in p  # no echosounder fitted
        frame = {"bluerov2": "vectored", "bluerov2_heavy": "vectored_6dof"}[vehicle]
        assert f"sim_vehicle.py -v ArduSub -f {frame} --model JSON --add-param-file={vehicle}_sitl.parm" in text
    # the bridge's rangefinder (rng_1): the same downward echosounder, in the MJCF (runtime/sitl reads it)
    import mujoco

    m = mujoco.MjModel.from_xml_path(str(tmp_path / vehicle / f"{vehicle}.xml"))
    found = {m.numeric(i).name: np.array(m.numeric(i).data) for i in range(m.nnumeric)
             if m.numeric(i).name.startswith("aurgen:rangefinder:")}
    if vehicle == "blueboat":
        assert list(found) == ["aurgen:rangefinder:ping_beam"]
        np.testing.assert_allclose(found["aurgen:rangefinder:ping_beam"], [0.0, 0.0, -1.0], atol=1e-12)
        assert m.site("ping_beam").id >= 0  # ping_singlebeam's beam frame: its ray at -90 deg (straight down)
    else:
        assert not found
    again = tmp_path / "again"
    assert main(["build", vehicle, "-o", str(again)]) == 0
    assert (again / vehicle / f"{vehicle}_sitl.parm").read_bytes() == path.read_bytes()  # deterministic


def test_parm_not_written_over_a_foreign_file(tmp_path, capsys):
    """The output tree's rule (aurgen.core.files): a file aurgen did not write is never overwritten."""
    assert main(["build", "bluerov2", "-o", str(tmp_path)]) == 0
    foreign = tmp_path / "bluerov2" / "bluerov2_sitl.parm"
    foreign.unlink()
    foreign.write_text("SERVO1_FUNCTION 1\n")  # the user's own, where aurgen's was
    marker = tmp_path / "bluerov2" / ".aurgen"
    marker.write_text("".join(x + "\n" for x in marker.read_text().splitlines() if x != "file bluerov2_sitl.parm"))
    capsys.readouterr()
    assert main(["build", "bluerov2", "-o", str(tmp_path)]) != 0
    assert "bluerov2_sitl.parm" in capsys.readouterr().err
    assert foreign.read_text() == "SERVO1_FUNCTION 1\n"


def test_audit_checks_parm(tmp_path, capsys):
    assert main(["build", "bluerov2", "-o", str(tmp_path)]) == 0
    assert main(["audit", str(tmp_path / "bluerov2")]) == 0
    parm = tmp_path / "bluerov2" / "bluerov2_sitl.parm"
    parm.write_text(parm.read_text().replace("SERVO2_FUNCTION 34", "SERVO2_FUNCTION 35"))
    capsys.readouterr()
    assert main(["audit", str(tmp_path / "bluerov2")]) != 0
    assert "bluerov2_sitl.parm" in capsys.readouterr().out


# ---------------------------------------------------------------- refusals


def _local_chassis(tmp_path, edit) -> None:
    parts = tmp_path / "parts"
    parts.mkdir(exist_ok=True)
    text = (data_dir("vehicles") / "parts" / "bluerov2_chassis.yaml").read_text()
    (parts / "bluerov2_chassis.yaml").write_text(edit(text))


def test_no_wiring_refused(tmp_path, capsys):
    cut = lambda t: t[:t.index("ardupilot:\n")] + t[t.index("slots:\n"):]  # noqa: E731
    _local_chassis(tmp_path, cut)
    assert _build(tmp_path, _sitl_config(tmp_path, "bluerov2")) == 2
    err = capsys.readouterr().err
    assert "bluerov2.yaml" in err and "ardupilot: true" in err and "declares no ArduPilot wiring" in err
    assert not (tmp_path / "out" / "bluerov2").exists()


def test_emptied_wired_slot_refused(tmp_path, capsys):
    cfg = _sitl_config(tmp_path, "bluerov2")
    cfg.write_text(cfg.read_text().replace("parts: []", "parts:\n  - {slot: thruster_3, type: none}"))
    assert _build(tmp_path, cfg) == 2
    err = capsys.readouterr().err
    assert "SERVO3" in err and "thruster_3" in err and "drop 'ardupilot: true'" in err


@pytest.mark.parametrize("old, new, words", [
    ("thruster_6: {servo: 6, function: 38}", "thruster_9: {servo: 6, function: 38}", "no slot 'thruster_9'"),
    ("thruster_6: {servo: 6, function: 38}", "thruster_6: {servo: 5, function: 38}", "servo 5 is also"),
    ("thruster_6: {servo: 6, function: 38}", "thruster_6: {servo: 6, function: 5}", "no thruster output function"),
    ("thruster_6: {servo: 6, function: 38}", "thruster_6: {servo: 33, function: 38}", "1..32"),
    ("frame: vectored\n", "frame: rover-skid\n", "must be one of vectored"),
    ("{min: 1100, max: 1900, trim: 1500}", "{min: 1100, max: 1900, trim: 1950}", "min < trim < max"),
])
def test_bad_wiring_refused(tmp_path, capsys, old, new, words):
    _local_chassis(tmp_path, lambda t: t.replace(old, new))
    assert _build(tmp_path, _sitl_config(tmp_path, "bluerov2")) == 2
    err = capsys.readouterr().err
    assert "bluerov2_chassis.yaml" in err and "ardupilot" in err and words in err, err


def test_every_sdf_world_loads_the_imu_system(tmp_path):
    """ArduPilotPlugin answers only once its IMU publishes (PreUpdate; CreateStateJSON waits for a message),
    and an IMU publishes only in a world that loads gz-sim-imu-system: every bundled SDF world does, the
    pool (which places no vehicle) too."""
    import xml.etree.ElementTree as ET

    assert main(["build", "--all", "-o", str(tmp_path)]) == 0
    worlds = sorted((tmp_path / "worlds").glob("*.sdf"))
    assert {w.stem for w in worlds} >= {"open_water", "open_sea", "pool"}
    for w in worlds:
        root = ET.fromstring(w.read_text().split("\n", 1)[1])
        systems = {(p.get("filename"), p.get("name")) for p in root.find("world").findall("plugin")}
        assert ("gz-sim-imu-system", "gz::sim::systems::Imu") in systems, w.name
