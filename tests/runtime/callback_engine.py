"""The tests' reference engine ``engine="callback"`` (not shipped with aurgen).

The same compiled force stage the plugin runs (``_native.ForceStage`` over the
arrays ``aurgen.runtime.sim.plan.Plan`` builds), called from MuJoCo's process-global
``mjcb_passive`` callback, with the health ledger kept by a Python step loop
after every ``mj_step``: the layer the plugin replaced, kept as its oracle
(bitwise trajectories and ledgers, tests/runtime/test_plugin*.py).

MuJoCo's passive callback is process-global, and while a Python callback is
installed MuJoCo cannot compile models (the bindings raise "Python exception
raised" for a model they have not wrapped yet), so the dispatcher is installed
only for the duration of a step or forward and the previous callback restored;
it serves every live Simulation of this engine, keyed by MjModel.  Registered
with ``aurgen.runtime.sim.register_engine`` when this module is imported
(tests/runtime/conftest.py does).
"""
from __future__ import annotations

import mujoco
import numpy as np

from aurgen.runtime.sim import forces as fz
from aurgen.runtime import plugin as hplugin
from aurgen.runtime.sim.plan import Plan
from aurgen.runtime.sim import Simulation, SimulationError, register_engine

_REGISTRY: dict = {}  # id(MjModel) -> Plan


def run(plan, m, d):
    """One evaluation of plan's force stage for the current stage of d (the passive callback's
    work; the forces crosscheck mode of conftest.py replaces it)."""
    if d is not plan.d:
        plan.bind(d)
    k = plan.stage
    rk4 = getattr(plan, "rk4_stage", None) if m.opt.integrator == mujoco.mjtIntegrator.mjINT_RK4 else None
    # RK4: every stage keeps its drag and damping (qdrag) for the stage's work, as the plugin
    plan.fl[fz.F_RECORD] = 1 if k == 0 or rk4 is not None else 0
    plan.stage += 1
    plan.native.run()
    if k == 0:  # the step's ledger: the first evaluation's (RK4's later stages overwrite led)
        np.copyto(plan.led_rec, plan.led)
    if rk4 is not None:  # the stage's share of the step's work (core/ledger.h RK4Stage)
        rk4(min(k, 3), m.opt.timestep)
    if plan.has_added:
        mujoco.mj_factorM(m, d)


def _dispatch(m, d):
    plan = _REGISTRY.get(id(m))
    if plan is not None:
        run(plan, m, d)  # looked up at each call: the crosscheck mode replaces it


class _installed:
    """Context: the passive callback installed, the previous one restored."""

    __slots__ = ("prev",)

    def __enter__(self):
        self.prev = mujoco.get_mjcb_passive()
        mujoco.set_mjcb_passive(_dispatch)

    def __exit__(self, *exc):
        mujoco.set_mjcb_passive(self.prev)


class CallbackEngine:
    """The engine object ``Simulation`` calls (see aurgen.runtime.sim.register_engine)."""

    @staticmethod
    def prepare(sim, m, src, env, plan, drag, added_mass, buoyancy):
        if Simulation._declares_plugin(m):  # the callback applies the forces: the instance must go
            if src is None:
                raise SimulationError("this MjModel carries the aurgen.hydrostatics instance; the callback "
                                      "engine would apply the forces twice (pass the file instead)")
            kind, s = src
            spec = mujoco.MjSpec.from_string(s) if kind == "string" else mujoco.MjSpec.from_file(s)
            for p in [p for p in spec.plugins if p.plugin_name == hplugin.NAME]:
                spec.delete(p)
            names = {mujoco.mj_id2name(plan.m, mujoco.mjtObj.mjOBJ_BODY, b) for b in plan.added_bodies}
            for b in spec.bodies:
                if b.name in names:
                    b.simple = 0
            m = spec.compile()
            d = mujoco.MjData(m)
            plan = Plan(m, d, env, drag, added_mass, buoyancy, plan.damping)
            sim._finish(m, env, plan)
        else:
            d = plan.d
        _REGISTRY[id(m)] = plan
        return m, d, plan

    @staticmethod
    def step(sim, n):
        m, d, plan = sim.model, sim.data, sim._plan
        account, dt, tb, tally = sim._ledger().account, m.opt.timestep, sim._track, sim.monitor.tally
        qvel, q0, dv, mdv = d.qvel, sim._q0, sim._dv, sim._mdv
        exact = m.opt.integrator != mujoco.mjtIntegrator.mjINT_RK4  # core/ledger.h StepWork
        plan.rk4_stage = None if exact else sim._ledger().rk4_stage
        with _installed():
            for _ in range(n):
                np.copyto(q0, qvel)
                plan.stage = 0
                mujoco.mj_step(m, d)
                if tally.pending:
                    tally.rearm()
                if exact:
                    np.subtract(qvel, q0, out=dv)
                    mujoco.mj_mulM(m, d, mdv, dv)
                account(dt, d.time, tb, exact, not exact)

    @staticmethod
    def forward(sim):
        sim._plan.stage = 0
        with _installed():
            mujoco.mj_forward(sim.model, sim.data)

    @staticmethod
    def close(sim):
        _REGISTRY.pop(id(sim.model), None)


register_engine("callback", CallbackEngine)
