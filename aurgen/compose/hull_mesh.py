"""A hull declared as a mesh (``hull_displacement: {mesh: ...}``): its convex pieces, and Gazebo's boxes.

The mesh (a watertight .stl/.obj, placed in base_link by its scale, xyz and rpy) is split into
its closed components; a convex component (its convex hull's volume within 1e-9 of its own, or
within what rounding its vertices to float32 can move: :func:`convex_slack`) is one piece, a
concave one is decomposed into convex parts by CoACD (``pip install coacd``; seeded, so a build
repeats). The pieces' summed volume must be within ``max_volume_error`` of the mesh's (a
decomposition over-fills; the error is printed in the specs comment). Components must not overlap
(each displaces on its own: two overlapping would displace their sum, not their union) nor face
inward (a cavity). The kernel clips each piece exactly, so the specs, the equilibrium, the report
and the runtime all displace the pieces.

Gazebo's graded buoyancy floats only boxes and spheres, so the SDF gets boxes fitted to the mesh
(:func:`fit_boxes`): each component cut into ``segments`` stations along x, and each station's part
below the design waterline (the level plane where the mesh displaces the vehicle's mass) replaced by
a box of the station's length centred on its submerged centroid (x, y) with the same submerged
volume and the same waterplane area (width: the area over the length; depth: the volume over the
area), reaching the station's top. The waterplane, not the centroid's depth, is what a box keeps,
because it sets the restoring moments (BM = I/V is most of GM): the centroid's depth is what it gives
up (a few mm for round sections), and that error, with the waterplane's second moments', is printed
(:class:`BoxFit`). A station wholly under water keeps its centroid's depth instead.

Frames: base_link. Units: m, m^3, m^2, m^4.
"""

from __future__ import annotations

import numpy as np

from aurgen.core import spatial
from aurgen.core.errors import ConfigError
from aurgen.core.records import record

CONVEX_TOL = 1e-9  # a component is convex when its hull's volume exceeds its own by at most this fraction,
# or by at most ROUNDING x float32's epsilon x the vertices' magnitude x the hull's area (the volume their
# rounding to float32, as a binary STL and MuJoCo store them, can move: each vertex within sqrt(3)/2 ulp)
ROUNDING = 4.0
EPS32 = float(np.finfo(np.float32).eps)
KEY = "hull_displacement.mesh"


@record
class HullMesh:
    """The resolved mesh hull: convex ``pieces`` (each a tuple of vertex triples, base_link), the
    component each belongs to, the mesh's own volume and centroid (trimesh), the pieces' summed
    volume, how many components CoACD decomposed, and each component's bounds
    ``(lo xyz, hi xyz)``."""

    source: str
    pieces: tuple
    piece_component: tuple
    volume: float
    centroid: tuple
    pieces_volume: float
    decomposed: int
    bounds: tuple

    @property
    def volume_error(self) -> float:
        """The pieces' volume against the mesh's, a fraction (> 0: the pieces over-fill)."""
        return (self.pieces_volume - self.volume) / self.volume


@record
class BoxFit:
    """Gazebo's fitted boxes against the mesh at the design waterline ``z`` (base_link): the
    submerged volume (m^3) and centroid (m) of each, the waterplane area (m^2) and its second
    moments about the centre of flotation, transverse (about x) and longitudinal (about y), m^4."""

    z: float
    mesh_volume: float
    boxes_volume: float
    mesh_cob: tuple
    boxes_cob: tuple
    mesh_area: float
    boxes_area: float
    mesh_it: float
    boxes_it: float
    mesh_il: float
    boxes_il: float

    def rows(self) -> dict:
        """The errors as the specs comment prints them."""
        def rel(a, b):
            return (a - b) / b if b else 0.0

        cob = float(np.linalg.norm(np.subtract(self.boxes_cob, self.mesh_cob)))
        return {"volume": rel(self.boxes_volume, self.mesh_volume), "cob": cob,
                "area": rel(self.boxes_area, self.mesh_area), "it": rel(self.boxes_it, self.mesh_it),
                "il": rel(self.boxes_il, self.mesh_il)}


def _error(path, message: str, hint: str | None = None) -> ConfigError:
    return ConfigError(path, KEY, message, hint)


