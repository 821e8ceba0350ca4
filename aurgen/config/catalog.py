"""The parts catalog: one YAML file per part type, loaded and validated.

Each part's entry is the one source of its own mass, centre of mass and
inertia. Units SI, part frame REP-103 (x forward, y left, z up).
"""

from __future__ import annotations

import hashlib
from dataclasses import field
from pathlib import Path

import numpy as np

from aurgen.core import limits, spatial
from aurgen.config import autopilot, sensors, shapes
from aurgen.config.thrust_curve import ThrustCurve, find_curve
from aurgen.core.errors import ConfigError, did_you_mean
from aurgen.core.records import record
from aurgen.core.resources import catalog_dir
from aurgen.config.meshfile import MESH_SUFFIXES, mesh_file  # noqa: F401 (MESH_SUFFIXES: public here)
from aurgen.core.yamlio import Reader, load

JOINT_TYPES = ("fixed", "continuous", "revolute", "prismatic")
LIMITED_JOINTS = ("revolute", "prismatic")  # joints that need limits
ZERO3 = (0.0, 0.0, 0.0)


@record
class Geometry:
    """A shape posed in its link (part) frame: xyz in m, rpy in rad."""

    shape: shapes.Shape
    xyz: tuple = ZERO3
    rpy: tuple = ZERO3
    rgba: tuple | None = None  # a visual's colour (red, green, blue, alpha in 0..1); None: its link's role colour


@record
class Limits:
    """Joint limits: lower/upper in rad (or m), effort in N·m (or N), velocity in rad/s (m/s)."""

    lower: float
    upper: float
    effort: float
    velocity: float


@record
class Slot:
    """A named mounting point of a part, posed in the part frame."""

    name: str
    xyz: tuple = ZERO3
    rpy: tuple = ZERO3
    accepts: tuple = ()
    default: str | None = None
    joint: str | None = None
    collision: bool = True
    axis: tuple | None = None
    limits: Limits | None = None
    # (inner diameter, inner length, ends) m of the enclosure tube along the slot's x: length the longest pack
    # it takes, ends (from, to) the x its packs' ends may reach, or None: (-length/2, length/2)
    tube: tuple | None = None
    # the occupant is a component of this part, named <carrier>_<slot> (gripper_jaw_left) however it
    # is placed; otherwise a nested occupant takes the slot's name unless that is taken (compose.assemble)
    carrier_prefix: bool = False


@record
class Frame:
    """A named frame of a part (sensor face, IMU point), posed in the part frame."""

    name: str
    xyz: tuple = ZERO3
    rpy: tuple = ZERO3


@record
class Drive:
    """A propeller's drive table: diameter m, thrust limits N, rotation ccw|cw, deadband N (0: none);
    ``thrust_curve`` the catalog's thrust against pulse width (aurgen.config.thrust_curve), whose
    extremes are then the limits."""

    diameter: float
    max_thrust: float
    min_thrust: float
    rotation: str
    deadband: float = 0.0
    thrust_curve: ThrustCurve | None = None


@record
class Part:
    """One catalog entry. ``inertia`` is about ``com``, part-frame axes, kg·m²."""

    type: str
    path: str
    mass: float
    com: tuple
    inertia: tuple  # 3×3 as nested tuples
    collision: tuple = ()
    visual: tuple = ()
    attach: tuple = ZERO3
    axis: tuple = (1.0, 0.0, 0.0)
    slots: tuple = ()
    frames: tuple = ()
    drive: Drive | None = None
    battery: dict | None = None
    sensors: tuple = ()  # aurgen.config.sensors.SensorSpec
    payload_capacity: float | None = None  # kg, a published figure (the report evaluates the vehicle at it)
    description: str = ""
    placeholder: str = ""
    inertia_derived: bool = False
    inertia_from: str = ""  # 'collision' or 'visual': the shapes the inertia is derived from ('' : given)
    discontinued: str | None = None  # the part's discontinued: note ('' when just true); None: in production
    ardupilot: autopilot.Wiring | None = None  # a chassis' autopilot wiring as the real vehicle ships
    sha256: str = field(default="", compare=False)

    def slot(self, name: str) -> Slot | None:
        for s in self.slots:
            if s.name == name:
                return s
        return None


