"""Mass properties from geometry (catalog entries without ``inertia:``; ``inertia_from: collision |
visual``): each derived inertia and CoM against an independent computation written here (the closed
forms of a solid box and cylinder, the parallel-axis theorem, scipy's rotations; trimesh's mass
properties for a mesh), the specs' flag, the refusals of an open or flat mesh, and the bundled parts
whose hand-typed figures the derivation replaced (their closed forms and the reference's tensors).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import trimesh
from scipy.spatial.transform import Rotation

from aurgen.cli import main
from aurgen.compose.resolve import resolve
from aurgen.compose.specs import as_dict, rows
from aurgen.config.catalog import Catalog, catalog_for

PARTS = Path(__file__).parents[2] / "vehicles" / "parts"


def box_I(m, a, b, c):
    return np.diag([m * (b * b + c * c) / 12, m * (a * a + c * c) / 12, m * (a * a + b * b) / 12])


def cylinder_I(m, r, h):  # axis along local z
    t = m * (3 * r * r + h * h) / 12
    return np.diag([t, t, m * r * r / 2])


def shifted(I, m, d):
    """Parallel axis: the tensor about a point at ``-d`` from the centroid (d = centroid - point)."""
    d = np.asarray(d, float)
    return I + m * (d @ d * np.eye(3) - np.outer(d, d))


def rotated(I, rpy):
    R = Rotation.from_euler("xyz", rpy).as_matrix()  # fixed-axis roll, pitch, yaw (URDF)
    return R @ I @ R.T


def _part(tmp_path: Path, text: str, name: str = "thing"):
    (tmp_path / "parts").mkdir(exist_ok=True)
    (tmp_path / "parts" / f"{name}.yaml").write_text(text)
    return Catalog([tmp_path / "parts"]).get(name)


def test_a_rotated_offset_cylinder_from_the_visual(tmp_path):
    m, r, h, xyz, rpy = 0.8, 0.04, 0.3, (0.05, -0.02, 0.1), (0.3, 1.2, -0.4)
    p = _part(tmp_path, f"mass: {m}\ninertia_from: visual\nvisual:\n  - {{shape: cylinder, radius: {r}, "
                        f"length: {h}, xyz: {list(xyz)}, rpy: {list(rpy)}}}\n")
    assert p.inertia_from == "visual" and p.inertia_derived
    assert np.allclose(p.com, xyz, rtol=0, atol=1e-15)
    assert np.allclose(p.inertia, rotated(cylinder_I(m, r, h), rpy), rtol=1e-12, atol=0)


def test_two_boxes_from_the_collision_about_a_declared_com(tmp_path):
    """Density m / (V1 + V2); each box's closed form moved to the declared CoM by the parallel axis."""
    m, com = 3.0, (0.01, 0.0, -0.02)
    b1, c1, b2, c2 = (0.4, 0.1, 0.1), (0.2, 0.0, 0.0), (0.1, 0.3, 0.05), (-0.1, 0.05, -0.1)
    p = _part(tmp_path, f"mass: {m}\ncom: {list(com)}\ncollision:\n  - {{shape: box, size: {list(b1)}, xyz: {list(c1)}}}\n"
                        f"  - {{shape: box, size: {list(b2)}, xyz: {list(c2)}}}\n")
    v1, v2 = np.prod(b1), np.prod(b2)
    m1, m2 = m * v1 / (v1 + v2), m * v2 / (v1 + v2)
    want = (shifted(box_I(m1, *b1), m1, np.subtract(c1, com)) + shifted(box_I(m2, *b2), m2, np.subtract(c2, com)))
    assert p.inertia_from == "collision" and tuple(p.com) == com
    assert np.allclose(p.inertia, want, rtol=1e-12, atol=1e-18)
    # no com: the centroid, the mass-weighted centre of the boxes
    q = _part(tmp_path, f"mass: {m}\ncollision:\n  - {{shape: box, size: {list(b1)}, xyz: {list(c1)}}}\n"
                        f"  - {{shape: box, size: {list(b2)}, xyz: {list(c2)}}}\n", "nocom")
    g = (m1 * np.asarray(c1) + m2 * np.asarray(c2)) / m
    assert np.allclose(q.com, g, atol=1e-15)
    assert np.allclose(q.inertia, shifted(box_I(m1, *b1), m1, c1 - g) + shifted(box_I(m2, *b2), m2, c2 - g),
                       rtol=1e-12, atol=1e-18)


