"""The bridge: one servo packet in, the simulation stepped, one reply out (no sockets here).

    bridge = Bridge(sim, rig)
    out = bridge.answer(datagram)   # bytes to send back, or None (a packet dropped)

Per packet (ArduPilot's JSON examples' loop, ``libraries/SITL/examples/JSON/``): a datagram that is no
servo packet is counted and dropped; a new frame count sets each thruster's thrust from its PWM and
steps the world by 1/frame_rate; the same count again is answered with the last reply and not
stepped; a count below the last resets the world (then steps that frame). The frame's time is split
into the fewest equal steps no longer than the world's own timestep (400 Hz on a 2 ms world: two
steps of 1.25 ms), so the physics time ArduPilot reads advances by exactly 1/frame_rate a frame.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mujoco
from aurgen.runtime.sitl import measure, protocol, thrust
from aurgen.runtime.sitl.lockstep import REPEAT, RESET, Lockstep


@dataclass
class Counts:
    """What the bridge has done: frames stepped, repeats answered, resets, datagrams dropped (by reason)."""

    frames: int = 0
    repeats: int = 0
    resets: int = 0
    dropped: int = 0
    last_drop: str = ""
    flown: float = 0.0  # simulated seconds before the last reset


class Bridge:
    """Drives ``sim`` (an :class:`aurgen.runtime.sim.Simulation`) for the vehicle ``rig``
    (:func:`aurgen.runtime.sitl.rig.find`)."""

    def __init__(self, sim, rig):
        self.sim, self.rig = sim, rig
        self.world_dt = float(sim.model.opt.timestep)
        self.lockstep = Lockstep()
        self.counts = Counts()
        self.last_reply = None
        self.substeps = 0
        self.gravity = measure.Gravity(sim)
        self._actuators = thrust.ctrl_index(t.actuator for t in rig.thrusters)
        self._dt = None
        self._start()

    def _start(self):
        """After a (re)set: home is the vehicle's position now; the IMU starts from its velocity now."""
        d = self.sim.data
        self.home = tuple(d.qpos[self.rig.qpos: self.rig.qpos + 3].tolist())
        self.v_imu = measure.imu_velocity(d, self.rig)

    def answer(self, datagram: bytes):
        """The reply to one datagram (bytes), or None when it is dropped."""
        try:
            packet = protocol.decode(datagram)
        except protocol.PacketRefused as exc:
            self.counts.dropped += 1
            self.counts.last_drop = str(exc)
            return None
        action = self.lockstep.action(packet.frame_count)
        if action == REPEAT and self.last_reply is not None:
            self.counts.repeats += 1
            return self.last_reply
        if action == RESET:
            self.counts.flown += float(self.sim.data.time)
            self.sim.reset()
            self.counts.resets += 1
            self._start()
        self.last_reply = self.step(packet)
        return self.last_reply

    def _timestep(self, dt: float) -> int:
        """Steps per frame of ``dt`` s; sets the model's timestep to dt / steps (≤ the world's)."""
        n = max(1, math.ceil(dt / self.world_dt * (1 - 1e-12)))
        self.sim.model.opt.timestep = dt / n
        self.substeps, self._dt = n, dt
        return n

    def step(self, packet) -> bytes:
        """Apply ``packet``'s PWM, step one frame, and the reply."""
        sim, rig = self.sim, self.rig
        sim.data.ctrl[self._actuators] = thrust.thrusts(rig.thrusters, packet.pwm)
        dt = packet.dt
        n = self.substeps if dt == self._dt else self._timestep(dt)
        sim.step(n)
        rng = ()
        if rig.rangefinders:
            mujoco.mj_kinematics(sim.model, sim.data)
            rng = measure.ranges(sim.model, sim.data, rig)
        state, self.v_imu = measure.fdm(sim.data, rig, self.gravity, self.home, self.v_imu, dt, rng)
        self.counts.frames += 1
        return protocol.reply(state)
