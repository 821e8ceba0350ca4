"""A seeded, bounded fuzz of the plugin (issue 27 item 4), for .ci/sanitize (ASan + UBSan
run tests/runtime): random plugin states (mj_setState, mjSTATE_PLUGIN), random
environment JSON (the plugin's own parser and checks: mutated valid environments and
mutated text) and random geom marks (geom_user[0]).  Each case either fails to compile
with an error or steps; a stepped tampered state is bitwise the untampered trajectory
(the ledger only observes) and its health is read without raising, invalid and named
when the state was.  Under a sanitizer any access outside the plugin's arrays is a
report; here the oracles are the trajectory and health.
"""
from __future__ import annotations

import html
import json
import math

import mujoco
import numpy as np
import pytest

from aurgen.runtime.environment import schema as envmod
from aurgen.runtime.sim import health
from aurgen.runtime import plugin as hplugin
from aurgen.runtime.sim import Simulation

from simfixtures import body, geom, mjcf, water_env

if not hplugin.library_path().exists():
    pytest.skip(f"the plugin library is not built ({hplugin.library_path()})", allow_module_level=True)
hplugin.load()

PLUGIN = mujoco.mjtState.mjSTATE_PLUGIN
NASTY = [math.nan, math.inf, -math.inf, -65.0, -1.0, 0.0, 1.0, 2.0, 3.0, 4.0, 0.5, 1e300, -1e300,
         2.0 ** 53, 2.0 ** 63, -2.0 ** 63, 1e-300, 17.0]


def _declared(xml: str) -> str:
    decl = f'<extension><plugin plugin="{hplugin.NAME}"><instance name="hydrostatics"/></plugin></extension>'
    return xml.replace("<worldbody", decl + "<worldbody", 1)


def _with_env_text(xml: str, text: str) -> str:
    """xml (no environment) with <custom><text name="aurgen:environment"> = text."""
    custom = f'<custom><text name="aurgen:environment" data="{html.escape(text, quote=True)}"/></custom>'
    return xml.replace("<worldbody", custom + "<worldbody", 1)


def _cube_body(a=0.05, mark=1, type_="box"):
    mass = 0.5 * 1000.0 * 8 * a ** 3
    return body("c", (0, 0, 0.01), mass, (mass * (2 * a) ** 2 / 6,) * 3, geom(type_, [a] * 3, mark=mark))


def _try_world(xml: str, nstep: int = 5, errors: list | None = None):
    """Compile and step xml; None if it does not compile (a refusal, its text appended to
    errors), else its health."""
    try:
        m = mujoco.MjModel.from_xml_string(xml)
        d = mujoco.MjData(m)
    except Exception as e:  # noqa: BLE001 - any refusal is an error with words, never a crash
        assert str(e)
        if errors is not None:
            errors.append(str(e))
        return None
    for _ in range(nstep):
        mujoco.mj_step(m, d)
    return health.health_of(m, d)


@pytest.mark.parametrize("integrator", ("Euler", "RK4"))
def test_random_plugin_states(integrator):
    rng = np.random.default_rng(27)
    with Simulation(mjcf(_cube_body(), env=water_env(1000.0, None), integrator=integrator),
                    settle_window=0.05) as sim:
        sim.step(40)
        m, d0 = sim.model, sim.data
        n = mujoco.mj_stateSize(m, PLUGIN)
        s0 = np.empty(n)
        mujoco.mj_getState(m, d0, s0, PLUGIN)
        ref, tam = mujoco.MjData(m), mujoco.MjData(m)
        flagged = 0
        for case in range(400):
            mujoco.mj_copyData(ref, m, d0)
            mujoco.mj_copyData(tam, m, d0)
            s = s0.copy()
            if case % 10 == 0:  # everything random
                s[:] = rng.choice(NASTY, size=n)
            else:
                for k in rng.integers(0, n, size=rng.integers(1, 5)):
                    s[k] = rng.choice(NASTY) if rng.random() < 0.8 else rng.normal(scale=1e3)
            mujoco.mj_setState(m, tam, s, PLUGIN)
            led = health.PluginLedger(m, tam)
            bad = led.state_error() >= 0
            h = health.health_of(m, tam)  # before a step: read as restored, never raising
            assert isinstance(h, health.Health) and (not bad or not h.ok)
            for _ in range(3):
                mujoco.mj_step(m, ref)
                mujoco.mj_step(m, tam)
            assert np.array_equal(ref.qpos, tam.qpos) and np.array_equal(ref.qvel, tam.qvel), case
            assert led.state_error() == -1  # the plugin repaired what it read
            h = health.health_of(m, tam)
            if bad:
                flagged += 1
                assert not h.ok and "invalid plugin state" in h.reason, (case, h)
            assert h.time == ref.time
        assert flagged > 120  # the rest hit values only (forces, heights): no verdict from them


def _mutate_value(rng, v):
    choices = [None, "x", True, [], {}, [1, 2], 1e400 if False else 1e308, -1.0, 0.0, 2.0, [0, 0, 1, 0],
               [math.nan], "nan", -65, 3, [[1, 0, 0], [0, 1, 0], [0, 0, 1]]]
    if isinstance(v, list) and v and rng.random() < 0.5:
        v = list(v)
        i = int(rng.integers(0, len(v)))
        v[i] = _mutate_value(rng, v[i])
        if rng.random() < 0.3:
            v.append(choices[int(rng.integers(0, len(choices)))])
        return v
    if isinstance(v, dict) and v and rng.random() < 0.6:
        return _mutate_dict(rng, v)
    return choices[int(rng.integers(0, len(choices)))]


