"""The roll period from the righting-arm curve (pure functions, no I/O).

- the small-angle natural roll period ``2π sqrt((I_xx + added) / (ρ g V GM_T))`` (s);
- the undamped one-degree-of-freedom period (s) of a release at rest at an
  amplitude (rad) above the rest heel, integrated on the GZ curve of
  :func:`aurgen.analysis.stability.gz_curve` (m, against heel in rad);
- the declared roll added inertia −K_ṗ (kg·m²).

Heel φ about +x of base_link (starboard down positive); GZ > 0 rights, as in
:mod:`aurgen.analysis.stability`.
"""

from __future__ import annotations

import math

import numpy as np

from aurgen.analysis.stability import G, GZCurve, Piecewise


def roll_period(ixx: float, added: float, rho: float, volume: float, gm_t: float, g: float = G) -> float:
    """Small-angle natural roll period 2π sqrt((I_xx + added) / (ρ g V GM_T)) (s); inf if GM_T ≤ 0."""
    k = rho * g * volume * gm_t
    return 2 * math.pi * math.sqrt((ixx + added) / k) if k > 0 else math.inf


def equilibrium_angle(curve: GZCurve, near: float = 0.0) -> float:
    """The heel (rad) nearest ``near`` at which the curve's GZ vanishes (the rest angle of a 1-DOF roll)."""
    from scipy.optimize import brentq

    arm = curve.arm
    if arm.submerged:
        return float(math.atan2(arm.b[1], arm.b[2]))

    def f(a):
        return float(arm(np.array([a]))[0])

    f0 = f(near)
    if f0 == 0.0:
        return float(near)
    step = math.radians(0.5)
    for k in range(1, 180):
        for a in (near - k * step, near + k * step):
            lo, hi = sorted((near - (k - 1) * step * (1 if a < near else -1), a))
            if f(lo) * f(hi) <= 0:
                return float(brentq(f, lo, hi, xtol=1e-15))
    raise ArithmeticError("the GZ curve does not vanish near the equilibrium")


def _gauss(fun, a: float, b: float, tol: float = 1e-11, depth: int = 0) -> float:
    """∫_a^b fun by Gauss–Legendre (20 against 40 points), halving until they agree to ``tol`` relative.

    (1e-11: near a turning point the energy ∫_φ^φ0 GZ is a difference of O(1) antiderivative values,
    so the integrand carries rounding noise of ~1e-12 relative there.)"""
    x20, w20 = np.polynomial.legendre.leggauss(20)
    x40, w40 = np.polynomial.legendre.leggauss(40)
    m, h = 0.5 * (a + b), 0.5 * (b - a)
    i20 = h * float(w20 @ fun(m + h * x20))
    i40 = h * float(w40 @ fun(m + h * x40))
    if abs(i40 - i20) <= tol * max(abs(i40), 1e-300) or depth >= 12:
        return i40
    return _gauss(fun, a, m, tol, depth + 1) + _gauss(fun, m, b, tol, depth + 1)


def roll_period_at(curve: GZCurve, amplitude: float, inertia: float, mass: float, g: float = G,
                   phi_e: float | None = None, pieces: "Piecewise | None" = None) -> dict:
    """Undamped one-degree-of-freedom roll period (s) from the GZ curve, released at rest ``amplitude`` (rad)
    above the rest heel φe: I φ'' = −m g GZ(φ).

    ``inertia`` kg·m² about the heel axis (I_xx plus any added roll inertia),
    ``mass`` kg.  With φ0 = φe + amplitude and φ− < φe the other turning point
    (∫_{φ−}^{φ0} GZ = 0), T = 2 ∫_{φ−}^{φ0} dφ / √((2 m g / I) ∫_φ^{φ0} GZ dψ),
    which for a curve odd about φe is 4 ∫_{φe}^{φ0} (the textbook T(φ0)).  Each
    side is mapped by φ = φe ± Δ sin θ, which removes the inverse-square-root
    end singularity, and split at the curve's breaks; GZ integrals come from
    :class:`Piecewise` (exact to ~1e-14).  Returns period (s), rest heel
    ``phi_e``, turning points ``phi0``, ``phi_minus`` (rad).  ``phi_e`` and
    ``pieces`` (a :class:`Piecewise` of this curve covering the swing) may be
    passed in to reuse them across amplitudes.
    """
    from scipy.optimize import brentq

    phe = equilibrium_angle(curve) if phi_e is None else float(phi_e)
    ph0 = phe + amplitude
    k = 2 * mass * g / inertia
    lo = max(phe - 1.5 * amplitude, -math.pi)
    # reuse the given pieces only if they are not much wider than the swing: the energy ∫_φ^φ0 GZ near a
    # turning point is a difference of antiderivative values that scale with the piece's width
    fits = pieces is not None and pieces.lo <= lo and pieces.hi >= ph0 and pieces.hi - pieces.lo <= 4 * amplitude
    pw = pieces if fits else Piecewise(curve.arm, lo, ph0)
    lo = max(lo, pw.lo)
    if pw.area(lo, ph0) > 0:  # the other side does not stop within 1.5 amplitudes: widen once
        lo = max(phe - 4 * amplitude, -math.pi)
        pw = Piecewise(curve.arm, lo, ph0)
        if pw.area(lo, ph0) > 0:
            return {"period": math.inf, "phi_e": phe, "phi0": ph0, "phi_minus": None}
    phm = float(brentq(lambda p: pw.area(p, ph0), lo, phe, xtol=1e-15))

    def side(d_amp, sign, W):
        brk = [b for b in pw.breaks if (phe < b < ph0 if sign > 0 else phm < b < phe)]
        th = sorted({0.0, math.pi / 2, *[math.asin(min(1.0, abs(b - phe) / d_amp)) for b in brk]})

        turn = phe + sign * d_amp
        g_turn = abs(float(curve.arm(np.array([turn]))[0]))

        def fun(t):
            st_ = np.sin(t)
            out = np.empty_like(t)
            # within 1e-8 of the turning point (in 1 − sin θ) the energy is a rounding-level difference: use
            # its leading term |GZ(turn)| Δ (1 − sin θ) (relative error O(1e-8) over a θ-range of O(1e-4))
            near = (1.0 - st_) < 1e-8
            out[near] = np.sqrt(d_amp / (k * g_turn)) * np.sqrt(1.0 + st_[near])
            far = ~near
            w = np.array([W(p) for p in phe + sign * d_amp * st_[far]])
            if np.any(w <= 0):
                raise ArithmeticError("roll period: the swing's energy is not positive inside it (rounding)")
            out[far] = d_amp * np.cos(t[far]) / np.sqrt(k * w)
            return out

        return sum(_gauss(fun, a, b) for a, b in zip(th[:-1], th[1:]) if b > a)

    up = side(ph0 - phe, 1.0, lambda p: pw.area(p, ph0))
    down = side(phe - phm, -1.0, lambda p: -pw.area(phm, p))
    return {"period": 2 * (up + down), "phi_e": phe, "phi0": ph0, "phi_minus": phm}


def added_roll_inertia(vehicle) -> float:
    """The declared roll added inertia −K_ṗ (kg·m²) from the config's hydrodynamics, 0 if none."""
    for name, value in vehicle.hydrodynamics:
        if name == "kDotP":
            return -float(value)
    return 0.0
