"""Visual meshes and colours (catalog ``visual:`` entries with ``shape: mesh`` and ``rgba:``), read by
the consumers: MuJoCo (the visual geom's rgba and its material's), libsdformat (loads; the visual's
ambient/diffuse), urdfdom's check_urdf and yourdfpy (the material the visual names, and the colour
yourdfpy paints the visual mesh with).

The part's visual is a dome mesh, different from its collision box; a second visual keeps the
link's role colour; a second part uses the same mesh file (one copy in the set).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import mujoco
import numpy as np
import pytest
import trimesh

from aurgen.cli import main
from aurgen.emit.build import build
from aurgen.emit.render import MATERIALS

RGBA = (0.8, 0.2, 0.1, 0.9)
SHELL = """description: test shell, a dome drawn over a contact box
mass: 2.0
inertia: {ixx: 0.02, iyy: 0.02, izz: 0.02}
collision:
  - {shape: box, size: [0.2, 0.2, 0.2]}
visual:
  - {shape: mesh, file: meshes/dome.stl, rgba: [0.8, 0.2, 0.1, 0.9]}
  - {shape: box, size: [0.1, 0.1, 0.05], xyz: [0, 0, 0.12]}
"""
LAMP = """description: test lamp, the same dome scaled, blue
mass: 0.1
inertia: {ixx: 1e-4, iyy: 1e-4, izz: 1e-4}
visual:
  - {shape: mesh, file: meshes/dome.stl, scale: [0.2, 0.2, 0.2], rgba: [0, 0, 1, 1]}
"""
VEHICLE = """name: vt
base: {type: shell}
parts:
  - {type: lamp, name: lamp, parent: base_link, xyz: [0.1, 0, 0.15]}
