"""The native kernel against its numba reference (the implementation it was ported from).

``compare(a, b, extent)`` is the agreement measure the tests and the crosscheck
mode use: per output row and per column group (volume; centroid; area; section
centroid; section second moments), the largest difference over the group's
scale, where the scale is the group's largest magnitude (plus the geom's extent
for positions, its square and fourth power for areas and second moments, so
that an entry that cancels to ~1e-17 m is not divided by itself).  NaN equals
NaN.

Rows flagged ``whole`` (boxes: the compiled kernel's box tier against the
oracle's edge soup) are measured on the integrals instead, relative to the
geom's own scale: V against extent^3, V c against extent^3 (extent + |c|), A c_s
against extent^2 (extent + |c_s|).  The soup's rounding is ~1e-16 of the box,
which is 1e-11 of a sliver of 1e-5 of it, while the tier keeps ~1e-14 of the
sliver itself (test_box_tier.py holds it to 60-digit arithmetic), so the
per-value measure would charge the oracle's rounding to the tier.
"""
from __future__ import annotations

import numpy as np

GROUPS = ((0, 1, 3), (1, 4, 1), (4, 5, 2), (5, 8, 1), (8, 14, 4))  # (start, stop, power of extent)


def _integrals(a: np.ndarray) -> np.ndarray:
    """Rows with V c and A c_s in place of the centroids c and c_s."""
    a = a.copy()
    a[:, 1:4] *= a[:, :1]
    if a.shape[1] >= 8:
        a[:, 5:8] *= a[:, 4:5]
    return a


def compare(a: np.ndarray, b: np.ndarray, extent: np.ndarray,
            whole: np.ndarray | None = None) -> tuple[float, int]:
    """(max relative difference, number of rows not bitwise identical); ``whole``: a mask of
    rows measured on their integrals against the geom's scale (module docstring)."""
    a = np.atleast_2d(a)
    b = np.atleast_2d(b)
    extent = np.broadcast_to(np.asarray(extent, dtype=float), (a.shape[0],))
    if whole is not None and np.any(whole):
        whole = np.asarray(whole, dtype=bool)
        keep = ~whole
        w1, n1 = compare(a[keep], b[keep], extent[keep]) if keep.any() else (0.0, 0)
        aw, bw, ew = _integrals(a[whole]), _integrals(b[whole]), extent[whole]
        w2 = 0.0
        # (start, stop, power of extent, times a lever arm extent + |centroid|)
        for s, e, p, arm in ((0, 1, 3, False), (1, 4, 3, True), (4, 5, 2, False), (5, 8, 2, True),
                             (8, 14, 4, False)):
            if s >= a.shape[1]:
                break
            ga, gb = aw[:, s:e], bw[:, s:e]
            d = np.where(np.isnan(ga) & np.isnan(gb), 0.0, np.abs(ga - gb)).max(axis=1)
            d = np.where(np.isnan(d), np.inf, d)  # nan on one side only
            scale = ew ** p
            if arm:
                scale = scale * (ew + np.nan_to_num(np.abs(a[whole][:, s:e])).max(axis=1))
            w2 = max(w2, float((d / np.where(scale > 0, scale, 1.0)).max(initial=0.0)))
        same = np.all((a[whole] == b[whole]) | (np.isnan(a[whole]) & np.isnan(b[whole])), axis=1)
        return max(w1, w2), n1 + int((~same).sum())
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
