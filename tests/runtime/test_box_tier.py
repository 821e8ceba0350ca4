"""The kernel's box tier (runtime/native/core/clip_box.cc: a box cut by one plane).

Checked against two things it did not produce:

* the generic polyhedral path (edge soup, ``clip_into(..., box_tier=False)``), on
  thousands of random poses and planes and on degenerate cuts (through a face, an
  edge, a vertex; axis-aligned; nearly parallel to a face);
* an independent numpy reference written here: closed forms for axis-aligned
  cuts, and for any cut ``trimesh``'s ``slice_plane`` (volume, centroid) and the
  section polygon built from the box's edge crossings (area, centroid, second
  moments by the shoelace formulas).

and the relative accuracy on slivers (a corner or all but a corner under water)
against inclusion-exclusion over the corners in 60-digit arithmetic (mpmath).

Agreement with the generic path is measured on the integrals (V, V c, A, A c_s, J)
relative to the box's own scale (``kernel_oracle.compare(..., whole=...)``), not to
each value: for a sliver the generic soup's own rounding is ~1e-16 of the box, i.e.
1e-11 of a piece of 1e-5 of the box, while the tier (every term non-negative)
keeps ~1e-14 of the piece; the mpmath test holds it to 1e-12 relative there.
The independent references use the per-value ``compare``; all at 1e-12.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from aurgen.runtime.hydrostatics import kernel
from aurgen.runtime.hydrostatics.geoms import EMPTY_HULLS
from kernel_oracle import compare

TOL = 1e-12


def _clip(sizes, pos, mats, planes, wp=True, box_tier=True):
    n = len(sizes)
    out = np.empty((n, 14 if wp else 5))
    kernel.clip_into(np.full(n, 6, dtype=np.int64), np.ascontiguousarray(sizes, dtype=float),
                     np.ascontiguousarray(pos, dtype=float), np.ascontiguousarray(mats, dtype=float),
                     np.zeros(n, dtype=np.int64), EMPTY_HULLS, np.ascontiguousarray(planes, dtype=float),
                     out, wp, box_tier=box_tier)
    return out


def _agree_with_generic(sizes, pos, mats, plane):
    worst = 0.0
    for wp in (False, True):
        a = _clip(sizes, pos, mats, plane[None], wp)
        b = _clip(sizes, pos, mats, plane[None], wp, box_tier=False)
        worst = max(worst, compare(a, b, sizes.max(axis=1), whole=np.ones(len(a), dtype=bool))[0])
    return worst


def _prism(sizes, pos, mats, plane):
    """Per box: does the plane cross all four edges along one box axis (the tier's closed-form
    prism case) rather than cutting off a corner or a wedge (its general face/cap case)?"""
    n, d = plane[:3], plane[3]
    corners = np.array(list(itertools.product((-1, 1), repeat=3)))  # (8, 3) sign patterns
    x = pos[:, None, :] + np.einsum("nij,ncj->nci", mats, corners * sizes[:, None, :])
    wet = x @ n <= d  # (n, 8)
    out = np.zeros(len(sizes), dtype=bool)
    for k in range(3):
        lo = corners[:, k] < 0
        out |= wet[:, lo].all(axis=1) & ~wet[:, ~lo].any(axis=1)
        out |= ~wet[:, lo].any(axis=1) & wet[:, ~lo].all(axis=1)
    return out


def test_random_poses_agree_with_the_generic_path():
    rng = np.random.default_rng(11)
    worst, cut, prism = 0.0, 0, 0
    for trial in range(40):
        n = 256
        sizes = rng.uniform(0.02, 1.5, (n, 3))
        pos = rng.normal(scale=0.5, size=(n, 3))
        mats = Rotation.random(n, random_state=rng.integers(1 << 31)).as_matrix()
        nrm = rng.normal(size=3)
        plane = np.r_[nrm / np.linalg.norm(nrm), rng.normal(scale=0.3)]
        worst = max(worst, _agree_with_generic(sizes, pos, mats, plane))
        out = _clip(sizes, pos, mats, plane[None], False)
        if trial == 0:  # the switch does select another implementation
            assert not np.array_equal(out, _clip(sizes, pos, mats, plane[None], False, box_tier=False))
        part = (out[:, 0] > 0) & (out[:, 0] < 8 * sizes.prod(axis=1))
        cut += int(np.count_nonzero(part))
        prism += int(np.count_nonzero(part & _prism(sizes, pos, mats, plane)))
    print(f"{40 * 256} boxes, {cut} cut ({prism} of them through four parallel edges), "
          f"max rel diff {worst:.3g}")
    assert cut > 5000 and 1000 < prism < cut - 1000  # both of the tier's cases, many times
    assert worst <= TOL


def _degenerate_cases():
    """(name, size (3,), unit normal in the geom frame, t) with pos = 0, R = I."""
    s = np.array([0.4, 0.25, 0.7])
    corners = np.array(list(itertools.product((-1, 1), repeat=3))) * s
    cases = []
    for k in range(3):  # axis-aligned: through the middle, near and at both faces
        for sgn in (1.0, -1.0):
            n = np.zeros(3)
            n[k] = sgn
            for t in (0.0, 0.3 * s[k], -0.9 * s[k], s[k] * (1 - 1e-15), -s[k] * (1 - 1e-15),
                      np.nextafter(s[k], 0), np.nextafter(-s[k], 0)):
                cases.append((f"axis{k}{sgn:+.0f} t={t:.3g}", s, n, t))
    for k in range(3):  # through an edge: n in a coordinate plane, plane on the edge
        i, j = (k + 1) % 3, (k + 2) % 3
        for si, sj in itertools.product((-1, 1), repeat=2):
            n = np.zeros(3)
            n[i], n[j] = si * 0.6, sj * 0.8
            for edge in itertools.product((-1, 1), repeat=2):
                x = np.zeros(3)
                x[i], x[j] = edge[0] * s[i], edge[1] * s[j]
                cases.append((f"edge{k} {si}{sj} {edge}", s, n, float(n @ x)))
    rng = np.random.default_rng(5)
    for v in corners:  # through a vertex, random normals
        for _ in range(4):
            n = rng.normal(size=3)
            n /= np.linalg.norm(n)
            cases.append((f"vertex {v}", s, n, float(n @ v)))
    for eps in (1e-3, 1e-6, 1e-9, 1e-12, 1e-15):  # nearly parallel to a face
        for k in range(3):
            n = np.zeros(3)
            n[k] = 1.0
            n[(k + 1) % 3] = eps
            n[(k + 2) % 3] = -0.5 * eps
            n /= np.linalg.norm(n)
            for t in (0.0, 0.5 * s[k], 0.999 * s[k], -0.999 * s[k]):
                cases.append((f"parallel{k} eps={eps:g} t={t:.3g}", s, n, t))
    return cases


@pytest.mark.parametrize("rotate", [False, True])
def test_degenerate_cuts_agree_with_the_generic_path(rotate):
    """Face, edge, vertex, axis-aligned and nearly parallel cuts; with rotate, the same
    cuts in a rotated and shifted geom frame (the plane moved with it)."""
    rng = np.random.default_rng(3)
    worst = 0.0
    for name, s, n, t in _degenerate_cases():
        R = Rotation.random(random_state=rng.integers(1 << 31)).as_matrix() if rotate else np.eye(3)
        p = rng.normal(size=3) if rotate else np.zeros(3)
        nw = R @ n
        plane = np.r_[nw, t + nw @ p]
        w = _agree_with_generic(s[None], p[None], R[None], plane)
        assert w <= TOL, name
        worst = max(worst, w)
    print(f"{len(_degenerate_cases())} degenerate cuts, max rel diff {worst:.3g}")


# ---------------------------------------------------------------- independent references


def _slivers_mp(s, n, t):
    """(V, centroid) of the box |x| <= s (geom frame) below n.x <= t in 60 digits: inclusion-
    exclusion over the corners of orthant simplices {u >= u_v, m.u <= tau}, u = sign(n) x + s."""
    import mpmath as mp  # the test extra: a missing reference is a failure, not a skip
    with mp.workdps(60):
        s = [mp.mpf(float(v)) for v in s]
        m = [abs(mp.mpf(float(v))) for v in n]
        # the depth of the deepest corner as the kernel forms it in doubles: a piece of
        # relative size f has condition number 1/f in t, which no algorithm recovers
        sd, nd = [float(v) for v in s], [abs(float(v)) for v in n]
        tau = mp.mpf(float(t) + (sd[0] * nd[0] + sd[1] * nd[1] + sd[2] * nd[2]))
        pm = m[0] * m[1] * m[2]
        V, M = mp.mpf(0), [mp.mpf(0)] * 3
        for bits in itertools.product((0, 1), repeat=3):
            u = [2 * s[k] * bits[k] for k in range(3)]
            dv = tau - sum(m[k] * u[k] for k in range(3))
            if dv <= 0:
                continue
            sg = (-1) ** sum(bits)
            vv = dv ** 3 / (6 * pm)
            V += sg * vv
            M = [M[k] + sg * (u[k] * vv + dv ** 4 / (24 * pm * m[k])) for k in range(3)]
        c = [(M[k] / V - s[k]) * (1 if n[k] >= 0 else -1) for k in range(3)]
        return float(V), np.array([float(x) for x in c])


def test_slivers_keep_their_relative_accuracy():
    """Planes near a corner (a small piece under water) and near the opposite corner (all but
    a small piece): the tier's volume and centroid against 60-digit arithmetic, relative to
    the piece, not to the box."""
    rng = np.random.default_rng(21)
    worst = 0.0
    for _ in range(60):
        s = rng.uniform(0.1, 1.0, 3)
        n = rng.normal(size=3)
        n /= np.linalg.norm(n)
        n[np.abs(n) < 0.05] = 0.05  # inclusion-exclusion divides by each component
        n /= np.linalg.norm(n)
        h = s @ np.abs(n)
        for frac in (1e-2, 1e-4, 1e-6):
            for t in (-h + frac * h, h - frac * h):
                V, c = _slivers_mp(s, n, t)
                row = _clip(s[None], np.zeros((1, 3)), np.eye(3)[None], np.r_[n, t][None], False)[0]
                piece = np.cbrt(V) if t < 0 else np.linalg.norm(s)  # the piece's size
                # the centroid to 1e-12 of the piece, plus the rounding of its geom-frame
                # coordinates (a few ulp of |c|, which is ~|s| at a corner)
                slack = 4 * np.finfo(float).eps * np.abs(c).max()
                ec = max(np.abs(row[1:4] - c).max() - slack, 0.0) / piece
                worst = max(worst, abs(row[0] - V) / V, ec)
    print(f"slivers: max rel diff {worst:.3g} against 60-digit arithmetic")
    assert worst <= TOL


def _section_reference(s, R, p, n, d):
    """Section polygon of the box (half-sizes s, pose R, p) with the world plane n.x = d,
    from the crossings of its 12 edges: (area, centroid (3,), second moments about the
    centroid (xx, yy, zz, xy, xz, yz), world)."""
    corners = np.array(list(itertools.product((-1, 1), repeat=3))) * s
    pts = []
    for i, j in itertools.combinations(range(8), 2):
        if np.count_nonzero(corners[i] != corners[j]) != 1:
            continue
        a, b = R @ corners[i] + p, R @ corners[j] + p
        da, db = n @ a - d, n @ b - d
        if (da < 0) != (db < 0):
            pts.append(a + (b - a) * (da / (da - db)))
    pts = np.array(pts)
    c0 = pts.mean(axis=0)
    u = np.cross(n, [1.0, 0, 0] if abs(n[0]) < 0.9 else [0, 1.0, 0])
    u /= np.linalg.norm(u)
    v = np.cross(n, u)
    q = np.c_[(pts - c0) @ u, (pts - c0) @ v]
    q = q[np.argsort(np.arctan2(q[:, 1], q[:, 0]))]
    x, y = q[:, 0], q[:, 1]
    x1, y1 = np.roll(x, -1), np.roll(y, -1)
    cr = x * y1 - x1 * y
    A = cr.sum() / 2
    cx, cy = (cr * (x + x1)).sum() / (6 * A), (cr * (y + y1)).sum() / (6 * A)
    Iuu = (cr * (x * x + x * x1 + x1 * x1)).sum() / 12 - A * cx * cx
    Ivv = (cr * (y * y + y * y1 + y1 * y1)).sum() / 12 - A * cy * cy
    Iuv = (cr * (x * y1 + 2 * x * y + 2 * x1 * y1 + x1 * y)).sum() / 24 - A * cx * cy
    B = np.c_[u, v]  # (3, 2)
    J = B @ np.array([[Iuu, Iuv], [Iuv, Ivv]]) @ B.T
    return A, c0 + cx * u + cy * v, J[[0, 1, 2, 0, 0, 1], [0, 1, 2, 1, 2, 2]]


def test_oblique_cuts_against_trimesh_and_the_section_polygon():
    trimesh = pytest.importorskip("trimesh")
    rng = np.random.default_rng(8)
    worst, n_done = 0.0, 0
    while n_done < 60:
        s = rng.uniform(0.1, 1.0, 3)
        R = Rotation.random(random_state=rng.integers(1 << 31)).as_matrix()
        p = rng.normal(size=3)
        n = rng.normal(size=3)
        n /= np.linalg.norm(n)
        h = s @ np.abs(R.T @ n)
        d = n @ p + rng.uniform(-0.95, 0.95) * h
        T = np.eye(4)
        T[:3, :3], T[:3, 3] = R, p
        box = trimesh.creation.box(extents=2 * s, transform=T)
        below = box.slice_plane(n * d, -n, cap=True)  # keeps the side -n points to
        A, c, J = _section_reference(s, R, p, n, d)
        ref = np.r_[below.volume, below.center_mass, A, c, J]
        row = _clip(s[None], p[None], R[None], np.r_[n, d][None])[0]
        worst = max(worst, compare(row[None], ref[None], s.max())[0])
        n_done += 1
    print(f"{n_done} oblique cuts, max rel diff {worst:.3g} against trimesh / the section polygon")
    assert worst <= TOL


def test_axis_aligned_cuts_against_closed_forms():
    """z-up box (half-sizes a, b, c) cut at height t (geom frame), then posed: V = 4ab(t + c),
    centroid z = (t - c)/2, section 2a x 2b at z = t with moments 4a^3 b/3, 4ab^3/3."""
    rng = np.random.default_rng(9)
    worst = 0.0
    for _ in range(200):
        a, b, c = rng.uniform(0.05, 2.0, 3)
        k = rng.integers(3)  # which box axis points along the plane normal
        perm = np.roll(np.arange(3), -(2 - k))  # local axis order so that axis k plays z
        s = np.empty(3)
        s[perm] = (a, b, c)
        Rl = np.eye(3)[:, perm]  # columns: local axes of the 'z-up' frame in the box frame
        R = Rotation.random(random_state=rng.integers(1 << 31)).as_matrix()
        p = rng.normal(size=3)
        t = rng.uniform(-0.99, 0.99) * c
        G = R @ Rl  # z-up frame -> world
        n = G[:, 2]
        plane = np.r_[n, t + n @ p]
        row = _clip(s[None], p[None], R[None], plane[None])[0]
        Jl = np.diag([4 * a ** 3 * b / 3, 4 * a * b ** 3 / 3, 0.0])
        J = G @ Jl @ G.T
        ref = np.r_[4 * a * b * (t + c), p + G @ [0, 0, (t - c) / 2], 4 * a * b,
                    p + G @ [0, 0, t], J[[0, 1, 2, 0, 0, 1], [0, 1, 2, 1, 2, 2]]]
        worst = max(worst, compare(row[None], ref[None], s.max())[0])
    assert worst <= TOL


def test_bitwise_deterministic_and_batch_independent():
    rng = np.random.default_rng(4)
    n = 300
    sizes = rng.uniform(0.05, 1.0, (n, 3))
    pos = rng.normal(scale=0.3, size=(n, 3))
    mats = Rotation.random(n, random_state=rng.integers(1 << 31)).as_matrix()
    plane = np.array([[0.0, 0.6, 0.8, 0.05]])
    a = _clip(sizes, pos, mats, plane)
    b = _clip(sizes, pos, mats, plane)
    assert np.array_equal(a, b, equal_nan=True)
    for i in range(0, n, 37):
        assert np.array_equal(_clip(sizes[i:i + 1], pos[i:i + 1], mats[i:i + 1], plane)[0], a[i],
                              equal_nan=True)


def test_force_stage_rows_equal_the_kernel_bitwise():
    """The force stage clips boxes cut by one plane with its own short path
    (core/clip_box.cc BoxRows: four boxes at a time in lanes, in one AVX2 register where the CPU has
    it, the level prism
    branch-free, other cuts by BoxClipRow): its volumes, centroids and section areas
    are the kernel's (ClipGeom, through clip_into) bit for bit, over random poses and the
    degenerate ones (level, tangent to the surface from above and below, a face in it,
    a corner or an edge on it, wholly wet and wholly dry)."""
    import mujoco

    from aurgen.runtime._native import ForceStage
    from aurgen.runtime.sim import Simulation

    rng = np.random.default_rng(11)
    n = 24
    sizes = rng.uniform(0.05, 0.4, (n, 3))
    bodies = "".join(f'<body name="b{i}" pos="{i} 0 0"><freejoint/><geom type="box" size="{float(s[0])!r} {float(s[1])!r} {float(s[2])!r}" '
                     f'mass="1" user="1"/></body>' for i, s in enumerate(sizes))
    sim = Simulation(f'<mujoco><option timestep="0.002"/><worldbody>{bodies}</worldbody></mujoco>', water=1000.0)
    m, d, args = sim.model, sim.data, list(sim._plan.args)
    stage = ForceStage(tuple(args))
    cpl, cnp = args[9], args[10]
    one = [c for c in range(len(cnp)) if cnp[c] == 1]
    assert one, "no cell bounded by one plane"
    c = one[0]  # a cell the stage clips (a later cell bounded by the opposite plane is its complement)
    nw, dw = cpl[c, 0, :3], cpl[c, 0, 3]
    assert np.isclose(np.linalg.norm(nw), 1.0)
    level = np.array([1.0, 0.0, 0.0, 0.0])
    edge = Rotation.from_euler("x", 45, degrees=True).as_quat(scalar_first=True)
    corner = Rotation.from_euler("xy", [45, np.degrees(np.arctan(1 / np.sqrt(2)))], degrees=True).as_quat(scalar_first=True)
    checked = 0
    for trial in range(40):
        for i in range(n):
            adr = m.jnt_qposadr[m.body_jntadr[m.body("b%d" % i).id]]
            q = Rotation.random(random_state=rng.integers(1 << 31)).as_quat(scalar_first=True)
            z = rng.uniform(-1.2, 1.2) * np.linalg.norm(sizes[i])
            kind = (trial + i) % 8
            if kind == 1:  # level, random draft
                q, z = level, rng.uniform(-1.0, 1.0) * sizes[i, 2]
            elif kind == 2:  # level, tangent from above / below, the mid-plane in the surface
                q, z = level, sizes[i, 2] * rng.choice([-1.0, 1.0, 0.0])
            elif kind == 3:  # an edge on the surface
                q = edge
                z = float(sizes[i, 1] * np.sin(np.pi / 4) + sizes[i, 2] * np.cos(np.pi / 4)) * rng.choice([-1.0, 1.0])
            elif kind == 4:  # a corner on the surface (about)
                q = corner
                R = Rotation.from_quat(corner, scalar_first=True).as_matrix()
                z = float(np.abs(R[2]) @ sizes[i]) * rng.choice([-1.0, 1.0])
            elif kind == 5:  # wholly wet / wholly dry
                z = 3.0 * np.linalg.norm(sizes[i]) * rng.choice([-1.0, 1.0])
            d.qpos[adr:adr + 3] = [i, rng.normal(), z]
            d.qpos[adr + 3:adr + 7] = q
        mujoco.mj_forward(m, d)
        stage.run()
        gi = args[1][:, 0]
        vol, cen, area = clip_batch_rows(m.geom_type[gi], m.geom_size[gi], d.geom_xpos[gi], d.geom_xmat[gi], nw, dw)
        np.testing.assert_array_equal(args[41][:, c], vol)
        np.testing.assert_array_equal(args[42][:, c], cen)
        np.testing.assert_array_equal(args[43][:, c], area)
        checked += n
    assert checked == 40 * n
    sim.close()


def clip_batch_rows(types, sizes, pos, mats, nw, dw):
    """(volumes, centroids, areas) of geoms cut by n.x <= d through the kernel's clip_into."""
    n = len(types)
    out = np.empty((n, 5))
    kernel.clip_into(np.asarray(types, dtype=np.int64), np.ascontiguousarray(sizes, dtype=float),
                     np.ascontiguousarray(pos, dtype=float), np.ascontiguousarray(mats, dtype=float).reshape(n, 3, 3),
                     np.zeros(n, dtype=np.int64), EMPTY_HULLS, np.r_[nw, dw][None].astype(float), out, False)
    return out[:, 0], out[:, 1:4], out[:, 4]


