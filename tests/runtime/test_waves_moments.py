"""Froude-Krylov by volume moments (issue 38; docs/kernel.md "Waves"): the environment's
``waves.fk: moments`` against an independent reference and against the column quadrature
(``fk: exact``), and its truncation bound.

Oracle: the piece (the box under its tangent plane of the sea, split at the mean level) built here
with scipy's convex hull, and the linear pressure's Froude-Krylov correction integrated over it by
a conical-product Gauss rule on each tetrahedron of a fan (12 points a side: 1e-13 for the
entire integrands up to kR = 3), written here, not imported.  The tolerance is the stated one:
each component's truncation error within ``fk_tolerance`` of its force scale
``S_j = rho g a_j (k_j V + A)`` (V the piece's volume, A its cap's area), its moment within
``S_j (|c - p| + R)`` (c the piece's centroid, p the geom's origin, R the piece's largest distance
from c).
"""

from __future__ import annotations

import itertools
import json
import math

import mujoco
import numpy as np
import pytest
from scipy.spatial import ConvexHull

from aurgen.runtime import plugin as hplugin
from aurgen.runtime.environment import schema as envschema

import seascenes as ss

if not hplugin.library_path().exists():
    pytest.skip(f"the plugin library is not built ({hplugin.library_path()})", allow_module_level=True)
ss.load()

RHO, G = ss.RHO, ss.G
UP = np.array([0.0, 0.0, 1.0])


# ---------------------------------------------------------------- the oracle

def _quat_mat(q):
    m = np.zeros(9)
    mujoco.mju_quat2Mat(m, np.asarray(q, float))
    return m.reshape(3, 3)


def _clip(pts, n, d):
    """The vertices of hull(pts) clipped to n.x <= d: those inside and every pair's crossing."""
    s = pts @ n - d
    out = [pts[s <= 0]]
    i, j = np.nonzero((s[:, None] < 0) & (s[None, :] > 0))
    if len(i):
        t = (s[i] / (s[i] - s[j]))[:, None]
        out.append(pts[i] + t * (pts[j] - pts[i]))
    return np.concatenate(out)


def _gauss(n):
    x, w = np.polynomial.legendre.leggauss(n)
    return 0.5 * (x + 1), 0.5 * w


_U, _WU = _gauss(12)


def _tet_rule(tets):
    """Points (T, Q, 3) and weights (T, Q) of the conical product rule on tets (T, 4, 3)."""
    u, v, w = np.meshgrid(_U, _U, _U, indexing="ij")
    wt = (_WU[:, None, None] * _WU[None, :, None] * _WU[None, None, :] * (1 - u) ** 2 * (1 - v)).ravel()
    u, v, w = u.ravel(), v.ravel(), w.ravel()
    l1, l2, l3 = u, (1 - u) * v, (1 - u) * (1 - v) * w  # the Duffy map to the unit simplex
    a, b, c, e = (tets[:, i, None, :] for i in range(4))
    x = a + l1[:, None] * (b - a) + l2[:, None] * (c - a) + l3[:, None] * (e - a)
    vol6 = np.abs(np.einsum("ij,ij->i", b[:, 0] - a[:, 0], np.cross(c[:, 0] - a[:, 0], e[:, 0] - a[:, 0])))
    return x, vol6[:, None] * wt[None, :]


def _tri_rule(tris):
    u, v = np.meshgrid(_U, _U, indexing="ij")
    wt = (_WU[:, None] * _WU[None, :] * (1 - u)).ravel()
    l1, l2 = u.ravel(), ((1 - u) * v).ravel()
    a, b, c = (tris[:, i, None, :] for i in range(3))
    x = a + l1[:, None] * (b - a) + l2[:, None] * (c - a)
    ar2 = np.linalg.norm(np.cross(b[:, 0] - a[:, 0], c[:, 0] - a[:, 0]), axis=1)
    return x, ar2[:, None] * wt[None, :]


def _tets(pts):
    if len(pts) < 4:
        return np.zeros((0, 4, 3))
    try:
        h = ConvexHull(pts)
    except Exception:  # flat (the piece only touches a plane): no volume
        return np.zeros((0, 4, 3))
    m = pts[h.vertices].mean(axis=0)
    return np.array([[m, *pts[s]] for s in h.simplices])


