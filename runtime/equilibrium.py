"""Floating equilibrium and righting-arm curve of a rigid set of displacement geoms.

Frames and signs.  Geoms are posed in the body frame (base_link).  The body's
attitude is ``R = R_y(trim) · R_x(heel)`` (roll-pitch-yaw with zero yaw, as in
REP-103 / URDF ``rpy``), body -> world; its origin sits at ``(0, 0, -draft)``.
The world z axis is up, the water is ``z <= 0``, gravity is along -z.

* heel (rad): roll about +x by the right-hand rule; positive heel raises the
  port side (+y) and puts the starboard side (-y) down.
* trim (rad): pitch about +y; positive trim puts the bow (+x) down.
* draft (m): depth of the base_link origin below the waterline (positive down).
* GZ (m): the righting arm, positive when the buoyancy couple turns the body
  back towards upright; for heel about x, ``GZ = -((R (B - G))_y)`` with B the
  centre of buoyancy and G the centre of mass, world axes.
* GM_T, GM_L (m): metacentric heights ``BM - BG`` with ``BM = I / V`` from the
  waterplane's second moments about the axes through its centroid: I_T about
  the longitudinal axis (body x projected on the waterplane), I_L about the
  transverse one; ``BG = z_G - z_B`` (world).  A wholly submerged body has no
  waterplane: GM = z_B - z_G.

Everything goes through the compiled kernel (:func:`aurgen.runtime.kernel.clip_into`);
nothing here depends on g.
"""
from __future__ import annotations

import math
from dataclasses import field

import numpy as np

from aurgen.core.records import record

from aurgen.runtime.geoms import EMPTY_HULLS, hull_of, pack_hulls
from aurgen.runtime.kernel import OUT_W, clip_into, support_local


def rot_x(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[1.0, 0, 0], [0, c, -s], [0, s, c]])


def rot_y(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, 0, s], [0, 1.0, 0], [-s, 0, c]])


def attitude(heel, trim):
    """Body -> world rotation ``R_y(trim) R_x(heel)``."""
    return rot_y(trim) @ rot_x(heel)


@record(eq=False)
class Equilibrium:
    """Floating equilibrium.  Lengths m, angles rad, volume m^3; see the module docstring.

    status: "floating"; "neutral" (exactly neutrally buoyant: submerged, draft
    is the depth at which it just submerges); "sinks" (weight exceeds the full
    buoyancy: draft is nan, converged False); "capsizes" (no stable upright
    equilibrium: released upright the body turns over; converged False, the
    fields describe the capsized state); or "not converged".  ``stable`` is
    GM_T > 0 and GM_L > 0; ``notes`` explain anything unusual.
    """

    draft: float
    heel: float
    trim: float
    volume: float
    cob: np.ndarray
    waterplane_area: float
    gm_t: float
    gm_l: float
    converged: bool
    pos: np.ndarray
    mat: np.ndarray
    status: str = "floating"
    stable: bool = True
    hull_only: bool = False
    residual: float = 0.0
    notes: tuple = field(default_factory=tuple)


