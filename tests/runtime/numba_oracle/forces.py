"""The numba reference implementation of the force stage (test oracle).

The force stage itself is C++ (runtime/native/core/forces.cc, run through
:class:`aurgen.runtime._native.ForceStage`); this is the implementation it was
ported from, kept only to cross-check it (tests/runtime/test_native_forces.py).

The stage's model (buoyancy, drag, surface damping, gravity fields, added mass),
its conventions and its accumulation order are documented once, in
:mod:`aurgen.runtime.sim.forces`; its array layout (flags, ledger slots, cell columns)
and coefficients are imported from there, so oracle and native stage share one
contract and differ only in the implementation.
"""

from __future__ import annotations

from math import pi, sqrt

import numpy as np
from numba import njit

from .kernel import T_CAPSULE, T_CYLINDER, T_ELLIPSOID, T_SPHERE, clip_into, support_local

from aurgen.runtime.sim.forces import (C_FLOW, C_G, C_GAS, C_K, C_MU, C_P, C_RHO, C_S, F_ADDED, F_BUOY,
                                   F_DAMP, F_DRAG, F_GRAV, F_RECORD, L_KE, L_PDRAG, L_UBUOY, L_UGRAV, L_VSUB, NLED)


@njit(cache=True)
def _grav_at(gk, gf, x, cf, cells_g, out):
    """Gravity at x into out (3,). gk: 0/3 uniform-ish, 1 central, 2 linear."""
    if gk == 1:
        rx = x[0] - gf[4]
        ry = x[1] - gf[5]
        rz = x[2] - gf[6]
        R = sqrt(rx * rx + ry * ry + rz * rz)
        s = -gf[3] / (R * R * R)
        out[0] = s * rx
        out[1] = s * ry
        out[2] = s * rz
    elif gk == 2:
        for i in range(3):
            out[i] = gf[7 + i] + gf[10 + 3 * i] * x[0] + gf[11 + 3 * i] * x[1] + gf[12 + 3 * i] * x[2]
    else:
        out[0] = gf[0]
        out[1] = gf[1]
        out[2] = gf[2]


@njit(cache=True)
def _phi(gk, gf, x):
    """Gravity potential (J/kg) at x; g = -grad phi."""
    if gk == 1:
        rx = x[0] - gf[4]
        ry = x[1] - gf[5]
        rz = x[2] - gf[6]
        return -gf[3] / sqrt(rx * rx + ry * ry + rz * rz)
    if gk == 2:
        s = gf[7] * x[0] + gf[8] * x[1] + gf[9] * x[2]
        q = 0.0
        for i in range(3):
            for j in range(3):
                q += x[i] * gf[10 + 3 * i + j] * x[j]
        return -(s + 0.5 * q)
    return -(gf[0] * x[0] + gf[1] * x[1] + gf[2] * x[2])


@njit(cache=True)
def last_plane_of(c, onesg):
    return int(onesg[c])


@njit(cache=True)
def _cell_of(x, cpl, cnp):
    for c in range(cpl.shape[0]):
        inside = True
        for j in range(cnp[c]):
            if cpl[c, j, 0] * x[0] + cpl[c, j, 1] * x[1] + cpl[c, j, 2] * x[2] > cpl[c, j, 3]:
                inside = False
                break
        if inside:
            return c
    return -1


@njit(cache=True)
def _apply(b, F, T, x, bch, bnd, broot, cdof, scom, qfrc, qmine):
    """Add the wrench (F at x, torque T) on body b to qfrc (and qmine)."""
    r = broot[b]
    dx = x[0] - scom[r, 0]
    dy = x[1] - scom[r, 1]
    dz = x[2] - scom[r, 2]
    # moment about the subtree com
    mx = T[0] + dy * F[2] - dz * F[1]
    my = T[1] + dz * F[0] - dx * F[2]
    mz = T[2] + dx * F[1] - dy * F[0]
    for k in range(bnd[b]):
        j = bch[b, k]
        q = (cdof[j, 0] * mx + cdof[j, 1] * my + cdof[j, 2] * mz
             + cdof[j, 3] * F[0] + cdof[j, 4] * F[1] + cdof[j, 5] * F[2])
        qfrc[j] += q
        qmine[j] += q


@njit(cache=True)
def _pointvel(b, x, broot, cvel, scom, v):
    """Linear velocity (world) of the point x fixed to body b."""
    r = broot[b]
    dx = x[0] - scom[r, 0]
    dy = x[1] - scom[r, 1]
    dz = x[2] - scom[r, 2]
    w0 = cvel[b, 0]
    w1 = cvel[b, 1]
    w2 = cvel[b, 2]
    v[0] = cvel[b, 3] + w1 * dz - w2 * dy
    v[1] = cvel[b, 4] + w2 * dx - w0 * dz
    v[2] = cvel[b, 5] + w0 * dy - w1 * dx


@njit(cache=True)
def _proj_area(typ, size, ux, uy, uz):
    """Projected area of the whole geom across the unit direction u (geom frame)."""
    if typ == T_SPHERE:
        return pi * size[0] * size[0]
    if typ == T_ELLIPSOID:
        a = size[0]
        b = size[1]
        c = size[2]
        p = b * c * ux
        q = a * c * uy
        s = a * b * uz
        return pi * sqrt(p * p + q * q + s * s)
    if typ == T_CYLINDER or typ == T_CAPSULE:
        r = size[0]
        h = size[1]
        lat = sqrt(max(0.0, 1.0 - uz * uz))
        extra = 0.0
        if typ == T_CAPSULE:
            extra = pi * r * r * lat
        return 4.0 * r * h * lat + pi * r * r * abs(uz) + extra
    # box (and mesh through its bounding half-sizes)
    return 4.0 * (size[1] * size[2] * abs(ux) + size[0] * size[2] * abs(uy) + size[0] * size[1] * abs(uz))


