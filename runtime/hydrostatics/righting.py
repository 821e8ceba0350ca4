"""The righting-arm curve on a stable branch: heeled at constant displacement, the trim
followed along the pitch-stable branch from upright (``RightingArm``, ``gz_curve``).

Frames, signs and units as in :mod:`aurgen.runtime.hydrostatics.equilibrium` (heel about +x, trim about
+y bow down, GZ positive righting, angles in rad, lengths in m).  Everything goes through
the compiled kernel; nothing here depends on g.
"""
from __future__ import annotations

import math

import numpy as np

from aurgen.core.records import record

from aurgen.runtime.hydrostatics.equilibrium import _Body, _features, _residual, attitude, equilibrium

#: cells of the full-range trim scan, [-π, π) (2.5° each): every sign change of the
#: longitudinal offset in a cell is a trim equilibrium, refined by Brent's method
TRIM_SCAN = 144


def _wrap(a):
    """Angle wrapped into [-π, π) (rad)."""
    return (a + np.pi) % (2 * np.pi) - np.pi


@record
class HeelState:
    """The body heeled ``heel`` (rad) at constant displacement, trim on the followed branch.

    trim (rad, bow down positive); ``d`` (m): the water is ``nb·x <= d`` in the
    body frame, ``nb = R^T e_z``; ``gz`` (m): righting arm ``-(R (B - G))_y``;
    ``pitch_slope`` (m/rad): d(world x offset of B from G)/d(trim) at the trim,
    positive when the trim is pitch-stable (nan with trim held); ``others``:
    the other pitch-stable trims at this heel (rad; None when no full-range
    scan was made); ``jump``: the followed branch ended (a fold) between the
    previous sample of the sweep and this one, and the trim jumped to the
    stable one the pitch moment turns the body to (:func:`_downhill`).
    """

    heel: float
    trim: float
    d: float
    gz: float
    pitch_slope: float
    others: tuple | None = None
    jump: bool = False


@record
class CurveEnd:
    """Where a free-trim curve stops describing the body (:meth:`RightingArm.end`), on the positive side.

    ``at`` (rad): the heel; ``kind``: ``"fold"``, the pitch-stable trim branch continuous with upright ends (its
    root meets an unstable one and both vanish, or it turns unstable: a pitchfork of a symmetric body), or
    ``"ninety"``, the trim passes ±90° (the heel axis is then vertical, and a heel angle means nothing);
    ``trim`` (rad): the trim there (the last one found on the branch for a fold, ±π/2 for ninety); ``gz`` (m).
    """

    at: float
    kind: str
    trim: float
    gz: float


class _TrimResidual:
    """f(trim) = world x offset of B from G (m) at a fixed heel; warm-starts each draft solve."""

    def __init__(self, body, phi):
        self.body, self.phi, self.d, self.memo = body, phi, None, {}

    def __call__(self, t):
        t = float(t)
        if t not in self.memo:  # one value per trim, whatever the warm start
            r, d, _, _, _ = _residual(self.body, self.phi, t, self.d)
            self.d = d
            self.memo[t] = float(r[0])
        return self.memo[t]


def _newton_trim(f, t0, tol, h=1e-6):
    """Damped Newton (central-difference slope) on f from t0: (trim, converged).

    Once |f| <= tol, one more full step is taken if it lowers |f| (quadratic
    convergence puts the root at rounding level, so GZ is smooth to ~1e-15 m).
    """
    t = float(t0)
    ft = f(t)
    for _ in range(40):
        if abs(ft) <= tol:
            dfd = (f(t + h) - f(t - h)) / (2 * h)
            if dfd != 0 and np.isfinite(dfd):
                tn = t - ft / dfd
                fn = f(tn)
                if abs(fn) < abs(ft):
                    t, ft = tn, fn
            return t, True
        dfd = (f(t + h) - f(t - h)) / (2 * h)
        if dfd == 0 or not np.isfinite(dfd):
            return t, False
        step = float(np.clip(-ft / dfd, -0.2, 0.2))
        lam = 1.0
        for _ in range(20):
            tn = t + lam * step
            fn = f(tn)
            if abs(fn) < abs(ft):
                break
            lam *= 0.5
        else:
            return t, abs(ft) <= tol
        t, ft = tn, fn
    return t, abs(ft) <= tol


