"""Stability figures against closed forms: box barge, uniform cylinders, box load line, UUV ballast.

The references here are independent of the kernel: the wall-sided formula,
exact circular-section arms, a 2-D polygon clip of the barge's section, and
box volumes below a plane written out by hand.
"""

import math

import numpy as np
import pytest

from aurgen.runtime import hydrostatics as hs

from aurgen.core import spatial
from aurgen.analysis import payload as pl, roll_period as rp, stability as st  # noqa: E402

RHO = 1000.0
TOL = 1e-6




def box_body(L=2.0, B=1.0, H=0.6, T=0.2, zg=-0.15, pos=(0.0, 0.0, 0.0), rho=RHO):
    """A box barge L×B×H centred at ``pos``, floating at draft T (immersion above its bottom), G at height zg."""
    g = hs.Geom("box", np.array([L / 2, B / 2, H / 2]), np.asarray(pos, float), np.eye(3))
    return st.Body((g,), rho * L * B * T, np.array([pos[0], pos[1], zg]), rho)


def box_gm_bm(B, H, T, zg, zc=0.0):
    KB, BM, KG = T / 2, B * B / (12 * T), zg - (zc - H / 2)
    return KB + BM - KG, BM


# --------------------------------------------------------------------------- 2-D reference


def _clip_poly(poly, n, d):
    """Sutherland–Hodgman: the part of polygon ``poly`` with n·x ≤ d."""
    out = []
    for i in range(len(poly)):
        p, q = poly[i], poly[(i + 1) % len(poly)]
        fp, fq = n @ p - d, n @ q - d
        if fp <= 0:
            out.append(p)
        if fp * fq < 0:
            out.append(p + (q - p) * fp / (fp - fq))
    return out


def _area_centroid(poly):
    A = cx = cy = 0.0
    for i in range(len(poly)):
        (x0, y0), (x1, y1) = poly[i], poly[(i + 1) % len(poly)]
        c = x0 * y1 - x1 * y0
        A += c
        cx += (x0 + x1) * c
        cy += (y0 + y1) * c
    A /= 2
    return A, np.array([cx, cy]) / (6 * A)


def section_gz(B, H, area, g, phi):
    """GZ of a rectangular section B×H (centre at 0, coords (y, z)) heeled φ, displacing ``area``, G at ``g``."""
    rect = [np.array(p, float) for p in ((-B / 2, -H / 2), (B / 2, -H / 2), (B / 2, H / 2), (-B / 2, H / 2))]
    # body-frame normal of the world vertical after heel φ about +x: R_x(φ)ᵀ e_z = (sin φ, cos φ) in (y, z)
    n = np.array([math.sin(phi), math.cos(phi)])
    from scipy.optimize import brentq

    t = brentq(lambda t: (_area_centroid(_clip_poly(rect, n, t))[0] if len(_clip_poly(rect, n, t)) > 2 else 0.0)
               - area, -2 * (B + H), 2 * (B + H), xtol=1e-15, rtol=1e-15)
    _, b = _area_centroid(_clip_poly(rect, n, t))
    bg = b - np.asarray(g, float)
    # world y of R_x(φ) (0, bg_y, bg_z): bg_y cos φ − bg_z sin φ; GZ = −that
    return -(bg[0] * math.cos(phi) - bg[1] * math.sin(phi))


# --------------------------------------------------------------------------- box barge


def test_box_barge_wall_sided_and_gm_is_slope():
    L, B, H, T, zg = 2.0, 1.0, 0.6, 0.2, -0.15
    body = box_body(L, B, H, T, zg)
    c = st.gz_curve(body, "heel", step_deg=1.0)
    gm, bm = box_gm_bm(B, H, T, zg)
    limit = math.atan(min(T, H - T) / (B / 2))  # deck edge or bilge reaches the water
    m = c.angles <= limit
    assert m.sum() > 15
    np.testing.assert_allclose(c.gz[m], st.wall_sided_gz(c.angles[m], gm, bm), atol=TOL, rtol=0)
    assert c.gm == pytest.approx(gm, abs=TOL)
    assert c.slope0 == pytest.approx(c.gm, abs=TOL)


