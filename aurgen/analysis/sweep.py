"""``aurgen sweep``: a declared family of vehicle variants and their static figures (docs/config.md, "Sweeps").

A sweep file names a base vehicle config and grids and/or seeded distributions
over config keys (payload mass and position, battery slots, catalog masses and
CoM offsets, hull sizes, declared buoyancy). Variant ``i`` is a pure function of
the sweep and ``i``: its mapping is built in memory from the base config, validated
by the same loaders as a file (:func:`aurgen.config.vehicle_from_mapping`,
:func:`aurgen.config.catalog.parse_part`), composed (:func:`aurgen.compose.resolve`) and
given the kernel's equilibrium (:func:`aurgen.compose.stamp.equilibrium_of`), the deck's
freeboard (:func:`aurgen.analysis.stability.freeboard_of`) and, on request, the righting
arm's figures (:mod:`aurgen.analysis.stability`). A variant that does not compose is a row
with its reason.

Layers: parsing the sweep file and validating its keys (:func:`load_sweep`,
:func:`check`), the variants (:func:`values_of`, :func:`compose_variant`,
:func:`figures_of`, :func:`run_chunk`: pure, no I/O), the table (:func:`csv_text`),
and at the edges the journal, the runners (serial, Ray), the figures and the
command (:func:`cli_sweep`). Every file goes through :mod:`aurgen.core.files`.

Restart: rows are appended to ``rows.jsonl`` (first line: the sweep's sha256) as
they are computed; a run on the same folder skips the variants already there and
refuses a journal of another sweep. The table (``sweep.csv``, ``sweep.parquet``)
is sorted by variant index, so it is the same row for row whatever the order of
computation, the chunking or the number of workers.
"""

from __future__ import annotations

import csv
import hashlib
import io
import itertools
import json
import math
import sys
import time
from dataclasses import field
from pathlib import Path

import numpy as np

from aurgen.core import limits as lim
from aurgen.core.errors import AurgenError, ConfigError, did_you_mean
from aurgen.core.records import record
from aurgen.core.yamlio import copy_tree

FORMAT = 1  # the journal's format
MAX_VARIANTS = 10_000_000
MAX_GRID = 1_000_000  # values of one grid key
CHECK_MAX = 50  # values of one numeric grid key composed up front (its ends among them)
JOURNAL = "rows.jsonl"
GZ_MODES = ("off", "samples", "exact")
SWEEP_KEYS = {"vehicle", "seed", "samples", "parts", "add", "grid", "random", "figures", "plots", "time_domain"}
DISTRIBUTIONS = ("uniform", "normal", "choice")

# units of a swept key by its last name (column suffix); others carry none
_UNITS = {"mass": "kg", "net_buoyancy": "kg", "xyz": "m", "com": "m", "cob_offset": "m", "length": "m",
          "width": "m", "height": "m", "x": "m", "y": "m", "z": "m", "footprint": "m", "size": "m",
          "radius": "m", "radii": "m", "attach": "m", "rpy": "rad", "fluid_density": "kg_m3"}

#: the figure columns, in table order (after ``variant`` and the swept keys)
FIGURES = ("composed", "reason", "equilibrium_status", "capsized", "safe", "total_mass_kg", "added_mass_kg",
           "com_x_m", "com_y_m", "com_z_m", "displaced_volume_m3", "reserve_buoyancy_kg", "draft_m", "heel_deg",
           "trim_deg", "gm_t_m", "gm_l_m", "freeboard_m", "max_gz_m", "angle_max_gz_deg", "avs_deg",
           "gz_fold_deg")


class SweepError(AurgenError):
    """A sweep that cannot run: its file, or keys that cannot be swept (each named)."""


# --------------------------------------------------------------------------- keys


@record
class Key:
    """A swept key. ``kind``: ``config`` (a key of the vehicle config), ``slot`` (the type filling
    a slot), ``catalog`` (a field of a catalog entry) or ``time`` (a setting of the time-domain
    run, :mod:`aurgen.analysis.timedomain`: ``(name,)`` or ``(name, component)``). ``tokens``: str keys, int
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
    ``catalog.blueboat_chassis.com[2]``. Raises ValueError with the reason."""
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

        return UNITS[key.tokens[0]]
    names = [t for t in key.tokens if isinstance(t, str)]
    return _UNITS.get(names[-1], "") if names else ""


def _column(key: Key, name: str | None) -> str:
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
        try:
            return [float(p) for p in node.split()]
        except ValueError:
            pass
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


def _assign(root, tokens, value, what: str):
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


# --------------------------------------------------------------------------- the sweep file


@record
class Axis:
    """One swept key: ``values`` (a grid) or a distribution ``dist`` with ``params``."""

    key: Key
    column: str
    values: tuple | None = None
    dist: str | None = None
    params: dict = field(default_factory=dict)

    def extremes(self) -> list:
        """The values checked up front: each grid value (of a numeric grid of more than
        ``CHECK_MAX`` values: its ends and ``CHECK_MAX`` - 2 evenly spaced between), a
        distribution's ends (or each choice)."""
        if self.values is not None:
            vals = list(self.values)
            if len(vals) > CHECK_MAX and all(_isnum(v) for v in vals):
                order = sorted(vals)
                idx = np.linspace(0, len(order) - 1, CHECK_MAX).round().astype(int)
                return [order[k] for k in sorted(set(idx.tolist()))]
            return vals
        p = self.params
        if self.dist == "uniform":
            return [p["low"], p["high"]]
        if self.dist == "normal":
            lo = p["min"] if p.get("min") is not None else p["mean"] - 4 * p["std"]
            hi = p["max"] if p.get("max") is not None else p["mean"] + 4 * p["std"]
            return [lo, p["mean"], hi]
        return list(p["choices"])


