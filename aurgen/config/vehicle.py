"""Vehicle configs (``vehicles/<name>.yaml``): load and validate.

A vehicle config declares *what is fitted* and *what displaces*; it never
declares mass (that comes from the catalog). See docs/config.md.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from aurgen.core import limits as lim
from aurgen.config import autopilot
from aurgen.config.bridge import extra_bridge_topics
from aurgen.config.catalog import JOINT_TYPES, SLOT_KEYS, Limits, Slot, joint_limits, slot_fields
from aurgen.core.errors import ConfigError
from aurgen.core.records import record
from aurgen.core.resources import data_dir
from aurgen.core.yamlio import Mapping, Reader, load

TOP_KEYS = {"name", "description", "topic_namespace", "base", "parts", "slots", "hull_displacement",
            "buoyancy", "hydrodynamics", "openings", "extra_bridge_topics", "ardupilot"}
OPENING_KEYS = {"name", "link", "xyz"}
ENTRY_KEYS = {"slot", "of", "type", "name", "xyz", "rpy", "joint", "axis", "collision", "parent", "limits",
              "topic", "gz_topic", "ros_topic"}
MASS_KEYS = {"mass", "com", "inertia", "total_mass"}
_DOF = "UVWPQR"
_FORCE = "xyzkmn"
HYDRO_RE = re.compile(r"^([xyzkmn])(Dot)?([UVWPQR])(?:abs([UVWPQR]))?$")


@record
class Entry:
    """One ``parts:`` entry: a slot fill (``slot`` set) or a free placement."""

    index: int
    line: int | None
    slot: str | None
    of: str | None
    type: str | None  # None: the slot is left empty (type: none)
    name: str | None
    xyz: tuple | None
    rpy: tuple | None
    joint: str | None
    axis: tuple | None
    collision: bool
    parent: str | None
    limits: Limits | None
    topic: str | None  # the base of the part's topics, both sides of the bridge (docs/config.md, topics)
    gz_topic: str | None = None  # the base on the Gazebo side only
    ros_topic: str | None = None  # the base on the ROS side only


@record
class AdHocSlot:
    """A ``slots:`` entry: a slot added to instance ``of``."""

    index: int
    line: int | None
    of: str
    slot: Slot


@record
class HullDisplacement:
    """USV pontoons: two rows (port +y, starboard −y) of ``segments`` boxes, m."""

    length: float
    width: float
    height: float
    x: float
    y: float
    z: float
    segments: int
    fluid_density: float = 1025.0


@record
class MeshHullDisplacement:
    """A USV hull declared as a mesh (docs/config.md ``hull_displacement: {mesh: ...}``).

    ``mesh``: the absolute path of a watertight .stl/.obj file inside the config's folder; placed
    in base_link by ``xyz`` (m), ``rpy`` (rad) after ``scale``; ``segments``: Gazebo's boxes per
    hull (stations along x); ``max_volume_error``: the bound on the convex pieces' volume against
    the mesh's (a concave hull is decomposed), a fraction.
    """

    mesh: str
    xyz: tuple
    rpy: tuple
    scale: tuple
    segments: int
    fluid_density: float = 1025.0
    max_volume_error: float = 0.005


@record
class Buoyancy:
    """UUV declared trim: net buoyancy kg (+ floats), CoB offset m, density kg/m³, footprint m."""

    net_buoyancy: float
    cob_offset: tuple
    cob_frame: str
    fluid_density: float
    footprint: tuple


@record
class VehicleConfig:
    path: str
    name: str
    namespace: str
    description: str
    base_type: str
    base_name: str
    base_collision: bool
    base_line: int | None
    entries: tuple
    adhoc_slots: tuple
    hull_displacement: HullDisplacement | MeshHullDisplacement | None
    buoyancy: Buoyancy | None
    hydrodynamics: tuple  # ((name, value), ...) sorted by name
    sha256: str
    openings: tuple = ()  # Opening, in file order
    extra_bridge: tuple = ()  # aurgen.config.bridge.ExtraBridge, in file order
    ardupilot: bool = False  # the SDF carries ardupilot_gazebo's ArduPilotPlugin (aurgen.emit.ardupilot)
    ardupilot_instance: int = 0  # sim_vehicle.py -I N: UDP ports 9002 + 10·N, video 5600 + 10·N + k


@record
class Opening:
    """A downflooding point (hatch, vent): ``xyz`` m in the frame of link ``link`` (None: the base link);
    ``index`` and ``line`` name its entry in ``openings:`` for messages."""

    index: int
    line: int | None
    name: str
    link: str | None
    xyz: tuple


def resolve_config_path(name: str | Path, kind: str = "vehicles") -> Path:
    """Find a config: as given, in the current directory, then ./<kind>/, then bundled.

    A bare name may omit ``.yaml``; one found locally that hides a bundled config of the same
    name is noted once on stderr.
    """
    p = Path(name)
    if p.name in ("", ".", "..") or "\0" in str(name):  # '' is Path('.'): no file name to look for
        raise ConfigError(repr(str(name)), None, "is not a config file name",
                          f"give a .yaml file or the name of a config in ./{kind}/")
    candidates = [p]
    if p.suffix == "":
        candidates.append(p.with_suffix(".yaml"))
    if not p.is_absolute() and len(p.parts) == 1:
        for base in (Path.cwd() / kind, data_dir(kind)):
            candidates.append(base / p.name)
            if p.suffix == "":
                candidates.append(base / (p.name + ".yaml"))
    bare = not p.is_absolute() and len(p.parts) == 1
    for c in candidates:
        if c.is_file():
            if bare:
                _note_hidden(c, kind)
            return c.resolve()
    raise ConfigError(p, None, "config file not found",
                      f"looked in the current directory, ./{kind}/ and the bundled {kind}")


_NOTED: set = set()  # the hidden bundled configs already named in this process


def _note_hidden(found: Path, kind: str) -> None:
    """A local config that hides a bundled one of the same name: said once per process on stderr
    (``aurgen: note: ./vehicles/blueboat.yaml hides the bundled blueboat.yaml``) when the two differ;
    a user's edited copy silently replaced the bundled vehicle before."""
    import os
    import sys

    bundled = data_dir(kind)
    try:
        if found.resolve().parent == bundled.resolve() or not (bundled / found.name).is_file():
            return
        if found.read_bytes() == (bundled / found.name).read_bytes():
            return  # the same config (a clone's ./vehicles/ is the bundled one's source): nothing hidden
        shown = os.path.relpath(found.resolve())
    except (OSError, ValueError):
        return
    if shown.startswith(".."):
        shown = str(found.resolve())
    elif not shown.startswith("."):
        shown = f"./{shown}"
    if (shown, kind) not in _NOTED:
        _NOTED.add((shown, kind))
        print(f"aurgen: note: {shown} hides the bundled {found.name}", file=sys.stderr)


