"""Hostile input numbers and shapes (issue 22, items 3 and 5): strict numbers, no traceback, no hang.

Numbers in configs follow the YAML 1.2 core schema, also inside strings (``xyz: "x y z"``) and under
an explicit ``!!int``/``!!float`` tag: ASCII digits, signs, point and exponent only, words split on
ASCII whitespace. Python's ``float``/``int`` read ``1_0`` as 10, Arabic-Indic and full-width digits,
and split on a no-break space: each of those was a quietly different vehicle before. The runtime's
API takes no bool or string for a number (``water=True`` was water of density 1) and refuses a step
count the binding cannot take with the documented ``ValueError``.

Each CLI case is refused with exit 2, one line naming the file (and line) and key, no traceback, and
nothing written (the fingerprint of the whole tree unchanged; test_hostile.run_refused).
"""

from __future__ import annotations

import math
import os
import struct
import subprocess
import sys

import numpy as np
import pytest

from aurgen.core import yamlio
from aurgen.core.errors import ConfigError
from test_hostile import BOAT, HULL, W, WIDGET, _world, ENV_OK, good_build, run_refused  # noqa: F401 (fixture)

def _id(v) -> str:
    """A test id for any parameter (an int of 5,000 digits has no str())."""
    if isinstance(v, int) and not isinstance(v, bool) and abs(v) > 10 ** 30:
        return f"int{v.bit_length()}bits"
    if isinstance(v, list):
        return "-".join(map(_id, v))
    if isinstance(v, dict):
        return "-".join(f"{k}{_id(x)}" for k, x in v.items())
    return str(v)[:30]


PART = "parts:\n  - {type: basestation_antenna, name: r, parent: base_link, xyz: XYZ}\n"


def _part(xyz: str) -> dict:
    return {"v.yaml": BOAT + PART.replace("XYZ", xyz)}


def _stl(*triangles) -> bytes:
    body = b"".join(struct.pack("<12fH", 0, 0, 0, *(c for pt in tri for c in pt), 0) for tri in triangles)
    return b"\0" * 80 + struct.pack("<I", len(triangles)) + body


def _tetra(p0, p1, p2, p3) -> bytes:
    """A closed tetrahedron (watertight, outward faces for a proper one)."""
    return _stl((p0, p2, p1), (p0, p1, p3), (p1, p2, p3), (p0, p3, p2))


FLAT_TETRA = _tetra((0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0))  # closed, every vertex in z = 0
OPEN_BOWL = _stl(((0, 0, 0), (1, 0, 0), (0, 1, 0)), ((0, 0, 0), (0, 1, 0), (0, 0, 1)),
                 ((0, 0, 0), (0, 0, 1), (1, 0, 0)))  # three faces of a tetrahedron: no lid
FLAT_SHEET = _stl(((0, 0, 0), (1, 0, 0), (0, 1, 0)), ((1, 0, 0), (1, 1, 0), (0, 1, 0)))
LINK = "mass: 0.01\ninertia: {ixx: 1e-4, iyy: 1e-4, izz: 1e-4}\nslots: {next: {xyz: [0, 0, 0.001]}}\n"


def _chain(n: int) -> str:
    lines = [BOAT.rstrip("\n"), "parts:", "  - {type: link, name: l0, parent: base_link, xyz: [0, 0, 0]}"]
    lines += [f"  - {{slot: next, of: l{i - 1}, type: link, name: l{i}}}" for i in range(1, n)]
    return "\n".join(lines) + "\n"


def _free_chain(n: int) -> str:
    lines = [BOAT.rstrip("\n"), "parts:", "  - {type: link, name: l0, parent: base_link, xyz: [0, 0, 0]}"]
    lines += [f"  - {{type: link, name: l{i}, parent: l{i - 1}, xyz: [0, 0, 0.001]}}" for i in range(1, n)]
    return "\n".join(lines) + "\n"


