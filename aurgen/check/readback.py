"""Read generated SDF, URDF and MJCF back: links, mass properties and displacement.

The audit and the round-trip tests use this to check what a file *says*
against what was composed. Only the subset aurgen writes is understood
(explicit inertials; SDF poses ``relative_to`` a link or frame; MJCF ``pos`` /
``quat``, ``fullinertia`` or ``diaginertia``; no default classes).

Frames: every pose is a 4×4 transform child → parent (aurgen.core.spatial);
``Readback.pose`` composes them into the root link's frame. Marker links (SDF
links whose collisions carry ``gz:buoyancy`` or ``gz:wind``) have a token
inertial that the base link's SDF inertial carries less (aurgen.emit.render,
MARKER_MASS): the mass counts every inertial, as Gazebo does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from lxml import etree

from aurgen.core import numbers, spatial
from aurgen.core.errors import AurgenError

GZ = "{http://gazebosim.org/schema}"


@dataclass
class LinkRecord:
    """A link (body): pose ``T`` in ``parent`` (None: the root), mass, CoM and inertia about it in link axes."""

    name: str
    parent: str | None
    T: np.ndarray
    mass: float = 0.0
    com: np.ndarray = field(default_factory=lambda: np.zeros(3))
    inertia: np.ndarray = field(default_factory=lambda: np.zeros((3, 3)))
    marker: str | None = None  # 'buoyancy' or 'wind' for a marker link
    joint: str | None = None   # the joint type to the parent ('fixed', 'continuous', 'hinge', ...)


@dataclass
class BoxRecord:
    """A marked box: full edge lengths ``size``, pose ``T`` in link ``link``."""

    name: str
    link: str
    size: np.ndarray
    T: np.ndarray


@dataclass
class MeshRecord:
    """A marked mesh displacement geom (MJCF, a hull mesh's convex piece): its asset's vertices
    (m, the geom frame), pose ``T`` in link ``link``."""

    name: str
    link: str
    vertices: np.ndarray
    T: np.ndarray


@dataclass
class Readback:
    """What one generated file says."""

    path: str
    format: str
    root: str
    links: dict
    displacement: list = field(default_factory=list)
    windage: list = field(default_factory=list)
    meshes: list = field(default_factory=list)  # MeshRecord: a hull mesh's pieces (MJCF)

    def pose(self, name: str) -> np.ndarray:
        """Transform of link ``name`` into the root link's frame."""
        T = np.eye(4)
        while name is not None and name != self.root:
            link = self.links[name]
            T = link.T @ T
            name = link.parent
        return T

    def mass_properties(self) -> tuple[float, np.ndarray, np.ndarray]:
        """(mass, CoM, inertia about the CoM) in the root frame: every inertial (marker links' too)."""
        items = []
        for link in self.links.values():
            if link.mass == 0.0:
                continue
            T = self.pose(link.name)
            R = T[:3, :3]
            items.append((link.mass, T[:3, 3] + R @ link.com, spatial.rotate_inertia(link.inertia, R)))
        return spatial.combine(items)

    def boxes_in_root(self, boxes) -> list[tuple[np.ndarray, np.ndarray]]:
        """(full size, 4×4 pose in the root frame) of each box."""
        return [(b.size, self.pose(b.link) @ b.T) for b in boxes]

    def meshes_in_root(self) -> list[np.ndarray]:
        """The mesh pieces' vertices in the root frame."""
        out = []
        for m in self.meshes:
            T = self.pose(m.link) @ m.T
            out.append(m.vertices @ T[:3, :3].T + T[:3, 3])
        return out

    def displaced(self) -> tuple[float, np.ndarray]:
        """Volume (m³) and centroid (root frame) of the displacement boxes and mesh pieces (each its
        convex hull, as MuJoCo and the plugin take it: scipy's qhull and the divergence theorem)."""
        V, first = 0.0, np.zeros(3)
        for size, T in self.boxes_in_root(self.displacement):
            v = float(np.prod(size))
            V += v
            first = first + v * T[:3, 3]
        for pts in self.meshes_in_root():
            v, c = _hull_volume_centroid(pts)
            V += v
            first = first + v * c
        return V, (first / V if V > 0 else first)


def _hull_volume_centroid(pts: np.ndarray) -> tuple[float, np.ndarray]:
    """Volume and centroid of the convex hull of ``pts``: tetrahedra from an interior point to
    each of qhull's facets."""
    from scipy.spatial import ConvexHull

    h = ConvexHull(pts)
    o = pts[h.vertices].mean(axis=0)
    a, b, c = (pts[h.simplices[:, k]] - o for k in range(3))
    vol = np.abs(np.einsum("ij,ij->i", a, np.cross(b, c))) / 6.0
    cent = o + (a + b + c) / 4.0
    V = float(vol.sum())
    return V, (vol[:, None] * cent).sum(axis=0) / V


# ---------------------------------------------------------------- helpers

def _num(word, where="") -> float:
    """One number in the grammar MuJoCo, libsdformat and urdfdom read (aurgen.core.numbers), finite."""
    v = numbers.xml_float(str(word).strip(numbers.XML_SPACE)) if word is not None else None
    if v is None or not np.isfinite(v):
        raise AurgenError(f"{where}: {word!r} is not a finite number the simulators read (ASCII digits, "
                          f"'.', an exponent)")
    return v


def _floats(text, n=None, where="") -> np.ndarray:
    vals = np.array([_num(t, where) for t in numbers.xml_words(text or "")], dtype=float)
    if n is not None and vals.size != n:
        raise AurgenError(f"{where}: expected {n} numbers, found {vals.size}: {text!r}")
    return vals


def _rot_quat(q) -> np.ndarray:
    w, x, y, z = np.asarray(q, dtype=float) / np.linalg.norm(q)
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])


