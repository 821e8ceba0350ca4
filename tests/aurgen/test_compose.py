"""Composition against independent references: trimesh mass properties, closed forms."""

import math
import textwrap

import numpy as np
import pytest
import trimesh
import yaml

from aurgen.core import spatial
from aurgen.compose.resolve import resolve
from aurgen.core.resources import catalog_dir, data_dir


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def box_mesh(size, xyz=(0, 0, 0), rpy=(0, 0, 0), density=1.0):
    m = trimesh.creation.box(extents=size)
    m.apply_transform(spatial.transform(xyz, rpy))
    m.density = density
    return m


@pytest.fixture
def two_box(tmp_path):
    """A base box with a second box in a slot, rotated and offset; inertia derived from geometry."""
    write(tmp_path / "parts" / "slab.yaml", """
        mass: 6.0
        collision:
          - {shape: box, size: [0.6, 0.4, 0.1]}
        slots:
          top: {xyz: [0.1, -0.05, 0.2], rpy: [0.3, -0.4, 1.1], accepts: [brick], default: brick}
    """)
    write(tmp_path / "parts" / "brick.yaml", """
        mass: 2.0
        collision:
          - {shape: box, size: [0.2, 0.1, 0.05], xyz: [0.03, 0.0, 0.01]}
        attach: [0.0, 0.0, -0.025]
    """)
    return write(tmp_path / "v.yaml", """
        base: {type: slab}
        hull_displacement: {length: 1.0, width: 0.2, height: 0.2, x: 0, y: 0.3, z: 0, segments: 2}
    """)


def test_two_box_inertia_matches_trimesh(two_box):
    v = resolve(two_box)
    # the brick sits at slot ∘ translate(-attach); its box at +xyz within the part
    T = spatial.transform((0.1, -0.05, 0.2), (0.3, -0.4, 1.1)) @ spatial.transform((0.0, 0.0, 0.025))
    slab = box_mesh((0.6, 0.4, 0.1), density=6.0 / 0.024)
    brick = box_mesh((0.2, 0.1, 0.05), xyz=(0.03, 0.0, 0.01), density=2.0 / 0.001)
    brick.apply_transform(T)
    ref_mass = slab.mass + brick.mass
    ref_com = (slab.mass * slab.center_mass + brick.mass * brick.center_mass) / ref_mass
    # trimesh: each body's inertia about its own CoM; shift both to the joint CoM
    I = np.zeros((3, 3))
    for m in (slab, brick):
        d = m.center_mass - ref_com
        I += m.moment_inertia + m.mass * (d @ d * np.eye(3) - np.outer(d, d))
    assert v.specs.total_mass == pytest.approx(ref_mass, rel=1e-12)
    np.testing.assert_allclose(v.specs.com, ref_com, atol=1e-12)
    np.testing.assert_allclose(np.array(v.specs.inertia), I, rtol=1e-9, atol=1e-12)


