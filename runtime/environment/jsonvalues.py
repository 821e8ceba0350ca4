"""JSON values as the environment's schema reads them (runtime/environment/schema.py): each check
raises :class:`EnvironmentInvalid` naming the key and what came (``cells[0].density: expected a
finite number, got a string ('x')``), in the plugin's words (runtime/native/plugin/schema.h)."""

from __future__ import annotations

import json
import math
import numbers

import numpy as np

from aurgen.core.errors import AurgenError


class EnvironmentInvalid(AurgenError):
    """A bad environment (refused at load)."""


def is_number(x) -> bool:
    """A JSON number (or, from Python, any real number; never a bool or a string)."""
    return isinstance(x, numbers.Real) and not isinstance(x, (bool, np.bool_))


LISTS = (list, tuple, np.ndarray)  # JSON gives lists; a Python caller may pass tuples or arrays


class LongInt(str):
    """A JSON integer longer than Python converts (4300 digits): kept as its text, never a number."""


def json_int(text: str):
    return int(text) if len(text.lstrip("-")) <= 4300 else LongInt(text)


def kind(x) -> str:
    """How a JSON value reads, for messages: ``a string ('down')``, ``5``."""
    if isinstance(x, LongInt) or (isinstance(x, int) and abs(x).bit_length() > 14000):
        return f"an integer of {len(x.lstrip('-')) if isinstance(x, LongInt) else 'more than 4000'} digits"
    if isinstance(x, str):
        return f"a string ({x[:40]!r})"
    if isinstance(x, bool) or x is None:
        return json.dumps(x)
    if isinstance(x, dict):
        return "an object"
    if isinstance(x, list):
        return f"a list of {len(x)}"
    return repr(x)


def num(x, what: str) -> float:
    """A finite JSON number at key ``what`` (a string, a bool or null is refused, never converted)."""
    try:
        v = float(x) if is_number(x) else math.nan
    except OverflowError:  # an int beyond a double
        v = math.inf
    if not math.isfinite(v):
        raise EnvironmentInvalid(f"{what}: expected a finite number, got {kind(x)}")
    return v


def vec(x, n, what):
    """``n`` finite numbers at key ``what`` (a JSON list)."""
    if not isinstance(x, LISTS) or len(x) != n:
        raise EnvironmentInvalid(f"{what}: expected a list of {n} finite numbers, got {kind(x)}")
    return tuple(num(a, f"{what}[{i}]") for i, a in enumerate(x))


def obj(x, what: str, keys: set) -> dict:
    """A JSON object at ``what`` with no key outside ``keys``."""
    if not isinstance(x, dict):
        raise EnvironmentInvalid(f"{what}: expected an object ({', '.join(sorted(keys))}), got {kind(x)}")
    for k in sorted(x):  # sorted, as the plugin checks them (schema.h)
        if k not in keys:
            raise EnvironmentInvalid(f"{what}.{k}: unknown key (expected {', '.join(sorted(keys))})")
    return x


def lst(x, what: str) -> list:
    if isinstance(x, LISTS):
        return x
    raise EnvironmentInvalid(f"{what}: expected a list, got {kind(x)}")
