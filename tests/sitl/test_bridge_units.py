"""The bridge's pure pieces (aurgen.runtime.sitl) against independent references: scipy's rotations
for the frames, numpy's interpolation for the thrust curve, closed forms for the IMU (a body at rest
reads −g up, a body in free fall reads nothing), and the packet layout as ArduPilot's struct has it
(libraries/SITL/SIM_JSON.h: servo_packet_16/32, packed)."""
from __future__ import annotations

import json
import math
import struct

import mujoco
import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from aurgen.runtime.sitl import bridge as brmod
from aurgen.runtime.sitl import frames, lockstep, measure, protocol, thrust
from aurgen.runtime.sitl import rig as rigmod

ENU_TO_NED = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, -1.0]])
FLU_TO_FRD = np.diag([1.0, -1.0, -1.0])


def _wxyz(r: Rotation) -> np.ndarray:
    x, y, z, w = r.as_quat()
    q = np.array([w, x, y, z])
    return -q if q[0] < 0 else q


# ------------------------------------------------------------------ frames
def test_the_attitude_is_the_rotation_matrices_product():
    """q_NED,FRD is the quaternion of P·R·F (P: ENU to NED, F: FRD to FLU), by scipy, for random attitudes."""
    rng = np.random.default_rng(7)
    for _ in range(200):
        r = Rotation.random(random_state=rng)
        q = _wxyz(r)
        want = _wxyz(Rotation.from_matrix(ENU_TO_NED @ r.as_matrix() @ FLU_TO_FRD))
        assert np.allclose(frames.attitude_ned(tuple(q)), want, atol=1e-14, rtol=0)


@pytest.mark.parametrize("enu_yaw, heading", [(0.0, 90.0), (90.0, 0.0), (180.0, 270.0), (-90.0, 180.0)])
def test_headings(enu_yaw, heading):
    """A level vehicle facing east (ENU yaw 0) reads heading 90° in NED, facing north 0°."""
    q = _wxyz(Rotation.from_euler("z", enu_yaw, degrees=True))
    q_ned = frames.attitude_ned(tuple(q))
    yaw, pitch, roll = Rotation.from_quat([*q_ned[1:], q_ned[0]]).as_euler("ZYX", degrees=True)
    assert (yaw - heading) % 360.0 == pytest.approx(0.0, abs=1e-9) or (yaw - heading) % 360.0 == pytest.approx(360.0)
    assert abs(pitch) < 1e-9 and abs(roll) < 1e-9


def test_roll_and_pitch_signs():
    """Starboard down is positive roll, nose up positive pitch (aviation's FRD convention): in FLU,
    starboard down is a positive turn about x, nose up a negative turn about y."""
    for axis, angle, which in (("x", 20.0, 2), ("y", -15.0, 1)):
        q = _wxyz(Rotation.from_euler(axis, angle, degrees=True))
        q_ned = frames.attitude_ned(tuple(q))
        e = Rotation.from_quat([*q_ned[1:], q_ned[0]]).as_euler("ZYX", degrees=True)
        assert e[which] == pytest.approx(abs(angle), abs=1e-9), (axis, e)


# ------------------------------------------------------------------ the packet
def test_servo_packet_layout():
    """ArduPilot's packed structs: uint16 magic, uint16 frame_rate, uint32 frame_count, uint16 pwm[16|32]."""
    pwm = tuple(range(1100, 1116))
    raw = struct.pack("<HHI16H", 18458, 400, 123456, *pwm)
    assert len(raw) == 40
    p = protocol.decode(raw)
    assert (p.frame_rate, p.frame_count, p.pwm, p.dt) == (400, 123456, pwm, 1 / 400)
    raw32 = struct.pack("<HHI32H", 29569, 1000, 7, *range(1000, 1032))
    assert len(raw32) == 72 and protocol.decode(raw32).pwm == tuple(range(1000, 1032))
    assert protocol.encode(p) == raw


