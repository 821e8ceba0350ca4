"""The ArduPilot references themselves (tests/sitl/ap_json.py, ap_mix.py) against facts quoted from
ArduPilot's sources, not from aurgen.

Sources (see the modules' docstrings for the functions):
ArduPilot/ardupilot libraries/SITL/examples/JSON/readme.md (commit 045bdf55b47c85e1e5a0290fc5705dd6f23c478f),
libraries/SITL/examples/JSON/python/velocity_controlled_robot.py (commit b6f464f16f8171c81538cf11d7fd8cc180c367ba),
libraries/SITL/SIM_JSON.cpp / SIM_JSON.h (index ids 274968654 / 532160591; the sscanf variant commit
2ebd1127ac11b2a2b02dfabeb9f9e9318170af46), libraries/AP_Motors/AP_Motors6DOF.cpp (commit
0fd5fbf258e877389665051b1f7c7531ac1db76a), libraries/AR_Motors/AP_MotorsUGV.cpp (commit
0264b6719a646bd22e4bbf97c56d9983a68ffc3d), libraries/SRV_Channel/SRV_Channel.h (commit
1db3b3168670b031477598f7e9ef5899e5d74bec), libraries/SRV_Channel/SRV_Channel.cpp (commit
dc5a27d1a33c2bc70b8b178c76d9dff0362e6935).
"""

from __future__ import annotations

import json
import math
import re
import struct
from fractions import Fraction

import numpy as np
import pytest

import ap_json
import ap_mix

# readme.md "SITL input": the example frame, verbatim
README_LINE = ('{"timestamp":2500,"imu":{"gyro":[0,0,0],"accel_body":[0,0,0]},"position":[0,0,0],'
               '"attitude":[0,0,0],"velocity":[0,0,0]}')


def frame(obj, **dumps) -> bytes:
    """A reply framed as the readme asks: preceded and terminated by a newline."""
    text = obj if isinstance(obj, str) else json.dumps(obj, **dumps)
    return ("\n" + text + "\n").encode()


def good(**extra):
    """A complete reply (compact separators, quaternion attitude), keys in the safe order."""
    d = {"timestamp": 1.0, "imu": {"gyro": [0.0, 0.0, 0.0], "accel_body": [0.0, 0.0, -9.80665]},
         "position": [0.0, 0.0, 0.0], "quaternion": [1.0, 0.0, 0.0, 0.0], "velocity": [0.0, 0.0, 0.0]}
    d.update(extra)
    return d


# ---------------------------------------------------------------- the servo packet
def test_packet_sizes_and_magics_are_the_readmes():
    """readme.md: uint16 magic 18458, uint16 frame_rate, uint32 frame_count, uint16 pwm[16]; with
    SERVO_32_ENABLE pwm[32] and magic 29569: 40 and 72 bytes."""
    p16 = ap_json.servo_packet(400, 7, [1500] * 16)
    p32 = ap_json.servo_packet(400, 7, [1500] * 32, channels=32)
    assert (len(p16), len(p32)) == (40, 72)
    assert struct.unpack_from("<H", p16)[0] == 18458 and struct.unpack_from("<H", p32)[0] == 29569


def test_packet_layout_little_endian_without_padding():
    p = ap_json.servo_packet(1200, 0x01020304, [1100, 1900] + [0] * 14)
    assert p[:2] == (18458).to_bytes(2, "little")
    assert p[2:4] == (1200).to_bytes(2, "little")
    assert p[4:8] == bytes([4, 3, 2, 1])          # uint32 at offset 4
    assert p[8:10] == (1100).to_bytes(2, "little") and p[10:12] == (1900).to_bytes(2, "little")
    assert p[12:] == bytes(28)                    # the undriven channels are 0
    assert ap_json.read_servo_packet(p) == (18458, 1200, 0x01020304, (1100, 1900) + (0,) * 14)