def test_a_mesh_visual_against_trimesh_and_the_closed_form(tmp_path):
    """A box mesh (3 x 2 x 1 dm, off centre and scaled) against trimesh's mass properties at the
    part's density, and against a solid box's closed form (the same solid)."""
    (tmp_path / "parts" / "meshes").mkdir(parents=True)
    mesh = trimesh.creation.box(extents=(0.3, 0.2, 0.1))
    mesh.apply_translation((0.05, 0.01, -0.02))
    mesh.export(tmp_path / "parts" / "meshes" / "block.stl")
    m, scale = 1.7, (1.0, 2.0, 0.5)
    p = _part(tmp_path, f"mass: {m}\ninertia_from: visual\ncollision:\n  - {{shape: sphere, radius: 0.05}}\n"
                        f"visual:\n  - {{shape: mesh, file: meshes/block.stl, scale: {list(scale)}, rgba: [1, 1, 1, 1]}}\n")
    ref = trimesh.load(tmp_path / "parts" / "meshes" / "block.stl")
    ref.apply_scale(scale)
    ref.density = m / ref.volume
    assert np.isclose(ref.mass, m)
    assert np.allclose(p.com, ref.center_mass, atol=1e-12)
    assert np.allclose(p.inertia, ref.moment_inertia, rtol=1e-9, atol=1e-15)
    # STL holds float32 vertices: the closed form of the intended box to float32's 6e-8
    assert np.allclose(p.com, np.multiply((0.05, 0.01, -0.02), scale), atol=1e-8)
    assert np.allclose(p.inertia, box_I(m, 0.3, 0.4, 0.05), rtol=1e-6, atol=1e-12)


@pytest.mark.parametrize("kind", ["open", "flat"])
def test_an_open_or_flat_mesh_is_refused_naming_part_and_file(tmp_path, capsys, kind):
    (tmp_path / "parts" / "meshes").mkdir(parents=True)
    if kind == "open":
        mesh = trimesh.creation.box(extents=(0.1, 0.1, 0.1))
        mesh.update_faces(np.arange(len(mesh.faces)) > 1)  # two triangles off: a hole
    else:
        mesh = trimesh.Trimesh([[0, 0, 0], [0.1, 0, 0], [0, 0.1, 0], [0.1, 0.1, 0]], [[0, 1, 2], [1, 3, 2]])
    mesh.export(tmp_path / "parts" / "meshes" / f"{kind}.stl")
    (tmp_path / "parts" / "hullish.yaml").write_text(
        f"mass: 1.0\ninertia_from: visual\nvisual:\n  - {{shape: mesh, file: meshes/{kind}.stl}}\n")
    (tmp_path / "v.yaml").write_text("name: v\nbase: {type: hullish}\nbuoyancy: {net_buoyancy: 0.1, cob_offset: "
                                     "[0, 0, 0.01], cob_frame: com, fluid_density: 1000, footprint: [0.1, 0.1]}\n")
    assert main(["specs", str(tmp_path / "v.yaml")]) == 2
    err = capsys.readouterr().err
    assert "hullish.yaml" in err and "visual[0].file" in err and f"{kind}.stl" in err, err
    assert ("open" if kind == "open" else "flat") in err and "Traceback" not in err


