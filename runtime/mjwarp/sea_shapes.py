"""The column rules of a sea's Froude-Krylov correction, by geom type (with mjwarp_sea; device side).

Mirrors runtime/native/core/sea.cc function for function: ``_complete`` Complete, ``_roots`` Roots,
``_kinks`` Kinks, ``_disk`` Disk, ``_cylinder`` Cylinder, ``_box_columns`` BoxColumns (mjwarp_sea_box), ``_col``
FroudeKrylov's col lambda (a mesh's chord inside its hull's faces, an ellipsoid's scale, the geom
frame to the world), ``_fk`` FroudeKrylov (the rule by type: a box and a mesh hull's bounding box by
BoxColumns, a cylinder by Cylinder, a sphere and an ellipsoid as the unit sphere's Disk scaled by the
semi-axes, a capsule by Cylinder and its two hemispheres' Disks). The same Gauss orders (Sea::Order
from the world's lmax, at least kCurvedMin = 8 points across a curved section), the same kink
splitting where the tangent plane meets a curved side (a box: where its chords' bounds meet), the same exact chords (mjwarp_sea's
``column``, Sums::Column). float64 throughout; geom frame inside the rules, world frame out (F in N,
T in N m about the geom's origin). Built by ``build(wp, Fk, column, order, plane)`` from mjwarp_sea.build
(no warp import here).
"""

import math

import mujoco

from . import sea_box as mjwarp_sea_box

_G = mujoco.mjtGeom
BOX, SPHERE, ELLIPSOID, CYLINDER, CAPSULE, MESH = (int(t) for t in (
    _G.mjGEOM_BOX, _G.mjGEOM_SPHERE, _G.mjGEOM_ELLIPSOID, _G.mjGEOM_CYLINDER, _G.mjGEOM_CAPSULE, _G.mjGEOM_MESH))
CURVED_MIN = 8  # sea.cc kCurvedMin: the fewest points of a curved section's rule