@record
class Sweep:
    """A parsed sweep file (plain data: it travels to Ray workers)."""

    path: str  # the sweep file (messages)
    label: str  # its file name (variant names; no folder, so tables do not depend on where it lies)
    sha256: str  # sweep file + base config + catalog entries the base uses
    base_path: str
    base: dict  # the base vehicle mapping, with ``add`` appended
    parts: dict  # part type -> catalog entry mapping declared by the sweep
    grid: tuple
    random: tuple
    samples: int
    seed: int
    gz: str
    gz_step_deg: float
    plots: dict
    base_mass: float = 0.0
    td: dict = field(default_factory=dict)  # the time_domain: settings (aurgen.analysis.timedomain.DEFAULTS filled in)
    time_domain: bool = False  # --time-domain: run them, add the td_ columns

    @property
    def axes(self) -> tuple:
        return self.grid + self.random

    @property
    def n(self) -> int:
        return math.prod(len(a.values) for a in self.grid) * self.samples

    @property
    def columns(self) -> tuple:
        from aurgen.analysis.timedomain import COLUMNS

        return ("variant",) + tuple(a.column for a in self.axes) + FIGURES + (COLUMNS if self.time_domain else ())


def _plain(node):
    """A loaded YAML node as plain dicts and lists (no line bookkeeping)."""
    if isinstance(node, dict):
        return {k: _plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_plain(v) for v in node]
    return node


def load_sweep(path) -> Sweep:
    """Read and validate a sweep file's structure (not yet its keys against the vehicle: :func:`check`)."""
    from aurgen.config.vehicle import resolve_config_path
    from aurgen.core.yamlio import Reader, load

    path = resolve_config_path(path, "sweeps")  # as given, ./, ./sweeps/, the bundled sweeps
    data = load(path)
    r = Reader(path)
    r.check_keys(data, SWEEP_KEYS, "", required=("vehicle",))
    vehicle = r.string(data, "vehicle", "", required=True)
    beside = path.parent / vehicle
    base_path = beside.resolve() if beside.is_file() else resolve_config_path(vehicle)
    base = _plain(load(base_path))
    if not isinstance(base, dict):
        raise r.error("vehicle", "the base config is not a mapping", node=data, field="vehicle")
    base.setdefault("name", base_path.stem)
    add = r.sequence(data, "add", "")
    for i, e in enumerate(add):
        r.mapping(e, f"add[{i}]", node=data, field="add")
    if add:
        parts = base.get("parts") or []
        if not isinstance(parts, list):
            raise r.error("add", "the base config's parts: is not a list", node=data, field="add")
        base["parts"] = parts + _plain(add)
    parts = {}
    pnode = data.get("parts") or {}
    r.mapping(pnode, "parts", node=data, field="parts")
    for name, entry in pnode.items():
        r.as_name(name, f"parts.{name}", node=pnode, field=name, part_type=True)
        r.mapping(entry, f"parts.{name}", node=pnode, field=name)
        parts[str(name)] = entry  # kept with its lines: the catalog loader names them
    seed = data.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise r.error("seed", f"expected a whole number ≥ 0, got {seed!r}", node=data, field="seed")
    grid = tuple(_axis(r, "grid", k, v, data["grid"]) for k, v in (r.mapping(data.get("grid") or {}, "grid",
                                                                            node=data, field="grid")).items())
    rand = tuple(_axis(r, "random", k, v, data["random"]) for k, v in (r.mapping(data.get("random") or {}, "random",
                                                                                node=data, field="random")).items())
    if rand and "samples" not in data:
        raise r.error("samples", "random keys need a number of samples (draws per grid point)", node=data)
    samples = data.get("samples", 1)
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
        raise r.error("samples", f"expected a whole number ≥ 1, got {samples!r}", node=data, field="samples")
    figs = r.mapping(data.get("figures") or {}, "figures", node=data, field="figures")
    r.check_keys(figs, {"gz", "gz_step_deg"}, "figures")
    gz = figs.get("gz", "off")
    if gz is False:
        gz = "off"
    if gz not in GZ_MODES:
        raise r.error("figures.gz", f"must be one of {', '.join(GZ_MODES)}, got {gz!r}", node=figs, field="gz")
    step = r.number(figs, "gz_step_deg", "figures", default=5.0 if gz == "exact" else 10.0, at_least=0.1,
                    at_most=45.0)
    plots = r.mapping(data.get("plots") or {}, "plots", node=data, field="plots")
    r.check_keys(plots, {"plane"}, "plots")
    seen = {}
    axes = grid + rand
    for a in axes:
        if a.key.text in seen:
            raise r.error(f"random.{a.key.text}", "swept twice (in grid and random)", node=data)
        seen[a.key.text] = a
    cols = [a.column for a in axes]
    for c in cols:
        if cols.count(c) > 1 or c in FIGURES or c == "variant":
            raise r.error("grid", f"two columns would be named {c!r}", "give one of the keys a name:", node=data)
    if "plane" in plots:
        plane = plots["plane"]
        if not (isinstance(plane, list) and len(plane) == 2 and all(p in cols or p in FIGURES for p in plane)):
            raise r.error("plots.plane", f"expected two column names (swept: {', '.join(cols) or 'none'})",
                          node=plots, field="plane")
    from aurgen.analysis.timedomain import parse_settings

    try:
        td = parse_settings(_plain(data.get("time_domain")))
    except ValueError as exc:
        where, _, why = str(exc).partition(": ")
        raise r.error(where, why, node=data, field="time_domain") from None
    sweep = Sweep(path=str(path), label=path.name, sha256="", base_path=str(base_path), base=base, parts=parts,
                  grid=grid, random=rand, samples=samples, seed=seed, gz=gz, gz_step_deg=step,
                  plots=_plain(plots), td=td)
    if sweep.n > MAX_VARIANTS:
        raise r.error("grid", f"{sweep.n} variants: more than {MAX_VARIANTS}", node=data)
    return sweep