class _Body:
    """Geoms packed once for repeated kernel calls (body frame)."""

    def __init__(self, geoms, mass, com, rho):
        geoms = list(geoms)
        if not geoms:
            raise ValueError("equilibrium: no displacement geoms")
        if not (mass > 0 and rho > 0):
            raise ValueError(f"equilibrium: mass ({mass}) and rho ({rho}) must be positive")
        self.N = len(geoms)
        self.types = np.array([g.code for g in geoms], dtype=np.int64)
        self.sizes = np.array([g.size3() for g in geoms])
        self.pos = np.array([g.pos for g in geoms])
        self.mats = np.array([g.mat for g in geoms])
        hulls, ids = [], np.zeros(self.N, dtype=np.int64)
        for i, g in enumerate(geoms):
            if g.type == "mesh":
                ids[i] = len(hulls)
                hulls.append(hull_of(g.vertices, g.faces))
        self.hull_only = any(h.concave for h in hulls)
        self.hulls = pack_hulls(hulls) if hulls else EMPTY_HULLS
        self.ids = ids
        self.mass = float(mass)
        self.com = np.asarray(com, dtype=np.float64).reshape(3)
        self.rho = float(rho)
        self.V0 = self.mass / self.rho
        self.out = np.empty((self.N, OUT_W))
        self.plane = np.zeros((1, 4))
        self.pw = np.empty_like(self.pos)
        self.mw = np.empty_like(self.mats)
        # full volume and its centre
        self.plane[0] = (0.0, 0.0, 1.0, np.inf)
        clip_into(self.types, self.sizes, self.pos, self.mats, self.ids, self.hulls, self.plane,
                  self.out, False)
        self.Vfull = float(self.out[:, 0].sum())
        self.Bfull = (self.out[:, 0] @ self.out[:, 1:4]) / self.Vfull
        self._boxes = np.nonzero(self.types == 6)[0]
        self._others = np.nonzero(self.types != 6)[0]
        self._bpos, self._bmat, self._bsize = self.pos[self._boxes], self.mats[self._boxes], self.sizes[self._boxes]
        ext = np.abs(self.pos).max() + self.sizes.max() * 2
        self.L = float(max(ext, 1e-9))

    def submerged(self, nb, d):
        """Part below the body-frame plane nb·x <= d: (V, B body, waterplane area)."""
        self.plane[0, :3] = nb
        self.plane[0, 3] = d
        clip_into(self.types, self.sizes, self.pos, self.mats, self.ids, self.hulls, self.plane,
                  self.out, False)
        v = self.out[:, 0]
        V = float(v.sum())
        B = (v @ self.out[:, 1:4]) / V if V > 0 else self.Bfull.copy()
        return V, B, float(self.out[:, 4].sum())

    def span(self, nb):
        """(lowest, highest) value of nb·x over the body (m): where cutting starts and ends."""
        lo, hi = np.inf, -np.inf
        hv, hvr = self.hulls[0], self.hulls[1]
        if self._boxes.size:  # boxes at once: centre ± Σ a_i |n_i| (the support in the box frame)
            c = self._bpos @ nb
            h = np.einsum("ni,ni->n", np.abs(np.einsum("nji,j->ni", self._bmat, nb)), self._bsize)
            lo, hi = float((c - h).min()), float((c + h).max())
        for i in self._others:
            ln = self.mats[i].T @ nb
            m = self.ids[i]
            v0, v1 = (hvr[m], hvr[m + 1]) if self.types[i] == 7 else (0, 0)
            smax, smin = support_local(self.types[i], self.sizes[i], ln[0], ln[1], ln[2], hv, v0, v1)
            c = float(self.pos[i] @ nb)
            lo, hi = min(lo, c + smin), max(hi, c + smax)
        return lo, hi

    def draft_for(self, nb, V0=None, d0=None):
        """Offset d with V(nb, d) = V0 (safeguarded Newton on the exact area); (d, B, A).

        ``d0`` (m, optional) is a first guess (e.g. the previous solve's), used if inside the body's span.
        """
        V0 = self.V0 if V0 is None else V0
        lo, hi = self.span(nb)
        # tighten the bracket to the body
        d = 0.5 * (lo + hi) if d0 is None or not (lo < d0 < hi) else float(d0)
        f_lo, f_hi = -V0, self.Vfull - V0
        for _ in range(200):
            V, B, A = self.submerged(nb, d)
            f = V - V0
            if f == 0.0:
                return d, B, A
            if f < 0:
                lo, f_lo = d, f
            else:
                hi, f_hi = d, f
            if hi - lo <= 1e-15 * self.L:
                break
            dn = d - f / A if A > 0 else np.nan
            if not (lo < dn < hi):
                dn = 0.5 * (lo + hi) if A <= 0 or not np.isfinite(dn) else dn
                if not (lo < dn < hi):
                    dn = 0.5 * (lo + hi)
            if abs(dn - d) <= 1e-15 * self.L:
                d = dn
                break
            d = dn
        V, B, A = self.submerged(nb, d)
        return d, B, A


def draft_at(geoms, mass, com, rho, R) -> float:
    """Depth (m) of the body origin below the surface at which the body, at attitude ``R``
    (body -> world), displaces its weight: the offset d of the body-frame plane nb·x <= d,
    nb = R[2, :], with V = mass / rho (the same solve as the equilibrium's)."""
    return float(_Body(geoms, mass, com, rho).draft_for(np.asarray(R, float)[2, :])[0])


