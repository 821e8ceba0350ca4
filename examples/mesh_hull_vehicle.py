"""A vehicle of your own with its own hull mesh: a small catamaran, its specs, its build and its report.

What it shows: how a vehicle that is not in the bundled catalog displaces through a hull mesh of your
own (``hull_displacement: {mesh: ...}``, docs/config.md "A hull mesh"). The script

1. makes two convex demihulls with trimesh (length 1.4 m, beam 0.18 m, 0.24 m deep, keel 0.10 m under
   the base_link origin, centres 0.40 m either side of the centreline) and writes them as one binary
   STL, ``meshes/mycat_hulls.stl`` (metres, base_link axes: x forward, y left, z up);
2. writes a chassis part of its own, ``parts/mycat_chassis.yaml`` (20 kg, inertia from its boxes, two
   T200 propeller slots), beside the config, where aurgen looks for a vehicle's own parts;
3. writes the vehicle, ``mycat.yaml``, and runs ``aurgen specs``, ``aurgen build``, ``aurgen audit``
   and ``aurgen report`` on it (through ``aurgen.cli.main``, the ``aurgen`` command's entry point);
4. prints, beside the specs' figures, what trimesh says of the same mesh: its enclosed volume (the
   specs' displaced volume at full submersion) and the volume under the specs' design waterline, which
   Archimedes says must be the vehicle's mass over the water's density.

Run it::

    python examples/mesh_hull_vehicle.py                 # writes ./examples_out/mesh_hull_vehicle/
    python examples/mesh_hull_vehicle.py --out my_cat --quick

``--quick`` skips the report's roll-decay run in the runtime (a few seconds instead of ~20 s).

Writes, under ``--out`` (default ``./examples_out/mesh_hull_vehicle``): ``mycat.yaml``,
``meshes/mycat_hulls.stl``, ``parts/mycat_chassis.yaml``, ``specs.json`` (``aurgen specs --json``),
``build/mycat/`` (MJCF, SDF, URDF, the ROS files) and ``report/`` (``report.md`` and its figures).

Needs: aurgen installed (trimesh comes with it). The demihulls are convex, so CoACD (the ``mesh`` extra)
is not needed.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import trimesh

from aurgen.cli import main as aurgen

RHO = 1025.0  # kg/m^3, the water the specs float the vehicle in (hull_displacement's default)

CHASSIS = """\
# A catamaran's frame: two demihulls joined by a deck (the displacement is the hull mesh, in the
# vehicle config; these boxes only give the frame its inertia at uniform density).
description: mycat chassis (two demihulls and a deck), the examples' own part
placeholder: "a made-up vehicle: mass and inertia are round figures, not measured"
mass: 20.0
collision:
  - {shape: box, size: [0.60, 0.98, 0.03], xyz: [0.0, 0.0, 0.155]}     # deck
  - {shape: box, size: [1.40, 0.18, 0.24], xyz: [0.0, 0.40, 0.02]}     # port demihull
  - {shape: box, size: [1.40, 0.18, 0.24], xyz: [0.0, -0.40, 0.02]}    # starboard demihull
slots:
  motor_port:
    xyz: [-0.72, 0.40, -0.09]
    accepts: [t200_prop_ccw]
    default: t200_prop_ccw
    joint: continuous
  motor_stbd:
    xyz: [-0.72, -0.40, -0.09]
    accepts: [t200_prop_cw]
    default: t200_prop_cw
    joint: continuous
