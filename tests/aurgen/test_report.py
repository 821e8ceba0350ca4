"""``aurgen report``: the bundled vehicles' reports build with one command; the figures are real images."""

import math

import numpy as np
import pytest

from aurgen.analysis import payload as pl, report, roll_decay as rd, stability as st  # noqa: E402
from aurgen.cli import main  # noqa: E402
from aurgen.compose.resolve import resolve  # noqa: E402
from aurgen.core.files import TMP_PREFIX




def check_png(path, min_w=400, min_h=250):
    """Open a PNG; it must be a sizeable image with real content (not one flat colour)."""
    import matplotlib.image as mpimg

    with open(path, "rb") as fh:
        assert fh.read(8) == b"\x89PNG\r\n\x1a\n", path
    img = mpimg.imread(path)
    h, w = img.shape[:2]
    assert w >= min_w and h >= min_h, (path, img.shape)
    rgb = img[..., :3].reshape(-1, 3)
    # not blank: many distinct colours, and a fair share of the pixels differ from the background
    assert len(np.unique(np.round(rgb * 255).astype(int), axis=0)) > 20, path
    bg = np.median(rgb, axis=0)
    ink = np.any(np.abs(rgb - bg) > 0.1, axis=1).mean()
    assert ink > 0.01, (path, ink)


