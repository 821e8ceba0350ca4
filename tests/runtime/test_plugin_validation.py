"""One validation (issue 27 item 3, the part done): the environment's keys are one table
(runtime/native/plugin/schema.h, exported as aurgen.runtime._native.ENV_KEYS and used by
runtime/environment/schema.py), and the plugin refuses what the Python loader refuses with the same
words: unknown keys, numbers outside JSON's grammar (0x1p0, .0, +1, 01), two plugin
instances in one model.  Each case goes both ways: the Python loader's refusal text is
the plugin's compile error.

and what runtime/environment/schema.py validate() refuses: overlapping cells (an interior point of
both, a linear program in each: scipy's HiGHS there, plugin/interior.h here), per-cell
gravity with a non-uniform field, a tangential jump of g across a shared face, an
asymmetric gradient, two cells of one name; and what it accepts the plugin accepts.
"""
from __future__ import annotations

import html
import json

import mujoco
import pytest

from aurgen.runtime import _native
from aurgen.runtime.environment import schema as envmod
from aurgen.runtime import plugin as hplugin

from simfixtures import body, geom, mjcf, water_env

if not hplugin.library_path().exists():
    pytest.skip(f"the plugin library is not built ({hplugin.library_path()})", allow_module_level=True)
hplugin.load()

DECL = f'<extension><plugin plugin="{hplugin.NAME}"><instance name="hydrostatics"/></plugin></extension>'


def _xml(text: str, decl: str = DECL) -> str:
    mass = 0.5 * 1000.0 * 8 * 0.05 ** 3
    b = body("c", (0, 0, 0.01), mass, (mass * 0.1 ** 2 / 6,) * 3, geom("box", [0.05] * 3))
    x = mjcf(b, env=None, gravity=(0, 0, -9.81))
    custom = f'<custom><text name="aurgen:environment" data="{html.escape(text, quote=True)}"/></custom>'
    return x.replace("<worldbody", decl + custom + "<worldbody", 1)


def _plugin_error(text: str) -> str | None:
    try:
        mujoco.MjData(mujoco.MjModel.from_xml_string(_xml(text)))
    except Exception as e:  # noqa: BLE001
        return str(e)
    return None


def _python_error(text: str) -> str | None:
    try:
        envmod.parse(text)
    except envmod.EnvironmentInvalid as e:
        return str(e)
    return None


def test_the_keys_are_one_table():
    assert envmod.TOP_KEYS == set(_native.ENV_KEYS["environment"])
    assert envmod.CELL_KEYS == set(_native.ENV_KEYS["cell"])
    for t, keys in envmod.GRAVITY_KEYS.items():
        assert keys == set(_native.ENV_KEYS[f"gravity.{t}"])
    assert (envmod.MAX_PLANES, envmod.MAX_CELLS, envmod.MAX_CELL_PLANES) == _native.ENV_LIMITS == (1024, 256, 64)
    assert envmod.WAVES_KEYS == set(_native.ENV_KEYS["waves"]) == {"components", "depth", "fk", "fk_tolerance", "ramp", "surface"}
    assert envmod.MAX_WAVES == _native.ENV_MAX_WAVES == 256


def _env(**top):
    e = water_env(1000.0)
    e.update(top)
    return e


def _cell_typo():
    e = water_env(1000.0)
    e["cells"][1]["densty"] = e["cells"][1].pop("density")
    return e


KEY_CASES = {
    "cell densty": json.dumps(_cell_typo()),
    "top cels": json.dumps({"planes": [[0, 0, 1, 0]], "cels": [], "gravity": [0, 0, -9.81]}),
    "two unknown, sorted": json.dumps(_env(zeta=1, alpha=2)),
    "gravity uniform": json.dumps(_env(gravity={"type": "uniform", "g": [0, 0, -9.81], "mu": 1.0})),
    "gravity central": json.dumps(_env(gravity={"type": "central", "mu": 1.0, "g": [0, 0, 1]})),
    "gravity linear": json.dumps(_env(gravity={"type": "linear", "G": [[0] * 3] * 3, "centre": [0, 0, 0]})),
}