def _default_chain(n: int, first: int = 0) -> dict:
    """Catalog parts p<first>..p<n-1>, each with a slot whose default is the next: a chain no config names."""
    out = {}
    for i in range(first, n):
        slot = f"slots: {{s: {{xyz: [0, 0, 0.001], default: p{i + 1}}}}}\n" if i < n - 1 else ""
        out[f"parts/p{i}.yaml"] = "mass: 0.01\ninertia: {ixx: 1e-4, iyy: 1e-4, izz: 1e-4}\n" + slot
    return out


# (id, files, argv (None: build v.yaml -o out), substrings of the one-line message)
CASES = [
    # ---- "x y z" strings: each word a YAML 1.2 number (Python's float read all of these)
    ("xyz-underscore", _part("'1_0 0 1'"), None, ["v.yaml:5:", "parts[0].xyz", "'1_0'", "no '_'"]),
    ("xyz-underscore-exponent", _part("'1e1_0 0 1'"), None, ["v.yaml:5:", "parts[0].xyz", "no '_'"]),
    ("xyz-arabic-indic", _part("'١ 0 1'"), None, ["v.yaml:5:", "parts[0].xyz", "U+0661", "not an ASCII digit"]),
    ("xyz-full-width", _part("'１ 0 1'"), None, ["v.yaml:5:", "parts[0].xyz", "U+FF11"]),
    ("xyz-devanagari", _part("'० 0 1'"), None, ["v.yaml:5:", "parts[0].xyz", "U+0966"]),
    ("xyz-no-break-space", _part('"1\\u00a00 1"'), None, ["v.yaml:5:", "parts[0].xyz", "U+00A0"]),
    ("xyz-ideographic-space", _part('"1\\u30000 1"'), None, ["v.yaml:5:", "parts[0].xyz", "U+3000"]),
    ("xyz-em-space-sep", _part('"1\\u20030\\u20031"'), None, ["v.yaml:5:", "parts[0].xyz", "U+2003"]),
    ("xyz-true-word", _part("'true 0 1'"), None, ["parts[0].xyz", "'true' is not a number"]),
    ("xyz-yes-word", _part("'1 0 yes'"), None, ["parts[0].xyz", "'yes' is not a number"]),
    ("xyz-infinity-word", _part("'Infinity 0 1'"), None, ["parts[0].xyz", "'Infinity' is not a number"]),
    ("xyz-nan-word", _part("'nan 0 1'"), None, ["parts[0].xyz", "'nan' is not a number"]),
    ("xyz-yaml-inf", _part("'.inf 0 1'"), None, ["parts[0].xyz", "must be a finite number"]),
    ("xyz-yaml-nan", _part("'0 .nan 1'"), None, ["parts[0].xyz", "must be a finite number"]),
    ("xyz-hex-float", _part("'0x1p3 0 1'"), None, ["parts[0].xyz", "'0x1p3' is hex or octal, and the words"]),
    ("xyz-comma-decimal", _part("'1,5 0 1'"), None, ["parts[0].xyz", "'1,5' is not a number"]),
    ("xyz-double-sign", _part("'+-1 0 1'"), None, ["parts[0].xyz", "'+-1' is not a number"]),
    ("xyz-binary", _part("'0b1 0 1'"), None, ["parts[0].xyz", "'0b1' is not a number"]),
    ("xyz-four-words", _part("'1 0 1 1'"), None, ["parts[0].xyz", "expected 3 numbers"]),
    ("xyz-list-of-strings", _part("['1', 0, 1]"), None, ["parts[0].xyz", "expected a number, got a string"]),
    ("xyz-list-with-bool", _part("[true, 0, 1]"), None, ["parts[0].xyz", "expected a number, got a boolean"]),
    ("rpy-underscore", {"v.yaml": BOAT + "parts:\n  - {type: basestation_antenna, name: r, parent: base_link, "
                        "xyz: [0, 0, 1], rpy: '0 0 3_1'}\n"}, None, ["v.yaml:5:", "parts[0].rpy", "no '_'"]),
    ("catalog-size-underscore", {"v.yaml": W, "parts/widget.yaml": WIDGET + "collision: [{shape: box, size: "
                                 "'1_0 1 1'}]\n"}, None, ["widget.yaml:3:", "collision[0].size", "no '_'"]),
    ("catalog-slot-xyz-arabic", {"v.yaml": W, "parts/widget.yaml": WIDGET + "slots: {s: {xyz: '٠ 0 1'}}\n"}, None,
     ["widget.yaml:3:", "slots.s.xyz", "U+0660"]),
    # ---- explicit tags: !!int and !!float read with the same grammar (int('1_0') was 10 segments)
    ("int-tag-underscore", {"v.yaml": BOAT.replace("segments: 6", "segments: !!int '1_0'")}, None,
     ["v.yaml:3:", "hull_displacement.segments", "'1_0' is not a whole number", "no '_'"]),
    ("int-tag-full-width", {"v.yaml": BOAT.replace("segments: 6", "segments: !!int '６'")}, None,
     ["v.yaml:3:", "hull_displacement.segments", "U+FF16"]),
    ("int-tag-arabic-indic", {"v.yaml": BOAT.replace("segments: 6", "segments: !!int '٦'")}, None,
     ["v.yaml:3:", "hull_displacement.segments", "U+0666"]),
    ("int-tag-spaces", {"v.yaml": BOAT.replace("segments: 6", "segments: !!int ' 6 '")}, None,
     ["v.yaml:3:", "hull_displacement.segments", "is not a whole number"]),
    ("int-tag-binary", {"v.yaml": BOAT.replace("segments: 6", "segments: !!int '0b110'")}, None,
     ["v.yaml:3:", "hull_displacement.segments", "'0b110' is not a whole number"]),
    ("int-tag-float-text", {"v.yaml": BOAT.replace("segments: 6", "segments: !!int '6.0'")}, None,
     ["v.yaml:3:", "hull_displacement.segments", "'6.0' is not a whole number"]),
    ("int-tag-true", {"v.yaml": BOAT.replace("segments: 6", "segments: !!int 'true'")}, None,
     ["v.yaml:3:", "hull_displacement.segments", "'true' is not a whole number"]),
    ("float-tag-underscore", {"v.yaml": BOAT.replace("x: 0.027", "x: !!float '0_027'")}, None,
     ["v.yaml:3:", "hull_displacement.x", "no '_'"]),
    ("float-tag-arabic-indic", {"v.yaml": BOAT.replace("x: 0.027", "x: !!float '٠.٠٢٧'")}, None,
     ["v.yaml:3:", "hull_displacement.x", "U+0660"]),
    ("float-tag-infinity-word", {"v.yaml": BOAT.replace("x: 0.027", "x: !!float 'infinity'")}, None,
     ["v.yaml:3:", "hull_displacement.x", "'infinity' is not a number"]),
    ("float-tag-in-list", _part("[!!float '1_0', 0, 1]"), None, ["v.yaml:5:", "parts[0].xyz[0]", "no '_'"]),
    ("int-tag-in-catalog", {"v.yaml": W, "parts/widget.yaml": WIDGET.replace("mass: 1", "mass: !!int '1_0'")},
     None, ["widget.yaml:1:", "mass", "no '_'"]),
    # ---- the other explicit tags: YAML 1.2 core only (PyYAML's !!bool took 'on' and raised a KeyError on 'maybe')
    ("bool-tag-maybe", {"v.yaml": BOAT.replace("{type: blueboat_chassis}", "{type: blueboat_chassis, collision: "
                        "!!bool maybe}")}, None, ["v.yaml:2:", "base.collision", "'maybe' is not a boolean"]),
    ("bool-tag-on", {"v.yaml": BOAT.replace("{type: blueboat_chassis}", "{type: blueboat_chassis, collision: "
                     "!!bool on}")}, None, ["v.yaml:2:", "base.collision", "'on' is not a boolean"]),
    ("bool-tag-yes-in-catalog", {"v.yaml": W, "parts/widget.yaml": WIDGET + "slots: {s: {collision: !!bool yes}}\n"},
     None, ["widget.yaml:3:", "slots.s.collision", "'yes' is not a boolean"]),
    ("timestamp-tag-garbage", {"v.yaml": BOAT.replace("x: 0.027", "x: !!timestamp nope")}, None,
     ["v.yaml:3:", "hull_displacement.x", "a !!timestamp value has no place in a config"]),
    ("timestamp-tag-date", {"v.yaml": BOAT.replace("x: 0.027", "x: !!timestamp 2001-12-14")}, None,
     ["v.yaml:3:", "hull_displacement.x", "!!timestamp"]),
    ("binary-tag", {"v.yaml": BOAT.replace("x: 0.027", "x: !!binary AAAA")}, None, ["hull_displacement.x", "!!binary"]),
    ("set-tag", {"v.yaml": BOAT + "parts: !!set {a, b}\n"}, None, ["v.yaml:4:", "parts", "!!set"]),
    ("omap-tag", {"v.yaml": BOAT + "parts: !!omap [{a: 1}]\n"}, None, ["v.yaml:4:", "parts", "!!omap"]),
    ("huge-integer-in-list", _part("[0, 0, " + "9" * 5000 + "]"), None,
     ["v.yaml:5:", "parts[0].xyz[2]", "5000 digits"]),
    ("huge-integer-in-catalog", {"v.yaml": W, "parts/widget.yaml": WIDGET.replace("mass: 1", "mass: " + "1" * 5000)},
     None, ["widget.yaml:1:", "mass", "5000 digits"]),
    ("world-xyz-underscore", {"w.yaml": "planes: {surface: {normal: [0, 0, 1], offset: 0}}\ncells: {water: "
                              "{below: [surface], density: 1025}}\nvehicles:\n  - {config: good.yaml, name: b, "
                              "xyz: '0 0 0_5'}\n"}, ["worlds", "w.yaml", "-o", "out"],
     ["w.yaml:4:", "vehicles[0].xyz", "no '_'"]),
    ("world-density-int-tag", {"w.yaml": "planes: {surface: {normal: [0, 0, 1], offset: 0}}\ncells: {water: "
                               "{below: [surface], density: !!int '1_025'}}\n"}, ["worlds", "w.yaml", "-o", "out"],
     ["w.yaml:2:", "cells.water.density", "no '_'"]),
    # ---- the CLI's own "x y z": the same grammar
    ("report-payload-underscore", {}, ["report", "good.yaml", "--payload-at", "1_0 0 0", "--quiet"],
     ["--payload-at", "three finite numbers", "'1_0 0 0'"]),
    ("report-payload-arabic-indic", {}, ["report", "good.yaml", "--payload-at", "١ 0 0", "--quiet"],
     ["--payload-at", "three finite numbers"]),
    ("report-payload-no-break-space", {}, ["report", "good.yaml", "--payload-at", "1\u00a00 0", "--quiet"],
     ["--payload-at", "three finite numbers"]),
    ("report-payload-full-width", {}, ["report", "good.yaml", "--payload-at", "0,0,１", "--quiet"],
     ["--payload-at", "three finite numbers"]),
    # ---- no traceback: an empty or nameless config argument (Path('') is '.': with_suffix raised)
    ("build-empty-name", {}, ["build", "", "-o", "out"], ["'': is not a config file name"]),
    ("build-dot", {}, ["build", ".", "-o", "out"], ["'.': is not a config file name"]),
    ("build-dotdot", {}, ["build", "..", "-o", "out"], ["'..': is not a config file name"]),
    ("build-root", {}, ["build", "/", "-o", "out"], ["'/': is not a config file name"]),
    ("specs-empty-name", {}, ["specs", ""], ["'': is not a config file name"]),
    ("worlds-empty-name", {}, ["worlds", "", "-o", "out"], ["'': is not a config file name", "./worlds/"]),
    ("sim-empty-name", {}, ["sim", "", "--quiet"], ["'': no such file"]),
    # ---- no traceback: meshes an inertia cannot be derived from (ZeroDivisionError before)
    ("mesh-flat-closed", {"v.yaml": W, "parts/widget.yaml": "mass: 1\ncollision: [{shape: mesh, file: f.stl}]\n",
                          "parts/f.stl": FLAT_TETRA}, None, ["widget.yaml:2:", "collision[0].file", "'f.stl'",
                                                             "no inertia can be derived", "give inertia"]),
    ("mesh-flat-sheet", {"v.yaml": W, "parts/widget.yaml": "mass: 1\ncollision: [{shape: mesh, file: f.stl}]\n",
                         "parts/f.stl": FLAT_SHEET}, None, ["widget.yaml:2:", "collision[0].file", "encloses no volume"]),
    ("mesh-open-bowl", {"v.yaml": W, "parts/widget.yaml": "mass: 1\ncollision: [{shape: mesh, file: o.stl}]\n",
                        "parts/o.stl": OPEN_BOWL}, None, ["widget.yaml:2:", "collision[0].file", "is open"]),
    ("mesh-open-beside-box", {"v.yaml": W, "parts/widget.yaml": "mass: 1\ncom: [0, 0, 0]\ncollision:\n  - {shape: "
                              "box, size: [1, 1, 1]}\n  - {shape: mesh, file: o.stl}\n", "parts/o.stl": OPEN_BOWL},
     None, ["widget.yaml:5:", "collision[1].file", "is open"]),
    ("mesh-flat-scaled-to-nothing", {"v.yaml": W, "parts/widget.yaml": "mass: 1\ncollision: [{shape: mesh, file: "
                                     "t.stl, scale: [1, 1, 1e-12]}]\n",
                                     "parts/t.stl": _tetra((0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1))}, None,
     ["widget.yaml:2:", "collision[0].file", "encloses no volume"]),
    # ---- no traceback: a chain of parts on parts inside the 2,000-part limit (RecursionError before)
    ("slot-chain-1500", {"v.yaml": _chain(1500), "parts/link.yaml": LINK}, None,
     ["v.yaml:105:", "parts[100].of", "101 parts deep", "the 100 a vehicle may nest"]),
    ("free-chain-1500", {"v.yaml": _free_chain(1500), "parts/link.yaml": LINK}, None,
     ["v.yaml:105:", "parts[100].parent", "101 parts deep"]),
    ("slot-chain-101", {"v.yaml": _chain(101), "parts/link.yaml": LINK}, None, ["parts[100].of", "101 parts deep"]),
    # a chain of catalog defaults (RecursionError, deep in the YAML reader, before)
    ("default-chain-600", {"v.yaml": BOAT + "parts:\n  - {type: p0, name: c, parent: base_link, xyz: [0, 0, 0]}\n",
                           **_default_chain(600)}, None,
     # the composed default names outgrow the 64-character limit first, 33 slots down (the first nested
     # part takes its slot's name 's' alone, then each <carrier>_s; the depth limit, 101 parts, is
     # slot-chain-101's)
     ["v.yaml:5:", "parts[0].type", "65 characters: a name has at most 64", "p32.yaml"]),
    ("default-chain-under-slot-fills", {"v.yaml": _chain(60).replace("type: link, name: l59", "type: p0, name: l59"),
                                        "parts/link.yaml": LINK, **_default_chain(60)}, None,
     ["v.yaml:64:", "parts[59]", "a name has at most 64", "p32.yaml"]),
    # ---- no traceback: a 5,000-digit integer in an environment (int() refused it with a ValueError)
    ("env-json-huge-density", {"w.xml": _world(ENV_OK.replace("1025.0", "9" * 5000))}, ["sim", "w.xml", "--quiet"],
     ["w.xml", "cells[0] ('water').density", "an integer of 5000 digits"]),
    ("env-json-huge-plane", {"w.xml": _world(ENV_OK.replace("[[0, 0, 1, 0]]", "[[0, 0, 1, -" + "1" * 5000 + "]]"))},
     ["sim", "w.xml", "--quiet"], ["w.xml", "planes[0][3]", "an integer of 5000 digits"]),
    ("env-json-huge-sign", {"w.xml": _world(ENV_OK.replace("[-1]", "[" + "1" * 4400 + "]"))},
     ["sim", "w.xml", "--quiet"], ["w.xml", "cells[0] ('water').signs[0]", "an integer of 4400 digits"]),
]