def _T(xyz=(0, 0, 0), R=None) -> np.ndarray:
    T = np.eye(4)
    if R is not None:
        T[:3, :3] = R
    T[:3, 3] = np.asarray(xyz, dtype=float)
    return T


def _parse(path) -> etree._Element:
    """The root of ``path``: no entities, DTDs or network; a DOCTYPE is refused (aurgen writes none,
    and an entity would let the file say what the audit does not read)."""
    from aurgen.check.xmldiff import doctype

    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)
    try:
        with open(path, "rb") as fh:
            root = etree.fromstring(fh.read(), parser)
    except (OSError, etree.XMLSyntaxError, ValueError) as exc:
        raise AurgenError(f"{path}: cannot read as XML: {exc}") from None
    if doctype(root) is not None:
        raise AurgenError(f"{path}: declares a DOCTYPE ({doctype(root)[:60]}): aurgen writes none; "
                          f"rebuild the file")
    for el in root.iter():
        if isinstance(el, etree._Entity):
            raise AurgenError(f"{path}:{el.sourceline}: an entity reference ({el.text}): rebuild the file")
        if el.nsmap.get("gz", GZ[1:-1]) != GZ[1:-1] or any(u == GZ[1:-1] and p != "gz" for p, u in el.nsmap.items()):
            raise AurgenError(f"{path}:{el.sourceline}: binds the gz namespace to another prefix (or 'gz' to "
                              f"another URI): libsdformat reads gz:buoyancy by its written name; rebuild the file")
    return root


# ---------------------------------------------------------------- SDF

def _sdf_pose(el, where) -> tuple[np.ndarray, str | None]:
    p = el.find("pose")
    if p is None:
        return np.eye(4), None
    v = _floats(p.text, 6, f"{where} <pose>")
    return spatial.transform(v[:3], v[3:]), p.get("relative_to")


