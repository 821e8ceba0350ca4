"""The static hydrostatics: exact submerged volume and centroid of every geom type, equilibrium, GZ.

The package a report needs, and nothing of MuJoCo: ``aurgen specs``, ``build`` (the specs
comment), ``audit`` and ``report`` import it (aurgen.compose, aurgen.check, aurgen.analysis),
as do the simulation (aurgen.runtime.sim: the geoms' hulls) and the MuJoCo Warp backend.
It imports only aurgen.core and the compiled core (aurgen.runtime._native). Modules: this
facade; ``kernel`` (the compiled clip), ``geoms`` (shapes, hulls), ``cells`` (convex cells),
``equilibrium`` (free-floating attitude), ``righting`` (GZ curves).

Everything aurgen says about floating rests on this module: the volume of a
geom below a plane (or inside a convex cell) and the centroid of that volume.

Frames and units: SI; geoms follow MuJoCo's conventions (see
:mod:`aurgen.runtime.hydrostatics.geoms`).  A half-space is ``n·x <= d`` in world with ``n``
a unit vector (normalised here if it is not); the fluid is that side.  For a
horizontal sea surface at z = 0: ``n = (0, 0, 1), d = 0``.

Public API::

    GEOM_TYPES, Geom, Clip
    full_volume(geom) -> float                       m^3
    support(geom, n) -> float                        max of x·n over the geom, world, m
    clip(geom, n, d) -> Clip                         one half-space
    clip_cell(geom, planes) -> Clip                  convex cell, planes (k, 4); area nan
    clip_batch(types, sizes, pos, mats, n, d, mesh_ids=None, hulls=None)
        -> (volumes (N,), centroids (N, 3), areas (N,))
    waterplane(geom, n, d) -> Waterplane             section area, centroid, 2nd moments
    Cells (aurgen.runtime.hydrostatics.cells), equilibrium, gz_curve (aurgen.runtime.hydrostatics.equilibrium)

All of them call one compiled core, :func:`aurgen.runtime.hydrostatics.kernel.clip_into`
(C++17 in ``runtime/native/core``, bound by nanobind as
:mod:`aurgen.runtime._native`), which takes preallocated arrays and writes in
place (no Python objects per geom)::

    from aurgen.runtime.hydrostatics.kernel import clip_into
    clip_into(types, sizes, pos, mats, mesh_ids, hulls, planes, out, False)

A scalar :func:`clip` is ``clip_into`` with N = 1, so scalar and batch results
are bitwise identical.  Algorithms, tiers, approximations and their measured
error bounds: ``docs/kernel.md``.
"""
from __future__ import annotations

import math

import numpy as np

from aurgen.core.records import record

from aurgen.runtime.hydrostatics.geoms import (CODE_TYPE, EMPTY_HULLS, GEOM_TYPES, TYPE_CODE, Geom, Hull,
    check_sizes_and_poses, hull_of, pack_hulls)
from aurgen.runtime.hydrostatics.kernel import OUT_W, T_MESH, clip_into, full_local, support_local

__all__ = [
    "GEOM_TYPES", "TYPE_CODE", "Geom", "Hull", "Clip", "Waterplane", "full_volume",
    "support", "clip", "clip_cell", "clip_batch", "waterplane", "hull_of", "pack_hulls",
    "clip_into", "Equilibrium", "equilibrium", "gz_curve",
]


@record(eq=False)
class Clip:
    """Part of a geom inside a half-space or cell.

    volume: m^3.  centroid: (3,) world, m (the geom centre when volume is 0).
    area: waterplane (section) area on the plane, m^2 (nan for a cell).
    hull_only: True when a concave mesh was replaced by its convex hull (the
    volume is then an over-estimate).
    """

    volume: float
    centroid: np.ndarray
    area: float
    hull_only: bool = False


@record(eq=False)
class Waterplane:
    """Section of a geom by the plane n·x = d: area (m^2), centroid (3,) world,
    and second_moment (3, 3) m^4 = ∫(x-c)(x-c)ᵀ dA over the section, world axes.
    (The transverse second moment about a longitudinal axis x is then
    second_moment[1, 1] for a horizontal waterplane.)"""

    area: float
    centroid: np.ndarray
    second_moment: np.ndarray


