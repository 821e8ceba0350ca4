"""The hydrostatics on MuJoCo Warp (GPU, or Warp's CPU device): a passive-force callback.

    import mujoco_warp as mjw
    from aurgen.runtime import mjwarp
    from aurgen.runtime.sim import Simulation
    xml = Simulation("build/blueboat/blueboat.xml", water=1025).to_xml()  # or a built world's path
    m = mjwarp.put_model(xml)                 # mujoco_warp.put_model + the hydrostatics
    d = mjw.make_data(m.aurgen.mjm, nworld=4096)   # the plain MjModel (instance taken out)
    m.aurgen.set_cells(4096, density=rho)     # per-world water density (nworld, ncell), optional
    mjw.step(m, d)

MuJoCo Warp runs no engine plugins; its ``Model.callback.passive`` runs at the end of the passive
stage and may add to ``Data.qfrc_passive``, which is where the plugin's forces enter MuJoCo too.
It loads no engine plugin either (its put_model fails on a model declaring one), so an MJCF with the
``aurgen.hydrostatics`` instance is compiled again without it (:func:`plain_model`), its config kept.
This module is the second implementation of the force stage (runtime/native/core/forces.cc),
kept in one place and mirroring it function for function (docs/runtime.md "MuJoCo Warp"):
``_support`` is kernel.h SupportLocal, ``_box_clip1`` clip_box.cc BoxClip1, ``_clip_row`` clip_box.cc
BoxClipRow and (for a sphere) the one-plane cap tier of clip_smooth.cc, the piece
kernel ForceStage::Pieces and Wrenches (buoyancy, drag, surface damping), the damper kernel
ForceStage::Damping, the projection ForceStage::Project. The arithmetic is float64 inside the
kernels; MuJoCo Warp's state is float32, so forces agree with the plugin's to float32 precision
of the poses they are computed from (tests/runtime/test_mjwarp.py measures it).

What this first version serves, and refuses (``MjWarpRefused``, naming what and why): box and
sphere displacement and windage geoms; uniform gravity; any cells, each geom cut by at most one
plane of a cell at a time (a geom cut by two planes of one cell in some world, at a corner of a
tank, is flagged in ``m.aurgen.flags`` for that world and its piece in that cell left out:
docs/runtime.md); declared damping. Refused: added mass (it must enter the mass matrix, which a
passive callback cannot), a sea (``waves``), gravity fields and per-cell gravity, mesh, cylinder,
capsule and ellipsoid displacement geoms. The health ledger does not run here.

Frames and units: world frame, SI, as the plugin (docs/runtime.md).
"""

import math

import mujoco
import numpy as np

from aurgen.core.errors import AurgenError
from aurgen.runtime import env as envmod

MARK_DISPLACEMENT, MARK_WINDAGE = 1, 2
GAS_DENSITY = 10.0  # forces.GAS_DENSITY: a cell below it is a gas (windage geoms feel it)
C_D, C_S = 1.0, 0.3  # forces.cc kCD, kCS
_SERVED = {int(mujoco.mjtGeom.mjGEOM_BOX): "box", int(mujoco.mjtGeom.mjGEOM_SPHERE): "sphere"}


class MjWarpRefused(AurgenError):
    """A model this backend cannot serve (what, and why)."""


def _import():
    try:
        import mujoco_warp as mjw
        import warp as wp
    except ImportError as exc:
        raise MjWarpRefused(f"the MuJoCo Warp backend needs mujoco-warp and warp-lang "
                            f"(pip install 'aurgen[gpu]'): {exc}") from None
    return mjw, wp


# ---------------------------------------------------------------- the model's records (host)

def _plugin_flags(mjm) -> dict:
    """The plugin instance's drag / added_mass / buoyancy / damping (hydro.cc HydroConfig), if declared."""
    out = {"drag": True, "added_mass": True, "buoyancy": True, "damping": True}
    if mjm.nplugin < 1:
        return out
    names = ("drag", "added_mass", "buoyancy", "damping", "settle_window", "track", "ledger")
    raw = bytes(mjm.plugin_attr[int(mjm.plugin_attradr[0]):]).split(b"\0")
    for name, v in zip(names[:4], raw[:4]):
        v = v.decode("utf-8", "replace")
        if v in ("true", "1"):
            out[name] = True
        elif v in ("false", "0"):
            out[name] = False
        elif v:
            raise MjWarpRefused(f"the plugin instance's config key '{name}' is '{v}'; expected true or false")
    return out


