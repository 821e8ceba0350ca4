"""The plugin against a host's hostile moves (issue 37), each in a subprocess so that a hang or a crash
fails its test instead of taking pytest with it.

* ``d.time`` set to NaN between steps in still water hung the step: Validate repaired the recorded
  time to ``d.time`` (NaN again) and asked again, for ever. Now every repair leaves a value the check
  accepts (a non-finite time repairs to 0), the loop is bounded all the same, and the run reads invalid.
* ``pickle.dumps(d)`` of an MjData with the plugin: MuJoCo's bindings copy the buffer, plugin_data
  included, over the instance mj_makeData gave the copy, so the copy named the original's instance;
  deleting the original and stepping the copy read freed memory (a segfault), and deleting both freed
  it twice. The plugin now keeps plugin_data a slot number whose slot names its mjData
  (runtime/native/plugin/register.cc): a copy's step finds its own instance, and steps bitwise as the
  original from the same state, in this process or another.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from aurgen.runtime import plugin as hplugin

if not hplugin.library_path().exists():
    pytest.skip(f"the plugin library is not built ({hplugin.library_path()})", allow_module_level=True)

HERE = Path(__file__).resolve().parent
CHECKOUT = HERE.parents[1]

# a box and a capsule in water (still, or a regular sea with a finite depth), the plugin declared
PRELUDE = textwrap.dedent("""
    import gc, math, pickle, sys
    sys.path.insert(0, {here!r})
    import mujoco
    import numpy as np
    from aurgen.runtime import plugin as hplugin
    from seascenes import scene, sea_env
    from simfixtures import G
    hplugin.load()

    def model(sea, integrator):
        comps = [[0.05, 2.0, 4.0 / G, 0.0, 0.0, 0.3]] if sea else [[0.0, 2.0, 4.0 / G, 0.0, 0.0, 0.0]]
        env = sea_env(comps, ramp=0.5)
        if not sea:
            del env["waves"]
        bodies = ('<body name="a" pos="0 0 0.02"><freejoint/><inertial pos="0 0 0" mass="6.0" '
                  'diaginertia="0.05 0.06 0.07"/><geom type="box" size="0.2 0.15 0.1" user="1" '
                  'contype="0" conaffinity="0"/></body>'
                  '<body name="b" pos="2 0 -0.1" euler="0.3 0.2 0"><freejoint/><inertial pos="0 0 0" mass="3.0" '
                  'diaginertia="0.02 0.03 0.03"/><geom type="capsule" size="0.08 0.2" user="1" '
                  'contype="0" conaffinity="0"/></body>')
        return mujoco.MjModel.from_xml_string(scene(bodies, env, drag=True, damping=True, integrator=integrator))

    def state(d):
        return d.qpos.tobytes() + d.qvel.tobytes() + d.plugin_state.tobytes() + np.float64(d.time).tobytes()
""")


def _run(body: str, timeout: float = 120.0) -> str:
    code = PRELUDE.format(here=str(HERE)) + textwrap.dedent(body)
    env = dict(os.environ)
    # this process's path (a wheel installed with pip --target stays), less the checkout's root, run from
    # this folder: `python -c` puts its working folder first, and from a clone's root (CI's plain `pytest`)
    # that is the source tree's aurgen, which has no aurgen.runtime
    env["PYTHONPATH"] = os.pathsep.join([p for p in sys.path if p and Path(p).resolve() != CHECKOUT])
    try:
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout, env=env,
                           cwd=HERE)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the subprocess hung (no answer in {timeout} s)")
    assert r.returncode == 0, f"the subprocess died (rc {r.returncode}):\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    return r.stdout


@pytest.mark.parametrize("sea", [False, True], ids=["still water", "sea"])
def test_a_nan_time_set_between_steps_does_not_hang(sea):
    out = _run(f"""
        m = model({sea}, "Euler")
        d = mujoco.MjData(m)
        mujoco.mj_step(m, d, nstep=5)
        d.time = math.nan
        mujoco.mj_step(m, d, nstep=3)
        d.time = 1.0
        mujoco.mj_step(m, d, nstep=3)
        print("stepped", np.isfinite(d.qpos).all())
    """, timeout=60.0)
    assert "stepped True" in out, out


def test_a_nan_time_reads_invalid():
    """The step goes on; the run's health is invalid (a NaN time is no state a step leaves)."""
    out = _run("""
        from aurgen.runtime.sim import Simulation
        from simfixtures import body, geom, mjcf, water_env
        sim = Simulation(mjcf(body("c", (0, 0, 0.01), 0.5, (0.001,) * 3, geom("box", [0.05] * 3))),
                         environment=water_env(1000.0))
        sim.step(5)
        print("before", sim.check().ok)
        sim.data.time = math.nan
        sim.step(3)
        print("after", sim.check().ok)
    """, timeout=60.0)
    assert "before True" in out and "after False" in out, out