def build(wp, Fk, column, order, plane, vec16i) -> dict:
    """The Warp functions of the column rules and FroudeKrylov, by name. ``Fk``: mjwarp_sea's struct of
    what the columns read; ``column``: its Sums::Column; ``order``: its Sea::Order; ``plane``: its
    ForceStage::GeomPlanes row; ``vec16i``: the components' bit mask (FroudeKrylov's only)."""
    f64, vec3d, vec4d, mat33d = wp.float64, wp.vec3d, wp.vec4d, wp.mat33d
    spatial = wp.spatial_vectord
    # a curved section's cuts: [0 .. 9] the angles (its ends included, ascending), [11] how many (sea.cc
    # Kinks' cuts[10])
    vec12d = wp.types.vector(length=12, dtype=wp.float64)
    PI = wp.constant(f64(math.pi))

    @wp.func
    def _complete(u: vec3d) -> mat33d:
        # sea.cc Complete: rows f, h completing the unit u to a right-handed orthonormal basis (f, h, u)
        a = vec3d(f64(0.0), f64(1.0), f64(0.0))
        if wp.abs(u[0]) < f64(0.9):
            a = vec3d(f64(1.0), f64(0.0), f64(0.0))
        t = wp.dot(a, u)
        f = a - t * u
        f = f / wp.sqrt(wp.dot(f, f))
        h = wp.cross(u, f)
        return mat33d(f[0], f[1], f[2], h[0], h[1], h[2], f64(0.0), f64(0.0), f64(0.0))

    @wp.func
    def _roots(X: f64, Y: f64, P: f64, lo: f64, hi: f64, cuts: vec12d) -> vec12d:
        # sea.cc Roots: the angles x in (lo, hi) where X sin x + Y cos x = P, appended to cuts (count in
        # cuts[11]; the caller sorts them)
        out = cuts
        M = wp.sqrt(X * X + Y * Y)
        if not (M > f64(0.0)) or wp.abs(P) >= M:
            return out
        x0 = wp.atan2(Y, X)
        a = wp.asin(P / M)  # sin(x + x0) = P / M
        n = int(out[11])
        for ci in range(2):
            x = a - x0
            if ci == 1:
                x = PI - a - x0
            for kk in range(5):
                y = x + f64(2.0) * PI * f64(kk - 2)
                if y > lo and y < hi and n < 10:
                    out[n] = y
                    n += 1
        out[11] = f64(n)
        return out

    @wp.func
    def _kinks(hascap: int, cap: vec4d, c: vec3d, f: vec3d, e: vec3d, R: f64, lo: f64, hi: f64) -> vec12d:
        # sea.cc Kinks: where the cap plane (n.q <= d; hascap 0: none) meets the chords q0(x) + t e,
        # |t| <= R cos x, of the section q0(x) = c + R sin x f, x in (lo, hi): X sin x + Y cos x = P with
        # X = R (n.f) / (n.e), Y = +-R, P = (d - n.c) / (n.e); the cuts, the interval's ends included
        cuts = vec12d()
        cuts[0] = lo
        cuts[11] = f64(1.0)
        if hascap != 0:
            cn = vec3d(cap[0], cap[1], cap[2])
            ne = wp.dot(cn, e)
            if ne != f64(0.0):
                X = R * wp.dot(cn, f) / ne
                P = (cap[3] - wp.dot(cn, c)) / ne
                cuts = _roots(X, R, P, lo, hi, cuts)
                cuts = _roots(X, -R, P, lo, hi, cuts)
        n = int(cuts[11])
        for p in range(n - 2):  # the roots (cuts[1 .. n-1]) ascending
            for j in range(1, n - 1 - p):
                if cuts[j] > cuts[j + 1]:
                    v = cuts[j]
                    cuts[j] = cuts[j + 1]
                    cuts[j + 1] = v
        if n < 11:
            cuts[n] = hi
            cuts[11] = f64(n + 1)
        return cuts

    @wp.func
    def _col(S: Fk, acc: spatial, q0: vec3d, e: vec3d, s0in: f64, s1in: f64, w: f64, exl: vec4d,
             hasex: int) -> spatial:
        # sea.cc FroudeKrylov's col: the column q0 + s e, s in [s0, s1] (geom frame, scaled by S.sc), of
        # weight w, in the world; a mesh: its chord inside the hull's faces first; exl (hasex): an extra
        # geom-frame row bounding the column's part of the geom
        s0 = f64(s0in)
        s1 = f64(s1in)
        for j in range(S.h0, S.h1):
            rw = S.hplanes[j]
            rn = vec3d(rw[0], rw[1], rw[2])
            a = wp.dot(rn, e)
            b = rw[3] - wp.dot(rn, q0)
            if a > f64(0.0):
                s1 = wp.min(s1, b / a)
            elif a < f64(0.0):
                s0 = wp.max(s0, b / a)
            elif b < f64(0.0):
                return acc
        if S.h1 > S.h0 and not (s1 > s0):
            return acc
        qs = vec3d(q0[0] * S.sc[0], q0[1] * S.sc[1], q0[2] * S.sc[2])
        es = vec3d(e[0] * S.sc[0], e[1] * S.sc[1], e[2] * S.sc[2])
        x0 = S.R @ qs + S.pos
        E = S.R @ es
        ex = vec4d()
        if hasex != 0:  # the local row n.q <= d in the world: (R n).x <= d + (R n).p
            xn = S.R @ vec3d(exl[0], exl[1], exl[2])
            ex = vec4d(xn[0], xn[1], xn[2], exl[3] + wp.dot(xn, S.pos))
        return column(S, acc, x0, E, s0, s1, w * S.jac, ex, hasex)

    @wp.func
    def _disk(S: Fk, acc: spatial, R: f64, u: vec3d, c: vec3d, H: f64, sphere: int, exl: vec4d, hasex: int,
              L: f64, cap: vec4d, hascap: int) -> spatial:
        # sea.cc Disk: the disk of radius R across the unit u, centred at c: radial Gauss (sphere: r = R sin
        # psi, chords +-R cos psi, psi split where the cap meets the sphere), angular trapezoid of 2 nr + 4;
        # chords [-H, H] otherwise; the orders for the physical extent L
        B = _complete(u)
        f = vec3d(B[0, 0], B[0, 1], B[0, 2])
        h = vec3d(B[1, 0], B[1, 1], B[1, 2])
        nr = order(S.lmax, S.ws, L)
        if sphere != 0:
            nr = wp.max(nr, CURVED_MIN)
        nt = 2 * nr + 4
        o = nr * (nr - 1) // 2
        for j in range(nt):
            th = f64(2.0) * PI * (f64(j) + f64(0.5)) / f64(nt)
            ct = wp.cos(th)
            st = wp.sin(th)
            dr = vec3d(ct * f[0] + st * h[0], ct * f[1] + st * h[1], ct * f[2] + st * h[2])
            cuts = vec12d()
            cuts[1] = f64(0.5) * PI
            cuts[11] = f64(2.0)
            if sphere != 0:
                cuts = _kinks(hascap, cap, c, dr, u, R, f64(0.0), f64(0.5) * PI)
            for q in range(int(cuts[11]) - 1):
                mid = f64(0.5) * (cuts[q] + cuts[q + 1])
                half = f64(0.5) * (cuts[q + 1] - cuts[q])
                for i in range(nr):
                    r = f64(0.0)
                    wr = f64(0.0)
                    hl = f64(0.0)
                    if sphere != 0:  # psi in [0, pi/2]: r dr = R^2 sin psi cos psi dpsi
                        psi = mid + half * S.gx[o + i]
                        r = R * wp.sin(psi)
                        hl = R * wp.cos(psi)
                        wr = half * S.gw[o + i] * R * R * wp.sin(psi) * wp.cos(psi)
                    else:
                        r = f64(0.5) * R * (f64(1.0) + S.gx[o + i])
                        hl = H
                        wr = f64(0.5) * R * S.gw[o + i] * r
                    q0 = vec3d(c[0] + r * dr[0], c[1] + r * dr[1], c[2] + r * dr[2])
                    acc = _col(S, acc, q0, u, -hl, hl, wr * f64(2.0) * PI / f64(nt), exl, hasex)
        return acc

    @wp.func
    def _cylinder(S: Fk, acc: spatial, R: f64, H: f64, l: vec3d, cap: vec4d) -> spatial:
        # sea.cc Cylinder (radius R, half-height H; l up in the geom frame): within 45 degrees of up the
        # axial disk's columns; else columns across, along the radial direction nearest up e, the section
        # (s along f, z) with s = R sin phi, the chord's half-length R cos phi, phi split at the kinks
        if wp.abs(l[2]) * wp.abs(l[2]) >= f64(0.5):
            return _disk(S, acc, R, vec3d(f64(0.0), f64(0.0), f64(1.0)), vec3d(), H, 0, vec4d(), 0,
                         f64(2.0) * R, vec4d(), 0)
        ln = wp.sqrt(l[0] * l[0] + l[1] * l[1])
        e = vec3d(l[0] / ln, l[1] / ln, f64(0.0))
        f = vec3d(-e[1], e[0], f64(0.0))
        nz = order(S.lmax, S.ws, f64(2.0) * H)
        nf = wp.max(order(S.lmax, S.ws, f64(2.0) * R), CURVED_MIN)
        oz = nz * (nz - 1) // 2
        of = nf * (nf - 1) // 2
        for i in range(nz):
            zc = H * S.gx[oz + i]
            cuts = _kinks(1, cap, vec3d(f64(0.0), f64(0.0), zc), f, e, R, f64(-0.5) * PI, f64(0.5) * PI)
            for q in range(int(cuts[11]) - 1):
                mid = f64(0.5) * (cuts[q] + cuts[q + 1])
                half = f64(0.5) * (cuts[q + 1] - cuts[q])
                for j in range(nf):
                    ph = mid + half * S.gx[of + j]
                    s = R * wp.sin(ph)
                    hl = R * wp.cos(ph)
                    acc = _col(S, acc, vec3d(s * f[0], s * f[1], zc), e, -hl, hl,
                               H * S.gw[oz + i] * half * S.gw[of + j] * R * wp.cos(ph), vec4d(), 0)
        return acc

    _box_columns = mjwarp_sea_box.build(wp, Fk, _col, order, plane)

    @wp.func
    def _fk(typ: int, size: vec3d, pos: vec3d, R: mat33d, cen: vec3d, hr: wp.vec2i,
            hplanes: wp.array(dtype=wp.vec4d), planes: wp.array2d(dtype=wp.vec4d), c: int, npl: int,
            row: int, tp: vec4d, comps: wp.array3d(dtype=f64), ws: int, n: vec3d, dsea: f64, depth: f64,
            deep: int, t: f64, r: f64, rg: f64, lmax: wp.array2d(dtype=f64), gx: wp.array(dtype=f64),
            gw: wp.array(dtype=f64), only: vec16i, masked: int) -> spatial:
        # sea.cc FroudeKrylov: the piece of geom typ (MuJoCo sizes; a mesh: hplanes[hr[0]:hr[1]], its
        # bounding box then its face planes, mjwarp_sea.hull_planes) in cell c (npl planes, row the surface
        # replaced by the tangent plane tp, world), ramp r, rho g rg: (F, T about pos), world. ``cen`` (the
        # full volume's centroid) is read by the tangent plane only (the pieces kernel). masked != 0: only the
        # components whose bit is set in only (sea_moments' fallback), the cap's hydrostatic term kept
        S = Fk()
        S.only = only
        S.masked = masked
        S.pos = pos
        S.R = R
        S.sc = vec3d(f64(1.0), f64(1.0), f64(1.0))
        S.jac = f64(1.0)
        S.h0 = 0
        S.h1 = 0
        S.c = c
        S.npl = npl
        S.row = row
        S.tp = tp
        S.ws = ws
        S.n = n
        S.dsea = dsea
        S.depth = depth
        S.deep = deep
        S.t = t
        S.r = r
        S.rg = rg
        S.planes = planes
        S.hplanes = hplanes
        S.comps = comps
        S.lmax = lmax
        S.gx = gx
        S.gw = gw
        l = wp.transpose(R) @ n  # up in the geom frame
        tn = vec3d(tp[0], tp[1], tp[2])
        cl = wp.transpose(R) @ tn  # the cap plane in the geom frame: (R' n).q <= d - n.p
        capl = vec4d(cl[0], cl[1], cl[2], tp[3] - wp.dot(tn, pos))
        acc = spatial()
        if typ == BOX:
            return _box_columns(S, acc, -size, size, l, 1)
        if typ == MESH:
            S.h0 = hr[0] + 2
            S.h1 = hr[1]
            blo = hplanes[hr[0]]
            bhi = hplanes[hr[0] + 1]
            return _box_columns(S, acc, vec3d(blo[0], blo[1], blo[2]), vec3d(bhi[0], bhi[1], bhi[2]), l, 0)
        if typ == CYLINDER:
            return _cylinder(S, acc, size[0], size[1], l, capl)
        if typ == SPHERE or typ == ELLIPSOID:  # the unit sphere scaled by the semi-axes (jac = a b c)
            ax = size
            if typ == SPHERE:
                ax = vec3d(size[0], size[0], size[0])
            u = vec3d(l[0] * ax[0], l[1] * ax[1], l[2] * ax[2])  # up in the unit sphere's frame
            u = u / wp.sqrt(wp.dot(u, u))
            rmax = wp.max(ax[0], wp.max(ax[1], ax[2]))  # the orders' extent
            S.sc = ax
            S.jac = ax[0] * ax[1] * ax[2]
            capy = vec4d(capl[0] * ax[0], capl[1] * ax[1], capl[2] * ax[2], capl[3])  # (S n).y <= d
            return _disk(S, acc, f64(1.0), u, vec3d(), f64(0.0), 1, vec4d(), 0, f64(2.0) * rmax, capy, 1)
        if typ == CAPSULE:  # the cylinder, then each hemisphere: a sphere's disk bounded by its row
            acc = _cylinder(S, acc, size[0], size[1], l, capl)
            u = l / wp.sqrt(wp.dot(l, l))
            acc = _disk(S, acc, size[0], u, vec3d(f64(0.0), f64(0.0), size[1]), f64(0.0), 1,
                        vec4d(f64(0.0), f64(0.0), f64(-1.0), -size[1]), 1, f64(2.0) * size[0], capl, 1)
            return _disk(S, acc, size[0], u, vec3d(f64(0.0), f64(0.0), -size[1]), f64(0.0), 1,
                         vec4d(f64(0.0), f64(0.0), f64(1.0), -size[1]), 1, f64(2.0) * size[0], capl, 1)
        return acc

    return {"fk": _fk, "col": _col, "disk": _disk, "cylinder": _cylinder, "box_columns": _box_columns,
            "kinks": _kinks}
