"""The MuJoCo Warp function of the box tier (with mjwarp_kernels): runtime/native/core/clip_box.cc
BoxClip1 (``_corner``, ``_face`` its kFaces, ``_crossing``, ``_box_clip1`` with the prism case), without
the waterplane's second moments: (V, the first moment about the box centre, the cap area), box frame,
float64. Built by ``build(wp, vec5d)`` (no warp import here).
"""


def build(wp, vec5d):
    """BoxClip1 as a Warp function."""
    f64, vec3d = wp.float64, wp.vec3d
    vec8d = wp.types.vector(length=8, dtype=wp.float64)
    mat83d = wp.types.matrix(shape=(8, 3), dtype=wp.float64)

    @wp.func
    def _corner(i: int, L: vec3d) -> vec3d:
        u = vec3d(f64(0.0), f64(0.0), f64(0.0))
        if (i & 1) != 0:
            u[0] = L[0]
        if (i & 2) != 0:
            u[1] = L[1]
        if (i & 4) != 0:
            u[2] = L[2]
        return u

    @wp.func
    def _face(f: int, j: int) -> int:
        # clip_box.cc kFaces: corner loops counter-clockwise from outside, c0 the deepest
        row = wp.vec4i(0, 0, 0, 0)
        if f == 0:
            row = wp.vec4i(1, 3, 7, 5)
        elif f == 1:
            row = wp.vec4i(2, 6, 7, 3)
        elif f == 2:
            row = wp.vec4i(4, 5, 7, 6)
        elif f == 3:
            row = wp.vec4i(0, 4, 6, 2)
        elif f == 4:
            row = wp.vec4i(0, 1, 5, 4)
        else:
            row = wp.vec4i(0, 2, 3, 1)
        return row[j]

    @wp.func
    def _crossing(lo: int, hi: int, xc: mat83d, L: vec3d) -> vec3d:
        x = hi ^ lo
        k = 2
        if x == 1:
            k = 0
        elif x == 2:
            k = 1
        u = _corner(lo, L)
        u[k] = xc[lo, k]
        return u

    @wp.func
    def _box_clip1(a: f64, b: f64, c: f64, n: vec3d, t: f64) -> vec5d:
        # clip_box.cc BoxClip1 (want_wp false): V, its first moments about the centre, the cap area
        out = vec5d()
        h = vec3d(a, b, c)
        L = vec3d(f64(2.0) * a, f64(2.0) * b, f64(2.0) * c)
        sg = vec3d(f64(1.0), f64(1.0), f64(1.0))
        for k in range(3):
            if n[k] < f64(0.0):
                sg[k] = f64(-1.0)
        m = vec3d(wp.abs(n[0]), wp.abs(n[1]), wp.abs(n[2]))
        am = a * m[0]
        bm = b * m[1]
        cm = c * m[2]
        d = vec8d()
        for i in range(8):
            sx = -am
            if (i & 1) != 0:
                sx = am
            sy = -bm
            if (i & 2) != 0:
                sy = bm
            sz = -cm
            if (i & 4) != 0:
                sz = cm
            d[i] = t - ((sx + sy) + sz)
        tau = d[0]
        if d[0] < f64(0.0) or d[7] >= f64(0.0):
            if d[0] >= f64(0.0):
                out[0] = f64(8.0) * a * b * c
            return out
        for k in range(3):  # the prism across axis k
            bk = 1 << k
            if d[7 ^ bk] >= f64(0.0) and d[bk] < f64(0.0):
                p = (k + 1) % 3
                r = (k + 2) % 3
                z0 = L[k] * (d[0] / (d[0] - d[bk]))
                z1 = L[k] * (d[1 << p] / (d[1 << p] - d[(1 << p) | bk]))
                z2 = L[k] * (d[1 << r] / (d[1 << r] - d[(1 << r) | bk]))
                lo3 = (1 << p) | (1 << r)
                z3 = L[k] * (d[lo3] / (d[lo3] - d[lo3 | bk]))
                S = L[p] * L[r]
                zm = f64(0.25) * ((z0 + z1) + (z2 + z3))
                dp = f64(0.5) * ((z1 + z3) - (z0 + z2))
                dr = f64(0.5) * ((z2 + z3) - (z0 + z1))
                q2 = dp * dp + dr * dr
                out[0] = S * zm
                out[1 + p] = sg[p] * (S * (L[p] * dp / f64(12.0)))
                out[1 + r] = sg[r] * (S * (L[r] * dr / f64(12.0)))
                out[1 + k] = sg[k] * (S * (f64(0.5) * zm * (zm - L[k]) + q2 / f64(24.0)))
                out[4] = S / m[k]
                return out
        xc = mat83d()
        for lo in range(8):
            for k in range(3):
                hi = lo | (1 << k)
                if hi != lo and d[lo] >= f64(0.0) and d[hi] < f64(0.0):
                    xc[lo, k] = L[k] * (d[lo] / (d[lo] - d[hi]))
        K = 2
        if m[0] >= m[1]:
            if m[0] >= m[2]:
                K = 0
        elif m[1] >= m[2]:
            K = 1
        K1 = (K + 1) % 3
        K2 = (K + 2) % 3
        inv_mK = f64(1.0) / m[K]
        vsum = f64(0.0)
        msum = vec3d()
        has_q = bool(False)
        q = vec3d()
        A2 = f64(0.0)
        C1 = vec3d()
        for f in range(6):
            c0 = _face(f, 0)
            c1 = _face(f, 1)
            c2 = _face(f, 2)
            c3 = _face(f, 3)
            far = f < 3
            skip = d[c2] >= f64(0.0)
            if far:
                skip = d[c0] < f64(0.0)
            if skip:
                continue
            wet1 = d[c1] >= f64(0.0)
            wet3 = d[c3] >= f64(0.0)
            ex = _crossing(c0, c1, xc, L)
            if wet1:
                ex = _crossing(c1, c2, xc, L)
            ent = _crossing(c0, c3, xc, L)
            if wet3:
                ent = _crossing(c3, c2, xc, L)
            if far:
                k = f
                pa = (k + 1) % 3
                ra = (k + 2) % 3
                v1 = vec3d()
                v4 = vec3d()
                if wet1:
                    v1 = _corner(c1, L)
                else:
                    v1[pa] = ex[pa]
                    v1[ra] = ex[ra]
                if wet3:
                    v4 = _corner(c3, L)
                else:
                    v4[pa] = ent[pa]
                    v4[ra] = ent[ra]
                cr1 = v1[pa] * ex[ra] - ex[pa] * v1[ra]
                cr2 = ex[pa] * ent[ra] - ent[pa] * ex[ra]
                cr3 = ent[pa] * v4[ra] - v4[pa] * ent[ra]
                area = f64(0.5) * (cr1 + cr2 + cr3)
                sp = cr1 * (v1[pa] + ex[pa]) + cr2 * (ex[pa] + ent[pa]) + cr3 * (ent[pa] + v4[pa])
                sr = cr1 * (v1[ra] + ex[ra]) + cr2 * (ex[ra] + ent[ra]) + cr3 * (ent[ra] + v4[ra])
                vsum += L[k] * area
                msum[k] = msum[k] + L[k] * (L[k] * area)
                msum[pa] = msum[pa] + L[k] * (sp / f64(6.0))
                msum[ra] = msum[ra] + L[k] * (sr / f64(6.0))
            if not has_q:
                has_q = True
                q = ent
            w1 = ent - q
            w2 = ex - q
            a2 = (w1[K1] * w2[K2] - w1[K2] * w2[K1]) * inv_mK
            A2 += a2
            C1 = C1 + a2 * (w1 + w2)
        A = f64(0.5) * A2
        V = (vsum + tau * A) / f64(3.0)
        out[0] = V
        out[4] = A
        for k in range(3):
            cu = q[k] * A + C1[k] / f64(6.0)
            mu = (msum[k] + tau * cu) / f64(4.0)
            out[1 + k] = sg[k] * (mu - h[k] * V)
        return out

    return _box_clip1
