"""Floating equilibrium and GZ against textbook hydrostatics and a 2-D section clip."""
import numpy as np
import pytest
from scipy.optimize import brentq

from aurgen.runtime.hydrostatics import Geom, clip_batch, equilibrium, gz_curve
from aurgen.runtime.hydrostatics.equilibrium import attitude

RHO = 1000.0


def barge(L=2.0, B=1.0, H=0.6, zc=0.0):
    return Geom("box", (L / 2, B / 2, H / 2), [0.0, 0.0, zc], np.eye(3))


def test_box_barge_half_density_textbook():
    L, B, H, zg = 2.0, 1.0, 0.6, -0.1
    m = RHO * L * B * H * 0.5
    e = equilibrium([barge(L, B, H)], m, [0, 0, zg], RHO)
    T = H / 2  # density ratio 0.5
    KB, KG = T / 2, zg + H / 2
    assert e.converged and e.status == "floating" and e.stable
    assert e.draft == pytest.approx(T - H / 2, abs=1e-12)  # base_link at the box centre
    assert e.heel == pytest.approx(0, abs=1e-12) and e.trim == pytest.approx(0, abs=1e-12)
    assert e.volume == pytest.approx(L * B * T, rel=1e-12)
    np.testing.assert_allclose(e.cob, [0, 0, -H / 2 + T / 2], atol=1e-12)
    assert e.waterplane_area == pytest.approx(L * B, rel=1e-12)
    assert e.gm_t == pytest.approx(KB + B**2 / (12 * T) - KG, rel=1e-10)
    assert e.gm_l == pytest.approx(KB + L**2 / (12 * T) - KG, rel=1e-10)
    np.testing.assert_allclose(e.pos, [0, 0, -e.draft])


def test_upright_solid_cylinder_half_density_textbook():
    r, h = 1.0, 0.5  # uniform solid: G at the centre
    g = Geom("cylinder", (r, h), np.zeros(3), np.eye(3))
    m = RHO * np.pi * r * r * 2 * h * 0.5
    e = equilibrium([g], m, np.zeros(3), RHO)
    T = h
    gm = T / 2 + r * r / (4 * T) - h  # KB + I/V - KG, I = π r⁴/4, V = π r² T
    assert e.converged and e.stable
    assert e.draft == pytest.approx(T - h, abs=1e-12)
    assert e.waterplane_area == pytest.approx(np.pi * r * r, rel=1e-12)
    assert e.gm_t == pytest.approx(gm, rel=1e-7)
    assert e.gm_l == pytest.approx(gm, rel=1e-7)


def _rot(axis, a):
    """Rotation by angle a about the unit axis (Rodrigues)."""
    K = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + np.sin(a) * K + (1 - np.cos(a)) * K @ K


def _gm_fd(geoms, m, com, which, delta=1e-6):
    """GM from the finite-difference righting arm: the equilibrium pose turned by ±delta about
    the horizontal longitudinal (GM_T) or transverse (GM_L) axis of the waterplane, world frame,
    at constant displacement (draft by brentq on clip_batch)."""
    types = [g.type for g in geoms]
    sizes = np.array([g.size3() for g in geoms])
    pos = np.array([g.pos for g in geoms])
    mats = np.array([g.mat for g in geoms])
    com = np.asarray(com, float)
    e0 = equilibrium(geoms, m, com, RHO)
    uL = e0.mat[:, 0] * [1, 1, 0]
    uL /= np.linalg.norm(uL)
    axis = uL if which == "t" else np.cross([0, 0, 1.0], uL)

    def arm(a):
        R = _rot(axis, a) @ e0.mat
        nb = R[2]

        def f(d):
            V, _, _ = clip_batch(types, sizes, pos, mats, nb, d)
            return V.sum() * RHO - m

        d = brentq(f, -5, 5, xtol=1e-15, rtol=1e-15)
        V, C, _ = clip_batch(types, sizes, pos, mats, nb, d)
        B = V @ C / V.sum()
        r = R @ (B - com)
        return -np.cross(r, [0, 0, 1.0]) @ axis  # righting arm about the axis

    return (arm(delta) - arm(-delta)) / (2 * delta), e0


