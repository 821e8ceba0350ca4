"""An independent reference for where a righting-arm curve with a free angle ends: a root scan of the free angle.

The body (boxes, body frame) at attitude R = R_y(ψ) R_x(φ) (φ the curve's angle, ψ the free one: the kernel's
documented convention, docs/report.md) floats at constant displacement; its draft is solved here, for a whole grid
of attitudes at once, by safeguarded Newton on the volume below z = 0 with the waterplane area as the slope, each
volume from ``aurgen.runtime.hydrostatics.clip_batch`` (the clip only: no draft, trim or branch code of the
kernel).  F(φ, ψ) = (R (B − G))_x, the world offset of B ahead of G, is the free angle's moment arm: a root with
∂F/∂ψ > 0 is a stable free angle (a bow-down ψ puts B ahead of G, whose moment turns the bow back up).

At each φ, F(φ, ·) is scanned over ψ in [−100°, 100°] every 0.5°, and every 0.01° within 1.5° of the last root;
each sign change is a root (rising: stable, falling: unstable).  The stable root followed from upright (at φ = 0 the
rising root nearest ψ = 0) is taken at the next φ to the rising root nearest it if that moved less than half the
distance to its nearest neighbouring root (so no two roots can have swapped) and by at most 20 × the step or a
tenth of that distance (a root that does not come closer as the step is halved is on another branch); else the
step is halved.  The branch ends

* at a fold, where no step down to 1e-9 rad continues it: the root has met its unstable neighbour (both vanish;
  or a pitchfork leaves no stable root near it; one that does, as a symmetric body's, is followed through onto
  the nearest new stable root);
* where the root passes ψ = ±90° (the curve's axis is then vertical: its angle means nothing), located by
  bisection on φ along the branch.

Lengths m, angles rad, masses kg.
"""
import math

import numpy as np
from scipy.optimize import brentq

from aurgen.runtime.hydrostatics import clip_batch

_SIGNS = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], float)


def rot(phi, psi):
    """R_y(ψ) R_x(φ) for arrays of equal shape: (..., 3, 3)."""
    phi, psi = np.broadcast_arrays(np.asarray(phi, float), np.asarray(psi, float))
    cp, sp, ct, st = np.cos(phi), np.sin(phi), np.cos(psi), np.sin(psi)
    z, o = np.zeros_like(phi), np.ones_like(phi)
    Rx = np.stack([np.stack([o, z, z], -1), np.stack([z, cp, -sp], -1), np.stack([z, sp, cp], -1)], -2)
    Ry = np.stack([np.stack([ct, z, st], -1), np.stack([z, o, z], -1), np.stack([-st, z, ct], -1)], -2)
    return Ry @ Rx