@njit(cache=True)
def passive(fl, gi, gt, gcl, gsz, gvol, gw, mesh_ids, hulls, cpl, cnp, cf, gf,
            bch, bnd, broot, bmass, binert, di, df, ai, af, wvol, Mmap,
            qvel, gxpos, gxmat, xpos, xmat, xipos, ximat, cdof, cdof_dot, scom, cvel,
            qfrc, M, pos, mats, planes, out, vols, cents, areas, wfrac, led, qmine, gcd, gexp, gcov):
    """One evaluation of every runtime force for the current stage (see module doc).

    gi (ng, 4) int: geom id, body id, mjtGeom type, mark (1 displacement, 2 windage).
    gt (ng,) the types again (contiguous, for the kernel); gcl (ng, 3) full-volume
    centroids in the geom frame (non-zero for mesh hulls).
    gsz (ng, 3) sizes (for meshes: bounding half-sizes in [..] for drag; the kernel
    uses the hull). gvol (ng,) full volumes. gw (ng,) weld group of the geom.
    cpl (nc, kmax, 4) cell half-spaces n.x <= d, cnp (nc,) their counts,
    cf (nc, NCF) cell floats. gf gravity floats: g(3) mu centre(3) g0(3) G(9).
    bch/bnd: per body the dofs of its ancestor chain; broot: rootid.
    di (nd, 1) damping body; df (nd, 72): linear 6x6 then quadratic 6x6 (Fossen sign).
    ai (na, 4): frame kind (0 body, 1 geom), body, object id, plan geom (or -1 for
    the weld-group fraction); af (na, 36): 6x6 added mass (positive) in that frame,
    per unit density for geom items (kind 1), absolute for body items.
    wvol (nw,) total displacement volume per weld group. Mmap (nv, nv) CSR index of
    M[i, j] (i >= j) or -1.
    Outputs: qfrc (+=), M (+=), vols/cents/areas (ng, nc), wfrac (nw,), led, qmine.
    gcd (ng,) each geom's form drag coefficient C_D; gexp (ng, 6) the exposed share of each face of a
    box's or mesh's drag box and gcov (ng, 6) its coverer (numba_oracle.drag_faces.face_exposure): a face
    whose coverer has no part in the piece's cell is exposed there.
    """
    ng = gi.shape[0]
    nc = cpl.shape[0]
    nv = qvel.shape[0]
    gk = fl[F_GRAV]
    record = fl[F_RECORD] != 0
    for j in range(nv):
        qmine[j] = 0.0
    for i in range(NLED):
        led[i] = 0.0
    F = np.empty(3)
    T = np.empty(3)
    x = np.empty(3)
    v = np.empty(3)
    g = np.empty(3)
    Fd = np.empty(3)
    Td = np.empty(3)
    rho_max = 0.0
    for c in range(nc):
        if cf[c, C_RHO] > rho_max:
            rho_max = cf[c, C_RHO]
    for w in range(wfrac.shape[0]):
        wfrac[w] = 0.0

    # ---- gather geom poses
    for k in range(ng):
        gid = gi[k, 0]
        for a in range(3):
            pos[k, a] = gxpos[gid, a]
            for b in range(3):
                mats[k, a, b] = gxmat[gid, 3 * a + b]

    # ---- clip every geom by every cell (planes no geom crosses or is cut off by dropped).
    # A cell bounded (after dropping) by the one plane another cell was bounded
    # by, from the other side, is the complement: full geom minus that piece.
    one = np.full(nc, -1, dtype=np.int64)  # the single kept plane's index, or -1
    onesg = np.zeros(nc)
    for c in range(nc):
        npl = 0
        last = -1
        for j in range(cnp[c]):
            nx = cpl[c, j, 0]
            ny = cpl[c, j, 1]
            nz = cpl[c, j, 2]
            keep = False
            for k in range(ng):
                lx = mats[k, 0, 0] * nx + mats[k, 1, 0] * ny + mats[k, 2, 0] * nz
                ly = mats[k, 0, 1] * nx + mats[k, 1, 1] * ny + mats[k, 2, 1] * nz
                lz = mats[k, 0, 2] * nx + mats[k, 1, 2] * ny + mats[k, 2, 2] * nz
                t = cpl[c, j, 3] - (nx * pos[k, 0] + ny * pos[k, 1] + nz * pos[k, 2])
                mid = mesh_ids[k] if gt[k] == 7 else 0
                v0 = hulls[1][mid] if gt[k] == 7 else 0
                v1 = hulls[1][mid + 1] if gt[k] == 7 else 0
                hmax, hmin = support_local(gt[k], gsz[k], lx, ly, lz, hulls[0], v0, v1)
                if hmax > t:
                    keep = True
                    break
            if keep:
                for a in range(4):
                    planes[npl, a] = cpl[c, j, a]
                npl += 1
                last = j
        comp = -1
        if npl == 1:
            one[c] = 1
            for c2 in range(c):
                if one[c2] == 1 and cpl[c2, last_plane_of(c2, onesg), 0] == -planes[0, 0] \
                        and cpl[c2, last_plane_of(c2, onesg), 1] == -planes[0, 1] \
                        and cpl[c2, last_plane_of(c2, onesg), 2] == -planes[0, 2] \
                        and cpl[c2, last_plane_of(c2, onesg), 3] == -planes[0, 3]:
                    comp = c2
                    break
            onesg[c] = last
        if comp >= 0:
            for k in range(ng):
                R = mats[k]
                fx = pos[k, 0] + R[0, 0] * gcl[k, 0] + R[0, 1] * gcl[k, 1] + R[0, 2] * gcl[k, 2]
                fy = pos[k, 1] + R[1, 0] * gcl[k, 0] + R[1, 1] * gcl[k, 1] + R[1, 2] * gcl[k, 2]
                fzz = pos[k, 2] + R[2, 0] * gcl[k, 0] + R[2, 1] * gcl[k, 1] + R[2, 2] * gcl[k, 2]
                Vo = vols[k, comp]
                V = gvol[k] - Vo
                if V <= 1e-13 * gvol[k]:
                    vols[k, c] = 0.0
                    cents[k, c, 0] = fx
                    cents[k, c, 1] = fy
                    cents[k, c, 2] = fzz
                elif Vo <= 0.0:
                    vols[k, c] = gvol[k]
                    cents[k, c, 0] = fx
                    cents[k, c, 1] = fy
                    cents[k, c, 2] = fzz
                else:
                    vols[k, c] = V
                    cents[k, c, 0] = (gvol[k] * fx - Vo * cents[k, comp, 0]) / V
                    cents[k, c, 1] = (gvol[k] * fy - Vo * cents[k, comp, 1]) / V
                    cents[k, c, 2] = (gvol[k] * fzz - Vo * cents[k, comp, 2]) / V
                areas[k, c] = areas[k, comp]
            continue
        clip_into(gt, gsz, pos, mats, mesh_ids, hulls, planes[:npl], out, False)
        for k in range(ng):
            vols[k, c] = out[k, 0]
            cents[k, c, 0] = out[k, 1]
            cents[k, c, 1] = out[k, 2]
            cents[k, c, 2] = out[k, 3]
            areas[k, c] = out[k, 4] if npl <= 1 else np.nan

    # ---- submerged fraction per weld group (for declared damping / added mass)
    if rho_max > 0.0:
        for k in range(ng):
            if gi[k, 3] != 1:
                continue
            s = 0.0
            for c in range(nc):
                s += cf[c, C_RHO] * vols[k, c]
            wfrac[gw[k]] += s / rho_max
        for w in range(wfrac.shape[0]):
            led[L_VSUB] += wfrac[w]
            if wvol[w] > 0.0:
                wfrac[w] = wfrac[w] / wvol[w]

    # ---- one drag per degree of freedom: a weld group's declared terms (its dampers' nonzero rows)
    # take those degrees of freedom from the drag model, in the axes of its first damper's body
    nwg = max(wvol.shape[0], 1)
    wkeep = np.ones((nwg, 6))
    wbody = np.full(nwg, -1, dtype=np.int64)
    for it in range(di.shape[0]):
        grp = di[it, 1]
        if grp < 0:
            continue
        if wbody[grp] < 0:
            wbody[grp] = di[it, 0]
        for i in range(6):
            for j in range(6):
                if df[it, 6 * i + j] != 0.0 or df[it, 36 + 6 * i + j] != 0.0:
                    wkeep[grp, i] = 0.0
    Mr = np.empty(3)
    # ---- per geom, per cell: buoyancy, drag, surface damping
    for k in range(ng):
        b = gi[k, 1]
        mark = gi[k, 3]
        if mark != 1 and mark != 2:
            continue
        typ = gi[k, 2]
        Vg = gvol[k]
        deq = (6.0 * Vg / pi) ** (1.0 / 3.0)
        for c in range(nc):
            V = vols[k, c]
            if V <= 0.0:
                continue
            rho = cf[c, C_RHO]
            if mark == 2 and cf[c, C_GAS] == 0.0:
                continue
            for a in range(3):
                x[a] = cents[k, c, a]
                F[a] = 0.0
                T[a] = 0.0
            if gk == 3 and cf[c, C_G] == cf[c, C_G]:
                g[0] = cf[c, C_G]
                g[1] = cf[c, C_G + 1]
                g[2] = cf[c, C_G + 2]
            else:
                _grav_at(gk, gf, x, cf, cf, g)
            if mark == 1 and fl[F_BUOY] != 0:
                for a in range(3):
                    F[a] = -rho * V * g[a]
                if record:
                    # U = integral of the hydrostatic pressure p = -rho phi + P over the piece
                    if gk == 3 and cf[c, C_G] == cf[c, C_G]:
                        ph = -(g[0] * x[0] + g[1] * x[1] + g[2] * x[2]) + cf[c, C_K]
                    else:
                        ph = _phi(gk, gf, x)
                    led[L_UBUOY] += V * (-rho * ph + cf[c, C_P])
            if fl[F_DRAG] != 0 or fl[F_DAMP] != 0:
                f = V / Vg
                _pointvel(b, x, broot, cvel, scom, v)
                vab0 = v[0]
                vab1 = v[1]
                vab2 = v[2]
                for a in range(3):
                    v[a] -= cf[c, C_FLOW + a]
                sp = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
                mu = cf[c, C_MU]
                for a in range(3):
                    Fd[a] = 0.0
                    Td[a] = 0.0
                grp = gw[k]
                nkeep = 6.0
                if mark == 1:
                    nkeep = wkeep[grp].sum()
                dragk = fl[F_DRAG] != 0 and nkeep > 0.0
                A = areas[k, c]
                cd = gcd[k]
                if sp > 0.0 and dragk:
                    R = mats[k]
                    if typ == 6 or typ == 7:  # per axis, on the exposed, wetted faces of its drag box
                        gn2 = g[0] * g[0] + g[1] * g[1] + g[2] * g[2]
                        side = -1.0 if cf[c, C_GAS] != 0.0 else 1.0
                        su = -side / sqrt(gn2) if gn2 > 0.0 else 0.0  # up = su g
                        for a in range(3):
                            Fd[a] = 0.0
                        for i in range(3):
                            ui = R[0, i] * (g[0] * su) + R[1, i] * (g[1] * su) + R[2, i] * (g[2] * su)
                            lsi = R[0, i] * v[0] + R[1, i] * v[1] + R[2, i] * v[2]
                            li = abs(lsi)
                            q = ui * ui
                            wet = f + (1.0 - f) * q
                            em = gexp[k, 2 * i]
                            ep = gexp[k, 2 * i + 1]
                            if gcov[k, 2 * i] >= 0 and em != 1.0 and not vols[gcov[k, 2 * i], c] > 0.0:
                                em = 1.0
                            if gcov[k, 2 * i + 1] >= 0 and ep != 1.0 and not vols[gcov[k, 2 * i + 1], c] > 0.0:
                                ep = 1.0
                            if ui >= 0.0:
                                eu = ep
                                ed = em
                            else:
                                eu = em
                                ed = ep
                            if A == A and A > 0.0:
                                eu = eu + (1.0 - eu) * q
                            s1 = gsz[k, (i + 1) % 3] * gsz[k, (i + 2) % 3]
                            area = 2.0 * s1 * wet * (eu + ed) * li
                            fi = -(3.0 * pi * mu * deq * f + 0.5 * rho * cd * area) * lsi
                            for a in range(3):
                                Fd[a] += R[a, i] * fi
                    else:
                        ux = (R[0, 0] * v[0] + R[1, 0] * v[1] + R[2, 0] * v[2]) / sp
                        uy = (R[0, 1] * v[0] + R[1, 1] * v[1] + R[2, 1] * v[2]) / sp
                        uz = (R[0, 2] * v[0] + R[1, 2] * v[1] + R[2, 2] * v[2]) / sp
                        Ap = _proj_area(typ, gsz[k], ux, uy, uz)
                        coef = (3.0 * pi * mu * deq + 0.5 * rho * cd * Ap * sp) * f
                        for a in range(3):
                            Fd[a] = -coef * v[a]
                w0 = cvel[b, 0]
                w1 = cvel[b, 1]
                w2 = cvel[b, 2]
                wn = sqrt(w0 * w0 + w1 * w1 + w2 * w2)
                if dragk:
                    ct = (pi * mu * deq ** 3 + rho * cd * deq ** 5 / 64.0 * wn) * f
                    Td[0] = -ct * w0
                    Td[1] = -ct * w1
                    Td[2] = -ct * w2
                if dragk and nkeep < 6.0:  # the declared degrees of freedom taken out
                    mb = wbody[grp]
                    Rm = xmat[mb]
                    r0 = x[0] - xpos[mb, 0]
                    r1 = x[1] - xpos[mb, 1]
                    r2 = x[2] - xpos[mb, 2]
                    Mr[0] = Td[0] + (r1 * Fd[2] - r2 * Fd[1])
                    Mr[1] = Td[1] + (r2 * Fd[0] - r0 * Fd[2])
                    Mr[2] = Td[2] + (r0 * Fd[1] - r1 * Fd[0])
                    for base, vec in ((0, Fd), (3, Mr)):
                        if wkeep[grp, base] != 0.0 and wkeep[grp, base + 1] != 0.0 and wkeep[grp, base + 2] != 0.0:
                            continue
                        b0 = wkeep[grp, base] * (Rm[0] * vec[0] + Rm[3] * vec[1] + Rm[6] * vec[2])
                        b1 = wkeep[grp, base + 1] * (Rm[1] * vec[0] + Rm[4] * vec[1] + Rm[7] * vec[2])
                        b2 = wkeep[grp, base + 2] * (Rm[2] * vec[0] + Rm[5] * vec[1] + Rm[8] * vec[2])
                        vec[0] = Rm[0] * b0 + Rm[1] * b1 + Rm[2] * b2
                        vec[1] = Rm[3] * b0 + Rm[4] * b1 + Rm[5] * b2
                        vec[2] = Rm[6] * b0 + Rm[7] * b1 + Rm[8] * b2
                    Td[0] = Mr[0] - (r1 * Fd[2] - r2 * Fd[1])
                    Td[1] = Mr[1] - (r2 * Fd[0] - r0 * Fd[2])
                    Td[2] = Mr[2] - (r0 * Fd[1] - r1 * Fd[0])
                if fl[F_DAMP] != 0 and mark == 1 and A == A and A > 0.0:
                    gn = sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2])
                    if gn > 0.0:
                        n0 = -g[0] / gn
                        n1 = -g[1] / gn
                        n2 = -g[2] / gn
                        lx = mats[k, 0, 0] * n0 + mats[k, 1, 0] * n1 + mats[k, 2, 0] * n2
                        ly = mats[k, 0, 1] * n0 + mats[k, 1, 1] * n1 + mats[k, 2, 1] * n2
                        lz = mats[k, 0, 2] * n0 + mats[k, 1, 2] * n1 + mats[k, 2, 2] * n2
                        mid = mesh_ids[k] if typ == 7 else 0
                        v0 = hulls[1][mid] if typ == 7 else 0
                        v1 = hulls[1][mid + 1] if typ == 7 else 0
                        hmax, hmin = support_local(typ, gsz[k], lx, ly, lz, hulls[0], v0, v1)
                        B = C_S * rho * A * sqrt(gn * (hmax - hmin))
                        vn = v[0] * n0 + v[1] * n1 + v[2] * n2
                        Fd[0] -= B * vn * n0
                        Fd[1] -= B * vn * n1
                        Fd[2] -= B * vn * n2
                        wnn = w0 * n0 + w1 * n1 + w2 * n2
                        bt = B * A / 12.0
                        Td[0] -= bt * (w0 - wnn * n0)
                        Td[1] -= bt * (w1 - wnn * n1)
                        Td[2] -= bt * (w2 - wnn * n2)
                if record:
                    led[L_PDRAG] += (Fd[0] * vab0 + Fd[1] * vab1 + Fd[2] * vab2
                                     + Td[0] * w0 + Td[1] * w1 + Td[2] * w2)
                for a in range(3):
                    F[a] += Fd[a]
                    T[a] += Td[a]
            _apply(b, F, T, x, bch, bnd, broot, cdof, scom, qfrc, qmine)

    # ---- gravity fields over each body's mass distribution (second order)
    if gk != 0:
        Iw = np.empty((3, 3))
        for b in range(1, bmass.shape[0]):
            m = bmass[b]
            if m <= 0.0 or bnd[b] == 0:
                continue
            for a in range(3):
                x[a] = xipos[b, a]
            if gk == 3:
                c = _cell_of(x, cpl, cnp)
                if c >= 0 and cf[c, C_G] == cf[c, C_G]:
                    for a in range(3):
                        g[a] = cf[c, C_G + a]
                    K = cf[c, C_K]
                else:
                    for a in range(3):
                        g[a] = gf[a]
                    K = 0.0
                for a in range(3):
                    F[a] = m * g[a]
                    T[a] = 0.0
                if record:
                    led[L_UGRAV] += m * (-(g[0] * x[0] + g[1] * x[1] + g[2] * x[2]) + K)
            else:
                _grav_at(gk, gf, x, cf, cf, g)
                for a in range(3):
                    F[a] = m * g[a]
                # I_world = R diag(I) R^T; torque_i = eps_iab (G I)_ab
                for a in range(3):
                    for bb in range(3):
                        s = 0.0
                        for q in range(3):
                            s += ximat[b, 3 * a + q] * binert[b, q] * ximat[b, 3 * bb + q]
                        Iw[a, bb] = s
                if gk == 1:
                    rx = x[0] - gf[4]
                    ry = x[1] - gf[5]
                    rz = x[2] - gf[6]
                    R2 = rx * rx + ry * ry + rz * rz
                    s3 = 3.0 * gf[3] / (R2 * R2 * sqrt(R2))
                    IR0 = Iw[0, 0] * rx + Iw[0, 1] * ry + Iw[0, 2] * rz
                    IR1 = Iw[1, 0] * rx + Iw[1, 1] * ry + Iw[1, 2] * rz
                    IR2 = Iw[2, 0] * rx + Iw[2, 1] * ry + Iw[2, 2] * rz
                    T[0] = s3 * (ry * IR2 - rz * IR1)
                    T[1] = s3 * (rz * IR0 - rx * IR2)
                    T[2] = s3 * (rx * IR1 - ry * IR0)
                else:
                    GI = np.zeros((3, 3))
                    for a in range(3):
                        for bb in range(3):
                            s = 0.0
                            for q in range(3):
                                s += gf[10 + 3 * a + q] * Iw[q, bb]
                            GI[a, bb] = s
                    # tau_i = eps_iab (G I)_ab with I the world inertia tensor about the CoM
                    T[0] = GI[1, 2] - GI[2, 1]
                    T[1] = GI[2, 0] - GI[0, 2]
                    T[2] = GI[0, 1] - GI[1, 0]
                if record:
                    led[L_UGRAV] += m * _phi(gk, gf, x)
            _apply(b, F, T, x, bch, bnd, broot, cdof, scom, qfrc, qmine)

    # ---- declared hydrodynamic damping (Fossen), at the body origin, body axes
    nu = np.empty(6)
    tau = np.empty(6)
    for it in range(di.shape[0]):
        if fl[F_DAMP] == 0:
            break
        b = di[it, 0]
        s = wfrac[di[it, 1]] if di[it, 1] >= 0 else 1.0
        if s <= 0.0:
            continue
        for a in range(3):
            x[a] = xpos[b, a]
        _pointvel(b, x, broot, cvel, scom, v)
        c = _cell_of(x, cpl, cnp)
        vab0 = v[0]
        vab1 = v[1]
        vab2 = v[2]
        if c >= 0:
            for a in range(3):
                v[a] -= cf[c, C_FLOW + a]
        for a in range(3):
            nu[a] = xmat[b, a] * v[0] + xmat[b, 3 + a] * v[1] + xmat[b, 6 + a] * v[2]
            nu[3 + a] = xmat[b, a] * cvel[b, 0] + xmat[b, 3 + a] * cvel[b, 1] + xmat[b, 6 + a] * cvel[b, 2]
        for i in range(6):
            acc = 0.0
            for j in range(6):
                acc += df[it, 6 * i + j] * nu[j] + df[it, 36 + 6 * i + j] * abs(nu[i]) * nu[j]
            tau[i] = s * acc
        for a in range(3):
            F[a] = xmat[b, 3 * a] * tau[0] + xmat[b, 3 * a + 1] * tau[1] + xmat[b, 3 * a + 2] * tau[2]
            T[a] = xmat[b, 3 * a] * tau[3] + xmat[b, 3 * a + 1] * tau[4] + xmat[b, 3 * a + 2] * tau[5]
        if record:
            led[L_PDRAG] += (F[0] * vab0 + F[1] * vab1 + F[2] * vab2
                             + T[0] * cvel[b, 0] + T[1] * cvel[b, 1] + T[2] * cvel[b, 2])
        _apply(b, F, T, x, bch, bnd, broot, cdof, scom, qfrc, qmine)

    # ---- added mass: metric into M, velocity-product terms as forces
    if fl[F_ADDED] != 0:
        _added_mass(ai, af, gi, gvol, vols, cf, wfrac, bch, bnd, broot, xpos, xmat, gxpos, gxmat,
                    cdof, cdof_dot, scom, cvel, qvel, Mmap, M, qfrc, qmine)
        _added_mass_surface(ai, af, gi, gsz, gvol, gcl, gw, wvol, wfrac, rho_max, areas, cf, cpl, one, onesg,
                            bch, bnd, broot, xpos, xmat, gxpos, gxmat, cdof, scom, qvel, qfrc, qmine)

    if record:
        ke = 0.0
        for i in range(nv):
            for j in range(i + 1):
                idx = Mmap[i, j]
                if idx < 0:
                    continue
                if i == j:
                    ke += 0.5 * M[idx] * qvel[i] * qvel[i]
                else:
                    ke += M[idx] * qvel[i] * qvel[j]
        led[L_KE] = ke
        if gk == 0:
            ug = 0.0
            for b in range(1, bmass.shape[0]):
                ug -= bmass[b] * (gf[0] * xipos[b, 0] + gf[1] * xipos[b, 1] + gf[2] * xipos[b, 2])
            led[L_UGRAV] = ug