def bundled_config(name: str, kind: str = "vehicles") -> Path:
    """The bundled config ``name`` (``.yaml`` optional), never a local one (the gym environments and
    the bundled sweeps use these unless given another)."""
    p = data_dir(kind) / (name if name.endswith((".yaml", ".yml")) else f"{name}.yaml")
    if not p.is_file():
        raise ConfigError(p, None, f"no bundled {kind[:-1]} config {name!r}", "name a bundled config or give a path")
    return p.resolve()


def sweep_base_path(sweep_path: Path, vehicle: str) -> Path:
    """The base config of the sweep file ``sweep_path`` whose ``vehicle:`` is ``vehicle``: a file of
    that name beside the sweep, the bundled vehicle for a bundled sweep, else as ``aurgen build``
    finds it (``aurgen sweep``, and ``aurgen audit`` of its outputs). ConfigError when not found."""
    sweep_path = Path(sweep_path)
    beside = sweep_path.parent / vehicle
    if beside.is_file():
        return beside.resolve()
    if sweep_path.parent.resolve() == data_dir("sweeps").resolve() and len(Path(vehicle).parts) == 1:
        return bundled_config(vehicle)  # a bundled sweep sweeps the bundled vehicle, never a local copy
    return resolve_config_path(vehicle)


def locate_config(name: str, kind: str = "vehicles", given=()) -> Path | None:
    """The config a generated file's header names by file ``name``.

    A ``given`` path (``aurgen audit --config``) with that file name wins; else the bare name
    resolves as it does for ``aurgen build`` (``./``, ``./<kind>/``, the bundled ``<kind>``).
    None when neither finds it. ``name`` is a file name, never a path. (The header's sha256
    then says whether the file is stale against it.)
    """
    if not name or name in (".", "..") or "/" in name or "\\" in name or "\0" in name:
        return None
    for g in given:
        if Path(g).name == name and Path(g).is_file():
            return Path(g).resolve()
    try:
        return resolve_config_path(name, kind)
    except ConfigError:
        return None


