"""Worlds: a world config (aurgen.config.world) to an SDF world and an MJCF scene.

``place_vehicles`` resolves the vehicles a world places; ``write_worlds`` writes
``<output>/worlds/<world>.sdf`` (for ``gz sim`` with ``GZ_SIM_RESOURCE_PATH=<output>``:
vehicles are included as ``model://<vehicle>``) and ``<output>/worlds/<world>.xml``
(a MuJoCo scene attaching ``<output>/<vehicle>/<vehicle>.xml`` and carrying the
environment JSON the runtime reads, docs/formats.md). Plane and cell conventions:
aurgen.config.world.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np

from aurgen.core import spatial
from aurgen.emit import ros, selfcheck
from aurgen.config import sensors
from aurgen.emit.build import all_configs, build, model_mjcf
from aurgen.config.world import (DENSITY_TOL, HORIZONTAL_TOL, Placement, WorldConfig, environment_json, fluid_side,
                                 load_world)
from aurgen.emit.render import environment as jinja_environment, num, vec
from aurgen.core.errors import AurgenError, ConfigError
from aurgen.core.files import preflight, write_set
from aurgen.core.records import record
from aurgen.compose.stamp import equilibrium_of, header_line
from aurgen.core.yamlio import Reader

class NotExpressible(AurgenError):
    """The world's environment has no faithful SDF (Gazebo) form."""


@record
class Placed:
    """A placement with its resolved vehicle; ``name`` is the model name in the world."""

    placement: Placement
    vehicle: object  # aurgen.compose.model.Vehicle
    name: str


def place_vehicles(world: WorldConfig, resolve=None) -> list[Placed]:
    """Resolve each placement's vehicle and check it against the world.

    Errors (ConfigError naming the world file and ``vehicles[i]``): a vehicle
    whose declared fluid density differs from the world's water, two vehicles
    with one name, a vehicle placed inside a solid.
    """
    if resolve is None:
        from aurgen.compose.resolve import resolve
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
            dkey = "hull_displacement.fluid_density" if vehicle.displacement.kind in ("hull", "mesh") \
                else "buoyancy.fluid_density"
            raise ConfigError(world.path, key,
                              f"vehicle {name!r} declares fluid_density {rho:g} kg/m^3 ({vehicle.source}: {dkey}) "
                              f"but this world's water ({water.name!r}) is {water.density:g} kg/m^3",
                              "place a vehicle declared for this water, or declare "
                              f"{dkey}: {water.density:g} in a variant of the vehicle config", line=p.line)
        x = np.asarray(p.xyz)
        for g in world.ground:
            i = world.plane_index(g)
            side = fluid_side(world, i)
            pl = world.planes[i]
            if side * (spatial.dot(pl.normal, x) - pl.offset) < 0.0:
                raise ConfigError(world.path, f"{key}.xyz", f"vehicle {name!r} at {list(p.xyz)} is inside the "
                                  f"solid behind ground plane {g!r}", "move it into the water", line=p.line)
        out.append(Placed(placement=p, vehicle=vehicle, name=name))
    return out


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
    n = np.asarray(p.normal) * (fluid_side(world, i) if ground else 1)
    R = _frame(n)
    return {"name": p.name, "normal": vec(_clean(n)), "centre": vec(p.centre), "size": vec(p.size),
            "half": vec([p.size[0] / 2, p.size[1] / 2, 1.0]), "zaxis": vec(_clean(n)),
            "quat": vec(_clean(spatial.quat_of(R))), "rpy": vec(_clean(spatial.rpy_of(R)))}


def header(world: WorldConfig) -> str:
    """The world files' header: the config by file name and sha256 (aurgen.compose.stamp.header_line)."""
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
        "water_density": num(water.density), "view": _view(placed), "underwater": _underwater(world),
    }


def _underwater(world: WorldConfig) -> str | None:
    """The numeric ``aurgen:underwater`` (r g b visibility) of a world that declares ``underwater``, its
    keys left out filled with the defaults (aurgen.runtime.environment.underwater); None without the key."""
    if world.underwater is None:
        return None
    from aurgen.runtime.environment import underwater as uw

    rgb, visibility = world.underwater
    return vec(list(rgb if rgb is not None else uw.WATER_RGB) + [visibility if visibility is not None else uw.VISIBILITY])


