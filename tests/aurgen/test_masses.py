"""The bundled vehicles' masses against the published figures (issue 12).

Independent figures, never the catalog's own numbers:
- Blue Robotics' BlueBoat technical details: 14.5 kg without batteries or payload.
- Blue Robotics' BlueROV2 technical details: 10-11 kg, standard frame with ballast, no battery.
- The reference models (docs/sources.md §4): the default BlueROV2 composes to
  9.4 + 6 x 0.3049466 + 6 x 0.0390534 + 0.08 = 11.544 kg (its 9.4 kg chassis includes the
  battery), the Heavy to 15.582 kg, with the standard's CoM at about (0.00891, -0.00004, 0.01190).
- The legacy pack table (§1c): br_liion_18ah weighs 1.400 kg.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from aurgen.emit.build import bundled_vehicles
from aurgen.config.catalog import catalog_for
from aurgen.compose.resolve import resolve

VEHICLES = {p.stem: p for p in bundled_vehicles()}
PACK_18AH = 1.400  # kg, facts §1c


def _variant(tmp_path: Path, name: str, parts: str) -> Path:
    """The bundled config ``name`` with its ``parts:`` list replaced (same catalog: the bundled one)."""
    text = VEHICLES[name].read_text(encoding="utf-8")
    assert "\nparts: []\n" in text
    p = tmp_path / f"{name}.yaml"
    p.write_text(text.replace("\nparts: []\n", f"\nparts: {parts}\n"), encoding="utf-8")
    return p


def _battery_slots(vehicle) -> list[str]:
    """The battery-holding instances of a resolved vehicle (parts with a battery table)."""
    cat = catalog_for(vehicle.source)
    return [name for t, name in vehicle.specs.parts if cat.get(t).battery is not None]


def test_blueboat_without_batteries_weighs_the_published_14_5_kg(tmp_path):
    v = resolve(VEHICLES["blueboat"])
    fitted = _battery_slots(v)
    assert sorted(fitted) == ["port_mid_fwd", "stbd_mid_fwd"]  # the shipped loadout
    empty = "[" + ", ".join(f"{{slot: {s}, type: none}}" for s in fitted) + "]"
    bare = resolve(_variant(tmp_path, "blueboat", empty))
    assert _battery_slots(bare) == []
    assert bare.specs.total_mass == pytest.approx(14.5, abs=1e-9)
    # the batteries are parts on top: two 18 Ah packs
    assert v.specs.total_mass == pytest.approx(14.5 + 2 * PACK_18AH, abs=1e-9)


@pytest.mark.parametrize("name, reference", [
    ("bluerov2", 9.4 + 6 * 0.3049466 + 6 * 0.0390534 + 0.08),       # 11.544 kg
    ("bluerov2_heavy", 12.75 + 8 * 0.3049466 + 8 * 0.0390534 + 0.08),  # 15.582 kg
])
def test_rov_with_its_pack_weighs_the_reference_total(name, reference):
    v = resolve(VEHICLES[name])
    assert _battery_slots(v) == ["battery"]
    assert v.specs.total_mass == pytest.approx(reference, abs=1e-9)


def test_rov_com_is_the_reference_composition():
    # facts §4: CoM ~ (0.00891, -0.00004, 0.01190), printed to 5 decimals. y moved by +7e-6 since
    # t200_prop_ccw was balanced on its axis (the reference's ccw CoM was 2.8 mm off it).
    c = resolve(VEHICLES["bluerov2"]).specs.com
    assert c[0] == pytest.approx(0.00891, abs=5e-6)
    assert c[1] == pytest.approx(-0.00004, abs=1e-5)
    assert c[2] == pytest.approx(0.01190, abs=5e-6)


def test_standard_rov_without_its_pack_is_in_the_published_range(tmp_path):
    bare = resolve(_variant(tmp_path, "bluerov2", "[{slot: battery, type: none}]"))
    assert _battery_slots(bare) == []
    assert 10.0 <= bare.specs.total_mass <= 11.0


@pytest.mark.parametrize("name", sorted(VEHICLES))
def test_every_propeller_is_balanced_on_its_spin_axis(name):
    v = resolve(VEHICLES[name])
    for t in v.thrusters:
        link = v.link(t.link)
        com = np.asarray(link.com, dtype=float)
        ax = np.asarray(t.axis, dtype=float)
        off_axis = com - ax * float(com @ ax)
        assert np.linalg.norm(off_axis) <= 1e-12, f"{t.name} ({link.part_type}): CoM {com} off its axis {ax}"


def test_every_bundled_part_names_its_source():
    cat = catalog_for(None)
    for t in cat.names():
        text = Path(cat.path_of(t)).read_text(encoding="utf-8")
        assert "Source" in text or "source" in text, f"{t}: no source for its figures"
