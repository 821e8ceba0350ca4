"""``aurgen sim``: summary, CSV, plot, refusal of bad input."""

import csv

from aurgen.cli import main

from simfixtures import body, geom, mjcf, water_env


def test_sim_cli_writes_summary_csv_and_plot(tmp_path, capsys):
    xml = mjcf(body("cube", (0, 0, 0.11), 4.0, (0.027,) * 3, geom("box", [0.1, 0.1, 0.1])), env=water_env(1000.0))
    f = tmp_path / "w.xml"
    f.write_text(xml)
    out, png = tmp_path / "run.csv", tmp_path / "run.png"
    rc = main(["sim", str(f), "--duration", "2", "--out", str(out), "--plot", str(png), "--quiet"])
    text = capsys.readouterr().out
    assert rc == 0
    assert "health:" in text and "ok" in text and "draft:" in text and "heel:" in text and "trim:" in text
    rows = list(csv.reader(open(out)))
    assert rows[0][:4] == ["time [s]", "cube.x [m]", "cube.y [m]", "cube.z [m]"]
    assert len(rows) > 100
    assert png.stat().st_size > 1000


def test_sim_cli_refuses_bad_environment(tmp_path, capsys):
    bad = water_env()
    bad["cells"][1]["density"] = -1.0
    f = tmp_path / "bad.xml"
    f.write_text(mjcf(body("s", (0, 0, 0), 1.0, (1, 1, 1), geom("sphere", [0.1])), env=bad))
    assert main(["sim", str(f), "--duration", "1", "--quiet"]) == 2
    assert "cell 'water': density -1.0" in capsys.readouterr().err
    assert main(["sim", str(tmp_path / "missing.xml"), "--quiet"]) == 2


def test_sim_and_view_given_a_config_say_to_build_it_first(tmp_path, capsys):
    """A vehicle or world config passed where a model is expected (an easy slip after
    `aurgen specs blueboat.yaml`): exit 2, and the message names the command that writes the model."""
    for argv in (["sim", "blueboat.yaml", "--quiet"], ["view", str(tmp_path / "my_boat.yml")]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert "Traceback" not in err
        assert f"{argv[1]}: a config, not a model" in err and f"'aurgen build {argv[1]}'" in err, err


def test_sim_outputs_replace_only_aurgens_own_files(tmp_path, capsys):
    """--out and --plot replace a file only if aurgen sim wrote it (a rerun); the model being
    simulated, a user's notes or a PNG from elsewhere are refused before the run (exit 2) and
    left byte for byte."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    xml = mjcf(body("cube", (0, 0, 0.11), 4.0, (0.027,) * 3, geom("box", [0.1, 0.1, 0.1])), env=water_env(1000.0))
    model = tmp_path / "w.xml"
    model.write_text(xml)
    notes = tmp_path / "notes.csv"
    notes.write_text("my,own,numbers\n1,2,3\n")
    theirs = tmp_path / "photo.png"
    fig = plt.figure()
    fig.savefig(theirs, format="png")  # matplotlib's own Software entry, not aurgen's
    plt.close(fig)
    before = {p: p.read_bytes() for p in (model, notes, theirs)}
    for option, target in (("--out", model), ("--out", notes), ("--plot", theirs), ("--out", theirs)):
        assert main(["sim", str(model), "--duration", "0.1", option, str(target), "--quiet"]) == 2
        err = capsys.readouterr().err
        assert f"{option} {target}: exists and is not a file aurgen wrote" in err, err
    assert {p: p.read_bytes() for p in before} == before
    out, png = tmp_path / "run.csv", tmp_path / "run.png"
    for duration in ("0.1", "0.2"):  # the second run replaces the first run's files
        assert main(["sim", str(model), "--duration", duration, "--out", str(out), "--plot", str(png), "--quiet"]) == 0
        rows = list(csv.reader(open(out)))
        assert float(rows[-1][0]) == float(duration)
    capsys.readouterr()


def test_view_without_a_display_is_a_clear_error(tmp_path, capsys, monkeypatch):
    """No DISPLAY or WAYLAND_DISPLAY on Linux: exit 2 saying so (GLFW said only "could not
    initialize GLFW"), after the model itself loaded; with either set, or on macOS, no objection."""
    import sys

    from aurgen.runtime.sim.view import no_display_reason

    assert no_display_reason("linux", {}) is not None
    assert no_display_reason("linux", {"DISPLAY": ""}) is not None
    assert no_display_reason("linux", {"DISPLAY": ":0"}) is None
    assert no_display_reason("linux", {"WAYLAND_DISPLAY": "wayland-0"}) is None
    assert no_display_reason("darwin", {}) is None
    if not sys.platform.startswith("linux"):
        return
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    f = tmp_path / "w.xml"
    f.write_text(mjcf(body("cube", (0, 0, 0.11), 4.0, (0.027,) * 3, geom("box", [0.1, 0.1, 0.1])),
                      env=water_env(1000.0)))
    assert main(["view", str(f)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "no display" in err and f"aurgen sim {f}" in err, err
