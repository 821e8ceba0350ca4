"""An independent hydrostatic reference for boxes (no aurgen kernel): clipping, draft, GZ, free-angle continuation.

Each box is clipped by the plane ``nb·x <= d`` (body frame) as the convex hull (scipy's Qhull) of its corners below
the plane and its edges' crossings of it; volume and centroid from the hull's facets as tetrahedra from an interior
point.  The draft at constant displacement by brentq; GZ = -(R (B - G))_y with R = R_y(trim) R_x(heel) (the
kernel's documented convention, docs/report.md).  The free angle (trim of a heel curve) is continued from upright by
pseudo-arclength continuation on F(heel, trim) = (R (B - G))_x = 0 in the (heel, trim) plane, each point tested for
pitch stability (dF/dtrim > 0); the branch a curve may follow ends where heel turns back (a fold) or stability is
lost.  Used by test_criteria.py and test_trim_property.py.  Lengths m, angles rad, masses kg.
"""
import math

import numpy as np
from scipy.optimize import brentq
from scipy.spatial import ConvexHull

_SIGNS = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], float)
_EDGES = [(i, j) for i in range(8) for j in range(i + 1, 8) if int(np.abs(_SIGNS[i] - _SIGNS[j]).sum()) == 2]


def box_corners(centre, half, R=np.eye(3)):
    """(8, 3) corners (m) of a box of half sizes ``half`` at ``centre`` with axes ``R`` (columns)."""
    return np.asarray(centre, float) + (_SIGNS * np.asarray(half, float)) @ np.asarray(R, float).T


def aligned(centre, half):
    """An axis-aligned box for the closed-form clip: ("aligned", lower corner, size)."""
    c, a = np.asarray(centre, float), np.asarray(half, float)
    return ("aligned", c - a, 2 * a)


def aligned_corners(b):
    return box_corners(b[1] + b[2] / 2, b[2] / 2)


def _hull_props(pts):
    """(volume, centroid) of the convex hull of ``pts`` (0 volume when degenerate)."""
    if len(pts) < 4:
        return 0.0, np.zeros(3)
    try:
        h = ConvexHull(pts)
    except Exception:  # noqa: BLE001 (flat: no volume)
        return 0.0, np.zeros(3)
    c0 = pts[h.vertices].mean(axis=0)
    T = pts[h.simplices]  # (F, 3, 3): facets as tetrahedra with c0
    a, b, c = T[:, 0] - c0, T[:, 1] - c0, T[:, 2] - c0
    v = np.abs(np.einsum("ij,ij->i", a, np.cross(b, c))) / 6.0
    V = float(v.sum())
    M = (v[:, None] * (T.sum(axis=1) + c0) / 4.0).sum(axis=0)
    return V, (M / V if V > 0 else c0)


def clip(corners, nb, d):
    """(volume m³, centroid m) of a convex box (its 8 ``corners``) below the plane nb·x <= d."""
    s = corners @ nb - d
    if (s <= 0).all():
        return _hull_props(corners)
    if (s >= 0).all():
        return 0.0, np.zeros(3)
    pts = [corners[k] for k in range(8) if s[k] <= 0]
    for i, j in _EDGES:
        if (s[i] < 0 < s[j]) or (s[j] < 0 < s[i]):
            w = s[i] / (s[i] - s[j])
            pts.append(corners[i] + w * (corners[j] - corners[i]))
    return _hull_props(np.array(pts))


_EPS = np.array([[i, j, k] for i in (0, 1) for j in (0, 1) for k in (0, 1)], float)


def clip_aligned(lo, size, nb, d):
    """(volume, centroid) of an axis-aligned box [lo, lo + size] below nb·x <= d in closed form: inclusion-
    exclusion over its corners of the simplices {x >= v, n·x <= d} (volume h³/(6 n1 n2 n3), centroid
    v + h/(4 n)), with each axis reflected so that n > 0; the convex-hull clip where a component is below 1e-4."""
    n = np.asarray(nb, float).copy()
    if (np.abs(n) < 1e-4).any():
        return clip(box_corners(lo + size / 2, size / 2), nb, d)
    lo2, sgn = np.asarray(lo, float).copy(), np.sign(n)
    # reflect x_i -> -x_i where n_i < 0: the box [lo, lo+s] becomes [-(lo+s), -lo]
    lo2[n < 0] = -(lo2[n < 0] + size[n < 0])
    n = np.abs(n)
    v = lo2 + _EPS * size
    h = np.maximum(d - v @ n, 0.0)
    sign = (-1.0) ** _EPS.sum(axis=1)
    vs = sign * h ** 3 / (6 * n.prod())
    V = float(vs.sum())
    if V <= 0:
        return 0.0, np.zeros(3)
    V = min(V, float(size.prod()))
    c = (vs[:, None] * (v + h[:, None] / (4 * n))).sum(axis=0) / vs.sum()
    return V, c * sgn


