"""A BlueROV2 fitted with a downward Ping2 (``{slot: dvl, type: ping_singlebeam, name: ping}``, the
chassis' bottom sensor slot) is ArduSub's rangefinder end to end: the MJCF carries its
``aurgen:rangefinder:ping_beam`` numeric, the ``.parm`` its RNGFND1 lines, and ``aurgen sitl``
answers ``rng_1``, the distance along the beam to the seabed.

ArduSub reads a rangefinder for surface tracking only when one looks down: ``Sub::init_rangefinder``
(ArduSub/sensors.cpp) ``rangefinder_state.enabled = rangefinder.has_orientation(ROTATION_PITCH_270)``,
ROTATION_PITCH_270 = 25 (libraries/AP_Math/rotations.h); RNGFND1_TYPE 100 is the SITL rangefinder
(libraries/AP_RangeFinder/AP_RangeFinder_Params.cpp), which reads the JSON reply's rng_1.

The expected range is computed here, not by aurgen: the beam's origin from the catalog's numbers
(the chassis' ``dvl`` slot and the Ping2's ``beam`` frame, read with yaml), the vehicle's pose from
the reply as ArduPilot reads it (tests/sitl/ap_json.py: position NED from home, quaternion body FRD
to NED), home and the seabed plane from the compiled world (mujoco), and the beam straight down the
body's z. Before the chassis' slot accepted a Ping2 the config was refused and no world was built.
"""
from __future__ import annotations

import subprocess

import mujoco
import numpy as np
import pytest
import yaml

import ap_json
from sitl_client import Sitl, aurgen_cmd, clean_env

RATE = 400
SEABED = -10.0  # m, the tank's floor (the world config below)


def _parts():
    from aurgen.core.resources import data_dir

    return data_dir("vehicles") / "parts"


def _write_world(folder, rpy) -> None:
    from aurgen.core.resources import data_dir

    rov = (data_dir("vehicles") / "bluerov2.yaml").read_text()
    rov = rov.replace("name: bluerov2\n", "name: rov_ping\n").replace("topic_namespace: bluerov2\n",
                                                                      "topic_namespace: rov_ping\n")
    assert "parts: []\n" in rov
    rov = rov.replace("parts: []\n", "parts:\n  - {slot: dvl, type: ping_singlebeam, name: ping}\n")
    (folder / "rov_ping.yaml").write_text(rov)
    (folder / "ping_tank.yaml").write_text(f"""description: a flat seabed at 10 m
timestep: 0.002
integrator: implicitfast
gravity: [0, 0, -9.81]
planes:
  surface: {{normal: [0, 0, 1], offset: 0.0}}
  seabed:  {{normal: [0, 0, 1], offset: {SEABED}, size: [50, 50]}}
cells:
  air:   {{above: [surface], density: 1.225, viscosity: 1.81e-5}}
  water: {{below: [surface], above: [seabed], density: 1025.0, viscosity: 1.08e-3}}
ground: seabed
vehicles:
  - {{config: rov_ping.yaml, xyz: [0, 0, -7], rpy: {list(rpy)}}}
""")


@pytest.fixture(scope="module", params=[(0.0, 0.0, 0.0), (0.2, -0.1, 0.5)], ids=["level", "tilted"])
def tank(request, tmp_path_factory):
    folder = tmp_path_factory.mktemp("ping_tank")
    _write_world(folder, request.param)
    r = subprocess.run(aurgen_cmd() + ["worlds", "ping_tank.yaml", "-o", "out"], cwd=folder, capture_output=True,
                       text=True, env=clean_env(), timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    return folder / "out"


def test_parm_and_mjcf_name_the_echosounder(tank):
    parm = {}
    for line in (tank / "rov_ping" / "rov_ping_sitl.parm").read_text().splitlines():
        if line and not line.startswith("#"):
            k, v = line.split()
            parm[k] = float(v)
    assert (parm["RNGFND1_TYPE"], parm["RNGFND1_ORIENT"]) == (100, 25)
    m = mujoco.MjModel.from_xml_path(str(tank / "rov_ping" / "rov_ping.xml"))
    found = {m.numeric(i).name: np.array(m.numeric(i).data) for i in range(m.nnumeric)
             if m.numeric(i).name.startswith("aurgen:rangefinder:")}
    assert list(found) == ["aurgen:rangefinder:ping_beam"]
    np.testing.assert_allclose(found["aurgen:rangefinder:ping_beam"], [0.0, 0.0, -1.0], atol=1e-12)


def _beam_origin_in_body() -> np.ndarray:
    """The Ping2's transducer face in base_link (m): the chassis' dvl slot plus the part's beam frame
    (both at zero rotation: the slot's rpy and the frame's are checked to be 0)."""
    chassis = yaml.safe_load((_parts() / "bluerov2_chassis.yaml").read_text())
    ping = yaml.safe_load((_parts() / "ping_singlebeam.yaml").read_text())
    slot, beam = chassis["slots"]["dvl"], ping["frames"]["beam"]
    assert "ping_singlebeam" in slot["accepts"] and slot["rpy"] == [0, 0, 0] and beam["rpy"] == [0, 0, 0]
    assert "attach" not in ping
    assert ping["sensors"]["ping"]["v_min"] == pytest.approx(-np.pi / 2)  # the one ray straight down
    return np.array(slot["xyz"], float) + np.array(beam["xyz"], float)


def _rot(q) -> np.ndarray:
    w, x, y, z = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


ENU_TO_NED = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, -1.0]])
FLU_TO_FRD = np.diag([1.0, -1.0, -1.0])


def test_rng_1_is_the_height_above_the_seabed(tank):
    world = tank / "worlds" / "ping_tank.xml"
    m = mujoco.MjModel.from_xml_path(str(world))
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    home = np.array(d.xpos[m.body("rov_ping/base_link").id])  # the bridge's home: the vehicle at the start
    bed = m.geom("seabed")
    assert bed.type == mujoco.mjtGeom.mjGEOM_PLANE
    bed_point = np.array(d.geom_xpos[bed.id])
    bed_normal = np.array(d.geom_xmat[bed.id]).reshape(3, 3)[:, 2]
    assert bed_point[2] == pytest.approx(SEABED) and bed_normal == pytest.approx([0.0, 0.0, 1.0])
    origin = _beam_origin_in_body()
    rx = ap_json.Receiver()
    pwm = [1500] * 8 + [0] * 8
    checked = 0
    with Sitl(world, "--vehicle", "rov_ping") as s:
        for i in range(2 * RATE):
            a = rx.feed(s.ask(ap_json.servo_packet(RATE, rx.frame_counter, pwm)))
            assert a is not None, (rx.rejected, rx.missing)
            if i % 40:
                continue
            R_ned_frd = _rot(a.quaternion)
            R = ENU_TO_NED.T @ R_ned_frd @ FLU_TO_FRD  # body FLU -> world ENU
            base = home + ENU_TO_NED.T @ np.array(a.position)
            start = base + R @ origin
            down = R @ np.array([0.0, 0.0, -1.0])
            want = float(bed_normal @ (bed_point - start)) / float(bed_normal @ down)
            assert 2.0 < want < 3.5
            assert a.rng[0] == pytest.approx(want, abs=3e-3), (i, a.rng, want)
            checked += 1
        rc, out, err = s.stop()
    assert rc == 0 and "health: ok" in out, (out, err)
    assert checked == 2 * RATE // 40