def test_box_barge_whole_curve_against_section_clip():
    """0–180°: the kernel's curve against an independent 2-D polygon clip of the section."""
    L, B, H, T, zg = 2.0, 1.0, 0.6, 0.2, -0.15
    body = box_body(L, B, H, T, zg)
    c = st.gz_curve(body, "heel", step_deg=5.0)
    ref = [section_gz(B, H, B * T, (0.0, zg), a) for a in c.angles]
    np.testing.assert_allclose(c.gz, ref, atol=TOL, rtol=0)
    # the derived figures against the same reference, refined
    from scipy.optimize import brentq, minimize_scalar

    r = minimize_scalar(lambda a: -section_gz(B, H, B * T, (0.0, zg), a), bounds=(0.2, 1.5), method="bounded",
                        options={"xatol": 1e-10})
    assert c.max_gz == pytest.approx(-r.fun, abs=TOL)
    assert c.angle_max_gz == pytest.approx(r.x, abs=1e-3)
    avs = brentq(lambda a: section_gz(B, H, B * T, (0.0, zg), a), c.angle_max_gz, math.radians(179.0))
    assert c.avs == pytest.approx(avs, abs=1e-7)


def test_box_barge_areas_wall_sided_closed_form():
    """A deep-sided barge stays wall-sided past 40°: areas = GM(1 − cos φ) + ½BM(sec φ + cos φ − 2).

    Long enough (L²/12T > KG − KB) to be pitch-stable at zero trim, so the free trim stays 0.
    """
    L, B, H, T, zg = 8.0, 1.0, 4.0, 2.0, 1.0  # tan 40° · B/2 < 2 m of freeboard and of draft
    body = box_body(L, B, H, T, zg, pos=(0.0, 0.0, 0.0))
    c = st.gz_curve(body, "heel", step_deg=2.0)
    gm, bm = box_gm_bm(B, H, T, zg)

    def area(phi):
        return gm * (1 - math.cos(phi)) + 0.5 * bm * (1 / math.cos(phi) + math.cos(phi) - 2)

    assert c.area_30 == pytest.approx(area(math.radians(30)), abs=1e-12)
    assert c.area_40 == pytest.approx(area(math.radians(40)), abs=1e-12)


def test_centred_box_vanishes_at_90():
    """G at the centre of a box floating at half its depth: GZ(180° − φ) = −GZ(φ), so the AVS is 90°."""
    body = box_body(2.0, 1.0, 0.6, 0.3, 0.0)
    c = st.gz_curve(body, "heel", step_deg=3.0)
    assert c.avs == pytest.approx(math.pi / 2, abs=1e-7)
    np.testing.assert_allclose(c.gz, -c.gz[::-1], atol=TOL)


# --------------------------------------------------------------------------- cylinders


def test_upright_uniform_cylinder_wall_sided():
    r, h, rho_c = 0.5, 0.4, 500.0  # a uniform puck at half density: T = h/2, KG = h/2
    T = h * rho_c / RHO
    g = hs.Geom("cylinder", np.array([r, h / 2]), np.zeros(3), np.eye(3))
    body = st.Body((g,), rho_c * math.pi * r * r * h, np.zeros(3), RHO)
    c = st.gz_curve(body, "heel", step_deg=1.0)
    bm = r * r / (4 * T)
    gm = T / 2 + bm - h / 2
    limit = math.atan(min(T, h - T) / r)
    m = c.angles <= limit
    np.testing.assert_allclose(c.gz[m], st.wall_sided_gz(c.angles[m], gm, bm), atol=TOL, rtol=0)
    assert c.gm == pytest.approx(gm, abs=TOL)
    assert c.slope0 == pytest.approx(c.gm, abs=TOL)


def test_horizontal_cylinder_arm_is_exact():
    """A cylinder lying along x, G a distance a below its axis: buoyancy acts through the axis, GZ = a sin φ."""
    r, h, a = 0.3, 2.0, 0.05
    g = hs.Geom("cylinder", np.array([r, h / 2]), np.zeros(3), spatial.rot_rpy((0.0, math.pi / 2, 0.0)))
    body = st.Body((g,), RHO * 0.4 * math.pi * r * r * h, np.array([0.0, 0.0, -a]), RHO)
    c = st.gz_curve(body, "heel", step_deg=5.0)
    np.testing.assert_allclose(c.gz, a * np.sin(c.angles), atol=TOL)
    assert c.gm == pytest.approx(a, abs=TOL)
    assert c.slope0 == pytest.approx(c.gm, abs=TOL)
    assert c.avs == pytest.approx(math.pi, abs=1e-6)


