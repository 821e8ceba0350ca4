"""The emit path's arithmetic: bit for bit the same on every CPU.

BLAS and LAPACK kernels (``@``, ``np.dot``, ``np.linalg``) are chosen per CPU and
may round differently (an AVX-512 machine once changed a quaternion's last
digit). aurgen.core.spatial computes everything that reaches a file in plain Python
floats, in a fixed order. These tests hold its helpers bit for bit against a
reference written with ``math`` and Python floats only, check the principal
moments against LAPACK to rounding, and scan the emit path's modules for BLAS
calls.
"""

from __future__ import annotations

import ast
import math
from pathlib import Path

import numpy as np
import pytest

import aurgen
from aurgen.core import spatial

RNG = np.random.default_rng(20261130)


def _ref_dot(a, b):
    s = 0.0
    for i in range(len(a)):
        s = s + float(a[i]) * float(b[i])
    return s


def _ref_matmul(A, B):
    n, k, m = len(A), len(B), len(B[0])
    return [[_ref_dot([A[i][j] for j in range(k)], [B[j][c] for j in range(k)]) for c in range(m)] for i in range(n)]


def _wide(shape):
    """Random floats over many magnitudes and both signs (where rounding order shows)."""
    return RNG.normal(size=shape) * 10.0 ** RNG.uniform(-8, 8, size=shape)


def test_products_bit_for_bit():
    for _ in range(200):
        A, B, v = _wide((4, 4)), _wide((4, 4)), _wide(4)
        got = spatial.matmul(A, B)
        want = _ref_matmul(A.tolist(), B.tolist())
        assert got.tolist() == want
        assert spatial.matvec(A, v).tolist() == [_ref_dot(row, v.tolist()) for row in A.tolist()]
        assert spatial.dot(v, v) == _ref_dot(v.tolist(), v.tolist())
        assert spatial.norm(v[:3]) == math.sqrt(_ref_dot(v[:3].tolist(), v[:3].tolist()))
        a, b = v[:3].tolist(), A[0, :3].tolist()
        assert spatial.cross(a, b).tolist() == [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                                                a[0] * b[1] - a[1] * b[0]]


def test_rigid_inverse_and_relative():
    for _ in range(100):
        T1 = spatial.transform(RNG.uniform(-2, 2, 3), RNG.uniform(-3, 3, 3))
        T2 = spatial.transform(RNG.uniform(-2, 2, 3), RNG.uniform(-3, 3, 3))
        np.testing.assert_allclose(spatial.relative(T1, T2), np.linalg.solve(T1, T2), atol=1e-14)
        np.testing.assert_allclose(spatial.matmul(T1, spatial.rigid_inverse(T1)), np.eye(4), atol=1e-15)


def test_principal_moments_against_lapack():
    for _ in range(300):
        A = RNG.normal(size=(3, 3))
        scale = 10.0 ** RNG.uniform(-9, 4)
        I = (A @ A.T + 0.05 * np.eye(3)) * scale
        got = spatial.principal_moments(I)
        assert list(got) == sorted(got)
        np.testing.assert_allclose(got, np.linalg.eigvalsh(I), rtol=0, atol=8e-15 * np.linalg.eigvalsh(I)[-1])


def test_principal_moments_of_known_tensors():
    assert spatial.principal_moments(np.diag([3.0, 1.0, 2.0])).tolist() == [1.0, 2.0, 3.0]
    assert spatial.principal_moments(np.eye(3) * 0.25).tolist() == [0.25, 0.25, 0.25]
    # a box's diagonal tensor rotated 30 degrees about z: the moments are the diagonal's
    R = spatial.rot_rpy((0.0, 0.0, math.radians(30)))
    d = np.diag([0.1, 0.4, 0.45])
    np.testing.assert_allclose(spatial.principal_moments(spatial.rotate_inertia(d, R)), [0.1, 0.4, 0.45],
                               rtol=1e-15, atol=1e-16)


def test_quaternion_is_unit_and_rotates_like_the_matrix():
    for _ in range(100):
        R = spatial.rot_rpy(RNG.uniform(-3.1, 3.1, 3))
        w, x, y, z = spatial.quat_of(R)
        assert w >= 0
        assert abs(math.sqrt(w * w + x * x + y * y + z * z) - 1.0) < 4e-16
        Rq = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                       [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                       [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])
        np.testing.assert_allclose(Rq, R, atol=1e-15)


# the modules whose numbers reach generated files (compose -> emit -> files, worlds)
EMIT_PATH = ["core/spatial", "config/shapes", "config/world", "compose/assemble", "compose/resolve", "compose/specs",
             "emit/render", "compose/stamp", "emit/build", "emit/worlds"]
BLAS_CALLS = {"dot", "vdot", "inner", "matmul", "einsum", "tensordot", "linalg", "sum", "mean", "prod",
              "cross", "outer_product"}


@pytest.mark.parametrize("module", EMIT_PATH)
def test_no_blas_on_the_emit_path(module):
    """No ``@`` and no numpy call that may go through BLAS/LAPACK or a CPU-dispatched reduction
    (``np.linalg``, ``np.dot``, ``np.sum``, ...) in a module whose numbers reach a file."""
    path = Path(aurgen.__file__).parent / f"{module}.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            bad.append(f"line {node.lineno}: @")
        elif isinstance(node, ast.Attribute) and node.attr in BLAS_CALLS:
            root = node.value
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and root.id in ("spatial", "math"):
                continue  # the fixed-order helpers
            if isinstance(root, ast.Name) and root.id in ("np", "numpy"):
                bad.append(f"line {node.lineno}: np...{node.attr}")
            elif node.attr in ("dot", "sum", "mean", "prod") and isinstance(node.ctx, ast.Load):
                bad.append(f"line {node.lineno}: .{node.attr}()")
    assert not bad, f"{module}.py: " + "; ".join(bad)
