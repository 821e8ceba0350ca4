"""``aurgen sim``'s run.csv and run.png (issue 12): units in every header, times without float
noise, the plot titled, one colour per body, heave relative to each body's start."""

import csv
import re

import numpy as np

from aurgen.cli import main

from simfixtures import body, geom, mjcf, water_env


def test_csv_headers_carry_units_and_times_print_clean(tmp_path):
    xml = mjcf(body("cube", (0, 0, 0.11), 4.0, (0.027,) * 3, geom("box", [0.1, 0.1, 0.1])), env=water_env(1000.0))
    f = tmp_path / "w.xml"
    f.write_text(xml)
    out = tmp_path / "run.csv"
    assert main(["sim", str(f), "--duration", "1", "--out", str(out), "--quiet"]) == 0
    rows = list(csv.reader(open(out, encoding="utf-8")))
    units = {"time": "s", "x": "m", "y": "m", "z": "m", "roll": "rad", "pitch": "rad", "yaw": "rad"}
    for h in rows[0]:
        m = re.fullmatch(r"(?:\w+\.)?(\w+) \[(\w+)\]", h)
        assert m and units[m.group(1)] == m.group(2), h
    times = [r[0] for r in rows[1:]]
    step = float(times[1]) - float(times[0])
    for k, s in enumerate(times):
        assert len(s.split(".")[-1]) <= 9, s  # no 0.020000000000000004
        assert abs(float(s) - k * step) < 1e-9
    assert "0.02" in times


def test_plot_is_titled_with_one_colour_per_body_and_relative_heave(tmp_path, monkeypatch):
    import matplotlib.pyplot as plt

    from aurgen.runtime.sim import cli

    closed = []
    real_close = plt.close
    monkeypatch.setattr(plt, "close", lambda fig=None: closed.append(fig))
    t = np.linspace(0.0, 2.0, 21)
    a = [t]
    for z0 in (0.05, -3.0):  # a boat near the surface and an ROV 3 m down
        a += [0 * t, 0 * t, z0 + 0.01 * np.sin(t), 0.02 * np.sin(t), 0.01 * np.cos(t), 0 * t]
    cli._plot(tmp_path / "run.png", ["boat", "rov"], np.column_stack(a), "a title")
    fig = closed[-1]
    try:
        assert fig._suptitle is not None and fig._suptitle.get_text() == "a title"
        heave, angles = fig.axes[0], fig.axes[-1]  # (horizontal position, speed and depth between)
        lines = heave.get_lines()
        assert [ln.get_ydata()[0] for ln in lines] == [0.0, 0.0]  # each from its own start
        lo, hi = heave.get_ylim()
        assert hi - lo < 0.1  # the 3 m between the bodies no longer squashes the heave
        colours = [ln.get_color() for ln in lines]
        assert len(set(colours)) == 2
        for c, name in zip(colours, ("boat", "rov")):
            mine = [ln for ln in angles.get_lines() if ln.get_label().startswith(name)]
            assert len(mine) == 2 and all(ln.get_color() == c for ln in mine)
    finally:
        real_close(fig)
    assert (tmp_path / "run.png").stat().st_size > 1000
