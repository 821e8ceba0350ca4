"""What Gazebo weighs and how gz-maritime drags the ROV, read from model.sdf as the consumers read it (issue 23).

Re-implemented from the consumers' source, not from aurgen's own output:

- libsdformat 14 ``src/Link.cc``, ``Link::Load``: a link without ``<inertial>`` keeps the
  default ``gz::math::Inertiald`` of 1 kg; gz-physics 7 ``dartsim/src/SDFFeatures.cc``,
  ``ConstructSdfLink``, gives each DART body the link's ``<mass>`` as written, and the fixed
  joints weld them: the rigid body Gazebo simulates weighs the sum of every ``<inertial>``.
  (A zero mass is no way out: DART asserts on it, gazebosim/gz-physics#849.)
- gz-maritime (HonuRobotics, 13f11a9) ``gz_marked_shapes/src/MarkedShapes.cc``: ``Resolve``
  (a collision marked ``gz:ocean_current`` read as a bool; ``gz:ocean_current_cd`` its Cd; a box's
  areas ``(y z, x z, x y)``), ``Cut`` (the share of the height below the water) and ``ApplyDrag``
  (``0.5 ρ Cd A_i |v_i| v_i`` per shape axis, ``v`` the water's velocity less the point's, in the
  shape frame), driven by ``gz_ocean_current/src/systems/OceanCurrent.cc`` ``PreUpdate``.
- gz-sim 8 ``src/systems/hydrodynamics/Hydrodynamics.cc``, ``Configure``: each Fossen element
  present is a coefficient; its current comes from ``/ocean_current`` or ``<default_current>``,
  neither of which gz-maritime sets, so a translational term there damps against still water.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from lxml import etree

from aurgen.check.readback import read_sdf
from aurgen.compose import specs as specs_mod
from aurgen.compose.resolve import resolve
from aurgen.compose.stamp import read_rows
from aurgen.emit.build import bundled_vehicles

DATA = Path(__file__).parents[1] / "data"
FEATURES = DATA / "emit_features"
CONFIGS = [str(p) for p in bundled_vehicles()] + [str(FEATURES / n) for n in
                                                  ("features.yaml", "equipped_rov.yaml", "equipped_boat.yaml")]
IDS = [Path(c).stem for c in CONFIGS]
GZ = "{http://gazebosim.org/schema}"
TRANSLATIONAL = ("xUabsU", "yVabsV", "zWabsW")
ROTATIONAL = ("kPabsP", "mQabsQ", "nRabsR")


@pytest.fixture(scope="module")
def out(built_vehicles):
    return built_vehicles  # CONFIGS, built once per session (tests/conftest.py)


# ------------------------------------------------- libsdformat Link::Load, gz-physics ConstructSdfLink


def gazebo_mass(sdf_path) -> float:
    """The mass of the rigid body Gazebo welds: every link's <mass>, 1 kg for a link without <inertial>."""
    model = etree.parse(str(sdf_path)).getroot().find("model")
    total = 0.0
    for link in model.findall("link"):
        inertial = link.find("inertial")
        total += 1.0 if inertial is None else float(inertial.findtext("mass", "1.0"))
    return total


def check_mass(sdf_path, vehicle) -> None:
    total = gazebo_mass(sdf_path)
    want = specs_mod.as_dict(vehicle)["total_mass"]
    assert abs(total - want) <= 1e-12, f"{sdf_path}: Gazebo weighs {total!r} kg, the specs {want!r} kg"
    printed = float(read_rows(Path(sdf_path).read_text(encoding="utf-8"))["total mass"].split()[0])
    assert abs(total - printed) <= 5e-7, f"{sdf_path}: Gazebo weighs {total!r} kg, the specs comment {printed} kg"
    # and the welded centre of mass is the composed one
    rb = read_sdf(sdf_path)
    items = []
    for link in rb.links.values():
        T = rb.pose(link.name)
        items.append((link.mass, T[:3, 3] + T[:3, :3] @ link.com))
    com = sum(m * c for m, c in items) / sum(m for m, _ in items)
    assert np.allclose(com, vehicle.specs.com, rtol=0, atol=1e-12), (com, vehicle.specs.com)


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_gazebo_weighs_the_specs_mass(out, config):
    v = resolve(config)
    check_mass(out / v.name / "model.sdf", v)


