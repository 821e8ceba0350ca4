"""Intact stability figures from the hydrostatics kernel (pure functions, no I/O).

Everything here is a thin layer over ``aurgen.runtime.hydrostatics``: the
kernel owns "volume below a plane" (``clip``), the floating equilibrium
(``equilibrium``) and the righting arm at a heel (``gz_curve``); this module
holds the hydrostatic problem (:class:`Body`: displacement, mass, CoM, ρ) and
derives the figures a naval architect reads off those:

- the righting-arm curve GZ(φ) (m) with GM_T (m) as its initial slope, the
  maximum GZ and its angle, the angle of vanishing stability (AVS) and the
  areas under the curve to 30° and 40° (m·rad, exact piecewise:
  :class:`Piecewise`, from :mod:`aurgen.analysis.piecewise`), with the trim
  branch it follows and where that branch stops describing the body (a fold,
  or the trim past ±90°: the curve ends there, and a vanishing angle past it is
  the held-trim curve's, named so);
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

from aurgen.analysis.piecewise import Piecewise
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


@dataclass
class GZCurve:
    """A righting-arm curve and the figures read off it. Angles rad, arms m, areas m·rad.

    ``gm`` is the kernel's metacentric height about this curve's axis at the
    floating equilibrium (GM_T for heel, GM_L for trim), or BG_z submerged;
    ``slope0`` the curve's own slope at 0° (right derivative, from the exact
    piecewise interpolant), which equals it only for an upright, untrimmed
    equilibrium.  ``avs`` is None when GZ does not vanish in range (or the
    curve ends first).  Areas are integrated piecewise between the curve's
    breaks (:class:`Piecewise`).  ``trims``: the free angle (rad) at each
    sample (the followed branch); ``notes``: the branches (when more than one
    pitch-stable trim exists) and anything unusual.

    ``end`` (a :class:`aurgen.runtime.hydrostatics.righting.CurveEnd`, or
    None): where the free-angle curve ends, the first of a fold of the stable
    free-angle branch continuous with upright (its root meets an unstable one
    and vanishes: past it the body turns away about the free axis) and a
    passage of the free angle through ±90° (the curve's axis is then vertical
    and its angle means nothing).  Past the end the samples are nan, nothing is
    read off them, and a zero of GZ there is no vanishing angle: when the curve
    ends before it vanishes, ``avs`` is None and ``avs_held`` is the vanishing
    angle of the curve with the free angle held at the equilibrium's
    (``held_angle`` rad; its samples ``held_gz``), named as such.

    ``fold`` (rad): where the branch ends when the whole curve is instead
    computed with the free angle held at the equilibrium's (``free_trim``
    False): when the free-trim curve falls through zero past its maximum only
    across its end (a jump of the free angle: that "vanishing angle" is not a
    loss of roll stability), or ends before 40° (the areas need the curve to
    40°).  The held curve is the static counterpart of a roll much faster than
    the pitch (what a release at rest in the time domain shows); ``notes`` say
    so.  Else None.
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
    end: object = None
    avs_held: float | None = None
    held_angle: float | None = None
    held_gz: np.ndarray | None = field(default=None, repr=False)


def gz_curve(body: Body, axis: str = "heel", step_deg: float = 1.0, progress=None) -> GZCurve:
    """The righting-arm curve for heel (or trim) 0–180° and its derived figures.

    ``progress(done, total)`` is called as the samples are computed.  Maximum
    and vanishing angle are refined from the samples by Brent's method on the
    kernel's GZ (the maximum on each smooth piece between breaks, and at the
    breaks); the areas to 30° and 40° by :class:`Piecewise`.  A dip of GZ below
    zero and back between two samples is not seen by the AVS search.  A curve
    with a free angle ends at its branch's end (:class:`GZCurve` ``end``);
    where the free-trim curve falls through zero only across it, or it ends
    before 40°, the curve is the held-trim one and ``fold`` says where.
    """
    from scipy.optimize import minimize_scalar

    b = body.turned() if axis == "trim" else body
    submerged = not floats(body)
    n = int(round(180.0 / step_deg)) + 1
    angles = np.radians(np.linspace(0.0, 180.0, n))
    notes = []
    trims = None
    fold = end = None
    if submerged:
        arm = _Arm(b, submerged)
        gz = arm(angles)
        if progress:
            progress(n, n)
        V, B = full_volume(b)
        gm = float(B[2] - b.com[2])
    else:
        arm, states, fold, branch_notes, end = _floating_arm(b, angles, axis, progress)
        on = [s is not None and (end is None or s.heel <= end.at) for s in states]
        gz = np.array([s.gz if k else np.nan for s, k in zip(states, on)])
        trims = np.array([s.trim if k else np.nan for s, k in zip(states, on)])
        notes += branch_notes
        gm = _equilibrium_gm(body, axis, notes)
    r30, r40 = math.radians(30.0), math.radians(40.0)
    pw = Piecewise(arm, 0.0, r40, extra=(r30,))
    slope0 = pw.slope_right(0.0)
    top = end.at - 1e-9 if end is not None else angles[-1]  # the last angle on the curve

    def f(a):
        return float(arm(np.array([a]))[0])

    # maximum: best sample (or the end), then the best of the smooth pieces and breaks between its neighbours
    i = int(np.nanargmax(gz))
    lo, hi = angles[max(i - 1, 0)], min(angles[min(i + 1, n - 1)], top)
    a_max, g_max = float(angles[i]), float(gz[i])
    if end is not None and end.gz > g_max:
        a_max, g_max = end.at, end.gz
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
    avs = _first_fall(f, angles, gz, i) if g_max > 0 else None
    held = {}
    if end is not None and avs is None:  # the curve ends before it vanishes: the held curve's vanishing angle
        h = _Arm(b, False, free_trim=False)
        hg = np.array([s.gz for s in h.kernel.sweep(angles)])
        held = dict(avs_held=_first_fall(lambda a: float(h(np.array([a]))[0]), angles, hg, int(np.argmax(hg))),
                    held_angle=h.kernel.trim_held, held_gz=hg)
    a30 = pw.area(0.0, r30)
    a40 = pw.area(0.0, r40)
    return GZCurve(axis, angles, gz, gm, slope0, g_max, a_max, avs, a30, a40, submerged, notes, trims,
                   pw.breaks, arm, fold=fold, free_trim=fold is None, end=end, **held)


