"""The MuJoCo Warp functions of a sea (aurgen.runtime.mjwarp's device side, with mjwarp_kernels).

Mirrors runtime/native/core/sea.cc function for function: ``ramp`` Sea::Ramp, ``tangent``
ForceStage::SeaPlanes, ``orbital`` Sea::Orbital, ``order`` Sea::Order, ``plane`` ForceStage::GeomPlanes,
``column`` Sums::Column (each chord's segments integrated exactly: ``_segment`` its seg; ``_cap_at``
Sums::CapAt); the column rules of every geom type and ``fk`` (FroudeKrylov) are runtime/mjwarp/sea_shapes.py's;
``hull_planes`` is HullPlanes::Build on the host. float64 throughout, world frame, SI. Built by
``build(wp, vec6d)`` from mjwarp_kernels.kernels (no warp import here).
"""

import math

from aurgen.runtime.mjwarp import sea_moments as mjwarp_sea_moments
from aurgen.runtime.mjwarp import sea_shapes as mjwarp_sea_shapes


def build(wp, vec6d) -> dict:
    """The Warp functions of a sea, by name."""
    f64 = wp.float64
    vec3d, mat33d = wp.vec3d, wp.mat33d
    vec8d, vec9d = (wp.types.vector(length=m, dtype=wp.float64) for m in (8, 9))
    vec16i = wp.types.vector(length=16, dtype=wp.int32)  # a bit per component (256), 16 a word
    # sea.cc kP1, kP2: the series of phi1 and phi2, 1 / (n+1)! and 1 / (n! (n+2)), n = 0 .. 8
    P1 = wp.constant(vec9d(*[1.0 / math.factorial(n + 1) for n in range(9)]))
    P2 = wp.constant(vec9d(*[1.0 / (math.factorial(n) * (n + 2)) for n in range(9)]))

    # ---- a sea (sea.cc): the tangent plane, the orbital velocity

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
        # Sea::Orbital: the depth factor held above the mean level and below the seabed
        zeta = wp.min(wp.dot(n, x) - dsea, f64(0.0))
        if deep == 0:
            zeta = wp.max(zeta, -depth)
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

    # ---- the Froude-Krylov correction's columns (sea.cc Sums), read by mjwarp_sea_shapes' rules

    @wp.struct
    class Fk:  # what a piece's columns read: FroudeKrylov's Sums and the frame of its col lambda
        pos: vec3d  # the geom's origin (world, m): the moments' point
        R: mat33d  # geom -> world
        sc: vec3d  # a column's scale in the geom frame (an ellipsoid's semi-axes; else 1)
        jac: f64  # its volume factor (sc's product)
        h0: int  # a mesh hull's face rows [h0, h1) in hplanes (none: h0 == h1)
        h1: int
        c: int  # the cell, its plane count, its surface row, the geom's tangent plane (world)
        npl: int
        row: int
        tp: wp.vec4d
        ws: int  # the world's row of comps and lmax
        n: vec3d  # the sea's up, mean level (m), depth (m; deep != 0: infinite), time (s), ramp, rho g
        dsea: f64
        depth: f64
        deep: int
        t: f64
        r: f64
        rg: f64
        planes: wp.array2d(dtype=wp.vec4d)
        hplanes: wp.array(dtype=wp.vec4d)
        comps: wp.array3d(dtype=f64)
        lmax: wp.array2d(dtype=f64)
        gx: wp.array(dtype=f64)
        gw: wp.array(dtype=f64)
        only: vec16i  # masked != 0: the components integrated (FroudeKrylov's only), the others left out
        masked: int

    @wp.func
    def _integrals(e: f64, th: f64, L: f64, zr: f64, zi: f64) -> vec6d:
        # sea.cc Integrals: from a segment's end where W = exp(e) (cos th, sin th), z = gamma L:
        # (I0 = W L phi1(z), q2 = W L^2 phi2(z), Re W there, Re W e^z at the other end)
        ea = wp.exp(e)
        war = ea * wp.cos(th)
        wai = ea * wp.sin(th)
        ez = wp.exp(zr)
        ezc = ez * wp.cos(zi)
        ezs = ez * wp.sin(zi)
        p1r = f64(0.0)
        p1i = f64(0.0)
        p2r = f64(0.0)
        p2i = f64(0.0)
        if zr * zr + zi * zi < f64(0.0025):  # |z| < 0.05: the series by Horner (sea.cc kP1, kP2)
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
        else:  # p1 = (e^z - 1) / z, p2 = (z e^z - e^z + 1) / z^2
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
        return vec6d(L * (war * p1r - wai * p1i), L * (war * p1i + wai * p1r), L * L * (war * p2r - wai * p2i),
                     L * L * (war * p2i + wai * p2r), war, war * ezc - wai * ezs)

    @wp.func
    def _segment(cw: vec6d, kn: f64, sig: f64, lc: f64, a: f64, b: f64, th0: f64, ths: f64, z0: f64, zs: f64,
                 dx0: vec3d, E: vec3d, n: vec3d) -> vec8d:
        # Sums::Column's seg: over s in [a, b] of the chord x0 + s E the field W(s) = C exp(sig k zeta(s)
        # + i theta(s)) integrated exactly, from W(a), or from W(b) where that is not finite; (a Re[kap I0],
        # a Re[J x kap], Re W(a), Re W(b)), kap = sig k n + i k
        L = b - a
        zr = sig * kn * zs * L
        zi = ths * L
        g = _integrals(lc + sig * kn * (z0 + zs * a), th0 + ths * a, L, zr, zi)
        i0r = g[0]
        i0i = g[1]
        i1r = a * i0r + g[2]
        i1i = a * i0i + g[3]
        wa = g[4]
        wb = g[5]
        if not (wp.isfinite(i0r) and wp.isfinite(i0i) and wp.isfinite(i1r) and wp.isfinite(i1i) and wp.isfinite(wb)):
            g = _integrals(lc + sig * kn * (z0 + zs * b), th0 + ths * b, L, -zr, -zi)
            i0r = g[0]
            i0i = g[1]
            i1r = b * i0r - g[2]
            i1i = b * i0i - g[3]
            wa = g[5]
            wb = g[4]
        k = vec3d(cw[2], cw[3], cw[4])
        kapr = (sig * kn) * n
        Jr = dx0 * i0r + E * i1r
        Ji = dx0 * i0i + E * i1i
        dF = cw[0] * (kapr * i0r - k * i0i)
        dT = cw[0] * (wp.cross(Jr, kapr) - wp.cross(Ji, k))
        return vec8d(dF[0], dF[1], dF[2], dT[0], dT[1], dT[2], wa, wb)

    @wp.func
    def _cap_at(S: Fk, F: vec3d, T: vec3d, x: vec3d, E: vec3d, w: f64, pd: f64) -> wp.spatial_vectord:
        # Sums::CapAt: the total pressure's force on the tangent plane's cap at the chord end x (world)
        capn = vec3d(S.tp[0], S.tp[1], S.tp[2])
        ne = wp.abs(wp.dot(capn, E))
        if not (ne > f64(0.0)):
            return wp.spatial_vectord(F[0], F[1], F[2], T[0], T[1], T[2])
        s = S.rg * (-(wp.dot(S.n, x) - S.dsea) + S.r * pd) * w / ne
        f = s * capn
        Fo = F + f
        To = T + wp.cross(x - S.pos, f)
        return wp.spatial_vectord(Fo[0], Fo[1], Fo[2], To[0], To[1], To[2])

    @wp.func
    def _column(S: Fk, acc: wp.spatial_vectord, x0: vec3d, E: vec3d, s0in: f64, s1in: f64, w: f64,
                ex: wp.vec4d, hasex: int) -> wp.spatial_vectord:
        # Sums::Column: the line x0 + s E (world), s in [s0, s1] inside the geom, of weight w (dV = w ds),
        # clipped by the cell's planes (the surface row the tangent plane) and the extra row ex (hasex),
        # split at the mean level, each segment integrated exactly; acc plus its (F, T about S.pos)
        s0 = f64(s0in)
        s1 = f64(s1in)
        lo = int(-1)  # the rows bounding s0 and s1 (-1: the geom, -2: ex)
        hi = int(-1)
        for j in range(S.npl + hasex):
            pl = ex
            jid = int(-2)
            if j < S.npl:
                pl = _plane(S.planes, S.c, j, S.row, 1, S.tp)
                jid = j
            pn = vec3d(pl[0], pl[1], pl[2])
            aa = wp.dot(pn, E)
            bb = pl[3] - wp.dot(pn, x0)
            if aa > f64(0.0):
                sb = bb / aa
                if sb < s1:
                    s1 = sb
                    hi = jid
            elif aa < f64(0.0):
                sb = bb / aa
                if sb > s0:
                    s0 = sb
                    lo = jid
            elif bb < f64(0.0):
                return acc
        if not (s1 > s0):
            return acc
        z0 = wp.dot(S.n, x0) - S.dsea
        zs = wp.dot(S.n, E)
        sm = s1
        if zs != f64(0.0):
            sm = -z0 / zs
        rising = zs > f64(0.0) or (zs == f64(0.0) and z0 <= f64(0.0))  # below the mean level first along +s
        bl = wp.max(s0, sm)
        bh = s1
        al = s0
        ah = wp.min(s1, sm)
        if rising:
            bl = s0
            bh = wp.min(s1, sm)
            al = wp.max(s0, sm)
            ah = s1
        # at finite depth, the below part's stretch under the seabed [dl, dh]: the depth factor held there
        dl = f64(0.0)
        dh = f64(0.0)
        if S.deep == 0 and bh > bl:
            if zs != f64(0.0):
                sd = (-S.depth - z0) / zs
                if zs > f64(0.0):
                    dl = bl
                    dh = wp.min(bh, sd)
                    if dh > dl:
                        bl = dh
                else:
                    dl = wp.max(bl, sd)
                    dh = bh
                    if dh > dl:
                        bh = dl
            elif z0 < -S.depth:
                dl = bl
                dh = bh
                bl = bh
        hasb = bh > bl
        hasa = ah > al
        hasd = dh > dl
        dx0 = x0 - S.pos
        Fv = vec3d()
        Tv = vec3d()
        plo = f64(0.0)  # sum a Re W at the chord's ends (the caps' dynamic pressure)
        phi = f64(0.0)
        for jw in range(S.comps.shape[1]):
            if S.masked != 0:
                if ((S.only[jw >> 4] >> (jw & 15)) & 1) == 0:
                    continue
            cw = _wave(S.comps, S.ws, jw)
            k = vec3d(cw[2], cw[3], cw[4])
            kn = wp.length(k)
            dfac = _depth_factors(kn, S.depth, S.deep)
            lc = wp.log(dfac[1])
            th0 = wp.dot(k, x0) - cw[1] * S.t + cw[5]
            ths = wp.dot(k, E)
            wbl = f64(0.0)
            wbh = f64(0.0)
            w2l = f64(0.0)
            w2h = f64(0.0)
            wal = f64(0.0)
            wah = f64(0.0)
            wdl = f64(0.0)
            wdh = f64(0.0)
            if hasb:  # below: c e^{k zeta}, and at finite depth c e^{-k (zeta + 2 h)}
                sg = _segment(cw, kn, f64(1.0), lc, bl, bh, th0, ths, z0, zs, dx0, E, S.n)
                Fv = Fv - vec3d(sg[0], sg[1], sg[2])
                Tv = Tv - vec3d(sg[3], sg[4], sg[5])
                wbl = sg[6]
                wbh = sg[7]
                if S.deep == 0 and dfac[0] > f64(0.0):
                    sg = _segment(cw, kn, f64(-1.0), lc - f64(2.0) * kn * S.depth, bl, bh, th0, ths, z0, zs,
                                  dx0, E, S.n)
                    Fv = Fv - vec3d(sg[0], sg[1], sg[2])
                    Tv = Tv - vec3d(sg[3], sg[4], sg[5])
                    w2l = sg[6]
                    w2h = sg[7]
            if hasa:  # above: the depth factor held at 1
                sg = _segment(cw, kn, f64(0.0), f64(0.0), al, ah, th0, ths, z0, zs, dx0, E, S.n)
                Fv = Fv - vec3d(sg[0], sg[1], sg[2])
                Tv = Tv - vec3d(sg[3], sg[4], sg[5])
                wal = sg[6]
                wah = sg[7]
            if hasd:  # under the seabed: the depth factor held at D(-h) = 2 c e^{-k h}
                lcd = lc + f64(0.6931471805599453) - kn * S.depth  # log 2 (sea.cc kLn2)
                sg = _segment(cw, kn, f64(0.0), lcd, dl, dh, th0, ths, z0, zs, dx0, E, S.n)
                Fv = Fv - vec3d(sg[0], sg[1], sg[2])
                Tv = Tv - vec3d(sg[3], sg[4], sg[5])
                wdl = sg[6]
                wdh = sg[7]
            # the chord's ends: rising, the segments come under the seabed, below, above; falling, the other way
            v0 = wal
            v1 = wah
            if rising:
                if hasb:
                    v0 = wbl + w2l
                if hasd:
                    v0 = wdl
                if not hasa:
                    v1 = wdh
                    if hasb:
                        v1 = wbh + w2h
            else:
                if not hasa:
                    v0 = wdl
                    if hasb:
                        v0 = wbl + w2l
                v1 = wah
                if hasb:
                    v1 = wbh + w2h
                if hasd:
                    v1 = wdh
            if lo == S.row:
                plo += cw[0] * v0
            if hi == S.row:
                phi += cw[0] * v1
        scl = S.rg * S.r * w
        F = vec3d(acc[0], acc[1], acc[2]) + scl * Fv
        T = vec3d(acc[3], acc[4], acc[5]) + scl * Tv
        out = wp.spatial_vectord(F[0], F[1], F[2], T[0], T[1], T[2])
        if hi == S.row:
            out = _cap_at(S, F, T, x0 + s1 * E, E, w, phi)
            F = vec3d(out[0], out[1], out[2])
            T = vec3d(out[3], out[4], out[5])
        if lo == S.row:
            out = _cap_at(S, F, T, x0 + s0 * E, E, w, plo)
        return out

    # the column rules by geom type and FroudeKrylov itself: runtime/mjwarp/sea_shapes.py
    shapes = mjwarp_sea_shapes.build(wp, Fk, _column, _order, _plane, vec16i)
    # the same correction by the piece's volume moments: runtime/mjwarp/sea_moments.py
    mo = mjwarp_sea_moments.build(wp, _plane, vec16i)
    return {"ramp": _ramp, "tangent": _tangent, "orbital": _orbital, "order": _order, "plane": _plane,
            "column": _column, "fk": shapes["fk"], "moments": mo["moments"], "Scr": mo["Scr"],
            "vec16i": vec16i}


