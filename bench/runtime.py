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
Then: the marginal cost per partially submerged box, from a segments sweep
of the BlueBoat (``hull_displacement`` segments 2, 4, 6, 8, 12, each variant
composed in memory): the plugin's extra µs per step over plain ``mj_step``
(Euler, every variant and run interleaved in each round) is fitted by least
squares against the number of boxes the kernel finds partially submerged
(volume strictly between 0 and full, averaged over the timed trajectory); the
slope is compared with the target of 0.10 µs per partial box (the still-water ratios with 1.4).
Then: the cost of a sea (the environment's ``waves``; docs/kernel.md "Waves"): the BlueBoat
in open water as above, then the same model in a regular wave (one component) and in JONSWAP
seas of 8 and 64 components (hs 0.5 m, tp 4 s, seed 1), each under the three integrators, all
interleaved in each round against plain ``mj_step``; the extra cost over still water is divided by
the components and the displacement geoms: µs per wave component per geom per step, and per
(component, geom) pair per force evaluation (RK4 evaluates four times a step) in ns and in cycles
of the time-stamp counter (``tsc_ghz``: its rate calibrated against ``perf_counter``).
Then: ``mujoco.batch.Batch`` throughput of the open_water world on 1 and 2
threads, with and without the plugin (medians of alternating rounds: plain
MuJoCo's 2-thread scaling in the same rounds is the ceiling the shared machine
allows at the time), and the cold start of ``aurgen specs``,
``build`` and ``sim`` in fresh processes against ``python -c "import numpy, yaml"``
(run it from an installed wheel: a source tree without cached bytecode compiles
aurgen on every run).
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import io
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import mujoco
import numpy as np

INTEGRATORS = ("Euler", "implicitfast", "RK4")
EVALUATIONS = {"Euler": 1, "implicitfast": 1, "RK4": 4}  # the plugin's force evaluations per step


def build(out: Path) -> Path:
    from aurgen.cli import main

    with contextlib.redirect_stdout(io.StringIO()):  # its "wrote ..." lines
        if main(["build", "blueboat.yaml", "bluerov2.yaml", "-o", str(out)]) != 0:
            sys.exit("aurgen build failed")
        if main(["worlds", "open_water", "-o", str(out)]) != 0:
            sys.exit("aurgen worlds failed")
    return out


SEGMENTS = (2, 4, 6, 8, 12)
TARGET_US_PER_BOX = 0.10  # issue 48 (0.15 in issue 11): marginal cost per partially submerged box
TARGET_STILL = 1.4  # issue 48: still water, BlueBoat and open_water, against plain mj_step


def models(path, integrator: str):
    """(plain, aurgen, fluid) MjModels of one file (a Path) or MJCF text (a str) under one
    integrator, contacts off."""
    from aurgen.runtime.sim.cli import _declares_environment
    from aurgen.runtime.sim import Simulation

    # open water for a vehicle file; a world carries its environment (water= would be refused)
    water = None if not isinstance(path, str) and _declares_environment(path) else 1025.0
    sim = Simulation(path if isinstance(path, str) else str(path), water=water)
    assert sim._plugin, "the plugin is not in use"
    aur = sim.model
    spec = mujoco.MjSpec.from_string(path) if isinstance(path, str) else mujoco.MjSpec.from_file(str(path))
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


SEAS = (("regular", {"spectrum": "regular", "height": 0.1, "period": 3.0}),
        ("jonswap 8", {"spectrum": "jonswap", "hs": 0.5, "tp": 4.0, "components": 8, "seed": 1}),
        ("jonswap 64", {"spectrum": "jonswap", "hs": 0.5, "tp": 4.0, "components": 64, "seed": 1}))


FK = None  # --fk: the sea's waves.fk (None: the runtime's default)


def sea_environment(decl: dict) -> dict:
    """Open water (air above z = 0, water below) carrying the sea ``decl`` (runtime.waves)."""
    from aurgen.runtime.environment import schema as envmod
    from aurgen.runtime.environment import waves

    env = envmod.open_water()
    sea = waves.synthesize(decl, (0.0, 0.0, 1.0), 9.81)
    return {"planes": [list(map(float, p)) for p in env.planes],
            "cells": [{"name": c.name, "signs": list(c.signs), "density": c.density, "viscosity": c.viscosity}
                      for c in env.cells],
            "gravity": {"type": "uniform", "g": [0.0, 0.0, -9.81]},
            "waves": {**sea.block(), **({"fk": FK} if FK else {})}}


def tsc_ghz() -> float | None:
    """The time-stamp counter's rate (GHz: cycles per ns), calibrated against ``time.perf_counter``
    over 50 ms, or None where it cannot be read (not x86-64, or no executable memory). The counter
    is read by ``rdtsc`` from four instructions mapped executable through ctypes (the native module
    has no entry for it): on every x86-64 of the last decade it runs at the nominal clock whatever
    the core's turbo or idle state, so a figure in its cycles is ns times the nominal GHz."""
    import ctypes
    import mmap
    import platform

    if platform.machine().lower() not in ("x86_64", "amd64"):
        return None
    # rdtsc; shl rdx, 32; or rax, rdx; ret
    code = b"\x0f\x31\x48\xc1\xe2\x20\x48\x09\xd0\xc3"
    try:
        buf = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    except (OSError, AttributeError, ValueError):
        return None
    buf.write(code)
    addr = ctypes.addressof(ctypes.c_char.from_buffer(buf))
    rdtsc = ctypes.CFUNCTYPE(ctypes.c_uint64)(addr)
    rates = []
    for _ in range(3):
        t0, c0 = time.perf_counter(), rdtsc()
        while time.perf_counter() - t0 < 0.05:
            pass
        t1, c1 = time.perf_counter(), rdtsc()
        rates.append((c1 - c0) / ((t1 - t0) * 1e9))
    del rdtsc
    return statistics.median(rates)


def sea_cost(path: Path, steps: int, rounds: int):
    """[(sea, integrator, plain, still, sea µs, components, displacement geoms)] for the BlueBoat."""
    from aurgen.runtime.sim import Simulation

    out = []
    for integ in INTEGRATORS:
        plain, still, _ = models(path, integ)
        runs = [plain, still]
        for _, decl in SEAS:
            sim = Simulation(str(path), environment=sea_environment(decl))
            assert sim._plugin, "the plugin is not in use"
            m = sim.model
            m.opt.integrator = getattr(mujoco.mjtIntegrator, "mjINT_" + integ.upper())
            m.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONTACT
            runs.append(m)
            sim.close()
        ds = [mujoco.MjData(m) for m in runs]
        times = [[] for _ in runs]
        for _ in range(rounds):
            for k, (m, d) in enumerate(zip(runs, ds)):
                mujoco.mj_resetData(m, d)
                times[k].append(per_step(m, d, steps))
        med = [statistics.median(t) for t in times]
        ngeom = sum(1 for g in range(plain.ngeom) if plain.nuser_geom and round(plain.geom_user[g, 0]) == 1)
        for (name, decl), t in zip(SEAS, med[2:]):
            ncomp = 1 if decl["spectrum"] == "regular" else decl["components"]
            out.append((name, integ, med[0], med[1], t, ncomp, ngeom))
    return out


def blueboat_segments(n: int) -> str:
    """The BlueBoat's MJCF with hull_displacement segments = n, composed in memory (the loader
    path of ``aurgen sweep``: aurgen.config.vehicle_from_mapping, aurgen.compose.resolve)."""
    from aurgen.emit.build import outputs
    from aurgen.compose.resolve import resolve
    from aurgen.config.vehicle import resolve_config_path, vehicle_from_mapping
    from aurgen.core.yamlio import load

    path = resolve_config_path("blueboat.yaml")
    data = copy.deepcopy(load(path))
    data["hull_displacement"]["segments"] = n
    v = resolve(vehicle_from_mapping(data, path))
    return outputs(v)[f"{v.name}.xml"]


def partial_boxes(m, d) -> tuple[int, int]:
    """(displacement boxes, those partially submerged): the kernel's volume below z = 0 of each
    box geom the runtime displaces, strictly between 0 and the box's full volume."""
    from aurgen.runtime.hydrostatics import clip_batch
    from aurgen.runtime.sim import MARK_DISPLACEMENT

    user = m.geom_user[:, 0] if m.nuser_geom > 0 else np.zeros(m.ngeom)
    g = np.flatnonzero((np.rint(user) == MARK_DISPLACEMENT) & (m.geom_type == mujoco.mjtGeom.mjGEOM_BOX))
    if len(g) == 0:
        return 0, 0
    vol, _, _ = clip_batch(m.geom_type[g], m.geom_size[g], d.geom_xpos[g], d.geom_xmat[g].reshape(-1, 3, 3),
                           (0.0, 0.0, 1.0), 0.0)
    full = 8.0 * np.prod(m.geom_size[g], axis=1)
    eps = 1e-12 * full
    return len(g), int(np.count_nonzero((vol > eps) & (vol < full - eps)))


def marginal(steps: int, rounds: int, integrator: str = "Euler"):
    """[(segments, boxes, mean partial boxes over a run, plain µs, aurgen µs)] of the segments
    sweep, and the least-squares slope (µs per partial box) of aurgen - plain against the
    partial count."""
    runs = []  # per variant: (plain, aurgen) models and data
    for n in SEGMENTS:
        plain, aur, _ = models(blueboat_segments(n), integrator)
        runs.append(((plain, aur), (mujoco.MjData(plain), mujoco.MjData(aur))))
    times = [[[], []] for _ in SEGMENTS]
    for _ in range(rounds):
        for (ms, ds), t in zip(runs, times):
            for k, (m, d) in enumerate(zip(ms, ds)):
                mujoco.mj_resetData(m, d)
                t[k].append(per_step(m, d, steps))
    rows = []
    for n, ((_, aur), (_, d)), t in zip(SEGMENTS, runs, times):
        mujoco.mj_resetData(aur, d)  # the partial count along the trajectory the timed runs step
        counts = []
        for i in range(steps):
            mujoco.mj_step(aur, d)
            if i % 10 == 0:
                nbox, npart = partial_boxes(aur, d)
                counts.append(npart)
        rows.append((n, nbox, float(np.mean(counts)), statistics.median(t[0]), statistics.median(t[1])))
    x = np.array([r[2] for r in rows])
    y = np.array([r[4] - r[3] for r in rows])
    slope = float(np.polyfit(x, y, 1)[0]) if np.ptp(x) > 0 else float("nan")
    return rows, slope


def batch_throughput(path: Path, steps: int, rounds: int = 5):
    """{model: {nthread: median steps/s}} of mujoco.batch.Batch (8 sims) on 1 and 2 threads, for
    the aurgen world and for plain MuJoCo (the same file without the plugin), all four timed in
    alternation over ``rounds`` rounds. Plain MuJoCo's scaling in the same rounds is the ceiling
    this machine allows at that moment (its second core is shared)."""
    from mujoco.batch import Batch

    plain, aur, _ = models(path, "implicitfast")
    batches = {(k, n): Batch(m, nsim=8, nthread=n) for k, m in (("plain", plain), ("aurgen", aur)) for n in (1, 2)}
    rates = {key: [] for key in batches}
    for _ in range(rounds):
        for key, b in batches.items():
            b.reset()
            b.step(nstep=10)
            t0 = time.perf_counter()
            b.step(nstep=steps)
            rates[key].append(8 * steps / (time.perf_counter() - t0))
            assert np.all(np.isfinite(b.bind("qpos"))), "a simulation diverged"
    out = {"plain": {}, "aurgen": {}}
    for (k, n), r in rates.items():
        out[k][n] = statistics.median(r)
    return out


def cold_start(world: Path, rounds: int):
    """Median wall time (s) of fresh processes, interleaved round by round: the baseline
    ``python -c "import numpy, yaml"`` and the ``aurgen`` command (``python -m aurgen``, the same
    entry as the console script) for ``specs``, ``build`` (into a new folder each time) and a
    0.1 s ``sim`` of ``world``."""
    import aurgen

    if (Path(aurgen.__file__).resolve().parents[1] / "pyproject.toml").exists():
        print("  note: aurgen is imported from a source checkout (an editable install's finder comes "
              "before PYTHONPATH, so a wheel installed with pip --target is not the one run): measure "
              "from a venv with the wheel installed")
    pyc = list(Path(aurgen.__file__).parent.glob("__pycache__/cli.*.pyc"))
    if not pyc or sys.dont_write_bytecode:
        print("  note: aurgen's bytecode is not cached here (an editable or source tree run with "
              "PYTHONDONTWRITEBYTECODE?): every run compiles it; measure from an installed wheel")
    aur = [sys.executable, "-m", "aurgen"]
    with tempfile.TemporaryDirectory() as tmp:
        cmds = {"import numpy, yaml": [sys.executable, "-c", "import numpy, yaml"],
                "specs": aur + ["specs", "blueboat.yaml"],
                "build": aur + ["build", "blueboat.yaml", "-o"],
                "sim": aur + ["sim", str(world), "--water", "1025", "--duration", "0.1"]}  # a vehicle file: open water
        ts = {k: [] for k in cmds}
        for r in range(rounds):
            for k, cmd in cmds.items():
                if k == "build":
                    cmd = cmd + [str(Path(tmp) / f"b{r}")]
                t0 = time.perf_counter()
                subprocess.run(cmd, capture_output=True, check=True, cwd=tmp)
                ts[k].append(time.perf_counter() - t0)
    return {k: statistics.median(v) for k, v in ts.items()}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=2000)
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--quick", action="store_true", help="fewer steps and rounds")
    p.add_argument("--fk", choices=("exact", "moments"), help="the seas' Froude-Krylov (waves.fk)")
    p.add_argument("--sea-only", action="store_true", help="only the sea's section")
    a = p.parse_args(argv)
    if a.quick:
        a.steps, a.rounds = 500, 3
    global FK
    FK = a.fk
    with tempfile.TemporaryDirectory() as tmp:
        out = build(Path(tmp))
        files = {"BlueBoat": out / "blueboat" / "blueboat.xml", "BlueROV2": out / "bluerov2" / "bluerov2.xml",
                 "open_water": out / "worlds" / "open_water.xml"}
        print(f"median µs per step over {a.rounds} interleaved rounds of {a.steps} steps; contacts off, ncon == 0 "
              f"asserted (mujoco {mujoco.__version__})")
        print(f"{'model':12s} {'integrator':13s} {'plain':>8s} {'aurgen':>8s} {'ratio':>6s} {'fluid':>8s} {'ratio':>6s}")
        for name, path in ({} if a.sea_only else files).items():
            for integ in INTEGRATORS:
                pl, au, fl = compare(path, integ, a.steps, a.rounds)
                print(f"{name:12s} {integ:13s} {pl:8.2f} {au:8.2f} {au / pl:6.2f} {fl:8.2f} {fl / pl:6.2f}")
        if not a.sea_only:
            print(f"  still-water target: aurgen ratio <= {TARGET_STILL} for the BlueBoat and open_water")
        if not a.sea_only:
            rows, slope = marginal(a.steps, a.rounds)
            print("marginal cost, BlueBoat hull_displacement segments sweep (Euler; partial = the kernel's "
                  "volume strictly between 0 and full, mean over the run):")
            print(f"{'segments':>8s} {'boxes':>6s} {'partial':>8s} {'plain':>8s} {'aurgen':>8s} {'extra':>8s}")
            for n, nbox, npart, pl, au in rows:
                print(f"{n:8d} {nbox:6d} {npart:8.2f} {pl:8.2f} {au:8.2f} {au - pl:8.2f}")
            print(f"  slope: {slope:.3f} µs per partial box ({slope / TARGET_US_PER_BOX:.2f}x the "
                  f"{TARGET_US_PER_BOX} µs target)")
        ghz = tsc_ghz()
        print("a sea, BlueBoat (waves on the surface; per step: extra over still water / (components x "
              "displacement geoms); per pair: the same per force evaluation (RK4 evaluates four times a step), "
              "in ns and in TSC cycles at "
              + (f"{ghz:.3f} GHz, calibrated here):" if ghz else "an unreadable TSC: none):"))
        print(f"{'sea':11s} {'integrator':13s} {'plain':>8s} {'still':>8s} {'sea':>9s} {'ratio':>6s} "
              f"{'us/comp/geom':>13s} {'ns/pair':>8s} {'cyc/pair':>9s}")
        for name, integ, pl, st, se, nc, ng in sea_cost(files["BlueBoat"], a.steps // 2, a.rounds):
            ns = (se - st) * 1e3 / (nc * ng * EVALUATIONS[integ])
            cyc = f"{ns * ghz:9.0f}" if ghz else f"{'-':>9s}"
            print(f"{name:11s} {integ:13s} {pl:8.2f} {st:8.2f} {se:9.2f} {se / pl:6.2f} "
                  f"{(se - st) / (nc * ng):13.3f} {ns:8.1f} {cyc}")
        if a.sea_only:
            return 0
        thr = batch_throughput(files["open_water"], a.steps // 4, a.rounds)
        au, pl = thr["aurgen"], thr["plain"]
        print(f"Batch (open_water, 8 sims; medians of {a.rounds} alternating rounds): aurgen {au[1]:.0f} "
              f"steps/s on 1 thread, {au[2]:.0f} on 2 ({au[2] / au[1]:.2f}x); plain MuJoCo in the same "
              f"rounds {pl[1]:.0f} and {pl[2]:.0f} ({pl[2] / pl[1]:.2f}x, the machine's ceiling now)")
        cold = cold_start(files["BlueBoat"], 5 if a.quick else 11)
        base = cold.pop("import numpy, yaml")
        print(f"cold start, fresh process, median ms (ratio to python -c 'import numpy, yaml', "
              f"{base * 1e3:.0f} ms; target for specs 1.5x): "
              + ", ".join(f"aurgen {k} {v * 1e3:.0f} ({v / base:.2f}x)" for k, v in cold.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
