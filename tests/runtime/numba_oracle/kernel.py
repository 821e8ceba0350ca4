"""The numba reference implementation of the hydrostatics kernel (test oracle).

The kernel itself is C++ (runtime/native/core, exposed as
:mod:`aurgen.runtime._native` through :mod:`aurgen.runtime.hydrostatics.kernel`); this
module is the implementation it was ported from, kept only to cross-check it
(tests/runtime/test_native_kernel.py; needs numba, a test dependency).

:func:`clip_into` is the entry point for the runtime's inner loop.  It takes
preallocated arrays, writes its results in place, and allocates no Python
objects (its scratch buffers are sized and allocated once per call)::

    clip_into(types, sizes, pos, mats, mesh_ids, hulls, planes, out, want_wp)

    types    (N,) int64   MuJoCo mjtGeom codes: 2 sphere, 3 capsule, 4 ellipsoid,
                          5 cylinder, 6 box, 7 mesh
    sizes    (N, 3)       MuJoCo geom sizes (m)
    pos      (N, 3)       geom centres, world (m)
    mats     (N, 3, 3)    rotation geom -> world
    mesh_ids (N,) int64   row of ``hulls`` for mesh geoms (ignored otherwise)
    hulls    tuple        packed convex hulls, see :func:`aurgen.runtime.hydrostatics.geoms.pack_hulls`
    planes   (P, 4)       rows (nx, ny, nz, d), world, unit n: the convex set
                          where n·x <= d for every row (P = 1: a half-space)
    out      (N, >=5)     [V, cx, cy, cz, A]: volume (m^3), centroid (world, m),
                          section area (m^2) of the one plane that cuts the geom
                          (0 when none does, nan when two or more do); with want_wp and >= 14 columns also [5:8] section
                          centroid (world) and [8:14] its second moments of area
                          about that centroid, world axes (xx, yy, zz, xy, xz, yz)

Tiers per geom and plane: support test (wholly inside: plane ignored; wholly
outside: V = 0); then one cutting plane: closed forms / exact quadrature for
smooth shapes, polyhedral clipping for boxes and hulls; several cutting planes:
polyhedra clip in sequence (exact); an ellipsoid or sphere cut by exactly two
planes is exact (``ball2``); other smooth cases use a volume-matched polyhedral
model (64 longitudes × 32 latitude bands), whose error the tests measure.
"""
from math import cos, pi, sin, sqrt

import numpy as np
from numba import njit

from .clip_poly import N_ACC, box_soup, soup_clip, soup_integrate
from .clip_smooth import ball2, capsule1, cylinder1, ellipsoid1

T_SPHERE = 2
T_CAPSULE = 3
T_ELLIPSOID = 4
T_CYLINDER = 5
T_BOX = 6
T_MESH = 7

NLON = 64   # longitudes of the polyhedral model of smooth shapes (>= 2 planes)
NLAT = 32   # latitude bands of a sphere (even)
FD_EPS = 1e-5  # finite-difference step for cylinder/capsule waterplane moments
OUT_W = 14


@njit(cache=True)
def support_local(typ, size, nx, ny, nz, hv, v0, v1):
    """(max, min) of n·x over the geom, geom frame (n need not be unit)."""
    if typ == T_SPHERE:
        h = size[0] * sqrt(nx * nx + ny * ny + nz * nz)
        return h, -h
    if typ == T_ELLIPSOID:
        a = size[0] * nx
        b = size[1] * ny
        c = size[2] * nz
        h = sqrt(a * a + b * b + c * c)
        return h, -h
    if typ == T_BOX:
        h = size[0] * abs(nx) + size[1] * abs(ny) + size[2] * abs(nz)
        return h, -h
    if typ == T_CYLINDER:
        h = size[0] * sqrt(nx * nx + ny * ny) + size[1] * abs(nz)
        return h, -h
    if typ == T_CAPSULE:  # segment ±h ẑ swept by a ball: h|n_z| + r|n|
        h = size[1] * abs(nz) + size[0] * sqrt(nx * nx + ny * ny + nz * nz)
        return h, -h
    hi = -np.inf
    lo = np.inf
    for i in range(v0, v1):
        s = nx * hv[i, 0] + ny * hv[i, 1] + nz * hv[i, 2]
        if s > hi:
            hi = s
        if s < lo:
            lo = s
    return hi, lo


