"""Intact-stability criteria of the IMO 2008 IS Code (Part A, 2.2 general, 2.3 weather) on the report's GZ curve.

Pure functions over the report's righting-arm curve (:class:`aurgen.analysis.stability.GZCurve`, heel, on its own
basis: free trim or trim held) and the kernel's floating equilibrium; the Code's numbers are
:mod:`aurgen.analysis.is_code`.  Frames: base_link (x forward, y port, z up); heel φ about +x, starboard down
positive, the curve's side.  Angles rad inside, degrees where the Code states them; arms m; areas m·rad.

- θf (downflooding): the first heel at which an opening (the config's ``openings:``, points in base_link) reaches
  the water on the curve's states (the kernel's draft and trim at each heel, to the curve's end where it ends:
  :class:`aurgen.analysis.stability.GZCurve` ``end``), bracketed on the samples and found
  by Brent's method to 1e-12 rad; θd (deck edge): the same for the top corners of the displacement boxes (the
  hull's top edge).
- Areas: the curve's exact piecewise interpolant (:class:`aurgen.analysis.stability.Piecewise`) on [θ0 − θ1, 50°]
  (to the curve's end, if that comes first: θ2 is then at most the end, and GZ at 30° or more is the maximum to it).
- Weather (2.3): A and its centroid are the windage boxes' (for a vehicle without them, the displacement boxes')
  projection on the centreplane above the equilibrium's waterline at y = 0, an exact union of rectangles cut by
  a line; Z from that centroid to half the mean draught d below the waterline; L_wl and B the extent of the boxes
  the waterplane cuts, d the waterline's height at mid-L_wl above the lowest box bottom, C_B = ∇/(L_wl B d),
  OG the CoM's height above the waterline; the boxes' bilges are sharp, so k = 0.7 (2.3.4).

The Code applies to ships of 24 m in length and over; for a small craft this table is an indicative equivalent
(ISO 12217-1 is the small-craft standard; its criteria are not public text and are not implemented).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from aurgen.analysis import is_code as ic
from aurgen.analysis import stability as st

R30, R40, R50 = math.radians(30.0), math.radians(40.0), math.radians(ic.THETA2_CAP)
APPLIES = ("The IMO 2008 IS Code applies to ships of 24 m in length and over; for a craft this small the table is "
           "an indicative equivalent, not a statement of compliance (the small-craft standard is ISO 12217-1, "
           "whose criteria are not reproduced here).")


@dataclass
class Criterion:
    """One criterion: ``value`` and ``limit`` in ``unit``; ``margin`` > 0 passes (value − limit for a minimum,
    limit − value for a maximum); ``passed`` None when it cannot be evaluated (``note`` says why)."""

    key: str
    clause: str
    text: str
    value: float | None
    limit: float
    unit: str
    kind: str  # 'min' or 'max'
    passed: bool | None
    margin: float | None
    note: str = ""


@dataclass
class Criteria:
    """The criteria table and what it was computed from (angles rad, lengths m, areas m·rad)."""

    rows: list
    theta_f: float | None
    theta_f_opening: str | None
    theta_d: float | None
    weather: dict
    notes: list = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return all(r.passed for r in self.rows)

    def row(self, key: str) -> Criterion:
        return next(r for r in self.rows if r.key == key)


def _crit(key, clause, text, value, limit, unit, kind="min", note=""):
    if value is None or not math.isfinite(value):
        return Criterion(key, clause, text, None, limit, unit, kind, None if value is None else False, None, note)
    margin = value - limit if kind == "min" else limit - value
    return Criterion(key, clause, text, float(value), float(limit), unit, kind, bool(margin >= 0), float(margin), note)


# --------------------------------------------------------------------------- the curve's states


def _height_fn(arm, point):
    """h(φ) (m): height above the water of body ``point`` at heel φ on the arm's basis (kernel trim and draft)."""
    from aurgen.runtime.hydrostatics.equilibrium import attitude

    p = np.asarray(point, float)

    def h(phi):
        s = arm.kernel.at(float(phi))
        return float(attitude(s.heel, s.trim)[2, :] @ p - s.d)

    return h