def _polygon(pts, n):
    """Triangles (T, 3, 3) of the convex polygon of pts (on a plane of normal n)."""
    if len(pts) < 3:
        return np.zeros((0, 3, 3))
    e1 = np.cross(n, [1.0, 0, 0] if abs(n[0]) < 0.9 else [0, 1.0, 0])
    e1 /= np.linalg.norm(e1)
    e2 = np.cross(n, e1)
    q = np.c_[pts @ e1, pts @ e2]
    try:
        h = ConvexHull(q)
    except Exception:  # degenerate (a segment): no area
        return np.zeros((0, 3, 3))
    v = pts[h.vertices]
    m = v.mean(axis=0)
    return np.array([[m, v[i], v[(i + 1) % len(v)]] for i in range(len(v))])


def _box_points(half, pos, R):
    c = np.array(list(itertools.product(*[(-h, h) for h in half])))
    return pos + c @ R.T


def tangent_plane(comps, x, t):
    """The tangent plane's water row (n, d) at x (sea.cc Elevation, forces_sea.cc SeaPlanes)."""
    eta, gr = 0.0, np.zeros(3)
    for a, om, kx, ky, kz, ph in comps:
        k = np.array([kx, ky, kz])
        th = k @ x - om * t + ph
        eta += a * math.cos(th)
        gr -= a * math.sin(th) * k
    row = np.r_[UP - gr, eta - gr @ x]
    return row / np.linalg.norm(row[:3])


def reference(half, pos, quat, comps, t, depth=None, pts=None, xc=None):
    """The piece under the tangent plane: (F, T about pos) of buoyancy plus the Froude-Krylov
    correction (world), and the piece's (V, A, c, R). The box of half sizes ``half`` at pos, quat;
    or the convex hull of the world points ``pts`` with its tangent plane at ``xc``."""
    if pts is None:
        pts = _box_points(half, pos, _quat_mat(quat))
    row = tangent_plane(comps, pos if xc is None else xc, t)
    n, d = row[:3], row[3]
    piece = _clip(pts, n, d)
    tt = _tets(piece)
    x, w = _tet_rule(tt)
    V = w.sum()
    c = (x * w[..., None]).sum(axis=(0, 1)) / V
    Rm = np.linalg.norm(piece - c, axis=1).max()
    F = RHO * G * V * UP
    T = np.cross(c - pos, F)
    parts = ((_clip(piece, UP, 0.0), True), (_clip(piece, -UP, 0.0), False))
    capts = piece[np.abs(piece @ n - d) < 1e-12 * max(1.0, np.abs(piece).max())]
    cap = _polygon(capts, n)
    A = 0.0
    if len(cap):
        xa, wa = _tri_rule(cap)
        A = wa.sum()
        zeta = xa @ UP
        f = -RHO * G * (wa * zeta).sum() * n
        F = F + f
        T = T + np.cross(((wa * zeta)[..., None] * (xa - pos)).sum(axis=(0, 1)), -RHO * G * n)
    for a, om, kx, ky, kz, ph in comps:
        k = np.array([kx, ky, kz])
        kn = np.linalg.norm(k)
        fin = depth is not None
        cD = 1 / (1 + math.exp(-2 * kn * depth)) if fin else 1.0
        for pp, below in parts:
            if len(pp) < 4:
                continue
            terms = ([(cD, 1.0, 0.0)] + ([(cD, -1.0, -2 * kn * depth)] if fin else [])) if below else [(1.0, 0.0, 0.0)]
            for C, s, off in terms:
                kap = s * kn * UP + 1j * k
                def W(xx):  # noqa: E306
                    return C * np.exp(s * kn * (xx @ UP) + off + 1j * (xx @ k - om * t + ph))
                tp = _tets(pp)
                if len(tp):
                    xv, wv = _tet_rule(tp)
                    Iw = (wv * W(xv)).sum()
                    Jw = ((wv * W(xv))[..., None] * (xv - pos)).sum(axis=(0, 1))
                    F = F - RHO * G * a * np.real(kap * Iw)
                    T = T - RHO * G * a * np.real(np.cross(Jw, kap))
                cp = pp[np.abs(pp @ n - d) < 1e-12 * max(1.0, np.abs(pp).max())]
                ct = _polygon(cp, n)
                if len(ct):
                    xa, wa = _tri_rule(ct)
                    Ia = np.real((wa * W(xa)).sum())
                    Ja = np.real(((wa * W(xa))[..., None] * (xa - pos)).sum(axis=(0, 1)))
                    F = F + RHO * G * a * Ia * n
                    T = T + RHO * G * a * np.cross(Ja, n)
    return F, T, (V, A, c, Rm)


