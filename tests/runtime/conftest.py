"""Runtime tests: the kernel and force-stage crosscheck modes.

With ``AURGEN_KERNEL_CROSSCHECK=1`` every call the hydrostatics facade and the
equilibrium solver make to the native kernel is repeated on the numba
reference implementation, and the session fails if any output differs by more
than 1e-12 relative (measure: ``kernel_oracle.compare``).  The summary prints
the number of calls, the rows compared, how many were not bitwise identical and
the largest difference.  tests/runtime/test_native_kernel.py runs the kernel
tests in this mode.

With ``AURGEN_FORCES_CROSSCHECK=1`` every evaluation of the native force stage
(runtime/native/core/forces.cc) inside a Simulation is repeated by the numba
force stage (numba_oracle/forces.py) from the same state, and every output (the
generalized forces, the mass matrix, the ledger, the pieces) must agree to 1e-12
of its array's magnitude, floored at the geoms' own scale: the largest buoyancy
(x (1 + extent)) for the generalized forces, the largest geom's volume for the
pieces, V c for the centroids, extent^2 for the areas, 1 for the submerged
fractions (a sliver's centroid from the oracle's edge soup carries ~1e-16 of the
box, ~1e-11 of the sliver; see kernel_oracle.compare).  tests/runtime/test_native_forces.py runs the
simulation tests in this mode (through the tests' callback engine, which this
file registers: callback_engine.py).
"""
from __future__ import annotations

import os

import numpy as np
import pytest

import callback_engine  # noqa: F401  registers engine="callback", the tests' reference

CROSSCHECK = os.environ.get("AURGEN_KERNEL_CROSSCHECK") == "1"
FORCES_CROSSCHECK = os.environ.get("AURGEN_FORCES_CROSSCHECK") == "1"
TOL = 1e-12
_stats = {"calls": 0, "rows": 0, "not_bitwise": 0, "worst": 0.0, "where": ""}


def _wrap(native, oracle, where):
    from kernel_oracle import compare

    def clip_into(types, sizes, pos, mats, mesh_ids, hulls, planes, out, want_wp):
        native(types, sizes, pos, mats, mesh_ids, hulls, planes, out, want_wp)
        ref = np.empty_like(out)
        oracle(np.ascontiguousarray(types, dtype=np.int64), np.ascontiguousarray(sizes, dtype=float),
               np.ascontiguousarray(pos, dtype=float), np.ascontiguousarray(mats, dtype=float),
               np.ascontiguousarray(mesh_ids, dtype=np.int64), hulls,
               np.ascontiguousarray(planes, dtype=float), ref, want_wp)
        extent = np.abs(np.asarray(sizes, dtype=float)).max(axis=1) if len(sizes) else np.zeros(0)
        worst, nb = compare(out, ref, extent, whole=np.asarray(types) == 6)  # box tier: see compare
        _stats["calls"] += 1
        _stats["rows"] += out.shape[0]
        _stats["not_bitwise"] += nb
        if worst > _stats["worst"]:
            _stats["worst"] = worst
            _stats["where"] = where
        assert worst <= TOL, f"native and numba kernels differ by {worst:.3g} relative in {where}"

    return clip_into


_fstats = {"evals": 0, "not_bitwise": 0, "worst": 0.0, "where": ""}


