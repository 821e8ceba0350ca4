"""The sea's Froude-Krylov force by volume moments on MuJoCo Warp (device side, with mjwarp_sea).

Mirrors runtime/native/core/sea_moments.cc ``FroudeKrylovMoments`` function for function: ``_take``
TakeLanes (the simplex moments of the piece below and above the mean level, per direction group, one
triangle at a time in order), ``_series`` Series and ``_series_up`` SeriesUp, ``_moment_order`` MomentOrder (the certified
truncation bound), ``_term`` the field terms' sums, and ``_moments`` FroudeKrylovMoments itself: a box or a
mesh hull (its polyhedron from mjwarp_sea_hull.hull_polys, HullPolys of the plugin's own hull) clipped by
its cell's planes, the tangent plane among them, split at the mean level (runtime/mjwarp/sea_poly.py),
its moments about the piece's centroid to the order each component's bound needs; the components whose
bound fails at kMaxMomentOrder are returned in a bit mask for the columns (mjwarp_sea's ``fk`` with
``only``), the cap's hydrostatic term then left to them, as the plugin does. Where the plugin's returns
false (another shape, a box in a sea of fewer than kMomentsMinWaves components, a piece under a finite
sea's seabed, the scratch short) ``ok`` is 0 and the columns are the caller's.

float64 throughout; world frame relative to the geom's origin inside, F (N) and T (N m, about the geom's
origin) out. Built by ``build(wp, plane, vec16i)`` from mjwarp_sea (no warp import here); the host's side
(the hulls' polyhedra, the direction groups, the scratch's sizes) is runtime/mjwarp/sea_hull.py.
"""

from . import sea_poly as mjwarp_sea_poly

MAX_ORDER = 30  # sea.h kMaxMomentOrder
MIN_WAVES = 2  # sea.h kMomentsMinWaves: a box in a sea of fewer components takes the columns
MAX_WAVES = 256  # sea_moments.cc kMaxWaves
MAX_F, MAX_V = 40, 24  # sea_moments.cc kMaxF, kMaxV
LEVEL = -2  # sea_moments.cc kLevel: the label of a face on the mean level
NMOM = mjwarp_sea_poly.NMOM  # one piece's moments: s[n][q][re, im], n < MAX_ORDER, q < 8


def _inv_factorials(n):
    out, x = [1.0], 1.0  # sea_moments.cc Fact: inv[n] = inv[n - 1] / n
    for i in range(1, n):
        x = x / i
        out.append(x)
    return out


