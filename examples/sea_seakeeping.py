"""A world with a sea, the BlueBoat's seakeeping figures in it, and a short run in it.

What it shows: a world config with ``waves:`` (docs/config.md "Waves"), built with ``aurgen worlds``;
``aurgen report --seakeeping`` run in that world's sea (``--seakeeping-set sea.world=...``: its
spectrum, seed and depth instead of the report's default sea) with its figures; and ``aurgen sim`` of
the world for a few seconds with ``--plot``. The script writes ``choppy_bay.yaml``, a world of its own:
open_water's planes and cells carrying a JONSWAP sea of Hs 0.5 m and Tp 3.5 s (64 components from
seed 3, travelling along +x), water 20 m deep, the BlueBoat floating at the surface.

Run it::

    python examples/sea_seakeeping.py                 # writes ./examples_out/sea_seakeeping/
    python examples/sea_seakeeping.py --out my_sea --quick

``--quick`` runs the RAOs at two periods (2 s and 10 s) in head seas only and records 60 s of the
irregular sea (about 15 s in all); without it the report's defaults (ten periods, head and beam seas,
300 s records: about a minute).

Writes, under ``--out`` (default ``./examples_out/sea_seakeeping``): ``choppy_bay.yaml``,
``build/worlds/choppy_bay.xml`` and ``.sdf`` (with the BlueBoat's own files in ``build/blueboat/``),
``report/`` (``report.md`` with its Seakeeping section, ``seakeeping.png``: the RAOs,
``sea_state.png``: the irregular records), ``sim.csv`` and ``sim.png`` (``aurgen sim``'s trajectory and
plot). Prints the report's seakeeping tables and the run's heave against the sea's declared Hs.

Needs: aurgen installed (nothing else).
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
from pathlib import Path

import numpy as np

from aurgen.cli import main as aurgen

WORLD = """\
# A choppy bay (examples/sea_seakeeping.py): open_water's planes and cells, 20 m deep, carrying a
# JONSWAP sea of Hs 0.5 m and Tp 3.5 s (WMO sea state 3 starts at 0.5 m) travelling along +x.
description: choppy bay, JONSWAP hs 0.5 m, tp 3.5 s, 1025 kg/m^3, seabed at 20 m
timestep: 0.002
integrator: implicitfast
gravity: [0, 0, -9.81]
planes:
  surface: {normal: [0, 0, 1], offset: 0.0}
  seabed:  {normal: [0, 0, 1], offset: -20.0, size: [200, 200]}
cells:
  air:   {above: [surface], density: 1.225, viscosity: 1.81e-5, flow: [0, 0, 0]}
  water: {below: [surface], above: [seabed], density: 1025.0, viscosity: 1.08e-3, flow: [0, 0, 0]}
ground: seabed
waves:
  surface: surface
  spectrum: jonswap
  hs: 0.5
  tp: 3.5
  gamma: 3.3
  components: 64
  seed: 3
  direction: 0
  ramp: 5
vehicles:
  - {config: blueboat.yaml, name: blueboat, xyz: [0, 0, 0.05], rpy: [0, 0, 0]}
"""

HS = 0.5  # m, the sea's declared significant height (WORLD's hs)


def run(*argv) -> None:
    """``aurgen ARGV...`` in this process; stop on a failure."""
    print("$ aurgen " + " ".join(map(str, argv)), flush=True)
    status = aurgen([str(a) for a in argv])
    if status != 0:
        sys.exit(f"aurgen {argv[0]} failed (exit {status})")


def seakeeping_section(report_md: str) -> str:
    """The report's Seakeeping section, up to the next second-level heading."""
    m = re.search(r"^## Seakeeping\n(.*?)(?=^## )", report_md, re.S | re.M)
    return m.group(1) if m else ""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="examples_out/sea_seakeeping", help="output folder")
    ap.add_argument("--quick", action="store_true", help="two periods, head seas, 60 s of irregular sea")
    ap.add_argument("--duration", type=float, default=20.0, help="aurgen sim's simulated seconds (default 20)")
    args = ap.parse_args(argv)
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    world = out / "choppy_bay.yaml"
    world.write_text(WORLD, encoding="utf-8")
    print(f"wrote {world}")

    run("worlds", world, "-o", out / "build")
    quick = ["--seakeeping-set", "periods=2,10", "--seakeeping-set", "headings=head",
             "--seakeeping-set", "sea.duration=60"] if args.quick else []
    run("report", "blueboat.yaml", "-o", out / "report", "--no-roll-decay", "--quiet",
        "--seakeeping-set", f"sea.world={world}", *quick)
    section = seakeeping_section((out / "report" / "report.md").read_text(encoding="utf-8"))
    print("\nthe report's seakeeping tables (report/report.md):")
    for line in section.splitlines():
        if line.startswith(("|", "####")):
            print("  " + line)

    run("sim", out / "build" / "worlds" / "choppy_bay.xml", "--duration", args.duration,
        "--out", out / "sim.csv", "--plot", out / "sim.png", "--quiet")
    with open(out / "sim.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    t = np.array([float(r["time [s]"]) for r in rows])
    z = np.array([float(r["blueboat/base_link.z [m]"]) for r in rows])
    tail = z[t > t[-1] / 2]  # after the 5 s ramp, the second half of the run
    print(f"\naurgen sim, the second half of {t[-1]:.0f} s: the BlueBoat's origin heaves with 4 sigma = "
          f"{4 * tail.std():.3f} m (the sea's declared Hs {HS} m), between {tail.min():+.3f} and {tail.max():+.3f} m")
    print(f"figures: {out / 'report' / 'seakeeping.png'}, {out / 'report' / 'sea_state.png'}, {out / 'sim.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
