"""The kernel's block path for spheres and ellipsoids cut by one plane
(runtime/native/core/smooth_rows.cc, taken by ``clip_into`` by default).

Checked against things it did not produce:

* the per-row path it replaces (``ClipGeom``, reached with
  ``clip_into(..., smooth_rows=False)``): bitwise, on random poses in every tier
  (wholly submerged, cut, wholly emerged), on degenerate cuts (the plane through
  the centre, tangent planes and their neighbouring doubles, axis-aligned
  normals, tiny and flat geoms) and on mixed-type batches whose rows must come
  back in order (the block path gathers the smooth rows, clips them two and four
  at a time, and scatters them back);
* single-row calls (an odd row alone goes through the scalar lanes);
* closed forms written here: the spherical cap V = pi h^2 (3r - h) / 3, its
  centroid at 3 (2r - h)^2 / (4 (3r - h)) from the centre, the section disk
  pi (r^2 - t^2); an ellipsoid's volume from the cap of the unit ball mapped by
  diag(a, b, c).
"""
from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from aurgen.runtime.hydrostatics import kernel
from aurgen.runtime.hydrostatics.geoms import EMPTY_HULLS, hull_of, pack_hulls

SPHERE, ELLIPSOID = 2, 4


def _run(types, sizes, pos, mats, planes, width=5, wp=False, smooth_rows=True, ids=None,
         hulls=EMPTY_HULLS):
    n = len(types)
    out = np.full((n, width), -7.0)  # nothing left unwritten
    kernel.clip_into(np.ascontiguousarray(types, dtype=np.int64), np.ascontiguousarray(sizes, dtype=float),
                     np.ascontiguousarray(pos, dtype=float), np.ascontiguousarray(mats, dtype=float),
                     np.zeros(n, dtype=np.int64) if ids is None else ids, hulls,
                     np.ascontiguousarray(planes, dtype=float), out, wp, smooth_rows=smooth_rows)
    return out


def _bitwise(a, b):
    return np.array_equal(a.view(np.uint64), b.view(np.uint64))


def _same_as_per_row(types, sizes, pos, mats, planes, **kw):
    """The block path equals ClipGeom's rows bitwise, at every width; returns the rows."""
    for width, wp in ((5, False), (14, False), (14, True), (7, True)):
        a = _run(types, sizes, pos, mats, planes, width, wp, **kw)
        b = _run(types, sizes, pos, mats, planes, width, wp, smooth_rows=False, **kw)
        assert _bitwise(a, b), (width, wp, np.argwhere(a.view(np.uint64) != b.view(np.uint64))[:5])
    return _run(types, sizes, pos, mats, planes, **kw)


def _geoms(rng, n, types):
    sizes = rng.uniform(0.02, 1.5, (n, 3))
    pos = rng.normal(scale=0.7, size=(n, 3))
    mats = Rotation.random(n, random_state=rng.integers(1 << 31)).as_matrix()
    return np.asarray(types, dtype=np.int64), sizes, pos, np.ascontiguousarray(mats)


def _plane(rng):
    nrm = rng.normal(size=3)
    nrm /= np.linalg.norm(nrm)
    return np.r_[nrm, rng.normal(scale=0.5)][None, :]


def _support(types, sizes, mats, n):
    """max over the geom of (x - centre).n, world, by the closed forms."""
    ln = np.einsum("nji,j->ni", mats, n)
    ax = np.where((types == SPHERE)[:, None], sizes[:, :1], sizes)
    return np.linalg.norm(ax * ln, axis=1)


@pytest.mark.parametrize("typ", [SPHERE, ELLIPSOID])
def test_random_poses_every_tier_bitwise(typ):
    rng = np.random.default_rng(20 + typ)
    tiers = np.zeros(3, dtype=int)
    for trial in range(30):
        n = int(rng.integers(1, 300))
        types, sizes, pos, mats = _geoms(rng, n, np.full(n, typ))
        plane = _plane(rng)
        out = _same_as_per_row(types, sizes, pos, mats, plane)
        V = out[:, 0]
        full = np.where(typ == SPHERE, 4 / 3 * np.pi * sizes[:, 0] ** 3, 4 / 3 * np.pi * sizes.prod(1))
        tiers += [np.sum(V == 0), np.sum((V > 0) & (V < full)), np.sum(V == full)]
    assert tiers.min() > 200, tiers  # every tier well covered


def test_degenerate_cuts_bitwise():
    """Planes through the centre, tangent planes and the doubles either side of them,
    normals along the geom axes, tiny and flat geoms."""
    rng = np.random.default_rng(5)
    rows = []
    for typ in (SPHERE, ELLIPSOID):
        for rot in ("identity", "random"):
            n = 40
            types, sizes, pos, mats = _geoms(rng, n, np.full(n, typ))
            if rot == "identity":
                mats = np.ascontiguousarray(np.tile(np.eye(3), (n, 1, 1)))
            sizes[:4] = [[1e-9, 1e-9, 1e-9], [1.0, 1e-12, 1.0], [0.5, 0.5, 0.5], [2.0, 1.0, 1e-6]]
            for nrm in (np.eye(3)[rng.integers(3)] * rng.choice([-1, 1]), _plane(rng)[0, :3]):
                h = _support(types, sizes, mats, nrm)
                c = pos @ nrm
                for d in (c, c + h, c - h, np.nextafter(c + h, np.inf), np.nextafter(c + h, -np.inf),
                          np.nextafter(c - h, np.inf), np.nextafter(c - h, -np.inf), c + 0.999999 * h):
                    # one plane per call: the rows of a batch share it, so cut each geom alone
                    for i in range(0, n, 7):
                        plane = np.r_[nrm, d[i]][None, :]
                        rows.append(_same_as_per_row(types[i:i + 7], sizes[i:i + 7], pos[i:i + 7],
                                                     mats[i:i + 7], plane)[:1])
    rows = np.concatenate(rows)
    assert np.all(np.isfinite(rows))
    assert np.any(rows[:, 0] == 0) and np.any(rows[:, 4] > 0)


