"""``aurgen sitl`` over a real UDP socket, as ArduPilot's JSON backend talks to it
(libraries/SITL/SIM_JSON.cpp; the examples' loop in libraries/SITL/examples/JSON/python/): frames
stepped, a repeated frame answered with the same reply and not stepped, a count going back resetting
the world, anything else dropped and counted, never a crash; the port in use a clear error (exit 2);
Ctrl-C and SIGTERM end with a summary (exit 0)."""
from __future__ import annotations

import json
import signal
import socket
import subprocess

import pytest

import ap_json
from sitl_client import Sitl, aurgen_cmd, clean_env, packet

# a floating box with one thruster on SERVO3 (aurgen's marks: user="1" a displacement geom)
BOAT = """<mujoco model="box_boat"><compiler angle="radian"/><option timestep="0.002"/><worldbody>
<body name="base_link" pos="0 0 0"><freejoint/><inertial pos="0 0 0" mass="20" diaginertia="0.3 0.6 0.8"/>
<geom type="box" size="0.4 0.2 0.1" user="1" contype="0" conaffinity="0"/>
<site name="base_link_imu" pos="0 0 0.05"/><site name="motor_thrust" pos="-0.4 0 0"/></body></worldbody>
<actuator><general name="motor" site="motor_thrust" gear="1 0 0 0 0 0" ctrlrange="-40 50"/></actuator>
<custom><numeric name="aurgen:thrust_curve:motor" data="1100 -40 1470 0 1530 0 1900 50"/>
<numeric name="aurgen:servo_channel:motor" data="3"/></custom></mujoco>"""

NEUTRAL = [1500] * 16


@pytest.fixture()
def boat(tmp_path):
    p = tmp_path / "box_boat.xml"
    p.write_text(BOAT)
    return p


def test_frames_repeats_resets_and_garbage(boat):
    """ArduPilot's packets (ap_json.servo_packet) and its receive side (ap_json.Receiver, SIM_JSON.cpp's
    recv_fdm): every reply accepted; a repeat is the same bytes and ArduPilot's clock does not move; a
    restarted ArduPilot (count 0 again) sees the physics reset ("Detected physics reset") and the same
    first reply; garbage gets no reply; a 32-channel packet is stepped like a 16-channel one."""
    rx = ap_json.Receiver()
    with Sitl(boat) as s:
        first = s.ask(ap_json.servo_packet(400, 0, NEUTRAL))
        assert rx.feed(first).timestamp == pytest.approx(1 / 400, abs=1e-15)
        r1 = s.ask(ap_json.servo_packet(400, 1, NEUTRAL))
        assert rx.feed(r1).timestamp == pytest.approx(2 / 400, abs=1e-15)
        again = s.ask(ap_json.servo_packet(400, 1, NEUTRAL))
        assert again == r1 and rx.feed(again).deltat == 0.0  # repeated: the last reply, not stepped
        assert rx.feed(s.ask(ap_json.servo_packet(400, 2, NEUTRAL))).timestamp == pytest.approx(3 / 400, abs=1e-15)
        assert s.silent(b"\x00" * 40)  # wrong magic
        assert s.silent(ap_json.servo_packet(400, 3, NEUTRAL)[:-2])  # short
        assert s.silent(b"")
        assert s.silent(ap_json.servo_packet(0, 3, NEUTRAL))  # frame rate 0: ArduPilot's examples skip it
        r3 = rx.feed(s.ask(ap_json.servo_packet(400, 3, NEUTRAL, channels=32)))
        assert r3.timestamp == pytest.approx(4 / 400, abs=1e-15)
        # ArduPilot restarted: its count starts again; the world is reset and answers as the first time
        reset = s.ask(ap_json.servo_packet(400, 0, NEUTRAL))
        assert reset == first
        assert rx.feed(reset).physics_reset and "Detected physics reset" in rx.log
        rc, out, err = s.stop()
    assert rc == 0, err
    assert "5 frames" in out and "repeats answered: 1, resets: 1, dropped: 4" in out and "health: ok" in out, out
    assert "Traceback" not in err


