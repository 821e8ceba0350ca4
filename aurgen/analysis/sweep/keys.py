"""A swept key of a sweep file (docs/config.md, "Sweeps"): its path parsed (:func:`parse_key`:
a vehicle config key, the type filling a slot, a field of a catalog entry, a setting of the
time-domain run), its table column (:func:`column_of`) and unit (:func:`unit_of`: ``kg``, ``m``,
``rad``, ``kg_m3`` by the key's last name, the units of the config; a time-domain setting's
from :data:`aurgen.analysis.timedomain.UNITS`), and the key set in place in a mapping as loaded
from YAML (:func:`assign`: str keys, int indices, ``[name]`` selectors; an ``"x y z"`` vector
string becomes a list). Pure: no I/O.
"""

from __future__ import annotations

from aurgen.core import limits as lim
from aurgen.core.errors import did_you_mean
from aurgen.core.records import record

# units of a swept key by its last name (column suffix); others carry none
_UNITS = {"mass": "kg", "net_buoyancy": "kg", "xyz": "m", "com": "m", "cob_offset": "m", "length": "m",
          "width": "m", "height": "m", "x": "m", "y": "m", "z": "m", "footprint": "m", "size": "m",
          "radius": "m", "radii": "m", "attach": "m", "rpy": "rad", "fluid_density": "kg_m3"}


@record
class Key:
    """A swept key. ``kind``: ``config`` (a key of the vehicle config), ``slot`` (the type filling
    a slot), ``catalog`` (a field of a catalog entry) or ``time`` (a setting of the time-domain
    run, :mod:`aurgen.analysis.timedomain`: ``(name,)`` or ``(name, component)``; a key of its sea,
    ``waves.period``: ``("waves", "period")``). ``tokens``: str keys, int
    indices and ``("sel", name)`` selectors, inside the config mapping or the catalog entry."""

    text: str
    kind: str
    tokens: tuple
    part_type: str | None = None  # catalog
    of: str | None = None  # slot: the instance (None: the base)
    slot: str | None = None


def parse_key(text) -> Key:
    """Parse a key path: ``hull_displacement.length``, ``buoyancy.cob_offset[2]``,
    ``parts[payload].xyz[0]``, ``slot.port_fwd``, ``slot.ping_mount.ping``, ``catalog.payload.mass``,
    ``catalog.blueboat_chassis.com[2]``, ``time_domain.heel``, ``waves.period`` (the time-domain run's sea).
    Raises ValueError with the reason."""
    if not isinstance(text, str) or not text:
        raise ValueError("a key is a path such as hull_displacement.length or catalog.payload.mass")
    tokens = []
    for seg in text.split("."):
        head, sep, rest = seg.partition("[")
        if lim.bad_name(head):
            raise ValueError(f"{seg!r} is not a key name")
        tokens.append(head)
        rest = sep + rest
        while rest:
            if not rest.startswith("[") or "]" not in rest:
                raise ValueError(f"unbalanced brackets in {seg!r}")
            inner, rest = rest[1:].split("]", 1)
            if inner.isdigit():
                tokens.append(int(inner))
            elif not lim.bad_name(inner):
                tokens.append(("sel", inner))
            else:
                raise ValueError(f"[{inner}] is neither an index nor a name")
    first = tokens[0]
    if first == "slot":
        names = tokens[1:]
        if len(names) not in (1, 2) or not all(isinstance(t, str) for t in names):
            raise ValueError("a slot key is slot.<slot> (on the base) or slot.<instance>.<slot>")
        return Key(text, "slot", tuple(tokens), of=names[0] if len(names) == 2 else None, slot=names[-1])
    if first == "time_domain":
        from aurgen.analysis.timedomain import SWEEPABLE, VECTORS

        rest = tokens[1:]
        if not rest or rest[0] not in SWEEPABLE:
            raise ValueError(f"a time-domain key is time_domain.<{'|'.join(SWEEPABLE)}>")
        if rest[0] in VECTORS:
            if len(rest) != 2 or not isinstance(rest[1], int) or not 0 <= rest[1] <= 2:
                raise ValueError(f"time_domain.{rest[0]} is a vector: sweep one component, "
                                 f"time_domain.{rest[0]}[0], [1] or [2] (m/s, world x, y, z)")
        elif len(rest) != 1:
            raise ValueError(f"time_domain.{rest[0]} is a number: no index or sub-key")
        return Key(text, "time", tuple(rest))
    if first == "waves":  # a key of the time-domain run's sea (aurgen.analysis.sea: the world's waves keys)
        from aurgen.analysis.sea import KEYS

        rest = tokens[1:]
        if len(rest) != 1 or rest[0] not in KEYS:
            raise ValueError(f"a sea key is waves.<{'|'.join(KEYS)}> (the world's waves keys; open water has one "
                             "surface)")
        return Key(text, "time", ("waves", rest[0]))
    if first == "catalog":
        if len(tokens) < 3 or not isinstance(tokens[1], str) or not isinstance(tokens[2], str):
            raise ValueError("a catalog key is catalog.<part type>.<field>, e.g. catalog.payload.mass")
        return Key(text, "catalog", tuple(tokens[2:]), part_type=tokens[1])
    return Key(text, "config", tuple(tokens))