@pytest.mark.parametrize("case", list(KEY_CASES))
def test_unknown_keys_are_refused_by_both_with_the_same_words(case):
    text = KEY_CASES[case]
    want = _python_error(text)
    assert want is not None and "unknown key" in want
    got = _plugin_error(text)
    assert got is not None and want in got, (want, got)


NUMBER_CASES = ["0x1p0", ".0", "+1", "01", "1.", "1e", "-", "1.e5", "0x10", "-.5", "1e+"]


@pytest.mark.parametrize("num", NUMBER_CASES)
def test_numbers_outside_jsons_grammar_are_refused_by_both(num):
    text = json.dumps(water_env(1000.0)).replace('"density": 1000.0', f'"density": {num}', 1)
    assert num in text
    assert _python_error(text) is not None and "does not parse" in _python_error(text)
    got = _plugin_error(text)
    assert got is not None and "does not parse" in got, got


@pytest.mark.parametrize("num", ["0", "-0", "1e3", "1E-3", "0.25", "12.5e+2", "1000"])
def test_json_numbers_are_accepted_by_both(num):
    text = json.dumps(water_env(1000.0)).replace('"density": 1000.0', f'"density": {num}', 1)
    assert _python_error(text) is None and _plugin_error(text) is None


def test_valid_environments_compile_in_both():
    for e in (water_env(1000.0), water_env(1025.0, None)):
        assert _python_error(json.dumps(e)) is None and _plugin_error(json.dumps(e)) is None


@pytest.mark.parametrize("n", [2, 8])
def test_two_or_more_instances_are_refused(n):
    inst = "".join(f'<instance name="h{i}"/>' for i in range(n))
    decl = f'<extension><plugin plugin="{hplugin.NAME}">{inst}</plugin></extension>'
    with pytest.raises(Exception, match=f"declares {n} {hplugin.NAME} instances; declare one"):
        mujoco.MjData(mujoco.MjModel.from_xml_string(_xml(json.dumps(water_env(1000.0)), decl)))


# ---------------------------------------------------------------- what validate() refuses

def _cells(planes, *cells, gravity=None):
    e = {"planes": planes, "cells": [dict(c) for c in cells]}
    if gravity is not None:
        e["gravity"] = gravity
    return e