VIEW_MARGIN = 1.5  # m: the extent beyond the vehicles' spread (a vehicle alone: seen from 2.25 m)


def _view(placed: list[Placed]) -> dict | None:
    """Where MuJoCo's free camera looks first (``<statistic center extent>``: it looks at the centre
    from 1.5 extents away): the vehicles' mean position, and their largest distance from it plus
    :data:`VIEW_MARGIN`, so the vehicles fill the view (with MuJoCo's 45° field of view and a
    16:9 window, at 1.5 extents the view's half-width is 1.1 extents); None without vehicles
    (MuJoCo's own, the whole model)."""
    if not placed:
        return None
    xs = [[float(c) for c in pl.placement.xyz] for pl in placed]
    centre = [math.fsum(x[a] for x in xs) / len(xs) for a in range(3)]
    spread = max(math.sqrt(math.fsum((x[a] - centre[a]) ** 2 for a in range(3))) for x in xs)
    return {"center": vec(_clean(centre)), "extent": num(spread + VIEW_MARGIN)}


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
    # gz-sim-imu-system in every world, placed vehicles or not: an ArduPilot SITL vehicle spawned there needs its
    # IMU (ardupilot_gazebo's plugin never answers without one; aurgen.emit.ardupilot)
    ctx["sensor_systems"] = sensors.systems({"imu"} | {s.type for pl in placed for s in pl.vehicle.sensors})
    ctx["spherical"] = SPHERICAL_COORDINATES
    ctx["still_water"] = still_water_comment(world)
    return jinja_environment().get_template("world.sdf.j2").render(**ctx)


# A sea in Gazebo (issue 25): no system we can declare models this sea, so the SDF world is still water.
# Read, to decide (the sources, not their docs):
# - gz-sim src/systems/buoyancy/Buoyancy.cc (BuoyancyPrivate::GradedFluidDensity, Buoyancy::PreUpdate): the
#   graded density is a function of z alone; no surface moves, no waves.
# - osrf/vrx vrx_gz/src/Wavefield.cc (WavefieldPrivate::RecalculatePms, RecalculateCwr,
#   Wavefield::ComputeDepthSimply / ComputeDepthDirectly) with vrx_gz/src/Surface.cc and WaveVisual.cc: a
#   "PMS" sea is at most 3 components (omegaSpacing has three entries, indexed by component) at
#   omega_p scale^n with Phillips' alpha = 0.0081 (no hs, no JONSWAP), "CWR" a geometric series; every
#   component gets the one mean phase and the elevation ignores it (theta = k d.x - omega t), deep water
#   at g = 9.8 whatever the world's gravity, an exponential start-up 1 - exp(-t / tau) (not our cosine
#   ramp), and it moves only VRX's own Surface plugin's hull, not gz-sim's Buoyancy that our models use.
# - srmainwaring/asv_wave_sim gz-waves/src/WaveParameters.cc (WaveParametersPrivate::Recalculate,
#   SetFromSDF) and LinearRandomWaveSimulation.cc (Impl::ComputeAmplitudes): the same number/scale/angle
#   series, or a Pierson-Moskowitz spectrum set by a wind speed (u19) over equally spaced omega, its
#   phases from std::default_random_engine's default seed (no seed to set), deep water, no JONSWAP.
# None takes an explicit list of components (a, omega, k, phase), so none can carry a synthesised
# spectrum, its components and seed exactly; the SDF says so in a comment and `note` says so once.
GAZEBO_SEA_WHY = ("the gz-sim Buoyancy system has no waves, and neither the VRX wavefield (at most three "
                  "Pierson-Moskowitz components, one phase, deep water at g 9.8) nor the asv_wave_sim one (a "
                  "wind-speed spectrum, a fixed seed) takes a list of components with their phases")


