"""``aurgen report``: a stability and trim report directory (report.md + PNG figures).

The numbers come from :mod:`aurgen.analysis.stability` (the hydrostatics kernel); this
module only draws and writes. Figures use matplotlib's Agg backend and carry
units, the vehicle name and the config hash. The directory is built in a temp
directory beside the target and renamed into place, so a failed report never
leaves half a directory behind.
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from aurgen.compose import specs as specs_mod
from aurgen.analysis import stability as st
from aurgen.compose.resolve import resolve
from aurgen.core.files import check_dir, write_set

FIG_SIZE = (8.0, 5.0)
DPI = 100


# --------------------------------------------------------------------------- progress


class Progress:
    """Stage and count progress on a stream (stderr): a rewritten line on a terminal, stage lines otherwise."""

    def __init__(self, stream=None, quiet: bool = False):
        self.stream = stream if stream is not None else sys.stderr
        self.quiet = quiet
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.stage_name = ""
        self.t0 = time.monotonic()

    def stage(self, name: str):
        self.stage_name = name
        self.t0 = time.monotonic()
        if not self.quiet and not self.tty:
            print(f"report: {name} ...", file=self.stream, flush=True)

    def __call__(self, done: int, total: int):
        if self.quiet or not self.tty:
            return
        end = "\n" if done >= total else ""
        print(f"\rreport: {self.stage_name} {done}/{total} ({time.monotonic() - self.t0:.1f} s)", end=end,
              file=self.stream, flush=True)


# --------------------------------------------------------------------------- the computation


@dataclass
class Report:
    """Everything the report shows (SI units; angles rad)."""

    vehicle: object
    eq: object | None
    heel: st.GZCurve
    trim: st.GZCurve | None
    load: st.LoadLine
    balance: st.Balance | None
    roll: dict
    notes: list = field(default_factory=list)
    capacity: dict | None = None  # the vehicle at its base part's published payload capacity (capacity_point)

    @property
    def tag(self) -> str:
        return f"{self.vehicle.name} (config {self.vehicle.sha256[:12]})"


def compute(vehicle, payload_at=None, progress: Progress | None = None, roll_decay: bool = True,
            step_deg: float = 1.0, load_samples: int = 41) -> Report:
    """All the report's figures for a resolved vehicle (no files written)."""
    progress = progress or Progress(quiet=True)
    body = st.body_of(vehicle)
    uuv = vehicle.displacement.kind == "buoyancy"
    notes = []
    eq = None
    if st.floats(body):
        from aurgen.runtime import hydrostatics as hs

        eq = hs.equilibrium(list(body.geoms), body.mass, body.com, body.rho)
        if not getattr(eq, "converged", True):
            notes.append("the kernel found no converged floating equilibrium")
            eq = None
    progress.stage("righting arm (heel)")
    heel = st.gz_curve(body, "heel", step_deg, progress)
    trim = None
    if uuv:
        progress.stage("righting arm (trim)")
        trim = st.gz_curve(body, "trim", step_deg, progress)
    at = np.asarray(payload_at, float) if payload_at is not None else st.default_payload_point(vehicle)
    progress.stage("load line")
    load = st.load_line(body, at, load_samples, progress)
    balance = st.uuv_balance(vehicle, at, body) if uuv else None
    capacity = None if uuv else capacity_point(vehicle, body, at)
    progress.stage("roll decay")
    roll = roll_figures(vehicle, body, heel, eq=eq, run=roll_decay, progress=progress)
    return Report(vehicle, eq, heel, trim, load, balance, roll, notes, capacity)