def _load(h, path):
    import trimesh

    try:
        mesh = trimesh.load(h.mesh, force="mesh", process=True)
    except Exception as exc:  # trimesh raises many kinds on garbage
        raise _error(path, f"{h.mesh}: unreadable mesh ({type(exc).__name__})") from None
    raw = float(np.abs(mesh.vertices).max()) * max(abs(float(x)) for x in h.scale) if len(mesh.vertices) else 0.0
    T = spatial.transform(h.xyz, h.rpy) @ np.diag([*map(float, h.scale), 1.0])
    mesh.apply_transform(T)
    name = h.mesh.rsplit("/", 1)[-1]
    if not mesh.is_watertight:
        raise _error(path, f"{name} is not watertight (it has open edges): it encloses no volume",
                     "export the hull as a closed solid (or close it, e.g. trimesh's fill_holes)")
    if not mesh.is_winding_consistent:
        raise _error(path, f"{name}: its faces are not consistently oriented", "fix the mesh's normals")
    if mesh.volume < 0:
        mesh.invert()  # inside out: the same solid
    if not mesh.volume > 1e-12:
        raise _error(path, f"{name} encloses no volume (a flat or degenerate mesh)")
    # the vertices' magnitude, as read (scaled) and as placed in base_link: what float32 rounds
    return mesh, name, max(raw, float(np.abs(mesh.vertices).max()))


def convex_slack(hull, magnitude: float) -> float:
    """The volume (m^3) by which ``hull`` (a trimesh) may exceed a component's own and the component
    still be convex: CONVEX_TOL of it, or what rounding vertices of ``magnitude`` m to float32 can move
    (ROUNDING x EPS32 x magnitude x its area), whichever is larger."""
    return max(CONVEX_TOL * float(hull.volume), ROUNDING * EPS32 * magnitude * float(hull.area))


def _convex_parts(comp, path, name, magnitude: float) -> tuple[list, bool]:
    """The convex pieces (vertex arrays) of one closed component; True when it was decomposed."""
    hull = comp.convex_hull
    if hull.volume - comp.volume <= convex_slack(hull, magnitude):
        return [np.asarray(hull.vertices, dtype=float)], False
    try:
        import coacd
    except ImportError:
        raise _error(path, f"{name} is concave (a component's convex hull is {hull.volume / comp.volume - 1:.2%} "
                     "larger than it): it must be decomposed into convex pieces",
                     "pip install coacd (aurgen's mesh extra: pip install '.[mesh]'), or give the hull as "
                     "closed convex bodies in one mesh") from None
    coacd.set_log_level("error")
    parts = coacd.run_coacd(coacd.Mesh(np.asarray(comp.vertices, float), np.asarray(comp.faces, np.int64)),
                            threshold=0.01, seed=0)
    import trimesh

    return [np.asarray(trimesh.Trimesh(v, f).convex_hull.vertices, dtype=float) for v, f in parts], True


def load_hull(h, path) -> HullMesh:
    """The mesh hull of ``h`` (a MeshHullDisplacement; ``path`` the config, for errors)."""
    import trimesh

    mesh, name, magnitude = _load(h, path)
    comps = mesh.split(only_watertight=True)
    if not len(comps):
        raise _error(path, f"{name} has no closed component")
    comps = sorted(comps, key=lambda c: tuple(np.round(c.center_mass, 12)))
    for comp in comps:
        if not comp.volume > 0:
            raise _error(path, f"{name}: a closed body in it faces inward (centred at {_at(comp)} m in base_link; its "
                         "faces' normals point into it): a cavity's shell, or a body exported inside out",
                         "remove a cavity's shell (a sealed hull displaces all its outer surface encloses), or turn "
                         "the body's faces outward")
    pieces, owner, decomposed, bounds, split = [], [], 0, [], []
    for i, comp in enumerate(comps):
        parts, dec = _convex_parts(comp, path, name, magnitude)
        decomposed += dec
        split.append(dec)
        for v in parts:
            pieces.append(tuple(map(tuple, v)))
            owner.append(i)
        bounds.append((tuple(map(float, comp.bounds[0])), tuple(map(float, comp.bounds[1]))))
    _refuse_overlaps(path, name, comps, pieces, owner, split, magnitude, h.max_volume_error)
    pv = float(sum(trimesh.Trimesh(np.asarray(p)).convex_hull.volume for p in pieces))
    out = HullMesh(source=name, pieces=tuple(pieces), piece_component=tuple(owner), volume=float(mesh.volume),
                   centroid=tuple(map(float, mesh.center_mass)), pieces_volume=pv, decomposed=decomposed,
                   bounds=tuple(bounds))
    if abs(out.volume_error) > h.max_volume_error:
        raise _error(path, f"{name}: its convex pieces hold {out.volume_error:+.3%} of its volume, beyond "
                     f"max_volume_error {h.max_volume_error:g}", "give the hull as closed convex bodies, or raise "
                     "hull_displacement.max_volume_error (at most 0.05)")
    return out


def _at(comp) -> str:
    return "(" + ", ".join(f"{float(x):.4g}" for x in comp.center_mass) + ")"


