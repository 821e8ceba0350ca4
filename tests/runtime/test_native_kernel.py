"""The native (C++) kernel against the numba implementation it was ported from,
on random poses of every geom type and tier, and on every existing kernel test
case (crosscheck mode, see conftest.py); and its input checks."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from aurgen.runtime.hydrostatics import kernel
from aurgen.runtime.hydrostatics.geoms import EMPTY_HULLS, hull_of, pack_hulls
from kernel_oracle import GROUPS, compare

pytest.importorskip("numba", reason="the numba oracle needs numba (the test extra)")
from numba_oracle import kernel as numba_kernel  # noqa: E402

TYPES = {"sphere": 2, "capsule": 3, "ellipsoid": 4, "cylinder": 5, "box": 6, "mesh": 7}
TOL = 1e-12


def _hulls(rng):
    """Three convex hulls: an icosphere-like cloud, a prism, an elongated blob."""
    out = []
    for k in range(3):
        v = rng.normal(size=(40 + 20 * k, 3)) * rng.uniform(0.2, 0.8, 3)
        out.append(hull_of(v))
    return pack_hulls(out), 3


def _batch(typ, n, rng, nmesh):
    sizes = rng.uniform(0.05, 0.6, (n, 3))
    pos = rng.normal(scale=0.3, size=(n, 3))
    mats = Rotation.random(n, random_state=rng.integers(1 << 31)).as_matrix()
    mesh_ids = rng.integers(0, nmesh, n) if typ == 7 else np.zeros(n, dtype=np.int64)
    return np.full(n, typ, dtype=np.int64), sizes, pos, np.ascontiguousarray(mats), mesh_ids


def _planes(P, rng):
    n = rng.normal(size=(P, 3))
    n /= np.linalg.norm(n, axis=1, keepdims=True)
    d = rng.normal(scale=0.3, size=P)
    return np.ascontiguousarray(np.c_[n, d])


def _both(args, planes, width, wp):
    types, sizes, pos, mats, ids, hulls = args
    a = np.empty((len(types), width))
    b = np.empty((len(types), width))
    kernel.clip_into(types, sizes, pos, mats, ids, hulls, planes, a, wp)
    numba_kernel.clip_into(types, sizes, pos, mats, ids, hulls, planes, b, wp)
    return a, b, sizes.max(axis=1)


@pytest.mark.parametrize("name", list(TYPES))
@pytest.mark.parametrize("P", [0, 1, 2, 3, 4])
def test_random_poses_agree_with_numba(name, P):
    """Every tier: wholly in / out / cut, one plane (with waterplane moments),
    two planes (ball2 for spheres and ellipsoids), 3-4 planes (polyhedral model)."""
    rng = np.random.default_rng(1000 * P + TYPES[name])
    hulls, nmesh = _hulls(rng) if name == "mesh" else (EMPTY_HULLS, 1)
    n = 64 if (P < 2 or name in ("box", "mesh")) else 12  # the smooth-shape model is slow in numba
    worst, differ, rows = 0.0, 0, 0
    for trial in range(4):
        types, sizes, pos, mats, ids = _batch(TYPES[name], n, rng, nmesh)
        planes = _planes(P, rng)
        for width, wp in ((5, False), (14, True)):
            a, b, ext = _both((types, sizes, pos, mats, ids, hulls), planes, width, wp)
            w, nd = compare(a, b, ext)
            worst, differ, rows = max(worst, w), differ + nd, rows + len(a)
    print(f"{name} P={P}: {rows} rows, {differ} not bitwise identical, max rel diff {worst:.3g}")
    assert worst <= TOL


def test_mixed_batch_with_meshes_agrees_bitwise_with_scalar_calls():
    rng = np.random.default_rng(7)
    hulls, nmesh = _hulls(rng)
    parts = [_batch(t, 8, rng, nmesh) for t in TYPES.values()]
    types, sizes, pos, mats, ids = (np.concatenate([p[k] for p in parts]) for k in range(5))
    planes = _planes(1, rng)
    a, b, ext = _both((types, sizes, pos, mats, ids, hulls), planes, 14, True)
    assert compare(a, b, ext)[0] <= TOL
    for i in range(len(types)):
        row = np.empty((1, 14))
        kernel.clip_into(types[i:i + 1], sizes[i:i + 1], pos[i:i + 1], mats[i:i + 1], ids[i:i + 1],
                         hulls, planes, row, True)
        assert np.array_equal(row[0], a[i], equal_nan=True)


def test_existing_kernel_tests_agree_in_crosscheck_mode():
    """Rerun the kernel's own test files with every facade call checked against numba."""
    here = Path(__file__).parent
    files = [str(here / f) for f in ("test_clip.py", "test_cells.py", "test_equilibrium.py")]
    env = dict(os.environ, AURGEN_KERNEL_CROSSCHECK="1")
    # in one process (-n 0: the crosscheck's counts are summed where the tests run);
    # aurgen imported before pytest puts tests/ on sys.path (where tests/aurgen/ would be
    # taken for a namespace package by a development install)
    r = subprocess.run([sys.executable, "-c", "import sys, aurgen, pytest; sys.exit(pytest.main(sys.argv[1:]))",
                        "-q", "-p", "no:warnings", "-p", "no:cacheprovider", "-n", "0", "-m", "slow or not slow",
                        *files], capture_output=True, text=True, env=env, cwd=here)
    summary = [ln for ln in r.stdout.splitlines() if ln.startswith("kernel crosscheck:")]
    print("\n".join(summary))
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    assert summary and " 0 calls" not in summary[0]