@njit(cache=True)
def _ellipsoid_a2(typ, sz):
    """The semi-axes squared of the ellipsoid of a geom's sizes."""
    a2 = np.empty(3)
    if typ == T_SPHERE:
        a2[:] = sz[0] ** 2
    elif typ == T_CYLINDER:
        a2[0] = a2[1] = sz[0] ** 2
        a2[2] = sz[1] ** 2
    elif typ == T_CAPSULE:
        a2[0] = a2[1] = sz[0] ** 2
        a2[2] = (sz[0] + sz[1]) ** 2
    else:
        for a in range(3):
            a2[a] = sz[a] ** 2
    return a2


@njit(cache=True)
def _added_mass_surface(ai, af, gi, gsz, gvol, gcl, gw, wvol, wfrac, rho_max, areas, cf, cpl, one, onesg,
                        bch, bnd, broot, xpos, xmat, gxpos, gxmat, cdof, scom, qvel, qfrc, qmine):
    """The terms of an item's submerged fraction s(q), in generalized coordinates:
    T = 1/2 qdot' s K qdot, K = J' A1 J (A1 the item's world added mass, unscaled), so
    Euler-Lagrange adds  -sdot K qdot + 1/2 (qdot' K qdot) ds/dq  to the generalized force, with
    ds/dq = sum_k sum_c -rho_c A_kc / den  J_kc' n_c  (J_kc the linear Jacobian of the section
    centroid x_kc of geom k on cell c's one face n.x <= d, section area A_kc).  A geom item
    (kind 1): its own geom, den = its volume V (s = sum_c rho_c V_c / V).  A declared item
    (kind 0): every displacement geom k of its weld group w, den = rho_max V_w (s = the group's
    fraction sum_k sum_c rho_c V_kc / (rho_max V_w)); none when fully immersed by declaration
    (group -1) or when s = 0.  x_kc is the section centre of the geom's ellipsoid (semi-axes from
    its sizes, centred at the geom's position for a geom item and at its full-volume centroid
    for a declared one): x0 + t Q n / (n' Q n), Q = R diag(a^2) R', t = d - n.x0."""
    nc = areas.shape[1]
    ng = areas.shape[0]
    for it in range(ai.shape[0]):
        kind = ai[it, 0]
        b = ai[it, 1]
        oid = ai[it, 2]
        ks = np.empty(0, dtype=np.int64)
        if kind == 1:
            ks = np.array([ai[it, 3]], dtype=np.int64)
            den = gvol[ai[it, 3]]
        else:
            grp = ai[it, 3]
            if grp < 0 or not (rho_max > 0.0) or not (wvol[grp] > 0.0) or wfrac[grp] <= 0.0:
                continue
            den = rho_max * wvol[grp]
            sel = []
            for k in range(ng):
                if gi[k, 3] == 1 and gw[k] == grp:
                    sel.append(k)
            ks = np.array(sel, dtype=np.int64)
        anyc = False
        for k in ks:
            for c in range(nc):
                if areas[k, c] > 0.0 and one[c] == 1:
                    anyc = True
        if not anyc:
            continue
        nd = bnd[b]
        rr = broot[b]
        R = np.empty((3, 3))
        p = np.empty(3)
        for a in range(3):
            if kind == 1:
                p[a] = gxpos[oid, a]
            else:
                p[a] = xpos[oid, a]
            for c2 in range(3):
                R[a, c2] = gxmat[oid, 3 * a + c2] if kind == 1 else xmat[oid, 3 * a + c2]
        # Jacobian of the point p (lin, ang) per chain dof
        def_jac = np.zeros((6, nd))
        for kk in range(nd):
            j = bch[b, kk]
            r0 = p[0] - scom[rr, 0]
            r1 = p[1] - scom[rr, 1]
            r2 = p[2] - scom[rr, 2]
            def_jac[0, kk] = cdof[j, 3] + cdof[j, 1] * r2 - cdof[j, 2] * r1
            def_jac[1, kk] = cdof[j, 4] + cdof[j, 2] * r0 - cdof[j, 0] * r2
            def_jac[2, kk] = cdof[j, 5] + cdof[j, 0] * r1 - cdof[j, 1] * r0
            def_jac[3, kk] = cdof[j, 0]
            def_jac[4, kk] = cdof[j, 1]
            def_jac[5, kk] = cdof[j, 2]
        A1 = np.zeros((6, 6))
        Rr = np.zeros((6, 6))
        Rr[:3, :3] = R
        Rr[3:, 3:] = R
        Al = np.empty((6, 6))
        for i in range(6):
            for j in range(6):
                Al[i, j] = af[it, 6 * i + j]
        A1 = Rr @ Al @ Rr.T
        K = def_jac.T @ A1 @ def_jac  # (nd, nd)
        qd = np.empty(nd)
        for kk in range(nd):
            qd[kk] = qvel[bch[b, kk]]
        Kq = K @ qd
        kin = qd @ Kq
        grad = np.zeros(nd)
        for k in ks:
            gid = gi[k, 0]
            Rg = np.empty((3, 3))
            x0 = np.empty(3)
            for a in range(3):
                for c2 in range(3):
                    Rg[a, c2] = gxmat[gid, 3 * a + c2]
            if kind == 1:
                x0[:] = p
            else:
                for a in range(3):
                    x0[a] = gxpos[gid, a]
                x0 += Rg @ gcl[k]
            Q = Rg @ np.diag(_ellipsoid_a2(gi[k, 2], gsz[k])) @ Rg.T
            for c in range(nc):
                A = areas[k, c]
                if not (A > 0.0) or one[c] != 1:
                    continue
                n = cpl[c, int(onesg[c]), :3]
                t = cpl[c, int(onesg[c]), 3] - n @ x0
                Qn = Q @ n
                xc = x0 - p + t * Qn / (n @ Qn)  # x_c - p
                # linear Jacobian of x_c: J_lin + [w] x (x_c - p) -> lin - (x_c - p) x ang
                for kk in range(nd):
                    w = def_jac[3:, kk].copy()
                    vlin = def_jac[:3, kk] + np.cross(w, xc)
                    grad[kk] += -cf[c, C_RHO] * A / den * (n @ vlin)
        sdot = grad @ qd
        f = -sdot * Kq + 0.5 * kin * grad
        for kk in range(nd):
            j = bch[b, kk]
            qfrc[j] += f[kk]
            qmine[j] += f[kk]