def capacity_point(vehicle, body, at) -> dict | None:
    """The floating equilibrium with the base part's published ``payload_capacity`` (kg) at ``at``:
    {payload, draft m, heel rad, trim rad, freeboard m}, or None (no figure, or no upright
    equilibrium: then ``note`` says so)."""
    from aurgen.config.catalog import catalog_for
    from aurgen.runtime import hydrostatics as hs

    base = vehicle.link(vehicle.base).part_type
    cap = catalog_for(vehicle.source).get(base).payload_capacity
    if cap is None:
        return None
    bb = body.with_payload(cap, at)
    e = hs.equilibrium(list(bb.geoms), bb.mass, bb.com, bb.rho)
    if not getattr(e, "converged", True):
        return {"payload": cap, "source": base, "note": "no upright floating equilibrium at this payload"}
    return {"payload": cap, "source": base, "draft": float(e.draft), "heel": float(e.heel), "trim": float(e.trim),
            "freeboard": float(st.freeboard_of(bb, e))}


def roll_figures(vehicle, body, heel: st.GZCurve, eq=None, run: bool = True, progress=None) -> dict:
    """The small-angle roll period and, when the runtime is available, a roll-decay run from 10° heel."""
    V, _ = st.full_volume(body)
    V_disp = V if heel.submerged else body.mass / body.rho  # floating: displaced volume = m/ρ
    ixx = float(vehicle.specs.inertia[0][0])
    added = st.added_roll_inertia(vehicle)
    out = {"ixx": ixx, "added": added, "volume": V_disp, "gm_t": heel.gm,
           "estimate": st.roll_period(ixx, added, body.rho, V_disp, heel.gm), "decay": None,
           "decay_note": None, "heel0_deg": DECAY_HEEL_DEG, "mass": body.mass}
    amp = math.radians(DECAY_HEEL_DEG)
    try:
        phe = st.equilibrium_angle(heel)
        pw = st.Piecewise(heel.arm, max(phe - 1.5 * amp, -math.pi), phe + amp)
        out["pieces"], out["phi_e"] = pw, phe
        out["amplitude"] = st.roll_period_at(heel, amp, ixx + added, body.mass, phi_e=phe, pieces=pw)["period"]
    except (ArithmeticError, ValueError) as exc:
        out["amplitude"], out["amplitude_note"] = None, f"no 1-DOF period at {DECAY_HEEL_DEG:.0f}°: {exc}"
    if not run:
        out["decay_note"] = "roll-decay run not requested"
        return out
    try:
        from aurgen.runtime.sim import Simulation
    except ImportError as exc:
        out["decay_note"] = f"roll-decay run left out: the runtime simulation is not available ({exc})"
        return out
    if not heel.submerged and eq is None:
        out["decay_note"] = "roll-decay run left out: no floating equilibrium to release it from"
        return out
    try:
        out["decay"] = roll_decay(vehicle, body, Simulation, eq=eq, progress=progress)
    except Exception as exc:  # the runtime is someone else's: report its failure, don't hide it
        out["decay_note"] = f"roll-decay run failed: {type(exc).__name__}: {exc}"
        return out
    if out["decay"]["period"] is None:
        out["decay_note"] = (f"roll decay: fewer than two full swings in {out['decay']['t'][-1]:.0f} s "
                             "(overdamped or unstable); no period measured")
        return out
    d = out["decay"]
    d["decrement"] = log_decrement(d["t"], d["roll"], d["ref"])
    # the 1-DOF period at each measured swing's amplitude, averaged like the measurement
    if out.get("amplitude") is not None:
        per = []
        try:
            for _, _, amp_k in decay_cycles(d["t"], d["roll"], d["ref"]):
                amp_k = min(amp_k, amp)
                per.append(st.roll_period_at(heel, amp_k, ixx + added, body.mass, phi_e=out["phi_e"],
                                             pieces=out["pieces"])["period"])
        except (ArithmeticError, ValueError):
            per = []
        out["swings"] = float(np.mean(per)) if per else None
    return out


DECAY_HEEL_DEG = 10.0  # release heel of the roll-decay run (deg from the rest heel)


def _crossings(t, y):
    """Times where ``y`` changes sign (linear interpolation), and the direction (+1 up, −1 down)."""
    out = []
    for k in range(len(y) - 1):
        if (y[k] < 0 <= y[k + 1]) or (y[k] > 0 >= y[k + 1]):
            if y[k + 1] == y[k]:
                continue
            tc = t[k] + (t[k + 1] - t[k]) * (-y[k]) / (y[k + 1] - y[k])
            out.append((tc, 1 if y[k + 1] > y[k] else -1))
    return out


