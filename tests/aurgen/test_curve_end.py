"""Where a righting-arm curve with a free angle ends, and no vanishing angle past it (issue 37).

The curve follows the stable root of its free angle (trim of a heel curve, heel of a trim curve) continuous with
upright.  Where that root meets an unstable one and vanishes (a fold), or where the free angle passes ±90° (the
curve's axis is then vertical and its angle means nothing), the curve ends: the report says so, and a zero of GZ
past it is no vanishing angle.  Checked against tests/aurgen/fold_ref.py: a scan of F(φ, ψ) = (R (B − G))_x over a
grid of the free angle at each curve angle, its draft solved here on the hydrostatics clip alone, the stable root
followed between its neighbouring extrema and the fold located where one of them touches zero.

The case: the shipped BlueROV2 floating with net buoyancy 0.5 kg and its CoB offset (0.01, −0.004, 0.046) m from
the CoM.  Its trim curve's free heel folds at 70.38° of trim with GZ still +0.0494 m (its old "vanishing angle"
175.81° was the body back at its waterline after turning ~178° about the free axis); its heel curve's free trim
passes −90° at 85.03° of heel (the old 177.69°).  Angles rad unless named _deg, lengths m.
"""
from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, event, example, given, settings
from hypothesis import strategies as hst
from scipy.optimize import fsolve

sys.path.insert(0, str(Path(__file__).parent))
import fold_ref as fr  # noqa: E402

from aurgen.analysis import report, report_figures  # noqa: E402
from aurgen.analysis import stability as st  # noqa: E402
from aurgen.runtime.hydrostatics import Geom  # noqa: E402

MASS, RHO, FOOT = 11.544, 1025.0, (0.457, 0.338)  # the BlueROV2's mass (kg) and displacement footprint (m)
ISSUE = (0.5, (0.01, -0.004, 0.046))


def rov_box(net, cob):
    """The ROV's displacement (one box, its footprint, the height that displaces mass + net) with its centre the
    CoB, the CoM at the origin: (half sizes, centre)."""
    h = (MASS + net) / RHO / (FOOT[0] * FOOT[1])
    return np.array([FOOT[0] / 2, FOOT[1] / 2, h / 2]), np.array(cob, float)


def reference(net, cob, axis):
    """fold_ref's Scan of the body the curve turns about ``axis`` (the trim curve's body turned 90° in yaw,
    x → −y', as the report does)."""
    half, c = rov_box(net, cob)
    if axis == "trim":
        half, c = half[[1, 0, 2]], np.array([c[1], -c[0], c[2]])
    return fr.Scan([(half, c, np.eye(3))], MASS, np.zeros(3), RHO)


def body_of(net, cob):
    half, c = rov_box(net, cob)
    return st.Body((Geom("box", half, c, np.eye(3)),), MASS, np.zeros(3), RHO)


def held_reference(S, lo):
    """(the free angle at the equilibrium, the held curve's vanishing angle past ``lo``) from the Scan."""
    x = fsolve(lambda x: S.offsets(x[0], x[1])[:2], [0.0, 0.0], xtol=1e-11)
    return float(x[1]), S.held_avs(float(x[1]), lo)


# --------------------------------------------------------------------------- the issue's case


@pytest.fixture(scope="module")
def rov_report(tmp_path_factory):
    from aurgen.compose.resolve import resolve
    from aurgen.core.resources import data_dir

    text = (data_dir("vehicles") / "bluerov2.yaml").read_text()
    assert "net_buoyancy: 0.0" in text and "cob_offset: [0, 0, 0.046]" in text
    text = text.replace("net_buoyancy: 0.0", "net_buoyancy: 0.5").replace(
        "cob_offset: [0, 0, 0.046]", "cob_offset: [0.01, -0.004, 0.046]")
    cfg = tmp_path_factory.mktemp("rov") / "my_rov.yaml"
    cfg.write_text(text)
    return report.compute(resolve(str(cfg)), roll_decay=False, step_deg=5.0, load_samples=3)