def test_packet_refuses_what_sim_json_cannot_send():
    with pytest.raises(ValueError):
        ap_json.servo_packet(400, 0, [1500] * 8, channels=8)
    with pytest.raises(ValueError):
        ap_json.servo_packet(400, 0, [1500] * 17)
    with pytest.raises(ValueError):
        ap_json.read_servo_packet(bytes(41))


# ---------------------------------------------------------------- the reply
def test_readme_example_line_is_accepted():
    r = ap_json.Receiver()
    a = r.feed(frame(README_LINE))
    assert a is not None and r.frame_counter == 1
    assert a.timestamp == 2500.0 and a.attitude == (0.0, 0.0, 0.0) and a.quaternion is None
    # readme "Debugging": the fields reported for such a frame (it adds rng_1, sent below)
    assert a.received == ["timestamp", "imu.gyro", "imu.accel_body", "position", "attitude", "velocity"]
    b = r.feed(frame(README_LINE[:-1] + ',"rng_1":1.5}'))
    assert b.received[-1] == "rng_1" and b.rng[0] == 1.5


def test_only_the_text_between_the_last_two_newlines_is_parsed():
    r = ap_json.Receiver()
    # without the leading newline the first reply has one NUL only: nothing parsed, nothing dropped
    assert r.feed((README_LINE + "\n").encode()) is None and r.frame_counter == 0
    assert r.rejected == "fewer than two newlines in the buffer"
    # the next one completes the pair: the second line is parsed, the first is dropped
    a = r.feed((README_LINE.replace("2500", "2501") + "\n").encode())
    assert a is not None and a.timestamp == 2501.0 and bytes(r.buffer) == b"\0"
    # two complete lines in one datagram: the last one wins
    two = "\n" + README_LINE.replace("2500", "2502") + "\n" + README_LINE.replace("2500", "2503") + "\n"
    a = r.feed(two.encode())
    assert a.timestamp == 2503.0 and r.frame_counter == 2
    # a line split over two datagrams is joined in the buffer (the previous line's NUL opens it)
    line = README_LINE.replace("2500", "2504")
    assert r.feed(line[:40].encode()) is None and r.frame_counter == 2
    a = r.feed((line[40:] + "\n").encode())
    assert a is not None and a.timestamp == 2504.0 and r.frame_counter == 3


def test_a_missing_mandatory_key_leaves_the_frame_unapplied_and_the_buffer_as_it_is():
    r = ap_json.Receiver()
    bad = good()
    del bad["velocity"]
    assert r.feed(frame(bad, separators=(",", ":"))) is None
    assert r.missing == "velocity" and r.frame_counter == 0
    assert "Failed to find key /velocity" in r.log and "Did not contain all mandatory fields" in r.log
    assert r.buffer.count(b"\0") == 2              # nothing removed: the rejected line stays
    # the keys before the missing one were written to the state all the same (not applied)
    assert r.state["timestamp"] == 1.0
    a = r.feed(frame(good(timestamp=2.0), separators=(",", ":")))
    assert a is not None and r.frame_counter == 1 and a.deltat == 2.0
    # each of the four mandatory keys stops the frame; attitude/quaternion are "one of"
    for key in ("timestamp", "velocity"):
        d = good()
        del d[key]
        r2 = ap_json.Receiver()
        assert r2.feed(frame(d)) is None and r2.missing == key
    d = good()
    d["imu"] = {"gyro": [0, 0, 0]}
    r2 = ap_json.Receiver()
    assert r2.feed(frame(d)) is None and r2.missing == "imu.accel_body"
    d = good()
    del d["quaternion"]
    r2 = ap_json.Receiver()
    assert r2.feed(frame(d)) is None and r2.rejected == "neither attitude nor quaternion"
    assert ap_json.MANDATORY == ("timestamp", "imu.gyro", "imu.accel_body", "velocity")


def test_position_is_optional_in_the_current_keytable():
    d = good()
    del d["position"]
    r = ap_json.Receiver()
    a = r.feed(frame(d))
    assert a is not None and a.position == (0.0, 0.0, 0.0) and "position" not in a.received


