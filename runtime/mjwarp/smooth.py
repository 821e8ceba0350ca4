"""The MuJoCo Warp functions of the smooth shapes' one-plane tiers (with mjwarp_kernels).

Mirrors runtime/native/core/clip_smooth.cc function for function: ``seg_area`` SegArea, ``seg_moment``
SegMoment, ``mean_chord`` MeanChord, ``ellipsoid1`` Ellipsoid1 (Ball1 on the unit ball), ``cylinder1``
Cylinder1 (its 16-point rule), ``ball2`` Ball2 (24 points after the sin substitution, gauss.h kS24 /
kC24), ``capsule1`` Capsule1. Each returns (V, the first moment about the geom origin, the section
area), geom frame, float64. Built by ``build(wp, vec5d)`` (no warp import here).
"""

import numpy as np


def build(wp, vec5d) -> dict:
    """The Warp functions, by name."""
    f64 = wp.float64
    vec3d = wp.vec3d
    vec16d = wp.types.vector(length=16, dtype=wp.float64)
    vec24d = wp.types.vector(length=24, dtype=wp.float64)
    x16, w16 = np.polynomial.legendre.leggauss(16)
    x24, w24 = np.polynomial.legendre.leggauss(24)
    # gauss.h: kX16, kW16 (numpy's leggauss(16)); kS24 = sin(pi x / 2), kC24 = (pi / 2) cos(pi x / 2) w
    X16 = wp.constant(vec16d(*[float(x) for x in x16]))
    W16 = wp.constant(vec16d(*[float(x) for x in w16]))
    S24 = wp.constant(vec24d(*[float(np.sin(np.pi * x / 2)) for x in x24]))
    C24 = wp.constant(vec24d(*[float(np.pi / 2 * np.cos(np.pi * x / 2) * w) for x, w in zip(x24, w24)]))

    @wp.func
    def _clamp1(x: f64) -> f64:
        return wp.clamp(x, f64(-1.0), f64(1.0))

    @wp.func
    def _seg_area(x: f64) -> f64:  # clip_smooth.cc SegArea: the unit disk where u <= x
        if x <= f64(-1.0):
            return f64(0.0)
        if x >= f64(1.0):
            return f64(3.141592653589793)
        v = wp.acos(-x) + x * wp.sqrt(f64(1.0) - x * x)
        return wp.max(v, f64(0.0))

    @wp.func
    def _mean_chord(u0: f64, u1: f64) -> f64:  # clip_smooth.cc MeanChord
        d = u1 - u0
        if wp.abs(d) > f64(0.25):
            f1 = u1 * wp.sqrt(f64(1.0) - u1 * u1) + wp.asin(u1)
            f0 = u0 * wp.sqrt(f64(1.0) - u0 * u0) + wp.asin(u0)
            return (f1 - f0) / d
        c0 = wp.sqrt(f64(1.0) - u0 * u0)
        c1 = wp.sqrt(f64(1.0) - u1 * u1)
        cs = c0 + c1
        if cs <= f64(0.0):
            return f64(0.0)
        g = u0 * (u0 + u1) / cs
        k = c0 + g
        cc = c0 * c1 + u0 * u1
        at = f64(0.0)
        if d == f64(0.0):
            at = k / cc
        else:
            at = wp.atan2(d * k, cc) / d
        return c1 - g + at

    @wp.func
    def _ellipsoid1(size: vec3d, n: vec3d, t: f64) -> vec5d:
        # clip_smooth.cc Ellipsoid1 (V, its first moment, the section area): Ball1 on the unit ball
        out = vec5d()
        px = size[0] * n[0]
        py = size[1] * n[1]
        pz = size[2] * n[2]
        L = wp.sqrt(px * px + py * py + pz * pz)
        tau = t / L
        v = f64(0.0)
        k = f64(-1.0)
        area = f64(0.0)
        if tau >= f64(1.0):
            v = f64(4.0) * f64(3.141592653589793) / f64(3.0)
            k = f64(0.0)
        elif tau > f64(-1.0):
            p = f64(1.0) + tau
            q = f64(1.0) - tau
            v = f64(3.141592653589793) * p * p * (f64(2.0) - tau) / f64(3.0)
            k = f64(-0.75) * q * q / (f64(2.0) - tau)
            area = f64(3.141592653589793) * p * q
        det = size[0] * size[1] * size[2]
        V = det * v
        out[0] = V
        out[1] = V * k * size[0] * (px / L)
        out[2] = V * k * size[1] * (py / L)
        out[3] = V * k * size[2] * (pz / L)
        out[4] = det * area / L
        return out

    @wp.func
    def _cylinder1(r: f64, h: f64, n: vec3d, t: f64) -> vec5d:
        # clip_smooth.cc Cylinder1: 16-point Gauss in theta (s = -r cos theta) between the breakpoints
        out = vec5d()
        nz = n[2]
        rho = wp.sqrt(n[0] * n[0] + n[1] * n[1])
        ex = f64(1.0)
        ey = f64(0.0)
        if rho > f64(0.0):
            ex = n[0] / rho
            ey = n[1] / rho
        b1 = f64(0.0)
        b2 = f64(0.0)
        s1 = f64(0.0)
        s2 = f64(0.0)
        if rho > f64(0.0):
            s1 = (t - nz * h) / rho
            s2 = (t + nz * h) / rho
            b1 = wp.acos(-_clamp1(s1 / r))
            b2 = wp.acos(-_clamp1(s2 / r))
            if b1 > b2:
                tmp = b1
                b1 = b2
                b2 = tmp
        V = f64(0.0)
        Ms = f64(0.0)
        Mz = f64(0.0)
        for piece in range(3):
            lo = b2
            hi = f64(3.141592653589793)
            if piece == 0:
                lo = f64(0.0)
                hi = b1
            elif piece == 1:
                lo = b1
                hi = b2
            if hi <= lo:
                continue
            mid = f64(0.5) * (lo + hi)
            hl = f64(0.5) * (hi - lo)
            for kk in range(16):
                th = mid + hl * X16[kk]
                sn = wp.sin(th)
                sv = -r * wp.cos(th)
                zlo = -h
                zhi = h
                use = bool(True)
                if nz > f64(0.0):
                    zhi = wp.clamp((t - rho * sv) / nz, -h, h)
                elif nz < f64(0.0):
                    zlo = wp.clamp((t - rho * sv) / nz, -h, h)
                elif rho * sv > t:
                    use = False
                ln = zhi - zlo
                if use and ln > f64(0.0):
                    fw = hl * W16[kk] * f64(2.0) * r * r * sn * sn * ln
                    V += fw
                    Ms += fw * sv
                    Mz += fw * f64(0.5) * (zhi + zlo)
        out[0] = V
        out[1] = Ms * ex
        out[2] = Ms * ey
        out[3] = Mz
        anz = wp.abs(nz)
        A = f64(0.0)
        if rho == f64(0.0):
            if wp.abs(t) < h:
                A = f64(3.141592653589793) * r * r
        elif anz >= rho:
            A = r * r * (_seg_area(wp.max(s1, s2) / r) - _seg_area(wp.min(s1, s2) / r)) / anz
        elif nz == f64(0.0):
            u = t / rho / r
            if wp.abs(u) < f64(1.0):
                A = f64(2.0) * h * r * f64(2.0) * wp.sqrt((f64(1.0) - u) * (f64(1.0) + u)) / rho
        else:
            za = (t - rho * r) / nz
            zb = (t + rho * r) / nz
            z0 = wp.max(wp.min(za, zb), -h)
            z1 = wp.min(wp.max(za, zb), h)
            if z1 > z0:
                u0 = _clamp1((t - nz * z0) / rho / r)
                u1 = _clamp1((t - nz * z1) / rho / r)
                A = (z1 - z0) * r * _mean_chord(u0, u1) / rho
        out[4] = A
        return out


    @wp.func
    def _seg_moment(x: f64) -> f64:  # clip_smooth.cc SegMoment
        if x <= f64(-1.0) or x >= f64(1.0):
            return f64(0.0)
        q = f64(1.0) - x * x
        return f64(-2.0) / f64(3.0) * q * wp.sqrt(q)

    @wp.func
    def _ball2(m1: vec3d, t1: f64, m2: vec3d, t2: f64) -> vec5d:
        # clip_smooth.cc Ball2: the unit ball below m1.y <= t1 and m2.y <= t2
        out = vec5d()
        alpha = wp.dot(m1, m2)
        v = m2 - alpha * m1
        beta = wp.length(v)
        ulo = f64(-1.0)
        uhi = wp.min(t1, f64(1.0))
        if beta > f64(1e-300):
            v = v / beta
        else:
            beta = f64(0.0)
            c = t2 / alpha
            if alpha > f64(0.0):
                if c < uhi:
                    uhi = c
            elif c > ulo:
                ulo = c
        if uhi <= ulo:
            return out
        plo = wp.acos(-_clamp1(ulo))
        phh = wp.acos(-_clamp1(uhi))
        bk = wp.vec4d(plo, plo, plo, phh)
        if beta > f64(0.0) and wp.abs(t2) < f64(1.0):
            disc = beta * wp.sqrt(f64(1.0) - t2 * t2)
            ka = wp.acos(-_clamp1(t2 * alpha - disc))
            kb = wp.acos(-_clamp1(t2 * alpha + disc))
            if ka > kb:
                tmp = ka
                ka = kb
                kb = tmp
            bk[1] = wp.min(wp.max(ka, plo), phh)
            bk[2] = wp.min(wp.max(kb, plo), phh)
        V = f64(0.0)
        Mu = f64(0.0)
        Mv = f64(0.0)
        for piece in range(3):
            a = bk[piece]
            b = bk[piece + 1]
            if b <= a:
                continue
            mid = f64(0.5) * (a + b)
            hl = f64(0.5) * (b - a)
            for k in range(24):
                ph = mid + hl * S24[k]
                wgt = hl * C24[k]
                u = -wp.cos(ph)
                R = wp.sin(ph)
                w = f64(1.0)
                if beta > f64(0.0):
                    w = _clamp1(((t2 - alpha * u) / beta) / R)
                f = wgt * R
                ar = R * R * _seg_area(w)
                V += f * ar
                Mu += f * u * ar
                Mv += f * R * R * R * _seg_moment(w)
        out[0] = V
        M = Mu * m1 + Mv * v
        out[1] = M[0]
        out[2] = M[1]
        out[3] = M[2]
        if f64(-1.0) < t1 and t1 < f64(1.0) and ulo <= t1 and t1 <= uhi:
            R1 = wp.sqrt((f64(1.0) - t1) * (f64(1.0) + t1))
            if beta > f64(0.0):
                if R1 > f64(0.0):
                    out[4] = R1 * R1 * _seg_area(((t2 - alpha * t1) / beta) / R1)
            else:
                out[4] = f64(3.141592653589793) * R1 * R1
        return out

    @wp.func
    def _capsule1(r: f64, h: f64, n: vec3d, t: f64) -> vec5d:
        # clip_smooth.cc Capsule1: the cylinder and two half balls
        out = _cylinder1(r, h, n, t)
        r3 = r * r * r
        for side in range(2):
            sg = f64(1.0)
            if side == 1:
                sg = f64(-1.0)
            tmp = _ball2(n, (t - sg * n[2] * h) / r, vec3d(f64(0.0), f64(0.0), -sg), f64(0.0))
            vy = tmp[0]
            out[0] = out[0] + r3 * vy
            out[1] = out[1] + r3 * r * tmp[1]
            out[2] = out[2] + r3 * r * tmp[2]
            out[3] = out[3] + r3 * (sg * h * vy + r * tmp[3])
            out[4] = out[4] + r * r * tmp[4]
        return out

    return {"ellipsoid1": _ellipsoid1, "cylinder1": _cylinder1, "capsule1": _capsule1}