def test_the_reference_finds_the_issues_fold():
    """The reference alone: the free heel of the trim curve folds at 70.38° (GZ +0.0494 m); the free trim of the
    heel curve passes −90° at 85.03°; the held-heel curve vanishes at 158.43°."""
    S = reference(*ISSUE, "trim")
    at, kind, psi = S.end()
    assert kind == "fold" and math.degrees(at) == pytest.approx(70.38, abs=0.005)
    assert float(S.gz(at - 1e-9, psi)) == pytest.approx(0.0494, abs=5e-5)
    held, avs = held_reference(S, math.radians(20.0))
    assert math.degrees(avs) == pytest.approx(158.43, abs=0.005)
    at, kind, psi = reference(*ISSUE, "heel").end()
    assert kind == "90" and psi < 0 and math.degrees(at) == pytest.approx(85.03, abs=0.005)


def test_the_rov_variants_curves_end_where_the_reference_does(rov_report):
    """The report's trim curve ends at the reference's fold, its heel curve where the reference's free trim
    passes −90°; neither has a vanishing angle; the held curves' vanishing angles are the reference's; the
    samples before the end are the reference's stable free angles, none after it is drawn."""
    for c, axis, kind in ((rov_report.trim, "trim", "fold"), (rov_report.heel, "heel", "ninety")):
        S = reference(*ISSUE, axis)
        at, rkind, psi = S.end()
        assert c.avs is None or c.avs < at, (axis, math.degrees(c.avs), math.degrees(at))  # old: 175.81°, 177.69°
        assert c.free_trim and c.fold is None
        assert c.end is not None and c.end.kind == kind
        assert c.end.at == pytest.approx(at, abs=1e-8)
        assert c.avs is None
        held, avs = held_reference(S, math.radians(20.0))
        assert c.held_angle == pytest.approx(held, abs=1e-9)
        assert c.avs_held == pytest.approx(avs, abs=1e-8)
        assert 0 < c.angle_max_gz < c.end.at
        ok = np.isfinite(c.gz)
        assert np.all(c.angles[ok] <= c.end.at) and np.all(c.angles[~ok] > c.end.at)
        for phi, t, g in zip(c.angles[ok], c.trims[ok], c.gz[ok]):
            assert abs(float(S.F(phi, t))) < 1e-10 and float(S.gz(phi, t)) == pytest.approx(g, abs=1e-10)
            assert float(S.F(phi, t + 1e-6)) > float(S.F(phi, t - 1e-6))  # stable
    t = rov_report.trim
    assert t.max_gz == pytest.approx(0.04951, abs=5e-6) and math.degrees(t.angle_max_gz) == pytest.approx(
        68.07, abs=0.005)
    assert t.end.gz == pytest.approx(0.0494, abs=5e-5)


def test_the_rov_variants_report_names_the_fold_and_no_vanishing_angle(rov_report):
    """report.md's headline and curve sections, and --json: the trim curve ends at a fold at 70.38°, no
    vanishing angle on it (none of the old 175.81° or 177.69°), the held-heel one named (158.43°)."""
    rows = dict(report.headline(rov_report))
    v = rows["vanishing stability (trim)"]
    assert v.startswith("none on the free-heel curve") and "fold at 70.38°" in v
    assert "heel held at 2.30°: 158.43°" in v
    assert "fold at 70.38°" in rows["curve ends (trim)"] and "+0.0494 m" in rows["curve ends (trim)"]
    h = rows["vanishing stability"]
    assert h.startswith("none on the free-trim curve") and "85.03°" in h and "trim held at -4.19°: 168.74°" in h
    assert rows["max GZ (trim)"] == "0.04951 m at 68.07°"
    md = report.markdown(rov_report, {})
    for old in ("175.8", "177.6", "177.7"):
        assert old not in md
    assert "the free-heel curve ends at a fold at 70.38°" in md
    j = json.loads(json.dumps(report.report_json(rov_report)))
    tj = j["curves"]["trim"]
    assert tj["avs_deg"] is None and tj["end"]["kind"] == "fold"
    assert tj["end"]["angle_deg"] == pytest.approx(70.3833, abs=1e-4)
    assert tj["avs_held_deg"] == pytest.approx(158.4345, abs=1e-4) and tj["held"] == "heel"
    assert tj["max_gz_m"] == pytest.approx(0.04951, abs=5e-6)
    assert j["curves"]["heel"]["end"]["kind"] == "ninety"