# --------------------------------------------------------------------------- load line


def box_volume_below(L, B, H, centre, pos, R):
    """Closed-form volume of an upright box below the water (z_world ≤ 0) for a wall-sided cut.

    The body sits at ``pos`` with rotation ``R``; the plane in body axes is n·x ≤ t.
    If it cuts only the vertical sides, the volume is L·B times its height above
    the bottom at the box's axis.
    """
    n = R[2, :]  # body components of the world vertical
    t = -pos[2]
    z_axis = (t - n[0] * centre[0] - n[1] * centre[1]) / n[2]
    hgt = z_axis - (centre[2] - H / 2)
    # the cut must stay on the sides at every corner
    for sx in (-1, 1):
        for sy in (-1, 1):
            x, y = centre[0] + sx * L / 2, centre[1] + sy * B / 2
            zc = (t - n[0] * x - n[1] * y) / n[2]
            assert centre[2] - H / 2 < zc < centre[2] + H / 2
    return L * B * hgt


@pytest.mark.parametrize("at", [(0.0, 0.0, 0.2), (0.3, 0.1, 0.25)])
def test_load_line_displacement(at):
    L, B, H, T, zg, zc = 2.0, 1.0, 0.6, 0.15, -0.05, 0.1
    body = box_body(L, B, H, T, zg, pos=(0.0, 0.0, zc))
    ll = pl.load_line(body, at, samples=9)
    assert ll.limit == pytest.approx(RHO * L * B * H - body.mass, rel=1e-12)
    assert ll.converged.any()
    checked = 0
    for k, mp in enumerate(ll.payload):
        if not ll.converged[k] or ll.freeboard[k] <= 0:
            continue
        bb = body.with_payload(mp, at)
        e = hs.equilibrium(list(bb.geoms), bb.mass, bb.com, bb.rho)
        assert e.draft == pytest.approx(ll.draft[k], abs=0)
        V = box_volume_below(L, B, H, (0.0, 0.0, zc), np.asarray(e.pos), np.asarray(e.mat))
        assert RHO * V == pytest.approx(body.mass + mp, rel=1e-9)
        if at[:2] == (0.0, 0.0):  # upright: the bottom is at −draft + zc − H/2
            assert RHO * L * B * (ll.draft[k] - zc + H / 2) == pytest.approx(body.mass + mp, rel=1e-9)
        checked += 1
    assert checked >= 3
    if at[:2] == (0.0, 0.0):  # a box loaded on its axis stays level: the deck goes under only at the limit
        assert ll.zero_freeboard is None
    else:  # heeled and trimmed: a deck corner goes under first
        assert ll.zero_freeboard is not None and 0 < ll.zero_freeboard < ll.limit


def test_centreline_zero_freeboard_closed_form():
    """Payload on the axis of a box: freeboard reaches zero when ρ L B H = m + payload (it is the limit)."""
    L, B, H, T = 2.0, 1.0, 0.6, 0.2
    body = box_body(L, B, H, T, -0.1)
    ll = pl.load_line(body, (0.0, 0.0, 0.0), samples=5)
    np.testing.assert_allclose(ll.heel, 0, atol=1e-9)
    np.testing.assert_allclose(ll.trim, 0, atol=1e-9)
    # upright: draft at the origin = immersion − H/2
    np.testing.assert_allclose(RHO * L * B * (ll.draft + H / 2), body.mass + ll.payload, rtol=1e-9)
    np.testing.assert_allclose(ll.freeboard, H / 2 - ll.draft, atol=1e-9)


# --------------------------------------------------------------------------- UUV figures (no kernel floating)