def _unit_planes(planes) -> np.ndarray:
    p = np.array(planes, dtype=np.float64).reshape(-1, 4)
    nn = np.linalg.norm(p[:, :3], axis=1)
    if np.any(nn == 0) or not np.all(np.isfinite(p)):
        raise ValueError("plane normals must be finite and non-zero")
    return p / nn[:, None]


def _half_space(n, d) -> np.ndarray:
    """The (1, 4) row of the half-space n·x <= d with n normalised: _unit_planes of one
    row, in Python floats (the same operations: sqrt of ((nx² + ny²) + nz²), then each
    entry divided by it), which costs a few µs less than the array path per call."""
    try:
        nx, ny, nz = np.asarray(n, dtype=np.float64).reshape(3).tolist()
    except ValueError:
        raise ValueError(f"plane normal must have 3 entries, got {np.shape(n)}") from None
    d = float(d)
    nn = math.sqrt(nx * nx + ny * ny + nz * nz)
    if nn == 0 or not all(map(math.isfinite, (nx, ny, nz, d, nn))):
        raise ValueError("plane normals must be finite and non-zero")
    return np.array([[nx / nn, ny / nn, nz / nn, d / nn]])


def _single(geom: Geom, planes: np.ndarray, width: int):
    hull = None
    if geom.type == "mesh":
        hull = hull_of(geom.vertices, geom.faces)
        hulls = pack_hulls([hull])
    else:
        hulls = EMPTY_HULLS
    out = np.empty((1, width))
    clip_into(np.array([geom.code], dtype=np.int64), geom.size3()[None, :],
              geom.pos[None, :], geom.mat[None, :, :], np.zeros(1, dtype=np.int64),
              hulls, planes, out, width >= OUT_W)
    return out[0], (hull.concave if hull is not None else False)


def full_volume(geom: Geom) -> float:
    """Volume of the geom (m^3); a mesh's is its convex hull's."""
    if geom.type == "mesh":
        return hull_of(geom.vertices, geom.faces).volume
    v, _, _, _ = full_local(geom.code, geom.size3(), np.zeros(1), np.zeros((1, 3)), 0)
    return float(v)


def support(geom: Geom, n) -> float:
    """Support value ``max over the geom of x·n`` (world, m); n need not be unit."""
    n = np.asarray(n, dtype=np.float64).reshape(3)
    ln = geom.mat.T @ n
    if geom.type == "mesh":
        hv = hull_of(geom.vertices, geom.faces).vertices
        hi, _ = support_local(T_MESH, geom.size3(), ln[0], ln[1], ln[2], hv, 0, len(hv))
    else:
        hi, _ = support_local(geom.code, geom.size3(), ln[0], ln[1], ln[2],
                              np.zeros((0, 3)), 0, 0)
    return float(n @ geom.pos + hi)


def clip(geom: Geom, n, d) -> Clip:
    """Part of ``geom`` in the half-space ``n·x <= d`` (world)."""
    planes = _half_space(n, d)
    row, concave = _single(geom, planes, 5)
    return Clip(float(row[0]), row[1:4].copy(), float(row[4]), concave)


def clip_cell(geom: Geom, planes) -> Clip:
    """Part of ``geom`` in the convex cell ``{x: n_i·x <= d_i for every row}``.

    planes: (k, 4) rows (nx, ny, nz, d), world.  Exact for boxes and meshes
    (clipped in sequence) and for ellipsoids and spheres cut by at most two of
    the planes; other smooth cases cut by two or more planes use a
    volume-matched polyhedral model (error bound in docs/kernel.md).  The area
    is nan (a cell has no single waterplane).
    """
    p = _unit_planes(planes)
    if len(p) == 0:
        p = np.zeros((0, 4))
    row, concave = _single(geom, p, 5)
    return Clip(float(row[0]), row[1:4].copy(), float("nan"), concave)


