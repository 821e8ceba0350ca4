"""Linear (Airy) seas: dispersion, DNV spectra, and the components a world's sea is made of.

Pure functions. SI units (m, s, rad, rad/s, rad/m), world frame. A sea is a sum of components
``[a, omega, kx, ky, kz, phase]`` (m, rad/s, rad/m, rad): a wave vector ``k`` lying in the surface
plane, and the convention the plugin shares (runtime/native, docs/formats.md "waves")::

    theta_j = k_j . x - omega_j t + phase_j,     eta(x, t) = r(t) sum_j a_j cos(theta_j)

with ``eta`` the elevation along the surface's up normal and ``r`` the ramp (``ramp_factor``).

Reproducibility: ``synthesize`` draws only from ``numpy.random.default_rng(seed)`` (PCG64, whose
streams numpy keeps platform-independent) and evaluates every transcendental function with
Python's ``math`` module, one scalar at a time: numpy's vectorised exp/sin/cos dispatch on the
CPU's features (AVX2, AVX-512) and may differ in the last bit between machines; IEEE arithmetic
(+, -, *, /, sqrt) and the C library's scalar functions do not. So the same declaration gives the
same bytes on any machine with the same numpy and libm.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import field

import numpy as np

from aurgen.core.errors import AurgenError
from aurgen.core.records import record

BREAKING = 1.0 / 7.0  # H / lambda: a regular wave breaks near this steepness (Michell 1893)
LINEAR_POOR = 1.0 / 10.0  # H / lambda above this: linear theory is poor (warned, not refused)
SPECTRA = ("regular", "pierson_moskowitz", "jonswap")
TAIL = 0.005  # the energy fraction left out below and above the synthesised band (each)
_GRID = 8192  # intervals of the cumulative-energy quadrature that places the equal-energy bins
_BAND = (0.3, 12.0)  # omega / omega_p: the quadrature's range (PM holds < 1e-4 of m0 outside it)


class WavesInvalid(AurgenError):
    """A sea that cannot be made: ``key`` names the declaration's key (``height``, ``hs``, ...)."""

    def __init__(self, key: str, message: str):
        self.key = key
        self.message = message
        super().__init__(f"waves.{key}: {message}")


@record(eq=False)
class Declaration:
    """A sea as a world declares it (docs/config.md "Waves"); angles in degrees.

    ``direction``: the direction the waves travel TOWARD, in the surface plane, from e1 toward
    e2 (``surface_basis``; for up = +z, from the world x axis toward y). ``spreading``: the
    cos-2s exponent s (None: long-crested).
    """

    spectrum: str = "regular"
    height: float | None = None  # regular: H (m)
    period: float | None = None  # regular: T (s)
    hs: float | None = None  # irregular: significant height (m)
    tp: float | None = None  # irregular: peak period (s)
    gamma: float = 3.3  # jonswap peak enhancement
    components: int = 64  # irregular: how many
    seed: int = 0  # irregular: numpy.random.default_rng(seed)
    spreading: float | None = None  # irregular: cos-2s exponent s > 0; None: long-crested
    direction: float = 0.0  # deg, toward
    ramp: float = 0.0  # s
    surface: int = 0  # the surface plane's index in the environment


@record(eq=False)
class Sea:
    """The components of a sea and what the environment JSON's ``waves`` block carries.

    ``components``: (N, 6) float64 rows ``[a, omega, kx, ky, kz, phase]``; ``depth`` m or None
    (deep water); ``ramp`` s; ``surface`` the plane index; ``fk`` ("exact" or "moments") and
    ``fk_tolerance`` (of each component's force scale) the Froude-Krylov method as declared, None
    where not (the runtime's default; docs/kernel.md "Waves"); ``warning``: a sentence the caller may
    print (steepness where linear theory is poor), or None.
    """

    components: np.ndarray
    ramp: float = 0.0
    depth: float | None = None
    surface: int = 0
    fk: str | None = None
    fk_tolerance: float | None = None
    warning: str | None = field(default=None, compare=False)

    def block(self) -> dict:
        """The environment JSON's ``waves`` object (docs/formats.md): depth omitted for deep water,
        fk and fk_tolerance where declared (a sea that declares neither writes what it always did)."""
        out = {"surface": int(self.surface)}
        if self.depth is not None:
            out["depth"] = float(self.depth)
        out["ramp"] = float(self.ramp)
        out["components"] = [[float(v) for v in row] for row in self.components]
        if self.fk is not None:
            out["fk"] = self.fk
        if self.fk_tolerance is not None:
            out["fk_tolerance"] = float(self.fk_tolerance)
        return out