PART_KEYS = {"description", "placeholder", "mass", "com", "inertia", "collision", "visual", "attach",
             "axis", "slots", "frames", "drive", "battery", "density", "sensors",
             "payload_capacity", "discontinued", "inertia_from", "ardupilot"}
GEOM_KEYS = {"shape", "size", "radius", "length", "radii", "file", "scale", "xyz", "rpy", "name", "rgba"}
INERTIA_FROM = ("collision", "visual")
SLOT_KEYS = {"xyz", "rpy", "accepts", "default", "joint", "collision", "axis", "limits", "tube", "carrier_prefix"}


def parts_path() -> list[Path]:
    """The directories of ``$AURGEN_PARTS_PATH`` (os.pathsep-separated), in order.

    A named directory that does not exist is an error (a typo would otherwise
    fall back to the bundled parts without a word).
    """
    import os

    dirs = []
    for d in os.environ.get("AURGEN_PARTS_PATH", "").split(os.pathsep):
        if d:
            if not Path(d).is_dir():
                raise ConfigError(None, "AURGEN_PARTS_PATH", f"{d!r} is not a directory",
                                  "fix or unset the environment variable")
            dirs.append(Path(d))
    return dirs


def catalog_for(config_path=None) -> "Catalog":
    """The catalog a vehicle config sees, first directory winning:

    1. the config's own ``parts/`` directory (beside it), unless that is the bundled catalog;
    2. each directory of ``$AURGEN_PARTS_PATH``, in order;
    3. the bundled catalog.

    So ``AURGEN_PARTS_PATH`` overrides a bundled part for a bundled vehicle too, and a
    vehicle's own parts override both. ``config_path`` None: 2 and 3 (``aurgen catalog``).
    """
    bundled = catalog_dir().resolve()
    dirs = []
    if config_path is not None:
        local = Path(config_path).resolve().parent / "parts"
        if local.is_dir() and local.resolve() != bundled:
            dirs.append(local)
    dirs.extend(parts_path())
    dirs.append(bundled)
    return Catalog(list(dict.fromkeys(d.resolve() for d in dirs)))


class Catalog:
    """Part types found in one or more directories (first directory wins).

    Loads lazily and caches, so a vehicle reads only the parts it uses.
    """

    def __init__(self, dirs=None):
        self.dirs = [Path(d) for d in (dirs or [catalog_dir()])]
        self._cache: dict[str, Part] = {}

    def names(self) -> list[str]:
        """Part types: the stems of ``*.yaml`` files that are names (aurgen.core.limits)."""
        seen = set()
        for d in self.dirs:
            if d.is_dir():
                seen.update(p.stem for p in d.glob("*.yaml") if limits.bad_name(p.stem) is None)
        return sorted(seen)

    def path_of(self, type_name: str) -> Path | None:
        """The file of part type ``type_name`` (a name, never a path), or None.

        A ``<type>.yaml`` that exists but is not a regular file is an error.
        """
        if limits.bad_name(type_name) is not None:
            return None
        for d in self.dirs:
            p = d / f"{type_name}.yaml"
            if p.is_file():
                return p
            if p.exists() or p.is_symlink():
                raise ConfigError(p, None, f"part type '{type_name}': not a regular file",
                                  "a catalog entry is a .yaml file")
        return None

    def has(self, type_name: str) -> bool:
        return self.path_of(type_name) is not None

    def get(self, type_name: str, *, where=None) -> Part:
        """The part ``type_name``; ``where`` = (path, key, line) of the reference, for errors."""
        if type_name in self._cache:
            return self._cache[type_name]
        wpath, wkey, wline = where or (None, None, None)
        why = limits.bad_name(type_name)
        if why:
            raise ConfigError(wpath, wkey, f"a part type is a catalog name, never a path: {why}", line=wline)
        path = self.path_of(type_name)
        if path is None:
            hint = did_you_mean(type_name, self.names()) or "run 'aurgen catalog' for the list"
            raise ConfigError(wpath, wkey, f"unknown part type '{type_name}'", hint, line=wline)
        part = parse_part(type_name, path, load(path), dirs=self.dirs)
        self._cache[type_name] = part
        return part