@pytest.fixture(scope="module")
def boat_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("r") / "blueboat_report"
    assert main(["report", "blueboat.yaml", "-o", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def rov_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("r") / "bluerov2_report"
    assert main(["report", "bluerov2.yaml", "-o", str(out)]) == 0
    return out


def test_blueboat_report(boat_dir, capsys):
    md = (boat_dir / "report.md").read_text()
    for name in ("gz_heel.png", "load_line.png", "mass.png"):
        assert f"]({name})" in md
        check_png(boat_dir / name)
    v = resolve("blueboat.yaml")
    assert v.sha256 in md
    for link, part, mass, share in pl.part_masses(v):
        assert f"| {link} | {part} | {mass:.4f} |" in md
    assert "freeboard reaches zero at:" in md
    assert not list(boat_dir.parent.glob(TMP_PREFIX + "*")), "temp dirs left behind"


def test_bluerov2_report(rov_dir):
    md = (rov_dir / "report.md").read_text()
    for name in ("gz_heel.png", "gz_trim.png", "mass.png"):
        check_png(rov_dir / name)
    assert "Buoyancy and ballast (UUV)" in md
    assert "net buoyancy" in md


def test_headline_printed(tmp_path, capsys):
    assert main(["report", "bluerov2.yaml", "-o", str(tmp_path / "r")]) == 0
    out = capsys.readouterr().out
    assert "bluerov2" in out and "GZ" in out and "roll period" in out
    # a second run replaces the directory (atomically) and leaves no temp dirs
    assert main(["report", "bluerov2.yaml", "-o", str(tmp_path / "r")]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r"]


def test_boat_figures_consistent():
    v = resolve("blueboat.yaml")
    rep = report.compute(v, roll_decay=False, step_deg=5.0, load_samples=9)
    c = rep.heel
    assert not c.submerged
    assert rep.eq is not None and rep.eq.converged
    assert c.gm == pytest.approx(rep.eq.gm_t)
    # the curve's slope at 0 is GM_T up to the small equilibrium heel of an asymmetric load
    assert c.slope0 == pytest.approx(c.gm, rel=1e-3)
    assert 0 < c.angle_max_gz < c.avs <= math.pi
    assert c.area_40 > c.area_30 > 0
    L = rep.load
    assert L.limit == pytest.approx(v.specs.buoyancy_margin, rel=1e-9)
    assert np.allclose(L.at, (0.299, 0.0, 0.147))
    assert L.zero_freeboard is not None and 0 < L.zero_freeboard < L.limit
    assert np.all(np.diff(L.draft[L.converged]) > 0)


def test_uuv_ballast_makes_it_neutral_and_level(tmp_path):
    """A heavy ROV (a skid in the payload slot): the ballast zeroes net buoyancy and puts G under B."""
    cfg = tmp_path / "rov.yaml"
    cfg.write_text("name: rovx\nbase: {type: bluerov2_chassis, name: base_link}\n"
                   "parts:\n  - {slot: dvl, type: dvl_a50}\n"
                   "buoyancy: {net_buoyancy: 0.3, cob_offset: [0, 0, 0.04], cob_frame: com, "
                   "fluid_density: 1025.0, footprint: [0.457, 0.338]}\n")
    v = resolve(str(cfg))
    b = pl.uuv_balance(v)
    assert b.built_net == pytest.approx(0.3, abs=1e-9)
    assert b.declared_net == 0.3
    np.testing.assert_allclose(b.built_offset, b.declared_offset, atol=1e-12)
    assert b.ballast == pytest.approx(0.3, abs=1e-9)
    body = st.body_of(v).with_payload(b.ballast, b.ballast_at)
    V, B = st.full_volume(body)
    assert body.rho * V == pytest.approx(body.mass, rel=1e-12)
    np.testing.assert_allclose(body.com[:2], B[:2], atol=1e-12)
    # floating UUV: the load line runs to the sinking payload
    rep = report.compute(v, roll_decay=False, step_deg=10.0, load_samples=5)
    assert rep.load.limit == pytest.approx(0.3, abs=1e-9)
    assert rep.trim is not None and not rep.heel.submerged


def test_payload_point_option(tmp_path):
    v = resolve("blueboat.yaml")
    assert np.allclose(report.parse_point("0.1 0 0.2"), (0.1, 0, 0.2))
    assert np.allclose(report.parse_point("0.1,0,0.2"), (0.1, 0, 0.2))
    from aurgen.core.errors import AurgenError

    with pytest.raises(AurgenError):
        report.parse_point("1 2")
    rep = report.compute(v, payload_at=(0.0, 0.0, 0.1), roll_decay=False, step_deg=10.0, load_samples=5)
    assert np.allclose(rep.load.at, (0.0, 0.0, 0.1))


def test_decay_period_of_a_damped_sine():
    t = np.linspace(0.0, 10.0, 10001)
    Tn, zeta = 0.8, 0.1
    wn = 2 * math.pi / Tn
    wd = wn * math.sqrt(1 - zeta * zeta)
    y = 0.2 + 0.17 * np.exp(-zeta * wn * t) * np.cos(wd * t)
    assert rd.decay_period(t, y, 0.2) == pytest.approx(2 * math.pi / wd, rel=1e-4)
    assert rd.decay_period(t, np.full_like(t, 0.3), 0.2) is None


def test_roll_decay_matches_small_angle_estimate():
    """The ROV, released at 10° heel in the runtime, rolls at the small-angle period (light damping)."""
    rep = report.compute(resolve("bluerov2.yaml"), step_deg=10.0, load_samples=3)
    r = rep.roll
    assert r["decay"] is not None, r["decay_note"]
    assert r["decay"]["period"] == pytest.approx(r["estimate"], rel=0.02)
    assert math.degrees(r["decay"]["roll"][0]) == pytest.approx(10.0, abs=1e-6)


def test_progress_lines():
    import io

    s = io.StringIO()
    p = report.Progress(stream=s)
    p.stage("righting arm (heel)")
    p(5, 10)
    assert "righting arm (heel)" in s.getvalue()


# --------------------------------------------------------------------------- issue 14: printed figures exact


def _row(rows, key):
    return dict(rows)[key]


def test_blueboat_printed_areas_against_adaptive_quadrature():
    """The headline's areas to their last printed digit, against scipy's adaptive quad of the kernel's GZ
    (no knowledge of where the kinks are)."""
    from scipy.integrate import quad

    v = resolve("blueboat.yaml")
    rep = report.compute(v, roll_decay=False, step_deg=5.0, load_samples=3)
    rows = report.headline(rep)
    arm = rep.heel.arm
    for key, deg in (("area to 30°", 30.0), ("area to 40°", 40.0)):
        ref = quad(lambda x: arm(np.array([x]))[0], 0.0, math.radians(deg), epsabs=1e-11, epsrel=1e-11,
                   limit=400)[0]
        printed = float(_row(rows, key).split()[0])
        assert abs(printed - ref) <= 0.5e-6 + 1e-12, (key, printed, ref)


def _fd_gm(body, eq, which, delta=1e-5):
    """GM (m) from the finite-difference righting moment about the waterplane's horizontal longitudinal ('t')
    or transverse ('l') axis at the kernel's equilibrium pose, constant displacement (brentq on clip_batch)."""
    from scipy.optimize import brentq

    from aurgen.runtime import hydrostatics as hs

    types = [g.type for g in body.geoms]
    sizes = np.array([g.size3() for g in body.geoms])
    pos = np.array([g.pos for g in body.geoms])
    mats = np.array([g.mat for g in body.geoms])
    uL = np.asarray(eq.mat)[:, 0] * [1, 1, 0]
    uL /= np.linalg.norm(uL)
    axis = uL if which == "t" else np.cross([0, 0, 1.0], uL)
    K = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])

    def arm(a):
        R = (np.eye(3) + np.sin(a) * K + (1 - np.cos(a)) * K @ K) @ np.asarray(eq.mat)
        d = brentq(lambda d: hs.clip_batch(types, sizes, pos, mats, R[2], d)[0].sum() * body.rho - body.mass,
                   -2, 2, xtol=1e-15, rtol=1e-15)
        V, C, _ = hs.clip_batch(types, sizes, pos, mats, R[2], d)
        r = R @ (V @ C / V.sum() - body.com)
        return -np.cross(r, [0, 0, 1.0]) @ axis

    return (arm(delta) - arm(-delta)) / (2 * delta)


def test_floating_uuv_headline_gm_and_ballast(tmp_path):
    """The floating offset-CoB ROV: GM_T and GM_L printed are the metacentric heights about their own axes
    (finite differences of the righting moment), and the ballast sentence names heel then trim correctly."""
    import re

    from scipy.optimize import root

    text = (resolve("bluerov2.yaml").source and open(resolve("bluerov2.yaml").source).read())
    text = text.replace("net_buoyancy: 0.0", "net_buoyancy: 0.5").replace(
        "cob_offset: [0, 0, 0.046]", "cob_offset: [0.01, -0.004, 0.046]")
    cfg = tmp_path / "rov_variant.yaml"
    cfg.write_text(text)
    v = resolve(str(cfg))
    rep = report.compute(v, roll_decay=False, step_deg=10.0, load_samples=3)
    rows = report.headline(rep)
    body = st.body_of(v)
    for key, which in (("GM_T", "t"), ("GM_L", "l")):
        printed = float(_row(rows, key).split()[0])
        assert abs(printed - _fd_gm(body, rep.eq, which)) <= 0.5e-5 + 1e-9, key
    # ballast at the chosen point: heel and trim from the couple of the boxes, wholly submerged
    vols = np.array([np.prod(bx.shape.dims) for bx in v.displacement.boxes])
    B = vols @ np.array([bx.xyz for bx in v.displacement.boxes], float) / vols.sum()
    mb = body.rho * vols.sum() - body.mass
    G = (body.mass * np.asarray(body.com) + mb * rep.balance.chosen) / (body.mass + mb)

    def R(h, t):
        ch, sh, ct, s_ = math.cos(h), math.sin(h), math.cos(t), math.sin(t)
        return np.array([[ct, 0, s_], [0, 1, 0], [-s_, 0, ct]]) @ np.array([[1, 0, 0], [0, ch, -sh], [0, sh, ch]])

    x = root(lambda x: (R(*x) @ (B - G))[:2], [0.0, 0.0], tol=1e-14).x
    md = report.markdown(rep, {})
    m = re.search(r"instead it hangs at heel (-?[\d.]+)°, trim (-?[\d.]+)°", md)
    assert m, md
    assert abs(float(m.group(1)) - math.degrees(x[0])) <= 0.005 + 1e-9
    assert abs(float(m.group(2)) - math.degrees(x[1])) <= 0.005 + 1e-9


def test_log_decrement_of_a_damped_sine():
    """Linear damping: successive extrema shrink by exp(π ζ / √(1 − ζ²)) per half cycle."""
    t = np.linspace(0.0, 10.0, 20001)
    Tn, zeta = 0.8, 0.08
    wn = 2 * math.pi / Tn
    wd = wn * math.sqrt(1 - zeta * zeta)
    phi = math.atan2(zeta, math.sqrt(1 - zeta * zeta))  # released at rest: x = A e^{−ζωt} cos(ω_d t − φ)/cos φ
    y = 0.1 + 0.17 * np.exp(-zeta * wn * t) * np.cos(wd * t - phi) / math.cos(phi)
    d = rd.log_decrement(t, y, 0.1)
    assert d["delta"] == pytest.approx(2 * math.pi * zeta / math.sqrt(1 - zeta * zeta), rel=1e-4)
    assert d["zeta"] == pytest.approx(zeta, rel=1e-4)
    cyc = rd.decay_cycles(t, y, 0.1)
    assert len(cyc) >= 4
    for t0, t1, a in cyc:
        assert t1 - t0 == pytest.approx(2 * math.pi / wd, rel=1e-4)
        assert 0 < a < 0.17


def test_roll_section_names_both_periods_and_the_decay_rate():
    rep = report.compute(resolve("bluerov2.yaml"), step_deg=10.0, load_samples=3)
    rows = dict(report.headline(rep))
    assert "roll period (small-angle)" in rows and "roll period (1-DOF, 10°)" in rows
    assert "log decrement" in rows["roll decay (runtime)"]
    # submerged ROV: GZ = BG sin φ, a pendulum; T(10°) = T0 · (2/π) K(sin² 5°)
    from scipy.special import ellipk

    r = rep.roll
    assert r["amplitude"] == pytest.approx(r["estimate"] * 2 / math.pi * ellipk(math.sin(math.radians(5)) ** 2),
                                           rel=1e-9)
    md = report.markdown(rep, {})
    assert "Where the" in md and "damping ratio" in md
