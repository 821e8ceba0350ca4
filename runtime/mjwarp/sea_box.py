"""A box's Froude-Krylov columns split at its chords' kinks (with mjwarp_sea_shapes; device side).

Mirrors runtime/native/core/sea.cc: ``_box_kinks`` KinkLines (``_corner_range`` and ``_kink_add`` its row
test and its add), ``_box_columns`` BoxColumns: the box's section in slabs between the kink lines'
crossings, each slab's regions between the lines by their own Gauss product rules, the same limits
(kMaxKinkRows, kMaxKinks, kMaxBreaks) past which the section is left whole. float64 throughout; geom
frame (m). Built by ``build(wp, Fk, col, order, plane)`` from mjwarp_sea_shapes.build (no warp import
here).
"""


def build(wp, Fk, col, order, plane):
    """The Warp function ``_box_columns(S, acc, lo, hi, l, kinks)``. ``Fk``: mjwarp_sea's struct;
    ``col``: mjwarp_sea_shapes' column in the geom frame; ``order``: Sea::Order; ``plane``:
    ForceStage::GeomPlanes' row."""
    f64, vec3d, vec4d = wp.float64, wp.vec3d, wp.vec4d
    spatial = wp.spatial_vectord
    # a box's kinks (sea.cc KinkLines, BoxColumns): the lines L0 + Lb b + Lc c = 0, how many, 0 where past
    # the limits (sea.cc kMaxKinkRows, kMaxKinks, kMaxBreaks)
    vec8d = wp.types.vector(length=8, dtype=wp.float64)
    vec16d = wp.types.vector(length=16, dtype=wp.float64)
    vec18d = wp.types.vector(length=18, dtype=wp.float64)
    vec64d = wp.types.vector(length=64, dtype=wp.float64)
    MAX_KINK_ROWS, MAX_KINKS, MAX_BREAKS = wp.constant(6), wp.constant(16), wp.constant(64)

    @wp.struct
    class Kinks:
        L0: vec16d
        Lb: vec16d
        Lc: vec16d
        n: int
        ok: int

    @wp.func
    def _corner_range(r0: f64, r1: f64, r2: f64, d: f64, lo: vec3d, hi: vec3d) -> vec3d:
        # (min, max, scale) of r.q - d over the box's corners and 0 (KinkLines' row test)
        mn = f64(0.0)
        mx = f64(0.0)
        sc = wp.abs(d)
        for k in range(8):
            q0 = lo[0]
            q1 = lo[1]
            q2 = lo[2]
            if (k & 1) != 0:
                q0 = hi[0]
            if (k & 2) != 0:
                q1 = hi[1]
            if (k & 4) != 0:
                q2 = hi[2]
            g = (r0 * q0 + r1 * q1 + r2 * q2) - d
            mn = wp.min(mn, g)
            mx = wp.max(mx, g)
            sc = wp.max(sc, wp.abs(g))
        return vec3d(mn, mx, sc)

    @wp.func
    def _kink_add(K: Kinks, L0: f64, Lb: f64, Lc: f64, cb0: f64, cb1: f64, cc0: f64, cc1: f64) -> Kinks:
        # KinkLines' add: the line L0 + Lb b + Lc c = 0 kept where it crosses the rectangle's interior
        out = K
        mn = f64(0.0)
        mx = f64(0.0)
        sc = wp.abs(L0)
        for i in range(4):
            bb = cb0
            if (i & 1) != 0:
                bb = cb1
            cc = cc0
            if (i >> 1) != 0:
                cc = cc1
            g = L0 + Lb * bb + Lc * cc
            mn = wp.min(mn, g)
            mx = wp.max(mx, g)
            sc = wp.max(sc, wp.abs(g))
        if not (mx > f64(1e-12) * sc and mn < f64(-1e-12) * sc):
            return out
        if out.n >= MAX_KINKS:
            out.ok = 0
            return out
        v0 = out.L0
        vb = out.Lb
        vc = out.Lc
        v0[out.n] = L0
        vb[out.n] = Lb
        vc[out.n] = Lc
        out.L0 = v0
        out.Lb = vb
        out.Lc = vc
        out.n = out.n + 1
        return out

    @wp.func
    def _box_kinks(S: Fk, lo: vec3d, hi: vec3d, a: int, b: int, c: int, weak: int) -> Kinks:
        # sea.cc KinkLines over FroudeKrylov's rows for a box: the cell's planes (the surface row the tangent
        # plane), and (weak != 0) the mean level and a finite sea's seabed, each in the geom frame
        # ((R' n).q <= d - n.p)
        K = Kinks()
        K.n = 0
        K.ok = 1
        f0 = vec8d()
        fb = vec8d()
        fc = vec8d()
        f0[0] = lo[a]
        f0[1] = hi[a]
        nf = int(2)
        nx = int(0)
        nrow = S.npl
        if weak != 0:
            nrow = nrow + 1
            if S.deep == 0:
                nrow = nrow + 1
        for j in range(nrow):
            pw = S.n
            dw = S.dsea
            if j < S.npl:
                pl = plane(S.planes, S.c, j, S.row, 1, S.tp)
                pw = vec3d(pl[0], pl[1], pl[2])
                dw = pl[3]
            elif j == S.npl + 1:
                dw = S.dsea - S.depth
            rl = wp.transpose(S.R) @ pw
            d = dw - wp.dot(pw, S.pos)
            rg = _corner_range(rl[0], rl[1], rl[2], d, lo, hi)
            if not (rg[1] > f64(1e-12) * rg[2] and rg[0] < f64(-1e-12) * rg[2]):
                continue
            nx = nx + 1
            if nx > MAX_KINK_ROWS:
                K.ok = 0
                return K
            if rl[a] != f64(0.0):
                f0[nf] = d / rl[a]
                fb[nf] = -rl[b] / rl[a]
                fc[nf] = -rl[c] / rl[a]
                nf = nf + 1
            else:
                K = _kink_add(K, -d, rl[b], rl[c], lo[b], hi[b], lo[c], hi[c])
                if K.ok == 0:
                    return K
        for i in range(nf):
            for j in range(i + 1, nf):
                K = _kink_add(K, f0[i] - f0[j], fb[i] - fb[j], fc[i] - fc[j], lo[b], hi[b], lo[c], hi[c])
                if K.ok == 0:
                    return K
        return K

    @wp.func
    def _box_columns(S: Fk, acc: spatial, lo: vec3d, hi: vec3d, l: vec3d, kinks: int) -> spatial:
        # sea.cc BoxColumns: the box [lo, hi] (geom frame) in columns along its axis a nearest up l, on
        # the Gauss points of the other two; kinks != 0 (a box): split at the chords' kinks (_box_kinks)
        a = int(0)
        for i in range(1, 3):
            if wp.abs(l[i]) > wp.abs(l[a]):
                a = i
        b = (a + 1) % 3
        c = (a + 2) % 3
        hb = f64(0.5) * (hi[b] - lo[b])
        hc = f64(0.5) * (hi[c] - lo[c])
        mb = f64(0.5) * (hi[b] + lo[b])
        mc = f64(0.5) * (hi[c] + lo[c])
        e = vec3d()
        e[a] = f64(1.0)
        K = Kinks()
        K.n = 0
        if kinks != 0:  # the strong kinks; with any, the weak ones too (sea.cc BoxColumns)
            K = _box_kinks(S, lo, hi, a, b, c, 0)
            if K.ok == 0:
                K.n = 0
            if K.n > 0:
                K = _box_kinks(S, lo, hi, a, b, c, 1)
                if K.ok == 0:
                    K.n = 0
        # the slabs' breaks in b (BoxColumns: the lines' crossings with the c edges and each other)
        br = vec64d()
        nbr = int(0)
        room = int(1)
        if K.n > 0:
            br[0] = lo[b]
            br[1] = hi[b]
            nbr = int(2)
            for i in range(K.n):
                for q in range(K.n + 2):
                    x = f64(0.0)
                    has = int(0)
                    if q < 2:
                        if K.Lb[i] != f64(0.0):
                            ce = lo[c]
                            if q == 1:
                                ce = hi[c]
                            x = -(K.L0[i] + K.Lc[i] * ce) / K.Lb[i]
                            has = int(1)
                    else:
                        j = q - 2
                        if j > i:
                            det = K.Lb[i] * K.Lc[j] - K.Lc[i] * K.Lb[j]
                            if det != f64(0.0):
                                x = (K.Lc[i] * K.L0[j] - K.L0[i] * K.Lc[j]) / det
                                has = int(1)
                    if has != 0 and x > lo[b] and x < hi[b]:
                        if nbr < MAX_BREAKS:
                            br[nbr] = x
                            nbr = nbr + 1
                        else:
                            room = int(0)
        if K.n == 0 or room == 0:  # one Gauss product rule over the rectangle
            nb = order(S.lmax, S.ws, f64(2.0) * hb)
            nc = order(S.lmax, S.ws, f64(2.0) * hc)
            ob = nb * (nb - 1) // 2
            oc = nc * (nc - 1) // 2
            for i in range(nb):
                for j in range(nc):
                    q0 = vec3d()
                    q0[b] = mb + hb * S.gx[ob + i]
                    q0[c] = mc + hc * S.gx[oc + j]
                    acc = col(S, acc, q0, e, lo[a], hi[a], hb * hc * S.gw[ob + i] * S.gw[oc + j], vec4d(), 0)
            return acc
        for p in range(nbr - 1):  # ascending (insertion sort)
            for j in range(nbr - 1 - p):
                if br[j] > br[j + 1]:
                    v = br[j]
                    br[j] = br[j + 1]
                    br[j + 1] = v
        tiny = f64(1e-13) * (hi[b] - lo[b])
        for k in range(nbr - 1):
            b0 = br[k]
            b1 = br[k + 1]
            if not (b1 - b0 > tiny):
                continue
            bm = f64(0.5) * (b0 + b1)
            bh = f64(0.5) * (b1 - b0)
            # the region boundaries in this slab, c = u0 + u1 b, sorted by their c at bm (ties: by index)
            u0 = vec18d()
            u1 = vec18d()
            um = vec18d()
            nu = int(1)
            u0[0] = lo[c]
            um[0] = lo[c]
            for i in range(K.n):
                if K.Lc[i] != f64(0.0):
                    v0 = -K.L0[i] / K.Lc[i]
                    v1 = -K.Lb[i] / K.Lc[i]
                    cm = v0 + v1 * bm
                    if cm > lo[c] and cm < hi[c]:
                        u0[nu] = v0
                        u1[nu] = v1
                        um[nu] = cm
                        nu = nu + 1
            u0[nu] = hi[c]
            um[nu] = hi[c]
            nu = nu + 1
            for p in range(nu - 1):  # stable: equal c keep their order
                for j in range(nu - 1 - p):
                    if um[j] > um[j + 1]:
                        v = um[j]
                        um[j] = um[j + 1]
                        um[j + 1] = v
                        v = u0[j]
                        u0[j] = u0[j + 1]
                        u0[j + 1] = v
                        v = u1[j]
                        u1[j] = u1[j + 1]
                        u1[j + 1] = v
            nb = order(S.lmax, S.ws, b1 - b0)
            ob = nb * (nb - 1) // 2
            for r in range(nu - 1):
                w0 = (u0[r + 1] + u1[r + 1] * b0) - (u0[r] + u1[r] * b0)
                w1 = (u0[r + 1] + u1[r + 1] * b1) - (u0[r] + u1[r] * b1)
                nc = order(S.lmax, S.ws, wp.max(w0, w1))
                oc = nc * (nc - 1) // 2
                for i in range(nb):
                    bb = bm + bh * S.gx[ob + i]
                    cl = u0[r] + u1[r] * bb
                    cu = u0[r + 1] + u1[r + 1] * bb
                    if not (cu > cl):
                        continue
                    chh = f64(0.5) * (cu - cl)
                    cmm = f64(0.5) * (cu + cl)
                    for j in range(nc):
                        q0 = vec3d()
                        q0[b] = bb
                        q0[c] = cmm + chh * S.gx[oc + j]
                        acc = col(S, acc, q0, e, lo[a], hi[a], bh * S.gw[ob + i] * chh * S.gw[oc + j], vec4d(), 0)
        return acc

    return _box_columns
