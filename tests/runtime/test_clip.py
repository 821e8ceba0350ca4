"""Clipped volume, centroid and waterplane area of single geoms, against
independent references: textbook closed forms, scipy quadrature and trimesh."""
from fractions import Fraction as F

import numpy as np
import pytest
import trimesh
from scipy.integrate import quad
from scipy.optimize import brentq
from scipy.spatial.transform import Rotation

from aurgen.runtime.hydrostatics import (Geom, clip, clip_batch, full_volume, pack_hulls,
                                         hull_of, support, waterplane)

PI = np.pi


def rot(seed):
    return Rotation.random(random_state=seed).as_matrix()


def world_plane(g, n_local, t_local):
    """World (n, d) of the plane n_local·x <= t_local in g's frame."""
    n = g.mat @ n_local
    return n, t_local + n @ g.pos


# --------------------------------------------------------------------------
# sphere and ellipsoid: closed forms


@pytest.mark.parametrize("seed", range(3))
def test_sphere_full_half_and_caps(seed):
    r = 0.7 + 0.3 * seed
    g = Geom("sphere", (r,), np.array([0.3, -1.0, 2.0]) * seed, rot(seed))
    n = rot(seed + 10)[:, 0]
    full = clip(g, n, n @ g.pos + r * 1.0000001)
    assert full.volume == pytest.approx(4 / 3 * PI * r**3, rel=1e-15)
    assert np.array_equal(full.centroid, g.pos)
    half = clip(g, n, n @ g.pos)
    assert half.volume == pytest.approx(2 / 3 * PI * r**3, rel=1e-14)
    np.testing.assert_allclose(half.centroid, g.pos - 3 * r / 8 * n, atol=1e-14)
    assert half.area == pytest.approx(PI * r * r, rel=1e-14)
    for hcap in np.linspace(0.05, 1.95, 9) * r:  # cap of height hcap below the plane
        c = clip(g, n, n @ g.pos - r + hcap)
        v = PI * hcap**2 * (3 * r - hcap) / 3
        zbar = 3 * (2 * r - hcap) ** 2 / (4 * (3 * r - hcap))  # from the centre
        assert c.volume == pytest.approx(v, rel=1e-13)
        np.testing.assert_allclose(c.centroid, g.pos - zbar * n, atol=1e-13 * r)
        assert c.area == pytest.approx(PI * hcap * (2 * r - hcap), rel=1e-13)
    assert clip(g, n, n @ g.pos - r * 1.0000001).volume == 0.0


