"""Health of a running world: ok, or invalid with a named reason; settled detection.

Checks, per step (compiled: :func:`ledger_step`, C++ in runtime/native/core/ledger.cc):

* **non-finite state**: any NaN/inf in qpos, qvel or qacc;
* **energy gained with no work done**: the ledger ``E - E0 - W`` where
  ``E = kinetic (1/2 qdot^T (M + M_A) qdot) + gravitational + buoyancy potential``
  (the integral of the hydrostatic pressure over the submerged pieces) and ``W``
  the work of the non-conservative forces (actuators, applied forces,
  constraints, MuJoCo's own passive forces, the runtime's drag and damping),
  integrated by the left rectangle rule. Flagged when it exceeds
  ``ENERGY_RTOL * scale + ENERGY_ATOL``, ``scale`` being the largest kinetic
  energy, work or energy drop seen so far (a bounded integrator error stays a
  fraction of it; an instability grows without bound);
* and, read when asked (:meth:`Monitor.health`), **MuJoCo warnings** (any
  ``d.warning[i].number`` above its count at reset), heard through the
  runtime's handler (aurgen.runtime.mjwarn: never printed, never written to a
  ``MUJOCO_LOG.TXT``). A **state reset** (MuJoCo found NaN, inf or a huge value
  in qpos, qvel or qacc and restarted from the initial state) comes first: the
  run is invalid, with the number of resets and the simulated time reached, and
  never settled (the ledger restarts with the state, so it cannot say).

Settled: the range (max - min) of the tracked body's height over the last
``window`` seconds is below ``tol`` (a floating body's speed never reaches
exactly zero, its height range does).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import mjwarn
from ._native import ledger_step  # noqa: F401  (st, E, ke, P, dt, t, qpos, qvel, qacc, z, zbuf)

ENERGY_RTOL = 0.05
ENERGY_ATOL = 1e-9

# ledger state slots
S_E0 = 0
S_W = 1
S_SCALE = 2
S_EMIN = 3
S_RES = 4  # last residual E - E0 - W
S_BAD = 5  # 0 ok, 1 non-finite, 2 energy
S_N = 6  # steps recorded
S_E = 7  # last energy
S_RESMAX = 8
S_BADTIME = 9
S_KEMAX = 10
NSTATE = 12


@dataclass(frozen=True)
class Health:
    """``ok`` or not, with ``reason`` (None when ok); ``settled`` by the height window."""

    ok: bool
    reason: str | None
    settled: bool
    time: float
    energy_residual: float = 0.0
    energy_scale: float = 0.0

    @property
    def status(self) -> str:
        return "ok" if self.ok else "invalid"

    def __str__(self) -> str:
        s = "ok" if self.ok else f"invalid: {self.reason}"
        return s + (", settled" if self.settled else "")


def _warning_name(i: int) -> str:
    try:
        import mujoco

        return mujoco.mjtWarning(i).name
    except Exception:
        return f"warning {i}"


class Monitor:
    """Per-run health bookkeeping (the ledger arrays and the warning baseline)."""

    def __init__(self, dt: float, window: float = 1.0, tol: float = 1e-4):
        self.window = window
        self.tol = tol
        self.dt = dt
        self.state = np.zeros(NSTATE)
        self.zbuf = np.zeros(max(2, int(round(window / dt))))
        self.warn0 = None
        mjwarn.install()
        self.tally = mjwarn.Tally()  # MuJoCo's warnings during this run (the Simulation activates it)

    def reset(self, d):
        self.state[:] = 0.0
        self.zbuf[:] = 0.0
        self.warn0 = [int(d.warning[i].number) for i in range(len(d.warning))]
        self.tally.clear(d)
        self.tally.activate()

    def reset_reason(self) -> str | None:
        """Why the run is invalid when MuJoCo reset its state, or None."""
        t = self.tally
        if not t.resets:
            return None
        kinds = ", ".join(f"{k} {n}" for k, n in t.reset_kinds.items())
        what = {"mjWARN_BADQPOS": "qpos", "mjWARN_BADQVEL": "qvel", "mjWARN_BADQACC": "qacc"}[t.first_reset[0]]
        return (f"non-finite state (NaN, inf or a huge value in {what}) at t = {t.first_reset[2]:.4f} s: "
                f"MuJoCo reset the state to the initial one {t.resets} time{'s' if t.resets != 1 else ''} "
                f"({kinds}); simulated time reached {t.time_reached:.4f} s")

    def settled(self) -> bool:
        n = int(self.state[S_N])
        if n < self.zbuf.shape[0]:
            return False
        return float(self.zbuf.max() - self.zbuf.min()) < self.tol

    def height_range(self) -> float:
        n = int(self.state[S_N])
        z = self.zbuf if n >= self.zbuf.shape[0] else self.zbuf[:n]
        return float(z.max() - z.min()) if len(z) else float("nan")

    def health(self, d) -> Health:
        st = self.state
        reason = self.reset_reason()
        if reason is not None:  # the ledger restarted with the state: its verdict means nothing now
            return Health(False, reason, False, float(d.time), float(st[S_RES]), float(st[S_SCALE]))
        bad = int(st[S_BAD])
        if bad == 1:
            reason = f"non-finite state (NaN or inf) at t = {st[S_BADTIME]:.4f} s"
        elif bad == 2:
            reason = (f"energy gained with no work done at t = {st[S_BADTIME]:.4f} s "
                      f"(E - E0 - W = {st[S_RESMAX]:.6g} J, scale {st[S_SCALE]:.6g} J)")
        if reason is None and self.warn0 is not None:
            for i in range(len(d.warning)):
                n = int(d.warning[i].number)
                if n > self.warn0[i]:
                    name = _warning_name(i)
                    reason = f"MuJoCo warning: {name} ({n - self.warn0[i]} times)"
                    break
        if reason is None:
            for a in (d.qpos, d.qvel):
                if not np.all(np.isfinite(a)):
                    reason = "non-finite state (NaN or inf)"
                    break
        return Health(reason is None, reason, self.settled(), float(d.time),
                      float(st[S_RES]), float(st[S_SCALE]))
