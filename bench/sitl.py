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
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

RATE = 400


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
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "sitl"))
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
    print(f"aurgen sitl, the BlueROV2 in open_water at {RATE} Hz ({ip['substeps']} steps a frame), "
          f"{args.frames - 200} frames over UDP in lockstep, the bridge pinned to one core:")
    for name, (wall, cpu) in runs.items():
        print(f"  {name:24s} {wall:7.1f} µs/frame  {1e6 / wall / RATE:5.1f}x real time;  the bridge's CPU "
              f"{cpu:6.1f} µs/frame (one core answers {1e6 / cpu / RATE:5.1f}x real time)")
    print(f"  in process: plain {ip['plain']:7.1f} µs/frame, bridge {ip['bridge']:7.1f} µs/frame "
          f"(the bridge's own: {ip['bridge'] - ip['plain']:.1f} µs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
