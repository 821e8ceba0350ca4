"""The specs figures as rows (label, text) and as a JSON-ready dict.

One source for the ``aurgen specs`` table and the specs comment stamped into
every generated file. Labels follow the reference models where they share a
row ("total mass", "center of mass", "displaced volume", ...).
"""

from __future__ import annotations

import math

from aurgen import __version__
from aurgen.compose.model import Vehicle


def _vec(v, nd=6) -> str:
    return "[" + ", ".join(f"{x:.{nd}f}" for x in v) + "]"


def rows(vehicle: Vehicle, equilibrium=None) -> list[tuple[str, str]]:
    """Human rows of the composed figures; ``equilibrium`` adds the floating rows.

    ``equilibrium`` is the kernel's Equilibrium (draft m, heel/trim rad, gm_t,
    gm_l m) or None (rows left out rather than approximated).
    """
    s = vehicle.specs
    d = vehicle.displacement
    out = [
        ("total mass", f"{s.total_mass:.6f} kg"),
        ("center of mass", f"{_vec(s.com)} m in the root link"),
        ("principal inertia", f"{_vec(s.principal_moments, 6)} kg m^2 about the center of mass"),
        ("displaced volume", f"{s.volume:.6f} m^3 = {s.fluid_mass:.3f} kg of fluid at {s.fluid_density:.10g} kg/m^3"),
        ("center of buoyancy", f"{_vec(s.cob)} m in the root link"),
        ("cob offset", f"{_vec(s.bg)} m from the center of mass (BG vector)"),
    ]
    if d.kind == "buoyancy":
        out.append(("net buoyancy", f"{s.buoyancy_margin:+.4f} kg (declared {d.declared_net_buoyancy:+.4f})"))
        out.append(("declared cob offset", f"{_vec(d.declared_cob_offset)} m from the "
                    f"{'center of mass' if d.cob_frame == 'com' else 'root link origin'}"))
    else:
        out.append(("reserve buoyancy", f"{s.buoyancy_margin:+.3f} kg at full submersion"))
    if d.kind == "mesh":
        out.extend(mesh_rows(d))
    if equilibrium is not None:
        e = equilibrium
        if e.converged:
            if e.status == "neutral":
                out.append(("draft", f"neutral: holds any depth once submerged (awash at {e.draft:.6f} m "
                            "at the root link origin)"))
            else:
                out.append(("draft", f"{e.draft:.6f} m at the root link origin (positive: below the waterline)"))
            out.append(("heel", f"{math.degrees(e.heel):+.4f} deg"))
            out.append(("trim", f"{math.degrees(e.trim):+.4f} deg"))
            out.append(("GM_T", f"{e.gm_t:.6f} m"))
            out.append(("GM_L", f"{e.gm_l:.6f} m"))
        else:
            out.append(("draft", f"none: {e.status}" + (f" ({'; '.join(e.notes)})" if e.notes else "")))
    out.append(("parts", "; ".join(f"{t} ({n})" for t, n in s.parts)))
    derived = derived_inertia(vehicle)
    out.append(("derived inertia", "none: every part states its inertia" if not derived else
                "at uniform density from the part's shapes (catalog: no inertia): "
                + "; ".join(f"{d['name']} ({d['from']})" for d in derived)))
    out.append(("config sha256", vehicle.sha256))
    out.append(("aurgen version", __version__))
    return out


def mesh_rows(d) -> list[tuple[str, str]]:
    """A hull mesh's rows: its convex pieces against the mesh, and Gazebo's fitted boxes against it
    at the design waterline (aurgen.compose.hull_mesh)."""
    h, f = d.hull, d.fit
    dec = f", {h.decomposed} decomposed by CoACD" if h.decomposed else ""
    pieces = (f"{h.source}: {len(h.pieces)} convex pieces in {len(h.bounds)} hulls{dec}; "
              f"{h.pieces_volume:.6f} m^3 against the mesh's {h.volume:.6f} m^3 ({h.volume_error:+.4%})")
    e = f.rows()
    boxes = (f"{len(d.boxes)} boxes ({d.segments} per hull) fitted at z = {f.z:.6f} m in the root link: below it "
             f"{f.boxes_volume:.6f} m^3 at {_vec(f.boxes_cob)} m (mesh {f.mesh_volume:.6f} m^3 at "
             f"{_vec(f.mesh_cob)} m); waterplane area {e['area']:+.2%}, I_T {e['it']:+.2%}, "
             f"I_L {e['il']:+.2%} against the mesh's")
    return [("hull mesh", pieces), ("gazebo boxes", boxes)]


def derived_inertia(vehicle: Vehicle) -> list[dict]:
    """The parts whose catalog entry gives no inertia, so theirs is derived from their collision or
    visual shapes at uniform density (aurgen.config.catalog): [{name, type, from}], link order."""
    return [{"name": link.name, "type": link.part_type, "from": link.inertia_from}
            for link in vehicle.links if link.role == "part" and link.inertia_from]


