"""GZ on an interval as Chebyshev interpolants between its breaks (:class:`Piecewise`): integrals and slopes of a
righting-arm curve exact to ~1e-14.  The arm is any callable GZ(φ) (m, φ rad, vectorised) with ``breaks(lo, hi)``,
the angles where it is not smooth (:class:`aurgen.analysis.stability._Arm`).  Used through
:mod:`aurgen.analysis.stability` (``stability.Piecewise``).
"""

from __future__ import annotations

import numpy as np


class Piecewise:
    """GZ on [lo, hi] (rad) as Chebyshev interpolants between its breaks: integrals and slopes exact to ~1e-14.

    On each smooth piece the interpolant's degree is raised (12, 24, 48) until
    its last three Chebyshev coefficients are below ``tol`` (m); failing that
    the piece is halved.  The interpolant of an analytic function converges
    geometrically, so its integral (Clenshaw–Curtis) is then exact to about
    ``tol`` times the piece's width.  ``area(a, b)`` (m·rad) is ∫_a^b GZ dφ for
    lo ≤ a ≤ b ≤ hi.
    """

    def __init__(self, arm, lo: float, hi: float, extra=(), tol: float = 1e-14):
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