def catamaran(n=6):
    xs = -0.4105 + 0.175 * np.arange(n)
    return [Geom("box", (0.0875, 0.09, 0.09), [x, y, 0.059], np.eye(3)) for x in xs for y in (0.361, -0.361)]


@pytest.mark.parametrize("case", ["barge", "catamaran", "tilted_boxes"])
def test_gm_matches_finite_difference_righting_arm(case):
    if case == "barge":
        geoms, m, com = [barge()], RHO * 2 * 1 * 0.25, [0.05, 0.0, -0.1]
    elif case == "catamaran":
        geoms, m, com = catamaran(), 15.0, [0.014, 0.0, 0.07]
    else:
        rng = np.random.default_rng(3)
        from scipy.spatial.transform import Rotation
        geoms = [Geom("box", (0.6, 0.25, 0.15), [0.0, 0.4, 0.0], Rotation.from_euler("x", 0.2).as_matrix()),
                 Geom("box", (0.6, 0.25, 0.15), [0.0, -0.4, 0.0], Rotation.from_euler("x", -0.2).as_matrix())]
        m, com = RHO * 0.06, [0.02, 0.01, -0.05]
    for which in "tl":
        gm_fd, e = _gm_fd(geoms, m, com, which)
        assert e.converged
        assert (e.gm_t if which == "t" else e.gm_l) == pytest.approx(gm_fd, rel=1e-8)


def test_catamaran_equilibrium():
    geoms = catamaran()
    m, com = 15.0, np.array([0.014, 0.0, 0.07])
    e = equilibrium(geoms, m, com, 1025.0)
    assert e.converged and e.status == "floating" and e.stable
    assert e.volume * 1025.0 == pytest.approx(m, rel=1e-12)
    assert e.heel == pytest.approx(0.0, abs=1e-12)
    assert e.trim < 0  # G (x = 0.014) aft of the boxes' centre (x = 0.027): bow up
    # B straight above G in the world
    r = e.mat @ (e.cob - com)
    assert abs(r[0]) < 1e-10 and abs(r[1]) < 1e-10
    # the boxes' draft: bottom at z = 0.059 - 0.09 in the body frame
    draft_boxes = e.draft - (0.059 - 0.09)
    assert 0.035 < draft_boxes < 0.045


@pytest.mark.parametrize("net", [0.5, 0.0, -0.5])
def test_submerged_uuv_box(net):
    a = np.array([0.457, 0.338, 0.0729]) / 2
    g = Geom("box", a, [0.0, 0.0, 0.02], np.eye(3))
    V = 8 * a.prod()
    m = 1025.0 * V - net / 9.81
    com = np.array([0.0, 0.0, -0.01])
    e = equilibrium([g], m, com, 1025.0)
    if net > 0:
        assert e.converged and e.status == "floating"
        assert e.volume * 1025.0 == pytest.approx(m, rel=1e-12)
        freeboard = -e.draft + 0.02 + a[2]  # upright: top face height above water
        assert freeboard == pytest.approx(net / 9.81 / 1025.0 / (4 * a[0] * a[1]), rel=1e-9)
    elif net == 0:
        assert e.converged and e.status == "neutral"
        assert e.draft == pytest.approx(0.02 + a[2], abs=1e-12)  # just submerged
        assert e.gm_t == pytest.approx(0.03, rel=1e-12)  # BG only
    else:
        assert not e.converged and e.status == "sinks"
        assert np.isnan(e.draft)
        assert np.all(np.isnan(gz_curve([g], m, com, 1025.0, [0.1, 0.2])))


# --------------------------------------------------------------------------- GZ


def section_gz(B, H, area, zg, phi):
    """GZ of a B×H rectangle (centre 0) heeled phi, displacing ``area``, G at (0, zg): 2-D polygon clip."""
    poly = np.array([[-B / 2, -H / 2], [B / 2, -H / 2], [B / 2, H / 2], [-B / 2, H / 2]])
    n = np.array([np.sin(phi), np.cos(phi)])  # R_x(φ)ᵀ e_z in (y, z)

    def clipped(d):
        out = []
        for i in range(4):
            p, q = poly[i], poly[(i + 1) % 4]
            fp, fq = n @ p - d, n @ q - d
            if fp <= 0:
                out.append(p)
            if fp * fq < 0:
                out.append(p + (q - p) * fp / (fp - fq))
        if len(out) < 3:
            return 0.0, np.zeros(2)
        out = np.array(out)
        x, y = out[:, 0], out[:, 1]
        xn, yn = np.roll(x, -1), np.roll(y, -1)
        cr = x * yn - xn * y
        A = cr.sum() / 2
        return A, np.array([((x + xn) * cr).sum(), ((y + yn) * cr).sum()]) / (6 * A)

    d = brentq(lambda d: clipped(d)[0] - area, -H, H, xtol=1e-15)
    _, c = clipped(d)
    b = c - np.array([0.0, zg])
    return -(np.cos(phi) * b[0] - np.sin(phi) * b[1])  # -(R_x(φ) b)_y


