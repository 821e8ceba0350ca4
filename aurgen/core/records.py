"""``@record``: ``@dataclass(frozen=True)`` without compiling code for every class.

On Python 3.11 ``dataclass(frozen=True)`` writes the source of six methods per class
(``__init__``, ``__repr__``, ``__eq__``, ``__hash__``, ``__setattr__``, ``__delattr__``) and
compiles each: 0.8 ms a class, a fifth of a cold ``aurgen specs`` for the ~30 records it
imports. ``record`` lets :func:`dataclasses.dataclass` process the fields (``fields()``,
``replace()``, ``asdict()`` and ``__match_args__`` work as for any dataclass) and installs
shared, field-driven methods that behave as the generated ones do: the same arguments and
defaults (``field(default_factory=...)``, ``field(compare=False)``, ``__post_init__``), equality
and hash over the compared fields of instances of the same class, the same ``repr``, and
``FrozenInstanceError`` on assignment or deletion. ``eq=False`` keeps identity equality and
hash, as ``dataclass(frozen=True, eq=False)`` does. Records are not subclassed (a subclass
instance would refuse every assignment), and ``__dataclass_params__`` describes the bare
dataclass (``init``, ``repr``, ``eq`` and ``frozen`` False): the methods are the record's.
"""

from __future__ import annotations

import inspect
import reprlib
from dataclasses import MISSING, FrozenInstanceError, dataclass, fields

__all__ = ["record", "FrozenInstanceError"]


def record(cls=None, /, *, eq: bool = True):
    """Class decorator: ``@record`` or ``@record(eq=False)``; see the module docstring."""

    def wrap(c):
        return _make(c, eq)

    return wrap if cls is None else wrap(cls)


def _make(cls, eq: bool):
    for name in ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__"):
        if name in cls.__dict__ and not (name == "__hash__" and cls.__dict__[name] is None):
            raise TypeError(f"{cls.__qualname__} defines {name}: a record generates it")
    doc = cls.__doc__
    if doc is None:  # a placeholder: else dataclass derives one from object()'s signature (4 ms of inspect)
        cls.__doc__ = cls.__name__
    cls = dataclass(cls, init=False, repr=False, eq=False)
    fs = fields(cls)
    if any(getattr(f, "kw_only", False) for f in fs):
        raise TypeError(f"{cls.__qualname__}: a record's fields are positional or keyword (no kw_only)")
    cls.__init__ = _init_for(cls, fs)
    if doc is None:  # dataclass's own default docstring: the class name and its signature
        cls.__doc__ = cls.__name__ + str(inspect.signature(cls)).replace(" -> None", "")
    cls.__repr__ = _repr_for(tuple(f.name for f in fs if f.repr))
    cls.__setattr__ = _setattr
    cls.__delattr__ = _delattr
    if eq:
        cls.__eq__ = _eq_for(tuple(f.name for f in fs if f.compare))
        cls.__hash__ = _hash_for(tuple(f.name for f in fs if (f.compare if f.hash is None else f.hash)))
    return cls


def _init_for(cls, fs):
    """An ``__init__(self, <init fields in order>)`` as the dataclass would write it."""
    qual = f"{cls.__qualname__}.__init__()"
    specs = tuple((f.name, f.init, f.default, f.default_factory) for f in fs)
    names = tuple(f.name for f in fs if f.init)
    index = {n: i for i, n in enumerate(names)}
    post = getattr(cls, "__post_init__", None) is not None
    required = 1 + sum(1 for f in fs if f.init and f.default is MISSING and f.default_factory is MISSING)
    takes = f"{len(names) + 1}" if required == len(names) + 1 else f"from {required} to {len(names) + 1}"

    every = len(names) == len(specs)  # no init=False fields

    def bind(args, kwargs) -> dict:
        """Field name -> value, in field order, or the TypeError Python raises for the call."""
        if len(args) > len(names):
            raise TypeError(f"{qual} takes {takes} positional argument{'s' if len(names) else ''} "
                            f"but {len(args) + 1} were given")
        for k in kwargs:
            if k not in index:
                raise TypeError(f"{qual} got an unexpected keyword argument {k!r}")
            if index[k] < len(args):
                raise TypeError(f"{qual} got multiple values for argument {k!r}")
        values = {}
        missing = []
        for name, init, default, factory in specs:
            if init:
                i = index[name]
                if i < len(args):
                    values[name] = args[i]
                    continue
                if name in kwargs:
                    values[name] = kwargs[name]
                    continue
            if default is not MISSING:
                values[name] = default
            elif factory is not MISSING:
                values[name] = factory()
            elif init:
                missing.append(name)
        if missing:
            raise TypeError(f"{qual} missing {len(missing)} required positional argument"
                            f"{'s' if len(missing) > 1 else ''}: {_quoted(missing)}")
        return values

    def __init__(self, *args, **kwargs):
        # the common calls first: every field given, all by position or all by keyword
        if every and not kwargs and len(args) == len(names):
            values = zip(names, args)
        elif every and not args and len(kwargs) == len(names) and kwargs.keys() == index.keys():
            values = {n: kwargs[n] for n in names}
        else:
            values = bind(args, kwargs)
        self.__dict__.update(values)  # what object.__setattr__ per field does, in field order
        if post:
            self.__post_init__()

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    __init__.__signature__ = inspect.Signature(
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        + [inspect.Parameter(f.name, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=f.type,
                             default=f.default if f.default is not MISSING
                             else _FACTORY if f.default_factory is not MISSING else inspect.Parameter.empty)
           for f in fs if f.init], return_annotation=None)
    return __init__


class _Factory:
    def __repr__(self):
        return "<factory>"


_FACTORY = _Factory()  # a default_factory's default in a signature, shown as dataclass shows it


def _quoted(names: list) -> str:
    """Python's own listing of missing arguments: 'a', 'a' and 'b', 'a', 'b', and 'c'."""
    q = [repr(n) for n in names]
    if len(q) <= 2:
        return " and ".join(q)
    return ", ".join(q[:-1]) + ", and " + q[-1]


def _repr_for(names: tuple):
    @reprlib.recursive_repr()
    def __repr__(self):
        return self.__class__.__qualname__ + "(" + ", ".join(f"{n}={getattr(self, n)!r}" for n in names) + ")"

    return __repr__


def _eq_for(names: tuple):
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return tuple(getattr(self, n) for n in names) == tuple(getattr(other, n) for n in names)
        return NotImplemented

    return __eq__


def _hash_for(names: tuple):
    def __hash__(self):
        return hash(tuple(getattr(self, n) for n in names))

    return __hash__


def _setattr(self, name, value):
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _delattr(self, name):
    raise FrozenInstanceError(f"cannot delete field {name!r}")