def read_sdf(path) -> Readback:
    root_el = _parse(path)
    model = root_el.find("model")
    if model is None:
        raise AurgenError(f"{path}: no <model>")
    # every named frame: (T in its relative_to frame, relative_to); None = the model frame
    frames: dict[str, tuple[np.ndarray, str | None]] = {}
    records: dict[str, LinkRecord] = {}
    disp, wind = [], []
    for link in model.findall("link"):
        name = link.get("name")
        T, rel = _sdf_pose(link, f"link {name}")
        frames[name] = (T, rel)
        rec = LinkRecord(name, None, np.eye(4))
        inertial = link.find("inertial")
        if inertial is not None:
            Ti, _ = _sdf_pose(inertial, f"link {name} inertial")
            rec.mass = _num(inertial.findtext("mass", "1.0"), f"{path}: link {name} mass")
            i = inertial.find("inertia")
            I = spatial.inertia_matrix(*(_num(i.findtext(k, "0"), f"{path}: link {name} {k}")
                                         for k in ("ixx", "iyy", "izz", "ixy", "ixz", "iyz"))) \
                if i is not None else np.eye(3)
            rec.com = Ti[:3, 3].copy()
            rec.inertia = spatial.rotate_inertia(I, Ti[:3, :3])
        else:
            rec.mass, rec.inertia = 1.0, np.eye(3)  # the SDF default
        for col in link.findall("collision"):
            mark = "buoyancy" if col.get(GZ + "buoyancy") == "true" else \
                "wind" if col.get(GZ + "wind") == "true" else None
            if mark is None:
                continue
            rec.marker = rec.marker or mark
            size = col.find("geometry/box/size")
            if size is None:
                raise AurgenError(f"{path}: marked collision {col.get('name')} of {name} is not a box")
            Tc, _ = _sdf_pose(col, f"collision {col.get('name')}")
            box = BoxRecord(col.get("name"), name, _floats(size.text, 3), Tc)
            (disp if mark == "buoyancy" else wind).append(box)
        if rec.marker and any(c.get(GZ + "buoyancy") != "true" and c.get(GZ + "wind") != "true"
                              for c in link.findall("collision")):
            rec.marker = None  # a link with real collisions counts in full
        records[name] = rec
    for fr in model.findall("frame"):
        T, rel = _sdf_pose(fr, f"frame {fr.get('name')}")
        frames[fr.get("name")] = (T, rel if rel is not None else fr.get("attached_to"))

    def in_model(name, depth=0) -> np.ndarray:
        if name is None or name == "__model__":
            return np.eye(4)
        if depth > 100 or name not in frames:
            raise AurgenError(f"{path}: cannot resolve frame {name!r}")
        T, rel = frames[name]
        return in_model(rel, depth + 1) @ T

    parents = {}
    for j in model.findall("joint"):
        parents[j.findtext("child")] = (j.findtext("parent"), j.get("type"))
    roots = [n for n in records if n not in parents]
    if not roots:
        raise AurgenError(f"{path}: no root link")
    root = roots[0]
    for name, rec in records.items():
        parent, jtype = parents.get(name, (None, None))
        rec.joint = jtype
        if parent is None or parent == "world":
            rec.parent = None if name == root else root
            rec.T = np.linalg.solve(in_model(root), in_model(name))
        else:
            rec.parent = parent
            rec.T = np.linalg.solve(in_model(parent), in_model(name))
    return Readback(str(path), "sdf", root, records, disp, wind)


# ---------------------------------------------------------------- URDF

def _urdf_origin(el) -> np.ndarray:
    o = el.find("origin")
    if o is None:
        return np.eye(4)
    return spatial.transform(_floats(o.get("xyz", "0 0 0"), 3), _floats(o.get("rpy", "0 0 0"), 3))


def read_urdf(path) -> Readback:
    robot = _parse(path)
    records: dict[str, LinkRecord] = {}
    for link in robot.findall("link"):
        name = link.get("name")
        rec = LinkRecord(name, None, np.eye(4))
        inertial = link.find("inertial")
        if inertial is not None:
            Ti = _urdf_origin(inertial)
            rec.mass = _num(inertial.find("mass").get("value"), f"{path}: link {name} mass")
            i = inertial.find("inertia")
            I = spatial.inertia_matrix(*(_num(i.get(k, "0"), f"{path}: link {name} {k}")
                                         for k in ("ixx", "iyy", "izz", "ixy", "ixz", "iyz")))
            rec.com = Ti[:3, 3].copy()
            rec.inertia = spatial.rotate_inertia(I, Ti[:3, :3])
        records[name] = rec
    children = set()
    for j in robot.findall("joint"):
        child = j.find("child").get("link")
        rec = records[child]
        rec.parent = j.find("parent").get("link")
        rec.T = _urdf_origin(j)
        rec.joint = j.get("type")
        children.add(child)
    roots = [n for n in records if n not in children]
    if len(roots) != 1:
        raise AurgenError(f"{path}: expected one root link, found {roots}")
    return Readback(str(path), "urdf", roots[0], records)