def records(mjm, env, config=None) -> dict:
    """The arrays the kernels read, from the MjModel and its environment (numpy, float64);
    ``config`` the instance's switches where the model no longer carries it (plain_model)."""
    flags = _plugin_flags(mjm)
    for k, v in (config or {}).items():
        if k not in flags or not isinstance(v, (bool, np.bool_)):
            raise MjWarpRefused(f"config {k!r}: expected one of {sorted(flags)} with a bool value, got {v!r}")
        flags[k] = bool(v)
    if flags["added_mass"]:
        added = [mujoco.mj_id2name(mjm, mujoco.mjtObj.mjOBJ_NUMERIC, i) or "" for i in range(mjm.nnumeric)]
        added = [n for n in added if "aurgen:added_mass:" in n]
        ell = [g for g in range(mjm.ngeom) if mjm.geom_bodyid[g] != 0 and mjm.geom_fluid[g, 0] == 1.0]
        if added or ell:
            what = added[0] if added else f"geom {mujoco.mj_id2name(mjm, mujoco.mjtObj.mjOBJ_GEOM, ell[0]) or ell[0]}"
            raise MjWarpRefused(f"{what}: added mass must enter the mass matrix, which MuJoCo Warp's passive "
                                "callback cannot do; run this model with the plugin, or set the plugin's "
                                "added_mass=\"false\" to step it without added mass here")
    if env.waves is not None:
        raise MjWarpRefused("waves: the MuJoCo Warp backend has no sea yet; run a sea with the plugin")
    if env.gravity.kind != "uniform" or any(c.gravity is not None for c in env.cells):
        raise MjWarpRefused("gravity: the MuJoCo Warp backend serves uniform gravity only (no central, "
                            "linear or per-cell field yet)")
    user = mjm.geom_user[:, 0] if mjm.nuser_geom > 0 else np.zeros(mjm.ngeom)
    geoms = []
    for g in range(mjm.ngeom):
        mark = int(round(float(user[g]))) if abs(float(user[g])) < 1e9 else 0
        if mark not in (MARK_DISPLACEMENT, MARK_WINDAGE):
            continue
        typ = int(mjm.geom_type[g])
        if typ not in _SERVED:
            name = mujoco.mj_id2name(mjm, mujoco.mjtObj.mjOBJ_GEOM, g) or f"geom {g}"
            raise MjWarpRefused(f"{name}: a {mujoco.mjtGeom(typ).name[7:].lower()} displacement geom; the MuJoCo "
                                "Warp backend serves boxes and spheres so far")
        geoms.append((g, mark, typ))
    size = np.array([mjm.geom_size[g] for g, _, _ in geoms], float).reshape(-1, 3)
    vol = np.array([8 * s[0] * s[1] * s[2] if t == mujoco.mjtGeom.mjGEOM_BOX else 4 / 3 * math.pi * s[0] ** 3
                    for (_, _, t), s in zip(geoms, size)], float)
    welds, weld = [], []
    for g, _, _ in geoms:
        w = int(mjm.body_weldid[mjm.geom_bodyid[g]])
        if w not in welds:
            welds.append(w)
        weld.append(welds.index(w))
    wvol = np.zeros(max(len(welds), 1))
    for (g, mark, _), w, v in zip(geoms, weld, vol):
        if mark == MARK_DISPLACEMENT:
            wvol[w] += v
    nc = len(env.cells)
    kmax = max([int(np.count_nonzero(c.signs)) for c in env.cells] + [1])
    planes = np.zeros((max(nc, 1), kmax, 4))
    npl = np.zeros(max(nc, 1), np.int32)
    for c in range(nc):
        rows = env.cell_planes(c)
        planes[c, : len(rows)] = rows
        npl[c] = len(rows)
    dampers = _dampers(mjm, geoms, weld, flags)
    return {"flags": flags, "geom_id": np.array([g for g, _, _ in geoms], np.int32),
            "geom_mark": np.array([m for _, m, _ in geoms], np.int32),
            "geom_type": np.array([t for _, _, t in geoms], np.int32), "geom_size": size, "geom_volume": vol,
            "geom_weld": np.array(weld, np.int32), "weld_volume": wvol, "planes": planes, "nplanes": npl,
            "density": np.array([c.density for c in env.cells] or [0.0], float),
            "viscosity": np.array([c.viscosity for c in env.cells] or [0.0], float),
            "flow": np.array([c.flow for c in env.cells] or [(0.0, 0.0, 0.0)], float).reshape(-1, 3),
            "gravity": np.array(env.gravity.g, float), "ncell": nc, **dampers}


