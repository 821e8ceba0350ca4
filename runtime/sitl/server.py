"""``aurgen sitl <world-or-vehicle> [--vehicle NAME] [--port 9002] [--bind ADDR] [--speedup X] [--water RHO] [--view]``.

Serves ArduPilot's JSON physics backend on UDP (the socket loop is this module's only I/O): each
datagram goes to the :class:`~aurgen.runtime.sitl.bridge.Bridge`, its reply back to the sender. On a
terminal a status line shows the frames, the simulated time and the real-time factor. The health is
checked as ``aurgen sim`` does (every simulated quarter second, and at the end): an invalid world
stops the run (exit 1). Ctrl-C (or SIGTERM) ends it with a summary (exit 0 while healthy). The port
taken by another program is a clear error (exit 2). ``--speedup X`` holds the run at most X times
real time (default: as fast as ArduPilot asks; ArduPilot paces itself with its SIM_SPEEDUP).
"""

from __future__ import annotations

import errno
import math
import socket
import sys
import time

from aurgen.core.errors import AurgenError
from aurgen.runtime.sitl import protocol
from aurgen.runtime.sitl.ending import CHECK_EVERY, STATUS_EVERY, Stop, interruptible, pace, watcher_lines, watcher_status

BOOK_EVERY = 32  # packets between looks at the health, the status line and the clock
MAX_DATAGRAM = 65536


def bind(address: str, port: int) -> socket.socket:
    """A UDP socket bound to (address, port); AurgenError when it cannot be."""
    if not 0 <= port <= 65535:
        raise AurgenError(f"--port {port}: expected a UDP port 0–65535 (ArduPilot's JSON backend sends to 9002)")
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.bind((address, port))
    except OSError as exc:
        s.close()
        if exc.errno == errno.EADDRINUSE:
            raise AurgenError(f"udp {address}:{port} is in use (another aurgen sitl, or Gazebo's ArduPilotPlugin?): "
                              "stop it, or pass --port (and ArduPilot's --sim-port-out / sim_vehicle.py "
                              "--sim-address to match)") from None
        raise AurgenError(f"--bind {address} --port {port}: cannot listen there ({exc.strerror})") from None
    return s


class Run:
    """The loop's figures: wall time, and the simulated time (the bridge counts what was flown
    before each reset)."""

    def __init__(self, bridge):
        self.bridge = bridge
        self.t0 = time.perf_counter()
        self.started = None  # wall time of the first packet

    def sim_time(self) -> float:
        return self.bridge.counts.flown + float(self.bridge.sim.data.time)

    def rate(self) -> float:
        wall = time.perf_counter() - (self.started or self.t0)
        return self.sim_time() / wall if wall > 0 else 0.0


def serve(bridge, sock, *, speedup: float | None = None, out=sys.stdout, status=None, watchers=()) -> int:
    """Answer packets until Ctrl-C, SIGTERM or invalid health; print the summary; the exit status.

    ``watchers`` look at the world after every reply sent, and every half second while waiting for the
    first packet (a viewer, a video stream): each has
    ``frame(sim)``, called after the reply is sent, returning False to end the run as Ctrl-C does (a
    viewer's window closed); ``summary()``, a line for the summary or None; and ``close()``. A watcher
    decides itself when to act (by wall or simulated time) and must return quickly: ArduPilot waits
    for the next reply.

    Until the first packet the socket waits with a timeout (the status line says so); then it blocks
    (a wait with a timeout costs a poll per packet), and the health, the status line and the pacing
    are looked at every :data:`BOOK_EVERY` packets (the health by simulated time, the status by wall
    time). Ctrl-C and SIGTERM interrupt a blocked wait."""
    run = Run(bridge)
    with interruptible():
        sock.settimeout(STATUS_EVERY)
        while True:  # waiting for ArduPilot
            if status is not None:
                status(_status_line(run, watchers))
            try:
                data, addr = sock.recvfrom(MAX_DATAGRAM)
                break
            except socket.timeout:
                if watchers and not all([w.frame(bridge.sim) for w in watchers]):
                    raise Stop() from None
                continue
        run.started = time.perf_counter()
        sock.settimeout(None)
        answer, recv, send = bridge.answer, sock.recvfrom, sock.sendto
        sim = bridge.sim
        next_check, next_status, n = CHECK_EVERY, 0.0, 0
        while True:
            try:
                reply = answer(data)
            except protocol.NonFinite:  # the state went non-finite: the health says so below
                break
            if reply is not None:
                send(reply, addr)
                if watchers and not all([w.frame(sim) for w in watchers]):
                    break
            n += 1
            if n % BOOK_EVERY == 0 or speedup is not None:
                if speedup is not None:
                    pace(run.sim_time(), speedup, run.started)
                t = run.sim_time()
                if t >= next_check:
                    next_check = t + CHECK_EVERY
                    health = sim.check()
                    if not health.ok:
                        break
                if status is not None and time.perf_counter() >= next_status:
                    next_status = time.perf_counter() + STATUS_EVERY
                    status(_status_line(run, watchers))
            data, addr = recv(MAX_DATAGRAM)
    if status is not None:
        status(None)
    health = bridge.sim.check()
    _summary(run, health, out)
    watcher_lines(watchers, out)
    return 0 if health.ok else 1


