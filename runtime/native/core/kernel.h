// The hydrostatics kernel: the part of a geom inside a convex set of half-spaces.
//
// One core serves every caller (the Python bindings, the MuJoCo plugin): given a
// geom (MuJoCo mjtGeom type code, size, pose) and P world half-spaces
// n.x <= d (unit n), ClipGeom writes one output row
//
//   [0] V (m^3)   [1:4] centroid, world (m)   [4] section area A (m^2) of the one
//   plane that cuts the geom (0 when none does, nan when two or more do);
//   with want_wp and a row of >= kOutW: [5:8] section centroid, world, and
//   [8:14] its second moments of area about that centroid, world axes
//   (xx, yy, zz, xy, xz, yz; m^4).
//
// Tiers per geom and plane: support test (wholly inside: plane ignored; wholly
// outside: V = 0); one cutting plane: closed forms / exact quadrature for smooth
// shapes, the box tier (clip_box.h) for boxes, polyhedral clipping for hulls;
// several cutting planes:
// polyhedra clip in sequence (exact); an ellipsoid or sphere cut by exactly two
// planes is exact (Ball2); other smooth cases use a volume-matched polyhedral
// model (kNLon longitudes x kNLat latitude bands) whose error the tests measure.
// Deterministic: the same inputs give bitwise the same outputs.  No allocation:
// the caller owns a Scratch sized by Scratch::Reserve.
#ifndef AURGEN_CORE_KERNEL_H_
#define AURGEN_CORE_KERNEL_H_

#include <cstdint>
#include <vector>

#include "clip_poly.h"
#include "lines.h"

namespace aurgen::core {

// MuJoCo mjtGeom codes, so that m->geom_type can be passed straight in.
enum GeomType : int {
  kSphere = 2,
  kCapsule = 3,
  kEllipsoid = 4,
  kCylinder = 5,
  kBox = 6,
  kMesh = 7,
};
inline bool IsKernelType(int64_t t) { return t >= kSphere && t <= kMesh; }

inline constexpr int kOutW = 14;      // width of a full output row
inline constexpr int kNLon = 64;      // longitudes of the revolution model
inline constexpr int kNLat = 32;      // latitude bands of a sphere (even)
inline constexpr double kFdEps = 1e-5;  // FD step, cylinder/capsule waterplane moments

// Packed convex hulls (geom frame), read-only views; see geoms.pack_hulls.
//   verts (nvert x 3), vert_range (nmesh+1), edges (nedge x 6),
//   face_start (nface+1, absolute rows of edges), face_range (nmesh+1, rows of
//   face_start), volume (nmesh, m^3), centre (nmesh x 3, m).
struct HullSet {
  const double* verts = nullptr;
  const int64_t* vert_range = nullptr;
  const double* edges = nullptr;
  const int64_t* face_start = nullptr;
  const int64_t* face_range = nullptr;
  const double* volume = nullptr;
  const double* centre = nullptr;
  int64_t nmesh = 0, nvert = 0, nedge = 0, nface = 0;
};

// Scratch for ClipGeom; Reserve once (at init), then clip without allocating.
struct Scratch {
  LineVec<double> E1, E2, cap;    // (e_cap x 6), (e_cap x 6), (f_cap x 6)
  LineVec<int64_t> fs1, fs2;      // (f_cap + 1)
  LineVec<double> act;            // (p_cap x 4) the cutting planes, geom frame
  LineVec<double> acc, res, tmp;  // kNAcc, kNAcc, 8
  int64_t e_cap = 0, f_cap = 0;
  int p_cap = 0;
  // Reference switch: clip a box cut by one plane with the generic edge soup
  // (BoxSoup + SoupIntegrate) instead of the box tier; for the tier's tests.
  bool box_generic = false;
  // Grow to hold soups of e edges / f faces and P planes (never shrinks).
  void Reserve(int64_t e, int64_t f, int P);
};

// Edges and faces ClipGeom needs in Scratch for this geom against P planes
// (0, 0 when it needs no soup).  mesh_id must be valid for a mesh.
void ScratchNeed(int type, int64_t mesh_id, const HullSet& hulls, int P, int64_t* e,
                 int64_t* f);

// Support values (max, min) of n.x over the geom, geom frame (n need not be
// unit).  For a mesh, the hull's vertices [v0, v1).
void SupportLocal(int type, const double size[3], double nx, double ny, double nz,
                  const double* hv, int64_t v0, int64_t v1, double* hi, double* lo);

// Full volume (m^3) and its centre (geom frame) of a geom: out[0] V, out[1:4] centre.
void FullLocal(int type, const double size[3], const HullSet& hulls, int64_t mesh_id,
               double out[4]);

// Clip one geom by the convex set planes (P x 4 rows nx, ny, nz, d; world, unit
// n) into `row` (out_w >= 5 entries).  pos (3) world, mat (9) row-major
// geom -> world.  Returns 0, or -1 if the scratch is too small (row then holds
// nan).
int ClipGeom(int type, const double size[3], const double pos[3], const double mat[9],
             int64_t mesh_id, const HullSet& hulls, const double* planes, int P,
             double* row, int out_w, bool want_wp, Scratch& s);

// Clip the N geoms of a batch (types (N), sizes (N x 3), pos (N x 3), mats
// (N x 9), mesh_ids (N)) by the same planes into out (N x out_w): row i is
// ClipGeom's row for geom i, bitwise.  With smooth_rows, spheres and
// ellipsoids cut by at most one plane without waterplane moments (P = 1,
// want_wp false or out_w < kOutW) take the block path of smooth_rows.h; the
// other rows, and all of them without smooth_rows (the reference), go through
// ClipGeom one by one.  Returns -1, or the first row the scratch was too small
// for (its row then holds nan, and other rows may not be written).
int64_t ClipBatch(const int64_t* types, const double* sizes, const double* pos,
                  const double* mats, const int64_t* mesh_ids, const HullSet& hulls,
                  const double* planes, int P, double* out, int out_w, bool want_wp, int64_t N,
                  Scratch& s, bool smooth_rows = true);

}  // namespace aurgen::core

#endif  // AURGEN_CORE_KERNEL_H_
