"""Floating equilibrium of a rigid set of displacement geoms (the righting-arm curve: runtime/hydrostatics/righting.py).

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

Everything goes through the compiled kernel (:func:`aurgen.runtime.hydrostatics.kernel.clip_into`);
nothing here depends on g.
"""
from __future__ import annotations

import math
from dataclasses import field

import numpy as np

from aurgen.core.records import record

from aurgen.runtime.hydrostatics.geoms import EMPTY_HULLS, hull_of, pack_hulls
from aurgen.runtime.hydrostatics.kernel import OUT_W, clip_into, support_local


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


# ------------------------------------------------------------------ kinks (the righting arm's breaks)


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