def _downhill(f, t0, stable):
    """The pitch-stable trim (rad) a body at trim ``t0`` reaches when its pitch moment turns it: the first of
    ``stable`` met going from t0 the way the moment acts (bow up, i.e. trim decreasing, while B is forward of
    G, f(t0) > 0), around the circle; the nearest one if f(t0) = 0."""
    f0 = f(t0)
    if f0 == 0.0:
        return min(stable, key=lambda c: abs(_wrap(c - t0)))
    s = -1.0 if f0 > 0 else 1.0
    return min(stable, key=lambda c: (s * (c - t0)) % (2 * np.pi))


def _pitch_slope(f, t, h=1e-6):
    return (f(t + h) - f(t - h)) / (2 * h)


def _stable_trims(body, phi, n=TRIM_SCAN):
    """All pitch-stable trims (rad, in [-π, π)) at heel ``phi``: a scan of the full circle.

    Stable means the longitudinal offset of B from G rises through zero as the
    bow goes down (a positive restoring slope).  Each sign change in a scan cell
    is refined by Brent's method to 1e-14 rad.  Two roots closer together than a
    cell (2.5°) are not resolved by the scan.
    """
    f = _TrimResidual(body, phi)
    grid = np.linspace(-np.pi, np.pi, n + 1)
    vals = [f(t) for t in grid[:-1]]
    vals.append(vals[0])  # periodic
    out = []
    for i in range(n):
        a, b = vals[i], vals[i + 1]
        if a == 0.0 and b > 0.0:
            out.append(float(grid[i]))
        elif a < 0.0 < b or (a < 0.0 and b == 0.0):
            out += [float(_wrap(r)) for r in _rising_roots(f, grid[i], grid[i + 1])]
    return out


def _rising_roots(f, a, b, depth=0):
    """Roots of f in [a, b] (f(a) < 0 <= f(b)) where f rises: Brent's root, and if that one falls (three
    roots in the cell, as next to a pitchfork), the rising roots on either side of it."""
    r = _root_in(f, a, b)
    if _pitch_slope(f, r) > 0 or depth >= 4:
        return [r]
    eps = 1e-9
    out = []
    if r - eps > a and f(r - eps) > 0:
        out += _rising_roots(f, a, r - eps, depth + 1)
    if r + eps < b and f(r + eps) < 0:
        out += _rising_roots(f, r + eps, b, depth + 1)
    return out


def _root_in(f, a, b, xtol=1e-14):
    """Brent's root of f in [a, b]; if f's sign at the ends is noise (a root at an end), the better end."""
    from scipy.optimize import brentq

    fa, fb = f(a), f(b)
    if fa * fb > 0:
        return a if abs(fa) <= abs(fb) else b
    if fa == 0.0 or fb == 0.0:
        return a if fa == 0.0 else b
    return brentq(f, a, b, xtol=xtol, rtol=1e-15)


