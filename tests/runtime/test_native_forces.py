"""The native force stage (runtime/native/core/forces.cc) against the numba force
stage it was ported from (tests/runtime/numba_oracle/forces.py), on every simulation test
(crosscheck mode, see conftest.py), and its input checks."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from aurgen.runtime._native import ForceStage
from aurgen.runtime.sim import Simulation

pytest.importorskip("numba", reason="the numba oracle needs numba (the test extra)")

SIM_TESTS = ("test_sim_buoyancy.py", "test_added_mass.py", "test_added_mass_current.py", "test_added_mass_surface.py", "test_damping_switch.py", "test_gravity.py", "test_sim_drag.py",
             "test_sim_rest.py", "test_health.py", "test_vehicles_sim.py")


def test_simulation_tests_agree_with_numba_in_crosscheck_mode():
    """Every force evaluation of the simulation tests, repeated by the numba stage from the same state."""
    here = Path(__file__).parent
    env = dict(os.environ, AURGEN_FORCES_CROSSCHECK="1")
    # in one process (-n 0: the crosscheck's counts are summed where the tests run);
    # aurgen imported before pytest puts tests/ on sys.path (where tests/aurgen/ would be
    # taken for a namespace package by a development install)
    r = subprocess.run([sys.executable, "-c", "import sys, aurgen, pytest; sys.exit(pytest.main(sys.argv[1:]))",
                        "-q", "-p", "no:warnings", "-p", "no:cacheprovider", "-n", "0", "-m", "slow or not slow",
                        *[str(here / f) for f in SIM_TESTS]], capture_output=True, text=True, env=env, cwd=here)
    summary = [ln for ln in r.stdout.splitlines() if ln.startswith("forces crosscheck:")]
    print("\n".join(summary))
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    assert summary and " 0 evaluations" not in summary[0]


WATER_BOX = """<mujoco><option timestep="0.002"/><worldbody>
<body name="b" pos="0 0 0.05"><freejoint/><geom type="box" size=".2 .1 .1" mass="4" user="1"/></body>
</worldbody></mujoco>"""


def _args():
    sim = Simulation(WATER_BOX, water=1000.0)
    return sim, list(sim._plan.args)


def test_force_stage_refuses_bad_arrays():
    sim, args = _args()
    with pytest.raises(ValueError, match="49 arrays"):
        ForceStage(tuple(args[:-1]))
    bad = list(args)
    bad[1] = bad[1].astype(np.int32)  # gi must be int64: the stage keeps a pointer, no conversion
    with pytest.raises(ValueError, match="gi must be a C-contiguous int64"):
        ForceStage(tuple(bad))
    bad = list(args)
    bad[41] = np.zeros((bad[41].shape[0], bad[41].shape[1] + 1))  # vols with one cell too many
    with pytest.raises(ValueError, match="vols dimension 1"):
        ForceStage(tuple(bad))
    bad = list(args)
    gi = bad[1].copy()
    gi[0, 0] = 10 ** 6  # geom id out of range
    bad[1] = gi
    with pytest.raises(ValueError, match="gi row 0"):
        ForceStage(tuple(bad))
    bad = list(args)
    bad[26] = np.zeros((bad[26].shape[0], 18))[:, ::2]  # geom_xmat not C-contiguous
    with pytest.raises(ValueError, match="geom_xmat"):
        ForceStage(tuple(bad))
    ForceStage(tuple(args)).run()  # the real arrays are accepted
    sim.close()


def test_ledger_step_agrees_bitwise_with_numba():
    """Random energies, powers and states, with an energy jump and a NaN injected."""
    from numba_oracle.ledger import NSTATE, ledger_step as numba_ledger_step

    from aurgen.runtime.sim.health import ledger_step

    rng = np.random.default_rng(5)
    nq, nv = 7, 6
    sa, sb = np.zeros(NSTATE), np.zeros(NSTATE)
    za, zb = np.zeros(13), np.zeros(13)
    E = 10.0
    for i in range(400):
        qpos, qvel, qacc = rng.normal(size=nq), rng.normal(size=nv), rng.normal(size=nv)
        if i == 300:
            qacc[2] = np.nan
        E += rng.normal(scale=0.01) + (5.0 if i == 200 else 0.0)
        args = (E, abs(rng.normal()), rng.normal(), 0.002, 0.002 * i, qpos, qvel, qacc, rng.normal())
        ledger_step(sa, *args, za)
        numba_ledger_step(sb, *args, zb)
        assert np.array_equal(sa, sb, equal_nan=True) and np.array_equal(za, zb)
    assert sa[5] == 2.0  # the energy jump was flagged (before the NaN)