def parse_part(type_name: str, path: Path, data: dict, dirs=None) -> Part:
    """Validate one catalog entry. Raises ConfigError naming file, key and line. ``dirs``: the catalog
    directories a thrust curve is looked up in (default: the entry's own, then the bundled one)."""
    r = Reader(path)
    r.check_keys(data, PART_KEYS, "", required=("mass",))
    mass = r.number(data, "mass", "", positive=True, at_least=limits.MASS_MIN, at_most=limits.MASS_MAX)
    collision = tuple(_geometry(r, g, f"collision[{i}]", path) for i, g in
                      enumerate(r.sequence(data, "collision", "")))
    if "visual" in data:
        visual = tuple(_geometry(r, g, f"visual[{i}]", path, visual=True)
                       for i, g in enumerate(r.sequence(data, "visual", "")))
    else:
        visual = collision
    com = r.vector(data, "com", "", magnitude=limits.LENGTH_MAX)
    source = r.string(data, "inertia_from", "", choices=INERTIA_FROM)
    if "inertia" in data:
        if source is not None:
            raise r.error("inertia_from", "the inertia is given: inertia_from applies only to a derived inertia",
                          "drop inertia: to derive it from the shapes, or drop inertia_from", node=data,
                          field="inertia_from")
        node = r.mapping(data["inertia"], "inertia", node=data, field="inertia")
        r.check_keys(node, {"ixx", "iyy", "izz", "ixy", "ixz", "iyz"}, "inertia", required=("ixx", "iyy", "izz"))
        vals = {k: r.number(node, k, "inertia", default=0.0, magnitude=limits.NUMBER_MAX)
                for k in ("ixx", "iyy", "izz", "ixy", "ixz", "iyz")}
        inertia = spatial.inertia_matrix(**vals)
        why = inertia_problem(inertia)
        if why:
            raise r.error("inertia", f"the tensor {why}", "check the moments and products (kg·m² about the CoM)",
                          node=data, field="inertia")
        if com is None:
            com = ZERO3
        source = ""
    else:
        source = source or "collision"
        geoms = collision if source == "collision" else visual
        if not geoms:
            raise r.error("inertia", f"no inertia and no {source} geometry to derive it from",
                          f"give inertia: {{ixx, iyy, izz}} about the CoM, or {source} shapes"
                          + ("" if source == "visual" else " (or inertia_from: visual)"), node=data)
        key = source if source in data else "collision"  # no visual: list: the visuals are the collision list
        _check_solid(r, data, geoms, key)
        geo_com, inertia = _derived_inertia(geoms, mass, com)
        com = com if com is not None else tuple(geo_com)
        why = inertia_problem(inertia)
        if why:
            raise r.error(key, f"the inertia derived from the {source} geometry {why}",
                          "give inertia: {ixx, iyy, izz} about the CoM", node=data, field=key)
    slots = []
    slots_node = data.get("slots") or {}
    r.mapping(slots_node, "slots", node=data, field="slots")
    for name, s in slots_node.items():
        r.as_name(name, f"slots.{name}", node=slots_node, field=name)
        slots.append(_slot(r, str(name), s, slots_node))
    frames = []
    frames_node = data.get("frames") or {}
    r.mapping(frames_node, "frames", node=data, field="frames")
    for name, f in frames_node.items():
        key = f"frames.{name}"
        r.as_name(name, key, node=frames_node, field=name)
        f = r.mapping(f, key, node=frames_node, field=name)
        r.check_keys(f, {"xyz", "rpy"}, key)
        frames.append(Frame(str(name), r.vector(f, "xyz", key, default=ZERO3, magnitude=limits.LENGTH_MAX),
                            r.vector(f, "rpy", key, default=ZERO3, magnitude=limits.ANGLE_MAX)))
    drive = _drive(r, data, [Path(path).parent, catalog_dir()] if dirs is None else dirs) if "drive" in data else None
    battery = None
    if "battery" in data:
        b = r.mapping(data["battery"], "battery", node=data, field="battery")
        battery = {str(k): v for k, v in b.items()}
        for k in ("diameter", "length"):  # the pack's round envelope, checked against a tube (compose.fit)
            if k in b:
                battery[k] = r.number(b, k, "battery", positive=True, at_least=limits.SIZE_MIN,
                                      magnitude=limits.LENGTH_MAX)
    discontinued = data.get("discontinued")
    if discontinued is not None and discontinued is not True and (not isinstance(discontinued, str) or
                                                                   not discontinued):
        raise r.error("discontinued", f"expected true or a note (what replaces it), got {discontinued!r}",
                      node=data, field="discontinued")
    axis = r.vector(data, "axis", "", default=(1.0, 0.0, 0.0), magnitude=limits.NUMBER_MAX, nonzero=True)
    return Part(
        type=type_name, path=str(path), mass=mass, com=tuple(float(c) for c in com),
        inertia=tuple(tuple(float(v) for v in row) for row in inertia),
        collision=collision, visual=visual,
        attach=r.vector(data, "attach", "", default=ZERO3, magnitude=limits.LENGTH_MAX), axis=axis,
        slots=tuple(slots), frames=tuple(frames), drive=drive, battery=battery,
        sensors=sensors.parse(r, data, frames),
        payload_capacity=r.number(data, "payload_capacity", "", positive=True, at_most=limits.MASS_MAX),
        description=str(data.get("description", "")), placeholder=str(data.get("placeholder", "")),
        inertia_derived=bool(source), inertia_from=source, discontinued=None if discontinued is None else
        ("" if discontinued is True else discontinued), ardupilot=autopilot.parse(r, data, slots),
        sha256=_entry_sha256(path, drive),
    )