def test_submerged_arm_and_attitude():
    g = hs.Geom("box", np.array([0.2, 0.15, 0.05]), np.array([0.01, 0.0, 0.05]), np.eye(3))
    V = 0.4 * 0.3 * 0.1
    body = st.Body((g,), RHO * V, np.array([0.0, 0.0, 0.0]), RHO)  # neutral: B 0.05 above, 0.01 forward
    assert not st.floats(body)
    c = st.gz_curve(body, "heel", step_deg=5.0)
    assert c.submerged
    np.testing.assert_allclose(c.gz, 0.05 * np.sin(c.angles), atol=1e-12)
    assert c.gm == pytest.approx(0.05, abs=1e-12)
    assert c.avs == pytest.approx(math.pi, abs=1e-9)
    heel, trim = pl.submerged_attitude(body.com, (0.01, 0.0, 0.05))
    assert heel == pytest.approx(0.0)
    assert trim == pytest.approx(-math.atan2(0.01, 0.05))  # CoB forward: bow up
    R = spatial.rot_rpy((heel, trim, 0.0))
    v = R @ np.array([0.01, 0.0, 0.05])
    assert abs(v[0]) < 1e-12 and abs(v[1]) < 1e-12 and v[2] > 0


def test_hanging_attitude_turns_b_straight_up():
    """The one hanging-attitude formula (stability's and the equilibrium's): for any B - G,
    R = R_y(trim) R_x(heel) (rpy with zero yaw) turns it to +z, heel and trim not swapped."""
    from aurgen.runtime.hydrostatics.equilibrium import hanging_attitude  # the package's "equilibrium": the function

    rng = np.random.default_rng(7)
    for b in rng.normal(size=(200, 3)):
        heel, trim = pl.submerged_attitude((0.0, 0.0, 0.0), b)
        assert (heel, trim) == hanging_attitude(b)
        v = spatial.rot_rpy((heel, trim, 0.0)) @ b
        assert abs(v[0]) < 1e-12 * np.linalg.norm(b) and abs(v[1]) < 1e-12 * np.linalg.norm(b) and v[2] > 0
    assert hanging_attitude((0.0, 0.0, 0.0)) == (0.0, 0.0)


def test_roll_period_formula():
    assert rp.roll_period(2.0, 0.5, 1000.0, 0.1, 0.2, g=10.0) == pytest.approx(2 * math.pi * math.sqrt(2.5 / 200.0))
    assert rp.roll_period(1.0, 0.0, 1000.0, 0.1, -0.1) == math.inf


# --------------------------------------------------------------------------- floating, offset-CoB UUV


def rov_variant(tmp_path, net=0.5, offset=(0.01, -0.004, 0.046)):
    """The stock BlueROV2 config with a positive net buoyancy and an off-axis CoB (it floats)."""
    from pathlib import Path

    from aurgen.core.resources import data_dir

    src = data_dir("vehicles") / "bluerov2.yaml"
    text = src.read_text()
    assert "net_buoyancy: 0.0" in text and "cob_offset: [0, 0, 0.046]" in text
    text = text.replace("net_buoyancy: 0.0", f"net_buoyancy: {net}")
    text = text.replace("cob_offset: [0, 0, 0.046]", f"cob_offset: [{offset[0]}, {offset[1]}, {offset[2]}]")
    cfg = tmp_path / "rov_variant.yaml"
    cfg.write_text(text)
    from aurgen.compose.resolve import resolve

    return resolve(str(cfg))


def _rx(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[1.0, 0, 0], [0, c, -s], [0, s, c]])


def _ry(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, 0, s], [0, 1.0, 0], [-s, 0, c]])


