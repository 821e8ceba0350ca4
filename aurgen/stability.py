"""Intact stability figures from the hydrostatics kernel (pure functions, no I/O).

Everything here is a thin layer over ``aurgen.runtime.hydrostatics``: the
kernel owns "volume below a plane" (``clip``), the floating equilibrium
(``equilibrium``) and the righting arm at a heel (``gz_curve``); this module
derives the figures a naval architect reads off those:

- the righting-arm curve GZ(φ) (m) with GM_T (m) as its initial slope, the
  maximum GZ and its angle, the angle of vanishing stability (AVS) and the
  areas under the curve to 30° and 40° (m·rad);
- a load line: draft (m), heel and trim (rad) against a payload (kg) added at
  a point, up to the reserve buoyancy, and the payload at which freeboard
  reaches zero (a UUV: at which net buoyancy reaches zero, i.e. it sinks);
- for a UUV, net buoyancy and CoB−CoM as declared and as built, and the
  ballast that makes it neutral with zero trim;
- the small-angle roll period ``2π sqrt((I_xx + added) / (ρ g V GM_T))``.

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

G = 9.80665  # m/s², standard gravity (figures are per unit g where it cancels)

#: a body floats when its reserve buoyancy (ρV − m) exceeds this fraction of m
FLOAT_MARGIN = 1e-9


def _hs():
    from .runtime import hydrostatics

    return hydrostatics


# --------------------------------------------------------------------------- problem


@dataclass(frozen=True)
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
    """The Body of a resolved Vehicle: its displacement boxes as kernel geoms (half sizes)."""
    from . import spatial

    hs = _hs()
    geoms = tuple(hs.Geom("box", np.asarray(b.shape.dims, float) / 2, np.asarray(b.xyz, float),
                          spatial.rot_rpy(b.rpy)) for b in vehicle.displacement.boxes)
    s = vehicle.specs
    return Body(geoms, float(s.total_mass), np.asarray(s.com, float), float(vehicle.displacement.fluid_density))


def full_volume(body: Body) -> tuple[float, np.ndarray]:
    """(V m³, centroid m, base_link) of the whole displacement, from the kernel (a plane above everything)."""
    hs = _hs()
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
    hs = _hs()
    return np.asarray(hs.gz_curve(list(body.geoms), body.mass, np.asarray(body.com, float), body.rho, angles,
                                  free_trim=free_trim), float)


@dataclass
class GZCurve:
    """A righting-arm curve and the figures read off it. Angles rad, arms m, areas m·rad.

    ``gm`` is the metacentric height reported beside it (the kernel's GM_T, or
    BG_z submerged); ``slope0`` the curve's own slope at 0 (central difference),
    which must agree with it. ``avs`` is None when GZ does not vanish in range.
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


def _gauss_area(f, a: float, b: float, panels: int, order: int = 12) -> float:
    """∫_a^b f dφ by composite Gauss–Legendre (``f`` takes an array of angles)."""
    if b <= a:
        return 0.0
    x, w = np.polynomial.legendre.leggauss(order)
    edges = np.linspace(a, b, panels + 1)
    nodes = np.concatenate([0.5 * (hi - lo) * x + 0.5 * (hi + lo) for lo, hi in zip(edges[:-1], edges[1:])])
    weights = np.concatenate([0.5 * (hi - lo) * w for lo, hi in zip(edges[:-1], edges[1:])])
    return float(weights @ f(nodes))


def gz_curve(body: Body, axis: str = "heel", step_deg: float = 1.0, progress=None) -> GZCurve:
    """The righting-arm curve for heel (or trim) 0–180° and its derived figures.

    ``progress(done, total)`` is called as the samples are computed.
    """
    b = body.turned() if axis == "trim" else body
    submerged = not floats(body)
    n = int(round(180.0 / step_deg)) + 1
    angles = np.radians(np.linspace(0.0, 180.0, n))

    def f(a):
        return righting_arms(b, a, submerged)

    chunks = np.array_split(angles, max(1, min(n, 20)))
    gz_parts = []
    done = 0
    for c in chunks:
        gz_parts.append(f(c))
        done += len(c)
        if progress:
            progress(done, n)
    gz = np.concatenate(gz_parts)

    h = 1e-4
    gp, gm_ = f(np.array([h, -h]))
    slope0 = float((gp - gm_) / (2 * h))
    notes = []
    if submerged:
        V, B = full_volume(b)
        gm = float(B[2] - b.com[2])
    else:
        gm = _equilibrium_gm(b, slope0, notes)

    # maximum: best sample, then refined between its neighbours
    i = int(np.argmax(gz))
    from scipy.optimize import brentq, minimize_scalar

    lo, hi = angles[max(i - 1, 0)], angles[min(i + 1, n - 1)]
    if hi > lo:
        r = minimize_scalar(lambda a: -float(f(np.array([a]))[0]), bounds=(lo, hi), method="bounded",
                            options={"xatol": 1e-8})
        a_max, g_max = (float(r.x), float(-r.fun)) if -r.fun >= gz[i] else (float(angles[i]), float(gz[i]))
    else:
        a_max, g_max = float(angles[i]), float(gz[i])

    # vanishing stability: the first fall through zero after the maximum
    avs = None
    if g_max > 0:
        tol = 1e-9 * max(1.0, abs(g_max))
        for k in range(i, n - 1):
            if gz[k] > 0 and gz[k + 1] < -tol:
                avs = float(brentq(lambda a: float(f(np.array([a]))[0]), angles[k], angles[k + 1], xtol=1e-10))
                break
            if gz[k] > 0 and abs(gz[k + 1]) <= tol:
                avs = float(angles[k + 1])
                break
    a30 = _gauss_area(f, 0.0, math.radians(30.0), 3)
    a40 = a30 + _gauss_area(f, math.radians(30.0), math.radians(40.0), 1)
    return GZCurve(axis, angles, gz, gm, slope0, g_max, a_max, avs, a30, a40, submerged, notes)


