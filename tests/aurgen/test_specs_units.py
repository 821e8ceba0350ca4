"""``aurgen specs --json`` says the unit of every number it writes (``units``, a nested key as
``outer.inner``), and the units it says are the ones the human table prints (``aurgen specs``: heel
and trim in degrees there, radians in the JSON), and the ones a fluid mass of volume times density
needs. A unit named for a key the output does not hold, or a number with no unit, fails."""

from __future__ import annotations

import io
import json
import math
import re
from contextlib import redirect_stdout
from numbers import Number

import pytest

from aurgen.cli import main

VEHICLES = ("blueboat.yaml", "bluerov2.yaml", "bluerov2_heavy.yaml", "blueboat_hullmesh.yaml")


def _specs(*args) -> str:
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert main(["specs", *args]) == 0
    return buf.getvalue()


def _numbers(js: dict) -> set[str]:
    """The keys whose values are numbers or (nested) lists of numbers, ``outer.inner`` inside an object."""

    def numeric(v) -> bool:
        if isinstance(v, list):
            return bool(v) and all(numeric(x) for x in v)
        return isinstance(v, Number) and not isinstance(v, bool)

    keys = {k for k, v in js.items() if numeric(v)}
    keys |= {f"{k}.{kk}" for k, v in js.items() if isinstance(v, dict) and k != "units"
             for kk, vv in v.items() if numeric(vv)}
    return keys


@pytest.mark.parametrize("vehicle", VEHICLES)
def test_every_number_has_its_unit(vehicle):
    js = json.loads(_specs(vehicle, "--json"))
    units = js["units"]
    assert set(units) == _numbers(js)
    assert set(units.values()) <= {"kg", "m", "m^2", "m^3", "m^4", "kg/m^3", "kg*m^2", "rad", "1"}


@pytest.mark.parametrize("vehicle", VEHICLES)
def test_the_units_are_the_tables(vehicle):
    """The JSON's numbers in the units it names are the table's numbers in the units the table prints."""
    js = json.loads(_specs(vehicle, "--json"))
    text = _specs(vehicle)
    units = js["units"]
    to_si = {"kg": 1.0, "m": 1.0, "deg": math.pi / 180}
    checked = 0
    for row, key in (("total mass", "total_mass"), ("draft", "draft"), ("heel", "heel"), ("trim", "trim"),
                     ("GM_T", "gm_t"), ("GM_L", "gm_l")):
        m = re.search(rf"^  {re.escape(row)}:\s+\D*?([-+]?[0-9][0-9.]*) (kg|m|deg)\b", text, re.M)  # a neutral
        # UUV's draft: "neutral: holds any depth once submerged (awash at 0.094358 m ...)"
        if key not in js:
            continue
        assert m, (row, text)
        shown, unit = float(m.group(1)), m.group(2)
        decimals = len(m.group(1).split(".")[1])
        want = "rad" if unit == "deg" else unit
        assert units[key] == want, (key, units[key], unit)
        assert js[key] == pytest.approx(shown * to_si[unit], abs=0.51 * 10 ** -decimals * to_si[unit])
        checked += 1
    assert checked >= 5
    assert units["fluid_mass"] == "kg" and units["displaced_volume"] == "m^3"
    assert units["fluid_density"] == "kg/m^3"
    assert js["fluid_mass"] == pytest.approx(js["displaced_volume"] * js["fluid_density"], rel=1e-12)
