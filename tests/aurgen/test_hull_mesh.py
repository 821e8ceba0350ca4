"""A hull declared as a mesh (``hull_displacement: {mesh: ...}``; aurgen.compose.hull_mesh), end to end.

References, none of them aurgen's: trimesh's slice, cap and mass properties of the mesh itself
(the submerged volume and centroid at the equilibrium pose; the section at the waterline), the box
version of the same hull (the BlueBoat's pontoons, composed as boxes), closed forms of the fitted
boxes read back from the SDF, and the runtime (the plugin, MuJoCo's float32 vertices).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import trimesh

from aurgen.cli import main
from aurgen.compose.resolve import resolve
from aurgen.compose.stamp import equilibrium_of
from aurgen.core import spatial

ROOT = Path(__file__).parents[2]
VEHICLES = ROOT / "vehicles"
EXAMPLE = VEHICLES / "blueboat_hullmesh.yaml"
BOXES = VEHICLES / "blueboat.yaml"


def _write_obj(path: Path, meshes) -> None:
    """An OBJ of ``meshes`` with every vertex written losslessly (repr)."""
    lines, off = [], 0
    for m in meshes:
        lines += [f"v {x!r} {y!r} {z!r}" for x, y, z in np.asarray(m.vertices).tolist()]
        lines += [f"f {a + 1 + off} {b + 1 + off} {c + 1 + off}" for a, b, c in np.asarray(m.faces).tolist()]
        off += len(m.vertices)
    path.write_text("\n".join(lines) + "\n")


def _variant(tmp_path: Path, hull_line: str, name="hullv") -> Path:
    """blueboat.yaml with its hull_displacement line replaced, beside a copy of the catalog."""
    shutil.copytree(VEHICLES / "parts", tmp_path / "parts")
    text = BOXES.read_text()
    old = next(line for line in text.splitlines() if line.startswith("hull_displacement:"))
    text = text.replace(old, hull_line).replace("name: blueboat\n", f"name: {name}\n").replace(
        "topic_namespace: blueboat\n", f"topic_namespace: {name}\n")
    cfg = tmp_path / f"{name}.yaml"
    cfg.write_text(text)
    return cfg


def _pontoon_union(tmp_path: Path) -> Path:
    """The BlueBoat's two pontoons (the union of its twelve segment boxes) as one OBJ."""
    v = resolve(str(BOXES))
    h = v.displacement.boxes
    meshes = []
    for side in ("port", "stbd"):
        mine = [b for b in h if f"_{side}_" in b.name]
        x0 = min(b.xyz[0] - b.shape.dims[0] / 2 for b in mine)
        x1 = max(b.xyz[0] + b.shape.dims[0] / 2 for b in mine)
        b = mine[0]
        T = spatial.transform(((x0 + x1) / 2, b.xyz[1], b.xyz[2]))
        meshes.append(trimesh.creation.box(extents=(x1 - x0, b.shape.dims[1], b.shape.dims[2]), transform=T))
    (tmp_path / "meshes").mkdir(exist_ok=True)
    out = tmp_path / "meshes" / "pontoons.obj"
    _write_obj(out, meshes)
    return out


# ---------------------------------------------------------------- the box hull as a mesh