def _equilibrium_gm(body: Body, slope0: float, notes: list) -> float:
    """GM about the heel axis from the kernel's equilibrium (GM_T), or the slope if it did not converge."""
    hs = _hs()
    e = hs.equilibrium(list(body.geoms), body.mass, np.asarray(body.com, float), body.rho)
    if not getattr(e, "converged", True):
        notes.append("the kernel's equilibrium did not converge; GM is the curve's slope at 0")
        return slope0
    return float(e.gm_t)


def wall_sided_gz(phi, gm: float, bm: float):
    """The wall-sided formula GZ = sin φ (GM + ½ BM tan² φ) (m), valid while the deck and bilge stay out of the waterplane."""
    phi = np.asarray(phi, float)
    return np.sin(phi) * (gm + 0.5 * bm * np.tan(phi) ** 2)


# --------------------------------------------------------------------------- load line


@dataclass
class LoadLine:
    """Draft m, heel and trim rad, freeboard m against payload kg added at ``at`` (base_link).

    ``limit`` is the payload at which the body is wholly submerged (its reserve
    buoyancy); ``zero_freeboard`` the payload at which the lowest deck point
    reaches the water (None if it stays dry up to the limit). For a body that
    does not float these are equal and the arrays are empty.
    """

    at: np.ndarray
    payload: np.ndarray
    draft: np.ndarray
    heel: np.ndarray
    trim: np.ndarray
    freeboard: np.ndarray
    converged: np.ndarray
    limit: float
    zero_freeboard: float | None
    notes: list = field(default_factory=list)


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
    """Lowest height (m) above the water of the deck points at the kernel equilibrium ``eq``."""
    pts = _deck_points(body)
    pos = np.asarray(eq.pos, float)
    R = np.asarray(eq.mat, float)
    z = pos[2] + pts @ R[2, :]
    return float(z.min())


def load_line(body: Body, at, samples: int = 41, progress=None) -> LoadLine:
    """The load line for payload added at ``at`` (m, base_link), 0 up to the reserve buoyancy.

    Each sample is the kernel's equilibrium of the loaded body. Samples stop
    just short of the limit (the equilibrium of a wholly submerged body is not
    unique); samples whose equilibrium did not converge are NaN.
    """
    hs = _hs()
    at = np.asarray(at, float)
    V, _ = full_volume(body)
    limit = body.rho * V - body.mass
    notes = []
    if limit <= FLOAT_MARGIN * body.mass:
        e = np.zeros(0)
        return LoadLine(at, e, e, e, e, e, np.zeros(0, bool), max(limit, 0.0), max(limit, 0.0),
                        ["does not float: no load line (it sinks with any payload)"])
    payload = np.linspace(0.0, limit * (1.0 - 1e-3), samples)
    out = {k: np.full(samples, np.nan) for k in ("draft", "heel", "trim", "freeboard")}
    ok = np.zeros(samples, bool)
    status = []

    def solve(mp):
        bb = body.with_payload(mp, at)
        return bb, hs.equilibrium(list(bb.geoms), bb.mass, bb.com, bb.rho)

    for k, mp in enumerate(payload):
        bb, e = solve(mp)
        status.append(getattr(e, "status", "floating" if getattr(e, "converged", True) else "not converged"))
        if getattr(e, "converged", True):
            ok[k] = True
            out["draft"][k], out["heel"][k], out["trim"][k] = e.draft, e.heel, e.trim
            out["freeboard"][k] = freeboard_of(bb, e)
        if progress:
            progress(k + 1, samples)
    if not ok.all():
        first = int(np.argmin(ok))
        kinds = sorted({status[k] for k in range(samples) if not ok[k]})
        notes.append(f"{int((~ok).sum())} of {samples} samples have no upright floating equilibrium "
                     f"(kernel: {', '.join(kinds)}), the first at {payload[first]:.3f} kg; left blank")

    zero = None
    fb = out["freeboard"]
    idx = [k for k in range(samples - 1) if ok[k] and ok[k + 1] and fb[k] > 0 >= fb[k + 1]]
    if idx:
        from scipy.optimize import brentq

        k = idx[0]

        def fbm(mp):
            bb, e = solve(mp)
            return freeboard_of(bb, e)

        zero = float(brentq(fbm, payload[k], payload[k + 1], xtol=1e-9 * max(1.0, limit)))
    elif ok.any() and fb[ok][0] <= 0:
        zero = 0.0
    return LoadLine(at, payload, out["draft"], out["heel"], out["trim"], out["freeboard"], ok, float(limit), zero,
                    notes)


