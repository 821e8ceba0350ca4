"""No bundled vehicle writes a translational term into Gazebo's Hydrodynamics (issue 37).

docs/performance.md (Limits): "Stock Hydrodynamics damps against `/ocean_current`, which gz-maritime does not
publish, so the translational terms are not also written there: they would damp against still
water." Translational terms are those giving a force along x, y or z from a velocity u, v or w:
linear (``xU``, ``yV``, ``zW`` and the cross terms) and quadratic (``xUabsU`` ...). The ROVs' quadratic
ones go to the water_drag box; a linear one has no place in Gazebo that respects the current, so a
bundled config declares none (the BlueROV2 Heavy's identified Xu and Zw are left out, its file says
why), and the MJCF and the SDF describe one vehicle.
"""

from __future__ import annotations

import re

import pytest
from lxml import etree

from aurgen.emit.build import build, bundled_vehicles
from aurgen.compose.resolve import resolve

CONFIGS = [str(p) for p in bundled_vehicles()]
TRANSLATIONAL = re.compile(r"[xyz](Dot)?[UVW](abs[UVW])?")
LINEAR = re.compile(r"[xyz][UVW]")


@pytest.mark.parametrize("config", CONFIGS, ids=[c.rsplit("/", 1)[-1] for c in CONFIGS])
def test_the_sdf_hydrodynamics_block_carries_no_translational_term(tmp_path, config):
    v = resolve(config)
    build([config], tmp_path)
    sdf = etree.parse(str(tmp_path / v.name / "model.sdf")).getroot()
    blocks = sdf.findall("model/plugin[@filename='gz-sim-hydrodynamics-system']")
    assert len(blocks) == 1, v.name
    terms = [el.tag for el in blocks[0] if isinstance(el.tag, str) and el.tag != "link_name"]
    assert terms, v.name  # roll, pitch and yaw damping are there
    assert [t for t in terms if TRANSLATIONAL.fullmatch(t)] == [], v.name
    assert all(re.fullmatch(r"[xyzkmn][UVWPQR](abs[UVWPQR])?", t) for t in terms), terms  # Fossen names


@pytest.mark.parametrize("config", CONFIGS, ids=[c.rsplit("/", 1)[-1] for c in CONFIGS])
def test_no_bundled_config_declares_a_linear_translational_term(config):
    declared = dict(resolve(config).hydrodynamics)
    assert [k for k in declared if LINEAR.fullmatch(k)] == [], config
