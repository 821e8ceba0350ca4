"""Self-contained, portable sets with meshes (aurgen.emit.meshes): every mesh copied into the set by
content hash, referenced relatively in each format's convention, loaded so by the consumers.

The configs are copied to two different folders (two checkouts) and built in two more: the sets
must be byte-identical and hold no path of the machine. Consumers: MuJoCo (from the file, in
another working folder), yourdfpy and pybullet (relative URDF meshes), Drake (the ROS package's
``package://`` URIs through its PackageMap, which reads package.xml), libsdformat, and Gazebo's
``model://`` lookup re-implemented as gz-sim does it.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import mujoco
import numpy as np
import pytest
import trimesh

from aurgen.emit.build import build

FEATURES = Path(__file__).parents[1] / "data" / "emit_features"
NAME = "features"


def _checkout(tmp_path: Path, tag: str) -> Path:
    """A copy of the emit_features configs (with their parts and meshes) under ``tmp_path/tag``."""
    dst = tmp_path / tag / "configs"
    shutil.copytree(FEATURES, dst)
    return dst


def _build(config: Path, out: Path) -> Path:
    build([str(config)], str(out), warn=lambda m: None)
    return out


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
            and p.name != ".aurgen.lock"}


@pytest.fixture(scope="module")
def two(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("mesh_sets")
    a = _build(_checkout(tmp, "one") / f"{NAME}.yaml", tmp / "one" / "build")
    b = _build(_checkout(tmp, "elsewhere/deeper") / f"{NAME}.yaml", tmp / "two" / "out")
    return tmp, a, b


def test_two_checkouts_build_the_same_bytes_with_no_path_of_the_machine(two):
    tmp, a, b = two
    ta, tb = _tree(a), _tree(b)
    assert ta == tb
    meshes = [k for k in ta if "/meshes/" in f"/{k}"]
    assert f"{NAME}/meshes/6c59a115998e70f4.stl" in meshes or len(meshes) >= 2
    leaks = (str(tmp), str(FEATURES.parent), str(Path.home()), "file://", os.getcwd())
    for rel, data in ta.items():
        for leak in leaks:
            assert leak.encode() not in data, f"{rel} holds {leak!r}"


def test_each_mesh_is_the_catalogs_bytes_named_by_their_hash(two):
    import hashlib

    _, a, _ = two
    src = (FEATURES / "parts" / "meshes" / "block.stl").read_bytes()
    name = hashlib.sha256(src).hexdigest()[:16] + ".stl"
    for folder in (a / NAME / "meshes", a / "ros" / f"{NAME}_description" / "meshes"):
        assert [p.name for p in folder.iterdir() if not p.name.startswith(".")] == [name]
        assert (folder / name).read_bytes() == src
    assert f'file="meshes/{name}"' in (a / NAME / f"{NAME}.xml").read_text()
    assert f"<uri>model://{NAME}/meshes/{name}</uri>" in (a / NAME / "model.sdf").read_text()
    assert f'filename="meshes/{name}"' in (a / NAME / f"{NAME}.urdf").read_text()
    pkg = (a / "ros" / f"{NAME}_description" / "urdf" / f"{NAME}.urdf").read_text()
    assert f'filename="package://{NAME}_description/meshes/{name}"' in pkg
    assert "meshes" in (a / "ros" / f"{NAME}_description" / "CMakeLists.txt").read_text().split("install(DIRECTORY")[1]


def test_mujoco_loads_the_set_from_another_folder(two, tmp_path, monkeypatch):
    _, a, _ = two
    monkeypatch.chdir(tmp_path)  # relative meshes resolve against the MJCF's folder, not the cwd
    m = mujoco.MjModel.from_xml_path(str(a / NAME / f"{NAME}.xml"))
    block = trimesh.load(FEATURES / "parts" / "meshes" / "block.stl")
    i = m.mesh("block").id
    nv = int(m.mesh_vertnum[i])
    assert nv >= len(np.unique(block.vertices, axis=0))
    # MuJoCo's mesh volume (scale 1 1 2): the catalog mesh's, doubled
    extent = 2 * m.geom_aabb[[g for g in range(m.ngeom) if m.geom_dataid[g] == i][0], 3:]
    assert np.allclose(np.sort(extent), np.sort(block.extents * [1, 1, 2]), rtol=1e-6)


def test_urdf_loaders_find_the_relative_meshes(two, pybullet):
    import yourdfpy

    _, a, _ = two
    path = a / NAME / f"{NAME}.urdf"
    u = yourdfpy.URDF.load(str(path), load_meshes=True, build_scene_graph=True)
    scene = u.collision_scene if u.collision_scene is not None else u.scene
    assert any(isinstance(g, trimesh.Trimesh) and len(g.faces) > 0 for g in scene.geometry.values())
    cid = pybullet.connect(pybullet.DIRECT)
    try:
        body = pybullet.loadURDF(str(path), physicsClientId=cid)
        shapes = [s for i in range(-1, pybullet.getNumJoints(body, physicsClientId=cid))
                  for s in pybullet.getCollisionShapeData(body, i, physicsClientId=cid)]
        assert any(s[2] == pybullet.GEOM_MESH for s in shapes)
    finally:
        pybullet.disconnect(cid)


def test_ros_loaders_resolve_the_packages_package_uris(two, pinocchio, pydrake):
    """The ROS package's URDF: pinocchio (package_dirs, as ROS' package path) loads its collision
    mesh; Drake's PackageMap, populated from package.xml, resolves the same file (Drake then
    refuses STL for a convex hull, naming the path it resolved)."""
    from pydrake.multibody.parsing import Parser
    from pydrake.multibody.plant import AddMultibodyPlantSceneGraph
    from pydrake.systems.framework import DiagramBuilder

    _, a, _ = two
    pkg_urdf = a / "ros" / f"{NAME}_description" / "urdf" / f"{NAME}.urdf"
    want = next((a / "ros" / f"{NAME}_description" / "meshes").glob("*.stl")).resolve()
    _, collision, _ = pinocchio.buildModelsFromUrdf(str(pkg_urdf), package_dirs=[str(a / "ros")])
    paths = {Path(o.meshPath).resolve() for o in collision.geometryObjects if o.meshPath}
    assert want in paths
    builder = DiagramBuilder()
    plant, _ = AddMultibodyPlantSceneGraph(builder, 0.0)
    parser = Parser(plant)
    parser.package_map().PopulateFromFolder(str(a / "ros"))  # finds <vehicle>_description/package.xml
    assert Path(parser.package_map().GetPath(f"{NAME}_description")).resolve() == want.parents[1]
    with pytest.raises(RuntimeError, match=str(want).replace(".", r"\.")):
        parser.AddModels(str(pkg_urdf))


def test_libsdformat_loads_the_sdf_with_model_uris(two, sdf_checker):
    _, a, _ = two
    ok, text = sdf_checker(a / NAME / "model.sdf")
    assert ok, text


def _gz_find_model_uri(uri: str, resource_path: list[Path]) -> Path | None:
    """gz-sim's lookup of a ``model://`` URI (gz-sim src/SdfEntityCreator / gz-common
    SystemPaths::FindFileURI with the ``model://`` callback of gz-sim's ServerConfig): strip the
    scheme, then take the first ``<path>/<rest>`` that exists over GZ_SIM_RESOURCE_PATH."""
    assert uri.startswith("model://")
    rest = uri[len("model://"):]
    for base in resource_path:
        cand = base / rest
        if cand.exists():
            return cand
    return None


def test_gazebo_finds_every_mesh_uri_on_the_output_folder(two):
    import re

    _, a, _ = two
    text = (a / NAME / "model.sdf").read_text()
    uris = re.findall(r"<uri>(model://[^<]+)</uri>", text)
    assert uris
    for uri in uris:
        found = _gz_find_model_uri(uri, [a])  # GZ_SIM_RESOURCE_PATH=<output> (docs/guide/build.md)
        assert found is not None and found.read_bytes() == (FEATURES / "parts" / "meshes" / "block.stl").read_bytes()


def test_the_audit_compares_meshes_by_content(tmp_path):
    from aurgen.check.audit import audit

    cfg = _checkout(tmp_path, "c") / f"{NAME}.yaml"
    out = _build(cfg, tmp_path / "b")
    assert audit([str(out)], configs=[str(cfg)])[:2] == ([], [])
    mesh = next((out / NAME / "meshes").glob("*.stl"))
    mesh.write_bytes(mesh.read_bytes()[:-1] + b"\x01")
    extra = out / "ros" / f"{NAME}_description" / "meshes" / "mine.stl"
    extra.write_bytes(b"solid x\nendsolid x\n")
    gone = next((out / "ros" / f"{NAME}_description" / "meshes").glob("????????????????.stl"))
    gone.unlink()
    rows = audit([str(out)], configs=[str(cfg)])[0]
    found = {(Path(r.file).name, r.found.split(" ")[0]) for r in rows}
    assert (mesh.name, "sha256") in found
    assert ("mine.stl", "present") in found
    assert (gone.name, "missing") in found


def test_a_rebuild_after_the_catalog_mesh_changed_replaces_the_copy(tmp_path):
    from aurgen.check.audit import audit

    cfg = _checkout(tmp_path, "c") / f"{NAME}.yaml"
    out = _build(cfg, tmp_path / "b")
    old = {p.name for p in (out / NAME / "meshes").glob("*.stl")}
    src = cfg.parent / "parts" / "meshes" / "block.stl"
    m = trimesh.load(src)
    m.apply_scale(1.5)
    m.export(src)
    mine = out / NAME / "meshes" / "notes.txt"  # the user's own file there: never touched
    mine.write_text("mine")
    _build(cfg, out)
    new = {p.name for p in (out / NAME / "meshes").glob("*.stl")}
    assert new and not (new & old)  # the old copy (aurgen's, listed in the marker) is gone
    assert mine.read_text() == "mine"
    mine.unlink()
    assert audit([str(out)], configs=[str(cfg)])[:2] == ([], [])
