"""The parts catalog: one YAML file per part type, loaded and validated.

Each part's entry is the one source of its own mass, centre of mass and
inertia. Units SI, part frame REP-103 (x forward, y left, z up).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import shapes, spatial
from .errors import ConfigError, did_you_mean
from .resources import catalog_dir
from .yamlio import Reader, load

JOINT_TYPES = ("fixed", "continuous", "revolute", "prismatic")
ZERO3 = (0.0, 0.0, 0.0)


@dataclass(frozen=True)
class Geometry:
    """A shape posed in its link (part) frame: xyz in m, rpy in rad."""

    shape: shapes.Shape
    xyz: tuple = ZERO3
    rpy: tuple = ZERO3


@dataclass(frozen=True)
class Limits:
    """Joint limits: lower/upper in rad (or m), effort in N·m (or N), velocity in rad/s (m/s)."""

    lower: float
    upper: float
    effort: float
    velocity: float


@dataclass(frozen=True)
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


@dataclass(frozen=True)
class Frame:
    """A named frame of a part (sensor face, IMU point), posed in the part frame."""

    name: str
    xyz: tuple = ZERO3
    rpy: tuple = ZERO3


@dataclass(frozen=True)
class Drive:
    """A propeller's drive table: diameter m, thrust limits N, rotation ccw|cw."""

    diameter: float
    max_thrust: float
    min_thrust: float
    rotation: str


@dataclass(frozen=True)
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
    description: str = ""
    placeholder: str = ""
    inertia_derived: bool = False
    sha256: str = field(default="", compare=False)

    def slot(self, name: str) -> Slot | None:
        for s in self.slots:
            if s.name == name:
                return s
        return None


PART_KEYS = {"description", "placeholder", "mass", "com", "inertia", "collision", "visual", "attach",
             "axis", "slots", "frames", "drive", "battery", "density"}
GEOM_KEYS = {"shape", "size", "radius", "length", "radii", "file", "scale", "xyz", "rpy", "name"}
SLOT_KEYS = {"xyz", "rpy", "accepts", "default", "joint", "collision", "axis", "limits"}


def catalog_for(config_path) -> "Catalog":
    """The catalog a vehicle config sees: its own ``parts/`` directory (beside the
    config), then each directory of ``$AURGEN_PARTS_PATH`` (os.pathsep-separated),
    then the bundled catalog. The first directory holding a type wins.
    """
    import os

    dirs = []
    local = Path(config_path).resolve().parent / "parts"
    if local.is_dir():
        dirs.append(local)
    for d in os.environ.get("AURGEN_PARTS_PATH", "").split(os.pathsep):
        if d:
            dirs.append(Path(d))
    bundled = catalog_dir()
    if bundled.resolve() not in [d.resolve() for d in dirs]:
        dirs.append(bundled)
    return Catalog(dirs)


class Catalog:
    """Part types found in one or more directories (first directory wins).

    Loads lazily and caches, so a vehicle reads only the parts it uses.
    """

    def __init__(self, dirs=None):
        self.dirs = [Path(d) for d in (dirs or [catalog_dir()])]
        self._cache: dict[str, Part] = {}

    def names(self) -> list[str]:
        seen = set()
        for d in self.dirs:
            if d.is_dir():
                seen.update(p.stem for p in d.glob("*.yaml"))
        return sorted(seen)

    def path_of(self, type_name: str) -> Path | None:
        for d in self.dirs:
            p = d / f"{type_name}.yaml"
            if p.is_file():
                return p
        return None

    def has(self, type_name: str) -> bool:
        return self.path_of(type_name) is not None

    def get(self, type_name: str, *, where=None) -> Part:
        """The part ``type_name``; ``where`` = (path, key, line) of the reference, for errors."""
        if type_name in self._cache:
            return self._cache[type_name]
        path = self.path_of(type_name)
        if path is None:
            hint = did_you_mean(type_name, self.names()) or "run 'aurgen catalog' for the list"
            wpath, wkey, wline = where or (None, None, None)
            raise ConfigError(wpath, wkey, f"unknown part type '{type_name}'", hint, line=wline)
        part = parse_part(type_name, path, load(path))
        self._cache[type_name] = part
        return part


