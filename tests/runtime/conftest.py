"""Runtime tests: the kernel crosscheck mode.

With ``AURGEN_KERNEL_CROSSCHECK=1`` every call the hydrostatics facade and the
equilibrium solver make to the native kernel is repeated on the numba
reference implementation, and the session fails if any output differs by more
than 1e-12 relative (measure: ``kernel_oracle.compare``).  The summary prints
the number of calls, the rows compared, how many were not bitwise identical and
the largest difference.  tests/runtime/test_native_kernel.py runs the kernel
tests in this mode.
"""
from __future__ import annotations

import os

import numpy as np
import pytest

CROSSCHECK = os.environ.get("AURGEN_KERNEL_CROSSCHECK") == "1"
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
        worst, nb = compare(out, ref, extent)
        _stats["calls"] += 1
        _stats["rows"] += out.shape[0]
        _stats["not_bitwise"] += nb
        if worst > _stats["worst"]:
            _stats["worst"] = worst
            _stats["where"] = where
        assert worst <= TOL, f"native and numba kernels differ by {worst:.3g} relative in {where}"

    return clip_into


@pytest.fixture(autouse=True)
def _kernel_crosscheck(request, monkeypatch):
    if not CROSSCHECK:
        yield
        return
    from aurgen.runtime import equilibrium, hydrostatics, kernel, kernel_numba

    w = _wrap(kernel.clip_into, kernel_numba.clip_into, request.node.nodeid)
    for mod in (hydrostatics, equilibrium):
        monkeypatch.setattr(mod, "clip_into", w)
    yield


def pytest_terminal_summary(terminalreporter):
    if CROSSCHECK:
        s = _stats
        terminalreporter.write_line(
            f"kernel crosscheck: {s['calls']} calls, {s['rows']} rows, {s['not_bitwise']} rows not "
            f"bitwise identical, max relative difference {s['worst']:.3g} ({s['where'] or '-'})")
