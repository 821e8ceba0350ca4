"""The numba health ledger the native one (runtime/native/core/ledger.cc) replaced (test oracle)."""
import numpy as np
from numba import njit

# the ledger's state layout and tolerances: one contract with the native ledger
from aurgen.runtime.sim.health import (ENERGY_ATOL, ENERGY_RTOL, NSTATE, S_BAD, S_BADTIME, S_E, S_E0,  # noqa: F401
                                   S_EMIN, S_N, S_RES, S_RESMAX, S_SCALE, S_W)  # NSTATE: for the tests


@njit(cache=True)
def ledger_step(st, E, ke, P, dt, t, qpos, qvel, qacc, z, zbuf):
    """Account one step: E (energy at the step's start), P (non-conservative power then)."""
    if st[S_BAD] == 0.0:
        for a in (qpos, qvel, qacc):
            for i in range(a.shape[0]):
                if not np.isfinite(a[i]):
                    st[S_BAD] = 1.0
                    st[S_BADTIME] = t
                    break
    n = int(st[S_N])
    if n == 0:
        st[S_E0] = E
        st[S_EMIN] = E
        st[S_W] = 0.0
    if E < st[S_EMIN]:
        st[S_EMIN] = E
    res = E - st[S_E0] - st[S_W]
    st[S_RES] = res
    if res > st[S_RESMAX]:
        st[S_RESMAX] = res
    st[S_E] = E
    scale = st[S_SCALE]
    if ke > scale:
        scale = ke
    drop = st[S_E0] - st[S_EMIN]
    if drop > scale:
        scale = drop
    if abs(st[S_W]) > scale:
        scale = abs(st[S_W])
    st[S_SCALE] = scale
    if st[S_BAD] == 0.0 and np.isfinite(E):
        tol = ENERGY_RTOL * scale + ENERGY_ATOL * (1.0 + abs(st[S_E0]))
        if res > tol and n > 0:
            st[S_BAD] = 2.0
            st[S_BADTIME] = t
    elif st[S_BAD] == 0.0:
        st[S_BAD] = 1.0
        st[S_BADTIME] = t
    st[S_W] += P * dt
    # height window (ring buffer)
    m = zbuf.shape[0]
    zbuf[n % m] = z
    st[S_N] = n + 1