def _entry_sha256(path, drive) -> str:
    """The entry's content hash: its file's bytes, and those of the thrust curve it names (a vehicle's
    content sha256 then moves when the curve is edited)."""
    h = hashlib.sha256(Path(path).read_bytes()).hexdigest()
    if drive is None or drive.thrust_curve is None:
        return h
    return hashlib.sha256(f"{h}\nthrust_curve {drive.thrust_curve.sha256}".encode()).hexdigest()


DRIVE_KEYS = {"diameter", "max_thrust", "min_thrust", "rotation", "deadband", "thrust_curve"}


def _drive(r: Reader, data, dirs) -> Drive:
    """A part's ``drive:``: the limits given (max_thrust, min_thrust N), or derived from the
    ``thrust_curve`` it names (the curve's extremes; giving them as well is refused)."""
    d = r.mapping(data["drive"], "drive", node=data, field="drive")
    r.check_keys(d, DRIVE_KEYS, "drive", required=("diameter", "rotation"))
    curve = None
    if "thrust_curve" in d:
        for k in ("max_thrust", "min_thrust"):
            if k in d:
                raise r.error(f"drive.{k}", "is derived from drive.thrust_curve (its largest and smallest "
                              "thrust): it cannot be given as well", f"drop {k}, or drop thrust_curve to give "
                              "the limits by hand", node=d, field=k)
        curve = find_curve(dirs, d["thrust_curve"], (r.path, "drive.thrust_curve",
                                                     getattr(d, "lines", {}).get("thrust_curve")))
        top, bottom = curve.max_thrust, curve.min_thrust
    else:
        for k in ("max_thrust", "min_thrust"):
            if k not in d:
                raise r.error(f"drive.{k}", "required key is missing",
                              "give max_thrust and min_thrust (N), or a thrust_curve", node=d)
        top = r.number(d, "max_thrust", "drive", magnitude=limits.NUMBER_MAX)
        bottom = r.number(d, "min_thrust", "drive", magnitude=limits.NUMBER_MAX)
    drive = Drive(r.number(d, "diameter", "drive", positive=True, magnitude=limits.LENGTH_MAX), top, bottom,
                  r.string(d, "rotation", "drive", choices=("ccw", "cw")),
                  r.number(d, "deadband", "drive", default=0.0, nonnegative=True, magnitude=limits.NUMBER_MAX),
                  curve)
    if drive.min_thrust > drive.max_thrust:
        raise r.error("drive.min_thrust", "is above max_thrust", node=d, field="min_thrust")
    return drive


def _slot(r: Reader, name: str, s, parent) -> Slot:
    key = f"slots.{name}"
    s = r.mapping(s, key, node=parent, field=name)
    r.check_keys(s, SLOT_KEYS, key)
    accepts = r.sequence(s, "accepts", key)
    return slot_fields(r, s, key, name)


