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


GOOD = {"planes": [[0, 0, 1, 0]], "cells": [{"name": "water", "signs": [-1], "density": 1025.0}],
        "gravity": {"type": "uniform", "g": [0, 0, -9.81]}}


def _with(path, value):
    """GOOD with the value at ``path`` (keys and indices) replaced."""
    doc = json.loads(json.dumps(GOOD))
    node = doc
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = value
    return doc


@pytest.mark.parametrize("path,value,key", [
    (("planes",), 5, "planes: expected a list, got 5"),
    (("planes", 0), "0010", "planes[0]: expected a list of 4"),
    (("planes", 0, 2), None, "planes[0][2]: expected a finite number, got null"),
    (("cells",), ["water"], "cells[0]: expected an object"),
    (("cells", 0, "signs"), ["x"], "cells[0] ('water').signs[0]: expected -1, 0 or +1"),
    (("cells", 0, "signs"), [-0.5], "cells[0] ('water').signs[0]: expected -1, 0 or +1 (the side of plane 0), "
                                    "got -0.5"),
    (("cells", 0, "signs"), [True], "signs[0]: expected -1, 0 or +1 (the side of plane 0), got true"),
    (("cells", 0, "signs"), [-1, 1], "cells[0] ('water').signs: 2 signs for 1 planes"),
    (("cells", 0, "density"), "1025", "cells[0] ('water').density: expected a finite number, got a string"),
    (("cells", 0, "viscosity"), float("nan"), "cells[0] ('water').viscosity: expected a finite number"),
    (("cells", 0, "flow"), [0, 0], "cells[0] ('water').flow: expected a list of 3"),
    (("cells", 0, "name"), 7, "cells[0].name: expected a non-empty string, got 7"),
    (("cells", 0, "densty"), 1, "cells[0].densty: unknown key"),
    (("gravity",), "down", "gravity: expected an object"),
    (("gravity", "type"), "sideways", "gravity.type: expected uniform, central or linear"),
    (("gravity", "g"), "down", "gravity.g: expected a list of 3"),
    (("gravity",), {"type": "central", "mu": "x"}, "gravity.mu: expected a finite number, got a string"),
    (("gravity",), {"type": "central"}, "gravity.mu: missing"),
    (("gravity",), {"type": "linear", "G": 3}, "gravity.G: expected a 3x3 matrix"),
    (("gravity",), {"type": "linear", "G": [[0, 0, 0], [0, 0, 0], "x"]}, "gravity.G[2]: expected a list of 3"),
    (("gravity",), {"type": "uniform", "mu": 1}, "gravity.mu: unknown key"),
    (("extra",), 1, "environment.extra: unknown key"),
])
def test_a_bad_value_is_refused_naming_its_key(path, value, key):
    bad = _with(path, value)
    with pytest.raises(AurgenError) as exc:
        envmod.parse(bad)
    assert key in str(exc.value)
    with pytest.raises(AurgenError) as exc:  # the same through JSON text (NaN as JSON's extension)
        envmod.parse(json.dumps(bad))
    assert key in str(exc.value)


def test_integral_signs_are_signs():
    env = envmod.parse(_with(("cells", 0, "signs"), [-1.0]))
    assert env.cells[0].signs == (-1,)
    assert envmod.parse(GOOD).cells[0].signs == (-1,)
