"""The plan of one model: every array the compiled force stage (:mod:`aurgen.runtime.sim.forces`,
``_native.ForceStage``) needs, built once per model from the MjModel and the environment.

Geoms are marked by MuJoCo's ``geom_user[0]`` (``MARK_DISPLACEMENT`` 1: displaces fluid;
``MARK_WINDAGE`` 2: windage; 3: carries added mass only); frames are MuJoCo's (world frame,
body frames, dof order), units SI.  The plugin (runtime/native/plugin) builds the same
records from the same model itself; this plan serves the Python paths: a bare ``MjModel``
stepped in a Python loop, and the tests' reference engine (tests/runtime/callback_engine.py).
"""

from __future__ import annotations

import mujoco
import numpy as np

from aurgen.core.errors import AurgenError

from aurgen.runtime.sim import added_mass as am
from aurgen.runtime.environment import schema as envmod
from aurgen.runtime.sim import forces as fz
from aurgen.runtime._native import ForceStage
from aurgen.runtime.hydrostatics.drag import drag_coefficients
from aurgen.runtime.hydrostatics.geoms import EMPTY_HULLS, hull_of, pack_hulls
from aurgen.runtime.hydrostatics.kernel import full_local

MARK_DISPLACEMENT = 1
MARK_WINDAGE = 2
_MARK_ADDED_ONLY = 3


class SimulationError(AurgenError):
    """A model the runtime cannot simulate (message says why)."""


def _chain(m, b):
    w = int(m.body_weldid[b])
    out = []
    if w == 0 or m.body_dofnum[w] == 0:
        return out
    j = int(m.body_dofadr[w] + m.body_dofnum[w] - 1)
    while j >= 0:
        out.append(j)
        j = int(m.dof_parentid[j])
    return out


def _mmap(m):
    nv = m.nv
    mm = -np.ones((nv, nv), dtype=np.int64)
    for i in range(nv):
        a = int(m.M_rowadr[i])
        for k in range(a, a + int(m.M_rownnz[i])):
            mm[i, int(m.M_colind[k])] = k
    return mm


