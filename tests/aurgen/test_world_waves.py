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

SHALLOW = REGULAR.replace("offset: -30.0", "offset: -10.0")  # 10 m of water
SHALLOW_SEA = SEA.replace("offset: -30.0", "offset: -10.0")
# a sea on the halocline between water and the denser brine under it (the world's densest cell)
BRINE = SEA.replace("  seabed:", "  halocline: {normal: [0, 0, 1], offset: -5.0}\n  seabed:") \
    .replace("water: {below: [surface], above: [seabed], density: 1025.0}",
             "water: {below: [surface], above: [halocline], density: 1025.0}\n"
             "  brine: {below: [halocline, surface], above: [seabed], density: 1200.0}") \
    .replace("surface: surface\n  spectrum", "surface: halocline\n  spectrum")


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
    shallow = _load(tmp_path, SEA.replace("ramp: 10", "ramp: 10\n  depth: 12.5")).waves
    assert shallow.depth == 12.5
    # shallower than the seabed: noted, naming both figures and the plane (issue 37: taken with no note)
    assert "waves.depth: 12.5 m is shallower than the water (30 m down to plane 'seabed')" in shallow.warning
    assert "grows again with depth" in shallow.warning
    same = _load(tmp_path, SEA.replace("ramp: 10", "ramp: 10\n  depth: 30")).waves
    assert same.depth == 30.0 and same.warning is None
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
    # shorter than the environment's omega limit (1000 rad/s): named at the world's key, not a component's
    (REGULAR, "period: 3.0", "period: 0.005", r"waves\.period: 0\.005 is out of range: at least 0\.00628"),
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
    (SEA, "ramp: 10", "ramp: 10\n  fk: fast", r":16: waves\.fk: must be one of exact, moments, got 'fast'"),
    (SEA, "ramp: 10", "ramp: 10\n  fk_tolerance: 1", r"waves\.fk_tolerance: 1 is out of range: at most 0\.1"),
    # issue 37: a trough below the seabed, a dispersion depth below it, a sea on a liquid interface
    (SHALLOW, "height: 0.4\n  period: 3.0", "height: 22\n  period: 25",
     r":11: waves\.height: a trough H/2 = 11 m below the mean level reaches the bottom 10 m down \(plane "
     r"'seabed'\): the water column would vanish under it \(lower height below 20 m"),
    (SHALLOW, "height: 0.4\n  period: 3.0", "height: 20.01\n  period: 25", r"waves\.height: a trough H/2 = 10\.005 m"),
    (SHALLOW, "height: 0.4\n  period: 3.0", "height: 19.99\n  period: 25", 10.0),
    (SHALLOW_SEA, "hs: 1.0\n  tp: 5.0", "hs: 11.0\n  tp: 16.0",
     r"waves\.hs: its deepest trough, 10\.\d+ m below the mean level \(3\.72 sigma: the most probable deepest of "
     r"1000 troughs, sigma = sqrt\(m0\) = 2\.7\d+ m of its components\), reaches the bottom 10 m down"),
    (SHALLOW_SEA, "hs: 1.0\n  tp: 5.0", "hs: 16.0\n  tp: 16.0\n  components: 3",
     r"waves\.hs: its deepest trough, 10\.15 m below the mean level \(the sum of its 3 amplitudes: the deepest "
     r"it can reach\), reaches the bottom 10 m down"),
    # 4 components: 3.72 sigma is 13.4 m, but their amplitudes sum to 9.33 m: its surface never reaches the bottom
    (SHALLOW_SEA, "hs: 1.0\n  tp: 5.0", "hs: 16.0\n  tp: 16.0\n  components: 4", 10.0),
    (SHALLOW_SEA, "hs: 1.0\n  tp: 5.0", "hs: 8.0\n  tp: 16.0", 10.0),  # 3.72 sigma = 7.4 m: above the bottom
    (SEA, "ramp: 10", "ramp: 10\n  depth: 1000",
     r":16: waves\.depth: 1000 m is deeper than the water: plane 'seabed' bounds it 30 m under the surface, .*"
     r"\(omit depth \(the water's 30 m is the default\), or lower plane 'seabed'\)"),
    (SEA, "ramp: 10", "ramp: 10\n  depth: 30.001", r"waves\.depth: 30\.001 m is deeper than the water"),
    (SEA.replace("seabed: {normal: [0, 0, 1], offset: -30.0}", "seabed: {normal: [0.1, 0, 0.995], offset: -30.0}"),
     "ramp: 10", "ramp: 10\n  depth: 1.0e+4", 1e4),  # a sloping bottom has no one depth: any is taken
    (BRINE, "ramp: 10", "ramp: 10",
     r":11: waves\.surface: plane 'halocline' has cell 'water' \(1025 kg/m\^3, not a gas\) above it: waves there "
     r"are on an interface between two fluids, which disperse with the reduced gravity g \(rho2 - rho1\)/\(rho2 \+ "
     r"rho1\), not the free surface's g \(a sea moves a free surface only: .*cells below 10 kg/m\^3"),
    (BRINE, "density: 1025.0}", "density: 10.0}", r"plane 'halocline' has cell 'water' \(10 kg/m\^3, not a gas\)"),
    (BRINE, "density: 1025.0}", "density: 9.99}", 25.0),  # a dense gas over the brine: a free surface
    (SEA, SEA[SEA.index("waves:"):], "waves: 3\n", r"waves: expected a mapping"),
]


