"""Geoms as data, type codes, and convex hulls packed for the compiled core.

Conventions (MuJoCo's): ``size`` is the MuJoCo geom size — sphere ``(r,)``,
ellipsoid semi-axes ``(a, b, c)``, box half-sizes ``(a, b, c)``, cylinder and
capsule ``(r, half_length)`` along local z; metres.  A pose is ``pos`` (3,) and
``mat`` (3, 3), the rotation mapping geom-frame vectors to world.  Mesh geoms
carry their vertices in the geom frame and are used through their convex hull.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from aurgen.core.records import record

from aurgen.runtime.hydrostatics.kernel import N_ACC, soup_integrate

GEOM_TYPES = ("sphere", "ellipsoid", "box", "cylinder", "capsule", "mesh")
#: MuJoCo mjtGeom codes, so that ``m.geom_type`` can be passed straight through.
TYPE_CODE = {"sphere": 2, "capsule": 3, "ellipsoid": 4, "cylinder": 5, "box": 6, "mesh": 7}
CODE_TYPE = {v: k for k, v in TYPE_CODE.items()}
_NSIZE = {"sphere": 1, "ellipsoid": 3, "box": 3, "cylinder": 2, "capsule": 2, "mesh": 0}
#: the same by mjtGeom code (a mesh's hull carries its size)
NSIZE_CODE = np.zeros(max(CODE_TYPE) + 1, dtype=np.int64)
for _name, _k in _NSIZE.items():
    NSIZE_CODE[TYPE_CODE[_name]] = _k


def check_sizes_and_poses(codes, sizes, pos, mats) -> None:
    """ValueError unless each row's used size entries (``NSIZE_CODE``) are finite and positive
    and the poses finite, naming the first bad row; (N,) codes, (N, >=3) sizes, (N, 3) pos,
    (N, 3, 3) mats. Rotations are not checked here (:class:`Geom` checks its own)."""
    used = np.arange(3) < NSIZE_CODE[codes][:, None]
    bad = used & ~(np.isfinite(sizes[:, :3]) & (sizes[:, :3] > 0))
    if bad.any():
        i = int(np.nonzero(bad.any(axis=1))[0][0])
        raise ValueError(f"sizes[{i}] = {sizes[i].tolist()}: a {CODE_TYPE[int(codes[i])]}'s sizes must be "
                         f"finite and positive")
    if not (np.isfinite(pos).all() and np.isfinite(mats).all()):
        raise ValueError("pos and mats must be finite")


@record(eq=False)
class Geom:
    """One displacing geom.

    type: one of GEOM_TYPES.  size: MuJoCo size (m), finite and positive.  pos (3,) and
    mat (3, 3): pose, geom frame -> world (or body frame, for :func:`equilibrium`); finite,
    and mat a rotation (orthonormal to 1e-6, det +1), else ValueError.
    vertices: (V, 3) mesh vertices in the geom frame (mesh only; the convex hull
    is taken internally).  faces: optional (F, 3) mesh triangles, used only to
    tell whether the mesh is concave (its own volume below its hull's).
    """

    type: str
    size: tuple
    pos: np.ndarray
    mat: np.ndarray
    vertices: np.ndarray | None = None
    faces: np.ndarray | None = None

    def __post_init__(self):
        if self.type not in TYPE_CODE:
            raise ValueError(f"geom type {self.type!r}: expected one of {GEOM_TYPES}")
        size = tuple(float(s) for s in np.atleast_1d(self.size))
        if len(size) < _NSIZE[self.type]:
            raise ValueError(f"{self.type} needs {_NSIZE[self.type]} size values, got {size}")
        if self.type == "mesh" and self.vertices is None:
            raise ValueError("mesh geom needs vertices")
        pos = np.asarray(self.pos, dtype=np.float64)
        mat = np.asarray(self.mat, dtype=np.float64)
        if pos.size != 3 or mat.size != 9:
            raise ValueError(f"pos is 3 numbers and mat a 3x3 rotation, got shapes {pos.shape} and {mat.shape}")
        pos, mat = pos.reshape(3), mat.reshape(3, 3)
        size3 = np.zeros(3)
        size3[: min(3, len(size))] = size[:3]
        check_sizes_and_poses(np.array([TYPE_CODE[self.type]]), size3[None], pos[None], mat[None])
        if not np.allclose(mat.T @ mat, np.eye(3), rtol=0.0, atol=1e-6) or np.linalg.det(mat) < 0:
            raise ValueError(f"mat must be a rotation (orthonormal, det +1; MuJoCo's xmat), got {mat.tolist()}")
        object.__setattr__(self, "size", size)
        object.__setattr__(self, "pos", pos)
        object.__setattr__(self, "mat", mat)
        if self.vertices is not None:
            verts = np.asarray(self.vertices, dtype=np.float64).reshape(-1, 3)
            if not np.all(np.isfinite(verts)):
                raise ValueError("mesh vertices must be finite")
            object.__setattr__(self, "vertices", verts)

    @property
    def code(self) -> int:
        return TYPE_CODE[self.type]

    def size3(self) -> np.ndarray:
        s = np.zeros(3)
        n = min(3, len(self.size))
        s[:n] = self.size[:n]
        return s


@record
class Hull:
    """A convex hull as an outward-oriented triangle soup (geom frame)."""

    vertices: np.ndarray      # (V, 3) hull vertices
    edges: np.ndarray         # (3F, 6) directed edges, grouped by face
    face_start: np.ndarray    # (F+1,) int64
    volume: float             # m^3
    centre: np.ndarray        # (3,) centroid
    concave: bool             # True when the source mesh was not convex


def _convex_hull(v):
    try:
        from scipy.spatial import ConvexHull
    except ImportError as e:  # pragma: no cover
        raise ImportError("mesh geoms need scipy (scipy.spatial.ConvexHull) for their hull") from e
    return ConvexHull(v)


@lru_cache(maxsize=256)
def _hull_cached(vbytes: bytes, fbytes: bytes | None) -> Hull:
    v = np.frombuffer(vbytes, dtype=np.float64).reshape(-1, 3)
    ch = _convex_hull(v)
    tri = ch.simplices.copy()
    eq = ch.equations
    a, b, c = v[tri[:, 0]], v[tri[:, 1]], v[tri[:, 2]]
    nrm = np.cross(b - a, c - a)
    flip = np.einsum("ij,ij->i", nrm, eq[:, :3]) < 0
    tri[flip] = tri[flip][:, [0, 2, 1]]
    F = len(tri)
    edges = np.empty((3 * F, 6))
    for k in range(3):
        edges[k::3, :3] = v[tri[:, k]]
        edges[k::3, 3:] = v[tri[:, (k + 1) % 3]]
    fs = np.arange(0, 3 * F + 1, 3, dtype=np.int64)
    acc = np.zeros(N_ACC)
    soup_integrate(edges, fs, F, 0.0, 0.0, 1.0, np.inf, acc)
    vol = acc[0]
    centre = acc[1:4] / vol
    scale = np.ptp(v, axis=0).max()
    # concave: a vertex strictly inside the hull, or a closed mesh smaller than it
    dist = (eq[:, :3] @ v.T + eq[:, 3:4]).max(axis=0)
    concave = bool(np.any(dist < -1e-9 * scale))
    if fbytes is not None and not concave:
        f = np.frombuffer(fbytes, dtype=np.int64).reshape(-1, 3)
        p, q, r = v[f[:, 0]], v[f[:, 1]], v[f[:, 2]]
        mvol = abs(np.einsum("ij,ij->i", p, np.cross(q, r)).sum() / 6.0)
        concave = bool(mvol < vol * (1 - 1e-9))
    return Hull(v[ch.vertices].copy(), edges, fs, float(vol), centre, concave)


def hull_of(vertices, faces=None) -> Hull:
    """Convex hull of mesh vertices (geom frame), cached by content."""
    v = np.ascontiguousarray(vertices, dtype=np.float64).reshape(-1, 3)
    fb = None if faces is None else np.ascontiguousarray(faces, dtype=np.int64).tobytes()
    return _hull_cached(v.tobytes(), fb)


def pack_hulls(hulls) -> tuple:
    """Pack Hulls for :func:`aurgen.runtime.hydrostatics.kernel.clip_into`.

    Returns the tuple (verts (V,3), vert_range (M+1,), edges (E,6),
    face_start (F+1,) global, face_range (M+1,), volume (M,), centre (M,3)).
    """
    hulls = list(hulls)
    if not hulls:
        return EMPTY_HULLS
    verts = np.concatenate([h.vertices for h in hulls])
    vr = np.zeros(len(hulls) + 1, dtype=np.int64)
    vr[1:] = np.cumsum([len(h.vertices) for h in hulls])
    edges = np.concatenate([h.edges for h in hulls])
    fss = []
    off = 0
    for h in hulls:
        fss.append(h.face_start[:-1] + off)
        off += len(h.edges)
    fs = np.concatenate(fss + [np.array([off], dtype=np.int64)]).astype(np.int64)
    fr = np.zeros(len(hulls) + 1, dtype=np.int64)
    fr[1:] = np.cumsum([len(h.face_start) - 1 for h in hulls])
    vol = np.array([h.volume for h in hulls])
    cen = np.array([h.centre for h in hulls]).reshape(-1, 3)
    return (verts, vr, edges, fs, fr, vol, cen)


EMPTY_HULLS = (np.zeros((0, 3)), np.zeros(1, dtype=np.int64), np.zeros((0, 6)),
               np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64),
               np.zeros(0), np.zeros((0, 3)))