@pytest.mark.parametrize("text, key, what", [
    ("mass: 1.0\ninertia_from: visual\ninertia: {ixx: 1, iyy: 1, izz: 1}\nvisual:\n  - {shape: sphere, radius: 0.1}\n",
     "inertia_from", "applies only to a derived inertia"),
    ("mass: 1.0\ninertia_from: visual\ncollision:\n  - {shape: sphere, radius: 0.1}\nvisual: []\n",
     "inertia", "no visual geometry"),
    ("mass: 1.0\nvisual:\n  - {shape: sphere, radius: 0.1}\n", "inertia", "inertia_from: visual"),
    ("mass: 1.0\ninertia_from: mesh\nvisual:\n  - {shape: sphere, radius: 0.1}\n", "inertia_from", "collision"),
])
def test_inertia_from_misuse_is_refused(tmp_path, text, key, what):
    from aurgen.core.errors import ConfigError

    with pytest.raises(ConfigError) as e:
        _part(tmp_path, text)
    assert key in str(e.value) and what in str(e.value) and "thing.yaml" in str(e.value)


def test_the_specs_flag_the_derived_parts():
    v = resolve(str(PARTS.parent / "blueboat.yaml"))
    row = dict(rows(v))["derived inertia"]
    d = {x["name"]: x for x in as_dict(v)["inertia_derived"]}
    cat = catalog_for(PARTS.parent / "blueboat.yaml")
    for link in v.links:
        if link.role != "part":
            continue
        src = cat.get(link.part_type).inertia_from
        assert (link.name in d) == bool(src)
        if src:
            assert d[link.name] == {"name": link.name, "type": link.part_type, "from": src}
            assert f"{link.name} ({src})" in row
    assert d["base_link"]["from"] == "collision" and d["port_mid_fwd"]["from"] == "visual"
    assert "blueboat_ping_singlebeam_mount" not in {x["type"] for x in d.values()}  # its inertia is given


