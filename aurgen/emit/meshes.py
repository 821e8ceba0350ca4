"""The mesh files a vehicle's set carries: copied into the set, named by content, referenced relatively.

Every mesh a vehicle's geoms use (collision and visual) is copied into ``<output>/<vehicle>/meshes/``
and, for its ROS package, ``<output>/ros/<vehicle>_description/meshes/``, under the name
``<sha256 of its bytes, 16 hex digits><suffix>`` (so identical meshes share one file, and the name
changes whenever the content does). Each format references it in its own convention, never by a
path of the build machine:

- MJCF: ``meshes/<name>``, relative to the MJCF file (MuJoCo resolves a mesh file relative to the
  model file, an attached model's included);
- SDF: ``model://<vehicle>/meshes/<name>`` (Gazebo resolves ``model://`` on its resource path:
  ``GZ_SIM_RESOURCE_PATH`` holding the output folder);
- URDF: ``meshes/<name>`` relative to the URDF file (urdfdom keeps the string; yourdfpy, pybullet,
  pinocchio and Drake resolve it against the URDF's folder), and
  ``package://<vehicle>_description/meshes/<name>`` in the ROS package's copy.

The bytes are the catalog's mesh file as it is (no conversion), so the set is self-contained and
two checkouts build the same bytes.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

FOLDER = "meshes"  # in the vehicle's folder and in its ROS package
HASH_DIGITS = 16


def digest(data: bytes) -> str:
    """The first ``HASH_DIGITS`` hex digits of the sha256 of ``data``."""
    return hashlib.sha256(data).hexdigest()[:HASH_DIGITS]


def file_name(data: bytes, source: str) -> str:
    """The set's name of a mesh with bytes ``data`` read from ``source``: its hash and suffix."""
    return digest(data) + Path(source).suffix.lower()


def _read(source: str) -> bytes:
    with open(source, "rb") as fh:
        return fh.read()


_NAMES: dict = {}  # (path, size, mtime_ns) -> its name in the set: a render names each mesh often


def name_of(source: str) -> str:
    """The set's name of the mesh file ``source`` (``file_name`` of its bytes)."""
    st = Path(source).stat()
    key = (str(source), st.st_size, st.st_mtime_ns)
    if key not in _NAMES:
        _NAMES[key] = file_name(_read(source), source)
    return _NAMES[key]


def mesh_sources(vehicle) -> list[str]:
    """The mesh files the vehicle's geoms use, in link order, each once (absolute paths)."""
    out: dict[str, None] = {}
    for link in vehicle.links:
        for g in (*link.collisions, *link.visuals):
            if g.shape.kind == "mesh":
                out.setdefault(str(Path(g.shape.mesh).resolve()), None)
    return list(out)


def copies(vehicle) -> dict[str, tuple[str, bytes]]:
    """{source path: (its name in the set, its bytes)} for every mesh the vehicle uses."""
    out = {}
    for src in mesh_sources(vehicle):
        data = _read(src)
        out[src] = (file_name(data, src), data)
    return out


def set_files(vehicle) -> dict[str, bytes]:
    """{``meshes/<name>``: bytes} the vehicle's folder (and its ROS package) holds."""
    return {f"{FOLDER}/{name}": data for name, data in sorted(copies(vehicle).values())}