def _residual(body, heel, trim, d0=None):
    """World horizontal offset of B from G (m) at the attitude, at constant displacement."""
    R = attitude(heel, trim)
    nb = R[2, :]  # R^T e_z
    d, B, A = body.draft_for(nb, d0=d0)
    rw = R @ (B - body.com)
    return np.array([rw[0], rw[1]]), d, B, A, R


def _solve_moment(body, x0, tol):
    """Newton on the horizontal B-G offset over (heel, trim); FD Jacobian, damped."""
    x = np.array(x0, dtype=np.float64)
    r, d, B, A, R = _residual(body, *x)
    h = 1e-6
    for it in range(60):
        nr = np.linalg.norm(r)
        if nr <= tol:
            return x, True, nr
        J = np.empty((2, 2))
        for k in range(2):
            e = np.zeros(2)
            e[k] = h
            rp = _residual(body, *(x + e))[0]
            rm = _residual(body, *(x - e))[0]
            J[:, k] = (rp - rm) / (2 * h)
        try:
            step = -np.linalg.solve(J, r)
        except np.linalg.LinAlgError:
            step = -np.linalg.lstsq(J, r, rcond=None)[0]
        s = np.linalg.norm(step)
        if s > 0.3:
            step *= 0.3 / s
        lam = 1.0
        for _ in range(30):
            xn = x + lam * step
            rn = _residual(body, *xn)[0]
            if np.linalg.norm(rn) < nr:
                break
            lam *= 0.5
        else:
            return x, False, nr
        x = xn
        r = rn
    return x, np.linalg.norm(r) <= tol, float(np.linalg.norm(r))


def _potential(body, heel, trim):
    """(z_G - z_B) in world at constant displacement: the potential per unit weight (m)."""
    R = attitude(heel, trim)
    d, B, A = body.draft_for(R[2, :])
    return float((R @ (body.com - B))[2])


def _waterplane(body, R, d):
    """World waterplane area, centroid and second-moment tensor at pose (R, origin at -d e_z)."""
    p = np.array([0.0, 0.0, -d])
    pw = p + body.pos @ R.T
    mw = np.einsum("ij,njk->nik", R, body.mats)
    out = np.empty((body.N, OUT_W))
    clip_into(body.types, body.sizes, pw, mw, body.ids, body.hulls,
              np.array([[0.0, 0.0, 1.0, 0.0]]), out, True)
    a = out[:, 4]
    A = float(a.sum())
    if A <= 0:
        return 0.0, np.zeros(3), np.zeros((3, 3))
    F = (a @ out[:, 5:8]) / A
    J = np.zeros((3, 3))
    for i in range(body.N):
        if a[i] <= 0:
            continue
        xx, yy, zz, xy, xz, yz = out[i, 8:14]
        Ji = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
        c = out[i, 5:8] - F
        J += Ji + a[i] * np.outer(c, c)
    return A, F, J


def _gm(body, R, d, B):
    A, F, J = _waterplane(body, R, d)
    V = body.V0
    zB = (R @ B)[2] - d
    zG = (R @ body.com)[2] - d
    uL = R[:, 0].copy()
    uL[2] = 0.0
    nL = np.linalg.norm(uL)
    uL = uL / nL if nL > 1e-12 else np.array([1.0, 0.0, 0.0])
    uT = np.array([-uL[1], uL[0], 0.0])
    IT = float(uT @ J @ uT)
    IL = float(uL @ J @ uL)
    return A, IT / V + zB - zG, IL / V + zB - zG


