"""The health of every world of a batch at once, read from the batch's state rows (aurgen.gym's module
docstring: ``info["health"]``, ``info["health_reason"]``; aurgen.runtime.sim.health for the checks).

A world whose row shows a plainly healthy run is ok without a per-world call: its plugin state passes
every check the plugin makes of a restored state (runtime/native/plugin/state.h StateError), its ledger
holds no verdict, MuJoCo has not reset its state and its qpos and qvel are finite; that is exactly when
:func:`aurgen.runtime.sim.health.health_of` reads "ok". The screen is numpy over the worlds' rows, and
never passes a world the exact reading would not (it asks no less than StateError and takes a reset
tally with counts in it to the exact reading); every other world (an invalid one, in practice) is read
exactly, by ``health_of`` on a scratch MjData given its row, for its reason in the runtime's words.
"""

from __future__ import annotations

import mujoco
import numpy as np

from aurgen.runtime.sim.health import (C_BODY, C_DEPTH, C_EPISODE_KE, C_IMPACT, C_RATIO, C_REST, C_SIZE, C_TIME,
                                       C_WORK, C_WORKBODY, C_WORKMAX, C_WORKTIME, S_BAD, S_E, S_E0, S_EMIN, S_N,
                                       S_RES, S_RESMAX, S_SCALE, S_W, T_FIRST_KIND, T_FIRST_TIME, T_LAST,
                                       T_PENDING, T_QACC, T_QPOS, T_QVEL, T_REACHED, T_RESETS, NTALLY,
                                       PluginLedger, health_of)

MAX_STEPS = 2.0 ** 53  # core/ledger.h kMaxSteps: the largest count a ledger or a reset tally keeps


class WorldsHealth:
    """Health of the worlds of one model from their ``mjSTATE_INTEGRATION`` rows: ``model`` and the
    index of its aurgen.hydrostatics ``instance``."""

    def __init__(self, model, instance: int):
        self.model, self.instance = model, instance
        self._scratch = mujoco.MjData(model)  # the exact reading's MjData (its warning counts stay 0)
        led = PluginLedger(model, self._scratch, instance)
        L, a, nb = led.layout, led.adr, float(model.nbody - 1)

        def at(region, *slots):
            return [a + L[region] + s for s in slots]

        # (columns of the plugin state, what each must hold), as StateError asks or more
        self._zero = at("ledger", S_BAD) + at("tally", T_RESETS, T_QPOS, T_QVEL, T_QACC, T_FIRST_KIND)
        self._finite = (at("trec", 0) + at("ledger", S_E0, S_W, S_EMIN, S_RES, S_E, S_RESMAX)
                        + at("tally", T_FIRST_TIME, T_REACHED, T_LAST) + at("contact", C_TIME, C_WORK, C_WORKTIME))
        self._nonneg = at("ledger", S_SCALE) + at("contact", C_RATIO, C_DEPTH, C_SIZE, C_WORKMAX, C_REST, C_IMPACT,
                                                  C_EPISODE_KE)
        self._flag = at("record", 0) + at("tally", T_PENDING)
        self._count = at("track", 0) + at("ledger", S_N) + at("rkstage", 0) + at("contact", C_BODY, C_WORKBODY)
        self._count_max = np.array([nb, MAX_STEPS, 3.0, nb, nb])
        cols = self._zero + self._finite + self._nonneg + self._flag + self._count
        self._span = (min(cols), max(cols) + 1)
        for name in ("_zero", "_finite", "_nonneg", "_flag", "_count"):  # as columns of the span
            setattr(self, name, [c - self._span[0] for c in getattr(self, name)])
        self._tally = slice(a + L["tally"], a + L["tally"] + NTALLY)
        self._pending = a + L["tally"] + T_PENDING
        self._spec = mujoco.mjtState.mjSTATE_INTEGRATION

    def tally(self, plugin_state, ids) -> np.ndarray:
        """The reset tallies (len(ids), NTALLY) of worlds ``ids`` in ``plugin_state`` (N, nplugin_state)."""
        return plugin_state[ids, self._tally]

    def reset_with_tally(self, plugin_state, ids, tally) -> None:
        """After a batch's reset of worlds ``ids``, give each its own reset ``tally`` (as :meth:`tally`
        read it before), as mj_resetData on the world's own MjData leaves it: the plugin's reset keeps
        the tally of the state it resets and marks it pending (runtime/native/plugin/hydro.cc
        Hydro::Reset), and a batch resets a world on its thread's MjData, which holds another's."""
        plugin_state[ids, self._tally] = tally
        plugin_state[ids, self._pending] = 1.0

    def plainly_ok(self, plugin_state, qpos, qvel) -> np.ndarray:
        """True for each world (row of ``plugin_state`` (N, nplugin_state), ``qpos`` (N, nq), ``qvel``
        (N, nv)) whose health is ok by the screen (the module docstring); False: read it exactly."""
        lo, hi = self._span
        ps = np.array(plugin_state[:, lo:hi])  # the slots read, one copy
        ok = (ps[:, self._zero] == 0.0).all(axis=1)
        ok &= np.isfinite(ps[:, self._finite]).all(axis=1)
        x = ps[:, self._nonneg]
        ok &= ((x >= 0.0) & (x < np.inf)).all(axis=1)
        x = ps[:, self._flag]
        ok &= ((x == 0.0) | (x == 1.0)).all(axis=1)
        x = ps[:, self._count]
        ok &= ((x >= 0.0) & (x <= self._count_max) & (x == np.floor(x))).all(axis=1)
        ok &= np.isfinite(qpos).all(axis=1) & np.isfinite(qvel).all(axis=1)
        return ok

    def exact(self, row):
        """The :class:`aurgen.runtime.sim.health.Health` of the world whose state row is ``row``
        (nstate,): ``health_of`` on the scratch MjData given the row."""
        mujoco.mj_setState(self.model, self._scratch, row, self._spec)
        return health_of(self.model, self._scratch, instance=self.instance)

    def of(self, rows, plugin_state, qpos, qvel) -> tuple:
        """(ok (N,) bool, status (N,) object: "ok" / "invalid", reason (N,) object: "" when ok) of the
        worlds whose state rows are ``rows`` (N, nstate), with their plugin_state, qpos and qvel views."""
        ok = self.plainly_ok(plugin_state, qpos, qvel)
        status = np.full(ok.shape[0], "ok", dtype=object)
        reason = np.full(ok.shape[0], "", dtype=object)
        for i in np.flatnonzero(~ok):  # the worlds the screen does not pass: read exactly
            h = self.exact(rows[i])
            ok[i], status[i], reason[i] = h.ok, h.status, h.reason or ""
        return ok, status, reason
