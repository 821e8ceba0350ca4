"""The MuJoCo Warp functions of a sea (aurgen.runtime.mjwarp's device side, with mjwarp_kernels).

Mirrors runtime/native/core/sea.cc function for function: ``ramp`` Sea::Ramp, ``tangent``
ForceStage::SeaPlanes, ``orbital`` Sea::Orbital, ``order`` Sea::Order, ``plane`` ForceStage::GeomPlanes,
``fk_box`` FroudeKrylov for a box (BoxColumns, Sums::Column with its exact chord integrals, Sums::CapAt).
float64 throughout. Built by ``build(wp, vec6d)`` from mjwarp_kernels.kernels (no warp import here).
"""

import math


def build(wp, vec6d) -> dict:
    """The Warp functions of a sea, by name."""
    f64 = wp.float64
    vec3d, mat33d = wp.vec3d, wp.mat33d
    vec9d = wp.types.vector(length=9, dtype=wp.float64)
    # sea.cc kP1, kP2: the series of phi1 and phi2, 1 / (n+1)! and 1 / (n! (n+2)), n = 0 .. 8
    P1 = wp.constant(vec9d(*[1.0 / math.factorial(n + 1) for n in range(9)]))
    P2 = wp.constant(vec9d(*[1.0 / (math.factorial(n) * (n + 2)) for n in range(9)]))

    # ---- a sea (sea.cc): the tangent plane, the orbital velocity, Froude-Krylov over a box's columns

    @wp.func
    def _ramp(ramp: f64, t: f64) -> f64:  # Sea::Ramp
        if not (ramp > f64(0.0)) or t >= ramp:
            return f64(1.0)
        if t <= f64(0.0):
            return f64(0.0)
        return f64(0.5) * (f64(1.0) - wp.cos(f64(3.141592653589793) * t / ramp))

    @wp.func
    def _wave(comps: wp.array3d(dtype=f64), ws: int, j: int) -> vec6d:
        return vec6d(comps[ws, j, 0], comps[ws, j, 1], comps[ws, j, 2], comps[ws, j, 3], comps[ws, j, 4],
                     comps[ws, j, 5])

    @wp.func
    def _tangent(comps: wp.array3d(dtype=f64), ws: int, n: vec3d, dsea: f64, r: f64, t: f64, xc: vec3d) -> wp.vec4d:
        # ForceStage::SeaPlanes: the water side n.x - d <= eta + G.(x - xc), normalised
        e = f64(0.0)
        G = vec3d()
        for j in range(comps.shape[1]):
            cw = _wave(comps, ws, j)
            k = vec3d(cw[2], cw[3], cw[4])
            th = wp.dot(k, xc) - cw[1] * t + cw[5]
            e += cw[0] * wp.cos(th)
            G = G - (cw[0] * wp.sin(th)) * k
        eta = r * e
        G = r * G
        row = wp.vec4d(n[0] - G[0], n[1] - G[1], n[2] - G[2], dsea + eta - wp.dot(G, xc))
        L = wp.sqrt(row[0] * row[0] + row[1] * row[1] + row[2] * row[2])
        return row / L

    @wp.func
    def _depth_factors(kn: f64, depth: f64, deep: int) -> vec3d:
        # Sea::Prepare's per-component constants: e^{-2 k h}, c = 1 / (1 + e^{-2 k h}), 1 / tanh(k h)
        if deep != 0:
            return vec3d(f64(0.0), f64(1.0), f64(1.0))
        e2h = wp.exp(f64(-2.0) * kn * depth)
        return vec3d(e2h, f64(1.0) / (f64(1.0) + e2h), f64(1.0) / wp.tanh(kn * depth))

    @wp.func
    def _orbital(comps: wp.array3d(dtype=f64), ws: int, n: vec3d, dsea: f64, depth: f64, deep: int, r: f64,
                 t: f64, x: vec3d) -> vec3d:
        # Sea::Orbital
        zeta = wp.min(wp.dot(n, x) - dsea, f64(0.0))
        U = vec3d()
        W = f64(0.0)
        for j in range(comps.shape[1]):
            cw = _wave(comps, ws, j)
            k = vec3d(cw[2], cw[3], cw[4])
            kn = wp.length(k)
            dfac = _depth_factors(kn, depth, deep)
            e2h = dfac[0]
            c = dfac[1]
            cu = dfac[2]
            th = wp.dot(k, x) - cw[1] * t + cw[5]
            e1 = wp.exp(kn * zeta)
            e2 = f64(0.0)
            if e2h > f64(0.0):
                e2 = e2h / e1
            aw = cw[0] * cw[1] * c * cu
            U = U + (aw * (e1 + e2) * wp.cos(th) / kn) * k
            W += aw * (e1 - e2) * wp.sin(th)
        return r * (U + W * n)

    @wp.func
    def _order(lmax: wp.array2d(dtype=f64), ws: int, L: f64) -> int:  # Sea::Order
        a = wp.abs(L)
        for n in range(2, 16):
            if a <= lmax[ws, n]:
                return n
        return 16

    @wp.func
    def _plane(planes: wp.array2d(dtype=wp.vec4d), c: int, j: int, row: int, side: int, tp: wp.vec4d) -> wp.vec4d:
        # cell c's plane j, its surface row replaced by the geom's tangent plane (GeomPlanes)
        if j == row and side != 0:
            if side > 0:
                return tp
            return -tp
        return planes[c, j]

    @wp.func
    def _fk_box(size: vec3d, pos: vec3d, R: mat33d, planes: wp.array2d(dtype=wp.vec4d), c: int, npl: int,
                row: int, tp: wp.vec4d, comps: wp.array3d(dtype=f64), ws: int, n: vec3d, dsea: f64, depth: f64,
                deep: int, t: f64, r: f64, rg: f64, lmax: wp.array2d(dtype=f64), gx: wp.array(dtype=f64),
                gw: wp.array(dtype=f64)) -> wp.spatial_vectord:
        # sea.cc FroudeKrylov for a box (BoxColumns, Sums::Column, Sums::CapAt): (F, T about pos)
        l = wp.transpose(R) @ n
        a = int(0)
        if wp.abs(l[1]) > wp.abs(l[a]):
            a = 1
        if wp.abs(l[2]) > wp.abs(l[a]):
            a = 2
        b = (a + 1) % 3
        cc = (a + 2) % 3
        nb = _order(lmax, ws, f64(2.0) * size[b])
        nc = _order(lmax, ws, f64(2.0) * size[cc])
        ob = nb * (nb - 1) / 2
        oc = nc * (nc - 1) / 2
        el = vec3d()
        el[a] = f64(1.0)
        E = R @ el
        F = vec3d()
        T = vec3d()
        capn = vec3d(tp[0], tp[1], tp[2])
        for i in range(nb):
            for jj in range(nc):
                q0 = vec3d()
                q0[b] = size[b] * gx[ob + i]
                q0[cc] = size[cc] * gx[oc + jj]
                w = size[b] * size[cc] * gw[ob + i] * gw[oc + jj]
                x0 = pos + R @ q0
                s0 = -size[a]
                s1 = size[a]
                lo = int(-1)
                hi = int(-1)
                empty = bool(False)
                for j in range(npl):
                    pl = _plane(planes, c, j, row, 1, tp)
                    pn = vec3d(pl[0], pl[1], pl[2])
                    aa = wp.dot(pn, E)
                    bb = pl[3] - wp.dot(pn, x0)
                    if aa > f64(0.0):
                        sb = bb / aa
                        if sb < s1:
                            s1 = sb
                            hi = j
                    elif aa < f64(0.0):
                        sb = bb / aa
                        if sb > s0:
                            s0 = sb
                            lo = j
                    elif bb < f64(0.0):
                        empty = True
                if empty or not (s1 > s0):
                    continue
                z0 = wp.dot(n, x0) - dsea
                zs = wp.dot(n, E)
                sm = s1
                if zs != f64(0.0):
                    sm = -z0 / zs
                rising = zs > f64(0.0) or (zs == f64(0.0) and z0 <= f64(0.0))
                bl = wp.max(s0, sm)
                bh = s1
                al = s0
                ah = wp.min(s1, sm)
                if rising:
                    bl = s0
                    bh = wp.min(s1, sm)
                    al = wp.max(s0, sm)
                    ah = s1
                hasb = bh > bl
                hasa = ah > al
                dx0 = x0 - pos
                Fv = vec3d()
                Tv = vec3d()
                plo = f64(0.0)
                phi = f64(0.0)
                for jw in range(comps.shape[1]):
                    cw = _wave(comps, ws, jw)
                    k = vec3d(cw[2], cw[3], cw[4])
                    kn = wp.length(k)
                    dfac = _depth_factors(kn, depth, deep)
                    e2h = dfac[0]
                    cf = dfac[1]
                    th0 = wp.dot(k, x0) - cw[1] * t + cw[5]
                    ths = wp.dot(k, E)
                    wbl = f64(0.0)
                    wbh = f64(0.0)
                    wal = f64(0.0)
                    wah = f64(0.0)
                    # the segments: below (sig +1, and -1 at finite depth), above (sig 0)
                    for sgi in range(3):
                        sig = f64(1.0)
                        sa = bl
                        sb2 = bh
                        lc = wp.log(cf)
                        use = hasb
                        if sgi == 1:
                            sig = f64(-1.0)
                            lc = wp.log(cf) - f64(2.0) * kn * depth
                            use = hasb and deep == 0 and e2h > f64(0.0)
                        if sgi == 2:
                            sig = f64(0.0)
                            sa = al
                            sb2 = ah
                            lc = f64(0.0)
                            use = hasa
                        if not use:
                            continue
                        L = sb2 - sa
                        ga = sig * kn * zs
                        ea = wp.exp(lc + sig * kn * (z0 + zs * sa))
                        war = ea * wp.cos(th0 + ths * sa)
                        wai = ea * wp.sin(th0 + ths * sa)
                        zr = ga * L
                        zi = ths * L
                        ez = wp.exp(zr)
                        ezc = ez * wp.cos(zi)
                        ezs = ez * wp.sin(zi)
                        p1r = f64(0.0)
                        p1i = f64(0.0)
                        p2r = f64(0.0)
                        p2i = f64(0.0)
                        if zr * zr + zi * zi < f64(0.0025):  # the series by Horner (sea.cc kP1, kP2)
                            p1r = P1[8]
                            p2r = P2[8]
                            for m in range(8):
                                nn = 7 - m
                                a1 = p1r * zr - p1i * zi + P1[nn]
                                b1 = p1r * zi + p1i * zr
                                a2 = p2r * zr - p2i * zi + P2[nn]
                                b2 = p2r * zi + p2i * zr
                                p1r = a1
                                p1i = b1
                                p2r = a2
                                p2i = b2
                        else:
                            inv = f64(1.0) / (zr * zr + zi * zi)
                            n1r = ezc - f64(1.0)
                            n1i = ezs
                            p1r = (n1r * zr + n1i * zi) * inv
                            p1i = (n1i * zr - n1r * zi) * inv
                            n2r = (zr * ezc - zi * ezs) - ezc + f64(1.0)
                            n2i = (zr * ezs + zi * ezc) - ezs
                            z2r = zr * zr - zi * zi
                            z2i = f64(2.0) * zr * zi
                            inv2 = inv * inv
                            p2r = (n2r * z2r + n2i * z2i) * inv2
                            p2i = (n2i * z2r - n2r * z2i) * inv2
                        i0r = L * (war * p1r - wai * p1i)
                        i0i = L * (war * p1i + wai * p1r)
                        i1r = sa * i0r + L * L * (war * p2r - wai * p2i)
                        i1i = sa * i0i + L * L * (war * p2i + wai * p2r)
                        kapr = (sig * kn) * n
                        Jr = dx0 * i0r + E * i1r
                        Ji = dx0 * i0i + E * i1i
                        Fv = Fv - cw[0] * (kapr * i0r - k * i0i)
                        Tv = Tv - cw[0] * (wp.cross(Jr, kapr) - wp.cross(Ji, k))
                        wa = war
                        wb = war * ezc - wai * ezs
                        if sgi == 2:
                            wal = wa
                            wah = wb
                        else:
                            wbl += wa
                            wbh += wb
                    v0 = wal
                    v1 = wbh
                    if rising:
                        v0 = wal
                        if hasb:
                            v0 = wbl
                        v1 = wbh
                        if hasa:
                            v1 = wah
                    else:
                        v0 = wbl
                        if hasa:
                            v0 = wal
                        v1 = wah
                        if hasb:
                            v1 = wbh
                    if lo == row:
                        plo += cw[0] * v0
                    if hi == row:
                        phi += cw[0] * v1
                scl = rg * r * w
                F = F + scl * Fv
                T = T + scl * Tv
                ne = wp.abs(wp.dot(capn, E))
                if ne > f64(0.0):
                    if hi == row:
                        xb = x0 + s1 * E
                        pt = rg * (-(wp.dot(n, xb) - dsea) + r * phi) * w / ne
                        F = F + pt * capn
                        T = T + wp.cross(xb - pos, pt * capn)
                    if lo == row:
                        xb = x0 + s0 * E
                        pt = rg * (-(wp.dot(n, xb) - dsea) + r * plo) * w / ne
                        F = F + pt * capn
                        T = T + wp.cross(xb - pos, pt * capn)
        return wp.spatial_vectord(F[0], F[1], F[2], T[0], T[1], T[2])


    @wp.func
    def _fk(typ: int, size: vec3d, pos: vec3d, R: mat33d, cen: vec3d, hr: wp.vec2i,
            hplanes: wp.array(dtype=wp.vec4d), planes: wp.array2d(dtype=wp.vec4d), c: int, npl: int,
            row: int, tp: wp.vec4d, comps: wp.array3d(dtype=f64), ws: int, n: vec3d, dsea: f64, depth: f64,
            deep: int, t: f64, r: f64, rg: f64, lmax: wp.array2d(dtype=f64), gx: wp.array(dtype=f64),
            gw: wp.array(dtype=f64)) -> wp.spatial_vectord:
        # sea.cc FroudeKrylov: the geom's columns by its type; (F, T about pos), world.  ``cen``: the
        # full-volume centroid (geom frame), ``hplanes[hr[0]:hr[1]]``: a mesh hull's face planes (geom frame)
        return _fk_box(size, pos, R, planes, c, npl, row, tp, comps, ws, n, dsea, depth, deep, t, r, rg, lmax,
                       gx, gw)

    return {"ramp": _ramp, "tangent": _tangent, "orbital": _orbital, "order": _order, "plane": _plane,
            "fk_box": _fk_box, "fk": _fk}