@njit(cache=True)
def full_local(typ, size, hvol, hcen, mid):
    """Full volume (m^3) and centre (geom frame) of a geom."""
    if typ == T_SPHERE:
        r = size[0]
        return 4.0 * pi / 3.0 * r * r * r, 0.0, 0.0, 0.0
    if typ == T_ELLIPSOID:
        return 4.0 * pi / 3.0 * size[0] * size[1] * size[2], 0.0, 0.0, 0.0
    if typ == T_BOX:
        return 8.0 * size[0] * size[1] * size[2], 0.0, 0.0, 0.0
    if typ == T_CYLINDER:
        r = size[0]
        return 2.0 * pi * r * r * size[1], 0.0, 0.0, 0.0
    if typ == T_CAPSULE:
        r = size[0]
        return pi * r * r * (2.0 * size[1] + 4.0 * r / 3.0), 0.0, 0.0, 0.0
    return hvol[mid], hcen[mid, 0], hcen[mid, 1], hcen[mid, 2]


@njit(cache=True)
def _ring(typ, ii, r, h):
    """(radius, z) of ring ii of the revolution model (unit sphere for ellipsoids)."""
    if typ == T_CYLINDER:
        return r, (-h if ii == 0 else h)
    if typ == T_CAPSULE:
        if ii <= NLAT // 2:
            th = pi * ii / NLAT
            return r * sin(th), -h - r * cos(th)
        th = pi * (ii - 1) / NLAT
        return r * sin(th), h - r * cos(th)
    th = pi * ii / NLAT
    return sin(th), -cos(th)


@njit(cache=True)
def revolution_soup(typ, size, E, fs, acc):
    """Volume-matched polyhedral model of a smooth geom (geom frame); return nF."""
    M = NLON
    g = sqrt(2.0 * pi / (M * sin(2.0 * pi / M)))  # ring polygon area = pi rho^2
    if typ == T_CYLINDER:
        nring = 2
    elif typ == T_CAPSULE:
        nring = NLAT + 2
    else:
        nring = NLAT + 1
    r = size[0]
    h = size[1]
    k = 0
    f = 0
    for i in range(nring - 1):
        rho0, z0 = _ring(typ, i, r, h)
        rho1, z1 = _ring(typ, i + 1, r, h)
        rho0 *= g
        rho1 *= g
        for j in range(M):
            c0 = cos(2.0 * pi * j / M)
            s0 = sin(2.0 * pi * j / M)
            c1 = cos(2.0 * pi * (j + 1) / M)
            s1 = sin(2.0 * pi * (j + 1) / M)
            fs[f] = k
            f += 1
            ax = rho0 * c0
            ay = rho0 * s0
            bx = rho0 * c1
            by = rho0 * s1
            cx = rho1 * c1
            cy = rho1 * s1
            dx = rho1 * c0
            dy = rho1 * s0
            E[k, 0] = ax; E[k, 1] = ay; E[k, 2] = z0
            E[k, 3] = bx; E[k, 4] = by; E[k, 5] = z0
            E[k + 1, 0] = bx; E[k + 1, 1] = by; E[k + 1, 2] = z0
            E[k + 1, 3] = cx; E[k + 1, 4] = cy; E[k + 1, 5] = z1
            E[k + 2, 0] = cx; E[k + 2, 1] = cy; E[k + 2, 2] = z1
            E[k + 2, 3] = dx; E[k + 2, 4] = dy; E[k + 2, 5] = z1
            E[k + 3, 0] = dx; E[k + 3, 1] = dy; E[k + 3, 2] = z1
            E[k + 3, 3] = ax; E[k + 3, 4] = ay; E[k + 3, 5] = z0
            k += 4
    if typ == T_CYLINDER:
        for side in range(2):
            fs[f] = k
            f += 1
            rr = r * g
            for j in range(M):
                if side == 0:  # top, +z, counter-clockwise seen from above
                    p0 = 2.0 * pi * j / M
                    p1 = 2.0 * pi * (j + 1) / M
                    zz = h
                else:
                    p0 = 2.0 * pi * (M - j) / M
                    p1 = 2.0 * pi * (M - j - 1) / M
                    zz = -h
                E[k, 0] = rr * cos(p0); E[k, 1] = rr * sin(p0); E[k, 2] = zz
                E[k, 3] = rr * cos(p1); E[k, 4] = rr * sin(p1); E[k, 5] = zz
                k += 1
    fs[f] = k
    # volume match: isotropic scale about the centre
    soup_integrate(E, fs, f, 0.0, 0.0, 1.0, np.inf, acc)
    if typ == T_CYLINDER:
        vt = 2.0 * pi * r * r * h
    elif typ == T_CAPSULE:
        vt = pi * r * r * (2.0 * h + 4.0 * r / 3.0)
    else:
        vt = 4.0 * pi / 3.0
    sc = (vt / acc[0]) ** (1.0 / 3.0)
    if typ == T_ELLIPSOID or typ == T_SPHERE:
        sx = sc * size[0]
        if typ == T_ELLIPSOID:
            sy = sc * size[1]
            sz = sc * size[2]
        else:
            sy = sx
            sz = sx
    else:
        sx = sc
        sy = sc
        sz = sc
    for i in range(k):
        E[i, 0] *= sx
        E[i, 1] *= sy
        E[i, 2] *= sz
        E[i, 3] *= sx
        E[i, 4] *= sy
        E[i, 5] *= sz
    return f


