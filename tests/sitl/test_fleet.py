"""Two vehicles flown at once, each by its own ArduPilot instance over its own UDP socket
(``aurgen sitl WORLD --vehicle blueboat --vehicle bluerov2``), as gz-sim steps a world only once every
ArduPilotPlugin has its packet: each reply carries its own vehicle's state at its own frame's time
(checked with ArduPilot's receive side, ap_json.Receiver, SIM_JSON.cpp's recv_fdm); the world waits
for both; a repeat is answered without a step; a restarted instance resets the world for both; a silent
instance ends the run naming it; instances at different frame rates each get their own frames."""
from __future__ import annotations

import re
import select
import socket
import subprocess

import pytest

import ap_json
from sitl_client import aurgen_cmd, clean_env

from aurgen.core.errors import AurgenError
from aurgen.runtime.sitl.server import vehicle_ports

NEUTRAL = [1500] * 16
BOAT_AHEAD = [1900, 1500, 1900] + [1500] * 13  # the BlueBoat's starboard motor on SERVO1, port on SERVO3


class Fleet:
    """``aurgen sitl <world> --vehicle a --vehicle b --port 0 [args]`` and a socket per vehicle."""

    def __init__(self, world, *args, names=("blueboat", "bluerov2")):
        cmd = aurgen_cmd() + ["sitl", str(world), "--port", "0", *args]
        for n in names:
            cmd += ["--vehicle", n]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean_env())
        self.ports, self.head = {}, []
        for line in self.proc.stdout:
            self.head.append(line)
            m = re.match(r"\s+(\w+) \(.*\): listening on udp [0-9.]+:(\d+)", line)
            if m:
                self.ports[m[1]] = int(m[2])
            if line.strip() == "Ctrl-C ends":
                break
        assert set(self.ports) == set(names), "".join(self.head) + self.proc.stderr.read()
        self.socks = {n: socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for n in names}

    def send(self, name, count, pwm=NEUTRAL, rate=400):
        self.socks[name].sendto(ap_json.servo_packet(rate, count, pwm), ("127.0.0.1", self.ports[name]))

    def recv(self, name, timeout=10.0):
        """The next reply to ``name`` (bytes), or None after ``timeout`` s."""
        r, _, _ = select.select([self.socks[name]], [], [], timeout)
        return self.socks[name].recvfrom(65536)[0] if r else None

    def stop(self):
        self.proc.send_signal(2)
        out, err = self.proc.communicate(timeout=60)
        for s in self.socks.values():
            s.close()
        return self.proc.returncode, out, err

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.communicate()


def test_the_world_waits_for_both_and_each_reply_is_its_own_vehicle(built):
    rx = {"blueboat": ap_json.Receiver(), "bluerov2": ap_json.Receiver()}
    with Fleet(built / "worlds" / "open_water.xml") as f:
        f.send("blueboat", 0, BOAT_AHEAD)
        assert f.recv("blueboat", timeout=0.5) is None  # the ROV's frame has not come: no step
        f.send("bluerov2", 0)
        first = {n: rx[n].feed(f.recv(n)) for n in rx}
        assert first["blueboat"].timestamp == pytest.approx(1 / 400, abs=1e-12)
        assert first["bluerov2"].timestamp == pytest.approx(1 / 400, abs=1e-12)
        for k in range(1, 800):  # 2 s: the boat at full thrust, the ROV neutral
            f.send("blueboat", k, BOAT_AHEAD)
            f.send("bluerov2", k)
            last = {n: rx[n].feed(f.recv(n)) for n in rx}
            assert all(v is not None for v in last.values()), (k, {n: r.rejected for n, r in rx.items()})
        assert last["blueboat"].timestamp == last["bluerov2"].timestamp == pytest.approx(2.0, abs=1e-9)
        # the world faces +x (east to ArduPilot): the boat has gone east, the neutral ROV nowhere
        assert last["blueboat"].position[1] > 0.5 and last["blueboat"].velocity[1] > 0.5
        assert abs(last["bluerov2"].position[1]) < 0.01 and abs(last["bluerov2"].velocity[1]) < 0.01
        # the boat's echosounder (its Ping2) is in its reply only: the ROV carries none
        assert 20 < last["blueboat"].rng[0] < 40 and last["bluerov2"].rng[0] == -1  # -1: ArduPilot's "no data"
        rc, out, err = f.stop()
    assert rc == 0, err
    assert "blueboat: 800 frames" in out and "bluerov2: 800 frames" in out and "health: ok" in out


def test_a_repeat_is_not_stepped_and_a_restart_resets_the_world_for_both(built):
    with Fleet(built / "worlds" / "open_water.xml") as f:
        for k in range(3):
            f.send("blueboat", k)
            f.send("bluerov2", k)
            boat, rov = f.recv("blueboat"), f.recv("bluerov2")
        f.send("bluerov2", 2)  # the ROV's instance repeats its frame: the same reply, the world not stepped
        assert f.recv("bluerov2") == rov
        f.send("blueboat", 3)
        f.send("bluerov2", 3)
        assert ap_json.Receiver().feed(f.recv("blueboat")).timestamp == pytest.approx(4 / 400, abs=1e-12)
        f.recv("bluerov2")
        f.send("blueboat", 0)  # the boat's ArduPilot restarted: the world (one clock) resets, the ROV with it
        f.send("bluerov2", 4)
        t = {n: ap_json.Receiver().feed(f.recv(n)).timestamp for n in ("blueboat", "bluerov2")}
        assert t == {"blueboat": pytest.approx(1 / 400, abs=1e-12), "bluerov2": pytest.approx(1 / 400, abs=1e-12)}
        rc, out, _ = f.stop()
    assert rc == 0 and "world resets: 1" in out and "bluerov2: 5 frames, repeats answered: 1" in out


