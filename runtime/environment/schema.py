"""The environment a world carries: planes, convex cells with fluid properties, a gravity field.

Read from the JSON in ``<custom><text name="aurgen:environment" data="..."/>`` of a
world MJCF (docs/formats.md), or given from Python as a dict / JSON string.
An optional sea (``waves``: linear components on one plane, aurgen.runtime.environment.waves) rides on it.
Validated at load: every value's JSON type (a string is never read as a number,
a sign is exactly -1, 0 or +1, an unknown key is refused; errors name the key,
``cells[0] ('water').signs[0]``), unit normals, signs per plane, finite non-negative density and
viscosity, no two cells overlapping (an LP on the cells' half-spaces), and
per-cell constant gravity conservative (only the normal component may jump
across a shared face). Errors name the cells and say what to change.

Frames and units: world frame, SI (kg/m^3, Pa s, m/s, m/s^2).
"""

from __future__ import annotations

import json
import math
import numbers
from dataclasses import field

import numpy as np

from aurgen.core.records import record
# the JSON value checks (their own module); EnvironmentInvalid is this module's public error too
from aurgen.runtime.environment.jsonvalues import LISTS as _LISTS, EnvironmentInvalid  # noqa: F401
from aurgen.runtime.environment.jsonvalues import is_number as _is_number, json_int as _json_int
from aurgen.runtime.environment.jsonvalues import kind as _kind, lst as _list, num as _num, obj as _obj, vec as _vec
from aurgen.runtime._native import ENV_KEYS, ENV_LIMITS, ENV_MAX_WAVES, ENV_WAVE_LIMITS

ENV_TEXT = "aurgen:environment"
# size limits (docs/formats.md), the plugin's table (runtime/native/plugin/schema.h, one source
# for both): the clip's scratch grows with the square of a cell's planes, and the overlap check
# with the square of the cells; far beyond any tank, harbour or river reach, well short of
# exhausting memory.  MAX_CELL_PLANES: the planes one cell uses (nonzero signs)
MAX_PLANES, MAX_CELLS, MAX_CELL_PLANES = ENV_LIMITS
MAX_WAVES = ENV_MAX_WAVES  # the most components a sea may have (schema.h kMaxWaveComponents)
# a component's omega (rad/s) and |k| (rad/m), a finite depth (m): schema.h kMaxWaveOmega .. kMinWaveDepth
MAX_OMEGA, MIN_K, MAX_K, MIN_DEPTH = ENV_WAVE_LIMITS
MIN_FK_TOL, MAX_FK_TOL = 1e-12, 0.1  # waves.fk_tolerance: schema.h kMinFkTolerance, kMaxFkTolerance


@record
class Cell:
    name: str
    signs: tuple  # per plane: -1 (n.x <= d), +1 (n.x >= d), 0 (unbounded by it)
    density: float
    viscosity: float
    flow: tuple = (0.0, 0.0, 0.0)
    gravity: tuple | None = None  # optional per-cell constant gravity


@record
class Gravity:
    """``kind`` 'uniform' (g), 'central' (mu, centre), 'linear' (g0, G)."""

    kind: str = "uniform"
    g: tuple = (0.0, 0.0, -9.81)
    mu: float = 0.0
    centre: tuple = (0.0, 0.0, 0.0)
    g0: tuple = (0.0, 0.0, 0.0)
    G: tuple = ((0.0, 0.0, 0.0), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0))

    def at(self, x) -> np.ndarray:
        """Gravitational acceleration at world point ``x`` (m/s^2)."""
        x = np.asarray(x, float)
        if self.kind == "uniform":
            return np.array(self.g, float)
        if self.kind == "central":
            r = x - np.array(self.centre, float)
            R = np.linalg.norm(r)
            return -self.mu * r / R**3
        return np.array(self.g0, float) + np.array(self.G, float) @ x

    def potential(self, x) -> float:
        """phi with g = -grad phi (J/kg)."""
        x = np.asarray(x, float)
        if self.kind == "uniform":
            return -float(np.dot(self.g, x))
        if self.kind == "central":
            return -self.mu / float(np.linalg.norm(x - np.array(self.centre, float)))
        G = np.array(self.G, float)
        return -float(np.dot(self.g0, x) + 0.5 * x @ G @ x)


