"""The report's figures (PNG, matplotlib's Agg backend): righting-arm curves, load line, mass by part, roll decay.

Each carries units, the vehicle name and the config hash (:attr:`aurgen.analysis.report_compute.Report.tag`);
angles are drawn in degrees, arms and drafts in m, masses in kg, time in s.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from aurgen.analysis import payload as pl
from aurgen.analysis import stability as st
from aurgen.analysis.report_compute import Report

FIG_SIZE = (8.0, 5.0)
DPI = 100


# --------------------------------------------------------------------------- figures


def _plt():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _finish(fig, ax, rep: Report, title: str, path: Path):
    fig.suptitle(f"{title}\n{rep.tag}", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI, format="png")
    _plt().close(fig)


GM_TANGENT_DEG = 20.0  # the GM tangent is drawn from 0° to at most this heel/trim


def _data_range(y, pad: float = 0.08) -> tuple[float, float]:
    """Axis limits around the finite values of ``y`` and 0, padded by ``pad`` of the span."""
    y = np.asarray(y, float)
    y = y[np.isfinite(y)]
    lo, hi = min(float(y.min()), 0.0) if y.size else 0.0, max(float(y.max()), 0.0) if y.size else 1.0
    span = hi - lo if hi > lo else 1.0
    return lo - pad * span, hi + pad * span


def fig_gz(rep: Report, c: st.GZCurve, path: Path):
    """The righting-arm curve with GM's tangent, the areas to 30° and 40°, the maximum and the vanishing angle.
    A curve with a free angle that ends (``c.end``: a fold of its stable branch, or the free angle past ±90°) is
    drawn to its end, marked there with why; beside it the curve with the free angle held at the equilibrium's,
    dashed, and that curve's vanishing angle, named as such."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=FIG_SIZE)
    deg = np.degrees(c.angles)
    free = "trim" if c.axis == "heel" else "heel"
    ok = np.isfinite(c.gz)
    x, y = deg[ok], np.asarray(c.gz, float)[ok]
    if c.end is not None:  # to the end itself, where GZ still has the value the kernel found on the branch
        x, y = np.append(x, math.degrees(c.end.at)), np.append(y, c.end.gz)
    ax.plot(x, y, color="C0", lw=1.8, label="GZ" if c.end is None else f"GZ, free {free}")
    ax.axhline(0.0, color="0.4", lw=0.8)
    held = c.end is not None and c.held_gz is not None
    if held:
        ax.plot(deg, c.held_gz, color="0.45", ls="--", lw=1.1,
                label=f"GZ, {free} held at {math.degrees(c.held_angle):.2f}° (for the vanishing angle)")
    # GM as the initial slope, drawn only over small angles (where it describes the curve): up to
    # GM_TANGENT_DEG, or where the tangent leaves the curve's own range, whichever is first
    lo, hi = _data_range(np.concatenate([y, c.held_gz]) if held else y)
    if math.isfinite(c.gm) and c.gm != 0.0:
        name = ("BG_z" if c.submerged else "GM_T" if c.axis == "heel" else "GM_L")
        reach = (hi if c.gm > 0 else lo) / c.gm  # rad at which the tangent reaches the data's extreme
        end = min(math.radians(GM_TANGENT_DEG), reach) if reach > 0 else math.radians(GM_TANGENT_DEG)
        ax.plot([0.0, math.degrees(end)], [0.0, c.gm * end], color="C3", ls="--", lw=1.2,
                label=f"{name} = {c.gm:.4f} m (kernel): tangent at 0°, GM·φ")
    for lim, col in ((30.0, "C1"), (40.0, "C2")):  # legend lists 30° first; the 30° area is drawn on top
        m = deg <= lim
        area = c.area_30 if lim == 30.0 else c.area_40
        ax.fill_between(deg[m], 0.0, c.gz[m], color=col, alpha=0.25, zorder=2 if lim == 30.0 else 1,
                        label=f"area to {lim:.0f}° = {area:.5f} m·rad")
    # markers unclipped and on top: a point at the axis' end (vanishing stability at 180°) was half cut off
    ax.plot([math.degrees(c.angle_max_gz)], [c.max_gz], "o", color="C4", clip_on=False, zorder=5,
            label=f"max GZ {c.max_gz:.4f} m at {math.degrees(c.angle_max_gz):.1f}°")
    if c.avs is not None:
        ax.plot([math.degrees(c.avs)], [0.0], "s", color="k", clip_on=False, zorder=5,
                label=f"vanishing stability {math.degrees(c.avs):.1f}°")
    ends = ""
    if c.end is not None:
        e = math.degrees(c.end.at)
        why = (f"fold of the free-{free} branch" if c.end.kind == "fold" else
               f"the free {free} passes {math.degrees(c.end.trim):+.0f}°")
        ax.axvline(e, color="C3", ls=":", lw=0.9, zorder=1)
        ax.plot([e], [c.end.gz], "X", color="C3", ms=9, clip_on=False, zorder=6,
                label=f"curve ends at {e:.2f}°: {why}")
        ax.annotate("curve ends:\n" + ("fold" if c.end.kind == "fold" else f"{free} {math.degrees(c.end.trim):+.0f}°"),
                    (e, c.end.gz), xytext=(6, -6), textcoords="offset points", ha="left", va="top", fontsize=8,
                    color="C3")
        ends = f" (ends at a fold at {e:.2f}°)" if c.end.kind == "fold" else f" (ends at {e:.2f}°: {free} ±90°)"
    if held and c.avs_held is not None:
        ax.plot([math.degrees(c.avs_held)], [0.0], "s", color="0.3", mfc="white", mew=1.5, clip_on=False, zorder=5,
                label=f"vanishing stability, {free} held: {math.degrees(c.avs_held):.2f}°")
    word = "heel" if c.axis == "heel" else "trim (bow down)"
    ax.set_xlabel(f"{word} angle (deg)")
    ax.set_ylabel("righting arm GZ (m)")
    ax.set_xlim(0, 180)
    ax.set_xticks(range(0, 181, 15))
    ax.set_ylim(lo, hi)  # from the curve (the tangent is cut to it): the GZ curve fills the axes
    ax.grid(alpha=0.3)
    # the legend below the axes, off the curve (loc="best" inside sat on it)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2, frameon=False)
    where = ("wholly submerged" if c.submerged else f"free-floating, free {free}{ends}" if c.free_trim
             else f"free-floating, {free} held")
    _finish(fig, ax, rep, f"Righting-arm curve, {word} ({where})", path)