def _axis(r, section: str, k, v, node) -> Axis:
    where = f"{section}.{k}"
    try:
        key = parse_key(k)
    except ValueError as exc:
        raise r.error(where, str(exc), node=node, field=k) from None
    name = None
    if isinstance(v, dict) and "name" in v:
        name = r.name(v, "name", where)
    column = _column(key, name)
    if section == "grid":
        if isinstance(v, list):
            values = v
        else:
            v = r.mapping(v, where, node=node, field=k)
            r.check_keys(v, {"values", "from", "to", "num", "name"}, where)
            if "values" in v:
                values = r.sequence(v, "values", where)
            else:
                r.check_keys(v, {"from", "to", "num", "name"}, where, required=("from", "to", "num"))
                a = r.number(v, "from", where, required=True)
                b = r.number(v, "to", where, required=True)
                num = v["num"]
                if isinstance(num, bool) or not isinstance(num, int) or not 1 <= num <= MAX_GRID:
                    raise r.error(f"{where}.num", f"expected a whole number from 1 to {MAX_GRID}, got {num!r}",
                                  node=v, field="num")
                values = [float(x) for x in np.linspace(a, b, num)]
        if not values:
            raise r.error(where, "no values", node=node, field=k)
        return Axis(key, column, values=tuple(_plain(values)))
    v = r.mapping(v, where, node=node, field=k)
    dists = [d for d in DISTRIBUTIONS if d in v]
    r.check_keys(v, set(DISTRIBUTIONS) | {"name"}, where)
    if len(dists) != 1:
        raise r.error(where, f"give one distribution: {', '.join(DISTRIBUTIONS)}", node=node, field=k)
    d = dists[0]
    spec = v[d]
    if d == "uniform":
        if not (isinstance(spec, list) and len(spec) == 2):
            raise r.error(f"{where}.uniform", "expected [low, high]", node=v, field=d)
        lo, hi = (r.as_number(x, f"{where}.uniform", node=v, field=d) for x in spec)
        if hi < lo:
            raise r.error(f"{where}.uniform", f"low {lo:g} above high {hi:g}", node=v, field=d)
        params = {"low": lo, "high": hi}
    elif d == "normal":
        spec = r.mapping(spec, f"{where}.normal", node=v, field=d)
        r.check_keys(spec, {"mean", "std", "min", "max"}, f"{where}.normal", required=("mean", "std"))
        params = {"mean": r.number(spec, "mean", f"{where}.normal", required=True),
                  "std": r.number(spec, "std", f"{where}.normal", required=True, nonnegative=True),
                  "min": r.number(spec, "min", f"{where}.normal"), "max": r.number(spec, "max", f"{where}.normal")}
        if params["min"] is not None and params["max"] is not None and params["max"] < params["min"]:
            raise r.error(f"{where}.normal", "min above max", node=spec)
    else:
        if not (isinstance(spec, list) and spec):
            raise r.error(f"{where}.choice", "expected a non-empty list of values", node=v, field=d)
        params = {"choices": tuple(_plain(spec))}
    return Axis(key, column, dist=d, params=params)


# --------------------------------------------------------------------------- variants (pure)


def values_of(sweep: Sweep, i: int) -> dict:
    """{column: value} of variant ``i``: its grid point (the last grid key varies fastest), then one
    draw of each random key from a generator seeded by (seed, i): the same for any chunking."""
    if not 0 <= i < sweep.n:
        raise IndexError(i)
    g, _ = divmod(i, sweep.samples)
    out = {}
    sizes = [len(a.values) for a in sweep.grid]
    idx = []
    for s in reversed(sizes):
        g, k = divmod(g, s)
        idx.append(k)
    for a, k in zip(sweep.grid, reversed(idx)):
        out[a.column] = a.values[k]
    if sweep.random:
        rng = np.random.default_rng([sweep.seed, i])
        for a in sweep.random:
            p = a.params
            if a.dist == "uniform":
                x = float(rng.uniform(p["low"], p["high"]))
            elif a.dist == "normal":
                x = float(rng.normal(p["mean"], p["std"]))
                if p.get("min") is not None:
                    x = max(x, p["min"])
                if p.get("max") is not None:
                    x = min(x, p["max"])
            else:
                x = p["choices"][int(rng.integers(len(p["choices"])))]
            out[a.column] = x
    return out


class _State:
    """Per-process caches for one sweep: the catalog, parsed catalog entries, the base mapping."""

    def __init__(self, sweep: Sweep):
        from aurgen.config.catalog import catalog_for

        self.catalog = catalog_for(sweep.base_path)
        self.parts: dict = {}  # (type, json of its entry) -> Part
        self.entries: dict = {}  # type -> its catalog entry mapping (the file's, or the sweep's)


_STATES: dict = {}


def _state(sweep: Sweep) -> _State:
    st = _STATES.get((sweep.sha256, sweep.path))
    if st is None:
        _STATES.clear()
        st = _STATES[(sweep.sha256, sweep.path)] = _State(sweep)
    return st


def _entry_of(sweep: Sweep, st: _State, part_type: str):
    """(catalog entry mapping, its file) of ``part_type``: declared by the sweep, else the catalog's."""
    from aurgen.core.yamlio import load

    if part_type in sweep.parts:
        return sweep.parts[part_type], Path(sweep.path)
    if part_type not in st.entries:
        p = st.catalog.path_of(part_type)
        if p is None:
            hint = did_you_mean(part_type, list(sweep.parts) + st.catalog.names())
            raise KeyError(f"no part type '{part_type}' in the catalog or the sweep's parts:"
                           + (f" ({hint})" if hint else ""))
        st.entries[part_type] = (load(p), p)
    return st.entries[part_type]


def _part(st: _State, part_type: str, entry, path: Path):
    from aurgen.config.catalog import parse_part

    k = (part_type, str(path), json.dumps(_plain(entry), sort_keys=True, default=str))
    if k not in st.parts:
        try:
            st.parts[k] = parse_part(part_type, path, entry)
        except ConfigError as exc:
            raise ConfigError(exc.path, f"catalog.{part_type}" + (f".{exc.key}" if exc.key else ""), exc.message,
                              exc.hint, line=exc.line) from None
    return st.parts[k]


class _Catalog:
    """A catalog with some part types replaced in memory (the sweep's parts and overrides)."""

    def __init__(self, base, extra: dict, where: dict):
        self.base, self.extra, self.where = base, extra, where
        self.dirs = base.dirs

    def names(self):
        return sorted(set(self.base.names()) | set(self.extra))

    def path_of(self, type_name):
        return self.where[type_name] if type_name in self.extra else self.base.path_of(type_name)

    def has(self, type_name):
        return type_name in self.extra or self.base.has(type_name)

    def get(self, type_name, *, where=None):
        return self.extra[type_name] if type_name in self.extra else self.base.get(type_name, where=where)


