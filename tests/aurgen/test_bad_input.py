"""Every kind of bad input: exit 2, a message naming the file and key, no traceback."""

import textwrap

import pytest

from aurgen.cli import main

HULL = "hull_displacement: {length: 1.05, width: 0.18, height: 0.18, x: 0.027, y: 0.361, z: 0.059, segments: 6}\n"
BOAT = "base: {type: blueboat_chassis}\n" + HULL
ROV = "base: {type: bluerov2_chassis}\n"


def run_specs(capsys, path):
    code = main(["specs", str(path)])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return code, err


# (case id, vehicle yaml, extra part files {name: yaml}, substrings the message must hold)
CASES = [
    ("yaml-syntax", "base: {type: blueboat_chassis\n" + HULL, {}, ["v.yaml:", "YAML syntax error"]),
    ("empty-file", "", {}, ["v.yaml", "empty"]),
    ("unknown-key", BOAT + "hull_displacment: {}\n", {}, ["hull_displacment", "unknown key",
                                                          "did you mean 'hull_displacement'"]),
    ("unknown-nested-key", BOAT.replace("segments: 6", "segments: 6, lenght: 1"), {},
     ["hull_displacement.lenght", "did you mean 'length'"]),
    ("wrong-type", BOAT.replace("width: 0.18", "width: wide"), {}, ["hull_displacement.width", "expected a number"]),
    ("nan", BOAT.replace("height: 0.18", "height: .nan"), {}, ["hull_displacement.height", "finite"]),
    ("inf", BOAT.replace("x: 0.027", "x: .inf"), {}, ["hull_displacement.x", "finite"]),
    ("zero-mass", "base: {type: widget}\n" + HULL, {"widget": "mass: 0\ninertia: {ixx: 1, iyy: 1, izz: 1}\n"},
     ["widget.yaml", "mass", "positive"]),
    ("negative-mass", "base: {type: widget}\n" + HULL, {"widget": "mass: -2\ninertia: {ixx: 1, iyy: 1, izz: 1}\n"},
     ["widget.yaml", "mass", "positive"]),
    ("inertia-not-pd", "base: {type: widget}\n" + HULL,
     {"widget": "mass: 1\ninertia: {ixx: 1, iyy: 1, izz: 1, ixy: 2}\n"}, ["widget.yaml", "inertia", "positive definite"]),
    ("inertia-triangle", "base: {type: widget}\n" + HULL,
     {"widget": "mass: 1\ninertia: {ixx: 1, iyy: 1, izz: 3}\n"}, ["widget.yaml", "inertia", "triangle inequality"]),
    ("unknown-part-type", "base: {type: blueboat_chasis}\n" + HULL, {},
     ["base.type", "unknown part type 'blueboat_chasis'", "did you mean 'blueboat_chassis'"]),
    ("unknown-slot", BOAT + "parts: [{slot: mastt, type: blueboat_antenna_mast}]\n", {},
     ["parts[0].slot", "unknown slot 'mastt' on 'base_link'", "known:", "motor_port", "did you mean 'mast'"]),
    ("slot-rejects-type", BOAT + "parts: [{slot: mast, type: blueboat_flag}]\n", {},
     ["parts[0].type", "'blueboat_flag' does not fit slot 'mast' of 'base_link'", "accepts [blueboat_antenna_mast]"]),
    ("slot-twice", BOAT + "parts: [{slot: mast, type: blueboat_antenna_mast}, {slot: mast, type: none}]\n", {},
     ["parts[1].slot", "slot 'mast' of 'base_link' is configured 2 times"]),
    ("duplicate-instance", BOAT + "parts: [{slot: mast, type: blueboat_antenna_mast, name: flag}]\n", {},
     ["duplicate name 'flag'"]),
    ("bare-on", BOAT + "parts: [{slot: ping, on: ping_mount, type: none}]\n", {},
     ["parts[0].on", "bare 'on:' key", "'of:'"]),
    ("mass-at-top", BOAT + "mass: 12.3\n", {}, ["v.yaml", "mass", "derived from its parts", "catalog entry"]),
    ("mass-on-entry", BOAT + "parts: [{slot: mast, type: blueboat_antenna_mast, mass: 0.4}]\n", {},
     ["parts[0].mass", "catalog entry"]),
    ("zero-segments", BOAT.replace("segments: 6", "segments: 0"), {}, ["hull_displacement.segments", "at least 1"]),
    ("negative-size", BOAT.replace("length: 1.05", "length: -1.05"), {}, ["hull_displacement.length", "positive"]),
    ("negative-footprint", ROV + "buoyancy: {footprint: [0.457, -0.338]}\n", {}, ["buoyancy.footprint", "positive"]),
    ("box-height-nonpositive", ROV + "buoyancy: {net_buoyancy: -20.0}\n", {},
     ["buoyancy.net_buoyancy", "non-positive height"]),
    ("box-height-absurd", ROV + "buoyancy: {footprint: [0.00457, 0.00338]}\n", {},
     ["buoyancy.footprint", "m tall"]),
    ("cob-frame", ROV + "buoyancy: {cob_frame: hull}\n", {}, ["buoyancy.cob_frame", "com, base_link"]),
    ("fluid-density", ROV + "buoyancy: {fluid_density: 0}\n", {}, ["buoyancy.fluid_density", "positive"]),
    ("fluid-density-usv", BOAT.replace("segments: 6", "segments: 6, fluid_density: -1000"), {},
     ["hull_displacement.fluid_density", "positive"]),
    ("no-displacement", "base: {type: blueboat_chassis}\n", {}, ["no displacement declared"]),
    ("both-displacements", BOAT + "buoyancy: {net_buoyancy: 0}\n", {}, ["either hull_displacement", "not both"]),
    ("unknown-of", BOAT + "parts: [{slot: ping, of: nowhere, type: none}]\n", {},
     ["parts[0].of", "no instance named 'nowhere'"]),
    ("free-needs-name", BOAT + "parts: [{type: basestation_antenna}]\n", {}, ["needs name and xyz"]),
    ("hydro-name", BOAT + "hydrodynamics: {xUabsu: -3}\n", {}, ["hydrodynamics.xUabsu", "did you mean 'xUabsU'"]),
    ("part-unknown-key", "base: {type: widget}\n" + HULL,
     {"widget": "mass: 1\ninertia: {ixx: 1, iyy: 1, izz: 1}\ncolision: []\n"}, ["widget.yaml", "colision",
                                                                              "did you mean 'collision'"]),
    ("part-no-inertia", "base: {type: widget}\n" + HULL, {"widget": "mass: 1\n"}, ["widget.yaml", "no inertia"]),
    ("top-level-list", "- base\n", {}, ["expected a mapping"]),
    ("duplicate-key", BOAT + "base: {type: blueboat_chassis}\n", {}, ["base", "duplicate key"]),
]


