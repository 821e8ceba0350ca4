"""The host's side of the sea's moments on MuJoCo Warp (with mjwarp_sea_moments; numpy, once per model or sea).

Mirrors runtime/native/core/sea_moments.cc and sea.cc on the host: ``hull_polys`` HullPolys (each mesh
hull's polyhedron, from the plugin's own hull and face planes: ``_plugin_rows`` HullPlanes::Build of core
BuildHull's hull; ``_box_faces`` BoxPoly, ``_clip_host`` Clip), ``directions`` Sea::Prepare's direction
groups, and ``capacity`` the device scratch's sizes. Geom frame (m), world directions.
"""

import math

from .sea_moments import MAX_F, MAX_V
from .sea_poly import ON_PLANE

def _clip_host(faces, labels, n, d, label):
    """sea_moments.cc Clip on the host (lists of faces, each a list of 3-tuples; labels): (faces, labels),
    or None past kMaxF / kMaxV."""
    dot = lambda a, b: a[0] * b[0] + a[1] * b[1] + a[2] * b[2]  # noqa: E731
    ext = abs(d)
    for f in faces:
        for x in f:
            ext = max(ext, abs(x[0]), abs(x[1]), abs(x[2]))
    eps = ON_PLANE * ext

    def side(x):
        s = dot(n, x) - d
        return 0.0 if abs(s) <= eps else s

    sides = [[side(x) for x in f] for f in faces]
    if not any(s > 0.0 for ss in sides for s in ss):
        return faces, labels
    if not any(s < 0.0 for ss in sides for s in ss):
        return [], []
    out, outl, cut = [], [], []
    for f, s, lab in zip(faces, sides, labels):
        if len(out) >= MAX_F:
            return None
        m, face = len(f), []
        for i in range(m):
            j = (i + 1) % m
            if s[i] <= 0.0:
                face.append(f[i])
                if s[i] == 0.0:
                    cut.append(f[i])
            if (s[i] < 0.0 < s[j]) or (s[i] > 0.0 > s[j]):
                a, b = (i, j) if s[i] < 0.0 else (j, i)
                t = s[a] / (s[a] - s[b])
                pa, pb = f[a], f[b]
                x = (pa[0] + t * (pb[0] - pa[0]), pa[1] + t * (pb[1] - pa[1]), pa[2] + t * (pb[2] - pa[2]))
                face.append(x)
                cut.append(x)
        if len(face) > MAX_V:
            return None
        if len(face) >= 3:
            out.append(face)
            outl.append(lab)
    if len(cut) < 3:
        return out, outl
    nc = len(cut)
    mc = [sum(x[a] / nc for x in cut) for a in range(3)]
    ax = (1.0, 0.0, 0.0) if abs(n[0]) < 0.9 else (0.0, 1.0, 0.0)
    e1 = [ax[a] - dot(ax, n) * n[a] for a in range(3)]
    ln = math.sqrt(dot(e1, e1))
    e1 = [x / ln for x in e1]
    e2 = (n[1] * e1[2] - n[2] * e1[1], n[2] * e1[0] - n[0] * e1[2], n[0] * e1[1] - n[1] * e1[0])

    def angle(x):
        r = (x[0] - mc[0], x[1] - mc[1], x[2] - mc[2])
        px, py = dot(e1, r), dot(e2, r)
        s = abs(px) + abs(py)
        q = py / s if s > 0.0 else 0.0
        if px >= 0.0:
            return -abs(q) if py < 0.0 else abs(q)
        return -2.0 - q if py < 0.0 else 2.0 - q

    face = []
    for x in sorted(cut, key=angle):  # stable: ties in index order
        if face and tuple(x) == tuple(face[-1]):
            continue
        face.append(x)
    while len(face) > 1 and tuple(face[-1]) == tuple(face[0]):
        face.pop()
    if len(out) >= MAX_F or len(face) > MAX_V:
        return None
    if len(face) >= 3:
        out.append(face)
        outl.append(label)
    return out, outl


def _box_faces(lo, hi):
    """sea_moments.cc BoxPoly with R the identity: the box's six faces, outward counter-clockwise."""
    face = ((0, 2, 6, 4), (1, 5, 7, 3), (0, 4, 5, 1), (2, 3, 7, 6), (0, 1, 3, 2), (4, 6, 7, 5))
    c = [(hi[0] if i & 4 else lo[0], hi[1] if i & 2 else lo[1], hi[2] if i & 1 else lo[2]) for i in range(8)]
    m = [sum(0.125 * x[a] for x in c) for a in range(3)]
    out = []
    for fi in face:
        v = [c[i] for i in fi]
        e1 = [v[1][a] - v[0][a] for a in range(3)]
        e2 = [v[2][a] - v[0][a] for a in range(3)]
        nr = (e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0])
        if sum(nr[a] * (v[0][a] - m[a]) for a in range(3)) < 0.0:
            v[1], v[3] = v[3], v[1]
        out.append(v)
    return out