SEMANTIC = {
    # test_env.py's overlap case, and a box inside a half-space
    "overlap": _cells([[0, 0, 1, 0], [1, 0, 0, 0]], {"name": "water", "signs": [-1, 0], "density": 1000},
                      {"name": "tank", "signs": [0, -1], "density": 1000}),
    "air everywhere": _cells([[0, 0, 1, 0]], {"name": "air", "signs": [0], "density": 1.2},
                             {"name": "water", "signs": [-1], "density": 1000}),
    "box in water": _cells([[0, 0, 1, 0], [0, 0, 1, -5], [1, 0, 0, 1], [1, 0, 0, -1]],
                           {"name": "water", "signs": [-1, 0, 0, 0], "density": 1000},
                           {"name": "box", "signs": [0, 1, -1, 1], "density": 1000}),
    "two named alike": _cells([[0, 0, 1, 0]], {"name": "w", "signs": [-1]}, {"name": "w", "signs": [1]}),
    "tangential jump": _cells([[1, 0, 0, 0]],
                              {"name": "earth", "signs": [-1], "density": 0, "gravity": [0, 0, -9.81]},
                              {"name": "moon", "signs": [1], "density": 0, "gravity": [0, 0, -1.62]}),
    "tangential jump, oblique face": _cells(
        [[0.6, 0, 0.8, 0.5], [0, 1, 0, 2]],
        {"name": "a", "signs": [-1, -1], "gravity": [0.1, 0, -9.81]},
        {"name": "b", "signs": [1, -1], "gravity": [0, 0, -9.81]},
        {"name": "c", "signs": [0, 1]}),
    "per-cell with central": _cells([[0, 0, 1, 0]], {"name": "a", "signs": [-1], "gravity": [0, 0, -9]},
                                    gravity={"type": "central", "mu": 1.0, "centre": [0, 0, -10]}),
    "asymmetric G": _cells([], gravity={"type": "linear", "g0": [0, 0, 0],
                                        "G": [[0, 1, 0], [0, 0, 0], [0, 0, 0]]}),
}
ACCEPTED = {
    "disjoint by a sign": _cells([[0, 0, 1, 0], [1, 0, 0, 0]],
                                 {"name": "water", "signs": [-1, 1], "density": 1000},
                                 {"name": "tank", "signs": [0, -1], "density": 1000}),
    "touching boxes": _cells([[1, 0, 0, 0], [1, 0, 0, 1], [1, 0, 0, -1]],
                             {"name": "l", "signs": [-1, 0, 1]}, {"name": "r", "signs": [1, -1, 0]}),
    "normal jump": _cells([[0, 0, 1, 0]], {"name": "below", "signs": [-1], "gravity": [0, 0, -9.81]},
                          {"name": "above", "signs": [1], "gravity": [0, 0, -1.62]}),
    "jump, no shared face": _cells([[1, 0, 0, 0], [1, 0, 0, 1], [0, 0, 1, 0]],
                                   {"name": "a", "signs": [-1, 0, -1], "gravity": [0, 0, -9.81]},
                                   {"name": "b", "signs": [0, 1, -1], "gravity": [0, 0, -1.62]}),
    "symmetric G": _cells([], gravity={"type": "linear", "g0": [0, 0, 0],
                                       "G": [[0, 1e-3, 0], [1e-3, 0, 0], [0, 0, 0]]}),
}


def _gravity(env):
    """MuJoCo's option gravity as Simulation sets it (0 when the plugin applies gravity)."""
    if any(isinstance(c, dict) and "gravity" in c for c in env.get("cells", [])):
        return (0, 0, 0)
    g = env.get("gravity")
    if isinstance(g, dict) and g.get("type") in ("central", "linear"):
        return (0, 0, 0)
    return (0, 0, -9.81)


def _plugin_error_of(env) -> str | None:
    mass = 0.5 * 1000.0 * 8 * 0.05 ** 3
    b = body("c", (0, 0, 0.01), mass, (mass * 0.1 ** 2 / 6,) * 3, geom("box", [0.05] * 3))
    text = json.dumps(env)
    custom = f'<custom><text name="aurgen:environment" data="{html.escape(text, quote=True)}"/></custom>'
    xml = mjcf(b, env=None, gravity=_gravity(env)).replace("<worldbody", DECL + custom + "<worldbody", 1)
    try:
        mujoco.MjData(mujoco.MjModel.from_xml_string(xml))
    except Exception as e:  # noqa: BLE001
        return str(e)
    return None


@pytest.mark.parametrize("case", list(SEMANTIC))
def test_what_the_loader_refuses_the_plugin_refuses_in_its_words(case):
    want = _python_error(json.dumps(SEMANTIC[case]))
    assert want is not None
    got = _plugin_error_of(SEMANTIC[case])
    assert got is not None and want in got, (want, got)


@pytest.mark.parametrize("case", list(ACCEPTED))
def test_what_the_loader_accepts_the_plugin_accepts(case):
    assert _python_error(json.dumps(ACCEPTED[case])) is None
    assert _plugin_error_of(ACCEPTED[case]) is None


# ---------------------------------------------------------------- every refusal of the loader

