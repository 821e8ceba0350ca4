"""The T200 thrust curves in the catalog, the limits derived from them, and the MJCF that carries them.

Reference figures are Blue Robotics' "T200 Public Performance Data 10-20 V" (September 2019, bollard
pull, Basic ESC), as vortexntnu/vortex-auv transcribes it (motion/thruster_interface_auv/resources/
T200-Thrusters-16V.csv and -12V.csv, commit 8a0f2e81a9bb), column "Force (Kg f)"; 1 kgf = 9.80665 N.
They are copied here from the CSV, not read from aurgen's file. Before this change the props'
drive said 51.5 / -40.2 N and the MJCF carried no curve: every check below failed on that output.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from aurgen.config.catalog import Catalog, parse_part
from aurgen.config.thrust_curve import find_curve, parse_curve
from aurgen.core.errors import ConfigError

KGF = 9.80665
# (pwm µs, kgf) rows of the CSVs
T200_16V = {1100: -4.07, 1104: -4.05, 1300: -1.44, 1468: -0.04, 1472: 0.0, 1500: 0.0, 1528: 0.0, 1532: 0.04,
            1700: 1.82, 1896: 5.22, 1900: 5.25}
T200_12V = {1100: -2.90, 1104: -2.92, 1460: -0.04, 1464: 0.0, 1536: 0.0, 1540: 0.04, 1892: 3.71, 1896: 3.69,
            1900: 3.71}


@pytest.mark.parametrize("name, rows, zero, lo, hi", [
    ("t200_16v", T200_16V, (1472, 1528), -4.07, 5.25),
    ("t200_12v", T200_12V, (1464, 1536), -2.92, 3.71),
])
def test_curve_is_the_published_table(name, rows, zero, lo, hi):
    curve = find_curve(Catalog().dirs, name, (None, None, None))
    pts = dict(curve.points)
    assert len(curve.points) == 201 and curve.points[0][0] == 1100.0 and curve.points[-1][0] == 1900.0
    for pwm, kgf in rows.items():
        assert pts[float(pwm)] == pytest.approx(kgf * KGF, rel=1e-12, abs=1e-12), pwm
        assert curve.thrust(pwm) == pytest.approx(kgf * KGF, rel=1e-12, abs=1e-12)
    zeros = [p for p, t in curve.points if t == 0.0]
    assert (zeros[0], zeros[-1]) == zero and len(zeros) == (zero[1] - zero[0]) // 4 + 1
    assert curve.min_thrust == pytest.approx(lo * KGF, rel=1e-12)
    assert curve.max_thrust == pytest.approx(hi * KGF, rel=1e-12)
    # between rows: linear (16 V: 1102 µs halfway between -4.07 and -4.05 kgf)
    if name == "t200_16v":
        assert curve.thrust(1102) == pytest.approx(-4.06 * KGF, rel=1e-12)
        assert curve.voltage == 16.0 and "T200 Public Performance Data" in curve.source


@pytest.mark.parametrize("prop", ["t200_prop_ccw", "t200_prop_cw", "m200_weedless_prop_ccw", "m200_weedless_prop_cw"])
def test_prop_limits_derived_from_curve(prop):
    d = Catalog().get(prop).drive
    assert d.thrust_curve.name == "t200_16v"
    assert d.max_thrust == pytest.approx(5.25 * KGF, rel=1e-12)  # 51.48 N at 1900 µs
    assert d.min_thrust == pytest.approx(-4.07 * KGF, rel=1e-12)  # -39.91 N at 1100 µs


def _numerics(xml: str) -> dict:
    return {m[0]: [float(x) for x in m[1].split()] for m in re.findall(r'<numeric name="([^"]+)" data="([^"]+)"', xml)}


@pytest.mark.parametrize("vehicle, servos", [
    ("bluerov2", {f"thruster_{k}": k for k in range(1, 7)}),
    ("bluerov2_heavy", {f"thruster_{k}": k for k in range(1, 9)}),
    ("blueboat", {"motor_stbd": 1, "motor_port": 3}),
])
def test_mjcf_carries_curve_servo_and_ctrlrange(tmp_path, vehicle, servos):
    import mujoco

    from aurgen.emit.build import build

    build([vehicle], tmp_path)
    path = tmp_path / vehicle / f"{vehicle}.xml"
    xml = path.read_text()
    num = _numerics(xml)
    m = mujoco.MjModel.from_xml_path(str(path))
    for name, servo in servos.items():
        data = num[f"aurgen:thrust_curve:{name}"]
        pairs = list(zip(data[::2], data[1::2]))
        assert len(pairs) == 201 and [p for p, _ in pairs] == sorted(p for p, _ in pairs)
        assert dict(pairs)[1100.0] == pytest.approx(-4.07 * KGF) and dict(pairs)[1900.0] == pytest.approx(5.25 * KGF)
        assert num[f"aurgen:servo_channel:{name}"] == [float(servo)]
        # MuJoCo reads them by name, and the actuator's range is the curve's
        assert list(m.numeric(f"aurgen:thrust_curve:{name}").data) == data
        assert m.numeric(f"aurgen:servo_channel:{name}").data[0] == servo
        lo, hi = m.actuator(name).ctrlrange
        assert (lo, hi) == (pytest.approx(-4.07 * KGF, rel=1e-12), pytest.approx(5.25 * KGF, rel=1e-12))
    assert sum(k.startswith("aurgen:servo_channel:") for k in num) == len(servos)


def test_world_prefixes_the_numerics(tmp_path):
    import mujoco

    from aurgen.cli import main

    assert main(["worlds", "open_water", "-o", str(tmp_path)]) == 0
    xml = next(tmp_path.rglob("open_water.xml"))
    m = mujoco.MjModel.from_xml_path(str(xml))
    names = [m.numeric(i).name for i in range(m.nnumeric)]
    placed = sorted({n.split("/")[0] for n in names if "/aurgen:thrust_curve:" in n})
    assert placed, names
    for v in placed:
        assert f"{v}/aurgen:servo_channel:" in " ".join(names)


# ---------------------------------------------------------------- refusals


def _curve_file(tmp_path, body: str, name="c") -> Path:
    d = tmp_path / "thrust_curves"
    d.mkdir(exist_ok=True)
    p = d / f"{name}.yaml"
    p.write_text("source: test\nvoltage: 16\nunit: N\n" + body)
    return p


@pytest.mark.parametrize("points, key, words", [
    ("[[1100, -1], [1100, 0], [1900, 1]]", "points[1][0]", "not above"),
    ("[[1100, -1], [1500, 0], [1400, 1]]", "points[2][0]", "not above"),
    ("[[700, -1], [1500, 0], [1900, 1]]", "points[0][0]", "at least 800"),
    ("[[1100, -1], [1500, 0], [2300, 1]]", "points[2][0]", "at most 2200"),
    ("[[1100, -1], [1500, .nan], [1900, 1]]", "points[1][1]", "finite"),
    ("[[1100, -1], [1500, -0.5], [1900, 1]]", "points", "zero band"),
    ("[[1100, 1], [1500, 0], [1900, 1]]", "points[0]", "wrong sign"),
    ("[[1100, -1], [1500, 0], [1900, -1]]", "points[2]", "wrong sign"),
    ("[[1100, -1]]", "points", "2 to"),
    ("[[1100, -1, 3], [1500, 0], [1900, 1]]", "points[0]", "expected [pwm"),
])
def test_bad_curves_refused(tmp_path, points, key, words):
    import yaml

    p = _curve_file(tmp_path, f"points: {points}\n")
    with pytest.raises(ConfigError) as e:
        parse_curve("c", p, yaml.safe_load(p.read_text()))
    assert key in str(e.value) and words in str(e.value) and str(p) in str(e.value)


def _prop(tmp_path, drive: str) -> Path:
    p = tmp_path / "myprop.yaml"
    p.write_text("mass: 0.04\ncom: [0, 0, 0]\ncollision:\n  - {shape: cylinder, radius: 0.02, length: 0.03}\n"
                 f"drive:\n{drive}")
    return p


def test_limits_and_curve_together_refused(tmp_path):
    import yaml

    p = _prop(tmp_path, "  diameter: 0.076\n  rotation: ccw\n  thrust_curve: t200_16v\n  max_thrust: 51.5\n")
    with pytest.raises(ConfigError) as e:
        parse_part("myprop", p, yaml.safe_load(p.read_text()))
    msg = str(e.value)
    assert str(p) in msg and "drive.max_thrust" in msg and "derived from drive.thrust_curve" in msg and "drop" in msg


@pytest.mark.parametrize("ref, words", [
    ("t200_17v", "unknown thrust curve 't200_17v'"),
    ("../thrust_curves/t200_16v", "never a path"),
])
def test_unknown_or_path_curve_refused(tmp_path, ref, words):
    import yaml

    p = _prop(tmp_path, f"  diameter: 0.076\n  rotation: ccw\n  thrust_curve: {ref}\n")
    with pytest.raises(ConfigError) as e:
        parse_part("myprop", p, yaml.safe_load(p.read_text()))
    assert words in str(e.value) and "drive.thrust_curve" in str(e.value)


def test_parts_path_curve_overrides_bundled(tmp_path, monkeypatch):
    """A curve in $AURGEN_PARTS_PATH's thrust_curves/ wins over the bundled one, as a part type does."""
    from aurgen.config.catalog import catalog_for

    _curve_file(tmp_path, "points: [[1100, -10], [1500, 0], [1900, 20]]\n", name="t200_16v")
    monkeypatch.setenv("AURGEN_PARTS_PATH", str(tmp_path))
    d = catalog_for(None).get("t200_prop_ccw").drive
    assert (d.min_thrust, d.max_thrust) == (-10.0, 20.0)