def test_ellipsoid_axis_caps_against_quadrature():
    a, b, c = 0.4, 0.7, 1.3
    g = Geom("ellipsoid", (a, b, c), [1.0, 2.0, -0.5], rot(4))
    assert full_volume(g) == pytest.approx(4 / 3 * PI * a * b * c, rel=1e-15)
    ez = g.mat[:, 2]
    half = clip(g, ez, ez @ g.pos)
    assert half.volume == pytest.approx(2 / 3 * PI * a * b * c, rel=1e-14)
    np.testing.assert_allclose(half.centroid, g.pos - 3 * c / 8 * ez, atol=1e-14)
    for t in np.linspace(-0.95, 0.95, 7) * c:
        area = lambda z: PI * a * b * (1 - z * z / (c * c))
        v = quad(area, -c, t, epsabs=0, epsrel=2e-14)[0]
        m = quad(lambda z: z * area(z), -c, t, epsabs=0, epsrel=2e-14)[0]
        cl = clip(g, ez, t + ez @ g.pos)
        assert cl.volume == pytest.approx(v, rel=1e-12)
        np.testing.assert_allclose(cl.centroid, g.pos + m / v * ez, atol=1e-12)
        assert cl.area == pytest.approx(area(t), rel=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_ellipsoid_tilted_plane_against_quadrature(seed):
    """Slice along the local z axis: each slice is an ellipse cut by a line,
    whose area is the unit disk's segment scaled; integrate with scipy quad."""
    rng = np.random.default_rng(seed)
    a, b, c = rng.uniform(0.3, 1.5, 3)
    g = Geom("ellipsoid", (a, b, c), rng.normal(size=3), rot(seed))
    nl = rng.normal(size=3)
    nl /= np.linalg.norm(nl)
    t = rng.uniform(-0.8, 0.8) * np.linalg.norm([a * nl[0], b * nl[1], c * nl[2]])

    def slice_(z):
        q = max(0.0, 1 - (z / c) ** 2)
        al, be = a * np.sqrt(q), b * np.sqrt(q)
        L = np.hypot(nl[0] * al, nl[1] * be)
        ar, m = seg(1.0, (t - nl[2] * z) / L)  # unit disk, chord normal (nx al, ny be)/L
        # first moment in x, y: map the unit-disk moment along the chord normal
        mx = al * be * al * nl[0] * al / L * m
        my = al * be * be * nl[1] * be / L * m
        return al * be * ar, mx, my

    def gap(z, sgn):  # zero where the line is tangent to the slice ellipse
        q = np.sqrt(max(0.0, 1 - (z / c) ** 2))
        return (t - nl[2] * z) - sgn * np.hypot(nl[0] * a * q, nl[1] * b * q)

    kinks = {-c, c}
    zs = np.linspace(-c, c, 401)
    for sgn in (-1, 1):
        gv = [gap(z, sgn) for z in zs]
        kinks |= {brentq(gap, zs[k], zs[k + 1], args=(sgn,), xtol=1e-15)
                  for k in range(len(zs) - 1) if gv[k] * gv[k + 1] < 0}
    kinks = sorted(kinks)
    ref = np.zeros(4)
    for lo, hi in zip(kinks[:-1], kinks[1:]):
        ref[0] += quad(lambda z: slice_(z)[0], lo, hi, epsabs=0, epsrel=1e-13, limit=200)[0]
        ref[1] += quad(lambda z: slice_(z)[1], lo, hi, epsabs=0, epsrel=1e-13, limit=200)[0]
        ref[2] += quad(lambda z: slice_(z)[2], lo, hi, epsabs=0, epsrel=1e-13, limit=200)[0]
        ref[3] += quad(lambda z: z * slice_(z)[0], lo, hi, epsabs=0, epsrel=1e-13, limit=200)[0]
    n, d = world_plane(g, nl, t)
    cl = clip(g, n, d)
    assert cl.volume == pytest.approx(ref[0], rel=1e-11)
    np.testing.assert_allclose(cl.centroid, g.pos + g.mat @ (ref[1:] / ref[0]), atol=1e-11)


def test_ellipsoid_support_uses_norm_of_An():
    """|a·n| = 0 here; the true support ‖A n‖ = 1.265 > 0.5, so the geom is cut."""
    g = Geom("ellipsoid", (1, 2, 3), np.zeros(3), np.eye(3))
    n = np.array([2.0, -1.0, 0.0]) / np.sqrt(5)
    assert support(g, n) == pytest.approx(np.sqrt(8 / 5), rel=1e-15)
    cl = clip(g, n, 0.5)
    assert 0 < cl.volume < full_volume(g)
    tau = 0.5 / np.sqrt(8 / 5)
    assert cl.volume == pytest.approx(6 * PI * (1 + tau) ** 2 * (2 - tau) / 3, rel=1e-14)


# --------------------------------------------------------------------------
# box: closed forms and trimesh


def trimesh_below(mesh, n, d):
    s = mesh.slice_plane(np.asarray(n) * d, -np.asarray(n), cap=True)
    return s.volume, s.center_mass


def box_mesh(g):
    m = trimesh.creation.box(extents=2 * np.asarray(g.size))
    T = np.eye(4)
    T[:3, :3] = g.mat
    T[:3, 3] = g.pos
    m.apply_transform(T)
    return m


@pytest.mark.parametrize("seed", range(4))
def test_box_full_half_quarter_and_diagonal(seed):
    rng = np.random.default_rng(seed)
    a, b, c = rng.uniform(0.2, 2.0, 3)
    g = Geom("box", (a, b, c), rng.normal(size=3), rot(seed))
    V = 8 * a * b * c
    ez = g.mat[:, 2]
    full = clip(g, ez, ez @ g.pos + c * (1 + 1e-9))
    assert full.volume == V and np.array_equal(full.centroid, g.pos) and full.area == 0.0
    half = clip(g, ez, ez @ g.pos)
    assert half.volume == pytest.approx(V / 2, rel=1e-14)
    np.testing.assert_allclose(half.centroid, g.pos - c / 2 * ez, atol=1e-14)
    assert half.area == pytest.approx(4 * a * b, rel=1e-14)
    quarter = clip(g, ez, ez @ g.pos - c / 2)
    assert quarter.volume == pytest.approx(V / 4, rel=1e-14)
    np.testing.assert_allclose(quarter.centroid, g.pos - 3 * c / 4 * ez, atol=1e-14)
    n = g.mat @ (np.ones(3) / np.sqrt(3))
    diag = clip(g, n, n @ g.pos)
    assert diag.volume == pytest.approx(V / 2, rel=1e-14)
    vref, cref = trimesh_below(box_mesh(g), n, n @ g.pos)
    np.testing.assert_allclose(diag.centroid, cref, atol=1e-12)


def test_box_random_planes_against_trimesh():
    rng = np.random.default_rng(7)
    for k in range(40):
        g = Geom("box", tuple(rng.uniform(0.1, 1.5, 3)), rng.normal(size=3), rot(100 + k))
        n = rng.normal(size=3)
        n /= np.linalg.norm(n)
        h = support(g, n)
        lo = -support(g, -n)
        d = rng.uniform(lo, h)
        cl = clip(g, n, d)
        vref, cref = trimesh_below(box_mesh(g), n, d)
        assert cl.volume == pytest.approx(vref, rel=1e-9, abs=1e-12)
        np.testing.assert_allclose(cl.centroid, cref, atol=1e-9)


# --------------------------------------------------------------------------
# cylinder and capsule: tilted planes against adaptive quadrature


def seg(R, c):
    """Area and first moment (along the chord normal) of a disk radius R where u <= c."""
    if R <= 0:
        return 0.0, 0.0
    x = min(max(c / R, -1.0), 1.0)
    return R * R * (np.arccos(-x) + x * np.sqrt(1 - x * x)), -2 / 3 * (R * R - min(c * c, R * R)) ** 1.5


def axial_reference(r, h, nl, t, capsule):
    """Volume and first moment by slicing along the axis (scipy quad, split at kinks)."""
    rho = np.hypot(nl[0], nl[1])
    e = np.array([nl[0], nl[1]]) / rho
    zmax = h + (r if capsule else 0.0)

    def R(z):
        if abs(z) <= h:
            return r
        return np.sqrt(max(0.0, r * r - (abs(z) - h) ** 2))

    cz = lambda z: (t - nl[2] * z) / rho
    g = lambda z: abs(cz(z)) - R(z)
    zs = np.linspace(-zmax, zmax, 2001)
    pts = {-zmax, zmax, -h, h}
    gv = [g(z) for z in zs]
    for i in range(len(zs) - 1):
        if gv[i] * gv[i + 1] < 0:
            pts.add(brentq(g, zs[i], zs[i + 1], xtol=1e-15, rtol=1e-15))
    pts = sorted(pts)
    out = np.zeros(4)
    for lo, hi in zip(pts[:-1], pts[1:]):
        for k in range(3):
            def f(z, k=k):
                a, m = seg(R(z), cz(z))
                return a if k == 0 else (z * a if k == 1 else m)
            out[k] += quad(f, lo, hi, epsabs=0, epsrel=1e-13, limit=200)[0]
    V, Mz, Me = out[:3]
    return V, np.array([Me * e[0], Me * e[1], Mz]) / V


@pytest.mark.parametrize("capsule", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_cylinder_capsule_tilted_against_quadrature(capsule, seed):
    rng = np.random.default_rng(seed)
    r, h = rng.uniform(0.2, 1.0), rng.uniform(0.1, 1.5)
    g = Geom("capsule" if capsule else "cylinder", (r, h), rng.normal(size=3), rot(seed + 20))
    nl = rng.normal(size=3)
    nl /= np.linalg.norm(nl)
    hmax = (r if capsule else r * np.hypot(nl[0], nl[1])) + h * abs(nl[2])
    t = rng.uniform(-0.9, 0.9) * hmax
    V, c = axial_reference(r, h, nl, t, capsule)
    n, d = world_plane(g, nl, t)
    cl = clip(g, n, d)
    assert cl.volume == pytest.approx(V, rel=1e-10)
    np.testing.assert_allclose(cl.centroid, g.pos + g.mat @ c, atol=1e-10 * (r + h))


@pytest.mark.parametrize("typ", ["cylinder", "capsule"])
def test_cylinder_capsule_near_parallel_planes(typ):
    """Axis almost in the plane (n_z ~ 1e-12) and exactly in it: no blow-up."""
    r, h = 0.3, 0.8
    g = Geom(typ, (r, h), np.zeros(3), np.eye(3))
    for nz in [0.0, 1e-17, 1e-12, -1e-9]:
        nl = np.array([np.sqrt(1 - nz * nz), 0.0, nz])
        for t in [-0.2, 0.0, 0.25]:
            V, c = axial_reference(r, h, nl, t, typ == "capsule")
            cl = clip(g, nl, t)
            assert cl.volume == pytest.approx(V, rel=1e-9)
            np.testing.assert_allclose(cl.centroid, c, atol=1e-9)
            chord = 2 * np.sqrt(r * r - t * t)
            a_ref = 2 * h * chord + (PI * (r * r - t * t) if typ == "capsule" else 0)
            assert cl.area == pytest.approx(a_ref, rel=1e-8)


# --------------------------------------------------------------------------
# meshes


def mesh_geom(mesh, seed):
    return Geom("mesh", (), np.random.default_rng(seed).normal(size=3), rot(seed),
                vertices=np.asarray(mesh.vertices), faces=np.asarray(mesh.faces))


def world_mesh(mesh, g):
    m = mesh.copy()
    T = np.eye(4)
    T[:3, :3] = g.mat
    T[:3, 3] = g.pos
    m.apply_transform(T)
    return m


def test_box_mesh_equals_box_primitive():
    m = trimesh.creation.box(extents=[0.6, 1.0, 0.4])
    gm = mesh_geom(m, 3)
    gb = Geom("box", (0.3, 0.5, 0.2), gm.pos, gm.mat)
    rng = np.random.default_rng(0)
    for _ in range(50):
        n = rng.normal(size=3)
        n /= np.linalg.norm(n)
        d = n @ gm.pos + rng.uniform(-0.6, 0.6)
        a, b = clip(gm, n, d), clip(gb, n, d)
        assert a.volume == pytest.approx(b.volume, rel=1e-12, abs=1e-15)
        np.testing.assert_allclose(a.centroid, b.centroid, atol=1e-12)
        assert a.area == pytest.approx(b.area, rel=1e-12, abs=1e-15)
        assert not a.hull_only


def exact_below(mesh, g, n, d):
    """Volume (m^3) and centroid (m, world) of g's mesh below n.x <= d, in exact
    rational arithmetic: the world vertices R v + p, every face clipped against
    the plane and fanned from a point on the plane (so the cap adds nothing), by
    the divergence theorem.  The exact answer to the question the kernel is asked
    in floating point, with no rounding anywhere."""
    R = [[F(x) for x in row] for row in g.mat]
    p = [F(x) for x in g.pos]
    V = [[sum(R[i][k] * F(v[k]) for k in range(3)) + p[i] for i in range(3)] for v in mesh.vertices]
    nf, df = [F(x) for x in n], F(d)
    o = [x * df / sum(y * y for y in nf) for x in nf]  # on the plane
    vol, mom = F(0), [F(0)] * 3
    for face in mesh.faces:
        poly = []
        for a, b in zip(face, np.roll(face, -1)):  # Sutherland-Hodgman, one plane
            A, B = V[a], V[b]
            sa = sum(x * y for x, y in zip(nf, A)) - df
            sb = sum(x * y for x, y in zip(nf, B)) - df
            if sa <= 0:
                poly.append(A)
            if (sa < 0 < sb) or (sb < 0 < sa):
                t = sa / (sa - sb)
                poly.append([A[k] + t * (B[k] - A[k]) for k in range(3)])
        for b, c in zip(poly[1:-1], poly[2:]):
            u, v, w = ([q[k] - o[k] for k in range(3)] for q in (poly[0], b, c))
            t6 = (u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0])
                  + u[2] * (v[0] * w[1] - v[1] * w[0]))
            vol += t6 / 6
            mom = [mom[k] + t6 / 24 * (o[k] + poly[0][k] + b[k] + c[k]) for k in range(3)]
    return float(vol), np.array([float(m / vol) for m in mom]) if vol else g.pos