def _dampers(mjm, geoms, weld, flags) -> dict:
    """Declared damping per body (aurgen:damping_linear / _quadratic:<body>; plan.py's reading)."""
    D, Q = {}, {}
    for i in range(mjm.nnumeric):
        name = mujoco.mj_id2name(mjm, mujoco.mjtObj.mjOBJ_NUMERIC, i) or ""
        for tag, store in (("aurgen:damping_linear:", D), ("aurgen:damping_quadratic:", Q)):
            if tag in name:
                prefix, body = name.split(tag, 1)
                bid = mujoco.mj_name2id(mjm, mujoco.mjtObj.mjOBJ_BODY, prefix + body)
                if bid < 0:
                    raise MjWarpRefused(f"numeric {name!r}: no body {prefix + body!r}")
                a, n = int(mjm.numeric_adr[i]), int(mjm.numeric_size[i])
                if n != 36:
                    raise MjWarpRefused(f"numeric {name!r}: expected 36 values (a 6x6 matrix), got {n}")
                store[bid] = np.array(mjm.numeric_data[a:a + n], float)
    bodies = sorted(set(D) | set(Q)) if flags["damping"] else []
    groups = []
    for b in bodies:
        w = int(mjm.body_weldid[b])
        gw = [weld[k] for k, (g, mark, _) in enumerate(geoms)
              if mark == MARK_DISPLACEMENT and int(mjm.body_weldid[mjm.geom_bodyid[g]]) == w]
        groups.append(gw[0] if gw else -1)
    z = np.zeros(36)
    return {"damper_body": np.array(bodies, np.int32), "damper_group": np.array(groups, np.int32),
            "damper_D": np.array([D.get(b, z) for b in bodies], float).reshape(-1, 36),
            "damper_Q": np.array([Q.get(b, z) for b in bodies], float).reshape(-1, 36)}


# ---------------------------------------------------------------- kernels

_KERNELS = None