def decay_period(t, roll, ref: float, floor: float = 0.02):
    """Mean damped period (s) of roll about ``ref`` from its zero crossings; None with fewer than two.

    Only the swings larger than ``floor`` × the release amplitude count (after
    the motion has died out, numerical ripple about a slightly different rest
    heel would add spurious crossings). Same-direction crossings give whole
    periods; with only two crossings, twice the half period.
    """
    cyc = decay_cycles(t, roll, ref, floor)
    if cyc:
        return float(np.mean([t1 - t0 for t0, t1, _ in cyc]))
    t = np.asarray(t, float)
    y = np.asarray(roll, float) - ref
    big = np.nonzero(np.abs(y) > floor * abs(y[0]))[0]
    if big.size == 0:
        return None
    cr = _crossings(t[:min(len(y), big[-1] + 2)], y[:min(len(y), big[-1] + 2)])
    if len(cr) >= 2:
        return float(2 * (cr[1][0] - cr[0][0]))
    return None


def decay_cycles(t, roll, ref: float, floor: float = 0.02) -> list:
    """The cycles :func:`decay_period` averages: (start s, end s, amplitude rad) between same-direction zero
    crossings of roll about ``ref`` (both directions) or, with fewer than two of a kind, the half cycle
    between the first two crossings doubled; the amplitude is the largest |roll − ref| within the cycle.
    Swings below ``floor`` × the release amplitude are left out."""
    t = np.asarray(t, float)
    y = np.asarray(roll, float) - ref
    big = np.nonzero(np.abs(y) > floor * abs(y[0]))[0]
    if big.size == 0:
        return []
    end = min(len(y), big[-1] + 2)
    cr = _crossings(t[:end], y[:end])

    def amp(t0, t1):
        m = (t >= t0) & (t <= t1)
        return float(np.max(np.abs(y[m]))) if m.any() else 0.0

    out = []
    for sign in (1, -1):
        tc = [c for c, s in cr if s == sign]
        out += [(t0, t1, amp(t0, t1)) for t0, t1 in zip(tc[:-1], tc[1:])]
    if not out and len(cr) >= 2:
        t0, t1 = cr[0][0], cr[1][0]
        out = [(t0, t0 + 2 * (t1 - t0), amp(t0, t1))]
    return sorted(out)


def log_decrement(t, roll, ref: float, floor: float = 0.02) -> dict | None:
    """Logarithmic decrement of a free decay about ``ref`` (rad), per cycle: δ = 2 × the mean of
    ln(|x_k| / |x_{k+1}|) over successive peaks (half cycles apart, the release counting as the first),
    peaks larger than ``floor`` × the release amplitude; and ζ = δ / √(4π² + δ²) (exact for linear damping).

    Peaks are the sampled extrema of ``roll − ref`` refined by a parabola
    through the sample and its neighbours.  Returns δ, ζ, the peaks (t s,
    deviation rad) and the half-cycle decrements; None with fewer than two
    peaks.  With nonlinear (quadratic) damping δ falls with amplitude: the
    half-cycle values show it.
    """
    t = np.asarray(t, float)
    y = np.asarray(roll, float) - ref
    a0 = abs(y[0])
    peaks = [(float(t[0]), float(y[0]))]
    for k in range(1, len(y) - 1):
        if (y[k] >= y[k - 1] and y[k] > y[k + 1]) or (y[k] <= y[k - 1] and y[k] < y[k + 1]):
            den = y[k - 1] - 2 * y[k] + y[k + 1]
            s = 0.5 * (y[k - 1] - y[k + 1]) / den if den != 0 else 0.0
            yp = y[k] - 0.25 * (y[k - 1] - y[k + 1]) * s
            if abs(yp) > floor * a0 and np.sign(yp) != np.sign(peaks[-1][1]):
                peaks.append((float(t[k] + s * (t[k + 1] - t[k])), float(yp)))
    if len(peaks) < 2:
        return None
    halves = [math.log(abs(a) / abs(b)) for (_, a), (_, b) in zip(peaks[:-1], peaks[1:])]
    d = 2 * float(np.mean(halves))
    return {"delta": d, "zeta": d / math.sqrt(4 * math.pi ** 2 + d * d), "peaks": peaks, "deltas": halves}


