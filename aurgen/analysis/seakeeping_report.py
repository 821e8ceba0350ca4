"""The report's seakeeping section (``aurgen report --seakeeping``): report.md's text and its two figures.

The numbers are :func:`aurgen.analysis.seakeeping.run`'s (``rep.seakeeping``); this module only
formats them: :func:`markdown` (the section's lines), :func:`headline` (one headline row),
:func:`fig_raos` (seakeeping.png: RAO amplitude and phase against period, heave, roll, pitch, each
heading) and :func:`fig_sea_state` (sea_state.png: the irregular record). Periods in s, heave in
m, angles in deg on the page (rad inside).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

PHASE_FLOOR = 0.02  # an RAO below this: its phase is not printed or drawn (the motion is numerical noise)
SHOWN = 60.0  # s of the irregular record drawn (after the ramp); the statistics use all of it
MOTIONS = (("heave", "heave (m/m)"), ("roll", "roll (rad per rad of wave slope)"),
           ("pitch", "pitch (rad per rad of wave slope)"))


def _added_heave(vehicle) -> float:
    """The declared heave added mass −Z_ẇ (kg), 0 if none."""
    return next((-float(v) for n, v in vehicle.hydrodynamics if n == "zDotW"), 0.0)


def deep_reference(r: dict, sk: dict, vehicle) -> float:
    """A wholly submerged small body's heave RAO with Froude–Krylov excitation and no diffraction:
    e^(−k z) ρV / (m + A33), z the CoM's mean depth (m), ρV the displaced mass (``sk['displaced']`` kg)."""
    m = float(vehicle.specs.total_mass)
    return math.exp(-r["wave"]["k"] * r["depth_com"]) * sk["displaced"] / (m + _added_heave(vehicle))


def _groups(sk: dict) -> dict:
    out: dict = {}
    for r in sk["regular"]:
        out.setdefault(r["heading_name"], []).append(r)
    return out


def _ph(f: dict) -> str:
    return "" if f["rao"] < PHASE_FLOOR else f"{f['phase_deg']:+.1f}"


def headline(sk: dict) -> tuple[str, str] | None:
    """('seakeeping (irregular sea)', the significant amplitudes of each heading) or None."""
    if not sk["irregular"]:
        return None
    parts = []
    for r in sk["irregular"]:
        s = r["stats"]
        parts.append(f"{r['heading_name']}: heave {s['heave']['significant']:.3f} m, roll "
                     f"{math.degrees(s['roll']['significant']):.2f}°, "
                     f"pitch {math.degrees(s['pitch']['significant']):.2f}°")
    return ("significant amplitudes (2σ)", f"{'; '.join(parts)} in {sk['irregular'][0]['sea']}")