@pytest.mark.parametrize("raw, why", [
    (b"", "shorter than the magic"),
    (b"garbage!", "magic"),
    (struct.pack("<HHI15H", 18458, 400, 1, *[1500] * 15), "40 bytes"),
    (struct.pack("<HHI16H", 29569, 400, 1, *[1500] * 16), "72 bytes"),
    (struct.pack("<HHI16H", 18458, 0, 1, *[1500] * 16), "frame rate 0"),
    (struct.pack("<HHI16H", 18458, 400, 1, *[1500] * 16) + b"\0", "41 bytes"),
])
def test_what_is_no_servo_packet(raw, why):
    with pytest.raises(protocol.PacketRefused, match=why):
        protocol.decode(raw)


def _fdm(**kw):
    base = dict(timestamp=1.25, gyro=(0.1, -0.2, 0.3), accel_body=(0.0, 0.0, -9.81), position=(1.0, 2.0, -3.0),
                velocity=(0.5, 0.0, -0.25), quaternion=(1.0, 0.0, 0.0, 0.0))
    base.update(kw)
    return protocol.Fdm(**base)


def test_the_reply_is_one_json_object_between_newlines():
    out = protocol.reply(_fdm(rng=(4.5, 1000.0)))
    assert out.startswith(b"\n{") and out.endswith(b"}\n") and out.count(b"\n") == 2
    doc = json.loads(out)
    assert doc == {"timestamp": 1.25, "imu": {"gyro": [0.1, -0.2, 0.3], "accel_body": [0.0, 0.0, -9.81]},
                   "position": [1.0, 2.0, -3.0], "quaternion": [1.0, 0.0, 0.0, 0.0],
                   "velocity": [0.5, 0.0, -0.25], "rng_1": 4.5, "rng_2": 1000.0}
    # lossless: each float is its shortest round-trip text
    x = 0.1 + 0.2
    assert json.loads(protocol.reply(_fdm(timestamp=x)))["timestamp"] == x
    assert b"np.float64" not in protocol.reply(_fdm(timestamp=np.float64(2.5)))


def _python_reply(fdm) -> bytes:
    """The reply as Python's own %r writes it (the text the bridge wrote before the compiled core did)."""
    fmt = ('\n{"timestamp":%r,"imu":{"gyro":[%r, %r, %r],"accel_body":[%r, %r, %r]},"position":[%r, %r, %r],'
           '"quaternion":[%r, %r, %r, %r],"velocity":[%r, %r, %r]')
    v = tuple(map(float, (fdm.timestamp, *fdm.gyro, *fdm.accel_body, *fdm.position, *fdm.quaternion,
                          *fdm.velocity, *fdm.rng)))
    text = fmt % v[:17] + "".join(',"rng_%d":%r' % (i + 1, r) for i, r in enumerate(v[17:]))
    return (text + "}\n").encode("ascii")


def _doubles(rng, n: int) -> list:
    """Finite doubles of every kind: random bit patterns (subnormals, huge and tiny exponents), the
    range a state has, whole numbers, and the edges of repr's fixed and exponent forms."""
    out = [0.0, -0.0, 1.0, 0.1, 0.1 + 0.2, 1e16, 1e15, 9999999999999998.0, 1e-4, 1e-5, 9.999999999999999e-5,
           5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 1e22, 1e23, 123456789012345678.0, -9.81]
    with np.errstate(invalid="ignore"):  # a NaN bit pattern among them (left out below)
        bits = rng.integers(0, 2**63, n, dtype=np.int64).view(np.float64) * rng.choice([-1.0, 1.0], n)
    out += [float(x) for x in bits if math.isfinite(x)]
    out += [float(x) for x in rng.uniform(-10, 10, n) * 10.0 ** rng.integers(-9, 21, n)]
    out += [float(x) for x in rng.integers(-10**6, 10**6, n) / rng.choice([1, 2, 8, 10, 1000], n)]
    return out


def test_the_compiled_numbers_are_pythons_repr():
    """``_native.repr_double`` (core/json_number.cc, std::to_chars) writes every double as repr does:
    the same shortest digits and the same switch to the exponent form."""
    from aurgen.runtime import _native
    xs = _doubles(np.random.default_rng(7), 100_000)
    assert [x for x in xs if _native.repr_double(x) != repr(x)] == []
    with pytest.raises(ValueError, match="finite"):
        _native.repr_double(math.inf)


