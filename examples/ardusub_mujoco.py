"""Flying the BlueROV2 in MuJoCo through ``aurgen sitl``, ArduPilot's JSON SITL link, with a small
Python autopilot standing in for ArduSub.

What it shows: ``aurgen sitl`` is the physics side of ArduPilot's JSON SITL backend
(``libraries/SITL/SIM_JSON.cpp``): each frame ArduPilot sends one binary servo packet over UDP (uint16
magic 18458, uint16 frame rate in Hz, uint32 frame count, 16 x uint16 PWM in µs, little-endian) and
the bridge steps the world by one frame and answers with one JSON line (``timestamp``,
``imu.gyro``/``imu.accel_body`` in body FRD, ``position``/``velocity`` NED from where the vehicle
started, ``quaternion`` w x y z). ArduSub is not installed here, so this script is the other end: a
MINIMAL STAND-IN AUTOPILOT, not ArduSub. It speaks exactly that protocol at ArduSub's 400 Hz loop rate,
holds a depth and a heading with PID loops, mixes the demands onto the six thrusters with ArduSub's
vectored-frame factors (``AP_Motors6DOF::setup_motors``, FRAME_CONFIG 1) and sends each motor's PWM on
the SERVOn output the build's ``bluerov2_sitl.parm`` wires it to (``SERVOn_FUNCTION`` 33 + k - 1 is
motor k; the bridge reads the same wiring from the MJCF's ``aurgen:servo_channel`` numerics).

To fly the real ArduSub instead, run ``aurgen sitl`` alone and start ArduPilot's ``sim_vehicle.py``
with the line the build writes in ``bluerov2_sitl.parm`` (the script prints both).

Run it::

    python examples/ardusub_mujoco.py                       # writes ./examples_out/ardusub_mujoco/
    python examples/ardusub_mujoco.py --quick --out my_dive  # 30 s simulated instead of 60 s
    python examples/ardusub_mujoco.py --depth 4.5 --heading 30

The BlueROV2 starts 3 m down in open_water facing east (ArduPilot's heading 90°); it dives (or climbs) to
``--depth`` (default 4.0 m) and turns to ``--heading`` (default 45°). Prints the depth and heading once
a simulated second, the mean and worst depth error over the last 10 s, and the bridge's summary.

Writes, under ``--out`` (default ``./examples_out/ardusub_mujoco``): ``build/`` (``aurgen worlds
open_water``: the world and its vehicles, ``build/bluerov2/bluerov2_sitl.parm``), ``replies.jsonl``
(every 20th JSON state the bridge sent, as sent: 20 a simulated second) and ``servos.csv`` (the
PWM sent on the six channels, 20 a second).

Needs: aurgen installed (nothing else; ArduPilot only to fly the real autopilot).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import signal
import socket
import struct
import subprocess
import sys
from pathlib import Path

from aurgen.cli import main as aurgen

RATE = 400  # Hz: ArduSub's main loop, the frame rate its servo packets carry
MAGIC_16 = 18458  # SIM_JSON.h servo_packet_16
START_DEPTH = 3.0  # m: open_water places the BlueROV2 at z = -3 (worlds/open_water.yaml)

# AP_Motors6DOF::setup_motors, SUB_FRAME_VECTORED (FRAME_CONFIG 1): per motor k (1..6) the factors of
# (roll, pitch, yaw, throttle, forward, lateral); demands in -1..1, roll > 0 starboard down, yaw > 0
# clockwise from above, throttle > 0 up, forward > 0 ahead, lateral > 0 to starboard
VECTORED = ((0, 0, 1, 0, -1, 1), (0, 0, -1, 0, -1, -1), (0, 0, -1, 0, 1, 1),
            (0, 0, 1, 0, 1, -1), (1, 0, 0, -1, 0, 0), (-1, 0, 0, -1, 0, 0))


def read_parm(path: Path) -> dict:
    """The parameter file ``aurgen build`` writes: {"servos": {motor k: (SERVOn, min, max, trim)},
    "frame": FRAME_CONFIG, "sim_vehicle": the sim_vehicle.py line of its header}."""
    params, line = {}, ""
    for raw in path.read_text(encoding="utf-8").splitlines():
        if raw.startswith("#") and "sim_vehicle.py" in raw:
            line = raw.lstrip("# ").strip()
        elif raw.strip() and not raw.startswith("#"):
            name, value = raw.split()
            params[name] = float(value)
    servos = {}
    for name, value in params.items():
        m = re.fullmatch(r"SERVO(\d+)_FUNCTION", name)
        if m and 33 <= value <= 40:  # k_motor1..k_motor8 (SRV_Channel.h)
            n = int(m[1])
            servos[int(value) - 32] = (n, params[f"SERVO{n}_MIN"], params[f"SERVO{n}_MAX"], params[f"SERVO{n}_TRIM"])
    return {"servos": servos, "frame": int(params.get("FRAME_CONFIG", -1)), "sim_vehicle": line}


def servo_packet(frame_count: int, pwm: list) -> bytes:
    """ArduPilot's 16-channel servo packet (SIM_JSON.h servo_packet_16, packed little-endian)."""
    return struct.pack("<HHI16H", MAGIC_16, RATE, frame_count, *pwm)