def test_uuv_ballast_attitude_heel_and_trim_not_swapped(tmp_path):
    """Ballast at the chosen point: heel and trim each against scipy's root of the couple, from the boxes by hand."""
    from scipy.optimize import root

    v = rov_variant(tmp_path)
    b = pl.uuv_balance(v)
    # the boxes wholly submerged: volume and centroid by hand
    vols = np.array([np.prod(bx.shape.dims) for bx in v.displacement.boxes])
    cents = np.array([bx.xyz for bx in v.displacement.boxes], float)
    V = vols.sum()
    B = vols @ cents / V
    m = float(v.specs.total_mass)
    rho = float(v.displacement.fluid_density)
    mb = rho * V - m  # the ballast that makes it neutral
    assert b.ballast == pytest.approx(mb, rel=1e-12)
    G = (m * np.asarray(v.specs.com, float) + mb * b.chosen) / (m + mb)
    bg = B - G

    def couple(x):  # horizontal components of R(B − G) × e_z per unit weight, R = R_y(trim) R_x(heel)
        r = _ry(x[1]) @ _rx(x[0]) @ bg
        return [r[1], -r[0]]

    sol = root(couple, [0.0, 0.0], tol=1e-14)
    assert np.abs(couple(sol.x)).max() < 1e-15
    heel, trim = sol.x
    assert (_ry(trim) @ _rx(heel) @ bg)[2] > 0  # B above G: the stable hang
    assert abs(heel) > 0.01 and abs(trim) > 0.01 and abs(abs(heel) - abs(trim)) > 0.01  # a swap would show
    assert b.heel_at_chosen == pytest.approx(heel, abs=1e-12)
    assert b.trim_at_chosen == pytest.approx(trim, abs=1e-12)


# --------------------------------------------------------------------------- exact areas: a two-box catamaran

CAT = dict(L=2.0, b=0.3, H=0.6, s=0.25, T=0.15, zg=0.3)  # pontoons b wide, H high, centred at y = ±s, keel z = 0


def cat_body(L, b, H, s, T, zg):
    boxes = tuple(hs.Geom("box", np.array([L / 2, b / 2, H / 2]), np.array([0.0, y, H / 2]), np.eye(3))
                  for y in (s, -s))
    return st.Body(boxes, RHO * 2 * L * b * T, np.array([0.0, 0.0, zg]), RHO)


def _poly_centroid(P):
    """Area and centroid of a polygon (shoelace), vertices in order."""
    A = cy = cz = 0.0
    for (y0, z0), (y1, z1) in zip(P, P[1:] + P[:1]):
        c = y0 * z1 - y1 * z0
        A += c
        cy += (y0 + y1) * c
        cz += (z0 + z1) * c
    return A / 2, np.array([cy, cz]) / (3 * A)


def cat_section(phi, L, b, H, s, T, zg):
    """Centre of buoyancy (y, z) of the catamaran's section heeled φ ≥ 0, in closed form (body axes).

    Water: y sin φ + z cos φ ≤ t.  Wall-sided (both pontoons cut on their sides) up to
    tan φ1 = T / (s + b/2), when the port pontoon's outer keel corner leaves the water;
    beyond, the port pontoon's wet part is a triangle (area u² / (2 sin φ cos φ) with
    u = t − (s − b/2) sin φ) and t solves a quadratic.
    """
    sp, cp = math.sin(phi), math.cos(phi)
    yi, yo = s - b / 2, s + b / 2
    if math.tan(phi) <= T / yo:
        t = T * cp
        parts = []
        for y0, y1 in ((yi, yo), (-yo, -yi)):
            z0, z1 = (t - y0 * sp) / cp, (t - y1 * sp) / cp
            parts.append([(y0, 0.0), (y1, 0.0), (y1, z1), (y0, z0)])
    else:
        u = -b * sp + math.sqrt(b * b * sp * sp - 2 * b * (yi + s) * sp * sp + 4 * b * T * sp * cp)
        t = u + yi * sp
        assert yi < t / sp < yo and 0 < u / cp < H  # still the triangle regime
        y0, y1 = -yo, -yi
        z0, z1 = (t - y0 * sp) / cp, (t - y1 * sp) / cp
        assert 0 < z1 < z0 < H
        parts = [[(yi, 0.0), (t / sp, 0.0), (yi, u / cp)], [(y0, 0.0), (y1, 0.0), (y1, z1), (y0, z0)]]
    A, M = 0.0, np.zeros(2)
    for P in parts:
        a, c = _poly_centroid(P)
        A += a
        M += a * c
    assert A == pytest.approx(2 * b * T, rel=1e-13)
    return M / A


def cat_gz(phi, **k):
    bg = cat_section(phi, **k) - np.array([0.0, k["zg"]])
    return -(bg[0] * math.cos(phi) - bg[1] * math.sin(phi))