def test_the_reply_is_the_text_pythons_repr_writes():
    """The compiled reply, byte for byte the %r format over random states, with and without rangefinders."""
    rng = np.random.default_rng(11)
    xs = _doubles(rng, 3000)
    for k in range(0, len(xs) - 19, 19):
        v = xs[k:k + 19]
        fdm = protocol.Fdm(v[0], tuple(v[1:4]), tuple(v[4:7]), tuple(v[7:10]), tuple(v[14:17]), tuple(v[10:14]),
                           tuple(v[17:17 + k % 3]))
        assert protocol.reply(fdm) == _python_reply(fdm)


def test_a_non_finite_state_is_no_reply():
    with pytest.raises(ValueError, match="non-finite"):
        protocol.reply(_fdm(velocity=(math.nan, 0.0, 0.0)))


# ------------------------------------------------------------------ thrust
CURVE = np.array([[1100, -39.9], [1300, -16.0], [1472, 0.0], [1528, 0.0], [1700, 20.0], [1900, 51.5]], float)


def test_thrust_is_the_curve_interpolated():
    pw, th = tuple(CURVE[:, 0]), tuple(CURVE[:, 1])
    rng = np.random.default_rng(3)
    for p in rng.uniform(1100, 1900, 500):
        assert thrust.thrust(pw, th, p) == pytest.approx(np.interp(p, CURVE[:, 0], CURVE[:, 1]), abs=1e-12)
    assert thrust.thrust(pw, th, 1500) == 0.0
    assert thrust.thrust(pw, th, 1000) == -39.9 and thrust.thrust(pw, th, 2000) == 51.5  # the ESC saturates
    for p in (0, 799, 2201, 65535):  # not driven, or no ESC command: no thrust
        assert thrust.thrust(pw, th, p) == 0.0


@pytest.mark.parametrize("ids", [[3, 4, 5, 6, 7, 8], [0], [5, 2, 9], [1, 2, 4], []])
def test_the_ctrl_index_sets_each_actuator(ids):
    """thrust.ctrl_index: one assignment sets each actuator to its own value, as one at a time does."""
    values = [10.0 + k for k in range(len(ids))]
    got, want = np.zeros(12), np.zeros(12)
    got[thrust.ctrl_index(iter(ids))] = values
    for a, v in zip(ids, values):
        want[a] = v
    assert got.tolist() == want.tolist()


@pytest.mark.parametrize("data, why", [([1100, 1.0, 1900], "pairs"), ([1100, 1.0], "pairs"),
                                       ([1900, 1.0, 1100, 2.0], "ascending"), ([1100, math.nan, 1900, 1.0], "finite")])
def test_a_bad_curve_is_refused(data, why):
    with pytest.raises(ValueError, match=why):
        thrust.curve_from_numeric(data)


# ------------------------------------------------------------------ lockstep
def test_lockstep_as_ardupilot_counts():
    ls = lockstep.Lockstep()
    seq = [(0, "step"), (1, "step"), (1, "repeat"), (2, "step"), (5, "step"), (5, "repeat"), (0, "reset"),
           (1, "step")]
    assert [ls.action(c) for c, _ in seq] == [a for _, a in seq]


# ------------------------------------------------------------------ the IMU, closed forms
ROV = """<mujoco><compiler angle="radian"/><option timestep="0.002" gravity="0 0 -9.81"/><worldbody>
<body name="base_link" pos="0 0 5" euler="{euler}"><freejoint/><inertial pos="0 0 0" mass="10" diaginertia="1 2 3"/>
<geom type="box" size="0.2 0.1 0.1" contype="0" conaffinity="0"/><site name="base_link_imu" pos="0.1 0.05 0.02"/>
<site name="t_thrust"/></body></worldbody>
<actuator><general name="t" site="t_thrust" gear="1 0 0 0 0 0" ctrlrange="-40 50"/></actuator>
<custom><numeric name="aurgen:thrust_curve:t" data="1100 -40 1500 0 1900 50"/>
<numeric name="aurgen:servo_channel:t" data="3"/></custom></mujoco>"""


class _Sim:
    """What the bridge reads of a Simulation: model, data, environment (none: opt.gravity), step, reset."""

    def __init__(self, xml):
        self.model = mujoco.MjModel.from_xml_string(xml)
        self.data = mujoco.MjData(self.model)
        self.environment = None
        mujoco.mj_forward(self.model, self.data)

    def step(self, n):
        mujoco.mj_step(self.model, self.data, nstep=n)

    def reset(self):
        mujoco.mj_resetData(self.model, self.data)