def euler(q) -> tuple:
    """(roll, pitch, yaw) rad of the quaternion (w, x, y, z): body FRD in NED, ZYX."""
    w, x, y, z = q
    return (math.atan2(2 * (w * x + y * z), 1 - 2 * (x * x + y * y)),
            math.asin(max(-1.0, min(1.0, 2 * (w * y - z * x)))),
            math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z)))


def wrap(a: float) -> float:
    """An angle wrapped to [-pi, pi), rad."""
    return (a + math.pi) % (2 * math.pi) - math.pi


def clip(x: float, lim: float = 1.0) -> float:
    return max(-lim, min(lim, x))


class StandIn:
    """The stand-in autopilot: depth and heading hold (PID; the integrators carry the T200's dead band
    around 1500 µs), roll and pitch levelled, the start point held (PD), mixed for the vectored frame.
    ``depth`` m (positive down), ``heading`` rad (from north, clockwise)."""

    def __init__(self, depth: float, heading: float):
        self.depth, self.heading = depth, heading
        self.i_depth = self.i_yaw = 0.0

    def demands(self, s: dict) -> tuple:
        """(roll, pitch, yaw, throttle, forward, lateral) in -1..1 from one JSON state ``s``."""
        n, e, d = s["position"]
        vn, ve, vd = s["velocity"]
        roll, pitch, yaw = euler(s["quaternion"])
        p, q, r = s["imu"]["gyro"]
        e_depth, e_yaw = START_DEPTH + d - self.depth, wrap(self.heading - yaw)
        self.i_depth = clip(self.i_depth + e_depth / RATE, 0.5)
        self.i_yaw = clip(self.i_yaw + e_yaw / RATE, 0.5)
        throttle = clip(1.5 * e_depth + 1.5 * vd + 0.5 * self.i_depth)  # > 0 up: too deep, or sinking
        yaw_d = clip(2.0 * e_yaw - 1.0 * r + 0.5 * self.i_yaw)
        c, sn = math.cos(yaw), math.sin(yaw)  # hold the start point: its offset in body axes (x ahead, y starboard)
        fx, fy = -c * n - sn * e, sn * n - c * e
        vx, vy = c * vn + sn * ve, -sn * vn + c * ve
        return (clip(-2.0 * roll - 0.5 * p), clip(-2.0 * pitch - 0.5 * q), yaw_d, throttle,
                clip(0.4 * fx - 1.0 * vx, 0.5), clip(0.4 * fy - 1.0 * vy, 0.5))

    def pwm(self, s: dict, servos: dict) -> list:
        """The 16 channels' PWM (µs; 0: not driven) for state ``s``: each motor's mixed thrust in -1..1
        on its SERVOn as trim + thrust x (max - trim) (below trim, x (trim - min))."""
        dem = self.demands(s)
        out = [0] * 16
        for k, factors in enumerate(VECTORED, start=1):
            t = clip(sum(f * v for f, v in zip(factors, dem)))
            n, lo, hi, trim = servos[k]
            out[n - 1] = int(round(trim + t * ((hi - trim) if t > 0 else (trim - lo))))
        return out