def slot_fields(r: Reader, s, key: str, name: str) -> Slot:
    """The slot keys (SLOT_KEYS) of mapping ``s`` as a Slot: a catalog slot or a vehicle's ad hoc one."""
    accepts = tuple(r.as_name(a, f"{key}.accepts[{i}]", node=s, field="accepts", part_type=True)
                    for i, a in enumerate(r.sequence(s, "accepts", key)))
    default = s.get("default")
    if default in (None, "none"):
        default = None
    else:
        r.as_name(default, f"{key}.default", node=s, field="default", part_type=True)
    return Slot(name=name, xyz=r.vector(s, "xyz", key, default=ZERO3, magnitude=limits.LENGTH_MAX),
                rpy=r.vector(s, "rpy", key, default=ZERO3, magnitude=limits.ANGLE_MAX),
                accepts=accepts, default=default,
                joint=r.string(s, "joint", key, choices=JOINT_TYPES),
                collision=r.boolean(s, "collision", key, default=True),
                axis=r.vector(s, "axis", key, magnitude=limits.NUMBER_MAX, nonzero=True),
                limits=joint_limits(r, s, key), tube=_tube(r, s, key),
                carrier_prefix=r.boolean(s, "carrier_prefix", key, default=False))


def _tube(r: Reader, s, key: str) -> tuple | None:
    """A slot's ``tube: {diameter, length, ends}``: the inner diameter m of the enclosure the slot's part
    sits in, the longest pack m it takes, and (optional) the x m of its own ends in the slot's frame (a
    pontoon longer than the bay: a pack may slide along it), which must hold ``length``; default centred."""
    if "tube" not in s:
        return None
    t = r.mapping(s["tube"], f"{key}.tube", node=s, field="tube")
    r.check_keys(t, {"diameter", "length", "ends"}, f"{key}.tube", required=("diameter", "length"))
    size = dict(positive=True, required=True, at_least=limits.SIZE_MIN, magnitude=limits.LENGTH_MAX)
    d, length = r.number(t, "diameter", f"{key}.tube", **size), r.number(t, "length", f"{key}.tube", **size)
    ends = r.vector(t, "ends", f"{key}.tube", n=2, magnitude=limits.LENGTH_MAX)
    if ends is not None and not ends[1] - ends[0] >= length:
        raise r.error(f"{key}.tube.ends", f"the ends {ends[0]:g} .. {ends[1]:g} m must hold the tube's length "
                      f"{length:g} m (from < to, at least that far apart)",
                      "give the x of the tube's aft and forward ends in the slot's frame, or drop ends: for "
                      "a tube centred on the slot", node=t, field="ends")
    return d, length, ends


def joint_limits(r: Reader, node, key: str) -> Limits | None:
    """``limits: {lower, upper, effort, velocity}`` of a slot or a vehicle entry, or None.

    lower <= upper, effort and velocity not negative, all within the number limits.
    """
    if "limits" not in node:
        return None
    k = f"{key}.limits"
    lm = r.mapping(node["limits"], k, node=node, field="limits")
    r.check_keys(lm, {"lower", "upper", "effort", "velocity"}, k)
    lower = r.number(lm, "lower", k, default=0.0, magnitude=limits.LENGTH_MAX)
    upper = r.number(lm, "upper", k, default=0.0, magnitude=limits.LENGTH_MAX)
    if lower > upper:
        raise r.error(f"{k}.lower", f"is above upper ({lower:g} > {upper:g})", "lower <= upper",
                      node=lm, field="lower")
    return Limits(lower, upper,
                  r.number(lm, "effort", k, default=0.0, nonnegative=True, magnitude=limits.NUMBER_MAX),
                  r.number(lm, "velocity", k, default=0.0, nonnegative=True, magnitude=limits.NUMBER_MAX))


def inertia_problem(I) -> str | None:
    """Why ``I`` cannot be a part's inertia (aurgen.core.spatial.check_inertia, and a smallest
    principal moment of at least ``limits.INERTIA_MIN``, so MuJoCo accepts it), or None."""
    why = spatial.check_inertia(np.asarray(I, dtype=float))
    if why:
        return why
    ev = spatial.principal_moments(np.asarray(I, dtype=float))
    if ev[0] < limits.INERTIA_MIN:
        return (f"has a principal moment of {ev[0]:.6g} kg m^2, below the {limits.INERTIA_MIN:g} minimum "
                "(MuJoCo refuses vanishing inertia)")
    return None