def _refuse_overlaps(path, name, comps, pieces, owner, split, magnitude: float, max_error: float) -> None:
    """Refuse two closed bodies whose solids overlap: each displaces on its own (the pieces are clipped
    one by one), so the hull would displace their sum, not their union. The overlap of two bodies is
    the summed intersection of their convex pieces (:func:`convex_overlap`); beyond float32 rounding
    (:func:`convex_slack` of the smaller) it is refused, and beyond ``max_error`` of the smaller where
    CoACD decomposed one (its pieces over-fill that much)."""
    import trimesh

    if len(comps) < 2:
        return
    hulls = [trimesh.Trimesh(np.asarray(p)).convex_hull for p in pieces]
    faces = [np.column_stack([t.face_normals, np.einsum("ij,ij->i", t.face_normals, t.triangles[:, 0])])
             for t in hulls]
    box = [t.bounds for t in hulls]

    def apart(b1, b2) -> bool:
        return bool(np.any(b1[1] < b2[0]) or np.any(b2[1] < b1[0]))

    for a in range(len(comps)):
        for b in range(a + 1, len(comps)):
            if apart(comps[a].bounds, comps[b].bounds):
                continue
            vol = 0.0
            for p in (k for k, o in enumerate(owner) if o == a):
                for q in (k for k, o in enumerate(owner) if o == b):
                    if not apart(box[p], box[q]):
                        vol += convex_overlap(faces[p], faces[q], magnitude)
            small = min(comps[a], comps[b], key=lambda c: c.volume)
            tol = convex_slack(small.convex_hull, magnitude)
            if split[a] or split[b]:
                tol = max(tol, max_error * float(small.volume))
            if vol > tol:
                inside = " (one inside the other)" if vol >= (1.0 - 1e-6) * small.volume else ""
                raise _error(path, f"{name}: two of its closed bodies overlap{inside}, by {vol:.4g} m^3 "
                             f"({vol / small.volume:.2%} of the smaller; centred at {_at(comps[a])} and "
                             f"{_at(comps[b])} m in base_link): each body displaces on its own, so the hull would "
                             "displace their sum, the overlap twice, not their union",
                             "join them into one closed body (a boolean union, in CAD or with trimesh.boolean.union), "
                             "or move them apart")


def convex_overlap(p, q, magnitude: float) -> float:
    """The volume (m^3) of the intersection of two convex polyhedra, each given by its faces' rows
    ``(n, d)``: the half-spaces n.x <= d, n unit. Qhull's half-space intersection about the deepest
    point of both (the Chebyshev centre, a linear program); 0 when no ball deeper than float32's
    rounding of ``magnitude`` fits in both (they touch, or are apart)."""
    from scipy.optimize import linprog
    from scipy.spatial import ConvexHull, HalfspaceIntersection

    h = np.vstack([p, q])
    lp = linprog(np.array([0.0, 0.0, 0.0, -1.0]), A_ub=np.column_stack([h[:, :3], np.ones(len(h))]), b_ub=h[:, 3],
                 bounds=[(None, None)] * 3 + [(0.0, None)], method="highs")
    if not lp.success or not lp.x[3] > EPS32 * max(magnitude, 1e-300):
        return 0.0
    cut = HalfspaceIntersection(np.column_stack([h[:, :3], -h[:, 3]]), lp.x[:3])
    return float(ConvexHull(cut.intersections).volume)


def kernel_geoms(pieces) -> list:
    """The pieces as the hydrostatics kernel's mesh geoms (base_link, identity pose)."""
    from aurgen.runtime import hydrostatics as hs

    out = []
    for p in pieces:
        v = np.asarray(p, dtype=float)
        half = np.maximum((v.max(axis=0) - v.min(axis=0)) / 2, 1e-9)
        out.append(hs.Geom("mesh", half, np.zeros(3), np.eye(3), vertices=v))
    return out


def _below(geoms, z: float, extra=()) -> tuple[float, np.ndarray]:
    """Volume and centroid of the geoms below the level plane z (and inside ``extra`` planes)."""
    from aurgen.runtime import hydrostatics as hs

    planes = np.array([[0.0, 0.0, 1.0, z], *extra], dtype=float)
    V, first = 0.0, np.zeros(3)
    for g in geoms:
        c = hs.clip_cell(g, planes)
        V += c.volume
        first += c.volume * np.asarray(c.centroid, float)
    return V, (first / V if V > 0 else np.zeros(3))


def design_waterline(hm: HullMesh, mass: float, rho: float) -> float:
    """The level plane z (base_link) below which the pieces displace ``mass`` kg of fluid ``rho``
    (bisection to 1e-13 m; the whole hull's top when it cannot float)."""
    geoms = kernel_geoms(hm.pieces)
    lo = min(b[0][2] for b in hm.bounds)
    hi = max(b[1][2] for b in hm.bounds)
    want = mass / rho
    if _below(geoms, hi)[0] <= want:
        return hi
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if _below(geoms, mid)[0] < want:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-13:
            break
    return 0.5 * (lo + hi)