def load_extent(L) -> float:
    """The payload (kg) of the last load-line sample with an equilibrium: where the curves end."""
    ok = np.isfinite(L.draft) & np.isfinite(L.freeboard)
    return float(L.payload[ok].max()) if ok.any() else float(L.payload[-1])


def decay_extent(d: dict, settle: float = 0.05) -> float:
    """Where the roll-decay plot should end (s): 1.25 × the last time the roll is still more than
    ``settle`` of its initial amplitude away from the equilibrium, at least two measured periods,
    at most the run."""
    t, r = np.asarray(d["t"], float), np.asarray(d["roll"], float) - d["ref"]
    a0 = abs(r[0]) if r.size else 0.0
    if a0 == 0.0:
        return float(t[-1])
    live = np.nonzero(np.abs(r) > settle * a0)[0]
    end = 1.25 * float(t[live[-1]]) if live.size else float(t[-1])
    if d.get("period"):
        end = max(end, 2.0 * float(d["period"]))
    return float(min(max(end, t[1] if t.size > 1 else 0.0), t[-1]))


def fig_load(rep: Report, path: Path):
    plt = _plt()
    L = rep.load
    fig, axes = plt.subplots(4, 1, figsize=(8.0, 9.0), sharex=True)
    rows = [(L.draft, "draft (m)"), (np.degrees(L.heel), "heel (deg)"), (np.degrees(L.trim), "trim (deg)"),
            (L.freeboard, "min. freeboard (m)")]
    xmax = load_extent(L)
    for k, (ax, (y, lab)) in enumerate(zip(axes, rows)):
        ax.plot(L.payload, y, ".-", color="C0", ms=3, clip_on=False, label="equilibrium" if k == 0 else None)
        ax.set_ylabel(lab)
        ax.grid(alpha=0.3)
        if L.zero_freeboard is not None and L.zero_freeboard <= xmax:
            ax.axvline(L.zero_freeboard, color="C3", ls="--", lw=1,
                       label=f"freeboard zero at {L.zero_freeboard:.2f} kg" if k == 0 else None)
        if L.limit <= xmax:
            ax.axvline(L.limit, color="k", ls=":", lw=1, label=f"reserve buoyancy {L.limit:.2f} kg" if k == 0 else None)
        if rep.capacity is not None and rep.capacity["payload"] <= xmax:
            ax.axvline(rep.capacity["payload"], color="C2", ls="-.", lw=1,
                       label=f"published capacity {rep.capacity['payload']:g} kg" if k == 0 else None)
        if 1 <= k <= 2:  # heel, trim: hundredths of a degree are noise, never magnified into a trend
            _min_span(ax, MIN_ANGLE_SPAN_DEG)
    axes[-1].set_xlim(0.0, xmax)  # to the last sample with an equilibrium: the axis ends where the curves do
    axes[-1].axhline(0.0, color="0.4", lw=0.8)
    axes[-1].set_xlabel(f"payload (kg) at ({L.at[0]:.3f}, {L.at[1]:.3f}, {L.at[2]:.3f}) m")
    # the keys in a legend (a one-line subtitle of them was cut off at both edges); what lies beyond the
    # axis as legend entries without a line
    if L.limit > xmax:
        axes[0].plot([], [], " ", label=f"reserve buoyancy {L.limit:.2f} kg (beyond the axis)")
    if L.zero_freeboard is not None and L.zero_freeboard > xmax:
        axes[0].plot([], [], " ", label=f"freeboard zero at {L.zero_freeboard:.2f} kg (beyond the axis)")
    if xmax < L.payload[-1]:
        axes[0].plot([], [], " ", label=f"no upright equilibrium beyond {xmax:.2f} kg")
    axes[0].legend(fontsize=7, loc="best", framealpha=0.9)
    _finish(fig, axes[0], rep, "Load line", path)