def _first_fall(f, angles, gz, i):
    """The first fall of GZ through zero after sample ``i`` (rad; Brent's method on ``f`` to 1e-12 rad between the
    samples ``gz`` m at ``angles``, nan past a curve's end), or None."""
    from scipy.optimize import brentq

    g = np.asarray(gz, float)
    if not g[i] > 0:
        return None
    tol = 1e-9 * max(1.0, float(np.nanmax(np.abs(g))))
    for k in range(i, len(g) - 1):
        if g[k] > 0 and g[k + 1] < -tol:
            return float(brentq(f, angles[k], angles[k + 1], xtol=1e-12))
        if g[k] > 0 and abs(g[k + 1]) <= tol:
            return float(angles[k + 1])
    return None


def _floating_arm(b: Body, angles, axis: str = "heel", progress=None):
    """(arm, states, fold rad or None, notes, end) of a floating body's curve at ``angles`` (rad, ascending from 0).

    Free trim on the pitch-stable branch continuous with upright, swept to its end (None past it); if that curve
    falls through zero only across its end, or ends before 40°, the trim held at the equilibrium's from upright
    instead (see :class:`GZCurve`), with no end."""
    arm = _Arm(b, False)
    states = arm.kernel.sweep(angles, progress, until_end=True)
    end = arm.kernel.end()
    free = "trim" if axis == "heel" else "heel"
    on = [s for s in states if s is not None and (end is None or s.heel <= end.at)]
    if end is None or (end.at >= math.radians(40.0) and not _vanishes_at_its_end(states, end)):
        return arm, states, None, _branch_notes(on, axis), end
    held = _Arm(b, False, free_trim=False)
    nxt = min((s.heel for s in states if s is not None and s.heel > end.at), default=end.at)
    past = next((s for s in states if s is not None and s.heel == nxt), None)
    parts = [f"GZ {end.gz:+.4f} m"]
    if end.kind == "fold":
        how = f"the stable {free} branch continuous with upright ends at {axis} {math.degrees(end.at):.2f}°"
        parts.insert(0, f"a fold, {free} {math.degrees(end.trim):.2f}°")
    else:
        how = f"the free {free} passes {math.degrees(end.trim):+.0f}° at {axis} {math.degrees(end.at):.2f}°"
    if past is not None and past.jump:
        parts.append(f"held at {axis} {math.degrees(nxt):.2f}° the body turns to {free} "
                     f"{math.degrees(past.trim):.2f}°")
    why = (f"the free-{free} curve falls through zero only there, not by a loss of {axis} stability"
           if end.at >= math.radians(40.0) else "that is before 40° (the areas need the curve to 40°)")
    note = (f"{how} ({'; '.join(parts)}), and {why}; so the curve and its figures are with the {free} held at the "
            f"equilibrium's ({math.degrees(held.kernel.trim_held):.2f}°), as a motion in {axis} much faster than in "
            f"{free} sees it")
    return held, held.kernel.sweep(angles), float(end.at), [note], None


def _vanishes_at_its_end(states, end) -> bool:
    """Whether the sampled free-trim curve first falls through zero past its maximum across its ``end``: its
    "vanishing angle" would be where the branch ends (GZ positive before, the next state's not)."""
    g = [(s.heel, s.gz) for s in states if s is not None]
    i = int(np.argmax([x[1] for x in g]))
    for k in range(i, len(g) - 1):
        if g[k][1] > 0 and g[k + 1][1] <= 0:
            return g[k][0] < end.at <= g[k + 1][0]
    return False


def sampled_arms(body: Body, angles) -> tuple[np.ndarray, float | None]:
    """GZ (m) at heel ``angles`` (rad, ascending from 0) on :func:`gz_curve`'s basis, and its ``fold`` (rad or None):
    free trim to the curve's end (nan past it), or the trim held at the equilibrium's (:class:`GZCurve`)."""
    angles = np.asarray(angles, float)
    if not floats(body):
        return righting_arms(body, angles, submerged=True), None
    _, states, fold, _, end = _floating_arm(body, angles)
    return np.array([s.gz if s is not None and (end is None or s.heel <= end.at) else np.nan
                     for s in states]), fold


def _branch_notes(states, axis) -> list:
    """Sentences on the trim branches of a floating curve (``states`` to its end): where others exist."""
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

