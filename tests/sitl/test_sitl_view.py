"""``aurgen sitl ... --view``: MuJoCo's passive viewer watches the flown world. No display here, so the
viewer's handle is the one thing replaced (``Viewer(launch=...)``, as ``mujoco.viewer.launch_passive``
returns it: ``cam``, ``lock()``, ``sync()``, ``is_running()``, ``close()``); the bridge, the UDP socket and
``serve`` are the real ones, ArduPilot's packets come over the socket. Checked: the camera tracks the
flown vehicle (MuJoCo's own ``mjv_updateCamera`` puts it on the body as the viewer draws), the state is
handed over at the screen's rate and not per frame, closing the window ends the run with the summary and
exit 0, and without a display ``--view`` is refused in one line before the port is bound."""
from __future__ import annotations

import contextlib
import io
import os
import socket
import subprocess
import sys
import threading

import mujoco
import numpy as np
import pytest

import ap_json
from sitl_client import aurgen_cmd, clean_env
from test_bridge_udp import BOAT, NEUTRAL

from aurgen.runtime.sim import Simulation
from aurgen.runtime.sitl import rig as rigmod
from aurgen.runtime.sitl import server
from aurgen.runtime.sitl.bridge import Bridge
from aurgen.runtime.sitl.view import SYNC_EVERY, TRACK_DISTANCE, Viewer


class FakeHandle:
    """What ``mujoco.viewer.launch_passive`` returns, minus the window: ``sync`` records the simulated
    time it was handed; the window "closes" after ``close_after`` syncs."""

    def __init__(self, m, d, close_after):
        self.m, self.d, self.cam = m, d, mujoco.MjvCamera()
        self.synced, self.close_after, self.closed = [], close_after, False
        self._lock = threading.Lock()

    def lock(self):
        return self._lock

    def sync(self):
        with self._lock:  # as the real one: sync takes the lock itself
            self.synced.append(float(self.d.time))

    def is_running(self):
        return len(self.synced) < self.close_after

    def close(self):
        self.closed = True


def _fly(tmp_path, frames, close_after, rate=400):
    """Serve the box boat with the fake viewer in a thread; send ``frames`` packets (or until the run
    ends); (exit status, summary text, handle, rig, replies received, sim)."""
    path = tmp_path / "box_boat.xml"
    path.write_text(BOAT)
    sim = Simulation(str(path), water=1025.0)
    rig = rigmod.find(sim.model, str(path))
    handles = []

    def launch(m, d):
        handles.append(FakeHandle(m, d, close_after))
        return handles[-1]

    viewer = Viewer(sim, rig, launch=launch)
    sock = server.bind("127.0.0.1", 0)
    port = sock.getsockname()[1]
    out, result = io.StringIO(), {}
    t = threading.Thread(target=lambda: result.setdefault("rc", server.serve(Bridge(sim, rig), sock, out=out,
                                                                            watchers=[viewer])))
    t.start()
    client = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    client.settimeout(2.0)
    pwm = list(NEUTRAL)
    pwm[2] = 1700  # the boat's thruster (SERVO3) ahead: it moves
    replies = 0
    try:
        for k in range(frames + 1):
            if k == frames:  # the user closes the window: the next frame ends the run
                handles[0].close_after = 0
            client.sendto(ap_json.servo_packet(rate, k, pwm), ("127.0.0.1", port))
            try:
                client.recvfrom(65536)
            except socket.timeout:
                break
            replies += 1
    finally:
        client.close()
    t.join(timeout=30)
    assert not t.is_alive(), "serve did not end when the viewer closed"
    viewer.close()
    sock.close()
    return result["rc"], out.getvalue(), handles[0], rig, replies, sim


def test_closing_the_window_ends_the_run_with_the_summary(tmp_path):
    rc, summary, handle, rig, replies, sim = _fly(tmp_path, frames=100_000, close_after=3)
    assert rc == 0
    assert "health: ok" in summary and "viewer: window closed" in summary
    assert 0 < replies < 100_000 and handle.closed and len(handle.synced) == 3
    assert sim.data.qpos[rig.qpos] > 0.0  # flown forward before the window closed
    # the camera tracks the flown vehicle from TRACK_DISTANCE, and MuJoCo's tracking puts it on the body
    assert handle.cam.type == mujoco.mjtCamera.mjCAMERA_TRACKING and handle.cam.trackbodyid == rig.body
    assert handle.cam.distance == TRACK_DISTANCE
    scn = mujoco.MjvScene(sim.model, maxgeom=100)
    mujoco.mjv_updateScene(sim.model, sim.data, mujoco.MjvOption(), None, handle.cam, mujoco.mjtCatBit.mjCAT_ALL, scn)
    assert np.allclose(handle.cam.lookat, sim.data.subtree_com[rig.body], atol=1e-9)
    sim.close()


def test_the_state_goes_to_the_viewer_at_the_screen_rate_not_per_frame(tmp_path):
    """At 400 Hz the bridge runs many frames per 1/60 s of wall time: far fewer syncs than frames,
    each of a later simulated time, the first before any packet (the world as loaded)."""
    rc, _, handle, _, replies, sim = _fly(tmp_path, frames=2000, close_after=10 ** 9)
    # the window closes while frame 1999's reply is out or at frame 2000's: the run ends there
    assert rc == 0 and replies in (2000, 2001)
    assert handle.synced[0] == 0.0 and handle.synced == sorted(handle.synced)
    # a sync per frame would mean frames SYNC_EVERY (17 ms) apart: 400 Hz frames take well under that
    assert 2 <= len(handle.synced) < 2001 / 4, (len(handle.synced), SYNC_EVERY)
    sim.close()


