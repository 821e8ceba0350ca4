"""ArduPilot's loop closed through ``aurgen sitl`` over UDP, with ArduPilot's own mixers and parser
re-implemented (ap_mix: ArduSub's AP_Motors6DOF vectored matrix and ArduRover's AP_MotorsUGV skid
steering; ap_json: SIM_JSON.cpp's receive side): the BlueROV2 holds 2 m depth and a heading for 60 s
of simulated time, the BlueBoat drives to a waypoint. The controllers here are plain PIDs standing
in for ArduPilot's attitude and position controllers: what is tested is the link (the packet, the
channels, the PWM to thrust, the frames of every value ArduPilot reads) and the vehicles' geometry as
ArduPilot's mixers assume it. A sign wrong anywhere (a channel swapped, a frame mirrored, a motor
reversed) sends the vehicle away instead of settling.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import ap_json
import ap_mix
from sitl_client import Sitl, aurgen_cmd, clean_env

RATE = 400  # Hz, ArduSub's and ArduRover's main loop


def _euler(q):
    """(roll, pitch, yaw) rad of ArduPilot's quaternion (w, x, y, z), body FRD in NED (ZYX)."""
    w, x, y, z = q
    roll = math.atan2(2 * (w * x + y * z), 1 - 2 * (x * x + y * y))
    pitch = math.asin(max(-1.0, min(1.0, 2 * (w * y - z * x))))
    yaw = math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))
    return roll, pitch, yaw


def _wrap(a):
    return (a + math.pi) % (2 * math.pi) - math.pi


def _clip(x, lo=-1.0, hi=1.0):
    return max(lo, min(hi, x))


def fly(model, vehicle, controller, seconds, channels=16):
    """Run ``aurgen sitl`` and close the loop: ``controller(applied) -> PWM list`` each frame, the
    reply read by ArduPilot's parser (ap_json.Receiver); the list of Applied records (one a frame)."""
    rx = ap_json.Receiver()
    log = []
    pwm = [1500] * 8 + [0] * (channels - 8)
    with Sitl(model, "--vehicle", vehicle) as s:
        for frame in range(int(seconds * RATE)):
            applied = rx.feed(s.ask(ap_json.servo_packet(RATE, rx.frame_counter, pwm, channels)))
            assert applied is not None, (rx.rejected, rx.missing, rx.log[-3:])
            log.append(applied)
            pwm = list(controller(applied)) + [0] * channels
            pwm = pwm[:channels]
        rc, out, err = s.stop()
    assert rc == 0 and "health: ok" in out, (out, err)
    assert not any("physics reset" in line for line in rx.log)
    return log


class DepthHeading:
    """Depth and heading hold for ArduSub's vectored frame: throttle from the depth error, yaw from the
    heading error (PID: the T200's dead band around 1500 µs stalls a plain PD short of the target),
    roll and pitch levelled, forward and lateral holding the start point (PD), demands in ArduSub's
    -1..1, mixed by ap_mix.sub_mix."""

    def __init__(self, frame, depth0, depth, heading):
        self.frame, self.depth0, self.depth, self.heading = frame, depth0, depth, heading
        self.i_depth = self.i_yaw = 0.0

    def __call__(self, a):
        n, e, d = a.position
        vn, ve, vd = a.velocity
        roll, pitch, yaw = _euler(a.quaternion)
        p, q, r = a.gyro
        depth = self.depth0 + d  # position is from home, down positive
        e_depth, e_yaw = depth - self.depth, _wrap(self.heading - yaw)
        self.i_depth = _clip(self.i_depth + e_depth / RATE, -0.5, 0.5)
        self.i_yaw = _clip(self.i_yaw + e_yaw / RATE, -0.5, 0.5)
        throttle = _clip(1.5 * e_depth + 1.5 * vd + 0.5 * self.i_depth)  # > 0 up: too deep, or sinking
        yaw_d = _clip(2.0 * e_yaw - 1.0 * r + 0.5 * self.i_yaw)  # > 0 clockwise from above
        roll_d = _clip(-2.0 * roll - 0.5 * p)
        pitch_d = _clip(-2.0 * pitch - 0.5 * q)
        # hold the start: the error in body axes (FRD: x ahead, y to starboard)
        c, s = math.cos(yaw), math.sin(yaw)
        fx, fy = c * -n + s * -e, -s * -n + c * -e
        vx, vy = c * vn + s * ve, -s * vn + c * ve
        forward = _clip(0.4 * fx - 1.0 * vx, -0.5, 0.5)
        lateral = _clip(0.4 * fy - 1.0 * vy, -0.5, 0.5)
        return ap_mix.sub_mix(self.frame, roll=roll_d, pitch=pitch_d, yaw=yaw_d, throttle=throttle,
                              forward=forward, lateral=lateral)


HEAVY_WORLD = """description: the BlueROV2 Heavy alone in open water (tests/sitl)
timestep: 0.002
integrator: implicitfast
gravity: [0, 0, -9.81]
planes:
  surface: {normal: [0, 0, 1], offset: 0.0}
  seabed:  {normal: [0, 0, 1], offset: -30.0, size: [200, 200]}
cells:
  air:   {above: [surface], density: 1.225, viscosity: 1.81e-5}
  water: {below: [surface], above: [seabed], density: 1025.0, viscosity: 1.08e-3}
ground: seabed
vehicles:
  - {config: bluerov2_heavy.yaml, name: bluerov2_heavy, xyz: [0, 0, -3], rpy: [0, 0, 0]}
"""