def load_vehicle(path: str | Path) -> VehicleConfig:
    """Read and validate a vehicle config. Raises ConfigError naming file/key/line."""
    path = resolve_config_path(path)
    return vehicle_from_mapping(load(path), path, hashlib.sha256(path.read_bytes()).hexdigest())


def vehicle_from_mapping(data, path: str | Path, sha256: str | None = None) -> VehicleConfig:
    """Validate a vehicle config given as a mapping (``aurgen sweep`` builds its variants in memory).

    ``path`` names the config in messages and is the default ``name`` (its stem); it is never
    read. ``sha256`` defaults to that of the mapping's canonical JSON. Same rules, same errors
    as :func:`load_vehicle`; a mapping from :func:`aurgen.core.yamlio.load` keeps its line numbers.
    """
    path = Path(path)
    r = Reader(path)
    if not isinstance(data, dict):
        raise r.error(None, f"expected a mapping at the top level, got {type(data).__name__}")
    if sha256 is None:
        import json

        sha256 = hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()
    data = _lined(data)
    for k in data:
        if k in MASS_KEYS:
            raise r.error(str(k), f"'{k}' cannot be declared at the assembly: the vehicle's mass, CoM and "
                          "inertia are derived from its parts", "set a part's mass in its catalog entry "
                          "(vehicles/parts/<type>.yaml), or fit a ballast part", node=data, field=k)
    r.check_keys(data, TOP_KEYS, "", required=("base",))
    if "name" not in data and lim.bad_name(path.stem):
        raise r.error("name", f"no name: given, and the file name {path.stem!r} is not a name "
                      f"({lim.NAME_PATTERN}, at most {lim.NAME_MAX} characters)",
                      "add 'name: <a name>' to the config", node=data)
    name = r.name(data, "name", "", default=path.stem)
    if name.lower() in lim.RESERVED_NAMES:
        given = "name" in data
        raise r.error("name", f"{name!r} is reserved: aurgen's output tree has a {name.lower()}/ folder of its own "
                      f"beside the vehicles' ({', '.join(lim.RESERVED_NAMES)})",
                      "give the vehicle another name" + ("" if given else " with 'name: <a name>' (it is the file's "
                                                                           "name now)"), node=data, field="name")
    base = r.mapping(data["base"], "base", node=data, field="base")
    for k in base:
        if k in MASS_KEYS:
            raise r.error(f"base.{k}", f"'{k}' cannot be declared at the assembly",
                          "set it in the part's catalog entry (vehicles/parts/<type>.yaml)", node=base, field=k)
    r.check_keys(base, {"type", "name", "collision"}, "base", required=("type",))
    for field in ("parts", "slots"):
        if len(r.sequence(data, field, "")) > lim.MAX_PARTS:
            raise r.error(field, f"{len(data[field])} entries: more than the {lim.MAX_PARTS} a vehicle may have",
                          node=data, field=field)
    entries = tuple(_entry(r, i, e) for i, e in enumerate(r.sequence(data, "parts", "")))
    adhoc = tuple(_adhoc(r, i, s) for i, s in enumerate(r.sequence(data, "slots", "")))
    _check_nesting(r, entries, r.name(base, "name", "base", default="base_link"), data.get("parts"))
    hull = _hull(r, data["hull_displacement"], data) if "hull_displacement" in data else None
    buoy = _buoyancy(r, data["buoyancy"], data) if "buoyancy" in data else None
    if hull and buoy:
        raise r.error("buoyancy", "a vehicle declares either hull_displacement (a surface vessel) or buoyancy "
                      "(an underwater vehicle), not both", node=data, field="buoyancy")
    if not hull and not buoy:
        raise r.error("hull_displacement", "no displacement declared",
                      "declare hull_displacement (USV pontoons) or buoyancy (UUV trim)", node=data)
    hydro = _hydro(r, data.get("hydrodynamics"), data) if "hydrodynamics" in data else ()
    openings = _openings(r, data)
    namespace = r.topic(data, "topic_namespace", "", default=name)
    ardupilot, instance = autopilot.config_key(r, data)
    return VehicleConfig(
        path=str(path), name=name, namespace=namespace,
        description=str(data.get("description", "")),
        base_type=r.name(base, "type", "base", required=True, part_type=True), base_name=r.name(base, "name", "base",
                                                                                  default="base_link"),
        base_collision=r.boolean(base, "collision", "base", default=True),
        base_line=getattr(data, "lines", {}).get("base"),
        entries=entries, adhoc_slots=adhoc, hull_displacement=hull, buoyancy=buoy, hydrodynamics=hydro,
        sha256=sha256, openings=openings, extra_bridge=extra_bridge_topics(r, data, namespace),
        ardupilot=ardupilot, ardupilot_instance=instance)


