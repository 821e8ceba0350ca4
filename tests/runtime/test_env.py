"""The environment loader: parsing, reading it from a world file, refusing bad environments."""

import json

import pytest

from aurgen.errors import AurgenError
from aurgen.runtime import env as envmod
from aurgen.runtime.sim import Simulation

from simfixtures import body, geom, mjcf, water_env


def test_open_water_parses_and_locates_points():
    e = envmod.parse(water_env())
    assert [c.name for c in e.cells] == ["air", "water"]
    assert e.cell_at([0, 0, -1]) == 1 and e.cell_at([0, 0, 1]) == 0
    again = envmod.parse(e.to_json())
    assert again.cells == e.cells


def test_environment_is_read_from_the_world_file():
    xml = mjcf(body("s", (0, 0, -1), 1.0, (1, 1, 1), geom("sphere", [0.1])), env=water_env(1025.0))
    with Simulation(xml) as sim:
        assert sim.environment is not None
        assert sim.environment.cells[1].density == 1025.0


def test_overlapping_cells_are_refused_naming_them():
    bad = {"planes": [[0, 0, 1, 0], [1, 0, 0, 0]],
           "cells": [{"name": "water", "signs": [-1, 0], "density": 1000},
                     {"name": "tank", "signs": [0, -1], "density": 1000}]}
    with pytest.raises(AurgenError, match="'water' and 'tank' overlap"):
        envmod.parse(bad)
    # the same cells made disjoint by a sign are fine
    ok = {"planes": [[0, 0, 1, 0], [1, 0, 0, 0]],
          "cells": [{"name": "water", "signs": [-1, 1], "density": 1000},
                    {"name": "tank", "signs": [0, -1], "density": 1000}]}
    envmod.parse(ok)


def test_non_conservative_gravity_is_refused_naming_the_cells():
    bad = {"planes": [[1, 0, 0, 0]],
           "cells": [{"name": "earth", "signs": [-1], "density": 0, "gravity": [0, 0, -9.81]},
                     {"name": "moon", "signs": [1], "density": 0, "gravity": [0, 0, -1.62]}]}
    with pytest.raises(AurgenError, match="'earth'.*'moon'.*not conservative|not conservative.*'earth'.*'moon'"):
        envmod.parse(bad)
    # a jump along the face normal is conservative
    ok = {"planes": [[0, 0, 1, 0]],
          "cells": [{"name": "below", "signs": [-1], "density": 0, "gravity": [0, 0, -9.81]},
                    {"name": "above", "signs": [1], "density": 0, "gravity": [0, 0, -1.62]}]}
    envmod.parse(ok)


def test_negative_density_is_refused_naming_the_cell():
    bad = water_env()
    bad["cells"][1]["density"] = -5.0
    with pytest.raises(AurgenError, match="cell 'water': density -5.0"):
        envmod.parse(bad)


def test_bad_environment_in_a_world_file_is_refused_at_load():
    bad = water_env()
    bad["cells"][0]["signs"] = [0]  # air covers everything: overlaps water
    xml = mjcf(body("s", (0, 0, -1), 1.0, (1, 1, 1), geom("sphere", [0.1])), env=bad)
    with pytest.raises(AurgenError, match="aurgen:environment.*'air' and 'water' overlap"):
        Simulation(xml)


def test_malformed_json_and_normals():
    with pytest.raises(AurgenError, match="does not parse"):
        envmod.parse("{nope")
    with pytest.raises(AurgenError, match="not a unit vector"):
        envmod.parse({"planes": [[0, 0, 2, 0]], "cells": []})
    with pytest.raises(AurgenError, match="symmetric"):
        envmod.parse({"planes": [], "cells": [], "gravity": {"type": "linear", "g0": [0, 0, 0],
                                                            "G": [[0, 1, 0], [0, 0, 0], [0, 0, 0]]}})
    assert json.loads(envmod.open_water().to_json())["cells"][1]["name"] == "water"
