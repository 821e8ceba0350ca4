"""Round trip: read each generated file back and compare with the composed model to 1e-9."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from aurgen.check import readback
from aurgen.core import spatial
from aurgen.compose import stamp
from aurgen.emit.build import bundled_vehicles
from aurgen.emit.render import MARKER_MASS
from aurgen.compose.resolve import resolve
from aurgen.core.resources import data_dir

FEATURES = Path(__file__).parents[1] / "data" / "emit_features" / "features.yaml"
CONFIGS = [str(p) for p in bundled_vehicles()] + [str(FEATURES)]
IDS = [Path(c).stem for c in CONFIGS]
TOL = 1e-9


@pytest.fixture(scope="module")
def out(built_vehicles):
    return built_vehicles  # CONFIGS, built once per session (tests/conftest.py)


def files(out, v):
    d = out / v.name
    return {"sdf": d / "model.sdf", "urdf": d / f"{v.name}.urdf", "mjcf": d / f"{v.name}.xml"}


@pytest.mark.parametrize("fmt", ["sdf", "urdf", "mjcf"])
@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_mass_com_inertia_round_trip(out, config, fmt):
    v = resolve(config)
    rb = readback.read(files(out, v)[fmt])
    assert rb.root == "base_link"
    M, C, I = rb.mass_properties()
    s = v.specs
    assert abs(M - s.total_mass) <= TOL * s.total_mass
    np.testing.assert_allclose(C, s.com, rtol=0, atol=TOL)
    np.testing.assert_allclose(I, s.inertia, rtol=0, atol=TOL * max(1.0, np.trace(I)))


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_links_and_joint_tree_round_trip(out, config):
    v = resolve(config)
    for fmt, path in files(out, v).items():
        rb = readback.read(path)
        for j in v.joints:
            rec = rb.links[j.child]
            assert rec.parent == j.parent, (fmt, j.name)
            want = spatial.transform(j.xyz, j.rpy)
            np.testing.assert_allclose(rec.T, want, rtol=0, atol=1e-12, err_msg=f"{fmt} {j.name}")
        for link in v.links:
            rec = rb.links[link.name]
            # the SDF's base link carries the marker links' tokens less (render.base_sdf_inertial)
            tokens = (1 + bool(v.windage)) * MARKER_MASS if fmt == "sdf" and link.name == v.base else 0.0
            assert rec.mass == link.mass - tokens
            np.testing.assert_allclose(rec.com, link.com, rtol=0, atol=1e-15)


@pytest.mark.parametrize("fmt", ["sdf", "mjcf"])
@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_displacement_round_trip(out, config, fmt):
    v = resolve(config)
    rb = readback.read(files(out, v)[fmt])
    boxes = rb.boxes_in_root(rb.displacement)
    mesh = v.displacement.kind == "mesh"
    # a hull mesh: the MJCF carries its convex pieces, the SDF the boxes fitted to it (whose volume
    # is not the mesh's: test_hull_mesh.py checks them below the design waterline)
    want = () if mesh and fmt == "mjcf" else v.displacement.boxes
    assert len(boxes) == len(want)
    for (size, T), b in zip(boxes, want):
        np.testing.assert_allclose(size, b.shape.dims, rtol=TOL, atol=0)
        np.testing.assert_allclose(T[:3, 3], b.xyz, rtol=0, atol=TOL)
    if mesh and fmt == "mjcf":
        got = rb.meshes_in_root()
        assert len(got) == len(v.displacement.hull.pieces)
        for pts, piece in zip(got, v.displacement.hull.pieces):
            np.testing.assert_allclose(pts, np.asarray(piece), rtol=0, atol=TOL)
    if not (mesh and fmt == "sdf"):
        V, c = rb.displaced()
        assert abs(V - v.specs.volume) <= TOL * v.specs.volume
        np.testing.assert_allclose(c, v.specs.cob, rtol=0, atol=TOL)
    wind = rb.boxes_in_root(rb.windage)
    assert len(wind) == len(v.windage)
    for (size, T), b in zip(wind, v.windage):
        np.testing.assert_allclose(size, b.shape.dims, rtol=TOL, atol=0)
        np.testing.assert_allclose(T[:3, 3], b.xyz, rtol=0, atol=TOL)


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_urdf_has_no_displacement_or_windage(out, config):
    v = resolve(config)
    text = files(out, v)["urdf"].read_text()
    rb = readback.read(files(out, v)["urdf"])
    assert not rb.displacement and not rb.windage
    for name in ("hull_displacement", "buoyancy_displacement", "windage", "pontoon_", "gz:"):
        assert name not in stamp.strip(text)


def test_sdf_marks_only_on_their_links(out):
    from lxml import etree

    for config in CONFIGS:
        v = resolve(config)
        model = etree.parse(str(files(out, v)["sdf"])).getroot().find("model")
        for link in model.findall("link"):
            for col in link.findall("collision"):
                b = col.get(readback.GZ + "buoyancy")
                w = col.get(readback.GZ + "wind")
                if link.get("name") == v.displacement.link:
                    assert b == "true" and w is None
                    assert col.findtext("surface/contact/collide_bitmask") == "0x00"
                elif link.get("name") == "windage":
                    assert w == "true" and b is None
                    assert col.findtext("surface/contact/collide_bitmask") == "0x00"
                else:
                    assert b is None and w is None


def test_blueboat_pontoon_segments_tile_the_hulls_exactly():
    v = resolve(str(data_dir("vehicles") / "blueboat.yaml"))
    from aurgen.config.vehicle import load_vehicle

    h = load_vehicle(v.source).hull_displacement
    boxes = v.displacement.boxes
    assert len(boxes) == 2 * h.segments
    for side, sy in (("port", 1.0), ("stbd", -1.0)):
        segs = sorted((b for b in boxes if b.name.startswith(f"pontoon_{side}_")), key=lambda b: b.xyz[0])
        assert [b.name for b in segs] == [f"pontoon_{side}_{i}" for i in range(h.segments)]
        lo = [b.xyz[0] - b.shape.dims[0] / 2 for b in segs]
        hi = [b.xyz[0] + b.shape.dims[0] / 2 for b in segs]
        assert abs(lo[0] - (h.x - h.length / 2)) <= 1e-12
        assert abs(hi[-1] - (h.x + h.length / 2)) <= 1e-12
        for a, b in zip(hi[:-1], lo[1:]):
            assert abs(a - b) <= 1e-12  # no gap, no overlap
        for b in segs:
            assert b.shape.dims[1:] == (h.width, h.height)
            assert b.xyz[1:] == (sy * h.y, h.z)
    assert abs(sum(b.shape.dims[0] for b in boxes) - 2 * h.length) <= 1e-12


def test_blueboat_draft_displaces_the_total_mass(out):
    """The stamped draft, checked from first principles (closed form, no kernel).

    Attitude R = rot_rpy(heel, trim, 0); a base_link point p sits at world height
    −draft + r·p with r = R's third row, under water when r·p < draft. Over an
    axis-aligned box whose top and bottom faces the waterplane does not cross,
    the surface height z_s(x, y) = (draft − r_x x − r_y y)/r_z is linear, so the
    submerged volume is exactly L·W·(z_s(centre) − bottom).
    """
    v = resolve(str(data_dir("vehicles") / "blueboat.yaml"))
    rows = stamp.read_rows((out / "blueboat" / "blueboat.xml").read_text())
    assert "draft" in rows, rows
    eq = stamp.equilibrium_of(v)
    assert eq is not None and eq.converged
    assert rows["draft"].startswith(f"{eq.draft:.6f} m")
    r = spatial.rot_rpy((eq.heel, eq.trim, 0.0))[2]
    V = 0.0
    for b in v.displacement.boxes:
        L, W, H = b.shape.dims
        xc, yc, zc = b.xyz
        bottom = zc - H / 2
        for cx in (xc - L / 2, xc + L / 2):  # the plane stays between bottom and top over the footprint
            for cy in (yc - W / 2, yc + W / 2):
                zs = (eq.draft - r[0] * cx - r[1] * cy) / r[2]
                assert bottom < zs < bottom + H
        V += L * W * ((eq.draft - r[0] * xc - r[1] * yc) / r[2] - bottom)
    rho = v.displacement.fluid_density
    assert abs(rho * V - v.specs.total_mass) <= 1e-9 * v.specs.total_mass


def test_bluerov2_displacement_box_is_the_declared_trim(out):
    for name in ("bluerov2", "bluerov2_heavy"):
        v = resolve(str(data_dir("vehicles") / f"{name}.yaml"))
        rb = readback.read(out / name / f"{name}.xml")
        (size, T), = rb.boxes_in_root(rb.displacement)
        d = v.displacement
        V = float(np.prod(size))
        M, C, _ = rb.mass_properties()
        assert abs(d.fluid_density * V - (M + d.declared_net_buoyancy)) <= 1e-9 * M
        np.testing.assert_allclose(T[:3, 3] - C, d.declared_cob_offset, rtol=0, atol=1e-9)
        rb_sdf = readback.read(out / name / "model.sdf")
        (size2, T2), = rb_sdf.boxes_in_root(rb_sdf.displacement)
        np.testing.assert_allclose(size2, size, rtol=1e-12)
        np.testing.assert_allclose(T2, T, atol=1e-12)