def immersion_angle(arm, points, angles) -> tuple[float | None, int | None]:
    """(φ rad, index) of the first of ``points`` (m, base_link) to reach the water as the heel rises along
    ``angles`` (rad, ascending from 0): bracketed on the arm's states there (its swept samples), then Brent's
    method on the kernel's state to 1e-12 rad; (None, None) if none does."""
    from scipy.optimize import brentq
    from aurgen.runtime.hydrostatics.equilibrium import attitude

    if not len(points):
        return None, None
    P = np.array(points, float)
    prev = None
    for a in angles:
        s = arm.kernel.samples.get(float(a)) or arm.kernel.at(float(a))
        hs = P @ attitude(s.heel, s.trim)[2, :] - s.d
        if prev is None and (hs <= 0).any():
            k = int(np.argmin(hs))
            return float(a), k
        if prev is not None and (hs <= 0).any():
            best, who = None, None
            for k in np.nonzero(hs <= 0)[0]:
                h = _height_fn(arm, P[k])
                r = float(brentq(h, prev, float(a), xtol=1e-12)) if hs[k] < 0 and h(prev) > 0 else float(a)
                if best is None or r < best:
                    best, who = r, int(k)
            return best, who
        prev = float(a)
    return None, None


def deck_points(vehicle) -> list:
    """The top-face corners (m, base_link) of the displacement boxes: the hull's top edge."""
    return [p for g in vehicle.displacement.boxes for p in deck_points_of(g)]


# --------------------------------------------------------------------------- windage and hull particulars


def _union_above(rects, a, b):
    """(area m², first moment about z = 0 m³) of the union of rectangles (x0, x1, z0, z1) above z = a + b x."""
    xs = sorted({x for r in rects for x in r[:2]})
    area, mom = 0.0, 0.0
    for xa, xb in zip(xs[:-1], xs[1:]):
        iv = sorted((r[2], r[3]) for r in rects if r[0] <= xa and r[1] >= xb)
        merged = []
        for lo, hi in iv:
            if merged and lo <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], hi)
            else:
                merged.append([lo, hi])
        for lo, hi in merged:
            # ∫ over x of the part of [lo, hi] above w(x) = a + b x: split where w crosses lo and hi
            cuts = [xa, xb] + [x for x in ((lo - a) / b, (hi - a) / b) if b != 0 and xa < x < xb]
            cuts.sort()
            for p, q in zip(cuts[:-1], cuts[1:]):
                m = 0.5 * (p + q)
                wm = a + b * m
                if wm >= hi:
                    continue
                if wm <= lo:
                    area += (hi - lo) * (q - p)
                    mom += 0.5 * (hi * hi - lo * lo) * (q - p)
                else:  # bottom follows w: ∫ (hi − w) dx, ∫ ½ (hi² − w²) dx, exact for linear w
                    wp, wq = a + b * p, a + b * q
                    area += (hi - 0.5 * (wp + wq)) * (q - p)
                    mom += 0.5 * (hi * hi * (q - p) - (wp * wp + wp * wq + wq * wq) / 3.0 * (q - p))
    return area, mom


