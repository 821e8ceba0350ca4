"""Worlds: world configs (``worlds/<name>.yaml``) to an SDF world and an MJCF scene.

A world config names the environment (planes, the fluid cells they bound,
gravity, which planes are solid) and the vehicles placed in it; see
docs/formats.md. ``write_worlds`` writes ``<output>/worlds/<world>.sdf`` (for
``gz sim`` with ``GZ_SIM_RESOURCE_PATH=<output>``: vehicles are included as
``model://<vehicle>``) and ``<output>/worlds/<world>.xml`` (a MuJoCo scene
attaching ``<output>/<vehicle>/<vehicle>.xml`` and carrying the environment
JSON the runtime reads).

Conventions: a plane is ``n·x = d`` with ``n`` a unit normal (a config normal
is normalised; ``offset`` is ``d``, the signed distance of the plane from the
origin along the unit normal). A cell ``above`` a plane lies on ``n·x ≥ d``
(sign +1), ``below`` on ``n·x ≤ d`` (sign −1). A ground plane is solid on the
side no cell lies on; its contact geometry faces the fluid. Two cells must
be separated by a shared plane (one above it, the other below), which is
how the config shows they do not overlap. The world's
*water* is its densest cell: every placed vehicle's declared
``fluid_density`` must equal it.
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
from pathlib import Path

import numpy as np

from . import limits, ros, selfcheck, sensors, spatial
from .build import all_configs, build, outputs
from .config import resolve_config_path
from .emit import environment as jinja_environment, num, vec
from .errors import AurgenError, ConfigError, did_you_mean
from .files import write_set
from .records import record
from .stamp import equilibrium_of, header_line
from .resources import data_dir
from .yamlio import Reader, load

TOP_KEYS = {"description", "timestep", "integrator", "gravity", "planes", "cells", "ground", "vehicles"}
PLANE_KEYS = {"normal", "offset", "size", "centre"}
CELL_KEYS = {"above", "below", "density", "viscosity", "flow", "gravity"}
PLACEMENT_KEYS = {"config", "name", "xyz", "rpy"}
INTEGRATORS = ("Euler", "RK4", "implicit", "implicitfast")
DEFAULT_PLANE_SIZE = (200.0, 200.0)
DENSITY_TOL = 1e-9  # kg/m³: declared and world densities must agree to this
HORIZONTAL_TOL = 1e-12  # |1 − |n_z|| below this: the plane is horizontal


class NotExpressible(AurgenError):
    """The world's environment has no faithful SDF (Gazebo) form."""


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

    def plane_index(self, name: str) -> int:
        return [p.name for p in self.planes].index(name)

    @property
    def water(self) -> Cell:
        """The densest cell: the liquid the vehicles float or swim in."""
        return max(self.cells, key=lambda c: c.density)


@record
class Placed:
    """A placement with its resolved vehicle; ``name`` is the model name in the world."""

    placement: Placement
    vehicle: object  # aurgen.model.Vehicle
    name: str


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
    integrator = r.string(data, "integrator", "", default="implicitfast", choices=INTEGRATORS)
    gravity = _gravity(r, data)
    planes = _planes(r, data)
    names = [p.name for p in planes]
    ground = _ground(r, data, names)
    cells = _cells(r, data, planes)
    _check_cells(r, data, planes, cells, ground)
    placements = tuple(_placement(r, i, v, path) for i, v in enumerate(r.sequence(data, "vehicles", "")))
    return WorldConfig(path=str(path), sha256=hashlib.sha256(path.read_bytes()).hexdigest(), name=path.stem,
                       description=str(data.get("description", "")),
                       timestep=timestep, integrator=integrator, gravity=gravity, planes=planes, cells=cells,
                       ground=ground, placements=placements)


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


# ---------------------------------------------------------------- placing vehicles

