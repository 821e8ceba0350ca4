"""``aurgen report``: a stability and trim report directory (report.md + PNG figures).

The numbers come from :mod:`aurgen.analysis.report_compute` (on
:mod:`aurgen.analysis.stability`, the hydrostatics kernel); this module only
writes: report.md's text (:func:`headline`, :func:`markdown`) and the directory,
with the figures of :mod:`aurgen.analysis.report_figures` (matplotlib's Agg
backend; they carry units, the vehicle name and the config hash). The directory
is built in a temp directory beside the target and renamed into place, so a
failed report never leaves half a directory behind.
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

import numpy as np

from aurgen import __version__
from aurgen.analysis import payload as pl
from aurgen.analysis.report_compute import Progress, Report, compute
from aurgen.analysis.report_figures import fig_criteria, fig_decay, fig_gz, fig_load, fig_mass
from aurgen.compose import specs as specs_mod
from aurgen.compose.resolve import resolve
from aurgen.core import seal
from aurgen.core.files import check_dir, write_set
from aurgen.core.outdir import preflight


# --------------------------------------------------------------------------- text


def _deg(a) -> str:
    return "—" if a is None or not math.isfinite(a) else f"{math.degrees(a):.2f}°"


def _basis(c) -> str:
    """'free trim' (heel curve) / 'free heel' (trim curve), or 'trim held' / 'heel held' past a fold."""
    other = "trim" if c.axis == "heel" else "heel"
    return f"free {other}" if c.free_trim else f"{other} held"


def _fold(c) -> str:
    """' (<other> held: its free branch ends at X°)' when the curve is held from upright, else ''."""
    other = "trim" if c.axis == "heel" else "heel"
    return "" if c.fold is None else f" ({other} held: the free-{other} branch ends at {_deg(c.fold)})"


def _free(c) -> str:
    """The curve's free angle: 'trim' (heel curve) or 'heel' (trim curve)."""
    return "trim" if c.axis == "heel" else "heel"


def end_text(c) -> str | None:
    """Where the curve ends and why (``GZCurve.end``), or None."""
    e, free = c.end, _free(c)
    if e is None:
        return None
    if e.kind == "fold":
        return (f"a fold at {_deg(e.at)}: the stable free-{free} branch continuous with upright ends there ({free} "
                f"{_deg(e.trim)}, GZ {e.gz:+.4f} m; its root meets an unstable one and vanishes, and past it the body "
                f"turns away in {free}, not by a loss of {c.axis} stability)")
    return (f"{_deg(e.at)}: the free {free} passes {math.degrees(e.trim):+.0f}° (GZ {e.gz:+.4f} m; the vehicle "
            f"{'lies on its side' if free == 'heel' else 'stands on its end'}, where a {c.axis} angle means nothing)")


def vanishing_text(c) -> str:
    """The vanishing angle as printed: the curve's, or where it ends first, none on it and the held curve's named."""
    if c.avs is not None or c.end is None:
        return (_deg(c.avs) if c.avs is not None else "none up to 180°") + _fold(c)
    free, e = _free(c), c.end
    where = f"a fold at {_deg(e.at)}" if e.kind == "fold" else f"{_deg(e.at)}, where the {free} passes ±90°"
    held = _deg(c.avs_held) if c.avs_held is not None else "none up to 180°"
    return f"none on the free-{free} curve (it ends at {where}); {free} held at {_deg(c.held_angle)}: {held}"


def curve_json(c) -> dict:
    """A righting-arm curve's figures as JSON values (angles in degrees, lengths m; None where there is none)."""
    deg = lambda x: None if x is None or not math.isfinite(x) else math.degrees(x)  # noqa: E731
    e = c.end
    return {"basis": "submerged" if c.submerged else _basis(c), "gm_m": c.gm if math.isfinite(c.gm) else None,
            "max_gz_m": c.max_gz, "angle_max_gz_deg": deg(c.angle_max_gz), "avs_deg": deg(c.avs),
            "area_30_m_rad": c.area_30, "area_40_m_rad": c.area_40, "fold_deg": deg(c.fold),
            "end": None if e is None else {"angle_deg": deg(e.at), "kind": e.kind, "free_angle_deg": deg(e.trim),
                                           "gz_m": e.gz, "text": end_text(c)},
            "held": _free(c) if e is not None else None, "held_angle_deg": deg(c.held_angle),
            "avs_held_deg": deg(c.avs_held), "vanishing_stability": vanishing_text(c)}


