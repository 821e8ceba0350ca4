"""Variant ``i`` of a sweep, a pure function of the sweep and ``i`` (no I/O but reading the
catalog): its values (:func:`values_of`: the grid point, then one draw per random key seeded by
``(seed, i)``), its vehicle config mapping and catalog entries built in memory from the base
(:func:`variant_mapping`), validated by the same loaders as a file and composed
(:func:`compose_variant`). Then the keys checked up front (:func:`prepare`, :func:`check`):
each swept key at its extremes, every other key at its base value, before anything is run.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from aurgen.analysis.sweep.keys import assign
from aurgen.analysis.sweep.spec import FIGURES, Axis, Sweep, SweepError, plain, load_sweep
from aurgen.core.errors import AurgenError, ConfigError, did_you_mean
from aurgen.core.yamlio import copy_tree


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

    k = (part_type, str(path), json.dumps(plain(entry), sort_keys=True, default=str))
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
            assign(data, list(key.tokens), copy_tree(value), "the vehicle config")
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
            assign(entry, list(key.tokens), copy_tree(value), f"catalog entry '{key.part_type}'")
            entries[key.part_type] = (entry, p)
    # a part the sweep declares with mass 0 is not fitted: its entries become type: none
    absent = {t for t, (e, _) in entries.items()
              if t in sweep.parts and isinstance(e, dict) and e.get("mass") in (0, 0.0)}
    for e in data.get("parts") or []:
        if isinstance(e, dict) and e.get("type") in absent:
            e["type"] = "none"
    return data, entries, absent


def variant_name(sweep: Sweep, i: int) -> str:
    """The file name of variant ``i``'s config (messages, headers, ``--emit``)."""
    return f"{Path(sweep.label).stem}.v{i}.yaml"


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


# --------------------------------------------------------------------------- checking up front


def prepare(path, time_domain: bool = False) -> Sweep:
    """Load a sweep file, compose its base, check every key up front and fill in the sha256 and the
    base mass. ``time_domain``: add the time-domain runs (their columns; the journal's sha256
    says so). Raises SweepError listing each key that cannot be swept, with the value and the reason."""
    import dataclasses

    from aurgen.compose.resolve import resolve
    from aurgen.analysis.sweep.journal import inputs_of
    from aurgen.analysis.timedomain import COLUMNS as TD_COLUMNS

    sweep = dataclasses.replace(load_sweep(path), time_domain=bool(time_domain))
    h = hashlib.sha256()
    h.update(Path(sweep.path).read_bytes())
    h.update(Path(sweep.base_path).read_bytes())
    sweep = dataclasses.replace(sweep, sha256=h.hexdigest())
    try:  # the base config as its file says (payload_total_kg is measured from it)
        base_vehicle = resolve(sweep.base_path)
    except AurgenError as exc:
        raise SweepError(f"{sweep.path}: the base vehicle does not compose: {exc}") from None
    h.update(base_vehicle.sha256.encode())
    h.update(json.dumps(FIGURES).encode())
    h.update(json.dumps(inputs_of(sweep)).encode())  # aurgen's version, every part any variant can use
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
    out.extend(_check_sea(sweep))
    for a in sweep.axes:
        if a.key.kind == "time":
            if a.key.tokens[0] != "waves":
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


def _check_sea(sweep: Sweep) -> list:
    """[(key, reason)] of the sea (``time_domain.waves`` and the swept ``waves.*`` keys), checked as the
    world loader checks a world's (aurgen.analysis.sea.sea_of, its words): every swept sea key at its
    first value (a grid's first, a distribution's first end or choice) over the declared ones, then
    each swept key alone at each of its values checked up front (``Axis.extremes``)."""
    from aurgen.analysis import sea as seamod
    from aurgen.core.errors import ConfigError

    axes = [a for a in sweep.axes if a.key.kind == "time" and a.key.tokens[0] == "waves"]
    if not sweep.time_domain:  # a declared sea is a setting of the runs, like the others; a swept key is refused
        return [(a.key.text, "a key of the time-domain run's sea: sweep it with --time-domain") for a in axes]
    if not sweep.sea:
        return []

    def why(exc) -> str:
        return exc.message + (f" ({exc.hint})" if exc.hint else "")

    swept = {a.key.text for a in axes}
    base = dict(sweep.td.get("waves") or {})
    first = {a.key.tokens[1]: a.extremes()[0] for a in axes}
    try:
        seamod.sea_of(base | first, prefix="waves")
    except ConfigError as exc:
        key = exc.key or "waves"
        at = ", ".join(f"waves.{k} = {v!r}" for k, v in first.items())
        return [(key if key in swept else f"time_domain.{key}",
                 why(exc) + (f" (with each swept sea key at its first value: {at})" if at else ""))]
    out = []
    for a in axes:
        for v in _unique(a.extremes()):
            try:
                seamod.sea_of(base | first | {a.key.tokens[1]: v}, prefix="waves")
            except ConfigError as exc:
                out.append((a.key.text, f"= {v!r}: " + (f"{exc.key}: " if exc.key != a.key.text else "") + why(exc)))
                break
    return out


def _unique(values):
    seen, out = set(), []
    for v in values:
        k = json.dumps(v, sort_keys=True, default=str)
        if k not in seen:
            seen.add(k)
            out.append(v)
    return out