def _kernels():
    """The Warp functions and kernels, built once (Warp compiles a module on first launch)."""
    global _KERNELS
    if _KERNELS is not None:
        return _KERNELS
    _, wp = _import()
    f64 = wp.float64
    vec3d, mat33d = wp.vec3d, wp.mat33d
    vec8d = wp.types.vector(length=8, dtype=wp.float64)
    vec5d = wp.types.vector(length=5, dtype=wp.float64)
    vec6d = wp.types.vector(length=6, dtype=wp.float64)
    mat83d = wp.types.matrix(shape=(8, 3), dtype=wp.float64)
    BOX, SPHERE = int(mujoco.mjtGeom.mjGEOM_BOX), int(mujoco.mjtGeom.mjGEOM_SPHERE)

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

    @wp.func
    def _support(typ: int, size: vec3d, l: vec3d) -> f64:
        # kernel.h SupportLocal: the half-extent of the geom along the unit l (its frame)
        if typ == BOX:
            return size[0] * wp.abs(l[0]) + size[1] * wp.abs(l[1]) + size[2] * wp.abs(l[2])
        return size[0]

    @wp.func
    def _clip_row(typ: int, size: vec3d, vfull: f64, pos: vec3d, R: mat33d, pl: wp.vec4d
                  ) -> vec5d:
        # clip_box.cc BoxClipRow, and the sphere's one-plane cap (clip_smooth.cc): volume,
        # centroid (world; the geom centre when dry) and section area of geom n.x <= d
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
        if typ == BOX:
            acc = _box_clip1(size[0], size[1], size[2], l, t)
            V = acc[0]
            if V > f64(0.0):
                c = R @ vec3d(acc[1] / V, acc[2] / V, acc[3] / V)
                row[0] = V
                row[1] = pos[0] + c[0]
                row[2] = pos[1] + c[1]
                row[3] = pos[2] + c[2]
                row[4] = acc[4]
            return row
        r = size[0]  # a sphere: the cap of height hh = r + t below the plane
        hh = r + t
        V = f64(3.141592653589793) * hh * hh * (f64(3.0) * r - hh) / f64(3.0)
        off = f64(3.0) * (f64(2.0) * r - hh) * (f64(2.0) * r - hh) / (f64(4.0) * (f64(3.0) * r - hh))
        row[0] = V
        row[1] = pos[0] - off * n[0]
        row[2] = pos[1] - off * n[1]
        row[3] = pos[2] - off * n[2]
        row[4] = f64(3.141592653589793) * (r * r - t * t)
        return row

    @wp.kernel
    def pieces(geom_xpos: wp.array2d(dtype=wp.vec3), geom_xmat: wp.array2d(dtype=wp.mat33),
               subtree_com: wp.array2d(dtype=wp.vec3), cvel: wp.array2d(dtype=wp.spatial_vector),
               body_rootid: wp.array(dtype=int), geom_bodyid: wp.array(dtype=int),
               gid: wp.array(dtype=int), gmark: wp.array(dtype=int), gtype: wp.array(dtype=int),
               gsize: wp.array(dtype=vec3d), gvol: wp.array(dtype=f64),
               planes: wp.array2d(dtype=wp.vec4d), nplanes: wp.array(dtype=int),
               rho: wp.array2d(dtype=f64), mu: wp.array2d(dtype=f64), flow: wp.array2d(dtype=vec3d),
               g: vec3d, drag: int, buoy: int, damp: int,
               out_m: wp.array2d(dtype=vec3d), out_f: wp.array2d(dtype=vec3d), out_rv: wp.array2d(dtype=f64),
               flags: wp.array(dtype=int)):
        w, k = wp.tid()
        nwp = rho.shape[0]
        wi = w
        if nwp == 1:
            wi = 0
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
        gn = wp.length(g)
        up = -g / gn
        Fs = vec3d()
        Ms = vec3d()
        rv = f64(0.0)
        for c in range(nplanes.shape[0]):
            rc = rho[wi, c]
            if not displaces and rc >= f64(10.0):
                continue
            # the planes of cell c at this geom: one cutting at most (ClipGeom's support test)
            outside = bool(False)
            ncut = int(0)
            jc = int(0)
            for j in range(nplanes[c]):
                pl = planes[c, j]
                n = vec3d(pl[0], pl[1], pl[2])
                l = wp.transpose(R) @ n
                t = pl[3] - wp.dot(n, pos)
                h = _support(typ, size, l)
                if -h >= t:
                    outside = True
                elif h > t:
                    ncut += 1
                    jc = j
            if outside:
                continue
            V = vfull
            x = pos
            A = f64(0.0)
            if ncut > 1:
                flags[w] = 1  # two planes of one cell cut this geom: not served (the piece left out)
                continue
            if ncut == 1:
                row = _clip_row(typ, size, vfull, pos, R, planes[c, jc])
                V = row[0]
                x = vec3d(row[1], row[2], row[3])
                A = row[4]
            if V <= f64(0.0):
                continue
            if displaces:
                rv += rc * V
            F = vec3d()
            T = vec3d()
            if displaces and buoy != 0:
                F = -rc * V * g
            dx = x - sc
            vab = vl + wp.cross(om, dx)
            v = vab - flow[wi, c]
            f = V / vfull
            Fd = vec3d()
            Td = vec3d()
            if drag != 0:
                lv = wp.transpose(R) @ v
                sp2 = wp.dot(v, v)
                dq = f64(0.0)
                if typ == BOX:
                    pr = vec3d(size[1] * size[2], size[0] * size[2], size[0] * size[1])
                    dq = f64(0.5) * rc * f64(1.0) * (f64(4.0) * ((pr[0] * wp.abs(lv[0]) + pr[1] * wp.abs(lv[1]))
                                                               + pr[2] * wp.abs(lv[2])))
                else:
                    dq = f64(0.5) * rc * f64(1.0) * (f64(3.141592653589793) * size[0] * size[0]) * wp.sqrt(sp2)
                ncoef = -((f64(3.0) * f64(3.141592653589793) * mu[wi, c] * deq + dq) * f)
                if sp2 > f64(0.0):
                    Fd = ncoef * v
                wn = wp.length(om)
                nct = -((f64(3.141592653589793) * mu[wi, c] * deq * deq * deq
                         + rc * f64(1.0) * wp.pow(deq, f64(5.0)) / f64(64.0) * wn) * f)
                Td = nct * om
            if damp != 0 and displaces and A > f64(0.0):
                lu = wp.transpose(R) @ up
                ext = f64(2.0) * _support(typ, size, lu)
                B = f64(0.3) * rc * A * wp.sqrt(gn * ext)
                Fd = Fd - B * wp.dot(v, up) * up
                Td = Td - B * A / f64(12.0) * (om - wp.dot(om, up) * up)
            F = F + Fd
            T = T + Td
            Fs = Fs + F
            Ms = Ms + T + wp.cross(dx, F)
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
        nwp = rho.shape[0]
        wi = w
        if nwp == 1:
            wi = 0
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
        for c in range(nplanes.shape[0]):  # ForceModel::CellAt
            inside = bool(True)
            for j in range(nplanes[c]):
                pl = planes[c, j]
                if pl[0] * x[0] + pl[1] * x[1] + pl[2] * x[2] > pl[3]:
                    inside = False
            if inside:
                v = v - flow[wi, c]
                break
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

    @wp.kernel
    def project(cdof: wp.array2d(dtype=wp.spatial_vector), isanc: wp.array2d(dtype=int),
                geom_bodyid: wp.array(dtype=int), gid: wp.array(dtype=int),
                gm: wp.array2d(dtype=vec3d), gf: wp.array2d(dtype=vec3d),
                dbody: wp.array(dtype=int), dm: wp.array2d(dtype=vec3d), df: wp.array2d(dtype=vec3d),
                qfrc: wp.array2d(dtype=float)):
        # ForceStage::Project: each wrench (moment about its root's subtree com, force) on the
        # dofs its body hangs from, summed in geom then damper order (no atomics: deterministic)
        w, j = wp.tid()
        cd = cdof[w, j]
        q = f64(0.0)
        for k in range(gid.shape[0]):
            if isanc[geom_bodyid[gid[k]], j] != 0:
                m = gm[w, k]
                fo = gf[w, k]
                q += (f64(cd[0]) * m[0] + f64(cd[1]) * m[1] + f64(cd[2]) * m[2]
                      + f64(cd[3]) * fo[0] + f64(cd[4]) * fo[1] + f64(cd[5]) * fo[2])
        for i in range(dbody.shape[0]):
            if isanc[dbody[i], j] != 0:
                m = dm[w, i]
                fo = df[w, i]
                q += (f64(cd[0]) * m[0] + f64(cd[1]) * m[1] + f64(cd[2]) * m[2]
                      + f64(cd[3]) * fo[0] + f64(cd[4]) * fo[1] + f64(cd[5]) * fo[2])
        qfrc[w, j] = qfrc[w, j] + float(q)

    _KERNELS = {"pieces": pieces, "dampers": dampers, "project": project}
    return _KERNELS