def hull_of_seed(seed):
    return trimesh.convex.convex_hull(np.random.default_rng(seed).normal(size=(40, 3)) * [1.0, 0.5, 0.3])


@pytest.mark.parametrize("kind", ["icosphere", "hull0", "hull1", "hull2"])
def test_convex_meshes_against_trimesh_slice(kind):
    seed = {"icosphere": 100, "hull0": 0, "hull1": 1, "hull2": 2}[kind]  # not hash(): salted per process
    if kind == "icosphere":
        m = trimesh.creation.icosphere(subdivisions=2, radius=0.8)
    else:
        m = hull_of_seed(seed)
    rng = np.random.default_rng(seed + 1000)
    g = mesh_geom(m, 5)
    wm = world_mesh(m, g)
    assert full_volume(g) == pytest.approx(m.volume, rel=1e-12)
    for _ in range(10):
        n = rng.normal(size=3)
        n /= np.linalg.norm(n)
        d = rng.uniform(-support(g, -n), support(g, n))
        cl = clip(g, n, d)
        vref, cref = trimesh_below(wm, n, d)
        if vref < 1e-6 * m.volume:  # a sliver: its centroid is ill-conditioned (see below)
            continue
        assert cl.volume == pytest.approx(vref, rel=1e-9)
        np.testing.assert_allclose(cl.centroid, cref, atol=1e-9)
        assert not cl.hull_only