def _status_line(run, watchers=()) -> str:
    c = run.bridge.counts
    if run.started is None:
        return "waiting for ArduPilot's first servo packet"
    return (f"frames {c.frames}  t = {run.sim_time():.2f} s  {run.rate():.1f}x real time"
            + (f"  dropped {c.dropped}" if c.dropped else "") + (f"  resets {c.resets}" if c.resets else "")
            + watcher_status(watchers))


def _summary(run, health, out) -> None:
    b, c = run.bridge, run.bridge.counts
    print(f"aurgen sitl: {c.frames} frames, {run.sim_time():.3f} s simulated"
          + (f" at {run.rate():.1f}x real time" if run.started is not None else " (no packet came)")
          + (f", {b.substeps} steps of {b.sim.model.opt.timestep:.6g} s a frame" if c.frames else ""), file=out)
    print(f"  repeats answered: {c.repeats}, resets: {c.resets}, dropped: {c.dropped}"
          + (f" (last: {c.last_drop})" if c.dropped else ""), file=out)
    print(f"  health: {health}", file=out)
    out.flush()


def _terminal_status(stream):
    """A status writer for a terminal (None elsewhere): one line, rewritten."""
    if not stream.isatty():
        return None

    def write(line):
        if line is None:
            stream.write("\r\033[K")
        else:
            stream.write("\r\033[K" + line)
        stream.flush()

    return write


