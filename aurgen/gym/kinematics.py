"""The environments' arithmetic, written once for one world and for many: every function takes either
one world's values (qpos (nq,), qvel (nv,), ...: numpy scalars out) or every world's at once (a first
axis over worlds: qpos (N, nq), ...: arrays (N,) out), so the single environment and the vector
environment compute each world's numbers with the same operations, bitwise.

The operations are element-wise (IEEE arithmetic, and numpy's ufuncs, which give an element the same
bits whether it comes alone or in an array of any length or stride), and every sum is spelled out in
a fixed order (no BLAS, no pairwise reduction): a world's numbers do not depend on how many worlds are
computed with it. The free joint comes first in qpos (x, y, z m, then the quaternion w, x, y, z) and
qvel (the linear velocity m/s in the world frame, then the angular velocity rad/s in the body frame),
as MuJoCo lays it out. "Columns" below are each world's value of one quantity: an array over worlds,
or one numpy scalar.
"""

from __future__ import annotations

import math

import numpy as np

MINVAL = 1e-15  # MuJoCo's mjMINVAL: mju_normalize4's thresholds


def select(cond, a, b):
    """``a`` where ``cond`` else ``b``: np.where over worlds, a plain choice for one world."""
    return np.where(cond, a, b) if isinstance(cond, np.ndarray) else (a if cond else b)


def columns(x) -> tuple:
    """The columns of ``x`` (N, k) (each (N,)), or the k numpy scalars of one world's ``x`` (k,)."""
    return tuple(x.T)


def stack(cols) -> np.ndarray:
    """Columns into rows: (N, k) from k arrays (N,), or (k,) from k scalars."""
    return np.stack(cols, axis=-1) if isinstance(cols[0], np.ndarray) else np.array(cols, dtype=np.float64)


def frames(quat) -> tuple:
    """The body rotations of quaternions ``quat`` ((N, 4), or one world's (4,): w, x, y, z, qpos[3:7])
    as the 9 columns (R00, R01, R02, R10, ..., R22) of R: body to world. The quaternion is normalised by
    MuJoCo's rule (mju_normalize4: a norm below 1e-15 gives the identity, a norm within 1e-15 of 1 is
    kept as it is, any other is divided out) and turned into R by mju_quat2Mat's products and sums (after
    mj_step, MjData.xmat is still the step's start, and a batch's rows carry no xmat)."""
    w, x, y, z = columns(quat)
    norm = np.sqrt(w * w + x * x + y * y + z * z)
    tiny = norm < MINVAL
    if tiny.any():
        w, x, y, z = select(tiny, 1.0, w), select(tiny, 0.0, x), select(tiny, 0.0, y), select(tiny, 0.0, z)
        norm = select(tiny, 1.0, norm)
    f = select(abs(norm - 1.0) > MINVAL, 1.0 / norm, 1.0)
    w, x, y, z = w * f, x * f, y * f, z * f
    q00, q01, q02, q03 = w * w, w * x, w * y, w * z
    q11, q12, q13 = x * x, x * y, x * z
    q22, q23, q33 = y * y, y * z, z * z
    return (q00 + q11 - q22 - q33, 2 * (q12 - q03), 2 * (q13 + q02),
            2 * (q12 + q03), q00 - q11 + q22 - q33, 2 * (q23 - q01),
            2 * (q13 - q02), 2 * (q23 + q01), q00 - q11 - q22 + q33)


def yaw_of(R):
    """The heading (rad, in [-pi, pi]) of rotations ``R`` (frames' 9 columns): atan2(R10, R00)."""
    return np.arctan2(R[3], R[0])


def roll_pitch(R) -> tuple:
    """(roll, pitch) rad of rotations ``R``: the heel atan2(R21, R22) and the trim asin(-R20), the
    argument clipped into [-1, 1] (a NaN stays NaN)."""
    return np.arctan2(R[7], R[8]), np.arcsin(np.minimum(1.0, np.maximum(-1.0, -R[6])))


def capsized(R):
    """True where the body z axis points below the horizontal (R22 < 0)."""
    return R[8] < 0.0


def body_velocity(R, qvel) -> tuple:
    """The body-frame velocity columns (u, v, w, p, q, r): [u, v, w] = R^T qvel[0:3] (m/s; each a sum of
    three products, left to right) and [p, q, r] = qvel[3:6] (rad/s, already in the body frame)."""
    v0, v1, v2, p, q, r = columns(qvel)[0:6]
    return (R[0] * v0 + R[3] * v1 + R[6] * v2, R[1] * v0 + R[4] * v1 + R[7] * v2,
            R[2] * v0 + R[5] * v1 + R[8] * v2, p, q, r)


def wrap(a):
    """Angles ``a`` (rad) wrapped into [-pi, pi): (a + pi) mod 2 pi - pi, with Python's modulo (numpy's)."""
    return np.mod(a + math.pi, 2 * math.pi) - math.pi


def in_yaw_frame(c, s, dx, dy) -> tuple:
    """The world-frame offsets (dx, dy) (m) in the yaw frame of heading cos ``c``, sin ``s``: (x forward,
    y left)."""
    return c * dx + s * dy, -s * dx + c * dy


def control_cost(a, amax: float):
    """0.01 sum_i (a_i / amax)^2 of the applied commands ``a`` ((N, nu) or (nu,), N): the sum over
    actuators in their order, left to right."""
    x = a / amax
    cols = columns(x * x)
    total = cols[0]
    for c in cols[1:]:
        total = total + c
    return 0.01 * total


def quat_yaw(q0, yaw) -> np.ndarray:
    """The quaternions Rz(yaw) ⊗ q0 (N, 4) (w, x, y, z) of headings ``yaw`` (N,) rad and one quaternion
    ``q0`` (4,)."""
    h = np.asarray(yaw, float) / 2
    c, s = np.cos(h), np.sin(h)
    w, x, y, z = (float(t) for t in q0)
    return np.stack([c * w - s * z, c * x - s * y, c * y + s * x, c * z + s * w], axis=1)


def checked_actions(actions, lo, hi, names, what: str = "actions") -> np.ndarray:
    """The thruster commands ``actions`` (N, nu) as applied: ValueError naming the first world (row) and
    actuator whose command is NaN or infinite (a non-finite action is refused, never clipped), else
    each command clipped into its actuator's ctrlrange [lo, hi]. The shape is the caller's to check."""
    finite = np.isfinite(actions)
    if not finite.all():
        w, i = (int(k) for k in np.argwhere(~finite)[0])
        raise ValueError(f"{what}[{w}]: the command for {names[i]} (index {i}) is {float(actions[w, i])!r}; a "
                         "non-finite action is refused, never clipped (reset or pass finite numbers)")
    return np.clip(actions, lo, hi)
