"""ArduPilot SITL through ``aurgen sitl``: how fast the bridge answers at 400 Hz, against the same world
stepped without it.

Not a test; run by hand from an installed wheel: ``python bench/sitl.py [--frames N] [--world PATH]``.

The open_water world (built into a temporary folder, unless ``--world``) flown as the BlueROV2:
``aurgen sitl`` runs in a process of its own pinned to one core (the client on another where there
is one), and a client sends ArduPilot's 16-channel servo packets at a 400 Hz frame rate (hover-ish
PWM that changes every frame, as ArduSub's outputs do), each sent when the last reply came
(lockstep: ArduPilot waits for every answer). Printed, with the client on another core and then on
the bridge's own: µs per frame of the lockstep loop and its real-time factor (simulated seconds per
wall second: ArduPilot's wait included, here a Python client's), and the bridge process's CPU time
per frame (from /proc), whose inverse is what one core running the bridge answers (the acceptance:
≥ 10x real time at 400 Hz on one core). Linux only (affinity, /proc).
Then, in this process and in interleaved rounds, the same frames three ways: ``plain`` (the
simulation's ``mj_step`` for the frame's steps, thrusts set directly), ``bridge`` (the bridge's
``answer`` on the packet's bytes: decode, PWM to thrust, the steps, the sensors, the JSON), so that
``bridge − plain`` is the bridge's own cost per frame with the same physics.
Then two vehicles at once (``--vehicle blueboat --vehicle bluerov2``, each with its own client socket, both
clients on one core, the bridge pinned to the other): the lockstep loop's real-time factor and the
bridge's CPU per world frame (the acceptance: ≥ 20x real time). And, where PyAV and an offscreen GL
are there, the BlueROV2's camera streamed (``--video`` at 640x480 to a port nobody reads): the lockstep
loop's real-time factor (the acceptance: ≥ 1x) and the frames sent and dropped, from the summary.
Where Xvfb is installed, ``--view`` too: MuJoCo's viewer under that virtual display (Mesa's software
GL), headless and viewed runs interleaved, nothing pinned; the bridge's own cost per frame is a
clock read, and a ``sync()`` (a state copy) 60 times a wall second, but the viewer's drawing takes
a core of its own (the acceptance: within 10 % of headless).
"""

from __future__ import annotations

import argparse
import os
import re
import select
import socket
import subprocess
import statistics
import sys
import tempfile
import time
from pathlib import Path

RATE = 400
CLIENT = str(Path(__file__).resolve().parents[1] / "tests" / "sitl")  # sitl_client: the tests' ArduPilot stand-in
if CLIENT not in sys.path:
    sys.path.insert(0, CLIENT)


def _pwm(i: int) -> list:
    """Varying ESC commands around neutral (the first six channels), like a vehicle holding station."""
    return [1500 + (i * 37 + 13 * k) % 80 - 40 for k in range(6)] + [0] * 10