@pytest.mark.parametrize("seed", [0, 1, 368])
def test_mesh_slivers_against_exact_rational_clip(seed):
    """A corner cut off a hull, from 1e-2 to 1e-6 of its depth, against the exact
    rational clip.  The faces are fanned from a vertex of the unclipped face, so a
    sliver's volume is a sum of terms of the hull's own size: the error is a
    rounding of the *hull's* volume and first moment, not of the sliver's (over 300
    such cuts of 60 hulls: at most 1.8e-16 of the hull's volume, 3.5e-17 of its
    moment scale).  Hull 368 is where a 5e-11 m^3 sliver came out 1.3e-6 off in
    relative terms (1.3e-17 of the hull) and failed a trimesh comparison at rel 1e-9
    when that test's seed came from the salted hash()."""
    m = hull_of_seed(seed)
    g = mesh_geom(m, 5)
    scale = m.volume * (np.linalg.norm(g.pos) + np.linalg.norm(m.vertices, axis=1).max())
    rng = np.random.default_rng(seed)
    worst = 0.0
    for depth in (1e-2, 1e-3, 1e-4, 1e-5, 1e-6):
        n = rng.normal(size=3)
        n /= np.linalg.norm(n)
        lo, hi = -support(g, -n), support(g, n)
        d = lo + depth * (hi - lo)
        cl = clip(g, n, d)
        ve, ce = exact_below(m, g, n, d)
        assert 0 < ve < 0.01 * m.volume
        assert abs(cl.volume - ve) <= 1e-15 * m.volume
        np.testing.assert_allclose(cl.volume * cl.centroid, ve * ce, rtol=0, atol=1e-15 * scale)
        if ve > 1e-6 * m.volume:  # well-conditioned: the centroid itself to 1e-9 m
            np.testing.assert_allclose(cl.centroid, ce, rtol=0, atol=1e-9)
        worst = max(worst, abs(cl.volume - ve) / m.volume)
    print(f"hull {seed}: worst volume error {worst:.1e} of the hull's volume")


