"""Benchmark: many worlds at once (issue 13), ratios measured in one run.

Static sweep (``aurgen sweep``): variants/s of a BlueBoat Monte Carlo sweep (payload
mass and position, a battery slot, the chassis' CoM height), computed in this process
(``aurgen.sweep.run_chunk``: compose in memory + kernel equilibrium + freeboard, no
I/O), against one ``aurgen specs`` composition (``resolve`` + ``equilibrium_of`` of
the bundled file) in the same process: the ratio says what the sweep's per-variant
cost is in units of one specs run. Then the same through the command line
(journal, table, no figures), and the projected time of the issue's target, a
10,000-variant sweep on 2 cores (``target ≤ 60 s``).

Ray (when installed): the same sweep on ``--ray local`` with 2 workers against 1
(ratio of wall times; ideal 2.0 on 2 free cores), and the tables compared byte
for byte; likewise ``-j 2`` (local processes, no Ray) against the serial command. The time-domain parts (``mujoco.batch.Batch`` worlds, the vector
environment) belong to the native plugin and are not measured here.

    python bench/scale.py [variants]
"""

from __future__ import annotations

import contextlib
import io
import sys
import tempfile
import time
from pathlib import Path

from aurgen import sweep as S
from aurgen.cli import main
from aurgen.compose import resolve
from aurgen.stamp import equilibrium_of

SWEEP = """vehicle: blueboat.yaml
seed: 1
samples: {n}
parts:
  payload:
    description: a payload box of random mass
    mass: 1.0
    collision: [{{shape: box, size: [0.2, 0.2, 0.1]}}]
add:
  - {{type: payload, name: payload, parent: base_link, xyz: [0.0, 0.0, 0.147]}}
random:
  catalog.payload.mass: {{name: payload, uniform: [0, 15]}}
  parts[payload].xyz[0]: {{name: payload_x, uniform: [-0.3, 0.3]}}
  parts[payload].xyz[1]: {{name: payload_y, uniform: [-0.1, 0.1]}}
  slot.port_fwd: {{choice: [none, br_liion_18ah]}}
  catalog.blueboat_chassis.com[2]: {{normal: {{mean: 0.0725, std: 0.01}}}}
"""


def best_of(fn, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def quiet(argv):
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return main(argv)


def run(n: int = 400) -> None:
    import os

    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs (the machine is shared: "
          "ratios, not absolute rates, are the figures)")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        path = tmp / "mc.yaml"
        path.write_text(SWEEP.format(n=n))
        sw = S.prepare(path)

        def specs_once():
            equilibrium_of(resolve("blueboat.yaml"))

        specs_once()
        t_specs = best_of(specs_once, 10)
        S.run_chunk(sw, range(8))  # warm the caches and imports
        t0 = time.perf_counter()
        S.run_chunk(sw, range(sw.n))
        t_sweep = time.perf_counter() - t0
        rate = sw.n / t_sweep
        print(f"aurgen specs (resolve + equilibrium, bundled BlueBoat): {1e3 * t_specs:.1f} ms = {1 / t_specs:.1f}/s")
        print(f"static sweep, in process ({sw.n} Monte Carlo variants): {t_sweep:.2f} s = {rate:.1f} variants/s "
              f"= {rate * t_specs:.2f} x the specs rate")
        t0 = time.perf_counter()
        assert quiet(["sweep", str(path), "-o", str(tmp / "cli"), "--no-figures", "--quiet"]) == 0
        t_cli = time.perf_counter() - t0
        print(f"static sweep, aurgen sweep --no-figures (journal, CSV, Parquet): {t_cli:.2f} s = "
              f"{sw.n / t_cli:.1f} variants/s = {sw.n / t_cli * t_specs:.2f} x the specs rate")
        t0 = time.perf_counter()
        assert quiet(["sweep", str(path), "-o", str(tmp / "j2"), "--no-figures", "--quiet", "-j", "2"]) == 0
        t_j2 = time.perf_counter() - t0
        same_j = (tmp / "j2" / "sweep.csv").read_bytes() == (tmp / "cli" / "sweep.csv").read_bytes()
        print(f"static sweep, -j 2 (two local processes, their start included): {t_j2:.2f} s = "
              f"{sw.n / t_j2:.1f} variants/s = {t_cli / t_j2:.2f} x -j 1 (ideal 2.0); same table: {same_j}")
        proj = 10_000 / (2 * rate)
        print(f"projected 10,000 variants on 2 cores (2 x the in-process rate): {proj:.0f} s (target <= 60 s: "
              f"{'ok' if proj <= 60 else 'MISSED'})")

        try:
            import ray
        except ImportError:
            print("ray: not installed (pip install 'aurgen[scale]'): Ray 2 workers against 1 not measured")
            return
        walls = {}
        for w in (1, 2):
            out = tmp / f"ray{w}"
            ray.init(num_cpus=w, include_dashboard=False, log_to_driver=False, configure_logging=False)
            try:
                quiet(["sweep", str(tmp / "mc.yaml"), "-o", str(tmp / "warm"), "--fresh", "--no-figures", "--quiet",
                       "--ray", "local", "--chunk", "4"])  # workers up, imports done
                t0 = time.perf_counter()
                assert quiet(["sweep", str(path), "-o", str(out), "--no-figures", "--quiet", "--ray", "local",
                              "--chunk", "16"]) == 0
                walls[w] = time.perf_counter() - t0
            finally:
                ray.shutdown()
            print(f"ray local, {w} worker(s): {walls[w]:.2f} s = {sw.n / walls[w]:.1f} variants/s")
        same = (tmp / "ray1" / "sweep.csv").read_bytes() == (tmp / "ray2" / "sweep.csv").read_bytes() == \
            (tmp / "cli" / "sweep.csv").read_bytes()
        print(f"ray local 2 workers against 1: {walls[1] / walls[2]:.2f} x (ideal 2.0); tables identical: {same}")


if __name__ == "__main__":
    run(int(sys.argv[1]) if len(sys.argv) > 1 else 400)