def test_two_box_inertia_by_hand(tmp_path):
    """Two axis-aligned boxes side by side: the textbook parallel-axis sum."""
    write(tmp_path / "parts" / "cube.yaml", """
        mass: 1.0
        collision: [{shape: box, size: [0.1, 0.1, 0.1]}]
        slots: {side: {xyz: [0.3, 0, 0], accepts: [cube], default: none}}
    """)
    cfg = write(tmp_path / "v.yaml", """
        base: {type: cube}
        parts: [{slot: side, type: cube}]
        hull_displacement: {length: 1.0, width: 0.2, height: 0.2, y: 0.3, z: 0, segments: 1}
    """)
    v = resolve(cfg)
    a = 1.0 * (0.01 + 0.01) / 12  # one cube about its centre
    # CoM at x = 0.15; each cube 0.15 away along x: ixx unchanged, iyy = izz gain 2·m·0.15²
    assert v.specs.com == pytest.approx((0.15, 0.0, 0.0), abs=1e-15)
    np.testing.assert_allclose(np.array(v.specs.inertia), np.diag([2 * a, 2 * a + 2 * 0.0225, 2 * a + 2 * 0.0225]),
                               rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("shape,trimesh_make,vol", [
    ("{shape: cylinder, radius: 0.05, length: 0.3, rpy: [0, 1.5707963267948966, 0]}",
     lambda: trimesh.creation.cylinder(radius=0.05, height=0.3, sections=2048,
                                       transform=spatial.transform((0, 0, 0), (0, math.pi / 2, 0))),
     math.pi * 0.05 ** 2 * 0.3),
    ("{shape: ellipsoid, radii: [0.1, 0.05, 0.03]}",
     lambda: trimesh.creation.icosphere(subdivisions=6).apply_scale((0.1, 0.05, 0.03)),
     4 / 3 * math.pi * 0.1 * 0.05 * 0.03),
    ("{shape: sphere, radius: 0.07}", lambda: trimesh.creation.icosphere(subdivisions=6, radius=0.07),
     4 / 3 * math.pi * 0.07 ** 3),
])
def test_derived_inertia_matches_trimesh(tmp_path, shape, trimesh_make, vol):
    write(tmp_path / "parts" / "p.yaml", f"mass: 3.0\ncollision: [{shape}]\n")
    cfg = write(tmp_path / "v.yaml", "base: {type: p}\n"
                "hull_displacement: {length: 1.0, width: 0.2, height: 0.2, y: 0.3, z: 0, segments: 1}\n")
    v = resolve(cfg)
    mesh = trimesh_make()
    mesh.density = 3.0 / mesh.volume
    # the tessellation under-fills the smooth shape: compare at 1e-3 (its own error)
    np.testing.assert_allclose(np.array(v.specs.inertia), mesh.moment_inertia, rtol=2e-3, atol=1e-9)


def test_derived_capsule_inertia_matches_quadrature(tmp_path):
    """trimesh's capsule tessellation is off by 2e-3; integrate the solid of revolution instead."""
    from scipy.integrate import quad

    r, h = 0.04, 0.2
    write(tmp_path / "parts" / "p.yaml", f"mass: 3.0\ncollision: [{{shape: capsule, radius: {r}, length: {h}}}]\n")
    cfg = write(tmp_path / "v.yaml", "base: {type: p}\n"
                "hull_displacement: {length: 1.0, width: 0.2, height: 0.2, y: 0.3, z: 0, segments: 1}\n")
    v = resolve(cfg)

    def a(z):  # radius of the disc at height z
        z = abs(z)
        return r if z <= h / 2 else math.sqrt(max(r * r - (z - h / 2) ** 2, 0.0))

    span = dict(a=-h / 2 - r, b=h / 2 + r, points=[-h / 2, h / 2], epsabs=0, epsrel=1e-13)
    V = quad(lambda z: math.pi * a(z) ** 2, **span)[0]
    ixx = quad(lambda z: math.pi * a(z) ** 4 / 4 + math.pi * a(z) ** 2 * z * z, **span)[0] * 3.0 / V
    izz = quad(lambda z: math.pi * a(z) ** 4 / 2, **span)[0] * 3.0 / V
    np.testing.assert_allclose(np.array(v.specs.inertia), np.diag([ixx, ixx, izz]), rtol=1e-10, atol=1e-15)


def test_derived_inertia_of_a_mesh_part_uses_trimesh(tmp_path):
    mesh = trimesh.creation.box(extents=(0.2, 0.3, 0.4))
    (tmp_path / "parts" / "meshes").mkdir(parents=True)
    mesh.export(tmp_path / "parts" / "meshes" / "b.stl")
    write(tmp_path / "parts" / "m.yaml", "mass: 2.4\ncollision: [{shape: mesh, file: meshes/b.stl}]\n")
    cfg = write(tmp_path / "v.yaml", "base: {type: m}\n"
                "hull_displacement: {length: 1.0, width: 0.2, height: 0.2, y: 0.3, z: 0, segments: 1}\n")
    v = resolve(cfg)
    ref = np.diag([2.4 * (0.09 + 0.16) / 12, 2.4 * (0.04 + 0.16) / 12, 2.4 * (0.04 + 0.09) / 12])
    # STL stores float32 vertices: agreement to its precision
    np.testing.assert_allclose(np.array(v.specs.inertia), ref, rtol=1e-6)


def catalog_mass(type_name):
    return float(yaml.safe_load((catalog_dir() / f"{type_name}.yaml").read_text())["mass"])


def test_blueboat_total_mass_is_the_sum_of_its_parts():
    v = resolve(data_dir("vehicles") / "blueboat.yaml")
    assert len(v.specs.parts) == 8
    ref = math.fsum(catalog_mass(t) for t, _ in v.specs.parts)
    assert abs(v.specs.total_mass - ref) < 1e-9
    # the default manifest of the reference, plus aurgen's battery parts
    assert dict((n, t) for t, n in v.specs.parts) == {
        "base_link": "blueboat_chassis", "motor_port": "m200_weedless_prop_ccw",
        "motor_stbd": "m200_weedless_prop_cw", "flag": "blueboat_flag",
        "ping_mount": "blueboat_ping_singlebeam_mount", "ping": "ping_singlebeam",
        "port_mid_fwd": "br_liion_18ah", "stbd_mid_fwd": "br_liion_18ah"}


def test_fitting_and_emptying_change_mass_by_exactly_the_part(tmp_path):
    base = yaml.safe_load((data_dir("vehicles") / "blueboat.yaml").read_text())
    ref = resolve(data_dir("vehicles") / "blueboat.yaml").specs.total_mass
    cfg = dict(base, parts=[{"slot": "port_fwd", "type": "br_liion_18ah"}])
    (tmp_path / "a.yaml").write_text(yaml.safe_dump(cfg))
    assert resolve(tmp_path / "a.yaml").specs.total_mass - ref == pytest.approx(1.4, abs=1e-12)
    cfg = dict(base, parts=[{"slot": "flag", "type": "none"}])
    (tmp_path / "b.yaml").write_text(yaml.safe_dump(cfg))
    assert ref - resolve(tmp_path / "b.yaml").specs.total_mass == pytest.approx(
        catalog_mass("blueboat_flag"), abs=1e-12)
    # emptying the Ping mount drops the Ping2 it carries too
    cfg = dict(base, parts=[{"slot": "ping_mount", "type": "none"}])
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(cfg))
    assert ref - resolve(tmp_path / "c.yaml").specs.total_mass == pytest.approx(
        catalog_mass("blueboat_ping_singlebeam_mount") + catalog_mass("ping_singlebeam"), abs=1e-12)


