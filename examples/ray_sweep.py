"""A sweep on Ray: the BlueBoat's static figures over a payload grid, computed on a local Ray cluster.

What it shows: a sweep file of your own (docs/config.md "Sweeps": a payload part the sweep declares,
added on the deck, its mass and its offset to port swept on a grid) run with
``aurgen sweep FILE --ray local --workers 2``: aurgen starts a local Ray cluster of two CPUs, sends the
variants out in chunks and writes one table, sorted by variant, the same table a local run writes.
Prints the sweep file, the command, the table's first rows and where the deck goes under.

Run it::

    python examples/ray_sweep.py                      # writes ./examples_out/ray_sweep/
    python examples/ray_sweep.py --out my_sweep --quick

``--quick`` sweeps 6 payloads (0 to 25 kg) x 2 offsets (12 variants) instead of 26 x 3 (78); starting Ray takes
10-20 s either way.

Writes, under ``--out`` (default ``./examples_out/ray_sweep``): ``deck_payload.yaml`` (the sweep file) and
``ray/`` (``aurgen sweep``'s output folder: ``sweep.csv``, ``sweep.parquet``, ``rows.jsonl``,
``sweep.md``, the figures ``distributions.png``, ``gm_t_payload.png``, ``capsize_boundary.png``).

Needs: aurgen with the ``scale`` extra (``pip install 'aurgen[scale]'``: ray, pyarrow). Any other Ray
cluster works the same: ``--ray auto`` joins the running one, or give its address.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

from aurgen.cli import main as aurgen

SWEEP = """\
# The BlueBoat with a payload box on its deck (examples/ray_sweep.py): how far can it be loaded,
# on the centreline and off it to port, before the deck goes under?
vehicle: blueboat.yaml
parts:
  payload:
    description: a payload box of swept mass (0 kg - not fitted - is the boat as shipped)
    mass: 1.0
    collision: [{{shape: box, size: [0.2, 0.2, 0.1]}}]
add:
  - {{type: payload, name: payload, parent: base_link, xyz: [0.299, 0.0, 0.147]}}
grid:
  catalog.payload.mass: {{name: payload, from: 0, to: 25, num: {num}}}
  parts[payload].xyz[1]: {{name: payload_y, values: {offsets}}}
"""


def run(*argv) -> None:
    """``aurgen ARGV...`` in this process; stop on a failure."""
    print("$ aurgen " + " ".join(map(str, argv)), flush=True)
    status = aurgen([str(a) for a in argv])
    if status != 0:
        sys.exit(f"aurgen {argv[0]} failed (exit {status})")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="examples_out/ray_sweep", help="output folder")
    ap.add_argument("--quick", action="store_true", help="12 variants instead of 78")
    ap.add_argument("--workers", type=int, default=2, help="CPUs of the local Ray cluster (default 2)")
    args = ap.parse_args(argv)
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    sweep = out / "deck_payload.yaml"
    text = SWEEP.format(num=6 if args.quick else 26, offsets="[0.0, 0.3]" if args.quick else "[0.0, 0.15, 0.3]")
    sweep.write_text(text, encoding="utf-8")
    print(f"wrote {sweep}:\n{text}")

    run("sweep", sweep, "--ray", "local", "--workers", args.workers, "-o", out / "ray", "--fresh", "--quiet")
    with open(out / "ray" / "sweep.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    cols = ["variant", "payload_kg", "payload_y_m", "equilibrium_status", "safe", "heel_deg", "trim_deg", "gm_t_m", "freeboard_m"]
    print(f"\n{len(rows)} variants; the table's head ({out / 'ray' / 'sweep.csv'}):")
    print(" ".join(f"{c:>{max(11, len(c))}}" for c in cols))
    for r in rows[:8]:
        print(" ".join(f"{_short(r[c]):>{max(11, len(c))}}" for c in cols))
    for y in sorted({r["payload_y_m"] for r in rows}, key=float):
        unsafe = [float(r["payload_kg"]) for r in rows if r["payload_y_m"] == y and r["safe"] != "true"]
        print(f"payload {float(y):.2f} m to port: " +
              (f"first unsafe at {min(unsafe):g} kg" if unsafe else "safe over the whole grid"))
    return 0


def _short(v: str) -> str:
    """A table cell: numbers to 4 significant figures, the rest as written."""
    try:
        return f"{float(v):.4g}" if v else "-"
    except ValueError:
        return v


if __name__ == "__main__":
    sys.exit(main())
