"""``aurgen sitl --video udp://HOST:PORT``: the BlueROV2's camera as H.264 over RTP, received as a
ground station receives it.

The consumer: QGroundControl's "UDP h.264 Video Stream" (GStreamer ``udpsrc`` with RTP H.264 caps,
``rtph264depay``, a decoder), and ffplay/VLC from the SDP file. Here FFmpeg's own RTP/SDP demuxer
(PyAV: ``av.open(<sdp>, format="sdp")``) receives the stream on 127.0.0.1 and decodes every frame;
each is compared with an offscreen drawing of the same camera in the state the bridge logged for
that RTP timestamp (``AURGEN_VIDEO_STATES``).
"""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from ap_mix import sub_mix
from sitl_client import Sitl, aurgen_cmd, clean_env, packet

av = pytest.importorskip("av")

TANK = """\
description: a small tank for the video test, seawater, two walls 3 m from the vehicle
timestep: 0.002
integrator: implicitfast
gravity: [0, 0, -9.81]
planes:
  surface: {normal: [0, 0, 1], offset: 0.0}
  floor:   {normal: [0, 0, 1], offset: -4.0, size: [10, 10]}
  east:    {normal: [1, 0, 0], offset: 3.0, size: [10, 4], centre: [3.0, 0, -2.0]}
  north:   {normal: [0, 1, 0], offset: 3.0, size: [10, 4], centre: [0, 3.0, -2.0]}
cells:
  air:   {above: [surface], density: 1.225, viscosity: 1.81e-5}
  water: {below: [surface, east, north], above: [floor], density: 1025.0, viscosity: 1.08e-3}
ground: [floor, east, north]
vehicles:
  - {config: bluerov2.yaml, xyz: [0, 0, -2]}
"""
SIZE = (320, 240)
SECONDS = 2.5  # of simulated time flown


@pytest.fixture(scope="module")
def tank(tmp_path_factory):
    out = tmp_path_factory.mktemp("video")
    (out / "tank.yaml").write_text(TANK)
    r = subprocess.run(aurgen_cmd() + ["worlds", str(out / "tank.yaml"), "-o", str(out)], capture_output=True,
                       text=True, env=clean_env(), timeout=300, cwd=out)
    assert r.returncode == 0, r.stderr
    for vehicle in ("bluerov2.yaml", "blueboat.yaml"):  # the BlueBoat carries no camera
        r = subprocess.run(aurgen_cmd() + ["build", vehicle, "-o", str(out)], capture_output=True,
                           text=True, env=clean_env(), timeout=300, cwd=out)
        assert r.returncode == 0, r.stderr
    return out


def free_port() -> int:
    """An even UDP port free on 127.0.0.1 with the next one (RTP and its RTCP)."""
    for _ in range(50):
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port % 2 == 0 and port < 65535 and port_free(port + 1):
            return port
    raise AssertionError("no free even UDP port")


def port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


class Receiver(threading.Thread):
    """FFmpeg's SDP/RTP demuxer on the SDP file: every decoded frame as (pts, RGB array, keyframe)."""

    def __init__(self, sdp):
        super().__init__(daemon=True)
        self.sdp, self.frames, self.error = sdp, [], None
        self.opened = threading.Event()

    def run(self):
        try:
            with av.open(str(self.sdp), format="sdp", timeout=(30.0, 3.0),
                         options={"protocol_whitelist": "file,udp,rtp", "reorder_queue_size": "0"}) as c:
                self.opened.set()
                for f in c.decode(video=0):
                    # the first frame's pts is the origin (FFmpeg's rtpdec: less the first timestamp)
                    self.frames.append((f.pts or 0, f.to_ndarray(format="rgb24"), f.key_frame))
        except av.error.ExitError:
            pass  # the read timed out: the stream ended
        except Exception as exc:  # noqa: BLE001
            self.error = exc
        self.opened.set()


DRAW = """
import json, sys
import numpy as np
from aurgen.runtime.sim.simulation import Simulation
from aurgen.runtime.sitl import camera, rig
world, states, out, w, h = sys.argv[1:]
size = (int(w), int(h))
sim = Simulation(world)
cam = camera.find(sim.model, rig.find(sim.model, world, None))
d = camera.Drawer(camera.view_model(sim.model, size), cam, size)
log = [json.loads(line) for line in open(states)]
np.savez(out, pts=np.array([s["pts"] for s in log]),
         images=np.stack([d.draw(np.array(s["qpos"]), s["t"]) for s in log]))
d.close()
sim.close()
"""


