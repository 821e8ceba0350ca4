"""Geoms in convex cells (several planes): exact for polyhedra and for spheres /
ellipsoids cut by two planes, a measured bound for the polyhedral model of the
other smooth cases; the Cells container."""
import numpy as np
import pytest
import trimesh
from scipy.integrate import quad
from scipy.spatial.transform import Rotation

from aurgen.runtime.hydrostatics.cells import Cells
from aurgen.runtime.hydrostatics import Geom, clip, clip_cell, full_volume

PI = np.pi


def rot(seed):
    return Rotation.random(random_state=seed).as_matrix()


def unit(v):
    v = np.asarray(v, float)
    return v / np.linalg.norm(v)


def trimesh_cell(mesh, planes):
    m = mesh
    for nx, ny, nz, d in planes:
        n = np.array([nx, ny, nz])
        m = m.slice_plane(n * d, -n, cap=True)
    return m.volume, m.center_mass


def posed_box_mesh(g):
    m = trimesh.creation.box(extents=2 * np.asarray(g.size))
    T = np.eye(4)
    T[:3, :3], T[:3, 3] = g.mat, g.pos
    m.apply_transform(T)
    return m


@pytest.mark.parametrize("k", [2, 3, 4])
def test_box_in_cells_of_several_planes_against_trimesh(k):
    rng = np.random.default_rng(k)
    for trial in range(10):
        g = Geom("box", tuple(rng.uniform(0.2, 1.0, 3)), rng.normal(size=3) * 0.2, rot(trial + 10 * k))
        planes = []
        for _ in range(k):
            n = unit(rng.normal(size=3))
            planes.append([*n, n @ g.pos + rng.uniform(-0.3, 0.3)])
        cl = clip_cell(g, planes)
        vref, cref = trimesh_cell(posed_box_mesh(g), planes)
        assert np.isnan(cl.area)
        assert cl.volume == pytest.approx(vref, rel=1e-9, abs=1e-12)
        if vref > 1e-9:
            np.testing.assert_allclose(cl.centroid, cref, atol=1e-9)


def test_hull_mesh_in_a_cell_against_trimesh():
    rng = np.random.default_rng(5)
    m = trimesh.convex.convex_hull(rng.normal(size=(30, 3)))
    g = Geom("mesh", (), [0.1, -0.2, 0.3], rot(2), vertices=m.vertices)
    wm = m.copy()
    T = np.eye(4)
    T[:3, :3], T[:3, 3] = g.mat, g.pos
    wm.apply_transform(T)
    for _ in range(5):
        planes = [[*unit(rng.normal(size=3)), rng.uniform(-0.3, 0.5)] for _ in range(3)]
        planes = [[*p[:3], np.dot(p[:3], g.pos) + p[3]] for p in planes]
        cl = clip_cell(g, planes)
        vref, cref = trimesh_cell(wm, planes)
        assert cl.volume == pytest.approx(vref, rel=1e-9, abs=1e-12)
        if vref > 1e-9:
            np.testing.assert_allclose(cl.centroid, cref, atol=1e-9)


def test_one_plane_cell_is_the_half_space_clip():
    for typ, size in [("box", (0.3, 0.4, 0.5)), ("cylinder", (0.3, 0.5)), ("capsule", (0.2, 0.4)),
                      ("ellipsoid", (0.3, 0.5, 0.7))]:
        g = Geom(typ, size, [0.1, 0.2, 0.05], rot(3))
        n = unit([0.2, -0.1, 1.0])
        a, b = clip(g, n, 0.1), clip_cell(g, [[*n, 0.1]])
        assert a.volume == b.volume and np.array_equal(a.centroid, b.centroid)


# --------------------------------------------------------------------------- smooth shapes, two planes: exact


