"""The MuJoCo Warp functions of a gravity field (aurgen.runtime.mjwarp's device side, with mjwarp_kernels).

Mirrors runtime/native/core/forces_gravity.cc: ``field`` GravityField::At (a piece's g: the field's at the
piece's centroid, or its cell's own), ``torque`` GravityField::GradientTorque, ``cell_at``
ForceModel::CellAt, the ``bodies`` kernel ForceStage::BodyGravity (the bodies' weight where the
plugin applies it: a central, linear or per-cell field; MuJoCo's own gravity is then 0 0 0). float64
inside, world frame, SI. ``build(wp)`` (no warp import here); ``records`` is the host side.
"""

import numpy as np

UNIFORM, CENTRAL, LINEAR, PER_CELL = 0, 1, 2, 3  # forces.h GravityField::Kind


def records(env) -> dict:
    """The field's arrays (numpy, float64) from a runtime.env Environment: ``gravity_kind`` (Kind; a
    uniform field with some cell's own g is PER_CELL, as plugin/build.cc Build makes it), ``gravity_mu``
    (m^3/s^2), ``gravity_centre`` (m), ``gravity_g0`` (m/s^2), ``gravity_grad`` (9, 1/s^2, row-major
    dg_i/dx_j), per cell ``cell_gravity`` (ncell, 3) m/s^2 and ``cell_has_gravity`` (ncell,) 0/1."""
    G = env.gravity
    kind = {"uniform": UNIFORM, "central": CENTRAL, "linear": LINEAR}[G.kind]
    own = [c.gravity is not None for c in env.cells]
    if kind == UNIFORM and any(own):
        kind = PER_CELL
    cg = np.array([c.gravity if c.gravity is not None else (0.0, 0.0, 0.0) for c in env.cells] or [(0.0,) * 3],
                  float).reshape(-1, 3)
    return {"gravity_kind": kind, "gravity_mu": float(G.mu), "gravity_centre": np.array(G.centre, float),
            "gravity_g0": np.array(G.g0, float), "gravity_grad": np.array(G.G, float).reshape(9),
            "cell_gravity": cg, "cell_has_gravity": np.array(own or [False], np.int32)}


def build(wp) -> dict:
    """The Warp functions and the body-gravity kernel, by name."""
    f64, vec3d, mat33d = wp.float64, wp.vec3d, wp.mat33d
    vec9d = wp.types.vector(length=9, dtype=wp.float64)

    @wp.func
    def _field(kind: int, mu: f64, centre: vec3d, g0: vec3d, grad: vec9d, x: vec3d) -> vec3d:
        # GravityField::At for a central or linear field (the others: their uniform g, at the caller)
        if kind == CENTRAL:
            r = x - centre
            R = wp.sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2])
            s = -mu / (R * R * R)
            return vec3d(s * r[0], s * r[1], s * r[2])
        return vec3d(g0[0] + grad[0] * x[0] + grad[1] * x[1] + grad[2] * x[2],
                     g0[1] + grad[3] * x[0] + grad[4] * x[1] + grad[5] * x[2],
                     g0[2] + grad[6] * x[0] + grad[7] * x[1] + grad[8] * x[2])

    @wp.func
    def _piece_g(kind: int, g: vec3d, mu: f64, centre: vec3d, g0: vec3d, grad: vec9d,
                 cellg: wp.array(dtype=vec3d), cellhas: wp.array(dtype=int), c: int, x: vec3d) -> vec3d:
        # ForceStage::Pieces' g of the piece in cell c with centroid x
        if kind == UNIFORM:
            return g
        if kind == PER_CELL:
            if cellhas[c] != 0:
                return cellg[c]
            return g
        return _field(kind, mu, centre, g0, grad, x)

    @wp.func
    def _torque(kind: int, mu: f64, centre: vec3d, grad: vec9d, x: vec3d, I: mat33d) -> vec3d:
        # GravityField::GradientTorque: the field's torque on a body at x of world inertia I (second order)
        if kind == CENTRAL:  # 3 mu / R^5 r x (I r)
            r = x - centre
            R2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2]
            s3 = f64(3.0) * mu / (R2 * R2 * wp.sqrt(R2))
            IR = I @ r
            return vec3d(s3 * (r[1] * IR[2] - r[2] * IR[1]), s3 * (r[2] * IR[0] - r[0] * IR[2]),
                         s3 * (r[0] * IR[1] - r[1] * IR[0]))
        Gm = mat33d(grad[0], grad[1], grad[2], grad[3], grad[4], grad[5], grad[6], grad[7], grad[8])
        GI = Gm @ I  # linear: tau_i = eps_iab (G I)_ab
        return vec3d(GI[1, 2] - GI[2, 1], GI[2, 0] - GI[0, 2], GI[0, 1] - GI[1, 0])

    @wp.func
    def _cell_at(planes: wp.array2d(dtype=wp.vec4d), nplanes: wp.array(dtype=int), x: vec3d) -> int:
        # ForceModel::CellAt: the first cell holding x, or -1
        for c in range(nplanes.shape[0]):
            inside = bool(True)
            for j in range(nplanes[c]):
                pl = planes[c, j]
                if pl[0] * x[0] + pl[1] * x[1] + pl[2] * x[2] > pl[3]:
                    inside = False
            if inside:
                return c
        return -1

    @wp.kernel
    def bodies(xipos: wp.array2d(dtype=wp.vec3), ximat: wp.array2d(dtype=wp.mat33),
               subtree_com: wp.array2d(dtype=wp.vec3), body_rootid: wp.array(dtype=int),
               body_mass: wp.array2d(dtype=float), body_inertia: wp.array2d(dtype=wp.vec3),
               kind: int, g: vec3d, mu: f64, centre: vec3d, g0: vec3d, grad: vec9d,
               cellg: wp.array(dtype=vec3d), cellhas: wp.array(dtype=int),
               planes: wp.array2d(dtype=wp.vec4d), nplanes: wp.array(dtype=int),
               out_m: wp.array2d(dtype=vec3d), out_f: wp.array2d(dtype=vec3d)):
        # ForceStage::BodyGravity: m g(x) at each body's centre of mass x, and a field's gradient
        # torque; (moment about the root's subtree com, force), world; body 0 (the world) none
        w, b = wp.tid()
        out_m[w, b] = vec3d()
        out_f[w, b] = vec3d()
        mass = f64(body_mass[wp.where(body_mass.shape[0] > 1, w, 0), b])
        if b == 0 or mass <= f64(0.0):
            return
        x = vec3d(xipos[w, b])
        gb = vec3d()
        T = vec3d()
        if kind == PER_CELL:  # its cell's own g, else the global g
            c = _cell_at(planes, nplanes, x)
            gb = g
            if c >= 0:
                if cellhas[c] != 0:
                    gb = cellg[c]
        else:
            gb = _field(kind, mu, centre, g0, grad, x)
            Rm = mat33d(ximat[w, b])
            bi = vec3d(body_inertia[wp.where(body_inertia.shape[0] > 1, w, 0), b])
            Iw = Rm @ wp.diag(bi) @ wp.transpose(Rm)
            T = _torque(kind, mu, centre, grad, x, Iw)
        F = mass * gb
        sc = vec3d(subtree_com[w, body_rootid[b]])
        out_m[w, b] = T + wp.cross(x - sc, F)
        out_f[w, b] = F

    return {"vec9d": vec9d, "piece_g": _piece_g, "cell_at": _cell_at, "bodies": bodies}