def _pin(cpu: int):
    def pin():
        os.sched_setaffinity(0, {cpu})
    return pin


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` (Linux /proc), s."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def udp_run(world: Path, frames: int, same_core: bool) -> tuple:
    """(wall µs per frame, the bridge process's CPU µs per frame) over UDP, the bridge pinned to the
    first core and the client to the second (or to the same one: ``same_core``)."""
    from sitl_client import Sitl, packet  # noqa: E402

    cpus = sorted(os.sched_getaffinity(0))
    client_cpu = cpus[0] if same_core or len(cpus) == 1 else cpus[1]
    packets = [packet(i, _pwm(i), RATE) for i in range(frames)]
    with Sitl(world, "--vehicle", "bluerov2", preexec_fn=_pin(cpus[0])) as s:
        os.sched_setaffinity(0, {client_cpu})
        for p in packets[:200]:  # warm-up
            s.ask(p)
        cpu0, t0 = _cpu_seconds(s.proc.pid), time.perf_counter()
        for p in packets[200:]:
            s.ask(p)
        wall, cpu = time.perf_counter() - t0, _cpu_seconds(s.proc.pid) - cpu0
        s.stop()
    os.sched_setaffinity(0, set(cpus))
    n = frames - 200
    return wall / n * 1e6, cpu / n * 1e6


def fleet_run(world: Path, frames: int, same_core: bool) -> tuple:
    """(wall µs per world frame, the bridge's CPU µs per world frame): the BlueBoat and the BlueROV2
    each at 400 Hz from its own socket, both sent before either reply is read (two ArduPilots); the
    clients on the other core, or on the bridge's own (``same_core``)."""
    from sitl_client import aurgen_cmd, clean_env, packet  # noqa: E402

    cpus = sorted(os.sched_getaffinity(0))
    names = ("blueboat", "bluerov2")
    cmd = aurgen_cmd() + ["sitl", str(world), "--port", "0"] + [a for n in names for a in ("--vehicle", n)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean_env(),
                            preexec_fn=_pin(cpus[0]))
    ports = {}
    for line in proc.stdout:
        m = re.match(r"\s+(\w+) \(.*\): listening on udp [0-9.]+:(\d+)", line)
        if m:
            ports[m[1]] = int(m[2])
        if line.strip() == "Ctrl-C ends":
            break
    os.sched_setaffinity(0, {cpus[0] if same_core else cpus[-1]})
    socks = {n: socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for n in names}
    try:
        def frame(i):
            for n in names:
                socks[n].sendto(packet(i, _pwm(i), RATE), ("127.0.0.1", ports[n]))
            for n in names:
                assert select.select([socks[n]], [], [], 10.0)[0], "no reply"
                socks[n].recvfrom(65536)
        for i in range(200):
            frame(i)
        cpu0, t0 = _cpu_seconds(proc.pid), time.perf_counter()
        for i in range(200, frames):
            frame(i)
        wall, cpu = time.perf_counter() - t0, _cpu_seconds(proc.pid) - cpu0
    finally:
        proc.send_signal(2)
        proc.communicate(timeout=60)
        for s in socks.values():
            s.close()
        os.sched_setaffinity(0, set(cpus))
    n = frames - 200
    return wall / n * 1e6, cpu / n * 1e6


def video_run(world: Path, frames: int, paced: bool) -> tuple | None:
    """(wall µs per frame, frames flown, video frames sent, dropped) of the BlueROV2 with ``--video`` at 640x480 to a
    port nobody reads, the client sending as fast as the replies come or, ``paced``, at ArduPilot's
    pace at SIM_SPEEDUP 1 (frame k sent k/400 s after the first, as a pilot flies); None where the
    stream cannot start here (no PyAV, no offscreen GL)."""
    from sitl_client import Sitl, packet  # noqa: E402

    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    with tempfile.TemporaryDirectory() as tmp:
        try:
            s = Sitl(world, "--vehicle", "bluerov2", "--video", f"udp://127.0.0.1:{port}", "--video-size", "640x480",
                     "--video-sdp", str(Path(tmp) / "v.sdp"))
        except AssertionError as exc:
            print(f"  (--video not measured: {str(exc).strip().splitlines()[-1]})")
            return None
        with s:
            t0 = time.perf_counter()
            for i in range(frames):
                if paced:
                    ahead = t0 + i / RATE - time.perf_counter()
                    if ahead > 0:
                        time.sleep(ahead)
                s.ask(packet(i, _pwm(i), RATE))
            wall = time.perf_counter() - t0
            _, out, _ = s.stop()
    m = re.search(r"video: (\d+) frames sent, (\d+) dropped", out)
    assert m, out
    return wall / frames * 1e6, frames, int(m[1]), int(m[2])


def view_runs(world: Path, frames: int, rounds: int = 3) -> dict | None:
    """Real-time factors of the BlueROV2's lockstep loop without and with ``--view`` (MuJoCo's viewer under
    a virtual display, Xvfb, drawn by Mesa's software GL), interleaved over ``rounds``, nothing pinned (the
    viewer draws in a thread of its own): {"headless": [...], "--view": [...]}; None without Xvfb."""
    import shutil

    from sitl_client import Sitl, packet  # noqa: E402

    if shutil.which("Xvfb") is None:
        print("  (--view not measured: no Xvfb)")
        return None
    n = next(n for n in range(90, 140) if not Path(f"/tmp/.X11-unix/X{n}").exists())
    xvfb = subprocess.Popen(["Xvfb", f":{n}", "-screen", "0", "1280x720x24", "-nolisten", "tcp"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    saved = {k: os.environ.get(k) for k in ("DISPLAY", "MUJOCO_GL")}
    os.environ.update(DISPLAY=f":{n}", MUJOCO_GL="glfw")
    out = {"headless": [], "--view": []}
    try:
        time.sleep(1.0)
        for _ in range(rounds):
            for name, extra in (("headless", ()), ("--view", ("--view",))):
                with Sitl(world, "--vehicle", "bluerov2", *extra) as s:
                    for i in range(400):
                        s.ask(packet(i, _pwm(i), RATE))
                    t0 = time.perf_counter()
                    for i in range(400, 400 + frames):
                        s.ask(packet(i, _pwm(i), RATE))
                    out[name].append(frames / RATE / (time.perf_counter() - t0))
                    s.stop()
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        xvfb.terminate()
        xvfb.wait(timeout=30)
    return out


def in_process(world: Path, frames: int, rounds: int) -> dict:
    """Median µs per frame: ``plain`` and ``bridge``, interleaved in each round."""
    from aurgen.runtime.sim import Simulation
    from aurgen.runtime.sitl import protocol, rig as rigmod, thrust
    from aurgen.runtime.sitl.bridge import Bridge

    sims = {k: Simulation(str(world)) for k in ("plain", "bridge")}
    rig = rigmod.find(sims["bridge"].model, str(world), "bluerov2")
    bridge = Bridge(sims["bridge"], rig)
    packets = [protocol.encode(protocol.ServoPacket(RATE, i, tuple(_pwm(i)))) for i in range(frames * rounds)]
    bridge.answer(packets[0])
    plain = sims["plain"]
    plain.model.opt.timestep = sims["bridge"].model.opt.timestep
    n = bridge.substeps
    times = {"plain": [], "bridge": []}
    for r in range(rounds):
        chunk = packets[r * frames:(r + 1) * frames]
        decoded = [protocol.decode(p) for p in chunk]
        t0 = time.perf_counter()
        for p in decoded:
            for t in rig.thrusters:
                plain.data.ctrl[t.actuator] = thrust.thrust(t.pwms, t.thrusts, p.pwm[t.channel - 1])
            plain.step(n)
        times["plain"].append((time.perf_counter() - t0) / frames * 1e6)
        t0 = time.perf_counter()
        for p in chunk:
            bridge.answer(p)
        times["bridge"].append((time.perf_counter() - t0) / frames * 1e6)
    return {k: statistics.median(v) for k, v in times.items()} | {"substeps": n}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=8000, help="frames over UDP (default 8000: 20 s at 400 Hz)")
    ap.add_argument("--world", help="an open_water world built by aurgen (default: build one)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        world = Path(args.world) if args.world else None
        if world is None:
            from aurgen.cli import main as aurgen

            assert aurgen(["build", "--all", "-o", tmp]) == 0
            world = Path(tmp) / "worlds" / "open_water.xml"
        runs = {"client on another core": udp_run(world, args.frames, False),
                "client on the same core": udp_run(world, args.frames, True)}
        ip = in_process(world, 2000, 5)
        fleet = {"clients on another core": fleet_run(world, args.frames, False),
                 "clients on the same core": fleet_run(world, args.frames, True)}
        view = view_runs(world, min(args.frames, 4000))
        video = {"as fast as the replies come": video_run(world, min(args.frames, 2400), False),
                 "at ArduPilot's pace (SIM_SPEEDUP 1)": video_run(world, 8 * RATE, True)}
    print(f"aurgen sitl, the BlueROV2 in open_water at {RATE} Hz ({ip['substeps']} steps a frame), "
          f"{args.frames - 200} frames over UDP in lockstep, the bridge pinned to one core:")
    for name, (wall, cpu) in runs.items():
        print(f"  {name:24s} {wall:7.1f} µs/frame  {1e6 / wall / RATE:5.1f}x real time;  the bridge's CPU "
              f"{cpu:6.1f} µs/frame (one core answers {1e6 / cpu / RATE:5.1f}x real time)")
    print(f"  in process: plain {ip['plain']:7.1f} µs/frame, bridge {ip['bridge']:7.1f} µs/frame "
          f"(the bridge's own: {ip['bridge'] - ip['plain']:.1f} µs)")
    print("  two vehicles (blueboat, bluerov2), each its own client socket, per world frame:")
    for name, (wall, cpu) in fleet.items():
        print(f"  {name:24s} {wall:7.1f} µs/frame  {1e6 / wall / RATE:5.1f}x real time;  the bridge's CPU "
              f"{cpu:6.1f} µs/frame (one core answers {1e6 / cpu / RATE:5.1f}x real time)")
    if view is not None:
        h, v = statistics.median(view["headless"]), statistics.median(view["--view"])
        print(f"  --view (Xvfb, software GL), nothing pinned, median of {len(view['headless'])} interleaved rounds: "
              f"{v:5.1f}x real time against {h:5.1f}x headless ({v / h:.0%}; rounds "
              f"{', '.join(f'{a:.1f}/{b:.1f}' for a, b in zip(view['--view'], view['headless']))})")
    for name, v in video.items():
        if v is not None:
            wall, frames, sent, dropped = v
            secs = wall * 1e-6 * frames
            print(f"  --video 640x480, {name}: {wall:7.1f} µs/frame  {1e6 / wall / RATE:5.1f}x real time;  video "
                  f"frames sent {sent / secs:.1f}/s, dropped {dropped / secs:.1f}/s of wall time ({sent} and {dropped} "
                  f"over {frames / RATE:.1f} s simulated)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
