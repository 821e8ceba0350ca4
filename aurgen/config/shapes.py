"""Geometric primitives: volume and unit-density inertia, in the shape's frame.

Shapes follow URDF/SDF conventions: a box by its full edge lengths, cylinders
and capsules along local z (capsule ``length`` is that of its cylinder part),
an ellipsoid by its semi-axes. Inertia functions return the tensor about the
shape's centroid (its origin for every primitive), per unit density
(kg/m³ → multiply by the density), in kg·m² per (kg/m³).
"""

from __future__ import annotations

import math

import numpy as np

from aurgen.core.records import record

SHAPES = ("box", "cylinder", "sphere", "capsule", "ellipsoid", "mesh")


@record
class Shape:
    """A primitive or a mesh. ``dims`` by kind:

    box (x, y, z) full lengths; cylinder (radius, length); sphere (radius,);
    capsule (radius, length); ellipsoid (a, b, c) semi-axes; mesh: the scale
    (sx, sy, sz) with ``mesh`` the absolute path of the file.
    """

    kind: str
    dims: tuple
    mesh: str | None = None


def _load_mesh(shape: Shape):
    import trimesh

    mesh = trimesh.load(shape.mesh, force="mesh")
    mesh.apply_scale(np.asarray(shape.dims, dtype=float))
    return mesh


def volume(shape: Shape) -> float:
    """Volume in m³ (a mesh: its enclosed volume via trimesh)."""
    k, d = shape.kind, shape.dims
    if k == "box":
        return d[0] * d[1] * d[2]
    if k == "cylinder":
        return math.pi * d[0] ** 2 * d[1]
    if k == "sphere":
        return 4.0 / 3.0 * math.pi * d[0] ** 3
    if k == "capsule":
        return math.pi * d[0] ** 2 * d[1] + 4.0 / 3.0 * math.pi * d[0] ** 3
    if k == "ellipsoid":
        return 4.0 / 3.0 * math.pi * d[0] * d[1] * d[2]
    if k == "mesh":
        return float(abs(_load_mesh(shape).volume))
    raise ValueError(f"unknown shape {k!r}")


def centroid(shape: Shape) -> np.ndarray:
    """Centroid in the shape frame (origin for primitives)."""
    if shape.kind == "mesh":
        return np.asarray(_load_mesh(shape).center_mass, dtype=float)
    return np.zeros(3)


def unit_inertia(shape: Shape) -> np.ndarray:
    """Inertia per unit density about the centroid, shape axes (kg·m² per kg/m³)."""
    k, d = shape.kind, shape.dims
    if k == "box":
        m = volume(shape)
        x, y, z = d
        return np.diag([m * (y * y + z * z) / 12, m * (x * x + z * z) / 12, m * (x * x + y * y) / 12])
    if k == "cylinder":
        r, h = d
        m = volume(shape)
        t = m * (3 * r * r + h * h) / 12
        return np.diag([t, t, m * r * r / 2])
    if k == "sphere":
        m = volume(shape)
        return np.eye(3) * 0.4 * m * d[0] ** 2
    if k == "ellipsoid":
        m = volume(shape)
        a, b, c = d
        return np.diag([m * (b * b + c * c) / 5, m * (a * a + c * c) / 5, m * (a * a + b * b) / 5])
    if k == "capsule":
        r, h = d
        mc = math.pi * r * r * h
        mh = 2.0 / 3.0 * math.pi * r ** 3  # one hemisphere
        izz = mc * r * r / 2 + 2 * (0.4 * mh * r * r)
        # hemisphere about its own centroid (3r/8 from the flat face), shifted to
        # the capsule centre at distance h/2 + 3r/8
        ih = 0.4 * mh * r * r - mh * (3 * r / 8) ** 2
        ixx = mc * (3 * r * r + h * h) / 12 + 2 * (ih + mh * (h / 2 + 3 * r / 8) ** 2)
        return np.diag([ixx, ixx, izz])
    if k == "mesh":
        mesh = _load_mesh(shape)
        mesh.density = 1.0
        return np.asarray(mesh.moment_inertia, dtype=float)
    raise ValueError(f"unknown shape {k!r}")
