"""Every figure reads at a glance (issue 28): rendered, each text's and marker's extent read back with
matplotlib's renderer; none leaves the figure, no two texts overlap, keys sit in legends (never in a
clipped subtitle), a small-angle panel spans at least a sensible minimum, and run.png shows horizontal
position and speed (depth for a submerged body) beside heave, heel and trim."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pytest

from aurgen.analysis import report, report_figures
from aurgen.compose.resolve import resolve

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from figlayout import layout_problems, legend_over_data  # noqa: E402


@pytest.fixture(scope="module")
def boat():
    return report.compute(resolve("blueboat.yaml"))


@pytest.fixture
def rendered(monkeypatch):
    got = []

    def finish(fig, ax, rep, title, path):
        fig.suptitle(f"{title}\n{rep.tag}", fontsize=10)
        fig.tight_layout()
        got.append(fig)

    monkeypatch.setattr(report_figures, "_finish", finish)
    yield got
    import matplotlib.pyplot as plt

    plt.close("all")


def test_load_line_keys_in_a_legend_and_small_angles_not_magnified(boat, rendered):
    report_figures.fig_load(boat, None)
    fig = rendered.pop()
    assert layout_problems(fig) == []
    axes = fig.axes
    assert axes[0].get_title() == "", "keys belong in a legend, not a subtitle"
    keys = [t.get_text() for t in axes[0].get_legend().get_texts()]
    assert any("reserve buoyancy" in k for k in keys) and any("capacity" in k for k in keys), keys
    for ax in axes[1:3]:  # heel, trim: a few hundredths of a degree are noise, not a trend
        lo, hi = ax.get_ylim()
        assert hi - lo >= report_figures.MIN_ANGLE_SPAN_DEG - 1e-9


def test_run_png_shows_horizontal_motion_and_reads_clean(tmp_path):
    from aurgen.runtime.sim import cli as simcli

    t = np.linspace(0, 10, 101)
    rows = [np.column_stack([t, 0.3 * t, 0.1 * t, -0.01 + 0 * t, 0.01 * np.sin(t), 0.02 * np.sin(t), 0 * t]),
            np.column_stack([0.2 * t, 0 * t, -3.0 + 0 * t, 0 * t, 0 * t, 0 * t])]
    a = np.column_stack([rows[0], rows[1]])
    figs = []
    simcli._plot(tmp_path / "run.png", ["blueboat", "bluerov2"], a, "aurgen sim w.xml: 10 s", keep=figs.append)
    fig = figs[0]
    assert layout_problems(fig) == []
    labels = " ".join(ax.get_ylabel() for ax in fig.axes)
    for what in ("heave", "horizontal", "speed", "depth", "heel"):
        assert what in labels, labels
    speed = next(ax for ax in fig.axes if "speed" in ax.get_ylabel())
    boat_speed = speed.get_lines()[0].get_ydata()
    assert np.allclose(boat_speed[1:], np.hypot(0.3, 0.1), rtol=1e-6)
    import matplotlib.pyplot as plt

    plt.close(fig)


@pytest.fixture(scope="module")
def rov():
    return report.compute(resolve("bluerov2.yaml"))


@pytest.mark.parametrize("axis", ["heel", "trim"])
def test_rov_gz_legend_off_the_curve_and_the_180_marker_whole(rov, rendered, axis):
    report_figures.fig_gz(rov, getattr(rov, axis), None)
    fig = rendered.pop()
    assert layout_problems(fig) == []  # the vanishing-stability square at 180 deg was half-clipped
    assert legend_over_data(fig.axes[0]) == []  # the legend sat on the curve


def test_boat_gz_reads_clean(boat, rendered):
    report_figures.fig_gz(boat, boat.heel, None)
    fig = rendered.pop()
    assert layout_problems(fig) == [] and legend_over_data(fig.axes[0]) == []


@pytest.fixture(scope="module")
def bundled_sweep(tmp_path_factory):
    """The bundled payload sweep's spec, on a coarse grid of its own plane (the figures' layout, not the data)."""
    import json

    from aurgen.analysis.sweep.spec import load_sweep
    from aurgen.cli import main

    src = Path(__file__).resolve().parents[2] / "sweeps" / "blueboat_payload.yaml"
    tmp = tmp_path_factory.mktemp("sweepfig")
    path = tmp / "blueboat_payload.yaml"
    path.write_text(src.read_text().replace("num: 16", "num: 6"))
    assert main(["sweep", str(path), "-o", str(tmp / "out"), "--quiet", "--no-figures"]) == 0
    lines = (tmp / "out" / "rows.jsonl").read_text().splitlines()
    rows = [json.loads(x) for x in lines[1:] if x.strip()]
    return load_sweep(path), rows


@pytest.fixture
def sweep_figs(monkeypatch):
    import matplotlib.pyplot as plt
    from types import SimpleNamespace

    from aurgen.analysis.sweep import figures

    got = []
    monkeypatch.setattr(figures, "_plt", lambda: SimpleNamespace(subplots=plt.subplots, close=got.append))
    yield figures, got
    plt.close("all")


def test_capsize_boundary_markers_whole_legend_off_the_points(bundled_sweep, sweep_figs, tmp_path):
    figures, got = sweep_figs
    sweep, rows = bundled_sweep
    figures.fig_capsize(sweep, rows, tmp_path / "c.png")
    fig = got.pop()
    assert layout_problems(fig) == []  # the contour's sticky edges half-clipped the outermost variants
    assert legend_over_data(fig.axes[0]) == []


def test_distributions_ticks_apart_and_a_constant_column_at_its_value(bundled_sweep, sweep_figs, tmp_path):
    figures, got = sweep_figs
    sweep, rows = bundled_sweep
    rows = [dict(r, td_settle_time_s=0.1, td_max_roll_deg=1234.5 + 1e-3 * i) for i, r in enumerate(rows)]
    figures.fig_distributions(sweep, rows, tmp_path / "d.png")
    fig = got.pop()
    assert layout_problems(fig) == []
    ax = next(a for a in fig.axes if a.get_xlabel() == "td_settle_time_s")
    lo, hi = ax.get_xlim()
    assert 0.0 < lo < 0.1 < hi and hi - lo < 0.1  # not hist's 0.1 +- 0.5 (an axis from -0.4 s)
    assert "0.1" in ax.get_title()


def test_gm_t_payload_reads_clean(bundled_sweep, sweep_figs, tmp_path):
    figures, got = sweep_figs
    sweep, rows = bundled_sweep
    figures.fig_gm(sweep, rows, tmp_path / "g.png")
    fig = got.pop()
    assert layout_problems(fig) == [] and legend_over_data(fig.axes[0]) == []
    # the payload's stations told apart (all were one colour): one entry per station and safe/unsafe
    keys = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    stations = {r["payload_y_m"] for r in rows}
    assert len(stations) == 3 and all(any(f"payload_y_m = {y:g}" in k for k in keys) for y in stations), keys


@pytest.mark.parametrize("who", ["boat", "rov"])
def test_mass_reads_clean(who, request, rendered):
    report_figures.fig_mass(request.getfixturevalue(who), None)
    assert layout_problems(rendered.pop()) == []


@pytest.mark.parametrize("who", ["boat", "rov"])
def test_roll_decay_peaks_whole(who, request, rendered):
    report_figures.fig_decay(request.getfixturevalue(who), None)
    fig = rendered.pop()
    assert layout_problems(fig) == []  # the first peak, the release at t = 0, was half-clipped
    assert legend_over_data(fig.axes[0]) == []


def _extrema(t, y, floor):
    """Alternating-sign extrema of the samples ``y`` (the release at t[0] first) above ``floor`` × |y[0]|,
    found here from the raw samples (no refinement): the test's own peaks."""
    out = [(t[0], y[0])]
    for k in range(1, len(y) - 1):
        if abs(y[k]) >= abs(y[k - 1]) and abs(y[k]) > abs(y[k + 1]) and abs(y[k]) > floor * abs(y[0]):
            if np.sign(y[k]) != np.sign(out[-1][1]):
                out.append((t[k], y[k]))
    return out