def markdown(rep, figures: dict) -> list[str]:
    """The section's lines (report.md)."""
    sk = rep.seakeeping
    s = sk["settings"]
    v = rep.vehicle
    where = (f"wholly submerged, released at {sk['depth']:.2f} m depth (base_link origin) at its hanging attitude: "
             "it has no floating equilibrium, and a neutral vehicle hovers at any depth, so this is the depth "
             "it is run at (`--seakeeping-set depth=...`)" if sk["submerged"] else
             f"free-floating from the kernel's equilibrium (draft {sk['depth']:.4f} m)")
    out = ["## Seakeeping", "",
           f"Time-domain runs of the emitted model in the runtime's linear sea (Froude–Krylov and hydrostatics "
           f"over the clipped volumes; no radiation or diffraction), {where}, in open water of "
           f"ρ = {v.displacement.fluid_density:g} kg/m³, deep water (k = ω²/g), time step {s['timestep']:g} s. "
           "Headings are the direction the waves travel toward, from the bow: head 180° (meeting the bow), "
           "beam 90° (arriving on the starboard side, travelling to port). Heave is the vehicle's centre of mass "
           "(world z); roll is starboard down positive, pitch bow down positive.", ""]
    out += ["### Regular waves: response amplitude operators", "",
            f"Each period its own run: wave height H = min({s['height']:g} m, λ·{s['steepness']:.4g}) (steepness "
            f"at most 1/{1 / s['steepness']:.0f}: linear), ramped in over {s['ramp_cycles']} periods, "
            f"{s['settle_cycles']} more for the start's transient, then {s['fit_cycles']} periods fitted by least "
            "squares on 1, t, cos ωt, sin ωt. RAO: heave amplitude / a (a = H/2); roll and pitch amplitude / (k a), "
            "the wave slope. Phase (deg): of the motion's cos(ωt + φ) against the wave elevation at the vehicle's "
            "mean position, positive when the motion leads; left blank where the RAO is under "
            f"{PHASE_FLOOR:g} (no such motion: noise).", ""]
    est = rep.roll.get("estimate") if rep.roll else None
    if est is not None and math.isfinite(est) and est < min(s["periods"]):
        out += [f"The vehicle's small-angle roll period ({est:.3f} s, the Roll period section) lies below the "
                f"shortest period run ({min(s['periods']):g} s): no roll resonance falls in this range.", ""]
    if sk["submerged"]:
        out += [f"Submerged, the vehicle barely moves in short waves: the wave's pressure dies off as e^(−kz) "
                f"(at {sk['depth']:.1f} m, e^(−kz) = {math.exp(-wave_k(sk, min(s['periods'])) * sk['depth']):.2g} "
                f"at T = {min(s['periods']):g} s). The reference column is a small body's heave with Froude–Krylov "
                "excitation and no diffraction, e^(−kz)·ρV/(m + A33), z the centre of mass's depth, "
                "ρV the displaced mass, A33 the declared "
                f"heave added mass {_added_heave(v):.3f} kg; the runtime has no diffraction force (the share "
                "A33·(water acceleration) that would bring a neutral body's RAO up to e^(−kz)).", ""]
    for name, runs in _groups(sk).items():
        ref = sk["submerged"]
        out += [f"#### {name} seas ({runs[0]['heading']:g}°)", "",
                "| T (s) | λ (m) | H (m) | heave RAO | heave phase | roll RAO | roll phase | pitch RAO | pitch phase |"
                + (" e^(−kz)·ρV/(m+A33) |" if ref else ""),
                "|---:|---:|---:|---:|---:|---:|---:|---:|---:|" + ("---:|" if ref else "")]
        for r in runs:
            w = r["wave"]
            out.append(f"| {w['T']:g} | {w['wavelength']:.2f} | {w['H']:.4f} | {r['heave']['rao']:.4f} | "
                       f"{_ph(r['heave'])} | {r['roll']['rao']:.4f} | {_ph(r['roll'])} | {r['pitch']['rao']:.4f} | "
                       f"{_ph(r['pitch'])} |" + (f" {deep_reference(r, sk, v):.4f} |" if ref else ""))
        bad = [r for r in runs if not r["health"].startswith("ok")]
        out += [""] + [f"- note: T = {r['wave']['T']:g} s: the run's health: {r['health']}" for r in bad]
        out += [f"- the largest horizontal drift over a run: {max(r['drift'] for r in runs):.3f} m (free-floating, "
                "unmoored: a slow drift and the surge/sway oscillation)", ""]
    if "seakeeping" in figures:
        out += [f"![RAOs]({figures['seakeeping']})", ""]
    if sk["irregular"]:
        r0 = sk["irregular"][0]
        out += ["### Irregular sea: motion statistics", "",
                f"{r0['sea'][0].upper() + r0['sea'][1:]}, travelling toward each heading, ramped in over "
                f"{r0['ramp']:g} s, then {r0['duration']:g} s "
                "recorded every 0.05 s. Significant amplitude: 2σ (half the significant double amplitude 4σ, the "
                "narrow-band Rayleigh figure), σ the record's standard deviation about its mean (its RMS about the "
                "mean); beside it the record's own H1/3 / 2 (the mean of the highest third of the zero-upcrossing "
                "double amplitudes, halved). The wave's row is the elevation the vehicle meets (under its centre of "
                "mass at each sample: it drifts, unmoored); its 4σ is the realised Hs"
                + (f" (declared {r0['hs_declared']:g} m; the synthesis keeps 99 % of "
                                             "the spectrum's energy)." if r0["hs_declared"] is not None else "."), "",
                "| heading | motion | significant (2σ) | H1/3 / 2 | RMS (σ) | max abs | waves |",
                "|---|---|---:|---:|---:|---:|---:|"]
        for r in sk["irregular"]:
            for key, unit, f in (("eta", "m", 1.0), ("heave", "m", 1.0), ("roll", "deg", math.degrees(1.0)),
                                 ("pitch", "deg", math.degrees(1.0))):
                st = r["stats"][key]
                h13 = "" if st["h13_half"] is None else f"{st['h13_half'] * f:.4f}"
                label = "wave elevation" if key == "eta" else key
                out.append(f"| {r['heading_name']} ({r['heading']:g}°) | {label} ({unit}) | "
                           f"{st['significant'] * f:.4f} | {h13} | {st['rms'] * f:.4f} | {st['max'] * f:.4f} | "
                           f"{st['waves']} |")
            if not r["health"].startswith("ok"):
                out.append(f"\n- note: {r['heading_name']}: the run's health: {r['health']}")
        out.append("")
        if "sea_state" in figures:
            out += [f"![irregular sea]({figures['sea_state']})", ""]
    return out


def wave_k(sk: dict, period: float) -> float:
    return (2 * math.pi / period) ** 2 / 9.81