@pytest.mark.parametrize("case", range(len(CASES)), ids=[c[3][:50] if isinstance(c[3], str) else "accepted" for c in CASES])
def test_each_bad_declaration_is_refused_naming_the_file_and_key(tmp_path, case):
    base, old, new, pattern = CASES[case]
    text = _edit(base, old, new)
    if pattern is None or isinstance(pattern, float):  # accepted: at the seabed's depth, or the one given
        assert _load(tmp_path, text).waves.depth == (30.0 if pattern is None else pattern)
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


# ---------------------------------------------------------------- issue 37: hostile seas at the CLI

@pytest.mark.parametrize("text,needle", [
    (_edit(SHALLOW, "height: 0.4\n  period: 3.0", "height: 22\n  period: 25"), "waves.height: a trough H/2 = 11 m"),
    (_edit(SEA, "ramp: 10", "ramp: 10\n  depth: 1000"), "waves.depth: 1000 m is deeper than the water"),
    (BRINE, "waves.surface: plane 'halocline' has cell 'water'"),
], ids=["trough", "depth", "interface"])
def test_a_hostile_sea_is_refused_at_the_cli_and_nothing_written(tmp_path, capsys, text, needle):
    from aurgen.cli import main

    path = tmp_path / "hostile.yaml"
    path.write_text(text + "vehicles:\n  - {config: blueboat.yaml, xyz: [0, 0, 0.05]}\n")
    out = tmp_path / "out"
    assert main(["worlds", str(path), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 1, err
    assert f"{path}:" in err and needle in err, err
    assert not out.exists()


def test_the_gas_threshold_is_the_runtimes():
    from aurgen.runtime.sim import forces

    assert world_config.GAS_DENSITY == forces.GAS_DENSITY


def test_a_free_surface_with_nothing_above_takes_a_sea(tmp_path):
    text = SEA.replace("  air: {above: [surface], density: 1.225}\n", "")
    assert _load(tmp_path, text).waves.depth == 30.0


def test_open_waters_sea_refuses_a_trough_below_its_declared_depth():
    """The gym's and the sweep's open water (aurgen.analysis.sea) has no seabed: a declared depth is its bottom."""
    from aurgen.analysis.sea import sea_of

    with pytest.raises(ConfigError, match=r"sea\.height: a trough H/2 = 6 m below the mean level reaches the bottom "
                                          r"5 m down \(the declared depth\)"):
        sea_of({"spectrum": "regular", "height": 12.0, "period": 20.0, "depth": 5.0}, prefix="sea")
    assert sea_of({"spectrum": "regular", "height": 1.0, "period": 20.0, "depth": 5.0}).depth == 5.0


# a displacement box (user 1: the plugin's mark), tilted, cut by the surface
BOX = """<mujoco><size nuser_geom="1"/><worldbody><body name="b" pos="0.1 -0.2 0.02" quat="0.98 0.1 0.15 0">
<freejoint/><geom name="hull" type="box" size="0.5 0.3 0.2" mass="40" user="1"/></body></worldbody></mujoco>"""


def _passive(env: dict):
    from aurgen.runtime.sim import Simulation

    sim = Simulation(BOX, environment=env)
    d = mujoco.MjData(sim.model)
    d.time = 3.7
    mujoco.mj_forward(sim.model, d)
    out = d.qfrc_passive.copy()
    sim.close()
    return out


def test_fk_rides_on_the_sea_to_the_plugin_as_declared(tmp_path):
    """waves.fk and waves.fk_tolerance, a world's and open water's (the gym's sea=, the time domain's
    waves): in the environment JSON only when declared, and the plugin integrates what they say. The
    force with fk: exact declared through the sea is bitwise the one of the same components with fk
    written into the JSON by hand, and differs from the default's (the moments, a 3-component sea)."""
    from aurgen.analysis.sea import sea_of
    from aurgen.analysis.timedomain import environment_of

    w = _load(tmp_path, SEA + "  fk: exact\n  fk_tolerance: 1.0e-6\n")
    block = world_config.environment(w)["waves"]
    assert (block["fk"], block["fk_tolerance"]) == ("exact", 1e-6)
    parsed = envmod.parse(world_config.environment_json(w)).waves
    assert (parsed.fk, parsed.fk_tolerance) == ("exact", 1e-6)
    decl = {"spectrum": "jonswap", "hs": 0.5, "tp": 3.0, "components": 3, "seed": 2}
    plain = environment_of(1025.0, (0, 0, 0), (0, 0, 0), sea_of(decl))
    assert "fk" not in plain["waves"] and "fk_tolerance" not in plain["waves"]
    exact = environment_of(1025.0, (0, 0, 0), (0, 0, 0), sea_of({**decl, "fk": "exact"}))
    by_hand = json.loads(json.dumps(plain))
    by_hand["waves"]["fk"] = "exact"
    assert exact == by_hand
    f_default, f_exact, f_hand = _passive(plain), _passive(exact), _passive(by_hand)
    assert np.array_equal(f_exact, f_hand) and not np.array_equal(f_exact, f_default)
    assert np.abs(f_exact - f_default).max() <= 1e-3 * np.abs(f_exact).max()  # the moments' bound, loosely
    with pytest.raises(ConfigError, match=r"sea\.fk: must be one of exact, moments, got 'fast'"):
        sea_of({**decl, "fk": "fast"}, prefix="sea")
    with pytest.raises(ConfigError, match=r"sea\.fk_tolerance: 0 is out of range: at least 1e-12"):
        sea_of({**decl, "fk_tolerance": 0}, prefix="sea")