@pytest.mark.parametrize("case,files,argv,expected", CASES, ids=[c[0] for c in CASES])
def test_hostile_input_is_refused(capsys, monkeypatch, tmp_path, good_build, case, files, argv, expected):
    run_refused(capsys, monkeypatch, tmp_path, good_build, files, argv, expected)


def test_case_ids_are_unique():
    ids = [c[0] for c in CASES]
    assert len(ids) == len(set(ids))


# ---- the grammar accepts what YAML 1.2 calls a number, as YAML 1.2 reads it
@pytest.mark.parametrize("text,want", [
    ("'1 0 1'", (1.0, 0.0, 1.0)), ("'+1 -0.5 .5'", (1.0, -0.5, 0.5)), ("'1e-3 2E+2 3.'", (0.001, 200.0, 3.0)),
    ("'012 1 2'", (12.0, 1.0, 2.0)), ("'\t1  0\t1 '", (1.0, 0.0, 1.0)), ("[1, !!float '2', 3]", (1.0, 2.0, 3.0)),
    ("[0x10, 0o17, 012]", (16.0, 15.0, 12.0)),
])
def test_vector_strings_read_as_yaml_1_2(tmp_path, text, want):
    p = tmp_path / "v.yaml"
    p.write_text(f"xyz: {text}\n")
    data = yamlio.load(p)
    assert yamlio.Reader(p).vector(data, "xyz", "") == want