MIN_ANGLE_SPAN_DEG = 1.0  # a heel or trim panel spans at least this many degrees


def _min_span(ax, span: float) -> None:
    """Widen ``ax``'s y range about its middle to at least ``span``."""
    lo, hi = ax.get_ylim()
    if hi - lo < span:
        mid = 0.5 * (lo + hi)
        ax.set_ylim(mid - 0.5 * span, mid + 0.5 * span)


def fig_mass(rep: Report, path: Path):
    plt = _plt()
    parts = pl.part_masses(rep.vehicle)
    fig, ax = plt.subplots(figsize=(8.0, max(3.0, 0.35 * len(parts) + 1.5)))
    names = [f"{n} ({t})" for n, t, _, _ in parts]
    masses = [m for _, _, m, _ in parts]
    y = np.arange(len(parts))
    ax.barh(y, masses, color="C0")
    for yi, (_, _, m, share) in zip(y, parts):
        ax.text(m, yi, f" {m:.3f} kg ({100 * share:.1f}%)", va="center", fontsize=8)
    ax.set_yticks(y)
    ax.set_yticklabels(names, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("mass (kg)")
    ax.set_xlim(0, max(masses) * 1.35)
    ax.grid(axis="x", alpha=0.3)
    _finish(fig, ax, rep, f"Mass by part (total {rep.vehicle.specs.total_mass:.3f} kg)", path)


def fig_decay(rep: Report, path: Path):
    """Roll against time with its peaks; below it, each half cycle's decrement as a per-cycle figure
    (2 ln|x_k/x_(k+1)|) against the half cycle's mean amplitude, so a decay that is not exponential
    (decrements changing with the swing) shows as such. The exponential envelope is drawn only where the
    decay is one (roll_decay.EXPONENTIAL_RATIO), fitted to every peak."""
    plt = _plt()
    d = rep.roll["decay"]
    dec = d.get("decrement")
    end = decay_extent(d)
    if dec is None:
        fig, ax = plt.subplots(figsize=FIG_SIZE)
    else:
        fig, (ax, b) = plt.subplots(2, 1, figsize=(8.0, 7.0), gridspec_kw={"height_ratios": [3, 2]})
    ax.plot(d["t"], np.degrees(d["roll"]), color="C0", lw=1.2, label="roll (runtime)")
    ax.axhline(math.degrees(d["ref"]), color="0.4", lw=0.8, label="equilibrium heel (kernel)")
    if dec is not None:
        tp = np.array([p[0] for p in dec["peaks"]])
        yp = np.array([p[1] for p in dec["peaks"]])
        n = len(tp)
        # unclipped: the first peak is the release at t = 0, on the axis' edge (it was half cut off); those past
        # the axis' end (the decay's own length) are not drawn, but counted in the label and the panel below
        v = tp <= end
        ax.plot(tp[v], np.degrees(d["ref"] + yp[v]), "o", color="C3", ms=3, clip_on=False, zorder=5,
                label=f"peaks ({n} used, down to {100 * dec['floor']:.0f}% of the release"
                      + (f"; {int((~v).sum())} after {end:.1f} s" if not v.all() else "") + ")")
        if dec["exponential"]:  # one exponential fits: least squares of ln|peak| on time, every peak
            k, c = np.polyfit(tp, np.log(np.abs(yp)), 1)
            env = np.exp(c + k * np.asarray(d["t"]))
            for sgn in (1, -1):
                ax.plot(d["t"], np.degrees(d["ref"] + sgn * env), color="C3", ls="--", lw=0.8,
                        label=f"exponential envelope fitted to the {n} peaks" if sgn > 0 else None)
        # below: each half cycle's decrement against its mean amplitude (a linearly damped decay: a flat line)
        per = np.array(dec["per_cycle"])
        amp = np.degrees(0.5 * (np.abs(yp[:-1]) + np.abs(yp[1:])))
        b.plot(amp, per, "o-", color="C2", ms=4, lw=1.0, clip_on=False, zorder=5,
               label=f"each of the {len(per)} half cycles: 2 ln|x_k/x_(k+1)|")
        b.axhline(dec["delta"], color="C3", ls="--", lw=0.8,
                  label=f"mean δ = {dec['delta']:.3f} per cycle (ζ = {dec['zeta']:.3f})")
        from matplotlib import ticker

        b.set_xscale("log")
        b.set_xlim(amp.min() / 1.25, amp.max() * 1.25)
        b.xaxis.set_major_locator(ticker.LogLocator(subs=(1.0, 2.0, 5.0)))
        b.xaxis.set_major_formatter(ticker.FuncFormatter(lambda x, _: f"{x:g}"))
        b.xaxis.set_minor_formatter(ticker.NullFormatter())
        b.set_ylim(0.0, 1.3 * max(float(per.max()), dec["delta"]))
        b.set_xlabel("mean amplitude of the half cycle (deg)")
        b.set_ylabel("log decrement (per cycle)")
        verdict = ("one exponential (linear damping)" if dec["exponential"] else
                   f"{per[0]:.2f} → {per[-1]:.2f} per cycle: not one exponential (damping that changes with "
                   "amplitude)")
        b.set_title(verdict, fontsize=9)
        b.legend(fontsize=8, loc="upper left")
        b.grid(alpha=0.3, which="both")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("roll (deg)")
    ax.set_xlim(0.0, end)  # the decay's own length, not the whole run
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper right")
    est = rep.roll["estimate"]
    per_s = "no period measured" if d["period"] is None else f"measured period {d['period']:.3f} s"
    amp = rep.roll.get("amplitude")
    one = f", 1-DOF at {d['heel0_deg']:.0f}° {amp:.3f} s" if amp is not None else ""
    _finish(fig, ax, rep, f"Roll decay from {d['heel0_deg']:.0f}° heel: {per_s} "
            f"(small-angle {est:.3f} s{one})", path)


def _on_pieces(pw: st.Piecewise, x):
    """GZ (m) at ``x`` (rad, inside [pw.lo, pw.hi]) from the exact piecewise interpolant."""
    return np.array([float(pw.pieces[pw._piece(a)][2](a)) for a in np.atleast_1d(x)])


def fig_criteria(rep: Report, path: Path):
    """The heel curve with the IS Code's criteria: above, the general ones (2.2: the areas to 30° and from 30° to
    40° or θf, GZ at 30°, GM₀ as the tangent); below, the weather criterion (2.3: the levers l_w1 and l_w2, θ0, the
    roll back to θ0 − θ1, areas a and b to θ2). Angles in degrees, arms m."""
    plt = _plt()
    cr = rep.criteria
    w = cr.weather
    pw = w["piecewise"]
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(9.0, 9.5), sharex=True)
    lo, hi = pw.lo, pw.hi
    x = np.linspace(lo, hi, 800)
    gz = _on_pieces(pw, x)
    dg = np.degrees(x)
    ymin, ymax = _data_range(np.concatenate([gz, [w["lw2"]]]), pad=0.15)
    r30 = math.radians(30.0)
    top = min(math.radians(40.0), cr.theta_f) if cr.theta_f is not None else math.radians(40.0)
    for ax in (ax1, ax2):
        ax.plot(dg, gz, color="C0", lw=1.8, label="GZ (the report's curve)")
        ax.axhline(0.0, color="0.4", lw=0.8)
        ax.grid(alpha=0.3)
        ax.set_ylim(ymin, ymax)
        ax.set_ylabel("GZ, heeling lever (m)")
    for a, b, col, key in ((0.0, r30, "C1", "area_30"), (r30, top, "C2", "area_30_40")):
        m = (x >= a) & (x <= b)
        r = cr.row(key)
        ax1.fill_between(dg[m], 0.0, gz[m], color=col, alpha=0.3,
                         label=f"{r.text}: {r.value:.4f} m·rad (≥ {r.limit:g})")
    r = cr.row("gz_30")
    ax1.axhline(r.limit, color="C4", ls=":", lw=1.0, label=f"GZ ≥ {r.limit:g} m at 30° or more: {r.value:.4f} m")
    g = cr.row("gm0")
    end = min(math.radians(15.0), (ymax / g.value) if g.value > 0 else math.radians(15.0))
    ax1.plot([0.0, math.degrees(end)], [0.0, g.value * end], color="C3", ls="--", lw=1.0,
             label=f"GM₀ = {g.value:.4f} m (≥ {g.limit:g}): tangent GM·φ")
    a = cr.row("angle_max_gz")
    ax1.axvline(a.value, color="C4", ls="-.", lw=0.9, label=f"max GZ at {a.value:.1f}° (≥ {a.limit:g}°)")
    ax2.axhline(w["lw1"], color="C3", ls="--", lw=1.0, label=f"l_w1 = {w['lw1']:.4f} m (steady wind)")
    ax2.axhline(w["lw2"], color="C3", ls="-", lw=1.2, label=f"l_w2 = 1.5 l_w1 = {w['lw2']:.4f} m (gust)")
    if math.isfinite(w["area_a"]):
        m = (x >= w["theta_r"]) & (x <= w["theta_e"])
        ax2.fill_between(dg[m], gz[m], w["lw2"], color="C3", alpha=0.35, label=f"area a = {w['area_a']:.4f} m·rad")
        m = (x >= w["theta_e"]) & (x <= w["theta2"])
        ax2.fill_between(dg[m], w["lw2"], gz[m], color="C2", alpha=0.4, label=f"area b = {w['area_b']:.4f} m·rad")
    marks = [(ax2, "θ0", w["theta0"], "C3", ":"), (ax2, "θ0 − θ1", w["theta_r"], "C3", "-."),
             (ax2, "θ2", w["theta2"], "C2", "-."), (ax1, "θf", cr.theta_f, "k", "--"),
             (ax2, "θf", cr.theta_f, "k", "--"), (ax1, "θd", cr.theta_d, "C5", ":"),
             (ax2, "θd", cr.theta_d, "C5", ":")]
    for ax, name, ang, col, ls in marks:
        if ang is None or not math.isfinite(ang) or not lo <= ang <= hi:
            continue
        ax.axvline(math.degrees(ang), color=col, ls=ls, lw=0.9)
        ax.text(math.degrees(ang), ymax - 0.02 * (ymax - ymin), f" {name} {math.degrees(ang):.1f}°", rotation=90,
                va="top", ha="left", fontsize=8, color=col)
    ax2.set_xlim(math.degrees(lo), math.degrees(hi))
    ax2.set_xlabel("heel angle (deg), starboard down positive; negative: rolled to windward")
    ax1.set_title("general criteria (IS Code 2.2)", fontsize=9)
    ax2.set_title("severe wind and rolling, the weather criterion (IS Code 2.3)", fontsize=9)
    for ax in (ax1, ax2):
        ax.legend(fontsize=7.5, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    met = sum(1 for r in cr.rows if r.passed)
    fig.suptitle(f"IMO 2008 IS Code criteria, indicative below 24 m: {met} of {len(cr.rows)} met\n{rep.tag}",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI, format="png")
    plt.close(fig)