@pytest.fixture(scope="module")
def heavy_world(built):
    """A world holding the Heavy (no bundled one does), written by the installed ``aurgen worlds``."""
    import subprocess

    (built / "heavy_water.yaml").write_text(HEAVY_WORLD)
    r = subprocess.run(aurgen_cmd() + ["worlds", str(built / "heavy_water.yaml"), "-o", str(built)],
                       capture_output=True, text=True, env=clean_env(), timeout=900)
    assert r.returncode == 0, r.stderr
    return built / "worlds" / "heavy_water.xml"


@pytest.mark.parametrize("vehicle, frame", [("bluerov2", "vectored"), ("bluerov2_heavy", "vectored_6dof")])
def test_the_rov_holds_depth_and_heading(built, heavy_world, vehicle, frame):
    """The BlueROV2 (ArduSub's vectored frame) and the Heavy (vectored 6DOF) start 3 m down facing
    east (heading 90°); asked for 2 m and heading 45°, each is within 8 cm and 3° of both (the
    integrators hunt across the T200's dead band, ±28 µs about 1500), level within 2°, over the last
    20 s of 60."""
    world = built / "worlds" / "open_water.xml" if vehicle == "bluerov2" else heavy_world
    ctl = DepthHeading(frame, depth0=3.0, depth=2.0, heading=math.radians(45.0))
    log = fly(world, vehicle, ctl, 60.0)
    tail = log[-20 * RATE:]
    depth = np.array([3.0 + a.position[2] for a in tail])
    att = np.array([_euler(a.quaternion) for a in tail])
    assert np.abs(depth - 2.0).max() < 0.08, (depth.min(), depth.max())
    assert np.degrees(np.abs(att[:, 2] - math.radians(45.0))).max() < 3.0, np.degrees(att[:, 2]).min()
    assert np.degrees(np.abs(att[:, :2])).max() < 2.0
    # ArduPilot's IMU reads the vehicle at rest: specific force g up (FRD z −9.81), no rotation
    last = tail[-1]
    assert last.accel_body == pytest.approx([0.0, 0.0, -9.81], abs=0.05)
    assert np.abs(last.gyro).max() < 0.01


class Waypoint:
    """ArduRover-like skid steering to a point: steering (centidegrees, > 0 right) from the bearing
    error, throttle (%) from the distance, stopping within 1.5 m; mixed by ap_mix.skid_mix with the
    BlueBoat's MOT_THST_ASYM 1.6 onto SERVO1 (throttle right, 74) and SERVO3 (throttle left, 73)."""

    def __init__(self, north, east):
        self.target = (north, east)

    def __call__(self, a):
        n, e, _ = a.position
        _, _, yaw = _euler(a.quaternion)
        dn, de = self.target[0] - n, self.target[1] - e
        dist = math.hypot(dn, de)
        err = _wrap(math.atan2(de, dn) - yaw)
        steering = 4500.0 * _clip(1.5 * err - 0.5 * a.gyro[2])
        throttle = 0.0 if dist < 1.5 else _clip(20.0 * dist, 0.0, 60.0) * max(0.0, math.cos(err))
        left, right = ap_mix.skid_mix(throttle, steering, thst_asym=1.6)
        pwm = [1500] * 8
        pwm[2], pwm[0] = left, right  # SERVO3 = throttle left, SERVO1 = throttle right
        return pwm


def test_the_boat_drives_to_a_waypoint(built):
    """The BlueBoat starts at the surface facing east; sent to a point 15 m north and 15 m east, it
    turns to port, arrives within 2 m in 60 s and stops there; its echosounder (rng_1) reads the
    seabed 30 m down less its own depth under the surface."""
    world = built / "worlds" / "open_water.xml"
    log = fly(world, "blueboat", Waypoint(15.0, 15.0), 60.0)
    end = log[-1]
    assert math.hypot(end.position[0] - 15.0, end.position[1] - 15.0) < 2.0, end.position
    assert math.hypot(*end.velocity[:2]) < 0.3, end.velocity
    # it turned to port first (heading falls from 90° towards the 45° bearing)
    assert _euler(log[2 * RATE].quaternion)[2] < math.radians(85.0)
    # the echosounder: the seabed plane's height and the beam's offset from the root link, from the
    # compiled world (MuJoCo's kinematics at the start, level); the boat's depth from the reply
    import mujoco

    m = mujoco.MjModel.from_xml_path(str(world))
    d = mujoco.MjData(m)
    mujoco.mj_kinematics(m, d)
    seabed = d.geom_xpos[mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_GEOM, "seabed")][2]
    base = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, "blueboat/base_link")
    beam = d.site_xpos[mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_SITE, "blueboat/ping_beam")][2] - d.xpos[base][2]
    z_beam = d.xpos[base][2] - end.position[2] + beam
    assert end.rng[0] == pytest.approx(z_beam - seabed, abs=0.01), (end.rng, z_beam, seabed)
