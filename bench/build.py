"""Benchmark: ``aurgen build --all`` in process, against a plain compose of the same configs.

Prints the absolute time of a full build (target: under 2 s) and its ratio to
the baseline (resolve() of every bundled vehicle, no emit, no hydrostatics,
no I/O), both measured here, in this process. Then the placement scaling:
one vehicle with N free placements (N = 250, 500, 1000, 1990; the cap on
parts is 2000 including the chassis' defaults), each stage timed and its
ratio to N = 250 printed. Linear growth means ratios of about 2, 4 and 8
(1990/250 = 7.96); a quadratic step shows as 4, 16, 63. Run by hand:

    python bench/build.py [repeats]
"""

from __future__ import annotations

import contextlib
import io
import sys
import tempfile
import time

from pathlib import Path

from aurgen.emit import selfcheck
from aurgen.compose import stamp
from aurgen.emit.build import bundled_vehicles, outputs
from aurgen.cli import main
from aurgen.compose.resolve import resolve

TARGET = 2.0
SCALING = (250, 500, 1000, 1990)
HULL = "hull_displacement: {length: 1.05, width: 0.18, height: 0.18, x: 0.027, y: 0.361, z: 0.059, segments: 6}\n"


def best_of(fn, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def run(repeats: int = 5) -> None:
    configs = [str(p) for p in bundled_vehicles()]
    with tempfile.TemporaryDirectory() as out:
        def build_all():
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                assert main(["build", "--all", "-o", out]) == 0

        def compose_all():
            for c in configs:
                resolve(c)

        build_all()  # warm up: imports, template compilation, kernel JIT
        compose_all()
        t_build = best_of(build_all, repeats)
        t_compose = best_of(compose_all, repeats)
    print(f"aurgen build --all ({len(configs)} vehicles + worlds): {t_build:.3f} s  (target < {TARGET:.0f} s: "
          f"{'ok' if t_build < TARGET else 'MISSED'})")
    print(f"baseline, compose only:                  {t_compose:.3f} s")
    print(f"ratio build / compose:                   {t_build / t_compose:.1f}x")


def placements_config(n: int, folder: Path) -> str:
    """A BlueBoat with ``n`` free placements of a flag on its base link."""
    path = Path(folder) / f"many{n}.yaml"
    path.write_text("name: many\nbase: {type: blueboat_chassis}\n" + HULL + "parts:\n" + "".join(
        f"  - {{type: blueboat_flag, name: f{i}, parent: base_link, xyz: [0, 0, 1]}}\n" for i in range(n)))
    return str(path)


def scaling(repeats: int = 3) -> None:
    """Each stage's time at every N in SCALING, and its ratio to the first N."""
    stages = ("resolve", "equilibrium", "render", "self-check", "build (CLI)")
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in SCALING:
            config = placements_config(n, Path(tmp))
            out = str(Path(tmp) / f"out{n}")
            v = resolve(config)
            eq = stamp.equilibrium_of(v)
            files = outputs(v, eq)

            def cli():
                with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                    assert main(["build", config, "-o", out]) == 0

            rows[n] = (best_of(lambda: resolve(config), repeats), best_of(lambda: stamp.equilibrium_of(v), repeats),
                       best_of(lambda: outputs(v, eq), repeats),
                       best_of(lambda: selfcheck.check_outputs(files, config), repeats), best_of(cli, repeats))
    base = SCALING[0]
    print(f"\nplacement scaling (best of {repeats}; ratio to N = {base}; linear: N/{base})")
    print(f"{'stage':<12}" + "".join(f"{'N=' + str(n):>16}" for n in SCALING))
    print(f"{'N/' + str(base):<12}" + "".join(f"{n / base:>15.2f}x" for n in SCALING))
    for k, stage in enumerate(stages):
        print(f"{stage:<12}" + "".join(f"{rows[n][k]:>8.3f}s {rows[n][k] / rows[base][k]:>5.2f}x" for n in SCALING))


if __name__ == "__main__":
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    run(reps)
    scaling(max(1, min(reps, 3)))