def test_exact_rational_clip_is_a_reference():
    """The exact helper itself against closed forms: a unit cube's corner
    tetrahedron and its half."""
    m = trimesh.creation.box(extents=[1.0, 1.0, 1.0])
    g = Geom("mesh", (), np.zeros(3), np.eye(3), vertices=np.asarray(m.vertices), faces=np.asarray(m.faces))
    n = np.ones(3) / np.sqrt(3)
    v, c = exact_below(m, g, n, n @ [-0.5, -0.5, 0.5])  # below x+y+z = -0.5: the corner tet of legs 1
    assert v == pytest.approx(1 / 6, rel=1e-15)
    np.testing.assert_allclose(c, [-0.25, -0.25, -0.25], atol=1e-15)
    v, c = exact_below(m, g, np.array([0.0, 0.0, 1.0]), 0.0)
    assert v == 0.5 and np.array_equal(c, [0.0, 0.0, -0.25])


def test_concave_mesh_is_clipped_through_its_hull_and_says_so():
    # an L-shaped prism (concave)
    a = trimesh.creation.box(extents=[2, 1, 1])
    b = trimesh.creation.box(extents=[1, 2, 1])
    b.apply_translation([-0.5, 0.5, 0])
    m = trimesh.boolean.union([a, b], engine="manifold") if trimesh.boolean.engines_available else None
    if m is None:
        pytest.skip("no boolean engine")
    g = mesh_geom(m, 8)
    hull = world_mesh(m.convex_hull, g)
    assert full_volume(g) == pytest.approx(m.convex_hull.volume, rel=1e-12)
    assert full_volume(g) > m.volume
    n = g.mat[:, 2]
    d = n @ g.pos + 0.1
    cl = clip(g, n, d)
    assert cl.hull_only
    vref, cref = trimesh_below(hull, n, d)
    assert cl.volume == pytest.approx(vref, rel=1e-9)
    np.testing.assert_allclose(cl.centroid, cref, atol=1e-9)


# --------------------------------------------------------------------------
# properties over random poses (seeded): >= 10,000 cases


def random_batch(typ, N, rng):
    sizes = rng.uniform(0.05, 1.5, (N, 3))
    pos = rng.normal(size=(N, 3)) * 0.5
    mats = Rotation.random(N, random_state=rng.integers(1 << 31)).as_matrix()
    return sizes, pos, mats


def support_batch(typ, sizes, mats, n):
    ln = np.einsum("nji,j->ni", mats, n)
    a, b, c = sizes.T
    if typ == "sphere":
        return a
    if typ == "ellipsoid":
        return np.sqrt((a * ln[:, 0]) ** 2 + (b * ln[:, 1]) ** 2 + (c * ln[:, 2]) ** 2)
    if typ == "box":
        return a * abs(ln[:, 0]) + b * abs(ln[:, 1]) + c * abs(ln[:, 2])
    if typ == "capsule":
        return a + b * abs(ln[:, 2])
    return a * np.hypot(ln[:, 0], ln[:, 1]) + b * abs(ln[:, 2])


def full_batch(typ, sizes):
    a, b, c = sizes.T
    return {"sphere": 4 / 3 * PI * a**3, "ellipsoid": 4 / 3 * PI * a * b * c, "box": 8 * a * b * c,
            "cylinder": 2 * PI * a * a * b, "capsule": PI * a * a * (2 * b + 4 * a / 3)}[typ]


