"""Intact stability figures from the hydrostatics kernel (pure functions, no I/O).

Everything here is a thin layer over ``aurgen.runtime.hydrostatics``: the
kernel owns "volume below a plane" (``clip``), the floating equilibrium
(``equilibrium``) and the righting arm at a heel (``gz_curve``); this module
holds the hydrostatic problem (:class:`Body`: displacement, mass, CoM, ρ) and
derives the figures a naval architect reads off those:

- the righting-arm curve GZ(φ) (m) with GM_T (m) as its initial slope, the
  maximum GZ and its angle, the angle of vanishing stability (AVS) and the
  areas under the curve to 30° and 40° (m·rad), with the trim branch it
  follows;
- the freeboard (m) of the deck at an equilibrium.

Built on these: the load line and a UUV's balance and ballast
(:mod:`aurgen.analysis.payload`), the roll period (:mod:`aurgen.analysis.roll_period`).

Frames: base_link (x forward, y port, z up). Heel φ is a rotation about +x
(for φ > 0 the starboard side goes down); GZ > 0 rights (the kernel's
convention, used as is).
A "trim" curve is the same computation with the vehicle turned 90° in yaw
(x → −y'), so heel of the turned vehicle is pitch (bow down) of the original.

A body that does not float (ρV ≤ m: a neutral or heavy UUV) has no waterplane;
its righting arm is the submerged one, ``GZ = −(R(φ)·(B − G))_y``, with B the
kernel's fully-submerged centroid: GM_T = BG_z.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

import numpy as np

from aurgen.core.records import record

G = 9.80665  # m/s², standard gravity (figures are per unit g where it cancels)

#: a body floats when its reserve buoyancy (ρV − m) exceeds this fraction of m
FLOAT_MARGIN = 1e-9


def hydrostatics_module():
    from aurgen.runtime import hydrostatics

    return hydrostatics


# --------------------------------------------------------------------------- problem


@record
class Body:
    """The hydrostatic problem: kernel geoms (base_link), mass kg, CoM m (base_link), ρ kg/m³."""

    geoms: tuple
    mass: float
    com: np.ndarray
    rho: float

    def with_payload(self, mass: float, at) -> "Body":
        """This body with a point mass ``mass`` (kg) added at ``at`` (m, base_link)."""
        m = self.mass + mass
        com = (self.mass * np.asarray(self.com, float) + mass * np.asarray(at, float)) / m
        return Body(self.geoms, m, com, self.rho)

    def turned(self) -> "Body":
        """The body turned −90° in yaw (x → −y', y → x'): its heel is the original's pitch, bow down."""
        Rz = np.array([[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
        geoms = tuple(dataclasses.replace(g, pos=Rz @ np.asarray(g.pos, float), mat=Rz @ np.asarray(g.mat, float))
                      for g in self.geoms)
        return Body(geoms, self.mass, Rz @ np.asarray(self.com, float), self.rho)


def body_of(vehicle) -> Body:
    """The Body of a resolved Vehicle: what displaces as kernel geoms (aurgen.compose.resolve.kernel_geoms)."""
    from aurgen.compose.resolve import kernel_geoms

    geoms = tuple(kernel_geoms(vehicle.displacement))
    s = vehicle.specs
    return Body(geoms, float(s.total_mass), np.asarray(s.com, float), float(vehicle.displacement.fluid_density))


def full_volume(body: Body) -> tuple[float, np.ndarray]:
    """(V m³, centroid m, base_link) of the whole displacement, from the kernel (a plane above everything)."""
    hs = hydrostatics_module()
    V = 0.0
    first = np.zeros(3)
    up = np.array([0.0, 0.0, 1.0])
    for g in body.geoms:
        c = hs.clip(g, up, hs.support(g, up) + 1.0)  # wholly below: full volume at its centroid
        V += c.volume
        first += c.volume * np.asarray(c.centroid, float)
    return V, first / V


def floats(body: Body) -> bool:
    """True when the body has reserve buoyancy (it floats at the surface)."""
    V, _ = full_volume(body)
    return body.rho * V - body.mass > FLOAT_MARGIN * body.mass


# --------------------------------------------------------------------------- GZ curve


def righting_arms(body: Body, angles, submerged: bool | None = None, free_trim: bool = True) -> np.ndarray:
    """GZ (m) at heel ``angles`` (rad): the kernel's floating curve, or the submerged arm.

    ``submerged`` None decides by :func:`floats`.
    """
    angles = np.atleast_1d(np.asarray(angles, float))
    if submerged is None:
        submerged = not floats(body)
    if submerged:
        V, B = full_volume(body)
        b = B - np.asarray(body.com, float)
        # R_x(φ) b, y component: b_y cos φ − b_z sin φ; GZ = −that
        return -(b[1] * np.cos(angles) - b[2] * np.sin(angles))
    hs = hydrostatics_module()
    return np.asarray(hs.gz_curve(list(body.geoms), body.mass, np.asarray(body.com, float), body.rho, angles,
                                  free_trim=free_trim), float)


class _Arm:
    """GZ(φ) (m) of a body about its heel axis as a function with known breaks (rad).

    Floating: the kernel's :class:`RightingArm` (free trim on a followed
    pitch-stable branch, or with ``free_trim`` False the trim held at the
    equilibrium's).  Submerged: the closed form ``-(b_y cos φ - b_z sin φ)``,
    b = B − G, smooth everywhere.
    """

    def __init__(self, body: Body, submerged: bool, free_trim: bool = True):
        self.submerged = submerged
        if submerged:
            V, B = full_volume(body)
            self.b = B - np.asarray(body.com, float)
            self.kernel = None
        else:
            from aurgen.runtime.hydrostatics.righting import RightingArm

            self.kernel = RightingArm(list(body.geoms), body.mass, np.asarray(body.com, float), body.rho, free_trim)

    def __call__(self, phi) -> np.ndarray:
        phi = np.atleast_1d(np.asarray(phi, float))
        if self.submerged:
            return -(self.b[1] * np.cos(phi) - self.b[2] * np.sin(phi))
        return np.array([self.kernel.at(p).gz for p in phi])

    def breaks(self, lo: float, hi: float) -> list:
        return [] if self.submerged else self.kernel.breaks(lo, hi)


class Piecewise:
    """GZ on [lo, hi] (rad) as Chebyshev interpolants between its breaks: integrals and slopes exact to ~1e-14.

    On each smooth piece the interpolant's degree is raised (12, 24, 48) until
    its last three Chebyshev coefficients are below ``tol`` (m); failing that
    the piece is halved.  The interpolant of an analytic function converges
    geometrically, so its integral (Clenshaw–Curtis) is then exact to about
    ``tol`` times the piece's width.  ``area(a, b)`` (m·rad) is ∫_a^b GZ dφ for
    lo ≤ a ≤ b ≤ hi.
    """

    def __init__(self, arm: _Arm, lo: float, hi: float, extra=(), tol: float = 1e-14):
        from numpy.polynomial import Chebyshev

        self.lo, self.hi = float(lo), float(hi)
        pts = sorted({self.lo, self.hi, *[float(e) for e in extra if lo < e < hi], *arm.breaks(lo, hi)})
        self.pieces = []  # (a, b, interpolant, antiderivative from a)

        def build(a, b, depth=0):
            for deg in (12, 24, 48):
                p = Chebyshev.interpolate(arm, deg, domain=[a, b])
                scale = max(1.0, float(np.abs(p.coef).max()))
                if np.abs(p.coef[-3:]).max() <= tol * scale or b - a < 1e-9:
                    self.pieces.append((a, b, p, p.integ(lbnd=a)))
                    return
            if depth >= 12:
                raise ArithmeticError(f"GZ does not resolve on [{a}, {b}] rad (an undetected kink?)")
            m = 0.5 * (a + b)
            build(a, m, depth + 1)
            build(m, b, depth + 1)

        for a, b in zip(pts[:-1], pts[1:]):
            if b > a:
                build(a, b)
        self.pieces.sort(key=lambda q: q[0])
        self.starts = np.array([q[0] for q in self.pieces])
        self.cum = np.concatenate([[0.0], np.cumsum([q[3](q[1]) for q in self.pieces])])
        self.breaks = pts[1:-1]

    def _piece(self, x):
        return min(max(int(np.searchsorted(self.starts, x, side="right")) - 1, 0), len(self.pieces) - 1)

    def cumulative(self, x: float) -> float:
        """∫_lo^x GZ dφ (m·rad)."""
        i = self._piece(x)
        return float(self.cum[i] + self.pieces[i][3](x))

    def area(self, a: float, b: float) -> float:
        """∫_a^b GZ dφ (m·rad), summed piece by piece."""
        if b <= a:
            return 0.0
        i, j = self._piece(a), self._piece(b)
        if i == j:
            q = self.pieces[i][3]
            return float(q(b) - q(a))
        return float(self.cum[j] - self.cum[i + 1] + self.pieces[j][3](b)
                     + self.pieces[i][3](self.pieces[i][1]) - self.pieces[i][3](a))

    def slope_right(self, x: float) -> float:
        """dGZ/dφ (m/rad) just right of ``x``: the interpolant's derivative on the piece starting at or after x."""
        i = self._piece(x)
        return float(self.pieces[i][2].deriv()(x))


@dataclass
class GZCurve:
    """A righting-arm curve and the figures read off it. Angles rad, arms m, areas m·rad.

    ``gm`` is the kernel's metacentric height about this curve's axis at the
    floating equilibrium (GM_T for heel, GM_L for trim), or BG_z submerged;
    ``slope0`` the curve's own slope at 0° (right derivative, from the exact
    piecewise interpolant), which equals it only for an upright, untrimmed
    equilibrium.  ``avs`` is None when GZ does not vanish in range.  Areas
    are integrated piecewise between the curve's breaks (:class:`Piecewise`).
    ``trims``: the free angle (rad) at each sample (the followed branch);
    ``notes``: the branches (when more than one pitch-stable trim exists) and
    anything unusual.

    ``fold`` (rad): where the pitch-stable branch of the free angle that is
    continuous with upright ends (a fold), when the free-trim curve falls
    through zero past its maximum only across a jump of the free angle; else
    None.  Past a fold no nearby trim balances the body in pitch; the free-trim
    curve jumps to a far trim (often pitched right over), and a "vanishing
    angle" at such a jump is not a loss of roll stability.  So the whole curve
    and its figures are then computed with the free angle held at the
    equilibrium's (``free_trim`` False), the static counterpart of a roll much
    faster than the pitch (what a release at rest in the time domain shows);
    ``notes`` say so.  Jumps with GZ of one sign on both sides leave the
    free-trim curve in place (``notes`` list them).
    """

    axis: str  # 'heel' or 'trim'
    angles: np.ndarray
    gz: np.ndarray
    gm: float
    slope0: float
    max_gz: float
    angle_max_gz: float
    avs: float | None
    area_30: float
    area_40: float
    submerged: bool
    notes: list = field(default_factory=list)
    trims: np.ndarray | None = None
    breaks: list = field(default_factory=list)
    arm: object = field(default=None, repr=False)
    fold: float | None = None
    free_trim: bool = True


def gz_curve(body: Body, axis: str = "heel", step_deg: float = 1.0, progress=None) -> GZCurve:
    """The righting-arm curve for heel (or trim) 0–180° and its derived figures.

    ``progress(done, total)`` is called as the samples are computed.  Maximum
    and vanishing angle are refined from the samples by Brent's method on the
    kernel's GZ (the maximum on each smooth piece between breaks, and at the
    breaks); the areas to 30° and 40° by :class:`Piecewise`.  A dip of GZ below
    zero and back between two samples is not seen by the AVS search.  Where the
    free-trim curve falls through zero only across a jump of its trim past a
    fold, the curve is the held-trim one and ``fold`` says where (:class:`GZCurve`).
    """
    from scipy.optimize import brentq, minimize_scalar

    b = body.turned() if axis == "trim" else body
    submerged = not floats(body)
    n = int(round(180.0 / step_deg)) + 1
    angles = np.radians(np.linspace(0.0, 180.0, n))
    notes = []
    trims = None
    fold = None
    if submerged:
        arm = _Arm(b, submerged)
        gz = arm(angles)
        if progress:
            progress(n, n)
        V, B = full_volume(b)
        gm = float(B[2] - b.com[2])
    else:
        arm, states, fold, branch_notes = _floating_arm(b, angles, axis, progress)
        gz = np.array([s.gz for s in states])
        trims = np.array([s.trim for s in states])
        notes += branch_notes
        gm = _equilibrium_gm(body, axis, notes)
    r30, r40 = math.radians(30.0), math.radians(40.0)
    pw = Piecewise(arm, 0.0, r40, extra=(r30,))
    slope0 = pw.slope_right(0.0)

    def f(a):
        return float(arm(np.array([a]))[0])

    # maximum: best sample, then the best of the smooth pieces and breaks between its neighbours
    i = int(np.argmax(gz))
    lo, hi = angles[max(i - 1, 0)], angles[min(i + 1, n - 1)]
    a_max, g_max = float(angles[i]), float(gz[i])
    if hi > lo:
        brk = arm.breaks(lo, hi)
        for x in brk:
            gx = f(x)
            if gx > g_max:
                a_max, g_max = x, gx
        edges = [lo, *brk, hi]
        for p, q in zip(edges[:-1], edges[1:]):
            r = minimize_scalar(lambda a: -f(a), bounds=(p, q), method="bounded", options={"xatol": 1e-10})
            if -r.fun > g_max:
                a_max, g_max = float(r.x), float(-r.fun)

    # vanishing stability: the first fall through zero after the maximum
    avs = None
    if g_max > 0:
        tol = 1e-9 * max(1.0, abs(g_max))
        for k in range(i, n - 1):
            if gz[k] > 0 and gz[k + 1] < -tol:
                avs = float(brentq(f, angles[k], angles[k + 1], xtol=1e-12))
                break
            if gz[k] > 0 and abs(gz[k + 1]) <= tol:
                avs = float(angles[k + 1])
                break
    a30 = pw.area(0.0, r30)
    a40 = pw.area(0.0, r40)
    return GZCurve(axis, angles, gz, gm, slope0, g_max, a_max, avs, a30, a40, submerged, notes, trims,
                   pw.breaks, arm, fold=fold, free_trim=fold is None)


def _vanishes_at_a_jump(ra, angles, gz):
    """The first jump (heel rad, trim before, trim after) of ``ra``'s followed branch on the positive side if the
    sampled free-trim curve (``gz`` m at ``angles`` rad, ascending from 0) first falls through zero past its
    maximum across a jump, i.e. its "vanishing angle" would be a branch jump rather than a zero of GZ; else None."""
    jumps = sorted(j for j in ra.jumps if j[0] > 0)
    if not jumps:
        return None
    a, g = np.asarray(angles), np.asarray(gz)
    i = int(np.argmax(g))
    for k in range(i, len(a) - 1):
        if g[k] > 0 and g[k + 1] <= 0:
            return jumps[0] if any(a[k] < j[0] <= a[k + 1] for j in jumps) else None
    return None


def _floating_arm(b: Body, angles, axis: str = "heel", progress=None):
    """(arm, states, fold rad or None, notes) of a floating body's curve at ``angles`` (rad, ascending from 0).

    Free trim on the pitch-stable branch continuous with upright; if that curve falls through zero only at a jump
    of its trim (:func:`_vanishes_at_a_jump`), the trim held at the equilibrium's instead (see :class:`GZCurve`)."""
    arm = _Arm(b, False)
    states = arm.kernel.sweep(angles, progress)
    jump = _vanishes_at_a_jump(arm.kernel, angles, [s.gz for s in states])
    if jump is None:
        return arm, states, None, _branch_notes(arm.kernel, states, axis)
    free = "trim" if axis == "heel" else "heel"
    pj, t0, t1 = jump
    held = _Arm(b, False, free_trim=False)
    nxt = min((s.heel for s in states if s.heel > pj), default=pj)  # the sample where the jump was taken
    note = (f"the pitch-stable {free} branch continuous with upright ends at {axis} {math.degrees(pj):.2f}° "
            f"({free} {math.degrees(t0):.2f}°; held at {axis} {math.degrees(nxt):.2f}° the body turns to {free} "
            f"{math.degrees(t1):.2f}°), and "
            f"the free-{free} curve falls through zero only where its {free} jumps, "
            f"not by a loss of {axis} stability; so the curve and its figures are with the {free} held at the "
            f"equilibrium's ({math.degrees(held.kernel.trim_held):.2f}°), as a motion in {axis} much faster than "
            f"in {free} sees it")
    return held, held.kernel.sweep(angles), float(pj), [note]


def sampled_arms(body: Body, angles) -> tuple[np.ndarray, float | None]:
    """GZ (m) at heel ``angles`` (rad, ascending from 0) on :func:`gz_curve`'s basis, and its ``fold`` (rad or None):
    free trim, or the trim held at the equilibrium's where the free-trim curve falls through zero only at a jump."""
    angles = np.asarray(angles, float)
    if not floats(body):
        return righting_arms(body, angles, submerged=True), None
    _, states, fold, _ = _floating_arm(body, angles)
    return np.array([s.gz for s in states]), fold


def _branch_notes(ra, states, axis) -> list:
    """Sentences on the trim branches of a floating curve: which one is followed, where others exist, jumps."""
    free = "trim" if axis == "heel" else "heel"
    word = axis
    out = []
    multi = [s for s in states if s.others]
    if multi:
        s = max(multi, key=lambda s: len(s.others))
        lo, hi = math.degrees(multi[0].heel), math.degrees(multi[-1].heel)
        out.append(f"more than one pitch-stable {free} exists at {len(multi)} of {len(states)} samples "
                   f"({word} {lo:.0f}°–{hi:.0f}°; e.g. at {math.degrees(s.heel):.0f}°: "
                   + ", ".join(f"{math.degrees(t):.2f}°" for t in sorted((s.trim,) + s.others))
                   + f"); the curve follows the branch continuous with upright (the stable {free} nearest 0° "
                   f"at 0° {word}, then the nearest stable {free} at each step): {free} "
                   f"{math.degrees(s.trim):.2f}° at {math.degrees(s.heel):.0f}°")
    unstable = [s for s in states if not (s.pitch_slope > 0)]
    if unstable:
        out.append(f"no pitch-stable {free} found at {len(unstable)} samples (from {word} "
                   f"{math.degrees(unstable[0].heel):.0f}°); GZ there is at an unstable {free}")
    for pj, t0, t1 in ra.jumps:
        out.append(f"the followed {free} branch ends at {word} {math.degrees(pj):.4f}° ({free} {math.degrees(t0):.2f}°); "
                   f"the curve continues on the stable {free} the moment turns the body to "
                   f"({math.degrees(t1):.2f}°), GZ jumps there")
    return out


def _equilibrium_gm(body: Body, axis: str, notes: list) -> float:
    """The kernel's GM_T (heel) or GM_L (trim) at the floating equilibrium (m); nan if it did not converge."""
    hs = hydrostatics_module()
    e = hs.equilibrium(list(body.geoms), body.mass, np.asarray(body.com, float), body.rho)
    if not getattr(e, "converged", True):
        notes.append("the kernel's equilibrium did not converge: no GM")
        return float("nan")
    return float(e.gm_t if axis == "heel" else e.gm_l)


def wall_sided_gz(phi, gm: float, bm: float):
    """The wall-sided formula GZ = sin φ (GM + ½ BM tan² φ) (m), valid while the deck and bilge stay out of the waterplane."""
    phi = np.asarray(phi, float)
    return np.sin(phi) * (gm + 0.5 * bm * np.tan(phi) ** 2)


# --------------------------------------------------------------------------- freeboard


def _deck_points(body: Body) -> np.ndarray:
    """The top-face corners (+z in body axes) of every box (m, base_link): where freeboard is measured."""
    pts = []
    for g in body.geoms:
        a = np.asarray(g.size, float)
        if g.type == "box":
            local = [np.array([sx * a[0], sy * a[1], a[2]]) for sx in (-1, 1) for sy in (-1, 1)]
        elif g.type in ("cylinder", "capsule"):
            local = [np.array([a[0] * math.cos(t), a[0] * math.sin(t), a[1]]) for t in np.linspace(0, 2 * math.pi, 16,
                                                                                                    endpoint=False)]
        else:  # sphere/ellipsoid: the top point
            local = [np.array([0.0, 0.0, a[-1] if a.size > 1 else a[0]])]
        R = np.asarray(g.mat, float)
        p = np.asarray(g.pos, float)
        pts.extend(p + R @ q for q in local)
    return np.array(pts).reshape(-1, 3)


def freeboard_of(body: Body, eq) -> float:
    """Lowest height (m) above the water of the deck at the kernel equilibrium ``eq``: the top-face corners of
    boxes, and for a cylinder or capsule the lowest point of its top rim in closed form (the rim's centre
    height less r·√(1 − a_z²), a the world axis), not the 16 rim samples of :func:`_deck_points`."""
    pos = np.asarray(eq.pos, float)
    R = np.asarray(eq.mat, float)
    rims = [g for g in body.geoms if g.type in ("cylinder", "capsule")]
    rest = Body(tuple(g for g in body.geoms if g.type not in ("cylinder", "capsule")), body.mass, body.com, body.rho)
    zs = list(pos[2] + _deck_points(rest) @ R[2, :])
    for g in rims:
        a = np.asarray(g.size, float)
        M = R @ np.asarray(g.mat, float)
        top = pos[2] + R[2, :] @ np.asarray(g.pos, float) + M[2, 2] * a[1]
        zs.append(top - a[0] * math.sqrt(max(0.0, 1.0 - M[2, 2] ** 2)))
    return float(min(zs))