def test_the_figure_ends_the_curve_and_says_why(rov_report, monkeypatch):
    """gz_trim.png: the GZ line stops at the fold, a marker there names it, the held-heel curve and its
    vanishing angle are drawn as such; no unnamed vanishing-angle marker."""
    got = []
    monkeypatch.setattr(report_figures, "_finish", lambda fig, ax, rep, title, path: got.append((fig, title)))
    c = rov_report.trim
    report.fig_gz(rov_report, c, None)
    fig, title = got.pop()
    ax = fig.axes[0]
    lines = {ln.get_label(): ln for ln in ax.get_lines()}
    gz = lines["GZ, free heel"]
    assert max(gz.get_xdata()) == pytest.approx(math.degrees(c.end.at), abs=1e-9)
    end = [k for k in lines if k.startswith("curve ends at 70.38°")]
    assert end and "fold" in end[0]
    assert any(k.startswith("GZ, heel held at 2.30°") for k in lines)
    assert any(k == "vanishing stability, heel held: 158.43°" for k in lines)
    assert not any(k.startswith("vanishing stability ") for k in lines)
    assert "ends at a fold at 70.38°" in title
    import matplotlib.pyplot as plt

    plt.close(fig)


# --------------------------------------------------------------------------- random variants


@settings(max_examples=24, deadline=None, derandomize=True, database=None,
          phases=[Phase.explicit, Phase.generate],  # no shrinking: the first failure is reported as found
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(net=hst.floats(0.2, 2.0), x=hst.floats(-0.03, 0.03), y=hst.floats(-0.02, 0.02), z=hst.floats(0.015, 0.07),
       axis=hst.sampled_from(["heel", "trim"]))
@example(net=ISSUE[0], x=ISSUE[1][0], y=ISSUE[1][1], z=ISSUE[1][2], axis="trim")
def test_no_printed_vanishing_angle_lies_past_a_fold(net, x, y, z, axis):
    """Random CoB offsets and net buoyancies: the curve ends where the reference's stable free angle ends (a fold
    or ±90°), and a vanishing angle printed on the free curve lies before that end (then it is a zero of GZ on
    the reference's branch); one past it is printed only as the held curve's, and named so."""
    body = body_of(net, (x, y, z))
    c = st.gz_curve(body, axis, step_deg=6.0)
    S = reference(net, (x, y, z), axis)
    at, kind, psi = S.end()
    if c.free_trim and c.avs is not None:  # printed on the free curve: before its end, a zero on its branch
        assert at is None or c.avs < at, (math.degrees(c.avs), kind, math.degrees(at))
        p = [q for q in S.path if q[0] <= c.avs][-1]
        assert abs(float(S.gz(c.avs, S.root_near(c.avs, p[1])))) < 1e-9
    text = report.vanishing_text(c)
    event(f"{axis}: " + ("held" if not c.free_trim else f"ends ({kind})" if at is not None else "no end")
          + (", vanishing angle printed" if c.avs is not None else ""))
    if not c.free_trim:  # held from upright: the branch ended before 40° (or vanished only at its jump)
        assert at is not None and c.fold == pytest.approx(at, abs=1e-6)
        assert "held" in text and c.end is None
        return
    if at is None:
        assert c.end is None
    else:
        assert c.end is not None and c.end.kind == {"fold": "fold", "90": "ninety"}[kind]
        assert c.end.at == pytest.approx(at, abs=1e-6)
    if c.avs is not None:
        assert text.startswith(f"{math.degrees(c.avs):.2f}°")
    else:
        assert text.startswith("none")
        if c.end is not None and c.avs_held is not None:
            assert f"held at {math.degrees(c.held_angle):.2f}°: {math.degrees(c.avs_held):.2f}°" in text
