"""Generate vehicles/meshes/blueboat_demihulls.obj: the BlueBoat's two demihulls as one mesh.

Each demihull is a solid of revolution about a line parallel to x: a parallel midbody of the
chassis hull cylinder's radius, closed by a half-ellipsoid bow and a half-ellipsoid stern, with the
cylinder's length and placement (docs/sources.md §2, blueboat_chassis: cylinder r 0.091714,
l 1.05084 at (0.026602, ±0.36148, 0.059302)). Each demihull is convex, so the hull needs no
decomposition: its two closed bodies are the two convex pieces the kernel clips.

The vertices are written with ``repr`` (shortest round-trip decimals), the faces are the convex
hull of the points (trimesh, i.e. qhull), so the file is byte-identical on every machine:

    python tools/make_hull_mesh.py            # writes the file
    python tools/make_hull_mesh.py --check    # exit 1 if the committed file differs
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

RADIUS = 0.091714  # m
LENGTH = 1.05084  # m, bow tip to stern tip
CENTRE = (0.026602, 0.36148, 0.059302)  # m, base_link (port; starboard at -y)
BOW = 0.24  # m, the half-ellipsoid bow's length
STERN = 0.12  # m, the stern's
AROUND = 24  # vertices around each section
STATIONS = 6  # sections along each end (bow and stern), the tip excluded
OUT = Path(__file__).resolve().parents[1] / "vehicles" / "meshes" / "blueboat_demihulls.obj"


def demihull_points(y: float) -> np.ndarray:
    """The surface points of one demihull centred at (CENTRE x, y, CENTRE z)."""
    cx, _, cz = CENTRE
    x_bow, x_stern = cx + LENGTH / 2, cx - LENGTH / 2
    x_fb, x_fs = x_bow - BOW, x_stern + STERN  # where the midbody meets the bow and the stern
    rings = []
    for k in range(STATIONS + 1):  # bow: from the midbody to just short of the tip
        t = k / (STATIONS + 1)
        rings.append((x_fb + BOW * math.sin(0.5 * math.pi * t), RADIUS * math.cos(0.5 * math.pi * t)))
    for k in range(STATIONS + 1):
        t = k / (STATIONS + 1)
        rings.append((x_fs - STERN * math.sin(0.5 * math.pi * t), RADIUS * math.cos(0.5 * math.pi * t)))
    pts = [(x_bow, y, cz), (x_stern, y, cz)]
    for x, r in rings:
        for j in range(AROUND):
            a = 2 * math.pi * j / AROUND
            pts.append((x, y + r * math.cos(a), cz + r * math.sin(a)))
    return np.array(pts)


def obj_text() -> str:
    import trimesh

    lines = ["# the BlueBoat's demihulls (tools/make_hull_mesh.py): two convex bodies, metres, base_link"]
    offset = 0
    for y in (CENTRE[1], -CENTRE[1]):
        hull = trimesh.Trimesh(demihull_points(y)).convex_hull
        v = np.asarray(hull.vertices)
        f = np.asarray(hull.faces)
        lines += [f"v {x!r} {yy!r} {z!r}" for x, yy, z in v.tolist()]
        lines += [f"f {a + 1 + offset} {b + 1 + offset} {c + 1 + offset}" for a, b, c in f.tolist()]
        offset += len(v)
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if the committed mesh differs")
    args = ap.parse_args(argv)
    text = obj_text()
    if args.check:
        same = OUT.is_file() and OUT.read_text(encoding="utf-8") == text
        print(f"{OUT}: {'up to date' if same else 'differs from what this script generates'}")
        return 0 if same else 1
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(text, encoding="utf-8", newline="\n")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