class Scan:
    """Boxes ``[(half sizes (3,), centre (3,), axes (3, 3))]`` in the body frame, mass kg, CoM m, ρ kg/m³."""

    def __init__(self, boxes, mass, com, rho):
        self.half = np.array([b[0] for b in boxes], float)
        self.pos = np.array([b[1] for b in boxes], float)
        self.mat = np.array([b[2] for b in boxes], float)
        self.com = np.asarray(com, float)
        self.V0 = float(mass) / float(rho)
        self.corners = np.concatenate([p + (_SIGNS * h) @ M.T for h, p, M in zip(self.half, self.pos, self.mat)])

    def offsets(self, phi, psi):
        """R (B − G) (m, world) at each attitude (arrays of equal shape; (..., 3))."""
        R = rot(phi, psi).reshape(-1, 3, 3)
        K, N = len(R), len(self.half)
        z = np.einsum("kj,cj->kc", R[:, 2, :], self.corners)  # heights of the corners above the origin
        lo, hi = z.min(axis=1), z.max(axis=1)  # origin depth h: nothing / everything below the water
        pw0 = np.einsum("kij,nj->kni", R, self.pos)
        mw = np.einsum("kij,njl->knil", R, self.mat).reshape(-1, 3, 3)
        sizes = np.tile(self.half, (K, 1))
        h = 0.5 * (lo + hi)

        def clip(h):
            pw = (pw0 - np.array([0.0, 0.0, 1.0]) * h[:, None, None]).reshape(-1, 3)
            v, c, a = clip_batch("box", sizes, pw, mw, (0.0, 0.0, 1.0), 0.0)
            return v.reshape(K, N), c.reshape(K, N, 3), a.reshape(K, N).sum(axis=1)

        for _ in range(100):
            v, c, a = clip(h)
            f = v.sum(axis=1) - self.V0
            lo = np.where(f < 0, h, lo)
            hi = np.where(f > 0, h, hi)
            hn = np.where(a > 0, h - f / np.where(a > 0, a, 1.0), np.nan)
            bad = ~((hn > lo) & (hn < hi))
            hn = np.where(bad, 0.5 * (lo + hi), hn)
            if np.all(np.abs(hn - h) <= 1e-15) or np.all(hi - lo <= 1e-15):
                h = hn
                break
            h = hn
        v, c, _ = clip(h)
        B = (v[:, :, None] * c).sum(axis=1) / v.sum(axis=1)[:, None]  # world, origin at depth h
        G = np.einsum("kij,j->ki", R, self.com) - np.array([0.0, 0.0, 1.0]) * h[:, None]
        return (B - G).reshape(np.broadcast(np.asarray(phi), np.asarray(psi)).shape + (3,))

    def F(self, phi, psi):
        """The free angle's moment arm (R (B − G))_x (m)."""
        return self.offsets(phi, psi)[..., 0]

    def gz(self, phi, psi):
        """GZ = −(R (B − G))_y (m), positive righting."""
        return -self.offsets(phi, psi)[..., 1]

    # ------------------------------------------------------------------ the followed branch

    def roots(self, phi, s=None, coarse=math.radians(0.5), fine=math.radians(0.01), width=math.radians(1.5)):
        """Every root of F(φ, ·) on a scan of [−100°, 100°] every ``coarse`` rad, and within ``width`` of ``s`` on a
        scan every ``fine`` rad (offset half a cell from s), in order: [(ψ linearly interpolated, cell lo, cell hi,
        rising)]."""
        g = np.arange(-math.radians(100.0), math.radians(100.0) + coarse / 2, coarse)
        if s is not None:  # the fine scan in its window, the coarse one outside it: one ordered grid
            g1 = s + fine / 2 + np.arange(-width, width, fine)
            g = np.concatenate([g[g < g1[0]], g1, g[g > g1[-1]]])
        v = self.F(np.full(len(g), phi), g)
        out = []
        for i in np.nonzero((v[:-1] < 0) != (v[1:] < 0))[0]:
            out.append((float(g[i] - v[i] * (g[i + 1] - g[i]) / (v[i + 1] - v[i])), g[i], g[i + 1], v[i] < 0))
        return sorted(out)

    def _next(self, phi, s, gap, h, slope=20.0):
        """(ψ, gap): the rising root at φ nearest ``s`` (interpolated in its cell; by brentq past 85°) if it moved
        less than half ``gap`` (the distance from s to its nearest neighbouring root where s was found) and at most
        ``slope`` × the step ``h`` or a tenth of ``gap``; and its own gap.  Else None."""
        r = self.roots(phi, s)
        up = [k for k, q in enumerate(r) if q[3]]
        if not up:
            return None
        k = min(up, key=lambda k: abs(r[k][0] - s))
        x, a, b, _ = r[k]
        if abs(x - s) >= 0.5 * gap or abs(x - s) > max(slope * h, 0.1 * gap):
            return None
        if abs(x) > math.radians(85.0):  # where ±90° is decided: exact (else to the cell's interpolation)
            x = brentq(lambda p: float(self.F(phi, p)), a, b, xtol=1e-14)
        near = [abs(r[j][0] - x) for j in (k - 1, k + 1) if 0 <= j < len(r)]
        return x, min(near, default=math.pi)

    def end(self, phi_max=math.pi, dphi=math.radians(2.0), hmin=1e-9):
        """(φ rad, kind, ψ rad) where the stable free angle followed from upright ends: kind 'fold' (ψ its last
        root) or '90' (the root passes ±90°); (None, None, ψ) if it runs to ``phi_max``.  ``self.path``: [(φ, ψ)].

        At φ = 0 the rising root nearest ψ = 0; then steps of at most ``dphi``, each taken to the rising root nearest
        the last if it moved less than half the distance from the last to its nearest neighbouring root (so it
        cannot have swapped with one) and by at most 20 × the step or a tenth of that distance (a root that does not
        come closer as the step is halved is on another branch: a pair of roots born within the step and the
        followed one's fold with one of them), else the step halved.  Where no step down to ``hmin`` continues it,
        the root has met its neighbour (an unstable root: a fold, or a pitchfork that leaves no stable root near
        it)."""
        s, gap = self._next(0.0, 0.0, 2 * math.pi, 1.0)
        phi, self.path, h = 0.0, [(0.0, s)], dphi
        while phi < phi_max - 1e-12:
            p = min(phi + h, phi_max)
            nxt = self._next(p, s, gap, p - phi)
            if nxt is None:
                if h <= hmin:
                    return phi, "fold", s
                h /= 2
                continue
            if abs(nxt[0]) >= math.pi / 2:  # past ±90°: bisect on φ along the branch
                lo, hi, sm, gm = phi, p, s, gap
                while hi - lo > 1e-9:
                    m = 0.5 * (lo + hi)
                    y = self._next(m, sm, gm, m - lo)
                    if y is not None and abs(y[0]) < math.pi / 2:
                        lo, (sm, gm) = m, y
                    else:
                        hi = m
                return 0.5 * (lo + hi), "90", math.copysign(math.pi / 2, nxt[0])
            phi, (s, gap) = p, nxt
            self.path.append((phi, s))
            h = min(2 * h, dphi)
        return None, None, s

    def root_near(self, phi, psi):
        """The rising root of F(φ, ·) nearest ψ (rad), by brentq in its scan cell."""
        r = [q for q in self.roots(phi, psi) if q[3]]
        _, a, b, _ = min(r, key=lambda q: abs(q[0] - psi))
        return brentq(lambda p: float(self.F(phi, p)), a, b, xtol=1e-14)

    def held_avs(self, psi, lo, hi=math.pi, n=180):
        """The first fall of GZ(φ, ψ held) through zero after ``lo`` (rad), by brentq; None if none."""
        ph = np.linspace(lo, hi, n + 1)
        g = self.gz(ph, np.full_like(ph, psi))
        for k in range(n):
            if g[k] > 0 >= g[k + 1]:
                return brentq(lambda p: float(self.gz(p, psi)), ph[k], ph[k + 1], xtol=1e-13)
        return None