def equilibrium(geoms, mass, com, rho) -> Equilibrium:
    """Floating equilibrium (heave, heel, trim) of rigid geoms in fluid of density rho.

    geoms: Geoms posed in the body frame (base_link), m.  mass: kg.  com: (3,)
    body frame, m.  rho: kg/m^3.  Signs and frames: see the module docstring.
    Solves ρ V = m and "B vertically above/below G" by Newton on the exact
    kernel from upright; if that equilibrium is unstable or missing, follows
    the potential (z_G - z_B) down from upright to the state the body reaches
    (an angle of loll, or "capsizes" if it turns over).  A body heavier than its
    full displacement is reported with status "sinks" and converged False.
    """
    body = _Body(geoms, mass, com, rho)
    tol = 1e-11 * body.L
    notes = []
    if body.rho * body.Vfull < body.mass * (1 - 1e-12):
        # sinks: report the submerged attitude (B above G), no draft
        x, ok, res = _solve_submerged(body)
        R = attitude(*x)
        return Equilibrium(float("nan"), float(x[0]), float(x[1]), body.Vfull, body.Bfull.copy(), 0.0,
                           float("nan"), float("nan"), False, np.array([0.0, 0.0, np.nan]), R, "sinks",
                           True, body.hull_only, float("nan"),
                           (f"weight exceeds full buoyancy by {body.mass - body.rho * body.Vfull:.6g} kg of mass",))
    neutral = body.rho * body.Vfull <= body.mass * (1 + 1e-12)
    if neutral:
        body.V0 = body.Vfull
        x, ok, res = _solve_submerged(body)
        R = attitude(*x)
        nb = R[2, :]
        d = _top_offset(body, nb)
        zB = (R @ body.Bfull)[2]
        zG = (R @ body.com)[2]
        gm = zB - zG
        return Equilibrium(float(d), float(x[0]), float(x[1]), body.Vfull, body.Bfull.copy(), 0.0,
                           float(gm), float(gm), bool(ok), np.array([0.0, 0.0, -d]), R, "neutral",
                           bool(gm > 0), body.hull_only, float(res),
                           ("neutrally buoyant: any depth below the draft is an equilibrium",))
    x, ok, res = _solve_moment(body, (0.0, 0.0), tol)
    stable = False
    if ok:
        R = attitude(*x)
        d, B, A = body.draft_for(R[2, :])
        _, gmt, gml = _gm(body, R, d, B)
        stable = gmt > 0 and gml > 0
    if not stable:
        # released upright, the body goes down the potential to the nearest stable state
        from scipy.optimize import minimize

        r = minimize(lambda z: _potential(body, z[0], z[1]), np.zeros(2), method="Nelder-Mead",
                     options={"xatol": 1e-9, "fatol": 1e-14 * body.L, "maxiter": 2000,
                              "initial_simplex": np.array([[0.0, 0.0], [0.1, 0.0], [0.0, 0.1]])})
        x2, ok2, res2 = _solve_moment(body, r.x, tol)
        if ok2:
            x, ok, res = x2, ok2, res2
            notes.append("the upright attitude is not a stable equilibrium; this is the state the body "
                         "reaches from it")
        else:
            x, ok, res = r.x, False, res2
            notes.append("no equilibrium found")
    x = np.array([(x[0] + np.pi) % (2 * np.pi) - np.pi, (x[1] + np.pi) % (2 * np.pi) - np.pi])
    R = attitude(*x)
    d, B, A = body.draft_for(R[2, :])
    Awp, gmt, gml = _gm(body, R, d, B)
    V, _, _ = body.submerged(R[2, :], d)
    status = "floating" if ok else "not converged"
    if ok and R[2, 2] <= 0.0:  # body z axis pointing down: it capsized (rolled or pitched over)
        status, ok = "capsizes", False
        notes.append("no upright equilibrium: released upright the body capsizes; "
                     "heel/trim/draft are those of the capsized state")
    return Equilibrium(float(d), float(x[0]), float(x[1]), float(V), B, float(Awp), float(gmt), float(gml),
                       bool(ok), np.array([0.0, 0.0, -d]), R, status,
                       bool(gmt > 0 and gml > 0), body.hull_only, float(res), tuple(notes))


def _top_offset(body, nb):
    """Smallest offset d at which the whole body is below nb·x <= d."""
    return body.span(nb)[1]


def hanging_attitude(b) -> tuple[float, float]:
    """(heel, trim) rad, trim bow down positive, at which a wholly submerged body hangs: its
    CoB-from-CoM vector ``b`` (m, body frame) turned straight up by R = R_y(trim) R_x(heel)
    (R_x zeroes b's y component, then R_y its x component). (0, 0) for b = 0."""
    b0, b1, b2 = (float(v) for v in b)
    if b0 == 0.0 and b1 == 0.0 and b2 == 0.0:
        return 0.0, 0.0
    return math.atan2(b1, b2), math.atan2(-b0, math.hypot(b1, b2))


