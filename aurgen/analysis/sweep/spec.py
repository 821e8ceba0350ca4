"""The sweep file (docs/config.md, "Sweeps"): read and its structure validated
(:func:`load_sweep`) into a :class:`Sweep`, plain data that travels to process and Ray
workers: the base vehicle mapping, the sweep's catalog parts, and one :class:`Axis` per swept
key (a grid of values, or a distribution seeded per variant: uniform, normal, choice), in the
units of the key (:func:`aurgen.analysis.sweep.keys.unit_of`). The keys are checked against the
vehicle later, by composing it (:func:`aurgen.analysis.sweep.variants.prepare`).

:data:`FIGURES`: the table's figure columns, each name ending in its unit (``_kg``, ``_m``,
``_m3``, ``_deg``); :data:`RENAMED`: the columns that were once named otherwise (an old name a
sweep file gives is refused, naming the new one).
"""

from __future__ import annotations

import math
from dataclasses import field

import numpy as np

from aurgen.analysis.sweep.keys import Key, column_of, parse_key
from aurgen.core.errors import AurgenError
from aurgen.core.records import record

MAX_VARIANTS = 10_000_000
MAX_GRID = 1_000_000  # values of one grid key
CHECK_MAX = 50  # values of one numeric grid key composed up front (its ends among them)
GZ_MODES = ("off", "samples", "exact")
SWEEP_KEYS = {"vehicle", "seed", "samples", "parts", "add", "grid", "random", "figures", "plots", "time_domain"}
DISTRIBUTIONS = ("uniform", "normal", "choice")

#: the figure columns, in table order (after ``variant`` and the swept keys)
FIGURES = ("composed", "reason", "equilibrium_status", "capsized", "safe", "total_mass_kg", "payload_total_kg",
           "com_x_m", "com_y_m", "com_z_m", "displaced_volume_m3", "reserve_buoyancy_kg", "draft_m", "heel_deg",
           "trim_deg", "gm_t_m", "gm_l_m", "freeboard_m", "max_gz_m", "angle_max_gz_deg", "avs_deg",
           "gz_fold_deg", "is_area_30_margin_m_rad", "is_area_40_margin_m_rad", "is_area_30_40_margin_m_rad",
           "is_gz_30_margin_m", "is_angle_max_gz_margin_deg", "is_gm0_margin_m", "is_wind_heel_margin_deg",
           "is_weather_area_margin_m_rad", "is_pass")

#: figure columns renamed: the old name (refused where a sweep file names a column) -> the new. The payload
#: column was ``added_mass_kg``, read as a vessel's hydrodynamic added mass; it is the mass above the base
#: config's (``payload_total_kg``: not ``payload_kg``, the column of a swept key named ``payload``)
RENAMED = {"added_mass_kg": "payload_total_kg"}


class SweepError(AurgenError):
    """A sweep that cannot run: its file, or keys that cannot be swept (each named)."""


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
            if len(vals) > CHECK_MAX and all(is_number(v) for v in vals):
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
    def sea(self) -> bool:
        """The time-domain runs are in a sea: ``time_domain.waves`` declared, or a ``waves.*`` key swept."""
        return self.td.get("waves") is not None or any(a.key.kind == "time" and a.key.tokens[0] == "waves"
                                                       for a in self.axes)

    @property
    def columns(self) -> tuple:
        from aurgen.analysis.timedomain import COLUMNS, SEA_COLUMN

        td = (COLUMNS + ((SEA_COLUMN,) if self.sea else ())) if self.time_domain else ()
        return ("variant",) + tuple(a.column for a in self.axes) + FIGURES + td


def plain(node):
    """A loaded YAML node as plain dicts and lists (no line bookkeeping)."""
    if isinstance(node, dict):
        return {k: plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [plain(v) for v in node]
    return node


def is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def load_sweep(path) -> Sweep:
    """Read and validate a sweep file's structure (not yet its keys against the vehicle: :func:`check`)."""
    from aurgen.config.vehicle import resolve_config_path, sweep_base_path
    from aurgen.core.yamlio import Reader, load

    path = resolve_config_path(path, "sweeps")  # as given, ./, ./sweeps/, the bundled sweeps
    data = load(path)
    r = Reader(path)
    r.check_keys(data, SWEEP_KEYS, "", required=("vehicle",))
    vehicle = r.string(data, "vehicle", "", required=True)
    base_path = sweep_base_path(path, vehicle)  # beside the sweep, bundled for a bundled sweep, else as build
    base = plain(load(base_path))
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
        base["parts"] = parts + plain(add)
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
        old = [p for p in (plane if isinstance(plane, list) else []) if isinstance(p, str) and p in RENAMED
               and p not in cols]
        if old:
            raise r.error("plots.plane", f"{old[0]!r} is now {RENAMED[old[0]]!r} (the payload: the total mass above "
                          "the base config's; renamed so it is not read as hydrodynamic added mass)",
                          node=plots, field="plane")
        if not (isinstance(plane, list) and len(plane) == 2 and all(p in cols or p in FIGURES for p in plane)):
            raise r.error("plots.plane", f"expected two column names (swept: {', '.join(cols) or 'none'})",
                          node=plots, field="plane")
    from aurgen.analysis.timedomain import parse_settings

    try:
        td = parse_settings(plain(data.get("time_domain")))
    except ValueError as exc:
        where, _, why = str(exc).partition(": ")
        raise r.error(where, why, node=data, field="time_domain") from None
    sweep = Sweep(path=str(path), label=path.name, sha256="", base_path=str(base_path), base=base, parts=parts,
                  grid=grid, random=rand, samples=samples, seed=seed, gz=gz, gz_step_deg=step,
                  plots=plain(plots), td=td)
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
    column = column_of(key, name)
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
        return Axis(key, column, values=tuple(plain(values)))
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
        params = {"choices": tuple(plain(spec))}
    return Axis(key, column, dist=d, params=params)


def td_settings(sweep: Sweep, values: dict) -> dict:
    """The time-domain settings of a variant with ``values`` ({column: value}): the sweep's
    ``time_domain:`` with its swept time-domain keys applied (ValueError naming a bad one)."""
    from aurgen.analysis import timedomain as td

    swept = {}
    for a in sweep.axes:
        if a.key.kind == "time" and a.column in values:
            name = a.key.tokens[0]
            comp = a.key.tokens[1] if len(a.key.tokens) > 1 else None
            if name == "waves":  # a key of the sea: checked with the others when the sea is made (run_variants)
                swept[(name, comp)] = values[a.column]
            else:
                swept[(name, comp)] = td.check_value(name, values[a.column], a.key.text)
    return td.settings_of(sweep.td, swept)