"""

VEHICLE = """\
# A catamaran of your own (examples/mesh_hull_vehicle.py): its own chassis part (parts/) and its
# own hull mesh (meshes/), both beside this file.
name: mycat
base: {type: mycat_chassis, name: base_link}
parts: []
hull_displacement: {mesh: meshes/mycat_hulls.stl, segments: 6}
hydrodynamics: {kP: -20.0, kPabsP: -40.0, mQ: -20.0, mQabsQ: -40.0, nR: -18.0}
"""


def demihull(y: float, length=1.4, beam=0.18, keel=-0.10, top=0.14, stations=13, around=9) -> trimesh.Trimesh:
    """One convex demihull centred at (0, y), m: elliptic sections of half-breadth and draft tapering
    to the ends as sqrt(1 - (2x/L)^4), closed flat at z = ``top``; the convex hull of the section points."""
    pts = []
    for x in np.linspace(-length / 2, length / 2, stations):
        f = np.sqrt(max(1.0 - (2 * x / length) ** 4, 0.0))
        b, d = beam / 2 * max(f, 0.05), (top - keel) * max(f, 0.25)
        for a in np.linspace(np.pi, 2 * np.pi, around):  # the lower half-ellipse, port to starboard
            pts.append((x, y + b * np.cos(a), top + d * np.sin(a)))
    return trimesh.convex.convex_hull(np.array(pts))


def run(*argv) -> None:
    """``aurgen ARGV...`` in this process; stop on a failure."""
    print("$ aurgen " + " ".join(map(str, argv)), flush=True)
    status = aurgen([str(a) for a in argv])
    if status != 0:
        sys.exit(f"aurgen {argv[0]} failed (exit {status})")


def submerged_volume(mesh: trimesh.Trimesh, z: float) -> float:
    """trimesh's volume of ``mesh`` below the level plane at height ``z`` (m^3): the mesh cut there
    and capped."""
    return float(trimesh.intersections.slice_mesh_plane(mesh, [0, 0, -1], [0, 0, z], cap=True).volume)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="examples_out/mesh_hull_vehicle", help="output folder")
    ap.add_argument("--quick", action="store_true", help="skip the report's roll-decay run")
    args = ap.parse_args(argv)
    out = Path(args.out).resolve()
    (out / "meshes").mkdir(parents=True, exist_ok=True)
    (out / "parts").mkdir(exist_ok=True)

    hulls = trimesh.util.concatenate([demihull(0.40), demihull(-0.40)])
    assert hulls.is_watertight and hulls.is_volume
    hulls.export(out / "meshes" / "mycat_hulls.stl")
    (out / "parts" / "mycat_chassis.yaml").write_text(CHASSIS, encoding="utf-8")
    config = out / "mycat.yaml"
    config.write_text(VEHICLE, encoding="utf-8")
    print(f"wrote {config}, its part and its mesh ({hulls.volume:.6f} m^3 in two demihulls)")

    run("specs", config)
    with open(out / "specs.json", "w", encoding="utf-8") as f:  # aurgen specs --json, kept for the reader
        import contextlib

        with contextlib.redirect_stdout(f):
            status = aurgen(["specs", "--json", str(config)])
    if status != 0:
        sys.exit("aurgen specs --json failed")
    specs = json.loads((out / "specs.json").read_text(encoding="utf-8"))
    run("build", config, "-o", out / "build")
    run("audit", out / "build" / "mycat", "--config", config)
    run("report", config, "-o", out / "report", "--quiet", *(["--no-roll-decay"] if args.quick else []))

    # the same mesh as trimesh reads it back from the file aurgen read
    mesh = trimesh.load(out / "meshes" / "mycat_hulls.stl")
    waterline = specs["gazebo_boxes"]["waterline_z"]
    below = submerged_volume(mesh, waterline)
    print("\nthe specs against trimesh, on the same mesh:")
    print(f"  displaced volume (full):   specs {specs['displaced_volume']:.6f} m^3, trimesh {mesh.volume:.6f} m^3")
    print(f"  under the design waterline z = {waterline:.4f} m: trimesh {below:.6f} m^3, "
          f"mass / rho = {specs['total_mass']:.3f} / {RHO:g} = {specs['total_mass'] / RHO:.6f} m^3")
    print(f"  (specs --json: heel {specs['heel']:+.6f} rad, trim {specs['trim']:+.6f} rad, "
          f"GM_T {specs['gm_t']:.3f} m, GM_L {specs['gm_l']:.3f} m)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