def _solve_submerged(body):
    """Attitude of a wholly submerged body: B straight above G."""
    b = body.Bfull - body.com
    nb = np.linalg.norm(b)
    if nb <= 1e-15 * body.L:
        return np.zeros(2), True, 0.0
    heel, trim = hanging_attitude(b)
    r = attitude(heel, trim) @ b
    return np.array([heel, trim]), True, float(np.hypot(r[0], r[1]))


# --------------------------------------------------------------------------- righting arm on a stable branch

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


def _features(body):
    """The body's kink features: callables nb -> (K,) offsets (m) at which the plane ``nb·x = d`` meets a vertex,
    a cap rim's extreme point or a smooth geom's support point.  V(d) and B(d) are smooth in (nb, d) except where
    d equals one of these (body frame)."""
    verts, circles, balls, ells = [], [], [], []
    hv, hvr = body.hulls[0], body.hulls[1]
    for i in range(body.N):
        t, a, p, M = int(body.types[i]), body.sizes[i], body.pos[i], body.mats[i]
        if t == 6:  # box
            loc = np.array([[sx * a[0], sy * a[1], sz * a[2]] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])
            verts.append(p + loc @ M.T)
        elif t == 7:  # mesh: its hull's vertices
            m = body.ids[i]
            verts.append(p + hv[hvr[m]:hvr[m + 1]] @ M.T)
        elif t in (5, 3):  # cylinder, capsule: the two rims (and a capsule's caps)
            ax = M[:, 2]
            for s in (-1.0, 1.0):
                c = p + s * a[1] * ax
                circles.append((c, ax, a[0]))
                if t == 3:
                    balls.append((c, a[0]))
        elif t == 2:  # sphere
            balls.append((p, a[0]))
        elif t == 4:  # ellipsoid
            ells.append((p, M * a[None, :]))
    V = np.concatenate(verts) if verts else np.zeros((0, 3))

    def heights(nb):
        out = [V @ nb]
        for c, ax, r in circles:
            w = r * np.sqrt(max(0.0, 1.0 - float(ax @ nb) ** 2))
            out.append(np.array([c @ nb - w, c @ nb + w]))
        for c, r in balls:
            out.append(np.array([c @ nb - r, c @ nb + r]))
        for c, MA in ells:
            w = float(np.linalg.norm(MA.T @ nb))
            out.append(np.array([c @ nb - w, c @ nb + w]))
        return np.concatenate(out)

    return heights


class RightingArm:
    """GZ(heel) of a floating body at constant displacement, the trim following one pitch-stable branch.

    geoms: Geoms in the body frame (base_link), m; mass kg; com (3,) m body
    frame; rho kg/m^3.  Angles rad; signs and frames as in the module
    docstring.  With ``free_trim`` the trim at each heel is a root of the
    longitudinal B-G offset with a positive restoring slope (pitch-stable):
    :meth:`sweep` scans the full ±π trim range at every sample and follows the
    branch continuous with upright (at zero heel, the stable trim nearest 0),
    from 0 outwards on each side; where that branch ends (a fold) it jumps to
    the stable trim the pitch moment turns the body to (the first one met
    going from the old trim the way the moment acts, :func:`_downhill`) and
    records where (:attr:`jumps`).  Without
    ``free_trim`` the trim is held at the upright equilibrium's.

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
        cands = _stable_trims(self.body, phi)
        if not cands:
            return self._make(phi, t, f)
        t = min(cands, key=lambda c: abs(_wrap(c - g)))
        return self._make(phi, t, f)

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
            # bisected steps; only if it ends before phi is this a jump
            pj, t_lo = self._locate_fold(prev, phi)
            tc, okc = _newton_trim(f, t_lo, self.tol)
            if phi - pj <= 1e-12 and okc and _pitch_slope(f, tc) > 0 and abs(_wrap(tc - t_lo)) < 0.2:
                t, jump = tc, False
            elif stable:
                t = _downhill(f, t_prev, stable)
        others = tuple(c for c in stable if abs(_wrap(c - t)) > 1e-7)
        st = self._make(phi, t, f, others, jump)
        if jump:
            self.jumps.append((pj, prev.trim, st.trim))
        return st

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

    def sweep(self, angles, progress=None) -> list:
        """States at each heel in ``angles`` (rad), continued from upright outwards on each side."""
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
        for i in range(len(ang)):
            if ang[i] == 0.0:
                out[i] = zero
        return out

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
