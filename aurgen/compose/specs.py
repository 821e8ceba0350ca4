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
    out.append(("config sha256", vehicle.sha256))
    out.append(("aurgen version", __version__))
    return out


def as_dict(vehicle: Vehicle, equilibrium=None) -> dict:
    """Full-precision figures for machines (``aurgen specs --json``)."""
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
    }
    if d.kind == "buoyancy":
        out["net_buoyancy"] = s.buoyancy_margin
        out["declared_net_buoyancy"] = d.declared_net_buoyancy
        out["declared_cob_offset"] = list(d.declared_cob_offset)
        out["cob_frame"] = d.cob_frame
    else:
        out["reserve_buoyancy"] = s.buoyancy_margin
    if equilibrium is not None:
        e = equilibrium
        out["equilibrium_status"] = e.status
        if e.converged:
            out.update(draft=e.draft, heel=e.heel, trim=e.trim, gm_t=e.gm_t, gm_l=e.gm_l)
    return out


def table(rows_: list[tuple[str, str]], indent: str = "  ") -> str:
    """Rows as ``<indent><label>: <value>`` with values aligned."""
    width = max(len(label) for label, _ in rows_) + 2
    return "\n".join(f"{indent}{(label + ':').ljust(width)}{value}" for label, value in rows_)
