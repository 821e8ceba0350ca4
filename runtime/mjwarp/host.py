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
runtime/mjwarp/kernels.py is the second implementation of the force stage (runtime/native/core/
forces.cc), kept in modules mirroring it function for function (docs/runtime.md "MuJoCo Warp"):
``_support`` is kernel.h SupportLocal, ``_clip_row`` clip_box.cc BoxClipRow and kernel.cc Smooth1's
one-plane tiers (runtime/mjwarp/box.py, runtime/mjwarp/smooth.py; a mesh's hull: runtime/mjwarp/mesh.py), the piece kernel
ForceStage::Pieces and Wrenches (buoyancy, drag, surface damping), the damper kernel
ForceStage::Damping, the body kernel ForceStage::BodyGravity (runtime/mjwarp/gravity.py), the sea sea.cc
(runtime/mjwarp/sea.py), the projection ForceStage::Project. The arithmetic is float64 inside the kernels;
MuJoCo Warp is float32 throughout (its state, kinematics, model and qfrc_passive: it has no float64
mode), so qfrc_passive agrees with the plugin's to float32 precision of the poses it is computed from,
and the kernels' float64 sum (``Hydro.qfrc``) with the plugin's from the same inputs to ~1e-14
(tests/runtime/test_mjwarp.py, test_mjwarp_exact.py measure both).

What it serves, and refuses (``MjWarpRefused``, naming what and why): box, sphere, ellipsoid,
cylinder, capsule and convex mesh-hull displacement and windage geoms; uniform gravity (MuJoCo
applies it) and the fields the plugin applies (central, linear, a cell's own g: the bodies' weights
and gradient torques, each piece's buoyancy at its g; MuJoCo's option gravity must then be 0 0 0,
as the plugin requires); any cells, each geom cut by at most one plane of a cell at a time (a geom
cut by two planes of one cell in some world, at a corner of a tank, is flagged in ``m.aurgen.flags``
for that world and its piece in that cell left out: docs/runtime.md); declared damping; a sea
(runtime/mjwarp/sea.py mirrors sea.cc; its Froude-Krylov force by the volume moments as the plugin
takes it, runtime/mjwarp/sea_moments.py, unless the sea declares fk: exact), a sea per world through
``set_waves``. Refused: added mass (it must enter the mass matrix, which a passive callback cannot).
The health ledger does not run here (docs/runtime.md "MuJoCo Warp").

Frames and units: world frame, SI, as the plugin (docs/runtime.md).
"""

import math

import mujoco
import numpy as np

from aurgen.core.errors import AurgenError
from aurgen.runtime.environment import schema as envmod
from aurgen.runtime.mjwarp import kernels as _kernels
from aurgen.runtime.mjwarp import drag as mjwarp_drag
from aurgen.runtime.mjwarp import gravity as mjwarp_gravity
from aurgen.runtime.mjwarp import mesh as mjwarp_mesh
from aurgen.runtime.mjwarp import sea as mjwarp_sea
from aurgen.runtime.mjwarp import sea_hull as mjwarp_sea_hull
from aurgen.runtime.mjwarp import sea_poly as mjwarp_sea_poly

MARK_DISPLACEMENT, MARK_WINDAGE = 1, 2
GAS_DENSITY = 10.0  # forces.GAS_DENSITY: a cell below it is a gas (windage geoms feel it)
C_D, C_S = 1.0, 0.3  # core/forces_util.h kCD, kCS
_SERVED = {int(mujoco.mjtGeom.mjGEOM_BOX): "box", int(mujoco.mjtGeom.mjGEOM_SPHERE): "sphere",
           int(mujoco.mjtGeom.mjGEOM_ELLIPSOID): "ellipsoid", int(mujoco.mjtGeom.mjGEOM_CYLINDER): "cylinder",
           int(mujoco.mjtGeom.mjGEOM_CAPSULE): "capsule", int(mujoco.mjtGeom.mjGEOM_MESH): "mesh"}


class MjWarpRefused(AurgenError):
    """A model this backend cannot serve (what, and why)."""


def backend():
    """(mujoco_warp, warp), imported on first use; MjWarpRefused naming the extra to install if missing."""
    try:
        import mujoco_warp as mjw
        import warp as wp
    except ImportError as exc:
        raise MjWarpRefused(f"the MuJoCo Warp backend needs mujoco-warp and warp-lang "
                            f"(pip install 'aurgen[gpu]'): {exc}") from None
    return mjw, wp


# ---------------------------------------------------------------- the model's records (host)

def _plugin_flags(mjm) -> dict:
    """The plugin instance's drag / added_mass / buoyancy / damping (plugin/config.cc HydroConfig), if declared."""
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
    grav = mjwarp_gravity.records(env)
    want = np.zeros(3) if grav["gravity_kind"] != mjwarp_gravity.UNIFORM else np.array(env.gravity.g, float)
    if np.any(np.asarray(mjm.opt.gravity, float) != want):  # plugin/build.cc Build's check and words
        raise MjWarpRefused("option gravity must be 0 0 0: the plugin applies the environment's gravity field"
                            if grav["gravity_kind"] != mjwarp_gravity.UNIFORM else
                            "option gravity must equal the environment's uniform gravity")
    user = mjm.geom_user[:, 0] if mjm.nuser_geom > 0 else np.zeros(mjm.ngeom)
    geoms = []
    for g in range(mjm.ngeom):
        mark = int(round(float(user[g]))) if abs(float(user[g])) < 1e9 else 0
        if mark not in (MARK_DISPLACEMENT, MARK_WINDAGE):
            continue
        typ = int(mjm.geom_type[g])
        if typ not in _SERVED:
            name = mujoco.mj_id2name(mjm, mujoco.mjtObj.mjOBJ_GEOM, g) or f"geom {g}"
            raise MjWarpRefused(f"{name}: this type cannot displace fluid (sphere, capsule, ellipsoid, cylinder, "
                                "box or mesh)")  # plugin/build.cc Build's words
        geoms.append((g, mark, typ))
    size = np.array([mjm.geom_size[g] for g, _, _ in geoms], float).reshape(-1, 3)
    vol = np.array([_volume(t, s) for (_, _, t), s in zip(geoms, size)], float)
    cen = np.zeros((max(len(geoms), 1), 3))
    mrange, tris = np.zeros((max(len(geoms), 1), 2), np.int32), [np.zeros((1, 3, 3))]
    nt = 0
    for k, (g, _, typ) in enumerate(geoms):  # a mesh: its hull (the plugin's is BuildHull's, the same set)
        if typ == int(mujoco.mjtGeom.mjGEOM_MESH):
            mid = int(mjm.geom_dataid[g])
            a0, nv = int(mjm.mesh_vertadr[mid]), int(mjm.mesh_vertnum[mid])
            tri, vol[k], cen[k] = mjwarp_mesh.hull_triangles(np.asarray(mjm.mesh_vert[a0:a0 + nv], float))
            size[k] = mjm.geom_aabb[g, 3:6]  # plugin/build.cc: a mesh's sizes are its bounding half-extents
            mrange[k] = (nt, nt + len(tri))
            tris.append(tri)
            nt += len(tri)
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
    declared = _dampers(mjm, geoms, weld)
    # switched off, the declared terms act on nothing; the drag's mask follows them still (the plugin's)
    dampers = declared if flags["damping"] else {k: v[:0] for k, v in declared.items()}
    sea = _sea(env) if env.waves is not None else None
    out = {"flags": flags, "geom_id": np.array([g for g, _, _ in geoms], np.int32),
            "geom_mark": np.array([m for _, m, _ in geoms], np.int32),
            "geom_type": np.array([t for _, _, t in geoms], np.int32), "geom_size": size, "geom_volume": vol,
            "geom_centre": cen, "mesh_range": mrange, "mesh_triangles": np.concatenate(tris[1:] or tris).reshape(-1, 3),
            "geom_weld": np.array(weld, np.int32), "weld_volume": wvol, "planes": planes, "nplanes": npl,
            "density": np.array([c.density for c in env.cells] or [0.0], float),
            "viscosity": np.array([c.viscosity for c in env.cells] or [0.0], float),
            "flow": np.array([c.flow for c in env.cells] or [(0.0, 0.0, 0.0)], float).reshape(-1, 3),
            "gravity": np.array(env.gravity.g, float), "ncell": nc, "sea": sea, **dampers, **grav}
    out["hull_planes"], out["hull_range"] = mjwarp_sea.hull_planes(out)
    out["hull_verts"], out["hull_faces"], out["hull_polys"] = mjwarp_sea_hull.hull_polys(mjm, geoms)
    try:
        out.update(mjwarp_drag.records(mjm, geoms, size, cen, weld, len(welds), declared))
    except ValueError as exc:
        raise MjWarpRefused(str(exc)) from None
    return out


def _volume(typ: int, s) -> float:
    """kernel.cc FullLocal's volume (m^3) of a served geom of MuJoCo sizes s."""
    if typ == mujoco.mjtGeom.mjGEOM_BOX:
        return 8.0 * s[0] * s[1] * s[2]
    if typ == mujoco.mjtGeom.mjGEOM_ELLIPSOID:
        return 4.0 * math.pi / 3.0 * s[0] * s[1] * s[2]
    if typ == mujoco.mjtGeom.mjGEOM_CYLINDER:
        return 2.0 * math.pi * s[0] * s[0] * s[1]
    if typ == mujoco.mjtGeom.mjGEOM_CAPSULE:
        return math.pi * s[0] * s[0] * (2.0 * s[1] + 4.0 * s[0] / 3.0)
    return 4.0 * math.pi / 3.0 * s[0] ** 3


def thresholds(components) -> np.ndarray:
    """sea.cc Sea::Prepare's lmax: (17,) the largest extent (m) Gauss rule n serves for these
    components (N, 6): the amplitude-weighted remainder c_n (k_j L / 2)^{2n} a_j / a_max <= 1e-9."""
    c = np.asarray(components, float)
    a, k = c[:, 0], np.sqrt(c[:, 2] ** 2 + c[:, 3] ** 2 + c[:, 4] ** 2)
    amax, cn, out = float(a.max()), 4.0 / 3.0 / 8.0, np.zeros(17)
    for n in range(1, 17):
        L = math.inf
        for aj, kj in zip(a, k):
            if aj > 0 and kj > 0:
                L = min(L, 2.0 / kj * (1e-9 * amax / (aj * cn)) ** (1.0 / (2.0 * n)))
        out[n] = L
        m = n + 1.0
        cn *= 4.0 * m ** 4 * (2.0 * n + 1.0) / ((2.0 * n + 3.0) * ((2.0 * n + 1.0) * (2.0 * n + 2.0)) ** 3)
    return out


def _sea(env) -> dict:
    """The sea's records (sea.h Sea; ForceStage's per-cell surface row and side) (every displacement shape: runtime/mjwarp/sea_shapes.py)."""
    w = env.waves
    # the Froude-Krylov force as the plugin takes it (issue 48): by the volume moments (sea_moments.py) unless the
    # sea declares fk: exact (the columns, sea.py and sea_shapes.py)
    rows, sides = [], []
    for cell in env.cells:  # the surface's row among the cell's planes (cell_planes' order) and side
        used = [j for j, sg in enumerate(cell.signs) if sg != 0]
        i = used.index(w.surface) if w.surface in used else -1
        rows.append(i)
        sides.append(0 if i < 0 else -int(cell.signs[w.surface]))
    gx = np.zeros(136)
    gw = np.zeros(136)
    for n in range(1, 17):
        x, wt = np.polynomial.legendre.leggauss(n)
        gx[n * (n - 1) // 2: n * (n + 1) // 2], gw[n * (n - 1) // 2: n * (n + 1) // 2] = x, wt
    comps = np.asarray(w.components, float)
    return {"n": np.array(env.planes[w.surface, :3], float), "d": float(env.planes[w.surface, 3]),
            "depth": w.depth, "ramp": float(w.ramp), "components": comps, "lmax": thresholds(comps),
            "gx": gx, "gw": gw, "row": np.array(rows or [0], np.int32), "side": np.array(sides or [0], np.int32),
            "fk_moments": getattr(w, "fk", None) != "exact", "fk_tol": float(getattr(w, "fk_tolerance", 1e-4))}


def _dampers(mjm, geoms, weld) -> dict:
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
    bodies = sorted(set(D) | set(Q))
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


# ---------------------------------------------------------------- the model

class Hydro:
    """The hydrostatics of one model on MuJoCo Warp: its records on the device and the callback.

    ``flags``: (nworld,) int, 1 where some geom was cut by two planes of one cell (not served; its
    piece there left out) since the last ``clear_flags``. ``qfrc``: (nworld, nv) float64, the
    hydrostatics' generalized force of the last evaluation before it was rounded into the float32
    ``qfrc_passive`` (N or N m per dof).
    """

    def __init__(self, mjm, env, device=None, config=None):
        mjw, wp = backend()
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
        self.gcen = a(r["geom_centre"], wp.vec3d)
        self.mrange, self.mtri = a(r["mesh_range"], wp.vec2i), a(r["mesh_triangles"], wp.vec3d)
        self.hrange, self.hplanes = a(r["hull_range"], wp.vec2i), a(r["hull_planes"], wp.vec4d)
        self.gweld = a(r["geom_weld"], int)
        self.gexp, self.gcd = a(r["geom_exposure"], wp.float64), a(r["geom_cd"], wp.float64)
        self.gcov = a(r["geom_cover"], int)
        self.wkeep, self.wmode, self.wbody = (a(r["weld_keep"], wp.float64), a(r["weld_mode"], int),
                                              a(r["weld_body"], int))
        self.wvol = a(r["weld_volume"], wp.float64)
        self.planes = a(r["planes"], wp.vec4d)
        self.nplanes = a(r["nplanes"], int)
        self.dbody, self.dgroup = a(r["damper_body"], int), a(r["damper_group"], int)
        self.D = a(r["damper_D"].reshape(-1, 36) if self.ndamper else np.zeros((0, 36)), wp.float64)
        self.Q = a(r["damper_Q"].reshape(-1, 36) if self.ndamper else np.zeros((0, 36)), wp.float64)
        self.gravity = wp.vec3d(*r["gravity"])
        self.gkind = int(r["gravity_kind"])
        self.gfield = (float(r["gravity_mu"]), wp.vec3d(*r["gravity_centre"]), wp.vec3d(*r["gravity_g0"]),
                       _kernels.kernels()["vec9d"](*r["gravity_grad"]))
        self.cellg, self.cellhas = a(r["cell_gravity"], wp.vec3d), a(r["cell_has_gravity"], int)
        self.env = env
        sea = r["sea"]
        self.sea = sea is not None
        z = {"n": np.array([0.0, 0.0, 1.0]), "d": 0.0, "depth": None, "ramp": 0.0, "components": np.zeros((1, 6)),
             "lmax": np.zeros(17), "gx": np.zeros(136), "gw": np.zeros(136), "row": np.zeros(1, np.int32),
             "side": np.zeros(1, np.int32), "fk_moments": False, "fk_tol": 1e-4}
        sea = sea or z
        self.sea_n, self.sea_d = wp.vec3d(*sea["n"]), float(sea["d"])
        self.deep = sea["depth"] is None
        self.depth = 0.0 if self.deep else float(sea["depth"])
        self.ramp = sea["ramp"]
        self.gx, self.gw = a(sea["gx"], wp.float64), a(sea["gw"], wp.float64)
        self.sea_row, self.sea_side = a(sea["row"], int), a(sea["side"], int)
        # the moments (sea_moments.py): on, their tolerance, the hulls' polyhedra, the scratch's capacity
        self.fkm, self.fktol = int(bool(sea["fk_moments"])), float(sea["fk_tol"])
        self.hpv, self.hpf, self.hpr = (a(r["hull_verts"], wp.vec3d), a(r["hull_faces"], int),
                                         a(r["hull_polys"], wp.vec2i))
        self.mf, self.mv = mjwarp_sea_hull.capacity(r["geom_type"], r["hull_faces"], r["hull_polys"], r["nplanes"])
        self._waves(sea["components"][None], sea["lmax"][None])
        self.set_cells(1)
        self._nworld = 0
        _kernels.kernels()

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
        if np.any(mu < 0):  # a negative viscosity drives the body instead of damping it (the environment's rule)
            w, c = map(int, np.argwhere(mu < 0)[0])
            raise MjWarpRefused(f"set_cells: viscosity must be >= 0 Pa s (a negative one accelerates what it should "
                                f"damp), got {float(mu[w, c])!r} in world {w}, cell {c}")
        fl = shaped(flow, r["flow"], (nworld, nc, 3), "flow")
        self.rho = wp.array(rho, dtype=wp.float64, device=self.device)
        self.mu = wp.array(mu, dtype=wp.float64, device=self.device)
        self.flow = wp.array(fl, dtype=wp.vec3d, device=self.device)

    def _waves(self, comps, lmax) -> None:
        wp = self._wp
        self.comps = wp.array(np.ascontiguousarray(comps, float), dtype=wp.float64, device=self.device)
        self.lmax = wp.array(np.ascontiguousarray(lmax, float), dtype=wp.float64, device=self.device)
        groups = [mjwarp_sea_hull.directions(rows) for rows in comps]  # Sea::Prepare's, per world
        a = lambda x, dt: wp.array(np.ascontiguousarray(x), dtype=dt, device=self.device)  # noqa: E731
        self.dby, self.dstart = a([g[0] for g in groups], int), a([g[1] for g in groups], int)
        self.ndir, self.dirs = a([g[2] for g in groups], int), a([g[3] for g in groups], wp.vec3d)

    def set_waves(self, components) -> None:
        """Per-world seas (a wave seed per world, say): ``components`` (nworld, N, 6) rows
        [a, omega, kx, ky, kz, phase] (runtime.waves.synthesize(...).components per world), each world's
        checked as the environment's waves block is (runtime/environment/schema.py, the plugin's words); (N, 6): one
        sea for every world. The model must carry a sea (its surface, depth and ramp are kept)."""
        if not self.sea:
            raise MjWarpRefused("set_waves: the model's environment has no sea (declare waves in its world)")
        c = np.asarray(components, float)
        c = c[None] if c.ndim == 2 else c
        if c.ndim != 3 or c.shape[2] != 6:
            raise MjWarpRefused(f"set_waves: components must have shape (nworld, N, 6) or (N, 6), got {c.shape}")
        w = self.env.waves
        for i, rows in enumerate(c):  # each world's block through the environment's checks
            block = {"surface": int(w.surface), "ramp": float(w.ramp), "components": rows.tolist()}
            if w.depth is not None:
                block["depth"] = float(w.depth)
            try:
                envmod._waves(block, self.env.planes, list(self.env.cells), self.env.gravity)
            except envmod.EnvironmentInvalid as exc:
                raise MjWarpRefused(f"set_waves: world {i}: {exc}") from None
        self._waves(c, np.stack([thresholds(rows) for rows in c]))

    def _buffers(self, nworld: int) -> None:
        if nworld == self._nworld:
            return
        wp = self._wp
        n, nd = max(self.ngeom, 1), max(self.ndamper, 1)
        self.gm = wp.zeros((nworld, n), dtype=wp.vec3d, device=self.device)
        self.gf = wp.zeros((nworld, n), dtype=wp.vec3d, device=self.device)
        self.rv = wp.zeros((nworld, n), dtype=wp.float64, device=self.device)
        self.dm = wp.zeros((nworld, nd), dtype=wp.vec3d, device=self.device)
        self.bm = wp.zeros((nworld, self.mjm.nbody), dtype=wp.vec3d, device=self.device)
        self.bf = wp.zeros((nworld, self.mjm.nbody), dtype=wp.vec3d, device=self.device)
        self.df = wp.zeros((nworld, nd), dtype=wp.vec3d, device=self.device)
        self.flags = wp.zeros(nworld, dtype=int, device=self.device)
        self.qfrc = wp.zeros((nworld, max(self.mjm.nv, 1)), dtype=wp.float64, device=self.device)
        # the moments' scratch, a slot per (world, geom): polyhedra, faces, moments (sea_poly.py Scr)
        ns, mf, mv = (nworld * n, self.mf, self.mv) if self.fkm else (1, 1, 1)
        self.sv = wp.zeros((ns, 4 * mf * mv), dtype=wp.vec3d, device=self.device)
        self.sm = wp.zeros((ns, 3 * (2 * mf + 1) + mf * mv), dtype=int, device=self.device)
        self.ss = wp.zeros((ns, 2 * mjwarp_sea_poly.NMOM + mf * mv), dtype=wp.float64, device=self.device)
        self._nworld = nworld

    def clear_flags(self) -> None:
        if self._nworld:
            self.flags.zero_()

    def passive(self, m, d) -> None:
        """MuJoCo Warp's passive callback: adds the hydrostatics to d.qfrc_passive."""
        wp, K, fl = self._wp, _kernels.kernels(), self.records["flags"]
        if self.rho.shape[0] not in (1, d.nworld):
            raise MjWarpRefused(f"set_cells was given {self.rho.shape[0]} worlds; the data has {d.nworld}")
        if self.comps.shape[0] not in (1, d.nworld):
            raise MjWarpRefused(f"set_waves was given {self.comps.shape[0]} worlds; the data has {d.nworld}")
        self._buffers(d.nworld)
        if self.ngeom:
            wp.launch(K["pieces"], dim=(d.nworld, self.ngeom),
                      inputs=[d.geom_xpos, d.geom_xmat, d.subtree_com, d.cvel, m.body_rootid, m.geom_bodyid,
                              self.gid, self.gmark, self.gtype, self.gsize, self.gvol, self.gcen, self.mrange,
                              self.mtri, self.hrange, self.hplanes, self.planes, self.nplanes,
                              self.rho, self.mu, self.flow, self.gravity, self.gkind, *self.gfield, self.cellg,
                              self.cellhas, int(fl["drag"]), int(fl["buoyancy"]),
                              int(fl["damping"]), int(self.sea), self.sea_n, self.sea_d, self.depth, int(self.deep),
                              float(self.ramp), d.time, self.comps, self.lmax, self.gx, self.gw, self.sea_row,
                              self.sea_side, self.fkm, self.fktol, self.dby, self.dstart, self.ndir, self.dirs,
                              self.hpf, self.hpv, self.hpr, self.sv, self.sm, self.ss, self.mf, self.mv, self.gexp,
                              self.gcov, self.gcd, self.gweld, self.wkeep, self.wmode, self.wbody,
                              d.xpos, d.xmat],
                      outputs=[self.gm, self.gf, self.rv, self.flags], device=self.device)
        if self.gkind != mjwarp_gravity.UNIFORM:  # the bodies' weights (BodyGravity)
            wp.launch(K["bodies"], dim=(d.nworld, m.nbody),
                      inputs=[d.xipos, d.ximat, d.subtree_com, m.body_rootid, m.body_mass, m.body_inertia,
                              self.gkind, self.gravity, *self.gfield, self.cellg, self.cellhas, self.planes,
                              self.nplanes],
                      outputs=[self.bm, self.bf], device=self.device)
        if self.ndamper:
            wp.launch(K["dampers"], dim=(d.nworld, self.ndamper),
                      inputs=[d.xpos, d.xmat, d.subtree_com, d.cvel, m.body_rootid, self.dbody, self.dgroup,
                              self.D, self.Q, self.gweld, self.wvol, self.rv, self.rho, self.flow, self.planes,
                              self.nplanes],
                      outputs=[self.dm, self.df], device=self.device)
        if m.nv:
            wp.launch(K["project"], dim=(d.nworld, m.nv),
                      inputs=[d.cdof, m.body_isdofancestor, m.geom_bodyid, self.gid, self.gm, self.gf,
                              m.nbody if self.gkind != mjwarp_gravity.UNIFORM else 0, self.bm, self.bf,
                              self.dbody, self.dm, self.df],
                      outputs=[d.qfrc_passive, self.qfrc], device=self.device)


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
    runtime/environment/schema.py, the plugin's schema and words; what this backend cannot serve is refused
    (MjWarpRefused). The model keeps MuJoCo's own gravity (the plugin's too).
    """
    mjw, _ = backend()
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