STEPS = 60


@pytest.mark.parametrize("integrator", ["Euler", "RK4", "implicitfast"])
@pytest.mark.parametrize("sea", [False, True], ids=["still water", "sea"])
def test_a_pickled_copy_steps_as_the_original_once_it_is_gone(sea, integrator):
    """Pickle a stepped MjData, keep a copy (mj_copyData) as the reference, delete the original, collect,
    make new MjData to take its memory and slot, unpickle (often at the original's address), step the
    copy and the reference N steps: bitwise the same, and deleting everything crashes nothing."""
    out = _run(f"""
        m = model({sea}, {integrator!r})
        d = mujoco.MjData(m)
        mujoco.mj_step(m, d, nstep=25)
        ref = mujoco.MjData(m)
        mujoco.mj_copyData(ref, m, d)
        blob = pickle.dumps(d)
        del d
        gc.collect()
        copy = pickle.loads(blob)
        churn = [mujoco.MjData(m) for _ in range(3)]
        for x in churn:
            mujoco.mj_step(m, x, nstep=2)
        assert state(copy) == state(ref)
        mujoco.mj_step(m, copy, nstep={STEPS})
        mujoco.mj_step(m, ref, nstep={STEPS})
        print("same", state(copy) == state(ref), np.isfinite(copy.qpos).all())
        again = pickle.loads(pickle.dumps(copy))  # a copy of a copy, the original alive, then gone first
        del copy
        gc.collect()
        mujoco.mj_step(m, again, nstep=5)
        mujoco.mj_step(m, ref, nstep=5)
        print("again", state(again) == state(ref))
        del again, ref, churn
        gc.collect()
        print("done")
    """)
    assert "same True True" in out and "again True" in out and "done" in out, out


def test_a_pickled_copy_and_its_original_step_side_by_side():
    """Both alive: the copy steps on its own instance and the original on its own (deleting the copy
    first freed the original's instance: its next step read freed memory)."""
    out = _run(f"""
        m = model(True, "RK4")
        d = mujoco.MjData(m)
        mujoco.mj_step(m, d, nstep=10)
        copy = pickle.loads(pickle.dumps(d))
        for _ in range(4):
            mujoco.mj_step(m, copy, nstep=5)
            mujoco.mj_step(m, d, nstep=5)
        print("side by side", state(copy) == state(d))
        del copy
        gc.collect()
        mujoco.mj_step(m, d, nstep={STEPS})
        print("original", np.isfinite(d.qpos).all())
    """)
    assert "side by side True" in out and "original True" in out, out


def test_a_pickled_copy_resets_as_the_original():
    """mj_resetData on a copy whose plugin_data still names the original's instance (before any step)."""
    out = _run(f"""
        m = model(True, "Euler")
        d = mujoco.MjData(m)
        mujoco.mj_step(m, d, nstep=10)
        ref = mujoco.MjData(m)
        mujoco.mj_copyData(ref, m, d)
        copy = pickle.loads(pickle.dumps(d))
        del d
        gc.collect()
        mujoco.mj_resetData(m, copy)
        mujoco.mj_resetData(m, ref)  # the reset tally kept, the rest as a new run's
        print("reset", state(copy) == state(ref))
        mujoco.mj_step(m, copy, nstep={STEPS})
        mujoco.mj_step(m, ref, nstep={STEPS})
        print("stepped", state(copy) == state(ref))
    """)
    assert "reset True" in out and "stepped True" in out, out


def test_a_copy_pickled_in_another_process_steps_as_there(tmp_path):
    """The pickle's plugin_data is a number from another process: never followed, the copy steps on
    its own instance, bitwise as the original did there."""
    blob, want = tmp_path / "d.pkl", tmp_path / "want.bin"
    _run(f"""
        m = model(True, "RK4")
        d = mujoco.MjData(m)
        mujoco.mj_step(m, d, nstep=20)
        open({str(blob)!r}, "wb").write(pickle.dumps(d))
        mujoco.mj_step(m, d, nstep={STEPS})
        open({str(want)!r}, "wb").write(state(d))
    """)
    out = _run(f"""
        m = model(True, "RK4")
        spare = [mujoco.MjData(m) for _ in range(2)]  # slots taken here, as they were not there
        copy = pickle.loads(open({str(blob)!r}, "rb").read())
        mujoco.mj_step(m, copy, nstep={STEPS})
        print("as there", state(copy) == open({str(want)!r}, "rb").read())
    """)
    assert "as there True" in out, out