@pytest.mark.parametrize("who", ["boat", "rov"])
def test_roll_decay_shows_each_half_cycle_decrement(who, request, rendered):
    """The lower panel: one point per half cycle at (mean amplitude, 2 ln|x_k/x_(k+1)|) from the test's
    own extrema of the run; the ROV's fall 4.3 -> 0.25 and get no exponential envelope (it missed the
    peaks); the peak count is said (the boat's decrement rests on 3 peaks)."""
    rep = request.getfixturevalue(who)
    report_figures.fig_decay(rep, None)
    fig = rendered.pop()
    assert layout_problems(fig) == []
    top, low = fig.axes
    d = rep.roll["decay"]
    t, y = np.asarray(d["t"]), np.asarray(d["roll"]) - d["ref"]
    pk = _extrema(t, y, 0.02)
    a = np.array([abs(v) for _, v in pk])
    want_per = 2 * np.log(a[:-1] / a[1:])
    want_amp = np.degrees(0.5 * (a[:-1] + a[1:]))
    line = next(ln for ln in low.get_lines() if "half cycles" in str(ln.get_label()))
    got_amp, got_per = np.asarray(line.get_xdata()), np.asarray(line.get_ydata())
    assert got_per.size == want_per.size
    # sampled at 100 Hz against parabola-refined peaks: within 3% (the boat's 0.3 s half cycles)
    np.testing.assert_allclose(got_per, want_per, rtol=0.03)
    np.testing.assert_allclose(got_amp, want_amp, rtol=0.03)
    keys = " ".join(tx.get_text() for tx in top.get_legend().get_texts())
    assert f"{len(pk)} used" in keys
    envelope = [ln for ln in top.get_lines() if "envelope" in str(ln.get_label())]
    exponential = want_per.max() / want_per.min() <= 1.2
    assert bool(envelope) == exponential
    if who == "rov":
        # the ROV's damping grows with amplitude: the first half cycle's decrement many times the last's
        assert not exponential and want_per[0] > 10 * want_per[-1]
        assert "not one exponential" in low.get_title()


