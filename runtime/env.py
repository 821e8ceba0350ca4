"""The environment a world carries: planes, convex cells with fluid properties, a gravity field.

Read from the JSON in ``<custom><text name="aurgen:environment" data="..."/>`` of a
world MJCF (docs/formats.md), or given from Python as a dict / JSON string.
Validated at load: unit normals, signs per plane, finite non-negative density and
viscosity, no two cells overlapping (an LP on the cells' half-spaces), and
per-cell constant gravity conservative (only the normal component may jump
across a shared face). Errors name the cells and say what to change.

Frames and units: world frame, SI (kg/m^3, Pa s, m/s, m/s^2).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

import numpy as np

from aurgen.errors import AurgenError

ENV_TEXT = "aurgen:environment"


class EnvironmentInvalid(AurgenError):
    """A bad environment (refused at load)."""


@dataclass(frozen=True)
class Cell:
    name: str
    signs: tuple  # per plane: -1 (n.x <= d), +1 (n.x >= d), 0 (unbounded by it)
    density: float
    viscosity: float
    flow: tuple = (0.0, 0.0, 0.0)
    gravity: tuple | None = None  # optional per-cell constant gravity


@dataclass(frozen=True)
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


@dataclass(frozen=True)
class Environment:
    planes: np.ndarray  # (k, 4): n (unit), d
    cells: tuple = ()
    gravity: Gravity = field(default_factory=Gravity)

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
        rows = []
        for s, p in zip(self.cells[i].signs, self.planes):
            if s < 0:
                rows.append(p)
            elif s > 0:
                rows.append(-p)
        return np.array(rows, float).reshape(-1, 4)

    def cell_at(self, x) -> int:
        """Index of the cell containing world point x, or -1 (vacuum)."""
        x = np.asarray(x, float)
        for i in range(len(self.cells)):
            P = self.cell_planes(i)
            if np.all(P[:, :3] @ x <= P[:, 3] + 1e-12):
                return i
        return -1

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
        return json.dumps({"planes": [list(map(float, p)) for p in self.planes], "cells": cells,
                           "gravity": gd})


def _vec(x, n, what):
    try:
        v = tuple(float(a) for a in x)
    except (TypeError, ValueError):
        raise EnvironmentInvalid(f"{what}: expected {n} numbers, got {x!r}") from None
    if len(v) != n or not all(math.isfinite(a) for a in v):
        raise EnvironmentInvalid(f"{what}: expected {n} finite numbers, got {x!r}")
    return v


def _gravity(gd) -> Gravity:
    if gd is None:
        return Gravity()
    if isinstance(gd, (list, tuple)):
        return Gravity("uniform", g=_vec(gd, 3, "gravity"))
    kind = gd.get("type", "uniform")
    if kind == "uniform":
        return Gravity("uniform", g=_vec(gd.get("g", (0, 0, -9.81)), 3, "gravity.g"))
    if kind == "central":
        mu = float(gd.get("mu", float("nan")))
        if not math.isfinite(mu) or mu <= 0:
            raise EnvironmentInvalid(f"gravity.mu: expected a positive number (m^3/s^2), got {gd.get('mu')!r}")
        return Gravity("central", mu=mu, centre=_vec(gd.get("centre", (0, 0, 0)), 3, "gravity.centre"))
    if kind == "linear":
        g0 = _vec(gd.get("g0", (0, 0, 0)), 3, "gravity.g0")
        rows = gd.get("G")
        if rows is None or len(rows) != 3:
            raise EnvironmentInvalid("gravity.G: expected a 3x3 matrix")
        G = tuple(_vec(r, 3, "gravity.G row") for r in rows)
        Ga = np.array(G)
        if not np.allclose(Ga, Ga.T, rtol=0, atol=1e-12 * max(1.0, np.abs(Ga).max())):
            raise EnvironmentInvalid("gravity.G must be symmetric: a non-symmetric gradient is not "
                                    "the gradient of a potential (energy would not be conserved)")
        return Gravity("linear", g0=g0, G=G)
    raise EnvironmentInvalid(f"gravity.type: expected uniform, central or linear, got {kind!r}")


def parse(obj) -> Environment:
    """Environment from a JSON string or a dict (the formats.md schema); validated."""
    if isinstance(obj, Environment):
        validate(obj)
        return obj
    if isinstance(obj, (str, bytes)):
        try:
            obj = json.loads(obj)
        except json.JSONDecodeError as exc:
            raise EnvironmentInvalid(f"environment JSON does not parse: {exc}") from None
    if not isinstance(obj, dict):
        raise EnvironmentInvalid("environment: expected a JSON object with planes, cells, gravity")
    planes = []
    for i, p in enumerate(obj.get("planes", [])):
        v = _vec(p, 4, f"planes[{i}]")
        nn = math.sqrt(v[0] ** 2 + v[1] ** 2 + v[2] ** 2)
        if abs(nn - 1.0) > 1e-9:
            raise EnvironmentInvalid(f"planes[{i}]: normal {v[:3]} is not a unit vector (|n| = {nn:.9g})")
        planes.append(v)
    P = np.array(planes, float).reshape(-1, 4)
    cells = []
    names = set()
    for i, c in enumerate(obj.get("cells", [])):
        name = str(c.get("name", f"cell{i}"))
        if name in names:
            raise EnvironmentInvalid(f"cells: two cells named {name!r}")
        names.add(name)
        signs = tuple(int(s) for s in c.get("signs", []))
        if len(signs) > len(P) or any(s not in (-1, 0, 1) for s in signs):
            raise EnvironmentInvalid(f"cell {name!r}: signs {list(signs)} must be -1, 0 or +1 per plane "
                                    f"({len(P)} planes)")
        signs = signs + (0,) * (len(P) - len(signs))
        try:
            rho = float(c.get("density", 0.0))
            visc = float(c.get("viscosity", 0.0))
        except (TypeError, ValueError):
            raise EnvironmentInvalid(f"cell {name!r}: density and viscosity must be numbers") from None
        if not math.isfinite(rho) or rho < 0:
            raise EnvironmentInvalid(f"cell {name!r}: density {rho} kg/m^3 must be finite and >= 0")
        if not math.isfinite(visc) or visc < 0:
            raise EnvironmentInvalid(f"cell {name!r}: viscosity {visc} Pa s must be finite and >= 0")
        flow = _vec(c.get("flow", (0, 0, 0)), 3, f"cell {name!r} flow")
        cg = c.get("gravity")
        cg = _vec(cg, 3, f"cell {name!r} gravity") if cg is not None else None
        cells.append(Cell(name, signs, rho, visc, flow, cg))
    env = Environment(P, tuple(cells), _gravity(obj.get("gravity")))
    validate(env)
    return env


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


def _cell_rows(env: Environment, i: int) -> np.ndarray:
    return env.cell_planes(i)


def validate(env: Environment) -> None:
    """Refuse overlapping cells and non-conservative per-cell gravity (EnvironmentInvalid)."""
    n = len(env.cells)
    tol = 1e-9
    for i in range(n):
        for j in range(i + 1, n):
            a, b = env.cells[i], env.cells[j]
            if any(sa * sb < 0 for sa, sb in zip(a.signs, b.signs)):
                continue  # opposite sides of one plane: disjoint
            s = _interior(np.vstack([_cell_rows(env, i), _cell_rows(env, j)]))
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
    out = []
    for s, p in zip(env.cells[i].signs, env.planes):
        out.append(p if s < 0 else (-p if s > 0 else None))
    return out


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