def build(wp, plane, vec16i) -> dict:
    """The Warp functions of the moments, by name: ``moments`` (FroudeKrylovMoments), the struct ``Scr``
    of its scratch (mjwarp_sea_poly's) and ``Res`` of its answer. ``plane``: mjwarp_sea's
    ForceStage::GeomPlanes row; ``vec16i``: its components' bit mask (FroudeKrylov's only)."""
    f64, vec3d, vec4d, mat33d = wp.float64, wp.vec3d, wp.vec4d, wp.mat33d
    spatial = wp.spatial_vectord
    vec12d = wp.types.vector(length=12, dtype=wp.float64)
    vec16d = wp.types.vector(length=16, dtype=wp.float64)
    vec35d = wp.types.vector(length=MAX_ORDER + 5, dtype=wp.float64)
    INV = wp.constant(vec35d(*_inv_factorials(MAX_ORDER + 5)))
    KMAX = wp.constant(MAX_ORDER)
    NM = wp.constant(NMOM)
    BOXT, MESHT = wp.constant(6), wp.constant(7)  # mjGEOM_BOX, mjGEOM_MESH
    P = mjwarp_sea_poly.build(wp)  # the piece as a polyhedron: runtime/mjwarp/sea_poly.py
    Scr, _nf, _nv, _label, _vert = P["Scr"], P["nf"], P["nv"], P["label"], P["vert"]
    _box_poly, _hull_poly, _clip, _volume, _tri, _v6a2 = (P[k] for k in ("box_poly", "hull_poly", "clip", "volume",
                                                                          "tri", "v6a2"))

    @wp.struct
    class Res:  # FroudeKrylovMoments' answer: served (ok), (F, T), the components left to the columns
        w: spatial
        ok: int
        nfb: int
        only: vec16i


    @wp.func
    def _add(S: Scr, at: int, v: f64):
        S.s[S.slot, at] = S.s[S.slot, at] + v

    @wp.func
    def _take_below(S: Scr, q: mat33d, wr: vec3d, wi: vec3d, v6: f64, a2: f64,
                    isc: int, N: int, mo: int):
        # one triangle's terms below the mean level: h_n(w0, w1, w2) by h1 = w0^n, h2 = h1 + w1 h2',
        # h3 = h2 + w2 h3'; g_j = h3 + w_j g_j'
        p0r = f64(1.0)
        p0i = f64(0.0)
        h2r = f64(1.0)
        h2i = f64(0.0)
        h3r = f64(1.0)
        h3i = f64(0.0)
        gr = vec3d()
        gi = vec3d()
        for n in range(N):
            if n > 0:
                t = p0r * wr[0] - p0i * wi[0]
                p0i = p0r * wi[0] + p0i * wr[0]
                p0r = t
                t = p0r + (h2r * wr[1] - h2i * wi[1])
                h2i = p0i + (h2r * wi[1] + h2i * wr[1])
                h2r = t
                t = h2r + (h3r * wr[2] - h3i * wi[2])
                h3i = h2i + (h3r * wi[2] + h3i * wr[2])
                h3r = t
            sr = vec3d()
            si = vec3d()
            for j in range(3):
                t = h3r + (gr[j] * wr[j] - gi[j] * wi[j])
                gi[j] = h3i + (gr[j] * wi[j] + gi[j] * wr[j])
                gr[j] = t
                qj = vec3d(q[j, 0], q[j, 1], q[j, 2])
                sr = sr + qj * gr[j]
                si = si + qj * gi[j]
            b = mo + 16 * n
            fa = v6 * INV[n + 3]
            fb = v6 * INV[n + 4]
            _add(S, b, fa * h3r)
            _add(S, b + 1, fa * h3i)
            for a in range(3):
                _add(S, b + 2 + 2 * a, fb * sr[a])
                _add(S, b + 3 + 2 * a, fb * si[a])
            if isc != 0:
                fa = a2 * INV[n + 2]
                fb = a2 * INV[n + 3]
                _add(S, b + 8, fa * h3r)
                _add(S, b + 9, fa * h3i)
                for a in range(3):
                    _add(S, b + 10 + 2 * a, fb * sr[a])
                    _add(S, b + 11 + 2 * a, fb * si[a])

    @wp.func
    def _take_above(S: Scr, q: mat33d, wi: vec3d, v6: f64, a2: f64, isc: int,
                    N: int, mo: int):
        # one triangle's terms above it: the real recursions of b = u.y (wi), order n's in slot i^n
        p0 = f64(1.0)
        h2 = f64(1.0)
        h3 = f64(1.0)
        g = vec3d()
        for n in range(N):
            if n > 0:
                p0 = p0 * wi[0]
                h2 = p0 + h2 * wi[1]
                h3 = h2 + h3 * wi[2]
            sr = vec3d()
            for j in range(3):
                g[j] = h3 + g[j] * wi[j]
                sr = sr + vec3d(q[j, 0], q[j, 1], q[j, 2]) * g[j]
            im = n & 1
            sg = f64(1.0)
            if (n & 2) != 0:
                sg = f64(-1.0)
            b = mo + 16 * n + im
            fa = sg * (v6 * INV[n + 3])
            fb = sg * (v6 * INV[n + 4])
            _add(S, b, fa * h3)
            for a in range(3):
                _add(S, b + 2 + 2 * a, fb * sr[a])
            if isc != 0:
                fa = sg * (a2 * INV[n + 2])
                fb = sg * (a2 * INV[n + 3])
                _add(S, b + 8, fa * h3)
                for a in range(3):
                    _add(S, b + 10 + 2 * a, fb * sr[a])

    @wp.func
    def _take(S: Scr, p: int, c: vec3d, up: vec3d, u: vec3d, N: int, cap: int, mo: int, above: int):
        # TakeLanes (one triangle at a time, in order): the piece's moments in the direction u about c,
        # s[n][0] = int w^n / n! dV, s[n][1 + a] = int y_a w^n / n! dV, the cap's by area in 4 .. 7; below
        # the mean level (above 0) w = up.y + i u.y, above it w = i u.y: the real recursions of b = u.y,
        # each order's value rotated by i^n (real or imaginary, one slot written)
        for i in range(16 * N):
            S.s[S.slot, mo + i] = f64(0.0)
        for f in range(_nf(S, p)):
            isc = int(0)
            if _label(S, p, f) == cap:
                isc = 1
            for i in range(1, _nv(S, p, f) - 1):
                q = _tri(S, p, f, i, c)
                va = _v6a2(q, isc)
                v6 = va[0]
                a2 = va[1]
                wr = vec3d()
                wi = vec3d()
                for j in range(3):
                    qj = vec3d(q[j, 0], q[j, 1], q[j, 2])
                    wr[j] = wp.dot(up, qj)
                    wi[j] = wp.dot(u, qj)
                if above == 0:
                    _take_below(S, q, wr, wi, v6, a2, isc, N, mo)
                else:
                    _take_above(S, q, wi, v6, a2, isc, N, mo)

    @wp.func
    def _series(S: Scr, mo: int, N: int, x: f64, minus: int) -> vec16d:
        # Series: sum_{n<N} x^n s[n] (minus: at -x), (re, im) of the eight moments
        e = vec16d()
        o = vec16d()
        xn = f64(1.0)
        n = int(0)
        while n + 1 < N:
            xo = xn * x
            for i in range(16):
                e[i] = e[i] + xn * S.s[S.slot, mo + 16 * n + i]
                o[i] = o[i] + xo * S.s[S.slot, mo + 16 * (n + 1) + i]
            xn = xo * x
            n += 2
        if n < N:
            for i in range(16):
                e[i] = e[i] + xn * S.s[S.slot, mo + 16 * n + i]
        if minus != 0:
            return e - o
        return e + o

    @wp.func
    def _series_up(S: Scr, mo: int, N: int, x: f64) -> vec16d:
        # SeriesUp: the same sums over _take's slots above the level (even orders real, odd imaginary)
        e = vec16d()
        xn = f64(1.0)
        n = int(0)
        while n + 1 < N:
            xo = xn * x
            for q in range(8):
                e[2 * q] = e[2 * q] + xn * S.s[S.slot, mo + 16 * n + 2 * q]
                e[2 * q + 1] = e[2 * q + 1] + xo * S.s[S.slot, mo + 16 * (n + 1) + 2 * q + 1]
            xn = xo * x
            n += 2
        if n < N:
            for q in range(8):
                e[2 * q] = e[2 * q] + xn * S.s[S.slot, mo + 16 * n + 2 * q]
        return e

    @wp.func
    def _moment_order(rho: f64, amp: f64, tol: f64) -> int:
        # MomentOrder: the smallest N with sqrt(2) amp rho^N / N! (N + 1) / (N + 1 - rho) <= tol
        t = f64(1.4142135623730951) * amp
        for N in range(1, KMAX + 1):
            t = t * rho
            fn = f64(N) + f64(1.0)
            if rho < fn and t * INV[N] * fn <= tol * (fn - rho):
                return N
        return KMAX + 1

    @wp.func
    def _depth(kn: f64, zc: f64, depth: f64, deep: int) -> vec3d:
        """(c, e^{k zc}, e^{-2 k h}) of a component of wavenumber kn at the piece's level zc (m): the
        finite-depth factor c = 1 / (1 + e^{-2 k h}) and e^{-2 k h} (1 and 0 in deep water, ``deep``)."""
        e2h = f64(0.0)
        cc = f64(1.0)
        if deep == 0:
            e2h = wp.exp(f64(-2.0) * kn * depth)
            cc = f64(1.0) / (f64(1.0) + e2h)
        return vec3d(cc, wp.exp(kn * zc), e2h)

    @wp.func
    def _decay(dp: vec3d, deep: int) -> f64:
        """The pressure's depth decay at zc from :func:`_depth`'s terms: c (e^{k zc} + e^{-2 k h} / e^{k zc})
        (e^{k zc} in deep water), the amplitude the bound of MomentOrder takes."""
        db = dp[1]
        if deep == 0:
            db = dp[1] + dp[2] / dp[1]
        return dp[0] * db

    @wp.func
    def _term(acc: vec12d, Sv: vec16d, Cr: f64, Ci: f64, s: f64, conj: int) -> vec12d:
        # FroudeKrylovMoments' term: (Xs, Xi, Xa, Js, Ji, Ja) plus one field term's share
        out = acc
        sg = f64(1.0)
        if conj != 0:
            sg = f64(-1.0)
        Ir = Sv[0]
        Ii = sg * Sv[1]
        if s != f64(0.0):
            out[0] = out[0] + s * (Cr * Ir - Ci * Ii)
        out[1] = out[1] + (Cr * Ii + Ci * Ir)
        out[2] = out[2] + (Cr * Sv[8] - Ci * (sg * Sv[9]))
        for a in range(3):
            vr = Sv[2 + 2 * a]
            vi = sg * Sv[3 + 2 * a]
            if s != f64(0.0):
                out[3 + a] = out[3 + a] + s * (Cr * vr - Ci * vi)
            out[6 + a] = out[6 + a] + (Cr * vi + Ci * vr)
            out[9 + a] = out[9 + a] + (Cr * Sv[10 + 2 * a] - Ci * (sg * Sv[11 + 2 * a]))
        return out

    @wp.func
    def _moments(S: Scr, typ: int, size: vec3d, hr: wp.vec2i, hpf: wp.array(dtype=int),
                 hpv: wp.array(dtype=vec3d), pos: vec3d, R: mat33d, planes: wp.array2d(dtype=vec4d), cell: int,
                 npl: int, cap: int, tp: vec4d, x0: vec3d, comps: wp.array3d(dtype=f64), ws: int, n: vec3d,
                 dsea: f64, depth: f64, deep: int, t: f64, r: f64, rg: f64, tol: f64,
                 dby: wp.array2d(dtype=int), dstart: wp.array2d(dtype=int), ndir: wp.array(dtype=int),
                 dirs: wp.array2d(dtype=vec3d)) -> Res:
        # FroudeKrylovMoments: ok 0 where the plugin's is false (the columns are the caller's); else (F, T
        # about pos), world, and the components the bound sends to the columns (nfb of them, in only)
        out = Res()
        out.ok = 0
        out.nfb = 0
        nw = comps.shape[1]
        if (typ != BOXT and typ != MESHT) or (typ == BOXT and nw < MIN_WAVES) or nw > MAX_WAVES:
            return out
        cur = int(0)
        nxt = int(1)
        if typ == BOXT:
            _box_poly(S, cur, -size, size, R)
        elif _hull_poly(S, cur, hr, hpf, hpv, R) == 0:
            return out
        for j in range(npl):
            pl = plane(planes, cell, j, cap, 1, tp)
            pn = vec3d(pl[0], pl[1], pl[2])
            qi = _clip(S, cur, pn, pl[3] - wp.dot(pn, pos), j, nxt)
            if qi < 0:
                return out
            if qi == nxt:
                nxt = cur
                cur = qi
        F = vec3d()
        T = vec3d()
        out.ok = 1
        if not (_volume(S, cur) > f64(0.0)):
            out.w = spatial()
            return out
        c = x0 - pos  # the expansion's point relative to pos
        dl = dsea - wp.dot(n, pos)  # the mean level, relative to pos
        R2 = f64(0.0)
        zmin = f64(0.0)
        for f in range(_nf(S, cur)):
            for i in range(_nv(S, cur, f)):
                x = _vert(S, cur, f, i)
                rr = x - c
                R2 = wp.max(R2, wp.dot(rr, rr))
                zmin = wp.min(zmin, wp.dot(n, x) - dl)
        if deep == 0 and zmin < -depth:
            out.ok = 0
            return out
        Rm = wp.sqrt(R2)
        # the cap's hydrostatic term (exact: zeta is linear): area, int y dA, int y (n.y) dA about c
        Ac = f64(0.0)
        S1 = vec3d()
        Q = vec3d()
        for f in range(_nf(S, cur)):
            if _label(S, cur, f) != cap:
                continue
            for i in range(1, _nv(S, cur, f) - 1):
                q = _tri(S, cur, f, i, c)
                q0 = vec3d(q[0, 0], q[0, 1], q[0, 2])
                q1 = vec3d(q[1, 0], q[1, 1], q[1, 2])
                q2 = vec3d(q[2, 0], q[2, 1], q[2, 2])
                xx = wp.cross(q1 - q0, q2 - q0)
                At = f64(0.5) * wp.sqrt(wp.dot(xx, xx))
                Ac += At
                for j in range(3):  # the edges' midpoints: exact for quadratics
                    uu = vec3d(q[j, 0], q[j, 1], q[j, 2])
                    jj = (j + 1) % 3
                    ww = vec3d(q[jj, 0], q[jj, 1], q[jj, 2])
                    mid = f64(0.5) * (uu + ww)
                    zn = wp.dot(n, mid)
                    S1 = S1 + At / f64(3.0) * mid
                    Q = Q + (At / f64(3.0) * mid) * zn
        # the piece below the mean level (B) and above it (U)
        pb = _clip(S, cur, n, dl, LEVEL, nxt)
        pu = _clip(S, cur, -n, -dl, LEVEL, 2)
        if pb < 0 or pu < 0:
            out.ok = 0
            return out
        hasb = _nf(S, pb) > 0
        hasu = _nf(S, pu) > 0
        zc = wp.dot(n, x0) - dsea
        only = vec16i()
        nfb = int(0)
        Fs = vec3d()
        Ts = vec3d()
        nc = vec3d(tp[0], tp[1], tp[2])  # the cap's normal (the tangent plane: the cell's surface row)
        for g in range(ndir[ws]):
            Ng = int(0)
            for qq in range(dstart[ws, g], dstart[ws, g + 1]):
                j = dby[ws, qq]
                k = vec3d(comps[ws, j, 2], comps[ws, j, 3], comps[ws, j, 4])
                kn = wp.length(k)
                dp = _depth(kn, zc, depth, deep)
                cc = dp[0]
                eb = dp[1]
                e2h = dp[2]
                N = _moment_order(kn * Rm, wp.max(_decay(dp, deep), f64(1.0)), tol)
                if N > KMAX:
                    only[j >> 4] = only[j >> 4] | (1 << (j & 15))
                    nfb += 1
                else:
                    Ng = wp.max(Ng, N)
            if Ng == 0:
                continue
            u = dirs[ws, g]
            if hasb:
                _take(S, pb, c, n, u, Ng, cap, 0, 0)
            if hasu:
                _take(S, pu, c, n, u, Ng, cap, NM, 1)
            for qq in range(dstart[ws, g], dstart[ws, g + 1]):
                j = dby[ws, qq]
                if ((only[j >> 4] >> (j & 15)) & 1) != 0:
                    continue
                a = comps[ws, j, 0]
                k = vec3d(comps[ws, j, 2], comps[ws, j, 3], comps[ws, j, 4])
                kn = wp.length(k)
                dp = _depth(kn, zc, depth, deep)
                cc = dp[0]
                eb = dp[1]
                e2h = dp[2]
                N = _moment_order(kn * Rm, wp.max(_decay(dp, deep), f64(1.0)), tol)
                th = wp.dot(k, x0) - comps[ws, j, 1] * t + comps[ws, j, 5]
                zr = wp.cos(th)
                zi = wp.sin(th)
                acc = vec12d()
                if hasb:
                    A1 = cc * eb
                    acc = _term(acc, _series(S, 0, N, kn, 0), A1 * zr, A1 * zi, f64(1.0), 0)
                    if deep == 0 and e2h > f64(0.0):
                        A2 = cc * e2h / eb
                        acc = _term(acc, _series(S, 0, N, kn, 1), A2 * zr, A2 * zi, f64(-1.0), 1)
                if hasu:
                    acc = _term(acc, _series_up(S, NM, N, kn), zr, zi, f64(0.0), 0)
                Xs = acc[0]
                Xi = acc[1]
                Xa = acc[2]
                Js = vec3d(acc[3], acc[4], acc[5])
                Ji = vec3d(acc[6], acc[7], acc[8])
                Ja = vec3d(acc[9], acc[10], acc[11])
                # F = -a Re[kappa X] + n_c a Xa; T (about x0) = -a Re[Jv x kappa] + a Ja x n_c
                Fv = (kn * Xs) * n - Xi * k
                Tv = kn * wp.cross(Js, n) - wp.cross(Ji, k)
                Fs = Fs + a * (-Fv + Xa * nc)
                Ts = Ts + a * (-Tv + wp.cross(Ja, nc))
        Ts = Ts + wp.cross(c, Fs)  # about pos: the lever x0 - pos
        sc = rg * r
        F = sc * Fs
        T = sc * Ts
        out.nfb = nfb
        out.only = only
        if nfb == 0:  # the cap's hydrostatic term -rho g zeta n_c (else the columns')
            Iz = zc * Ac + wp.dot(n, S1)
            Yz = c * Iz + zc * S1 + Q
            F = F - (rg * Iz) * nc
            T = T - rg * wp.cross(Yz, nc)
        out.w = spatial(F[0], F[1], F[2], T[0], T[1], T[2])
        return out

    return {"moments": _moments, "Scr": Scr, "Res": Res, "vec16i": vec16i}