# ---------------------------------------------------------------- the plugin

def _model(half, comps, fk, tol=None, depth=None):
    env = ss.sea_env(comps, depth=depth, air=None)
    env["waves"]["fk"] = fk
    if tol is not None:
        env["waves"]["fk_tolerance"] = tol
    return mujoco.MjModel.from_xml_string(ss.scene(ss.free_body(ss.gm("box", half)), env))


def plugin_force(m, pos, quat, t):
    """The held box's passive force and moment about its origin (world)."""
    d = mujoco.MjData(m)
    d.qpos[:] = np.r_[pos, quat]
    d.time = t
    mujoco.mj_forward(m, d)
    f = d.qfrc_passive
    return f[:3].copy(), _quat_mat(quat) @ f[3:6]  # the free joint's moment: body frame


def _sea(rng, kR, R, ncomp, depth=None):
    comps = []
    for j in range(ncomp):
        k = kR / R * (1.0 if j == 0 else rng.uniform(0.2, 1.0))
        om = math.sqrt(G * k * (1.0 if depth is None else math.tanh(k * depth)))
        a = min(0.02, 0.25 / k) * rng.uniform(0.3, 1.0)  # H/lambda at most 0.08
        comps.append(ss.component(a, om, k, rng.uniform(0, 2 * math.pi), rng.uniform(0, 2 * math.pi)))
    return comps


def _pose(rng, half, upright):
    if upright:
        th = rng.uniform(0, 2 * math.pi)
        q = np.array([math.cos(th / 2), 0, 0, math.sin(th / 2)])
    else:
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
    pos = np.r_[rng.uniform(-2, 2, 2), rng.uniform(-0.5, 0.5) * min(half)]
    return pos, q


def _scales(comps, V, A, lever):
    S = sum(RHO * G * c[0] * (math.hypot(c[2], c[3]) * V + A) for c in comps)
    return S, S * lever


KRS = [0.01, 0.1, 0.3, 1.0, 2.0, 3.0]


@pytest.mark.parametrize("kR", KRS)
@pytest.mark.parametrize("depth", [None, 3.0], ids=["deep", "h=3"])
def test_moments_within_tolerance_of_the_oracle(kR, depth):
    """Random poses and seas (4 components, random directions and phases): every force and
    moment component within fk_tolerance of the summed components' scales."""
    rng = np.random.default_rng(int(kR * 1000) + (0 if depth is None else 7))
    tol = 1e-4
    for trial in range(4):
        half = np.array([0.6, 0.25, 0.15]) * rng.uniform(0.5, 1.5, 3)
        R = np.linalg.norm(half)
        comps = _sea(rng, kR, R, 4, depth)
        m = _model(half, comps, "moments", tol, depth)
        pos, q = _pose(rng, half, trial == 0)
        t = rng.uniform(0, 20)
        Fr, Tr, (V, A, c, Rm) = reference(half, pos, q, comps, t, depth)
        Fm, Tm = plugin_force(m, pos, q, t)
        S, ST = _scales(comps, V, A, np.linalg.norm(c - pos) + Rm)
        assert np.abs(Fm - Fr).max() <= tol * S, (trial, Fm - Fr, S)
        assert np.abs(Tm - Tr).max() <= tol * ST, (trial, Tm - Tr, ST)


