"""The environment JSON's ``waves`` block (docs/formats.md): a round trip, and each refusal in the
exact words the plugin uses too (tests/runtime/test_plugin_validation.py compares the two)."""

from __future__ import annotations

import copy
import json
import math

import numpy as np
import pytest
from scipy.optimize import brentq

from aurgen.runtime.environment import schema as envmod

G = 9.81


def sea_env(**waves):
    """Air over 30 m of water over a seabed, uniform gravity, and a sea on plane 0 (the surface)."""
    k = 1.0 ** 2 / G  # deep water: omega 1 rad/s
    block = {"surface": 0, "ramp": 10.0, "components": [[0.1, 1.0, k, 0.0, 0.0, 0.5]]}
    block.update(waves)
    return {"planes": [[0, 0, 1, 0], [0, 0, 1, -30]],
            "cells": [{"name": "air", "signs": [1, 0], "density": 1.225},
                      {"name": "water", "signs": [-1, 1], "density": 1025.0}],
            "gravity": {"type": "uniform", "g": [0, 0, -G]}, "waves": block}


def refusal(env) -> str:
    with pytest.raises(envmod.EnvironmentInvalid) as exc:
        envmod.parse(json.dumps(env))
    return str(exc.value)


def test_round_trip_and_no_waves_writes_what_it_always_did():
    kk = brentq(lambda k: G * k * math.tanh(k * 30.0) - 1.0, 1e-6, 10.0, xtol=1e-16, rtol=1e-15)  # omega 1 rad/s
    e = envmod.parse(json.dumps(sea_env(depth=30.0, components=[[0.1, 1.0, 0.6 * kk, 0.8 * kk, 0.0, 1.0],
                                                                   [0.0, 1.0, 0.0, kk, 0.0, 0.0]])))
    assert e.waves.surface == 0 and e.waves.depth == 30.0 and e.waves.ramp == 10.0
    assert e.waves.components.shape == (2, 6) and e.waves.components.dtype == np.float64
    text = e.to_json()
    again = envmod.parse(text)
    assert again.to_json() == text
    assert again.waves.components.tobytes() == e.waves.components.tobytes()
    assert list(json.loads(text)["waves"]) == ["surface", "depth", "ramp", "components"]
    deep = envmod.parse(sea_env())
    assert deep.waves.depth is None and "depth" not in json.loads(deep.to_json())["waves"]
    assert envmod.parse(sea_env(depth=None)).waves.depth is None
    assert envmod.parse(sea_env(ramp=0)).waves.ramp == 0.0
    none = sea_env()
    del none["waves"]
    plain = envmod.parse(none)
    assert plain.waves is None and set(json.loads(plain.to_json())) == {"planes", "cells", "gravity"}


def _w(**kw):
    return sea_env(**kw)


def _gravity(g):
    e = sea_env()
    e["gravity"] = g
    return e


def _cell_gravity():
    e = sea_env()
    e["cells"][1]["gravity"] = [0, 0, -G]
    return e


def _unknown():
    e = sea_env()
    e["waves"]["seed"] = 1
    return e


def _row(row):
    return sea_env(components=[[0.1, 1.0, 1 / G, 0.0, 0.0, 0.0], row])