def test_symmetric_blueboat_has_no_lateral_products(tmp_path):
    """Without the off-centre flag and Ping mount, the boat is port/starboard symmetric."""
    base = yaml.safe_load((data_dir("vehicles") / "blueboat.yaml").read_text())
    cfg = dict(base, parts=[{"slot": "flag", "type": "none"}, {"slot": "ping_mount", "type": "none"}])
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(cfg))
    v = resolve(tmp_path / "s.yaml")
    I = np.array(v.specs.inertia)
    assert abs(v.specs.com[1]) < 1e-15
    assert abs(I[0, 1]) < 1e-12 and abs(I[1, 2]) < 1e-12
    assert abs(I[0, 2]) > 1e-4  # the chassis' own ixz survives


def test_hull_segments_tile_the_pontoons():
    v = resolve(data_dir("vehicles") / "blueboat.yaml")
    boxes = v.displacement.boxes
    assert [b.name for b in boxes] == [f"pontoon_{s}_{i}" for s in ("port", "stbd") for i in range(6)]
    for side, y in (("port", 0.361), ("stbd", -0.361)):
        row = [b for b in boxes if b.name.startswith(f"pontoon_{side}")]
        lo = [b.xyz[0] - b.shape.dims[0] / 2 for b in row]
        hi = [b.xyz[0] + b.shape.dims[0] / 2 for b in row]
        assert lo[0] == pytest.approx(0.027 - 0.525, abs=1e-15)
        assert hi[-1] == pytest.approx(0.027 + 0.525, abs=1e-15)
        for a, b in zip(hi[:-1], lo[1:]):
            assert a == pytest.approx(b, abs=1e-15)
        assert all(b.xyz[1] == y and b.xyz[2] == 0.059 for b in row)
        assert all(b.shape.dims[1:] == (0.18, 0.18) for b in row)
    assert v.specs.volume == pytest.approx(2 * 1.05 * 0.18 * 0.18, rel=1e-14)
    assert [w.name for w in v.windage] == ["windage_port", "windage_stbd"]