# ---------------------------------------------------------------- dispersion

def wavenumber(omega, g: float, depth: float | None = None):
    """k (rad/m) with omega^2 = g k tanh(k h) (h = ``depth`` m; None: deep water, k = omega^2/g).

    ``omega`` rad/s (> 0), a scalar or an array (the result has its shape); ``g`` m/s^2 > 0.
    Finite depth: Newton's method from Eckart's estimate k0 = (omega^2/g) / sqrt(tanh(omega^2 h/g)),
    iterated until the step no longer changes k beyond rounding (machine precision).
    """
    w = np.asarray(omega, dtype=float)
    out = np.array([_wavenumber(float(x), float(g), depth) for x in w.ravel()]).reshape(w.shape)
    return float(out) if out.ndim == 0 else out


def _wavenumber(omega: float, g: float, depth: float | None) -> float:
    if not (omega > 0 and g > 0):
        raise ValueError(f"wavenumber: omega {omega!r} and g {g!r} must be > 0")
    kd = omega * omega / g
    if depth is None:
        return kd
    h = float(depth)
    if not h > 0:
        raise ValueError(f"wavenumber: depth {h!r} m must be > 0 (None: deep water)")
    k = kd / math.sqrt(math.tanh(kd * h))
    for _ in range(100):
        t = math.tanh(k * h)
        f = g * k * t - omega * omega
        df = g * (t + k * h * (1.0 - t * t))
        step = f / df
        k -= step
        if abs(step) <= 4.0 * 2.0 ** -52 * k:
            break
    return k


def wavelength(period: float, g: float, depth: float | None = None) -> float:
    """lambda = 2 pi / k (m) of a wave of ``period`` s at ``depth`` m (None: deep)."""
    return 2.0 * math.pi / wavenumber(2.0 * math.pi / period, g, depth)


# ---------------------------------------------------------------- spectra (DNV-RP-C205 3.5.5)

def pierson_moskowitz(omega, hs: float, tp: float):
    """S_PM(omega) = (5/16) hs^2 wp^4 omega^-5 exp(-(5/4)(omega/wp)^-4), m^2 s/rad; wp = 2 pi / tp.

    ``omega`` rad/s (scalar or array; omega <= 0 gives 0), ``hs`` m, ``tp`` s.
    """
    wp = 2.0 * math.pi / tp
    return _each(omega, lambda w: _pm(w, hs, wp))


def jonswap(omega, hs: float, tp: float, gamma: float = 3.3):
    """S_J(omega) = A_gamma S_PM(omega) gamma^exp(-((omega - wp)/(sigma wp))^2 / 2), m^2 s/rad.

    A_gamma = 1 - 0.287 ln(gamma) (DNV's normalising factor: m0 is hs^2/16 to about 1 %),
    sigma = 0.07 for omega <= wp, 0.09 above; wp = 2 pi / tp. gamma = 1 is Pierson-Moskowitz.
    """
    wp = 2.0 * math.pi / tp
    a = 1.0 - 0.287 * math.log(gamma)
    return _each(omega, lambda w: _jonswap(w, hs, wp, gamma, a))


def _pm(w: float, hs: float, wp: float) -> float:
    if w <= 0.0:
        return 0.0
    x = wp / w
    return 0.3125 * hs * hs * wp ** 4 / w ** 5 * math.exp(-1.25 * x ** 4)


def _jonswap(w: float, hs: float, wp: float, gamma: float, a: float) -> float:
    if w <= 0.0:
        return 0.0
    sigma = 0.07 if w <= wp else 0.09
    r = (w - wp) / (sigma * wp)
    return a * _pm(w, hs, wp) * gamma ** math.exp(-0.5 * r * r)


def _each(omega, f):
    w = np.asarray(omega, dtype=float)
    out = np.array([f(float(x)) for x in w.ravel()]).reshape(w.shape)
    return float(out) if out.ndim == 0 else out


# ---------------------------------------------------------------- synthesis