def _check_nesting(r: Reader, entries, base: str, nodes) -> None:
    """No entry more than ``MAX_NESTING`` links below the base (a chain of parts on parts): its
    instance's parent is ``of`` (a slot fill) or ``parent``, named as assembly names it. Iterative:
    a chain of any length is measured, never recursed through (a cycle is assembly's to report)."""
    parent_of = {}
    for e in entries:
        up = (e.of if e.slot is not None else e.parent) or base
        # an unnamed nested fill is named by its slot, or <carrier>_<slot> (the catalog's carrier_prefix, or
        # the slot's name taken: compose.assemble decides): either may be what a later `of:` names
        for name in ((e.name,) if e.name else (e.slot,) if up == base else (e.slot, f"{up}_{e.slot}")):
            parent_of.setdefault(name, up)
    depth: dict = {base: 0}
    for e in entries:
        chain, node = [], (e.of if e.slot is not None else e.parent) or base
        while node not in depth and node in parent_of and node not in chain:
            chain.append(node)
            node = parent_of[node]
        d = depth.get(node, 1)  # an instance no entry names: a catalog default, one below the base
        for n in reversed(chain):
            d += 1
            depth[n] = d
        if d + 1 > lim.MAX_NESTING:
            field = "of" if e.slot is not None else "parent"
            raise r.error(f"parts[{e.index}].{field}", f"this part would sit {d + 1} parts deep on the base, more than "
                          f"the {lim.MAX_NESTING} a vehicle may nest", "mount the parts on fewer carriers",
                          node=nodes[e.index] if isinstance(nodes, list) else None, field=field)


def _lined(node):
    """``node`` with every plain dict made a yamlio Mapping without lines (an in-memory config)."""
    if isinstance(node, dict):
        out = Mapping((k, _lined(v)) for k, v in node.items())
        out.line, out.lines = getattr(node, "line", None), dict(getattr(node, "lines", {}))
        return out
    if isinstance(node, list):
        return [_lined(v) for v in node]
    return node


def _entry(r: Reader, i: int, e) -> Entry:
    key = f"parts[{i}]"
    e = r.mapping(e, key)
    for k in e:
        if k in MASS_KEYS:
            raise r.error(f"{key}.{k}", f"'{k}' cannot be declared at the assembly: a part's mass comes from "
                          "its catalog entry", "edit vehicles/parts/<type>.yaml, or fit a ballast part",
                          node=e, field=k)
    r.check_keys(e, ENTRY_KEYS, key)
    slot = r.name(e, "slot", key)
    if "type" not in e:
        raise r.error(f"{key}.type", "required key is missing", "name a part type, or 'none' to leave a slot empty",
                      node=e)
    typ = None if e["type"] == "none" else r.name(e, "type", key, part_type=True)
    limits = joint_limits(r, e, key)
    if slot is None:
        if "of" in e:
            raise r.error(f"{key}.of", "'of' belongs to a slot fill; a free placement names its 'parent'",
                          "add 'slot:' or rename 'of' to 'parent'", node=e, field="of")
        if typ is not None and ("name" not in e or "xyz" not in e):
            raise r.error(key, f"free placed part '{typ}' needs name and xyz (or a slot)", node=e)
    return Entry(index=i, line=e.line, slot=slot, of=r.name(e, "of", key), type=typ, name=r.name(e, "name", key),
                 xyz=r.vector(e, "xyz", key, magnitude=lim.LENGTH_MAX),
                 rpy=r.vector(e, "rpy", key, magnitude=lim.ANGLE_MAX),
                 joint=r.string(e, "joint", key, choices=JOINT_TYPES),
                 axis=r.vector(e, "axis", key, magnitude=lim.NUMBER_MAX, nonzero=True),
                 collision=r.boolean(e, "collision", key, default=True), parent=r.name(e, "parent", key),
                 limits=limits, **_topics(r, e, key))