def _plugin_rows(mjm, g):
    """sea.cc HullPlanes::Build for mesh geom g's hull as the plugin builds it (core BuildHull,
    aurgen.runtime._native.hull_from_points of the mesh's float32 vertices, geom frame): its face planes
    n.x <= d in the plugin's order, each n from the face's first two directed edges, and its bounding box."""
    import numpy as np

    from aurgen.runtime._native import hull_from_points

    mid = int(mjm.geom_dataid[g])
    a0, nv = int(mjm.mesh_vertadr[mid]), int(mjm.mesh_vertnum[mid])
    pack = hull_from_points(np.ascontiguousarray(mjm.mesh_vert[a0:a0 + nv]))
    verts, edges, fstart = pack[0], pack[2], pack[3]
    rows = []
    for f in range(len(fstart) - 1):
        e = [float(x) for x in edges[fstart[f]]] + [float(x) for x in edges[fstart[f] + 1]]
        u = (e[3] - e[0], e[4] - e[1], e[5] - e[2])
        v = (e[9] - e[6], e[10] - e[7], e[11] - e[8])
        nrm = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]]
        L = math.sqrt(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2])
        if not L > 0.0:
            continue
        nrm = [c / L for c in nrm]
        rows.append((nrm, nrm[0] * e[0] + nrm[1] * e[1] + nrm[2] * e[2]))
    return rows, [float(x) for x in verts.min(axis=0)], [float(x) for x in verts.max(axis=0)]


def hull_polys(mjm, geoms):
    """sea_moments.cc HullPolys for every mesh geom of ``geoms`` ((geom id, mark, type) as mjwarp.records
    lists them): the plugin's hull's bounding box clipped by its face planes (_plugin_rows, in its order: the
    polyhedron is the plugin's to the bit, nearly coplanar faces and all), geom frame (m), once. (verts
    (V, 3), face starts (F + 1,) into verts, ranges (G, 2) of each geom's faces [f0, f1): none where it is
    no mesh, or its polyhedron has more faces than kMaxF or a face of more than kMaxV vertices)."""
    import mujoco
    import numpy as np

    verts, starts, ranges = [], [0], np.zeros((max(len(geoms), 1), 2), np.int32)
    for k, (g, _, typ) in enumerate(geoms):
        if int(typ) != int(mujoco.mjtGeom.mjGEOM_MESH):
            continue
        rows, lo, hi = _plugin_rows(mjm, g)
        faces, labels = _box_faces(lo, hi), [-1] * 6
        for nrm, d in rows:
            got = _clip_host(faces, labels, nrm, d, -1)
            if got is None:
                faces = None
                break
            faces, labels = got
        if not faces:
            continue
        f0 = len(starts) - 1
        for f in faces:
            verts += [list(x) for x in f]
            starts.append(len(verts))
        ranges[k] = (f0, len(starts) - 1)
    return (np.array(verts, float).reshape(-1, 3) if verts else np.zeros((1, 3)), np.array(starts, np.int32),
            ranges)


def directions(components):
    """sea.cc Sea::Prepare's direction groups of one sea's components (N, 6): (by_dir (N,), starts
    (N + 1,), count, dirs (N, 3)): group g holds the components by_dir[starts[g]:starts[g + 1]] in
    declared order, travelling toward the unit dirs[g] (those within 1e-13 of the group's first)."""
    import numpy as np

    c = np.asarray(components, float)
    n = len(c)
    u = np.zeros((n, 3))
    for j in range(n):
        kn = math.sqrt(c[j, 2] * c[j, 2] + c[j, 3] * c[j, 3] + c[j, 4] * c[j, 4])
        if kn > 0.0:
            u[j] = c[j, 2:5] / kn
    by, starts, dirs, done = [], [0], np.zeros((max(n, 1), 3)), [False] * n
    for j in range(n):
        if done[j]:
            continue
        for i in range(j, n):
            if not done[i] and np.all(np.abs(u[i] - u[j]) <= 1e-13):
                done[i] = True
                by.append(i)
        dirs[len(starts) - 1] = u[j]
        starts.append(len(by))
    return (np.array(by, np.int32), np.array(starts + [starts[-1]] * (n + 1 - len(starts)), np.int32),
            len(starts) - 1, dirs)


def capacity(types, hull_starts, hull_ranges, nplanes):
    """The scratch's faces and vertices per polyhedron (mf, mv) for these geoms: a box's 6 faces of 4
    vertices or its hull's, each of the cell's planes and the mean level adding a face and a vertex to
    each face at most, a cut face as many vertices as the faces it crosses; kMaxF and kMaxV at most."""
    from .sea_shapes import BOX, MESH  # noqa: F401  (BOX: the other shape a scratch serves)

    nf0, nv0 = 6, 4
    for k, typ in enumerate(types):
        if int(typ) == MESH:
            f0, f1 = hull_ranges[k]
            if f1 > f0:
                nf0 = max(nf0, int(f1 - f0))
                nv0 = max(nv0, int(max(hull_starts[f + 1] - hull_starts[f] for f in range(f0, f1))))
        elif int(typ) != BOX:
            continue
    extra = int(max(nplanes, default=1)) + 1
    mf = min(MAX_F, nf0 + extra)
    return mf, min(MAX_V, max(nv0 + extra, mf))