def surface_basis(up) -> tuple[np.ndarray, np.ndarray]:
    """(e1, e2): the surface plane's in-plane unit axes for unit normal ``up``.

    e1 = the world x axis projected on the plane, normalised (the y axis when x is within
    1e-6 of the normal); e2 = up x e1. For up = +z: e1 = x, e2 = y.
    """
    n = np.asarray(up, dtype=float)
    for axis in (np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0])):
        e1 = axis - float(axis @ n) * n
        norm = math.sqrt(float(e1 @ e1))
        if norm > 1e-6:
            e1 = e1 / norm
            return e1, np.cross(n, e1)
    raise ValueError(f"surface_basis: {list(n)} is not a unit normal")


def synthesize(decl, up, g: float, depth: float | None = None) -> Sea:
    """The components of the sea ``decl`` declares (a Declaration or a mapping of its fields).

    ``up``: the surface plane's unit normal (world frame); ``g``: |gravity| m/s^2, along -up;
    ``depth``: m (None: deep water). Raises WavesInvalid naming the key when the sea would break
    (H / lambda > 1/7 for a regular wave; hs / lambda_p > 1/7, lambda_p at tp, for an irregular
    one); between 1/10 and 1/7 ``Sea.warning`` says linear theory is poor there.

    Regular: one component, a = H/2, omega = 2 pi / T, phase 0.

    Irregular (pierson_moskowitz, jonswap): the band holding all but ``TAIL`` of the spectrum's
    energy at each end is split into ``components`` bins of equal energy (edges from a trapezoid
    quadrature of S on a fixed grid of omega / omega_p in ``_BAND``); the generator then draws,
    in this order, N uniforms placing omega_j inside bin j (so no two components share a spacing
    and the record does not repeat), N uniforms for the phases on [0, 2 pi), and, with
    ``spreading`` s, N symmetric Beta(s + 1/2, s + 1/2) variates B_j giving each component's
    direction theta_j = theta_0 + 2 asin(2 B_j - 1): exactly the cos-2s distribution
    D(theta) ~ cos^2s((theta - theta_0) / 2) on (-pi, pi) (with x = sin((theta - theta_0)/2),
    cos^2s gives x the density (1 - x^2)^(s - 1/2)). a_j = sqrt(2 S(omega_j) domega_j), domega_j
    the bin's width: its expectation over the jitter is the bin's energy, so the sea holds
    (1 - 2 TAIL) m0 on average (hs about 0.5 % under the declared value).
    """
    d = _declaration(decl)
    if d.spectrum not in SPECTRA:
        raise WavesInvalid("spectrum", f"expected one of {', '.join(SPECTRA)}, got {d.spectrum!r}")
    n = np.asarray(up, dtype=float)
    e1, e2 = surface_basis(n)
    theta0 = math.radians(float(d.direction))
    if d.spectrum == "regular":
        height, period = _positive(d.height, "height", "m"), _positive(d.period, "period", "s")
        steep = height / wavelength(period, g, depth)
        key, what = "height", f"H/lambda = {steep:.4g} (H {height:g} m, T {period:g} s)"
        omega = np.array([2.0 * math.pi / period])
        amp = np.array([height / 2.0])
        phase = np.array([0.0])
        theta = np.array([theta0])
    else:
        hs, tp = _positive(d.hs, "hs", "m"), _positive(d.tp, "tp", "s")
        steep = hs / wavelength(tp, g, depth)
        key, what = "hs", f"hs/lambda_p = {steep:.4g} (hs {hs:g} m, tp {tp:g} s)"
        count = d.components
        if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or not 1 <= count <= 256:
            raise WavesInvalid("components", f"expected an integer from 1 to 256, got {count!r}")
        if d.spectrum == "jonswap" and not 1.0 <= float(d.gamma) <= 7.0:
            raise WavesInvalid("gamma", f"expected a peak enhancement from 1 to 7, got {d.gamma!r}")
        rng = np.random.default_rng(d.seed)
        spectrum = (lambda w: pierson_moskowitz(w, hs, tp)) if d.spectrum == "pierson_moskowitz" \
            else (lambda w: jonswap(w, hs, tp, d.gamma))
        edges = _equal_energy_edges(spectrum, 2.0 * math.pi / tp, int(count))
        width = np.diff(edges)
        omega = edges[:-1] + rng.random(int(count)) * width
        amp = np.array([math.sqrt(2.0 * s * dw) for s, dw in zip(spectrum(omega), width)])
        phase = rng.random(int(count)) * (2.0 * math.pi)
        theta = np.full(int(count), theta0)
        if d.spreading is not None:
            s = _positive(d.spreading, "spreading", "")
            b = rng.beta(s + 0.5, s + 0.5, int(count))
            theta = theta + np.array([2.0 * math.asin(2.0 * x - 1.0) for x in b])
    if steep > BREAKING:
        raise WavesInvalid(key, f"{what} is beyond the breaking limit 1/7: lower it, or lengthen the period")
    warning = None
    if steep > LINEAR_POOR:
        warning = (f"waves.{key}: {what} is steeper than 1/10, where linear (Airy) theory is poor "
                   f"(it breaks at 1/7)")
    k = wavenumber(omega, g, depth)
    k = np.atleast_1d(k)
    rows = np.empty((len(omega), 6))
    for j in range(len(omega)):
        c, s_ = math.cos(float(theta[j])), math.sin(float(theta[j]))
        kv = k[j] * (c * e1 + s_ * e2)
        kv = np.where(np.abs(kv) < 1e-15 * k[j], 0.0, kv)  # cos(pi/2) is 6e-17, not 0: a clean 90 deg
        rows[j] = (amp[j], omega[j], kv[0] + 0.0, kv[1] + 0.0, kv[2] + 0.0, phase[j])
    return Sea(components=rows, ramp=float(d.ramp), depth=None if depth is None else float(depth),
               surface=int(d.surface), warning=warning)