# ------------------------------------------------- gz-maritime MarkedShapes, gz-sim Hydrodynamics


def marked_boxes(sdf_path) -> list[dict]:
    """MarkedShapes::Resolve for gz:ocean_current: (link, pose xyz, half size, areas, Cd) per marked box."""
    model = etree.parse(str(sdf_path)).getroot().find("model")
    out = []
    for link in model.findall("link"):
        for col in link.findall("collision"):
            if (col.get(GZ + "ocean_current") or "").strip().lower() not in ("true", "1"):
                continue
            size = np.array([float(x) for x in col.findtext("geometry/box/size").split()])
            cd = float(col.get(GZ + "ocean_current_cd", "1.0"))  # OceanCurrent's default_drag_coefficient: 1
            out.append({"link": link.get("name"), "name": col.get("name"), "half": size / 2, "cd": cd,
                        "area": np.array([size[1] * size[2], size[0] * size[2], size[0] * size[1]])})
    return out


def apply_drag(box, rel, rho, fraction=1.0) -> np.ndarray:
    """MarkedShapes::ApplyDrag on one box, shape axes = world axes: the force for water velocity ``rel``
    relative to the box; ``fraction``: Cut's share of the height below the water (1: submerged)."""
    area = np.array([box["area"][0] * fraction, box["area"][1] * fraction, box["area"][2]])
    return 0.5 * rho * box["cd"] * area * np.abs(rel) * rel


def hydrodynamics_terms(sdf_path) -> dict:
    model = etree.parse(str(sdf_path)).getroot().find("model")
    out = {}
    for p in model.findall("plugin"):
        if p.get("name") == "gz::sim::systems::Hydrodynamics":
            out.update({c.tag: float(c.text) for c in p if c.tag != "link_name"})
    return out


def check_rov_current(sdf_path, vehicle) -> None:
    declared = dict(vehicle.hydrodynamics)
    rho = vehicle.displacement.fluid_density
    boxes = marked_boxes(sdf_path)
    gz = hydrodynamics_terms(sdf_path)
    if not all(declared.get(n, 0.0) < 0.0 for n in TRANSLATIONAL):
        # one box drags along all three axes: without all three terms they stay in Hydrodynamics
        # (added mass, {F}Dot{V}, is never written to Hydrodynamics: it diverges there; the MJCF carries it)
        assert not boxes and gz == {n: float(x) for n, x in declared.items() if "Dot" not in n}, (sdf_path, boxes, gz)
        return
    assert [b["link"] for b in boxes] == [vehicle.base], f"{sdf_path}: the current drags {boxes} (want one box on the base link)"
    for n in TRANSLATIONAL:
        assert n not in gz, f"{sdf_path}: Hydrodynamics' {n} damps against still water beside the current's drag"
    for n in ROTATIONAL:
        assert gz.get(n) == declared[n], f"{sdf_path}: Hydrodynamics' {n} {gz.get(n)} (declared {declared[n]})"
    for i, n in enumerate(TRANSLATIONAL):
        for speed in (0.3, -1.0):
            rel = np.zeros(3)
            rel[i] = speed
            force = apply_drag(boxes[0], rel, rho)
            # the vehicle moving at -rel through still water: Fossen's term gives coef |v| v on it
            fossen = declared[n] * abs(-speed) * (-speed)
            assert force[i] == pytest.approx(fossen, rel=1e-12, abs=0), (n, speed, force, fossen)
    # at rest in a 1 m/s current the ROV is pushed along it: it drifts
    c = np.array([1.0, 0.0, 0.0])
    assert apply_drag(boxes[0], c, rho)[0] == pytest.approx(-declared["xUabsU"], rel=1e-12)


@pytest.mark.parametrize("config", [c for c in CONFIGS if resolve(c).displacement.kind == "buoyancy"],
                         ids=[i for c, i in zip(CONFIGS, IDS) if resolve(c).displacement.kind == "buoyancy"])
def test_the_rov_drifts_with_gz_maritimes_current_and_keeps_its_damping(out, config):
    v = resolve(config)
    check_rov_current(out / v.name / "model.sdf", v)