# --------------------------------------------------------------------------- figures


def fig_raos(rep, path: Path):
    """seakeeping.png: for heave, roll and pitch, the RAO (left) and phase (right) against period, one line
    per heading; a submerged vehicle's heave carries the e^(−kz)·ρV/(m + A33) reference."""
    from aurgen.analysis.report_figures import _finish, _plt

    plt = _plt()
    sk = rep.seakeeping
    fig, axes = plt.subplots(3, 2, figsize=(10.0, 9.0), sharex=True)
    for i, (name, label) in enumerate(MOTIONS):
        a, p = axes[i]
        for j, (hname, runs) in enumerate(_groups(sk).items()):
            T = np.array([r["wave"]["T"] for r in runs])
            rao = np.array([r[name]["rao"] for r in runs])
            ph = np.array([r[name]["phase_deg"] if r[name]["rao"] >= PHASE_FLOOR else np.nan for r in runs])
            a.plot(T, rao, "o-", color=f"C{j}", ms=4, lw=1.4, clip_on=False,
                   label=f"{hname} ({runs[0]['heading']:g}°)")
            p.plot(T, ph, "o-", color=f"C{j}", ms=4, lw=1.4, clip_on=False, label=f"{hname}")
            if name == "heave" and sk["submerged"] and j == 0:
                a.plot(T, [deep_reference(r, sk, rep.vehicle) for r in runs], "k--", lw=1.0,
                       label="e^(−kz)·ρV/(m+A33) (FK, no diffraction)")
        a.set_ylabel(f"{name} RAO\n{label.split('(')[1].rstrip(')')}", fontsize=9)
        a.set_ylim(bottom=0.0)
        p.set_ylabel(f"{name} phase (deg)", fontsize=9)
        p.set_ylim(-180, 180)
        p.set_yticks(range(-180, 181, 90))
        for ax in (a, p):
            ax.grid(alpha=0.3)
            ax.axhline(1.0 if ax is a else 0.0, color="0.5", lw=0.7)
        a.legend(fontsize=8, loc="best", framealpha=0.9)
    for ax in axes[-1]:
        ax.set_xlabel("wave period T (s)")
    s = sk["settings"]
    _finish(fig, axes[0][0], rep, f"Response amplitude operators in regular waves (H ≤ {s['height']:g} m, "
            f"H/λ ≤ 1/{1 / s['steepness']:.0f}); phase against the wave elevation at the mean position", path)


def fig_sea_state(rep, path: Path):
    """sea_state.png: the irregular record's first :data:`SHOWN` s after the ramp: wave elevation and heave
    (m), roll and pitch (deg), each heading; the legend carries the significant amplitudes (2σ)."""
    from aurgen.analysis.report_figures import _finish, _plt

    plt = _plt()
    sk = rep.seakeeping
    fig, axes = plt.subplots(3, 1, figsize=(10.0, 8.0), sharex=True)
    for j, r in enumerate(sk["irregular"]):
        t = np.asarray(r["t"])
        w = (t >= r["ramp"]) & (t <= r["ramp"] + SHOWN)
        st = r["stats"]
        if j == 0:
            axes[0].plot(t[w], r["eta"][w], color="k", lw=0.8, alpha=0.7,
                         label=f"wave elevation under the centre of mass (4σ = {2 * st['eta']['significant']:.3f} m)")
        axes[0].plot(t[w], r["heave"][w] - st["heave"]["mean"], color=f"C{j}", lw=1.1,
                     label=f"heave, {r['heading_name']} (2σ = {st['heave']['significant']:.3f} m)")
        for ax, key in ((axes[1], "roll"), (axes[2], "pitch")):
            ax.plot(t[w], np.degrees(r[key][w] - st[key]["mean"]), color=f"C{j}", lw=1.1,
                    label=f"{key}, {r['heading_name']} (2σ = {math.degrees(st[key]['significant']):.2f}°)")
    axes[0].set_ylabel("elevation, heave (m)")
    axes[1].set_ylabel("roll about its mean (deg)")
    axes[2].set_ylabel("pitch about its mean (deg)")
    axes[2].set_xlabel("time (s)")
    for ax in axes:  # headroom above the traces for a one-row legend, off the data
        ax.grid(alpha=0.3)
        lo, hi = ax.get_ylim()
        ax.set_ylim(lo, hi + 0.3 * (hi - lo))
        ax.legend(fontsize=8, loc="upper center", ncol=3, framealpha=0.9)
    r0 = sk["irregular"][0]
    _finish(fig, axes[0], rep, f"Irregular sea: {r0['sea']}\nthe first {SHOWN:g} s after the ramp shown; "
            f"statistics over {r0['duration']:g} s", path)