# ---------------------------------------------------------------- the model

class Hydro:
    """The hydrostatics of one model on MuJoCo Warp: its records on the device and the callback.

    ``flags``: (nworld,) int, 1 where some geom was cut by two planes of one cell (not served; its
    piece there left out) since the last ``clear_flags``.
    """

    def __init__(self, mjm, env, device=None, config=None):
        mjw, wp = _import()
        self._wp = wp
        self.mjm = mjm
        r = records(mjm, env, config)
        self.records = r
        self.ngeom = len(r["geom_id"])
        self.ndamper = len(r["damper_body"])
        self.device = device
        a = lambda x, dt: wp.array(x, dtype=dt, device=device)  # noqa: E731
        self.gid, self.gmark, self.gtype = (a(r["geom_id"], int), a(r["geom_mark"], int), a(r["geom_type"], int))
        self.gsize = a(r["geom_size"], wp.vec3d)
        self.gvol = a(r["geom_volume"], wp.float64)
        self.gweld = a(r["geom_weld"], int)
        self.wvol = a(r["weld_volume"], wp.float64)
        self.planes = a(r["planes"], wp.vec4d)
        self.nplanes = a(r["nplanes"], int)
        self.dbody, self.dgroup = a(r["damper_body"], int), a(r["damper_group"], int)
        self.D = a(r["damper_D"].reshape(-1, 36) if self.ndamper else np.zeros((0, 36)), wp.float64)
        self.Q = a(r["damper_Q"].reshape(-1, 36) if self.ndamper else np.zeros((0, 36)), wp.float64)
        self.gravity = wp.vec3d(*r["gravity"])
        self.set_cells(1)
        self._nworld = 0
        _kernels()

    def set_cells(self, nworld: int, density=None, flow=None, viscosity=None) -> None:
        """Per-world cell fluids for domain randomisation: ``density`` (nworld, ncell) kg/m^3, ``flow``
        (nworld, ncell, 3) m/s, ``viscosity`` (nworld, ncell) Pa s; None: the environment's. nworld 1:
        every world the same."""
        wp, r = self._wp, self.records
        nc = max(r["ncell"], 1)

        def shaped(x, base, shape, what):
            x = np.broadcast_to(base, shape) if x is None else np.asarray(x, float)
            if x.shape != shape or not np.all(np.isfinite(x)):
                raise MjWarpRefused(f"set_cells: {what} must be a finite array of shape {shape}, got {x.shape}")
            return np.ascontiguousarray(x)

        rho = shaped(density, r["density"], (nworld, nc), "density")
        if np.any(rho < 0):
            raise MjWarpRefused("set_cells: density must be >= 0")
        mu = shaped(viscosity, r["viscosity"], (nworld, nc), "viscosity")
        fl = shaped(flow, r["flow"], (nworld, nc, 3), "flow")
        self.rho = wp.array(rho, dtype=wp.float64, device=self.device)
        self.mu = wp.array(mu, dtype=wp.float64, device=self.device)
        self.flow = wp.array(fl, dtype=wp.vec3d, device=self.device)

    def _buffers(self, nworld: int) -> None:
        if nworld == self._nworld:
            return
        wp = self._wp
        n, nd = max(self.ngeom, 1), max(self.ndamper, 1)
        self.gm = wp.zeros((nworld, n), dtype=wp.vec3d, device=self.device)
        self.gf = wp.zeros((nworld, n), dtype=wp.vec3d, device=self.device)
        self.rv = wp.zeros((nworld, n), dtype=wp.float64, device=self.device)
        self.dm = wp.zeros((nworld, nd), dtype=wp.vec3d, device=self.device)
        self.df = wp.zeros((nworld, nd), dtype=wp.vec3d, device=self.device)
        self.flags = wp.zeros(nworld, dtype=int, device=self.device)
        self._nworld = nworld

    def clear_flags(self) -> None:
        if self._nworld:
            self.flags.zero_()

    def passive(self, m, d) -> None:
        """MuJoCo Warp's passive callback: adds the hydrostatics to d.qfrc_passive."""
        wp, K, fl = self._wp, _kernels(), self.records["flags"]
        if self.rho.shape[0] not in (1, d.nworld):
            raise MjWarpRefused(f"set_cells was given {self.rho.shape[0]} worlds; the data has {d.nworld}")
        self._buffers(d.nworld)
        if self.ngeom:
            wp.launch(K["pieces"], dim=(d.nworld, self.ngeom),
                      inputs=[d.geom_xpos, d.geom_xmat, d.subtree_com, d.cvel, m.body_rootid, m.geom_bodyid,
                              self.gid, self.gmark, self.gtype, self.gsize, self.gvol, self.planes, self.nplanes,
                              self.rho, self.mu, self.flow, self.gravity, int(fl["drag"]), int(fl["buoyancy"]),
                              int(fl["damping"])],
                      outputs=[self.gm, self.gf, self.rv, self.flags], device=self.device)
        if self.ndamper:
            wp.launch(K["dampers"], dim=(d.nworld, self.ndamper),
                      inputs=[d.xpos, d.xmat, d.subtree_com, d.cvel, m.body_rootid, self.dbody, self.dgroup,
                              self.D, self.Q, self.gweld, self.wvol, self.rv, self.rho, self.flow, self.planes,
                              self.nplanes],
                      outputs=[self.dm, self.df], device=self.device)
        if m.nv:
            wp.launch(K["project"], dim=(d.nworld, m.nv),
                      inputs=[d.cdof, m.body_isdofancestor, m.geom_bodyid, self.gid, self.gm, self.gf, self.dbody,
                              self.dm, self.df],
                      outputs=[d.qfrc_passive], device=self.device)