def _loader_cases():
    """(id, environment) for every refusal case of the loader's tests (tests/runtime/test_env.py),
    size limits included."""
    import test_env

    out = [(f"bad value {i}: {key[:40]}", test_env._with(path, value))
           for i, (path, value, key) in enumerate(test_env.BAD_VALUES)]
    e = test_env._with(("cells", 0, "density"), -5.0)
    out.append(("negative density", e))
    e = test_env._with(("cells", 0, "viscosity"), -1)
    out.append(("negative viscosity (an int)", e))
    out.append(("non-unit normal", {"planes": [[0, 0, 2, 0]], "cells": []}))
    out.append(("non-unit normal, ints and 1e-05", {"planes": [[0, 1e-5, 3, 0]], "cells": []}))
    out.append(("too many planes", {"planes": [[0, 0, 1, 0]] * 1025, "cells": []}))
    out.append(("too many cells", {"planes": [], "cells": [{"name": f"c{i}"} for i in range(257)]}))
    out.append(("a cell bounded by 65 planes", {"planes": [[0, 0, 1, -i] for i in range(65)],
                                                 "cells": [{"name": "c", "signs": [-1] * 65}]}))
    out.append(("mu 0", {"gravity": {"type": "central", "mu": 0}}))
    out.append(("mu -2.5", {"gravity": {"type": "central", "mu": -2.5}}))
    out.append(("type 5", {"gravity": {"type": 5}}))
    out.append(("G missing", {"gravity": {"type": "linear"}}))
    out.append(("not an object", [1, 2]))
    out.append(("a string name", {"cells": [{"name": "o'neil", "signs": [], "density": "x"}]}))
    out.append(("a long string", {"cells": [{"density": "y" * 60}]}))
    out.append(("signs null", {"planes": [[0, 0, 1, 0]], "cells": [{"signs": None}]}))
    out.append(("density 1e300 then flow", {"cells": [{"density": 1e300, "flow": [1, 2, True]}]}))
    out.append(("infinity", {"cells": [{"density": float("inf")}]}))
    out.append(("empty name", {"cells": [{"name": ""}]}))
    out.append(("planes null", {"planes": None}))
    out.append(("gravity G row", {"gravity": {"type": "linear", "G": [[0, 0, 0], [0, 0], [0, 0, 0]]}}))
    return out


LOADER = _loader_cases()


@pytest.mark.parametrize("case", range(len(LOADER)), ids=[c[0] for c in LOADER])
def test_every_refusal_of_the_loader_is_the_plugins_word_for_word(case):
    env = LOADER[case][1]
    text = json.dumps(env)
    want = _python_error(text)
    assert want is not None
    got = _plugin_error_of(env) if isinstance(env, dict) else _plugin_error(text)
    assert got is not None and want in got, (want, got)


# ---------------------------------------------------------------- the sea (docs/formats.md "waves")

def _sea_plugin_error(env) -> str | None:
    """The plugin's error for ``env``, MuJoCo's option gravity set as Simulation sets it (the
    environment's uniform g, or 0 when the plugin applies gravity)."""
    mass = 0.5 * 1000.0 * 8 * 0.05 ** 3
    b = body("c", (0, 0, -0.5), mass, (mass * 0.1 ** 2 / 6,) * 3, geom("box", [0.05] * 3))
    g = env.get("gravity")
    g = g if isinstance(g, list) else g.get("g", (0, 0, -9.81)) if isinstance(g, dict) else (0, 0, -9.81)
    text = json.dumps(env)
    custom = f'<custom><text name="aurgen:environment" data="{html.escape(text, quote=True)}"/></custom>'
    xml = mjcf(b, env=None, gravity=_gravity(env) if _gravity(env) == (0, 0, 0) else tuple(g))
    xml = xml.replace("<worldbody", DECL + custom + "<worldbody", 1)
    try:
        d = mujoco.MjData(m := mujoco.MjModel.from_xml_string(xml))
        mujoco.mj_step(m, d)
    except Exception as e:  # noqa: BLE001
        return str(e)
    return None


def _sea_cases():
    import test_env_waves

    return test_env_waves.REFUSALS


SEA = _sea_cases()