@njit(cache=True)
def _model_size(typ, hfr, mid):
    """(edges, faces) of the starting soup for a geom type."""
    if typ == T_BOX:
        return 24, 6
    if typ == T_MESH:
        return 0, hfr[mid + 1] - hfr[mid]  # edges filled by caller
    if typ == T_CYLINDER:
        return 6 * NLON, NLON + 2
    if typ == T_CAPSULE:
        return 4 * NLON * (NLAT + 1), NLON * (NLAT + 1)
    return 4 * NLON * NLAT, NLON * NLAT


@njit(cache=True)
def _smooth1(typ, size, nx, ny, nz, t, res, tmp):
    """One plane, smooth geom, geom frame: res[0] V, res[1:4] ∫x dV, res[4] A."""
    if typ == T_SPHERE:
        r = size[0]
        ellipsoid1(r, r, r, nx, ny, nz, t, res)
    elif typ == T_ELLIPSOID:
        ellipsoid1(size[0], size[1], size[2], nx, ny, nz, t, res)
    elif typ == T_CYLINDER:
        cylinder1(size[0], size[1], nx, ny, nz, t, res)
    else:
        capsule1(size[0], size[1], nx, ny, nz, t, res, tmp)


@njit(cache=True)
def _fd_waterplane(typ, size, nx, ny, nz, t, A, acc, res, tmp):
    """Waterplane first/second moments of a cylinder or capsule by central
    differences of the exact first moment (I = -dM/dn, F = dM/dt).

    Writes acc[5:8] = ∫x dA and acc[8:14] = ∫x xᵀ dA about the origin."""
    L = size[0] + size[1]
    dt = FD_EPS * L
    _smooth1(typ, size, nx, ny, nz, t + dt, res, tmp)
    p0 = res[1]; p1 = res[2]; p2 = res[3]
    _smooth1(typ, size, nx, ny, nz, t - dt, res, tmp)
    F0 = (p0 - res[1]) / (2 * dt)
    F1 = (p1 - res[2]) / (2 * dt)
    F2 = (p2 - res[3]) / (2 * dt)
    # tangent basis
    if abs(nx) < 0.9:
        ux, uy, uz = 1.0 - nx * nx, -nx * ny, -nx * nz
    else:
        ux, uy, uz = -ny * nx, 1.0 - ny * ny, -ny * nz
    un = sqrt(ux * ux + uy * uy + uz * uz)
    ux /= un; uy /= un; uz /= un
    vx = ny * uz - nz * uy
    vy = nz * ux - nx * uz
    vz = nx * uy - ny * ux
    Ju = np.zeros((2, 3))
    q = 1.0 / sqrt(1.0 + FD_EPS * FD_EPS)
    for b in range(2):
        if b == 0:
            wx = ux; wy = uy; wz = uz
        else:
            wx = vx; wy = vy; wz = vz
        _smooth1(typ, size, (nx + FD_EPS * wx) * q, (ny + FD_EPS * wy) * q,
                 (nz + FD_EPS * wz) * q, t * q, res, tmp)
        p0 = res[1]; p1 = res[2]; p2 = res[3]
        _smooth1(typ, size, (nx - FD_EPS * wx) * q, (ny - FD_EPS * wy) * q,
                 (nz - FD_EPS * wz) * q, t * q, res, tmp)
        Ju[b, 0] = -(p0 - res[1]) / (2 * FD_EPS)
        Ju[b, 1] = -(p1 - res[2]) / (2 * FD_EPS)
        Ju[b, 2] = -(p2 - res[3]) / (2 * FD_EPS)
    j00 = ux * Ju[0, 0] + uy * Ju[0, 1] + uz * Ju[0, 2]
    j11 = vx * Ju[1, 0] + vy * Ju[1, 1] + vz * Ju[1, 2]
    j01 = 0.5 * (vx * Ju[0, 0] + vy * Ju[0, 1] + vz * Ju[0, 2]
                 + ux * Ju[1, 0] + uy * Ju[1, 1] + uz * Ju[1, 2])
    acc[4] = A
    acc[5] = F0
    acc[6] = F1
    acc[7] = F2
    # J = T Jt T^T + t (T y1 n^T + n y1^T T^T) + t^2 A n n^T, y1 = T^T F
    y0 = ux * F0 + uy * F1 + uz * F2
    y1 = vx * F0 + vy * F1 + vz * F2
    tu = np.empty(3)
    tv = np.empty(3)
    nn = np.empty(3)
    tu[0] = ux; tu[1] = uy; tu[2] = uz
    tv[0] = vx; tv[1] = vy; tv[2] = vz
    nn[0] = nx; nn[1] = ny; nn[2] = nz
    idx_i = (0, 1, 2, 0, 0, 1)
    idx_j = (0, 1, 2, 1, 2, 2)
    for m in range(6):
        i = idx_i[m]
        j = idx_j[m]
        ti = y0 * tu[i] + y1 * tv[i]
        tj = y0 * tu[j] + y1 * tv[j]
        acc[8 + m] = (j00 * tu[i] * tu[j] + j11 * tv[i] * tv[j]
                      + j01 * (tu[i] * tv[j] + tv[i] * tu[j])
                      + t * (ti * nn[j] + nn[i] * tj) + t * t * A * nn[i] * nn[j])


