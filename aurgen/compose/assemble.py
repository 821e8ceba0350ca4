"""Assembly: expand a vehicle config's slots and placements into a link tree.

Rules (docs/config.md): every slot of every placed instance fills with its
default, recursively, unless an entry names it; ``type: none`` empties it.
An occupant's origin is the slot frame, then the entry's offset, then minus
the part's attach point. Joint: entry, else slot, else continuous for a
propeller, else fixed.
"""

from __future__ import annotations

import re

from dataclasses import dataclass, field

import numpy as np

from aurgen.core import limits as lim
from aurgen.core import spatial
from aurgen.config.catalog import LIMITED_JOINTS, Catalog, Part, Slot
from aurgen.config.vehicle import VehicleConfig
from aurgen.core.errors import AssemblyError, ConfigError, did_you_mean
from aurgen.compose import fit
from aurgen.compose.model import FrameDef, Geom, Joint, Link, Thruster


@dataclass
class Instance:
    """A placed part: link ``name``, its part, and its pose ``T`` in base_link."""

    name: str
    part: Part
    parent: str | None
    T: np.ndarray
    collision: bool


@dataclass
class Assembly:
    """The expanded tree, in placement order (deterministic)."""

    instances: list = field(default_factory=list)
    joints: list = field(default_factory=list)
    frames: list = field(default_factory=list)
    thrusters: list = field(default_factory=list)
    by_name: dict = field(default_factory=dict)
    # instance -> TopicBase, for the instances whose entry sets topic, gz_topic or ros_topic
    topics: dict = field(default_factory=dict)

    def instance(self, name):
        return self.by_name.get(name)


@dataclass(frozen=True)
class TopicBase:
    """An entry's topic keys resolved: the base replacing ``<name>`` in ``/<ns>/<name>/<quantity>`` on the
    Gazebo side (``gz``) and the ROS side (``ros``), None where the default stands; ``key``, ``line``: the entry."""

    gz: str | None
    ros: str | None
    key: str
    line: int | None


def entry_topics(e) -> TopicBase | None:
    """The TopicBase of config entry ``e`` (None when it sets no topic key)."""
    if e is None or (e.topic is None and e.gz_topic is None and e.ros_topic is None):
        return None
    field = "topic" if e.topic is not None else "gz_topic" if e.gz_topic is not None else "ros_topic"
    return TopicBase(e.topic or e.gz_topic, e.topic or e.ros_topic, f"parts[{e.index}].{field}", e.line)


# names of numbered forms aurgen's own elements take (a hull mesh's: as many as the mesh holds)
RESERVED_FORMS = ((re.compile(r"hull_piece_\d+"), "a hull mesh's convex piece"),
                  (re.compile(r"hull_box_\d+_\d+"), "a box fitted to a hull mesh (SDF)"),
                  (re.compile(r"windage_\d+"), "a windage box of a hull mesh"))


def reserved_names(cfg: VehicleConfig) -> dict[str, str]:
    """Names aurgen's own elements take in the generated files (name -> what it is)."""
    out = {"root": "the MJCF free joint", "windage": "the windage link",
           "windage_joint": "the windage link's joint", "displacement": "the solved displacement box"}
    for link in ("hull_displacement", "buoyancy_displacement"):
        out[link] = "a displacement link"
        out[f"{link}_joint"] = "a displacement link's joint"
    if cfg.hull_displacement is not None and hasattr(cfg.hull_displacement, "mesh"):
        pass  # a hull mesh's names are numbered by what the mesh holds: RESERVED_FORMS
    elif cfg.hull_displacement is not None:
        for side in ("port", "stbd"):
            out[f"windage_{side}"] = "a windage box"
            for i in range(cfg.hull_displacement.segments):
                out[f"pontoon_{side}_{i}"] = "a pontoon segment box"
    return out