def roll_decay(vehicle, body, Simulation, eq=None, heel_deg: float = 10.0, duration: float = 20.0,
               depth: float = 3.0, progress=None) -> dict:
    """Release the vehicle at ``heel_deg`` in the runtime (open water, ρ as declared) and time its roll.

    A floating vehicle starts from the kernel's equilibrium pose turned by the
    heel about the world x axis through its CoM; a submerged one from ``depth``
    m down. The roll of the root body is sampled at 100 Hz; the period is the
    mean of same-direction zero crossings about the equilibrium heel.
    """
    from aurgen.emit import build
    from aurgen.core import spatial

    xml = build.outputs(vehicle)[f"{vehicle.name}.xml"]
    sim = Simulation(xml, water=body.rho)
    try:
        d = sim.data
        G = np.asarray(body.com, float)
        if eq is not None:
            R0, p0 = np.asarray(eq.mat, float), np.asarray(eq.pos, float)
            ref = float(eq.heel)
        else:
            ref, trim = st.submerged_attitude(G, st.full_volume(body)[1])
            R0, p0 = spatial.rot_rpy((0.0, trim, 0.0)), np.array([0.0, 0.0, -depth])
            ref = 0.0 if abs(ref) < 1e-12 else ref
        Rh = spatial.rot_rpy((math.radians(heel_deg), 0.0, 0.0))
        R = Rh @ R0
        g_world = p0 + R0 @ G  # keep the CoM where it was
        d.qpos[:3] = g_world - R @ G
        d.qpos[3:7] = spatial.quat_of(R)
        d.qvel[:] = 0.0
        sim.forward()
        dt = sim.model.opt.timestep
        every = max(1, int(round(0.01 / dt)))
        n = int(round(duration / (every * dt)))
        b = sim._track
        t, roll = [0.0], [sim.body_state(b)["roll"]]
        for k in range(n):
            sim.step(every)
            t.append(float(d.time))
            roll.append(sim.body_state(b)["roll"])
            if progress and (k % 100 == 0 or k == n - 1):
                progress(k + 1, n)
        health = sim.check()
    finally:
        sim.close()
    t, roll = np.array(t), np.array(roll)
    return {"t": t, "roll": roll, "ref": ref, "heel0_deg": heel_deg, "period": decay_period(t, roll, ref),
            "health": str(health)}


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
    plt = _plt()
    fig, ax = plt.subplots(figsize=FIG_SIZE)
    deg = np.degrees(c.angles)
    ax.plot(deg, c.gz, color="C0", lw=1.8, label="GZ")
    ax.axhline(0.0, color="0.4", lw=0.8)
    # GM as the initial slope, drawn only over small angles (where it describes the curve): up to
    # GM_TANGENT_DEG, or where the tangent leaves the curve's own range, whichever is first
    lo, hi = _data_range(c.gz)
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
    ax.plot([math.degrees(c.angle_max_gz)], [c.max_gz], "o", color="C4",
            label=f"max GZ {c.max_gz:.4f} m at {math.degrees(c.angle_max_gz):.1f}°")
    if c.avs is not None:
        ax.plot([math.degrees(c.avs)], [0.0], "s", color="k",
                label=f"vanishing stability {math.degrees(c.avs):.1f}°")
    word = "heel" if c.axis == "heel" else "trim (bow down)"
    ax.set_xlabel(f"{word} angle (deg)")
    ax.set_ylabel("righting arm GZ (m)")
    ax.set_xlim(0, 180)
    ax.set_xticks(range(0, 181, 15))
    ax.set_ylim(lo, hi)  # from the curve (the tangent is cut to it): the GZ curve fills the axes
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="best")
    where = "wholly submerged" if c.submerged else "free-floating, free " + ("trim" if c.axis == "heel" else "heel")
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
    for ax, (y, lab) in zip(axes, rows):
        ax.plot(L.payload, y, ".-", color="C0", ms=3)
        ax.set_ylabel(lab)
        ax.grid(alpha=0.3)
        if L.zero_freeboard is not None and L.zero_freeboard <= xmax:
            ax.axvline(L.zero_freeboard, color="C3", ls="--", lw=1)
        if L.limit <= xmax:
            ax.axvline(L.limit, color="k", ls=":", lw=1)
        if rep.capacity is not None and rep.capacity["payload"] <= xmax:
            ax.axvline(rep.capacity["payload"], color="C2", ls="-.", lw=1)
    axes[-1].set_xlim(0.0, xmax)  # to the last sample with an equilibrium: the axis ends where the curves do
    axes[-1].axhline(0.0, color="0.4", lw=0.8)
    axes[-1].set_xlabel(f"payload (kg) at ({L.at[0]:.3f}, {L.at[1]:.3f}, {L.at[2]:.3f}) m")
    txt = f"reserve buoyancy {L.limit:.2f} kg" + (" (dotted)" if L.limit <= xmax else "")
    if L.zero_freeboard is not None:
        txt += f"; freeboard zero at {L.zero_freeboard:.2f} kg" + (" (dashed)" if L.zero_freeboard <= xmax else "")
    if rep.capacity is not None:
        txt += f"; published capacity {rep.capacity['payload']:g} kg (dash-dot)"
    if xmax < L.payload[-1]:
        txt += f"; no upright equilibrium beyond {xmax:.2f} kg"
    axes[0].set_title(txt, fontsize=9)
    _finish(fig, axes[0], rep, "Load line", path)