def variant_mapping(sweep: Sweep, values: dict, st: _State | None = None):
    """(vehicle config mapping, {part type: catalog entry (mapping, file)}, absent part types) of a
    variant with ``values`` ({column: value}, any subset of the axes). KeyError: a key that is not
    there."""
    st = st or _state(sweep)
    data = copy_tree(sweep.base)
    entries = {t: (e, Path(sweep.path)) for t, e in sweep.parts.items()}
    by_column = {a.column: a for a in sweep.axes}
    for column, value in values.items():
        key = by_column[column].key
        if key.kind == "time":  # the run's, not the vehicle's
            continue
        if key.kind == "config":
            _assign(data, list(key.tokens), copy_tree(value), "the vehicle config")
        elif key.kind == "slot":
            parts = data.setdefault("parts", [])
            if not isinstance(parts, list):
                raise KeyError("the vehicle config's parts: is not a list")
            of = key.of
            base_name = (data.get("base") or {}).get("name", "base_link") if isinstance(data.get("base"), dict) \
                else "base_link"
            hits = [e for e in parts if isinstance(e, dict) and e.get("slot") == key.slot
                    and (e.get("of") or base_name) == (of or base_name)]
            if hits:
                hits[0]["type"] = value
            else:
                parts.append({"slot": key.slot, "type": value} | ({"of": of} if of else {}))
        else:
            if key.part_type not in entries:
                entries[key.part_type] = _entry_of(sweep, st, key.part_type)
            entry, p = entries[key.part_type]
            entry = copy_tree(entry)
            _assign(entry, list(key.tokens), copy_tree(value), f"catalog entry '{key.part_type}'")
            entries[key.part_type] = (entry, p)
    # a part the sweep declares with mass 0 is not fitted: its entries become type: none
    absent = {t for t, (e, _) in entries.items()
              if t in sweep.parts and isinstance(e, dict) and e.get("mass") in (0, 0.0)}
    for e in data.get("parts") or []:
        if isinstance(e, dict) and e.get("type") in absent:
            e["type"] = "none"
    return data, entries, absent


def compose_variant(sweep: Sweep, values: dict, index: int | None = None, sha256: str | None = None,
                    part_sha: dict | None = None):
    """The composed Vehicle of a variant (ConfigError/AurgenError when it does not compose).
    ``sha256`` and ``part_sha`` ({type: sha256}): those of the config and the catalog entries as
    written out (``--emit``), so that the files' headers name them."""
    from aurgen.compose.resolve import resolve
    from aurgen.config.vehicle import vehicle_from_mapping

    st = _state(sweep)
    try:
        data, entries, absent = variant_mapping(sweep, values, st)
    except KeyError as exc:
        raise SweepError(exc.args[0]) from None
    extra, where = {}, {}
    for t, (e, p) in entries.items():
        if t in absent:
            continue
        extra[t] = _part(st, t, e, p)
        if part_sha and t in part_sha:
            import dataclasses

            extra[t] = dataclasses.replace(extra[t], sha256=part_sha[t])
        where[t] = p
    notional = variant_name(sweep, index) if index is not None else f"{Path(sweep.label).stem}.variant.yaml"
    cfg = vehicle_from_mapping(data, notional, sha256)
    return resolve(cfg, _Catalog(st.catalog, extra, where))


def _num(x):
    x = float(x)
    return x if math.isfinite(x) else None


def figures_of(sweep: Sweep, vehicle) -> dict:
    """The static figures of a composed vehicle (the FIGURES columns but ``composed``/``reason``)."""
    from aurgen.analysis import stability as stb
    from aurgen.compose.stamp import equilibrium_of

    s = vehicle.specs
    out = {k: None for k in FIGURES}
    out.update(composed=True, reason="", total_mass_kg=float(s.total_mass),
               added_mass_kg=float(s.total_mass) - sweep.base_mass, com_x_m=float(s.com[0]),
               com_y_m=float(s.com[1]), com_z_m=float(s.com[2]), displaced_volume_m3=float(s.volume),
               reserve_buoyancy_kg=float(s.buoyancy_margin))
    eq = equilibrium_of(vehicle)
    out["equilibrium_status"] = eq.status
    out["capsized"] = eq.status in ("capsizes", "sinks")
    body = stb.body_of(vehicle)
    if eq.converged:
        out.update(draft_m=_num(eq.draft), heel_deg=_num(math.degrees(eq.heel)), trim_deg=_num(math.degrees(eq.trim)),
                   gm_t_m=_num(eq.gm_t), gm_l_m=_num(eq.gm_l))
        if eq.status == "floating":
            out["freeboard_m"] = _num(stb.freeboard_of(body, eq))
    fb = out["freeboard_m"]
    out["safe"] = bool(eq.converged and eq.stable and not out["capsized"] and (fb is None or fb > 0))
    if sweep.gz != "off" and eq.status != "sinks":
        out.update(_gz(sweep, body))
    return out


def _gz(sweep: Sweep, body) -> dict:
    """max GZ, its angle, the AVS and the free-trim fold: ``exact`` from :func:`aurgen.analysis.stability.gz_curve`
    (the report's figures, GZ sampled every ``gz_step_deg``, then refined); ``samples`` read off the kernel's GZ
    at every ``gz_step_deg`` on the same basis (:func:`aurgen.analysis.stability.sampled_arms`): the largest sample, and
    the AVS interpolated linearly between the samples around the first fall through zero after it.
    ``gz_fold_deg``: where the pitch-stable trim branch continuous with upright ends before the curve vanishes;
    when set, the figures are with the trim held at the equilibrium's (:class:`aurgen.analysis.stability.GZCurve`)."""
    from aurgen.analysis import stability as stb

    if sweep.gz == "exact":
        c = stb.gz_curve(body, "heel", sweep.gz_step_deg)
        return {"max_gz_m": _num(c.max_gz), "angle_max_gz_deg": _num(math.degrees(c.angle_max_gz)),
                "avs_deg": _num(math.degrees(c.avs)) if c.avs is not None else None,
                "gz_fold_deg": _num(math.degrees(c.fold)) if c.fold is not None else None}
    n = int(round(180.0 / sweep.gz_step_deg)) + 1
    ang = np.radians(np.linspace(0.0, 180.0, n))
    gz, fold = stb.sampled_arms(body, ang)
    i = int(np.nanargmax(gz))
    avs = None
    for k in range(i, n - 1):
        if gz[k] > 0 >= gz[k + 1]:
            avs = math.degrees(ang[k] + (ang[k + 1] - ang[k]) * gz[k] / (gz[k] - gz[k + 1]))
            break
    return {"max_gz_m": _num(gz[i]), "angle_max_gz_deg": _num(math.degrees(ang[i])),
            "avs_deg": _num(avs) if avs is not None else None,
            "gz_fold_deg": _num(math.degrees(fold)) if fold is not None else None}