def place_vehicles(world: WorldConfig, resolve=None) -> list[Placed]:
    """Resolve each placement's vehicle and check it against the world.

    Errors (ConfigError naming the world file and ``vehicles[i]``): a vehicle
    whose declared fluid density differs from the world's water, two vehicles
    with one name, a vehicle placed inside a solid.
    """
    if resolve is None:
        from .compose import resolve
    r = Reader(world.path)
    water = world.water
    out, seen = [], {}
    for p in world.placements:
        key = f"vehicles[{p.index}]"
        vehicle = resolve(p.config)
        name = p.name or vehicle.name
        if name in seen:
            raise ConfigError(world.path, f"{key}.name", f"a second vehicle named {name!r} (vehicles[{seen[name]}] "
                              "has that name)", "give each placement its own name:", line=p.line)
        seen[name] = p.index
        taken = {pl.name for pl in world.planes} | {f"{pl.name}_visual" for pl in world.planes}
        if name in taken:
            raise ConfigError(world.path, f"{key}.name", f"vehicle name {name!r} is taken by the world's own "
                              "geometry (a plane's model)", "rename the vehicle placement", line=p.line)
        rho = vehicle.displacement.fluid_density
        if abs(rho - water.density) > DENSITY_TOL:
            dkey = "hull_displacement.fluid_density" if vehicle.displacement.kind == "hull" \
                else "buoyancy.fluid_density"
            raise ConfigError(world.path, key,
                              f"vehicle {name!r} declares fluid_density {rho:g} kg/m^3 ({vehicle.source}: {dkey}) "
                              f"but this world's water ({water.name!r}) is {water.density:g} kg/m^3",
                              "place a vehicle declared for this water, or declare "
                              f"{dkey}: {water.density:g} in a variant of the vehicle config", line=p.line)
        x = np.asarray(p.xyz)
        for g in world.ground:
            i = world.plane_index(g)
            side = _fluid_side(world, i)
            pl = world.planes[i]
            if side * (spatial.dot(pl.normal, x) - pl.offset) < 0.0:
                raise ConfigError(world.path, f"{key}.xyz", f"vehicle {name!r} at {list(p.xyz)} is inside the "
                                  f"solid behind ground plane {g!r}", "move it into the water", line=p.line)
        out.append(Placed(placement=p, vehicle=vehicle, name=name))
    return out


def _fluid_side(world: WorldConfig, i: int) -> int:
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
    return {"planes": [[*p.normal, p.offset] for p in world.planes], "cells": cells,
            "gravity": world.gravity}


def environment_json(world: WorldConfig) -> str:
    """Deterministic, lossless JSON (floats as repr)."""
    return json.dumps(environment(world), separators=(", ", ": "), allow_nan=False)


def gazebo_environment(world: WorldConfig) -> dict:
    """What Gazebo can express: gravity vector, graded density along z.

    Returns ``{"gravity": g, "default_density": rho, "changes": [(z, rho), ...]}``.
    Raises NotExpressible (saying why) when Gazebo cannot represent the world:
    non-uniform gravity, a cell gravity other than the world's, or a
    non-horizontal plane between fluids (graded buoyancy varies along z only).
    Ground planes may face any way (they are static contact geometry).
    """
    why = f"{world.path}: no SDF world for {world.name!r}: "
    if world.gravity["type"] != "uniform":
        raise NotExpressible(why + f"{world.gravity['type']} gravity has no SDF form (Gazebo's world "
                             "gravity is one vector); the MJCF world carries it")
    g = world.gravity["g"]
    for c in world.cells:
        if c.gravity is not None and list(c.gravity) != list(g):
            raise NotExpressible(why + f"cell {c.name!r} has its own gravity {list(c.gravity)}, which "
                                 "Gazebo cannot express; the MJCF world carries it")
    heights = []
    for i, p in enumerate(world.planes):
        if p.name in world.ground or not any(c.signs[i] for c in world.cells):
            continue
        if abs(1.0 - abs(p.normal[2])) > HORIZONTAL_TOL:
            raise NotExpressible(why + f"plane {p.name!r} (normal {list(p.normal)}) bounds a fluid cell but is "
                                 "not horizontal, and Gazebo's graded buoyancy varies density along z only; "
                                 "the MJCF world is written")
        heights.append(p.offset / p.normal[2] + 0.0)
    heights = sorted(set(heights))
    probes = ([heights[0] - 1.0] + [(a + b) / 2 for a, b in zip(heights, heights[1:])] + [heights[-1] + 1.0]
              if heights else [0.0])
    layers = [_density_at(world, z, why) for z in probes]
    changes = [(z, rho) for z, rho, below in zip(heights, layers[1:], layers) if rho != below]
    return {"gravity": g, "default_density": layers[0], "changes": changes}


def _density_at(world: WorldConfig, z: float, why: str) -> float:
    """Density of the fluid at height z (ground planes ignored); 0 where no cell is."""
    found = set()
    for c in world.cells:
        ok = True
        for i, p in enumerate(world.planes):
            s = c.signs[i]
            if s == 0 or p.name in world.ground:
                continue
            if s * (p.normal[2] * z - p.offset) < 0.0:
                ok = False
        if ok:
            found.add(c.density)
    if len(found) > 1:
        raise NotExpressible(why + f"fluids of densities {sorted(found)} sit side by side at z = {z:g} m, "
                             "and Gazebo's graded buoyancy varies density along z only")
    return found.pop() if found else 0.0


# ---------------------------------------------------------------- rendering