def drawn(world, states, out, size):
    """The camera drawn offscreen (a process of its own: its GL back end EGL) in each logged state:
    {pts (1/90000 s): RGB array}."""
    import sys

    r = subprocess.run([sys.executable, "-c", DRAW, str(world), str(states), str(out), *map(str, size)],
                       env=dict(clean_env(), MUJOCO_GL=os.environ.get("MUJOCO_GL", "egl")), capture_output=True,
                       text=True, timeout=300, cwd=Path(out).parent)  # not the checkout: the installed aurgen
    assert r.returncode == 0, r.stderr
    z = np.load(out)
    return dict(zip(z["pts"].tolist(), z["images"]))


def psnr(a, b) -> float:
    mse = np.mean((a.astype(float) - b.astype(float)) ** 2)
    return 99.0 if mse == 0 else 10 * np.log10(255.0 ** 2 / mse)


def test_stream_received_matches_the_camera(tank, tmp_path):
    world = tank / "worlds" / "tank.xml"
    port = free_port()
    sdp = tmp_path / "stream.sdp"
    states = tmp_path / "states.jsonl"
    env_extra = {"AURGEN_VIDEO_STATES": str(states)}
    yaw = sub_mix("vectored", yaw=0.6) + [1500] * 10
    os.environ.update(env_extra)
    try:
        sitl = Sitl(world, "--video", f"udp://127.0.0.1:{port}", "--video-size", f"{SIZE[0]}x{SIZE[1]}",
                    "--video-sdp", str(sdp), cwd=tmp_path)
    finally:
        for k in env_extra:
            os.environ.pop(k)
    with sitl:
        assert any(str(sdp) in line for line in sitl.head) or sdp.exists()
        text = sdp.read_text()
        assert "m=video" in text and "H264/90000" in text and "packetization-mode=1" in text
        assert "sprop-parameter-sets=" in text and "profile-level-id=42c0" in text  # constrained baseline
        rx = Receiver(sdp)
        rx.start()
        import time
        time.sleep(1.0)  # the demuxer binds the port
        frames = int(SECONDS * 400)
        for k in range(frames):
            sitl.ask(packet(k + 1, yaw if k > 100 else [1500] * 16))
            if k % 13 == 0:
                time.sleep(0.03)  # ArduPilot's pace, about real time: the renderer keeps up
        rc, out, err = sitl.stop()
        rx.join(60)
    assert rc == 0, err
    assert rx.error is None, rx.error
    log = [json.loads(line) for line in states.read_text().splitlines()]
    got = rx.frames
    flown = frames / 400.0
    assert abs(len(got) - 30 * flown) <= 1.5, (len(got), len(log), out)
    assert len(got) == len(log), out
    assert "dropped" in out and "video:" in out
    # the receiver's pts are the RTP timestamps less the first's: the simulated times, less the first's
    t0 = log[0]["pts"]
    want = drawn(world, states, tmp_path / "drawn.npz", SIZE)
    worst = min(psnr(image, want[pts + t0]) for pts, image, _ in got)
    first, last = got[0][1], got[-1][1]
    assert worst >= 30.0, worst
    assert np.mean(np.abs(first.astype(float) - last.astype(float))) > 5.0  # the ROV yawed: the view moved
    keys = [pts for pts, _, key in got if key]
    assert keys and keys[0] == got[0][0]
    assert all(b - a <= 90000 for a, b in zip(keys, keys[1:] + [got[-1][0]]))  # an IDR at least every second


NO_AV = "raise ImportError('No module named av')\n"