# --------------------------------------------------------------------------- UUV balance


@dataclass
class Balance:
    """A UUV's buoyancy, declared against as built, and the ballast that makes it neutral and level.

    Masses kg (net buoyancy = ρV − m, positive floats), offsets m (CoB − CoM,
    base_link). ``ballast`` kg to add (negative: buoyancy to add, or mass to
    remove) at ``ballast_at``: the chosen point with x (and y) moved so that the
    loaded CoM sits under the CoB (zero trim and heel). ``trim_at_chosen`` and
    ``heel_at_chosen`` (rad) are the submerged attitude with the ballast exactly
    at the chosen point instead.
    """

    declared_net: float | None
    built_net: float
    declared_offset: np.ndarray | None
    built_offset: np.ndarray
    volume: float
    cob: np.ndarray
    ballast: float
    chosen: np.ndarray
    ballast_at: np.ndarray | None
    trim_at_chosen: float
    heel_at_chosen: float


def submerged_attitude(com, cob) -> tuple[float, float]:
    """(heel, trim) rad at which a wholly submerged body hangs: CoM straight below CoB.

    Pitch θ (bow down positive) and roll φ such that R(φ, θ)(B − G) is vertical.
    """
    b = np.asarray(cob, float) - np.asarray(com, float)
    if np.linalg.norm(b) == 0:
        return 0.0, 0.0
    # R = Ry(θ) Rx(φ) (rpy with zero yaw): Rx zeroes the y component, then Ry the x component
    phi = math.atan2(b[1], b[2])
    theta = math.atan2(-b[0], math.hypot(b[1], b[2]))
    return phi, theta


def uuv_balance(vehicle, at=None, body: Body | None = None) -> Balance:
    """Declared vs as-built buoyancy of a UUV and its neutralising ballast at ``at`` (default: payload slot)."""
    body = body or body_of(vehicle)
    V, B = full_volume(body)
    G_ = np.asarray(body.com, float)
    net = body.rho * V - body.mass
    d = vehicle.displacement
    declared_off = None
    if d.declared_cob_offset is not None:
        declared_off = np.asarray(d.declared_cob_offset, float)
        if d.cob_frame != "com":  # declared as a point in base_link
            declared_off = declared_off - G_
    chosen = np.asarray(at if at is not None else default_payload_point(vehicle), float)
    mb = net  # added mass that makes ρV = m + mb
    ballast_at = None
    if abs(mb) > 0:
        # (m G + mb p) / (m + mb) has x, y equal to B's: solve p_x, p_y; keep the chosen z
        p = chosen.copy()
        p[:2] = B[:2] + body.mass * (B[:2] - G_[:2]) / mb
        ballast_at = p
        loaded = body.with_payload(mb, chosen)
        heel, trim = submerged_attitude(loaded.com, B)
    else:
        heel, trim = submerged_attitude(G_, B)
    return Balance(d.declared_net_buoyancy, float(net), declared_off, B - G_, float(V), B, float(mb), chosen,
                   ballast_at, trim_at_chosen=float(trim), heel_at_chosen=float(heel))


# --------------------------------------------------------------------------- catalog look-ups


def default_payload_point(vehicle) -> np.ndarray:
    """The base link's ``payload`` slot origin (m, base_link); the CoM if it has none."""
    for fr in vehicle.frames:
        if fr.name == f"{vehicle.base}_payload" and fr.link == vehicle.base:
            return np.asarray(fr.xyz, float)
    return np.asarray(vehicle.specs.com, float)


def part_masses(vehicle) -> list[tuple[str, str, float, float]]:
    """(link, part type, mass kg, share of total) per fitted part, in placement order."""
    total = vehicle.specs.total_mass
    return [(l.name, l.part_type, l.mass, l.mass / total) for l in vehicle.links if l.role == "part"]


# --------------------------------------------------------------------------- roll period


def roll_period(ixx: float, added: float, rho: float, volume: float, gm_t: float, g: float = G) -> float:
    """Small-angle natural roll period 2π sqrt((I_xx + added) / (ρ g V GM_T)) (s); inf if GM_T ≤ 0."""
    k = rho * g * volume * gm_t
    return 2 * math.pi * math.sqrt((ixx + added) / k) if k > 0 else math.inf


def added_roll_inertia(vehicle) -> float:
    """The declared roll added inertia −K_ṗ (kg·m²) from the config's hydrodynamics, 0 if none."""
    for name, value in vehicle.hydrodynamics:
        if name == "kDotP":
            return -float(value)
    return 0.0