PRIMS = ["sphere", "ellipsoid", "box", "cylinder", "capsule"]


@pytest.mark.parametrize("typ", PRIMS)
def test_properties_random_poses(typ):
    """0 <= V <= V_full; both sides add up (volume and first moment); V monotone
    and continuous in the offset; dV/dd = waterplane area.  2,200 geoms × 12
    offsets per type."""
    rng = np.random.default_rng(PRIMS.index(typ))
    N = 2200
    sizes, pos, mats = random_batch(typ, N, rng)
    n = rng.normal(size=3)
    n /= np.linalg.norm(n)
    hs = support_batch(typ, sizes, mats, n)
    Vf = full_batch(typ, sizes)
    fr = np.linspace(-1.05, 1.05, 12)
    prev = np.full(N, -1.0)
    for f in fr:
        # move each geom along n so that the plane n·x = 0 sits at f × its support
        p2 = pos.copy()
        p2 -= np.outer(pos @ n + f * hs, n)  # now n·centre = -f*h
        V, C, A = clip_batch(typ, sizes, p2, mats, n, 0.0)
        Vo, Co, Ao = clip_batch(typ, sizes, p2, mats, -n, 0.0)
        assert np.all(V >= 0) and np.all(V <= Vf * (1 + 1e-12))
        np.testing.assert_allclose(V + Vo, Vf, rtol=1e-12, atol=0)
        np.testing.assert_allclose(V[:, None] * C + Vo[:, None] * Co, Vf[:, None] * p2,
                                   atol=1e-12 * (Vf * (1 + np.abs(p2).max(axis=1)))[:, None].max())
        np.testing.assert_allclose(A, Ao, rtol=1e-9, atol=1e-12)
        assert np.all(V >= prev - 1e-13 * Vf)
        prev = V
        # dV/dd = A by central differences (interior offsets only)
        if abs(f) < 0.97:
            dd = 1e-6 * hs
            Vp, _, _ = clip_batch(typ, sizes, p2 - np.outer(dd, n), mats, n, 0.0)
            Vm, _, _ = clip_batch(typ, sizes, p2 + np.outer(dd, n), mats, n, 0.0)
            fd = (Vp - Vm) / (2 * dd)
            scale = Vf / hs
            assert np.all(np.abs(fd - A) <= 2e-6 * scale), np.max(np.abs(fd - A) / scale)


def test_scalar_and_batch_are_bitwise_identical_and_deterministic():
    rng = np.random.default_rng(11)
    for typ in PRIMS:
        sizes, pos, mats = random_batch(typ, 64, rng)
        n = np.array([0.1, -0.2, 1.0])
        n /= np.linalg.norm(n)
        V, C, A = clip_batch(typ, sizes, pos, mats, n, 0.05)
        V2, C2, A2 = clip_batch(typ, sizes, pos, mats, n, 0.05)
        assert np.array_equal(V, V2) and np.array_equal(C, C2) and np.array_equal(A, A2)
        for i in range(0, 64, 7):
            s = sizes[i] if typ != "sphere" else sizes[i][:1]
            cl = clip(Geom(typ, tuple(s[: {"sphere": 1, "cylinder": 2, "capsule": 2}.get(typ, 3)]),
                           pos[i], mats[i]), n, 0.05)
            assert cl.volume == V[i] and np.array_equal(cl.centroid, C[i]) and cl.area == A[i]


def test_batch_with_meshes_and_mixed_types():
    m = trimesh.creation.icosphere(subdivisions=1, radius=0.5)
    hull = hull_of(m.vertices)
    types = ["box", "mesh", "sphere", "mesh", "capsule"]
    sizes = [[0.2, 0.3, 0.4], [0, 0, 0], [0.5, 0, 0], [0, 0, 0], [0.2, 0.5, 0]]
    pos = np.array([[0, 0, 0.1], [1, 0, -0.2], [2, 0, 0.3], [3, 0, 0.0], [4, 0, 0]])
    mats = np.stack([rot(k) for k in range(5)])
    V, C, A = clip_batch(types, sizes, pos, mats, [0, 0, 1], 0.0, mesh_ids=[0, 0, 0, 0, 0],
                         hulls=pack_hulls([hull]))
    for i in range(5):
        g = Geom(types[i], tuple(sizes[i][: {"sphere": 1, "capsule": 2}.get(types[i], 3)]) if types[i] != "mesh" else (),
                 pos[i], mats[i], vertices=m.vertices if types[i] == "mesh" else None)
        cl = clip(g, [0, 0, 1], 0.0)
        assert cl.volume == V[i] and np.array_equal(cl.centroid, C[i])


# --------------------------------------------------------------------------
# waterplane second moments