def _bridge(xml):
    sim = _Sim(xml)
    return brmod.Bridge(sim, rigmod.find(sim.model, "test")), sim


def _answer(b, count, pwm=(0,) * 16, rate=400):
    return json.loads(b.answer(protocol.encode(protocol.ServoPacket(rate, count, tuple(pwm)))))


def test_free_fall_reads_no_specific_force_and_thrust_reads_its_acceleration():
    """In vacuum (no environment: the model's gravity) a falling body's accelerometer reads 0; with
    SERVO3 at 1900 µs (50 N on a 10 kg body along its x, facing east) it reads 5 m/s² forward, and
    the NED velocity grows east at the same rate."""
    b, sim = _bridge(ROV.format(euler="0 0 0"))
    r = _answer(b, 0)
    assert np.allclose(r["imu"]["accel_body"], 0.0, atol=1e-9)
    assert r["velocity"] == pytest.approx([0.0, 0.0, 9.81 / 400], abs=1e-12)  # down, after 1/400 s
    pwm = [0] * 16
    pwm[2] = 1900
    r = _answer(b, 1, pwm)
    assert r["imu"]["accel_body"] == pytest.approx([5.0, 0.0, 0.0], abs=1e-9)
    assert r["velocity"][1] == pytest.approx(5.0 / 400, abs=1e-12)  # east
    assert r["timestamp"] == pytest.approx(2 / 400, abs=1e-15)


def test_at_rest_the_accelerometer_reads_g_up():
    """A body held still (gravity off in the model, the bridge's gravity the world's) reads −g on its
    FRD z when level, and the gravity's components when rolled: g·(0, sin φ, cos φ) negated."""
    for roll in (0.0, 0.4):
        xml = ROV.format(euler=f"{roll} 0 0").replace('gravity="0 0 -9.81"', 'gravity="0 0 0"')
        b, sim = _bridge(xml)
        b.gravity = measure.Gravity.__new__(measure.Gravity)
        b.gravity.const, b.gravity.env = (0.0, 0.0, -9.81), None
        r = _answer(b, 0)
        want = [0.0, -9.81 * math.sin(roll), -9.81 * math.cos(roll)]  # "up" leans to the raised (left) side
        assert r["imu"]["accel_body"] == pytest.approx(want, abs=1e-9), roll


def test_spinning_body_gyro_is_frd():
    """ω about the body's FLU z (counter-clockwise seen from above) is a negative FRD yaw rate (a
    spherical inertia: no gyroscopic change of ω over the frame)."""
    b, sim = _bridge(ROV.format(euler="0 0 0").replace('gravity="0 0 -9.81"', 'gravity="0 0 0"')
                     .replace('diaginertia="1 2 3"', 'diaginertia="2 2 2"'))
    sim.data.qvel[3:6] = [0.1, 0.2, 0.3]
    b._start()
    r = _answer(b, 0)
    assert r["imu"]["gyro"] == pytest.approx([0.1, -0.2, -0.3], abs=1e-12)
    # the IMU 0.1, 0.05, 0.02 m off the centre of mass reads the centripetal acceleration ω×(ω×r), to
    # the frame's turn (|ω|·dt: the accelerometer reports the frame's mean, the frame ends turned)
    w, rr = np.array([0.1, 0.2, 0.3]), np.array([0.1, 0.05, 0.02])
    a = np.cross(w, np.cross(w, rr))
    tol = 5 * np.linalg.norm(w) / 400 * np.linalg.norm(a)
    assert r["imu"]["accel_body"] == pytest.approx([a[0], -a[1], -a[2]], abs=tol)


def test_repeat_and_reset():
    """A repeated frame count is the same bytes, not stepped; a count going back resets the world
    and the timestamp with it (ArduPilot prints "Detected physics reset")."""
    b, sim = _bridge(ROV.format(euler="0 0 0"))
    first = b.answer(protocol.encode(protocol.ServoPacket(400, 0, (0,) * 16)))
    second = b.answer(protocol.encode(protocol.ServoPacket(400, 1, (0,) * 16)))
    t = sim.data.time
    assert b.answer(protocol.encode(protocol.ServoPacket(400, 1, (0,) * 16))) == second and sim.data.time == t
    assert b.counts.repeats == 1
    again = b.answer(protocol.encode(protocol.ServoPacket(400, 0, (0,) * 16)))
    assert again == first and b.counts.resets == 1  # the same first frame from the same state
    assert b.answer(b"junk") is None and b.counts.dropped == 1


