"""A world's sea (``waves:``, docs/config.md "Waves"): each refusal names the file, the key and what
to do; the synthesised block travels into the world MJCF's environment JSON; worlds without a sea
write what they always did."""

from __future__ import annotations

import json

import mujoco
import numpy as np
import pytest
from lxml import etree

from aurgen.config import world as world_config
from aurgen.core.errors import ConfigError
from aurgen.emit import worlds
from aurgen.runtime.environment import schema as envmod
from aurgen.runtime.environment import waves

SEA = """\
planes:
  surface: {normal: [0, 0, 1], offset: 0.0}
  seabed: {normal: [0, 0, 1], offset: -30.0}
cells:
  air: {above: [surface], density: 1.225}
  water: {below: [surface], above: [seabed], density: 1025.0}
ground: seabed
waves:
  surface: surface
  spectrum: jonswap
  hs: 1.0
  tp: 5.0
  seed: 1
  direction: 30
  ramp: 10
"""
REGULAR = SEA.replace("spectrum: jonswap\n  hs: 1.0\n  tp: 5.0\n  seed: 1\n",
                      "spectrum: regular\n  height: 0.4\n  period: 3.0\n")


def _load(tmp_path, text, name="w.yaml"):
    p = tmp_path / name
    p.write_text(text)
    return world_config.load_world(p)


def test_the_sea_is_synthesised_with_the_seabeds_depth(tmp_path):
    w = _load(tmp_path, SEA)
    want = waves.synthesize({"spectrum": "jonswap", "hs": 1.0, "tp": 5.0, "seed": 1, "direction": 30.0,
                             "ramp": 10.0, "surface": 0}, [0, 0, 1], 9.81, 30.0)
    assert w.waves.depth == 30.0 and w.waves.ramp == 10.0 and w.waves.surface == 0
    assert w.waves.components.tobytes() == want.components.tobytes()
    env = world_config.environment(w)
    assert list(env) == ["planes", "cells", "gravity", "waves"] and env["waves"] == want.block()
    assert envmod.parse(world_config.environment_json(w)).waves.components.tobytes() == want.components.tobytes()


def test_depth_default_explicit_and_deep(tmp_path):
    assert _load(tmp_path, SEA.replace("ramp: 10", "ramp: 10\n  depth: 12.5")).waves.depth == 12.5
    deep = SEA.replace("  seabed: {normal: [0, 0, 1], offset: -30.0}\n", "").replace(", above: [seabed]", "") \
        .replace("ground: seabed\n", "")
    assert _load(tmp_path, deep).waves.depth is None
    # a seabed given with its normal facing down (the water on its -1 side) is still 30 m down
    flipped = SEA.replace("seabed: {normal: [0, 0, 1], offset: -30.0}", "seabed: {normal: [0, 0, -1], offset: 30.0}") \
        .replace("above: [seabed]", "below: [surface, seabed]").replace("below: [surface], ", "")
    assert _load(tmp_path, flipped).waves.depth == 30.0
    # vertical walls do not bound the water from below
    walls = SEA.replace("  seabed:", "  wall: {normal: [1, 0, 0], offset: 50.0}\n  seabed:") \
        .replace("above: [seabed]", "above: [seabed], below: [surface, wall]").replace("below: [surface], ", "")
    assert _load(tmp_path, walls).waves.depth == 30.0


def test_a_regular_wave(tmp_path):
    w = _load(tmp_path, REGULAR)
    (a, omega, kx, ky, kz, phase), = w.waves.components
    k = 2 * np.pi / 3.0
    assert (a, omega, phase) == (0.2, k, 0.0) and kz == 0.0
    assert np.arctan2(ky, kx) == pytest.approx(np.radians(30), abs=1e-15)
    assert w.waves.warning is None
    steep = _load(tmp_path, REGULAR.replace("height: 0.4", "height: 1.5"))
    assert "steeper than 1/10" in steep.waves.warning and "waves.height" in steep.waves.warning


def _edit(text, old, new):
    assert old in text, old
    return text.replace(old, new)