def test_the_kernels_box_rows_are_bitwise_the_per_row_path():
    """clip_into sends boxes cut by one plane (without the waterplane) through BoxRows, four at
    a time; smooth_rows=False keeps every row on ClipGeom: the two agree bit for bit, over
    random poses and level or slightly tilted boxes at random drafts (the prism across z),
    in mixed batches with every tier, and with the wider 14-column output."""
    rng = np.random.default_rng(5)
    n = 203  # not a multiple of 4: the pairs and the single rows too
    sizes = rng.uniform(0.05, 0.5, (n, 3))
    mats = Rotation.random(n, random_state=7).as_matrix()
    level = rng.random(n) < 0.6  # level or tilted a little (the prism across z), or anyhow
    tilt = Rotation.from_rotvec(rng.normal(scale=0.1, size=(n, 3)) * (rng.random((n, 1)) < 0.8)).as_matrix()
    mats[level] = tilt[level]
    pos = np.c_[rng.normal(size=(n, 2)), rng.uniform(-1.5, 1.5, n) * np.where(level, sizes[:, 2], np.linalg.norm(sizes, axis=1))]
    plane = np.array([[0.0, 0.0, 1.0, 0.0]])
    codes = np.full(n, 6, dtype=np.int64)
    for w in (5, 14):
        a, b = np.empty((n, w)), np.empty((n, w))
        kernel.clip_into(codes, sizes, pos, mats.reshape(n, 3, 3), np.zeros(n, dtype=np.int64), EMPTY_HULLS,
                         plane, a, False)
        kernel.clip_into(codes, sizes, pos, mats.reshape(n, 3, 3), np.zeros(n, dtype=np.int64), EMPTY_HULLS,
                         plane, b, False, smooth_rows=False)
        np.testing.assert_array_equal(a.view(np.uint64), b.view(np.uint64))
        assert 0 < np.count_nonzero((a[:, 0] > 0) & (a[:, 4] > 0)) < n  # cut rows among whole ones
