"""Rigid transforms and mass properties: pure functions on numpy arrays.

Conventions (stated once, used everywhere):
- A pose is ``(xyz, rpy)``: translation in metres and fixed-axis roll, pitch,
  yaw in radians, as URDF: ``R = Rz(yaw) @ Ry(pitch) @ Rx(roll)``.
- A homogeneous transform ``T`` (4×4) maps child-frame coordinates to parent
  coordinates: ``p_parent = T @ [p_child, 1]``.
- An inertia tensor is the 3×3 matrix ``I = ∫ (|r|² E − r rᵀ) dm`` about the
  stated point, in the stated axes; its off-diagonal entries are the products
  as URDF writes them (``ixy = I[0, 1] = −∫ x y dm``).

Every number here may end up in a generated file, so none of it goes through
BLAS or LAPACK (``@``, ``np.dot``, ``np.linalg``): their kernels differ by CPU
and can change the last digit. Products, norms and sums are plain Python float
arithmetic in a fixed order (``matmul``, ``matvec``, ``dot``, ``norm``), and
the principal moments come from a cyclic Jacobi iteration, so the same config
gives the same bytes on every machine. (``tests/aurgen/test_spatial.py`` holds
them bit for bit against a ``math``-only reference and checks the emit path's
modules for BLAS calls.)
"""

from __future__ import annotations

import math

import numpy as np


def dot(a, b) -> float:
    """``a · b`` of two vectors, summed left to right."""
    out = 0.0
    for x, y in zip(a, b):
        out += float(x) * float(y)
    return out


def norm(a) -> float:
    """Euclidean length of a vector: ``sqrt(a · a)``, summed left to right."""
    return math.sqrt(dot(a, a))


def cross(a, b) -> np.ndarray:
    """``a × b`` of two 3-vectors."""
    a0, a1, a2 = (float(x) for x in a)
    b0, b1, b2 = (float(x) for x in b)
    return np.array([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0])


def matvec(A, v) -> np.ndarray:
    """``A v`` (rows of ``A`` dotted with ``v``), each row summed left to right."""
    A = np.asarray(A, dtype=float)
    v = np.asarray(v, dtype=float)
    out = np.zeros(A.shape[0])
    for j in range(A.shape[1]):  # elementwise ufuncs: one rounding per product and per sum, as dot()
        out += A[:, j] * v[j]
    return out


def matmul(A, B) -> np.ndarray:
    """``A B`` for small matrices, each entry summed left to right (bitwise ``dot`` of a row and
    a column: elementwise multiply and add, never a BLAS kernel)."""
    A = np.asarray(A, dtype=float)
    B = np.asarray(B, dtype=float)
    out = np.zeros((A.shape[0], B.shape[1]))
    for j in range(A.shape[1]):
        out += A[:, j:j + 1] * B[j:j + 1, :]
    return out


def rigid_inverse(T) -> np.ndarray:
    """Inverse of a rigid homogeneous transform: ``[Rᵀ, −Rᵀ t]`` (exact for a rotation ``R``)."""
    T = np.asarray(T, dtype=float)
    Rt = T[:3, :3].T.copy()
    out = np.eye(4)
    out[:3, :3] = Rt
    out[:3, 3] = -matvec(Rt, T[:3, 3])
    return out


def relative(T_parent, T_child) -> np.ndarray:
    """The child's transform in the parent's frame: ``T_parent⁻¹ T_child`` (both rigid)."""
    return matmul(rigid_inverse(T_parent), T_child)


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
    n = norm(q)
    q = np.array([x / n for x in q])
    return -q if q[0] < 0 else q


def inertia_matrix(ixx, iyy, izz, ixy=0.0, ixz=0.0, iyz=0.0) -> np.ndarray:
    """Symmetric 3×3 inertia tensor from its six entries (URDF convention)."""
    return np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]], dtype=float)


def rotate_inertia(I: np.ndarray, R: np.ndarray) -> np.ndarray:
    """Tensor ``I`` (child axes) expressed in parent axes: ``R I Rᵀ``."""
    R = np.asarray(R, dtype=float)
    out = matmul(matmul(R, I), R.T)
    return 0.5 * (out + out.T)


def shift_inertia(I_com: np.ndarray, mass: float, r: np.ndarray) -> np.ndarray:
    """Parallel-axis theorem: tensor about a point at ``−r`` from the CoM.

    ``I_com`` is about the centre of mass; ``r`` is the CoM's position relative
    to the new reference point (same axes). Returns ``I_com + m(|r|²E − r rᵀ)``.
    """
    r = np.asarray(r, dtype=float)
    return I_com + mass * (dot(r, r) * np.eye(3) - np.outer(r, r))


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
    """Principal moments (ascending) of a symmetric 3×3 inertia tensor, kg·m².

    Cyclic Jacobi rotations (Golub & Van Loan, Matrix Computations, §8.5) in plain floats:
    each rotation zeroes one off-diagonal entry; sweeps stop when the off-diagonal part is
    below a unit roundoff of the diagonal. Accurate to a few ulps of the largest moment,
    and the same on every CPU (no LAPACK).
    """
    a = [[float(v) for v in row] for row in 0.5 * (np.asarray(I, dtype=float) + np.asarray(I, dtype=float).T)]
    for _ in range(64):
        off = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2]
        diag = a[0][0] * a[0][0] + a[1][1] * a[1][1] + a[2][2] * a[2][2]
        if off <= 1e-36 * diag or off == 0.0:
            break
        for p, q in ((0, 1), (0, 2), (1, 2)):
            if a[p][q] == 0.0:
                continue
            theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q])
            t = math.copysign(1.0, theta) / (abs(theta) + math.sqrt(theta * theta + 1.0))
            c = 1.0 / math.sqrt(t * t + 1.0)
            s = t * c
            for k in range(3):  # A <- A J (columns p, q)
                akp, akq = a[k][p], a[k][q]
                a[k][p], a[k][q] = c * akp - s * akq, s * akp + c * akq
            for k in range(3):  # A <- Jᵀ A (rows p, q)
                apk, aqk = a[p][k], a[q][k]
                a[p][k], a[q][k] = c * apk - s * aqk, s * apk + c * aqk
            a[p][q] = a[q][p] = 0.0
    return np.array(sorted((a[0][0], a[1][1], a[2][2])))


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
    if ev[0] + ev[1] < ev[2] * (1.0 - rtol) - rtol * (ev[0] + ev[1] + ev[2]):
        return (f"violates the triangle inequality: principal moments {ev[0]:.6g} + {ev[1]:.6g} "
                f"< {ev[2]:.6g}, which no mass distribution has")
    return None