def test_mixed_batches_keep_row_order():
    """Spheres and ellipsoids among every other type (boxes, capsules, cylinders,
    meshes), in runs and alone, across the block boundary: the block path's rows are
    ClipGeom's, each in its own place, and equal single-row calls."""
    rng = np.random.default_rng(9)
    hulls = pack_hulls([hull_of(rng.normal(size=(30, 3)) * 0.4), hull_of(rng.normal(size=(50, 3)) * 0.3)])
    for n in (1, 2, 3, 5, 127, 128, 129, 300, 777):
        types = rng.choice([2, 2, 4, 4, 3, 5, 6, 7], size=n)
        if n > 100:  # long smooth runs too (more than a block)
            types[: n // 2] = rng.choice([2, 4], size=n // 2)
        types, sizes, pos, mats = _geoms(rng, n, types)
        ids = rng.integers(0, 2, n)
        plane = _plane(rng)
        out = _same_as_per_row(types, sizes, pos, mats, plane, ids=ids, hulls=hulls)
        for i in rng.choice(n, size=min(n, 12), replace=False):
            one = _run(types[i:i + 1], sizes[i:i + 1], pos[i:i + 1], mats[i:i + 1], plane,
                       ids=ids[i:i + 1], hulls=hulls)
            assert _bitwise(one[0], out[i])


def test_cells_of_one_plane_take_the_block_path_bitwise():
    rng = np.random.default_rng(3)
    n = 64
    types, sizes, pos, mats = _geoms(rng, n, rng.choice([2, 4, 6], size=n))
    planes = np.concatenate([_plane(rng) for _ in range(3)])
    start = np.array([0, 1, 1, 3], dtype=np.int64)  # one plane, none, two
    out = np.empty((3, n, 5))
    kernel.clip_cells_into(types, sizes, pos, mats, np.zeros(n, dtype=np.int64), EMPTY_HULLS, planes,
                           start, out)
    for c in range(3):
        ref = _run(types, sizes, pos, mats, planes[start[c]:start[c + 1]].reshape(-1, 4), smooth_rows=False)
        assert _bitwise(out[c], ref)


def test_nan_pose_gives_the_same_rows():
    rng = np.random.default_rng(4)
    n = 12
    types, sizes, pos, mats = _geoms(rng, n, np.tile([2, 4], n // 2))
    pos[3, 1] = np.nan
    mats[6, 0, 2] = np.nan
    plane = _plane(rng)
    a = _run(types, sizes, pos, mats, plane)
    b = _run(types, sizes, pos, mats, plane, smooth_rows=False)
    assert np.array_equal(a, b, equal_nan=True)
    assert np.isnan(a[3]).any() and np.all(np.isfinite(np.delete(a, [3, 6], axis=0)))


def test_closed_forms():
    """Sphere caps and ellipsoid caps in random poses against formulas written here."""
    rng = np.random.default_rng(8)
    n = 500
    types, sizes, pos, mats = _geoms(rng, n, np.full(n, SPHERE))
    nrm = _plane(rng)[0, :3]
    r = sizes[:, 0]
    h = rng.uniform(0.05, 1.95, n) * r  # cap height below the plane n.x = 0
    pos = pos - np.outer(pos @ nrm, nrm) + np.outer(r - h, nrm)  # lowest point at n.x = -h
    out = _run(types, sizes, pos, mats, np.r_[nrm, 0.0][None, :])
    V = np.pi * h ** 2 * (3 * r - h) / 3
    np.testing.assert_allclose(out[:, 0], V, rtol=1e-12)
    off = 3 * (2 * r - h) ** 2 / (4 * (3 * r - h))  # centroid below the centre along n
    np.testing.assert_allclose(out[:, 1:4], pos - off[:, None] * nrm, rtol=0, atol=1e-12 * r.max() * 4)
    t = h - r  # the plane's offset from the centre along n
    np.testing.assert_allclose(out[:, 4], np.pi * (r * r - t * t), rtol=1e-12, atol=1e-15)
    # ellipsoids: the unit-ball cap at tau = t / |A l|, V = abc pi (1+tau)^2 (2-tau) / 3
    types, sizes, pos, mats = _geoms(rng, n, np.full(n, ELLIPSOID))
    ln = np.einsum("nji,j->ni", mats, nrm)
    L = np.linalg.norm(sizes * ln, axis=1)
    tau = rng.uniform(-0.95, 0.95, n)
    pos = pos - np.outer(pos @ nrm, nrm) - np.outer(tau * L, nrm)
    out = _run(types, sizes, pos, mats, np.r_[nrm, 0.0][None, :])
    np.testing.assert_allclose(out[:, 0], sizes.prod(1) * np.pi * (1 + tau) ** 2 * (2 - tau) / 3,
                               rtol=1e-10)