@pytest.fixture(scope="module")
def union(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("union")
    _pontoon_union(tmp)
    cfg = _variant(tmp, "hull_displacement: {mesh: meshes/pontoons.obj, segments: 6}")
    return resolve(str(cfg)), resolve(str(BOXES)), tmp, cfg


def test_the_pontoons_as_a_mesh_give_the_box_versions_specs(union):
    mesh, boxes, _, _ = union
    assert mesh.displacement.kind == "mesh" and len(mesh.displacement.hull.pieces) == 2
    assert mesh.specs.volume == pytest.approx(boxes.specs.volume, rel=1e-12)
    np.testing.assert_allclose(mesh.specs.cob, boxes.specs.cob, rtol=0, atol=1e-12)
    a, b = equilibrium_of(mesh), equilibrium_of(boxes)
    assert a.converged and b.converged
    assert abs(a.draft - b.draft) <= 1e-9
    assert abs(a.heel - b.heel) <= 1e-9 and abs(a.trim - b.trim) <= 1e-9
    assert abs(a.gm_t - b.gm_t) <= 1e-9 * b.gm_t and abs(a.gm_l - b.gm_l) <= 1e-9 * b.gm_l


def test_gazebos_boxes_fitted_to_the_pontoons_are_the_pontoon_segments(union):
    """A box hull sliced into the same 6 stations: each fitted box is the segment's own box below
    the design waterline (the same waterplane, volume and centroid) and reaches its top."""
    mesh, boxes, _, _ = union
    fitted = sorted(mesh.displacement.boxes, key=lambda b: (-round(b.xyz[1], 6), b.xyz[0]))
    segs = sorted(boxes.displacement.boxes, key=lambda b: (-round(b.xyz[1], 6), b.xyz[0]))
    assert len(fitted) == len(segs) == 12
    z = mesh.displacement.fit.z
    for f, s in zip(fitted, segs):
        np.testing.assert_allclose(f.shape.dims[:2], s.shape.dims[:2], rtol=1e-9)
        np.testing.assert_allclose(f.xyz[:2], s.xyz[:2], rtol=0, atol=1e-9)
        bottom, top = s.xyz[2] - s.shape.dims[2] / 2, s.xyz[2] + s.shape.dims[2] / 2
        assert f.xyz[2] - f.shape.dims[2] / 2 == pytest.approx(bottom, abs=1e-9)
        assert f.xyz[2] + f.shape.dims[2] / 2 == pytest.approx(top, abs=1e-9)
    e = mesh.displacement.fit.rows()
    assert abs(e["volume"]) < 1e-9 and e["cob"] < 1e-9 and abs(e["area"]) < 1e-6
    assert abs(e["it"]) < 1e-6 and abs(e["il"]) < 1e-6
    assert bottom < z < top


def test_the_runtime_floats_the_mesh_hull_where_it_floats_the_boxes(union, tmp_path):
    """Both MJCFs in the same water from the specs' equilibrium: after 4 s they rest at the same
    pose to MuJoCo's float32 vertices (the mesh's corners are stored as float32)."""
    from aurgen.emit.build import build
    from aurgen.runtime.sim import Simulation

    mesh, boxes, _, cfg = union
    build([str(cfg), str(BOXES)], tmp_path, warn=lambda m: None)
    eq = equilibrium_of(boxes)
    poses = []
    for v in (mesh, boxes):
        with Simulation(str(tmp_path / v.name / f"{v.name}.xml"), water=1025.0) as sim:
            d = sim.data
            d.qpos[:3] = eq.pos
            q = np.zeros(4)
            import mujoco

            mujoco.mju_mat2Quat(q, np.asarray(eq.mat, float).ravel())
            d.qpos[3:7] = q
            sim.forward()
            sim.step(2000)
            assert sim.check().ok
            poses.append(d.qpos[:7].copy())
    np.testing.assert_allclose(poses[0], poses[1], rtol=0, atol=2e-7)


# ---------------------------------------------------------------- the worked example

def test_the_example_hull_floats_where_trimesh_says(tmp_path):
    """blueboat_hullmesh.yaml at the specs' equilibrium pose: the mesh (the OBJ itself), cut at the
    waterline by trimesh, displaces the vehicle's mass, and its centroid is plumb with the CoM."""
    v = resolve(str(EXAMPLE))
    eq = equilibrium_of(v)
    assert eq.converged
    m = trimesh.load(VEHICLES / "meshes" / "blueboat_demihulls.obj", force="mesh")
    T = np.eye(4)
    T[:3, :3], T[:3, 3] = np.asarray(eq.mat, float), np.asarray(eq.pos, float)
    m.apply_transform(T)
    below = trimesh.intersections.slice_mesh_plane(m, plane_normal=[0, 0, -1], plane_origin=[0, 0, 0], cap=True)
    rho = v.displacement.fluid_density
    assert below.volume * rho == pytest.approx(v.specs.total_mass, rel=1e-6)
    G = T[:3, :3] @ np.asarray(v.specs.com) + T[:3, 3]
    B = below.center_mass
    assert np.hypot(*(B - G)[:2]) < 1e-6 * 1.05  # plumb, to 1e-6 of the hull's length


def test_the_fit_rows_against_the_mesh_and_the_sdf(tmp_path):
    """The gazebo boxes row: the mesh's part below the design waterline (trimesh), and the SDF's
    boxes' part below it (closed form of an upright box), as printed."""
    from aurgen.check.readback import read_sdf
    from aurgen.compose.stamp import read_rows
    from aurgen.emit.build import build

    v = resolve(str(EXAMPLE))
    f = v.displacement.fit
    m = trimesh.load(VEHICLES / "meshes" / "blueboat_demihulls.obj", force="mesh")
    below = trimesh.intersections.slice_mesh_plane(m, plane_normal=[0, 0, -1], plane_origin=[0, 0, f.z], cap=True)
    assert f.mesh_volume == pytest.approx(below.volume, rel=1e-9)
    np.testing.assert_allclose(f.mesh_cob, below.center_mass, rtol=0, atol=1e-9)
    assert f.mesh_volume * v.displacement.fluid_density == pytest.approx(v.specs.total_mass, rel=1e-9)
    build([str(EXAMPLE)], tmp_path, warn=lambda m: None)
    rb = read_sdf(tmp_path / v.name / "model.sdf")
    V = sum(float(s[0] * s[1] * min(max(f.z - (T[2, 3] - s[2] / 2), 0.0), s[2]))
            for s, T in rb.boxes_in_root(rb.displacement))
    assert V == pytest.approx(f.mesh_volume, rel=1e-9)  # each box holds its station's volume
    sec = m.section(plane_origin=[0, 0, f.z], plane_normal=[0, 0, 1]).to_planar()[0]
    assert f.mesh_area == pytest.approx(sec.area, rel=1e-6)
    row = read_rows((tmp_path / v.name / "model.sdf").read_text())["gazebo boxes"]
    assert f"fitted at z = {f.z:.6f} m" in row and f"below it {V:.6f} m^3" in row


def test_the_generator_reproduces_the_committed_mesh():
    res = subprocess.run([sys.executable, str(ROOT / "tools" / "make_hull_mesh.py"), "--check"],
                         capture_output=True, text=True, cwd=ROOT.parent)
    assert res.returncode == 0, res.stdout + res.stderr


# ---------------------------------------------------------------- concave hulls

def _l_prism(y0: float) -> trimesh.Trimesh:
    """A closed L-shaped prism (concave: a step in the deck), the L in x-z, 0.2 m wide in y."""
    L = [(-0.5, -0.04), (0.5, -0.04), (0.5, 0.16), (0.0, 0.16), (0.0, 0.36), (-0.5, 0.36)]
    v = [(x, y0 + dy, z) for dy in (-0.1, 0.1) for x, z in L]
    cap = [(0, 1, 2), (0, 2, 3), (0, 3, 5), (3, 4, 5)]
    f = [(a, c, b) for a, b, c in cap] + [(a + 6, b + 6, c + 6) for a, b, c in cap]
    for i in range(6):
        j = (i + 1) % 6
        f += [(i, j, j + 6), (i, j + 6, i + 6)]
    m = trimesh.Trimesh(v, f, process=True)
    trimesh.repair.fix_normals(m)
    assert m.is_watertight and m.volume > 0
    return m


def _l_hull(tmp_path: Path) -> Path:
    """A concave catamaran hull: two L prisms."""
    (tmp_path / "meshes").mkdir(exist_ok=True)
    out = tmp_path / "meshes" / "l.obj"
    _write_obj(out, [_l_prism(0.36), _l_prism(-0.36)])
    return out


def test_a_concave_hull_is_decomposed_within_its_volume_bound(tmp_path):
    pytest.importorskip("coacd")
    path = _l_hull(tmp_path)
    v = resolve(str(_variant(tmp_path, "hull_displacement: {mesh: meshes/l.obj, segments: 4}")))
    h = v.displacement.hull
    assert h.decomposed == 2 and len(h.pieces) >= 4
    exact = trimesh.load(path, force="mesh").volume
    assert h.volume == pytest.approx(exact, rel=1e-12)
    assert abs(h.volume_error) <= 0.005
    for p in h.pieces:  # each piece convex: its points are their own hull's
        t = trimesh.Trimesh(np.asarray(p)).convex_hull
        assert len(t.vertices) == len(p)
    text = main_specs(v)
    assert "decomposed by CoACD" in text


def main_specs(v) -> str:
    from aurgen.compose import specs

    return "\n".join(f"{k}: {val}" for k, val in specs.rows(v, equilibrium_of(v)))


# ---------------------------------------------------------------- refusals

def _refused(tmp_path, capsys, cfg: Path, *needles):
    out = tmp_path / "out"
    code = main(["build", str(cfg), "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err and err.count("\n") == 1, err
    assert str(cfg) in err and "hull_displacement" in err, err
    for n in needles:
        assert n in err, (n, err)
    assert not out.exists()


def test_an_open_hull_mesh_is_refused_naming_the_file(tmp_path, capsys):
    m = trimesh.creation.box(extents=(1.0, 0.2, 0.2))
    m.update_faces(np.arange(len(m.faces) - 2))  # two triangles gone: open
    (tmp_path / "meshes").mkdir()
    _write_obj(tmp_path / "meshes" / "open.obj", [m])
    _refused(tmp_path, capsys, _variant(tmp_path, "hull_displacement: {mesh: meshes/open.obj, segments: 2}"),
             "open.obj is not watertight")


def test_a_flat_hull_mesh_is_refused(tmp_path, capsys):
    m = trimesh.Trimesh([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2], [0, 2, 1]], process=False)
    (tmp_path / "meshes").mkdir()
    _write_obj(tmp_path / "meshes" / "flat.obj", [m])
    _refused(tmp_path, capsys, _variant(tmp_path, "hull_displacement: {mesh: meshes/flat.obj, segments: 2}"),
             "flat.obj")


@pytest.mark.parametrize("line,needle", [
    ("hull_displacement: {mesh: meshes/none.obj, segments: 2}", "not found"),
    ("hull_displacement: {mesh: /etc/passwd, segments: 2}", "relative"),
    ("hull_displacement: {mesh: ../outside.obj, segments: 2}", "outside"),
    ("hull_displacement: {mesh: meshes/pontoons.obj, segments: 0}", "segments"),
    ("hull_displacement: {mesh: meshes/pontoons.obj, segments: 2, length: 1.0}", "length"),
    ("hull_displacement: {mesh: meshes/pontoons.obj, segments: 2, max_volume_error: 0.5}", "max_volume_error"),
    ("hull_displacement: {mesh: meshes/pontoons.obj}", "segments"),
])
def test_bad_mesh_hull_keys_are_refused_naming_the_key(tmp_path, capsys, line, needle):
    _pontoon_union(tmp_path)
    (tmp_path.parent / "outside.obj").write_text((tmp_path / "meshes" / "pontoons.obj").read_text())
    _refused(tmp_path, capsys, _variant(tmp_path, line), needle)


def test_a_decomposition_beyond_its_bound_is_refused(tmp_path, capsys):
    pytest.importorskip("coacd")
    _l_hull(tmp_path)
    _refused(tmp_path, capsys,
             _variant(tmp_path, "hull_displacement: {mesh: meshes/l.obj, segments: 2, max_volume_error: 1e-9}"),
             "max_volume_error")


def test_a_user_name_of_a_hull_mesh_form_is_refused(tmp_path, capsys):
    _pontoon_union(tmp_path)
    cfg = _variant(tmp_path, "hull_displacement: {mesh: meshes/pontoons.obj, segments: 2}")
    cfg.write_text(cfg.read_text().replace("parts: []", "parts: [{type: ping360, name: hull_piece_7, xyz: [0, 0, 0.3]}]"))
    code = main(["build", str(cfg), "-o", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2 and "hull_piece_7" in err and "convex piece" in err, err


def test_a_changed_hull_mesh_makes_the_build_stale(tmp_path, capsys):
    from aurgen.check.audit import audit

    _pontoon_union(tmp_path)
    cfg = _variant(tmp_path, "hull_displacement: {mesh: meshes/pontoons.obj, segments: 2}")
    assert main(["build", str(cfg), "-o", str(tmp_path / "out")]) == 0
    assert audit([str(tmp_path / "out")], configs=[str(cfg)])[:2] == ([], [])
    obj = tmp_path / "meshes" / "pontoons.obj"
    m = trimesh.load(obj, force="mesh")
    m.apply_scale(1.01)
    _write_obj(obj, [m])
    diffs = audit([str(tmp_path / "out")], configs=[str(cfg)])[0]
    assert diffs, "a changed hull mesh must make the set stale"


# ---------------------------------------------------------------- issue 37: float32 convex bodies, overlaps

def _mesh_hull(path: Path, scale=(1.0, 1.0, 1.0)):
    from aurgen.config.vehicle import MeshHullDisplacement

    return MeshHullDisplacement(mesh=str(path), xyz=(0.0, 0.0, 0.0), rpy=(0.0, 0.0, 0.0), scale=scale, segments=2)


@pytest.fixture
def no_coacd(monkeypatch):
    """CoACD replaced by a spy that fails the test when called (and stands in where it is not installed)."""
    import types

    calls = []

    def run_coacd(*args, **kwargs):
        calls.append(args)
        raise AssertionError("CoACD was called on a convex body")

    fake = types.SimpleNamespace(run_coacd=run_coacd, set_log_level=lambda *_: None, Mesh=lambda *a: a)
    monkeypatch.setitem(sys.modules, "coacd", fake)
    return calls


_TILT = trimesh.transformations.rotation_matrix(0.3, [1.0, 2.0, 3.0])


@pytest.mark.parametrize("shape,scale,exact", [
    # a box turned off the axes: 1 x 0.2 x 0.2 m
    (lambda: trimesh.creation.box(extents=(1.0, 0.2, 0.2), transform=_TILT), 1.0, 0.04),
    # the same box in millimetres, placed by scale
    (lambda: trimesh.creation.box(extents=(1000.0, 200.0, 200.0), transform=_TILT), 1e-3, 0.04),
    # a 64-sided prism (a cylinder) turned and 3.5 m from the origin: float32 rounds its vertices coarser
    (lambda: trimesh.creation.cylinder(radius=0.1, height=1.0, sections=64,
                                       transform=trimesh.transformations.translation_matrix((3.3, 1.7, -0.2)) @ _TILT),
     1.0, 32 * 0.1 ** 2 * np.sin(2 * np.pi / 64) * 1.0),
], ids=["box", "box_mm", "prism_far"])
def test_a_convex_float32_stl_is_one_piece_not_decomposed(tmp_path, no_coacd, shape, scale, exact):
    """Issue 37: a binary STL (float32 vertices) of a convex body went to CoACD (42 s) because its
    rounded vertices miss the 1e-9 convexity tolerance; the tolerance is float32's rounding now."""
    from aurgen.compose import hull_mesh

    path = tmp_path / "convex.stl"
    shape().export(path)  # trimesh writes binary STL: float32
    read = trimesh.load(path, force="mesh")
    assert np.array_equal(read.vertices.astype(np.float32).astype(float), read.vertices)
    read.apply_scale(scale)
    gap = (read.convex_hull.volume - read.volume) / read.convex_hull.volume
    assert gap > hull_mesh.CONVEX_TOL  # the premise: the old test called it concave
    h = hull_mesh.load_hull(_mesh_hull(path, (scale,) * 3), tmp_path / "v.yaml")
    assert no_coacd == [] and h.decomposed == 0 and len(h.pieces) == 1
    assert h.volume == pytest.approx(read.volume, rel=1e-12)  # the mesh's own volume, trimesh's
    assert h.volume == pytest.approx(exact, rel=1e-6)  # the shape's, to float32's rounding
    assert h.pieces_volume == pytest.approx(read.convex_hull.volume, rel=1e-12)
    assert 0.0 <= h.volume_error <= 1e-6


def test_a_slightly_concave_body_is_still_decomposed(tmp_path, no_coacd):
    """The float32 slack is rounding's, no more: a dent of 1e-4 of the size is a concave body."""
    from aurgen.compose import hull_mesh

    m = trimesh.creation.box(extents=(1.0, 0.2, 0.2))
    top = m.vertices[:, 2] > 0
    m = trimesh.Trimesh(np.vstack([m.vertices, [[0.0, 0.0, 0.1 - 1e-4]]]), m.faces, process=False)
    # the top face (two triangles) replaced by four meeting at a point 0.1 mm below it
    keep = [f for f in m.faces if not all(top[list(f)])]
    c = [i for i in range(8) if top[i]]
    ring = sorted(c, key=lambda i: np.arctan2(m.vertices[i, 1], m.vertices[i, 0]))
    fan = [[ring[k], ring[(k + 1) % 4], 8] for k in range(4)]
    dented = trimesh.Trimesh(m.vertices, keep + fan, process=True)
    trimesh.repair.fix_normals(dented)
    assert dented.is_watertight and dented.volume > 0
    dented.export(tmp_path / "dented.stl")
    with pytest.raises(AssertionError, match="CoACD was called"):
        hull_mesh.load_hull(_mesh_hull(tmp_path / "dented.stl"), tmp_path / "v.yaml")


def _two(tmp_path: Path, b_at, b_extents=(1.0, 0.2, 0.2), name="two.obj", turn=None) -> Path:
    a = trimesh.creation.box(extents=(1.0, 0.2, 0.2))
    b = trimesh.creation.box(extents=b_extents)
    b.apply_translation(b_at)
    if turn is not None:
        a.apply_transform(turn)
        b.apply_transform(turn)
    (tmp_path / "meshes").mkdir(exist_ok=True)
    out = tmp_path / "meshes" / name
    if name.endswith(".stl"):
        trimesh.util.concatenate([a, b]).export(out)
    else:
        _write_obj(out, [a, b])
    return out


def test_two_overlapping_bodies_are_refused(tmp_path, capsys):
    """Issue 37: two closed bodies sharing 0.5 x 0.1 x 0.2 m displaced their sum (0.08 m^3), not
    their union (0.07 m^3)."""
    _two(tmp_path, (0.5, 0.1, 0.0))
    _refused(tmp_path, capsys, _variant(tmp_path, "hull_displacement: {mesh: meshes/two.obj, segments: 2}"),
             "two.obj: two of its closed bodies overlap, by 0.01 m^3 (25.00% of the smaller; centred at (0, 0, 0) "
             "and (0.5, 0.1, 0) m in base_link)", "their sum, the overlap twice, not their union",
             "join them into one closed body")


def test_a_body_inside_another_is_refused(tmp_path, capsys):
    _two(tmp_path, (0.1, 0.0, 0.0), (0.5, 0.1, 0.1))
    _refused(tmp_path, capsys, _variant(tmp_path, "hull_displacement: {mesh: meshes/two.obj, segments: 2}"),
             "overlap (one inside the other), by 0.005 m^3 (100.00% of the smaller")


def test_an_inward_facing_body_is_refused(tmp_path, capsys):
    a = trimesh.creation.box(extents=(1.0, 0.2, 0.2))
    cavity = trimesh.creation.box(extents=(0.5, 0.1, 0.1))
    cavity.invert()
    (tmp_path / "meshes").mkdir()
    _write_obj(tmp_path / "meshes" / "hollow.obj", [a, cavity])
    _refused(tmp_path, capsys, _variant(tmp_path, "hull_displacement: {mesh: meshes/hollow.obj, segments: 2}"),
             "hollow.obj: a closed body in it faces inward", "remove a cavity's shell")


@pytest.mark.parametrize("name,turn", [("touch.obj", None), ("touch.stl", _TILT)], ids=["obj", "float32_turned"])
def test_bodies_touching_face_to_face_are_taken(tmp_path, no_coacd, name, turn):
    """Two boxes sharing a face overlap in no volume: their sum is their union (also turned off the
    axes and rounded to float32, within the rounding's slack)."""
    from aurgen.compose import hull_mesh

    path = _two(tmp_path, (0.3, 0.2, 0.0), name=name, turn=turn)  # no vertex shared: two closed bodies
    h = hull_mesh.load_hull(_mesh_hull(path), tmp_path / "v.yaml")
    assert h.decomposed == 0 and len(h.pieces) == 2
    assert h.volume == pytest.approx(0.08, rel=1e-6)


def test_the_overlap_of_two_convex_bodies_is_manifolds():
    """convex_overlap against an independent boolean (manifold3d through trimesh): turned boxes and
    prisms, overlapping, nested, touching and apart."""
    pytest.importorskip("manifold3d")
    from aurgen.compose import hull_mesh

    rng = np.random.default_rng(7)

    def body(i):
        T = trimesh.transformations.random_rotation_matrix(rng.random(3))
        T[:3, 3] = rng.normal(0.0, 0.15, 3)
        if i % 2:
            return trimesh.creation.box(extents=rng.uniform(0.1, 0.6, 3), transform=T)
        return trimesh.creation.cylinder(radius=rng.uniform(0.05, 0.3), height=rng.uniform(0.1, 0.8), sections=24,
                                         transform=T)

    def rows(m):
        return np.column_stack([m.face_normals, np.einsum("ij,ij->i", m.face_normals, m.triangles[:, 0])])

    seen = 0
    for i in range(12):
        a, b = body(i), body(i + 1)
        with np.errstate(invalid="ignore"):  # trimesh's centre of an empty intersection: 0 / 0
            want = trimesh.boolean.intersection([a, b], engine="manifold").volume
        got = hull_mesh.convex_overlap(rows(a), rows(b), 1.0)
        assert got == pytest.approx(want, rel=1e-6, abs=1e-12)  # trimesh hands manifold3d float32 vertices
        seen += want > 0
    assert seen >= 6  # most pairs overlap
    a = trimesh.creation.box(extents=(1.0, 0.2, 0.2))
    inner = trimesh.creation.box(extents=(0.5, 0.1, 0.1))
    assert hull_mesh.convex_overlap(rows(a), rows(inner), 1.0) == pytest.approx(0.005, rel=1e-12)
    beside = trimesh.creation.box(extents=(1.0, 0.2, 0.2),
                                  transform=trimesh.transformations.translation_matrix((0.3, 0.2, 0.0)))
    assert hull_mesh.convex_overlap(rows(a), rows(beside), 1.0) == 0.0