def test_waterplane_moments_of_box_and_ellipsoid_and_cylinder():
    g = Geom("box", (1.0, 0.5, 0.3), np.zeros(3), np.eye(3))
    w = waterplane(g, [0, 0, 1], 0.1)
    assert w.area == pytest.approx(2.0 * 1.0, rel=1e-14)
    # second moments ∫(x-c)(x-c)ᵀ dA of a 2 × 1 rectangle
    assert w.second_moment[0, 0] == pytest.approx(1.0 * 2.0**3 / 12, rel=1e-13)
    assert w.second_moment[1, 1] == pytest.approx(2.0 * 1.0**3 / 12, rel=1e-13)
    assert w.second_moment[2, 2] == pytest.approx(0.0, abs=1e-15)
    np.testing.assert_allclose(w.centroid, [0, 0, 0.1], atol=1e-15)
    e = Geom("ellipsoid", (1.0, 2.0, 3.0), np.zeros(3), np.eye(3))
    w = waterplane(e, [0, 0, 1], 1.5)  # ellipse semi-axes a, b scaled by sqrt(1 - 1/4)
    s = np.sqrt(0.75)
    assert w.area == pytest.approx(PI * 2 * s * s, rel=1e-14)
    assert w.second_moment[0, 0] == pytest.approx(PI * (1 * s) ** 3 * (2 * s) / 4, rel=1e-13)
    assert w.second_moment[1, 1] == pytest.approx(PI * (1 * s) * (2 * s) ** 3 / 4, rel=1e-13)
    cyl = Geom("cylinder", (0.5, 1.0), np.zeros(3), np.eye(3))
    w = waterplane(cyl, [0, 0, 1], 0.2)
    assert w.area == pytest.approx(PI * 0.25, rel=1e-13)
    assert w.second_moment[0, 0] == pytest.approx(PI * 0.5**4 / 4, rel=1e-8)
    assert w.second_moment[1, 1] == pytest.approx(PI * 0.5**4 / 4, rel=1e-8)
    assert abs(w.second_moment[0, 1]) < 1e-9


@pytest.mark.parametrize("typ", ["cylinder", "capsule"])
@pytest.mark.parametrize("ang", [0.1, 0.8, 1.2])
def test_tilted_barrel_section_is_an_ellipse(typ, ang):
    """Plane through the barrel only: the section is an ellipse with semi-axes r and r/cos(tilt).
    Second moments of cylinders/capsules come from central differences (measured error <= 1.5e-9)."""
    r, h = 0.3, 2.0
    g = Geom(typ, (r, h), np.zeros(3), Rotation.from_euler("x", ang).as_matrix())
    w = waterplane(g, [0, 0, 1], 0.05)
    a, b = r, r / np.cos(ang)
    assert w.area == pytest.approx(PI * a * b, rel=1e-13)
    ref = np.diag([PI * a**3 * b / 4, PI * a * b**3 / 4, 0.0])
    np.testing.assert_allclose(w.second_moment, ref, atol=5e-9 * ref.max())
    # the axis (0, -sin, cos) meets z = 0.05 at y = -0.05 tan(tilt)
    np.testing.assert_allclose(w.centroid, [0, -0.05 * np.tan(ang), 0.05], atol=1e-8)


