"""The report's roll figures: the roll period estimated from the GZ curve and measured in a roll-decay run.

The small-angle and one-degree-of-freedom periods (s) come from
:mod:`aurgen.analysis.roll_period`; the roll-decay run releases the emitted
MJCF in the runtime (``aurgen.runtime.sim``) at a heel (deg) from the rest
heel and samples the root body's roll (rad) at 100 Hz; its period (s), log
decrement (per cycle) and damping ratio are read off the zero crossings and
peaks about the rest heel. Heel about +x of base_link, starboard down positive.
"""

from __future__ import annotations

import math

import numpy as np

from aurgen.analysis import payload as pl
from aurgen.analysis import roll_period as rp
from aurgen.analysis import stability as st


def roll_figures(vehicle, body, heel: st.GZCurve, eq=None, run: bool = True, progress=None) -> dict:
    """The small-angle roll period and, when the runtime is available, a roll-decay run from 10° heel."""
    V, _ = st.full_volume(body)
    V_disp = V if heel.submerged else body.mass / body.rho  # floating: displaced volume = m/ρ
    ixx = float(vehicle.specs.inertia[0][0])
    added = rp.added_roll_inertia(vehicle)
    out = {"ixx": ixx, "added": added, "volume": V_disp, "gm_t": heel.gm,
           "estimate": rp.roll_period(ixx, added, body.rho, V_disp, heel.gm), "decay": None,
           "decay_note": None, "heel0_deg": DECAY_HEEL_DEG, "mass": body.mass}
    amp = math.radians(DECAY_HEEL_DEG)
    try:
        phe = rp.equilibrium_angle(heel)
        pw = st.Piecewise(heel.arm, max(phe - 1.5 * amp, -math.pi), phe + amp)
        out["pieces"], out["phi_e"] = pw, phe
        out["amplitude"] = rp.roll_period_at(heel, amp, ixx + added, body.mass, phi_e=phe, pieces=pw)["period"]
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
                per.append(rp.roll_period_at(heel, amp_k, ixx + added, body.mass, phi_e=out["phi_e"],
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
    half-cycle values show it; ``per_cycle`` holds them as per-cycle figures
    (2 ln|x_k/x_(k+1)|) and ``exponential`` says whether they agree within
    :data:`EXPONENTIAL_RATIO` (only then is the decay one exponential).
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
    per = [2 * h for h in halves]
    return {"delta": d, "zeta": d / math.sqrt(4 * math.pi ** 2 + d * d), "peaks": peaks, "deltas": halves,
            "per_cycle": per, "floor": floor,
            "exponential": len(per) >= 2 and min(per) > 0 and max(per) / min(per) <= EXPONENTIAL_RATIO}


# A decay is called exponential (one δ describes it: linear damping) when its per-cycle decrements, each half
# cycle's 2 ln|x_k/x_(k+1)|, lie within this ratio of each other (a linearly damped sine's are equal); otherwise
# δ and ζ are averages over the swings measured, not constants of the motion.
EXPONENTIAL_RATIO = 1.2


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

    xml = build.model_mjcf(vehicle)
    sim = Simulation(xml, water=body.rho)
    try:
        d = sim.data
        G = np.asarray(body.com, float)
        if eq is not None:
            R0, p0 = np.asarray(eq.mat, float), np.asarray(eq.pos, float)
            ref = float(eq.heel)
        else:
            ref, trim = pl.submerged_attitude(G, st.full_volume(body)[1])
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