@pytest.mark.parametrize("vehicle", ["bluerov2.yaml", "bluerov2_heavy.yaml"])
def test_uuv_box_is_solved_from_mass_and_net_buoyancy(vehicle):
    v = resolve(data_dir("vehicles") / vehicle)
    cfg = yaml.safe_load((data_dir("vehicles") / vehicle).read_text())["buoyancy"]
    (box,) = v.displacement.boxes
    fx, fy, h = box.shape.dims
    V = fx * fy * h
    assert (fx, fy) == tuple(cfg["footprint"])
    assert abs(cfg["fluid_density"] * V - (v.specs.total_mass + cfg["net_buoyancy"])) <= \
        1e-12 * v.specs.total_mass
    np.testing.assert_allclose(np.array(box.xyz) - np.array(v.specs.com), cfg["cob_offset"], atol=1e-15)


def test_uuv_cob_frame_base_link_pins_the_box(tmp_path):
    base = yaml.safe_load((data_dir("vehicles") / "bluerov2.yaml").read_text())
    base["buoyancy"] = dict(base["buoyancy"], cob_frame="base_link", cob_offset=[0.01, 0.0, 0.05],
                            net_buoyancy=0.25)
    (tmp_path / "r.yaml").write_text(yaml.safe_dump(base))
    v = resolve(tmp_path / "r.yaml")
    assert v.displacement.boxes[0].xyz == (0.01, 0.0, 0.05)
    assert v.specs.buoyancy_margin == pytest.approx(0.25, abs=1e-12)


def test_rov_thrusters_follow_the_ardusub_vectored_frame():
    v = resolve(data_dir("vehicles") / "bluerov2.yaml")
    names = [t.name for t in v.thrusters]
    assert names == [f"thruster_{i}" for i in range(1, 7)]
    rot = {t.name: t.drive.rotation for t in v.thrusters}
    assert [rot[f"thruster_{i}"] for i in range(1, 7)] == ["ccw", "ccw", "cw", "cw", "ccw", "cw"]
    joints = {j.child: j for j in v.joints}
    # horizontal thrusters: yaw ±45°/±135° about z; verticals: pitched 90° so +x points down/up
    for i, yaw in ((1, -3 * math.pi / 4), (2, 3 * math.pi / 4), (3, -math.pi / 4), (4, math.pi / 4)):
        R = spatial.rot_rpy(joints[f"thruster_{i}"].rpy)
        np.testing.assert_allclose(R @ [1, 0, 0], [math.cos(yaw), math.sin(yaw), 0], atol=1e-12)
    for i in (5, 6):
        R = spatial.rot_rpy(joints[f"thruster_{i}"].rpy)
        np.testing.assert_allclose(R @ [1, 0, 0], [0, 0, -1], atol=1e-12)
        assert joints[f"thruster_{i}"].type == "continuous"