@record(eq=False)
class Waves:
    """A sea on plane ``surface`` (its normal is up; the water is the cell below it).

    ``components``: (N, 6) float64 rows [a m, omega rad/s, kx, ky, kz rad/m, phase rad], k in
    the surface plane (world frame); ``depth`` m (None: deep water); ``ramp`` s. The elevation
    is aurgen.runtime.environment.waves.elevation's (the plugin's convention).
    """

    surface: int
    components: np.ndarray
    depth: float | None = None
    ramp: float = 0.0
    # Froude-Krylov: "exact" (the columns' quadrature) or "moments" (volume moments with a certified
    # truncation bound, fk_tolerance of each component's force scale; docs/kernel.md "Waves"); None:
    # not declared: the moments (the plugin and MuJoCo Warp alike)
    fk: str | None = None
    fk_tolerance: float = 1e-4


@record
class Environment:
    planes: np.ndarray  # (k, 4): n (unit), d
    cells: tuple = ()
    gravity: Gravity = field(default_factory=Gravity)
    waves: Waves | None = None

    @property
    def signs(self) -> np.ndarray:
        """(ncell, k) int array of the cells' plane signs."""
        k = len(self.planes)
        out = np.zeros((len(self.cells), k), dtype=np.int64)
        for i, c in enumerate(self.cells):
            out[i, : len(c.signs)] = c.signs
        return out

    def cell_planes(self, i: int) -> np.ndarray:
        """Cell i as rows (n, d) of half-spaces n.x <= d (the kernel's clip_cell form)."""
        rows = [p if s < 0 else -p for s, p in zip(self.cells[i].signs, self.planes) if s != 0]
        return np.array(rows, float).reshape(-1, 4)

    def cell_at(self, x) -> int:
        """Index of the cell containing world point x, or -1 (vacuum)."""
        x = np.asarray(x, float)
        for i in range(len(self.cells)):
            P = self.cell_planes(i)
            if np.all(P[:, :3] @ x <= P[:, 3] + 1e-12):
                return i
        return -1

    def gravity_at(self, x) -> np.ndarray:
        """The gravitational acceleration at world point ``x`` (m/s^2): the cell's own constant
        gravity where the point's cell has one, else the field's."""
        i = self.cell_at(x)
        if i >= 0 and self.cells[i].gravity is not None:
            return np.array(self.cells[i].gravity, float)
        return self.gravity.at(x)

    def to_json(self) -> str:
        g = self.gravity
        if g.kind == "uniform":
            gd = {"type": "uniform", "g": list(g.g)}
        elif g.kind == "central":
            gd = {"type": "central", "mu": g.mu, "centre": list(g.centre)}
        else:
            gd = {"type": "linear", "g0": list(g.g0), "G": [list(r) for r in g.G]}
        cells = []
        for c in self.cells:
            cd = {"name": c.name, "signs": list(c.signs), "density": c.density,
                  "viscosity": c.viscosity, "flow": list(c.flow)}
            if c.gravity is not None:
                cd["gravity"] = list(c.gravity)
            cells.append(cd)
        out = {"planes": [list(map(float, p)) for p in self.planes], "cells": cells, "gravity": gd}
        w = self.waves
        if w is not None:  # only when present: an environment without a sea writes what it always did
            out["waves"] = {"surface": int(w.surface), **({} if w.depth is None else {"depth": float(w.depth)}),
                            "ramp": float(w.ramp), "components": [[float(v) for v in r] for r in w.components]}
            if w.fk is not None:  # only when declared: a sea's text is what it always was
                out["waves"]["fk"] = w.fk
            if w.fk_tolerance != 1e-4:
                out["waves"]["fk_tolerance"] = float(w.fk_tolerance)
        return json.dumps(out)


# the keys: the plugin's table (runtime/native/plugin/schema.h), one source for both
GRAVITY_KEYS = {t: set(ENV_KEYS[f"gravity.{t}"]) for t in ("uniform", "central", "linear")}
CELL_KEYS = set(ENV_KEYS["cell"])
TOP_KEYS = set(ENV_KEYS["environment"])
WAVES_KEYS = set(ENV_KEYS["waves"])