def test_rejected_replies_fill_the_buffer_until_sitl_stalls():
    """Nothing is removed while replies are rejected: after about 65,000 bytes of them the recv has no
    room left (0 bytes: ArduPilot loops, resending the servo packet)."""
    r = ap_json.Receiver()
    bad = frame({"timestamp": 1.0, "pad": "x" * 900})
    n = 0
    while not r.stalled and n < 200:
        r.feed(bad)
        n += 1
    assert r.stalled and 65000 // len(bad) <= n <= 65000 // len(bad) + 2
    assert r.feed(frame(good())) is None and r.frame_counter == 0


def test_velocity_wind_before_velocity_is_read_as_the_velocity():
    """strstr finds the first "velocity": with velocity_wind first, the vehicle's velocity becomes the
    wind's. Emit velocity first."""
    wind, vel = [3.2, 0.0, -0.7], [1.0, 2.0, 3.0]
    base = good()
    del base["velocity"]
    wrong = dict(base, velocity_wind=wind, velocity=vel)
    right = dict(base, velocity=vel, velocity_wind=wind)
    a = ap_json.Receiver().feed(frame(wrong, separators=(",", ":")))
    b = ap_json.Receiver().feed(frame(right, separators=(",", ":")))
    f32 = [float(np.float32(v)) for v in wind]
    assert a.velocity == tuple(f32) and b.velocity == tuple(vel)
    # the same trap with rc: "rc_1" is found inside "rc_10" when rc_10 comes first
    st = ap_json.new_state()
    ap_json.parse_sensors('{"timestamp":1,"imu":{"gyro":[0,0,0],"accel_body":[0,0,0]},"velocity":[0,0,0],'
                          '"rc":{"rc_10":1900,"rc_1":1100}}', st)
    assert st["rc.rc_1"] == 0.0  # strstr("rc_1") hits "rc_10", skips 6 chars -> atof("\":1900...") = 0


def test_separators_and_spaces():
    """Current builds (parse_array) read json.dumps' default ", " / ": " and compact output alike;
    the older sscanf builds need '[' right after the colon: the readme's compact form."""
    robot = {"timestamp": 0.0025, "imu": {"gyro": [0.0, 0.0, 0.5], "accel_body": [0.1, 0.2, -9.80665]},
             "position": [1.0, 2.0, 0.0], "attitude": [0.0, 0.0, 0.3], "velocity": [0.5, 0.25, 0.0]}
    spaced = frame(robot)                            # velocity_controlled_robot.py: json.dumps(state)
    compact = frame(robot, separators=(",", ":"))
    for data in (spaced, compact):
        a = ap_json.Receiver().feed(data)
        assert a is not None and a.gyro == (0.0, 0.0, 0.5) and a.velocity == (0.5, 0.25, 0.0)
    old = ap_json.Receiver(vectors="sscanf")
    assert old.feed(spaced) is None and "Failed to parse Vector3f for imu/gyro" in old.log
    assert ap_json.Receiver(vectors="sscanf").feed(compact) is not None
    # a space before the colon: the skip lands on ':' and atof reads nothing -> timestamp 0
    st = ap_json.new_state()
    ap_json.parse_sensors('{"timestamp" : 12.5,"imu":{"gyro":[0,0,0],"accel_body":[0,0,0]},"velocity":[0,0,0]}', st)
    assert st["timestamp"] == 0.0