def fig_mass(rep: Report, path: Path):
    plt = _plt()
    parts = st.part_masses(rep.vehicle)
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
    plt = _plt()
    d = rep.roll["decay"]
    fig, ax = plt.subplots(figsize=FIG_SIZE)
    ax.plot(d["t"], np.degrees(d["roll"]), color="C0", lw=1.2, label="roll (runtime)")
    ax.axhline(math.degrees(d["ref"]), color="0.4", lw=0.8, label="equilibrium heel (kernel)")
    dec = d.get("decrement")
    if dec is not None:
        tp = np.array([p[0] for p in dec["peaks"]])
        yp = np.array([p[1] for p in dec["peaks"]])
        ax.plot(tp, np.degrees(d["ref"] + yp), "o", color="C3", ms=3, label="peaks")
        T = d["period"]
        a0 = abs(d["roll"][0] - d["ref"])
        env = a0 * np.exp(-dec["delta"] * np.asarray(d["t"]) / T)
        for sgn in (1, -1):
            ax.plot(d["t"], np.degrees(d["ref"] + sgn * env), color="C3", ls="--", lw=0.8,
                    label=f"log decrement δ = {dec['delta']:.3f} per cycle (ζ = {dec['zeta']:.3f})" if sgn > 0
                    else None)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("roll (deg)")
    ax.set_xlim(0.0, decay_extent(d))  # the decay's own length, not the whole run
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    est = rep.roll["estimate"]
    per = "no period measured" if d["period"] is None else f"measured period {d['period']:.3f} s"
    amp = rep.roll.get("amplitude")
    one = f", 1-DOF at {d['heel0_deg']:.0f}° {amp:.3f} s" if amp is not None else ""
    _finish(fig, ax, rep, f"Roll decay from {d['heel0_deg']:.0f}° heel: {per} "
            f"(small-angle {est:.3f} s{one})", path)


# --------------------------------------------------------------------------- text


def _deg(a) -> str:
    return "—" if a is None or not math.isfinite(a) else f"{math.degrees(a):.2f}°"


def _basis(c) -> str:
    """'free trim' (heel curve) / 'free heel' (trim curve), or 'trim held' / 'heel held' past a fold."""
    other = "trim" if c.axis == "heel" else "heel"
    return f"free {other}" if c.free_trim else f"{other} held"