@pytest.mark.parametrize("case", list(SEA))
def test_every_refusal_of_a_sea_is_the_plugins_word_for_word(case):
    """Needs the plugin that knows waves (ENV_KEYS["waves"]); each refusal of test_env_waves."""
    env = SEA[case][0]
    want = _python_error(json.dumps(env))
    assert want is not None and want.startswith(SEA[case][1])
    got = _sea_plugin_error(env)
    assert got is not None and want in got, (want, got)


def test_a_sea_the_loader_accepts_the_plugin_accepts():
    import test_env_waves
    from aurgen.runtime.environment import waves

    deep = waves.synthesize({"spectrum": "jonswap", "hs": 1.0, "tp": 5.0, "seed": 1, "spreading": 10},
                            [0, 0, 1], 9.81)
    shallow = waves.synthesize({"spectrum": "regular", "height": 0.4, "period": 3.0, "direction": 90},
                               [0, 0, 1], 9.81, 30.0)
    for sea in (deep, shallow):
        env = test_env_waves.sea_env(**sea.block())
        assert _python_error(json.dumps(env)) is None
        assert _sea_plugin_error(env) is None


# ---------------------------------------------------------------- where they disagreed (issue 37)

def _sea_text_plugin(text: str):
    """(the plugin's error or None, qfrc_passive after one step) for the environment ``text``, the sea's
    test body at -0.5 m."""
    mass = 0.5 * 1000.0 * 8 * 0.05 ** 3
    b = body("c", (0, 0, -0.5), mass, (mass * 0.1 ** 2 / 6,) * 3, geom("box", [0.05] * 3))
    custom = f'<custom><text name="aurgen:environment" data="{html.escape(text, quote=True)}"/></custom>'
    xml = mjcf(b, env=None).replace("<worldbody", DECL + custom + "<worldbody", 1)
    try:
        m = mujoco.MjModel.from_xml_string(xml)
        d = mujoco.MjData(m)
        mujoco.mj_step(m, d)
    except Exception as e:  # noqa: BLE001
        return str(e), None
    return None, d.qfrc_passive.copy()


@pytest.mark.parametrize("text", ["0.0", "-0.0", "0e0", "-0", "0.0e+5"])
def test_a_surface_written_as_a_zero_is_plane_0_in_both(text):
    """The plugin tested how the number was written (an integer token), the loader its value: 0.0 is
    the integer 0 in both, as a sign's 1.0 is 1; the plugin's sea on it is the sea on plane 0."""
    import test_env_waves

    plain = json.dumps(test_env_waves.sea_env())
    written = plain.replace('"surface": 0', f'"surface": {text}', 1)
    assert written != plain
    assert _python_error(written) is None and envmod.parse(written).waves.surface == 0
    err, q = _sea_text_plugin(written)
    assert err is None, err
    assert q.tobytes() == _sea_text_plugin(plain)[1].tobytes()


@pytest.mark.parametrize("text", ["1.0", "1e0", "0.5", "2.0"])
def test_a_surface_written_as_another_number_is_refused_alike(text):
    import test_env_waves

    written = json.dumps(test_env_waves.sea_env()).replace('"surface": 0', f'"surface": {text}', 1)
    want = _python_error(written)
    assert want is not None and want.startswith("waves.surface:")
    err, _ = _sea_text_plugin(written)
    assert err is not None and want in err, (want, err)


def test_waves_null_is_still_water_in_both():
    """The plugin ran waves: null as still water, the loader refused it: both read it as no sea, as
    gravity: null, a cell's gravity: null and waves.depth: null read as their defaults."""
    import test_env_waves

    e = test_env_waves.sea_env()
    e["waves"] = None
    assert _python_error(json.dumps(e)) is None and envmod.parse(json.dumps(e)).waves is None
    err, q = _sea_text_plugin(json.dumps(e))
    assert err is None, err
    del e["waves"]
    assert q.tobytes() == _sea_text_plugin(json.dumps(e))[1].tobytes()
