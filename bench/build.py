"""Benchmark: ``aurgen build --all`` in process, against a plain compose of the same configs.

Prints the absolute time of a full build (target: under 2 s) and its ratio to
the baseline (resolve() of every bundled vehicle, no emit, no hydrostatics,
no I/O), both measured here, in this process. Run by hand:

    python bench/build.py [repeats]
"""

from __future__ import annotations

import contextlib
import io
import sys
import tempfile
import time

from aurgen.build import bundled_vehicles
from aurgen.cli import main
from aurgen.compose import resolve

TARGET = 2.0


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


if __name__ == "__main__":
    run(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