def _free_port() -> int:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the display check is Linux's (DISPLAY, WAYLAND_DISPLAY)")
def test_no_display_is_one_line_and_exit_2_before_the_port_is_bound(tmp_path):
    path = tmp_path / "box_boat.xml"
    path.write_text(BOAT)
    port = _free_port()
    holder = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    holder.bind(("127.0.0.1", port))  # held: had the bridge reached bind, it would say "in use"
    try:
        env = {k: v for k, v in clean_env().items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
        r = subprocess.run(aurgen_cmd() + ["sitl", str(path), "--view", "--port", str(port)], capture_output=True,
                           text=True, env=env, timeout=120)
    finally:
        holder.close()
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "--view" in lines[0] and "no display" in lines[0] and "ssh -X" in lines[0], r.stderr
    assert "in use" not in r.stderr and r.stdout == ""


@pytest.fixture
def xvfb():
    """A virtual X display (Xvfb, 1280x720, 24-bit) for the test; its name (":N")."""
    import shutil
    import time

    if shutil.which("Xvfb") is None:
        if os.environ.get("AURGEN_REQUIRE_CONSUMERS") == "1":
            pytest.fail("Xvfb is not installed (apt-get install xvfb; AURGEN_REQUIRE_CONSUMERS=1)", pytrace=False)
        pytest.skip("Xvfb is not installed (apt-get install xvfb)")
    for n in range(90, 140):
        if os.path.exists(f"/tmp/.X11-unix/X{n}") or os.path.exists(f"/tmp/.X{n}-lock"):
            continue
        proc = subprocess.Popen(["Xvfb", f":{n}", "-screen", "0", "1280x720x24", "-nolisten", "tcp"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(100):
            if os.path.exists(f"/tmp/.X11-unix/X{n}") or proc.poll() is not None:
                break
            time.sleep(0.05)
        if proc.poll() is None:
            break
    else:
        pytest.fail("no free X display number for Xvfb")
    try:
        yield f":{n}"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_the_viewer_in_a_virtual_display_draws_the_world_and_closing_it_ends_the_run(tmp_path, xvfb):
    """The real viewer (MuJoCo's passive viewer through GLFW, Mesa's software GL) under Xvfb: the window
    opens while the bridge answers and draws the world (its tracking camera: the tests above), and a
    window manager's close (WM_DELETE_WINDOW,
    tests/sitl/xwindow.py) ends the run as Ctrl-C does: the summary, "viewer: window closed", exit 0."""
    import re
    import time

    import xwindow

    path = tmp_path / "box_boat.xml"
    path.write_text(BOAT)
    env = dict(clean_env(), DISPLAY=xvfb, MUJOCO_GL="glfw")
    proc = subprocess.Popen(aurgen_cmd() + ["sitl", str(path), "--view", "--port", "0"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    client = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    client.settimeout(5.0)
    try:
        port = None
        for line in proc.stdout:
            m = re.search(r"listening on udp [0-9.]+:(\d+)", line)
            port = int(m[1]) if m else port
            if "Ctrl-C ends" in line:
                break
        assert port, proc.stderr.read()
        pwm = list(NEUTRAL)
        pwm[2] = 1700  # ahead: the boat moves, the tracking camera with it
        title = None
        for k in range(4000):
            client.sendto(ap_json.servo_packet(400, k, pwm), ("127.0.0.1", port))
            client.recvfrom(65536)
            if k % 200 == 199:
                title = title or xwindow.title_of(xvfb, "MuJoCo")
                if title and k >= 799:
                    break
        assert title, "no MuJoCo window on the virtual display"
        time.sleep(0.5)  # a few screen refreshes
        shot = xwindow.screenshot(xvfb, "MuJoCo")
        assert shot is not None and shot.reshape(-1, 3).std(axis=0).max() > 5.0  # the world drawn, not a blank
        assert xwindow.close(xvfb, "MuJoCo")
        k += 1
        for _ in range(2000):  # the run ends at the frame after the close: no more replies
            client.sendto(ap_json.servo_packet(400, k, pwm), ("127.0.0.1", port))
            k += 1
            try:
                client.recvfrom(65536)
            except socket.timeout:
                break
            time.sleep(0.005)
        out, err = proc.communicate(timeout=60)
    finally:
        client.close()
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    assert "viewer: window closed" in out and "health: ok" in out and "frames" in out, out


def test_the_cli_leaves_gl_to_mujoco_only_where_it_draws():
    from aurgen.cli import _draws

    assert _draws("view", ["view", "w.xml"]) and _draws("sitl", ["sitl", "w.xml", "--view"])
    assert not _draws("sitl", ["sitl", "w.xml"]) and not _draws("build", ["build", "--all"])
    with contextlib.suppress(SystemExit):
        from aurgen.cli import build_parser

        assert build_parser("sitl").parse_args(["sitl", "w.xml", "--view"]).view is True
