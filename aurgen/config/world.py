"""World configs (``worlds/<name>.yaml``): load and validate; the environment they declare.

A world config names the environment (planes, the fluid cells they bound,
gravity, which planes are solid) and the vehicles placed in it; see
docs/config.md and docs/formats.md (the environment JSON the runtime reads).
aurgen.emit.worlds places the vehicles and writes the world files.

Conventions: a plane is ``n·x = d`` with ``n`` a unit normal (a config normal
is normalised; ``offset`` is ``d``, the signed distance of the plane from the
origin along the unit normal). A cell ``above`` a plane lies on ``n·x ≥ d``
(sign +1), ``below`` on ``n·x ≤ d`` (sign −1). A ground plane is solid on the
side no cell lies on; its contact geometry faces the fluid. Two cells must
be separated by a shared plane (one above it, the other below), which is
how the config shows they do not overlap. A world may carry a sea (``waves``) on
the plane over its water (aurgen.runtime.environment.waves). The world's
*water* is its densest cell: every placed vehicle's declared
``fluid_density`` must equal it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from pathlib import Path

import numpy as np

from aurgen.core import limits, spatial
from aurgen.core.errors import ConfigError, did_you_mean
from aurgen.core.records import record
from aurgen.core.resources import data_dir
from aurgen.core.yamlio import Reader, load
from aurgen.config.underwater import underwater_of
from aurgen.config.vehicle import resolve_config_path

TOP_KEYS = {"description", "timestep", "integrator", "gravity", "planes", "cells", "ground", "vehicles", "waves",
            "underwater"}
WAVES_KEYS = {"surface", "spectrum", "height", "period", "hs", "tp", "gamma", "components", "seed", "spreading",
              "direction", "depth", "ramp", "fk", "fk_tolerance"}
# keys one spectrum takes and the others refuse: {key: (the spectra that take it, what it says)}
WAVES_ONLY = {"height": (("regular",), "only for spectrum regular", "use hs for an irregular sea"),
              "period": (("regular",), "only for spectrum regular", "use tp for an irregular sea"),
              "hs": (("pierson_moskowitz", "jonswap"), "only for an irregular sea (spectrum pierson_moskowitz or "
                     "jonswap)", "use height for a regular wave"),
              "tp": (("pierson_moskowitz", "jonswap"), "only for an irregular sea (spectrum pierson_moskowitz or "
                     "jonswap)", "use period for a regular wave"),
              "gamma": (("jonswap",), "only for spectrum jonswap", "the peak enhancement of a JONSWAP sea"),
              **{k: (("pierson_moskowitz", "jonswap"), "only for an irregular sea (spectrum pierson_moskowitz or "
                     "jonswap)", "a regular wave is one component") for k in ("components", "seed", "spreading")}}
WAVES_REQUIRED = {"regular": ("height", "period"), "pierson_moskowitz": ("hs", "tp"), "jonswap": ("hs", "tp")}
PLANE_KEYS = {"normal", "offset", "size", "centre"}
CELL_KEYS = {"above", "below", "density", "viscosity", "flow", "gravity"}
PLACEMENT_KEYS = {"config", "name", "xyz", "rpy"}
INTEGRATORS = ("Euler", "RK4", "implicit", "implicitfast")
DEFAULT_PLANE_SIZE = (200.0, 200.0)
DENSITY_TOL = 1e-9  # kg/m³: declared and world densities must agree to this
HORIZONTAL_TOL = 1e-12  # |1 − |n_z|| below this: the plane is horizontal
GAS_DENSITY = 10.0  # kg/m³: a cell below it is a gas (the runtime's aurgen.runtime.sim.forces.GAS_DENSITY)
DEPTH_TOL = 1e-9  # a declared waves.depth within this fraction of the water's depth is that depth
# the most probable deepest of N = 1000 troughs (about a three-hour storm) of a Gaussian sea, in its
# sigma = sqrt(m0): Rayleigh statistics, sqrt(2 ln N) = 3.72 (the wave height's H_max = 1.86 Hs, halved)
TROUGH_SIGMA = math.sqrt(2.0 * math.log(1000.0))



@record
class Plane:
    name: str
    normal: tuple  # unit
    offset: float
    size: tuple  # (a, b) m: visual extent (SDF size; MuJoCo half-sizes a/2, b/2)
    centre: tuple  # a point on the plane: where the plane's geometry is posed


@record
class Cell:
    name: str
    signs: tuple  # one per plane, in plane order: −1, 0, +1
    density: float
    viscosity: float
    flow: tuple
    gravity: tuple | None  # optional per-cell constant gravity


@record
class Placement:
    index: int
    line: int | None
    config: str  # resolved vehicle config path
    name: str | None  # None: the vehicle's own name
    xyz: tuple
    rpy: tuple


@record
class WorldConfig:
    path: str
    sha256: str  # of the config file (the header names it by file name and this)
    name: str
    description: str
    timestep: float
    integrator: str
    gravity: dict  # environment-JSON form: {"type": "uniform", "g": [...]} etc.
    planes: tuple
    cells: tuple
    ground: tuple  # plane names
    placements: tuple
    # aurgen.runtime.environment.waves.Sea (synthesised at load, its fk and fk_tolerance as declared), or
    # None: still water
    waves: object = None
    # underwater: (rgb (r, g, b) 0-1, visibility m) as declared, each None where left out (the camera's
    # defaults, aurgen.runtime.environment.underwater); None without the key
    underwater: tuple | None = None

    def plane_index(self, name: str) -> int:
        return [p.name for p in self.planes].index(name)

    @property
    def water(self) -> Cell:
        """The densest cell: the liquid the vehicles float or swim in."""
        return max(self.cells, key=lambda c: c.density)


# ---------------------------------------------------------------- loading

def bundled_names() -> list[str]:
    """World config stems bundled with aurgen, sorted."""
    return sorted(p.stem for p in data_dir("worlds").glob("*.yaml"))


def load_world(path) -> WorldConfig:
    """Read and validate a world config. Raises ConfigError naming file/key/line."""
    path = resolve_config_path(path, kind="worlds")
    data = load(path)
    r = Reader(path)
    why = limits.bad_name(path.stem)
    if why:
        raise ConfigError(path, None, f"the world is named by its file name: {why}", "rename the file")
    r.check_keys(data, TOP_KEYS, "", required=("planes", "cells"))
    timestep = r.number(data, "timestep", "", default=0.002, positive=True)
    from aurgen.runtime.plugin import timestep_problem  # the plugin's bound, in its words

    why = timestep_problem(timestep, "the world's timestep")
    if why:
        raise r.error("timestep", why, "set timestep: within that range (default 0.002 s)", node=data, field="timestep")
    integrator = r.string(data, "integrator", "", default="implicitfast", choices=INTEGRATORS)
    gravity = _gravity(r, data)
    planes = _planes(r, data)
    names = [p.name for p in planes]
    ground = _ground(r, data, names)
    cells = _cells(r, data, planes)
    _check_cells(r, data, planes, cells, ground)
    placements = tuple(_placement(r, i, v, path) for i, v in enumerate(r.sequence(data, "vehicles", "")))
    sea = _waves(r, data, gravity, planes, cells, ground) if "waves" in data else None
    underwater = underwater_of(r, data) if "underwater" in data else None
    return WorldConfig(path=str(path), sha256=hashlib.sha256(path.read_bytes()).hexdigest(), name=path.stem,
                       description=str(data.get("description", "")),
                       timestep=timestep, integrator=integrator, gravity=gravity, planes=planes, cells=cells,
                       ground=ground, placements=placements, waves=sea, underwater=underwater)


def _gravity(r: Reader, data) -> dict:
    if "gravity" not in data:
        return {"type": "uniform", "g": [0.0, 0.0, -9.81]}
    g = data["gravity"]
    if not isinstance(g, dict):
        return {"type": "uniform", "g": list(r.vector(data, "gravity", ""))}
    kind = r.string(g, "type", "gravity", required=True, choices=("uniform", "central", "linear"))
    if kind == "uniform":
        r.check_keys(g, {"type", "g"}, "gravity", required=("g",))
        return {"type": "uniform", "g": list(r.vector(g, "g", "gravity", required=True))}
    if kind == "central":
        r.check_keys(g, {"type", "mu", "centre"}, "gravity", required=("mu",))
        return {"type": "central", "mu": r.number(g, "mu", "gravity", positive=True, required=True),
                "centre": list(r.vector(g, "centre", "gravity", default=(0.0, 0.0, 0.0)))}
    r.check_keys(g, {"type", "g0", "G"}, "gravity", required=("g0", "G"))
    G = r.sequence(g, "G", "gravity")
    if len(G) != 3:
        raise r.error("gravity.G", "expected a 3x3 matrix (three rows of three numbers)", node=g, field="G")
    rows = [list(r.vector({"row": row}, "row", f"gravity.G[{i}]")) for i, row in enumerate(G)]
    M = np.array(rows)
    if not np.allclose(M, M.T, rtol=0.0, atol=1e-12 * max(1.0, float(np.abs(M).max()))):
        raise r.error("gravity.G", "the gravity gradient must be symmetric (a conservative field)",
                      node=g, field="G")
    return {"type": "linear", "g0": list(r.vector(g, "g0", "gravity", required=True)), "G": rows}


def _planes(r: Reader, data) -> tuple:
    planes_node = r.mapping(data["planes"], "planes", node=data, field="planes")
    if not planes_node:
        raise r.error("planes", "no planes declared", "a world needs at least a surface plane", node=data,
                      field="planes")
    out = []
    for name, p in planes_node.items():
        key = f"planes.{name}"
        _check_name(r, name, key, planes_node)
        p = r.mapping(p, key, node=planes_node, field=name)
        r.check_keys(p, PLANE_KEYS, key, required=("normal",))
        n = np.array(r.vector(p, "normal", key, required=True))
        norm = spatial.norm(n)
        if not norm > 0.0:
            raise r.error(f"{key}.normal", "the normal is zero", "give the direction the plane faces",
                          node=p, field="normal")
        n = n / norm
        n = np.where(np.abs(n) < 1e-15, 0.0, n) + 0.0
        d = r.number(p, "offset", key, default=0.0)
        size = r.vector(p, "size", key, n=2, default=DEFAULT_PLANE_SIZE, positive=True)
        c = np.array(r.vector(p, "centre", key, default=(0.0, 0.0, 0.0)))
        c = c - (spatial.dot(n, c) - d) * n  # onto the plane
        out.append(Plane(name=str(name), normal=tuple(float(x) for x in n), offset=d, size=size,
                         centre=tuple(float(x) + 0.0 for x in c)))
    return tuple(out)


def _check_name(r: Reader, name, key, node):
    r.as_name(name, key, node=node, field=name)


def _names_list(r: Reader, node, field, key, known) -> list:
    if field not in node:
        return []
    value = node[field]
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        raise r.error(f"{key}.{field}", "expected a plane name or a list of plane names", node=node, field=field)
    for v in value:
        if v not in known:
            raise r.error(f"{key}.{field}", f"unknown plane {v!r}",
                          did_you_mean(str(v), known) or f"declared planes: {', '.join(known)}",
                          node=node, field=field)
    return list(value)


def _ground(r: Reader, data, names) -> tuple:
    g = _names_list(r, data, "ground", "", names)
    if len(set(g)) != len(g):
        raise r.error("ground", "a plane is listed twice", node=data, field="ground")
    return tuple(g)


def _cells(r: Reader, data, planes) -> tuple:
    names = [p.name for p in planes]
    cells_node = r.mapping(data["cells"], "cells", node=data, field="cells")
    if not cells_node:
        raise r.error("cells", "no cells declared", "declare at least the water cell", node=data, field="cells")
    out = []
    for name, c in cells_node.items():
        key = f"cells.{name}"
        _check_name(r, name, key, cells_node)
        c = r.mapping(c, key, node=cells_node, field=name)
        r.check_keys(c, CELL_KEYS, key, required=("density",))
        above = _names_list(r, c, "above", key, names)
        below = _names_list(r, c, "below", key, names)
        both = sorted(set(above) & set(below))
        if both:
            raise r.error(key, f"plane {both[0]!r} is both above and below: the cell would be empty",
                          node=c, field="below")
        signs = tuple(1 if n in above else -1 if n in below else 0 for n in names)
        out.append(Cell(name=str(name), signs=signs, density=r.number(c, "density", key, positive=True,
                                                                       required=True),
                        viscosity=r.number(c, "viscosity", key, default=0.0, nonnegative=True),
                        flow=r.vector(c, "flow", key, default=(0.0, 0.0, 0.0)),
                        gravity=r.vector(c, "gravity", key)))
    return tuple(out)


def _check_cells(r: Reader, data, planes, cells, ground):
    cells_node = data["cells"]
    for i, a in enumerate(cells):
        for b in cells[i + 1:]:
            if not any(sa * sb < 0 for sa, sb in zip(a.signs, b.signs)):
                raise r.error(f"cells.{b.name}", f"cells {a.name!r} and {b.name!r} overlap: no plane has one "
                              "above it and the other below", "bound them by a common plane", node=cells_node,
                              field=b.name)
    for g in ground:
        i = [p.name for p in planes].index(g)
        sides = {c.signs[i] for c in cells} - {0}
        if len(sides) > 1:
            raise r.error("ground", f"plane {g!r} is solid but has fluid cells on both sides", node=data,
                          field="ground")


def _placement(r: Reader, i: int, v, world_path: Path) -> Placement:
    key = f"vehicles[{i}]"
    v = r.mapping(v, key)
    r.check_keys(v, PLACEMENT_KEYS, key, required=("config",))
    cfg = r.string(v, "config", key, required=True)
    local = world_path.parent / cfg
    try:
        path = local.resolve() if local.is_file() else resolve_config_path(cfg)
    except ConfigError:
        raise r.error(f"{key}.config", f"vehicle config {cfg!r} not found",
                      "looked beside the world config, in the current directory, ./vehicles/ and the bundled "
                      "vehicles", node=v, field="config") from None
    name = r.name(v, "name", key)
    return Placement(index=i, line=v.line, config=str(path), name=name,
                     xyz=r.vector(v, "xyz", key, default=(0.0, 0.0, 0.0), magnitude=limits.LENGTH_MAX),
                     rpy=r.vector(v, "rpy", key, default=(0.0, 0.0, 0.0), magnitude=limits.ANGLE_MAX))


# ---------------------------------------------------------------- waves

def _fk(r: Reader, w) -> tuple:
    """waves.fk (exact or moments) and waves.fk_tolerance, as declared (None: not declared)."""
    from aurgen.runtime.environment import schema as envschema

    fk = r.string(w, "fk", "waves", choices=("exact", "moments"))
    tol = r.number(w, "fk_tolerance", "waves", at_least=envschema.MIN_FK_TOL, at_most=envschema.MAX_FK_TOL)
    return fk, tol


def _waves(r: Reader, data, gravity: dict, planes: tuple, cells: tuple, ground: tuple):
    """The declared sea (docs/config.md "Waves"), synthesised (aurgen.runtime.environment.waves.synthesize),
    carrying its Froude-Krylov method (waves.fk, waves.fk_tolerance) as declared.

    The surface is a plane bounding the water (the densest cell) from above; its normal is up,
    and gravity must be uniform along -up. Depth, when not declared: the distance along up from
    the surface down to a plane parallel to it that bounds the water from below; none: deep water.
    """
    from aurgen.runtime.environment import waves as wv

    w = r.mapping(data["waves"], "waves", node=data, field="waves")
    r.check_keys(w, WAVES_KEYS, "waves", required=("surface", "spectrum"))
    spectrum = r.string(w, "spectrum", "waves", required=True, choices=wv.SPECTRA)
    for key in sorted(w):
        if key in WAVES_ONLY and spectrum not in WAVES_ONLY[key][0]:
            raise r.error(f"waves.{key}", WAVES_ONLY[key][1], WAVES_ONLY[key][2], node=w, field=key)
    for key in WAVES_REQUIRED[spectrum]:
        if key not in w:
            raise r.error(f"waves.{key}", f"required for spectrum {spectrum}", node=w)
    names = [p.name for p in planes]
    surface = r.string(w, "surface", "waves", required=True)
    if surface not in names:
        raise r.error("waves.surface", f"unknown plane {surface!r}",
                      did_you_mean(surface, names) or f"declared planes: {', '.join(names)}", node=w, field="surface")
    i = names.index(surface)
    water = max(cells, key=lambda c: c.density)
    if surface in ground or water.signs[i] != -1:
        raise r.error("waves.surface", f"plane {surface!r} does not bound the water cell {water.name!r} from above "
                      "(the sea moves the surface the water lies below)",
                      "name the plane the water cell lists under 'below:'", node=w, field="surface")
    _free_surface(r, w, cells, surface, i)
    up = np.array(planes[i].normal, float)
    g = np.array(gravity.get("g", (0.0, 0.0, 0.0)), float)
    gn = spatial.norm(g)
    if (gravity["type"] != "uniform" or any(c.gravity is not None for c in cells)
            or spatial.norm(spatial.cross(g, up)) > 1e-9 * gn or spatial.dot(g, up) >= 0.0):
        raise r.error("waves", f"a sea needs uniform gravity along -n of its surface plane {surface!r} "
                      f"(n = {[float(x) for x in up]})", "give the world one uniform gravity pointing into the water, "
                      "with no cell gravity", node=data, field="waves")
    height = r.number(w, "height", "waves", positive=True, magnitude=limits.LENGTH_MAX)
    # a regular wave's omega = 2 pi / period within the environment's limit (the plugin's table), named here
    from aurgen.runtime.environment.schema import MAX_OMEGA

    period = r.number(w, "period", "waves", positive=True, at_least=2 * math.pi / MAX_OMEGA, at_most=1e4)
    hs = r.number(w, "hs", "waves", positive=True, magnitude=limits.LENGTH_MAX)
    tp = r.number(w, "tp", "waves", positive=True, at_most=1e4)
    gamma = r.number(w, "gamma", "waves", default=3.3, at_least=1.0, at_most=7.0)
    count = _integer(r, w, "components", 64, 1, 256, "components")
    seed = _integer(r, w, "seed", 0, 0, 2 ** 63 - 1, "seed")
    spreading = r.number(w, "spreading", "waves", positive=True, at_most=1e3)
    direction = r.number(w, "direction", "waves", default=0.0, magnitude=360.0)
    ramp = r.number(w, "ramp", "waves", default=0.0, nonnegative=True, at_most=1e6)
    depth = r.number(w, "depth", "waves", positive=True, magnitude=limits.LENGTH_MAX)
    depth, bottom, note = _depth(r, w, planes, water, i, depth)
    decl = wv.Declaration(spectrum=spectrum, height=height, period=period, hs=hs, tp=tp, gamma=gamma,
                          components=count, seed=seed, spreading=spreading, direction=direction, ramp=ramp,
                          surface=i)
    try:
        sea = wv.synthesize(decl, up, gn, depth)
    except wv.WavesInvalid as exc:
        raise r.error(f"waves.{exc.key}", exc.message, node=w, field=exc.key) from None
    if depth is not None:
        _trough_above_bottom(r, w, sea, decl, depth, bottom)
    if note:
        sea = dataclasses.replace(sea, warning="; ".join(x for x in (sea.warning, note) if x))
    fk, tol = _fk(r, w)
    return dataclasses.replace(sea, fk=fk, fk_tolerance=tol)


def _free_surface(r: Reader, w, cells: tuple, surface: str, i: int):
    """Refuse a sea on plane i (``surface``) unless every cell on its upper side is a gas: linear
    waves on a free surface disperse as omega^2 = g k tanh(k h), which the synthesis and the plugin
    use; on the interface between two liquids (densities rho1 over rho2) they disperse with the
    reduced gravity g (rho2 - rho1) / (rho2 + rho1), which neither models."""
    for c in cells:
        if c.signs[i] == 1 and not c.density < GAS_DENSITY:
            raise r.error("waves.surface", f"plane {surface!r} has cell {c.name!r} ({c.density:g} kg/m^3, not a gas) "
                          "above it: waves there are on an interface between two fluids, which disperse with the "
                          "reduced gravity g (rho2 - rho1)/(rho2 + rho1), not the free surface's g",
                          f"a sea moves a free surface only: a plane the densest cell lies below with only gases "
                          f"(cells below {GAS_DENSITY:g} kg/m^3) or nothing above it; remove waves:",
                          node=w, field="surface")


def _trough_above_bottom(r: Reader, w, sea, decl, depth: float, bottom: str | None):
    """Refuse a sea whose trough reaches the bottom ``depth`` m down. The trough: a regular wave's
    H/2; an irregular sea's, of its synthesised components, the smaller of the sum of their amplitudes
    (the deepest its surface can ever reach) and TROUGH_SIGMA sigma, sigma = sqrt(m0) = sqrt(sum a^2 / 2)
    (the most probable deepest of 1000 troughs)."""
    where = f"plane {bottom!r}" if bottom else "the declared depth"
    if decl.spectrum == "regular":
        trough, key = decl.height / 2.0, "height"
        what = f"a trough H/2 = {trough:g} m below the mean level"
        fix = f"lower height below {2.0 * depth:g} m"
    else:
        a = np.abs(sea.components[:, 0])
        total = math.fsum(a.tolist())  # fixed-order sums on the emit path (no BLAS, tests/aurgen/test_spatial.py)
        sigma = math.sqrt(0.5 * math.fsum((a * a).tolist()))
        trough, key = min(total, TROUGH_SIGMA * sigma), "hs"
        how = (f"{TROUGH_SIGMA:.3g} sigma: the most probable deepest of 1000 troughs, sigma = sqrt(m0) = "
               f"{sigma:.4g} m of its components" if TROUGH_SIGMA * sigma <= total
               else f"the sum of its {len(a)} amplitudes: the deepest it can reach")
        what = f"its deepest trough, {trough:.4g} m below the mean level ({how}),"
        fix = "lower hs"
    if trough >= depth:
        raise r.error(f"waves.{key}", f"{what} reaches the bottom {depth:g} m down ({where}): the water column "
                      "would vanish under it", f"{fix} (shallow-water waves break well before, near a height of "
                      "0.78 x the depth), or deepen the water", node=w, field=key)


def _integer(r: Reader, node, field: str, default: int, lo: int, hi: int, what: str) -> int:
    if field not in node:
        return default
    v = node[field]
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise r.error(f"waves.{field}", f"expected a whole number of {what} from {lo} to {hi}, got {v!r}",
                      node=node, field=field)
    return v


def _depth(r: Reader, w, planes: tuple, water, i: int, declared):
    """(the sea's depth m or None for deep water, the plane that bounds the water there or None, a note
    or None). The water's depth under surface plane i: the nearest plane parallel to it bounding the
    water from below (its distance along the surface normal); none when no plane bounds it from below,
    or only sloping ones do (then its depth is not one number: ``declared`` is required). A declared
    depth deeper than that water is refused (linear theory's bottom is at the depth it disperses
    with); a shallower one is noted."""
    n = np.array(planes[i].normal, float)
    depths, sloped = [], []
    for j, p in enumerate(planes):
        s = water.signs[j]
        if j == i or s == 0:
            continue
        inward = s * np.array(p.normal, float)  # into the water
        c = spatial.dot(inward, n)
        if c <= 1e-12:
            continue  # a wall or a ceiling
        if abs(c - 1.0) <= 1e-12:
            depths.append((planes[i].offset - s * p.offset, p.name))  # the bottom: n.x = s d_j
        else:
            sloped.append(p.name)
    if not depths:
        if sloped and declared is None:
            raise r.error("waves.depth", f"the water's bottom (plane {sloped[0]!r}) is not parallel to the surface, "
                          "so its depth is not one number", "declare depth (m), or omit the plane", node=w)
        return declared, None, None
    h, bottom = min(depths)
    if not h > 0.0:
        raise r.error("waves.depth", f"the water under the surface is {h:g} m deep", node=w)
    h = float(h)
    if declared is None:
        return h, bottom, None
    if declared > h * (1.0 + DEPTH_TOL):
        raise r.error("waves.depth", f"{declared:g} m is deeper than the water: plane {bottom!r} bounds it {h:g} m "
                      "under the surface, and linear waves of a finite depth are for a bottom at that depth",
                      f"omit depth (the water's {h:g} m is the default), or lower plane {bottom!r}",
                      node=w, field="depth")
    if declared < h * (1.0 - DEPTH_TOL):
        return declared, None, (f"waves.depth: {declared:g} m is shallower than the water ({h:g} m down to plane "
                                f"{bottom!r}): the waves disperse as over a {declared:g} m bottom, and below it "
                                "their pressure and velocity follow linear theory's depth factor cosh k(z + h), "
                                "which grows again with depth; omit depth for the water's own")
    return declared, bottom, None  # the water's own depth, as declared


# ---------------------------------------------------------------- placing vehicles

def fluid_side(world: WorldConfig, i: int) -> int:
    """The side (±1) of plane i where the fluid is: the side its cells name, else +1."""
    sides = {c.signs[i] for c in world.cells} - {0}
    return sides.pop() if sides else 1


# ---------------------------------------------------------------- environment

def environment(world: WorldConfig) -> dict:
    """The environment JSON of docs/formats.md (a plain dict, key order as documented)."""
    cells = []
    for c in world.cells:
        cell = {"name": c.name, "signs": list(c.signs), "density": c.density, "viscosity": c.viscosity,
                "flow": [float(v) for v in c.flow]}
        if c.gravity is not None:
            cell["gravity"] = [float(v) for v in c.gravity]
        cells.append(cell)
    out = {"planes": [[*p.normal, p.offset] for p in world.planes], "cells": cells, "gravity": world.gravity}
    if world.waves is not None:  # only when declared: a world without a sea writes what it always did
        out["waves"] = world.waves.block()
    return out


def environment_json(world: WorldConfig) -> str:
    """Deterministic, lossless JSON (floats as repr)."""
    return json.dumps(environment(world), separators=(", ", ": "), allow_nan=False)
