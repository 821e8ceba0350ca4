"""The environment loader: parsing, reading it from a world file, refusing bad environments."""

import json

import pytest

from aurgen.core.errors import AurgenError
from aurgen.runtime.environment import schema as envmod
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


# every bad value the loader refuses, with the words naming its key (also fed to the plugin:
# tests/runtime/test_plugin_validation.py)
BAD_VALUES = [
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
]


@pytest.mark.parametrize("path,value,key", BAD_VALUES)
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


def test_size_limits_are_the_plugins_and_name_the_key():
    """More planes, cells or planes per cell than the limits (the plugin's too: test_plugin) is
    refused naming what; at the limits an environment loads."""
    plane = [0.0, 0.0, 1.0, 0.0]
    with pytest.raises(envmod.EnvironmentInvalid, match=f"planes: {envmod.MAX_PLANES + 1} planes"):
        envmod.parse({"planes": [plane] * (envmod.MAX_PLANES + 1), "cells": []})
    with pytest.raises(envmod.EnvironmentInvalid, match=f"cells: {envmod.MAX_CELLS + 1} cells"):
        envmod.parse({"cells": [{"name": f"c{i}"} for i in range(envmod.MAX_CELLS + 1)]})
    n = envmod.MAX_CELL_PLANES + 1
    planes = [[0.0, 0.0, 1.0, float(i)] for i in range(n)]
    with pytest.raises(envmod.EnvironmentInvalid, match=rf"cells\[0\] \('c'\)\.signs: bounded by {n} planes"):
        envmod.parse({"planes": planes, "cells": [{"name": "c", "signs": [-1] * n}]})
    ok = envmod.parse({"planes": planes[:-1], "cells": [{"name": "c", "signs": [-1] * (n - 1)}]})
    assert len(ok.cell_planes(0)) == envmod.MAX_CELL_PLANES


def test_a_world_of_many_one_plane_cells_steps_like_the_reference(tmp_path):
    """The clip scratch is sized by the most planes one cell uses (here 2 of 12 planes): a layered
    water column of six slabs steps bitwise alike on the plugin and on the reference engine, and
    floats the box at the depth its density sets."""
    cuts = [-0.5, -0.3, -0.1, 0.0, 0.2, 0.5]  # slab faces z = d
    planes = [[0.0, 0.0, 1.0, d] for d in cuts]
    cells = []
    for i in range(len(cuts) + 1):  # below the first face, between faces, above the last
        signs = [0] * len(cuts)
        if i > 0:
            signs[i - 1] = 1
        if i < len(cuts):
            signs[i] = -1
        water = cuts[i - 1] < 0.0 if 0 < i else True
        cells.append({"name": f"s{i}", "signs": signs, "density": 1000.0 if water else 1.2,
                      "viscosity": 1e-3 if water else 1.8e-5})
    env = {"planes": planes, "cells": cells, "gravity": {"type": "uniform", "g": [0, 0, -9.81]}}
    xml = mjcf(body("cube", (0, 0, 0.05), 4.0, (0.027,) * 3, geom("box", [0.1, 0.1, 0.1])), env=env)
    with Simulation(xml) as a, Simulation(xml, engine="callback") as b:
        a.step(2000)
        b.step(2000)
        assert a.data.qpos.tobytes() == b.data.qpos.tobytes()
        # 4 kg in 1000 kg/m^3 water: 0.004 m^3 below the surface, a 0.2 x 0.2 m face: 0.1 m draft
        assert a.data.qpos[2] == pytest.approx(0.1 - 0.1, abs=2e-3)