def row_of(sweep: Sweep, i: int) -> dict:
    """Variant ``i``'s row: its values and figures, or its reason for failing (never raises an
    AurgenError or an arithmetic failure: those are the row's reason)."""
    return run_chunk(sweep, [i])[0]


def _static_row(sweep: Sweep, i: int):
    """(variant ``i``'s row of static figures, its Vehicle or None when it has a reason)."""
    values = values_of(sweep, i)
    row = {"variant": i, **values}
    try:
        vehicle = compose_variant(sweep, values, i)
    except (AurgenError, KeyError) as exc:
        return row | {k: None for k in FIGURES} | {"composed": False, "reason": str(exc)}, None
    try:
        return row | figures_of(sweep, vehicle), vehicle
    except Exception as exc:  # noqa: BLE001 (a figure the kernel cannot give: a row, not a crash)
        return row | {k: None for k in FIGURES} | {"composed": True,
                                                    "reason": f"figures: {type(exc).__name__}: {exc}"}, None


def td_settings(sweep: Sweep, values: dict) -> dict:
    """The time-domain settings of a variant with ``values`` ({column: value}): the sweep's
    ``time_domain:`` with its swept time-domain keys applied (ValueError naming a bad one)."""
    from aurgen.analysis import timedomain as td

    swept = {}
    for a in sweep.axes:
        if a.key.kind == "time" and a.column in values:
            name = a.key.tokens[0]
            comp = a.key.tokens[1] if len(a.key.tokens) > 1 else None
            swept[(name, comp)] = td.check_value(name, values[a.column], a.key.text)
    return td.settings_of(sweep.td, swept)


def run_chunk(sweep: Sweep, indices) -> list:
    """Rows of the variants ``indices`` (what one worker task computes); with the time domain, the
    composed variants' runs on ``mujoco.batch`` (grouped by model: :mod:`aurgen.analysis.timedomain`)."""
    from aurgen.compose.stamp import equilibrium_of

    out = [_static_row(sweep, int(i)) for i in indices]
    rows = [r for r, _ in out]
    if not sweep.time_domain:
        return rows
    from aurgen.analysis import timedomain as td

    jobs = []
    for r, vehicle in out:
        r.update({c: None for c in td.COLUMNS})
        if vehicle is None:
            continue
        try:
            settings = td_settings(sweep, r)
        except ValueError as exc:
            r["reason"] = f"time domain: {exc}"
            continue
        jobs.append({"variant": r["variant"], "vehicle": vehicle, "eq": equilibrium_of(vehicle),
                     "settings": settings})
    got = td.run_variants(jobs, sweep.seed)
    for r in rows:
        if r["variant"] in got:
            res = got[r["variant"]]
            if "reason" in res:
                r["reason"] = res["reason"]
            else:
                r.update(res)
    return rows


# --------------------------------------------------------------------------- checking up front


def prepare(path, time_domain: bool = False) -> Sweep:
    """Load a sweep file, compose its base, check every key up front and fill in the sha256 and the
    base mass. ``time_domain``: add the time-domain runs (their columns; the journal's sha256
    says so). Raises SweepError listing each key that cannot be swept, with the value and the reason."""
    import dataclasses

    from aurgen.compose.resolve import resolve
    from aurgen.analysis.timedomain import COLUMNS as TD_COLUMNS

    sweep = dataclasses.replace(load_sweep(path), time_domain=bool(time_domain))
    h = hashlib.sha256()
    h.update(Path(sweep.path).read_bytes())
    h.update(Path(sweep.base_path).read_bytes())
    sweep = dataclasses.replace(sweep, sha256=h.hexdigest())
    try:  # the base config as its file says (added_mass_kg is measured from it)
        base_vehicle = resolve(sweep.base_path)
    except AurgenError as exc:
        raise SweepError(f"{sweep.path}: the base vehicle does not compose: {exc}") from None
    h.update(base_vehicle.sha256.encode())
    h.update(json.dumps(FIGURES).encode())
    if sweep.time_domain:
        h.update(json.dumps(["time_domain", TD_COLUMNS]).encode())
    sweep = dataclasses.replace(sweep, sha256=h.hexdigest(), base_mass=float(base_vehicle.specs.total_mass))
    problems = check(sweep)
    if problems:
        lines = "\n".join(f"  {k}: {why}" for k, why in problems)
        raise SweepError(f"{sweep.path}: {len(problems)} swept key(s) cannot be swept (nothing was run):\n{lines}")
    return sweep


def check(sweep: Sweep) -> list:
    """[(key, reason)] for each swept key that does not exist, or one of whose values (each grid
    value, a distribution's ends, each choice) makes the base vehicle invalid with every other key
    at its base value. Empty: every key is good."""
    out = []
    try:
        compose_variant(sweep, {})
    except AurgenError as exc:
        return [("(base with the sweep's parts and add:)", str(exc))]
    for a in sweep.axes:
        if a.key.kind == "time":
            out.extend(_check_time(sweep, a))
            continue
        for v in _unique(a.extremes()):
            try:
                compose_variant(sweep, {a.column: v})
            except SweepError as exc:
                out.append((a.key.text, str(exc)))
                break
            except AurgenError as exc:
                out.append((a.key.text, f"= {v!r}: {exc}"))
                break
    return out


def _check_time(sweep: Sweep, a: Axis) -> list:
    from aurgen.analysis.timedomain import check_value

    if not sweep.time_domain:
        return [(a.key.text, "a setting of the time-domain run: sweep it with --time-domain")]
    for v in _unique(a.extremes()):
        try:
            check_value(a.key.tokens[0], v, "")
        except ValueError as exc:
            return [(a.key.text, f"= {v!r}{str(exc)}")]
    return []


def _unique(values):
    seen, out = set(), []
    for v in values:
        k = json.dumps(v, sort_keys=True, default=str)
        if k not in seen:
            seen.add(k)
            out.append(v)
    return out


# --------------------------------------------------------------------------- the table (pure)


def _cell(v) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v) if math.isfinite(v) else ""
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return v
    return json.dumps(v)