def parse_part(type_name: str, path: Path, data: dict) -> Part:
    """Validate one catalog entry. Raises ConfigError naming file, key and line."""
    r = Reader(path)
    r.check_keys(data, PART_KEYS, "", required=("mass",))
    mass = r.number(data, "mass", "", positive=True)
    collision = tuple(_geometry(r, g, f"collision[{i}]", path) for i, g in
                      enumerate(r.sequence(data, "collision", "")))
    if "visual" in data:
        visual = tuple(_geometry(r, g, f"visual[{i}]", path) for i, g in enumerate(r.sequence(data, "visual", "")))
    else:
        visual = collision
    com = r.vector(data, "com", "")
    derived = False
    if "inertia" in data:
        node = r.mapping(data["inertia"], "inertia", node=data, field="inertia")
        r.check_keys(node, {"ixx", "iyy", "izz", "ixy", "ixz", "iyz"}, "inertia", required=("ixx", "iyy", "izz"))
        vals = {k: r.number(node, k, "inertia", default=0.0) for k in ("ixx", "iyy", "izz", "ixy", "ixz", "iyz")}
        inertia = spatial.inertia_matrix(**vals)
        why = spatial.check_inertia(inertia)
        if why:
            raise r.error("inertia", f"the tensor {why}", "check the moments and products (kg·m² about the CoM)",
                          node=data, field="inertia")
        if com is None:
            com = ZERO3
    else:
        if not collision:
            raise r.error("inertia", "no inertia and no collision geometry to derive it from",
                          "give inertia: {ixx, iyy, izz} about the CoM, or collision shapes", node=data)
        geo_com, inertia = _derived_inertia(collision, mass, com)
        com = com if com is not None else tuple(geo_com)
        derived = True
    slots = []
    slots_node = data.get("slots") or {}
    r.mapping(slots_node, "slots", node=data, field="slots")
    for name, s in slots_node.items():
        slots.append(_slot(r, str(name), s, slots_node))
    frames = []
    frames_node = data.get("frames") or {}
    r.mapping(frames_node, "frames", node=data, field="frames")
    for name, f in frames_node.items():
        key = f"frames.{name}"
        f = r.mapping(f, key, node=frames_node, field=name)
        r.check_keys(f, {"xyz", "rpy"}, key)
        frames.append(Frame(str(name), r.vector(f, "xyz", key, default=ZERO3), r.vector(f, "rpy", key, default=ZERO3)))
    drive = None
    if "drive" in data:
        d = r.mapping(data["drive"], "drive", node=data, field="drive")
        r.check_keys(d, {"diameter", "max_thrust", "min_thrust", "rotation", "deadband"}, "drive",
                     required=("diameter", "max_thrust", "min_thrust", "rotation"))
        drive = Drive(r.number(d, "diameter", "drive", positive=True), r.number(d, "max_thrust", "drive"),
                      r.number(d, "min_thrust", "drive"), r.string(d, "rotation", "drive", choices=("ccw", "cw")))
        if drive.min_thrust > drive.max_thrust:
            raise r.error("drive.min_thrust", "is above max_thrust", node=d, field="min_thrust")
    battery = None
    if "battery" in data:
        b = r.mapping(data["battery"], "battery", node=data, field="battery")
        battery = {str(k): v for k, v in b.items()}
    axis = r.vector(data, "axis", "", default=(1.0, 0.0, 0.0))
    if np.linalg.norm(axis) == 0.0:
        raise r.error("axis", "must not be the zero vector", node=data, field="axis")
    return Part(
        type=type_name, path=str(path), mass=mass, com=tuple(float(c) for c in com),
        inertia=tuple(tuple(float(v) for v in row) for row in inertia),
        collision=collision, visual=visual, attach=r.vector(data, "attach", "", default=ZERO3), axis=axis,
        slots=tuple(slots), frames=tuple(frames), drive=drive, battery=battery,
        description=str(data.get("description", "")), placeholder=str(data.get("placeholder", "")),
        inertia_derived=derived, sha256=hashlib.sha256(Path(path).read_bytes()).hexdigest(),
    )


def _slot(r: Reader, name: str, s, parent) -> Slot:
    key = f"slots.{name}"
    s = r.mapping(s, key, node=parent, field=name)
    r.check_keys(s, SLOT_KEYS, key)
    accepts = r.sequence(s, "accepts", key)
    for i, a in enumerate(accepts):
        if not isinstance(a, str):
            raise r.error(f"{key}.accepts[{i}]", "expected a part type name", node=s, field="accepts")
    default = s.get("default")
    if default in (None, "none"):
        default = None
    elif not isinstance(default, str):
        raise r.error(f"{key}.default", "expected a part type or none", node=s, field="default")
    limits = None
    if "limits" in s:
        lm = r.mapping(s["limits"], f"{key}.limits", node=s, field="limits")
        r.check_keys(lm, {"lower", "upper", "effort", "velocity"}, f"{key}.limits")
        limits = Limits(r.number(lm, "lower", f"{key}.limits", default=0.0),
                        r.number(lm, "upper", f"{key}.limits", default=0.0),
                        r.number(lm, "effort", f"{key}.limits", default=0.0, nonnegative=True),
                        r.number(lm, "velocity", f"{key}.limits", default=0.0, nonnegative=True))
    return Slot(name=name, xyz=r.vector(s, "xyz", key, default=ZERO3), rpy=r.vector(s, "rpy", key, default=ZERO3),
                accepts=tuple(accepts), default=default,
                joint=r.string(s, "joint", key, choices=JOINT_TYPES),
                collision=r.boolean(s, "collision", key, default=True),
                axis=r.vector(s, "axis", key), limits=limits)


def _geometry(r: Reader, g, key: str, path: Path) -> Geometry:
    g = r.mapping(g, key)
    r.check_keys(g, GEOM_KEYS, key, required=("shape",))
    kind = r.string(g, "shape", key, choices=shapes.SHAPES)
    if kind == "box":
        dims = r.vector(g, "size", key, positive=True, required=True)
    elif kind in ("cylinder", "capsule"):
        dims = (r.number(g, "radius", key, positive=True, required=True),
                r.number(g, "length", key, positive=True, required=True))
    elif kind == "sphere":
        dims = (r.number(g, "radius", key, positive=True, required=True),)
    elif kind == "ellipsoid":
        dims = r.vector(g, "radii", key, positive=True, required=True)
    else:
        f = r.string(g, "file", key, required=True)
        mesh_path = (Path(path).parent / f).resolve()
        if not mesh_path.is_file():
            raise r.error(f"{key}.file", f"mesh file not found: {mesh_path}", node=g, field="file")
        return Geometry(shapes.Shape("mesh", r.vector(g, "scale", key, default=(1.0, 1.0, 1.0), positive=True),
                                     str(mesh_path)), r.vector(g, "xyz", key, default=ZERO3),
                        r.vector(g, "rpy", key, default=ZERO3))
    return Geometry(shapes.Shape(kind, tuple(dims)), r.vector(g, "xyz", key, default=ZERO3),
                    r.vector(g, "rpy", key, default=ZERO3))


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
    if com is not None:
        # the declared CoM: shift the tensor there (parallel axis from the centroid)
        I = spatial.shift_inertia(I, M, C - np.asarray(com))
    return C, I