def test_roll_decay_envelope_of_an_exponential_decay_fits_every_peak(rendered):
    """A linearly damped sine (an exponential decay): called one, its envelope drawn through the peaks."""
    import math
    from types import SimpleNamespace

    from aurgen.analysis import roll_decay as rd

    t = np.linspace(0.0, 8.0, 801)
    zeta, wn = 0.08, 2 * math.pi / 0.8
    wd = wn * math.sqrt(1 - zeta ** 2)
    phi = math.atan2(zeta, math.sqrt(1 - zeta ** 2))
    x = 0.1745 * np.exp(-zeta * wn * t) * np.cos(wd * t - phi) / math.cos(phi)
    dec = rd.log_decrement(t, x, 0.0)
    assert dec["exponential"]
    d = {"t": t, "roll": x, "ref": 0.0, "heel0_deg": 10.0, "period": 2 * math.pi / wd, "decrement": dec}
    rep = SimpleNamespace(roll={"decay": d, "estimate": 0.8, "amplitude": None}, tag="test (config 0)")
    report_figures.fig_decay(rep, None)
    fig = rendered.pop()
    assert layout_problems(fig) == []
    top = fig.axes[0]
    env = next(ln for ln in top.get_lines() if "envelope" in str(ln.get_label()))
    te, ye = np.asarray(env.get_xdata()), np.radians(np.asarray(env.get_ydata()))
    for tp, yp in _extrema(t, x, 0.02):  # the closed form's own peaks, sampled
        assert abs(np.interp(tp, te, ye) - abs(yp)) <= 0.01 * abs(x[0])


def test_criteria_reads_clean(boat, monkeypatch):
    import matplotlib.pyplot as plt
    from types import SimpleNamespace

    got = []
    monkeypatch.setattr(report_figures, "_plt", lambda: SimpleNamespace(subplots=plt.subplots, close=got.append))
    assert boat.criteria is not None
    report_figures.fig_criteria(boat, Path(os.devnull))
    fig = got.pop()
    try:
        assert layout_problems(fig) == []
        assert all(legend_over_data(ax) == [] for ax in fig.axes)
    finally:
        plt.close(fig)