CASES = [
    # (base, old, new, the key and words expected)
    (SEA, "spectrum: jonswap", "spectrum: bretschneider", r":10: waves\.spectrum: must be one of regular, "
                                                          r"pierson_moskowitz, jonswap, got 'bretschneider'"),
    (SEA, "  spectrum: jonswap\n", "", r"waves\.spectrum: required key is missing"),
    (SEA, "  surface: surface\n", "", r"waves\.surface: required key is missing"),
    (SEA, "seed: 1", "seed: 1\n  colour: blue", r"waves\.colour: unknown key"),
    (SEA, "seed: 1", "seed: 1\n  height: 1.0", r"waves\.height: only for spectrum regular \(use hs for an "
                                               r"irregular sea\)"),
    (SEA, "seed: 1", "seed: 1\n  period: 5.0", r"waves\.period: only for spectrum regular \(use tp for an "
                                               r"irregular sea\)"),
    (SEA.replace("jonswap", "pierson_moskowitz"), "seed: 1", "seed: 1\n  gamma: 2.0",
     r"waves\.gamma: only for spectrum jonswap"),
    (REGULAR, "period: 3.0", "period: 3.0\n  hs: 1.0", r"waves\.hs: only for an irregular sea \(spectrum "
                                                       r"pierson_moskowitz or jonswap\) \(use height for a regular"),
    (REGULAR, "period: 3.0", "period: 3.0\n  tp: 5.0", r"waves\.tp: only for an irregular sea .*use period"),
    (REGULAR, "period: 3.0", "period: 3.0\n  components: 8", r"waves\.components: only for an irregular sea"),
    (REGULAR, "period: 3.0", "period: 3.0\n  seed: 3", r"waves\.seed: only for an irregular sea"),
    (REGULAR, "period: 3.0", "period: 3.0\n  spreading: 4", r"waves\.spreading: only for an irregular sea"),
    (REGULAR, "  height: 0.4\n", "", r"waves\.height: required for spectrum regular"),
    (SEA, "  tp: 5.0\n", "", r"waves\.tp: required for spectrum jonswap"),
    (REGULAR, "height: 0.4", "height: -0.4", r"waves\.height: must be positive, got -0\.4"),
    (REGULAR, "height: 0.4", "height: big", r"waves\.height: expected a number, got"),
    (REGULAR, "period: 3.0", "period: 0", r"waves\.period: must be positive, got 0"),
    (SEA, "hs: 1.0", "hs: -1", r"waves\.hs: must be positive"),
    (SEA, "tp: 5.0", "tp: [5]", r"waves\.tp: expected a number"),
    (SEA, "seed: 1", "seed: 1\n  gamma: 0.5", r"waves\.gamma: 0\.5 is out of range: at least 1"),
    (SEA, "seed: 1", "seed: 1\n  gamma: 9", r"waves\.gamma: 9 is out of range: at most 7"),
    (SEA, "seed: 1", "seed: 1\n  components: 257", r"waves\.components: expected a whole number of components "
                                                   r"from 1 to 256, got 257"),
    (SEA, "seed: 1", "seed: 1\n  components: 0", r"waves\.components: expected a whole number .* got 0"),
    (SEA, "seed: 1", "seed: 1\n  components: 6.5", r"waves\.components: expected a whole number .* got 6\.5"),
    (SEA, "seed: 1", "seed: -1", r"waves\.seed: expected a whole number of seed from 0"),
    (SEA, "seed: 1", "seed: true", r"waves\.seed: expected a whole number"),
    (SEA, "seed: 1", "seed: 1\n  spreading: 0", r"waves\.spreading: must be positive"),
    (SEA, "direction: 30", "direction: north", r"waves\.direction: expected a number"),
    (SEA, "direction: 30", "direction: 1000", r"waves\.direction: 1000 is out of range: at most 360"),
    (SEA, "ramp: 10", "ramp: -1", r"waves\.ramp: must not be negative, got -1"),
    (SEA, "ramp: 10", "ramp: 10\n  depth: 0", r"waves\.depth: must be positive, got 0"),
    (SEA, "surface: surface\n  spectrum", "surface: surfase\n  spectrum",
     r"waves\.surface: unknown plane 'surfase' \(did you mean 'surface'\?\)"),
    (SEA, "surface: surface\n  spectrum", "surface: seabed\n  spectrum",
     r"waves\.surface: plane 'seabed' does not bound the water cell 'water' from above"),
    (SEA, "surface: surface\n  spectrum", "surface: 0\n  spectrum", r"waves\.surface: expected a name"),
    (SEA, "waves:\n", "gravity: [0, 0, 9.81]\nwaves:\n",
     r"waves: a sea needs uniform gravity along -n of its surface plane 'surface' \(n = \[0\.0, 0\.0, 1\.0\]\)"),
    (SEA, "waves:\n", "gravity: {type: central, mu: 3.986e14, centre: [0, 0, -6.371e6]}\nwaves:\n",
     r"waves: a sea needs uniform gravity"),
    (SEA, "density: 1025.0}", "density: 1025.0, gravity: [0, 0, -9.81]}", r"waves: a sea needs uniform gravity"),
    (SEA, "offset: -30.0}", "offset: -30.0}\n  slope: {normal: [0.1, 0, 0.995], offset: -40.0}",
     None),  # a sloping plane beside a level seabed: the seabed's depth
    (SEA.replace("  seabed: {normal: [0, 0, 1], offset: -30.0}", "  seabed: {normal: [0.1, 0, 0.995], offset: -30.0}"),
     "ramp: 10", "ramp: 10", r"waves\.depth: the water's bottom \(plane 'seabed'\) is not parallel to the surface, "
                            r"so its depth is not one number \(declare depth"),
    (REGULAR, "height: 0.4", "height: 2.2", r"waves\.height: H/lambda = 0\.1566 \(H 2\.2 m, T 3 s\) is beyond the "
                                            r"breaking limit 1/7"),
    (SEA, "hs: 1.0", "hs: 6.0", r"waves\.hs: hs/lambda_p = 0\.15\d* \(hs 6 m, tp 5 s\) is beyond the breaking "
                                r"limit 1/7"),
    (SEA, "ramp: 10\n", "ramp: 10\n  surface: surface\n", r"surface: duplicate key"),
    (SEA, SEA[SEA.index("waves:"):], "waves: 3\n", r"waves: expected a mapping"),
]