K = 1.0 / G
REFUSALS = {
    "unknown key": (_unknown(), "waves.seed: unknown key (expected components, depth, fk, fk_tolerance, ramp, surface)"),
    "not an object": (_w() | {"waves": [1]}, "waves: expected an object (components, depth, fk, fk_tolerance, ramp, surface), "
                                             "got a list of 1"),
    "surface missing": (_w(surface=None), "waves.surface: expected a plane index (an integer from 0 to 1), "
                                          "got null"),
    "surface a bool": (_w(surface=True), "waves.surface: expected a plane index (an integer from 0 to 1), got true"),
    "surface a string": (_w(surface="surface"), "waves.surface: expected a plane index (an integer from 0 to 1), "
                                                "got a string ('surface')"),
    "surface fractional": (_w(surface=0.5), "waves.surface: expected a plane index (an integer from 0 to 1), "
                                            "got 0.5"),
    "surface out of range": (_w(surface=2), "waves.surface: expected a plane index (an integer from 0 to 1), got 2"),
    "surface negative": (_w(surface=-1), "waves.surface: expected a plane index (an integer from 0 to 1), got -1"),
    "seabed as surface": (_w(surface=1), "waves.surface: plane 1 has no fluid cell below it (sign -1): the sea's "
                                         "water is the cell under its surface"),
    "central gravity": (_gravity({"type": "central", "mu": 3.986e14, "centre": [0, 0, -6.371e6]}),
                        "waves: a sea needs uniform gravity along -n of its surface plane (n = [0.0, 0.0, 1.0])"),
    "cell gravity": (_cell_gravity(), "waves: a sea needs uniform gravity along -n of its surface plane "
                                      "(n = [0.0, 0.0, 1.0])"),
    "gravity up": (_gravity([0, 0, G]), "waves: a sea needs uniform gravity along -n"),
    "gravity slanted": (_gravity([0.01, 0, -G]), "waves: a sea needs uniform gravity along -n"),
    "no gravity": (_gravity([0, 0, 0]), "waves: a sea needs uniform gravity along -n"),
    "depth a string": (_w(depth="30"), "waves.depth: expected a finite number, got a string ('30')"),
    "depth zero": (_w(depth=0), "waves.depth: expected a depth >= 0.001 m (omit it for deep water), got 0.0"),
    "depth negative": (_w(depth=-30), "waves.depth: expected a depth >= 0.001 m (omit it for deep water), got -30.0"),
    "depth under a millimetre": (_w(depth=5e-4), "waves.depth: expected a depth >= 0.001 m (omit it for deep "
                                                 "water), got 0.0005"),
    "ramp negative": (_w(ramp=-1), "waves.ramp: expected a ramp time >= 0 s, got -1.0"),
    "ramp null": (_w(ramp=None), "waves.ramp: expected a finite number, got null"),
    "no components": (_w(components=[]), "waves.components: expected 1 to 256 components "
                                         "[a, omega, kx, ky, kz, phase], got 0"),
    "components missing": (_w(components=None), "waves.components: expected 1 to 256 components "
                                                "[a, omega, kx, ky, kz, phase], got null"),
    "too many": (_w(components=[[0.01, 1.0, K, 0, 0, 0]] * 257), "waves.components: expected 1 to 256 "
                                                                 "components [a, omega, kx, ky, kz, phase], got 257"),
    "short row": (_row([0.1, 1.0, K, 0.0, 0.0]), "waves.components[1]: expected a list of 6 finite numbers, "
                                                 "got a list of 5"),
    "string in row": (_row([0.1, "1", K, 0.0, 0.0, 0.0]), "waves.components[1][1]: expected a finite number, "
                                                          "got a string ('1')"),
    "negative amplitude": (_row([-0.1, 1.0, K, 0.0, 0.0, 0.0]), "waves.components[1]: amplitude -0.1 m must be "
                                                                ">= 0"),
    "zero omega": (_row([0.1, 0.0, K, 0.0, 0.0, 0.0]), "waves.components[1]: omega 0.0 rad/s must be > 0"),
    "zero k": (_row([0.1, 1.0, 0.0, 0.0, 0.0, 0.0]), "waves.components[1]: the wave vector is zero"),
    # issue 37: omega^2 or |k| overflowed, and a NaN comparison never refused; the limits come first
    "omega past the limit": (_row([0.0, 1000.5, 1000.5 ** 2 / G, 0.0, 0.0, 0.0]),
                             "waves.components[1]: omega 1000.5 rad/s must be at most 1000.0 (a period of 6.3 ms)"),
    "omega squared overflows": (_row([0.0, 1e160, 1e300, 0.0, 0.0, 0.0]),
                                "waves.components[1]: omega 1e+160 rad/s must be at most 1000.0 (a period of 6.3 ms)"),
    "omega and |k| overflow": (_row([0.0, 4e154, 1e308, 1e308, 0.0, 0.0]),
                               "waves.components[1]: omega 4e+154 rad/s must be at most 1000.0 (a period of 6.3 ms)"),
    "|k| overflows": (_row([0.0, 1.0, 1e308, -1e308, 0.0, 0.0]),
                      "waves.components[1]: |k| 1.4142135623730951e+308 rad/m must be from 1e-06 to 1000000.0 (a "
                      "wavelength from 6.3 um to 6,300 km)"),
    "|k| past the limit": (_row([0.0, 1.0, 0.0, 1.5e6, 0.0, 0.0]),
                           "waves.components[1]: |k| 1500000.0 rad/m must be from 1e-06 to 1000000.0"),
    "|k| underflows": (_row([0.0, 1.0, 1e-200, 1e-200, 0.0, 0.0]),
                       "waves.components[1]: |k| 1.414213562373095e-200 rad/m must be from 1e-06 to 1000000.0"),
    "|k| under the limit": (_row([0.0, 1.0, 3e-7, 4e-7, 0.0, 0.0]),
                            "waves.components[1]: |k| 5e-07 rad/m must be from 1e-06 to 1000000.0"),
    "k out of plane": (_row([0.1, 1.0, K, 0.0, 0.01, 0.0]), "waves.components[1]: the wave vector must lie in "
                                                            "the surface plane (k.n = 0.01 rad/m)"),
    "dispersion": (_row([0.1, 1.0, 1.001 * K, 0.0, 0.0, 0.0]), "waves.components[1]: omega and k do not satisfy "
                                                               "omega^2 = g |k| tanh(|k| h) (to 1e-9)"),
    "deep k at finite depth": (_w(depth=5.0), "waves.components[0]: omega and k do not satisfy omega^2 = g |k| "
                                              "tanh(|k| h) (to 1e-9)"),
    "breaking": (_row([5.0, 1.0, K, 0.0, 0.0, 0.0]), "waves.components[1]: steepness H/lambda = a |k| / pi = "
                                                     f"{5.0 * K / math.pi!r} is beyond the breaking limit 1/7"),
    "steepness overflows": (_row([1e308, math.sqrt(2 * G), 2.0, 0.0, 0.0, 0.0]),
                            "waves.components[1]: steepness H/lambda = a |k| / pi = inf is beyond the breaking limit"),
}