@pytest.mark.parametrize("text,word", [("'0x1 0 0'", "0x1"), ("'0 0o7 0'", "0o7"), ("'0 0 -0x1'", "-0x1")])
def test_vector_strings_refuse_hex_and_octal_words(tmp_path, text, word):
    """An "x y z" string reads as an SDF pose does, in decimal: '0x1 0 0' is a typo, not x = 1 (a YAML list
    [0x1, 0, 0] is still YAML's hex integer)."""
    p = tmp_path / "v.yaml"
    p.write_text(f"xyz: {text}\n")
    data = yamlio.load(p)
    with pytest.raises(ConfigError, match=f"xyz: expected 3 numbers, got .*'{word}' is hex or octal, and the words"):
        yamlio.Reader(p).vector(data, "xyz", "")


@pytest.mark.parametrize("text,want", [("!!int '0o17'", 15), ("!!int '0x1f'", 31), ("!!int '-12'", -12),
                                       ("!!int '012'", 12), ("!!float '3'", 3.0), ("!!float '.inf'", math.inf),
                                       ("!!float '-1.5e3'", -1500.0)])
def test_explicit_tags_read_as_yaml_1_2(tmp_path, text, want):
    p = tmp_path / "v.yaml"
    p.write_text(f"n: {text}\n")
    got = yamlio.load(p)["n"]
    assert got == want and type(got) is type(want)


