"""Every figure reads at a glance (issue 28): rendered, each text's and marker's extent read back with
matplotlib's renderer; none leaves the figure, no two texts overlap, keys sit in legends (never in a
clipped subtitle), a small-angle panel spans at least a sensible minimum, and run.png shows horizontal
position and speed (depth for a submerged body) beside heave, heel and trim."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from aurgen.analysis import report, report_figures
from aurgen.compose.resolve import resolve

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from figlayout import layout_problems  # noqa: E402


@pytest.fixture(scope="module")
def boat():
    return report.compute(resolve("blueboat.yaml"), roll_decay=False)


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
    from aurgen.runtime import cli as simcli

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
