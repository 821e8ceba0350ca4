"""The vehicle ArduPilot flies, found in a compiled world or vehicle model (reads MjModel only).

``aurgen build`` writes, per thruster, the MJCF numerics ``aurgen:thrust_curve:<thruster>`` (PWM µs,
thrust N pairs) and, where the vehicle's chassis declares its ArduPilot wiring,
``aurgen:servo_channel:<thruster>`` (the SERVOn output driving it, 1-based); per downward
echosounder or rangefinder ``aurgen:rangefinder:<site>`` (the beam's direction in that site's frame).
A world prefixes them with the vehicle's name (``bluerov2/aurgen:thrust_curve:thruster_1``), as it
does the actuator (``bluerov2/thruster_1``) and the sites. The IMU is the root link's ``imu`` frame
(the site ``<root>_imu``).
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from aurgen.core.errors import AurgenError
from aurgen.runtime.sitl import thrust

CURVE, SERVO, RANGE = "aurgen:thrust_curve:", "aurgen:servo_channel:", "aurgen:rangefinder:"
MAX_CHANNEL = 32  # ArduPilot's servo packet carries 16 or 32 outputs


class RigError(AurgenError):
    """The model holds no vehicle the bridge can fly, or not the one asked for."""


@dataclass(frozen=True)
class Thruster:
    """One thruster: its actuator (``ctrl`` is thrust, N), SERVOn channel (1-based), PWM curve: ``pwms``
    (µs, ascending) and ``thrusts`` (N); ``table``: the thrust at each whole PWM 0…2200 µs."""

    name: str
    actuator: int
    channel: int
    pwms: tuple
    thrusts: tuple
    table: tuple


@dataclass(frozen=True)
class Rangefinder:
    """A rangefinder's site, its beam direction in the site's frame (unit), and the body the site is on
    (the transducer's housing, which its beam starts inside)."""

    site: int
    direction: np.ndarray
    body: int


@dataclass(frozen=True)
class Rig:
    """A vehicle: ``name`` (its world prefix without the slash; the model's name for a vehicle file),
    ``body`` (its free root body), ``qpos``/``qvel`` (its free joint's addresses), ``imu`` (the IMU
    point in the root body's frame, m), thrusters and rangefinders (in order: rng_1, rng_2, …)."""

    name: str
    body: int
    qpos: int
    qvel: int
    imu: tuple
    thrusters: tuple
    rangefinders: tuple


def _numerics(m, tag: str) -> dict:
    """{(prefix, local name): data} of the numerics named ``<prefix><tag><local name>``."""
    out = {}
    for i in range(m.nnumeric):
        name = m.numeric(i).name
        k = name.find(tag)
        if k >= 0:
            out[(name[:k], name[k + len(tag):])] = np.array(m.numeric(i).data, float)
    return out


def vehicles(m) -> list[str]:
    """The prefixes ('' for a vehicle file, 'bluerov2/' in a world) of the vehicles with thrust curves."""
    return sorted({p for p, _ in _numerics(m, CURVE)})


def find(m, source: str, vehicle: str | None = None) -> Rig:
    """The vehicle ``vehicle`` (its name in the world; None: the only one with thrusters) of
    ``source``'s compiled model ``m``; RigError naming what is missing and what to do."""
    found = vehicles(m)
    names = [p.rstrip("/") or m.names[: m.names.index(b"\0")].decode() for p in found]
    if not found:
        raise RigError(f"{source}: no vehicle with thrust curves (aurgen:thrust_curve numerics): build the "
                       "vehicle and world again with this aurgen ('aurgen build --all')")
    if vehicle is None:
        if len(found) > 1:
            raise RigError(f"{source}: {len(found)} vehicles with thrusters ({', '.join(names)}): "
                           "choose one with --vehicle NAME")
        prefix, name = found[0], names[0]
    else:
        if vehicle not in names:
            raise RigError(f"{source}: --vehicle {vehicle}: no such vehicle with thrusters here "
                           f"(there is {', '.join(names)})")
        prefix, name = found[names.index(vehicle)], vehicle
    curves = {n: c for (p, n), c in _numerics(m, CURVE).items() if p == prefix}
    servos = {n: c for (p, n), c in _numerics(m, SERVO).items() if p == prefix}
    thrusters = []
    for local in sorted(curves):
        a = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_ACTUATOR, prefix + local)
        if a < 0:
            raise RigError(f"{source}: {prefix}{CURVE}{local} names no actuator {prefix}{local}")
        if local not in servos:
            raise RigError(f"{source}: vehicle {name}: thruster {local} has no ArduPilot output "
                           f"({prefix}{SERVO}{local}): its chassis declares no ArduPilot wiring")
        ch = servos[local]
        if ch.size != 1 or ch[0] != int(ch[0]) or not 1 <= ch[0] <= MAX_CHANNEL:
            raise RigError(f"{source}: {prefix}{SERVO}{local}: expected one SERVOn number 1–{MAX_CHANNEL}")
        try:
            curve = thrust.curve_from_numeric(curves[local])
        except ValueError as exc:
            raise RigError(f"{source}: {prefix}{CURVE}{local}: {exc}") from None
        pwms, thrusts = tuple(curve[:, 0].tolist()), tuple(curve[:, 1].tolist())
        thrusters.append(Thruster(local, a, int(ch[0]), pwms, thrusts, thrust.table(pwms, thrusts)))
    body = int(m.body_rootid[m.site_bodyid[m.actuator_trnid[thrusters[0].actuator, 0]]]
               if m.actuator_trntype[thrusters[0].actuator] == mujoco.mjtTrn.mjTRN_SITE else 0)
    joint = m.body_jntadr[body] if body > 0 else -1
    if joint < 0 or m.jnt_type[joint] != mujoco.mjtJoint.mjJNT_FREE:
        raise RigError(f"{source}: vehicle {name}: its thrusters' root body has no free joint")
    return Rig(name, body, int(m.jnt_qposadr[joint]), int(m.jnt_dofadr[joint]), _imu(m, body),
               tuple(thrusters), _rangefinders(m, prefix, source))


def _imu(m, body: int) -> tuple:
    """The IMU site ``<root>_imu`` on the root body, in its frame; the body origin without one."""
    root = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, body) or ""
    s = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_SITE, f"{root}_imu")
    if s < 0 or m.site_bodyid[s] != body:
        return (0.0, 0.0, 0.0)
    return tuple(float(c) for c in m.site_pos[s])


def _rangefinders(m, prefix: str, source: str) -> tuple:
    out = []
    for (p, local), data in sorted(_numerics(m, RANGE).items()):
        if p != prefix:
            continue
        s = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_SITE, prefix + local)
        n = float(np.linalg.norm(data)) if data.size == 3 and np.all(np.isfinite(data)) else 0.0
        if s < 0 or n == 0.0:
            raise RigError(f"{source}: {prefix}{RANGE}{local}: expected a site's name and a beam direction "
                           "(three numbers, not all zero)")
        out.append(Rangefinder(s, data / n, int(m.site_bodyid[s])))
    return tuple(out[:6])  # ArduPilot reads rng_1 … rng_6