# ---- the runtime's API: no bool or string is a number; step counts the binding takes
XML = "<mujoco><worldbody><body><freejoint/><geom size='0.1'/></body></worldbody></mujoco>"


@pytest.mark.parametrize("kwargs,words", [
    ({"water": True}, ["water=True"]), ({"water": np.True_}, ["water="]), ({"water": "1025"}, ["water='1025'"]),
    ({"water": b"1025"}, ["water="]), ({"water": 10 ** 5000}, ["water=an integer of"]),
    ({"water": [1025]}, ["water="]), ({"settle_window": True}, ["settle_window=True"]),
    ({"settle_tol": "1e-4"}, ["settle_tol='1e-4'"]), ({"settle_window": False}, ["settle_window=False"]),
], ids=_id)
def test_simulation_refuses_non_numbers(kwargs, words):
    from aurgen.runtime.sim import Simulation, SimulationError

    with pytest.raises(SimulationError) as exc:
        Simulation(XML, **kwargs)
    for w in words:
        assert w in str(exc.value)


@pytest.fixture(scope="module")
def sim():
    from aurgen.runtime.sim import Simulation

    s = Simulation(XML)
    yield s
    s.close()


@pytest.mark.parametrize("method,arg,words", [
    ("step", 1e20, ["step(n)"]), ("step", 10 ** 20, ["step(n)", "at most 2147483647"]),
    ("step", 2 ** 31, ["step(n)", "at most"]), ("step", 10 ** 5000, ["step(n)", "an integer of"]),
    ("step", np.int64(2 ** 40), ["step(n)", "at most"]), ("step", np.uint64(2 ** 63), ["step(n)", "at most"]),
    ("run", 1e300, ["run(duration)", "steps of"]), ("run", 1e9, ["run(duration)", "steps of"]),
    ("run", 10 ** 5000, ["run(duration)", "an integer of"]), ("run", True, ["run(duration)", "True"]),
    ("run", np.True_, ["run(duration)"]), ("run", "1", ["run(duration)", "'1'"]), ("run", math.nan, ["run(duration)"]),
], ids=_id)
def test_step_and_run_refuse_with_the_documented_error(sim, method, arg, words):
    t0 = sim.data.time
    with pytest.raises(ValueError) as exc:
        getattr(sim, method)(arg)
    assert not isinstance(exc.value, TypeError)
    for w in words:
        assert w in str(exc.value)
    assert sim.data.time == t0  # nothing stepped


