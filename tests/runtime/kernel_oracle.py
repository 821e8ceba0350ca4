"""The native kernel against its numba reference (the implementation it was ported from).

``compare(a, b, extent)`` is the agreement measure the tests and the crosscheck
mode use: per output row and per column group (volume; centroid; area; section
centroid; section second moments), the largest difference over the group's
scale, where the scale is the group's largest magnitude (plus the geom's extent
for positions, its square and fourth power for areas and second moments, so
that an entry that cancels to ~1e-17 m is not divided by itself).  NaN equals
NaN.
"""
from __future__ import annotations

import numpy as np

GROUPS = ((0, 1, 3), (1, 4, 1), (4, 5, 2), (5, 8, 1), (8, 14, 4))  # (start, stop, power of extent)


def compare(a: np.ndarray, b: np.ndarray, extent: np.ndarray) -> tuple[float, int]:
    """(max relative difference, number of rows not bitwise identical)."""
    a = np.atleast_2d(a)
    b = np.atleast_2d(b)
    extent = np.broadcast_to(np.asarray(extent, dtype=float), (a.shape[0],))
    worst = 0.0
    both_nan = np.isnan(a) & np.isnan(b)
    if np.any(np.isnan(a) != np.isnan(b)):
        return float("inf"), a.shape[0]
    same = np.all((a == b) | both_nan, axis=1)
    for s, e, p in GROUPS:
        if s >= a.shape[1]:
            break
        e = min(e, a.shape[1])
        ga, gb = a[:, s:e], b[:, s:e]
        d = np.where(np.isnan(ga), 0.0, np.abs(ga - gb)).max(axis=1)
        mag = np.where(np.isnan(ga), 0.0, np.maximum(np.abs(ga), np.abs(gb))).max(axis=1)
        scale = mag + (extent ** p if s in (1, 5) or p in (2, 4) else 0.0)
        scale = np.where(scale > 0, scale, 1.0)
        worst = max(worst, float((d / scale).max(initial=0.0)))
    return worst, int((~same).sum())