buoyancy: {net_buoyancy: 0.1, cob_offset: [0, 0, 0.02], cob_frame: com, fluid_density: 1000, footprint: [0.2, 0.2]}
"""


def _configs(root: Path, shell: str = SHELL) -> Path:
    (root / "parts" / "meshes").mkdir(parents=True)
    trimesh.creation.icosphere(subdivisions=2, radius=0.1).export(root / "parts" / "meshes" / "dome.stl")
    (root / "parts" / "shell.yaml").write_text(shell)
    (root / "parts" / "lamp.yaml").write_text(LAMP)
    (root / "vt.yaml").write_text(VEHICLE)
    return root / "vt.yaml"


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("visual_meshes")
    build([str(_configs(tmp / "cfg"))], str(tmp / "out"), warn=lambda m: None)
    return tmp / "out"


def test_the_visual_mesh_is_copied_once_and_referenced_relatively(out):
    src = (out.parent / "cfg" / "parts" / "meshes" / "dome.stl").read_bytes()
    copies = sorted(p for p in (out / "vt" / "meshes").iterdir() if not p.name.startswith("."))
    assert [p.read_bytes() for p in copies] == [src]
    name = copies[0].name
    assert f'file="meshes/{name}"' in (out / "vt" / "vt.xml").read_text()
    assert f"<uri>model://vt/meshes/{name}</uri>" in (out / "vt" / "model.sdf").read_text()
    assert f'filename="meshes/{name}"' in (out / "vt" / "vt.urdf").read_text()


def test_mujoco_compiles_and_the_visual_geoms_carry_the_colour(out):
    m = mujoco.MjModel.from_xml_path(str(out / "vt" / "vt.xml"))
    want = {"base_link_visual_0": RGBA, "base_link_visual_1": MATERIALS["hull"], "lamp_visual_0": (0, 0, 1, 1)}
    for name, rgba in want.items():
        g = m.geom(name)
        assert g.contype[0] == 0 and g.conaffinity[0] == 0
        assert np.allclose(g.rgba, rgba, atol=1e-7)
        assert g.matid[0] >= 0 and np.allclose(m.mat_rgba[g.matid[0]], rgba, atol=1e-7)
    assert m.geom("base_link_visual_0").type[0] == mujoco.mjtGeom.mjGEOM_MESH
    assert m.geom("base_link_collision_0").type[0] == mujoco.mjtGeom.mjGEOM_BOX  # contact: the box
    # both visuals are the one dome mesh file, at two scales (two MJCF mesh assets)
    dome = trimesh.creation.icosphere(subdivisions=2, radius=0.1)
    ids = [m.geom("base_link_visual_0").dataid[0], m.geom("lamp_visual_0").dataid[0]]
    assert len(set(ids)) == 2
    for i, s in zip(ids, (1.0, 0.2)):
        adr, n = int(m.mesh_vertadr[i]), int(m.mesh_vertnum[i])
        assert n == len(dome.vertices)
        v = m.mesh_vert[adr:adr + n]  # MuJoCo recentres and may turn a mesh: compare its radii
        assert np.allclose(np.linalg.norm(v - v.mean(axis=0), axis=1), 0.1 * s, rtol=1e-5)


def test_libsdformat_loads_and_each_visual_has_its_material(out, sdf_checker):
    ok, text = sdf_checker(out / "vt" / "model.sdf")
    assert ok, text
    root = ET.parse(out / "vt" / "model.sdf").getroot()
    visuals = {v.get("name"): v for v in root.iter("visual")}
    for name, rgba in (("base_link_visual_0", RGBA), ("base_link_visual_1", MATERIALS["hull"]),
                       ("lamp_visual_0", (0, 0, 1, 1))):
        mat = visuals[name].find("material")
        for tag in ("ambient", "diffuse"):
            assert np.allclose([float(x) for x in mat.find(tag).text.split()], rgba)
    assert visuals["base_link_visual_0"].find("geometry/mesh/uri") is not None


def test_urdfdom_and_yourdfpy_read_the_material_colours(out, check_urdf):
    import yourdfpy

    path = out / "vt" / "vt.urdf"
    ok, text = check_urdf(path)
    assert ok, text
    u = yourdfpy.URDF.load(str(path), load_meshes=True)
    colours = {mat.name: tuple(mat.color.rgba) for mat in u.robot.materials}
    for link, i, rgba in (("base_link", 0, RGBA), ("base_link", 1, MATERIALS["hull"]), ("lamp", 0, (0, 0, 1, 1))):
        v = u.link_map[link].visuals[i]
        assert np.allclose(colours[v.material.name], rgba)
    painted = u.scene.geometry["base_link_visual_0"].visual.main_color  # yourdfpy applies the material
    assert np.allclose(painted / 255.0, RGBA, atol=1 / 255)


def test_a_visual_without_a_mesh_file_keeps_its_role_colour_and_the_formats_agree(out):
    urdf = ET.parse(out / "vt" / "vt.urdf").getroot()
    names = [m.get("name") for m in urdf.findall("material")]
    assert names == sorted(names) and len(names) == len(set(names)) == 3  # hull, the dome's, the lamp's
    m = mujoco.MjModel.from_xml_path(str(out / "vt" / "vt.xml"))
    assert sorted(m.material(i).name for i in range(m.nmat)) == sorted(names)


@pytest.mark.parametrize("entry, key, what", [
    ("collision:\n  - {shape: box, size: [0.2, 0.2, 0.2], rgba: [1, 0, 0, 1]}\n", "collision[0].rgba",
     "a colour is a visual's"),
    ("collision:\n  - {shape: box, size: [0.2, 0.2, 0.2]}\nvisual:\n  - {shape: box, size: [0.2, 0.2, 0.2], "
     "rgba: [1.5, 0, 0, 1]}\n", "visual[0].rgba", "at most 1"),
    ("collision:\n  - {shape: box, size: [0.2, 0.2, 0.2]}\nvisual:\n  - {shape: box, size: [0.2, 0.2, 0.2], "
     "rgba: [1, 0, 0]}\n", "visual[0].rgba", "expected 4 numbers"),
    ("collision:\n  - {shape: box, size: [0.2, 0.2, 0.2]}\nvisual:\n  - {shape: mesh, file: meshes/none.stl}\n",
     "visual[0].file", "not found"),
])
def test_a_bad_visual_is_refused_naming_file_and_key(tmp_path, capsys, entry, key, what):
    shell = "description: bad\nmass: 2.0\ninertia: {ixx: 0.02, iyy: 0.02, izz: 0.02}\n" + entry
    cfg = _configs(tmp_path / "cfg", shell)
    assert main(["build", str(cfg), "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "shell.yaml" in err and key in err and what in err, err
    assert "Traceback" not in err
    assert not (tmp_path / "out" / "vt").exists()
