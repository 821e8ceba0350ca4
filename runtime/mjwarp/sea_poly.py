"""A Froude-Krylov piece as a convex polyhedron on MuJoCo Warp (device side, with mjwarp_sea_moments).

Mirrors runtime/native/core/sea_moments.cc function for function: ``_box_poly`` BoxPoly, ``_hull_poly``
the mesh hull's polyhedron (FroudeKrylovMoments' copy of HullPolys' faces, mjwarp_sea_hull.hull_polys),
``_clip`` Clip (the same on-plane tolerance kOnPlane, the new face's vertices ordered by the pseudo-angle
about its mean, a stable sort as Clip's comparator), ``_volume`` Volume, ``_tri`` and ``_v6a2``
EachFanTriangle's triangle, its tetrahedron's volume and its area. The polyhedra live in per-thread
scratch (``Scr``: one slot per (world, geom) of the pieces kernel, polyhedra 0 .. 2 and the cut points
as 3; sizes from the model: mjwarp_sea_hull.capacity). float64; world frame relative to the geom's
origin (m). Built by ``build(wp)`` from mjwarp_sea_moments (no warp import here).
"""

ON_PLANE = 1e-12  # sea_moments.cc kOnPlane
NMOM = 30 * 16  # one piece's moments (sea.h kMaxMomentOrder orders of 8 complex values), twice in Scr.s