def _frame(normal) -> np.ndarray:
    """A rotation whose z axis is ``normal`` (deterministic choice of x)."""
    z = np.asarray(normal, dtype=float)
    a = np.array([1.0, 0.0, 0.0]) if abs(z[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    x = a - spatial.dot(a, z) * z
    x = x / spatial.norm(x)
    return np.column_stack([x, spatial.cross(z, x), z])


def _clean(v) -> list:
    return [0.0 if abs(float(x)) < 1e-15 else float(x) + 0.0 for x in v]


def _plane_ctx(world: WorldConfig, i: int, ground: bool) -> dict:
    p = world.planes[i]
    n = np.asarray(p.normal) * (_fluid_side(world, i) if ground else 1)
    R = _frame(n)
    return {"name": p.name, "normal": vec(_clean(n)), "centre": vec(p.centre), "size": vec(p.size),
            "half": vec([p.size[0] / 2, p.size[1] / 2, 1.0]), "zaxis": vec(_clean(n)),
            "quat": vec(_clean(spatial.quat_of(R))), "rpy": vec(_clean(spatial.rpy_of(R)))}


def header(world: WorldConfig) -> str:
    """The world files' header: the config by file name and sha256 (aurgen.stamp.header_line)."""
    return header_line(world.path, world.sha256)


def context(world: WorldConfig, placed: list[Placed]) -> dict:
    """Everything the world templates print, as strings."""
    water = world.water
    vehicles = []
    for pl in placed:
        v = pl.vehicle
        p = pl.placement
        vehicles.append({
            "name": pl.name, "model": v.name, "uri": f"model://{v.name}",
            "mjcf": f"../{v.name}/{v.name}.xml", "base": v.base,
            "displacement_link": v.displacement.link,
            "pose": vec(list(p.xyz) + list(p.rpy)), "pos": vec(p.xyz),
            "quat": vec(_clean(spatial.quat_of(spatial.rot_rpy(p.rpy)))),
        })
    surfaces = []
    for i, p in enumerate(world.planes):
        if p.name not in world.ground and any(c.signs[i] for c in world.cells if c is water):
            surfaces.append(_plane_ctx(world, i, ground=False))
    # MuJoCo's own gravity only when it is the whole field: the plugin applies central, linear and per-cell gravity
    uniform = world.gravity["type"] == "uniform" and all(c.gravity is None for c in world.cells)
    g = world.gravity["g"] if uniform else [0.0, 0.0, 0.0]
    return {
        "header": header(world), "name": world.name, "description": world.description,
        "timestep": num(world.timestep), "integrator": world.integrator, "gravity": vec(g),
        "environment": environment_json(world),
        "ground": [_plane_ctx(world, world.plane_index(g_), ground=True) for g_ in world.ground],
        "surfaces": surfaces, "vehicles": vehicles, "models": _unique_models(vehicles),
        "water_density": num(water.density),
    }


def _unique_models(vehicles):
    seen, out = set(), []
    for v in vehicles:
        if v["model"] not in seen:
            seen.add(v["model"])
            out.append({"name": v["model"], "file": v["mjcf"]})
    return out


def render_mjcf(world: WorldConfig, placed: list[Placed]) -> str:
    return jinja_environment().get_template("world.xml.j2").render(**context(world, placed))


def render_sdf(world: WorldConfig, placed: list[Placed]) -> str:
    """The SDF world; raises NotExpressible when Gazebo cannot represent the environment."""
    gz = gazebo_environment(world)
    ctx = context(world, placed)
    ctx["gravity"] = vec(gz["gravity"])
    ctx["default_density"] = num(gz["default_density"])
    ctx["changes"] = [{"z": num(z), "density": num(rho)} for z, rho in gz["changes"]]
    ctx.update(gazebo_flows(world))
    ctx["sensor_systems"] = sensors.systems({s.type for pl in placed for s in pl.vehicle.sensors})
    ctx["spherical"] = SPHERICAL_COORDINATES
    return jinja_environment().get_template("world.sdf.j2").render(**ctx)


# Where the SDF worlds sit on the Earth (NavSat, magnetometer): Blue Robotics' home harbour,
# Torrance/Los Angeles, California (WGS84, ENU). A placeholder any world could declare instead.
SPHERICAL_COORDINATES = {"latitude_deg": "33.7361", "longitude_deg": "-118.2922", "elevation": "0.0",
                         "heading_deg": "0.0"}


def gazebo_flows(world: WorldConfig) -> dict:
    """The water cell's flow as gz-maritime's ocean current, the air's as its wind (one declaration:
    the cells' ``flow``, which the runtime reads from the environment JSON).

    gz-maritime takes a horizontal speed (m/s) and a direction in degrees clockwise from north
    (ENU: north +y, east +x): the current's the way it sets towards, the wind's the way it comes
    from. A vertical component has no gz-maritime form: NotExpressible.
    """
    water = world.water
    air = [c for c in world.cells if c is not water]
    air = min(air, key=lambda c: c.density) if air else None
    out = {}
    for key, cell, towards in (("current", water, True), ("wind", air, False)):
        if cell is None:
            out[key] = {"speed": num(0.0), "direction": num(0.0), "density": num(1.225)}
            continue
        fx, fy, fz = (float(v) for v in cell.flow)
        if fz != 0.0:
            raise NotExpressible(f"{world.path}: no SDF world for {world.name!r}: cell {cell.name!r} flows "
                                 f"vertically ({fz:g} m/s), which gz-maritime's {key} cannot express; "
                                 "the MJCF world carries it")
        speed = math.hypot(fx, fy)
        d = math.degrees(math.atan2(fx, fy) if towards else math.atan2(-fx, -fy)) % 360.0 if speed > 0 else 0.0
        out[key] = {"speed": num(speed), "direction": num(d + 0.0), "density": num(cell.density)}
    return out


# ---------------------------------------------------------------- writing

def _build_vehicles(placed: list[Placed], output: Path) -> list[Path]:
    """Write the placed vehicles' model files into ``output/<vehicle>/`` (aurgen.build)."""
    configs = list(dict.fromkeys(pl.placement.config for pl in placed))
    return build(configs, output) if configs else []


def _vehicle_mjcf(placed: list[Placed]) -> dict:
    """{vehicle name: the MJCF a build writes for it} of the placed vehicles (the world's self-check)."""
    out = {}
    for pl in placed:
        v = pl.vehicle
        if v.name not in out:
            out[v.name] = outputs(v, equilibrium_of(v))[f"{v.name}.xml"]
    return out


def _render(world: WorldConfig, placed: list[Placed], note) -> dict:
    """{file name: text} of one world; the SDF left out (and ``note`` told) when Gazebo cannot express it."""
    files = {f"{world.name}.xml": render_mjcf(world, placed)}
    try:
        files[f"{world.name}.sdf"] = render_sdf(world, placed)
    except NotExpressible as exc:
        note(str(exc))
    return files


def write_worlds(names=None, output="build", *, build_vehicles: bool = True, note=None) -> list[Path]:
    """Write worlds ``names`` (config paths or bare names; None: every world in ``./worlds/`` and
    the bundled ones, see aurgen.build.all_configs) under ``output``.

    Writes ``output/worlds/<world>.xml`` always and ``output/worlds/<world>.sdf``
    when Gazebo can express the world (otherwise ``note``, default a line on
    stderr, says why, and a stale SDF of that world is removed). With
    ``build_vehicles`` the placed vehicles' model files are (re)written first
    into ``output/<vehicle>/`` so the worlds' includes resolve. Every config
    is loaded, checked and rendered before anything is written. Returns the
    paths written.
    """
    note = note or (lambda msg: print(f"aurgen: note: {msg}", file=sys.stderr))
    names = list(names) if names else [str(p) for p in all_configs("worlds")]
    worlds = [load_world(n) for n in names]
    seen = {}
    for w in worlds:
        if w.name in seen:
            raise AurgenError(f"{seen[w.name]} and {w.path}: two world configs named {w.name!r} would write "
                              "the same files")
        seen[w.name] = w.path
    output = Path(output)
    placed = [place_vehicles(w) for w in worlds]
    rendered = [_render(w, p, note) for w, p in zip(worlds, placed)]
    for w, p, files in zip(worlds, placed, rendered):  # MuJoCo compiles each world before anything is written
        selfcheck.check_world(files, _vehicle_mjcf(p), w.path)
    written = _build_vehicles([pl for ps in placed for pl in ps], output) if build_vehicles else []
    wdir = output / "worlds"
    for w, files, pl in zip(worlds, rendered, placed):
        todo = {wdir / fname: text for fname, text in files.items()}
        if f"{w.name}.sdf" in files:  # a ROS 2 launch file for each Gazebo world (aurgen.ros)
            todo[output / "ros" / f"{w.name}.launch.py"] = ros.launch_py(w, pl, header(w)[5:-4])
        written += write_set(todo, root=output)
        old_sdf = wdir / f"{w.name}.sdf"
        if f"{w.name}.sdf" not in files and old_sdf.is_file() and not old_sdf.is_symlink():
            old_sdf.unlink()  # an SDF of an older version of this world would mislead (wdir is aurgen's)
    return written

