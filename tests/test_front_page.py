"""The README is a front page whose claims are checked: at most 250 lines, at least three figures
(each a file docs/figures.py renders), links into files that exist, and the bundled vehicles' table
held to what the vehicles compose to (mass from ``aurgen specs --json``, thrusters and ArduPilot
frame from the ``<vehicle>_sitl.parm`` the build writes, packs and sensors from the parts)."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import pytest

from aurgen.cli import main

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
WORDS = {"two": 2, "four": 4, "six": 6, "eight": 8}


def test_the_readme_is_a_front_page():
    lines = README.splitlines()
    assert len(lines) <= 250, len(lines)
    images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", README)
    assert len(images) >= 3, images
    for img in images:
        assert img.startswith("docs/img/") and (ROOT / img).is_file(), img


def test_every_readme_link_names_a_file_of_the_repository():
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README):
        if target.startswith(("http://", "https://")):
            continue
        assert (ROOT / target).exists(), target


def _rows():
    """{vehicle: its row's text} from the README's table of bundled vehicles."""
    rows = dict(re.findall(r"^\| !\[[^\]]*\]\([^)]+\) \| \*\*`(\w+)`\*\*: (.+) \|$", README, re.M))
    assert set(rows) == {"blueboat", "bluerov2", "bluerov2_heavy", "blueboat_hullmesh"}, rows
    return rows


def _specs(name: str) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["specs", name, "--json"]) == 0
    return json.loads(out.getvalue())


@pytest.mark.parametrize("name", ["blueboat", "bluerov2", "bluerov2_heavy"])
def test_the_vehicle_table_says_what_the_vehicles_compose_to(name, tmp_path, monkeypatch):
    row = _rows()[name]
    specs = _specs(name)
    mass = re.search(r"([\d.]+) kg", row)
    assert mass and float(mass.group(1)) == pytest.approx(specs["total_mass"], abs=10 ** -len(mass.group(1).split(".")[1]))
    monkeypatch.chdir(tmp_path)
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["build", f"{name}.yaml"]) == 0
    parm = (tmp_path / "build" / name / f"{name}_sitl.parm").read_text()
    firmware, frame = re.search(r"sim_vehicle\.py -v (\w+) -f ([\w-]+)", parm).groups()
    thrusters = len(re.findall(r"^SERVO\d+_FUNCTION ", parm, re.M))
    count = re.search(r"\b(two|six|eight)\b (?:T200 )?thrusters", row)
    assert count and WORDS[count.group(1)] == thrusters, (row, thrusters)
    if firmware == "Rover":
        assert "ArduRover, skid steering" in row and frame == "rover-skid"
    else:
        assert f"ArduSub `{frame}`" in row
    if "neutral in sea water" in row:
        assert specs["net_buoyancy"] == pytest.approx(0.0, abs=1e-9) and specs["fluid_density"] == 1025.0
    types = [p["type"] for p in specs["parts"]]
    if "two 18 Ah packs" in row:
        assert types.count("br_liion_18ah") == 2, types
    if "Ping2 echosounder" in row:
        assert "ping_singlebeam" in types, types
    mjcf = (tmp_path / "build" / name / f"{name}.xml").read_text()
    if "published thrust curve" in row:
        assert mjcf.count('name="aurgen:thrust_curve:') == thrusters
    if "the Heavy's published added mass" in row:
        heavy = tmp_path / "build" / "bluerov2_heavy" / "bluerov2_heavy.xml"
        with contextlib.redirect_stdout(io.StringIO()):
            assert main(["build", "bluerov2_heavy.yaml"]) == 0
        added = re.compile(r'<numeric name="aurgen:added_mass:base_link"[^>]*data="([^"]+)"')
        assert added.search(mjcf).group(1) == added.search(heavy.read_text()).group(1)


def test_the_hull_mesh_row_is_the_blueboat_on_a_mesh():
    assert "mesh" in _rows()["blueboat_hullmesh"]
    specs, boat = _specs("blueboat_hullmesh"), _specs("blueboat")
    assert specs["total_mass"] == boat["total_mass"]
    assert re.search(r"hull_displacement:\s*\{?\s*mesh:", (ROOT / "vehicles" / "blueboat_hullmesh.yaml").read_text())