def check_geoms(mjm, geoms, served) -> None:
    """Refuse (MjWarpRefused) a displacement geom whose Froude-Krylov columns are not mirrored here;
    ``geoms``: (geom id, mark, type) of the marked geoms, ``served``: type -> name."""
    import mujoco

    from aurgen.runtime.mjwarp import MARK_DISPLACEMENT, MjWarpRefused

    for g, mark, typ in geoms:
        if mark == MARK_DISPLACEMENT and typ != int(mujoco.mjtGeom.mjGEOM_BOX):
            name = mujoco.mj_id2name(mjm, mujoco.mjtObj.mjOBJ_GEOM, g) or f"geom {g}"
            raise MjWarpRefused(f"{name}: a {served[typ]} displacement geom in a sea; the MuJoCo Warp backend "
                                "integrates the Froude-Krylov force over boxes only so far (the plugin serves every "
                                "shape)")


def hull_planes(records) -> tuple:
    """(planes (P, 4) [n, d] of each mesh hull's faces n.x <= d, geom frame; ranges (G, 2) into them per
    marked geom) from mjwarp.records' mesh triangles, for sea.cc HullPlanes (empty but for meshes)."""
    import numpy as np

    ng = max(len(records["geom_id"]), 1)
    return np.zeros((1, 4)), np.zeros((ng, 2), np.int32)