def start_bridge(world: Path) -> tuple:
    """``aurgen sitl WORLD --vehicle bluerov2 --port 0`` in a process of its own; (process, port)."""
    proc = subprocess.Popen([sys.executable, "-m", "aurgen", "sitl", str(world), "--vehicle", "bluerov2",
                             "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for line in proc.stdout:
        print("  [aurgen sitl] " + line.rstrip())
        m = re.search(r"listening on udp ([0-9.]+):(\d+)", line)
        if m:
            return proc, int(m[2])
    sys.exit(f"aurgen sitl did not start (exit {proc.wait()}): {proc.stderr.read()}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="examples_out/ardusub_mujoco", help="output folder")
    ap.add_argument("--quick", action="store_true", help="30 s of simulated time instead of 60 s")
    ap.add_argument("--seconds", type=float, help="simulated seconds (default 60; --quick 30)")
    ap.add_argument("--depth", type=float, default=4.0, help="target depth, m (default 4.0; starts at 3.0)")
    ap.add_argument("--heading", type=float, default=45.0, help="target heading, deg from north (default 45)")
    args = ap.parse_args(argv)
    seconds = args.seconds or (30.0 if args.quick else 60.0)
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)

    print("$ aurgen worlds open_water -o " + str(out / "build"))
    if aurgen(["worlds", "open_water", "-o", str(out / "build")]) != 0:
        sys.exit("aurgen worlds failed")
    world, parm_file = out / "build" / "worlds" / "open_water.xml", out / "build" / "bluerov2" / "bluerov2_sitl.parm"
    parm = read_parm(parm_file)
    if parm["frame"] != 1 or sorted(parm["servos"]) != list(range(1, 7)):
        sys.exit(f"{parm_file}: expected ArduSub's vectored frame (FRAME_CONFIG 1) with motors 1-6 wired")
    print("\nTHIS IS A STAND-IN: a minimal Python autopilot (depth and heading PID, ArduSub's vectored mixer)")
    print("speaking ArduPilot's JSON SITL protocol to aurgen sitl. It is not ArduSub. To fly ArduSub itself:")
    print(f"  aurgen sitl {world} --vehicle bluerov2")
    print("  # then, in another terminal, from an ArduPilot checkout (the line bluerov2_sitl.parm gives):")
    print("  Tools/autotest/" + parm["sim_vehicle"].replace("bluerov2_sitl.parm", str(parm_file)))
    print("wiring from bluerov2_sitl.parm: " + ", ".join(f"motor {k} on SERVO{v[0]}" for k, v in sorted(parm["servos"].items())))
    print(f"\ntarget: depth {args.depth:.2f} m, heading {args.heading:.1f} deg; start 3.00 m, heading 90 deg")

    pilot = StandIn(args.depth, math.radians(args.heading))
    proc, port = start_bridge(world)
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.settimeout(30.0)
    pwm = [1500] * 6 + [0] * 10  # neutral until the first state comes back
    depths = []  # (time, depth) over the run
    try:
        with open(out / "replies.jsonl", "w", encoding="utf-8") as log, \
                open(out / "servos.csv", "w", encoding="utf-8") as servos:
            servos.write("time_s," + ",".join(f"servo{n}_us" for n in range(1, 7)) + "\n")
            print("\n  time s   depth m   heading deg   throttle PWM (motor 5, motor 6)")
            for frame in range(int(seconds * RATE)):
                sock.sendto(servo_packet(frame, pwm), ("127.0.0.1", port))
                reply, _ = sock.recvfrom(65536)
                text = reply.decode("ascii").strip()  # the bridge frames one JSON object as "\n{...}\n"
                state = json.loads(text)
                pwm = pilot.pwm(state, parm["servos"])
                t, depth = state["timestamp"], START_DEPTH + state["position"][2]
                depths.append((t, depth))
                if frame % 20 == 0:
                    log.write(text + "\n")
                    servos.write(f"{t:.4f}," + ",".join(map(str, pwm[:6])) + "\n")
                if frame % RATE == 0:
                    heading = math.degrees(euler(state["quaternion"])[2]) % 360
                    m5, m6 = (pwm[parm["servos"][k][0] - 1] for k in (5, 6))
                    print(f"  {t:6.1f}   {depth:7.3f}   {heading:11.1f}   {m5} {m6}", flush=True)
    finally:
        sock.close()
        proc.send_signal(signal.SIGINT)
        try:
            rest, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:  # SIGINT ignored (a shell's background job without job control)
            proc.kill()
            proc.communicate()
            sys.exit("aurgen sitl did not end within 60 s of Ctrl-C (SIGINT) and was killed: was this run "
                     "as a background job of a shell that ignores SIGINT there?")
    print("".join("  [aurgen sitl] " + line + "\n" for line in rest.splitlines()), end="")
    if proc.returncode != 0:
        sys.exit(f"aurgen sitl ended with exit {proc.returncode}: {err}")
    tail = [d for t, d in depths if t > depths[-1][0] - 10.0]
    mean = sum(tail) / len(tail)
    worst = max(abs(d - args.depth) for d in tail)
    print(f"\nover the last 10 s: mean depth {mean:.3f} m (target {args.depth:.2f} m), worst error {worst:.3f} m")
    print(f"wrote {out / 'replies.jsonl'} and {out / 'servos.csv'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