def test_booleans():
    """no_time_sync / no_lockstep: "true"/"false" only right after the colon, else strtoull != 0."""
    def read(text):
        st = ap_json.new_state()
        ap_json.parse_sensors('{"timestamp":1,"imu":{"gyro":[0,0,0],"accel_body":[0,0,0]},"velocity":[0,0,0],'
                              + text + "}", st)
        return st["no_time_sync"]
    assert read('"no_time_sync":true') is True and read('"no_time_sync":TRUE') is True
    assert read('"no_time_sync":false') is False
    assert read('"no_time_sync":1') is True and read('"no_time_sync":0') is False
    assert read('"no_time_sync": true') is False     # json.dumps' ": " -> strtoull(" true") = 0
    assert read('"no_time_sync": 1') is True          # strtoull skips the space
    r = ap_json.Receiver()
    a = r.feed(frame(good(no_time_sync=1), separators=(",", ":")))
    assert a.use_time_sync is False and "Forcing use_time_sync=0" in r.log
    a = r.feed(frame(good(timestamp=2.0), separators=(",", ":")))
    assert a.use_time_sync is False                   # not sent: the setting stays


def test_physics_reset_and_time():
    r = ap_json.Receiver()
    a = r.feed(frame(good(timestamp=1.0)))
    b = r.feed(frame(good(timestamp=1.0025)))
    c = r.feed(frame(good(timestamp=0.5)))
    assert not b.physics_reset and math.isclose(b.deltat, 0.0025, rel_tol=1e-12)
    assert c.physics_reset and c.deltat == 0.0 and "Detected physics reset" in r.log
    assert r.frame_counter == 3                       # a reset frame is still a frame
    assert r.time_now_us == int(float(int(1.0e6)) + (1.0025 - 1.0) * 1e6)
    d = r.feed(frame(good(timestamp=0.5025)))
    assert not d.physics_reset and math.isclose(d.deltat, 0.0025, rel_tol=1e-9)


def test_rangefinders():
    """-1 until sent (SIM_Aircraft.cpp: "-1 to signify no data"), then the value as sent, negative
    included; not sent again: the last value stays."""
    r = ap_json.Receiver()
    assert r.feed(frame(good())).rng == (-1.0,) * 6
    rng = r.feed(frame(good(timestamp=2.0, rng_1=2.5, rng_3=0.1))).rng
    assert rng == (2.5, -1.0, float(np.float32(0.1)), -1.0, -1.0, -1.0)
    assert r.feed(frame(good(timestamp=3.0))).rng[0] == 2.5
    assert r.feed(frame(good(timestamp=4.0, rng_1=-1))).rng[0] == -1.0


def test_quaternion_wins_and_attitude_is_the_fallback():
    r = ap_json.Receiver()
    a = r.feed(frame(good(attitude=[0.1, 0.2, 0.3], quaternion=[0.5, 0.5, 0.5, 0.5])))
    assert a.quaternion == (0.5, 0.5, 0.5, 0.5) and a.attitude is None
    d = good(attitude=[0.1, 0.2, 0.3])
    del d["quaternion"]
    a = ap_json.Receiver().feed(frame(d))
    assert a.quaternion is None and a.attitude == tuple(float(np.float32(v)) for v in (0.1, 0.2, 0.3))


