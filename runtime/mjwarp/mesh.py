"""The MuJoCo Warp functions of a convex mesh hull (with mjwarp_kernels).

The plugin clips a mesh geom's hull (core/hull.cc BuildHull) with the generic polyhedral soup
(kernel.cc ClipGeom, clip_poly.cc SoupIntegrate); here the same convex set, its hull's outward
triangles (``hull_triangles``: scipy's ConvexHull of the mesh's vertices), is clipped by one plane
triangle by triangle: each triangle cut to the side n.x <= t (at most a quadrilateral), and the
piece's volume and first moment summed over the tetrahedra from a point O on the plane (the cap lies
on the plane, so its tetrahedra are flat and drop out), the cap's area from the closed surface's
area vectors summing to zero. Exact, as the soup is; float64, geom frame. ``build(wp, vec5d)`` (no
warp import here); ``hull_triangles`` is the host side.
"""

import numpy as np


def hull_triangles(verts) -> tuple:
    """(triangles (F, 3, 3) outward, counter-clockwise from outside; volume m^3; centroid (3,)) of the
    convex hull of ``verts`` (N, 3), geom frame."""
    from scipy.spatial import ConvexHull

    v = np.asarray(verts, float)
    h = ConvexHull(v)
    tri = v[h.simplices]
    nrm = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    flip = np.einsum("ij,ij->i", nrm, h.equations[:, :3]) < 0
    tri[flip] = tri[flip][:, [0, 2, 1]]
    o = v.mean(axis=0)
    vol6 = np.einsum("ij,ij->i", tri[:, 0] - o, np.cross(tri[:, 1] - o, tri[:, 2] - o))
    V = float(vol6.sum() / 6.0)
    c = ((vol6[:, None] * (tri.sum(axis=1) + o)).sum(axis=0) / 4.0) / (6.0 * V)
    return tri, V, c


def build(wp, vec5d) -> dict:
    """The Warp functions, by name."""
    f64, vec3d = wp.float64, wp.vec3d
    mat43d = wp.types.matrix(shape=(4, 3), dtype=wp.float64)

    @wp.func
    def _mesh_support(tri: wp.array(dtype=vec3d), r0: int, r1: int, l: vec3d) -> wp.vec2d:
        # kernel.h SupportLocal for a hull: (max, min) of l.x over its vertices
        hi = f64(-1e300)
        lo = f64(1e300)
        for i in range(3 * r0, 3 * r1):
            s = wp.dot(l, tri[i])
            hi = wp.max(hi, s)
            lo = wp.min(lo, s)
        return wp.vec2d(hi, lo)

    @wp.func
    def _tet(O: vec3d, a: vec3d, b: vec3d, c: vec3d) -> wp.vec4d:
        v = wp.dot(a - O, wp.cross(b - O, c - O)) / f64(6.0)
        m = v * (O + a + b + c) / f64(4.0)
        return wp.vec4d(v, m[0], m[1], m[2])

    @wp.func
    def _mesh_clip(tri: wp.array(dtype=vec3d), r0: int, r1: int, n: vec3d, t: f64) -> vec5d:
        # the hull below n.x <= t: (V, its first moment about the geom origin, the cap's area)
        out = vec5d()
        O = t * n
        acc = wp.vec4d()
        area = vec3d()
        for f in range(r0, r1):
            a = tri[3 * f]
            b = tri[3 * f + 1]
            c = tri[3 * f + 2]
            da = wp.dot(n, a) - t
            db = wp.dot(n, b) - t
            dc = wp.dot(n, c) - t
            if da > f64(0.0) and db > f64(0.0) and dc > f64(0.0):
                continue
            # Sutherland-Hodgman on the triangle: at most four vertices kept
            p = mat43d()
            np_ = int(0)
            for e in range(3):
                u = a
                du = da
                v = b
                dv = db
                if e == 1:
                    u = b
                    du = db
                    v = c
                    dv = dc
                elif e == 2:
                    u = c
                    du = dc
                    v = a
                    dv = da
                if du <= f64(0.0):
                    p[np_] = u
                    np_ += 1
                if (du <= f64(0.0)) != (dv <= f64(0.0)):
                    p[np_] = u + (du / (du - dv)) * (v - u)
                    np_ += 1
            for k in range(1, np_ - 1):
                q0 = vec3d(p[0])
                q1 = vec3d(p[k])
                q2 = vec3d(p[k + 1])
                acc = acc + _tet(O, q0, q1, q2)
                area = area + f64(0.5) * wp.cross(q1 - q0, q2 - q0)
        out[0] = acc[0]
        out[1] = acc[1]
        out[2] = acc[2]
        out[3] = acc[3]
        out[4] = -wp.dot(area, n)  # the cap closes the surface: its area vector is minus the others'
        return out

    return {"support": _mesh_support, "clip": _mesh_clip}
