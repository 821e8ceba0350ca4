"""A mesh file named in a config: relative, inside the config's folder, a readable .stl/.obj mesh."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from aurgen.core.yamlio import Reader

MESH_SUFFIXES = (".stl", ".obj")  # mesh files both MuJoCo and trimesh read


def mesh_file(r: Reader, node, key: str, path, *, field: str = "file", what: str = "catalog") -> Path:
    """The mesh ``node[field]`` names: relative to the folder of ``path`` (the catalog or vehicle
    file that declares it), inside it (symlinks resolved), a regular .stl/.obj file trimesh loads as
    a mesh with faces and finite vertices; else a ConfigError naming ``key.field``."""
    f = r.string(node, field, key, required=True)
    folder = Path(path).resolve().parent
    where = f"{key}.{field}"
    if "\0" in f or Path(f).is_absolute():
        raise r.error(where, f"{f!r}: a mesh file is relative to the {what} folder ({folder})", node=node, field=field)
    mesh_path = (folder / f).resolve()
    if not mesh_path.is_relative_to(folder):
        raise r.error(where, f"{f!r} is outside the {what} folder {folder}",
                      f"keep meshes in the {what} folder (e.g. meshes/)", node=node, field=field)
    if not mesh_path.is_file():
        raise r.error(where, f"mesh file not found (or not a regular file): {mesh_path}", node=node, field=field)
    if mesh_path.suffix.lower() not in MESH_SUFFIXES:
        raise r.error(where, f"{f!r}: a mesh is an {' or '.join(MESH_SUFFIXES)} file", node=node, field=field)
    try:
        import trimesh

        mesh = trimesh.load(str(mesh_path), force="mesh")
        ok = len(mesh.faces) > 0 and np.all(np.isfinite(mesh.vertices))
    except Exception:  # trimesh raises many kinds on garbage
        ok = False
    if not ok:
        raise r.error(where, f"{f!r} is not a readable mesh (no faces, or unreadable)", node=node, field=field)
    return mesh_path