def _geometry(r: Reader, g, key: str, path: Path, visual: bool = False) -> Geometry:
    g = r.mapping(g, key)
    r.check_keys(g, GEOM_KEYS, key, required=("shape",))
    if "rgba" in g and not visual:
        raise r.error(f"{key}.rgba", "a colour is a visual's: contact geometry is not drawn",
                      "give the colour on a visual: entry", node=g, field="rgba")
    rgba = r.vector(g, "rgba", key, n=4, at_least=0.0, magnitude=1.0)  # each channel in [0, 1]
    kind = r.string(g, "shape", key, choices=shapes.SHAPES)
    size = dict(positive=True, required=True, at_least=limits.SIZE_MIN, magnitude=limits.LENGTH_MAX)
    shape = None
    if kind == "box":
        dims = r.vector(g, "size", key, **size)
    elif kind in ("cylinder", "capsule"):
        dims = (r.number(g, "radius", key, **size), r.number(g, "length", key, **size))
    elif kind == "sphere":
        dims = (r.number(g, "radius", key, **size),)
    elif kind == "ellipsoid":
        dims = r.vector(g, "radii", key, **size)
    else:
        mesh_path = _mesh_file(r, g, key, path)
        dims, mesh = r.vector(g, "scale", key, default=(1.0, 1.0, 1.0), positive=True,
                              magnitude=limits.LENGTH_MAX), str(mesh_path)
        shape = shapes.Shape("mesh", dims, mesh)
    shape = shape or shapes.Shape(kind, tuple(dims))
    return Geometry(shape, r.vector(g, "xyz", key, default=ZERO3, magnitude=limits.LENGTH_MAX),
                    r.vector(g, "rpy", key, default=ZERO3, magnitude=limits.ANGLE_MAX), rgba)


def _mesh_file(r: Reader, g, key: str, path: Path) -> Path:
    """A mesh ``file:``: relative, a regular .stl/.obj file inside the folder of the catalog file
    that declares it (symlinks resolved), and loadable as a mesh with faces (aurgen.config.meshfile)."""
    return mesh_file(r, g, key, path)


def _check_solid(r: Reader, data, geoms, source: str = "collision") -> None:
    """Each mesh an inertia is derived from encloses a volume: closed (watertight), not flat.

    ``source``: the key of the list ``geoms`` came from (collision or visual), for the error."""
    for i, g in enumerate(geoms):
        if g.shape.kind != "mesh":
            continue
        mesh = shapes._load_mesh(g.shape)
        with np.errstate(invalid="ignore", divide="ignore"):  # trimesh's centroid of no volume
            flat = not abs(mesh.volume) > 1e-12
        why = ("is open (not watertight): it encloses no volume" if not mesh.is_watertight else
               "is flat: it encloses no volume" if flat else None)
        if why:
            node = data[source][i] if isinstance(data.get(source), list) else data
            raise r.error(f"{source}[{i}].file", f"{Path(g.shape.mesh).name!r} {why}, so no inertia can be derived "
                          "from it", "give inertia: {ixx, iyy, izz} about the CoM, or a closed mesh",
                          node=node, field="file")


def _derived_inertia(collision, mass: float, com):
    """(centroid, inertia about ``com`` or the centroid) of the shapes at uniform density.

    Shapes are assumed disjoint; the density is ``mass / Σ volume``.
    """
    items = []
    total_v = 0.0
    for g in collision:
        v = shapes.volume(g.shape)
        R = spatial.rot_rpy(g.rpy)
        c = np.asarray(g.xyz) + R @ shapes.centroid(g.shape)
        items.append((v, c, spatial.rotate_inertia(shapes.unit_inertia(g.shape), R)))
        total_v += v
    rho = mass / total_v
    M, C, I = spatial.combine((v * rho, c, Ic * rho) for v, c, Ic in items)
    if len(items) == 1:
        C = items[0][1]  # one shape: its own centroid (combine's m c / m rounds it)
    # entries at round-off of the largest (a diagonal tensor turned by right angles) are zero
    I = np.where(np.abs(I) < 1e-14 * np.abs(I).max(), 0.0, I)
    if com is not None:
        # the declared CoM: shift the tensor there (parallel axis from the centroid)
        I = spatial.shift_inertia(I, M, C - np.asarray(com))
    return C, I