def cli_sitl(args) -> int:
    from aurgen.runtime.environment import schema as envmod
    from aurgen.runtime.sim import cli as simcli
    from aurgen.runtime.sim import loading
    from aurgen.runtime.sim.simulation import Simulation
    from aurgen.runtime.sitl import rig as rigmod
    from aurgen.runtime.sitl.bridge import Bridge

    simcli._check_model(args.model)
    water = args.water
    if water is not None and not (math.isfinite(water) and 1e-3 <= water <= 1e5):
        raise AurgenError(f"--water must be a fluid density in kg/m^3 between 0.001 and 1e5, got {water}")
    speedup = args.speedup
    if speedup is not None and not (math.isfinite(speedup) and speedup > 0):
        raise AurgenError(f"--speedup must be a positive number (times real time), got {speedup}")
    simcli._check_water(args.model, water)
    flown = vehicle_ports(args.vehicle, args.port)
    if getattr(args, "view", False):
        _check_display()
    if water is None and not simcli._declares_environment(args.model):
        water = 1025.0  # a vehicle file: open water, as aurgen view gives it
    with loading.deferred_notes() as notes:
        try:
            sim = Simulation(args.model, water=water)
        except envmod.EnvironmentInvalid as exc:
            raise envmod.EnvironmentInvalid(f"{args.model}: {exc}") from None
    if len(flown) > 1:
        if getattr(args, "video", None):
            sim.close()
            raise AurgenError("--video streams one vehicle's camera: give one --vehicle")
        from aurgen.runtime.sitl.fleet import cli_fleet

        return cli_fleet(args, sim, flown, notes, speedup, bind=bind, status=_terminal_status(sys.stderr))
    try:
        rig = rigmod.find(sim.model, str(args.model), flown[0][0])
        video = _video_plan(args, sim, rig)  # --video's refusals come before the port is bound
        sock = bind(args.bind, flown[0][1])
    except BaseException:
        sim.close()
        raise
    loading.print_notes(notes)
    watchers = []
    try:
        bridge = Bridge(sim, rig)
        if getattr(args, "view", False):
            from aurgen.runtime.sitl.view import Viewer

            watchers.append(Viewer(sim, rig))
        if video is not None:
            from aurgen.runtime.sitl.video import Video

            watchers.append(Video(video, bridge))
        port = sock.getsockname()[1]
        wiring = ", ".join(f"{t.name} SERVO{t.channel}" for t in sorted(rig.thrusters, key=lambda t: t.channel))
        print(f"aurgen sitl: {rig.name} in {args.model} ({wiring}"
              + (f"; {len(rig.rangefinders)} rangefinder(s) as rng_1…" if rig.rangefinders else "") + ")")
        if water is not None and args.water is None:
            print("  open water of 1025 kg/m^3 at z = 0 (a vehicle file; --water RHO to change)")
        print(f"  listening on udp {args.bind}:{port} for ArduPilot's JSON backend "
              f"(sim_vehicle.py ... --model JSON); Ctrl-C ends", flush=True)
        for w in watchers:
            if hasattr(w, "describe"):
                print(w.describe(), flush=True)
        return serve(bridge, sock, speedup=speedup, status=_terminal_status(sys.stderr), watchers=watchers)
    finally:
        for w in watchers:
            w.close()
        sock.close()
        sim.close()


def vehicle_ports(vehicles, port: int) -> list:
    """[(vehicle name or None, UDP port)] from the ``--vehicle`` values (``NAME`` or ``NAME:PORT``, in
    order) and ``--port``: the k-th vehicle without its own port listens on ``port`` + 10·k (ArduPilot's
    instance k; ``--port 0``: any free port for each). AurgenError for a malformed value, a vehicle
    named twice or two vehicles on one port."""
    out = []
    for k, value in enumerate(vehicles or [None]):
        name, own = value, None
        if value is not None and ":" in value:
            name, _, text = value.rpartition(":")
            if not (text.isascii() and text.isdigit() and 1 <= int(text) <= 65535) or not name:
                raise AurgenError(f"--vehicle {value}: expected NAME or NAME:PORT with a UDP port 1–65535")
            own = int(text)
        out.append((name, own if own is not None else (port + 10 * k if port else 0)))
    names = [n for n, _ in out]
    if len(set(names)) < len(names):
        raise AurgenError(f"--vehicle: {', '.join(n for n in names if names.count(n) > 1)} named twice: "
                          "each vehicle is flown by one ArduPilot instance")
    ports = [p for _, p in out if p]
    if len(set(ports)) < len(ports):
        raise AurgenError(f"--vehicle: two vehicles on one port ({', '.join(f'{n}:{p}' for n, p in out)}): "
                          "give each its own (NAME:PORT), or leave the ports to --port + 10·k")
    return out


def _check_display() -> None:
    """``--view`` where no window can open: one line saying so and what to do (before the port is bound)."""
    import os

    from aurgen.runtime.sim.view import no_display_reason

    why = no_display_reason(sys.platform, os.environ)
    if why:
        raise AurgenError(f"--view: {why}: run it on a desktop or with X forwarding (ssh -X), or leave --view "
                          "out (the bridge needs no window)")


def _video_plan(args, sim, rig):
    """``--video``'s checks (URL, host, PyAV, the camera, GL), or None without it."""
    if not getattr(args, "video", None):
        return None
    from aurgen.runtime.sitl.video import Plan

    return Plan(args, sim, rig)