@pytest.mark.parametrize("case, model, url, extra, option", [
    ("no camera", "blueboat/blueboat.xml", "udp://127.0.0.1:5600", [], "--video"),
    ("no scheme", "worlds/tank.xml", "127.0.0.1:5600", [], "--video"),
    ("tcp", "worlds/tank.xml", "tcp://127.0.0.1:5600", [], "--video"),
    ("port 0", "worlds/tank.xml", "udp://127.0.0.1:0", [], "--video"),
    ("port too big", "worlds/tank.xml", "udp://127.0.0.1:70000", [], "--video"),
    ("no port", "worlds/tank.xml", "udp://127.0.0.1", [], "--video"),
    ("unresolvable host", "worlds/tank.xml", "udp://no-such-host.invalid:5600", [], "--video"),
    ("odd size", "worlds/tank.xml", "udp://127.0.0.1:5600", ["--video-size", "641x480"], "--video-size"),
    ("bad size", "worlds/tank.xml", "udp://127.0.0.1:5600", ["--video-size", "big"], "--video-size"),
    ("no GL", "worlds/tank.xml", "udp://127.0.0.1:5600", ["MUJOCO_GL=disable"], "--video"),
    ("no PyAV", "worlds/tank.xml", "udp://127.0.0.1:5600", ["NO_AV"], "aurgen[video]"),
])
def test_refusals(tank, tmp_path, case, model, url, extra, option):
    """One line naming the option, exit 2, before the port is bound or the SDP file written."""
    port = free_port()
    env = clean_env()
    args = [a for a in extra if a not in ("MUJOCO_GL=disable", "NO_AV")]
    if "MUJOCO_GL=disable" in extra:
        env["MUJOCO_GL"] = "disable"
    if "NO_AV" in extra:
        shim = tmp_path / "shim" / "av"
        shim.mkdir(parents=True)
        (shim / "__init__.py").write_text(NO_AV)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(shim.parent), env.get("PYTHONPATH")) if p)
    r = subprocess.run(aurgen_cmd() + ["sitl", str(tank / model), "--port", str(port), "--video", url, *args],
                       capture_output=True, text=True, env=env, timeout=120, cwd=tmp_path)
    assert r.returncode == 2, (case, r.stdout, r.stderr)
    lines = [line for line in r.stderr.splitlines() if line.startswith("aurgen: error:")]
    assert len(lines) == 1 and option in lines[0], (case, r.stderr)
    assert "listening" not in r.stdout
    assert not list(tmp_path.glob("*.sdp"))
    assert port_free(port)


def test_the_status_line_counts_the_video_frames():
    """The terminal's status line carries the stream's frames sent and dropped so far (a watcher with no
    ``status``, the viewer, adds nothing)."""
    from types import SimpleNamespace

    from aurgen.runtime.sitl import server
    from aurgen.runtime.sitl.bridge import Counts
    from aurgen.runtime.sitl.video import Video

    video = SimpleNamespace(rendered=41, dropped=3)
    video.status = lambda: Video.status(video)
    run = SimpleNamespace(bridge=SimpleNamespace(counts=Counts(frames=400)), started=0.0,
                          sim_time=lambda: 1.0, rate=lambda: 1.0)
    line = server._status_line(run, [SimpleNamespace(), video])
    assert line.startswith("frames 400  t = 1.00 s") and line.endswith("  video 41 sent, 3 dropped"), line
    assert "video" not in server._status_line(run, [SimpleNamespace()])


DRAW_REST = """
import sys
import numpy as np
from aurgen.runtime.sim.simulation import Simulation
from aurgen.runtime.sitl import camera, rig
world, out = sys.argv[1:]
size = (160, 120)
sim = Simulation(world)
cam = camera.find(sim.model, rig.find(sim.model, world, None))
d = camera.Drawer(camera.view_model(sim.model, size), cam, size)
np.save(out, d.draw(sim.data.qpos.copy(), 0.0))
d.close()
sim.close()
"""