def particulars(vehicle, body, eq) -> dict:
    """The weather criterion's inputs at the floating equilibrium ``eq`` (lengths m, area m², volume m³)."""
    R, pos = np.asarray(eq.mat, float), np.asarray(eq.pos, float)
    nb, dpl = R[2, :], -float(pos[2])  # water: nb·x <= dpl (body frame)
    a, b = dpl / nb[2], -nb[0] / nb[2]  # waterline on the centreplane: z = a + b x (y = 0)
    boxes = vehicle.displacement.boxes
    wind = vehicle.windage or boxes
    rects = [(g.xyz[0] - g.shape.dims[0] / 2, g.xyz[0] + g.shape.dims[0] / 2,
              g.xyz[2] - g.shape.dims[2] / 2, g.xyz[2] + g.shape.dims[2] / 2) for g in wind]
    A, M = _union_above(rects, a, b)
    cut = []
    for g in boxes:
        hs = [nb @ c for c in deck_points_of(g, all_corners=True)]
        if min(hs) < dpl < max(hs):
            cut.append(g)
    cut = cut or list(boxes)
    x0 = min(g.xyz[0] - g.shape.dims[0] / 2 for g in cut)
    x1 = max(g.xyz[0] + g.shape.dims[0] / 2 for g in cut)
    y0 = min(g.xyz[1] - g.shape.dims[1] / 2 for g in cut)
    y1 = max(g.xyz[1] + g.shape.dims[1] / 2 for g in cut)
    keel = min(g.xyz[2] - g.shape.dims[2] / 2 for g in boxes)
    L, B = x1 - x0, y1 - y0
    zwl = a + b * 0.5 * (x0 + x1)
    d = zwl - keel
    vol = body.mass / body.rho
    com = np.asarray(body.com, float)
    zA = M / A if A > 0 else float("nan")
    return {"windage": "windage boxes" if vehicle.windage else "displacement boxes", "area": A, "z_area": zA,
            "lever": zA - (zwl - 0.5 * d) if A > 0 else 0.0, "lwl": L, "beam": B, "draught": d,
            "waterline_z": zwl, "volume": vol, "block": vol / (L * B * d), "og": float(com[2] - (a + b * com[0]))}


def deck_points_of(g, all_corners=False) -> list:
    """A box geom's top corners (or all eight) in base_link (m); the model's boxes are unrotated."""
    L, W, H = g.shape.dims
    x, y, z = g.xyz
    zs = (-1, 1) if all_corners else (1,)
    return [np.array([x + sx * L / 2, y + sy * W / 2, z + sz * H / 2]) for sx in (-1, 1) for sy in (-1, 1) for sz in zs]


# --------------------------------------------------------------------------- the criteria


def _roots(f, angles, values, level, rising):
    """Heels (rad) along ascending ``angles`` (GZ ``values`` m there) where GZ − level crosses zero rising (or
    falling), refined by Brent's method on ``f`` to 1e-12 rad."""
    from scipy.optimize import brentq

    v = np.asarray(values, float) - level
    out = []
    for k in range(len(angles) - 1):
        lo, hi = v[k], v[k + 1]
        if (rising and lo < 0 <= hi) or (not rising and lo > 0 >= hi):
            out.append(float(angles[k + 1]) if hi == 0 else
                       float(brentq(lambda x: f(x) - level, angles[k], angles[k + 1], xtol=1e-12)))
    return out


def _max_from(f, angles, gz, lo, hi):
    """max GZ (m) on [lo, hi] rad: the best sample, refined by bounded Brent between its neighbours."""
    from scipy.optimize import minimize_scalar

    grid = [lo] + [float(a) for a in angles if lo < a < hi] + [hi]
    vals = [f(a) for a in grid]
    i = int(np.argmax(vals))
    best = vals[i]
    p, q = grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]
    if q > p:
        r = minimize_scalar(lambda a: -f(a), bounds=(p, q), method="bounded", options={"xatol": 1e-10})
        best = max(best, -float(r.fun))
    return best