def build(wp) -> dict:
    """The Warp struct ``Scr`` and the polyhedron's functions, by name."""
    f64, vec3d, mat33d = wp.float64, wp.vec3d, wp.mat33d
    vec24i = wp.types.vector(length=24, dtype=wp.int32)
    FACE = wp.constant(vec24i(0, 2, 6, 4, 1, 5, 7, 3, 0, 4, 5, 1, 2, 3, 7, 6, 0, 1, 3, 2, 4, 6, 7, 5))
    NM = wp.constant(NMOM)

    @wp.struct
    class Scr:  # one thread's scratch: polyhedra 0 .. 2 and the cut points (3); their faces; the moments
        v: wp.array2d(dtype=vec3d)  # [slot, (p mf + f) mv + i]
        m: wp.array2d(dtype=int)  # [slot, p (2 mf + 1)]: faces; + 1 + 2 f: vertices; + 2 + 2 f: label; then sort
        s: wp.array2d(dtype=f64)  # [slot, 0 .. 2 NM): the moments below, above; then the cut points' angles
        slot: int
        mf: int
        mv: int

    @wp.func
    def _vi(S: Scr, p: int, f: int, i: int) -> int:
        return (p * S.mf + f) * S.mv + i

    @wp.func
    def _mi(S: Scr, p: int) -> int:
        return p * (2 * S.mf + 1)

    @wp.func
    def _nf(S: Scr, p: int) -> int:
        return S.m[S.slot, _mi(S, p)]

    @wp.func
    def _nv(S: Scr, p: int, f: int) -> int:
        return S.m[S.slot, _mi(S, p) + 1 + 2 * f]

    @wp.func
    def _label(S: Scr, p: int, f: int) -> int:
        return S.m[S.slot, _mi(S, p) + 2 + 2 * f]

    @wp.func
    def _vert(S: Scr, p: int, f: int, i: int) -> vec3d:
        return S.v[S.slot, _vi(S, p, f, i)]

    @wp.func
    def _corner(R: mat33d, lo: vec3d, hi: vec3d, i: int) -> vec3d:
        q = vec3d(lo[0], lo[1], lo[2])
        if (i & 4) != 0:
            q[0] = hi[0]
        if (i & 2) != 0:
            q[1] = hi[1]
        if (i & 1) != 0:
            q[2] = hi[2]
        return R @ q

    @wp.func
    def _box_poly(S: Scr, p: int, lo: vec3d, hi: vec3d, R: mat33d):
        # BoxPoly: the box lo..hi (geom frame) in the world relative to the geom's origin, its faces
        # counter-clockwise seen from outside
        m = vec3d()
        for i in range(8):
            m = m + f64(0.125) * _corner(R, lo, hi, i)
        b = _mi(S, p)
        S.m[S.slot, b] = 6
        for f in range(6):
            S.m[S.slot, b + 1 + 2 * f] = 4
            S.m[S.slot, b + 2 + 2 * f] = -1
            v0 = _corner(R, lo, hi, FACE[4 * f])
            v1 = _corner(R, lo, hi, FACE[4 * f + 1])
            v2 = _corner(R, lo, hi, FACE[4 * f + 2])
            v3 = _corner(R, lo, hi, FACE[4 * f + 3])
            if wp.dot(wp.cross(v1 - v0, v2 - v0), v0 - m) < f64(0.0):
                t = v1
                v1 = v3
                v3 = t
            S.v[S.slot, _vi(S, p, f, 0)] = v0
            S.v[S.slot, _vi(S, p, f, 1)] = v1
            S.v[S.slot, _vi(S, p, f, 2)] = v2
            S.v[S.slot, _vi(S, p, f, 3)] = v3

    @wp.func
    def _hull_poly(S: Scr, p: int, hr: wp.vec2i, hpf: wp.array(dtype=int), hpv: wp.array(dtype=vec3d),
                   R: mat33d) -> int:
        # FroudeKrylovMoments' mesh: the hull's polyhedron (hull_polys, geom frame) in the world relative to
        # the geom's origin; 0 where it has none (or more than the scratch holds)
        nf = hr[1] - hr[0]
        if nf <= 0 or nf > S.mf:
            return 0
        b = _mi(S, p)
        S.m[S.slot, b] = nf
        for f in range(nf):
            v0 = hpf[hr[0] + f]
            nv = hpf[hr[0] + f + 1] - v0
            if nv > S.mv:
                return 0
            S.m[S.slot, b + 1 + 2 * f] = nv
            S.m[S.slot, b + 2 + 2 * f] = -1
            for i in range(nv):
                S.v[S.slot, _vi(S, p, f, i)] = R @ hpv[v0 + i]
        return 1

    @wp.func
    def _side(n: vec3d, d: f64, x: vec3d, eps: f64) -> f64:
        s = wp.dot(n, x) - d
        if wp.abs(s) <= eps:
            return f64(0.0)
        return s

    @wp.func
    def _pseudo_angle(x: f64, y: f64) -> f64:
        # PseudoAngle: atan2(y, x)'s order over [-2, 2] (signed zeros aside: any cyclic order serves the
        # moments)
        s = wp.abs(x) + wp.abs(y)
        q = f64(0.0)
        if s > f64(0.0):
            q = y / s
        if x >= f64(0.0):
            if y < f64(0.0):
                return -wp.abs(q)
            return wp.abs(q)
        if y < f64(0.0):
            return f64(-2.0) - q
        return f64(2.0) - q

    @wp.func
    def _push(S: Scr, dst: int, o: int, k: int, x: vec3d, oncut: int, nc: int) -> wp.vec2i:
        # Clip's push: x as vertex k of dst's face o and, on the cut, as cut point nc; (k, nc) after, or
        # (-1, -1) where the scratch is short
        if k >= S.mv or (oncut != 0 and nc >= S.mf * S.mv):
            return wp.vec2i(-1, -1)
        S.v[S.slot, _vi(S, dst, o, k)] = x
        if oncut != 0:
            S.v[S.slot, _vi(S, 3, 0, nc)] = x
            return wp.vec2i(k + 1, nc + 1)
        return wp.vec2i(k + 1, nc)

    @wp.func
    def _clip(S: Scr, src: int, n: vec3d, d: f64, label: int, dst: int) -> int:
        # Clip: polyhedron src clipped to n.y <= d (the new face labelled label): src where the plane cuts
        # nothing off, else dst (written); -1 where the scratch is short
        nfs = _nf(S, src)
        ext = wp.abs(d)
        for f in range(nfs):
            for i in range(_nv(S, src, f)):
                x = _vert(S, src, f, i)
                ext = wp.max(ext, wp.max(wp.abs(x[0]), wp.max(wp.abs(x[1]), wp.abs(x[2]))))
        eps = f64(ON_PLANE) * ext
        cuts = int(0)
        keeps = int(0)
        for f in range(nfs):
            for i in range(_nv(S, src, f)):
                s = _side(n, d, _vert(S, src, f, i), eps)
                if s > f64(0.0):
                    cuts = 1
                if s < f64(0.0):
                    keeps = 1
        if cuts == 0:
            return src
        bd = _mi(S, dst)
        S.m[S.slot, bd] = 0
        if keeps == 0:
            return dst
        nc = int(0)
        nfo = int(0)
        for f in range(nfs):
            if nfo >= S.mf:
                return -1
            m = _nv(S, src, f)
            o = nfo
            k = int(0)
            for i in range(m):
                j = (i + 1) % m
                vi = _vert(S, src, f, i)
                vj = _vert(S, src, f, j)
                si = _side(n, d, vi, eps)
                sj = _side(n, d, vj, eps)
                if si <= f64(0.0):
                    oc = int(0)
                    if si == f64(0.0):
                        oc = 1
                    rp = _push(S, dst, o, k, vi, oc, nc)
                    if rp[0] < 0:
                        return -1
                    k = rp[0]
                    nc = rp[1]
                if (si < f64(0.0) and sj > f64(0.0)) or (si > f64(0.0) and sj < f64(0.0)):
                    pa = vi
                    pb = vj
                    sa = si
                    sb = sj
                    if not (si < f64(0.0)):
                        pa = vj
                        pb = vi
                        sa = sj
                        sb = si
                    t = sa / (sa - sb)
                    x = vec3d(pa[0] + t * (pb[0] - pa[0]), pa[1] + t * (pb[1] - pa[1]), pa[2] + t * (pb[2] - pa[2]))
                    rp = _push(S, dst, o, k, x, 1, nc)
                    if rp[0] < 0:
                        return -1
                    k = rp[0]
                    nc = rp[1]
            if k >= 3:
                S.m[S.slot, bd + 1 + 2 * o] = k
                S.m[S.slot, bd + 2 + 2 * o] = _label(S, src, f)
                nfo += 1
        S.m[S.slot, bd] = nfo
        if nc < 3:
            return dst
        # the new face: the cut points in order about n (counter-clockwise seen from +n, outward)
        mc = vec3d()
        for i in range(nc):
            mc = mc + _vert(S, 3, 0, i) / f64(nc)
        ax = vec3d(f64(0.0), f64(1.0), f64(0.0))
        if wp.abs(n[0]) < f64(0.9):
            ax = vec3d(f64(1.0), f64(0.0), f64(0.0))
        e1 = ax - wp.dot(ax, n) * n
        e1 = e1 / wp.sqrt(wp.dot(e1, e1))
        e2 = wp.cross(n, e1)
        ia = 2 * NM  # the angles in s, the order in m after the three polyhedra
        im = 3 * (2 * S.mf + 1)
        for i in range(nc):
            r = _vert(S, 3, 0, i) - mc
            S.s[S.slot, ia + i] = _pseudo_angle(wp.dot(e1, r), wp.dot(e2, r))
            S.m[S.slot, im + i] = i
        for i in range(1, nc):  # insertion sort: stable, ties in index order (Clip's comparator)
            key = S.m[S.slot, im + i]
            ak = S.s[S.slot, ia + key]
            j = i - 1
            while j >= 0:
                if not (S.s[S.slot, ia + S.m[S.slot, im + j]] > ak):
                    break
                S.m[S.slot, im + j + 1] = S.m[S.slot, im + j]
                j -= 1
            S.m[S.slot, im + j + 1] = key
        if nfo >= S.mf:
            return -1
        o = nfo
        k = int(0)
        for q in range(nc):
            x = _vert(S, 3, 0, S.m[S.slot, im + q])
            if k > 0:
                y = _vert(S, dst, o, k - 1)
                if x[0] == y[0] and x[1] == y[1] and x[2] == y[2]:
                    continue
            if k >= S.mv:
                return -1
            S.v[S.slot, _vi(S, dst, o, k)] = x
            k += 1
        while k > 1:
            y = _vert(S, dst, o, k - 1)
            x = _vert(S, dst, o, 0)
            if not (x[0] == y[0] and x[1] == y[1] and x[2] == y[2]):
                break
            k -= 1
        if k >= 3:
            S.m[S.slot, bd + 1 + 2 * o] = k
            S.m[S.slot, bd + 2 + 2 * o] = label
            S.m[S.slot, bd] = nfo + 1
        return dst

    @wp.func
    def _volume(S: Scr, p: int) -> f64:
        # Volume: the divergence theorem over the faces' fans
        V = f64(0.0)
        nf = _nf(S, p)
        if nf == 0:
            return V
        O = _vert(S, p, 0, 0)
        for f in range(nf):
            a = _vert(S, p, f, 0) - O
            for i in range(1, _nv(S, p, f) - 1):
                V += wp.dot(a, wp.cross(_vert(S, p, f, i) - O, _vert(S, p, f, i + 1) - O))
        return V / f64(6.0)

    @wp.func
    def _tri(S: Scr, p: int, f: int, i: int, c: vec3d) -> wp.mat33d:
        # EachFanTriangle's triangle (vertices 0, i, i + 1 of face f) relative to c, as rows
        q0 = _vert(S, p, f, 0) - c
        q1 = _vert(S, p, f, i) - c
        q2 = _vert(S, p, f, i + 1) - c
        return wp.mat33d(q0[0], q0[1], q0[2], q1[0], q1[1], q1[2], q2[0], q2[1], q2[2])

    @wp.func
    def _v6a2(q: wp.mat33d, isc: int) -> wp.vec2d:
        # six times the signed volume of the tetrahedron (apex c) and, on the cap, twice the area
        q0 = vec3d(q[0, 0], q[0, 1], q[0, 2])
        q1 = vec3d(q[1, 0], q[1, 1], q[1, 2])
        q2 = vec3d(q[2, 0], q[2, 1], q[2, 2])
        v6 = wp.dot(q0, wp.cross(q1, q2))
        a2 = f64(0.0)
        if isc != 0:
            x = wp.cross(q1 - q0, q2 - q0)
            a2 = wp.sqrt(wp.dot(x, x))
        return wp.vec2d(v6, a2)

    return {"Scr": Scr, "nf": _nf, "nv": _nv, "label": _label, "vert": _vert, "box_poly": _box_poly,
            "hull_poly": _hull_poly, "clip": _clip, "volume": _volume, "tri": _tri, "v6a2": _v6a2}