def _waterplane(geoms, z: float) -> tuple[float, np.ndarray, np.ndarray]:
    """Area, first moment and second moments about the origin (∫x x^T dA) of the geoms' section by
    the level plane z (the kernel's exact sections)."""
    from aurgen.runtime import hydrostatics as hs

    A, first, second = 0.0, np.zeros(3), np.zeros((3, 3))
    for g in geoms:
        w = hs.waterplane(g, (0.0, 0.0, 1.0), z)
        if w.area > 0:
            c = np.asarray(w.centroid, float)
            A += w.area
            first += w.area * c
            second += np.asarray(w.second_moment, float) + w.area * np.outer(c, c)
    return A, first, second


def _flotation_moments(A, first, second) -> tuple[float, float]:
    """(I_T about x, I_L about y) of a waterplane about its centre of flotation, m^4."""
    if not A > 0:
        return 0.0, 0.0
    c = first / A
    J = second - A * np.outer(c, c)
    return float(J[1, 1]), float(J[0, 0])


def fit_boxes(hm: HullMesh, mass: float, rho: float, segments: int):
    """Gazebo's boxes (aurgen.compose.model.Geom, base_link, unrotated) and their BoxFit."""
    from aurgen.compose.model import Geom
    from aurgen.config.shapes import Shape

    geoms = kernel_geoms(hm.pieces)
    z = design_waterline(hm, mass, rho)
    boxes = []
    area = it = il = 0.0
    bfirst, bsecond = np.zeros(3), np.zeros((3, 3))
    vb, cb = 0.0, np.zeros(3)
    for ci, (lo, hi) in enumerate(hm.bounds):
        mine = [g for g, o in zip(geoms, hm.piece_component) if o == ci]
        L = (hi[0] - lo[0]) / segments
        for i in range(segments):
            a, b = lo[0] + L * i, lo[0] + L * (i + 1)
            slab = ([-1.0, 0.0, 0.0, -a], [1.0, 0.0, 0.0, b])
            V, c = _below(mine, z, extra=slab)
            if not V > 1e-12 * hm.volume:
                continue  # the station is dry at the design waterline
            # the station's waterplane area: dV/dz of the exact clip (central difference)
            h = 1e-6 * max(hi[2] - lo[2], 1e-9)
            Aw = (_below(mine, z + h, extra=slab)[0] - _below(mine, z - h, extra=slab)[0]) / (2 * h)
            if Aw > 1e-9 * V / L:  # keep its waterplane: width Aw / L, the depth that holds V
                w = Aw / L
                t = V / Aw
            else:  # wholly submerged there: keep the centroid's depth instead
                t = 2.0 * (z - c[2])
                w = V / (L * t)
            top = max(hi[2], z)
            bottom = z - t
            boxes.append(Geom(f"hull_box_{ci}_{i}", Shape("box", (L, w, top - bottom)),
                              (float(c[0]), float(c[1]), 0.5 * (top + bottom)), (0.0, 0.0, 0.0)))
            vb += V
            cb += V * np.array([c[0], c[1], z - t / 2])
            area += L * w
            bfirst += L * w * np.array([c[0], c[1], z])
            p = np.array([c[0], c[1], z])
            bsecond += L * w * np.outer(p, p) + np.diag([L ** 3 * w / 12, L * w ** 3 / 12, 0.0])
    A, first, second = _waterplane(geoms, z)
    vm, cm = _below(geoms, z)
    mit, mil = _flotation_moments(A, first, second)
    bit, bil = _flotation_moments(area, bfirst, bsecond)
    fit = BoxFit(z=float(z), mesh_volume=float(vm), boxes_volume=float(vb), mesh_cob=tuple(map(float, cm)),
                 boxes_cob=tuple(map(float, cb / vb)) if vb > 0 else (0.0, 0.0, 0.0), mesh_area=float(A),
                 boxes_area=float(area), mesh_it=mit, boxes_it=bit, mesh_il=mil, boxes_il=bil)
    return tuple(boxes), fit


def windage_boxes(hm: HullMesh) -> tuple:
    """One box per hull component, its bounding box (base_link), for wind on the part above water."""
    from aurgen.compose.model import Geom
    from aurgen.config.shapes import Shape

    out = []
    for ci, (lo, hi) in enumerate(hm.bounds):
        size = tuple(float(h - l) for h, l in zip(hi, lo))
        centre = tuple(float(0.5 * (h + l)) for h, l in zip(hi, lo))
        out.append(Geom(f"windage_{ci}", Shape("box", size), centre, (0.0, 0.0, 0.0)))
    return tuple(out)