def _topics(r: Reader, e, key: str) -> dict:
    """An entry's topic keys: ``topic`` (both sides) or ``gz_topic`` / ``ros_topic`` (one side each); a
    leading '/' makes one absolute (no namespace). ``topic`` with either side key is refused, as
    ros_gz_bridge refuses ``topic_name`` with ``gz_topic_name`` or ``ros_topic_name``."""
    for side in ("gz_topic", "ros_topic"):
        if "topic" in e and side in e:
            raise r.error(f"{key}.{side}", f"'topic' and '{side}' are mutually exclusive",
                          "write 'topic' for both sides of the bridge, or 'gz_topic' and/or 'ros_topic'",
                          node=e, field=side)
    return {k: r.topic(e, k, key, absolute=True) for k in ("topic", "gz_topic", "ros_topic")}


def _adhoc(r: Reader, i: int, s) -> AdHocSlot:
    key = f"slots[{i}]"
    s = r.mapping(s, key)
    r.check_keys(s, SLOT_KEYS | {"of", "name"}, key, required=("of", "name"))
    slot = slot_fields(r, s, key, r.name(s, "name", key, required=True))
    return AdHocSlot(index=i, line=s.line, of=r.name(s, "of", key, required=True), slot=slot)


def _segments(r: Reader, h, key: str) -> int:
    seg = h["segments"]
    if isinstance(seg, bool) or not isinstance(seg, int):
        raise r.error(f"{key}.segments", f"expected a whole number of boxes per pontoon, got {seg!r}",
                      node=h, field="segments")
    if not 1 <= seg <= lim.MAX_SEGMENTS:
        raise r.error(f"{key}.segments", f"must be at least 1 and at most {lim.MAX_SEGMENTS}, got {seg}",
                      node=h, field="segments")
    return seg


MESH_HULL_KEYS = {"mesh", "xyz", "rpy", "scale", "segments", "fluid_density", "max_volume_error"}


def _mesh_hull(r: Reader, h, path) -> MeshHullDisplacement:
    from aurgen.config.meshfile import mesh_file

    key = "hull_displacement"
    r.check_keys(h, MESH_HULL_KEYS, key, required=("mesh", "segments"))
    return MeshHullDisplacement(
        mesh=str(mesh_file(r, h, key, path, field="mesh", what="vehicle config")),
        xyz=r.vector(h, "xyz", key, default=(0.0, 0.0, 0.0), magnitude=lim.LENGTH_MAX),
        rpy=r.vector(h, "rpy", key, default=(0.0, 0.0, 0.0), magnitude=lim.ANGLE_MAX),
        scale=r.vector(h, "scale", key, default=(1.0, 1.0, 1.0), positive=True, magnitude=lim.LENGTH_MAX),
        segments=_segments(r, h, key),
        fluid_density=r.number(h, "fluid_density", key, default=1025.0, positive=True,
                               at_least=lim.DENSITY_MIN, at_most=lim.DENSITY_MAX),
        max_volume_error=r.number(h, "max_volume_error", key, default=0.005, positive=True, at_most=0.05))