def test_properties_random_poses_meshes():
    """Hull meshes: sides add up, V monotone, dV/dd = area; 2 hulls × 500 poses × 8 offsets."""
    rng = np.random.default_rng(21)
    hulls = [hull_of(rng.normal(size=(25, 3)) * [0.5, 0.3, 0.2]), hull_of(trimesh.creation.icosphere(1).vertices)]
    N = 1000
    ids = np.repeat([0, 1], N // 2)
    Vf = np.array([hulls[i].volume for i in ids])
    cen = np.array([hulls[i].centre for i in ids])
    mats = Rotation.random(N, random_state=5).as_matrix()
    pos = rng.normal(size=(N, 3)) * 0.1
    packed = pack_hulls(hulls)
    prev = np.full(N, -1.0)
    for z in np.linspace(-1.2, 1.2, 8):
        V, C, A = clip_batch("mesh", np.zeros((N, 3)), pos, mats, [0, 0, 1], z, mesh_ids=ids, hulls=packed)
        Vo, Co, _ = clip_batch("mesh", np.zeros((N, 3)), pos, mats, [0, 0, -1], -z, mesh_ids=ids, hulls=packed)
        np.testing.assert_allclose(V + Vo, Vf, rtol=1e-12)
        full_c = pos + np.einsum("nij,nj->ni", mats, cen)
        np.testing.assert_allclose(V[:, None] * C + Vo[:, None] * Co, Vf[:, None] * full_c, atol=1e-12)
        assert np.all(V >= prev - 1e-14)
        prev = V
        dz = 1e-6
        Vp = clip_batch("mesh", np.zeros((N, 3)), pos, mats, [0, 0, 1], z + dz, mesh_ids=ids, hulls=packed)[0]
        Vm = clip_batch("mesh", np.zeros((N, 3)), pos, mats, [0, 0, 1], z - dz, mesh_ids=ids, hulls=packed)[0]
        inner = (A > 0) & (Vm > 0) & (Vp < Vf)
        np.testing.assert_allclose(((Vp - Vm) / (2 * dz))[inner], A[inner], rtol=1e-5, atol=1e-9)


def test_one_half_space_is_normalised_as_the_array_path():
    """clip, waterplane and clip_batch normalise (n, d) in Python floats; the result is
    bitwise the cell path's numpy normalisation, and bad normals raise."""
    from aurgen.runtime.hydrostatics import _half_space, _unit_planes
    rng = np.random.default_rng(17)
    for k in range(5000):
        n = rng.normal(size=3) * 10.0 ** rng.uniform(-6, 6)
        if k % 3 == 0:
            n[rng.integers(3)] = 0.0
        d = rng.normal() * 10.0 ** rng.uniform(-3, 3)
        a, b = _half_space(n, d), _unit_planes(np.r_[n, d])
        assert a.shape == (1, 4) and np.array_equal(a.view(np.uint64), b.view(np.uint64))
    for n, d in (([0, 0, 0], 0.0), ([0, np.nan, 1], 0.0), ([0, 0, 1], np.inf)):
        with pytest.raises(ValueError, match="finite and non-zero"):
            _half_space(n, d)
    with pytest.raises(ValueError, match="3 entries"):
        _half_space([0, 1], 0.0)
    with pytest.raises(ValueError, match="unknown geom type 'torus'"):
        clip_batch("torus", np.ones((2, 3)), np.zeros((2, 3)), np.tile(np.eye(3), (2, 1, 1)), [0, 0, 1], 0.0)


def test_a_geom_that_is_not_a_shape_at_a_pose_is_refused():
    """Geom refuses what would clip to nonsense without a word: NaN or infinite sizes (a NaN box
    clipped to volume 0), a non-finite pose, a mat that is no rotation (2 I was clipped as if it
    were one), a reflection, non-finite mesh vertices."""
    from aurgen.runtime.hydrostatics import Geom

    z, eye = np.zeros(3), np.eye(3)
    for kwargs, needle in (({"size": (np.nan, 1, 1)}, "finite and positive"),
                           ({"size": (np.inf, 1, 1)}, "finite and positive"),
                           ({"pos": [np.inf, 0, 0]}, "must be finite"),
                           ({"mat": 2 * eye}, "must be a rotation"),
                           ({"mat": np.diag([1.0, 1.0, -1.0])}, "must be a rotation"),
                           ({"mat": np.ones((2, 2))}, "3x3 rotation")):
        args = {"type": "box", "size": (1, 1, 1), "pos": z, "mat": eye, **kwargs}
        with pytest.raises(ValueError, match=needle):
            Geom(**args)
    with pytest.raises(ValueError, match="vertices must be finite"):
        Geom("mesh", (), z, eye, vertices=np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, np.nan]]))
    r = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])  # a rotation: accepted
    assert clip(Geom("box", (1, 1, 1), z, r), n=(0, 0, 1), d=0.0).volume == pytest.approx(4.0)


def test_clip_batch_refuses_what_geom_refuses_naming_the_row():
    """clip_batch checks each row's used size entries (finite, positive; a sphere's padding zeros
    are not used) and the poses' finiteness, naming the first bad row."""
    eye3 = np.tile(np.eye(3), (3, 1, 1))
    sizes = np.ones((3, 3))
    sizes[2, 1] = np.nan
    with pytest.raises(ValueError, match=r"sizes\[2\] = \[1.0, nan, 1.0\]: a box's sizes"):
        clip_batch("box", sizes, np.zeros((3, 3)), eye3, [0, 0, 1], 0.0)
    with pytest.raises(ValueError, match=r"sizes\[1\].*a sphere's"):
        clip_batch("sphere", [[0.5], [-1.0], [0.2]], np.zeros((3, 3)), eye3, [0, 0, 1], 0.0)
    pos = np.zeros((3, 3))
    pos[0, 0] = np.inf
    with pytest.raises(ValueError, match="pos and mats must be finite"):
        clip_batch("box", np.ones((3, 3)), pos, eye3, [0, 0, 1], 0.0)
    v, _, _ = clip_batch(["sphere", "capsule", "box"], [[0.5, 0, 0], [0.2, 0.3, 0], [1, 1, 1]],
                         np.zeros((3, 3)), eye3, [0, 0, 1], 0.0)
    assert v == pytest.approx([0.5 * 4 / 3 * np.pi * 0.125, 0.5 * (np.pi * 0.04 * 0.6 + 4 / 3 * np.pi * 0.008), 4.0])