def test_instances_at_different_rates_get_their_own_frames(built):
    """The boat's ArduPilot at 400 Hz, the ROV's at 200 Hz, each sending its next frame as soon as it has
    its reply (as ArduPilot does): the world steps to the earliest frame end asked for, so the boat gets
    twice the frames, each reply at its own frame's time."""
    with Fleet(built / "worlds" / "open_water.xml") as f:
        count = {"blueboat": 0, "bluerov2": 0}
        rate = {"blueboat": 400, "bluerov2": 200}
        times = {"blueboat": [], "bluerov2": []}
        for n in count:
            f.send(n, 0, rate=rate[n])
        while count["bluerov2"] < 100:
            r, _, _ = select.select(list(f.socks.values()), [], [], 10.0)
            assert r, "no reply"
            for n, s in f.socks.items():
                if s in r:
                    times[n].append(ap_json.Receiver().feed(s.recvfrom(65536)[0]).timestamp)
                    count[n] += 1
                    f.send(n, count[n], rate=rate[n])
        rc, _, err = f.stop()
    assert rc == 0, err
    for n in times:
        assert times[n] == pytest.approx([(k + 1) / rate[n] for k in range(len(times[n]))], abs=1e-9)
    assert len(times["blueboat"]) in (2 * len(times["bluerov2"]), 2 * len(times["bluerov2"]) + 1)


def test_a_silent_instance_ends_the_run_naming_it(built):
    with Fleet(built / "worlds" / "open_water.xml") as f:
        f.send("blueboat", 0)
        f.send("bluerov2", 0)
        f.recv("blueboat")
        f.recv("bluerov2")
        f.send("bluerov2", 1)  # the boat's ArduPilot says nothing more
        out, err = f.proc.communicate(timeout=60)
    assert f.proc.returncode == 1, err
    assert "stopped: vehicle blueboat sent nothing for 10 s" in out and "--wait" in out


@pytest.mark.parametrize("args, words", [
    (["--vehicle", "blueboat", "--vehicle", "blueboat"], "blueboat named twice"),
    (["--vehicle", "blueboat:70000", "--vehicle", "bluerov2"], "NAME:PORT with a UDP port 1–65535"),
    (["--vehicle", "blueboat:9100", "--vehicle", "bluerov2:9100"], "two vehicles on one port"),
    (["--vehicle", "blueboat", "--vehicle", "nessie"], "--vehicle nessie: no such vehicle"),
    (["--vehicle", "blueboat", "--vehicle", "bluerov2", "--speedup", "0"], "--speedup must be a positive number"),
])
def test_bad_fleets_are_one_line_and_exit_2(built, args, words):
    r = subprocess.run(aurgen_cmd() + ["sitl", str(built / "worlds" / "open_water.xml"), *args], capture_output=True,
                       text=True, env=clean_env(), timeout=120)
    assert r.returncode == 2 and words in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "listening" not in r.stdout


def test_speedup_holds_the_fleet_to_its_pace(built):
    """``--speedup 2`` with two vehicles: a second of simulated time (400 frames each, both clients as fast
    as the replies come) takes at least half a second of wall time, and the summary says at most 2x."""
    import time

    with Fleet(built / "worlds" / "open_water.xml", "--speedup", "2") as f:
        t0 = time.perf_counter()
        for k in range(1, 401):
            f.send("blueboat", k)
            f.send("bluerov2", k)
            assert f.recv("blueboat") and f.recv("bluerov2")
        wall = time.perf_counter() - t0
        rc, out, err = f.stop()
    assert rc == 0, err
    assert wall >= 0.5 - 0.0025 * 2, wall  # the first frame's step comes before the clock's start
    rate = float(re.search(r"at ([0-9.]+)x real time", out)[1])
    assert rate <= 2.0 + 0.05, out


def test_the_kth_vehicle_listens_where_sim_vehicle_dash_i_k_sends():
    """ArduPilot's SITL adds 10 per instance to its physics port (SITL_cmdline.cpp: simulator_port_out
    += instance * 10), so -I k sends to 9002 + 10k."""
    assert vehicle_ports(["a", "b", "c"], 9002) == [("a", 9002), ("b", 9012), ("c", 9022)]
    assert vehicle_ports(["a", "b:9100"], 9002) == [("a", 9002), ("b", 9100)]
    assert vehicle_ports(None, 9002) == [(None, 9002)] and vehicle_ports(["a", "b"], 0) == [("a", 0), ("b", 0)]
    with pytest.raises(AurgenError, match="named twice"):
        vehicle_ports(["a", "a"], 9002)
