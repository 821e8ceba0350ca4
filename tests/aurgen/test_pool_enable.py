"""The pool world's Buoyancy ``<enable>`` list (issue 23): stock gz-sim 8 Buoyancy buoys only the links it
enables (``BuoyancyPrivate::IsEnabled``, src/systems/buoyancy/Buoyancy.cc: an exact ``model::link`` or model
name; an empty list enables every link), so the pool lists each vehicle it places by its displacement link,
as open_water does; a pool placing none lists none (every link of a vehicle spawned there buoys: the
documented behaviour, docs/formats.md).

IsEnabled, the plugin's configuration and the graded-buoyancy equilibrium are tests/aurgen/test_gz_buoyancy.py's
re-implementations of gz-sim's source, reused here.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from lxml import etree

from aurgen.compose.resolve import resolve
from aurgen.emit import worlds
from test_gz_buoyancy import buoyancy_config, check_equilibrium, is_enabled

ROOT = Path(__file__).parents[2]
VEHICLES = {
    "blueboat": ("segments: 6}", "segments: 6, fluid_density: 1000}"),
    "bluerov2": ("fluid_density: 1025.0", "fluid_density: 1000.0"),
}


@pytest.fixture(scope="module")
def pool(tmp_path_factory):
    """The bundled pool with a freshwater BlueBoat and BlueROV2 placed (one twice, under another name)."""
    tmp = tmp_path_factory.mktemp("pool")
    for name, (old, new) in VEHICLES.items():
        text = (ROOT / "vehicles" / f"{name}.yaml").read_text(encoding="utf-8")
        assert old in text
        (tmp / f"{name}_fresh.yaml").write_text(
            text.replace(old, new).replace(f"name: {name}\n", f"name: {name}_fresh\n"), encoding="utf-8")
    text = (ROOT / "worlds" / "pool.yaml").read_text(encoding="utf-8").replace("vehicles: []", """vehicles:
  - {config: blueboat_fresh.yaml, xyz: [0, 0, 0.05]}
  - {config: bluerov2_fresh.yaml, xyz: [3, 0, -1]}
  - {config: bluerov2_fresh.yaml, name: rov_b, xyz: [-3, 0, -1]}""")
    (tmp / "pool.yaml").write_text(text, encoding="utf-8")
    out = tmp / "out"
    worlds.write_worlds([str(tmp / "pool.yaml")], out)
    return tmp, out


def _buoyant(model_sdf, spawned, enable) -> set:
    """The links stock Buoyancy buoys of ``model_sdf`` spawned as ``spawned``, with their collisions."""
    model = etree.parse(str(model_sdf)).getroot().find("model")
    return {(link.get("name"), col.get("name")) for link in model.findall("link")
            if is_enabled(enable, [spawned, link.get("name")]) for col in link.findall("collision")}


def test_the_pool_enables_exactly_its_vehicles_displacement_links(pool):
    tmp, out = pool
    cfg = buoyancy_config(out / "worlds" / "pool.sdf")
    boat, rov = resolve(str(tmp / "blueboat_fresh.yaml")), resolve(str(tmp / "bluerov2_fresh.yaml"))
    assert cfg["enable"] == {f"blueboat_fresh::{boat.displacement.link}", f"bluerov2_fresh::{rov.displacement.link}",
                             f"rov_b::{rov.displacement.link}"}
    for v, spawned in ((boat, "blueboat_fresh"), (rov, "bluerov2_fresh"), (rov, "rov_b")):
        sdf = out / v.name / "model.sdf"
        got = _buoyant(sdf, spawned, cfg["enable"])
        assert got and {link for link, _ in got} == {v.displacement.link}, (spawned, got)
        everything = _buoyant(sdf, spawned, set())  # what an empty list (the old pool) would buoy
        assert got < everything  # windage / water_drag / hull boxes no longer buoy
        # a model spawned under a name the world does not list gets no buoyancy: list it in the config
        assert not _buoyant(sdf, "unlisted", cfg["enable"])


@pytest.mark.parametrize("name, spawned", [("blueboat_fresh", None), ("bluerov2_fresh", None),
                                           ("bluerov2_fresh", "rov_b")])
def test_each_placed_vehicle_floats_at_its_specs_in_the_pool(pool, name, spawned):
    tmp, out = pool
    v = resolve(str(tmp / f"{name}.yaml"))
    check_equilibrium(out / v.name / "model.sdf", out / "worlds" / "pool.sdf", v, spawned)


def test_the_bundled_pool_places_none_and_lists_none(tmp_path):
    worlds.write_worlds(["pool"], tmp_path / "out", build_vehicles=False)
    cfg = buoyancy_config(tmp_path / "out" / "worlds" / "pool.sdf")
    assert cfg["enable"] == set() and is_enabled(cfg["enable"], ["anything", "any_link"])