def _basis_sentence(c) -> str:
    """report.md's opening sentence of a floating curve: on what basis it is computed, and where it ends."""
    free = _free(c)
    if not c.free_trim:
        return ("Free-floating at constant displacement, the other angle held at the equilibrium's: its stable "
                f"branch followed from upright ends at {_deg(c.fold)}, and the free curve falls through zero only "
                "there or ends before 40° (see the note). GZ > 0 rights.")
    if c.end is None:
        return "Free-floating at constant displacement, the other angle free. GZ > 0 rights."
    where = (f"a fold at {_deg(c.end.at)}" if c.end.kind == "fold" else
             f"{_deg(c.end.at)}, where the {free} passes ±90°")
    return (f"Free-floating at constant displacement, the other angle free on its stable branch continuous with "
            f"upright: the free-{free} curve ends at {where}, and nothing is read off past it (the figure draws "
            f"the curve with the {free} held at the equilibrium's beside it, for its vanishing angle). GZ > 0 rights.")


def headline(rep: Report) -> list[tuple[str, str]]:
    """The headline rows printed by the CLI and opening report.md."""
    v, c = rep.vehicle, rep.heel
    rows = [("vehicle", f"{v.name} ({Path(v.source).name})"), ("config sha256", v.sha256),
            ("total mass", f"{v.specs.total_mass:.4f} kg")]
    if rep.eq is not None:
        rows.append(("draft", f"{rep.eq.draft:.4f} m, heel {_deg(rep.eq.heel)}, trim {_deg(rep.eq.trim)}"))
    gm_name = "BG_z (submerged GM_T)" if c.submerged else "GM_T"
    rows += [(gm_name, f"{c.gm:.5f} m (dGZ/dheel at 0° heel, {_basis(c)}: {c.slope0:.5f} m/rad)"),
             ("max GZ", f"{c.max_gz:.5f} m at {_deg(c.angle_max_gz)}")]
    rows += [("curve ends", end_text(c))] if c.end is not None else []
    rows += [("vanishing stability", vanishing_text(c)),
             ("area to 30°", f"{c.area_30:.6f} m·rad"), ("area to 40°", f"{c.area_40:.6f} m·rad")]
    if rep.trim is not None:
        t = rep.trim
        rows += [("GM_L" if not t.submerged else "BG_z (pitch)",
                  f"{t.gm:.5f} m (dGZ/dtrim at 0° trim, {_basis(t)}: {t.slope0:.5f} m/rad)"),
                 ("max GZ (trim)", f"{t.max_gz:.5f} m at {_deg(t.angle_max_gz)}")]
        rows += [("curve ends (trim)", end_text(t))] if t.end is not None else []
        rows += [("vanishing stability (trim)", vanishing_text(t))]
    if rep.criteria is not None:
        cr = rep.criteria
        bad = [r.key for r in cr.rows if not r.passed]
        rows.append(("IS Code criteria (indicative)", f"{len(cr.rows) - len(bad)} of {len(cr.rows)} met"
                     + (f"; not met: {', '.join(bad)}" if bad else "")))
    L = rep.load
    at = f"({L.at[0]:.3f}, {L.at[1]:.3f}, {L.at[2]:.3f}) m"
    if rep.balance is None:
        rows.append(("reserve buoyancy", f"{L.limit:.3f} kg"))
        rows.append(("freeboard zero at", f"{L.zero_freeboard:.3f} kg payload at {at}" if L.zero_freeboard is not None
                     else "not reached before full submersion"))
        if L.payload.size and not L.converged.all():
            k = int(np.argmin(L.converged))
            rows.append(("no upright equilibrium", f"from {L.payload[k]:.3f} kg payload (sampled; see the load line)"))
        cp = rep.capacity
        if cp is not None:
            label = f"at {cp['payload']:g} kg payload (published capacity)"
            rows.append((label, cp["note"] if "note" in cp else
                         f"freeboard {cp['freeboard']:.4f} m, heel {_deg(cp['heel'])}, trim {_deg(cp['trim'])}, "
                         f"draft {cp['draft']:.4f} m (payload at {at})"))
    else:
        b = rep.balance
        decl = "—" if b.declared_net is None else f"{b.declared_net:+.4f} kg"
        rows.append(("net buoyancy", f"{b.built_net:+.4f} kg as built, {decl} declared"))
        rows.append(("sinks at", f"{max(b.built_net, 0.0):.4f} kg payload"))
        do = "—" if b.declared_offset is None else _v(b.declared_offset)
        rows.append(("CoB − CoM", f"{_v(b.built_offset)} m as built, {do} declared"))
        if b.ballast_at is not None:
            rows.append(("neutral ballast", f"{b.ballast:+.4f} kg at {_v(b.ballast_at)} m (zero trim, zero heel)"))
        else:
            rows.append(("neutral ballast", "none needed (neutral as built)"))
    r = rep.roll
    rows.append(("roll period (small-angle)", f"{r['estimate']:.3f} s" if math.isfinite(r["estimate"])
                 else "unstable"))
    if r.get("amplitude") is not None:
        rows.append((f"roll period (1-DOF, {r['heel0_deg']:.0f}°)",
                     f"{r['amplitude']:.3f} s" if math.isfinite(r["amplitude"]) else "no return (capsizes)"))
    d = r["decay"]
    if d is not None and d["period"] is not None:
        rows.append(("roll period (runtime)", f"{d['period']:.3f} s from {d['heel0_deg']:.0f}° heel (measured)"))
        dec = d.get("decrement")
        if dec is not None:
            per = dec.get("per_cycle") or [2 * h for h in dec["deltas"]]
            shape = ("one exponential" if dec.get("exponential") else
                     f"{per[0]:.2f} → {per[-1]:.2f} per cycle: not one exponential")
            rows.append(("roll decay (runtime)", f"log decrement {dec['delta']:.3f} per cycle, "
                         f"ζ = {dec['zeta']:.3f} (measured; mean of {len(per)} half cycles from "
                         f"{len(dec['peaks'])} peaks, {shape})"))
    else:
        rows.append(("roll period (runtime)", r["decay_note"] or "—"))
    if rep.seakeeping is not None:
        from aurgen.analysis import seakeeping_report as skr

        row = skr.headline(rep.seakeeping)
        rows += [row] if row is not None else []
    return rows


