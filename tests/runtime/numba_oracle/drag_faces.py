"""The drag's exposed faces, the oracle's way: numpy over every sample at once.

The definition is core/drag_faces.h FaceExposure's (docs/runtime.md "Drag (the model)"): each face
(-x, +x, -y, +y, -z, +z) of a box geom's, or a mesh geom's bounding box (about its hull's centroid),
sampled at the midpoints of a kFaceGrid x kFaceGrid grid, each sample moved out of the face by 1e-6
of the geom's largest half-size; the share of samples inside no other geom of the same mark and
weld group is the face's exposure. A mesh is its bounding box here too; smooth geoms keep 1.
"""

from __future__ import annotations

import numpy as np

GRID = 32  # core/drag_faces.h kFaceGrid
BOX, MESH, SPHERE, CAPSULE, ELLIPSOID, CYLINDER = 6, 7, 2, 3, 4, 5


def _inside(typ, size, centre, q):
    """(n,) the points q (n, 3), geom frame, inside the geom (a mesh: its bounding box)."""
    s = np.asarray(size, float)
    if typ == SPHERE:
        return (q * q).sum(1) <= s[0] ** 2
    if typ == ELLIPSOID:
        return ((q / s) ** 2).sum(1) <= 1.0
    if typ == CYLINDER:
        return (q[:, 0] ** 2 + q[:, 1] ** 2 <= s[0] ** 2) & (np.abs(q[:, 2]) <= s[1])
    if typ == CAPSULE:
        z = np.clip(q[:, 2], -s[1], s[1])
        return q[:, 0] ** 2 + q[:, 1] ** 2 + (q[:, 2] - z) ** 2 <= s[0] ** 2
    c = np.asarray(centre, float) if typ == MESH else np.zeros(3)
    return np.all(np.abs(q - c) <= s, axis=1)


def face_exposure(gi, gsz, gcl, gw, pos, mats):
    """(ng, 6) exposure per face and (ng, 6) its coverer (the geom covering most of its covered samples,
    the lowest index on a tie; -1: none); gi rows (geom id, body, type, mark), mats (ng, 3, 3) geom -> world."""
    ng = len(gi)
    out = np.ones((ng, 6))
    cover = np.full((ng, 6), -1, np.int64)
    mats = np.asarray(mats, float).reshape(ng, 3, 3)
    mid = (2.0 * np.arange(GRID) + 1.0) / GRID - 1.0
    U, V = np.meshgrid(mid, mid, indexing="ij")
    for k in range(ng):
        typ, mark = int(gi[k][2]), int(gi[k][3])
        if typ not in (BOX, MESH) or mark not in (1, 2):
            continue
        others = [j for j in range(ng) if j != k and int(gi[j][3]) == mark and int(gw[j]) == int(gw[k])]
        if not others:
            continue
        h = np.asarray(gsz[k], float)
        c = np.asarray(gcl[k], float) if typ == MESH else np.zeros(3)
        off = 1e-6 * h.max()
        for i in range(3):
            a, b = (i + 1) % 3, (i + 2) % 3
            for side, sg in ((0, -1.0), (1, 1.0)):
                loc = np.zeros((GRID * GRID, 3))
                loc[:, i] = c[i] + sg * (h[i] + off)
                loc[:, a] = c[a] + h[a] * U.ravel()
                loc[:, b] = c[b] + h[b] * V.ravel()
                world = pos[k] + loc @ mats[k].T
                cov = np.zeros(GRID * GRID, bool)
                best = 0
                for j in others:
                    q = (world - pos[j]) @ mats[j]
                    hit = _inside(int(gi[j][2]), gsz[j], gcl[j], q) & ~cov  # the first geom that holds it
                    cov |= hit
                    if hit.sum() > best:
                        best, cover[k, 2 * i + side] = int(hit.sum()), j
                out[k, 2 * i + side] = 1.0 - cov.mean()
    return out, cover