@pytest.mark.parametrize("seed", range(5))
def test_sphere_wedge_between_two_planes_through_the_centre(seed):
    """A spherical wedge of dihedral angle α: V = 2α r³/3, centroid 3πr sin(α/2)/(8α) on the bisector."""
    rng = np.random.default_rng(seed)
    r = rng.uniform(0.3, 1.2)
    g = Geom("sphere", (r,), rng.normal(size=3), rot(seed))
    alpha = rng.uniform(0.2, 3.0)
    R = rot(seed + 50)  # wedge about R's z axis, bisector along R's x
    n1 = R @ [np.sin(alpha / 2), np.cos(alpha / 2), 0]
    n2 = R @ [np.sin(alpha / 2), -np.cos(alpha / 2), 0]
    cl = clip_cell(g, [[*n1, n1 @ g.pos], [*n2, n2 @ g.pos]])
    assert cl.volume == pytest.approx(2 * alpha * r**3 / 3, rel=1e-12)
    rbar = 3 * PI * r * np.sin(alpha / 2) / (8 * alpha)
    np.testing.assert_allclose(cl.centroid, g.pos - rbar * (R @ [1, 0, 0]), atol=1e-12 * r)


@pytest.mark.parametrize("seed", range(4))
def test_sphere_cut_by_two_orthogonal_planes_against_quadrature(seed):
    """Sphere ∩ {z <= a} ∩ {x <= b}: slices along z are disks cut by x <= b (closed form), scipy quad."""
    rng = np.random.default_rng(seed)
    r = 1.0
    a, b = rng.uniform(-0.8, 0.8, 2)
    R = rot(seed)
    g = Geom("sphere", (r,), [0.2, 0.3, -0.1], R)

    def slice_(z):
        rho = np.sqrt(max(0.0, r * r - z * z))
        if rho == 0:
            return 0.0, 0.0
        u = np.clip(b / rho, -1, 1)
        return rho * rho * (np.arccos(-u) + u * np.sqrt(1 - u * u)), -2 / 3 * (rho * rho - min(b * b, rho * rho)) ** 1.5

    pts = sorted({-r, a, *(z for z in (-np.sqrt(max(0, r * r - b * b)), np.sqrt(max(0, r * r - b * b))) if -r < z < a)})
    V = sum(quad(lambda z: slice_(z)[0], lo, hi, epsabs=0, epsrel=1e-13)[0] for lo, hi in zip(pts[:-1], pts[1:]))
    Mx = sum(quad(lambda z: slice_(z)[1], lo, hi, epsabs=0, epsrel=1e-13)[0] for lo, hi in zip(pts[:-1], pts[1:]))
    Mz = sum(quad(lambda z: z * slice_(z)[0], lo, hi, epsabs=0, epsrel=1e-13)[0] for lo, hi in zip(pts[:-1], pts[1:]))
    ex, ez = R[:, 0], R[:, 2]
    cl = clip_cell(g, [[*ez, ez @ g.pos + a], [*ex, ex @ g.pos + b]])
    assert cl.volume == pytest.approx(V, rel=1e-11)
    np.testing.assert_allclose(cl.centroid, g.pos + (Mx * ex + Mz * ez) / V, atol=1e-11)


def test_ellipsoid_two_planes_through_centre_is_an_affine_wedge():
    """Planes through the centre of an ellipsoid cut the volume in the ratio of the unit-ball wedge."""
    a, b, c = 0.5, 1.0, 2.0
    g = Geom("ellipsoid", (a, b, c), np.zeros(3), np.eye(3))
    # planes y <= 0 and the plane through the z axis at angle: in the unit ball both are through the centre
    n1 = np.array([0.0, 1.0, 0.0])
    n2 = unit([1.0, 1.0, 0.0])
    cl = clip_cell(g, [[*n1, 0.0], [*n2, 0.0]])
    # pulled back: (A n)/|A n|; dihedral angle between the half-spaces in the ball
    m1, m2 = unit(np.array([a, b, c]) * n1), unit(np.array([a, b, c]) * n2)
    alpha = PI - np.arccos(np.clip(m1 @ m2, -1, 1))
    assert cl.volume == pytest.approx(a * b * c * 2 * alpha / 3, rel=1e-12)


# --------------------------------------------------------------------------- smooth shapes, polyhedral model: bound


