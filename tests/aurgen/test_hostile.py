"""Hostile and careless input (issue 10): every case is refused with exit 2, a message naming the
key (or the file and line where no key exists), nothing written outside the output root, and no
existing file changed.

Each case runs ``aurgen`` in a fresh folder holding a previous good build of a vehicle named ``v``
in ``out/``; the whole folder (and any absolute target a case aims at) is fingerprinted before and
after, so a write anywhere, inside the output root included, fails the case.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import struct
from pathlib import Path

import pytest

from aurgen.cli import main

HULL = "hull_displacement: {length: 1.05, width: 0.18, height: 0.18, x: 0.027, y: 0.361, z: 0.059, segments: 6}\n"
BOAT = "name: v\nbase: {type: blueboat_chassis}\n" + HULL
ROV = "name: v\nbase: {type: bluerov2_chassis}\n"
WIDGET = "mass: 1\ninertia: {ixx: 1, iyy: 1, izz: 1}\n"
W = "name: v\nbase: {type: widget}\n" + HULL  # a vehicle on the local part 'widget'


def _stl(*triangles) -> bytes:
    """A binary STL of ``triangles`` (three xyz points each)."""
    body = b"".join(struct.pack("<12fH", 0, 0, 0, *(c for pt in tri for c in pt), 0) for tri in triangles)
    return b"\0" * 80 + struct.pack("<I", len(triangles)) + body


def _world(env: str) -> str:
    """A world MJCF with nothing in it but the environment JSON ``env`` (docs/formats.md)."""
    return f"<mujoco><custom><text name=\"aurgen:environment\" data='{env}'/></custom><worldbody/></mujoco>"


ENV_OK = ('{"planes": [[0, 0, 1, 0]], "cells": [{"name": "water", "signs": [-1], "density": 1025.0}], '
          '"gravity": {"type": "uniform", "g": [0, 0, -9.81]}}')


def _bomb() -> str:
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, 9):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


# (id, {relative path: text}, argv after 'aurgen' (default: build v.yaml -o out), substrings of the message)
CASES = [
    # ---- names are identifiers: nothing a name says can become a path or a comment row
    ("name-absolute-path", {"v.yaml": BOAT.replace("name: v", "name: {ABS}/data")}, None,
     ["v.yaml:1:", "name:", "is not a name"]),
    ("name-dotdot", {"v.yaml": BOAT.replace("name: v", "name: ../../escaped")}, None, ["name:", "is not a name"]),
    ("name-dot", {"v.yaml": BOAT.replace("name: v", "name: '.'")}, None, ["name:", "is not a name"]),
    ("name-dotdot-only", {"v.yaml": BOAT.replace("name: v", "name: '..'")}, None, ["name:", "is not a name"]),
    ("name-slash", {"v.yaml": BOAT.replace("name: v", "name: a/b")}, None, ["name:", "is not a name"]),
    ("name-newline", {"v.yaml": BOAT.replace("name: v", 'name: "a\\nb"')}, None, ["name:", "is not a name"]),
    ("name-nul", {"v.yaml": BOAT.replace("name: v", 'name: "a\\0b"')}, None, ["name:", "is not a name"]),
    ("name-too-long", {"v.yaml": BOAT.replace("name: v", "name: " + "a" * 65)}, None,
     ["name:", "at most 64 characters"]),
    ("name-digit-first", {"v.yaml": BOAT.replace("name: v", "name: 1boat")}, None, ["name:", "is not a name"]),
    ("name-parens", {"v.yaml": BOAT.replace("name: v", "name: 'a (b); c'")}, None, ["name:", "is not a name"]),
    ("file-stem-not-a-name", {"my-boat.yaml": BOAT.replace("name: v\n", "")}, ["build", "my-boat.yaml", "-o", "out"],
     ["my-boat.yaml", "name:", "add 'name:"]),
    ("instance-name-injects-rows", {"v.yaml": BOAT + 'parts:\n  - {type: basestation_antenna, name: "radio)\\n  '
                                    'total mass:         99.0 kg\\n  x: (y", parent: base_link, xyz: [0, 0, 0.5]}\n'},
     None, ["v.yaml:5:", "parts[0].name", "is not a name"]),
    ("instance-name-comment-close", {"v.yaml": BOAT + "parts: [{slot: mast, type: blueboat_antenna_mast, "
                                     "name: 'm--><x/><!--'}]\n"}, None, ["parts[0].name", "is not a name"]),
    ("slot-fill-name-path", {"v.yaml": BOAT + "parts: [{slot: mast, type: blueboat_antenna_mast, name: ../m}]\n"},
     None, ["parts[0].name", "is not a name"]),
    ("of-is-a-path", {"v.yaml": BOAT + "parts: [{slot: ping, of: ../ping_mount, type: none}]\n"}, None,
     ["parts[0].of", "is not a name"]),
    ("parent-is-a-path", {"v.yaml": BOAT + "parts: [{type: blueboat_flag, name: f, parent: /x, xyz: [0, 0, 1]}]\n"},
     None, ["parts[0].parent", "is not a name"]),
    ("adhoc-slot-name-path", {"v.yaml": BOAT + "slots: [{of: base_link, name: a/b}]\n"}, None,
     ["slots[0].name", "is not a name"]),
    ("base-name-path", {"v.yaml": BOAT.replace("{type: blueboat_chassis}", "{type: blueboat_chassis, name: ../b}")},
     None, ["base.name", "is not a name"]),
    ("topic-namespace-injection", {"v.yaml": BOAT + "topic_namespace: 'a--><x/>'\n"}, None,
     ["topic_namespace", "is not a topic"]),
    ("entry-topic-space", {"v.yaml": BOAT + "parts: [{slot: motor_port, type: t200_prop_ccw, topic: 'a b'}]\n"},
     None, ["parts[0].topic", "is not a topic"]),
    ("part-type-absolute-path", {"v.yaml": "name: v\nbase: {type: {ABS}/evilpart}\n" + HULL,
                                 "{ABS}/evilpart.yaml": WIDGET}, None, ["base.type", "never a path"]),
    ("part-type-relative-path", {"v.yaml": BOAT + "parts: [{slot: mast, type: ../parts/blueboat_antenna_mast}]\n"},
     None, ["parts[0].type", "never a path"]),
    ("accepts-is-a-path", {"v.yaml": BOAT + "slots: [{of: base_link, name: cam, accepts: [../x]}]\n"}, None,
     ["slots[0].accepts[0]", "never a path"]),
    ("catalog-slot-name-path", {"v.yaml": W, "parts/widget.yaml": WIDGET + "slots: {'a/b': {}}\n"}, None,
     ["widget.yaml:3:", "slots.a/b", "is not a name"]),
    ("catalog-frame-name-newline", {"v.yaml": W, "parts/widget.yaml": WIDGET + "frames: {\"a\\nb\": {}}\n"}, None,
     ["widget.yaml", "frames.a", "is not a name"]),
    ("catalog-default-path", {"v.yaml": W, "parts/widget.yaml": WIDGET + "slots: {s: {default: /etc/x}}\n"}, None,
     ["widget.yaml", "slots.s.default", "never a path"]),
    # ---- mesh files: regular files inside the declaring catalog folder, loadable
    ("mesh-absolute", {"v.yaml": W, "parts/widget.yaml": WIDGET + "collision: [{shape: mesh, file: /etc/passwd}]\n"},
     None, ["widget.yaml", "collision[0].file", "relative to the catalog folder"]),
    ("mesh-dotdot", {"v.yaml": W, "parts/widget.yaml": WIDGET + "collision: [{shape: mesh, file: ../../../etc/hostname}]\n"},
     None, ["widget.yaml", "collision[0].file", "outside the catalog folder"]),
    ("mesh-symlink-out", {"v.yaml": W, "parts/widget.yaml": WIDGET + "visual: [{shape: mesh, file: evil.stl}]\n",
                          "secret.stl": "solid x\nendsolid x\n", "parts/evil.stl": "@link ../secret.stl"}, None,
     ["widget.yaml", "visual[0].file", "outside the catalog folder"]),
    ("mesh-garbage", {"v.yaml": W, "parts/widget.yaml": WIDGET + "collision: [{shape: mesh, file: m.stl}]\n",
                      "parts/m.stl": "garbage"}, None, ["widget.yaml", "collision[0].file", "not a readable mesh"]),
    ("mesh-not-a-mesh-type", {"v.yaml": W, "parts/widget.yaml": WIDGET + "collision: [{shape: mesh, file: m.txt}]\n",
                              "parts/m.txt": "x"}, None, ["collision[0].file", ".stl or .obj"]),
    ("mesh-directory", {"v.yaml": W, "parts/widget.yaml": WIDGET + "collision: [{shape: mesh, file: d.stl}]\n",
                        "parts/d.stl/x": "x"}, None, ["collision[0].file", "not a regular file"]),
    # ---- the build's self-check: MuJoCo compiles the MJCF before anything is written
    ("mesh-ascii-stl-mujoco-refuses", {"v.yaml": W,
                                       "parts/widget.yaml": WIDGET + "visual: [{shape: mesh, file: a.stl}]\n",
                                       "parts/a.stl": "solid a\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\n"
                                       "vertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid a\n"}, None,
     ["v.yaml: v.xml: MuJoCo refuses the generated MJCF", "ASCII", "nothing was written"]),
    ("mesh-three-vertices-mujoco-refuses", {"v.yaml": W, "parts/widget.yaml": WIDGET + "visual: [{shape: mesh, "
                                            "file: t.stl}]\n", "parts/t.stl": _stl(((0, 0, 0), (1, 0, 0), (0, 1, 0)))},
     None, ["v.yaml: v.xml: MuJoCo refuses the generated MJCF", "at least 4 vertices"]),
    # ---- YAML: 1.2 core scalars, limits on size, nesting and aliases, no complex keys
    ("base-60-mass", {"v.yaml": W, "parts/widget.yaml": "mass: 1:30\ninertia: {ixx: 1, iyy: 1, izz: 1}\n"}, None,
     ["widget.yaml:1:", "mass:", "expected a number, got a string ('1:30')"]),
    ("yes-is-not-true", {"v.yaml": BOAT + "parts: [{slot: mast, type: blueboat_antenna_mast, collision: yes}]\n"},
     None, ["parts[0].collision", "expected true or false"]),
    ("alias-bomb", {"v.yaml": BOAT + _bomb() + "description: *a8\n"}, None,
     ["v.yaml:", "aliases are expanded"]),
    ("alias-cycle", {"v.yaml": BOAT + "description: &d [*d]\n"}, None, ["v.yaml:", "cycle"]),
    ("deep-nesting", {"v.yaml": BOAT + "description: " + "[" * 100000 + "]" * 100000 + "\n"}, None,
     ["v.yaml:4:", "nested deeper than"]),
    ("complex-key", {"v.yaml": BOAT + "? [a, b]\n: 1\n"}, None, ["v.yaml:4:", "a key must be a plain name"]),
    ("file-too-big", {"v.yaml": BOAT + "description: '" + "x" * 1_000_001 + "'\n"}, None,
     ["v.yaml", "larger than the 1000000-byte limit"]),
    ("not-utf8", {"v.yaml": BOAT.encode() + b"description: \xff\xfe\n"}, None, ["v.yaml", "not UTF-8"]),
    ("huge-integer", {"v.yaml": BOAT.replace("segments: 6", "segments: " + "9" * 5000)}, None,
     ["v.yaml:3:", "unreadable integer"]),
    ("part-file-is-a-directory", {"v.yaml": W, "parts/widget.yaml/x": "x"}, None,
     ["widget.yaml", "not a regular file"]),
    # ---- numbers: finite, in range, sane composed figures
    ("hull-1e200", {"v.yaml": BOAT.replace("length: 1.05", "length: 1e200")}, None,
     ["hull_displacement.length", "out of range"]),
    ("hull-1e-300", {"v.yaml": BOAT.replace("height: 0.18", "height: 1e-300")}, None,
     ["hull_displacement.height", "out of range"]),
    ("mass-1e308", {"v.yaml": W, "parts/widget.yaml": WIDGET.replace("mass: 1", "mass: 1e308")}, None,
     ["widget.yaml:1:", "mass", "out of range"]),
    ("pontoons-overlap", {"v.yaml": BOAT.replace("y: 0.361", "y: 0")}, None, ["hull_displacement.y", "overlap"]),
    ("pontoons-negative-y", {"v.yaml": BOAT.replace("y: 0.361", "y: -0.361")}, None, ["hull_displacement.y"]),
    ("segments-huge", {"v.yaml": BOAT.replace("segments: 6", "segments: 10000000")}, None,
     ["hull_displacement.segments", "at most 200"]),
    ("segments-float", {"v.yaml": BOAT.replace("segments: 6", "segments: 1e23")}, None,
     ["hull_displacement.segments", "whole number"]),
    ("inertia-denormal", {"v.yaml": W, "parts/widget.yaml": "mass: 1\ninertia: {ixx: 5e-324, iyy: 5e-324, "
                          "izz: 5e-324}\n"}, None, ["widget.yaml", "inertia", "minimum"]),
    ("derived-inertia-tiny", {"v.yaml": W, "parts/widget.yaml": "mass: 1e-6\ncollision: [{shape: sphere, "
                              "radius: 1e-6}]\n"}, None, ["widget.yaml", "collision", "minimum"]),
    ("revolute-without-limits", {"v.yaml": BOAT + "parts: [{slot: mast, type: blueboat_antenna_mast, "
                                 "joint: revolute}]\n"}, None, ["v.yaml:4:", "parts[0].limits",
                                                                 "'mast' (blueboat_antenna_mast)", "no limits"]),
    ("prismatic-without-limits", {"v.yaml": BOAT + "parts: [{type: blueboat_flag, name: f, parent: base_link, "
                                  "xyz: [0, 0, 1], joint: prismatic}]\n"}, None, ["parts[0].limits", "'f'"]),
    ("entry-limits-reversed", {"v.yaml": BOAT + "parts: [{slot: mast, type: blueboat_antenna_mast, joint: revolute, "
                               "limits: {lower: 1, upper: -1}}]\n"}, None, ["parts[0].limits.lower", "above upper"]),
    ("entry-limits-negative-effort", {"v.yaml": BOAT + "parts: [{slot: mast, type: blueboat_antenna_mast, "
                                      "joint: revolute, limits: {lower: -1, upper: 1, effort: -5}}]\n"}, None,
     ["parts[0].limits.effort", "must not be negative"]),
    ("adhoc-slot-limits-reversed", {"v.yaml": BOAT + "slots: [{of: base_link, name: arm, joint: revolute, "
                                    "limits: {lower: 2, upper: 1}}]\n"}, None, ["slots[0].limits.lower", "above upper"]),
    ("adhoc-revolute-without-limits", {"v.yaml": BOAT + "slots: [{of: base_link, name: arm, joint: revolute, "
                                       "default: blueboat_flag}]\n"}, None, ["slots[0].limits", "'arm'", "no limits"]),
    ("instance-named-hull-displacement", {"v.yaml": BOAT + "parts: [{type: blueboat_flag, name: hull_displacement, "
                                          "parent: base_link, xyz: [0, 0, 1]}]\n"}, None,
     ["parts[0].type", "duplicate name 'hull_displacement'", "a displacement link"]),
    ("instance-named-windage", {"v.yaml": BOAT + "parts: [{slot: mast, type: blueboat_antenna_mast, name: windage}]\n"},
     None, ["parts[0].type", "duplicate name 'windage'"]),
    ("part-vs-thrust-site", {"v.yaml": BOAT + "parts: [{type: t200_prop_ccw, name: motor, parent: base_link, "
                             "xyz: [0, 0, 0]}, {type: blueboat_flag, name: motor_thrust, parent: base_link, "
                             "xyz: [0, 0, 1]}]\n"}, None,
     ["duplicate name 'motor_thrust'", "thrust site of 'motor'", "an instance of blueboat_flag"]),
    ("part-vs-slot-frame", {"v.yaml": BOAT + "parts: [{type: blueboat_flag, name: base_link_mast_slot, "
                            "parent: base_link, xyz: [0, 0, 1]}]\n"}, None,
     ["duplicate name 'base_link_mast_slot'", "slot 'mast' of 'base_link'", "an instance of blueboat_flag"]),
    ("pontoon-name-taken", {"v.yaml": BOAT + "parts: [{type: blueboat_flag, name: pontoon_port_0, "
                            "parent: base_link, xyz: [0, 0, 1]}]\n"}, None, ["duplicate name 'pontoon_port_0'"]),
    ("axis-zero", {"v.yaml": BOAT + "parts: [{slot: motor_port, type: t200_prop_ccw, axis: [0, 0, 0]}]\n"}, None,
     ["v.yaml:4:", "parts[0].axis", "zero vector"]),
    ("catalog-slot-axis-zero", {"v.yaml": W, "parts/widget.yaml": WIDGET + "slots: {s: {axis: '0 0 0'}}\n"}, None,
     ["widget.yaml", "slots.s.axis", "zero vector"]),
    ("rpy-huge", {"v.yaml": BOAT + "parts: [{slot: mast, type: blueboat_antenna_mast, rpy: [1e300, 0, 0]}]\n"},
     None, ["parts[0].rpy", "out of range"]),
    ("xyz-huge", {"v.yaml": BOAT + "parts: [{type: blueboat_flag, name: f, parent: base_link, xyz: [1e300, 0, 0]}]\n"},
     None, ["parts[0].xyz", "out of range"]),
    ("hydro-huge", {"v.yaml": BOAT + "hydrodynamics: {xU: -1e300}\n"}, None, ["hydrodynamics.xU", "out of range"]),
    ("drive-huge", {"v.yaml": W, "parts/widget.yaml": WIDGET + "drive: {diameter: 0.1, max_thrust: 1e300, "
                    "min_thrust: 0, rotation: ccw}\n"}, None, ["widget.yaml", "drive.max_thrust", "out of range"]),
    ("too-many-entries", {"v.yaml": BOAT + "parts:\n" + "".join(
        f"  - {{type: blueboat_flag, name: f{i}, parent: base_link, xyz: [0, 0, 1]}}\n" for i in range(2001))}, None,
     ["v.yaml", "parts:", "more than the 2000"]),
    ("uuv-density-tiny", {"v.yaml": ROV + "buoyancy: {fluid_density: 0.0001}\n"}, None,
     ["buoyancy.fluid_density", "out of range"]),
    ("uuv-net-buoyancy-huge", {"v.yaml": ROV + "buoyancy: {net_buoyancy: 100000}\n"}, None,
     ["buoyancy.net_buoyancy", "times the vehicle's mass"]),
    # ---- unclear messages, now naming file, line and key
    ("adhoc-default-unknown", {"v.yaml": BOAT + "slots: [{of: base_link, name: cam, default: camera_x}]\n"}, None,
     ["v.yaml:4:", "slots[0].default", "unknown part type 'camera_x'"]),
    ("slot-default-is-its-own-part", {"v.yaml": W, "parts/widget.yaml": WIDGET + "slots: {s: {default: widget}}\n"},
     None, ["widget.yaml", "slots.s.default", "nest forever"]),
    ("parts-path-missing", {"v.yaml": BOAT}, None, ["AURGEN_PARTS_PATH", "not a directory"]),
    # ---- outputs: confined to the output root, never through a symlink, never over foreign files
    ("target-file-is-a-directory", {"v.yaml": BOAT.replace("y: 0.361", "y: 0.37"), "out/v/v.xml/keep": "mine"},
     None, ["v.xml", "not a regular file", "nothing was written"]),
    ("vehicle-folder-symlink-out", {"v.yaml": BOAT.replace("name: v", "name: w"), "{ABS}/elsewhere/x": "mine",
                                    "out/w": "@link {ABS}/elsewhere"}, None, ["out/w", "symbolic link"]),
    ("target-symlink-out", {"v.yaml": BOAT.replace("name: v", "name: w"), "{ABS}/secret.sdf": "mine",
                            "out/w/.aurgen": "marker", "out/w/model.sdf": "@link {ABS}/secret.sdf"}, None,
     ["model.sdf", "symbolic link"]),
    ("foreign-vehicle-folder", {"v.yaml": BOAT.replace("name: v", "name: w"), "out/w/notes.txt": "mine"}, None,
     ["out/w", "files aurgen did not write (notes.txt)"]),
    ("output-root-is-a-file", {"v.yaml": BOAT, "o2": "mine"}, ["build", "v.yaml", "-o", "o2"],
     ["o2", "not a folder"]),
    ("report-over-foreign-folder", {"p/src/main.c": "int main;"}, ["report", "blueboat.yaml", "-o", "p",
                                                                   "--no-roll-decay", "--quiet"],
     ["p", "files aurgen did not write (src)"]),
    ("report-over-a-file", {"p": "mine"}, ["report", "blueboat.yaml", "-o", "p", "--no-roll-decay", "--quiet"],
     ["p", "not a folder"]),
    ("report-payload-nan", {}, ["report", "blueboat.yaml", "--payload-at", "nan 0 0", "--quiet"],
     ["--payload-at", "finite"]),
    ("report-payload-words", {}, ["report", "blueboat.yaml", "--payload-at", "x y z", "--quiet"],
     ["--payload-at", "three finite numbers"]),
    # ---- worlds: names are identifiers too
    ("world-file-name-injection", {"a--><inject/><!--b.yaml": "planes: {}\ncells: {}\n"},
     ["worlds", "a--><inject/><!--b.yaml", "-o", "out"], ["a--><inject/><!--b.yaml", "world is named by its file"]),
    ("world-placement-name-path", {"w.yaml": "planes: {surface: {normal: [0, 0, 1], offset: 0}}\n"
                                   "cells: {water: {below: [surface], density: 1025}}\n"
                                   "vehicles: [{config: blueboat.yaml, name: ../../x}]\n"},
     ["worlds", "w.yaml", "-o", "out"], ["w.yaml:3:", "vehicles[0].name", "is not a name"]),
    ("world-cell-name-newline", {"w.yaml": "planes: {surface: {normal: [0, 0, 1], offset: 0}}\n"
                                 "cells: {\"wa\\nter\": {below: [surface], density: 1025}}\n"},
     ["worlds", "w.yaml", "-o", "out"], ["w.yaml:2:", "cells.wa", "is not a name"]),
    # ---- aurgen sim: arguments checked before the run
    ("sim-duration-huge", {}, ["sim", "out/v/v.xml", "--water", "1025", "--duration", "1e300", "--quiet"],
     ["--duration", "more than the 10000000"]),
    ("sim-duration-below-a-step", {}, ["sim", "out/v/v.xml", "--duration", "1e-9", "--quiet"],
     ["--duration", "shorter than one step"]),
    ("sim-duration-negative", {}, ["sim", "out/v/v.xml", "--duration", "-1", "--quiet"],
     ["--duration", "positive, finite"]),
    ("sim-duration-nan", {}, ["sim", "out/v/v.xml", "--duration", "nan", "--quiet"], ["--duration", "finite"]),
    ("sim-out-missing-folder", {}, ["sim", "out/v/v.xml", "--out", "{ABS}/nowhere/run.csv", "--quiet"],
     ["--out", "does not exist"]),
    ("sim-out-is-a-folder", {}, ["sim", "out/v/v.xml", "--out", "out", "--quiet"], ["--out", "is a folder"]),
    ("sim-plot-missing-folder", {}, ["sim", "out/v/v.xml", "--plot", "{ABS}/nowhere/x.png", "--quiet"],
     ["--plot", "does not exist"]),
    ("sim-water-nan", {}, ["sim", "out/v/v.xml", "--water", "nan", "--quiet"], ["--water", "fluid density"]),
    ("sim-water-on-a-world", {"w.xml": '<mujoco><custom><text name="aurgen:environment" data=\'{"planes": '
                              '[[0, 0, 1, 0]], "cells": [{"name": "water", "signs": [-1], "density": 1025.0, '
                              '"viscosity": 0.001, "flow": [0, 0, 0]}], "gravity": {"type": "uniform", '
                              '"g": [0, 0, -9.81]}}\'/></custom><worldbody/></mujoco>'},
     ["sim", "w.xml", "--water", "1025", "--quiet"], ["w.xml", "--water", "carries one"]),
    # ---- aurgen sim: a hand-edited environment JSON is refused naming the key, never a traceback
    ("env-planes-a-number", {"w.xml": _world(ENV_OK.replace('[[0, 0, 1, 0]]', "5"))},
     ["sim", "w.xml", "--quiet"], ["w.xml", "aurgen:environment", "planes: expected a list, got 5"]),
    ("env-cells-of-strings", {"w.xml": _world(ENV_OK.replace('[{"name": "water", "signs": [-1], "density": 1025.0}]',
                                                             '["water"]'))},
     ["sim", "w.xml", "--quiet"], ["w.xml", "cells[0]: expected an object", "'water'"]),
    ("env-sign-a-string", {"w.xml": _world(ENV_OK.replace('"signs": [-1]', '"signs": ["x"]'))},
     ["sim", "w.xml", "--quiet"], ["w.xml", "cells[0] ('water').signs[0]", "expected -1, 0 or +1"]),
    ("env-sign-fraction", {"w.xml": _world(ENV_OK.replace('"signs": [-1]', '"signs": [-0.5]'))},
     ["sim", "w.xml", "--quiet"], ["w.xml", "cells[0] ('water').signs[0]", "got -0.5"]),
    ("env-gravity-a-word", {"w.xml": _world(ENV_OK.replace('{"type": "uniform", "g": [0, 0, -9.81]}', '"down"'))},
     ["sim", "w.xml", "--quiet"], ["w.xml", "gravity: expected an object", "'down'"]),
    ("env-density-a-string", {"w.xml": _world(ENV_OK.replace('1025.0', '"1025"'))},
     ["sim", "w.xml", "--quiet"], ["w.xml", "cells[0] ('water').density: expected a finite number"]),
    ("env-unknown-cell-key", {"w.xml": _world(ENV_OK.replace('"density"', '"densty"'))},
     ["sim", "w.xml", "--quiet"], ["w.xml", "cells[0].densty: unknown key"]),
]
ENV = {"parts-path-missing": {"AURGEN_PARTS_PATH": "{ABS}/nowhere"}}


@pytest.fixture(scope="session")
def good_build(tmp_path_factory):
    """A folder with ``good.yaml`` (vehicle ``v``) built into ``out/``."""
    root = tmp_path_factory.mktemp("good")
    (root / "good.yaml").write_text(BOAT)
    cwd = os.getcwd()
    os.chdir(root)
    try:
        assert main(["build", "good.yaml", "-o", "out"]) == 0
    finally:
        os.chdir(cwd)
    return root


def fingerprint(*roots: Path) -> dict:
    """{path: (kind, sha256 or link target)} of everything under ``roots``."""
    out = {}
    for root in roots:
        if not root.exists() and not root.is_symlink():
            continue
        for dirpath, dirnames, filenames in os.walk(root):
            for n in dirnames + filenames:
                p = Path(dirpath) / n
                if p.is_symlink():
                    out[str(p)] = ("link", os.readlink(p))
                elif p.is_dir():
                    out[str(p)] = ("dir", "")
                else:
                    out[str(p)] = ("file", hashlib.sha256(p.read_bytes()).hexdigest())
    return out


def setup_case(tmp_path: Path, good: Path, files: dict) -> tuple[Path, Path]:
    """(work folder, absolute-target folder): ``work`` = tmp/a/b/work holding ``out/`` from the good build."""
    work = tmp_path / "a" / "b" / "work"
    shutil.copytree(good, work, symlinks=True)
    abs_dir = tmp_path / "abs"
    abs_dir.mkdir()
    for rel, text in files.items():
        rel = rel.replace("{ABS}", str(abs_dir))
        p = Path(rel) if os.path.isabs(rel) else work / rel
        if p.parent.is_file():  # a case turning a built file into a folder
            p.parent.unlink()
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, str) and text.startswith("@link "):
            p.symlink_to(text[len("@link "):].replace("{ABS}", str(abs_dir)))
        elif isinstance(text, bytes):
            p.write_bytes(text)
        else:
            p.write_text(text.replace("{ABS}", str(abs_dir)))
    return work, abs_dir


def run_refused(capsys, monkeypatch, tmp_path, good, files, argv, expected, env=None):
    work, abs_dir = setup_case(tmp_path, good, files)
    for k, v in (env or {}).items():
        monkeypatch.setenv(k, v.replace("{ABS}", str(abs_dir)))
    monkeypatch.chdir(work)
    before = fingerprint(tmp_path)
    code = main([a.replace("{ABS}", str(abs_dir)) for a in argv] if argv else ["build", "v.yaml", "-o", "out"])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert code == 2, err
    assert err.startswith("aurgen: error: ") and err.count("\n") == 1, err
    for want in expected:
        assert want.replace("{ABS}", str(abs_dir)) in err, f"{want!r} not in {err!r}"
    after = fingerprint(tmp_path)
    assert after == before, sorted(set(after.items()) ^ set(before.items()))[:5]
    return err


@pytest.mark.parametrize("case,files,argv,expected", CASES, ids=[c[0] for c in CASES])
def test_hostile_input_is_refused(capsys, monkeypatch, tmp_path, good_build, case, files, argv, expected):
    run_refused(capsys, monkeypatch, tmp_path, good_build, files, argv, expected, ENV.get(case))


def test_case_ids_are_unique():
    ids = [c[0] for c in CASES]
    assert len(ids) == len(set(ids))


def test_sim_state_reset_is_invalid_and_writes_nothing(capsys, monkeypatch, tmp_path, good_build):
    """A world whose central gravity sits a millimetre below the boat's origin (g ~ 4e20 m/s^2): MuJoCo
    resets the state every step. Exit 1 (invalid, not bad input), the health says how many resets and
    how far the clock got, nothing says settled, and no MUJOCO_LOG.TXT (or anything else) is written."""
    env = ('{"planes": [[0, 0, 1, 0]], "cells": [{"name": "water", "signs": [-1], "density": 1025.0}], '
           '"gravity": {"type": "central", "mu": 3.986e14, "centre": [0, 0, -0.001]}}')
    boat = (good_build / "out" / "v" / "v.xml").read_text()
    world = boat.replace("</mujoco>", f"<custom><text name=\"aurgen:environment\" data='{env}'/></custom></mujoco>")
    work, _ = setup_case(tmp_path, good_build, {"w.xml": world})
    monkeypatch.chdir(work)
    before = fingerprint(tmp_path)
    code = main(["sim", "w.xml", "--duration", "0.2", "--quiet"])
    cap = capsys.readouterr()
    assert "Traceback" not in cap.err and "WARNING" not in cap.out + cap.err
    assert code == 1, cap.out + cap.err
    assert "MuJoCo reset the state" in cap.out and "simulated time reached" in cap.out, cap.out
    assert "settled" not in cap.out.split("health:")[1], cap.out
    assert fingerprint(tmp_path) == before