@pytest.mark.parametrize("case", range(len(CASES)), ids=[c[3] and c[3][:50] or "accepted" for c in CASES])
def test_each_bad_declaration_is_refused_naming_the_file_and_key(tmp_path, case):
    base, old, new, pattern = CASES[case]
    text = _edit(base, old, new)
    if pattern is None:
        assert _load(tmp_path, text).waves.depth == 30.0
        return
    with pytest.raises(ConfigError, match=pattern) as exc:
        _load(tmp_path, text)
    assert str(tmp_path / "w.yaml") in str(exc.value)


def test_a_world_without_a_sea_writes_what_it_always_did(tmp_path):
    text = SEA[:SEA.index("waves:")]
    w = _load(tmp_path, text)
    assert w.waves is None and "waves" not in world_config.environment(w)
    ow = world_config.load_world("open_water")
    assert ow.waves is None and set(world_config.environment(ow)) == {"planes", "cells", "gravity"}


def _mjcf_environment(text: str) -> dict:
    root = etree.fromstring(text.encode())
    (node,) = root.findall(".//custom/text[@name='aurgen:environment']")
    return json.loads(node.get("data"))


def test_the_block_is_in_the_world_mjcf(tmp_path):
    w = _load(tmp_path, SEA, "sea.yaml")
    text = worlds.render_mjcf(w, [])
    env = _mjcf_environment(text)
    assert env == world_config.environment(w) and env["waves"] == w.waves.block()
    got = np.array(env["waves"]["components"])
    assert got.tobytes() == w.waves.components.tobytes()  # floats written losslessly


def test_the_world_mjcf_with_a_sea_compiles_with_the_plugin(tmp_path):
    """Needs the plugin that knows waves (aurgen.runtime._native.ENV_KEYS["waves"]): the world's
    self-check compiles it with the BlueBoat in it (the plugin reads the environment then)."""
    path = tmp_path / "sea.yaml"
    path.write_text(SEA + "vehicles:\n  - {config: blueboat.yaml, xyz: [0, 0, 0.05]}\n")
    worlds.write_worlds([str(path)], tmp_path / "out")
    xml = tmp_path / "out" / "worlds" / "sea.xml"
    m = mujoco.MjModel.from_xml_path(str(xml))
    d = mujoco.MjData(m)
    mujoco.mj_step(m, d)
    w = world_config.load_world(path)
    assert _mjcf_environment(xml.read_text()) == world_config.environment(w)


def test_open_sea_is_sea_state_3():
    w = world_config.load_world("open_sea")
    assert w.waves is not None and w.waves.depth == 30.0 and w.waves.ramp == 10.0
    assert len(w.waves.components) == 64
    hs = 4.0 * np.sqrt(0.5 * np.sum(w.waves.components[:, 0] ** 2))
    assert 0.5 <= hs <= 1.25  # WMO sea state 3
    assert [p.xyz for p in w.placements] == [(0.0, 0.0, 0.05), (5.0, 0.0, -3.0)]
    ow = world_config.load_world("open_water")
    assert (w.planes, w.cells, w.ground, w.gravity) == (ow.planes, ow.cells, ow.ground, ow.gravity)