@pytest.mark.parametrize("kR", KRS)
def test_moments_agree_with_the_columns_and_are_exact_at_a_tight_tolerance(kR):
    """Upright boxes (the tangent plane crosses only the sides, where the columns' quadrature has
    no kink): the two paths agree within the tolerance; the columns are within 1e-6 of the oracle
    (their rules' own error, measured 1e-13 to 7e-8 here), and the moment path at fk_tolerance
    1e-12 (orders up to 30) within 1e-11 of it, tilted boxes too (measured 1e-16 to 1e-13)."""
    rng = np.random.default_rng(int(kR * 100) + 11)
    for trial in range(3):
        half = np.array([0.6, 0.25, 0.3]) * rng.uniform(0.5, 1.5, 3)
        R = np.linalg.norm(half)
        comps = _sea(rng, kR, R, 3)
        pos, q = _pose(rng, half, trial < 2)
        t = rng.uniform(0, 20)
        Fr, Tr, (V, A, c, Rm) = reference(half, pos, q, comps, t)
        S, ST = _scales(comps, V, A, np.linalg.norm(c - pos) + Rm)
        Fm, Tm = plugin_force(_model(half, comps, "moments"), pos, q, t)
        Ft, Tt = plugin_force(_model(half, comps, "moments", 1e-12), pos, q, t)
        assert np.abs(Ft - Fr).max() <= 1e-11 * S and np.abs(Tt - Tr).max() <= 1e-11 * ST
        if trial < 2:
            Fe, Te = plugin_force(_model(half, comps, "exact"), pos, q, t)
            assert np.abs(Fe - Fr).max() <= 1e-6 * S and np.abs(Te - Tr).max() <= 1e-6 * ST
            assert np.abs(Fm - Fe).max() <= 1e-4 * S and np.abs(Tm - Te).max() <= 1e-4 * ST


@pytest.mark.parametrize("kR", KRS)
@pytest.mark.parametrize("depth", [None, 3.0], ids=["deep", "h=3"])
def test_columns_resolve_a_tilted_box_kinks(kR, depth):
    """The columns (fk: exact) on tilted boxes, where the tangent plane crosses the top or bottom
    face: the chords' integrals have kinks across the section there, which sea.cc BoxColumns now
    splits at (KinkLines; then at the mean level's weaker kink too).  Within 1e-5 of the oracle's
    scale: measured 2e-9 where split, 1.3e-6 where only the mean level's kink (in the second
    derivative) crosses and the section stays whole; before the split up to 1.7e-2."""
    rng = np.random.default_rng(int(kR * 100) + 5 + (0 if depth is None else 3))
    for trial in range(4):
        half = np.array([0.6, 0.25, 0.3]) * rng.uniform(0.5, 1.5, 3)
        R = np.linalg.norm(half)
        comps = _sea(rng, kR, R, 3, depth)
        pos, q = _pose(rng, half, False)
        t = rng.uniform(0, 20)
        Fr, Tr, (V, A, c, Rm) = reference(half, pos, q, comps, t, depth)
        S, ST = _scales(comps, V, A, np.linalg.norm(c - pos) + Rm)
        Fe, Te = plugin_force(_model(half, comps, "exact", depth=depth), pos, q, t)
        assert np.abs(Fe - Fr).max() <= 1e-5 * S, (trial, (Fe - Fr) / S)
        assert np.abs(Te - Tr).max() <= 1e-5 * ST, (trial, (Te - Tr) / ST)


def _tail(z, N):
    """|e^z - sum_{n<N} z^n / n!|, by the series' tail (no cancellation)."""
    s, term, n = 0j, z ** N / math.factorial(N), N
    while abs(term) > 1e-300 and n < N + 400:
        s += term
        n += 1
        term *= z / n
    return abs(s)


def _bound(rho, N):  # sea_moments.cc MomentTail, written again
    if not rho < N + 1:
        return math.inf
    return rho ** N / math.factorial(N) * (N + 1) / (N + 1 - rho)


def test_the_truncation_bound_holds():
    """|e^z - sum_{n<N} z^n / n!| <= rho^N / N! (N + 1) / (N + 1 - rho) for |z| <= rho, sampled."""
    rng = np.random.default_rng(5)
    for _ in range(3000):
        rho = 10 ** rng.uniform(-2, math.log10(3.5))
        N = int(rng.integers(1, 31))
        z = rho * rng.uniform(0, 1) ** 0.3 * np.exp(1j * rng.uniform(0, 2 * np.pi))
        assert _tail(z, N) <= _bound(rho, N) * (1 + 1e-12)