def _fold(c) -> str:
    """' (<other> held: its free branch folds at X°)' when the curve is held past a fold, else ''."""
    other = "trim" if c.axis == "heel" else "heel"
    return "" if c.fold is None else f" ({other} held: the free-{other} branch folds at {_deg(c.fold)})"


def headline(rep: Report) -> list[tuple[str, str]]:
    """The headline rows printed by the CLI and opening report.md."""
    v, c = rep.vehicle, rep.heel
    rows = [("vehicle", f"{v.name} ({Path(v.source).name})"), ("config sha256", v.sha256),
            ("total mass", f"{v.specs.total_mass:.4f} kg")]
    if rep.eq is not None:
        rows.append(("draft", f"{rep.eq.draft:.4f} m, heel {_deg(rep.eq.heel)}, trim {_deg(rep.eq.trim)}"))
    gm_name = "BG_z (submerged GM_T)" if c.submerged else "GM_T"
    rows += [(gm_name, f"{c.gm:.5f} m (dGZ/dheel at 0° heel, {_basis(c)}: {c.slope0:.5f} m/rad)"),
             ("max GZ", f"{c.max_gz:.5f} m at {_deg(c.angle_max_gz)}"),
             ("vanishing stability", (_deg(c.avs) if c.avs is not None else "none up to 180°") + _fold(c)),
             ("area to 30°", f"{c.area_30:.6f} m·rad"), ("area to 40°", f"{c.area_40:.6f} m·rad")]
    if rep.trim is not None:
        t = rep.trim
        rows += [("GM_L" if not t.submerged else "BG_z (pitch)",
                  f"{t.gm:.5f} m (dGZ/dtrim at 0° trim, {_basis(t)}: {t.slope0:.5f} m/rad)"),
                 ("max GZ (trim)", f"{t.max_gz:.5f} m at {_deg(t.angle_max_gz)}"),
                 ("vanishing stability (trim)", (_deg(t.avs) if t.avs is not None else "none up to 180°") + _fold(t))]
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
            rows.append(("roll decay (runtime)", f"log decrement {dec['delta']:.3f} per cycle, "
                         f"ζ = {dec['zeta']:.3f} (measured)"))
    else:
        rows.append(("roll period (runtime)", r["decay_note"] or "—"))
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
           f"({v.displacement.kind} boxes, ρ = {v.displacement.fluid_density:g} kg/m³).", "",
           "## Headline", "", "| figure | value |", "|---|---|"]
    out += [f"| {k} | {val} |" for k, val in headline(rep)]
    out += ["", "## Specs", "", "```", specs_mod.table(specs_mod.rows(v, rep.eq)), "```", "",
            "## Mass by part", "", "Each fitted part's catalog mass and its share of the total: "
            "weigh the parts and compare.", "", "| link | part | mass (kg) | share |", "|---|---|---:|---:|"]
    for n, t, m, share in st.part_masses(v):
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
            out.append("Free-floating at constant displacement, the other angle free. GZ > 0 rights." if c.free_trim
                       else "Free-floating at constant displacement, the other angle held at the equilibrium's: "
                       f"its pitch-stable branch followed from upright folds at {_deg(c.fold)} and the free curve "
                       "falls through zero only where it jumps (see the note). GZ > 0 rights.")
        gname = "BG_z" if c.submerged else ("GM_T" if c.axis == "heel" else "GM_L")
        nbrk = len([x for x in c.breaks if x < math.radians(40.0) and abs(x - math.radians(30.0)) > 1e-12])
        free = "trim" if c.axis == "heel" else "heel"
        out += ["", f"- {gname} = {c.gm:.6f} m (the kernel's, at the equilibrium); the curve's slope at 0° "
                f"{c.axis} with {free} {'free' if c.free_trim else 'held'}: {c.slope0:.6f} m/rad",
                f"- maximum GZ {c.max_gz:.6f} m at {_deg(c.angle_max_gz)}",
                f"- angle of vanishing stability: {_deg(c.avs) if c.avs is not None else 'none up to 180°'}"
                + _fold(c),
                f"- area under GZ to 30°: {c.area_30:.6f} m·rad; to 40°: {c.area_40:.6f} m·rad"
                + (f" (integrated piecewise between the {nbrk} angles below 40° where a displacement-box corner "
                   "meets the water: GZ has a kink at each)" if nbrk else ""), ""]
        out += [f"- note: {n}" for n in c.notes]
        if c.axis in figures:
            out += [f"![GZ {c.axis}]({figures[c.axis]})", ""]
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
                       f"ζ = δ/√(4π² + δ²) = {dec['zeta']:.3f}.")
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
    out += ["", "## Limits", "",
            "Static free surface; the displacement is the declared boxes (not the hull's true shape); "
            "GZ at constant displacement; no wind heeling, free-surface or icing corrections. "
            "Curves and areas are measured from 0° (upright), also when the equilibrium has a list. "
            "Sampled, not exact: the vanishing angle is the first fall through zero after the maximum seen on "
            "the samples (then exact by Brent's method; a dip narrower than a sample step is not seen); the "
            "full-range trim scan resolves equilibria 2.5° apart or more; the runtime's period and decrement "
            "are measurements of a simulation, not exact figures.", ""]
    out += [f"- {n}" for n in rep.notes]
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- writing