def _forces_run(where):
    import mujoco

    from numba_oracle import forces as fz

    def run(self, m, d):
        if d is not self.d:
            self.bind(d)
        self.fl[fz.F_RECORD] = 1 if self.stage == 0 else 0
        self.stage += 1
        q0, M0 = d.qfrc_passive.copy(), d.M.copy()
        outs = lambda: (d.qfrc_passive, d.M, self.led, self.qmine, self.vols, self.cents, self.areas, self.wfrac)
        self.native.run()
        self.keep_record()
        got = [a.copy() for a in outs()]
        d.qfrc_passive[:] = q0
        d.M[:] = M0
        if getattr(self, "_oracle_gexp", None) is None:  # the faces' exposure at the first evaluation, as the stage
            from numba_oracle.drag_faces import face_exposure
            gi = self.args[1]
            self._oracle_gexp = face_exposure(gi, self.args[4], self.args[3], self.args[6],
                                              d.geom_xpos[gi[:, 0]], d.geom_xmat[gi[:, 0]].reshape(-1, 3, 3))
        # the oracle keeps no qdrag (the ledger's split)
        fz.passive(*self.args[:47], self.args[48], *self._oracle_gexp)
        worst, bitwise = 0.0, True
        # the pieces against the geoms' own scale (see kernel_oracle.compare, whole): a sliver's
        # volume and centroid from the oracle's edge soup carry ~1e-16 of the box, not of the
        # sliver; the box tier keeps ~1e-14 of the sliver (test_box_tier.py)
        gsz, gvol = self.args[4], self.args[5]
        vfull = float(gvol.max(initial=0.0))
        ext = float(np.abs(gsz).max(initial=0.0))
        # the generalized forces against the largest buoyancy (and its moment over the extent)
        # the geoms can feel: a sliver's centroid error moves the torque by that scale x 1e-16
        cf, gf = self.args[11], self.args[12]
        rho = float(np.abs(cf[:, 0]).max(initial=0.0))
        fmax = rho * vfull * max(float(np.linalg.norm(gf[:3])), 1.0) * (1.0 + ext)
        # the ledger's powers are sums of qfrc_j qvel_j: the generalized forces' floor times sum |qvel|
        pfloor = fmax * float(np.abs(d.qvel).sum())
        floor = (fmax, 0.0, pfloor, fmax, vfull, 0.0, ext * ext, 1.0)  # wfrac: a fraction
        pieces = list(zip(got, outs()))
        va, vb = pieces[4]
        pieces[5] = (va[..., None] * pieces[5][0], vb[..., None] * pieces[5][1])  # V c
        floor = floor[:5] + (vfull * (ext + float(np.abs(got[5]).max(initial=0.0))),) + floor[6:]
        for (a, b), fl in zip(pieces, floor):
            if a.size == 0:
                continue
            nan = np.isnan(a) & np.isnan(b)
            assert np.array_equal(np.isnan(a), np.isnan(b)), f"nan pattern differs in {where}"
            diff = np.where(nan, 0.0, np.abs(a - b)).max()
            scale = max(np.where(nan, 0.0, np.maximum(np.abs(a), np.abs(b))).max(), fl)
            worst = max(worst, diff / scale if scale > 0 else diff)
            bitwise &= bool(np.all((a == b) | nan))
        _fstats["evals"] += 1
        _fstats["not_bitwise"] += 0 if bitwise else 1
        if worst > _fstats["worst"]:
            _fstats["worst"], _fstats["where"] = worst, where
        assert worst <= TOL, f"native and numba force stages differ by {worst:.3g} relative in {where}"
        if self.has_added:
            mujoco.mj_factorM(m, d)

    return run


@pytest.fixture(autouse=True)
def _forces_crosscheck(request, monkeypatch):
    if FORCES_CROSSCHECK:
        from aurgen.runtime.sim import simulation

        monkeypatch.setattr(simulation, "DEFAULT_ENGINE", "callback")  # the force stage runs from Python's callback
        monkeypatch.setattr(callback_engine, "run", _forces_run(request.node.nodeid))
    yield


@pytest.fixture(autouse=True)
def _kernel_crosscheck(request, monkeypatch):
    if not CROSSCHECK:
        yield
        return
    import importlib

    from aurgen.runtime import hydrostatics
    from aurgen.runtime.hydrostatics import kernel
    from numba_oracle import kernel as kernel_numba

    # the module: the package's own name ``equilibrium`` is the facade's function
    equilibrium = importlib.import_module("aurgen.runtime.hydrostatics.equilibrium")

    w = _wrap(kernel.clip_into, kernel_numba.clip_into, request.node.nodeid)
    for mod in (hydrostatics, equilibrium):
        monkeypatch.setattr(mod, "clip_into", w)
    yield


def pytest_terminal_summary(terminalreporter):
    if FORCES_CROSSCHECK:
        s = _fstats
        terminalreporter.write_line(
            f"forces crosscheck: {s['evals']} evaluations, {s['not_bitwise']} not bitwise identical, "
            f"max relative difference {s['worst']:.3g} ({s['where'] or '-'})")
    if CROSSCHECK:
        s = _stats
        terminalreporter.write_line(
            f"kernel crosscheck: {s['calls']} calls, {s['rows']} rows, {s['not_bitwise']} rows not "
            f"bitwise identical, max relative difference {s['worst']:.3g} ({s['where'] or '-'})")