def still_water_comment(world: WorldConfig) -> str | None:
    """The SDF's comment for a world with a sea (None: none), from numbers and fixed words only: the
    sea's component count, significant height 4 sqrt(m0), frequency band, ramp and depth."""
    sea = world.waves
    if sea is None:
        return None
    c = np.asarray(sea.components, dtype=float)
    hs = 4.0 * math.sqrt(math.fsum(float(a) ** 2 for a in c[:, 0]) / 2.0)
    lo, hi = float(np.min(c[:, 1])), float(np.max(c[:, 1]))
    band = f"{lo:.4g} rad/s" if lo == hi else f"{lo:.4g} to {hi:.4g} rad/s"
    depth = "deep water" if sea.depth is None else f"depth {float(sea.depth):g} m"
    text = (f"still water: the sea of this world ({len(c)} component{'s' if len(c) != 1 else ''} on plane "
            f"{int(sea.surface)}, 4 sqrt(m0) {hs:.4g} m, {band}, ramp {float(sea.ramp):g} s, {depth}) has no "
            f"Gazebo form here: {GAZEBO_SEA_WHY}. The MJCF world carries the sea.")
    if "--" in text or text.endswith("-") or any(ch in text for ch in "<>&'\""):  # nothing XML or Jinja escapes
        raise AssertionError(f"the still-water comment is not a valid XML comment: {text!r}")
    return text


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
    """Write the placed vehicles' model files into ``output/<vehicle>/`` (aurgen.emit.build)."""
    configs = list(dict.fromkeys(pl.placement.config for pl in placed))
    return build(configs, output) if configs else []


def _vehicle_mjcf(placed: list[Placed]) -> dict:
    """{vehicle name: the MJCF a build writes for it} of the placed vehicles (the world's self-check)."""
    out = {}
    for pl in placed:
        v = pl.vehicle
        if v.name not in out:
            out[v.name] = model_mjcf(v)  # its meshes from the catalog: the set is not written yet
    return out


def _render(world: WorldConfig, placed: list[Placed], note) -> dict:
    """{file name: text} of one world; the SDF left out (and ``note`` told) when Gazebo cannot express it."""
    files = {f"{world.name}.xml": render_mjcf(world, placed)}
    if world.waves is not None and world.waves.warning:
        note(f"{world.path}: {world.waves.warning}")
    try:
        files[f"{world.name}.sdf"] = render_sdf(world, placed)
    except NotExpressible as exc:
        note(str(exc))
    else:
        if world.underwater is not None:
            note(f"{world.path}: underwater (the water's colour and visibility) is drawn by the MJCF world's "
                 "cameras (aurgen sitl --video); the SDF world leaves it out, and Gazebo's cameras see clear water")
        if world.waves is not None:
            note(f"{world.path}: the SDF world for {world.name!r} is still water (no Gazebo system we can declare "
                 "models this sea: gz-sim's Buoyancy has no waves, VRX's and asv_wave_sim's wavefields take no "
                 "list of components); the MJCF world carries the sea")
    return files


def write_worlds(names=None, output="build", *, build_vehicles: bool = True, note=None) -> list[Path]:
    """Write worlds ``names`` (config paths or bare names; None: every world in ``./worlds/`` and
    the bundled ones, see aurgen.emit.build.all_configs) under ``output``.

    Writes ``output/worlds/<world>.xml`` always and ``output/worlds/<world>.sdf``
    when Gazebo can express the world (otherwise ``note``, default a line on
    stderr, says why, and a stale SDF of that world is removed). A world with a
    sea gets its SDF still water (a comment in it says why: :func:`still_water_comment`)
    and one ``note`` saying so; its sea's steepness warning, if any, is a ``note`` too. With
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
    wdir = output / "worlds"
    todos = []
    for w, files, pl in zip(worlds, rendered, placed):
        todo = {wdir / fname: text for fname, text in files.items()}
        if f"{w.name}.sdf" in files:  # a ROS 2 launch file for each Gazebo world (aurgen.emit.ros)
            todo[output / "ros" / f"{w.name}.launch.py"] = ros.launch_py(w, pl, header(w)[5:-4])
        todos.append(todo)
    preflight([t for todo in todos for t in todo], output)  # a refused worlds/ before any vehicle is written
    written = _build_vehicles([pl for ps in placed for pl in ps], output) if build_vehicles else []
    for w, files, todo in zip(worlds, rendered, todos):
        written += write_set(todo, root=output)
        old_sdf = wdir / f"{w.name}.sdf"
        if f"{w.name}.sdf" not in files and old_sdf.is_file() and not old_sdf.is_symlink():
            old_sdf.unlink()  # an SDF of an older version of this world would mislead (wdir is aurgen's)
    return written