def _hull(r: Reader, h, data) -> HullDisplacement | MeshHullDisplacement:
    key = "hull_displacement"
    h = r.mapping(h, key, node=data, field=key)
    if "mesh" in h:
        return _mesh_hull(r, h, r.path)
    r.check_keys(h, {"length", "width", "height", "x", "y", "z", "segments", "fluid_density"}, key,
                 required=("length", "width", "height", "y", "z", "segments"))
    seg = _segments(r, h, key)
    size = dict(positive=True, required=True, at_least=lim.SIZE_MIN, magnitude=lim.LENGTH_MAX)
    out = HullDisplacement(
        length=r.number(h, "length", key, **size), width=r.number(h, "width", key, **size),
        height=r.number(h, "height", key, **size),
        x=r.number(h, "x", key, default=0.0, magnitude=lim.LENGTH_MAX),
        y=r.number(h, "y", key, required=True, magnitude=lim.LENGTH_MAX),
        z=r.number(h, "z", key, required=True, magnitude=lim.LENGTH_MAX), segments=seg,
        fluid_density=r.number(h, "fluid_density", key, default=1025.0, positive=True,
                               at_least=lim.DENSITY_MIN, at_most=lim.DENSITY_MAX))
    if out.y < out.width / 2:
        raise r.error(f"{key}.y", f"the pontoons overlap: their centrelines are at y = +/-{out.y:g} m, closer "
                      f"than half their width ({out.width:g} m / 2)",
                      "y is the distance of each pontoon's centreline from the centreline (port at +y), "
                      "at least width/2", node=h, field="y")
    return out


def _buoyancy(r: Reader, b, data) -> Buoyancy:
    key = "buoyancy"
    b = r.mapping(b, key, node=data, field=key)
    r.check_keys(b, {"net_buoyancy", "cob_offset", "cob_frame", "fluid_density", "footprint"}, key)
    return Buoyancy(
        net_buoyancy=r.number(b, "net_buoyancy", key, default=0.0, magnitude=lim.MASS_MAX),
        cob_offset=r.vector(b, "cob_offset", key, default=(0.0, 0.0, 0.046), magnitude=lim.LENGTH_MAX),
        cob_frame=r.string(b, "cob_frame", key, default="com", choices=("com", "base_link")),
        fluid_density=r.number(b, "fluid_density", key, default=1025.0, positive=True,
                               at_least=lim.DENSITY_MIN, at_most=lim.DENSITY_MAX),
        footprint=r.vector(b, "footprint", key, n=2, default=(0.457, 0.338), positive=True,
                           at_least=lim.SIZE_MIN, magnitude=lim.LENGTH_MAX))


def _openings(r: Reader, data) -> tuple:
    """``openings:``: a list of {name, link (default the base link), xyz m in that link's frame}."""
    out, seen = [], {}
    items = r.sequence(data, "openings", "")
    if len(items) > lim.MAX_PARTS:
        raise r.error("openings", f"{len(items)} entries: more than the {lim.MAX_PARTS} a vehicle may have",
                      node=data, field="openings")
    for i, o in enumerate(items):
        key = f"openings[{i}]"
        o = r.mapping(o, key, node=data, field="openings")
        r.check_keys(o, OPENING_KEYS, key, required=("name", "xyz"))
        name = r.name(o, "name", key, required=True)
        if name in seen:
            raise r.error(f"{key}.name", f"opening {name!r} is declared twice (also openings[{seen[name]}])",
                          "give each opening its own name", node=o, field="name")
        seen[name] = i
        out.append(Opening(index=i, line=getattr(o, "line", None), name=name, link=r.name(o, "link", key),
                           xyz=r.vector(o, "xyz", key, required=True, magnitude=lim.LENGTH_MAX)))
    return tuple(out)


def _hydro(r: Reader, h, data) -> tuple:
    key = "hydrodynamics"
    if h is None:
        return ()
    h = r.mapping(h, key, node=data, field=key)
    out = []
    for k in h:
        m = HYDRO_RE.match(str(k))
        if not m or (m.group(2) and m.group(4)):
            names = [f"{f}{d}" for f in _FORCE for d in _DOF] + [f"{f}Dot{d}" for f in _FORCE for d in _DOF] + \
                    [f"{f}{d}abs{d}" for f in _FORCE for d in _DOF]
            from aurgen.core.errors import did_you_mean
            raise r.error(f"{key}.{k}", "unknown hydrodynamic coefficient",
                          did_you_mean(str(k), names) or "Fossen names: xU (linear), xUabsU (quadratic), "
                          "xDotU (added mass); force x,y,z,k,m,n by velocity U,V,W,P,Q,R", node=h, field=k)
        out.append((str(k), r.number(h, k, key, magnitude=lim.NUMBER_MAX)))
    return tuple(sorted(out))