@pytest.mark.parametrize("kR", [0.1, 1.0, 3.0])
def test_truncation_error_within_its_bound(kR):
    """The moment path at fk_tolerance 1e-4 against itself at 1e-12: the truncation error alone,
    per force and moment component, within 1e-4 of the scale (the bound holds end to end), and the
    tolerance is used: a looser one errs more, never past it."""
    rng = np.random.default_rng(int(kR * 10) + 3)
    for trial in range(4):
        half = np.array([0.5, 0.3, 0.2]) * rng.uniform(0.5, 1.5, 3)
        R = np.linalg.norm(half)
        comps = _sea(rng, kR, R, 3)  # three: fewer stay on the columns (sea.h kMomentsMinWaves)
        pos, q = _pose(rng, half, False)
        t = rng.uniform(0, 20)
        _, _, (V, A, c, Rm) = reference(half, pos, q, comps, t)
        S, ST = _scales(comps, V, A, np.linalg.norm(c - pos) + Rm)
        Ft, Tt = plugin_force(_model(half, comps, "moments", 1e-12), pos, q, t)
        for tol in (1e-2, 1e-4, 1e-6):
            Fm, Tm = plugin_force(_model(half, comps, "moments", tol), pos, q, t)
            assert np.abs(Fm - Ft).max() <= tol * S and np.abs(Tm - Tt).max() <= tol * ST, tol


def test_fk_key_refused_in_the_same_words():
    """waves.fk and waves.fk_tolerance: the Python schema and the plugin refuse the same values
    with the same words."""
    base = ss.sea_env([ss.component(0.01, math.sqrt(G * 1.0), 1.0)])
    bad = [("fk", "fast", 'waves.fk: expected "exact" or "moments", got a string (\'fast\')'),
           ("fk", 1, 'waves.fk: expected "exact" or "moments", got 1'),
           ("fk_tolerance", 0.5, "waves.fk_tolerance: expected a tolerance from 1e-12 to 0.1, got 0.5"),
           ("fk_tolerance", 0.0, "waves.fk_tolerance: expected a tolerance from 1e-12 to 0.1, got 0.0")]
    for key, val, words in bad:
        env = {**base, "waves": {**base["waves"], key: val}}
        with pytest.raises(envschema.EnvironmentInvalid) as e:
            envschema.parse(json.dumps(env))
        assert str(e.value) == words
        with pytest.raises(Exception) as e2:
            mujoco.MjModel.from_xml_string(ss.scene(ss.free_body(ss.gm("box", (0.5, 0.3, 0.2))), env))
        assert words in str(e2.value)
    for fk in ("exact", "moments"):
        env = {**base, "waves": {**base["waves"], "fk": fk, "fk_tolerance": 1e-6}}
        mujoco.MjModel.from_xml_string(ss.scene(ss.free_body(ss.gm("box", (0.5, 0.3, 0.2))), env))


def test_fallback_to_the_columns_where_the_bound_is_not_met():
    """At fk_tolerance 1e-12 no order up to 30 meets the bound beyond kR = 4.72: such components are
    integrated by the columns. A sea of only those gives the columns' force bitwise; a sea mixing
    them with long components agrees with the columns to their own error (an upright box)."""
    rng = np.random.default_rng(17)
    half = np.array([0.5, 0.3, 0.3])
    R = np.linalg.norm(half)
    pos, q = np.array([0.3, -0.2, 0.05]), np.array([math.cos(0.2), 0, 0, math.sin(0.2)])
    short = [ss.component(0.004, math.sqrt(G * k), k, 0.3, ph) for k, ph in ((7 / R, 0.1), (8 / R, 2.0), (9 / R, 4.0))]
    for t in rng.uniform(0, 10, 3):
        Fe, Te = plugin_force(_model(half, short, "exact"), pos, q, t)
        Fm, Tm = plugin_force(_model(half, short, "moments", 1e-12), pos, q, t)
        assert np.array_equal(Fe, Fm) and np.array_equal(Te, Tm)
    mixed = short[:1] + [ss.component(0.02, math.sqrt(G * k), k, 0.3, 1.0) for k in (0.2 / R, 0.5 / R)]
    _, _, (V, A, c, Rm) = reference(half, pos, q, mixed, 1.0)
    S, ST = _scales(mixed, V, A, np.linalg.norm(c - pos) + Rm)
    for t in rng.uniform(0, 10, 3):
        Fe, Te = plugin_force(_model(half, mixed, "exact"), pos, q, t)
        Fm, Tm = plugin_force(_model(half, mixed, "moments", 1e-12), pos, q, t)
        assert np.abs(Fm - Fe).max() <= 1e-6 * S and np.abs(Tm - Te).max() <= 1e-6 * ST