def test_step_and_run_still_step(sim):
    sim.reset()
    sim.step(2)
    sim.run(0.004)
    assert sim.data.time == pytest.approx(0.008)


@pytest.mark.parametrize("env,words", [
    ('{"cells": [{"density": %s}]}' % ("9" * 5000), ["cells[0] ('cell0').density", "5000 digits"]),
    ({"cells": [{"density": 10 ** 5000}]}, ["cells[0] ('cell0').density", "an integer of"]),
    ({"planes": [[0, 0, 1, 10 ** 400]]}, ["planes[0][3]", "expected a finite number"]),
    ({"cells": [{"density": True}]}, ["density", "true"]),
    ({"gravity": {"type": "uniform", "g": [0, 0, "-9.81"]}}, ["gravity.g[2]", "a string"]),
], ids=_id)
def test_environment_api_refuses_huge_and_non_numbers(env, words):
    from aurgen.runtime.environment import schema as envmod

    with pytest.raises(envmod.EnvironmentInvalid) as exc:
        envmod.parse(env)
    for w in words:
        assert w in str(exc.value)


def test_open_water_refuses_a_bool_density():
    from aurgen.runtime.environment import schema as envmod

    with pytest.raises(envmod.EnvironmentInvalid):
        envmod.open_water(density=True)