def cat_area(phi, **k):
    """∫_0^φ GZ dψ in closed form: the rise of G above B at constant displacement (Moseley), trim 0."""
    def P(a):
        gb = np.array([0.0, k["zg"]]) - cat_section(a, **k)
        return gb[0] * math.sin(a) + gb[1] * math.cos(a)  # world height of G above B after heel a

    return P(phi) - P(0.0)


def test_catamaran_reference_is_consistent():
    """The closed-form areas are the integral of the closed-form arm (scipy quad split at the kink)."""
    from scipy.integrate import quad

    k = CAT
    p1 = math.atan(k["T"] / (k["s"] + k["b"] / 2))
    for deg in (30.0, 40.0):
        a = math.radians(deg)
        q = quad(lambda x: cat_gz(x, **k), 0.0, a, points=[p1], epsabs=1e-14, epsrel=1e-14, limit=200)[0]
        assert cat_area(a, **k) == pytest.approx(q, abs=1e-13)


def test_catamaran_gz_areas_exact_across_the_kink():
    k = CAT
    c = st.gz_curve(cat_body(**k), "heel", step_deg=5.0)
    p1 = math.atan(k["T"] / (k["s"] + k["b"] / 2))  # the port outer keel corner leaves the water
    assert p1 < math.radians(30.0)
    # the break is found from the geometry, to root-finding accuracy
    assert min(abs(x - p1) for x in c.breaks) < 1e-10
    m = c.angles <= math.radians(40.0)
    np.testing.assert_allclose(c.gz[m], [cat_gz(a, **k) for a in c.angles[m]], atol=1e-12, rtol=0)
    np.testing.assert_allclose(c.trims[m], 0.0, atol=1e-12)  # fore-aft symmetric: free trim stays 0
    assert c.area_30 == pytest.approx(cat_area(math.radians(30.0), **k), abs=1e-12)
    assert c.area_40 == pytest.approx(cat_area(math.radians(40.0), **k), abs=1e-12)
    # the curve's slope at 0 is GM_T: KB + I/V − KG with I = 2 L (b³/12 + b s²), V = 2 L b T
    gm = k["T"] / 2 + (k["b"] ** 3 / 12 + k["b"] * k["s"] ** 2) / (k["b"] * k["T"]) - k["zg"]
    assert c.gm == pytest.approx(gm, abs=1e-12)
    assert c.slope0 == pytest.approx(gm, abs=1e-10)


def test_catamaran_trim_areas_against_section_clip():
    """The trim curve: both pontoons share one L × H section in (x, z); areas by Moseley on a 2-D clip.

    Pontoons far apart (s = 1 m), so that the free heel stays 0 while pitched to 40°.
    """
    k = dict(CAT, s=1.0)
    L, H, T, zg = k["L"], k["H"], k["T"], k["zg"]
    c = st.gz_curve(cat_body(**k), "trim", step_deg=5.0)
    rect = [np.array(p, float) for p in ((-L / 2, 0.0), (L / 2, 0.0), (L / 2, H), (-L / 2, H))]
    from scipy.optimize import brentq

    def waterline(th):  # bow down th: the body-frame normal of the world vertical is (−sin θ, cos θ) in (x, z)
        n = np.array([-math.sin(th), math.cos(th)])

        def wet(t):
            P = _clip_poly(rect, n, t)
            return _area_centroid(P) if len(P) > 2 else (0.0, None)

        t = brentq(lambda t: wet(t)[0] - L * T, -2 * (L + H), 2 * (L + H), xtol=1e-15, rtol=1e-15)
        return n, t, wet(t)[1]

    def centre(th):
        return waterline(th)[2]

    def P(th):  # world height of G above B after pitch th
        gb = np.array([0.0, zg]) - centre(th)
        return -gb[0] * math.sin(th) + gb[1] * math.cos(th)

    m = c.angles <= math.radians(40.0)
    np.testing.assert_allclose(c.trims[m], 0.0, atol=1e-12)  # the free heel
    for deg, area in ((30.0, c.area_30), (40.0, c.area_40)):
        assert area == pytest.approx(P(math.radians(deg)) - P(0.0), abs=1e-12)
    # the first kink: the bow keel corner leaves the water (wall-sided until then)
    assert min(abs(x - math.atan(T / (L / 2))) for x in c.breaks) < 1e-10
    # every break below 40° (but the 30° split) has a corner of the section on the waterline
    inner = [x for x in c.breaks if 0 < x < math.radians(40.0) and abs(x - math.radians(30.0)) > 1e-12]
    assert len(inner) >= 2
    for x in inner:
        n, t, _ = waterline(x)
        assert min(abs(n @ p - t) for p in rect) < 1e-9