def evaluate(vehicle, body, curve, eq) -> Criteria | None:
    """The general (2.2) and weather (2.3) criteria of a floating vehicle on its heel ``curve``; None when it
    does not float (no waterplane: the Code's criteria do not apply)."""
    if curve.submerged or eq is None or curve.arm is None or curve.arm.kernel is None:
        return None
    arm = curve.arm
    f = lambda a: float(arm(np.array([a]))[0])  # noqa: E731
    notes = []
    angles = np.asarray(curve.angles, float)
    on = angles[np.isfinite(np.asarray(curve.gz, float))]  # the curve's own samples: to its end, if it ends
    end = curve.end.at if curve.end is not None else None
    names = [n for n, _ in vehicle.openings]
    theta_f, k = immersion_angle(arm, [np.asarray(p) for _, p in vehicle.openings], on) \
        if vehicle.openings else (None, None)
    opening = names[k] if k is not None else None
    theta_d, _ = immersion_angle(arm, deck_points(vehicle), on)
    # weather: levers, θ0, θ1, the intercepts
    P = particulars(vehicle, body, eq)
    lw1 = ic.wind_lever(P["area"], P["lever"], body.mass)
    lw2 = ic.GUST * lw1
    gm = curve.gm
    w = dict(P, lw1=lw1, lw2=lw2, gm=gm)
    w["x1"], w["x2"] = ic.table("X1", P["beam"] / P["draught"]), ic.table("X2", P["block"])
    w["k"] = ic.K_SHARP_BILGE
    w["r"] = 0.73 + 0.6 * P["og"] / P["draught"]
    w["period"] = ic.roll_period(P["beam"], P["draught"], P["lwl"], gm) if gm > 0 else float("nan")
    w["s"] = ic.table("s", w["period"]) if math.isfinite(w["period"]) else float("nan")
    rs = w["r"] * w["s"]
    w["theta1"] = math.radians(ic.roll_back(w["k"], w["x1"], w["x2"], w["r"], w["s"])) if rs >= 0 else float("nan")
    if not rs >= 0:
        notes.append(f"r = {w['r']:.3f} (OG/d = {P['og'] / P['draught']:.3f}): √(r s) undefined, no roll-back angle")
    reach = math.degrees(w["theta1"]) + 10.0 if math.isfinite(w["theta1"]) else 10.0
    neg = np.radians(-np.arange(1.0, math.ceil(reach) + 1.0, 1.0))
    states = arm.kernel.sweep(neg)  # the windward side: samples for the arm's breaks and continuation
    both = np.concatenate([neg[::-1], angles])
    vals = np.concatenate([[s.gz for s in states][::-1], curve.gz])
    t0 = _roots(f, both, vals, lw1, rising=True)
    w["theta0"] = t0[0] if t0 else float("nan")
    up = _roots(f, both, vals, lw2, rising=True)
    w["theta_e"] = up[0] if up else float("nan")
    down = [x for x in _roots(f, both, vals, lw2, rising=False) if up and x > up[0]]
    w["theta_c"] = down[0] if down else None
    cands = [R50] + [x for x in (theta_f, w["theta_c"], end) if x is not None]
    w["theta2"] = min(cands)
    if end is not None and w["theta2"] == end:
        notes.append(f"θ2 is where the curve ends ({math.degrees(end):.2f}°): past it there is no curve")
    w["theta_r"] = w["theta0"] - w["theta1"]
    lo = min(0.0, w["theta_r"]) - math.radians(3.0) if math.isfinite(w["theta_r"]) else 0.0
    lo = max(lo, float(both[0]))
    hi = max(R50, w["theta2"]) + math.radians(10.0)
    pw = st.Piecewise(arm, lo, min(hi, end - 1e-9) if end is not None else hi, extra=(0.0, R30, R40))
    w["piecewise"] = pw
    if math.isfinite(w["theta_e"]) and math.isfinite(w["theta_r"]) and w["theta2"] > w["theta_e"]:
        w["area_a"] = lw2 * (w["theta_e"] - w["theta_r"]) - pw.area(w["theta_r"], w["theta_e"])
        w["area_b"] = pw.area(w["theta_e"], w["theta2"]) - lw2 * (w["theta2"] - w["theta_e"])
    else:
        w["area_a"] = w["area_b"] = float("nan")
        notes.append("GZ does not reach the gust lever l_w2 before θ2: the weather criterion fails")
    # general criteria
    top = min(R40, theta_f) if theta_f is not None else R40
    upto = "40°" if top == R40 else f"θf = {math.degrees(top):.2f}° ({opening})"
    avs = curve.avs if curve.avs is not None else (end - 1e-9 if end is not None else math.pi)
    gz30 = _max_from(f, on, curve.gz, R30, max(avs, R30)) if avs > R30 else f(R30)
    heel_limit = min(ic.WIND_HEEL, ic.DECK_EDGE_FRACTION * math.degrees(theta_d)) if theta_d is not None \
        else ic.WIND_HEEL
    rows = [
        _crit("area_30", "2.2.1", "area under GZ to 30°", pw.area(0.0, R30), ic.AREA_30, "m·rad"),
        _crit("area_40", "2.2.1", f"area under GZ to {upto}", pw.area(0.0, top), ic.AREA_40, "m·rad"),
        _crit("area_30_40", "2.2.1", f"area under GZ from 30° to {upto}",
              pw.area(R30, top) if top > R30 else 0.0, ic.AREA_30_40, "m·rad"),
        _crit("gz_30", "2.2.2", "GZ at a heel of 30° or more (its maximum there)", gz30, ic.GZ_30, "m"),
        _crit("angle_max_gz", "2.2.3", "angle of maximum GZ", math.degrees(curve.angle_max_gz), ic.ANGLE_MAX_GZ,
              "deg"),
        _crit("gm0", "2.2.4", "initial metacentric height GM₀", gm, ic.GM0, "m"),
        _crit("wind_heel", "2.3.1.2", "steady-wind heel θ0 (limit 16° or 80 % of deck-edge immersion, the less)",
              math.degrees(w["theta0"]), heel_limit, "deg", kind="max"),
        _crit("weather_area", "2.3.1.4", "area b against area a (value b − a, limit 0)",
              w["area_b"] - w["area_a"], 0.0, "m·rad"),
    ]
    return Criteria(rows, theta_f, opening, theta_d, w, notes)