def csv_text(columns, rows) -> str:
    """The table as CSV: one header line, rows in the given order; floats in their shortest
    round-trip form, booleans true/false, a missing value empty."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns)
    for r in rows:
        w.writerow([_cell(r.get(c)) for c in columns])
    return buf.getvalue()


def _jsonable(row: dict) -> dict:
    return {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in row.items()}


# --------------------------------------------------------------------------- the journal (I/O)


def header_of(sweep: Sweep) -> dict:
    return {"aurgen_sweep": FORMAT, "sha256": sweep.sha256, "sweep": sweep.label, "variants": sweep.n,
            "columns": list(sweep.columns)}


def read_journal(path: Path, sweep: Sweep) -> tuple[dict, bool]:
    """({variant: row}, torn) from a journal; ``torn``: a line after the last complete row (an
    interrupted write) was dropped. SweepError if it is another sweep's."""
    rows: dict = {}
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        return rows, False
    lines = text.split("\n")
    complete = lines[:-1]  # the text after the last newline is a torn write (or empty)
    torn = lines[-1] != ""
    if not complete:
        return rows, True
    try:
        head = json.loads(complete[0])
    except ValueError:
        head = None
    if not isinstance(head, dict) or head.get("aurgen_sweep") != FORMAT:
        raise SweepError(f"{path}: not an aurgen sweep journal; refusing to resume into it "
                         "(give another -o, or --fresh to start over)")
    if head.get("sha256") != sweep.sha256:
        raise SweepError(f"{path}: holds the rows of another sweep (sha256 {str(head.get('sha256'))[:12]}, "
                         f"this one {sweep.sha256[:12]}: the sweep file, its base config or a part changed); "
                         "refusing to resume (give another -o, or --fresh to start over)")
    for line in complete[1:]:
        try:
            r = json.loads(line)
            i = int(r["variant"])
        except (ValueError, KeyError, TypeError):
            torn = True
            break
        if 0 <= i < sweep.n:
            rows.setdefault(i, r)
    return rows, torn


# --------------------------------------------------------------------------- progress


class Progress:
    """One progress line on stderr: rewritten in place on a terminal, a line every few seconds otherwise."""

    def __init__(self, total: int, done: int = 0, stream=None, quiet: bool = False):
        self.stream = stream if stream is not None else sys.stderr
        self.quiet = quiet
        self.total, self.done, self.start, self.failed = total, done, done, 0
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.t0 = self.last = time.monotonic()

    def __call__(self, rows):
        self.done += len(rows)
        self.failed += sum(1 for r in rows if r.get("reason"))
        now = time.monotonic()
        if self.quiet or (not self.tty and now - self.last < 5.0 and self.done < self.total):
            return
        self.last = now
        rate = (self.done - self.start) / max(now - self.t0, 1e-9)
        eta = (self.total - self.done) / rate if rate > 0 else math.inf
        text = (f"sweep: {self.done}/{self.total} variants ({self.failed} with a reason), "
                f"{rate:.1f}/s, {now - self.t0:.0f} s" + (f", ~{eta:.0f} s left" if self.done < self.total else ""))
        end = "\n" if self.done >= self.total or not self.tty else ""
        print(("\r" if self.tty else "") + text, end=end, file=self.stream, flush=True)


# --------------------------------------------------------------------------- runners


def chunks(indices, size: int):
    it = iter(indices)
    while True:
        c = list(itertools.islice(it, size))
        if not c:
            return
        yield c


def run_serial(sweep: Sweep, pending, sink, chunk: int = 16):
    for c in chunks(pending, chunk):
        sink(run_chunk(sweep, c))


def run_pool(sweep: Sweep, pending, sink, jobs: int, chunk: int = 16):
    """Variants in chunks on ``jobs`` local processes (no Ray); rows reach ``sink`` as chunks finish."""
    import concurrent.futures as cf
    import multiprocessing as mp

    ex = cf.ProcessPoolExecutor(max_workers=jobs, mp_context=mp.get_context("spawn"))
    try:
        todo = chunks(pending, chunk)
        futs = {ex.submit(run_chunk, sweep, c) for c in itertools.islice(todo, 4 * jobs)}
        while futs:
            done, futs = cf.wait(futs, return_when=cf.FIRST_COMPLETED)
            for f in done:
                sink(f.result())
            futs |= {ex.submit(run_chunk, sweep, c) for c in itertools.islice(todo, len(done))}
    finally:
        ex.shutdown(wait=True, cancel_futures=True)


def _ray_init(address: str, workers: int | None):
    try:
        import ray
    except ImportError:
        raise SweepError("--ray needs ray: pip install 'aurgen[scale]'") from None
    if not ray.is_initialized():
        try:
            if address == "local":
                ray.init(num_cpus=workers or None, include_dashboard=False, log_to_driver=False,
                         configure_logging=False)
            else:
                ray.init(address=address, log_to_driver=False, configure_logging=False)
        except Exception as exc:  # noqa: BLE001 (ray raises ConnectionError, ValueError, RuntimeError...)
            raise SweepError(f"--ray {address}: cannot start or reach a Ray cluster: {type(exc).__name__}: "
                             f"{str(exc).splitlines()[0] if str(exc) else ''}") from None
    return ray


def run_ray(sweep: Sweep, pending, sink, address: str = "local", workers: int | None = None, chunk: int = 16):
    """Variants in chunks of ``chunk``, one Ray task per chunk; rows reach ``sink`` as tasks finish."""
    ray = _ray_init(address, workers)
    task = ray.remote(run_chunk)
    ref = ray.put(sweep)
    cs = list(chunks(pending, chunk))
    in_flight = []
    limit = max(4, 4 * int(ray.cluster_resources().get("CPU", 1)))
    k = 0
    while k < len(cs) or in_flight:
        while k < len(cs) and len(in_flight) < limit:
            in_flight.append(task.remote(ref, cs[k]))
            k += 1
        done, in_flight = ray.wait(in_flight, num_returns=1)
        for d in done:
            sink(ray.get(d))


