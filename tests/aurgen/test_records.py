"""``aurgen.core.records.record`` behaves as ``dataclasses.dataclass(frozen=True)``, the oracle: each
class below is declared twice, once with each decorator, and every observable is compared."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle

import numpy as np
import pytest

from aurgen.core.records import FrozenInstanceError, record


def _post(self):
    object.__setattr__(self, "b", tuple(self.b))


def _declare(deco, name):
    body = {
        "__annotations__": {"a": "int", "b": "tuple", "c": "str | None", "d": "tuple", "e": "float"},
        "__doc__": "A record: a int, b tuple.",
        "b": (1.0, 2.0),
        "c": None,
        "d": dataclasses.field(default_factory=tuple),
        "e": dataclasses.field(default=0.5, compare=False),
        "__module__": __name__,
        "__qualname__": name,
        "total": lambda self: self.a + sum(self.b),
    }
    return deco(type(name, (), body))


def _declare_nodoc(deco, name):
    return deco(type(name, (), {"__annotations__": {"x": "float", "y": "list"}, "y": dataclasses.field(
        default_factory=list, repr=False), "__module__": __name__, "__qualname__": name}))


def _declare_post(deco, name):
    return deco(type(name, (), {"__annotations__": {"a": "int", "b": "tuple"}, "__doc__": "post",
                                "__post_init__": _post, "__module__": __name__, "__qualname__": name}))


DC = _declare(dataclasses.dataclass(frozen=True), "DC")
RC = _declare(record, "RC")
DN = _declare_nodoc(dataclasses.dataclass(frozen=True), "DN")
RN = _declare_nodoc(record, "RN")
DP = _declare_post(dataclasses.dataclass(frozen=True), "DP")
RP = _declare_post(record, "RP")
DI = _declare(dataclasses.dataclass(frozen=True, eq=False), "DI")
RI = _declare(record(eq=False), "RI")

PAIRS = [(DC, RC), (DN, RN), (DP, RP), (DI, RI)]
ARGS = {"DC": [(1,), (1, (2.0,)), (1, (2.0,), "x", (3,), 9.0)], "DN": [(1.5,), (1.5, [1])],
        "DP": [(1, [2, 3])], "DI": [(1,), (2, (1.0,), "y")]}


def _same(dc, rc, f):
    """f(dc) and f(rc) agree, class names aside; an exception counts (type and message)."""
    def run(c):
        try:
            return "ok", f(c)
        except Exception as exc:  # noqa: BLE001 - the exception is the observable
            return type(exc).__name__, str(exc)
    a, b = run(dc), run(rc)
    norm = lambda v: repr(v).replace(rc.__name__, dc.__name__)  # noqa: E731
    assert norm(a) == norm(b), (a, b)


@pytest.mark.parametrize("dc, rc", PAIRS, ids=[p[0].__name__ for p in PAIRS])
def test_class_level_matches_dataclass(dc, rc):
    _same(dc, rc, lambda c: [(f.name, f.type, f.default, f.init, f.repr, f.compare, f.hash)
                             for f in dataclasses.fields(c)])
    _same(dc, rc, lambda c: c.__match_args__)
    _same(dc, rc, lambda c: str(inspect.signature(c)))
    _same(dc, rc, lambda c: c.__doc__)
    _same(dc, rc, lambda c: dataclasses.is_dataclass(c))
    _same(dc, rc, lambda c: c.__hash__ is None)
    _same(dc, rc, lambda c: {k: getattr(c, k) for k in ("b", "c") if hasattr(c, k)})  # class defaults


@pytest.mark.parametrize("dc, rc", PAIRS, ids=[p[0].__name__ for p in PAIRS])
def test_instances_match_dataclass(dc, rc):
    for args in ARGS[dc.__name__]:
        _same(dc, rc, lambda c: repr(c(*args)))
        _same(dc, rc, lambda c: vars(c(*args)))  # values and their order
        _same(dc, rc, lambda c: c(*args) == c(*args))
        _same(dc, rc, lambda c: c(*args) != c(*args))
        _same(dc, rc, lambda c: hash(c(*args)) == hash(c(*args)))
        _same(dc, rc, lambda c: c(*args) == args)
        _same(dc, rc, lambda c: dataclasses.asdict(c(*args)))
        _same(dc, rc, lambda c: dataclasses.astuple(c(*args)))
        _same(dc, rc, lambda c: repr(dataclasses.replace(c(*args), a=7)))
        _same(dc, rc, lambda c: repr(copy.deepcopy(c(*args))))
        _same(dc, rc, lambda c: repr(pickle.loads(pickle.dumps(c(*args)))))
        _same(dc, rc, lambda c: pickle.loads(pickle.dumps(c(*args))) == c(*args))
        _same(dc, rc, lambda c: [f(c(*args)) for f in (lambda o: setattr(o, "a", 2),)])
        _same(dc, rc, lambda c: setattr(c(*args), "new", 2))
        _same(dc, rc, lambda c: delattr(c(*args), "a"))
        _same(dc, rc, lambda c: c(*args).total() if hasattr(c, "total") else None)
        kw = dict(zip(dc.__match_args__, args))
        _same(dc, rc, lambda c: repr(c(**kw)))
        if len(args) > 1:
            _same(dc, rc, lambda c: repr(c(args[0], **dict(list(kw.items())[1:]))))


@pytest.mark.parametrize("dc, rc", PAIRS, ids=[p[0].__name__ for p in PAIRS])
@pytest.mark.parametrize("args, kwargs", [
    ((), {}), ((1, 2, 3, 4, 5, 6), {}), ((1, 2), {"a": 3}), ((1,), {"zz": 1}), ((), {"b": 1}),
    ((1,), {"b": (1,), "c": "q", "d": (), "e": 1.0}), ((), {"a": 1, "x": 2}),
])
def test_bad_calls_match_dataclass(dc, rc, args, kwargs):
    _same(dc, rc, lambda c: repr(c(*args, **kwargs)))


def test_equality_is_by_value_within_a_class_and_not_across():
    assert RC(1) == RC(1, (1.0, 2.0)) and RC(1) != RC(2)
    assert RC(1, e=1.0) == RC(1, e=2.0)  # compare=False
    assert RC(1) != DC(1) and RN(1.0, [1]) != RN(1.0, [2])  # y: repr=False, still compared
    assert RI(1) != RI(1)  # eq=False: identity
    with pytest.raises(FrozenInstanceError):
        RC(1).a = 3


def test_field_arrays_compare_as_dataclass_does():
    """A record holding arrays: equality raises as the dataclass's does (numpy truth value)."""
    _same(DC, RC, lambda c: c(1, (np.zeros(2),)) == c(1, (np.zeros(2),)))


def test_a_record_may_not_define_what_it_generates_nor_take_keyword_only_fields():
    with pytest.raises(TypeError, match="defines __repr__"):
        record(type("Bad", (), {"__annotations__": {"a": "int"}, "__repr__": lambda self: "x"}))
    with pytest.raises(TypeError, match="kw_only"):
        record(type("Kw", (), {"__annotations__": {"a": "int"}, "a": dataclasses.field(kw_only=True),
                               "__module__": __name__}))
