"""MuJoCo's frames to ArduPilot's (pure functions on three-vectors and quaternions as tuples).

aurgen's worlds are ENU (x east, y north, z up) and its vehicles REP-103 (x forward, y left, z up:
FLU); ArduPilot's JSON backend takes NED vectors and body FRD vectors (``libraries/SITL/SIM_JSON.cpp``).
A vehicle that faces world +x faces east: ArduPilot reads a heading of 90°.
"""

from __future__ import annotations

import math

_S = math.sqrt(0.5)


def ned(v) -> tuple:
    """A world ENU vector as NED: (north, east, down) = (y, x, −z)."""
    return (v[1], v[0], -v[2])


def frd(v) -> tuple:
    """A body FLU vector as FRD: (x, −y, −z)."""
    return (v[0], -v[1], -v[2])


def attitude_ned(q) -> tuple:
    """The body FRD attitude in NED, (w, x, y, z) with w ≥ 0, from the body FLU attitude ``q`` in ENU
    (MuJoCo's quaternion, (w, x, y, z)).

    ENU → NED is a half turn about (1, 1, 0)/√2, p = (0, 1/√2, 1/√2, 0); FRD → FLU a half turn about x,
    f = (0, 1, 0, 0); so the result is p ⊗ q ⊗ f, normalised."""
    w, x, y, z = q
    a = (-_S * (x + y), _S * (w + z), _S * (w - z), _S * (y - x))  # p ⊗ q
    out = (-a[1], a[0], a[3], -a[2])  # (p ⊗ q) ⊗ f
    n = math.sqrt(out[0] * out[0] + out[1] * out[1] + out[2] * out[2] + out[3] * out[3])
    s = -1.0 / n if out[0] < 0 else 1.0 / n
    return (out[0] * s, out[1] * s, out[2] * s, out[3] * s)