def _cell(x, fmt: str, deg: bool = False) -> str:
    """A table cell: the number, or empty where the sample has none (a NaN is left blank, never printed)."""
    x = float(x)
    if not math.isfinite(x):
        return ""
    return format(math.degrees(x) if deg else x, fmt)


def _v(x) -> str:
    return "[" + ", ".join(f"{float(c):+.4f}" for c in x) + "]"


def markdown(rep: Report, figures: dict) -> str:
    v = rep.vehicle
    out = [f"# Stability and trim report: {v.name}", "",
           f"Config `{Path(v.source).name}`, sha256 `{v.sha256}`. Frame: base_link (x forward, y port, z up). "
           "Figures from the aurgen hydrostatics kernel on the declared displacement "
           f"({'a hull mesh' if v.displacement.kind == 'mesh' else f'{v.displacement.kind} boxes'}, "
           f"ρ = {v.displacement.fluid_density:g} kg/m³).", "",
           "## Headline", "", "| figure | value |", "|---|---|"]
    out += [f"| {k} | {val} |" for k, val in headline(rep)]
    out += ["", "## Specs", "", "```", specs_mod.table(specs_mod.rows_with_trim(v, rep.eq)), "```", "",
            "## Mass by part", "", "Each fitted part's catalog mass and its share of the total: "
            "weigh the parts and compare.", "", "| link | part | mass (kg) | share |", "|---|---|---:|---:|"]
    for n, t, m, share in pl.part_masses(v):
        out.append(f"| {n} | {t} | {m:.4f} | {100 * share:.2f}% |")
    out.append(f"| **total** | | **{v.specs.total_mass:.4f}** | 100% |")
    if "mass" in figures:
        out += ["", f"![mass by part]({figures['mass']})"]
    out += ["", "## Righting arm", ""]
    for c in (rep.heel, rep.trim):
        if c is None:
            continue
        out.append(f"### {c.axis}")
        out.append("")
        if c.submerged:
            out.append("Wholly submerged: the arm is the horizontal offset of the centre of buoyancy from the "
                       "centre of mass, GZ(φ) = BG sin φ for a CoB straight above the CoM.")
        else:
            out.append(_basis_sentence(c))
        gname = "BG_z" if c.submerged else ("GM_T" if c.axis == "heel" else "GM_L")
        nbrk = len([x for x in c.breaks if x < math.radians(40.0) and abs(x - math.radians(30.0)) > 1e-12])
        free = "trim" if c.axis == "heel" else "heel"
        out += ["", f"- {gname} = {c.gm:.6f} m (the kernel's, at the equilibrium); the curve's slope at 0° "
                f"{c.axis} with {free} {'free' if c.free_trim else 'held'}: {c.slope0:.6f} m/rad",
                f"- maximum GZ {c.max_gz:.6f} m at {_deg(c.angle_max_gz)}"]
        out += [f"- the curve ends at {end_text(c)}"] if c.end is not None else []
        out += [f"- angle of vanishing stability: {vanishing_text(c)}",
                f"- area under GZ to 30°: {c.area_30:.6f} m·rad; to 40°: {c.area_40:.6f} m·rad"
                + (f" (integrated piecewise between the {nbrk} angles below 40° where a displacement-box corner "
                   "meets the water: GZ has a kink at each)" if nbrk else ""), ""]
        out += [f"- note: {n}" for n in c.notes]
        if c.axis in figures:
            out += [f"![GZ {c.axis}]({figures[c.axis]})", ""]
    out += criteria_markdown(rep, figures)
    L = rep.load
    out += ["## Load line", "", f"Payload added at ({L.at[0]:.3f}, {L.at[1]:.3f}, {L.at[2]:.3f}) m "
            "(base_link), from 0 to the reserve buoyancy.", ""]
    if L.payload.size:
        out += [f"- reserve buoyancy (payload to full submersion): {L.limit:.3f} kg",
                "- freeboard reaches zero at: " + (f"{L.zero_freeboard:.3f} kg" if L.zero_freeboard is not None
                                                     else "not before full submersion"), "",
                "| payload (kg) | draft (m) | heel (deg) | trim (deg) | min. freeboard (m) |",
                "|---:|---:|---:|---:|---:|"]
        for k in range(0, L.payload.size, max(1, L.payload.size // 10)):
            out.append(f"| {L.payload[k]:.3f} | {_cell(L.draft[k], '.5f')} | {_cell(L.heel[k], '.3f', deg=True)} | "
                       f"{_cell(L.trim[k], '.3f', deg=True)} | {_cell(L.freeboard[k], '.5f')} |")
    out += [""] + [f"- note: {n}" for n in L.notes]
    if "load" in figures:
        out += ["", f"![load line]({figures['load']})"]
    if rep.balance is not None:
        b = rep.balance
        out += ["", "## Buoyancy and ballast (UUV)", "",
                "| | as built | declared |", "|---|---|---|",
                f"| net buoyancy (kg) | {b.built_net:+.5f} | "
                f"{'—' if b.declared_net is None else f'{b.declared_net:+.5f}'} |",
                f"| CoB − CoM (m) | {_v(b.built_offset)} | "
                f"{'—' if b.declared_offset is None else _v(b.declared_offset)} |", "",
                f"Displaced volume {b.volume:.6f} m³, CoB {_v(b.cob)} m. 'As built' is the kernel's volume and "
                "centroid of the emitted displacement with the composed mass; 'declared' is the config.", ""]
        if b.ballast_at is not None:
            out.append(f"Neutral ballast: {b.ballast:+.4f} kg (negative: add buoyancy or remove mass) at "
                       f"{_v(b.ballast_at)} m, which puts the CoM under the CoB (zero trim and heel). Placed at "
                       f"the chosen point {_v(b.chosen)} m instead it hangs at heel {_deg(b.heel_at_chosen)}, "
                       f"trim {_deg(b.trim_at_chosen)}.")
        else:
            out.append(f"Neutral as built: no ballast needed. It hangs at heel {_deg(b.heel_at_chosen)}, "
                       f"trim {_deg(b.trim_at_chosen)}.")
    r = rep.roll
    out += ["", "## Roll period", "",
            f"Small-angle estimate 2π √((I_xx + added)/(ρ g V GM_T)) with I_xx = {r['ixx']:.5f} kg·m², "
            f"added {r['added']:.5f} kg·m² (the config's −K_ṗ; 0 if not declared), V = {r['volume']:.6f} m³, "
            f"GM_T = {r['gm_t']:.5f} m: **" + (f"{r['estimate']:.3f} s" if math.isfinite(r["estimate"])
                                                else "no period (GM_T ≤ 0)") + "**.", ""]
    if r.get("amplitude") is not None:
        out.append(f"Amplitude-dependent (one degree of freedom, undamped) period from the GZ curve, released "
                   f"{r['heel0_deg']:.0f}° from the rest heel {_deg(r['phi_e'])}: "
                   "T(φ0) = 2 ∫ dφ / √((2 m g / I) ∫_φ^φ0 GZ dψ) between the two turning points "
                   f"(= 4 ∫_0^φ0 for a symmetric curve), I = I_xx + added: **{r['amplitude']:.3f} s** "
                   f"({100 * (r['amplitude'] / r['estimate'] - 1):+.1f}% against the small-angle period).")
        out.append("")
    elif r.get("amplitude_note"):
        out += [r["amplitude_note"], ""]
    if r["decay"] is not None and r["decay"]["period"] is not None:
        d = r["decay"]
        dec = d.get("decrement")
        out.append(f"Roll decay in the runtime (open water, drag and damping as emitted) from {d['heel0_deg']:.0f}° "
                   f"heel: measured period {d['period']:.3f} s ({100 * (d['period'] / r['estimate'] - 1):+.1f}% "
                   "against the small-angle period).")
        if dec is not None:
            out.append(f"Decay rate: logarithmic decrement δ = {dec['delta']:.3f} per cycle (twice the mean "
                       f"of ln|x_k/x_(k+1)| over {len(dec['deltas'])} successive half-cycle peaks: "
                       + ", ".join(f"{2 * h:.3f}" for h in dec["deltas"]) + " per cycle in turn), damping ratio "
                       f"ζ = δ/√(4π² + δ²) = {dec['zeta']:.3f}; peaks down to "
                       f"{100 * dec.get('floor', 0.02):.0f}% of the release count ({len(dec['peaks'])} here).")
            if not dec.get("exponential", True):
                out.append("The decrements change with the swing's amplitude (the figure's lower panel), so the "
                           "decay is not one exponential: the damping is not linear (drag grows with the roll "
                           "rate), and δ and ζ are averages over these swings, not constants of the motion.")
        if r.get("swings") is not None and dec is not None:
            damped = r["swings"] / math.sqrt(1 - dec["zeta"] ** 2)
            gap = d["period"] / r["estimate"] - 1
            amp_part = r["swings"] / r["estimate"] - 1
            damp_part = damped / r["swings"] - 1
            rest = d["period"] / damped - 1
            out.append(f"Where the {100 * gap:+.1f}% comes from: the swings shrink as they decay, and the 1-DOF "
                       f"period at each measured swing's amplitude, averaged like the measurement, is "
                       f"{r['swings']:.3f} s ({100 * amp_part:+.1f}%: the curve's nonlinearity); damping at ζ = "
                       f"{dec['zeta']:.3f} lengthens a period by 1/√(1 − ζ²) ({100 * damp_part:+.1f}%, giving "
                       f"{damped:.3f} s); the remaining {100 * rest:+.1f}% is what this picture leaves out (the free "
                       "body's heave, sway and pitch coupled to its roll; damping that changes with amplitude, "
                       "as the half-cycle decrements show).")
    else:
        out.append(r["decay_note"] or "")
    if "decay" in figures:
        out += ["", f"![roll decay]({figures['decay']})"]
    if rep.seakeeping is not None:
        from aurgen.analysis import seakeeping_report as skr

        out += [""] + skr.markdown(rep, figures)
    out += ["", "## Limits", "",
            "Static free surface; the displacement is the declared boxes (not the hull's true shape); "
            "GZ at constant displacement; no wind heeling, free-surface or icing corrections. "
            "Curves and areas are measured from 0° (upright), also when the equilibrium has a list. "
            "Sampled, not exact: the vanishing angle is the first fall through zero after the maximum seen on "
            "the samples of the curve to its end (then exact by Brent's method; a dip narrower than a sample step is "
            "not seen); a curve's end is found between its samples (a passage of the free angle through 90° and "
            "back within a step is not seen); the "
            "full-range trim scan resolves equilibria 2.5° apart or more; the runtime's period and decrement "
            "are measurements of a simulation, not exact figures.", ""]
    out += [f"- {n}" for n in rep.notes]
    return "\n".join(out) + "\n"


def _num(x, unit: str) -> str:
    if x is None or not math.isfinite(x):
        return "—"
    return f"{x:.2f}°" if unit == "deg" else f"{x:.4f} {unit}"


def criteria_markdown(rep: Report, figures: dict) -> list:
    """The IS Code section of report.md: the scope, the criteria table, the weather criterion's inputs."""
    from aurgen.analysis import criteria as crm
    from aurgen.analysis import is_code as ic

    cr = rep.criteria
    out = ["## Intact-stability criteria (IMO 2008 IS Code, Part A, 2.2 and 2.3)", ""]
    if cr is None:
        return out + ["Not evaluated: the vehicle does not float (no waterplane), or see the notes.", ""]
    out += [crm.APPLIES, "",
            "| clause | criterion | value | limit | margin | |", "|---|---|---:|---:|---:|---|"]
    for r in cr.rows:
        rel = "≥" if r.kind == "min" else "≤"
        mark = "pass" if r.passed else ("FAIL" if r.passed is False else "n/a")
        out.append(f"| {r.clause} | {r.text} | {_num(r.value, r.unit)} | {rel} {_num(r.limit, r.unit)} | "
                   f"{'' if r.margin is None else ('+' if r.margin >= 0 else '') + _num(r.margin, r.unit)} | "
                   f"{mark} |")
    w = cr.weather
    deg = lambda x: _deg(x) if x is not None else "—"  # noqa: E731
    fo = f"{_deg(cr.theta_f)} ({cr.theta_f_opening})" if cr.theta_f is not None else \
        "none declared (no `openings:`)" if not rep.vehicle.openings else "no opening immerses up to 180°"
    out += ["", f"- downflooding angle θf: {fo}; deck-edge immersion θd: {deg(cr.theta_d)} (the displacement "
            "boxes' top corners; on the curve's own states)",
            f"- wind: A = {w['area']:.5f} m² ({w['windage']} above the waterline, on the centreplane), its centre "
            f"{w['z_area']:.4f} m (base_link z), Z = {w['lever']:.4f} m above half the mean draught; "
            f"P = {ic.WIND_PRESSURE:g} Pa, Δ = {rep.vehicle.specs.total_mass / 1000:.6f} t: "
            f"l_w1 = P·A·Z/(1000·g·Δ) = {w['lw1']:.5f} m, l_w2 = 1.5·l_w1 = {w['lw2']:.5f} m",
            f"- hull: L_wl = {w['lwl']:.4f} m, B = {w['beam']:.4f} m, d = {w['draught']:.4f} m, "
            f"C_B = {w['block']:.4f}, OG = {w['og']:+.4f} m, GM = {w['gm']:.4f} m",
            f"- roll: B/d = {w['beam'] / w['draught']:.3f} → X1 = {w['x1']:.3f}; C_B → X2 = {w['x2']:.3f}; "
            f"k = {w['k']:.2f} (sharp bilges: boxes); r = 0.73 + 0.6·OG/d = {w['r']:.4f}; "
            f"T = 2·C·B/√GM = {w['period']:.3f} s → s = {w['s']:.4f}; θ1 = 109·k·X1·X2·√(r·s) = {deg(w['theta1'])}",
            f"- θ0 = {deg(w['theta0'])} (GZ = l_w1), the roll back to θ0 − θ1 = {deg(w['theta_r'])}; GZ = l_w2 at "
            f"{deg(w['theta_e'])}, again at θc = {deg(w['theta_c'])}; θ2 = min(θf, 50°, θc) = {deg(w['theta2'])}; "
            f"area a = {w['area_a']:.5f} m·rad, area b = {w['area_b']:.5f} m·rad", ""]
    out += [f"- note: {n}" for n in cr.notes]
    if "criteria" in figures:
        out += [f"![IS Code criteria]({figures['criteria']})", ""]
    out += [f"Source: {ic.SOURCE}, 2.2.1–2.2.4 and 2.3 with Tables 2.3.4-1 to 2.3.4-4 "
            "(aurgen/analysis/is_code.py); how each figure is found: docs/report.md.", ""]
    return out


def report_json(rep: Report) -> dict:
    """The headline figures and the criteria as JSON values (``aurgen report --json``)."""
    from aurgen.analysis import criteria as crm

    curves = {c.axis: curve_json(c) for c in (rep.heel, rep.trim) if c is not None}
    return {"vehicle": rep.vehicle.name, "config_sha256": rep.vehicle.sha256,
            "headline": {k: v for k, v in headline(rep)}, "curves": curves, "criteria": crm.as_json(rep.criteria)}


# --------------------------------------------------------------------------- writing


def write(rep: Report, target: Path, progress: Progress | None = None, root: Path | None = None) -> Path:
    """Write report.md and the PNGs into the folder ``target`` as one set (aurgen.core.files.write_set):
    only those files are replaced; a folder holding files aurgen did not write is refused. report.md
    ends in a seal line (aurgen.core.seal: the config, each PNG's sha256 and its own text's), which
    ``aurgen audit`` checks. ``root``: the output root the folders from it to ``target`` are opened from
    (default ``target``)."""
    progress = progress or Progress(quiet=True)
    target = Path(target)
    progress.stage("figures")
    figures = {"heel": "gz_heel.png", "mass": "mass.png"}
    fills = {figures["heel"]: lambda tmp: fig_gz(rep, rep.heel, tmp)}
    if rep.criteria is not None:
        figures["criteria"] = "criteria.png"
        fills[figures["criteria"]] = lambda tmp: fig_criteria(rep, tmp)
    if rep.trim is not None:
        figures["trim"] = "gz_trim.png"
        fills[figures["trim"]] = lambda tmp: fig_gz(rep, rep.trim, tmp)
    if rep.load.payload.size:
        figures["load"] = "load_line.png"
        fills[figures["load"]] = lambda tmp: fig_load(rep, tmp)
    fills[figures["mass"]] = lambda tmp: fig_mass(rep, tmp)
    if rep.roll.get("decay") is not None:
        figures["decay"] = "roll_decay.png"
        fills[figures["decay"]] = lambda tmp: fig_decay(rep, tmp)
    if rep.seakeeping is not None:
        from aurgen.analysis import seakeeping_report as skr

        if rep.seakeeping["regular"]:
            figures["seakeeping"] = "seakeeping.png"
            fills[figures["seakeeping"]] = lambda tmp: skr.fig_raos(rep, tmp)
        if rep.seakeeping["irregular"]:
            figures["sea_state"] = "sea_state.png"
            fills[figures["sea_state"]] = lambda tmp: skr.fig_sea_state(rep, tmp)
    blobs = {}  # the figures rendered first: report.md's seal line names each one's sha256 (aurgen audit)
    with tempfile.TemporaryDirectory(prefix="aurgen-report-") as d:
        for name, fill in fills.items():
            fill(Path(d) / name)
            blobs[name] = (Path(d) / name).read_bytes()
    v = rep.vehicle
    md = seal.seal(markdown(rep, figures), __version__, Path(v.source).name, v.sha256, blobs)
    files = {target / n: (lambda tmp, b=b: Path(tmp).write_bytes(b)) for n, b in blobs.items()}
    write_set(files | {target / "report.md": md}, root=root if root is not None else target)
    return target


def parse_point(text) -> np.ndarray | None:
    """A point "x y z" (or "x,y,z") in m, or None."""
    if text is None:
        return None
    from aurgen.core import limits
    from aurgen.core.errors import AurgenError

    from aurgen.core import numbers

    try:
        if isinstance(text, (list, tuple, np.ndarray)):
            vals = [float(x) for x in text]
        else:  # YAML 1.2 numbers in ASCII digits, as in a config ('1_0' is no 10, nor '١' a 1)
            vals = [numbers.yaml_number(w) for w in numbers.yaml_words(str(text).replace(",", " "))]
            vals = [] if None in vals else [float(v) for v in vals]
    except (TypeError, ValueError, OverflowError):
        vals = []
    if len(vals) != 3 or not all(math.isfinite(v) and abs(v) <= limits.LENGTH_MAX for v in vals):
        raise AurgenError(f"--payload-at wants three finite numbers 'x y z' in metres (each at most "
                          f"{limits.LENGTH_MAX:g} in magnitude), got {text!r}")
    return np.array(vals)


def cli_report(args) -> int:
    vehicle = resolve(args.config)
    target = Path(args.output) if getattr(args, "output", None) else Path("build") / vehicle.name / "report"
    # the default path lies in aurgen's tree: each of its folders from build/ opened without following a link
    root = target if getattr(args, "output", None) else Path("build")
    payload_at = parse_point(getattr(args, "payload_at", None))
    seakeeping = None
    if getattr(args, "seakeeping", False) or getattr(args, "seakeeping_set", None):
        from aurgen.analysis import seakeeping as skm

        seakeeping = skm.parse_settings(getattr(args, "seakeeping_set", None) or ())
        skm.check_sea(seakeeping)  # a sea that would break, a world without one: refused before the work
    check_dir(target)  # refuse a foreign folder before the work, not after
    preflight((), root, folders=[target])
    progress = Progress(quiet=getattr(args, "quiet", False))
    rep = compute(vehicle, payload_at=payload_at, progress=progress,
                  roll_decay=not getattr(args, "no_roll_decay", False), seakeeping=seakeeping)
    write(rep, target, progress, root=root)
    if rep.seakeeping is not None and not getattr(args, "quiet", False):
        import sys

        reg, irr = rep.seakeeping["seconds"]
        print(f"report: seakeeping runs took {reg:.1f} s (regular waves) and {irr:.1f} s (the irregular sea)",
              file=sys.stderr)
    if getattr(args, "json", False):
        import json

        print(json.dumps(report_json(rep), indent=2, ensure_ascii=False))
        return 0
    print(f"{vehicle.name} ({vehicle.source})")
    print(specs_mod.table(headline(rep)))
    print(f"report: {target / 'report.md'}")
    return 0