# --------------------------------------------------------------------------- figures (I/O)


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def fig_distributions(sweep: Sweep, rows, tmp):
    plt = _plt()
    cols = [c for c in ("draft_m", "heel_deg", "trim_deg", "gm_t_m", "gm_l_m", "freeboard_m", "reserve_buoyancy_kg",
                        "max_gz_m", "avs_deg", "td_max_roll_deg", "td_settle_time_s")
            if any(r.get(c) is not None for r in rows)]
    n = max(len(cols), 1)
    ncol = 3
    nrow = (n + ncol - 1) // ncol
    fig, axs = plt.subplots(nrow, ncol, figsize=(11, 3.2 * nrow), squeeze=False)
    for ax, c in zip(axs.flat, cols):
        v = np.array([r[c] for r in rows if r.get(c) is not None], float)
        ax.hist(v, bins=min(40, max(5, int(math.sqrt(len(v))))), color="tab:blue", alpha=0.8)
        ax.set_xlabel(c)
        ax.set_ylabel("variants")
    for ax in list(axs.flat)[len(cols):]:
        ax.axis("off")
    fig.suptitle(f"{sweep.label}: distributions over {len(rows)} variants")
    fig.tight_layout()
    fig.savefig(tmp, format="png", dpi=100)
    plt.close(fig)


def _payload_column(sweep: Sweep) -> str:
    """The payload axis of the figures: the first numeric swept catalog mass, else ``added_mass_kg``."""
    for a in sweep.axes:
        names = [t for t in a.key.tokens if isinstance(t, str)]
        numeric = a.dist in ("uniform", "normal") or (a.values is not None and all(_isnum(v) for v in a.values))
        if a.key.kind == "catalog" and names and names[-1] == "mass" and numeric:
            return a.column
    return "added_mass_kg"


def fig_gm(sweep: Sweep, rows, tmp):
    plt = _plt()
    x = _payload_column(sweep)
    fig, ax = plt.subplots(figsize=(8, 5))
    ok = [r for r in rows if r.get("gm_t_m") is not None and _isnum(r.get(x))]
    safe = [r for r in ok if r.get("safe")]
    bad = [r for r in ok if not r.get("safe")]
    ax.scatter([r[x] for r in safe], [r["gm_t_m"] for r in safe], s=10, label="safe", color="tab:blue")
    ax.scatter([r[x] for r in bad], [r["gm_t_m"] for r in bad], s=10, label="unsafe (capsized, unstable or "
               "freeboard ≤ 0)", color="tab:red")
    ax.axhline(0.0, color="k", lw=0.8)
    ax.set_xlabel(x)
    ax.set_ylabel("GM_T (m)")
    ax.set_title(f"{sweep.label}: GM_T against payload")
    ax.legend()
    fig.tight_layout()
    fig.savefig(tmp, format="png", dpi=100)
    plt.close(fig)


