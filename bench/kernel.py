"""Benchmark of the hydrostatics kernel (not a test; run by hand: python bench/kernel.py).

Prints, per geom type and tier (wholly submerged, partial, wholly emerged), the
cost per geom of the compiled core ``clip_into`` (C++, aurgen.runtime._native)
for batches of 1, 16, 1,024 and 65,536 geoms, and the cost of one call for a
BlueBoat's 14 boxes.  Ratios are against baselines run in the same process:

* ``numba``: the numba implementation the core was ported from
  (tests/runtime/numba_oracle, the test oracle; needs numba), at N = 1
  (call overhead) and N = 1,024;
* ``numpy``: a plain-numpy vectorised reference of the same algorithms
  (closed form for spheres and ellipsoids, the edge-soup clip with its cap for
  boxes), where one exists;
* ``scalar``: the public scalar API ``clip(geom, n, d)`` called in a Python loop.

Then two same-process comparisons of one kernel path against the one it
replaces, interleaved rounds, the outputs checked first: the box tier against
the generic polyhedral path (``box_tier=False``), and the block path for
spheres and ellipsoids cut by one plane against the per-row path
(``smooth_rows=False``; the rows must be bitwise equal).

Options: ``--quick`` (fewer repeats, no 65,536 batch).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from aurgen.runtime.hydrostatics.geoms import EMPTY_HULLS, Geom, hull_of, pack_hulls
from aurgen.runtime.hydrostatics import clip, clip_batch
from aurgen.runtime.hydrostatics.kernel import clip_into

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "runtime"))
try:
    from numba_oracle.kernel import clip_into as numba_clip_into
except ImportError:  # no numba: no numba column
    numba_clip_into = None

TYPES = {"sphere": 2, "capsule": 3, "ellipsoid": 4, "cylinder": 5, "box": 6, "mesh": 7}
BATCHES = (1, 16, 1024, 65536)


def rotations(n, rng):
    q = rng.normal(size=(n, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    w, x, y, z = q.T
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], -1),
        np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], -1),
        np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], -1)], 1)


def batch(typ, n, tier, rng):
    """Geoms of one type with the plane z <= 0 placing them in one tier."""
    sizes = rng.uniform(0.1, 0.3, (n, 3))
    mats = rotations(n, rng)
    pos = np.zeros((n, 3))
    pos[:, :2] = rng.normal(size=(n, 2))
    if tier == "mixed":  # every tier, in random order
        pos[:, 2] = rng.uniform(-0.45, 0.45, n)
    else:
        pos[:, 2] = {"submerged": -2.0, "partial": 0.0, "emerged": 2.0}[tier] + rng.uniform(-0.05, 0.05, n)
    return sizes, pos, mats


def timeit(fn, min_time=0.2, trials=5):
    """Seconds per call: the best of ``trials`` runs of about min_time/trials each."""
    fn()
    rep = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(rep):
            fn()
        t = time.perf_counter() - t0
        if t >= min_time / trials:
            break
        rep *= 2
    best = t / rep
    for _ in range(trials - 1):
        t0 = time.perf_counter()
        for _ in range(rep):
            fn()
        best = min(best, (time.perf_counter() - t0) / rep)
    return best


# --------------------------------------------------------------------------- numpy baselines


def np_ellipsoid(sizes, pos, mats, n, d):
    ln = np.einsum("nji,j->ni", mats, n)
    t = d - pos @ n
    An = sizes * ln
    L = np.linalg.norm(An, axis=1)
    m = An / L[:, None]
    tau = np.clip(t / L, -1, 1)
    V = np.prod(sizes, 1) * np.pi * (1 + tau) ** 2 * (2 - tau) / 3
    k = -0.75 * (1 - tau) ** 2 / (2 - tau)
    c = pos + np.einsum("nij,nj->ni", mats, sizes * m * k[:, None])
    return V, c


_LOOPS = np.array([[[1, -1, -1], [1, 1, -1], [1, 1, 1], [1, -1, 1]],
                   [[-1, -1, -1], [-1, -1, 1], [-1, 1, 1], [-1, 1, -1]],
                   [[-1, 1, -1], [-1, 1, 1], [1, 1, 1], [1, 1, -1]],
                   [[-1, -1, -1], [1, -1, -1], [1, -1, 1], [-1, -1, 1]],
                   [[-1, -1, 1], [1, -1, 1], [1, 1, 1], [-1, 1, 1]],
                   [[-1, -1, -1], [-1, 1, -1], [1, 1, -1], [1, -1, -1]]], float)


def np_box(sizes, pos, mats, n, d):
    """Vectorised edge-soup clip of boxes with the closing cap (numpy)."""
    ln = np.einsum("nji,j->ni", mats, n)
    t = d - pos @ n
    A = _LOOPS[None] * sizes[:, None, None, :]            # (N, 6, 4, 3)
    B = np.roll(A, -1, axis=2)
    q = A[:, :, :1, :]
    sa = np.einsum("nfek,nk->nfe", A, ln) - t[:, None, None]
    sb = np.einsum("nfek,nk->nfe", B, ln) - t[:, None, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        lam = np.where(sa != sb, sa / (sa - sb), 0.0)[..., None]
    C = A + (B - A) * lam
    ina, inb = sa <= 0, sb <= 0
    a2 = np.where(ina[..., None], A, C)
    b2 = np.where(inb[..., None], B, C)
    keep = (ina | inb)[..., None]

    def tet(q, a, b):
        v6 = np.einsum("...k,...k->...", q, np.cross(a, b))
        return v6, v6[..., None] * (q + a + b)

    v6, m24 = tet(q, a2, b2)
    V6 = (v6 * keep[..., 0]).sum((1, 2))
    M24 = (m24 * keep).sum((1, 2))
    exit_ = ((ina & ~inb)[..., None] * C).sum(2)
    entry = ((~ina & inb)[..., None] * C).sum(2)
    has = (ina & ~inb).any(2)
    v6c, m24c = tet(q[:, :, 0, :], exit_, entry)
    qc = ln * t[:, None]
    v6k, m24k = tet(qc[:, None, :], entry, exit_)
    V6 += (has * (v6c + v6k)).sum(1)
    M24 += (has[..., None] * (m24c + m24k)).sum(1)
    V = V6 / 6
    with np.errstate(invalid="ignore", divide="ignore"):
        c = np.where(V[:, None] > 0, M24 / 24 / V[:, None], 0.0)
    return V, pos + np.einsum("nij,nj->ni", mats, c)


NUMPY = {"sphere": lambda s, p, m, n, d: np_ellipsoid(np.repeat(s[:, :1], 3, 1), p, m, n, d),
         "ellipsoid": np_ellipsoid, "box": np_box}


# --------------------------------------------------------------------------- main


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    batches = BATCHES[:3] if args.quick else BATCHES
    mt = 0.05 if args.quick else 0.2
    rng = np.random.default_rng(0)
    plane = np.array([[0.0, 0.0, 1.0, 0.0]])
    n, d = plane[0, :3], 0.0
    import trimesh
    mesh = trimesh.creation.icosphere(subdivisions=1, radius=0.2)
    hulls = pack_hulls([hull_of(mesh.vertices)])
    print(f"aurgen hydrostatics kernel benchmark (python {sys.version.split()[0]}, numpy {np.__version__})")
    print("cost per geom, µs, of clip_into (compiled core, preallocated output); ratio = baseline / core")
    print(f"{'type':10s} {'tier':10s} " + " ".join(f"{'N=' + str(b):>10s}" for b in batches)
          + f" {'numba N=1':>10s} {'x':>6s} {'numba 1024':>10s} {'x':>6s}"
          + f" {'numpy µs/geom':>14s} {'x':>6s} {'scalar µs':>10s} {'x':>6s}")
    # check the numpy baselines agree with the core before timing them
    for typ in ("sphere", "ellipsoid", "box"):
        s, p, m = batch(typ, 512, "partial", rng)
        out = np.empty((512, 5))
        clip_into(np.full(512, TYPES[typ]), s, p, m, np.zeros(512, np.int64), EMPTY_HULLS, plane, out, False)
        V, c = NUMPY[typ](s, p, m, n, d)
        assert np.allclose(V, out[:, 0], rtol=1e-10, atol=1e-14), typ
        assert np.allclose(c, out[:, 1:4], atol=1e-10), typ
    for typ in ("sphere", "ellipsoid", "box", "cylinder", "capsule", "mesh"):
        for tier in ("submerged", "partial", "emerged"):
            row = []
            for N in batches:
                s, p, m = batch(typ, N, tier, rng)
                codes = np.full(N, TYPES[typ], dtype=np.int64)
                ids = np.zeros(N, dtype=np.int64)
                hl = hulls if typ == "mesh" else EMPTY_HULLS
                out = np.empty((N, 5))
                t = timeit(lambda: clip_into(codes, s, p, m, ids, hl, plane, out, False), mt)
                row.append(t / N * 1e6)
            N = 1024
            s, p, m = batch(typ, N, tier, rng)
            core = row[batches.index(1024)]
            codes = np.full(N, TYPES[typ], dtype=np.int64)
            ids = np.zeros(N, dtype=np.int64)
            hl = hulls if typ == "mesh" else EMPTY_HULLS
            out = np.empty((N, 5))
            nbcol = ""
            if numba_clip_into is not None:
                for nn, base in ((1, row[0]), (N, core)):
                    tb = timeit(lambda: numba_clip_into(codes[:nn], s[:nn], p[:nn], m[:nn], ids[:nn], hl,
                                                        plane, out[:nn], False), mt) / nn * 1e6
                    nbcol += f" {tb:10.3f} {tb / base:6.1f}"
            if typ in NUMPY:
                tn = timeit(lambda: NUMPY[typ](s, p, m, n, d), mt) / N * 1e6
                npcol = f"{tn:14.3f} {tn / core:6.1f}"
            else:
                npcol = f"{'-':>14s} {'-':>6s}"
            gs = [Geom(typ, tuple(s[i][: {"sphere": 1, "cylinder": 2, "capsule": 2, "mesh": 0}.get(typ, 3)]),
                       p[i], m[i], vertices=mesh.vertices if typ == "mesh" else None) for i in range(16)]
            ts = timeit(lambda: [clip(g, n, d) for g in gs], mt) / 16 * 1e6
            print(f"{typ:10s} {tier:10s} " + " ".join(f"{x:10.3f}" for x in row)
                  + f"{nbcol} {npcol} {ts:10.2f} {ts / core:6.0f}")
    # BlueBoat: 12 pontoon segments and 2 windage boxes, floating near its draft
    xs = -0.4105 + 0.175 * np.arange(6)
    pos = [[x, y, 0.059] for x in xs for y in (0.361, -0.361)] + [[0.027, y, 0.239] for y in (0.361, -0.361)]
    sizes = [[0.0875, 0.09, 0.09]] * 12 + [[0.525, 0.09, 0.09]] * 2
    pos = np.array(pos) - [0, 0, 0.0079]
    sizes = np.array(sizes)
    mats = np.repeat(np.eye(3)[None], 14, 0)
    codes = np.full(14, 6, dtype=np.int64)
    ids = np.zeros(14, dtype=np.int64)
    out = np.empty((14, 5))
    t_core = timeit(lambda: clip_into(codes, sizes, pos, mats, ids, EMPTY_HULLS, plane, out, False), mt)
    t_batch = timeit(lambda: clip_batch("box", sizes, pos, mats, n, d), mt)
    t_np = timeit(lambda: np_box(sizes, pos, mats, n, d), mt)
    gs = [Geom("box", tuple(sizes[i]), pos[i], mats[i]) for i in range(14)]
    t_sc = timeit(lambda: [clip(g, n, d) for g in gs], mt)
    print()
    print("BlueBoat, 14 boxes (12 partial pontoon segments, 2 emerged windage boxes), one call:")
    print(f"  clip_into (core)      {t_core * 1e6:8.2f} µs")
    if numba_clip_into is not None:
        t_nb = timeit(lambda: numba_clip_into(codes, sizes, pos, mats, ids, EMPTY_HULLS, plane, out, False), mt)
        print(f"  numba core (before)   {t_nb * 1e6:8.2f} µs   ({t_nb / t_core:.1f}x core)")
    print(f"  clip_batch (wrapper)  {t_batch * 1e6:8.2f} µs   ({t_batch / t_core:.1f}x core)")
    print(f"  numpy baseline        {t_np * 1e6:8.2f} µs   ({t_np / t_core:.1f}x core)")
    print(f"  scalar clip() loop    {t_sc * 1e6:8.2f} µs   ({t_sc / t_core:.1f}x core)")
    print(f"  total volume {out[:, 0].sum():.6f} m^3 (ρV = {1025 * out[:, 0].sum():.3f} kg at ρ = 1025)")
    box_tier_vs_generic(rng, mt)
    smooth_rows_vs_per_row(rng, mt)


def box_tier_vs_generic(rng, mt, N=1024, rounds=5):
    """The box tier against the generic polyhedral path (clip_into(..., box_tier=False)) on
    the same partial boxes, interleaved rounds, best per round; the outputs are checked to
    agree first (the same rows, to rounding)."""
    s, p, m = batch("box", N, "partial", rng)
    codes = np.full(N, 6, dtype=np.int64)
    ids = np.zeros(N, dtype=np.int64)
    plane = np.array([[0.0, 0.0, 1.0, 0.0]])
    print()
    print(f"box tier vs generic polyhedral path, {N} partial boxes, one plane, {rounds} interleaved rounds:")
    for wp, w in ((False, 5), (True, 14)):
        a, b = np.empty((N, w)), np.empty((N, w))
        clip_into(codes, s, p, m, ids, EMPTY_HULLS, plane, a, wp)
        clip_into(codes, s, p, m, ids, EMPTY_HULLS, plane, b, wp, box_tier=False)
        assert np.allclose(a, b, rtol=1e-12, atol=1e-15), "box tier and generic path disagree"
        t1, t2 = interleaved(lambda: clip_into(codes, s, p, m, ids, EMPTY_HULLS, plane, a, wp),
                             lambda: clip_into(codes, s, p, m, ids, EMPTY_HULLS, plane, b, wp, box_tier=False),
                             rounds, mt, N)
        print(f"  want_wp={wp!s:5s}  tier {t1:.3f} µs/box  generic {t2:.3f} µs/box  ({t2 / t1:.2f}x)")


def interleaved(fa, fb, rounds, mt, n):
    """(a, b): the best of ``rounds`` interleaved timings of ``fa`` and ``fb`` (timeit with
    ``mt``), in µs per each of n geoms."""
    ta, tb = [], []
    for _ in range(rounds):
        ta.append(timeit(fa, mt))
        tb.append(timeit(fb, mt))
    return min(ta) / n * 1e6, min(tb) / n * 1e6


def smooth_rows_vs_per_row(rng, mt, N=1024, rounds=5):
    """The block path for spheres and ellipsoids cut by one plane (the default) against
    the per-row path (clip_into(..., smooth_rows=False)) on the same geoms, interleaved
    rounds, best per round; the rows are checked to be bitwise equal first.  "mixed":
    geoms at random heights about the plane, every tier in random order."""
    plane = np.array([[0.0, 0.0, 1.0, 0.0]])
    ids = np.zeros(N, dtype=np.int64)
    print()
    print(f"sphere/ellipsoid block path vs per-row path, {N} geoms, one plane, {rounds} interleaved rounds:")
    for typ in ("sphere", "ellipsoid"):
        codes = np.full(N, TYPES[typ], dtype=np.int64)
        for tier in ("submerged", "partial", "emerged", "mixed"):
            s, p, m = batch(typ, N, tier, rng)
            a, b = np.empty((N, 5)), np.empty((N, 5))
            clip_into(codes, s, p, m, ids, EMPTY_HULLS, plane, a, False)
            clip_into(codes, s, p, m, ids, EMPTY_HULLS, plane, b, False, smooth_rows=False)
            assert np.array_equal(a.view(np.uint64), b.view(np.uint64)), "block and per-row paths differ"
            cut = int(np.sum((a[:, 4] > 0)))
            t1, t2 = interleaved(lambda: clip_into(codes, s, p, m, ids, EMPTY_HULLS, plane, a, False),
                                 lambda: clip_into(codes, s, p, m, ids, EMPTY_HULLS, plane, b, False,
                                                   smooth_rows=False),
                                 rounds, mt, N)
            print(f"  {typ:9s} {tier:9s} ({cut:4d} cut)  block {t1:.3f} µs/geom  per-row {t2:.3f}  ({t2 / t1:.2f}x)")


if __name__ == "__main__":
    main()