@pytest.mark.parametrize("case", list(REFUSALS))
def test_each_refusal_in_its_words(case):
    env, words = REFUSALS[case]
    got = refusal(env)
    assert got.startswith(words), (got, words)


def test_refusals_come_in_the_documented_order():
    # a bad surface is named before bad gravity, gravity before depth, depth before ramp, ramp before rows
    e = _gravity({"type": "central", "mu": 1.0, "centre": [0, 0, -10]})
    e["waves"].update(surface=5, depth=-1, ramp=-1, components=[])
    assert refusal(e).startswith("waves.surface: expected a plane index")
    e["waves"]["surface"] = 0
    assert refusal(e).startswith("waves: a sea needs uniform gravity")
    e["gravity"] = [0, 0, -G]
    assert refusal(e).startswith("waves.depth:")
    e["waves"]["depth"] = 30.0
    assert refusal(e).startswith("waves.ramp:")
    e["waves"]["ramp"] = 0.0
    assert refusal(e).startswith("waves.components: expected 1 to 256")


def test_the_limits_accept_what_they_name():
    assert envmod.MAX_WAVES == 256
    envmod.parse(_w(components=[[0.01, 1.0, K, 0, 0, 0]] * 256))
    # steepness exactly at the limit is accepted; zero amplitude too; a tilted surface plane's sea
    kk = 1.0 / G
    envmod.parse(_row([math.pi / 7 / kk * (1 - 1e-12), 1.0, kk, 0.0, 0.0, 0.0]))
    envmod.parse(_row([0.0, 1.0, 0.0, kk, 0.0, 0.0]))
    n = np.array([0.6, 0.0, 0.8])
    tilted = copy.deepcopy(sea_env(components=[[0.1, 1.0, 0.8 * kk, 0.0, -0.6 * kk, 0.0]]))
    tilted["planes"][0] = [*n, 0.0]
    tilted["gravity"] = list(-G * n)
    tilted["planes"][1] = [*n, -30.0]
    assert envmod.parse(tilted).waves.components[0, 4] == -0.6 * kk
    # the limits themselves (docs/formats.md): omega 1000 rad/s; |k| 1e-6 and 1e6 rad/m (g 1 m/s^2 for the
    # last, so that omega stays in its range); a depth of 1 mm
    envmod.parse(_w(components=[[0.0, envmod.MAX_OMEGA, envmod.MAX_OMEGA ** 2 / G, 0.0, 0.0, 0.0]]))
    envmod.parse(_w(components=[[0.0, math.sqrt(G * envmod.MIN_K), 0.0, envmod.MIN_K, 0.0, 0.0]]))
    big = _w(components=[[0.0, math.sqrt(envmod.MAX_K), envmod.MAX_K, 0.0, 0.0, 0.0]])
    big["gravity"] = {"type": "uniform", "g": [0, 0, -1.0]}
    envmod.parse(big)
    from aurgen.runtime.environment import waves

    shallow = waves.wavenumber(1.0, G, envmod.MIN_DEPTH)
    envmod.parse(_w(depth=envmod.MIN_DEPTH, components=[[0.0, 1.0, shallow, 0.0, 0.0, 0.0]]))
    assert (envmod.MAX_OMEGA, envmod.MIN_K, envmod.MAX_K, envmod.MIN_DEPTH) == (1e3, 1e-6, 1e6, 1e-3)


def test_waves_null_is_no_sea():
    """As gravity: null, a cell's gravity: null and waves.depth: null read as their defaults (the plugin
    ran a null sea as still water; the loader refused it)."""
    e = sea_env()
    e["waves"] = None
    env = envmod.parse(json.dumps(e))
    assert env.waves is None and "waves" not in json.loads(env.to_json())


@pytest.mark.parametrize("text", ["0.0", "-0.0", "0e0", "-0", "0.0e+5"])
def test_a_surface_written_as_any_zero_is_plane_0(text):
    """An integral number is a plane index, as a sign may be (1.0 is 1): the value, not how it is written."""
    env = envmod.parse(json.dumps(sea_env()).replace('"surface": 0', f'"surface": {text}', 1))
    assert env.waves.surface == 0 and type(env.waves.surface) is int