def waterplane(geom: Geom, n, d) -> Waterplane:
    """Section of ``geom`` by the plane ``n·x = d``: area, centroid, second moments.

    Exact for polyhedra and ellipsoids; for cylinders and capsules the second
    moments come from central differences of the exact first moment (relative
    error ~1e-9, see docs/kernel.md).
    """
    planes = _half_space(n, d)
    row, _ = _single(geom, planes, OUT_W)
    J = np.empty((3, 3))
    J[0, 0], J[1, 1], J[2, 2] = row[8], row[9], row[10]
    J[0, 1] = J[1, 0] = row[11]
    J[0, 2] = J[2, 0] = row[12]
    J[1, 2] = J[2, 1] = row[13]
    return Waterplane(float(row[4]), row[5:8].copy(), J)


def type_codes(types, n: int) -> np.ndarray:
    """Geom type names or MuJoCo codes -> (n,) int64 codes."""
    if isinstance(types, str):
        if types not in TYPE_CODE:
            raise ValueError(f"unknown geom type {types!r}; expected one of {GEOM_TYPES}")
        return np.full(n, TYPE_CODE[types], dtype=np.int64)
    arr = np.asarray(types)
    if arr.ndim == 0:
        arr = np.full(n, arr.item())
    if arr.dtype.kind in "US":
        try:
            return np.array([TYPE_CODE[str(t)] for t in arr], dtype=np.int64)
        except KeyError as e:
            raise ValueError(f"unknown geom type {e.args[0]!r}; expected one of {GEOM_TYPES}") from None
    codes = arr.astype(np.int64)
    bad = set(codes.tolist()) - set(CODE_TYPE)
    if bad:
        raise ValueError(f"unknown geom type codes {sorted(bad)}; expected MuJoCo codes {sorted(CODE_TYPE)}")
    return codes


def clip_batch(types, sizes, pos, mats, n, d, mesh_ids=None, hulls=None):
    """Clip N geoms by one half-space ``n·x <= d``; the same core as :func:`clip`.

    types: a name, a list of names, or MuJoCo mjtGeom codes (N,).  sizes (N, 3)
    (pad unused entries), pos (N, 3), mats (N, 3, 3).  For mesh geoms, mesh_ids
    (N,) index into ``hulls`` (a :func:`pack_hulls` tuple or a list of Hull).
    Returns volumes (N,) m^3, centroids (N, 3) world, areas (N,) m^2.  Sizes and poses are
    checked as :class:`Geom` checks them (ValueError), but for the rotations.
    """
    pos = np.ascontiguousarray(pos, dtype=np.float64).reshape(-1, 3)
    N = len(pos)
    codes = type_codes(types, N)
    sizes = np.ascontiguousarray(sizes, dtype=np.float64).reshape(N, -1)
    if sizes.shape[1] < 3:
        sizes = np.hstack([sizes, np.zeros((N, 3 - sizes.shape[1]))])
    mats = np.ascontiguousarray(mats, dtype=np.float64).reshape(N, 3, 3)
    check_sizes_and_poses(codes, sizes, pos, mats)
    if hulls is None:
        hulls = EMPTY_HULLS
    elif not isinstance(hulls, tuple):
        hulls = pack_hulls(hulls)
    if mesh_ids is None:
        mesh_ids = np.zeros(N, dtype=np.int64)
        if np.count_nonzero(codes == T_MESH):
            raise ValueError("mesh geoms in a batch need mesh_ids and hulls")
    mesh_ids = np.ascontiguousarray(mesh_ids, dtype=np.int64)
    planes = _half_space(n, d)
    out = np.empty((N, 5))
    clip_into(codes, sizes, pos, mats, mesh_ids, hulls, planes, out, False)
    return out[:, 0].copy(), out[:, 1:4].copy(), out[:, 4].copy()


from aurgen.runtime.hydrostatics.equilibrium import Equilibrium, equilibrium  # noqa: E402
from aurgen.runtime.hydrostatics.righting import gz_curve  # noqa: E402