def _gravity(gd) -> Gravity:
    if gd is None:
        return Gravity()
    if isinstance(gd, _LISTS):
        return Gravity("uniform", g=_vec(gd, 3, "gravity"))
    if not isinstance(gd, dict):
        raise EnvironmentInvalid(f"gravity: expected an object {{type: uniform, central or linear, ...}} or "
                                 f"[gx, gy, gz], got {_kind(gd)}")
    kind = gd.get("type", "uniform")
    if kind not in GRAVITY_KEYS:
        raise EnvironmentInvalid(f"gravity.type: expected uniform, central or linear, got {_kind(kind)}")
    _obj(gd, "gravity", GRAVITY_KEYS[kind])
    if kind == "uniform":
        return Gravity("uniform", g=_vec(gd.get("g", [0, 0, -9.81]), 3, "gravity.g"))
    if kind == "central":
        if "mu" not in gd:
            raise EnvironmentInvalid("gravity.mu: missing (a positive number, m^3/s^2)")
        mu = _num(gd["mu"], "gravity.mu")
        if mu <= 0:
            raise EnvironmentInvalid(f"gravity.mu: expected a positive number (m^3/s^2), got {gd.get('mu')!r}")
        return Gravity("central", mu=mu, centre=_vec(gd.get("centre", [0, 0, 0]), 3, "gravity.centre"))
    g0 = _vec(gd.get("g0", [0, 0, 0]), 3, "gravity.g0")
    rows = gd.get("G")
    if not isinstance(rows, _LISTS) or len(rows) != 3:
        raise EnvironmentInvalid(f"gravity.G: expected a 3x3 matrix (three lists of 3 numbers), got {_kind(rows)}")
    G = tuple(_vec(r, 3, f"gravity.G[{i}]") for i, r in enumerate(rows))
    Ga = np.array(G)
    if not np.allclose(Ga, Ga.T, rtol=0, atol=1e-12 * max(1.0, np.abs(Ga).max())):
        raise EnvironmentInvalid("gravity.G must be symmetric: a non-symmetric gradient is not "
                                 "the gradient of a potential (energy would not be conserved)")
    return Gravity("linear", g0=g0, G=G)


def _signs(x, what: str, nplanes: int) -> tuple:
    """A cell's signs: each exactly -1, 0 or +1 (a JSON integer or an integral number), at most one per plane."""
    _list(x, what)
    if len(x) > nplanes:
        raise EnvironmentInvalid(f"{what}: {len(x)} signs for {nplanes} planes (one per plane: -1, 0 or +1)")
    out = []
    for i, s in enumerate(x):
        if not _is_number(s) or s not in (-1, 0, 1):
            raise EnvironmentInvalid(f"{what}[{i}]: expected -1, 0 or +1 (the side of plane {i}), got {_kind(s)}")
        out.append(int(s))
    return tuple(out) + (0,) * (nplanes - len(out))


