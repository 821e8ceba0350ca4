"""Stability figures against closed forms: box barge, uniform cylinders, box load line, UUV ballast.

The references here are independent of the kernel: the wall-sided formula,
exact circular-section arms, a 2-D polygon clip of the barge's section, and
box volumes below a plane written out by hand.
"""

import math

import numpy as np
import pytest

from aurgen.runtime import hydrostatics as hs

from aurgen import spatial, stability as st  # noqa: E402

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
    """A deep-sided barge stays wall-sided past 40°: areas = GM(1 − cos φ) + ½BM(sec φ + cos φ − 2)."""
    L, B, H, T, zg = 2.0, 1.0, 4.0, 2.0, 1.0  # tan 40° · B/2 < 2 m of freeboard and of draft
    body = box_body(L, B, H, T, zg, pos=(0.0, 0.0, 0.0))
    c = st.gz_curve(body, "heel", step_deg=2.0)
    gm, bm = box_gm_bm(B, H, T, zg)

    def area(phi):
        return gm * (1 - math.cos(phi)) + 0.5 * bm * (1 / math.cos(phi) + math.cos(phi) - 2)

    assert c.area_30 == pytest.approx(area(math.radians(30)), abs=1e-8)
    assert c.area_40 == pytest.approx(area(math.radians(40)), abs=1e-8)


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
    ll = st.load_line(body, at, samples=9)
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
    ll = st.load_line(body, (0.0, 0.0, 0.0), samples=5)
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
    heel, trim = st.submerged_attitude(body.com, (0.01, 0.0, 0.05))
    assert heel == pytest.approx(0.0)
    assert trim == pytest.approx(-math.atan2(0.01, 0.05))  # CoB forward: bow up
    R = spatial.rot_rpy((heel, trim, 0.0))
    v = R @ np.array([0.01, 0.0, 0.05])
    assert abs(v[0]) < 1e-12 and abs(v[1]) < 1e-12 and v[2] > 0


def test_roll_period_formula():
    assert st.roll_period(2.0, 0.5, 1000.0, 0.1, 0.2, g=10.0) == pytest.approx(2 * math.pi * math.sqrt(2.5 / 200.0))
    assert st.roll_period(1.0, 0.0, 1000.0, 0.1, -0.1) == math.inf


# --------------------------------------------------------------------------- floating, offset-CoB UUV


def rov_variant(tmp_path, net=0.5, offset=(0.01, -0.004, 0.046)):
    """The stock BlueROV2 config with a positive net buoyancy and an off-axis CoB (it floats)."""
    from pathlib import Path

    import aurgen

    src = Path(aurgen.__file__).resolve().parent.parent / "vehicles" / "bluerov2.yaml"
    if not src.exists():  # data folder moved into the package
        src = Path(aurgen.__file__).resolve().parent / "vehicles" / "bluerov2.yaml"
    text = src.read_text()
    assert "net_buoyancy: 0.0" in text and "cob_offset: [0, 0, 0.046]" in text
    text = text.replace("net_buoyancy: 0.0", f"net_buoyancy: {net}")
    text = text.replace("cob_offset: [0, 0, 0.046]", f"cob_offset: [{offset[0]}, {offset[1]}, {offset[2]}]")
    cfg = tmp_path / "rov_variant.yaml"
    cfg.write_text(text)
    from aurgen.compose import resolve

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
    b = st.uuv_balance(v)
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