# ---- no hang: aurgen sim on a FIFO (MjSpec and MuJoCo's reader block on it forever)
@pytest.mark.parametrize("extra", [[], ["--water", "1025"]], ids=["plain", "water"])
def test_sim_on_a_fifo_is_refused_without_blocking(tmp_path, extra):
    fifo = tmp_path / "w.xml"
    os.mkfifo(fifo)
    out = tmp_path / "run.csv"
    try:
        res = subprocess.run([sys.executable, "-m", "aurgen", "sim", str(fifo), "--quiet", "--out", str(out)] + extra,
                             capture_output=True, text=True, timeout=60, cwd=tmp_path)
    except subprocess.TimeoutExpired:
        with open(fifo, "wb"):  # let the blocked reader go
            pass
        pytest.fail("aurgen sim blocked on a FIFO")
    assert res.returncode == 2, res.stderr
    assert "Traceback" not in res.stderr and res.stderr.count("\n") == 1
    assert str(fifo) in res.stderr and "not a regular file" in res.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w.xml"]


def test_simulation_api_on_a_fifo_is_refused(tmp_path):
    from aurgen.runtime.sim import Simulation, SimulationError

    fifo = tmp_path / "w.xml"
    os.mkfifo(fifo)
    with pytest.raises(SimulationError, match="not a regular file"):
        Simulation(str(fifo))