class Plan:
    """Every array the compiled force stage (:mod:`aurgen.runtime.sim.forces`) needs, built once per model."""

    def __init__(self, m, d, env: envmod.Environment, drag=True, added=True, buoyancy=True, damping=True):
        self.m = m
        self.damping = damping
        self.env = env
        user = m.geom_user[:, 0] if m.nuser_geom > 0 else np.zeros(m.ngeom)
        ell = dict(am.ellipsoid_geoms(m)) if added else {}
        geoms = []
        for g in range(m.ngeom):
            mark = int(round(user[g])) if m.nuser_geom > 0 else 0
            if mark in (MARK_DISPLACEMENT, MARK_WINDAGE):
                geoms.append((g, mark))
            elif g in ell:
                geoms.append((g, _MARK_ADDED_ONLY))
        ng = len(geoms)
        self.geoms = geoms
        gi = np.zeros((ng, 4), dtype=np.int64)
        gsz = np.zeros((ng, 3))
        mesh_ids = np.zeros(ng, dtype=np.int64)
        hulls = []
        for k, (g, mark) in enumerate(geoms):
            typ = int(m.geom_type[g])
            if typ not in (2, 3, 4, 5, 6, 7):
                name = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_GEOM, g) or f"#{g}"
                raise SimulationError(f"geom {name!r}: type {typ} cannot displace fluid "
                                      "(sphere, capsule, ellipsoid, cylinder, box or mesh)")
            gi[k] = (g, m.geom_bodyid[g], typ, mark)
            if typ == 7:
                mid = int(m.geom_dataid[g])
                va, vn = int(m.mesh_vertadr[mid]), int(m.mesh_vertnum[mid])
                hulls.append(hull_of(np.array(m.mesh_vert[va : va + vn], dtype=float)))
                mesh_ids[k] = len(hulls) - 1
                gsz[k] = m.geom_aabb[g, 3:6]
            else:
                gsz[k] = m.geom_size[g]
        try:
            self.gcd = drag_coefficients(m, geoms)
        except ValueError as exc:
            raise SimulationError(str(exc)) from None
        self.hulls = pack_hulls(hulls) if hulls else EMPTY_HULLS
        gvol = np.zeros(ng)
        gcl = np.zeros((ng, 3))
        for k in range(ng):
            full = full_local(gi[k, 2], gsz[k], self.hulls[5], self.hulls[6], mesh_ids[k])
            gvol[k] = full[0]
            gcl[k] = full[1:4]
        gt = np.ascontiguousarray(gi[:, 2])
        # weld groups of displacement geoms
        welds = []
        gw = np.zeros(ng, dtype=np.int64)
        for k in range(ng):
            w = int(m.body_weldid[gi[k, 1]])
            if w not in welds:
                welds.append(w)
            gw[k] = welds.index(w)
        wvol = np.zeros(len(welds))
        for k in range(ng):
            if gi[k, 3] == MARK_DISPLACEMENT:
                wvol[gw[k]] += gvol[k]
        self.welds = welds
        self._wvol = wvol

        # cells
        nc = len(env.cells)
        cell_rows = [env.cell_planes(c) for c in range(nc)]
        # the most planes one cell uses: the clip's scratch grows with its square, so a world of
        # many small cells must not size it by all its planes
        kmax = max([1] + [len(rows) for rows in cell_rows])
        cpl = np.zeros((nc, kmax, 4))
        cnp = np.zeros(nc, dtype=np.int64)
        cf = np.zeros((nc, fz.NCF))
        gvec = np.array(env.gravity.at(np.zeros(3)) if env.gravity.kind == "uniform" else (0, 0, -1.0))
        percell = any(c.gravity is not None for c in env.cells)
        for c, cell in enumerate(env.cells):
            rows = cell_rows[c]
            cpl[c, : len(rows)] = rows
            cnp[c] = len(rows)
            cf[c, fz.C_RHO] = cell.density
            cf[c, fz.C_MU] = cell.viscosity
            cf[c, fz.C_FLOW : fz.C_FLOW + 3] = cell.flow
            cf[c, fz.C_G : fz.C_G + 3] = cell.gravity if cell.gravity is not None else np.nan
            cf[c, fz.C_GAS] = 1.0 if cell.density < fz.GAS_DENSITY else 0.0
        self.surface = self._surface_plane(env, gvec)
        # gravity
        G = env.gravity
        gf = np.zeros(19)
        if G.kind == "uniform":
            gk = 3 if percell else 0
            gf[0:3] = G.g
        elif G.kind == "central":
            gk = 1
            gf[3] = G.mu
            gf[4:7] = G.centre
        else:
            gk = 2
            gf[7:10] = G.g0
            gf[10:19] = np.array(G.G, float).reshape(9)
        if gk == 3:
            cf[:, fz.C_K] = self._cell_potential_constants(env, gf[0:3])
        # pressure constants: p = -rho phi(x) + P, zero on each cell's reference plane
        for c, cell in enumerate(env.cells):
            x0 = self._reference_point(env, c, gvec)
            if gk == 3 and cell.gravity is not None:
                ph = -float(np.dot(cell.gravity, x0)) + cf[c, fz.C_K]
            else:
                ph = self._phi(gk, gf, x0)
            cf[c, fz.C_P] = cell.density * ph
        # bodies
        nb = m.nbody
        chains = [_chain(m, b) for b in range(nb)]
        maxd = max([1] + [len(c) for c in chains])
        bch = np.zeros((nb, maxd), dtype=np.int64)
        bnd = np.zeros(nb, dtype=np.int64)
        for b, ch in enumerate(chains):
            bch[b, : len(ch)] = ch
            bnd[b] = len(ch)
        broot = np.array(m.body_rootid, dtype=np.int64)
        # declared damping
        items = []
        for b in range(1, nb):
            name = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, b)
            if not name:
                continue
            Dl = am.find_numeric(m, "damping_linear", name)
            Dq = am.find_numeric(m, "damping_quadratic", name)
            if Dl is None and Dq is None:
                continue
            Dl = np.zeros((6, 6)) if Dl is None else Dl
            Dq = np.zeros((6, 6)) if Dq is None else Dq
            items.append((b, self._group_of(m, b), np.concatenate([Dl.ravel(), Dq.ravel()])))
        di = np.array([[b, w] for b, w, _ in items], dtype=np.int64).reshape(-1, 2)
        df = np.array([v for _, _, v in items], dtype=float).reshape(-1, 72)
        # added mass
        aitems = []
        if added:
            for b, A in am.declared(m):
                aitems.append(((0, b, b, self._group_of(m, b)), A))
            for k, (g, mark) in enumerate(geoms):
                if g in ell:
                    aitems.append(((1, int(m.geom_bodyid[g]), g, k), ell[g]))
        ai = np.array([a for a, _ in aitems], dtype=np.int64).reshape(-1, 4)
        af = np.array([A.ravel() for _, A in aitems], dtype=float).reshape(-1, 36)
        self.added_bodies = sorted({int(a[1]) for a, _ in aitems})
        self.has_added = len(aitems) > 0
        Mmap = _mmap(m)
        self.missing_offdiag = []
        for b in self.added_bodies:
            ch = chains[b]
            for j1 in ch:
                for j2 in ch:
                    if j2 <= j1 and Mmap[j1, j2] < 0:
                        self.missing_offdiag.append(int(m.body_weldid[b]))
        # flags, scratch, ledger
        fl = np.zeros(fz.NFLAG, dtype=np.int64)
        fl[fz.F_DRAG] = 1 if drag else 0
        fl[fz.F_ADDED] = 1 if self.has_added else 0
        fl[fz.F_GRAV] = gk
        fl[fz.F_BUOY] = 1 if buoyancy else 0
        fl[fz.F_DAMP] = 1 if damping else 0
        self.fl = fl
        self.gk = gk
        self.vols = np.zeros((ng, nc))
        self.cents = np.zeros((ng, nc, 3))
        self.areas = np.zeros((ng, nc))
        self.wfrac = np.zeros(len(welds))
        self.led = np.zeros(fz.NLED)  # every evaluation's (an unrecorded one zeroes it)
        self.led_rec = np.zeros(fz.NLED)  # the recorded evaluation's, as the plugin keeps it
        self.qmine = np.zeros(m.nv)
        self.qdrag = np.zeros(m.nv)  # of qmine, drag and damping (recorded evaluations)
        self._static = (fl, gi, gt, gcl, gsz, gvol, gw, mesh_ids, self.hulls, cpl, cnp, cf, gf,
                        bch, bnd, broot, m.body_mass, m.body_inertia, di, df, ai, af, wvol, Mmap)
        self._scratch = (np.zeros((max(ng, 1), 3)), np.zeros((max(ng, 1), 3, 3)),
                         np.zeros((kmax, 4)), np.zeros((max(ng, 1), 5)))
        if ng == 0:
            # keep shapes consistent for the kernel (it loops over gi rows only)
            self._scratch = (np.zeros((0, 3)), np.zeros((0, 3, 3)), np.zeros((kmax, 4)), np.zeros((0, 5)))
        self.d = None
        self.args = None
        self.stage = 0
        self.bind(d)

    def _group_of(self, m, b):
        """The weld group of body b (an index into wvol) if it has displacement geoms, else -1
        (a body with declared terms but no displacement geoms counts as fully immersed)."""
        w = int(m.body_weldid[b])
        return self.welds.index(w) if w in self.welds and self._wvol[self.welds.index(w)] > 0 else -1

    def bind(self, d):
        self.d = d
        pos, mats, planes, out = self._scratch
        dyn = (d.qvel, d.geom_xpos, d.geom_xmat, d.xpos, d.xmat, d.xipos, d.ximat, d.cdof,
               d.cdof_dot, d.subtree_com, d.cvel, d.qfrc_passive, d.M)
        self.args = self._static + dyn + (pos, mats, planes, out, self.vols, self.cents,
                                          self.areas, self.wfrac, self.led, self.qmine, self.qdrag,
                                          self.gcd)
        # the compiled force stage (runtime/native/core/forces.cc) keeps pointers into
        # these arrays (mjData's views are stable for its lifetime) and the tuple itself
        self.native = ForceStage(self.args)

    def keep_record(self):
        """After an evaluation: keep the ledger of a recorded one (RK4's later stages overwrite led)."""
        if self.fl[fz.F_RECORD]:
            np.copyto(self.led_rec, self.led)

    # -- helpers for the pressure / potential references
    @staticmethod
    def _phi(gk, gf, x):
        if gk == 1:
            return -gf[3] / float(np.linalg.norm(np.asarray(x) - gf[4:7]))
        if gk == 2:
            G = gf[10:19].reshape(3, 3)
            return -float(np.dot(gf[7:10], x) + 0.5 * x @ G @ x)
        return -float(np.dot(gf[0:3], x))

    @staticmethod
    def _reference_point(env, c, gvec):
        """A point where the cell's pressure is zero: on its upper face if it has one."""
        cell = env.cells[c]
        gh = gvec / (np.linalg.norm(gvec) or 1.0)
        best, score = None, -np.inf
        for j, s in enumerate(cell.signs):
            if s == 0:
                continue
            n = env.planes[j, :3]
            sc = s * float(np.dot(n, gh))  # > 0: the plane bounds the cell from above
            sc = sc if sc > 0 else abs(float(np.dot(n, gh))) - 2.0
            if sc > score:
                best, score = j, sc
        if best is None:
            return np.zeros(3)
        return env.planes[best, :3] * env.planes[best, 3]

    @staticmethod
    def _surface_plane(env, gvec):
        """(n, d) of the upper face of the densest cell (the free surface), or None."""
        if not env.cells:
            return None
        c = int(np.argmax([cell.density for cell in env.cells]))
        x0 = Plan._reference_point(env, c, gvec)
        gh = gvec / (np.linalg.norm(gvec) or 1.0)
        for j, s in enumerate(env.cells[c].signs):
            n = env.planes[j, :3]
            if s != 0 and s * float(np.dot(n, gh)) > 0 and np.allclose(n * env.planes[j, 3], x0):
                # water where s*(n.x - d) >= 0 ... express as up-normal u and offset
                u = -s * n
                return u, float(-s * env.planes[j, 3])
        return None

    @staticmethod
    def _cell_potential_constants(env, gglob):
        """K_c so that phi_c(x) = -g_c.x + K_c is continuous across faces (BFS)."""
        nc = len(env.cells)
        K = np.full(nc, np.nan)
        gs = [np.array(c.gravity if c.gravity is not None else gglob, float) for c in env.cells]
        for start in range(nc):
            if not np.isnan(K[start]):
                continue
            K[start] = 0.0
            todo = [start]
            while todo:
                i = todo.pop()
                for j in range(nc):
                    if not np.isnan(K[j]):
                        continue
                    for k, (si, sj) in enumerate(zip(env.cells[i].signs, env.cells[j].signs)):
                        if si * sj < 0:
                            x0 = env.planes[k, :3] * env.planes[k, 3]
                            K[j] = K[i] + float(np.dot(gs[j] - gs[i], x0))
                            todo.append(j)
                            break
        return K


# --------------------------------------------------------------- the API