def plain_model(source):
    """The MjModel MuJoCo Warp can load from an MJCF that declares the ``aurgen.hydrostatics`` instance
    (a built world, ``Simulation.to_xml()``): ``(mjm, config)``, the model compiled without the
    instance (MuJoCo Warp loads no engine plugin: its put_model fails on one) and the instance's
    switches (drag, added_mass, buoyancy, damping) read from the model compiled with it.

    ``source``: a path to an MJCF file, an MJCF string, or an MjSpec (not modified). A path keeps
    its folder for mesh files; a string resolves them from the working directory.
    """
    import os

    from aurgen.runtime import plugin as hplugin

    hplugin.load()  # the instance compiles only with the plugin registered
    if isinstance(source, mujoco.MjSpec):
        spec = source.copy()
    elif isinstance(source, (str, os.PathLike)) and not str(source).lstrip().startswith("<"):
        spec = mujoco.MjSpec.from_file(str(source))
    elif isinstance(source, str):
        spec = mujoco.MjSpec.from_string(source)
    else:
        raise MjWarpRefused(f"plain_model: expected an MJCF path, string or MjSpec, got {type(source).__name__}")
    config = _plugin_flags(spec.compile())
    for p in [p for p in spec.plugins if p.plugin_name == hplugin.NAME]:
        spec.delete(p)
    return spec.compile(), config


