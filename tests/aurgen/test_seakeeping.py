"""``aurgen report --seakeeping`` (aurgen.analysis.seakeeping): each figure against a reference the code
did not compute.

- The long-wave limit: in a wave much longer than the boat (T = 10 s, λ = 156 m against 1.2 m) a small
  floating body rides the surface: heave RAO 1 in phase with the elevation, and its pitch follows the
  slope, pitch (bow down) = −∂η/∂x, which for a head sea η = a cos(−kx − ωt) at x = 0 is
  a k sin ωt = a k cos(ωt − 90°): RAO 1 at −90°. Beam seas (waves toward +y) likewise for roll
  (starboard down, +x): roll = +∂η/∂y = a k cos(ωt − 90°).
- A submerged neutral body in a long wave: Froude–Krylov alone (the runtime has no diffraction) drives
  (m + A33) z̈ = ρV ω² a e^(−kz) cos ωt, so z/a = e^(−kz) ρV / (m + A33) (A33 the declared −Z_ẇ).
- The harmonic fit on a synthetic record, exact to rounding.
- Significant amplitudes of a narrow-band Gaussian record against 2σ from its own spectrum
  (σ² = Σ a_j²/2) and Rayleigh's H1/3 = 4.004σ.
- Bad settings at the CLI: exit 2, the key named, nothing written; the report with the section audits clean.
"""

from __future__ import annotations

import io
import math
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pytest

from aurgen.analysis import seakeeping as sk
from aurgen.cli import main

QUICK = ["ramp_cycles=2", "settle_cycles=1", "fit_cycles=3"]


def _main(args):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        rc = main([str(a) for a in args])
    return rc, out.getvalue(), err.getvalue()


def _setup(name):
    from aurgen.analysis import stability as st
    from aurgen.compose.resolve import resolve
    from aurgen.emit import build
    from aurgen.runtime import hydrostatics as hs

    v = resolve(name)
    body = st.body_of(v)
    eq = hs.equilibrium(list(body.geoms), body.mass, body.com, body.rho) if st.floats(body) else None
    return v, body, eq, build.model_mjcf(v)


def test_long_wave_limit_blueboat():
    v, body, eq, xml = _setup("blueboat.yaml")
    s = sk.parse_settings(QUICK + ["periods=10"])
    pos, R, sub = sk.start(v, body, eq, s["depth"])
    assert not sub
    wave = sk.wave_of(10.0, s)
    assert wave["H"] == pytest.approx(0.1)  # λ/60 = 2.6 m: the 0.1 m cap holds
    head = sk.regular_run(xml, body.rho, pos, R, wave, sk.heading_deg("head"), s)
    assert head["health"].startswith("ok")
    assert head["heave"]["rao"] == pytest.approx(1.0, rel=0.05)
    assert head["pitch"]["rao"] == pytest.approx(1.0, rel=0.10)
    assert abs(head["heave"]["phase_deg"]) < 3.0
    assert abs(head["pitch"]["phase_deg"] + 90.0) < 3.0
    assert head["roll"]["rao"] < 0.01  # no roll in a head sea (symmetric boat)
    beam = sk.regular_run(xml, body.rho, pos, R, wave, sk.heading_deg("beam"), s)
    assert beam["roll"]["rao"] == pytest.approx(1.0, rel=0.10)
    assert abs(beam["roll"]["phase_deg"] + 90.0) < 3.0


def test_submerged_rov_long_wave_froude_krylov():
    v, body, eq, xml = _setup("bluerov2.yaml")
    assert eq is None
    s = sk.parse_settings(QUICK + ["periods=10", "depth=3"])
    pos, R, sub = sk.start(v, body, eq, s["depth"])
    assert sub and pos[2] == -3.0
    wave = sk.wave_of(10.0, s)
    r = sk.regular_run(xml, body.rho, pos, R, wave, sk.heading_deg("head"), s)
    from aurgen.analysis.stability import full_volume

    rho_v = float(body.rho) * float(full_volume(body)[0])
    a33 = -dict(v.hydrodynamics)["zDotW"]
    ref = math.exp(-wave["k"] * r["depth_com"]) * rho_v / (float(v.specs.total_mass) + a33)
    assert r["heave"]["rao"] == pytest.approx(ref, rel=0.03)
    # short waves barely reach it: e^(-kz) at 3 m and T = 1 s is 6e-6
    short = sk.regular_run(xml, body.rho, pos, R, sk.wave_of(1.0, s), sk.heading_deg("head"), s)
    assert short["heave"]["rao"] < 1e-3