def submerged(boxes, nb, d):
    """(V, B) of all boxes (corner arrays, or ("aligned", lo, size)) below nb·x <= d."""
    V, M = 0.0, np.zeros(3)
    for c in boxes:
        v, b = clip_aligned(c[1], c[2], nb, d) if isinstance(c, tuple) else clip(c, nb, d)
        V += v
        M += v * b
    return V, (M / V if V > 0 else M)


def rot(heel, trim):
    ch, sh, ct, st = math.cos(heel), math.sin(heel), math.cos(trim), math.sin(trim)
    Rx = np.array([[1, 0, 0], [0, ch, -sh], [0, sh, ch]])
    Ry = np.array([[ct, 0, st], [0, 1, 0], [-st, 0, ct]])
    return Ry @ Rx


class Hull:
    """Boxes (corner arrays, body frame), mass kg, CoM m (body), ρ kg/m³; all figures at constant displacement."""

    def __init__(self, boxes, mass, com, rho):
        self.boxes = [b if isinstance(b, tuple) else np.asarray(b, float) for b in boxes]
        self.mass, self.com, self.rho = float(mass), np.asarray(com, float), float(rho)
        self.V0 = self.mass / self.rho
        self._d = None

    def draft(self, nb):
        """d (m) with V(nb·x <= d) = V0, and B (m, body)."""
        zs = np.concatenate([(aligned_corners(b) if isinstance(b, tuple) else b) @ nb for b in self.boxes])
        lo, hi = zs.min(), zs.max()

        def f(d):
            return submerged(self.boxes, nb, d)[0] - self.V0

        a, b = lo, hi
        if self._d is not None:
            a2, b2 = max(lo, self._d - 2e-3), min(hi, self._d + 2e-3)
            if a2 < b2 and f(a2) < 0 < f(b2):
                a, b = a2, b2
        d = brentq(f, a, b, xtol=1e-14, rtol=1e-15)
        self._d = d
        return d, submerged(self.boxes, nb, d)[1]

    def offset(self, heel, trim):
        """R (B − G) (m, world) at the attitude (heel, trim)."""
        R = rot(heel, trim)
        _, B = self.draft(R[2, :])
        return R @ (B - self.com)

    def gz(self, heel, trim):
        """GZ (m), positive righting."""
        return -float(self.offset(heel, trim)[1])

    def emerged_height(self, point, heel, trim):
        """Height (m) of a body point above the water at (heel, trim)."""
        R = rot(heel, trim)
        d, _ = self.draft(R[2, :])
        return float(R[2, :] @ np.asarray(point, float) - d)

    def trim_branch(self, heel_max, ds=math.radians(0.5), t0=0.0, h=1e-6):
        """The pitch-stable free trim continued from upright: [(heel, trim)] by pseudo-arclength on
        F = offset_x = 0, until heel reaches ``heel_max`` (rad) or turns back (a fold) or dF/dtrim ≤ 0."""
        F = lambda p, t: float(self.offset(p, t)[0])  # noqa: E731
        t = brentq(lambda x: F(0.0, x), t0 - 0.3, t0 + 0.3, xtol=1e-14)
        pts = [(0.0, t)]
        tan = None
        x = np.array([0.0, t])
        while x[0] < heel_max:
            fp = (F(x[0] + h, x[1]) - F(x[0] - h, x[1])) / (2 * h)
            ft = (F(x[0], x[1] + h) - F(x[0], x[1] - h)) / (2 * h)
            if not ft > 0:
                break  # no longer pitch-stable
            tn = np.array([ft, -fp]) / math.hypot(fp, ft)  # tangent of the level set, heel increasing
            if tan is not None and tn @ tan < 0:
                tn = -tn
            if tn[0] <= 0:
                break  # heel turns back: a fold
            tan = tn
            step = min(ds, (heel_max - x[0]) / tn[0]) if x[0] + ds * tn[0] > heel_max else ds
            y = x + step * tn
            for _ in range(30):  # Newton on F along the normal of the tangent
                g = np.array([(F(y[0] + h, y[1]) - F(y[0] - h, y[1])) / (2 * h),
                              (F(y[0], y[1] + h) - F(y[0], y[1] - h)) / (2 * h)])
                r = F(*y)
                if abs(r) < 1e-13:
                    break
                y = y - r * g / (g @ g)
            x = y
            pts.append((float(x[0]), float(x[1])))
        return pts

    def trim_at(self, branch, heel):
        """The branch's trim (rad) at ``heel``, solved by brentq in a bracket around the continued points."""
        ph = np.array([p for p, _ in branch])
        k = int(np.searchsorted(ph, heel))
        if k >= len(ph):
            return None
        if ph[k] == heel:
            return branch[k][1]
        t_a, t_b = branch[k - 1][1], branch[k][1]
        lo, hi = min(t_a, t_b) - 1e-3, max(t_a, t_b) + 1e-3
        F = lambda t: float(self.offset(heel, t)[0])  # noqa: E731
        return brentq(F, lo, hi, xtol=1e-14)