def _declaration(decl) -> Declaration:
    if isinstance(decl, Declaration):
        return decl
    if isinstance(decl, Mapping):
        return Declaration(**dict(decl))
    raise TypeError(f"synthesize: expected a Declaration or a mapping, got {type(decl).__name__}")


def _positive(v, key: str, unit: str) -> float:
    if v is None:
        raise WavesInvalid(key, "required key is missing")
    if isinstance(v, bool) or not isinstance(v, (int, float, np.floating, np.integer)) \
            or not math.isfinite(float(v)) or v <= 0:
        raise WavesInvalid(key, f"expected a number > 0{(' ' + unit) if unit else ''}, got {v!r}")
    return float(v)


def _equal_energy_edges(spectrum, wp: float, count: int) -> np.ndarray:
    """count + 1 bin edges (rad/s) splitting the band between the TAIL quantiles into equal energy."""
    w = np.linspace(_BAND[0] * wp, _BAND[1] * wp, _GRID + 1)
    s = spectrum(w)
    cum = np.concatenate([[0.0], np.cumsum(0.5 * (s[1:] + s[:-1]) * np.diff(w))])
    targets = cum[-1] * (TAIL + (1.0 - 2.0 * TAIL) * np.arange(count + 1) / count)
    return np.interp(targets, cum, w)


# ---------------------------------------------------------------- evaluation

def ramp_factor(ramp: float, t):
    """r(t) = (1 - cos(pi t / T)) / 2 for t < T, else 1 (T = ``ramp`` s; T = 0: 1). Scalar or array t."""
    t = np.asarray(t, dtype=float)
    if ramp <= 0:
        out = np.ones_like(t)
    else:
        out = np.where(t < ramp, 0.5 * (1.0 - np.cos(np.pi * np.clip(t, 0.0, ramp) / ramp)), 1.0)
    return float(out) if out.ndim == 0 else out


def elevation(sea, x, t):
    """eta (m, along the surface's up normal) at world point(s) ``x`` (..., 3) m and time ``t`` s.

    eta = r(t) sum_j a_j cos(k_j . x - omega_j t + phase_j); ``sea`` a Sea or the environment's
    Waves (anything with ``components`` and ``ramp``). The leading shapes of ``x`` and ``t``
    broadcast: x (3,) and t (T,) give a series, x (M, 3) and a scalar t a field.
    """
    c = np.asarray(sea.components, dtype=float)
    x = np.asarray(x, dtype=float)
    t = np.asarray(t, dtype=float)
    theta = x @ c[:, 2:5].T - t[..., None] * c[:, 1] + c[:, 5]  # x's and t's leading shapes broadcast
    return ramp_factor(sea.ramp, t) * (np.cos(theta) @ c[:, 0])
