"""Several vehicles flown at once, each by its own ArduPilot instance, in one world.

``aurgen sitl WORLD --vehicle blueboat --vehicle bluerov2``: the k-th vehicle listens on its own UDP
port (``--port`` + 10·k: 9002, 9012, as ``sim_vehicle.py -I 0``, ``-I 1`` send to; or ``NAME:PORT``).
Each instance is in lockstep with the world, as gz-sim steps only once every ArduPilotPlugin has its
packet: the world steps when every flown vehicle has sent the packet for its next frame, to the
earliest time any of them asks for (instances may run at different frame rates), and each vehicle
whose frame ends there gets its reply, carrying its own state at its own frame's time; the others keep
their packet for a later step. Per vehicle, as for one (``lockstep``): the same frame count again gets
its last reply without a step; a datagram that is no servo packet is counted and dropped. A count
going back (a restarted instance) resets the WORLD, every vehicle with it (one world has one clock:
the other instances see their time go back and ArduPilot's "Detected physics reset"). A vehicle silent
for :data:`SILENT_AFTER` s of wall time while the others wait stops the run naming it, unless
``wait`` (``--wait``) says to wait for it.
"""

from __future__ import annotations

import math
import select
import time
from dataclasses import dataclass, field

import mujoco
from aurgen.core.errors import AurgenError
from aurgen.runtime.sitl import measure, protocol, thrust
from aurgen.runtime.sitl.ending import CHECK_EVERY, STATUS_EVERY, interruptible, pace, watcher_lines, watcher_status
from aurgen.runtime.sitl.lockstep import REPEAT, RESET, Lockstep

SILENT_AFTER = 10.0  # s of wall time a vehicle may keep the others waiting
EPS = 1e-9  # s: a frame's end within this of the world's time is answered with it
POLL = 0.5  # s: the longest wait on the sockets before looking at the clock, the status and the watchers
MAX_DATAGRAM = 65536


class Silent(AurgenError):
    """A flown vehicle sent nothing for SILENT_AFTER seconds while the world waited for it."""


@dataclass
class Pilot:
    """One flown vehicle: its rig, socket and lockstep; ``packet`` the servo packet for its next frame
    (None until it comes), ``due`` the world time that frame ends at (s), ``last`` the world time of its
    last reply (s); its counts as the single bridge keeps them."""

    rig: object
    sock: object
    lockstep: Lockstep = field(default_factory=Lockstep)
    packet: object = None
    addr: object = None
    due: float = math.inf
    last: float = 0.0
    reply: bytes | None = None
    home: tuple = (0.0, 0.0, 0.0)
    v_imu: tuple = (0.0, 0.0, 0.0)
    frames: int = 0
    repeats: int = 0
    resets: int = 0
    dropped: int = 0
    waited_since: float | None = None


