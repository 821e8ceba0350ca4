"""The MuJoCo Warp kernels of the hydrostatics (aurgen.runtime.mjwarp's device side), mirroring the
force stage function for function (docs/runtime.md "MuJoCo Warp": ``_support`` kernel.h SupportLocal,
``_box_clip1`` / ``_clip_row`` clip_box.cc BoxClip1 / BoxClipRow, the smooth shapes in runtime/mjwarp/smooth.py,
the sea in runtime/mjwarp/sea.py, ``pieces`` forces_pieces.cc Pieces and Wrenches, ``dampers`` forces_damping.cc Damping, ``project``
Project). float64 inside, float32 state; built on first use (``kernels()``, no warp import here).
"""

import mujoco

from aurgen.runtime.mjwarp import box as mjwarp_box
from aurgen.runtime.mjwarp import gravity as mjwarp_gravity
from aurgen.runtime.mjwarp import mesh as mjwarp_mesh
from aurgen.runtime.mjwarp import sea as mjwarp_sea
from aurgen.runtime.mjwarp import smooth as mjwarp_smooth

_KERNELS = None


def kernels():
    """The Warp functions and kernels, built once (Warp compiles a module on first launch)."""
    global _KERNELS
    if _KERNELS is not None:
        return _KERNELS
    import warp as wp
    # forward only: nothing differentiates the hydrostatics, and without the adjoints the module's source is a
    # fraction of the size (MuJoCo Warp's own modules are built so too)
    wp.set_module_options({"enable_backward": False})
    f64, vec3d, mat33d = wp.float64, wp.vec3d, wp.mat33d
    vec5d, vec6d = (wp.types.vector(length=n, dtype=wp.float64) for n in (5, 6))
    G = mujoco.mjtGeom
    BOX, SPHERE, ELLIPSOID, CYLINDER, CAPSULE, MESH = (int(t) for t in (
        G.mjGEOM_BOX, G.mjGEOM_SPHERE, G.mjGEOM_ELLIPSOID, G.mjGEOM_CYLINDER, G.mjGEOM_CAPSULE, G.mjGEOM_MESH))

    # the box tier (clip_box.cc) and a mesh's hull: runtime/mjwarp/box.py, runtime/mjwarp/mesh.py
    _box_clip1 = mjwarp_box.build(wp, vec5d)
    mesh = mjwarp_mesh.build(wp, vec5d)
    _mesh_support, _mesh_clip = mesh["support"], mesh["clip"]

    @wp.func
    def _support(typ: int, size: vec3d, l: vec3d) -> f64:
        # kernel.h SupportLocal: the half-extent of the geom along the unit l (its frame)
        if typ == BOX:
            return size[0] * wp.abs(l[0]) + size[1] * wp.abs(l[1]) + size[2] * wp.abs(l[2])
        if typ == ELLIPSOID:
            a = size[0] * l[0]
            b = size[1] * l[1]
            c = size[2] * l[2]
            return wp.sqrt(a * a + b * b + c * c)
        if typ == CYLINDER:
            return size[0] * wp.sqrt(l[0] * l[0] + l[1] * l[1]) + size[1] * wp.abs(l[2])
        if typ == CAPSULE:  # segment +-h z swept by a ball: h |l_z| + r |l|
            return size[1] * wp.abs(l[2]) + size[0] * wp.length(l)
        return size[0] * wp.length(l)  # a sphere: r |l| (|l| is 1 but for the pose's rounding)

    # the smooth shapes' one-plane tiers (clip_smooth.cc), runtime/mjwarp/smooth.py
    smooth = mjwarp_smooth.build(wp, vec5d)
    _ellipsoid1, _cylinder1, _capsule1 = smooth["ellipsoid1"], smooth["cylinder1"], smooth["capsule1"]

    @wp.func
    def _clip_row(typ: int, size: vec3d, vfull: f64, pos: vec3d, R: mat33d, pl: wp.vec4d
                  ) -> vec5d:
        # clip_box.cc BoxClipRow and kernel.cc Smooth1's one-plane tiers: volume, centroid (world;
        # the geom centre when dry) and section area of geom n.x <= d, clipped in the geom frame
        row = vec5d()
        n = vec3d(pl[0], pl[1], pl[2])
        l = wp.transpose(R) @ n
        t = pl[3] - wp.dot(n, pos)
        h = _support(typ, size, l)
        row[1] = pos[0]
        row[2] = pos[1]
        row[3] = pos[2]
        if -h >= t:
            return row
        if h <= t:
            row[0] = vfull
            return row
        acc = vec5d()
        if typ == BOX:
            acc = _box_clip1(size[0], size[1], size[2], l, t)
        elif typ == SPHERE:  # Smooth1: the ellipsoid of semi-axes (r, r, r)
            acc = _ellipsoid1(vec3d(size[0], size[0], size[0]), l, t)
        elif typ == ELLIPSOID:
            acc = _ellipsoid1(size, l, t)
        elif typ == CYLINDER:
            acc = _cylinder1(size[0], size[1], l, t)
        else:
            acc = _capsule1(size[0], size[1], l, t)
        V = acc[0]
        if V > f64(0.0):
            c = R @ vec3d(acc[1] / V, acc[2] / V, acc[3] / V)
            row[0] = V
            row[1] = pos[0] + c[0]
            row[2] = pos[1] + c[1]
            row[3] = pos[2] + c[2]
            row[4] = acc[4]
        return row

    # a sea (sea.cc), runtime/mjwarp/sea.py
    sea = mjwarp_sea.build(wp, vec6d)
    _ramp, _tangent, _orbital, _plane, _fk = sea["ramp"], sea["tangent"], sea["orbital"], sea["plane"], sea["fk"]
    _moments, Scr, vec16i = sea["moments"], sea["Scr"], sea["vec16i"]  # runtime/mjwarp/sea_moments.py

    @wp.func
    def _dry(cv: int, w: int, c: int, geom_xpos: wp.array2d(dtype=wp.vec3), geom_xmat: wp.array2d(dtype=wp.mat33),
             gid: wp.array(dtype=int), gtype: wp.array(dtype=int), gsize: wp.array(dtype=vec3d),
             gcen: wp.array(dtype=vec3d), mrange: wp.array(dtype=wp.vec2i), mtri: wp.array(dtype=vec3d),
             planes: wp.array2d(dtype=wp.vec4d), nplanes: wp.array(dtype=int), srow: int, side: int, sea: int,
             comps: wp.array3d(dtype=f64), ws: int, sea_n: vec3d, sea_d: f64, rr: f64, tw: f64) -> bool:
        # geom cv has no part in cell c: wholly outside one of its planes (ForceStage::Exposed: its
        # piece's volume is 0; in a sea, against cv's own tangent plane, as ClipCells clips it)
        pos = vec3d(geom_xpos[w, gid[cv]])
        R = mat33d(geom_xmat[w, gid[cv]])
        typ = gtype[cv]
        tp = wp.vec4d()
        if sea != 0:
            tp = _tangent(comps, ws, sea_n, sea_d, rr, tw, pos + R @ gcen[cv])
        for j in range(nplanes[c]):
            pl = _plane(planes, c, j, srow, side, tp)
            n = vec3d(pl[0], pl[1], pl[2])
            l = wp.transpose(R) @ n
            t = pl[3] - wp.dot(n, pos)
            lo = -_support(typ, gsize[cv], l)
            if typ == MESH:
                lo = _mesh_support(mtri, mrange[cv][0], mrange[cv][1], l)[1]
            if lo >= t:
                return True
        return False

    # a gravity field (forces_gravity.cc GravityField, BodyGravity), runtime/mjwarp/gravity.py
    grav = mjwarp_gravity.build(wp)
    vec9d, _piece_g, _cell_at = grav["vec9d"], grav["piece_g"], grav["cell_at"]

    @wp.kernel
    def pieces(geom_xpos: wp.array2d(dtype=wp.vec3), geom_xmat: wp.array2d(dtype=wp.mat33),
               subtree_com: wp.array2d(dtype=wp.vec3), cvel: wp.array2d(dtype=wp.spatial_vector),
               body_rootid: wp.array(dtype=int), geom_bodyid: wp.array(dtype=int),
               gid: wp.array(dtype=int), gmark: wp.array(dtype=int), gtype: wp.array(dtype=int),
               gsize: wp.array(dtype=vec3d), gvol: wp.array(dtype=f64), gcen: wp.array(dtype=vec3d),
               mrange: wp.array(dtype=wp.vec2i), mtri: wp.array(dtype=vec3d),
               hrange: wp.array(dtype=wp.vec2i), hplanes: wp.array(dtype=wp.vec4d),
               planes: wp.array2d(dtype=wp.vec4d), nplanes: wp.array(dtype=int),
               rho: wp.array2d(dtype=f64), mu: wp.array2d(dtype=f64), flow: wp.array2d(dtype=vec3d),
               g: vec3d, gkind: int, gmu: f64, gcentre: vec3d, g0: vec3d, ggrad: vec9d,
               cellg: wp.array(dtype=vec3d), cellhas: wp.array(dtype=int), drag: int, buoy: int, damp: int,
               sea: int, sea_n: vec3d, sea_d: f64, depth: f64, deep: int, ramp: f64, time: wp.array(dtype=float),
               comps: wp.array3d(dtype=f64), lmax: wp.array2d(dtype=f64), gx: wp.array(dtype=f64),
               gw: wp.array(dtype=f64), sea_row: wp.array(dtype=int), sea_side: wp.array(dtype=int),
               fkm: int, fktol: f64, dby: wp.array2d(dtype=int), dstart: wp.array2d(dtype=int),
               ndir: wp.array(dtype=int), dirs: wp.array2d(dtype=vec3d), hpf: wp.array(dtype=int),
               hpv: wp.array(dtype=vec3d), hpr: wp.array(dtype=wp.vec2i), sv: wp.array2d(dtype=vec3d),
               sm: wp.array2d(dtype=int), ss: wp.array2d(dtype=f64), mf: int, mv: int,
               gexp: wp.array2d(dtype=f64), gcov: wp.array2d(dtype=int), gcd: wp.array(dtype=f64),
               gweld: wp.array(dtype=int),
               wkeep: wp.array2d(dtype=f64), wmode: wp.array(dtype=int), wbody: wp.array(dtype=int),
               xpos: wp.array2d(dtype=wp.vec3), xmat: wp.array2d(dtype=wp.mat33),
               out_m: wp.array2d(dtype=vec3d), out_f: wp.array2d(dtype=vec3d), out_rv: wp.array2d(dtype=f64),
               flags: wp.array(dtype=int)):
        w, k = wp.tid()
        wi = wp.where(rho.shape[0] > 1, w, 0)  # the row of the per-world cells (one row: every world's)
        gi = gid[k]
        b = geom_bodyid[gi]
        pos = vec3d(geom_xpos[w, gi])
        R = mat33d(geom_xmat[w, gi])
        sc = vec3d(subtree_com[w, body_rootid[b]])
        cv = cvel[w, b]
        om = vec3d(f64(cv[0]), f64(cv[1]), f64(cv[2]))
        vl = vec3d(f64(cv[3]), f64(cv[4]), f64(cv[5]))
        typ = gtype[k]
        size = gsize[k]
        vfull = gvol[k]
        displaces = gmark[k] == 1
        deq = wp.pow(f64(6.0) * vfull / f64(3.141592653589793), f64(1.0) / f64(3.0))
        Fs = vec3d()
        Ms = vec3d()
        rv = f64(0.0)
        ws = int(0)
        if comps.shape[0] > 1:
            ws = w
        tw = f64(time[w])
        rr = f64(0.0)
        tp = wp.vec4d()
        if sea != 0:  # the geom's tangent plane of the sea, at its full volume's centroid
            rr = _ramp(ramp, tw)
            tp = _tangent(comps, ws, sea_n, sea_d, rr, tw, pos + R @ gcen[k])
        for c in range(nplanes.shape[0]):
            side = int(0)
            srow = int(-1)
            if sea != 0:
                side = sea_side[c]
                srow = sea_row[c]
            rc = rho[wi, c]
            if not displaces and rc >= f64(10.0):
                continue
            # the planes of cell c at this geom: one cutting at most (ClipGeom's support test)
            outside = bool(False)
            ncut = int(0)
            jc = int(0)
            for j in range(nplanes[c]):
                pl = _plane(planes, c, j, srow, side, tp)
                n = vec3d(pl[0], pl[1], pl[2])
                l = wp.transpose(R) @ n
                t = pl[3] - wp.dot(n, pos)
                hh = wp.vec2d(_support(typ, size, l), -_support(typ, size, l))  # (max, min) of l.x
                if typ == MESH:
                    hh = _mesh_support(mtri, mrange[k][0], mrange[k][1], l)
                if hh[1] >= t:
                    outside = True
                elif hh[0] > t:
                    ncut += 1
                    jc = j
            if outside:
                continue
            V = vfull
            x = pos + R @ gcen[k]
            A = f64(0.0)
            if ncut > 1:
                flags[w] = 1  # two planes of one cell cut this geom: not served (the piece left out)
                continue
            if ncut == 1 and typ == MESH:
                pl = _plane(planes, c, jc, srow, side, tp)
                n = vec3d(pl[0], pl[1], pl[2])
                acc = _mesh_clip(mtri, mrange[k][0], mrange[k][1], wp.transpose(R) @ n, pl[3] - wp.dot(n, pos))
                V = acc[0]
                if V > f64(0.0):
                    x = pos + R @ (vec3d(acc[1], acc[2], acc[3]) / V)
                A = acc[4]
            elif ncut == 1:
                row = _clip_row(typ, size, vfull, pos, R, _plane(planes, c, jc, srow, side, tp))
                V = row[0]
                x = vec3d(row[1], row[2], row[3])
                A = row[4]
            if V <= f64(0.0):
                continue
            if displaces:
                rv += rc * V
            gp = _piece_g(gkind, g, gmu, gcentre, g0, ggrad, cellg, cellhas, c, x)  # the piece's g
            gn = wp.length(gp)
            F = vec3d()
            T = vec3d()
            if displaces and buoy != 0:
                F = -rc * V * gp
            dx = x - sc
            vab = vl + wp.cross(om, dx)
            v = vab - flow[wi, c]
            if side > 0:  # the orbital velocity at the piece's centroid (SeaFlow)
                v = v - _orbital(comps, ws, sea_n, sea_d, depth, deep, rr, tw, x)
            f = V / vfull
            Fd = vec3d()
            Td = vec3d()
            wg = gweld[k]
            wm = int(0)
            if displaces:
                wm = wmode[wg]
            cd = gcd[k]
            if drag != 0 and wm != 2:
                lv = wp.transpose(R) @ v
                sp2 = wp.dot(v, v)
                dq = f64(0.0)
                pr = vec3d(size[1] * size[2], size[0] * size[2], size[0] * size[1])
                fl = vec3d()  # a box's or mesh's per-axis force, geom frame (forces_pieces.cc FaceAreas)
                if typ == BOX or typ == MESH:
                    gn2 = wp.dot(gp, gp)
                    su = f64(0.0)
                    if gn2 > f64(0.0):
                        cs = f64(1.0)
                        if rc < f64(10.0):  # a gas cell: its cut faces down
                            cs = f64(-1.0)
                        su = -cs / wp.sqrt(gn2)
                    upw = vec3d(gp[0] * su, gp[1] * su, gp[2] * su)
                    lu = wp.transpose(R) @ upw
                    for i in range(3):
                        q = lu[i] * lu[i]
                        wet = f + (f64(1.0) - f) * q
                        em = gexp[k, 2 * i]
                        ep = gexp[k, 2 * i + 1]
                        if em != f64(1.0) and gcov[k, 2 * i] >= 0:  # ForceStage::Exposed
                            if _dry(gcov[k, 2 * i], w, c, geom_xpos, geom_xmat, gid, gtype, gsize, gcen, mrange, mtri,
                                    planes, nplanes, srow, side, sea, comps, ws, sea_n, sea_d, rr, tw):
                                em = f64(1.0)
                        if ep != f64(1.0) and gcov[k, 2 * i + 1] >= 0:
                            if _dry(gcov[k, 2 * i + 1], w, c, geom_xpos, geom_xmat, gid, gtype, gsize, gcen, mrange,
                                    mtri, planes, nplanes, srow, side, sea, comps, ws, sea_n, sea_d, rr, tw):
                                ep = f64(1.0)
                        eu = ep
                        ed = em
                        if lu[i] < f64(0.0):
                            eu = em
                            ed = ep
                        if A > f64(0.0):
                            eu = eu + (f64(1.0) - eu) * q
                        ai = f64(2.0) * pr[i] * wet * (eu + ed) * wp.abs(lv[i])
                        fl[i] = -(f64(3.0) * f64(3.141592653589793) * mu[wi, c] * deq * f
                                  + f64(0.5) * rc * cd * ai) * lv[i]
                elif typ == ELLIPSOID:
                    pa = pr[0] * lv[0]
                    pb = pr[1] * lv[1]
                    pc = pr[2] * lv[2]
                    dq = f64(0.5) * rc * cd * (f64(3.141592653589793) * wp.sqrt(pa * pa + pb * pb + pc * pc))
                elif typ == CYLINDER or typ == CAPSULE:  # forces_pieces.cc ProjArea across u = lv / |v|, times |v|
                    sp = wp.sqrt(sp2)
                    uz = f64(0.0)
                    if sp > f64(0.0):
                        uz = lv[2] / sp
                    lat = wp.sqrt(wp.max(f64(1.0) - uz * uz, f64(0.0)))
                    ap = f64(4.0) * size[0] * size[1] * lat + f64(3.141592653589793) * size[0] * size[0] * wp.abs(uz)
                    if typ == CAPSULE:
                        ap = ap + f64(3.141592653589793) * size[0] * size[0] * lat
                    dq = f64(0.5) * rc * cd * ap * sp
                else:
                    dq = f64(0.5) * rc * cd * (f64(3.141592653589793) * size[0] * size[0]) * wp.sqrt(sp2)
                ncoef = -((f64(3.0) * f64(3.141592653589793) * mu[wi, c] * deq + dq) * f)
                if typ == BOX or typ == MESH:
                    Fd = R @ fl
                elif sp2 > f64(0.0):
                    Fd = ncoef * v
                wn = wp.length(om)
                nct = -((f64(3.141592653589793) * mu[wi, c] * deq * deq * deq
                         + rc * cd * wp.pow(deq, f64(5.0)) / f64(64.0) * wn) * f)
                Td = nct * om
                if wm == 1:  # one drag per degree of freedom: the declared ones taken out (Keep)
                    mb = wbody[wg]
                    Rm = mat33d(xmat[w, mb])
                    r = x - vec3d(xpos[w, mb])
                    Mo = Td + wp.cross(r, Fd)
                    # a half whose three components are all kept stays as it is (R^T R is 1 only to
                    # float32's precision in MuJoCo Warp's xmat)
                    if wkeep[wg, 0] * wkeep[wg, 1] * wkeep[wg, 2] == f64(0.0):
                        Fb = wp.transpose(Rm) @ Fd
                        Fd = Rm @ vec3d(Fb[0] * wkeep[wg, 0], Fb[1] * wkeep[wg, 1], Fb[2] * wkeep[wg, 2])
                    if wkeep[wg, 3] * wkeep[wg, 4] * wkeep[wg, 5] == f64(0.0):
                        Mb = wp.transpose(Rm) @ Mo
                        Mo = Rm @ vec3d(Mb[0] * wkeep[wg, 3], Mb[1] * wkeep[wg, 4], Mb[2] * wkeep[wg, 5])
                    Td = Mo - wp.cross(r, Fd)
            if damp != 0 and displaces and A > f64(0.0) and gn > f64(0.0):  # ForceStage::Up: up = -g / |g|
                up = -gp / gn
                lu = wp.transpose(R) @ up
                ext = f64(2.0) * _support(typ, size, lu)
                if typ == MESH:
                    he = _mesh_support(mtri, mrange[k][0], mrange[k][1], lu)
                    ext = he[0] - he[1]
                B = f64(0.3) * rc * A * wp.sqrt(gn * ext)
                Fd = Fd - B * wp.dot(v, up) * up
                Td = Td - B * A / f64(12.0) * (om - wp.dot(om, up) * up)
            F = F + Fd
            T = T + Td
            Fs = Fs + F
            Ms = Ms + T + wp.cross(dx, F)
            if side > 0 and displaces and buoy != 0:  # ForceStage::SeaForces
                # the volume moments where they serve (fkm: the sea's fk is moments), the columns where not
                # and for the components the moments' bound sends there (sea_moments.py); one call of the
                # columns (fk starts at 0: where the moments do not serve, 0 + the columns, the same bits)
                fk = wp.spatial_vectord()
                cols = int(1)
                only = vec16i()
                masked = int(0)
                if fkm != 0:
                    sc_ = Scr()
                    sc_.v = sv
                    sc_.m = sm
                    sc_.s = ss
                    sc_.slot = w * gid.shape[0] + k
                    sc_.mf = mf
                    sc_.mv = mv
                    mres = _moments(sc_, typ, size, hpr[k], hpf, hpv, pos, R, planes, c, nplanes[c], srow, tp, x,
                                    comps, ws, sea_n, sea_d, depth, deep, tw, rr, rc * gn, fktol, dby, dstart, ndir,
                                    dirs)
                    if mres.ok != 0:
                        fk = mres.w
                        if mres.nfb == 0:
                            cols = 0
                        only = mres.only
                        masked = 1
                if cols != 0:
                    fk = fk + _fk(typ, size, pos, R, gcen[k], hrange[k], hplanes, planes, c, nplanes[c], srow, tp,
                                  comps, ws, sea_n, sea_d, depth, deep, tw, rr, rc * gn, lmax, gx, gw, only, masked)
                Ff = vec3d(fk[0], fk[1], fk[2])
                Tf = vec3d(fk[3], fk[4], fk[5])
                Fs = Fs + Ff
                Ms = Ms + Tf + wp.cross(pos - sc, Ff)
        out_m[w, k] = Ms
        out_f[w, k] = Fs
        out_rv[w, k] = rv

    @wp.kernel
    def dampers(xpos: wp.array2d(dtype=wp.vec3), xmat: wp.array2d(dtype=wp.mat33),
                subtree_com: wp.array2d(dtype=wp.vec3), cvel: wp.array2d(dtype=wp.spatial_vector),
                body_rootid: wp.array(dtype=int), dbody: wp.array(dtype=int), dgroup: wp.array(dtype=int),
                D: wp.array2d(dtype=f64), Q: wp.array2d(dtype=f64),
                gweld: wp.array(dtype=int), wvol: wp.array(dtype=f64), rv: wp.array2d(dtype=f64),
                rho: wp.array2d(dtype=f64), flow: wp.array2d(dtype=vec3d),
                planes: wp.array2d(dtype=wp.vec4d), nplanes: wp.array(dtype=int),
                out_m: wp.array2d(dtype=vec3d), out_f: wp.array2d(dtype=vec3d)):
        # ForceStage::Damping: tau = s (D nu + Dq |nu| nu), nu in body axes relative to the flow of the
        # cell holding the body origin, s the weld group's submerged fraction (densest equivalent)
        w, i = wp.tid()
        wi = wp.where(rho.shape[0] > 1, w, 0)  # the row of the per-world cells (one row: every world's)
        b = dbody[i]
        s = f64(1.0)
        grp = dgroup[i]
        if grp >= 0:
            rmax = f64(0.0)
            for c in range(rho.shape[1]):
                rmax = wp.max(rmax, rho[wi, c])
            tot = f64(0.0)
            for k in range(gweld.shape[0]):
                if gweld[k] == grp:
                    tot += rv[w, k]
            s = f64(0.0)
            if rmax > f64(0.0) and wvol[grp] > f64(0.0):
                s = tot / rmax / wvol[grp]
        out_m[w, i] = vec3d()
        out_f[w, i] = vec3d()
        if s <= f64(0.0):
            return
        x = vec3d(xpos[w, b])
        sc = vec3d(subtree_com[w, body_rootid[b]])
        r = x - sc
        cv = cvel[w, b]
        om = vec3d(f64(cv[0]), f64(cv[1]), f64(cv[2]))
        v = vec3d(f64(cv[3]), f64(cv[4]), f64(cv[5])) + wp.cross(om, r)
        cx = _cell_at(planes, nplanes, x)
        if cx >= 0:
            v = v - flow[wi, cx]
        Rb = mat33d(xmat[w, b])
        vb = wp.transpose(Rb) @ v
        wb = wp.transpose(Rb) @ om
        nu = vec6d(vb[0], vb[1], vb[2], wb[0], wb[1], wb[2])
        tau = vec6d()
        for a in range(6):
            acc = f64(0.0)
            for j in range(6):
                acc += D[i, 6 * a + j] * nu[j] + Q[i, 6 * a + j] * wp.abs(nu[a]) * nu[j]
            tau[a] = s * acc
        F = Rb @ vec3d(tau[0], tau[1], tau[2])
        T = Rb @ vec3d(tau[3], tau[4], tau[5])
        out_m[w, i] = T + wp.cross(r, F)
        out_f[w, i] = F

    @wp.func
    def _on_dof(cd: wp.spatial_vector, m: vec3d, fo: vec3d) -> f64:  # the wrench (m, f) on a dof's cdof
        return (f64(cd[0]) * m[0] + f64(cd[1]) * m[1] + f64(cd[2]) * m[2]
                + f64(cd[3]) * fo[0] + f64(cd[4]) * fo[1] + f64(cd[5]) * fo[2])

    @wp.kernel
    def project(cdof: wp.array2d(dtype=wp.spatial_vector), isanc: wp.array2d(dtype=int),
                geom_bodyid: wp.array(dtype=int), gid: wp.array(dtype=int),
                gm: wp.array2d(dtype=vec3d), gf: wp.array2d(dtype=vec3d),
                nbg: int, bm: wp.array2d(dtype=vec3d), bf: wp.array2d(dtype=vec3d),
                dbody: wp.array(dtype=int), dm: wp.array2d(dtype=vec3d), df: wp.array2d(dtype=vec3d),
                qfrc: wp.array2d(dtype=float), qh: wp.array2d(dtype=f64)):
        # ForceStage::Project: each wrench (moment about its root's subtree com, force) on the
        # dofs its body hangs from, summed in geom, body (a gravity field's weights: nbg bodies) then
        # damper order (no atomics: deterministic);
        # qh keeps the sum in float64 (Hydro.qfrc), qfrc_passive gets it rounded to float32
        w, j = wp.tid()
        cd = cdof[w, j]
        q = f64(0.0)
        for k in range(gid.shape[0]):
            if isanc[geom_bodyid[gid[k]], j] != 0:
                q += _on_dof(cd, gm[w, k], gf[w, k])
        for b in range(nbg):
            if isanc[b, j] != 0:
                q += _on_dof(cd, bm[w, b], bf[w, b])
        for i in range(dbody.shape[0]):
            if isanc[dbody[i], j] != 0:
                q += _on_dof(cd, dm[w, i], df[w, i])
        qh[w, j] = q
        qfrc[w, j] = qfrc[w, j] + float(q)

    _KERNELS = {"pieces": pieces, "dampers": dampers, "project": project, "bodies": grav["bodies"],
                "vec9d": vec9d}
    return _KERNELS
