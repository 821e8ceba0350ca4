"""What the vehicle's sensors read, in ArduPilot's frames (from the simulation's state).

All of it comes from the free root joint's ``qpos``/``qvel`` after the frame's steps (exact, not a
step behind as MuJoCo's derived quantities are after ``mj_step``):

* ``position``: the root link origin from home (its position when the world was reset), NED, m;
* ``velocity``: the root link origin's, NED, m/s;
* ``quaternion``: the body FRD attitude in NED;
* ``gyro``: the body's angular velocity, FRD, rad/s;
* ``accel_body``: the specific force at the IMU point, body FRD, m/s²: the change of the IMU point's
  velocity over the frame divided by the frame's time, less gravity there (the world's field at the
  point: uniform, central, linear, or a cell's own), as an integrating accelerometer reports a frame
  (level at rest: [0, 0, −g]);
* ``rng``: each rangefinder's distance along its beam to the first collision geom not of the vehicle
  (m), or :data:`NO_ECHO` when the beam meets nothing: beyond any rangefinder's maximum, so ArduPilot
  reads "out of range".

Per-frame arithmetic is on Python floats (three-vectors as tuples): at ArduPilot's 400 Hz the
bridge's own work is the cost that matters next to a few microseconds of ``mj_step``.
"""

from __future__ import annotations

import mujoco
import numpy as np

from aurgen.runtime.sitl import frames
from aurgen.runtime.sitl.protocol import Fdm

NO_ECHO = 1000.0  # m
MAX_OWN_GEOMS = 64  # the vehicle's own geoms a beam may start among


def _rot(q) -> tuple:
    """Rows of the rotation matrix of unit quaternion q = (w, x, y, z) (body to world)."""
    w, x, y, z = q
    return ((1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)),
            (2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)),
            (2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)))


def _mul(R, v) -> tuple:
    return (R[0][0] * v[0] + R[0][1] * v[1] + R[0][2] * v[2], R[1][0] * v[0] + R[1][1] * v[1] + R[1][2] * v[2],
            R[2][0] * v[0] + R[2][1] * v[1] + R[2][2] * v[2])


def _tmul(R, v) -> tuple:
    """Rᵀ v."""
    return (R[0][0] * v[0] + R[1][0] * v[1] + R[2][0] * v[2], R[0][1] * v[0] + R[1][1] * v[1] + R[2][1] * v[2],
            R[0][2] * v[0] + R[1][2] * v[1] + R[2][2] * v[2])


def _cross(a, b) -> tuple:
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _imu_velocity(R, lin, w, rig) -> tuple:
    """The IMU point's velocity (world ENU, m/s) from the root's rotation, origin velocity (ENU) and
    angular velocity (body FLU, a free joint's)."""
    return _add(lin, _mul(R, _cross(w, rig.imu)))


def imu_velocity(d, rig) -> tuple:
    """The IMU point's velocity, world ENU, m/s."""
    q = d.qpos[rig.qpos + 3: rig.qpos + 7].tolist()
    v = d.qvel[rig.qvel: rig.qvel + 6].tolist()
    return _imu_velocity(_rot(q), v[:3], v[3:], rig)


def _add(a, b) -> tuple:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


class Gravity:
    """The gravitational acceleration at a world point (m/s², ENU): the environment's
    (``Environment.gravity_at``), or the model's ``opt.gravity`` without an environment; ``const``
    where it is one everywhere (looked up once, not per frame)."""

    def __init__(self, sim):
        env = sim.environment
        self.env = env
        self.const = None
        if env is None:
            self.const = tuple(float(g) for g in sim.model.opt.gravity)
        elif env.gravity.kind == "uniform" and all(c.gravity is None for c in env.cells):
            self.const = tuple(float(g) for g in env.gravity.g)

    def at(self, x) -> tuple:
        if self.const is not None:
            return self.const
        return tuple(float(g) for g in self.env.gravity_at(x))


def ranges(m, d, rig) -> tuple:
    """Each rangefinder's distance (m) along its beam to the first collision geom (group 0) not of
    the vehicle; :data:`NO_ECHO` for none. Needs ``d``'s kinematics current (``mj_kinematics``).

    The first ray leaves out the body the rangefinder's site is on (``mj_ray``'s ``bodyexclude``: the
    transducer's own housing, which the beam starts inside), so a beam clear of the rest of the vehicle
    takes one ray; a geom of the vehicle's other bodies in the beam is stepped past, as many as
    :data:`MAX_OWN_GEOMS`."""
    out = []
    geomid = np.zeros(1, dtype=np.int32)
    for r in rig.rangefinders:
        start = d.site_xpos[r.site].copy()
        direction = d.site_xmat[r.site].reshape(3, 3) @ r.direction
        travelled, found, exclude = 0.0, NO_ECHO, r.body
        for _ in range(MAX_OWN_GEOMS):
            dist = mujoco.mj_ray(m, d, start, direction, _COLLISION, 1, exclude, geomid)
            if dist < 0:
                break
            travelled += dist
            if m.body_rootid[m.geom_bodyid[geomid[0]]] != rig.body:
                found = min(travelled, NO_ECHO)
                break
            start = start + direction * (dist + 1e-9)
        out.append(found)
    return tuple(out)


_COLLISION = np.array([1, 0, 0, 0, 0, 0], dtype=np.uint8)  # geom group 0: the seabed, walls, hulls


def fdm(d, rig, gravity: Gravity, home, v_imu_before, dt: float, rng: tuple = ()) -> tuple:
    """(the reply's state, the IMU point's velocity now) after a frame of ``dt`` seconds that began
    with the IMU point at velocity ``v_imu_before`` (ENU); ``home`` the world position (ENU, m)
    positions are measured from."""
    p = d.qpos[rig.qpos: rig.qpos + 7].tolist()
    v = d.qvel[rig.qvel: rig.qvel + 6].tolist()
    R = _rot(p[3:])
    lin, w = v[:3], v[3:]
    v_imu = _imu_velocity(R, lin, w, rig)
    g = gravity.const or gravity.at(_add(p[:3], _mul(R, rig.imu)))
    f = _tmul(R, ((v_imu[0] - v_imu_before[0]) / dt - g[0], (v_imu[1] - v_imu_before[1]) / dt - g[1],
                  (v_imu[2] - v_imu_before[2]) / dt - g[2]))
    x = (p[0] - home[0], p[1] - home[1], p[2] - home[2])
    state = Fdm(float(d.time), frames.frd(w), frames.frd(f), frames.ned(x), frames.ned(lin),
                frames.attitude_ned(p[3:]), rng)
    return state, v_imu