class Fleet:
    """The world ``sim`` flown by ``pilots`` (one per vehicle, each with its bound socket)."""

    def __init__(self, sim, pilots):
        self.sim, self.pilots = sim, pilots
        self.world_dt = float(sim.model.opt.timestep)
        self.gravity = measure.Gravity(sim)
        self._actuators = [thrust.ctrl_index(t.actuator for t in p.rig.thrusters) for p in pilots]
        # one poll set for the run, a socket in it while the world waits for its vehicle's packet
        # (select.select would rebuild its sets at every wait; poll is POSIX, select the fallback)
        self._poll = select.poll() if hasattr(select, "poll") else None
        self._by_fd = {p.sock.fileno(): p for p in pilots}
        if self._poll is not None:
            for fd in self._by_fd:
                self._poll.register(fd, select.POLLIN)
        self.resets = 0
        self.flown = 0.0  # simulated seconds before the last reset
        self._start()

    def _start(self):
        d = self.sim.data
        for p in self.pilots:
            p.home = tuple(d.qpos[p.rig.qpos: p.rig.qpos + 3].tolist())
            p.v_imu = measure.imu_velocity(d, p.rig)
            p.last = 0.0
            p.due = p.packet.dt if p.packet is not None else math.inf

    def receive(self, p: Pilot, data: bytes, addr) -> None:
        """A datagram from ``p``'s instance: dropped, answered (a repeat), or kept as its next frame's."""
        try:
            packet = protocol.decode(data)
        except protocol.PacketRefused:
            p.dropped += 1
            return
        action = p.lockstep.action(packet.frame_count)
        if action == REPEAT and p.reply is not None:
            p.repeats += 1
            p.sock.sendto(p.reply, addr)
            return
        p.packet, p.addr, p.waited_since = packet, addr, None
        if self._poll is not None:
            self._poll.modify(p.sock, 0)  # its next datagram waits in the socket until this frame is answered
        if action == RESET:
            self.flown += float(self.sim.data.time)
            self.sim.reset()
            self.resets += 1
            p.resets += 1
            self._start()
        else:
            p.due = p.last + packet.dt

    def ready(self) -> bool:
        return all(p.packet is not None for p in self.pilots)

    def step(self) -> None:
        """Every vehicle has its packet: apply each one's PWM, step to the earliest frame end, reply to
        every vehicle whose frame ends there."""
        sim, d = self.sim, self.sim.data
        for p, actuators in zip(self.pilots, self._actuators):
            d.ctrl[actuators] = thrust.thrusts(p.rig.thrusters, p.packet.pwm)
        target = min(p.due for p in self.pilots)
        span = target - float(d.time)
        if span > EPS:
            n = max(1, math.ceil(span / self.world_dt * (1 - 1e-12)))
            sim.model.opt.timestep = span / n
            sim.step(n)
        now = float(d.time)
        kinematics = False
        for p in self.pilots:
            if p.due > now + EPS:
                continue
            rng = ()
            if p.rig.rangefinders:
                if not kinematics:
                    mujoco.mj_kinematics(sim.model, d)
                    kinematics = True
                rng = measure.ranges(sim.model, d, p.rig)
            state, p.v_imu = measure.fdm(d, p.rig, self.gravity, p.home, p.v_imu, max(now - p.last, EPS), rng)
            p.reply = protocol.reply(state)
            p.frames += 1  # counted before it goes: a Ctrl-C right after the send finds it in the summary
            p.last, p.packet, p.due = now, None, math.inf
            p.sock.sendto(p.reply, p.addr)
            if self._poll is not None:
                self._poll.modify(p.sock, select.POLLIN)

    def wait(self, timeout: float, wait_forever: bool, clock=time.perf_counter) -> None:
        """Read what has come from the vehicles the world waits for (at most ``timeout`` s); Silent
        when one of them has kept it waiting for SILENT_AFTER s (after its first packet)."""
        if self._poll is not None:
            readable = [self._by_fd[fd] for fd, ev in self._poll.poll(timeout * 1000.0) if ev & select.POLLIN]
        else:
            socks = select.select([p.sock for p in self.pilots if p.packet is None], [], [], timeout)[0]
            readable = [p for p in self.pilots if p.sock in socks]
        for p in readable:
            data, addr = p.sock.recvfrom(MAX_DATAGRAM)
            self.receive(p, data, addr)
        if wait_forever:
            return
        now = clock()
        for p in self.pilots:
            if p.packet is None and p not in readable and p.lockstep.last is not None:
                p.waited_since = p.waited_since or now
                if now - p.waited_since > SILENT_AFTER:
                    raise Silent(f"vehicle {p.rig.name} sent nothing for {SILENT_AFTER:g} s while the world "
                                 f"waited for it (its ArduPilot stopped?): the run ends here; --wait waits for it")

    def sim_time(self) -> float:
        return self.flown + float(self.sim.data.time)