def test_aurgen_specs_json_and_the_stamped_comment_carry_the_flag(tmp_path, capsys):
    cfg = str(PARTS.parent / "bluerov2.yaml")
    assert main(["specs", cfg, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {"name": "battery", "type": "br_liion_18ah", "from": "visual"} in out["inertia_derived"]
    assert {"name": "thruster_1", "type": "t200_prop_ccw", "from": "collision"} in out["inertia_derived"]
    assert main(["build", cfg, "-o", str(tmp_path)]) == 0
    for f in ("bluerov2.xml", "bluerov2.urdf", "model.sdf"):
        text = (tmp_path / "bluerov2" / f).read_text()
        specs = text[text.index("model specs"):].split("-->")[0]  # the stamped specs comment
        row = next(line for line in specs.splitlines() if line.strip().startswith("derived inertia:"))
        assert "battery (visual)" in row and "thruster_1 (collision)" in row


def test_a_vehicle_of_given_inertias_says_none(tmp_path):
    (tmp_path / "parts").mkdir()
    (tmp_path / "parts" / "lump.yaml").write_text("mass: 2.0\ninertia: {ixx: 0.1, iyy: 0.1, izz: 0.1}\n"
                                                  "collision:\n  - {shape: sphere, radius: 0.1}\n")
    (tmp_path / "v.yaml").write_text("name: v\nbase: {type: lump}\nbuoyancy: {net_buoyancy: 0.1, cob_offset: "
                                     "[0, 0, 0.01], cob_frame: com, fluid_density: 1000, footprint: [0.1, 0.1]}\n")
    v = resolve(str(tmp_path / "v.yaml"))
    assert dict(rows(v))["derived inertia"].startswith("none")
    assert as_dict(v)["inertia_derived"] == []


# The bundled parts whose hand-typed placeholder inertia the derivation replaced: the closed form of
# their (visual or collision) primitive, written here from the entry's figures.
BUNDLED_BOXES = {"br_liion_15_6ah": (1.163, (0.146, 0.075, 0.075)), "br_liion_18ah": (1.4, (0.145, 0.074, 0.068)),
                 "br_lipo_10ah": (0.75, (0.168, 0.044, 0.060)), "marinesitu_c3": (0.43, (0.095, 0.165, 0.089)),
                 "omniscan_450_fs": (0.44, (0.165, 0.055, 0.033)), "payload_skid": (3.0, (0.475, 0.338, 0.197)),
                 "roof_rack": (0.2, (0.38, 0.10, 0.02)), "sonoptix_echo": (0.75, (0.15, 0.10, 0.042)),
                 "blueboat_payload_bracket": (0.0750918, (0.075215, 0.24657, 0.004049))}
BUNDLED_CYLINDERS = {  # mass, radius, length, rpy
    "dvl_a50": (0.17, 0.033, 0.025, (0, 0, 0)), "ping360": (0.5, 0.038, 0.117, (0, 0, 0)),
    "explorehd_camera": (0.08, 0.0195, 0.12, (0, np.pi / 2, 0)),
    "blueboat_antenna_mast": (0.303561, 0.011041, 0.792647, (0, 0, 0)),
    "blueboat_flag": (0.0216994, 0.002635, 0.9948, (0, 0, 0)),
    "m200_weedless_prop_ccw": (0.074472, 0.019513, 0.062258, (0, -np.pi / 2, 0)),
    "m200_weedless_prop_cw": (0.074472, 0.019513, 0.062258, (0, np.pi / 2, 0)),
}


@pytest.mark.parametrize("name", sorted(BUNDLED_BOXES) + sorted(BUNDLED_CYLINDERS))
def test_bundled_derived_parts_match_their_closed_forms(name):
    p = Catalog([PARTS]).get(name)
    assert p.inertia_from
    if name in BUNDLED_BOXES:
        m, size = BUNDLED_BOXES[name]
        want = box_I(m, *size)
    else:
        m, r, h, rpy = BUNDLED_CYLINDERS[name]
        want = rotated(cylinder_I(m, r, h), rpy)
    assert p.mass == m
    assert np.allclose(p.inertia, want, rtol=1e-12, atol=1e-12 * np.abs(want).max())


def test_t200_props_are_their_cylinder_about_the_declared_on_axis_com():
    for name in ("t200_prop_ccw", "t200_prop_cw"):
        p = Catalog([PARTS]).get(name)
        m, r, h = 0.0390534, 0.01988, 0.031454
        assert np.isclose(m, 1000 * np.pi * r * r * h, rtol=1e-5)  # the placeholder: 1000 kg/m^3
        want = shifted(rotated(cylinder_I(m, r, h), (0, np.pi / 2, 0)), m, np.subtract((0, 0, 0), p.com))
        assert p.com == (5.2e-5, 0.0, 0.0)
        assert np.allclose(p.inertia, want, rtol=1e-12, atol=1e-12 * np.abs(want).max())


# The hand-typed tensors the derivation replaced (git history of vehicles/parts, about the CoM): each
# was the same geometry's at uniform density, to six figures (the BlueBoat chassis': the reference's
# 12 kg tensor scaled to the mass, from box sizes that are themselves rounded: 1e-5).
REPLACED = {
    "basestation_antenna": ([[0.0651018, 0, 0], [0, 0.0648489, 0], [0, 0, 0.00173301]], 2e-6),
    "ping_singlebeam": ([[2.31894e-5, 0, 0], [0, 2.41653e-5, -3.73701e-7], [0, -3.73701e-7, 2.02698e-5]], 2e-6),
    "blueboat_antenna_mast": ([[0.0159029, 0, 0], [0, 0.0159029, 0], [0, 0, 1.85026e-5]], 2e-6),
    "blueboat_chassis": ([[1.8977894120366667, 0, 0.0044100329500436665], [0, 1.1691154054526, 0],
                          [0.0044100329500436665, 0, 2.9938890762509995]], 1e-5),
}


@pytest.mark.parametrize("name", sorted(REPLACED))
def test_the_replaced_figures_agree_to_their_rounding(name):
    p = Catalog([PARTS]).get(name)
    old, rtol = REPLACED[name]
    assert p.inertia_from == "collision"
    assert np.allclose(p.inertia, old, rtol=rtol, atol=rtol * np.abs(old).max())
