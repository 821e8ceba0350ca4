"""The report's figures frame their data (issue 12), and its text prints no NaN.

Each figure function is run with ``_finish`` captured, so the axes can be read back:
limits are checked against the data the figure was given (never against constants
from the plotting code), the legend order against the issue's wording.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from aurgen.analysis import report, report_figures
from aurgen.compose.resolve import resolve

PUBLISHED_CAPACITY = 15.0  # kg, Blue Robotics' BlueBoat technical details


@pytest.fixture(scope="module")
def boat():
    return report.compute(resolve("blueboat.yaml"))


@pytest.fixture
def captured(monkeypatch):
    """Run a fig_* function and return its axes (the figure is not written)."""
    got = []

    def finish(fig, ax, rep, title, path):
        got.append((fig, fig.axes, title))

    monkeypatch.setattr(report_figures, "_finish", finish)

    def run(fn, *args):
        fn(*args, None)
        fig, axes, title = got.pop()
        return axes, title

    yield run
    import matplotlib.pyplot as plt

    plt.close("all")


def test_gz_axes_come_from_the_curve(boat, captured):
    (ax,), _ = captured(report.fig_gz, boat, boat.heel)
    gz = np.asarray(boat.heel.gz)
    lo, hi = ax.get_ylim()
    span = max(gz.max(), 0) - min(gz.min(), 0)
    assert lo <= min(gz.min(), 0) and hi >= max(gz.max(), 0)  # the whole curve shows
    assert hi - lo <= 1.25 * span  # and fills the axes (the 57° tangent made it 10x the curve)
    tangent = [ln for ln in ax.get_lines() if ln.get_label().startswith("GM_T")]
    assert len(tangent) == 1
    x = tangent[0].get_xdata()
    assert max(x) <= 20.0 + 1e-9  # small angles only
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    i30 = next(i for i, t in enumerate(labels) if t.startswith("area to 30°"))
    i40 = next(i for i, t in enumerate(labels) if t.startswith("area to 40°"))
    assert i30 < i40


def test_load_line_axis_ends_where_the_curves_do(boat, captured):
    axes, _ = captured(report.fig_load, boat)
    L = boat.load
    finite = np.isfinite(L.draft) & np.isfinite(L.freeboard)
    assert not finite.all()  # the BlueBoat has samples with no equilibrium (the 26 kg)
    last = L.payload[finite].max()
    for ax in axes:
        assert ax.get_xlim()[1] == pytest.approx(last)
    assert last < 0.6 * L.limit  # the old axis ran to the reserve buoyancy


def test_roll_decay_axis_fits_the_decay(boat, captured):
    (ax, _decrements), _ = captured(report.fig_decay, boat)  # the roll against time, the decrements below
    d = boat.roll["decay"]
    t, r = np.asarray(d["t"]), np.asarray(d["roll"]) - d["ref"]
    xmax = ax.get_xlim()[1]
    assert xmax < 0.25 * t[-1]  # the BlueBoat's decay is over in about a second of a 20 s run
    # everything after the axis end is within 5% of the initial amplitude: nothing is cut off
    assert np.all(np.abs(r[t > xmax]) <= 0.05 * abs(r[0]))
    assert xmax >= 2 * d["period"]


def test_report_text_has_no_nan_and_leaves_missing_samples_blank(boat):
    md = report.markdown(boat, {})
    assert not any(w.lower() == "nan" for w in md.replace("|", " ").split())
    L = boat.load
    missing = [k for k in range(L.payload.size) if not np.isfinite(L.draft[k])]
    rows = [ln for ln in md.splitlines() if ln.startswith("| ") and ln.count("|") == 6]
    blank = [ln for ln in rows if ln.replace(" ", "").endswith("|||||")]
    assert missing and blank


def test_blueboat_at_the_published_payload_capacity(boat):
    cp = boat.capacity
    assert cp is not None and cp["payload"] == PUBLISHED_CAPACITY
    rows = dict(report.headline(boat))
    row = rows[f"at {PUBLISHED_CAPACITY:g} kg payload (published capacity)"]
    assert f"freeboard {cp['freeboard']:.4f} m" in row and "heel" in row
    # the load line's own samples (separate equilibrium solves) bracket the same freeboard
    L = boat.load
    ok = np.isfinite(L.freeboard)
    fb = float(np.interp(PUBLISHED_CAPACITY, L.payload[ok], L.freeboard[ok]))
    assert cp["freeboard"] == pytest.approx(fb, abs=3e-3)
    assert 0.0 < cp["freeboard"] < L.freeboard[0]  # afloat, lower than unloaded
    assert math.isfinite(cp["heel"])