@njit(cache=True)
def _added_mass(ai, af, gi, gvol, vols, cf, wfrac, bch, bnd, broot, xpos, xmat, gxpos, gxmat,
                cdof, cdof_dot, scom, cvel, qvel, Mmap, M, qfrc, qmine):
    """M += J^T A_w J per item; wrench -(A_w b + [w]x P + (0, v x P_lin)) at the item's point.

    A_w = blkdiag(R, R) A blkdiag(R, R)^T (world axes at the point p), J the 6 x nv
    (lin, ang) Jacobian of p, b = the spatial velocity-product acceleration at p
    (sum cdof_dot qdot, moved to p, plus (w x u, 0)), P = A_w (v_p - u, w): the fluid impulse,
    u the densest cell's flow (Kirchhoff's equations in the frame moving with it). With
    these forces d/dt of 1/2 qdot^T (M + J^T A_w J) qdot is the power of the
    other forces (Kirchhoff's equations).
    """
    nc = vols.shape[1]
    Aw = np.empty((6, 6))
    Rb = np.empty((3, 3))
    p = np.empty(3)
    V = np.empty(6)
    bias = np.empty(6)
    P = np.empty(6)
    F = np.empty(3)
    T = np.empty(3)
    for it in range(ai.shape[0]):
        kind = ai[it, 0]
        b = ai[it, 1]
        oid = ai[it, 2]
        if kind == 1:
            k = ai[it, 3]
            s = 0.0
            for c in range(nc):
                s += cf[c, C_RHO] * vols[k, c]
            s /= gvol[k]
            for a in range(3):
                p[a] = gxpos[oid, a]
                for c2 in range(3):
                    Rb[a, c2] = gxmat[oid, 3 * a + c2]
        else:
            s = wfrac[ai[it, 3]] if ai[it, 3] >= 0 else 1.0
            for a in range(3):
                p[a] = xpos[oid, a]
                for c2 in range(3):
                    Rb[a, c2] = xmat[oid, 3 * a + c2]
        if s <= 0.0:
            continue
        # A_w = s * Rr A Rr^T
        for i in range(6):
            for j in range(6):
                acc = 0.0
                bi = 3 * (i // 3)
                bj = 3 * (j // 3)
                for q in range(3):
                    for r in range(3):
                        acc += Rb[i - bi, q] * af[it, 6 * (bi + q) + bj + r] * Rb[j - bj, r]
                Aw[i, j] = s * acc
        nd = bnd[b]
        rr = broot[b]
        dx = p[0] - scom[rr, 0]
        dy = p[1] - scom[rr, 1]
        dz = p[2] - scom[rr, 2]
        J = np.empty((6, nd))
        for kk in range(nd):
            j = bch[b, kk]
            w0 = cdof[j, 0]
            w1 = cdof[j, 1]
            w2 = cdof[j, 2]
            J[0, kk] = cdof[j, 3] + w1 * dz - w2 * dy
            J[1, kk] = cdof[j, 4] + w2 * dx - w0 * dz
            J[2, kk] = cdof[j, 5] + w0 * dy - w1 * dx
            J[3, kk] = w0
            J[4, kk] = w1
            J[5, kk] = w2
        # M += J^T Aw J (lower triangle of the chain)
        AJ = np.zeros((6, nd))
        for i in range(6):
            for kk in range(nd):
                acc = 0.0
                for q in range(6):
                    acc += Aw[i, q] * J[q, kk]
                AJ[i, kk] = acc
        for k1 in range(nd):
            j1 = bch[b, k1]
            for k2 in range(nd):
                j2 = bch[b, k2]
                if j2 > j1:
                    continue
                acc = 0.0
                for q in range(6):
                    acc += J[q, k1] * AJ[q, k2]
                idx = Mmap[j1, j2]
                if idx >= 0:
                    M[idx] += acc
        # velocities and the velocity-product acceleration at p
        for i in range(6):
            V[i] = 0.0
            bias[i] = 0.0
        for kk in range(nd):
            j = bch[b, kk]
            qd = qvel[j]
            for i in range(6):
                V[i] += J[i, kk] * qd
            for i in range(6):
                bias[i] += cdof_dot[j, i] * qd  # (rot, lin) at the subtree com
        # spatial -> at p: lin += rot x (p - c); reorder to (lin, ang)
        b0 = bias[3] + bias[1] * dz - bias[2] * dy
        b1 = bias[4] + bias[2] * dx - bias[0] * dz
        b2 = bias[5] + bias[0] * dy - bias[1] * dx
        r0 = bias[0]
        r1 = bias[1]
        r2 = bias[2]
        bias[0] = b0
        bias[1] = b1
        bias[2] = b2
        bias[3] = r0
        bias[4] = r1
        bias[5] = r2
        # relative to the water: the densest cell's flow u (uniform, constant): V_r = (v - u, w),
        # and the body-frame derivative of u adds w x u to the relative acceleration
        dense = 0
        for c in range(nc):
            if cf[c, C_RHO] > cf[dense, C_RHO]:
                dense = c
        if nc > 0:
            u0 = cf[dense, C_FLOW]
            u1 = cf[dense, C_FLOW + 1]
            u2 = cf[dense, C_FLOW + 2]
            if u0 != 0.0 or u1 != 0.0 or u2 != 0.0:
                V[0] -= u0
                V[1] -= u1
                V[2] -= u2
                bias[0] += V[4] * u2 - V[5] * u1
                bias[1] += V[5] * u0 - V[3] * u2
                bias[2] += V[3] * u1 - V[4] * u0
        for i in range(6):
            acc = 0.0
            for q in range(6):
                acc += Aw[i, q] * V[q]
            P[i] = acc
        w0 = V[3]
        w1 = V[4]
        w2 = V[5]
        for i in range(3):
            acc = 0.0
            acc2 = 0.0
            for q in range(6):
                acc += Aw[i, q] * bias[q]
                acc2 += Aw[3 + i, q] * bias[q]
            F[i] = -acc
            T[i] = -acc2
        # - w x P_lin ; - w x H - v x P_lin
        F[0] -= w1 * P[2] - w2 * P[1]
        F[1] -= w2 * P[0] - w0 * P[2]
        F[2] -= w0 * P[1] - w1 * P[0]
        T[0] -= (w1 * P[5] - w2 * P[4]) + (V[1] * P[2] - V[2] * P[1])
        T[1] -= (w2 * P[3] - w0 * P[5]) + (V[2] * P[0] - V[0] * P[2])
        T[2] -= (w0 * P[4] - w1 * P[3]) + (V[0] * P[1] - V[1] * P[0])
        # generalized force J^T (F, T)
        for kk in range(nd):
            j = bch[b, kk]
            q = 0.0
            for i in range(3):
                q += J[i, kk] * F[i] + J[3 + i, kk] * T[i]
            qfrc[j] += q
            qmine[j] += q
