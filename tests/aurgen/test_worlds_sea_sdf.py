"""A world with a sea in Gazebo: its SDF is still water, says so in a comment, and ``aurgen worlds``
notes it once (no Gazebo system we can declare carries the sea: aurgen/emit/worlds.py, the comment
above ``still_water_comment``, cites the sources read).

References independent of the emitter: libsdformat loading the world (test_worlds.world_checker),
lxml reading the comment, the significant height 4 sqrt(m0) computed here from the components the
MJCF world's environment JSON carries, the steepness H / lambda of a regular deep-water wave written
here (lambda = g T^2 / 2 pi), and ``aurgen audit`` of the built tree.
"""

from __future__ import annotations

import io
import json
import math
from contextlib import redirect_stderr, redirect_stdout

import pytest
from lxml import etree

from aurgen.cli import main

from test_worlds import world_checker  # noqa: F401  (the libsdformat fixture)

STEEP = """\
description: a steep regular sea
timestep: 0.002
gravity: [0, 0, -9.81]
planes:
  surface: {normal: [0, 0, 1], offset: 0.0}
cells:
  air: {above: [surface], density: 1.225}
  water: {below: [surface], density: 1025.0}
waves: {surface: surface, spectrum: regular, height: 0.75, period: 2.0}
vehicles:
  - {config: blueboat.yaml, xyz: [0, 0, 0.05]}
"""


def _main(args):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        rc = main([str(a) for a in args])
    return rc, out.getvalue(), err.getvalue()


def _comments(sdf_path):
    tree = etree.parse(str(sdf_path))
    return [c.text for c in tree.getroot().iter(etree.Comment)]


def _components(mjcf_path):
    root = etree.parse(str(mjcf_path)).getroot()
    text = root.find(".//custom/text[@name='aurgen:environment']").get("data")
    return json.loads(text)["waves"]["components"]


@pytest.fixture(scope="module")
def open_sea(tmp_path_factory):
    out = tmp_path_factory.mktemp("sea") / "build"
    rc, stdout, err = _main(["worlds", "open_sea", "-o", out])
    assert rc == 0, err
    return out, err


def test_open_sea_sdf_is_still_water_said_once_and_loads(open_sea, world_checker):  # noqa: F811
    out, err = open_sea
    notes = [line for line in err.splitlines() if line.startswith("aurgen: note:")]
    assert len(notes) == 1, err
    assert "open_sea" in notes[0] and "still water" in notes[0] and "the MJCF world carries the sea" in notes[0]
    sdf = out / "worlds" / "open_sea.sdf"
    ok, models, output = world_checker(sdf, out)
    assert ok, output
    assert set(models) >= {"blueboat", "bluerov2"}
    still = [c for c in _comments(sdf) if "still water" in c]
    assert len(still) == 1
    text = still[0]
    comps = _components(out / "worlds" / "open_sea.xml")
    hs = 4.0 * math.sqrt(sum(c[0] ** 2 for c in comps) / 2.0)
    assert f"{len(comps)} components" in text and len(comps) == 64
    assert f"4 sqrt(m0) {hs:.4g} m" in text and "ramp 10 s" in text and "depth 30 m" in text
    assert "Buoyancy" in text and "VRX" in text and "asv_wave_sim" in text and "MJCF world carries the sea" in text
    assert "open_sea" not in text and "surface" not in text  # numbers and fixed words only, no name from the input
    # the rest of the SDF is what a still world writes: no wave element a Gazebo system would read
    assert not etree.parse(str(sdf)).getroot().findall(".//wavefield")


def test_the_built_tree_audits_clean(open_sea):
    out, _ = open_sea
    rc, text, err = _main(["audit", out])
    assert rc == 0 and "clean" in text, text + err


def test_a_steep_sea_warning_is_a_note_too(tmp_path, world_checker):  # noqa: F811
    p = tmp_path / "steep.yaml"
    p.write_text(STEEP)
    rc, _, err = _main(["worlds", p, "-o", tmp_path / "out"])
    assert rc == 0, err
    notes = [line for line in err.splitlines() if line.startswith("aurgen: note:")]
    steep = 0.75 / (9.81 * 2.0 ** 2 / (2 * math.pi))  # H / lambda, deep water
    assert 0.1 < steep < 1 / 7
    warned = [n for n in notes if "steeper than 1/10" in n]
    assert len(warned) == 1 and f"{steep:.4g}" in warned[0] and str(p) in warned[0]
    assert len([n for n in notes if "still water" in n]) == 1 and len(notes) == 2, notes
    sdf = tmp_path / "out" / "worlds" / "steep.sdf"
    ok, _, output = world_checker(sdf, tmp_path / "out")
    assert ok, output
    text = [c for c in _comments(sdf) if "still water" in c][0]
    assert "1 component on plane 0" in text and f"{2 * math.pi / 2.0:.4g} rad/s" in text and "deep water" in text
