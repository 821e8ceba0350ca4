"""Batteries in their tubes, heel and discontinued parts (issue 23, issue 37).

A pack placed off its tube's axis or too big for the tube is a ConfigError naming the tube and the sizes
(the BlueROV2's lower tube: Blue Robotics 3" Series, 0.0762 m inner diameter; the BlueBoat's eight
pontoon bays, 0.12 m across and packs up to 0.20 m long, the reference's per-slot battery envelope, each
pack's ends within its pontoon's own tube, issue 45); a static heel beyond
aurgen.compose.fit.HEEL_WARN_DEG in the specs' equilibrium and a part marked ``discontinued:`` are a
warning on stderr, the build exiting 0.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from aurgen.cli import main
from aurgen.compose import fit
from aurgen.compose.resolve import resolve
from aurgen.compose.stamp import equilibrium_of
from aurgen.core.errors import AurgenError
from aurgen.emit.build import build

ROOT = Path(__file__).parents[2]
PARTS = ROOT / "vehicles" / "parts"


def _vehicle(tmp_path, bundled: str, name: str, line: str, extra_parts: dict | None = None) -> Path:
    """The bundled vehicle ``bundled`` renamed ``name``, with ``line`` as its only parts entry, written to
    ``tmp_path/<name>.yaml`` (``extra_parts`` beside it under parts/)."""
    text = (ROOT / "vehicles" / f"{bundled}.yaml").read_text(encoding="utf-8")
    assert "\nparts: []\n" in text
    p = tmp_path / f"{name}.yaml"
    p.write_text(text.replace("\nparts: []\n", "\nparts:\n" + line + "\n", 1).replace(f"name: {bundled}\n", f"name: {name}\n"),
                 encoding="utf-8")
    (tmp_path / "parts").mkdir(exist_ok=True)
    for part, body in (extra_parts or {}).items():
        (tmp_path / "parts" / f"{part}.yaml").write_text(body, encoding="utf-8")
    return p


def _rov(tmp_path, line: str, extra_parts: dict | None = None) -> Path:
    return _vehicle(tmp_path, "bluerov2", "rov", line, extra_parts)


def _line(p: Path, needle: str) -> int:
    return next(i for i, s in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if needle in s)


def test_the_bundled_packs_fit_the_rov_tube():
    for typ in ("br_liion_18ah", "br_lipo_10ah", "br_liion_15_6ah"):
        d, length, _ = fit.pack_envelope(resolve_part(typ))
        assert d <= 0.0762 and length <= 0.290967, typ


def resolve_part(typ):
    from aurgen.config.catalog import catalog_for

    return catalog_for(None).get(typ)


@pytest.mark.parametrize("line, key, words", [
    ("  - {slot: battery, type: br_liion_18ah, xyz: [0, 0.02, 0]}", "parts[0].xyz", "off the axis"),
    ("  - {slot: battery, type: br_liion_18ah, rpy: [0, 0, 1.5707963267948966]}", "parts[0].rpy", "off the axis"),
    ("  - {slot: battery, type: br_liion_18ah, xyz: [0.1, 0, 0]}", "parts[0].xyz", "does not fit"),
    ("  - {slot: battery, type: big_pack}", "parts[0].type", "0.09 m across, the tube 0.0762 m"),
    ("  - {slot: battery, type: long_pack}", "parts[0].type", "does not fit"),
])
def test_a_pack_that_cannot_sit_in_its_tube_is_refused(tmp_path, line, key, words):
    pack = (PARTS / "br_liion_18ah.yaml").read_text(encoding="utf-8")
    big = pack.replace("diameter: 0.074", "diameter: 0.09")
    long = pack.replace("length: 0.145", "length: 0.3")
    slot = (PARTS / "bluerov2_chassis.yaml").read_text(encoding="utf-8").replace(
        "accepts: [br_liion_18ah,", "accepts: [big_pack, long_pack, br_liion_18ah,")
    p = _rov(tmp_path, line, {"big_pack": big, "long_pack": long, "bluerov2_chassis": slot})
    with pytest.raises(AurgenError) as exc:
        resolve(str(p))
    msg = str(exc.value)
    assert key in msg and words in msg and f"{p}:{_line(p, line.strip())}:" in msg, msg
    assert "slot 'battery' of 'base_link'" in msg and "inner diameter 0.0762 m, length 0.290967 m" in msg, msg
    assert "pack '" in msg and "diameter" in msg, msg
    code = main(["build", str(p), "-o", str(tmp_path / "out")])
    assert code == 2 and not (tmp_path / "out").exists()


def _boat(tmp_path, line: str, extra_parts: dict | None = None) -> Path:
    return _vehicle(tmp_path, "blueboat", "boat", line, extra_parts)


BAYS = ("port_fwd", "port_mid_fwd", "port_mid_aft", "port_aft", "stbd_fwd", "stbd_mid_fwd", "stbd_mid_aft", "stbd_aft")


def _pontoon_ends() -> tuple:
    """The x of the BlueBoat pontoon cylinder's ends in base_link, read from the chassis' collision geometry."""
    import yaml

    chassis = yaml.safe_load((PARTS / "blueboat_chassis.yaml").read_text(encoding="utf-8"))
    cyl = [g for g in chassis["collision"] if g["shape"] == "cylinder"]
    assert len(cyl) == 2 and cyl[0]["xyz"][0] == cyl[1]["xyz"][0] and cyl[0]["length"] == cyl[1]["length"]
    return cyl[0]["xyz"][0] - cyl[0]["length"] / 2, cyl[0]["xyz"][0] + cyl[0]["length"] / 2


def test_every_blueboat_battery_slot_is_a_bay_every_bundled_pack_fits(tmp_path):
    slots = {s.name: s for s in resolve_part("blueboat_chassis").slots}
    lo, hi = _pontoon_ends()
    for n in BAYS:  # across and the longest pack: the reference's envelope; along x: the pontoon's own tube
        d, length, ends = slots[n].tube
        assert (d, length) == (0.12, 0.20), n
        x = slots[n].xyz[0]
        assert ends == pytest.approx((lo - x, hi - x), abs=1e-6), n
    for typ in ("br_liion_18ah", "br_lipo_10ah", "br_liion_15_6ah"):
        d, length, _ = fit.pack_envelope(resolve_part(typ))
        assert d <= 0.12 - 0.04 and length <= 0.20 - 0.03, typ  # the margins the chassis file states
        p = _boat(tmp_path, "\n".join(f"  - {{slot: {n}, type: {typ}}}" for n in BAYS))
        v = resolve(str(p))
        assert sorted(n for t, n in v.specs.parts if t == typ) == sorted(BAYS)


def test_the_peers_in_slot_offset_is_accepted(tmp_path):
    """The public xacro implementation's own case: an 18 Ah pack in port_aft slid 3 cm along x. Its end
    reaches 0.1025 m from the slot, past the reference's 0.20 m envelope but well inside the pontoon
    (refused before issue 45: "reaches 0.1025 m from the tube's centre, the tube 0.1 m")."""
    p = _boat(tmp_path, "  - {slot: port_aft, type: br_liion_18ah, xyz: [0.03, 0, 0]}")
    v = resolve(str(p))
    assert ("br_liion_18ah", "port_aft") in v.specs.parts
    assert main(["build", str(p), "-o", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "boat" / "boat.xml").is_file()


@pytest.mark.parametrize("line, key, words, hint", [
    ("  - {slot: port_fwd, type: br_liion_18ah, xyz: [0, 0.02, 0]}", "parts[0].xyz", "off the axis",
     "offset the pack along x only"),
    ("  - {slot: stbd_aft, type: br_liion_18ah, rpy: [0, 0, 0.3]}", "parts[0].rpy", "off the axis",
     "rotate it about x only"),
    # outside the hull: the pack's ends past its pontoon's, forward and aft
    ("  - {slot: port_fwd, type: br_liion_18ah, xyz: [0.23, 0, 0]}", "parts[0].xyz",
     "its ends reach x 0.1575 .. 0.3025 m of the slot, past the tube's ends at -0.7788 and 0.272 m",
     "slide it along x within the tube's ends"),
    ("  - {slot: stbd_aft, type: br_liion_18ah, xyz: [-0.1, 0, 0]}", "parts[0].xyz",
     "its ends reach x -0.1725 .. -0.0275 m of the slot, past the tube's ends at -0.1188 and 0.932 m",
     "slide it along x within the tube's ends"),
    # longer than the compartment, though the pontoon would hold it
    ("  - {slot: port_fwd, type: long_pack}", "parts[0].type",
     "(diameter 0.074 m, length 0.5 m) does not fit", "fit a smaller pack"),
    ("  - {slot: port_mid_aft, type: long_pack}", "parts[0].type",
     "0.5 m long, the longest pack the tube takes 0.2 m", "fit a smaller pack"),
    ("  - {slot: stbd_mid_fwd, type: fat_pack}", "parts[0].type", "0.13 m across, the tube 0.12 m",
     "fit a smaller pack"),
])
def test_a_pack_that_cannot_sit_in_its_blueboat_bay_is_refused(tmp_path, line, key, words, hint):
    pack = (PARTS / "br_liion_18ah.yaml").read_text(encoding="utf-8")
    chassis = (PARTS / "blueboat_chassis.yaml").read_text(encoding="utf-8").replace(
        "accepts: [br_liion_18ah,", "accepts: [long_pack, fat_pack, br_liion_18ah,")
    p = _boat(tmp_path, line, {"long_pack": pack.replace("length: 0.145", "length: 0.5"),
                               "fat_pack": pack.replace("diameter: 0.074", "diameter: 0.13"),
                               "blueboat_chassis": chassis})
    with pytest.raises(AurgenError) as exc:
        resolve(str(p))
    msg = str(exc.value)
    slot = line.split("slot: ")[1].split(",")[0]
    assert f"{p}:{_line(p, line.strip())}: {key}:" in msg and words in msg and hint in msg, msg
    assert f"tube of slot '{slot}' of 'base_link' (inner diameter 0.12 m, length 0.2 m, ends at x " in msg, msg
    code = main(["build", str(p), "-o", str(tmp_path / "out")])
    assert code == 2 and not (tmp_path / "out").exists()


def test_a_blueboat_pack_slid_and_turned_about_the_bay_axis_is_fine(tmp_path):
    p = _boat(tmp_path, "  - {slot: port_aft, type: br_liion_18ah, xyz: [-0.0275, 0, 0], rpy: [1.2, 0, 0]}")
    resolve(str(p))


def test_rotating_a_pack_about_the_tube_axis_and_sliding_it_along_is_fine(tmp_path):
    p = _rov(tmp_path, "  - {slot: battery, type: br_liion_18ah, xyz: [0.05, 0, 0], rpy: [0.7, 0, 0]}")
    resolve(str(p))


def test_a_one_sided_loadout_warns_of_its_heel_and_builds(tmp_path, capsys):
    # the BlueBoat with 15 kg on the port pontoon: a static heel well beyond 5 deg (the ROVs' CoB is
    # declared from their CoM, so they float upright whatever they carry)
    block = (PARTS / "br_liion_18ah.yaml").read_text(encoding="utf-8").replace("mass: 1.400", "mass: 15.0")
    text = (ROOT / "vehicles" / "blueboat.yaml").read_text(encoding="utf-8")
    assert "\nparts: []\n" in text
    p = tmp_path / "boat.yaml"
    p.write_text(text.replace("\nparts: []\n", "\nparts:\n  - {type: block, name: block, xyz: [0, 0.36, 0.1]}\n", 1)
                 .replace("name: blueboat\n", "name: boat\n"), encoding="utf-8")
    (tmp_path / "parts").mkdir()
    (tmp_path / "parts" / "block.yaml").write_text(block.split("battery:")[0], encoding="utf-8")
    v = resolve(str(p))
    heel = math.degrees(equilibrium_of(v).heel)
    assert abs(heel) > fit.HEEL_WARN_DEG, heel
    assert main(["build", str(p), "-o", str(tmp_path / "out")]) == 0
    err = capsys.readouterr().err
    assert f"aurgen: warning: {p}: 'boat' floats at a static heel of {heel:+.2f} deg, beyond 5 deg" in err, err
    assert "Traceback" not in err and (tmp_path / "out" / "boat" / "model.sdf").is_file()


def test_a_discontinued_part_warns_and_builds(tmp_path, capsys):
    p = _rov(tmp_path, "  - {slot: battery, type: br_liion_15_6ah}")
    assert main(["build", str(p), "-o", str(tmp_path / "out")]) == 0
    err = capsys.readouterr().err
    assert ("aurgen: warning: " + str(p) + ": part 'battery' is a br_liion_15_6ah, marked discontinued in its "
            "catalog entry (replaced by the 18 Ah pack (br_liion_18ah))") in err, err


def test_the_bundled_vehicles_build_without_a_warning(tmp_path):
    said = []
    build([str(ROOT / "vehicles" / f"{n}.yaml") for n in ("blueboat", "bluerov2", "bluerov2_heavy")],
          tmp_path / "out", warn=said.append)
    assert said == []


@pytest.mark.parametrize("old, new, key", [
    ("tube: {diameter: 0.0762, length: 0.290967}", "tube: {diameter: 0.0762}", "slots.battery.tube.length"),
    ("tube: {diameter: 0.0762, length: 0.290967}", "tube: {diameter: -1, length: 0.29}", "slots.battery.tube.diameter"),
    ("default: br_liion_18ah\n", "default: br_liion_18ah\n    tube: 3\n", "slots.battery.tube"),
    ("tube: {diameter: 0.0762, length: 0.290967}", "tube: {diameter: 0.0762, length: 0.29, ends: [0.1, -0.2]}",
     "slots.battery.tube.ends"),
    ("tube: {diameter: 0.0762, length: 0.290967}", "tube: {diameter: 0.0762, length: 0.29, ends: [-0.1, 0.1]}",
     "slots.battery.tube.ends"),
    ("tube: {diameter: 0.0762, length: 0.290967}", "tube: {diameter: 0.0762, length: 0.29, ends: [0, 1, 2]}",
     "slots.battery.tube.ends"),
])
def test_a_bad_tube_is_refused_naming_it(tmp_path, old, new, key):
    text = (PARTS / "bluerov2_chassis.yaml").read_text(encoding="utf-8")
    assert old in text
    if "tube: 3" in new:
        text = text.replace("    tube: {diameter: 0.0762, length: 0.290967}\n", "")
    p = _rov(tmp_path, "", {"bluerov2_chassis": text.replace(old, new)})
    with pytest.raises(AurgenError) as exc:
        resolve(str(p))
    assert key in str(exc.value) and "bluerov2_chassis.yaml" in str(exc.value), str(exc.value)


def test_a_bad_discontinued_is_refused(tmp_path):
    pack = (PARTS / "br_liion_18ah.yaml").read_text(encoding="utf-8")
    p = _rov(tmp_path, "", {"br_liion_18ah": pack.replace("mass: 1.400", "discontinued: 3\nmass: 1.400")})
    with pytest.raises(AurgenError) as exc:
        resolve(str(p))
    assert "discontinued" in str(exc.value) and "br_liion_18ah.yaml:" in str(exc.value), str(exc.value)