def write(rep: Report, target: Path, progress: Progress | None = None) -> Path:
    """Write report.md and the PNGs into the folder ``target`` as one set (aurgen.core.files.write_set):
    only those files are replaced; a folder holding files aurgen did not write is refused."""
    progress = progress or Progress(quiet=True)
    target = Path(target)
    progress.stage("figures")
    figures = {"heel": "gz_heel.png", "mass": "mass.png"}
    fills = {target / figures["heel"]: lambda tmp: fig_gz(rep, rep.heel, tmp)}
    if rep.trim is not None:
        figures["trim"] = "gz_trim.png"
        fills[target / figures["trim"]] = lambda tmp: fig_gz(rep, rep.trim, tmp)
    if rep.load.payload.size:
        figures["load"] = "load_line.png"
        fills[target / figures["load"]] = lambda tmp: fig_load(rep, tmp)
    fills[target / figures["mass"]] = lambda tmp: fig_mass(rep, tmp)
    if rep.roll.get("decay") is not None:
        figures["decay"] = "roll_decay.png"
        fills[target / figures["decay"]] = lambda tmp: fig_decay(rep, tmp)
    fills[target / "report.md"] = markdown(rep, figures)
    write_set(fills, root=target)
    return target


def parse_point(text) -> np.ndarray | None:
    """A point "x y z" (or "x,y,z") in m, or None."""
    if text is None:
        return None
    from aurgen.core import limits
    from aurgen.core.errors import AurgenError

    try:
        if isinstance(text, (list, tuple, np.ndarray)):
            vals = [float(x) for x in text]
        else:
            vals = [float(x) for x in str(text).replace(",", " ").split()]
    except (TypeError, ValueError):
        vals = []
    if len(vals) != 3 or not all(math.isfinite(v) and abs(v) <= limits.LENGTH_MAX for v in vals):
        raise AurgenError(f"--payload-at wants three finite numbers 'x y z' in metres (each at most "
                          f"{limits.LENGTH_MAX:g} in magnitude), got {text!r}")
    return np.array(vals)


def cli_report(args) -> int:
    vehicle = resolve(args.config)
    target = Path(args.output) if getattr(args, "output", None) else Path("build") / vehicle.name / "report"
    payload_at = parse_point(getattr(args, "payload_at", None))
    check_dir(target)  # refuse a foreign folder before the work, not after
    progress = Progress(quiet=getattr(args, "quiet", False))
    rep = compute(vehicle, payload_at=payload_at, progress=progress,
                  roll_decay=not getattr(args, "no_roll_decay", False))
    write(rep, target, progress)
    print(f"{vehicle.name} ({vehicle.source})")
    print(specs_mod.table(headline(rep)))
    print(f"report: {target / 'report.md'}")
    return 0