def unit_of(key: Key) -> str:
    if key.kind == "slot":
        return ""
    if key.kind == "time":
        from aurgen.analysis.timedomain import UNITS

        if key.tokens[0] == "waves":
            from aurgen.analysis.sea import UNITS as SEA_UNITS

            return SEA_UNITS[key.tokens[1]]
        return UNITS[key.tokens[0]]
    names = [t for t in key.tokens if isinstance(t, str)]
    return _UNITS.get(names[-1], "") if names else ""


def column_of(key: Key, name: str | None) -> str:
    """The table column of a swept key: ``name`` (else the path, '_'-joined) and its unit."""
    def flat(tokens):
        return "_".join(str(t[1] if isinstance(t, tuple) else t) for t in tokens)

    if name:
        stem = name
    elif key.kind == "catalog":
        stem = f"{key.part_type}_{flat(key.tokens)}"
    elif key.kind == "time":
        stem = f"td_{flat(key.tokens)}"
    else:
        stem = flat(key.tokens)
    unit = unit_of(key)
    return f"{stem}_{unit}" if unit and not stem.endswith(f"_{unit}") else stem


def _walk(node, tokens, what: str):
    """The container holding the last token, walking ``tokens[:-1]`` (KeyError with the reason)."""
    for k, t in enumerate(tokens[:-1]):
        node = _step(node, t, tokens[:k], what)
    return node


def _label(tokens) -> str:
    out = ""
    for t in tokens:
        out += f"[{t}]" if isinstance(t, int) else f"[{t[1]}]" if isinstance(t, tuple) else (f".{t}" if out else t)
    return out


def _step(node, t, before, what):
    here = _label(before) or what
    if isinstance(t, str):
        if not isinstance(node, dict):
            raise KeyError(f"{here} is not a mapping")
        if t not in node:
            raise KeyError(f"{what} has no '{_label(list(before) + [t])}'"
                           + (f" ({did_you_mean(t, node)})" if did_you_mean(t, node) else ""))
        return node[t]
    if isinstance(t, int):
        node = _listed(node, here)
        if not 0 <= t < len(node):
            raise KeyError(f"{here} has {len(node)} items: no [{t}]")
        return node[t]
    return node[_select(node, t[1], here)]


def _listed(node, here):
    if isinstance(node, str):  # an "x y z" vector
        from aurgen.core import numbers

        vals = [numbers.vector_word(p) for p in numbers.yaml_words(node)]
        if vals and None not in vals:  # the grammar the config's own reader uses (yamlio.Reader.vector)
            return [float(v) for v in vals]
    if not isinstance(node, list):
        raise KeyError(f"{here} is not a list")
    return node


def _select(node, name, here) -> int:
    """Index of the entry of list ``node`` whose ``name`` is ``name``, else whose ``slot`` is."""
    if not isinstance(node, list):
        raise KeyError(f"{here} is not a list")
    for field_ in ("name", "slot"):
        hits = [i for i, e in enumerate(node) if isinstance(e, dict) and e.get(field_) == name]
        if len(hits) == 1:
            return hits[0]
        if len(hits) > 1:
            raise KeyError(f"{here}: {len(hits)} entries have {field_} '{name}'")
    raise KeyError(f"{here} has no entry named '{name}' (by name: or slot:)")


def assign(root, tokens, value, what: str):
    """Set ``tokens`` in the mapping ``root`` to ``value`` (in place). A missing last key of a
    mapping is added (the loader then says whether it is a known key)."""
    parent = _walk(root, tokens, what)
    t = tokens[-1]
    if isinstance(t, str):
        if not isinstance(parent, dict):
            raise KeyError(f"{_label(tokens[:-1]) or what} is not a mapping")
        parent[t] = value
        return
    # a list item: the container itself may be a "x y z" string: make it a list in its parent
    if isinstance(parent, str):
        grand = _walk(root, tokens[:-1], what)
        parent = _listed(parent, _label(tokens[:-1]))
        _put(grand, tokens[-2], parent)
    if isinstance(t, int):
        parent = _listed(parent, _label(tokens[:-1]))
        if not 0 <= t < len(parent):
            raise KeyError(f"{_label(tokens[:-1])} has {len(parent)} items: no [{t}]")
        parent[t] = value
        return
    parent[_select(parent, t[1], _label(tokens[:-1]))] = value


def _put(container, t, value):
    if isinstance(t, tuple):
        container[_select(container, t[1], "")] = value
    else:
        container[t] = value
