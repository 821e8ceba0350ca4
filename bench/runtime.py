"""Runtime cost per step against plain MuJoCo, contact-free, in interleaved rounds.

Not a test; run by hand: ``python bench/runtime.py [--quick]``.

For the BlueBoat and the BlueROV2 (each in open water at z = 0) and the
open_water world (both vehicles), under Euler, implicitfast and RK4, three
runs of the same compiled model are timed in interleaved rounds in this
process:

* ``plain``: ``mj_step`` with MuJoCo's own gravity only (the plugin instance
  removed);
* ``aurgen``: the model with the ``aurgen.hydrostatics`` plugin (what
  ``Simulation`` steps), stepped by plain ``mj_step``: no Python per step;
* ``fluid``: MuJoCo's built-in inertia-box fluid model (``density`` 1025,
  ``viscosity`` 1.08e-3), the alternative a user would pick.

Contacts are disabled in every run (``mjDSBL_CONTACT``), and the script asserts
``ncon == 0`` in each, so no run pays for collisions the others don't (an
unsupported plain body falls to the seabed: 12 contacts would double its cost).
Each figure is the median over rounds of µs per step; ratios are against plain.
Then: ``mujoco.batch.Batch`` throughput of the open_water world on 1 and 2
threads, and the cold start of ``aurgen specs`` in a fresh process against
``python -c "import numpy, yaml"``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import mujoco
import numpy as np

INTEGRATORS = ("Euler", "implicitfast", "RK4")


def build(out: Path) -> Path:
    from aurgen.cli import main

    if main(["build", "blueboat.yaml", "bluerov2.yaml", "-o", str(out)]) != 0:
        sys.exit("aurgen build failed")
    if main(["worlds", "open_water", "-o", str(out)]) != 0:
        sys.exit("aurgen worlds failed")
    return out


def models(path: Path, integrator: str):
    """(plain, aurgen, fluid) MjModels of one file under one integrator, contacts off."""
    from aurgen.runtime.sim import Simulation

    sim = Simulation(str(path), water=1025.0)
    assert sim._plugin, "the plugin is not in use"
    aur = sim.model
    spec = mujoco.MjSpec.from_file(str(path))
    for p in [p for p in spec.plugins if p.plugin_name == "aurgen.hydrostatics"]:
        spec.delete(p)  # worlds declare the instance: plain and fluid run without it
    plain = spec.compile()
    plain.opt.gravity[:] = aur.opt.gravity
    fluid = spec.compile()
    fluid.opt.gravity[:] = aur.opt.gravity
    fluid.opt.density, fluid.opt.viscosity = 1025.0, 1.08e-3
    out = []
    for m in (plain, aur, fluid):
        m.opt.integrator = getattr(mujoco.mjtIntegrator, "mjINT_" + integrator.upper())
        m.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONTACT
        out.append(m)
    sim.close()
    return out


def per_step(m, d, n):
    t0 = time.perf_counter()
    for _ in range(n):
        mujoco.mj_step(m, d)
    dt = (time.perf_counter() - t0) / n * 1e6
    assert d.ncon == 0, "a contact: the comparison would not be like for like"
    assert np.all(np.isfinite(d.qpos))
    return dt


def compare(path: Path, integrator: str, steps: int, rounds: int):
    ms = models(path, integrator)
    ds = [mujoco.MjData(m) for m in ms]
    times = [[], [], []]
    for _ in range(rounds):
        for k, (m, d) in enumerate(zip(ms, ds)):
            mujoco.mj_resetData(m, d)
            times[k].append(per_step(m, d, steps))
    return [statistics.median(t) for t in times]


def batch_throughput(path: Path, steps: int):
    from mujoco.batch import Batch

    m = models(path, "implicitfast")[1]
    out = {}
    for nthread in (1, 2):
        b = Batch(m, nsim=8, nthread=nthread)
        b.reset()
        b.step(nstep=10)
        t0 = time.perf_counter()
        b.step(nstep=steps)
        out[nthread] = 8 * steps / (time.perf_counter() - t0)
    return out


def cold_start(cfg: str, repeats: int):
    def best(cmd):
        ts = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            subprocess.run(cmd, capture_output=True, check=True)
            ts.append(time.perf_counter() - t0)
        return min(ts)

    base = best([sys.executable, "-c", "import numpy, yaml"])
    specs = best([sys.executable, "-m", "aurgen", "specs", cfg])
    return base, specs


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=2000)
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--quick", action="store_true", help="fewer steps and rounds")
    a = p.parse_args(argv)
    if a.quick:
        a.steps, a.rounds = 500, 3
    with tempfile.TemporaryDirectory() as tmp:
        out = build(Path(tmp))
        files = {"BlueBoat": out / "blueboat" / "blueboat.xml", "BlueROV2": out / "bluerov2" / "bluerov2.xml",
                 "open_water": out / "worlds" / "open_water.xml"}
        print(f"median µs per step over {a.rounds} interleaved rounds of {a.steps} steps; contacts off, ncon == 0 "
              f"asserted (mujoco {mujoco.__version__})")
        print(f"{'model':12s} {'integrator':13s} {'plain':>8s} {'aurgen':>8s} {'ratio':>6s} {'fluid':>8s} {'ratio':>6s}")
        for name, path in files.items():
            for integ in INTEGRATORS:
                pl, au, fl = compare(path, integ, a.steps, a.rounds)
                print(f"{name:12s} {integ:13s} {pl:8.2f} {au:8.2f} {au / pl:6.2f} {fl:8.2f} {fl / pl:6.2f}")
        thr = batch_throughput(files["open_water"], a.steps // 4)
        print(f"Batch (open_water, 8 sims): {thr[1]:.0f} steps/s on 1 thread, {thr[2]:.0f} on 2 "
              f"({thr[2] / thr[1]:.2f}x)")
        base, specs = cold_start("blueboat.yaml", 3 if a.quick else 5)
        print(f"cold start, fresh process: aurgen specs blueboat.yaml {specs * 1e3:.0f} ms, "
              f"python -c 'import numpy, yaml' {base * 1e3:.0f} ms ({specs / base:.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