def _offsets(body, heel, trim):
    """World offset R (B − G) (m) at attitude R_y(trim) R_x(heel), constant displacement: brentq on clip_batch."""
    from scipy.optimize import brentq

    R = _ry(trim) @ _rx(heel)
    types = [g.type for g in body.geoms]
    sizes = np.array([g.size3() for g in body.geoms])
    pos = np.array([g.pos for g in body.geoms])
    mats = np.array([g.mat for g in body.geoms])
    d = brentq(lambda d: hs.clip_batch(types, sizes, pos, mats, R[2], d)[0].sum() * body.rho - body.mass, -2, 2,
               xtol=1e-15, rtol=1e-15)
    V, C, _ = hs.clip_batch(types, sizes, pos, mats, R[2], d)
    return R @ (V @ C / V.sum() - body.com)


@pytest.mark.parametrize("axis", ["heel", "trim"])
def test_floating_uuv_follows_the_pitch_stable_branch_to_its_end(tmp_path, axis):
    """The floating offset-CoB ROV: the free angle is pitch-stable at every sample to the curve's end, and the curve
    ends where that branch stops describing the body (issue 37): the trim curve's free heel folds at 70.38° of
    trim, the heel curve's free trim passes −90° at 85.03° of heel.  Neither curve has a vanishing angle: issue 14's
    177.44° heel and 175.13° trim (then 177.69° and 175.81°) were zeros of GZ on branches past those ends, reached
    by taking the nearest stable root across the fold.  The held curve's vanishing angle is an independent solve's
    (brentq on GZ with the free angle held at the equilibrium's, which zeroes both moments).  Where each curve ends
    against an independent root scan: tests/aurgen/test_curve_end.py."""
    from scipy.optimize import brentq, fsolve

    v = rov_variant(tmp_path)
    body = st.body_of(v)
    b = body.turned() if axis == "trim" else body
    c = st.gz_curve(body, axis)
    assert not c.submerged and c.free_trim and c.avs is None
    kind, at = {"trim": ("fold", 70.38), "heel": ("ninety", 85.03)}[axis]
    assert c.end.kind == kind and math.degrees(c.end.at) == pytest.approx(at, abs=0.005)
    ok = np.isfinite(c.gz)
    assert np.all(c.angles[ok] <= c.end.at) and np.all(c.angles[~ok] > c.end.at)
    h = 1e-6
    for k in np.nonzero(ok)[0][::10]:
        phi, t = c.angles[k], c.trims[k]
        r = _offsets(b, phi, t)
        assert abs(r[0]) < 1e-10  # no longitudinal moment: a trim equilibrium
        assert -r[1] == pytest.approx(c.gz[k], abs=1e-10)
        slope = (_offsets(b, phi, t + h)[0] - _offsets(b, phi, t - h)[0]) / (2 * h)
        assert slope > 0, (math.degrees(phi), math.degrees(t))  # bow down moves B forward: restoring
    eq = fsolve(lambda x: _offsets(b, x[0], x[1])[:2], [0.0, 0.0], xtol=1e-12)
    assert c.held_angle == pytest.approx(eq[1], abs=1e-8)
    avs = brentq(lambda p: -_offsets(b, p, c.held_angle)[1], math.radians(140.0), math.radians(175.0), xtol=1e-12)
    assert c.avs_held == pytest.approx(avs, abs=1e-8)
    assert math.degrees(c.avs_held) == pytest.approx({"trim": 158.43, "heel": 168.74}[axis], abs=0.005)


# --------------------------------------------------------------------------- amplitude-dependent roll period