def parse(obj) -> Environment:
    """Environment from a JSON string or a dict (the formats.md schema); validated.

    Every value is checked for its JSON type before use (a string is never read as a number, a
    sign is exactly -1, 0 or +1), and an error names the key (``cells[0].signs[1]``).
    """
    if isinstance(obj, Environment):
        validate(obj)
        return obj
    if isinstance(obj, (str, bytes)):
        try:
            obj = json.loads(obj, parse_int=_json_int)
        except (ValueError, RecursionError) as exc:  # JSONDecodeError and UnicodeDecodeError among them
            raise EnvironmentInvalid(f"environment JSON does not parse: {exc}") from None
    if not isinstance(obj, dict):
        raise EnvironmentInvalid(f"environment: expected a JSON object with planes, cells, gravity, got {_kind(obj)}")
    _obj(obj, "environment", TOP_KEYS)
    planes = []
    plane_list = _list(obj.get("planes", []), "planes")
    if len(plane_list) > MAX_PLANES:
        raise EnvironmentInvalid(f"planes: {len(plane_list)} planes, more than the {MAX_PLANES} an environment may have")
    for i, p in enumerate(plane_list):
        v = _vec(p, 4, f"planes[{i}]")
        nn = math.sqrt(v[0] ** 2 + v[1] ** 2 + v[2] ** 2)
        if abs(nn - 1.0) > 1e-9:
            raise EnvironmentInvalid(f"planes[{i}]: normal {v[:3]} is not a unit vector (|n| = {nn:.9g})")
        planes.append(v)
    P = np.array(planes, float).reshape(-1, 4)
    cells = []
    names = set()
    cell_list = _list(obj.get("cells", []), "cells")
    if len(cell_list) > MAX_CELLS:
        raise EnvironmentInvalid(f"cells: {len(cell_list)} cells, more than the {MAX_CELLS} an environment may have")
    for i, c in enumerate(cell_list):
        key = f"cells[{i}]"
        if not isinstance(c, dict):
            raise EnvironmentInvalid(f"{key}: expected an object {{name, signs, density, viscosity, flow}}, "
                                     f"got {_kind(c)}")
        _obj(c, key, CELL_KEYS)
        name = c.get("name", f"cell{i}")
        if not isinstance(name, str) or not name:
            raise EnvironmentInvalid(f"{key}.name: expected a non-empty string, got {_kind(name)}")
        if name in names:
            raise EnvironmentInvalid(f"cells: two cells named {name!r}")
        names.add(name)
        key = f"{key} ({name!r})"
        signs = _signs(c.get("signs", []), f"{key}.signs", len(P))
        used = sum(1 for x in signs if x != 0)
        if used > MAX_CELL_PLANES:
            raise EnvironmentInvalid(f"{key}.signs: bounded by {used} planes, more than the {MAX_CELL_PLANES} "
                                     f"a cell may use (split it into several cells)")
        rho = _num(c.get("density", 0.0), f"{key}.density")
        visc = _num(c.get("viscosity", 0.0), f"{key}.viscosity")
        if rho < 0:
            raise EnvironmentInvalid(f"cell {name!r}: density {rho} kg/m^3 must be finite and >= 0")
        if visc < 0:
            raise EnvironmentInvalid(f"cell {name!r}: viscosity {visc} Pa s must be finite and >= 0")
        flow = _vec(c.get("flow", [0, 0, 0]), 3, f"{key}.flow")
        cg = None if c.get("gravity") is None else _vec(c["gravity"], 3, f"{key}.gravity")
        cells.append(Cell(name, signs, rho, visc, flow, cg))
    gravity = _gravity(obj.get("gravity"))
    # waves: null is no sea, as gravity: null, a cell's gravity: null and waves.depth: null are their defaults
    waves = _waves(obj["waves"], P, cells, gravity) if obj.get("waves") is not None else None
    env = Environment(P, tuple(cells), gravity, waves)
    validate(env)
    return env


def _r(v) -> str:  # a number as the plugin prints it (PyFloat)
    return repr(float(v))