def hull_planes(records) -> tuple:
    """sea.cc HullPlanes::Build for each marked mesh geom, from mjwarp.records' hull triangles
    (mjwarp_mesh.hull_triangles, outward): (rows (P, 4), ranges (G, 2) int32). Geom k's block is
    rows [ranges[k, 0], ranges[k, 1]): its hull's bounding box (geom frame, m) lo and hi as rows
    (x, y, z, 0), then one face plane n.x <= d (unit outward n) per triangle, n = (b - a) x (c - b)
    normalised and d = n.a as the plugin forms it from the face's first two edges (a degenerate
    triangle bounds nothing: left out). Other geoms: an empty range."""
    import mujoco
    import numpy as np

    types = np.asarray(records["geom_type"])
    ranges = np.zeros((max(len(types), 1), 2), np.int32)
    rows = []
    tris = np.asarray(records["mesh_triangles"], float).reshape(-1, 3, 3)
    for k, typ in enumerate(types):
        if typ != int(mujoco.mjtGeom.mjGEOM_MESH):
            continue
        r0, r1 = records["mesh_range"][k]
        tri = tris[r0:r1]
        a, b, c = tri[:, 0], tri[:, 1], tri[:, 2]
        u, v = b - a, c - b
        nrm = np.stack([u[:, 1] * v[:, 2] - u[:, 2] * v[:, 1], u[:, 2] * v[:, 0] - u[:, 0] * v[:, 2],
                        u[:, 0] * v[:, 1] - u[:, 1] * v[:, 0]], axis=1)
        L = np.sqrt(nrm[:, 0] * nrm[:, 0] + nrm[:, 1] * nrm[:, 1] + nrm[:, 2] * nrm[:, 2])
        keep = L > 0.0
        nrm, a = nrm[keep] / L[keep, None], a[keep]
        d = nrm[:, 0] * a[:, 0] + nrm[:, 1] * a[:, 1] + nrm[:, 2] * a[:, 2]
        verts = tri.reshape(-1, 3)
        start = len(rows)
        rows += [[*verts.min(axis=0), 0.0], [*verts.max(axis=0), 0.0]]
        rows += np.column_stack([nrm, d]).tolist()
        ranges[k] = (start, len(rows))
    return (np.array(rows, float) if rows else np.zeros((1, 4))), ranges