def put_model(mjm, device=None, config=None, **kwargs):
    """``mujoco_warp.put_model(mjm, **kwargs)`` with the hydrostatics of the model's environment
    installed as its passive callback (``Model.callback.passive``); the Hydro object is ``m.aurgen``
    and the MjModel it was made from ``m.aurgen.mjm`` (give that to ``mujoco_warp.make_data``).

    ``mjm``: an MjModel without engine plugins, or an MJCF path, string or MjSpec, whose
    ``aurgen.hydrostatics`` instance is taken out and its config kept (:func:`plain_model`).
    ``config``: the instance's switches for a plugin-free MjModel (``{"drag": False}``; default
    all on, as the plugin's).

    The environment is read from the model (``<custom><text name="aurgen:environment">``) through
    runtime/env.py, the plugin's schema and words; what this backend cannot serve is refused
    (MjWarpRefused). The model keeps MuJoCo's own gravity (the plugin's too).
    """
    mjw, _ = _import()
    if not isinstance(mjm, mujoco.MjModel):
        mjm, read = plain_model(mjm)
        config = {**read, **(config or {})}
    elif set(range(mjm.nplugin)) - set(int(p) for p in mjm.geom_plugin):  # an engine instance
        raise MjWarpRefused("this MjModel declares an engine plugin instance, which MuJoCo Warp cannot load: "
                            "pass put_model the MJCF path or string (the aurgen.hydrostatics instance is "
                            "taken out and its config kept), or an MjModel compiled without it")
    env = envmod.from_model(mjm)
    if env is None:
        raise MjWarpRefused("the model has no <custom><text name=\"aurgen:environment\"> (build a world, or "
                            "attach an environment with aurgen.runtime.sim.Simulation(...).to_xml())")
    hydro = Hydro(mjm, env, device=device, config=config)
    m = mjw.put_model(mjm, **kwargs)
    m.callback = mjw.Callback(passive=hydro.passive)
    m.aurgen = hydro
    return m