#: the unit of every number ``aurgen specs --json`` writes, by key (a nested key as ``outer.inner``): SI, angles
#: in radians, "1" a ratio or a count; positions in the root link's frame; written as the output's ``units``
UNITS = {
    "total_mass": "kg", "center_of_mass": "m", "inertia": "kg*m^2", "principal_inertia": "kg*m^2",
    "displaced_volume": "m^3", "fluid_density": "kg/m^3", "fluid_mass": "kg", "center_of_buoyancy": "m",
    "cob_offset": "m", "net_buoyancy": "kg", "declared_net_buoyancy": "kg", "declared_cob_offset": "m",
    "reserve_buoyancy": "kg", "draft": "m", "heel": "rad", "trim": "rad", "gm_t": "m", "gm_l": "m",
    "trim_held.net_buoyancy": "kg", "trim_held.cob_offset": "m", "trim_held.heel": "rad", "trim_held.trim": "rad",
    "as_built_base_link.center_of_buoyancy": "m", "as_built_base_link.payload": "kg",
    "as_built_base_link.payload_at": "m", "as_built_base_link.heel": "rad", "as_built_base_link.trim": "rad",
    "as_built_base_link.net_buoyancy": "kg",
    "hull_mesh.pieces": "1", "hull_mesh.hulls": "1", "hull_mesh.decomposed": "1", "hull_mesh.mesh_volume": "m^3",
    "hull_mesh.pieces_volume": "m^3", "hull_mesh.volume_error": "1",
    "gazebo_boxes.boxes": "1", "gazebo_boxes.per_hull": "1", "gazebo_boxes.waterline_z": "m",
    "gazebo_boxes.mesh_volume": "m^3", "gazebo_boxes.boxes_volume": "m^3", "gazebo_boxes.mesh_cob": "m",
    "gazebo_boxes.boxes_cob": "m", "gazebo_boxes.mesh_area": "m^2", "gazebo_boxes.boxes_area": "m^2",
    "gazebo_boxes.mesh_it": "m^4", "gazebo_boxes.boxes_it": "m^4", "gazebo_boxes.mesh_il": "m^4",
    "gazebo_boxes.boxes_il": "m^4",
}


def _units_of(out: dict) -> dict:
    """:data:`UNITS` of the keys ``out`` holds, in its order."""
    keys = [k for k, v in out.items() if not isinstance(v, dict)]
    keys += [f"{k}.{kk}" for k, v in out.items() if isinstance(v, dict) for kk in v]
    return {k: UNITS[k] for k in keys if k in UNITS}


def as_dict(vehicle: Vehicle, equilibrium=None) -> dict:
    """Full-precision figures for machines (``aurgen specs --json``); ``units`` gives each number's unit
    (:data:`UNITS`)."""
    s = vehicle.specs
    d = vehicle.displacement
    out = {
        "name": vehicle.name,
        "config": vehicle.source,
        "config_sha256": vehicle.sha256,
        "aurgen_version": __version__,
        "total_mass": s.total_mass,
        "center_of_mass": list(s.com),
        "inertia": [list(r) for r in s.inertia],
        "principal_inertia": list(s.principal_moments),
        "displaced_volume": s.volume,
        "fluid_density": s.fluid_density,
        "fluid_mass": s.fluid_mass,
        "center_of_buoyancy": list(s.cob),
        "cob_offset": list(s.bg),
        "displacement": d.kind,
        "parts": [{"type": t, "name": n} for t, n in s.parts],
        "inertia_derived": derived_inertia(vehicle),
    }
    if d.kind == "buoyancy":
        out["net_buoyancy"] = s.buoyancy_margin
        out["declared_net_buoyancy"] = d.declared_net_buoyancy
        out["declared_cob_offset"] = list(d.declared_cob_offset)
        out["cob_frame"] = d.cob_frame
        u = uuv_trim(vehicle)
        if u is not None:
            out["trim_held"], out["as_built_base_link"] = u["held"], u["as_built"]
    else:
        out["reserve_buoyancy"] = s.buoyancy_margin
    if d.kind == "mesh":
        h, f = d.hull, d.fit
        out["hull_mesh"] = {"file": h.source, "pieces": len(h.pieces), "hulls": len(h.bounds),
                            "decomposed": h.decomposed, "mesh_volume": h.volume, "pieces_volume": h.pieces_volume,
                            "volume_error": h.volume_error}
        out["gazebo_boxes"] = {"boxes": len(d.boxes), "per_hull": d.segments, "waterline_z": f.z,
                               "mesh_volume": f.mesh_volume, "boxes_volume": f.boxes_volume,
                               "mesh_cob": list(f.mesh_cob), "boxes_cob": list(f.boxes_cob),
                               "mesh_area": f.mesh_area, "boxes_area": f.boxes_area, "mesh_it": f.mesh_it,
                               "boxes_it": f.boxes_it, "mesh_il": f.mesh_il, "boxes_il": f.boxes_il}
    if equilibrium is not None:
        e = equilibrium
        out["equilibrium_status"] = e.status
        if e.converged:
            out.update(draft=e.draft, heel=e.heel, trim=e.trim, gm_t=e.gm_t, gm_l=e.gm_l)
    out["units"] = _units_of(out)
    return out