def _isnum(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def plane_columns(sweep: Sweep) -> tuple:
    """The payload plane of the capsize figure: ``plots.plane``, else the payload column and the
    first other numeric swept key (None for the second when there is none)."""
    if "plane" in sweep.plots:
        return tuple(sweep.plots["plane"])
    x = _payload_column(sweep)
    for a in sweep.axes:
        vals = a.values if a.values is not None else (() if a.dist == "choice" else (0.0,))
        if a.column != x and vals and all(_isnum(v) for v in vals):
            return x, a.column
    return x, None


def boundary_1d(rows, x: str) -> list:
    """Payload values (column ``x``) where ``safe`` flips between neighbouring variants sorted by
    ``x``: each the midpoint of the two, or, where both have a freeboard, its linear zero."""
    pts = sorted((r for r in rows if _isnum(r.get(x)) and r.get("composed")), key=lambda r: r[x])
    out = []
    for a, b in zip(pts[:-1], pts[1:]):
        if bool(a.get("safe")) != bool(b.get("safe")):
            fa, fb = a.get("freeboard_m"), b.get("freeboard_m")
            if _isnum(fa) and _isnum(fb) and (fa > 0) != (fb > 0) and fa != fb:
                out.append(a[x] + (b[x] - a[x]) * fa / (fa - fb))
            else:
                out.append(0.5 * (a[x] + b[x]))
    return out


def fig_capsize(sweep: Sweep, rows, tmp):
    plt = _plt()
    x, y = plane_columns(sweep)
    fig, ax = plt.subplots(figsize=(8, 5))
    pts = [r for r in rows if r.get("composed") and _isnum(r.get(x)) and (y is None or _isnum(r.get(y)))]
    if y is None:
        fbs = [r for r in pts if _isnum(r.get("freeboard_m"))]
        ax.plot([r[x] for r in fbs], [r["freeboard_m"] for r in fbs], ".", label="freeboard (m)")
        ax.plot([r[x] for r in pts if _isnum(r.get("gm_t_m"))], [r["gm_t_m"] for r in pts if _isnum(r.get("gm_t_m"))],
                ".", label="GM_T (m)")
        for k, b in enumerate(boundary_1d(rows, x)):
            ax.axvline(b, color="tab:red", ls="--", label="boundary" if k == 0 else None)
        ax.axhline(0.0, color="k", lw=0.8)
        ax.set_ylabel("m")
    else:
        s = [r for r in pts if r.get("safe")]
        u = [r for r in pts if not r.get("safe")]
        ax.scatter([r[x] for r in s], [r[y] for r in s], s=12, color="tab:blue", label="safe")
        ax.scatter([r[x] for r in u], [r[y] for r in u], s=12, color="tab:red", marker="x",
                   label="capsized, unstable or freeboard ≤ 0")
        if len(pts) >= 4:
            try:
                import matplotlib.tri as mtri

                tri = mtri.Triangulation([r[x] for r in pts], [r[y] for r in pts])
                ax.tricontour(tri, [1.0 if r.get("safe") else 0.0 for r in pts], levels=[0.5], colors="k")
            except (ValueError, RuntimeError):
                pass  # collinear points: no triangulation, the scatter says it
        ax.set_ylabel(y)
    ax.set_xlabel(x)
    ax.set_title(f"{sweep.label}: capsize / zero-freeboard boundary")
    ax.legend(loc="best")
    fig.tight_layout()
    fig.savefig(tmp, format="png", dpi=100)
    plt.close(fig)


# --------------------------------------------------------------------------- the command


def parquet_filler(columns, rows):
    """A ``fill(tmp)`` writing the table as Parquet, or None without pyarrow."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        return None

    def kind(c):
        vals = [r.get(c) for r in rows if r.get(c) is not None]
        if c == "variant":
            return pa.int64()
        if vals and all(isinstance(v, bool) for v in vals):
            return pa.bool_()
        if vals and all(_isnum(v) for v in vals):
            return pa.float64()
        return pa.string()

    def conv(v, t):
        if v is None:
            return None
        if t == pa.float64():
            return float(v)
        if t == pa.string():
            return _cell(v)
        return v

    types = {c: kind(c) for c in columns}
    table = pa.table({c: pa.array([conv(r.get(c), types[c]) for r in rows], type=types[c]) for c in columns})

    def fill(tmp):
        pq.write_table(table, str(tmp))

    return fill


def variant_name(sweep: Sweep, i: int) -> str:
    """The file name of variant ``i``'s config (messages, headers, ``--emit``)."""
    return f"{Path(sweep.label).stem}.v{i}.yaml"


def emit_variants(sweep: Sweep, rows, out: Path) -> int:
    """Write each composed variant's files (aurgen build's set) under ``out/variants/v<index>/``,
    and its config with, in ``parts/`` beside it, the catalog entries the sweep declares or changes,
    under ``out/variants/v<index>/config/``: ``aurgen specs`` (``build``, ``audit --config``) of that
    config composes the variant again. Returns how many."""
    import yaml

    from aurgen.emit import selfcheck
    from aurgen.compose import stamp
    from aurgen.emit.build import outputs
    from aurgen.core.files import write_set

    n = 0
    for r in rows:
        if not r.get("composed") or r.get("reason"):
            continue
        i = r["variant"]
        values = values_of(sweep, i)
        data, entries, absent = variant_mapping(sweep, values)
        folder = out / "variants" / f"v{i:06d}"
        text = (f"# variant {i} of {sweep.label} (aurgen sweep): {json.dumps(values)}\n"
                + yaml.safe_dump(data, sort_keys=False))
        files = {folder / "config" / variant_name(sweep, i): text}
        part_sha = {}
        for t, (entry, _) in sorted(entries.items()):
            if t not in absent:
                ptext = (f"# {t}: as swept in variant {i} of {sweep.label}\n"
                         + yaml.safe_dump(_plain(entry), sort_keys=False))
                files[folder / "config" / "parts" / f"{t}.yaml"] = ptext
                part_sha[t] = hashlib.sha256(ptext.encode()).hexdigest()
        vehicle = compose_variant(sweep, values, i, hashlib.sha256(text.encode()).hexdigest(), part_sha)
        rendered = outputs(vehicle, stamp.equilibrium_of(vehicle))
        selfcheck.check_outputs(rendered, vehicle.source)
        # the model folder first: it is claimed (marked) before its config/ subfolder is made
        write_set({**{folder / f: t for f, t in rendered.items()}, **files}, root=out)
        n += 1
    return n


def cli_sweep(args) -> int:
    from aurgen.core.files import append_text, check_dir, write_set

    if getattr(args, "jobs", None) is not None and not 1 <= args.jobs <= 1024:
        raise SweepError(f"--jobs wants 1 to 1024 processes, got {args.jobs}")
    if getattr(args, "jobs", None) and args.jobs > 1 and args.ray:
        raise SweepError("--jobs runs local processes, --ray a Ray cluster: give one of them")
    if args.workers is not None and not 1 <= args.workers <= 1024:
        raise SweepError(f"--workers wants 1 to 1024 CPUs, got {args.workers}")
    if args.chunk is not None and not 1 <= args.chunk <= 1_000_000:
        raise SweepError(f"--chunk wants 1 to 1000000 variants per task, got {args.chunk}")
    sweep = prepare(args.sweep, getattr(args, "time_domain", False))
    if args.check:
        print(f"{sweep.path}: {sweep.n} variants over {len(sweep.axes)} keys; every key checked")
        return 0
    out = Path(args.output) if args.output else Path("build") / "sweeps" / Path(sweep.path).stem
    check_dir(out)
    journal = out / JOURNAL
    rows, torn = ({}, True) if args.fresh else read_journal(journal, sweep)
    if not journal.exists() or torn:
        # a new journal, or one whose last line was cut short: rewrite it with its complete rows
        text = json.dumps(header_of(sweep)) + "\n" + "".join(
            json.dumps(_jsonable(rows[i])) + "\n" for i in sorted(rows))
        write_set({journal: text}, root=out)
    pending = [i for i in range(sweep.n) if i not in rows]
    progress = Progress(sweep.n, done=sweep.n - len(pending), quiet=args.quiet)
    if rows and pending and not args.quiet:
        print(f"sweep: resuming: {len(rows)} of {sweep.n} variants already in {journal}", file=sys.stderr)

    def sink(new):
        append_text(journal, "".join(json.dumps(_jsonable(r)) + "\n" for r in new), root=out)
        for r in new:
            rows[r["variant"]] = r
        progress(new)

    jobs = getattr(args, "jobs", None) or 1
    chunk = args.chunk or max(1, min(64, len(pending) // (8 * (args.workers or jobs or 2)) or 1))
    if args.ray:
        run_ray(sweep, pending, sink, args.ray, args.workers, chunk)
    elif jobs > 1 and pending:
        run_pool(sweep, pending, sink, jobs, chunk)
    else:
        run_serial(sweep, pending, sink, chunk)
    table = [rows[i] for i in range(sweep.n)]
    columns = sweep.columns
    files = {out / "sweep.csv": csv_text(columns, table)}
    pq_fill = parquet_filler(columns, table)
    if pq_fill is not None:
        files[out / "sweep.parquet"] = pq_fill
    if not args.no_figures:
        files[out / "distributions.png"] = lambda tmp: fig_distributions(sweep, table, tmp)
        files[out / "gm_t_payload.png"] = lambda tmp: fig_gm(sweep, table, tmp)
        files[out / "capsize_boundary.png"] = lambda tmp: fig_capsize(sweep, table, tmp)
    write_set(files, root=out)
    emitted = emit_variants(sweep, table, out) if args.emit else 0
    failed = sum(1 for r in table if r.get("reason"))
    print(f"sweep: {sweep.n} variants ({failed} with a reason), table {out / 'sweep.csv'}"
          + ("" if pq_fill else " (no Parquet: pip install pyarrow)")
          + (f"; {emitted} variants' files under {out / 'variants'}" if args.emit else ""))
    return 0