def test_fit_recovers_a_synthetic_record():
    rng = np.random.default_rng(3)
    omega = 2 * math.pi / 2.7
    t = np.sort(rng.uniform(0.0, 7.3 * 2.7, 400))  # uneven samples, not whole periods
    for amp, ph in ((0.37, 1.1), (2e-3, -2.9), (5.0, math.pi - 1e-3)):
        y = 0.05 + 0.002 * (t - t.mean()) + amp * np.cos(omega * t + ph)
        f = sk.fit_harmonic(t, y, omega)
        assert abs(f["amplitude"] - amp) < 1e-9
        assert abs(math.remainder(f["phase"] - ph, 2 * math.pi)) < 1e-9
        assert abs(f["mean"] - 0.05) < 1e-9 and abs(f["slope"] - 0.002) < 1e-9
        y2 = amp * np.sin(omega * t)  # sin = cos(. - 90 deg)
        f2 = sk.fit_harmonic(t, y2, omega)
        assert abs(f2["amplitude"] - amp) < 1e-9 and abs(f2["phase"] + math.pi / 2) < 1e-9
    assert sk.wrap_deg(190.0) == pytest.approx(-170.0) and sk.wrap_deg(-180.0) == 180.0


def test_significant_amplitude_of_a_narrow_band_gaussian_record():
    rng = np.random.default_rng(11)
    n = 200
    # evenly spaced over ±5 % about 4 s (narrow band), spacing 2 pi / 8000 s: a 40000 s record holds
    # whole beats, so its mean square is the spectrum's sum a^2 / 2 (cosines orthogonal), not a draw
    w = 2 * math.pi / 4.0 * (1 + 0.1 * (np.arange(n) / (n - 1) - 0.5))
    a = np.full(n, 0.01)
    ph = rng.uniform(0, 2 * math.pi, n)
    t = np.arange(0.0, 40000.0, 0.2)
    y = np.zeros_like(t)
    for aj, wj, pj in zip(a, w, ph):
        y += aj * np.cos(wj * t + pj)
    sigma = math.sqrt(float(np.sum(a * a)) / 2)  # the spectrum's: m0 = sum a^2 / 2
    st = sk.statistics(y)
    assert st["significant"] == pytest.approx(2 * sigma, rel=0.03)  # 4 sigma / 2
    assert st["rms"] == pytest.approx(sigma, rel=0.03)
    assert st["h13_half"] == pytest.approx(4.004 * sigma / 2, rel=0.03)  # Rayleigh's H1/3 = 4.004 sigma


@pytest.mark.parametrize("setting,key", [
    ("periods=2,abc", "seakeeping.periods"),
    ("periods=0.1", "seakeeping.periods"),
    ("height=-0.1", "seakeeping.height"),
    ("steepness=0.5", "seakeeping.steepness"),
    ("bogus=1", "seakeeping.bogus"),
    ("headings=port", "seakeeping.headings"),
    ("fit_cycles=2.5", "seakeeping.fit_cycles"),
    ("sea.hs=nan", "seakeeping.sea.hs"),
    ("sea.spectrum=regular", "seakeeping.sea.spectrum"),
    ("sea.world=no_such_world.yaml", "no_such_world"),
    ("sea.tp=0.6", "seakeeping.sea.hs"),  # hs 0.5 m over lambda_p 0.56 m: it breaks
    ("noequals", "--seakeeping-set"),
])
def test_cli_refuses_bad_settings(tmp_path, setting, key):
    out = tmp_path / "r"
    rc, _, err = _main(["report", "blueboat.yaml", "-o", out, "--quiet", "--seakeeping-set", setting])
    assert rc == 2, err
    assert key in err and "Traceback" not in err
    assert not out.exists()


def test_report_with_seakeeping_audits_clean(tmp_path):
    out = tmp_path / "r"
    sets = QUICK + ["periods=3,10", "headings=head", "sea.duration=20", "sea.ramp=2", "sea.headings=beam",
                    "sea.components=8"]
    args = ["report", "blueboat.yaml", "-o", out, "--quiet", "--no-roll-decay", "--seakeeping"]
    for s in sets:
        args += ["--seakeeping-set", s]
    rc, _, err = _main(args)
    assert rc == 0, err
    md = (out / "report.md").read_text()
    assert "## Seakeeping" in md and "![RAOs](seakeeping.png)" in md and "![irregular sea](sea_state.png)" in md
    assert "| 10 | 156.13 | 0.1000 |" in md
    for name in ("seakeeping.png", "sea_state.png"):
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    rc, text, err = _main(["audit", out])
    assert rc == 0, text + err
    (out / "sea_state.png").write_bytes((out / "sea_state.png").read_bytes() + b"x")  # the seal covers it
    rc, text, _ = _main(["audit", out])
    assert rc == 1 and "sea_state.png" in text