def _cyl_two_planes_reference(r, h, b, c, capsule, ztop=None):
    """Cylinder/capsule (axis z) ∩ {x <= b} ∩ {y <= c} (∩ {z <= ztop}): nested quad over z and x.
    A sphere of radius r is the capsule with h = 0."""
    def area(z):
        R = r if abs(z) <= h else np.sqrt(max(0.0, r * r - (abs(z) - h) ** 2))
        if R == 0:
            return 0.0, 0.0, 0.0
        xb = min(b, R)
        if xb <= -R:
            return 0.0, 0.0, 0.0
        f = lambda x: max(0.0, min(c, np.sqrt(max(0.0, R * R - x * x))) + np.sqrt(max(0.0, R * R - x * x)))
        fy = lambda x: 0.5 * (min(c, np.sqrt(max(0.0, R * R - x * x))) ** 2 - (R * R - x * x)) if f(x) > 0 else 0.0
        pts = [p for p in (-np.sqrt(max(0, R * R - c * c)), np.sqrt(max(0, R * R - c * c))) if -R < p < xb]
        A = quad(f, -R, xb, points=pts or None, epsabs=1e-13, limit=200)[0]
        Mx = quad(lambda x: x * f(x), -R, xb, points=pts or None, epsabs=1e-13, limit=200)[0]
        My = quad(fy, -R, xb, points=pts or None, epsabs=1e-13, limit=200)[0]
        return A, Mx, My

    zmax = h + (r if capsule else 0)
    zp = [-zmax, -h, h, zmax] if capsule else [-h, h]
    if ztop is not None:
        zp = sorted({z for z in zp if z < ztop} | {ztop})
    out = np.zeros(4)
    for lo, hi in zip(zp[:-1], zp[1:]):
        for k in range(3):
            out[k] += quad(lambda z: area(z)[k], lo, hi, epsabs=1e-12, limit=100)[0]
        out[3] += quad(lambda z: z * area(z)[0], lo, hi, epsabs=1e-12, limit=100)[0]
    return out[0], out[1:] / out[0]


# measured (docs/kernel.md): volume error / full volume <= 5.1e-5 and centroid error / size
# <= 2.8e-5 (capsule); cylinder 3.7e-6 / 3.2e-6; sphere, three planes 6.9e-6 / 7.4e-6
MODEL_BOUND = 1e-4


@pytest.mark.parametrize("typ,b,c", [("cylinder", 0.1, -0.2), ("cylinder", 0.25, 0.25), ("capsule", 0.0, 0.1),
                                     ("capsule", -0.15, 0.3)])
def test_cylinder_capsule_two_planes_model_error_bound(typ, b, c):
    r, h = 0.3, 0.5
    R = rot(7)
    g = Geom(typ, (r, h), [0.3, -0.2, 0.1], R)
    V, cen = _cyl_two_planes_reference(r, h, b, c, typ == "capsule")
    ex, ey = R[:, 0], R[:, 1]
    cl = clip_cell(g, [[*ex, ex @ g.pos + b], [*ey, ey @ g.pos + c]])
    Vf = full_volume(g)
    assert abs(cl.volume - V) <= MODEL_BOUND * Vf
    assert np.linalg.norm(cl.centroid - (g.pos + R @ cen)) <= MODEL_BOUND * (r + h)


@pytest.mark.parametrize("a,b,c", [(0.1, -0.2, 0.3), (-0.4, 0.5, 0.2), (0.6, 0.6, -0.1)])
def test_sphere_three_offset_planes_model_error_bound(a, b, c):
    r = 0.8
    R = rot(4)
    g = Geom("sphere", (r,), [0.1, 0.2, 0.3], R)
    V, cen = _cyl_two_planes_reference(r, 0.0, a, b, True, ztop=c)
    planes = [[*R[:, 0], R[:, 0] @ g.pos + a], [*R[:, 1], R[:, 1] @ g.pos + b], [*R[:, 2], R[:, 2] @ g.pos + c]]
    cl = clip_cell(g, planes)
    assert abs(cl.volume - V) <= MODEL_BOUND * full_volume(g)
    assert np.linalg.norm(cl.centroid - (g.pos + R @ cen)) <= MODEL_BOUND * r