def test_the_frame_is_split_into_steps_no_longer_than_the_worlds():
    b, sim = _bridge(ROV.format(euler="0 0 0"))
    for rate, n in ((400, 2), (500, 1), (100, 5), (1000, 1), (333, 2)):
        b.answer(protocol.encode(protocol.ServoPacket(rate, b.lockstep.last + 1 if b.lockstep.last is not None else 0,
                                                      (0,) * 16)))
        assert b.substeps == n and sim.model.opt.timestep == pytest.approx(1 / rate / n, rel=1e-15)
        assert sim.model.opt.timestep <= 0.002


def test_a_thruster_on_a_channel_past_the_packet_is_not_driven():
    xml = ROV.format(euler="0 0 0").replace('name="aurgen:servo_channel:t" data="3"',
                                            'name="aurgen:servo_channel:t" data="20"')
    b, sim = _bridge(xml)
    _answer(b, 0, [1900] * 16)
    assert sim.data.ctrl[0] == 0.0
    b.answer(protocol.encode(protocol.ServoPacket(400, 1, (1900,) * 32)))
    assert sim.data.ctrl[0] == 50.0


@pytest.mark.parametrize("edit, why", [
    (('<numeric name="aurgen:servo_channel:t" data="3"/>', ""), "no ArduPilot output"),
    (('data="3"', 'data="33"'), "SERVOn number"),
    (('data="1100 -40 1500 0 1900 50"', 'data="1100 -40 1900"'), "pairs"),
    (('<custom>', '<custom><numeric name="aurgen:thrust_curve:nothere" data="1 2 3 4"/>'), "names no actuator"),
])
def test_a_model_the_bridge_cannot_fly_is_refused(edit, why):
    m = mujoco.MjModel.from_xml_string(ROV.format(euler="0 0 0").replace(*edit))
    with pytest.raises(rigmod.RigError, match=why):
        rigmod.find(m, "test.xml")


def test_no_thrusters_is_refused():
    m = mujoco.MjModel.from_xml_string("<mujoco><worldbody><body><freejoint/><geom size='1'/></body></worldbody></mujoco>")
    with pytest.raises(rigmod.RigError, match="no vehicle with thrust curves"):
        rigmod.find(m, "plain.xml")


# ------------------------------------------------------------------ the reply as ArduPilot reads it
@pytest.mark.parametrize("vectors", ["parse_array", "sscanf"])
def test_arduPilot_reads_every_value_of_the_reply(vectors):
    """Random states through ArduPilot's receive side (ap_json.Receiver: SIM_JSON.cpp's recv_fdm and
    parse_sensors, the current parse_array build and the older sscanf one): each reply accepted, every
    value the double sent, rounded to float32 (the timestamp and position: the double itself), the
    rangefinders included."""
    import ap_json

    rng = np.random.default_rng(11)
    rx = ap_json.Receiver(vectors=vectors)
    t = 0.0
    for i in range(500):
        t += 1 / 400
        v = [tuple(rng.normal(scale=s, size=3)) for s in (1.0, 9.0, 300.0, 3.0)]
        q = tuple(_wxyz(Rotation.random(random_state=rng)))
        fdm = protocol.Fdm(t, v[0], v[1], v[2], v[3], q, tuple(rng.uniform(0, 100, 2)))
        a = rx.feed(protocol.reply(fdm))
        assert a is not None, (rx.rejected, rx.missing)
        assert a.timestamp == t and a.position == fdm.position
        for got, sent in ((a.gyro, fdm.gyro), (a.accel_body, fdm.accel_body), (a.velocity, fdm.velocity),
                          (a.quaternion, fdm.quaternion), (a.rng[:2], fdm.rng)):
            assert np.array_equal(np.float32(got), np.float32(sent)), (got, sent)
        assert not a.physics_reset