def test_numbers_are_parsed_as_c_does():
    # doubles stay doubles; Vector3f and float fields are rounded to float32; position is double
    st = ap_json.new_state()
    ap_json.parse_sensors('{"timestamp":0.1,"imu":{"gyro":[0.1,-0.2,1e-3],"accel_body":[0,0,-9.80665]},'
                          '"position":[0.1,0.2,0.3],"velocity":[0,0,0],"airspeed":0.1}', st)
    assert st["timestamp"] == 0.1 and st["position"] == [0.1, 0.2, 0.3]
    assert st["imu.gyro"] == [float(np.float32(0.1)), float(np.float32(-0.2)), float(np.float32(1e-3))]
    assert st["airspeed"] == float(np.float32(0.1)) != 0.1
    # parse_array skips anything but '-' and digits: ".5" reads as 5, "+1" as 1, NaN is skipped
    assert ap_json.parse_array(b"[.5, +1, 2]", 0, 3, True) == [5.0, 1.0, 2.0]
    assert ap_json.parse_array(b"[NaN, 0.0, 1.0]", 0, 3, True) is None
    assert ap_json.parse_array(b"[1, 2]", 0, 3, True) is None
    # atof: strtod's prefix, white space skipped, nothing -> 0
    assert ap_json.atof(b"  -1.5e2xyz") == -150.0 and ap_json.atof(b":1") == 0.0 and ap_json.atof(b"1e") == 1.0
    # sscanf %f rounds once to float; atof-then-float rounds twice: the value just above the
    # midpoint between 1 and the next float goes up with %f and to even (1.0) through a double
    x = Fraction(1) + Fraction(1, 2 ** 24) + Fraction(1, 2 ** 60)
    text = format(x.numerator * 10 ** 60 // x.denominator, "d")
    text = text[0] + "." + text[1:]
    assert Fraction(text) <= x and x - Fraction(text) < Fraction(1, 10 ** 59)
    assert ap_json.strtof_exact(text.encode()) == 1.0 + 2.0 ** -23
    assert ap_json.f32(ap_json.atof(text.encode())) == 1.0
    assert ap_json.sscanf_floats(("[" + text + ", 0, 0]").encode(), 0, 3)[0] == 1.0 + 2.0 ** -23
    assert ap_json.parse_array(("[" + text + ", 0, 0]").encode(), 0, 3, True)[0] == 1.0


def test_keytable_order_and_bits():
    """SIM_JSON.h: 36 keys; DataKey TIMESTAMP 1<<0, GYRO 1<<4, POSITION 1<<6, EULER_ATT 1<<7,
    QUAT_ATT 1<<8, VELOCITY 1<<9, RNG_1 1<<10, TIME_SYNC 1<<20, LOCKSTEP 1<<21, BAT_AMP 1<<35."""
    assert (ap_json.TIMESTAMP, ap_json.GYRO, ap_json.POSITION) == (1, 1 << 4, 1 << 6)
    assert (ap_json.EULER_ATT, ap_json.QUAT_ATT, ap_json.VELOCITY, ap_json.RNG[0]) == (1 << 7, 1 << 8, 1 << 9, 1 << 10)
    assert (ap_json.TIME_SYNC, ap_json.LOCKSTEP, ap_json.BIT["battery.current"]) == (1 << 20, 1 << 21, 1 << 35)


# ---------------------------------------------------------------- ArduSub
# AP_Motors6DOF.cpp setup_motors (commit 0fd5fbf2), the lines verbatim:
#   Motor #  Roll  Pitch  Yaw  Throttle  Forward  Lateral  Testing Order
SOURCE_FACTORS = {
    1: """
        add_motor_raw_6dof(AP_MOTORS_MOT_1,     0,              0,              1.0f,           0,                  -1.0f,              1.0f,           1);
        add_motor_raw_6dof(AP_MOTORS_MOT_2,     0,              0,              -1.0f,          0,                  -1.0f,              -1.0f,          2);
        add_motor_raw_6dof(AP_MOTORS_MOT_3,     0,              0,              -1.0f,          0,                  1.0f,               1.0f,           3);
        add_motor_raw_6dof(AP_MOTORS_MOT_4,     0,              0,              1.0f,           0,                  1.0f,               -1.0f,          4);
        add_motor_raw_6dof(AP_MOTORS_MOT_5,     1.0f,           0,              0,              -1.0f,              0,                  0,              5);
        add_motor_raw_6dof(AP_MOTORS_MOT_6,     -1.0f,          0,              0,              -1.0f,              0,                  0,              6);
""",
    2: """
        add_motor_raw_6dof(AP_MOTORS_MOT_1,     0,              0,              1.0f,           0,                  -1.0f,              1.0f,           1);
        add_motor_raw_6dof(AP_MOTORS_MOT_2,     0,              0,              -1.0f,          0,                  -1.0f,              -1.0f,          2);
        add_motor_raw_6dof(AP_MOTORS_MOT_3,     0,              0,              -1.0f,          0,                  1.0f,               1.0f,           3);
        add_motor_raw_6dof(AP_MOTORS_MOT_4,     0,              0,              1.0f,           0,                  1.0f,               -1.0f,          4);
        add_motor_raw_6dof(AP_MOTORS_MOT_5,     1.0f,           -1.0f,          0,              -1.0f,              0,                  0,              5);
        add_motor_raw_6dof(AP_MOTORS_MOT_6,     -1.0f,          -1.0f,          0,              -1.0f,              0,                  0,              6);
        add_motor_raw_6dof(AP_MOTORS_MOT_7,     1.0f,           1.0f,           0,              -1.0f,              0,                  0,              7);
        add_motor_raw_6dof(AP_MOTORS_MOT_8,     -1.0f,          1.0f,           0,              -1.0f,              0,                  0,              8);
""",
}


@pytest.mark.parametrize("frame_config", [1, 2])
def test_factor_table_is_the_sources(frame_config):
    rows = re.findall(r"AP_MOTORS_MOT_(\d+),(.*)\);", SOURCE_FACTORS[frame_config])
    quoted = {int(k): tuple(float(v.strip().rstrip("f")) for v in rest.split(",") if v.strip()) for k, rest in rows}
    ours = ap_mix.sub_factors(frame_config)
    assert sorted(quoted) == sorted(ours)
    for k, vals in quoted.items():
        assert tuple(ours[k][a] for a in ap_mix.AXES + ("order",)) == vals


def test_thrust_to_pwm():
    """calc_thrust_to_pwm: 1500 + 400 t, truncated toward zero, clamped to 1100..1900."""
    assert [ap_mix.sub_pwm(t) for t in (-1, -0.5, 0, 0.5, 1)] == [1100, 1300, 1500, 1700, 1900]
    assert ap_mix.sub_pwm(0.0012) == 1500 and ap_mix.sub_pwm(-0.0012) == 1499
    assert ap_mix.sub_pwm(1.5) == 1900 and ap_mix.sub_pwm(-2) == 1100


def test_vectored_mixer():
    # pure demands: each motor gets factor × demand; yaw on the four horizontals
    assert ap_mix.sub_mix(1, yaw=0.5) == [1700, 1300, 1300, 1700, 1500, 1500]
    assert ap_mix.sub_mix(1, throttle=0.5) == [1500] * 4 + [1300, 1300]
    assert ap_mix.sub_mix(1, roll=0.25) == [1500] * 4 + [1600, 1400]
    assert ap_mix.sub_mix(1, pitch=1.0) == [1500] * 6           # no pitch authority in FRAME_CONFIG 1
    # the sum is clipped per motor to [-1, 1], not normalised
    assert ap_mix.sub_thrust(1, yaw=0.8, forward=0.8) == pytest.approx([-0.0, -1.0, 0.0, 1.0, 0, 0], abs=1e-6)
    # MOT_FV_CPLNG_K (1.0): full throttle removes forward thrust from the motors leading the motion
    assert ap_mix.sub_thrust(1, throttle=1.0, forward=1.0) == [-1.0, -1.0, 0.0, 0.0, -1.0, -1.0]
    assert ap_mix.sub_thrust(1, throttle=1.0, forward=-1.0) == [0.0, 0.0, -1.0, -1.0, -1.0, -1.0]
    assert ap_mix.sub_thrust(1, throttle=1.0, forward=1.0, fv_coupling=0.0) == [-1.0, -1.0, 1.0, 1.0, -1.0, -1.0]
    # MOT_n_DIRECTION -1 flips that motor only
    assert ap_mix.sub_mix(1, yaw=0.5, direction=[1, -1, 1, 1, 1, 1]) == [1700, 1700, 1300, 1700, 1500, 1500]


def test_vectored_6dof_mixer_normalises_each_group_when_saturated():
    # roll + throttle: the vertical group divided by its largest |value| (2)
    assert ap_mix.sub_thrust(2, roll=1.0, throttle=1.0)[4:] == [0.0, -1.0, 0.0, -1.0]
    assert ap_mix.sub_thrust(2, roll=0.5, throttle=0.25)[4:] == [0.25, -0.75, 0.25, -0.75]  # not saturated
    # the horizontal group independently: yaw + forward on motor 4 = 2 -> 1, motor 1 = 0
    assert ap_mix.sub_thrust(2, yaw=1.0, forward=1.0)[:4] == [0.0, -1.0, 0.0, 1.0]
    assert ap_mix.sub_mix(2, pitch=0.5) == [1500] * 4 + [1300, 1300, 1700, 1700]


# ---------------------------------------------------------------- ArduRover
def test_servo_function_numbers():
    """SRV_Channel.h: k_motor1 = 33 ... k_motor8 = 40, k_throttleLeft = 73, k_throttleRight = 74."""
    assert (ap_mix.K_MOTOR1, ap_mix.K_THROTTLE_LEFT, ap_mix.K_THROTTLE_RIGHT) == (33, 73, 74)


def test_pwm_from_angle():
    """SRV_Channel::pwm_from_angle with SERVOn 1100/1900/1500 and the skid outputs' range 1000."""
    assert [ap_mix.pwm_from_angle(v) for v in (-1000, -500, 0, 500, 1000, 2000)] == [1100, 1300, 1500, 1700, 1900, 1900]
    assert ap_mix.pwm_from_angle(1.9) == 1500 and ap_mix.pwm_from_angle(-1.9) == 1500   # uint16 truncation
    assert ap_mix.pwm_from_angle(3.0) == 1501 and ap_mix.pwm_from_angle(-3.0) == 1499
    assert ap_mix.pwm_from_angle(500, reversed_=True) == 1300


def test_skid_mixer_without_asymmetry():
    """MOT_THST_ASYM 1: left = throttle + steering, right = throttle - steering (scaled to ±1);
    saturation scaled back with STR_THR_MIX 0.5 (fair share)."""
    assert ap_mix.skid_mix(0, 0, thst_asym=1.0) == (1500, 1500)
    assert ap_mix.skid_mix(50, 0, thst_asym=1.0) == (1700, 1700)
    assert ap_mix.skid_mix(-50, 0, thst_asym=1.0) == (1300, 1300)
    assert ap_mix.skid_mix(0, 2250, thst_asym=1.0) == (1700, 1300)     # positive steering: left faster
    assert ap_mix.skid_mix(100, 4500, thst_asym=1.0) == (1900, 1500)   # 1 + 1 scaled back to 0.5 + 0.5
    assert ap_mix.skid_outputs(100, 4500, 1.0) == (1.0, 0.0)


def test_skid_mixer_with_the_blueboats_asymmetry():
    """MOT_THST_ASYM 1.6: reverse limited to -1/1.6 of throttle, negative outputs multiplied by 1.6."""
    assert ap_mix.skid_mix(-50, 0) == (1180, 1180)                  # -0.5 x 1.6 = -0.8
    assert ap_mix.skid_mix(-100, 0) == (1100, 1100)                 # throttle limited to -0.625, x 1.6
    assert ap_mix.skid_mix(0, 4500) == (1750, 1100)                 # steering range 0.625
    left, right = ap_mix.skid_outputs(0, 4500, 1.6)
    assert left == pytest.approx(0.625) and right == pytest.approx(-1.0)
    assert ap_mix.skid_mix(50, 0) == (1700, 1700)                   # forward unchanged


def test_an_empty_line_is_rejected():
    """"\\n\\n" leaves an empty line between the last two NULs: "timestamp" is still found (the empty
    section matches, the skip steps past the NUL into the old bytes), "imu" is not: no frame."""
    r = ap_json.Receiver()
    assert r.feed(frame(good())) is not None
    assert r.feed(b"\n") is None and r.missing == "imu.gyro" and r.frame_counter == 1
    assert r.feed(frame(good(timestamp=2.0))) is not None and r.frame_counter == 2