class RightingArm:
    """GZ(heel) of a floating body at constant displacement, the trim following one pitch-stable branch.

    geoms: Geoms in the body frame (base_link), m; mass kg; com (3,) m body
    frame; rho kg/m^3.  Angles rad; signs and frames as in the module
    docstring.  With ``free_trim`` the trim at each heel is a root of the
    longitudinal B-G offset with a positive restoring slope (pitch-stable):
    :meth:`sweep` scans the full ±π trim range at every sample and follows the
    branch continuous with upright (at zero heel, the stable trim nearest 0),
    from 0 outwards on each side, on through a pitchfork that leaves stable
    trims next to it (:meth:`_emerging`); where that branch ends (a fold) it
    jumps to the stable trim the pitch moment turns the body to (the first one
    met going from the old trim the way the moment acts, :func:`_downhill`) and
    records where (:attr:`jumps`).  :meth:`end` says where the branch stops
    describing the body (a fold, or the trim past ±90°): the report's curve
    ends there.  Without ``free_trim`` the trim is held at the upright
    equilibrium's.

    The curve is smooth (analytic) except where the waterplane meets a vertex
    of a box or mesh hull, a cylinder or capsule rim's extreme point or a
    smooth geom's support point, and at branch jumps: :meth:`breaks` finds those
    angles from the geometry.  A body that sinks has no curve (``sinks``).
    """

    def __init__(self, geoms, mass, com, rho, free_trim=True):
        geoms = list(geoms)
        self.body = body = _Body(geoms, mass, com, rho)
        self.sinks = body.rho * body.Vfull < body.mass * (1 - 1e-12)
        if body.rho * body.Vfull <= body.mass * (1 + 1e-12):
            body.V0 = body.Vfull
        self.tol = 1e-12 * body.L
        self.free_trim = free_trim
        self.trim_held = 0.0 if free_trim or self.sinks else float(equilibrium(geoms, mass, com, rho).trim)
        self._heights = _features(body)
        self.samples = {}  # heel -> HeelState, every state computed by a sweep
        self.jumps = []  # (heel where the followed branch ends, trim before, trim after), rad
        self.fold_trims = {}  # heel of a jump -> the branch's last trim found before it (rad)

    # ------------------------------------------------------------------ one state

    def _make(self, phi, trim, f=None, others=None, jump=False):
        R = attitude(phi, trim)
        d, B, _ = self.body.draft_for(R[2, :])
        gz = -float((R @ (B - self.body.com))[1])
        slope = _pitch_slope(f, trim) if f is not None else float("nan")
        return HeelState(float(phi), float(_wrap(trim)), float(d), gz, float(slope), others, jump)

    def _guess(self, phi):
        """Trim guess at ``phi`` from the swept samples on the same side of any jump (rad)."""
        if not self.samples:
            return self.trim_held
        hs = sorted(self.samples)
        k = int(np.searchsorted(hs, phi))
        if k == 0:
            return self.samples[hs[0]].trim
        if k == len(hs):
            return self.samples[hs[-1]].trim
        a, b = self.samples[hs[k - 1]], self.samples[hs[k]]
        for pj, _, _ in self.jumps:
            if a.heel < pj < b.heel:
                return a.trim if phi <= pj else b.trim
        w = (phi - a.heel) / (b.heel - a.heel) if b.heel > a.heel else 0.0
        return float(_wrap(a.trim + w * _wrap(b.trim - a.trim)))

    def at(self, phi, guess=None) -> HeelState:
        """The state at heel ``phi`` on the followed branch (Newton from ``guess``, default interpolated
        from the sweep); checked pitch-stable, else the nearest stable trim from a full scan."""
        phi = float(phi)
        if not self.free_trim:
            return self._make(phi, self.trim_held)
        g = self._guess(phi) if guess is None else float(guess)
        f = _TrimResidual(self.body, phi)
        t, ok = _newton_trim(f, g, self.tol)
        if ok and _pitch_slope(f, t) > 0 and abs(_wrap(t - g)) < 0.2:
            return self._make(phi, t, f)
        near = self._before_fold(phi)
        if near is not None:  # between the last sample and a fold: the stable root lies between their trims
            a, b = sorted(near)
            if f(a) < 0 < f(b):
                t = _root_in(f, a, b)
                if _pitch_slope(f, t) > 0:
                    return self._make(phi, t, f)
        cands = _stable_trims(self.body, phi)
        if not cands:
            return self._make(phi, t, f)
        t = min(cands, key=lambda c: abs(_wrap(c - g)))
        return self._make(phi, t, f)

    def _before_fold(self, phi):
        """(the trim of the last swept sample before a fold, the fold's trim) rad when ``phi`` lies between them,
        else None.  Near a fold the stable root and its unstable twin lie closer than the trim scan resolves and
        Newton may take either; on the branch between the two the moment arm rises through the stable root only."""
        for pj, t_fold in self.fold_trims.items():
            if not (0.0 < abs(phi) < abs(pj)) or phi * pj <= 0:
                continue
            side = [a for a in self.samples if a * pj >= 0 and abs(a) < abs(pj)]
            a = max(side, key=abs, default=None)
            if a is not None and abs(a) < abs(phi):
                return self.samples[a].trim, t_fold
        return None

    def _step(self, phi, prev):
        """Continue the branch from state ``prev`` to heel ``phi`` with a full-range scan."""
        if not self.free_trim:
            return self._make(phi, self.trim_held)
        f = _TrimResidual(self.body, phi)
        stable = _stable_trims(self.body, phi)
        t_prev = prev.trim if prev is not None else 0.0
        tn, ok = _newton_trim(f, t_prev, self.tol)
        newton_ok = ok and _pitch_slope(f, tn) > 0
        cands = list(stable) + ([tn] if newton_ok else [])
        if not cands:  # no pitch-stable trim found: keep Newton's root (flagged by its slope)
            return self._make(phi, tn, f, (), False)
        t = min(cands, key=lambda c: abs(_wrap(c - t_prev)))
        jump = prev is not None and not (newton_ok and abs(_wrap(t - tn)) <= 1e-9)
        if newton_ok and abs(_wrap(t - tn)) <= 1e-9:
            t = tn
        elif jump:
            # Newton from the last trim can fail on a long step while the branch goes on: follow it in
            # bisected steps (and through a pitchfork); only if it ends before phi is this a jump
            pj, t_lo, reached = self._follow(prev, phi)
            if reached:
                t, jump = t_lo, False
            elif stable:
                t = _downhill(f, t_prev, stable)
        others = tuple(c for c in stable if abs(_wrap(c - t)) > 1e-7)
        st = self._make(phi, t, f, others, jump)
        if jump:
            self.jumps.append((pj, prev.trim, st.trim))
            self.fold_trims[pj] = t_lo
        return st

    def _follow(self, prev, phi):
        """(heel, trim, reached) rad: the branch through state ``prev`` followed to ``phi`` in bisected steps
        (:meth:`_locate_fold`) and on through each point where its root turns unstable but stable roots emerge
        (:meth:`_emerging`): phi and the trim there (reached True), or where it ends (a fold) and its last trim."""
        st = prev
        for _ in range(64):
            pj, t_lo = self._locate_fold(st, phi)
            if abs(phi - pj) <= 1e-12:
                f = _TrimResidual(self.body, phi)
                tc, ok = _newton_trim(f, t_lo, self.tol)
                if ok and _pitch_slope(f, tc) > 0 and abs(_wrap(tc - t_lo)) < 0.2:
                    return phi, tc, True
                return pj, t_lo, False
            st = self._emerging(pj, t_lo, phi)
            if st is None:
                return pj, t_lo, False
        return pj, t_lo, False

    def _emerging(self, pj, t_lo, phi, step=1e-6, reach=0.01):
        """The state ``step`` rad past ``pj`` towards ``phi`` on the pitch-stable trim nearest ``t_lo`` within
        ``reach`` rad of it, or None.  Where Newton lost the branch at pj with slope ~0 there, stable roots still
        near its last trim mean it goes on: a pitchfork of a symmetric body (two stable roots branch off the one
        that turned unstable, ~√(φ − pj) from it; of a nearly symmetric one, the sharp turn of the continuous
        branch) or a fold located early; none means a fold (the root met an unstable one, and both vanished)."""
        p = pj + math.copysign(step, phi - pj)
        if (p - pj) * (phi - p) <= 0:
            return None
        f = _TrimResidual(self.body, p)
        cands = []
        for off in (1e-4, 1e-3, 5e-3):
            for sgn in (-1.0, 1.0):
                t, ok = _newton_trim(f, t_lo + sgn * off, self.tol)
                if ok and _pitch_slope(f, t) > 0 and abs(_wrap(t - t_lo)) < reach:
                    cands.append(t)
        return self._make(p, min(cands, key=lambda c: abs(_wrap(c - t_lo))), f) if cands else None

    def _locate_fold(self, prev, phi):
        """(heel, trim) rad: where between prev.heel and phi the branch through ``prev`` stops being followable
        (phi less ~1e-13 if it is followable all the way), and the branch's last trim found before it."""
        lo, t_lo, hi = prev.heel, prev.trim, phi
        for _ in range(60):
            if abs(hi - lo) <= 1e-13:
                break
            mid = 0.5 * (lo + hi)
            f = _TrimResidual(self.body, mid)
            t, ok = _newton_trim(f, t_lo, self.tol)
            if ok and _pitch_slope(f, t) > 0 and abs(_wrap(t - t_lo)) < 0.2:
                lo, t_lo = mid, t
            else:
                hi = mid
        return 0.5 * (lo + hi), t_lo

    def sweep(self, angles, progress=None, until_end=False) -> list:
        """States at each heel in ``angles`` (rad), continued from upright outwards on each side.

        With ``until_end`` a side stops at the first sample past the branch's end (a jump, no pitch-stable trim,
        or the trim past ±90°: :meth:`end`); the angles not swept are None."""
        ang = np.atleast_1d(np.asarray(angles, dtype=np.float64))
        out = [None] * len(ang)
        if self.sinks:
            return out
        zero = self.samples.get(0.0) or self._step(0.0, None)
        self.samples[0.0] = zero
        done = 0
        for side in (1.0, -1.0):
            idx = [i for i in range(len(ang)) if (ang[i] > 0 if side > 0 else ang[i] < 0)]
            idx.sort(key=lambda i: abs(ang[i]))
            prev = zero
            for i in idx:
                phi = float(ang[i])
                st = self.samples.get(phi) or self._step(phi, prev)
                self.samples[phi] = st
                out[i] = prev = st
                done += 1
                if progress:
                    progress(done, len(ang))
                if until_end and self.free_trim and _past_end(st):
                    break
        for i in range(len(ang)):
            if ang[i] == 0.0:
                out[i] = zero
        if progress and done < len(ang):
            progress(len(ang), len(ang))
        return out

    def end(self) -> CurveEnd | None:
        """Where the followed branch stops describing the body on the positive side, from the swept samples: the
        first jump (at the fold :meth:`_step` located), the first sample with no pitch-stable trim (the fold located
        by :meth:`_locate_fold`), or the first passage of the trim through ±90° (Brent's method on cos(trim) along
        the branch, to 1e-13 rad), whichever comes first; None if the samples show none (or the trim is held)."""
        if not self.free_trim or self.sinks or 0.0 not in self.samples:
            return None
        prev = self.samples[0.0]
        for a in sorted(a for a in self.samples if a > 0.0):
            s = self.samples[a]
            js = [j[0] for j in self.jumps if prev.heel < j[0] <= s.heel]
            if js or s.jump or not s.pitch_slope > 0:
                pj, t = (js[0], self.fold_trims.get(js[0], prev.trim)) if js else self._locate_fold(prev, a)
                self.fold_trims[pj] = t
                e = self._make(pj, t)
                return CurveEnd(float(pj), "fold", e.trim, e.gz)
            if math.cos(s.trim) <= 0.0:
                from scipy.optimize import brentq

                lo, hi = prev.heel, s.heel  # the samples' own signs at the ends (a re-solve there may round)
                p = brentq(lambda x: math.cos(prev.trim if x == lo else s.trim if x == hi else self.at(x).trim),
                           lo, hi, xtol=1e-13)
                return CurveEnd(float(p), "ninety", math.copysign(math.pi / 2, s.trim), self.at(p).gz)
            prev = s
        return None

    # ------------------------------------------------------------------ kinks

    def heights(self, st: HeelState) -> np.ndarray:
        """Height (m) of each kink feature above the water at state ``st`` (negative: submerged)."""
        return self._heights(attitude(st.heel, st.trim)[2, :]) - st.d

    def breaks(self, lo, hi) -> list:
        """Heels (rad) in (lo, hi) where GZ is not smooth: a kink feature crosses the water, or a jump.

        Crossings are bracketed between the swept samples (and the ends) and
        refined by Brent's method on the feature's height to 1e-13 rad.  Where
        a feature keeps its sign across a bracket but comes within the reach of
        its sampled curvature of the water, the bracket is halved (up to 8
        times) so that a dip below and back is not missed.
        """
        lo, hi = float(lo), float(hi)
        if hi <= lo or self.sinks:
            return []
        inner = [self.samples[a] for a in sorted(self.samples) if lo < a < hi]
        sts = [self.at(lo)] + inner + [self.at(hi)]
        H = np.array([self.heights(s) for s in sts])
        x = np.array([s.heel for s in sts])
        # curvature scale of each feature's height from the samples
        curv = np.zeros(H.shape[1])
        if len(x) >= 3:
            sl = np.diff(H, axis=0) / np.diff(x)[:, None]
            c2 = np.abs(np.diff(sl, axis=0)) / (0.5 * (x[2:] - x[:-2]))[:, None]
            curv = 4.0 * c2.max(axis=0)
        out = [pj for pj, _, _ in self.jumps if lo < pj < hi]

        def feat(k, phi, g):
            return float(self.heights(self.at(phi, g))[k])

        def scan(a, b, ha, hb, depth):
            g = 0.5 * (a.trim + b.trim) if abs(a.trim - b.trim) < np.pi else a.trim
            for k in np.nonzero(ha * hb < 0)[0]:
                out.append(_root_in(lambda p: feat(k, p, self._guess(p)), a.heel, b.heel, xtol=1e-13))
            for k in np.nonzero((ha == 0) & (a.heel > lo))[0]:
                out.append(a.heel)
            same = (ha * hb > 0) & (np.minimum(np.abs(ha), np.abs(hb)) < curv * (b.heel - a.heel) ** 2 / 8)
            if depth < 8 and same.any():
                m = self.at(0.5 * (a.heel + b.heel), g)
                hm = self.heights(m)
                # recurse on the features in doubt only
                ha2, hb2 = np.where(same, ha, 1.0), np.where(same, hb, 1.0)
                hm2 = np.where(same, hm, 1.0)
                scan(a, m, ha2, hm2, depth + 1)
                scan(m, b, hm2, hb2, depth + 1)

        for i in range(len(sts) - 1):
            scan(sts[i], sts[i + 1], H[i], H[i + 1], 0)
        out = sorted(set(float(p) for p in out if lo < p < hi))
        # merge breaks closer than 1e-12 rad
        merged = []
        for p in out:
            if not merged or p - merged[-1] > 1e-12:
                merged.append(p)
        return merged


def _past_end(st: HeelState) -> bool:
    """Whether the state lies past its branch's end: reached by a jump, at no pitch-stable trim, or past ±90°."""
    return st.jump or not st.pitch_slope > 0 or math.cos(st.trim) <= 0.0


def gz_curve(geoms, mass, com, rho, heel_angles_rad, free_trim=True) -> np.ndarray:
    """Righting arm GZ (m) at each heel angle (rad), at constant displacement.

    Positive GZ rights the body.  With free_trim the trim at each heel is the
    pitch-stable one followed from upright (:class:`RightingArm`, a full ±π
    scan at every angle); otherwise it is held at the upright equilibrium's
    trim.  A body that sinks gives nan.
    """
    arm = RightingArm(geoms, mass, com, rho, free_trim)
    ang = np.atleast_1d(np.asarray(heel_angles_rad, dtype=np.float64))
    out = np.full(ang.shape, np.nan)
    if arm.sinks:
        return out
    for k, st in enumerate(arm.sweep(ang)):
        out[k] = st.gz
    return out