def test_warp_takes_the_moments_as_the_plugin():
    """The MuJoCo Warp backend takes the Froude-Krylov force as the plugin does (issue 48): the moments for
    a sea declaring fk: moments or no fk, the columns for fk: exact (runtime/mjwarp/host.py; the forces
    against the plugin's: tests/runtime/test_mjwarp_moments.py)."""
    host = pytest.importorskip("aurgen.runtime.mjwarp.host", reason="the MuJoCo Warp backend's host module")
    env = ss.sea_env([ss.component(0.01, math.sqrt(G * 1.0), 1.0)])
    for fk, moments in (("moments", True), (None, True), ("exact", False)):
        env["waves"].pop("fk", None)
        if fk is not None:
            env["waves"]["fk"] = fk
        got = host._sea(envschema.parse(json.dumps(env)))
        assert got["fk_moments"] is moments and got["fk_tol"] == 1e-4 and got["components"].shape == (1, 6)


# a hexagonal prism with a slanted top (z = 0.12 + x / 6), metres: 8 faces, which the hull gives as
# 20 triangles (coplanar pairs: the moments' clip must take a plane met twice as cutting nothing)
_MESH = np.array([[0.3 * math.cos(a), 0.2 * math.sin(a), z] for a in np.arange(6) * math.pi / 3
                  for z in (-0.15, 0.12 + 0.05 * math.cos(a))])


@pytest.mark.parametrize("ncomp", [1, 3])
@pytest.mark.parametrize("kR", [0.1, 1.0, 3.0])
def test_mesh_hull_within_tolerance_of_the_oracle(kR, ncomp):
    """A convex mesh's hull (its bounding box clipped by its face planes): against the oracle on
    the hull of its compiled vertices (MuJoCo's mesh frame), random tilted poses; in seas of three
    components and of one (a mesh takes the moments at any number: its columns are 2e-3 off at the
    silhouette, where a box's one-component sea stays on its columns)."""
    rng = np.random.default_rng(int(kR * 10) + 29 + 100 * ncomp)
    verts = " ".join(repr(float(v)) for v in _MESH.ravel())
    R = float(np.linalg.norm(_MESH, axis=1).max())
    for trial in range(3):
        comps = _sea(rng, kR, R, ncomp)
        env = ss.sea_env(comps, air=None)
        env["waves"]["fk"] = "moments"
        pos, q = _pose(rng, (0.15, 0.15, 0.15), False)
        xml = ss.scene(ss.free_body('<geom type="mesh" mesh="hull" user="1" contype="0" conaffinity="0"/>'), env,
                       head=f'<asset><mesh name="hull" vertex="{verts}"/></asset>')
        m = mujoco.MjModel.from_xml_string(xml)
        t = rng.uniform(0, 20)
        d = mujoco.MjData(m)
        d.qpos[:] = np.r_[pos, q]
        mujoco.mj_kinematics(m, d)
        a, n = m.mesh_vertadr[0], m.mesh_vertnum[0]
        world = d.geom_xpos[0] + m.mesh_vert[a:a + n] @ d.geom_xmat[0].reshape(3, 3).T
        Fr, Tr, (V, A, c, Rm) = reference(None, pos, q, comps, t, pts=world, xc=d.geom_xpos[0].copy())
        Fm, Tm = plugin_force(m, pos, q, t)
        S, ST = _scales(comps, V, A, np.linalg.norm(c - pos) + Rm)
        assert np.abs(Fm - Fr).max() <= 1e-4 * S, (trial, Fm - Fr, S)
        assert np.abs(Tm - Tr).max() <= 1e-4 * ST, (trial, Tm - Tr, ST)
