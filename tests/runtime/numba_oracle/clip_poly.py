"""Convex polyhedra clipped by half-spaces, by the divergence theorem (geom frame).

A polyhedron is held as an *edge soup grouped by face*: ``E`` is an (m, 6)
array of directed edges ``(a, b)`` and ``fs`` (nF+1,) the start of each face's
edges in ``E``.  Each face's edges form its boundary, oriented counter-clockwise
seen from outside; their order inside a face does not matter.  Volume, first
moment and the cap's moments come from fan triangles ``(q, a, b)`` with ``q`` any
point of the face plane (its first edge's start) and tetrahedra from the geom
origin (Green + Gauss), so no ordering of cut points is ever needed.

Clipping a face by ``n·x <= t`` keeps the inside part of every edge and adds
the closing edge ``exit → entry`` on the plane; the **cap** (the section of the
polyhedron by the plane, outward normal ``+n``) receives the reverse edge
``entry → exit``.  Forgetting the cap gives plausible, silently wrong volumes;
here it is accumulated edge by edge.  Several planes clip in sequence
(:func:`soup_clip` for all but the last, then :func:`soup_integrate`, which
clips by the last plane and integrates in one streaming pass).
"""
import numpy as np
from numba import njit

# outward, counter-clockwise face loops of a box, as sign patterns of (a, b, c)
_BOX_LOOPS = np.array([
    [[1, -1, -1], [1, 1, -1], [1, 1, 1], [1, -1, 1]],
    [[-1, -1, -1], [-1, -1, 1], [-1, 1, 1], [-1, 1, -1]],
    [[-1, 1, -1], [-1, 1, 1], [1, 1, 1], [1, 1, -1]],
    [[-1, -1, -1], [1, -1, -1], [1, -1, 1], [-1, -1, 1]],
    [[-1, -1, 1], [1, -1, 1], [1, 1, 1], [-1, 1, 1]],
    [[-1, -1, -1], [-1, 1, -1], [1, 1, -1], [1, -1, -1]],
], dtype=np.float64)

N_ACC = 14  # V, M(3), A, F(3), J(6): see soup_integrate


@njit(cache=True)
def box_soup(a, b, c, E, fs):
    """Write the box with half-sizes (a, b, c) as 6 faces / 24 edges; return 6."""
    k = 0
    for f in range(6):
        fs[f] = k
        for i in range(4):
            j = (i + 1) % 4
            E[k, 0] = a * _BOX_LOOPS[f, i, 0]
            E[k, 1] = b * _BOX_LOOPS[f, i, 1]
            E[k, 2] = c * _BOX_LOOPS[f, i, 2]
            E[k, 3] = a * _BOX_LOOPS[f, j, 0]
            E[k, 4] = b * _BOX_LOOPS[f, j, 1]
            E[k, 5] = c * _BOX_LOOPS[f, j, 2]
            k += 1
    fs[6] = k
    return 6


@njit(cache=True)
def _emit(E, k, ax, ay, az, bx, by, bz):
    E[k, 0] = ax
    E[k, 1] = ay
    E[k, 2] = az
    E[k, 3] = bx
    E[k, 4] = by
    E[k, 5] = bz


@njit(cache=True)
def soup_clip(Ein, fsin, nF, nx, ny, nz, t, Eout, fsout, cap):
    """Clip the soup by ``n·x <= t`` into (Eout, fsout), cap face last; return nF out.

    ``cap`` is scratch with at least nF rows.  Faces wholly outside are dropped.
    """
    k = 0
    fo = 0
    nc = 0
    for f in range(nF):
        k0 = k
        has_first = False
        has_pend = False
        fx = fy = fz = 0.0
        px = py = pz = 0.0
        for e in range(fsin[f], fsin[f + 1]):
            ax = Ein[e, 0]
            ay = Ein[e, 1]
            az = Ein[e, 2]
            bx = Ein[e, 3]
            by = Ein[e, 4]
            bz = Ein[e, 5]
            sa = nx * ax + ny * ay + nz * az - t
            sb = nx * bx + ny * by + nz * bz - t
            if sa <= 0.0:
                if sb <= 0.0:
                    _emit(Eout, k, ax, ay, az, bx, by, bz)
                    k += 1
                else:
                    lam = sa / (sa - sb)
                    cx = ax + (bx - ax) * lam
                    cy = ay + (by - ay) * lam
                    cz = az + (bz - az) * lam
                    _emit(Eout, k, ax, ay, az, cx, cy, cz)
                    k += 1
                    has_pend = True
                    px = cx
                    py = cy
                    pz = cz
            elif sb <= 0.0:
                lam = sa / (sa - sb)
                cx = ax + (bx - ax) * lam
                cy = ay + (by - ay) * lam
                cz = az + (bz - az) * lam
                _emit(Eout, k, cx, cy, cz, bx, by, bz)
                k += 1
                if has_pend:
                    _emit(Eout, k, px, py, pz, cx, cy, cz)
                    k += 1
                    _emit(cap, nc, cx, cy, cz, px, py, pz)
                    nc += 1
                    has_pend = False
                elif not has_first:
                    has_first = True
                    fx = cx
                    fy = cy
                    fz = cz
        if has_pend and has_first:
            _emit(Eout, k, px, py, pz, fx, fy, fz)
            k += 1
            _emit(cap, nc, fx, fy, fz, px, py, pz)
            nc += 1
        if k > k0:
            fsout[fo] = k0
            fo += 1
    if nc > 0:
        fsout[fo] = k
        fo += 1
        for i in range(nc):
            for j in range(6):
                Eout[k, j] = cap[i, j]
            k += 1
    fsout[fo] = k
    return fo