def _mutate_dict(rng, d):
    d = dict(d)
    keys = list(d)
    op = rng.random()
    k = keys[int(rng.integers(0, len(keys)))] if keys else None
    if op < 0.15 and k is not None:
        del d[k]
    elif op < 0.3 and k is not None:
        d[k[:-1] or "z"] = d.pop(k)  # a misspelled key
    elif op < 0.4:
        d[["densty", "cels", "gravity", "planes", "signs", "type", "mu", "G", "g0"][int(rng.integers(0, 9))]] = \
            _mutate_value(rng, 1.0)
    elif k is not None:
        d[k] = _mutate_value(rng, d[k])
    return d


ENVS = [
    water_env(1000.0), water_env(1000.0, None),
    {"planes": [[0, 0, 1, 0], [1, 0, 0, 0]], "cells": [
        {"name": "a", "signs": [-1, -1], "density": 1000.0},
        {"name": "b", "signs": [-1, 1], "density": 1025.0, "gravity": [0, 0, -9.0]}],
     "gravity": [0, 0, -9.81]},
    {"planes": [[0, 0, 1, 0]], "cells": [{"signs": [-1], "density": 1000.0}],
     "gravity": {"type": "central", "mu": 3.986e14, "centre": [0, 0, -6.4e6]}},
    {"planes": [[0, 0, 1, 0]], "cells": [{"signs": [-1], "density": 1000.0}],
     "gravity": {"type": "linear", "g0": [0, 0, -9.81], "G": [[0, 0, 0], [0, 0, 0], [0, 0, 1e-3]]}},
]


def _gravity_option(env):
    g = env.get("gravity") if isinstance(env, dict) else None
    if isinstance(g, list) and len(g) == 3 and all(isinstance(x, (int, float)) for x in g):
        return tuple(float(x) for x in g)
    if isinstance(g, dict) and g.get("type", "uniform") == "uniform":
        gg = g.get("g")
        if isinstance(gg, list) and len(gg) == 3 and all(isinstance(x, (int, float)) for x in gg):
            return tuple(float(x) for x in gg)
        return (0, 0, -9.81)
    return (0, 0, 0)


def test_random_environment_json():
    rng = np.random.default_rng(2027)
    compiled = refused = agreed = 0
    for case in range(1200):
        env = ENVS[case % len(ENVS)]
        for _ in range(int(rng.integers(1, 4))):
            env = _mutate_dict(rng, env)
        text = json.dumps(env)
        if case % 3 == 0:  # mutated text: the parser's own paths
            b = bytearray(text.encode())
            for _ in range(int(rng.integers(1, 6))):
                i = int(rng.integers(0, len(b)))
                op = rng.random()
                if op < 0.4:
                    b[i] = int(rng.choice(list(b'{}[],:"-+.eE0123456789 tfnx\\')))
                elif op < 0.7:
                    del b[i]
                else:
                    b[i:i] = bytes(rng.choice(list(b'[{"1e999,0x1p0.0'), size=int(rng.integers(1, 5))))
            text = b.decode("ascii", "replace")
        g = _gravity_option(env)
        xml = _with_env_text(_declared(mjcf(_cube_body(), env=None, gravity=g)), text)
        err = []
        h = _try_world(xml, errors=err)
        if h is None:
            refused += 1
        else:
            compiled += 1
        # the loader decides as the plugin does, in the same words (one validation)
        try:
            envmod.parse(text)
            want = None
        except envmod.EnvironmentInvalid as e:
            want = str(e)
        except (TypeError, OverflowError, ValueError):  # the loader's own limits (unhashable type)
            continue
        if err and "option gravity" in err[0]:
            continue  # this test's guess of MuJoCo's gravity option, not the environment
        if want is None:
            assert h is not None, (text, err)
        else:
            assert h is None, (text, want)
            if "does not parse" not in want:
                assert want in err[0], (want, err[0])
            agreed += 1
    print("environments compiled", compiled, "refused", refused, "refused by both", agreed)
    assert compiled > 20 and refused > 100 and agreed > 100, (compiled, refused, agreed)


def test_random_geom_marks():
    rng = np.random.default_rng(4)
    marks = [0, 1, 2, 3, -1, 0.5, 1.5, 2.5, 7, 1e10, -1e10, 1e300]
    types = ["box", "sphere", "capsule", "cylinder", "ellipsoid", "plane"]
    seen = set()
    for case in range(200):
        geoms = "".join(
            geom(types[int(rng.integers(0, len(types)))], [0.05, 0.04, 0.03],
                 pos=tuple(rng.normal(scale=0.02, size=3)), mark=marks[int(rng.integers(0, len(marks)))])
            for _ in range(int(rng.integers(1, 4))))
        mass = 0.4
        b = body("c", (0, 0, 0.01), mass, (1e-3,) * 3, geoms)
        xml = _declared(mjcf(b, env=water_env(1000.0)))
        h = _try_world(xml, nstep=10)
        seen.add(h is None)
    assert seen == {True, False}