def test_thrust_moves_the_boat_forward(boat):
    """SERVO3 at 1900 µs drives the box ahead (east: the box faces world +x) and nothing else does."""
    pwm = list(NEUTRAL)
    pwm[2] = 1900
    with Sitl(boat) as s:
        for i in range(400):
            r = json.loads(s.ask(packet(i, pwm)))
        s.stop()
    north, east, down = r["velocity"]
    assert east > 0.5 and abs(north) < 1e-6 * east, r["velocity"]


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_and_sigterm_end_with_a_summary(boat, sig):
    with Sitl(boat) as s:
        s.ask(packet(0, NEUTRAL))
        rc, out, err = s.stop(sig)
    assert rc == 0 and "1 frames" in out and "health: ok" in out, (rc, out, err)
    assert "Traceback" not in err


def _run(*args, timeout=120):
    return subprocess.run(aurgen_cmd() + ["sitl", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, env=clean_env())


def test_the_port_in_use_is_a_clear_error(boat):
    taken = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    taken.bind(("127.0.0.1", 0))
    try:
        r = _run(boat, "--port", taken.getsockname()[1])
    finally:
        taken.close()
    assert r.returncode == 2, r
    assert "is in use" in r.stderr and "--port" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("args, why", [
    (["--vehicle", "nothere"], "--vehicle nothere: no such vehicle"),
    (["--port", "70000"], "--port 70000"),
    (["--speedup", "0"], "--speedup must be a positive number"),
    (["--water", "-3"], "--water must be a fluid density"),
])
def test_bad_arguments_are_refused(boat, args, why):
    r = _run(boat, *args)
    assert r.returncode == 2 and why in r.stderr and "Traceback" not in r.stderr, r


def test_a_model_with_no_thrusters_is_refused(tmp_path):
    p = tmp_path / "plain.xml"
    p.write_text("<mujoco><worldbody><body><freejoint/><geom size='0.1' user='1'/></body></worldbody></mujoco>")
    r = _run(p)
    assert r.returncode == 2 and "no vehicle with thrust curves" in r.stderr and "aurgen build" in r.stderr, r


def test_a_terminal_gets_a_status_line(boat):
    """With stderr on a terminal (a pty), a status line (frames, simulated time, real-time factor) is
    rewritten in place; on a pipe there is none (the tests above read stderr as a pipe)."""
    import os
    import pty
    import re
    import time

    master, slave = pty.openpty()
    try:
        with Sitl(boat, stderr=slave) as s:
            os.close(slave)
            for i in range(400):
                s.ask(packet(i, NEUTRAL))
            time.sleep(0.7)  # the status line is rewritten twice a second
            for i in range(400, 440):
                s.ask(packet(i, NEUTRAL))
            rc, out, _ = s.stop()
        seen = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
    finally:
        os.close(master)
    text = seen.decode(errors="replace")
    assert "waiting for ArduPilot" in text
    assert re.search(r"\r\x1b\[Kframes \d+  t = \d+\.\d\d s  \d+\.\dx real time", text), text[-500:]
    assert rc == 0 and "440 frames" in out


def test_an_invalid_world_ends_the_run(tmp_path):
    """A thruster of 1e30 N blows the state up: MuJoCo resets it, the health says invalid, and the
    bridge stops answering and exits 1 with the reason (as aurgen sim does)."""
    p = tmp_path / "rocket.xml"
    p.write_text(BOAT.replace('ctrlrange="-40 50"', 'ctrlrange="-1e30 1e30"')
                 .replace('data="1100 -40 1470 0 1530 0 1900 50"', 'data="1100 -1e30 1470 0 1530 0 1900 1e30"'))
    pwm = list(NEUTRAL)
    pwm[2] = 1900
    with Sitl(p) as s:
        s.sock.settimeout(5.0)
        answered = 0
        try:
            for i in range(400):
                s.ask(packet(i, pwm))
                answered += 1
        except socket.timeout:
            pass
        rc, out, err = s.stop()
    assert answered < 400 and rc == 1, (answered, rc, out, err)
    assert "health: invalid" in out and "Traceback" not in err, (out, err)