def test_sphere_octant_three_planes_model_error_bound():
    r = 0.8
    g = Geom("sphere", (r,), [0.1, 0.2, 0.3], rot(1))
    R = g.mat
    planes = [[*R[:, k], R[:, k] @ g.pos] for k in range(3)]
    cl = clip_cell(g, planes)
    assert abs(cl.volume - PI * r**3 / 6) <= MODEL_BOUND * full_volume(g)
    np.testing.assert_allclose(cl.centroid, g.pos - 3 * r / 8 * R.sum(axis=1), atol=MODEL_BOUND * r)


# --------------------------------------------------------------------------- Cells


def test_air_water_cells_split_every_geom_exactly():
    cells = Cells([[0, 0, 1, 0]], [[-1], [+1]])  # water below z = 0, air above
    rng = np.random.default_rng(2)
    for typ, size in [("box", (0.3, 0.2, 0.1)), ("sphere", (0.3,)), ("ellipsoid", (0.1, 0.2, 0.3)),
                      ("cylinder", (0.2, 0.3)), ("capsule", (0.1, 0.3))]:
        g = Geom(typ, size, [0.0, 0.0, rng.uniform(-0.1, 0.1)], rot(int(rng.integers(100))))
        pieces = cells.pieces(g)
        assert [c for c, _ in pieces] == [0, 1] == cells.cells_of(g)
        V = sum(p.volume for _, p in pieces)
        M = sum(p.volume * p.centroid for _, p in pieces)
        assert V == pytest.approx(full_volume(g), rel=1e-12)
        np.testing.assert_allclose(M / V, g.pos, atol=1e-12)
        assert pieces[0][1].volume == clip(g, [0, 0, 1], 0).volume
    deep = Geom("sphere", (0.1,), [0, 0, -1.0], np.eye(3))
    assert cells.cells_of(deep) == [0]
    assert cells.cell_of_point([0, 0, -1]) == 0 and cells.cell_of_point([0, 0, 1]) == 1


def test_tank_cells_and_vacuum():
    # a tank |x| <= 1 with water below z = 0 and air above, walls as planes; outside is vacuum
    planes = [[0, 0, 1, 0], [1, 0, 0, 1], [-1, 0, 0, 1]]
    cells = Cells(planes, [[-1, -1, -1], [+1, -1, -1]])
    assert cells.cell_of_point([2, 0, 0.5]) == -1
    g = Geom("box", (0.2, 0.2, 0.2), [0.9, 0, 0.05], np.eye(3))  # pokes through the wall at x = 1
    pieces = dict(cells.pieces(g))
    assert pieces[0].volume == pytest.approx(0.3 * 0.4 * 0.15, rel=1e-12)
    assert pieces[1].volume == pytest.approx(0.3 * 0.4 * 0.25, rel=1e-12)
    s = Geom("sphere", (0.2,), [0.9, 0, 0.0], np.eye(3))  # sphere across the wall and the surface: exact (2 planes)
    p = dict(cells.pieces(s))
    # by symmetry about z = 0 the water and air parts are equal; each is sphere ∩ {x <= 0.1 from centre}/2
    assert p[0].volume == pytest.approx(p[1].volume, rel=1e-12)
    hcap = 0.3  # part with x_local <= 0.1: a cap of height 0.3 below
    assert p[0].volume + p[1].volume == pytest.approx(PI * hcap**2 * (3 * 0.2 - hcap) / 3, rel=1e-12)


def test_overlapping_cells_are_refused():
    with pytest.raises(ValueError, match="overlap"):
        Cells([[0, 0, 1, 0], [1, 0, 0, 0]], [[-1, 0], [0, -1]])
    with pytest.raises(ValueError, match="signs"):
        Cells([[0, 0, 1, 0]], [[2]])