def serve(fleet: Fleet, *, wait_forever: bool = False, speedup: float | None = None, out=None, status=None,
          watchers=()) -> int:
    """Fly the fleet until Ctrl-C, SIGTERM, a silent vehicle or invalid health; the summary; the exit
    status (0 while healthy; 1 for invalid health or a silent vehicle). ``speedup``: at most that many
    times real time (the world waits after a step that ran ahead of the wall clock, so every instance's
    replies come at that pace). ``watchers`` as :func:`aurgen.runtime.sitl.server.serve` takes them,
    after every world step."""
    import sys

    out = out or sys.stdout
    t0, started, silent = time.perf_counter(), None, None
    next_check, next_status = CHECK_EVERY, 0.0
    with interruptible():
        while True:
            if fleet.ready():
                if started is None:
                    started = time.perf_counter()
                fleet.step()
                if watchers and not all([w.frame(fleet.sim) for w in watchers]):
                    break
                t = fleet.sim_time()
                if speedup is not None:
                    pace(t, speedup, started)
                if t >= next_check:
                    next_check = t + CHECK_EVERY
                    if not fleet.sim.check().ok:
                        break
            else:
                try:
                    fleet.wait(POLL, wait_forever)
                except Silent as exc:
                    silent = exc
                    break
                if watchers and not all([w.frame(fleet.sim) for w in watchers]):
                    break
            if status is not None and time.perf_counter() >= next_status:
                next_status = time.perf_counter() + STATUS_EVERY
                status(_status_line(fleet, started, watchers))
    if status is not None:
        status(None)
    health = fleet.sim.check()
    wall = time.perf_counter() - (started or t0)
    print(f"aurgen sitl: {fleet.sim_time():.3f} s simulated"
          + (f" at {fleet.sim_time() / wall:.1f}x real time" if started is not None and wall > 0 else
             " (not every vehicle's packet came)") + f", world resets: {fleet.resets}", file=out)
    for p in fleet.pilots:
        print(f"  {p.rig.name}: {p.frames} frames, repeats answered: {p.repeats}, resets asked: {p.resets}, "
              f"dropped: {p.dropped}", file=out)
    if silent is not None:
        print(f"  stopped: {silent}", file=out)
    print(f"  health: {health}", file=out)
    watcher_lines(watchers, out)
    return 0 if health.ok and silent is None else 1


def _status_line(fleet: Fleet, started, watchers=()) -> str:
    if started is None:
        missing = [p.rig.name for p in fleet.pilots if p.lockstep.last is None]
        return "waiting for the first servo packet of " + ", ".join(missing)
    return (f"t = {fleet.sim_time():.2f} s  " + "  ".join(f"{p.rig.name} {p.frames}" for p in fleet.pilots)
            + watcher_status(watchers))


def cli_fleet(args, sim, flown, notes, speedup, *, bind, status) -> int:
    """``aurgen sitl`` with several ``--vehicle``: find each, bind each port with ``bind(address, port)``
    (nothing bound if one cannot be), print where each listens, fly them (``status``: the terminal's
    status writer or None); closes ``sim``."""
    from aurgen.runtime.sim import loading
    from aurgen.runtime.sitl import rig as rigmod

    pilots = []
    try:
        rigs = [rigmod.find(sim.model, str(args.model), name) for name, _ in flown]
        for rig, (_, port) in zip(rigs, flown):
            pilots.append(Pilot(rig, bind(args.bind, port)))
    except BaseException:
        for p in pilots:
            p.sock.close()
        sim.close()
        raise
    loading.print_notes(notes)
    watchers = []
    try:
        fleet = Fleet(sim, pilots)
        if getattr(args, "view", False):
            from aurgen.runtime.sitl.view import Viewer

            watchers.append(Viewer(sim, pilots[0].rig))
        print(f"aurgen sitl: {len(pilots)} vehicles in {args.model}, each flown by its own ArduPilot instance; "
              "the world steps when every one has sent its next frame")
        for k, p in enumerate(pilots):
            wiring = ", ".join(f"{t.name} SERVO{t.channel}" for t in sorted(p.rig.thrusters, key=lambda t: t.channel))
            port = p.sock.getsockname()[1]
            print(f"  {p.rig.name} ({wiring}): listening on udp {args.bind}:{port} "
                  f"(sim_vehicle.py -I {k} ... --model JSON, or --sim-port-out {port})")
        print("  Ctrl-C ends", flush=True)
        return serve(fleet, wait_forever=args.wait, speedup=speedup, status=status, watchers=watchers)
    finally:
        for w in watchers:
            w.close()
        for p in pilots:
            p.sock.close()
        sim.close()