def test_the_water_seen_is_the_worlds(tank, tmp_path):
    """``underwater: {rgb, visibility}`` in a world config reaches the camera through the world MJCF (read
    back by MuJoCo): in green water of 1.5 m visibility the tank's walls, 3 m away, vanish into the water's
    colour, which the default (8 m) leaves them out of; the build says the SDF world leaves it out."""
    import mujoco

    from aurgen.runtime.sitl import camera

    (tmp_path / "murky.yaml").write_text(TANK + "underwater: {rgb: [0.1, 0.5, 0.1], visibility: 1.5}\n")
    r = subprocess.run(aurgen_cmd() + ["worlds", str(tmp_path / "murky.yaml"), "-o", str(tmp_path)],
                       capture_output=True, text=True, env=clean_env(), timeout=300, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "underwater" in r.stderr and "Gazebo's cameras see clear water" in r.stderr
    murky, clear = tmp_path / "worlds" / "murky.xml", tank / "worlds" / "tank.xml"
    assert camera.water(mujoco.MjModel.from_xml_path(str(murky))) == ((0.1, 0.5, 0.1), 1.5)
    assert camera.water(mujoco.MjModel.from_xml_path(str(clear))) == (camera.WATER_RGB, camera.VISIBILITY)
    fog = {}
    for name, world in (("murky", murky), ("clear", clear)):
        out = tmp_path / f"{name}.npy"
        res = subprocess.run([sys.executable, "-c", DRAW_REST, str(world), str(out)], capture_output=True, text=True,
                             env=dict(clean_env(), MUJOCO_GL=os.environ.get("MUJOCO_GL", "egl")), timeout=300,
                             cwd=tmp_path)
        assert res.returncode == 0, res.stderr
        fog[name] = np.load(out).astype(float)
    green = np.array([0.1, 0.5, 0.1]) * 255
    share = {k: np.mean(np.max(np.abs(img - green), axis=2) <= 3) for k, img in fog.items()}
    assert share["murky"] >= 0.8 and share["clear"] <= 0.05, share


OPEN = TANK.replace("  east:    {normal: [1, 0, 0], offset: 3.0, size: [10, 4], centre: [3.0, 0, -2.0]}\n", "") \
    .replace("  north:   {normal: [0, 1, 0], offset: 3.0, size: [10, 4], centre: [0, 3.0, -2.0]}\n", "") \
    .replace("below: [surface, east, north]", "below: [surface]").replace("ground: [floor, east, north]", "ground: [floor]")


def test_open_water_fades_to_the_water_everywhere(tmp_path):
    """With nothing in view (no wall, the seabed's plane ending short of the horizon), every pixel is the
    water's colour: MuJoCo clears to black where it draws nothing, and the camera puts the water there."""
    assert "east" not in OPEN and "ground: [floor]" in OPEN
    (tmp_path / "open.yaml").write_text(OPEN + "underwater: {rgb: [0.2, 0.4, 0.6], visibility: 5}\n")
    r = subprocess.run(aurgen_cmd() + ["worlds", str(tmp_path / "open.yaml"), "-o", str(tmp_path)],
                       capture_output=True, text=True, env=clean_env(), timeout=300, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    out = tmp_path / "open.npy"
    res = subprocess.run([sys.executable, "-c", DRAW_REST, str(tmp_path / "worlds" / "open.xml"), str(out)],
                         capture_output=True, text=True, env=dict(clean_env(), MUJOCO_GL=os.environ.get("MUJOCO_GL", "egl")),
                         timeout=300, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    image = np.load(out).astype(float)
    # the water's colour, but for the surface 2 m above, seen through 2 of the 5 m (MuJoCo's black: 100+ off)
    off = np.max(np.abs(image - np.array([0.2, 0.4, 0.6]) * 255), axis=2)
    assert off.max() <= 16 and np.mean(off <= 3) >= 0.5, (off.max(), np.mean(off <= 3))


@pytest.mark.parametrize("block, key, words", [
    ("{rgb: [0.1, 1.5, 0.1]}", "underwater.rgb", "0 to 1"),
    ("{rgb: [0.1, 0.5]}", "underwater.rgb", "expected 3 numbers"),
    ("{visibility: 0.2}", "underwater.visibility", "at least 1"),
    ("{visibility: 5000}", "underwater.visibility", "at most 1000"),
    ("{visibilty: 5}", "underwater", "visibility"),
    ("murky", "underwater", "mapping"),
])
def test_a_bad_underwater_key_is_refused(tmp_path, block, key, words):
    """Which key, what was wrong (the range, did-you-mean for a misspelt key)."""
    from aurgen.config.world import load_world
    from aurgen.core.errors import ConfigError

    (tmp_path / "w.yaml").write_text(TANK + f"underwater: {block}\n")
    with pytest.raises(ConfigError) as exc:
        load_world(tmp_path / "w.yaml")
    assert key in str(exc.value) and words in str(exc.value) and "w.yaml" in str(exc.value), str(exc.value)


def test_underwater_keys_left_out_are_the_cameras_defaults(tmp_path):
    """A key left out of ``underwater`` is written as the camera's default; no key, no numeric."""
    from aurgen.config.world import load_world
    from aurgen.emit import worlds
    from aurgen.runtime.sitl import camera

    (tmp_path / "w.yaml").write_text(TANK + "underwater: {visibility: 20}\n")
    w = load_world(tmp_path / "w.yaml")
    assert w.underwater == (None, 20.0)
    assert [float(x) for x in worlds._underwater(w).split()] == [*camera.WATER_RGB, 20.0]
    (tmp_path / "w.yaml").write_text(TANK)
    plain = load_world(tmp_path / "w.yaml")
    assert plain.underwater is None and worlds._underwater(plain) is None
