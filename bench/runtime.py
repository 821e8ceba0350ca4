"""Runtime cost per step against plain MuJoCo on the same compiled model.

Builds the BlueBoat, the BlueROV2 and the open-water world in a temp dir, then
in one process, alternating: steps the world with the runtime (environment
forces in the passive callback + the health ledger) and the same compiled model
with plain ``mj_step`` (the callback not installed: MuJoCo's own gravity only).
Prints steps per second and the ratio. Run by hand: ``python bench/runtime.py``.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import mujoco


def build(out: Path) -> Path:
    from aurgen.cli import main

    if main(["build", "blueboat.yaml", "bluerov2.yaml", "-o", str(out)]) != 0:
        sys.exit("aurgen build failed")
    if main(["worlds", "open_water", "-o", str(out)]) != 0:
        sys.exit("aurgen worlds failed")
    return out / "worlds" / "open_water.xml"


def main(argv=None) -> int:
    import argparse

    from aurgen.runtime import forces as fz
    from aurgen.runtime.sim import Simulation

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=5000)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--world", help="an existing world MJCF (default: build one)")
    a = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        world = Path(a.world) if a.world else build(Path(tmp))

        sim = Simulation(str(world))
        m, d = sim.model, sim.data
        plain = mujoco.MjData(m)  # same compiled model, plain mj_step (no callback)
        sim.step(10)  # JIT warm-up
        t_rt = t_pl = t_cb = 0.0
        n = a.steps
        for _ in range(a.rounds):
            sim.reset()
            t0 = time.perf_counter()
            sim.step(n)
            t_rt += time.perf_counter() - t0
            mujoco.mj_resetData(m, plain)
            t0 = time.perf_counter()
            for _ in range(n):
                mujoco.mj_step(m, plain)
            t_pl += time.perf_counter() - t0
            # the compiled force stage alone, at the current state
            plan = sim._plan
            t0 = time.perf_counter()
            for _ in range(n):
                plan.native.run()
            t_cb += time.perf_counter() - t0
        # callback with an empty body: the cost of MuJoCo calling into Python
        mujoco.mj_resetData(m, plain)

        def empty(mm, dd):
            pass

        prev = mujoco.get_mjcb_passive()
        mujoco.set_mjcb_passive(empty)
        t0 = time.perf_counter()
        for _ in range(n):
            mujoco.mj_step(m, plain)
        t_empty = time.perf_counter() - t0
        mujoco.set_mjcb_passive(prev)
        N = n * a.rounds
        us_rt, us_pl, us_cb, us_empty = 1e6 * t_rt / N, 1e6 * t_pl / N, 1e6 * t_cb / N, 1e6 * t_empty / n
        print(f"world: {world.name} (nv={m.nv}, displacement/windage geoms={len(sim._plan.geoms)}, "
              f"cells={len(sim.environment.cells)}, integrator={mujoco.mjtIntegrator(m.opt.integrator).name})")
        print(f"plain mj_step:        {1e6 / us_pl:10.0f} steps/s  ({us_pl:6.2f} us/step)")
        print(f"runtime step:         {1e6 / us_rt:10.0f} steps/s  ({us_rt:6.2f} us/step)")
        print(f"ratio runtime/plain:  {us_rt / us_pl:10.2f}x   (target <= 2x)")
        print(f"  of which: compiled force stage {us_cb:6.2f} us, empty Python callback overhead "
              f"{us_empty - us_pl:6.2f} us, rest (mj_factorM, ledger, Python loop) "
              f"{us_rt - us_pl - us_cb - max(0.0, us_empty - us_pl):6.2f} us")
        sim.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