# ---------------------------------------------------------------- bad input


def _ok_args(n=2):
    return (np.full(n, 6, dtype=np.int64), np.full((n, 3), 0.5), np.zeros((n, 3)),
            np.tile(np.eye(3), (n, 1, 1)), np.zeros(n, dtype=np.int64), EMPTY_HULLS,
            np.array([[0.0, 0.0, 1.0, 0.0]]), np.empty((n, 5)), False)


@pytest.mark.parametrize("k,bad,msg", [
    (0, np.array([6, 1]), "type code 1"),
    (0, np.array([6, 7]), "mesh id 0 out of range"),
    (1, np.full((3, 3), 0.5), "same N"),
    (4, np.array([0, 5]), None),  # ignored for non-mesh geoms
    (5, (np.zeros((0, 3)),), "7-tuple"),
    (5, (np.zeros((0, 3)), np.array([0, 5]), np.zeros((0, 6)), np.zeros(1, dtype=np.int64),
         np.zeros(2, dtype=np.int64), np.zeros(1), np.zeros((1, 3))), "non-decreasing"),
    (7, np.empty((3, 5)), "out must be"),
    (7, np.empty((2, 4)), "out must be"),
])
def test_bad_input_raises_not_crashes(k, bad, msg):
    args = list(_ok_args())
    args[k] = bad
    if msg is None:
        kernel.clip_into(*args)
        return
    with pytest.raises(ValueError, match=msg):
        kernel.clip_into(*args)


def test_out_must_be_writable_float64_c_contiguous():
    args = list(_ok_args())
    for out in (np.empty((2, 5), dtype=np.float32), np.empty((5, 2)).T, np.empty((2, 5))):
        if out.flags.c_contiguous and out.dtype == np.float64:
            out.flags.writeable = False
        args[7] = out
        with pytest.raises(TypeError):
            kernel.clip_into(*args)


def test_inputs_are_converted_when_safe():
    """int32 type codes (MuJoCo's m.geom_type) and Fortran-ordered poses are accepted."""
    args = list(_ok_args())
    ref = np.empty((2, 5))
    kernel.clip_into(*args[:7], ref, False)
    args[0] = args[0].astype(np.int32)
    args[2] = np.asfortranarray(args[2])
    kernel.clip_into(*args)
    assert np.array_equal(args[7], ref)
    assert ref[0, 0] == pytest.approx(0.5)  # half of a unit box below z = 0
