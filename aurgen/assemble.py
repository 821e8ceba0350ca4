"""Assembly: expand a vehicle config's slots and placements into a link tree.

Rules (docs/config.md): every slot of every placed instance fills with its
default, recursively, unless an entry names it; ``type: none`` empties it.
An occupant's origin is the slot frame, then the entry's offset, then minus
the part's attach point. Joint: entry, else slot, else continuous for a
propeller, else fixed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import spatial
from .catalog import Catalog, Part, Slot
from .config import VehicleConfig
from .errors import AssemblyError, did_you_mean
from .model import FrameDef, Geom, Joint, Link, Thruster


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

    def instance(self, name):
        for inst in self.instances:
            if inst.name == name:
                return inst
        return None


def assemble(cfg: VehicleConfig, catalog: Catalog) -> Assembly:
    """Expand ``cfg`` against ``catalog``. Raises AssemblyError/ConfigError on misfit."""
    out = Assembly()
    names: dict[str, str] = {}  # every link/frame name → what it is, for duplicate detection
    used_entries: set[int] = set()
    used_adhoc: set[int] = set()

    def err(entry_line, key, message, hint=None):
        return AssemblyError(cfg.path, key, message, hint, line=entry_line)

    def claim(name, what, line, key):
        if name in names:
            raise err(line, key, f"duplicate name '{name}': it is both {names[name]} and {what}",
                      "give one of them another 'name:'")
        names[name] = what

    def place(name, type_name, parent, T, collision, joint_type, axis, limits, topic, where):
        part = catalog.get(type_name, where=where)
        claim(name, f"an instance of {type_name}", where[2], where[1])
        inst = Instance(name, part, parent, T, collision)
        out.instances.append(inst)
        if parent is not None:
            T_parent = out.instance(parent).T
            T_rel = spatial.relative(T_parent, T)
            xyz, rpy = spatial.pose_of(T_rel)
            out.joints.append(Joint(f"{name}_joint", joint_type, parent, name, tuple(xyz), tuple(rpy),
                                    tuple(float(a) for a in axis), limits))
            if part.drive is not None:
                ax = np.asarray(axis, dtype=float)
                ax = ax / spatial.norm(ax)
                ns_topic = topic or name
                out.thrusters.append(Thruster(name, name, f"{name}_joint", tuple(ax), part.drive, ns_topic))
        for fr in part.frames:
            fname = f"{name}_{fr.name}"
            claim(fname, f"frame '{fr.name}' of '{name}'", where[2], where[1])
            out.frames.append(FrameDef(fname, name, fr.xyz, fr.rpy))
        slots = list(part.slots)
        for a in cfg.adhoc_slots:
            if a.of == name:
                if any(s.name == a.slot.name for s in slots):
                    raise err(a.line, f"slots[{a.index}].name", f"'{name}' already has a slot '{a.slot.name}'")
                slots.append(a.slot)
                used_adhoc.add(a.index)
        for slot in slots:
            fill_slot(inst, slot)
        return inst

    def fill_slot(inst: Instance, slot: Slot):
        fname = f"{inst.name}_{slot.name}"
        claim(fname, f"slot '{slot.name}' of '{inst.name}'", None, None)
        out.frames.append(FrameDef(fname, inst.name, slot.xyz, slot.rpy))
        matches = [e for e in cfg.entries if e.slot == slot.name and (e.of or cfg.base_name) == inst.name]
        if len(matches) > 1:
            raise err(matches[1].line, f"parts[{matches[1].index}].slot",
                      f"slot '{slot.name}' of '{inst.name}' is configured {len(matches)} times",
                      "keep one entry per slot")
        entry = matches[0] if matches else None
        if entry is not None:
            used_entries.add(entry.index)
            type_name = entry.type
            key = f"parts[{entry.index}].type"
            where = (cfg.path, key, entry.line)
        else:
            type_name = slot.default
            where = (catalog.path_of(inst.part.type), f"slots.{slot.name}.default", None)
        if type_name is None:
            return
        if slot.accepts and type_name not in slot.accepts:
            raise err(where[2], where[1], f"'{type_name}' does not fit slot '{slot.name}' of '{inst.name}' "
                      f"(accepts [{', '.join(slot.accepts)}])")
        part = catalog.get(type_name, where=where)
        T = spatial.matmul(inst.T, spatial.transform(slot.xyz, slot.rpy))
        if entry is not None and (entry.xyz or entry.rpy):
            T = spatial.matmul(T, spatial.transform(entry.xyz or (0, 0, 0), entry.rpy or (0, 0, 0)))
        T = spatial.matmul(T, spatial.transform(-np.asarray(part.attach)))
        joint = (entry.joint if entry else None) or slot.joint or ("continuous" if part.drive else "fixed")
        axis = (entry.axis if entry else None) or slot.axis or part.axis
        limits = (entry.limits if entry else None) or slot.limits
        collision = inst.collision and slot.collision and (entry.collision if entry else True)
        name = (entry.name if entry else None) or slot.name
        place(name, type_name, inst.name, T, collision, joint, axis, limits, entry.topic if entry else None, where)

    base_where = (cfg.path, "base.type", cfg.base_line)
    place(cfg.base_name, cfg.base_type, None, np.eye(4), cfg.base_collision, "fixed", (1, 0, 0), None, None,
          base_where)

    # free placements, in config order, as their parents appear
    pending = [e for e in cfg.entries if e.slot is None and e.type is not None]
    while pending:
        progress = False
        for e in list(pending):
            parent = e.parent or cfg.base_name
            pinst = out.instance(parent)
            if pinst is None:
                continue
            part = catalog.get(e.type, where=(cfg.path, f"parts[{e.index}].type", e.line))
            T = spatial.matmul(spatial.matmul(pinst.T, spatial.transform(e.xyz, e.rpy or (0, 0, 0))),
                           spatial.transform(-np.asarray(part.attach)))
            joint = e.joint or ("continuous" if part.drive else "fixed")
            place(e.name, e.type, parent, T, pinst.collision and e.collision, joint, e.axis or part.axis, e.limits,
                  e.topic, (cfg.path, f"parts[{e.index}].type", e.line))
            used_entries.add(e.index)
            pending.remove(e)
            progress = True
        if not progress:
            e = pending[0]
            raise err(e.line, f"parts[{e.index}].parent", f"no instance named '{e.parent}'",
                      did_you_mean(e.parent, [i.name for i in out.instances]) or
                      f"known instances: {', '.join(i.name for i in out.instances)}")

    for e in cfg.entries:
        if e.index in used_entries or (e.slot is None and e.type is None):
            continue
        of = e.of or cfg.base_name
        inst = out.instance(of)
        if inst is None:
            raise err(e.line, f"parts[{e.index}].of", f"no instance named '{of}'",
                      did_you_mean(of, [i.name for i in out.instances]) or
                      f"known instances: {', '.join(i.name for i in out.instances)}")
        known = [s.name for s in inst.part.slots] + [a.slot.name for a in cfg.adhoc_slots if a.of == of]
        raise err(e.line, f"parts[{e.index}].slot", f"unknown slot '{e.slot}' on '{of}' (known: [{', '.join(known)}])",
                  did_you_mean(e.slot, known))
    for a in cfg.adhoc_slots:
        if a.index not in used_adhoc:
            raise err(a.line, f"slots[{a.index}].of", f"no instance named '{a.of}'",
                      did_you_mean(a.of, [i.name for i in out.instances]))
    return out


def part_links(asm: Assembly) -> list[Link]:
    """One Link per instance, carrying its part's mass properties and geometry."""
    links = []
    for inst in asm.instances:
        p = inst.part
        cols = tuple(Geom(f"{inst.name}_collision_{i}", g.shape, g.xyz, g.rpy)
                     for i, g in enumerate(p.collision)) if inst.collision else ()
        vis = tuple(Geom(f"{inst.name}_visual_{i}", g.shape, g.xyz, g.rpy) for i, g in enumerate(p.visual))
        links.append(Link(inst.name, p.type, "part", p.mass, p.com, p.inertia, cols, vis))
    return links
