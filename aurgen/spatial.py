"""Rigid transforms and mass properties: pure functions on numpy arrays.

Conventions (stated once, used everywhere):
- A pose is ``(xyz, rpy)``: translation in metres and fixed-axis roll, pitch,
  yaw in radians, as URDF: ``R = Rz(yaw) @ Ry(pitch) @ Rx(roll)``.
- A homogeneous transform ``T`` (4×4) maps child-frame coordinates to parent
  coordinates: ``p_parent = T @ [p_child, 1]``.
- An inertia tensor is the 3×3 matrix ``I = ∫ (|r|² E − r rᵀ) dm`` about the
  stated point, in the stated axes; its off-diagonal entries are the products
  as URDF writes them (``ixy = I[0, 1] = −∫ x y dm``).
"""

from __future__ import annotations

import math

import numpy as np


def rot_rpy(rpy) -> np.ndarray:
    """Rotation matrix (3×3) of fixed-axis roll, pitch, yaw (rad)."""
    r, p, y = (float(v) for v in rpy)
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), math.cos(y), math.sin(y)
    return np.array([
        [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
        [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
        [-sp, cp * sr, cp * cr],
    ])


def rpy_of(R: np.ndarray) -> np.ndarray:
    """Fixed-axis roll, pitch, yaw (rad) of a rotation matrix; inverse of rot_rpy.

    At gimbal lock (|pitch| = π/2) roll is set to 0 and yaw absorbs it.
    """
    R = np.asarray(R, dtype=float)
    sp = -R[2, 0]
    if abs(sp) >= 1.0 - 1e-12:
        pitch = math.copysign(math.pi / 2, sp)
        roll = 0.0
        yaw = math.atan2(-R[0, 1], R[1, 1])
    else:
        pitch = math.asin(sp)
        roll = math.atan2(R[2, 1], R[2, 2])
        yaw = math.atan2(R[1, 0], R[0, 0])
    return np.array([roll, pitch, yaw])


def transform(xyz=(0.0, 0.0, 0.0), rpy=(0.0, 0.0, 0.0)) -> np.ndarray:
    """Homogeneous 4×4 transform of a pose (xyz m, rpy rad)."""
    T = np.eye(4)
    T[:3, :3] = rot_rpy(rpy)
    T[:3, 3] = np.asarray(xyz, dtype=float)
    return T


def pose_of(T: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(xyz, rpy) of a homogeneous transform; inverse of transform()."""
    return np.array(T[:3, 3], dtype=float), rpy_of(T[:3, :3])


def quat_of(R: np.ndarray) -> np.ndarray:
    """Unit quaternion (w, x, y, z), w ≥ 0, of a rotation matrix (MuJoCo order)."""
    R = np.asarray(R, dtype=float)
    tr = R[0, 0] + R[1, 1] + R[2, 2]
    if tr > 0:
        s = math.sqrt(tr + 1.0) * 2
        q = [0.25 * s, (R[2, 1] - R[1, 2]) / s, (R[0, 2] - R[2, 0]) / s, (R[1, 0] - R[0, 1]) / s]
    elif R[0, 0] > R[1, 1] and R[0, 0] > R[2, 2]:
        s = math.sqrt(1.0 + R[0, 0] - R[1, 1] - R[2, 2]) * 2
        q = [(R[2, 1] - R[1, 2]) / s, 0.25 * s, (R[0, 1] + R[1, 0]) / s, (R[0, 2] + R[2, 0]) / s]
    elif R[1, 1] > R[2, 2]:
        s = math.sqrt(1.0 + R[1, 1] - R[0, 0] - R[2, 2]) * 2
        q = [(R[0, 2] - R[2, 0]) / s, (R[0, 1] + R[1, 0]) / s, 0.25 * s, (R[1, 2] + R[2, 1]) / s]
    else:
        s = math.sqrt(1.0 + R[2, 2] - R[0, 0] - R[1, 1]) * 2
        q = [(R[1, 0] - R[0, 1]) / s, (R[0, 2] + R[2, 0]) / s, (R[1, 2] + R[2, 1]) / s, 0.25 * s]
    q = np.array(q)
    q /= np.linalg.norm(q)
    return -q if q[0] < 0 else q


def inertia_matrix(ixx, iyy, izz, ixy=0.0, ixz=0.0, iyz=0.0) -> np.ndarray:
    """Symmetric 3×3 inertia tensor from its six entries (URDF convention)."""
    return np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]], dtype=float)


def rotate_inertia(I: np.ndarray, R: np.ndarray) -> np.ndarray:
    """Tensor ``I`` (child axes) expressed in parent axes: ``R I Rᵀ``."""
    out = R @ I @ R.T
    return 0.5 * (out + out.T)


def shift_inertia(I_com: np.ndarray, mass: float, r: np.ndarray) -> np.ndarray:
    """Parallel-axis theorem: tensor about a point at ``−r`` from the CoM.

    ``I_com`` is about the centre of mass; ``r`` is the CoM's position relative
    to the new reference point (same axes). Returns ``I_com + m(|r|²E − r rᵀ)``.
    """
    r = np.asarray(r, dtype=float)
    return I_com + mass * (float(r @ r) * np.eye(3) - np.outer(r, r))


def combine(items) -> tuple[float, np.ndarray, np.ndarray]:
    """Mass, CoM and inertia about that CoM of rigidly joined bodies.

    ``items`` is an iterable of ``(mass, com, I_com)`` all in one frame (com in
    m, I_com about each body's own CoM in that frame's axes). Returns
    ``(M, C, I_C)``. Accumulates in the given order (deterministic).
    """
    items = list(items)
    M = 0.0
    first = np.zeros(3)
    for m, c, _ in items:
        M += m
        first = first + m * np.asarray(c, dtype=float)
    if M <= 0.0:
        return 0.0, np.zeros(3), np.zeros((3, 3))
    C = first / M
    I = np.zeros((3, 3))
    for m, c, Ic in items:
        I = I + shift_inertia(np.asarray(Ic, dtype=float), m, np.asarray(c, dtype=float) - C)
    return M, C, 0.5 * (I + I.T)


def principal_moments(I: np.ndarray) -> np.ndarray:
    """Principal moments (ascending) of a symmetric inertia tensor."""
    return np.linalg.eigvalsh(0.5 * (I + I.T))


def check_inertia(I: np.ndarray, rtol: float = 1e-9) -> str | None:
    """Why ``I`` is not a physical inertia tensor, or None if it is.

    Physical: symmetric positive definite, principal moments satisfying the
    triangle inequality ``I1 + I2 ≥ I3`` (to ``rtol`` of the trace).
    """
    if not np.all(np.isfinite(I)):
        return "has a non-finite entry"
    ev = principal_moments(I)
    if ev[0] <= 0.0:
        return f"is not positive definite (principal moments {', '.join(f'{v:.6g}' for v in ev)})"
    if ev[0] + ev[1] < ev[2] * (1.0 - rtol) - rtol * float(np.sum(ev)):
        return (f"violates the triangle inequality: principal moments {ev[0]:.6g} + {ev[1]:.6g} "
                f"< {ev[2]:.6g}, which no mass distribution has")
    return None