def _waves(wd, P: np.ndarray, cells: list, gravity: Gravity) -> Waves:
    """The ``waves`` block (docs/formats.md), checked in the order the plugin checks it, in its words."""
    _obj(wd, "waves", WAVES_KEYS)
    k = len(P)
    i = wd.get("surface")
    integral = _is_number(i) and (isinstance(i, numbers.Integral) or math.isfinite(i) and float(i).is_integer())
    if not (integral and 0 <= i < k):  # an integral number, as a sign may be (1.0 is 1)
        raise EnvironmentInvalid(f"waves.surface: expected a plane index (an integer from 0 to {k - 1}), got "
                                 + _kind(i))
    i = int(i)
    if not any(c.signs[i] == -1 for c in cells):
        raise EnvironmentInvalid(f"waves.surface: plane {i} has no fluid cell below it (sign -1): the sea's water is "
                                 "the cell under its surface")
    n = P[i, :3]
    g = np.array(gravity.g, float)
    gn = float(np.linalg.norm(g))
    if (gravity.kind != "uniform" or any(c.gravity is not None for c in cells)
            or float(np.linalg.norm(np.cross(g, n))) > 1e-9 * gn or float(g @ n) >= 0):
        raise EnvironmentInvalid(f"waves: a sea needs uniform gravity along -n of its surface plane "
                                 f"(n = [{', '.join(_r(x) for x in n)}])")
    depth = wd.get("depth")
    if depth is not None:
        depth = _num(depth, "waves.depth")
        if not depth >= MIN_DEPTH:
            raise EnvironmentInvalid(f"waves.depth: expected a depth >= {_r(MIN_DEPTH)} m (omit it for deep water), "
                                     f"got {_r(depth)}")
    ramp = _num(wd.get("ramp", 0.0), "waves.ramp")
    if ramp < 0:
        raise EnvironmentInvalid(f"waves.ramp: expected a ramp time >= 0 s, got {_r(ramp)}")
    fk = wd.get("fk")
    if fk is not None and not (isinstance(fk, str) and fk in ("exact", "moments")):
        raise EnvironmentInvalid(f'waves.fk: expected "exact" or "moments", got {_kind(fk)}')
    fk_tol = _num(wd.get("fk_tolerance", 1e-4), "waves.fk_tolerance")
    if not MIN_FK_TOL <= fk_tol <= MAX_FK_TOL:
        raise EnvironmentInvalid(f"waves.fk_tolerance: expected a tolerance from {_r(MIN_FK_TOL)} to "
                                 f"{_r(MAX_FK_TOL)}, got {_r(fk_tol)}")
    rows = wd.get("components")
    if not isinstance(rows, _LISTS) or not 1 <= len(rows) <= MAX_WAVES:
        got = len(rows) if isinstance(rows, _LISTS) else _kind(rows)
        raise EnvironmentInvalid(f"waves.components: expected 1 to {MAX_WAVES} components [a, omega, kx, ky, kz, "
                                 f"phase], got {got}")
    out = np.empty((len(rows), 6))
    for j, row in enumerate(rows):
        what = f"waves.components[{j}]"
        a, w, kx, ky, kz, ph = _vec(row, 6, what)
        if a < 0:
            raise EnvironmentInvalid(f"{what}: amplitude {_r(a)} m must be >= 0")
        if not 0 < w <= MAX_OMEGA:  # the limits before anything is squared; every comparison refuses a NaN
            raise EnvironmentInvalid(f"{what}: omega {_r(w)} rad/s must be " + ("> 0" if not w > 0 else
                                     f"at most {_r(MAX_OMEGA)} (a period of 6.3 ms)"))
        km = max(abs(kx), abs(ky), abs(kz))  # |k| scaled by its largest component, as the plugin: no overflow
        if not km > 0:
            raise EnvironmentInvalid(f"{what}: the wave vector is zero")
        kk = km * math.sqrt((kx / km) * (kx / km) + (ky / km) * (ky / km) + (kz / km) * (kz / km))
        if not MIN_K <= kk <= MAX_K:
            raise EnvironmentInvalid(f"{what}: |k| {_r(kk)} rad/m must be from {_r(MIN_K)} to {_r(MAX_K)} (a "
                                     "wavelength from 6.3 um to 6,300 km)")
        kn = float(np.array([kx, ky, kz]) @ n)
        if abs(kn) > 1e-9 * kk:
            raise EnvironmentInvalid(f"{what}: the wave vector must lie in the surface plane (k.n = {_r(kn)} rad/m)")
        t = 1.0 if depth is None else math.tanh(kk * depth)
        if not abs(w * w - gn * kk * t) <= 1e-9 * w * w:
            raise EnvironmentInvalid(f"{what}: omega and k do not satisfy omega^2 = g |k| tanh(|k| h) (to 1e-9)")
        if not a * kk / math.pi <= 1.0 / 7.0:
            raise EnvironmentInvalid(f"{what}: steepness H/lambda = a |k| / pi = {_r(a * kk / math.pi)} is beyond "
                                     f"the breaking limit 1/7")
        out[j] = (a, w, kx, ky, kz, ph)
    return Waves(surface=i, components=out, depth=depth, ramp=ramp, fk=fk, fk_tolerance=fk_tol)


# ---------------------------------------------------------------- validation

_BIG = 1e6  # metres: the box in which cell interiors are sought


def _interior(rows: np.ndarray, eq: np.ndarray | None = None):
    """Largest margin s (capped at 1) with rows[:, :3] x + s <= rows[:, 3] in a big box.

    ``eq`` rows (n, d) are equality constraints n.x = d. Returns s (> 0: a
    non-empty interior, relative to the equality planes).
    """
    from scipy.optimize import linprog

    k = len(rows)
    A = np.zeros((k, 4))
    A[:, :3] = rows[:, :3]
    A[:, 3] = 1.0
    b = rows[:, 3]
    kw = {}
    if eq is not None and len(eq):
        kw = dict(A_eq=np.hstack([eq[:, :3], np.zeros((len(eq), 1))]), b_eq=eq[:, 3])
    res = linprog(c=[0, 0, 0, -1], A_ub=A if k else None, b_ub=b if k else None,
                  bounds=[(-_BIG, _BIG)] * 3 + [(None, 1.0)], method="highs", **kw)
    if res.status != 0:
        return -1.0
    return float(res.x[3])