def test_roll_period_at_amplitude_is_the_pendulum_for_a_submerged_body():
    """Submerged, B off the vertical through G: GZ = |BG| sin(φ − φe), a pendulum: T = 4 √(I/(m g |BG|)) K(sin²(φ0/2))."""
    from scipy.special import ellipk

    g = hs.Geom("box", np.array([0.2, 0.15, 0.05]), np.array([0.0, 0.012, 0.05]), np.eye(3))
    body = st.Body((g,), RHO * 0.4 * 0.3 * 0.1, np.zeros(3), RHO)  # neutral: B at (0, 0.012, 0.05)
    c = st.gz_curve(body, "heel", step_deg=10.0)
    I, m = 0.7, body.mass
    bg = math.hypot(0.012, 0.05)
    phe = math.atan2(0.012, 0.05)
    for amp_deg in (1.0, 10.0, 60.0, 150.0):
        a = math.radians(amp_deg)
        r = rp.roll_period_at(c, a, I, m, g=9.81)
        assert r["phi_e"] == pytest.approx(phe, abs=1e-14)
        assert r["phi_minus"] == pytest.approx(phe - a, abs=1e-9)
        T = 4 * math.sqrt(I / (m * 9.81 * bg)) * ellipk(math.sin(a / 2) ** 2)
        assert r["period"] == pytest.approx(T, rel=1e-10)
    # small swings with pieces built for a large one (the report's per-swing reuse): still exact
    pw = st.Piecewise(c.arm, phe - math.radians(15.0), phe + math.radians(10.0))
    for a in (math.radians(0.2), 1e-4):
        T = 4 * math.sqrt(I / (m * 9.81 * bg)) * ellipk(math.sin(a / 2) ** 2)
        assert rp.roll_period_at(c, a, I, m, g=9.81, phi_e=phe, pieces=pw)["period"] == pytest.approx(T, rel=1e-9)


def test_roll_period_at_amplitude_against_an_ode_for_a_wall_sided_barge():
    """Floating box, wall-sided to 10°: T(φ0) against a high-order ODE solve of I φ'' = −m g GZ_wall-sided(φ)."""
    from scipy.integrate import solve_ivp

    L, B, H, T, zg = 8.0, 1.0, 0.6, 0.3, -0.1  # tan 10° · B/2 < 0.3: wall-sided in ±10°
    body = box_body(L, B, H, T, zg)
    c = st.gz_curve(body, "heel", step_deg=5.0)
    gm, bm = box_gm_bm(B, H, T, zg)
    I, m, g = 40.0, body.mass, 9.81
    for amp_deg in (2.0, 10.0):
        a = math.radians(amp_deg)

        def rhs(t, x):
            return [x[1], -m * g * st.wall_sided_gz(x[0], gm, bm) / I]

        def back(t, x):  # the roll rate falls through zero at the release side again: a full period
            return x[1]

        back.direction = -1
        sol = solve_ivp(rhs, (0, 100), [a, 0.0], method="DOP853", rtol=1e-13, atol=1e-15, events=back,
                        dense_output=True)
        t_ode = [te for te in sol.t_events[0] if te > 1e-6][0]
        assert rp.roll_period_at(c, a, I, m, g=g)["period"] == pytest.approx(t_ode, rel=1e-9)
    # and it tends to the small-angle period
    small = rp.roll_period(I, 0.0, RHO, m / RHO, gm, g=g)
    assert rp.roll_period_at(c, math.radians(0.01), I, m, g=g)["period"] == pytest.approx(small, rel=1e-7)


def test_freeboard_of_a_tilted_cylinder_rim_is_exact():
    """A cylinder's deck is its top rim: lowest point at centre height − r sin(tilt), not a 16-point sample."""
    r, h = 0.5, 0.4
    g = hs.Geom("cylinder", np.array([r, h / 2]), np.zeros(3), np.eye(3))
    body = st.Body((g,), 100.0, np.zeros(3), RHO)
    for tilt in (0.0, 0.1, 0.2 + math.pi / 16):  # the last between two of the 16 samples
        eq = type("E", (), {"pos": np.array([0.0, 0.0, -0.05]), "mat": _rx(tilt)})()
        assert st.freeboard_of(body, eq) == pytest.approx(-0.05 + h / 2 * math.cos(tilt) - r * math.sin(tilt),
                                                          abs=1e-14)