@njit(cache=True, inline="always")
def _tet(qx, qy, qz, ax, ay, az, bx, by, bz):
    """6 × volume of the tetrahedron (0, q, a, b) and 24 × its first moment."""
    v6 = qx * (ay * bz - az * by) + qy * (az * bx - ax * bz) + qz * (ax * by - ay * bx)
    return v6, v6 * (qx + ax + bx), v6 * (qy + ay + by), v6 * (qz + az + bz)


@njit(cache=True)
def _acc_cap(acc, nx, ny, nz, qx, qy, qz, ax, ay, az, bx, by, bz):
    """Cap triangle (q, a, b): area and its first and second moments into acc[4:14] (× 2, 6, 24)."""
    ux = ax - qx
    uy = ay - qy
    uz = az - qz
    wx = bx - qx
    wy = by - qy
    wz = bz - qz
    a2 = nx * (uy * wz - uz * wy) + ny * (uz * wx - ux * wz) + nz * (ux * wy - uy * wx)
    acc[4] += a2
    sx = qx + ax + bx
    sy = qy + ay + by
    sz = qz + az + bz
    acc[5] += a2 * sx
    acc[6] += a2 * sy
    acc[7] += a2 * sz
    acc[8] += a2 * (qx * qx + ax * ax + bx * bx + sx * sx)
    acc[9] += a2 * (qy * qy + ay * ay + by * by + sy * sy)
    acc[10] += a2 * (qz * qz + az * az + bz * bz + sz * sz)
    acc[11] += a2 * (qx * qy + ax * ay + bx * by + sx * sy)
    acc[12] += a2 * (qx * qz + ax * az + bx * bz + sx * sz)
    acc[13] += a2 * (qy * qz + ay * az + by * bz + sy * sz)


@njit(cache=True)
def soup_integrate(E, fs, nF, nx, ny, nz, t, acc):
    """Clip the soup by ``n·x <= t`` (``t = +inf``: no clip) and integrate.

    acc (>= 14) receives: [0] V, [1:4] ∫x dV, [4] cap area, [5:8] ∫x dA over
    the cap, [8:14] ∫x xᵀ dA over the cap about the origin (xx, yy, zz, xy, xz,
    yz).  Geom frame; moments about the geom origin.
    """
    for i in range(N_ACC):
        acc[i] = 0.0
    V6 = 0.0
    MX = 0.0
    MY = 0.0
    MZ = 0.0
    qcx = nx * t
    qcy = ny * t
    qcz = nz * t
    for f in range(nF):
        e0 = fs[f]
        qx = E[e0, 0]
        qy = E[e0, 1]
        qz = E[e0, 2]
        has_first = False
        has_pend = False
        fx = fy = fz = 0.0
        px = py = pz = 0.0
        for e in range(e0, fs[f + 1]):
            ax = E[e, 0]
            ay = E[e, 1]
            az = E[e, 2]
            bx = E[e, 3]
            by = E[e, 4]
            bz = E[e, 5]
            sa = nx * ax + ny * ay + nz * az - t
            sb = nx * bx + ny * by + nz * bz - t
            if sa <= 0.0:
                if sb <= 0.0:
                    v, m1, m2, m3 = _tet(qx, qy, qz, ax, ay, az, bx, by, bz)
                else:
                    lam = sa / (sa - sb)
                    cx = ax + (bx - ax) * lam
                    cy = ay + (by - ay) * lam
                    cz = az + (bz - az) * lam
                    v, m1, m2, m3 = _tet(qx, qy, qz, ax, ay, az, cx, cy, cz)
                    has_pend = True
                    px = cx
                    py = cy
                    pz = cz
            elif sb <= 0.0:
                lam = sa / (sa - sb)
                cx = ax + (bx - ax) * lam
                cy = ay + (by - ay) * lam
                cz = az + (bz - az) * lam
                v, m1, m2, m3 = _tet(qx, qy, qz, cx, cy, cz, bx, by, bz)
                if has_pend:
                    # closing edge exit -> entry on this face; the cap gets entry -> exit
                    v2, n1, n2, n3 = _tet(qx, qy, qz, px, py, pz, cx, cy, cz)
                    v3, k1, k2, k3 = _tet(qcx, qcy, qcz, cx, cy, cz, px, py, pz)
                    v += v2 + v3
                    m1 += n1 + k1
                    m2 += n2 + k2
                    m3 += n3 + k3
                    _acc_cap(acc, nx, ny, nz, qcx, qcy, qcz, cx, cy, cz, px, py, pz)
                    has_pend = False
                elif not has_first:
                    has_first = True
                    fx = cx
                    fy = cy
                    fz = cz
            else:
                continue
            V6 += v
            MX += m1
            MY += m2
            MZ += m3
        if has_pend and has_first:
            v2, n1, n2, n3 = _tet(qx, qy, qz, px, py, pz, fx, fy, fz)
            v3, k1, k2, k3 = _tet(qcx, qcy, qcz, fx, fy, fz, px, py, pz)
            V6 += v2 + v3
            MX += n1 + k1
            MY += n2 + k2
            MZ += n3 + k3
            _acc_cap(acc, nx, ny, nz, qcx, qcy, qcz, fx, fy, fz, px, py, pz)
    acc[0] = V6
    acc[1] = MX
    acc[2] = MY
    acc[3] = MZ
    acc[0] /= 6.0
    for i in range(1, 4):
        acc[i] /= 24.0
    acc[4] *= 0.5
    for i in range(5, 8):
        acc[i] /= 6.0
    for i in range(8, 14):
        acc[i] /= 24.0
