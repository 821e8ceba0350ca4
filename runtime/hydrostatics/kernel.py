"""The compiled hydrostatics core, one implementation behind every public path.

The kernel is C++17 (``runtime/native/core``), reached through the nanobind
module :mod:`aurgen.runtime._native`; this module re-exports it with the type
codes.  :func:`clip_into` takes preallocated arrays and writes its results in
place (the raw core: it checks shapes and indices, not values; ``hydrostatics.Geom``
and ``clip_batch`` check sizes and poses before calling it)::

    clip_into(types, sizes, pos, mats, mesh_ids, hulls, planes, out, want_wp)

    types    (N,) int64   MuJoCo mjtGeom codes: 2 sphere, 3 capsule, 4 ellipsoid,
                          5 cylinder, 6 box, 7 mesh
    sizes    (N, 3)       MuJoCo geom sizes (m)
    pos      (N, 3)       geom centres, world (m)
    mats     (N, 3, 3)    rotation geom -> world
    mesh_ids (N,) int64   row of ``hulls`` for mesh geoms (ignored otherwise)
    hulls    tuple        packed convex hulls, see :func:`aurgen.runtime.hydrostatics.geoms.pack_hulls`
    planes   (P, 4)       rows (nx, ny, nz, d), world, unit n: the convex set
                          where n·x <= d for every row (P = 1: a half-space)
    out      (N, >=5)     [V, cx, cy, cz, A]: volume (m^3), centroid (world, m),
                          section area (m^2) of the one plane that cuts the geom
                          (0 when none does, nan when two or more do); with
                          want_wp and >= 14 columns also [5:8] section centroid
                          (world) and [8:14] its second moments of area about
                          that centroid, world axes (xx, yy, zz, xy, xz, yz)

``box_tier=False`` (keyword) clips a box cut by one plane with the generic
polyhedral path instead of the box tier: the tier's test reference, the same
results to rounding.  ``smooth_rows=False`` (keyword) clips spheres,
ellipsoids and boxes cut by one plane one row at a time through the per-row
path instead of the block paths that take them four rows at a time
(``core/smooth_rows.cc``, ``core/clip_box.cc`` BoxRows): the block paths' test
reference and benchmark baseline, bitwise the same rows.

Inputs are checked (shapes, type codes, mesh ids, hull indices: ValueError on
a mismatch); ``out`` must be a writable C-contiguous float64 array.  Tiers,
algorithms and error bounds: ``docs/kernel.md``.
"""
from __future__ import annotations

from aurgen.runtime._native import (N_ACC, NLAT, NLON, OUT_W, clip_cells_into, clip_into, full_local,
    soup_integrate, support_local)

T_SPHERE = 2
T_CAPSULE = 3
T_ELLIPSOID = 4
T_CYLINDER = 5
T_BOX = 6
T_MESH = 7