def validate(env: Environment) -> None:
    """Refuse overlapping cells and non-conservative per-cell gravity (EnvironmentInvalid)."""
    n = len(env.cells)
    tol = 1e-9
    for i in range(n):
        for j in range(i + 1, n):
            a, b = env.cells[i], env.cells[j]
            if any(sa * sb < 0 for sa, sb in zip(a.signs, b.signs)):
                continue  # opposite sides of one plane: disjoint
            s = _interior(np.vstack([env.cell_planes(i), env.cell_planes(j)]))
            if s > tol:
                raise EnvironmentInvalid(
                    f"cells {a.name!r} and {b.name!r} overlap (their intersection has an interior): "
                    f"cells must be disjoint; give one of them the opposite sign on a plane that separates them")
    if not any(c.gravity is not None for c in env.cells):
        return
    if env.gravity.kind != "uniform":
        raise EnvironmentInvalid("per-cell gravity is only allowed with a uniform global gravity "
                                "(cells without their own take the global g)")

    def g_of(c):
        return np.array(c.gravity if c.gravity is not None else env.gravity.g, float)

    for i in range(n):
        for j in range(i + 1, n):
            a, b = env.cells[i], env.cells[j]
            jump = g_of(a) - g_of(b)
            if not np.any(jump):
                continue
            for k, (sa, sb) in enumerate(zip(a.signs, b.signs)):
                if sa * sb >= 0:
                    continue
                # a shared face on plane k? the other constraints, restricted to the plane
                ra = [r for kk, r in enumerate(_cell_rows_indexed(env, i)) if kk != k]
                rb = [r for kk, r in enumerate(_cell_rows_indexed(env, j)) if kk != k]
                rows = np.array([r for r in ra + rb if r is not None], float).reshape(-1, 4)
                if _interior(rows, eq=env.planes[k : k + 1]) <= tol:
                    continue
                nrm = env.planes[k, :3]
                tang = jump - np.dot(jump, nrm) * nrm
                if np.linalg.norm(tang) > 1e-9 * max(1.0, np.linalg.norm(jump)):
                    raise EnvironmentInvalid(
                        f"gravity is not conservative: cells {a.name!r} (g = {_fmt(g_of(a))}) and "
                        f"{b.name!r} (g = {_fmt(g_of(b))}) share a face on plane {k} (normal {_fmt(nrm)}) "
                        f"and the tangential component of g jumps by {_fmt(tang)} m/s^2; "
                        f"a closed loop across that face would gain energy. Only the normal component "
                        f"may jump: make the two g differ along the plane normal, or use a gravity field")


def _fmt(v) -> str:
    return "[" + ", ".join(f"{float(x):.6g}" for x in v) + "]"


def _cell_rows_indexed(env: Environment, i: int):
    """Per plane index: the half-space row (n, d) with n.x <= d, or None."""
    return [p if s < 0 else (-p if s > 0 else None) for s, p in zip(env.cells[i].signs, env.planes)]


# ---------------------------------------------------------------- sources

def from_model(m) -> Environment | None:
    """The environment a compiled MjModel carries, or None."""
    import mujoco

    for i in range(m.ntext):
        if mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_TEXT, i) == ENV_TEXT:
            a, n = int(m.text_adr[i]), int(m.text_size[i])
            td = m.text_data
            raw = (td[a : a + n] if isinstance(td, (bytes, bytearray)) else bytes(td)[a : a + n])
            raw = bytes(raw).split(b"\0", 1)[0]
            try:
                return parse(raw.decode("utf-8"))
            except EnvironmentInvalid as exc:
                raise EnvironmentInvalid(f"{ENV_TEXT}: {exc}") from None
    return None


def open_water(density: float = 1025.0, viscosity: float = 1.08e-3, g: float = 9.81,
               air: bool = True) -> Environment:
    """Water below z = 0 (and air above), uniform gravity -g z."""
    cells = [{"name": "water", "signs": [-1], "density": density, "viscosity": viscosity}]
    if air:
        cells.insert(0, {"name": "air", "signs": [1], "density": 1.225, "viscosity": 1.81e-5})
    return parse({"planes": [[0, 0, 1, 0]], "cells": cells,
                  "gravity": {"type": "uniform", "g": [0, 0, -g]}})
