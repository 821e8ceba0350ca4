"""Memory safety of the plugin's state (issue 27 item 4): every value restored from
mjSTATE_PLUGIN (mj_setState, mujoco.rollout's initial_state, mj_copyData of a tampered
MjData) is validated before use; an invalid one makes health invalid with a reason naming
it, never an access outside the plugin state.

Oracles: the same world stepped from the untampered state (the trajectory is bitwise the
same: the ledger only observes), and the plugin state outside the ledger's own slots
(nothing written there but what an untampered step writes).
"""
from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest

from aurgen.runtime.sim import health
from aurgen.runtime import plugin as hplugin
from aurgen.runtime.sim import Simulation

from simfixtures import body, geom, mjcf, water_env

if not hplugin.library_path().exists():
    pytest.skip(f"the plugin library is not built ({hplugin.library_path()})", allow_module_level=True)
hplugin.load()

PLUGIN = mujoco.mjtState.mjSTATE_PLUGIN
FULL = mujoco.mjtState.mjSTATE_FULLPHYSICS  # what rollout takes


def _cube(integrator="Euler", z=0.01):
    a, rho = 0.05, 1000.0
    mass = 0.5 * rho * 8 * a ** 3
    b = body("c", (0, 0, z), mass, (mass * (2 * a) ** 2 / 6,) * 3, geom("box", [a] * 3))
    return mjcf(b, env=water_env(rho, None), integrator=integrator)


def _world(integrator="Euler", settle_window=0.2):
    sim = Simulation(_cube(integrator), settle_window=settle_window)
    sim.step(50)
    return sim


def _plugin_state(m, d):
    s = np.empty(mujoco.mj_stateSize(m, PLUGIN))
    mujoco.mj_getState(m, d, s, PLUGIN)
    return s


def _step_from(m, d_ref, slot, value, nstep=3):
    """Two copies of d_ref, one with plugin-state slot set to value, stepped nstep times."""
    a, b = mujoco.MjData(m), mujoco.MjData(m)
    mujoco.mj_copyData(a, m, d_ref)
    mujoco.mj_copyData(b, m, d_ref)
    s = _plugin_state(m, b)
    s[slot] = value
    mujoco.mj_setState(m, b, s, PLUGIN)
    for _ in range(nstep):
        mujoco.mj_step(m, a)
        mujoco.mj_step(m, b)
    return a, b


def _layout(sim):
    led = health.PluginLedger(sim.model, sim.data)
    return led.layout


def _same_physics(a, b):
    for f in ("qpos", "qvel", "qacc", "act", "ctrl", "qfrc_applied", "xfrc_applied", "mocap_pos"):
        assert np.array_equal(getattr(a, f), getattr(b, f)), f
    assert a.time == b.time


BAD = [-65.0, -1.0, math.nan, math.inf, -math.inf, -1e300, 1e300, 0.5, 2.0 ** 60]


@pytest.mark.parametrize("integrator", ("Euler", "RK4"))
@pytest.mark.parametrize("value", BAD, ids=[repr(v) for v in BAD])
def test_a_tampered_step_count_writes_nothing_outside_and_names_itself(value, integrator):
    """The ledger's step count drives the settle window's ring index: -65 once wrote
    qpos[3]; now the step is bitwise the untampered one and health names the slot."""
    with _world(integrator) as sim:
        m, L = sim.model, _layout(sim)
        a, b = _step_from(m, sim.data, L["ledger"] + health.S_N, value)
        _same_physics(a, b)
        pa, pb = _plugin_state(m, a), _plugin_state(m, b)
        led = slice(L["ledger"], L["ledger"] + health.NSTATE)
        zb = slice(L["zbuf"], L["zbuf"] + L["nz"])
        outside = np.ones(len(pa), bool)
        outside[led] = outside[zb] = False
        assert np.array_equal(pa[outside], pb[outside], equal_nan=True)
        h = health.health_of(m, b)
        assert not h.ok and "invalid plugin state" in h.reason and "step count" in h.reason, h
        assert health.health_of(m, a).ok


@pytest.mark.parametrize("where,slot,value,needle", [
    ("track", 0, -7.0, "track"),
    ("track", 0, math.nan, "track"),
    ("track", 0, 1e300, "track"),
    ("record", 0, math.nan, "record"),
    ("tally", health.T_FIRST_KIND, 9.0, "first_kind"),
    ("tally", health.T_RESETS, -3.0, "resets"),
    ("tally", health.T_QPOS, math.nan, "qpos"),
    ("ledger", health.S_BAD, 7.0, "verdict"),
    ("ledger", health.S_SCALE, math.inf, "scale"),
    ("ledger", health.S_W, math.nan, "work"),
    ("ledger", health.S_E0, -math.inf, "E0"),
    ("rkstage", 0, 9.0, "RK4 stage index"),
    ("rkstage", 0, -1e300, "RK4 stage index"),
    ("rkstage", 0, math.nan, "RK4 stage index"),
])
@pytest.mark.parametrize("integrator", ("Euler", "RK4"))
def test_every_restored_value_is_checked(where, slot, value, needle, integrator):
    with _world(integrator) as sim:
        m, L = sim.model, _layout(sim)
        a, b = _step_from(m, sim.data, L[where] + slot, value)
        _same_physics(a, b)
        h = health.health_of(m, b)
        assert not h.ok and "invalid plugin state" in h.reason and needle in h.reason, h.reason
        h2 = health.health_of(m, b)  # stays invalid, with the same reason
        assert h2.reason == h.reason
        for _ in range(5):
            mujoco.mj_step(m, b)
        assert health.health_of(m, b).reason == h.reason


def test_health_of_an_all_nan_state_reports_instead_of_raising():
    with _world() as sim:
        m, d = sim.model, sim.data
        s = _plugin_state(m, d)
        s[:] = math.nan
        mujoco.mj_setState(m, d, s, PLUGIN)
        h = health.health_of(m, d)  # before any step: read as restored
        assert not h.ok and "invalid plugin state" in h.reason and not h.settled
        mujoco.mj_step(m, d)
        h = health.health_of(m, d)
        assert not h.ok and "invalid plugin state" in h.reason


def test_rollout_with_a_tampered_initial_state_is_the_untampered_rollout():
    from mujoco import rollout

    with _world() as sim:
        m, d, L = sim.model, sim.data, _layout(sim)
        n = mujoco.mj_stateSize(m, FULL)
        s0 = np.empty(n)
        mujoco.mj_getState(m, d, s0, FULL)
        # the plugin state's offset in the full state: the spec's components before it
        off = mujoco.mj_stateSize(m, int(FULL) & (int(PLUGIN) - 1))
        init = np.tile(s0, (4, 1))
        base = off + L["ledger"] + health.S_N
        init[1, base] = -65.0
        init[2, base] = math.nan
        init[3, base] = -1e300
        datas = [mujoco.MjData(m) for _ in range(2)]
        st, _ = rollout.rollout(m, datas, init, nstep=20)
        qpos = slice(1, 1 + m.nq)  # after time
        for i in (1, 2, 3):
            assert np.array_equal(st[i, :, qpos], st[0, :, qpos]), i
        last = st[:, -1]
        for i in range(4):
            mujoco.mj_setState(m, d, last[i], FULL)
            h = health.health_of(m, d)
            assert h.ok == (i == 0), (i, h)