#: the sweep's margin columns, in table order: {column: criterion key}
MARGIN_COLUMNS = {"is_area_30_margin_m_rad": "area_30", "is_area_40_margin_m_rad": "area_40",
                  "is_area_30_40_margin_m_rad": "area_30_40", "is_gz_30_margin_m": "gz_30",
                  "is_angle_max_gz_margin_deg": "angle_max_gz", "is_gm0_margin_m": "gm0",
                  "is_wind_heel_margin_deg": "wind_heel", "is_weather_area_margin_m_rad": "weather_area"}


def margins(crit: Criteria | None) -> dict:
    """{column: margin or None} for :data:`MARGIN_COLUMNS`, and ``is_pass`` (all criteria met; None: none)."""
    if crit is None:
        return {c: None for c in MARGIN_COLUMNS} | {"is_pass": None}
    return {c: crit.row(k).margin for c, k in MARGIN_COLUMNS.items()} | {"is_pass": crit.passed}


def as_json(crit: Criteria | None) -> dict:
    """The criteria as plain JSON values (angles in degrees)."""
    if crit is None:
        return {"applicable": False, "reason": "the vehicle does not float: no waterplane"}
    w = crit.weather
    deg = lambda x: None if x is None or not math.isfinite(x) else math.degrees(x)  # noqa: E731
    num = lambda x: None if x is None or not math.isfinite(x) else float(x)  # noqa: E731
    weather = {k: num(w[k]) for k in ("area", "z_area", "lever", "lwl", "beam", "draught", "volume", "block", "og",
                                      "lw1", "lw2", "gm", "x1", "x2", "k", "r", "period", "s", "area_a", "area_b")}
    weather |= {f"{k}_deg": deg(w[k]) for k in ("theta0", "theta1", "theta_e", "theta_c", "theta2", "theta_r")}
    weather["windage"] = w["windage"]
    return {"applicable": True, "source": ic.SOURCE, "scope": APPLIES, "passed": crit.passed,
            "theta_f_deg": deg(crit.theta_f), "theta_f_opening": crit.theta_f_opening,
            "theta_d_deg": deg(crit.theta_d), "weather": weather, "notes": list(crit.notes),
            "criteria": [{"key": r.key, "clause": r.clause, "text": r.text, "value": r.value, "limit": r.limit,
                          "unit": r.unit, "kind": r.kind, "passed": r.passed, "margin": r.margin, "note": r.note}
                         for r in crit.rows]}