def assemble(cfg: VehicleConfig, catalog: Catalog) -> Assembly:
    """Expand ``cfg`` against ``catalog``. Raises AssemblyError/ConfigError on misfit.

    Every name the generated files will carry (links, joints, frames and sites,
    geoms, thruster sites, aurgen's own links and boxes) is claimed in one
    namespace, so two sources of one name are refused here, naming both. Linear
    in the number of parts; at most ``limits.MAX_PARTS`` instances.
    """
    out = Assembly()
    # every generated name -> (what it is, where it comes from), for duplicate detection
    names: dict[str, tuple[str, str]] = {n: (what, "aurgen") for n, what in reserved_names(cfg).items()}
    used_entries: set[int] = set()
    used_adhoc: set[int] = set()
    fills: dict[tuple, list] = {}  # (slot, of) -> entries filling it
    for e in cfg.entries:
        if e.slot is not None:
            fills.setdefault((e.slot, e.of or cfg.base_name), []).append(e)
    adhoc_of: dict[str, list] = {}
    for a in cfg.adhoc_slots:
        adhoc_of.setdefault(a.of, []).append(a)
    adhoc_slot = {id(a.slot): a for a in cfg.adhoc_slots}

    def err(entry_line, key, message, hint=None):
        return AssemblyError(cfg.path, key, message, hint, line=entry_line)

    def source(where) -> str:
        wpath, wkey, wline = where
        return f"{wpath}{f':{wline}' if wline else ''}{f': {wkey}' if wkey else ''}"

    def claim(name, what, where):
        for form, taken in RESERVED_FORMS:
            if form.fullmatch(name):
                names.setdefault(name, (taken, "aurgen"))
        if name in names:
            first, first_src = names[name]
            raise err(where[2] if where[0] == cfg.path else None, where[1] if where[0] == cfg.path else None,
                      f"duplicate name '{name}': it is both {first} ({first_src}) and {what} ({source(where)})",
                      "give one of them another 'name:'")
        names[name] = (what, source(where))

    placed_by: dict[str, str] = {}  # instance -> where the config placed it (or placed what carries it)
    filled: dict[str, tuple] = {}  # instance -> (slot, carrier) for a slot's occupant
    config_at: dict[str, tuple] = {}  # instance -> (key, line) of the config entry that placed it or its carrier

    def _long_name(name, slot, inst, entry, where):
        """The error for an occupant whose composed name (carrier_slot) is longer than a name may be."""
        chain, anc = [slot.name], inst.name
        while anc in filled:
            chain.append(filled[anc][0])
            anc = filled[anc][1]
        chain = " -> ".join([f"'{anc}'"] + [f"slot '{s}'" for s in reversed(chain)])
        key, line = ((f"parts[{entry.index}]", entry.line) if entry is not None
                     else config_at.get(inst.name, (None, None)))
        text = (f"the part filling slot '{slot.name}' of '{inst.name}' (slot chain {chain}) would be named "
                f"'{name[:40]}...', {len(name)} characters: a name has at most {lim.NAME_MAX}")
        if entry is not None:
            hint = f"give the entry a name: of at most {lim.NAME_MAX} characters"
        else:
            hint = (f"fill the slot in the config with a named entry, {{slot: {slot.name}, of: {inst.name}, "
                    f"name: <shorter>}} under parts:, or give slot '{slot.name}' in {where[0]} a shorter name")
        return ConfigError(cfg.path, key, text, hint, line=line)
    depth: dict[str, int] = {}  # instance -> parts below the base (a chain of catalog defaults included)

    def place(name, type_name, parent, T, collision, joint_type, axis, limits, topics, where, limits_where,
              filling=None):
        depth[name] = 0 if parent is None else depth.get(parent, 0) + 1
        if depth[name] > lim.MAX_NESTING:  # before the recursion runs out (MJCF nests each body in its parent)
            raise ConfigError(where[0], where[1], f"{type_name!r} would sit {depth[name]} parts deep on "
                              f"the base, more than the {lim.MAX_NESTING} a vehicle may nest",
                              "mount the parts on fewer carriers", line=where[2])
        part = catalog.get(type_name, where=where)
        if topics is not None:
            if not (part.drive is not None or part.sensors or joint_type in ("revolute", "prismatic")):
                raise err(topics.line, topics.key, f"'{name}' ({type_name}) has no topic: it is no propeller, "
                          "carries no sensor and has no revolute or prismatic joint",
                          "remove the key (a nested part's topics are set on its own entry)")
            out.topics[name] = topics
        if len(out.instances) >= lim.MAX_PARTS:
            raise err(where[2], where[1], f"more than {lim.MAX_PARTS} parts in one vehicle",
                      "check for slots that fill themselves with defaults")
        what = f"an instance of {type_name}"
        if filling is not None:
            filled[name] = filling
        config_at[name] = ((where[1], where[2]) if where[0] == cfg.path or parent is None
                           else config_at.get(parent, (None, None)))
        if where[0] == cfg.path:
            placed_by[name] = source(where)
        elif filling is not None:
            # a default: say which slot of which carrier, and the config entry that placed the carrier
            placed_by[name] = placed_by.get(filling[1], "")
            what += (f" filling slot '{filling[0]}' of '{filling[1]}'" +
                     (f", which {placed_by[name]} places" if placed_by[name] else ""))
        claim(name, what, where)
        inst = Instance(name, part, parent, T, collision)
        out.instances.append(inst)
        out.by_name[name] = inst
        if parent is not None:
            if joint_type in LIMITED_JOINTS and limits is None:
                raise err(limits_where[2], limits_where[1], f"'{name}' ({type_name}) has a {joint_type} joint "
                          "but no limits", "add limits: {lower, upper, effort, velocity}, or another joint")
            claim(f"{name}_joint", f"the joint of '{name}'", where)
            T_parent = out.by_name[parent].T
            T_rel = spatial.relative(T_parent, T)
            xyz, rpy = spatial.pose_of(T_rel)
            out.joints.append(Joint(f"{name}_joint", joint_type, parent, name, tuple(xyz), tuple(rpy),
                                    tuple(float(a) for a in axis), limits))
            if part.drive is not None:
                ax = np.asarray(axis, dtype=float)
                ax = ax / spatial.norm(ax)
                claim(f"{name}_thrust", f"the thrust site of '{name}'", where)
                out.thrusters.append(Thruster(name, name, f"{name}_joint", tuple(ax), part.drive,
                                              (topics and topics.gz) or name, (topics and topics.ros) or name))
        if collision:
            for i in range(len(part.collision)):
                claim(f"{name}_collision_{i}", f"a collision geom of '{name}'", where)
        for i in range(len(part.visual)):
            claim(f"{name}_visual_{i}", f"a visual geom of '{name}'", where)
        for fr in part.frames:
            fname = f"{name}_{fr.name}"
            add_frame(fname, f"frame '{fr.name}' of '{name}'", where)
            out.frames.append(FrameDef(fname, name, fr.xyz, fr.rpy))
        slots = list(part.slots)
        for a in adhoc_of.get(name, ()):
            if any(s.name == a.slot.name for s in slots):
                raise err(a.line, f"slots[{a.index}].name", f"'{name}' already has a slot '{a.slot.name}'")
            slots.append(a.slot)
            used_adhoc.add(a.index)
        if parent is None:
            kept.update(s.name for s in slots)
        for slot in slots:
            fill_slot(inst, slot, where)
        return inst

    def add_frame(fname, what, where):
        claim(fname, what, where)
        claim(f"{fname}_joint", f"the URDF joint of {what}", where)

    # names a nested occupant does not take by its slot alone: the base's slot names (their occupants
    # take them, filled or not, so filling one later never renames another part) and every name a
    # config entry gives; the base's are added when the base is placed
    kept: set[str] = {e.name for e in cfg.entries if e.name}

    def occupant_name(inst: Instance, slot: Slot) -> str:
        """The name of the part filling ``slot`` of ``inst`` where no entry names it (docs/config.md):
        ``<carrier>_<slot>`` for a slot marked ``carrier_prefix`` (a component of its carrier: the
        gripper's jaws, gripper_jaw_left); else the slot's name (motor_port; the Ping2 on its mount,
        ping), unless the slot is nested and that name is taken (by a part or frame placed before it, a
        base slot or a config entry's name): then ``<carrier>_<slot>``, so a second carrier composes."""
        if slot.carrier_prefix:
            return f"{inst.name}_{slot.name}"
        if inst.parent is None or (slot.name not in names and slot.name not in kept):
            return slot.name
        return f"{inst.name}_{slot.name}"

    def fill_slot(inst: Instance, slot: Slot, inst_where):
        a = adhoc_slot.get(id(slot))
        slot_where = ((cfg.path, f"slots[{a.index}]", a.line) if a is not None
                      else (catalog.path_of(inst.part.type), f"slots.{slot.name}", None))
        # the slot's frame is <carrier>_<slot>_slot: <carrier>_<slot> is the name of a part that a slot
        # of a nested carrier fills
        fname = f"{inst.name}_{slot.name}_slot"
        add_frame(fname, f"slot '{slot.name}' of '{inst.name}'", slot_where)
        out.frames.append(FrameDef(fname, inst.name, slot.xyz, slot.rpy))
        matches = fills.get((slot.name, inst.name), [])
        if len(matches) > 1:
            raise err(matches[1].line, f"parts[{matches[1].index}].slot",
                      f"slot '{slot.name}' of '{inst.name}' is configured {len(matches)} times",
                      "keep one entry per slot")
        entry = matches[0] if matches else None
        if entry is not None:
            used_entries.add(entry.index)
            type_name = entry.type
            where = (cfg.path, f"parts[{entry.index}].type", entry.line)
        else:
            type_name = slot.default
            where = (slot_where[0], f"{slot_where[1]}.default", slot_where[2])
        if type_name is None:
            return
        if slot.accepts and type_name not in slot.accepts:
            if where[0] == cfg.path:
                raise err(where[2], where[1], f"'{type_name}' does not fit slot '{slot.name}' of '{inst.name}' "
                          f"(accepts [{', '.join(slot.accepts)}])")
            raise ConfigError(where[0], where[1], f"'{type_name}' does not fit slot '{slot.name}' "
                              f"(accepts [{', '.join(slot.accepts)}])", line=where[2])
        if entry is None:
            # a default that is the type of the instance itself or an ancestor nests forever
            anc = inst
            while anc is not None:
                if anc.part.type == type_name:
                    raise ConfigError(where[0], where[1], f"slot '{slot.name}' of '{inst.name}' defaults to "
                                      f"'{type_name}', which is the part it sits on (or one below): the default "
                                      "would nest forever", "make the default none, or another type",
                                      line=where[2])
                anc = out.by_name.get(anc.parent) if anc.parent is not None else None
        part = catalog.get(type_name, where=where)
        T = spatial.matmul(inst.T, spatial.transform(slot.xyz, slot.rpy))
        T_in_slot = spatial.transform(-np.asarray(part.attach))
        if entry is not None and (entry.xyz or entry.rpy):
            T_in_slot = spatial.matmul(spatial.transform(entry.xyz or (0, 0, 0), entry.rpy or (0, 0, 0)), T_in_slot)
        fit.check_tube(slot, inst.name, part, T_in_slot, where, entry)  # a pack in its tube, or refused
        T = spatial.matmul(T, T_in_slot)
        joint = (entry.joint if entry else None) or slot.joint or ("continuous" if part.drive else "fixed")
        axis = (entry.axis if entry else None) or slot.axis or part.axis
        limits = (entry.limits if entry else None) or slot.limits
        collision = inst.collision and slot.collision and (entry.collision if entry else True)
        name = (entry.name if entry else None) or occupant_name(inst, slot)
        if len(name) > lim.NAME_MAX:
            raise _long_name(name, slot, inst, entry, where)
        limits_where = ((cfg.path, f"parts[{entry.index}].limits", entry.line) if entry is not None and
                        (entry.joint or entry.limits) else (slot_where[0], f"{slot_where[1]}.limits", slot_where[2]))
        place(name, type_name, inst.name, T, collision, joint, axis, limits, entry_topics(entry), where,
              limits_where, (slot.name, inst.name))

    def place_free(e):
        parent = e.parent or cfg.base_name
        pinst = out.by_name[parent]
        where = (cfg.path, f"parts[{e.index}].type", e.line)
        part = catalog.get(e.type, where=where)
        T = spatial.matmul(spatial.matmul(pinst.T, spatial.transform(e.xyz, e.rpy or (0, 0, 0))),
                           spatial.transform(-np.asarray(part.attach)))
        joint = e.joint or ("continuous" if part.drive else "fixed")
        place(e.name, e.type, parent, T, pinst.collision and e.collision, joint, e.axis or part.axis, e.limits,
              entry_topics(e), where, (cfg.path, f"parts[{e.index}].limits", e.line))
        used_entries.add(e.index)

    base_where = (cfg.path, "base.type", cfg.base_line)
    place(cfg.base_name, cfg.base_type, None, np.eye(4), cfg.base_collision, "fixed", (1, 0, 0), None, None,
          base_where, base_where)

    # free placements in config order; one whose parent is not placed yet waits for it and is
    # placed as soon as it is (each instance is looked at once: linear)
    waiting: dict[str, list] = {}
    for e in cfg.entries:
        if e.slot is not None or e.type is None:
            continue
        parent = e.parent or cfg.base_name
        if parent not in out.by_name:
            waiting.setdefault(parent, []).append(e)
            continue
        start = len(out.instances)
        place_free(e)
        i = start
        while i < len(out.instances):
            for w in waiting.pop(out.instances[i].name, ()):
                place_free(w)
            i += 1
    if waiting:
        e = min((w for ws in waiting.values() for w in ws), key=lambda w: w.index)
        raise err(e.line, f"parts[{e.index}].parent", f"no instance named '{e.parent}'",
                  did_you_mean(e.parent, list(out.by_name)) or
                  f"known instances: {', '.join(i.name for i in out.instances)}")

    for e in cfg.entries:
        if e.index in used_entries or (e.slot is None and e.type is None):
            continue
        of = e.of or cfg.base_name
        inst = out.instance(of)
        if inst is None:
            raise err(e.line, f"parts[{e.index}].of", f"no instance named '{of}'",
                      did_you_mean(of, list(out.by_name)) or
                      f"known instances: {', '.join(i.name for i in out.instances)}")
        known = [s.name for s in inst.part.slots] + [a.slot.name for a in adhoc_of.get(of, ())]
        raise err(e.line, f"parts[{e.index}].slot", f"unknown slot '{e.slot}' on '{of}' (known: [{', '.join(known)}])",
                  did_you_mean(e.slot, known))
    for a in cfg.adhoc_slots:
        if a.index not in used_adhoc:
            raise err(a.line, f"slots[{a.index}].of", f"no instance named '{a.of}'",
                      did_you_mean(a.of, list(out.by_name)))
    return out


def part_links(asm: Assembly) -> list[Link]:
    """One Link per instance, carrying its part's mass properties and geometry."""
    links = []
    for inst in asm.instances:
        p = inst.part
        cols = tuple(Geom(f"{inst.name}_collision_{i}", g.shape, g.xyz, g.rpy)
                     for i, g in enumerate(p.collision)) if inst.collision else ()
        vis = tuple(Geom(f"{inst.name}_visual_{i}", g.shape, g.xyz, g.rpy, g.rgba) for i, g in enumerate(p.visual))
        links.append(Link(inst.name, p.type, "part", p.mass, p.com, p.inertia, cols, vis, p.inertia_from))
    return links