@pytest.mark.parametrize("case,vehicle,parts,expected", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_a_clear_error(tmp_path, capsys, case, vehicle, parts, expected):
    for name, text in parts.items():
        (tmp_path / "parts").mkdir(exist_ok=True)
        (tmp_path / "parts" / f"{name}.yaml").write_text(textwrap.dedent(text))
    path = tmp_path / "v.yaml"
    path.write_text(vehicle)
    code, err = run_specs(capsys, path)
    assert code == 2, err
    assert err.startswith("aurgen: error: "), err
    for want in expected:
        assert want in err, f"{want!r} not in {err!r}"


def test_missing_file(tmp_path, capsys):
    code, err = run_specs(capsys, tmp_path / "nope.yaml")
    assert code == 2 and "nope.yaml" in err and "not found" in err


def test_error_names_the_line(tmp_path, capsys):
    path = tmp_path / "v.yaml"
    path.write_text(BOAT + "parts:\n  - {slot: mast, type: blueboat_antenna_mast}\n  - {slot: mastt, type: none}\n")
    code, err = run_specs(capsys, path)
    assert code == 2 and f"{path}:5:" in err, err  # BOAT is 2 lines, then parts:


def test_bundled_name_resolves_from_anywhere(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["specs", "blueboat.yaml"]) == 0
    assert "total mass:" in capsys.readouterr().out
    assert main(["specs", "bluerov2"]) == 0


def test_local_vehicles_dir_wins_over_bundled(tmp_path, monkeypatch, capsys):
    (tmp_path / "vehicles").mkdir()
    (tmp_path / "vehicles" / "blueboat.yaml").write_text(BOAT + "name: mine\n")
    monkeypatch.chdir(tmp_path)
    assert main(["specs", "blueboat.yaml", "--json"]) == 0
    assert '"name": "mine"' in capsys.readouterr().out