PROBE_KG = 1.0  # the payload the as-built trim row adds at the payload slot (kg)


def _payload_point(vehicle: Vehicle):
    """The base link's ``payload`` slot origin (m, base_link); the CoM if it has none."""
    for fr in vehicle.frames:
        if fr.name == f"{vehicle.base}_payload_slot" and fr.link == vehicle.base:
            return [float(c) for c in fr.xyz]
    return [float(c) for c in vehicle.specs.com]


def uuv_trim(vehicle: Vehicle, probe: float = PROBE_KG) -> dict | None:
    """For a UUV whose config declares ``cob_frame: com`` (None otherwise): what the declared trim holds
    fixed, and the trim the same vehicle would take as built, its CoB fixed in the hull.

    ``cob_frame: com`` re-solves the displacement box for every load: volume (m + net)/ρ, centred at
    CoM + ``cob_offset``; so payload never changes net buoyancy or attitude (``held``: the net buoyancy,
    the offset, the attitude it gives). As built (``cob_frame: base_link``, ``cob_offset`` the CoB this
    load gives, fixed in base_link, the volume too), ``probe`` kg more at the payload slot moves the CoM
    to (m G + probe p)/(m + probe): ``as_built`` gives that CoB point, the payload point, heel and trim
    (rad, trim bow down positive: runtime.equilibrium.hanging_attitude of CoB − CoM) and the net buoyancy
    (kg, net − probe)."""
    from aurgen.runtime.hydrostatics.equilibrium import hanging_attitude

    d = vehicle.displacement
    if d.kind != "buoyancy" or d.cob_frame != "com":
        return None
    s = vehicle.specs
    G = [float(c) for c in s.com]
    off = [float(c) for c in d.declared_cob_offset]
    B = [g + o for g, o in zip(G, off)]
    p = _payload_point(vehicle)
    m = float(s.total_mass)
    G2 = [(m * g + probe * q) / (m + probe) for g, q in zip(G, p)]
    h0, t0 = hanging_attitude(off)
    h1, t1 = hanging_attitude([b - g for b, g in zip(B, G2)])
    return {"held": {"net_buoyancy": float(d.declared_net_buoyancy), "cob_offset": off, "heel": h0, "trim": t0},
            "as_built": {"center_of_buoyancy": B, "payload": probe, "payload_at": p, "heel": h1, "trim": t1,
                         "net_buoyancy": float(d.declared_net_buoyancy) - probe}}


def rows_with_trim(vehicle: Vehicle, equilibrium=None) -> list[tuple[str, str]]:
    """:func:`rows` with, before ``parts``, the rows of :func:`uuv_trim` (a UUV with ``cob_frame: com``):
    ``aurgen specs`` and the report; the stamped specs block keeps :func:`rows`."""
    out = rows(vehicle, equilibrium)
    extra = trim_rows(vehicle)
    k = next(i for i, (label, _) in enumerate(out) if label == "parts")
    return out[:k] + extra + out[k:]


def trim_rows(vehicle: Vehicle) -> list[tuple[str, str]]:
    """The rows of :func:`uuv_trim` (none unless a UUV with ``cob_frame: com``)."""
    u = uuv_trim(vehicle)
    if u is None:
        return []
    h, a = u["held"], u["as_built"]
    return [("trim held", f"by cob_frame: com: net buoyancy {h['net_buoyancy']:+.4f} kg and the CoB "
             f"{_vec(h['cob_offset'])} m from the CoM for any load (the displacement box re-solved to each CoM): heel "
             f"{math.degrees(h['heel']):+.4f} deg, trim {math.degrees(h['trim']):+.4f} deg whatever the payload"),
            ("as built", f"with cob_frame: base_link (the CoB fixed in the hull at {_vec(a['center_of_buoyancy'])} m, "
             f"where this load puts it): {a['payload']:g} kg more at the payload point {_vec(a['payload_at'], 3)} m "
             f"gives heel {math.degrees(a['heel']):+.4f} deg, trim {math.degrees(a['trim']):+.4f} deg, "
             f"net buoyancy {a['net_buoyancy']:+.4f} kg")]


def table(rows_: list[tuple[str, str]], indent: str = "  ") -> str:
    """Rows as ``<indent><label>: <value>`` with values aligned."""
    width = max(len(label) for label, _ in rows_) + 2
    return "\n".join(f"{indent}{(label + ':').ljust(width)}{value}" for label, value in rows_)