# ---------------------------------------------------------------- MJCF

def _mj_pose(el) -> np.ndarray:
    pos = _floats(el.get("pos", "0 0 0"), 3)
    q = el.get("quat")
    return _T(pos, _rot_quat(_floats(q, 4)) if q else None)


def read_mjcf(path) -> Readback:
    mj = _parse(path)
    world = mj.find("worldbody")
    if world is None:
        raise AurgenError(f"{path}: no <worldbody>")
    records: dict[str, LinkRecord] = {}
    disp, wind, meshes = [], [], []
    vertex_meshes = {}  # a hull mesh's pieces: <mesh name vertex> assets
    for a in mj.findall("asset/mesh"):
        if a.get("vertex") is not None:
            v = np.array([_num(w, f"{path}: mesh {a.get('name')} vertex") for w in a.get("vertex").split()])
            if v.size < 12 or v.size % 3:
                raise AurgenError(f"{path}: mesh {a.get('name')}: vertex holds {v.size} numbers (3 per vertex, >= 4)")
            vertex_meshes[a.get("name")] = v.reshape(-1, 3)

    def walk(body, parent):
        name = body.get("name")
        rec = LinkRecord(name, parent, _mj_pose(body) if parent else np.eye(4))
        j = body.find("joint")
        rec.joint = "free" if body.find("freejoint") is not None else (j.get("type", "hinge") if j is not None
                                                                          else "fixed")
        inertial = body.find("inertial")
        if inertial is not None:
            Ti = _mj_pose(inertial)
            rec.mass = _num(inertial.get("mass"), f"{path}: body {name} mass")
            if inertial.get("fullinertia"):
                f = _floats(inertial.get("fullinertia"), 6)
                I = spatial.inertia_matrix(*f)
            else:
                I = np.diag(_floats(inertial.get("diaginertia"), 3))
            rec.com = Ti[:3, 3].copy()
            rec.inertia = spatial.rotate_inertia(I, Ti[:3, :3])
        for g in body.findall("geom"):
            user = (g.get("user") or "").split()
            if user and user[0] in ("1", "2") and g.get("type") == "box":
                box = BoxRecord(g.get("name"), name, 2.0 * _floats(g.get("size"), 3), _mj_pose(g))
                (disp if user[0] == "1" else wind).append(box)
            elif user and user[0] == "1" and g.get("type") == "mesh":
                asset = vertex_meshes.get(g.get("mesh"))
                if asset is None:
                    raise AurgenError(f"{path}: geom {g.get('name')}: mesh {g.get('mesh')!r} is not a vertex mesh "
                                      "asset of the file")
                meshes.append(MeshRecord(g.get("name"), name, asset, _mj_pose(g)))
        records[name] = rec
        for child in body.findall("body"):
            walk(child, name)

    bodies = world.findall("body")
    if len(bodies) != 1:
        raise AurgenError(f"{path}: expected one root body in <worldbody>, found {len(bodies)}")
    walk(bodies[0], None)
    return Readback(str(path), "mjcf", bodies[0].get("name"), records, disp, wind, meshes)


def read(path) -> Readback:
    """Read a generated file by its suffix: .sdf, .urdf or .xml (MJCF)."""
    suffix = Path(path).suffix.lower()
    reader = {".sdf": read_sdf, ".urdf": read_urdf, ".xml": read_mjcf}.get(suffix)
    if reader is not None:
        try:
            return reader(path)
        except AurgenError as exc:  # every message names the file
            if str(exc).startswith(str(path)):
                raise
            raise AurgenError(f"{path}: {exc}") from None
    raise AurgenError(f"{path}: unknown format (expected .sdf, .urdf or .xml)")