@njit(cache=True)
def clip_into(types, sizes, pos, mats, mesh_ids, hulls, planes, out, want_wp):
    """Clip N geoms by the convex set ``planes`` and write ``out`` in place.

    See the module docstring for shapes and units.  Deterministic: the same
    inputs give bitwise the same outputs, whatever N.
    """
    hv, hvr, he, hfs, hfr, hvol, hcen = hulls
    N = types.shape[0]
    P = planes.shape[0]
    wp = want_wp and out.shape[1] >= OUT_W
    # scratch sizes
    emax = 1
    fmax = 1
    for i in range(N):
        typ = types[i]
        if typ == T_MESH:
            mid = mesh_ids[i]
            f0 = hfr[mid + 1] - hfr[mid]
            e0 = hfs[hfr[mid + 1]] - hfs[hfr[mid]]
        elif typ == T_BOX:
            e0 = 24
            f0 = 6
        elif P >= 2:
            e0, f0 = _model_size(typ, hfr, 0)
        else:
            continue
        e = e0 + 2 * P * (f0 + P) + 8
        if e > emax:
            emax = e
        if f0 + P + 2 > fmax:
            fmax = f0 + P + 2
    E1 = np.empty((emax, 6))
    E2 = np.empty((emax, 6))
    fs1 = np.empty(fmax + 1, dtype=np.int64)
    fs2 = np.empty(fmax + 1, dtype=np.int64)
    cap = np.empty((fmax, 6))
    act = np.empty((max(P, 1), 4))
    acc = np.empty(N_ACC)
    res = np.empty(N_ACC)
    tmp = np.empty(8)
    for i in range(N):
        typ = types[i]
        size = sizes[i]
        mid = mesh_ids[i] if typ == T_MESH else 0
        v0 = hvr[mid] if typ == T_MESH else 0
        v1 = hvr[mid + 1] if typ == T_MESH else 0
        R = mats[i]
        px = pos[i, 0]
        py = pos[i, 1]
        pz = pos[i, 2]
        nact = 0
        empty = False
        for j in range(P):
            wx = planes[j, 0]
            wy = planes[j, 1]
            wz = planes[j, 2]
            lx = R[0, 0] * wx + R[1, 0] * wy + R[2, 0] * wz
            ly = R[0, 1] * wx + R[1, 1] * wy + R[2, 1] * wz
            lz = R[0, 2] * wx + R[1, 2] * wy + R[2, 2] * wz
            t = planes[j, 3] - (wx * px + wy * py + wz * pz)
            hmax, hmin = support_local(typ, size, lx, ly, lz, hv, v0, v1)
            if hmax <= t:
                continue
            if hmin >= t:
                empty = True
                break
            act[nact, 0] = lx
            act[nact, 1] = ly
            act[nact, 2] = lz
            act[nact, 3] = t
            nact += 1
        for c in range(out.shape[1]):
            out[i, c] = 0.0
        if empty:
            out[i, 1] = px
            out[i, 2] = py
            out[i, 3] = pz
            if wp:
                for c in range(5, OUT_W):
                    out[i, c] = np.nan
            continue
        vf, cfx, cfy, cfz = full_local(typ, size, hvol, hcen, mid)
        if nact == 0:
            V = vf
            mx = vf * cfx
            my = vf * cfy
            mz = vf * cfz
            A = 0.0
            for c in range(N_ACC):
                acc[c] = 0.0
            acc[4] = A
        elif nact == 1:
            nx = act[0, 0]
            ny = act[0, 1]
            nz = act[0, 2]
            t = act[0, 3]
            if typ == T_BOX or typ == T_MESH:
                if typ == T_BOX:
                    nf = box_soup(size[0], size[1], size[2], E1, fs1)
                    soup_integrate(E1, fs1, nf, nx, ny, nz, t, acc)
                else:
                    fa = hfr[mid]
                    fb = hfr[mid + 1]
                    soup_integrate(he, hfs[fa:fb + 1], fb - fa, nx, ny, nz, t, acc)
                V = acc[0]
                mx = acc[1]
                my = acc[2]
                mz = acc[3]
                A = acc[4]
            else:
                _smooth1(typ, size, nx, ny, nz, t, res, tmp)
                V = res[0]
                mx = res[1]
                my = res[2]
                mz = res[3]
                A = res[4]
                if wp:
                    if typ == T_SPHERE or typ == T_ELLIPSOID:
                        acc[4] = A
                        cx_ = res[5]
                        cy_ = res[6]
                        cz_ = res[7]
                        acc[5] = A * cx_
                        acc[6] = A * cy_
                        acc[7] = A * cz_
                        acc[8] = res[8] + A * cx_ * cx_
                        acc[9] = res[9] + A * cy_ * cy_
                        acc[10] = res[10] + A * cz_ * cz_
                        acc[11] = res[11] + A * cx_ * cy_
                        acc[12] = res[12] + A * cx_ * cz_
                        acc[13] = res[13] + A * cy_ * cz_
                    else:
                        _fd_waterplane(typ, size, nx, ny, nz, t, A, acc, res, tmp)
        else:
            A = np.nan
            if (typ == T_SPHERE or typ == T_ELLIPSOID) and nact == 2:
                a = size[0]
                b = size[0] if typ == T_SPHERE else size[1]
                c = size[0] if typ == T_SPHERE else size[2]
                q = np.empty(8)
                for j in range(2):
                    ex = a * act[j, 0]
                    ey = b * act[j, 1]
                    ez = c * act[j, 2]
                    L = sqrt(ex * ex + ey * ey + ez * ez)
                    q[4 * j] = ex / L
                    q[4 * j + 1] = ey / L
                    q[4 * j + 2] = ez / L
                    q[4 * j + 3] = act[j, 3] / L
                ball2(q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7], res)
                det = a * b * c
                V = det * res[0]
                mx = det * a * res[1]
                my = det * b * res[2]
                mz = det * c * res[3]
            else:
                if typ == T_BOX:
                    nf = box_soup(size[0], size[1], size[2], E1, fs1)
                elif typ == T_MESH:
                    fa = hfr[mid]
                    fb = hfr[mid + 1]
                    e0 = hfs[fa]
                    ne = hfs[fb] - e0
                    for e in range(ne):
                        for c in range(6):
                            E1[e, c] = he[e0 + e, c]
                    nf = fb - fa
                    for f in range(nf + 1):
                        fs1[f] = hfs[fa + f] - e0
                else:
                    nf = revolution_soup(typ, size, E1, fs1, acc)
                src = 1
                for j in range(nact - 1):
                    if src == 1:
                        nf = soup_clip(E1, fs1, nf, act[j, 0], act[j, 1], act[j, 2],
                                       act[j, 3], E2, fs2, cap)
                        src = 2
                    else:
                        nf = soup_clip(E2, fs2, nf, act[j, 0], act[j, 1], act[j, 2],
                                       act[j, 3], E1, fs1, cap)
                        src = 1
                j = nact - 1
                if src == 1:
                    soup_integrate(E1, fs1, nf, act[j, 0], act[j, 1], act[j, 2], act[j, 3], acc)
                else:
                    soup_integrate(E2, fs2, nf, act[j, 0], act[j, 1], act[j, 2], act[j, 3], acc)
                V = acc[0]
                mx = acc[1]
                my = acc[2]
                mz = acc[3]
        # to world
        if V > 0.0:
            cx = mx / V
            cy = my / V
            cz = mz / V
        else:
            V = 0.0
            cx = cfx
            cy = cfy
            cz = cfz
        out[i, 0] = V
        out[i, 1] = px + R[0, 0] * cx + R[0, 1] * cy + R[0, 2] * cz
        out[i, 2] = py + R[1, 0] * cx + R[1, 1] * cy + R[1, 2] * cz
        out[i, 3] = pz + R[2, 0] * cx + R[2, 1] * cy + R[2, 2] * cz
        out[i, 4] = A
        if wp:
            if nact != 1:
                for c in range(5, OUT_W):
                    out[i, c] = np.nan if nact >= 2 else 0.0
                if nact == 0:
                    out[i, 5] = px
                    out[i, 6] = py
                    out[i, 7] = pz
                continue
            Aw = acc[4]
            if Aw > 0.0:
                fx = acc[5] / Aw
                fy = acc[6] / Aw
                fz = acc[7] / Aw
            else:
                fx = cx
                fy = cy
                fz = cz
            out[i, 5] = px + R[0, 0] * fx + R[0, 1] * fy + R[0, 2] * fz
            out[i, 6] = py + R[1, 0] * fx + R[1, 1] * fy + R[1, 2] * fz
            out[i, 7] = pz + R[2, 0] * fx + R[2, 1] * fy + R[2, 2] * fz
            # centroidal, local, then rotate: R Jc R^T
            Jc = np.empty((3, 3))
            Jc[0, 0] = acc[8] - Aw * fx * fx
            Jc[1, 1] = acc[9] - Aw * fy * fy
            Jc[2, 2] = acc[10] - Aw * fz * fz
            Jc[0, 1] = Jc[1, 0] = acc[11] - Aw * fx * fy
            Jc[0, 2] = Jc[2, 0] = acc[12] - Aw * fx * fz
            Jc[1, 2] = Jc[2, 1] = acc[13] - Aw * fy * fz
            Jw = R @ Jc @ R.T
            out[i, 8] = Jw[0, 0]
            out[i, 9] = Jw[1, 1]
            out[i, 10] = Jw[2, 2]
            out[i, 11] = Jw[0, 1]
            out[i, 12] = Jw[0, 2]
            out[i, 13] = Jw[1, 2]