def test_box_barge_gz_wall_sided_and_section_reference():
    L, B, H, T, zg = 2.0, 1.0, 0.6, 0.2, -0.05
    m = RHO * L * B * T
    geoms = [barge(L, B, H)]
    e = equilibrium(geoms, m, [0, 0, zg], RHO)
    bm = B * B / (12 * T)
    gm = T / 2 + bm - (zg + H / 2)
    assert e.gm_t == pytest.approx(gm, rel=1e-10)
    # wall-sided while neither deck edge nor bilge leaves the sides: tan φ ≤ min(T, H - T) / (B / 2)
    lim = np.arctan(min(T, H - T) / (B / 2))
    small = np.linspace(-lim, lim, 21)
    gz = gz_curve(geoms, m, [0, 0, zg], RHO, small)
    ref = np.sin(small) * (gm + 0.5 * bm * np.tan(small) ** 2)
    np.testing.assert_allclose(gz, ref, atol=1e-9, rtol=0)
    # 0..180° against the exact 2-D section
    big = np.radians(np.arange(0, 181, 10.0))
    gz = gz_curve(geoms, m, [0, 0, zg], RHO, big)
    ref = [section_gz(B, H, B * T, zg, a) for a in big]
    np.testing.assert_allclose(gz, ref, atol=1e-9, rtol=0)
    assert gz[0] == pytest.approx(0, abs=1e-12)
    # odd in heel for a symmetric body
    np.testing.assert_allclose(gz_curve(geoms, m, [0, 0, zg], RHO, -big), -gz, atol=1e-12)


def test_gz_free_trim_keeps_longitudinal_balance():
    geoms = catamaran()
    m, com = 15.0, np.array([0.014, 0.0, 0.07])
    e = equilibrium(geoms, m, com, 1025.0)
    ang = np.radians([0.0, 5.0, 20.0, 60.0])
    gz = gz_curve(geoms, m, com, 1025.0, ang)
    assert gz[0] == pytest.approx(0.0, abs=1e-10)
    assert np.all(gz[1:] > 0)
    # small-angle slope is GM_T, up to O(trim²) = 3e-5 (heel is about the body x axis)
    d = 1e-4
    slope = (gz_curve(geoms, m, com, 1025.0, [d])[0] - gz_curve(geoms, m, com, 1025.0, [-d])[0]) / (2 * d)
    assert slope == pytest.approx(e.gm_t, rel=2 * e.trim**2)
    # free trim against a brute-force solve: at 20° heel find the trim whose
    # longitudinal B-G offset vanishes (brentq over clip_batch), then GZ there
    types = ["box"] * len(geoms)
    sizes = np.array([g.size3() for g in geoms])
    pos = np.array([g.pos for g in geoms])
    mats = np.array([g.mat for g in geoms])

    def offsets(trim, phi=ang[2]):
        R = attitude(phi, trim)
        d = brentq(lambda d: clip_batch(types, sizes, pos, mats, R[2], d)[0].sum() * 1025.0 - m, -1, 1,
                   xtol=1e-15, rtol=1e-15)
        V, C, _ = clip_batch(types, sizes, pos, mats, R[2], d)
        return R @ (V @ C / V.sum() - com)

    trim = brentq(lambda t: offsets(t)[0], -0.3, 0.3, xtol=1e-14)
    assert gz[2] == pytest.approx(-offsets(trim)[1], abs=1e-10)
    fixed = gz_curve(geoms, m, com, 1025.0, ang[2:3], free_trim=False)[0]
    assert fixed == pytest.approx(-offsets(e.trim)[1], abs=1e-10)
