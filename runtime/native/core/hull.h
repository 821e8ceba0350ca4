// Convex hulls of mesh geoms as the kernel reads them (HullSet): built here from
// the mesh's vertices (BuildHull, a quickhull), since MuJoCo computes its own hull
// (mjModel mesh_graph) only for meshes some geom collides with, and a displacement
// geom never needs to; or taken from a mesh_graph (AppendHull).  The plugin serves
// mesh displacement geoms without trimesh or scipy.  MuJoCo-free: it takes the
// arrays, not the model.
#ifndef AURGEN_CORE_HULL_H_
#define AURGEN_CORE_HULL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "kernel.h"

namespace aurgen::core {

// Hulls packed as runtime/hydrostatics/geoms.py pack_hulls packs them: verts (V x 3),
// vert_range (M+1), edges (E x 6; three directed edges per triangle,
// counter-clockwise seen from outside), face_start (F+1, global rows of edges),
// face_range (M+1), volume (M, m^3), centre (M x 3, geom frame).
struct HullPack {
  std::vector<double> verts, edges, volume, centre;
  std::vector<int64_t> vert_range{0}, face_start{0}, face_range{0};
  HullSet View() const;  // pointers into this pack (valid while it lives unchanged)
};

// Append the hull of one mesh: vert (nvert x 3, float as mjModel stores it, geom
// frame), graph = mjModel mesh_graph + mesh_graphadr[mesh] (ngraph numbers left in
// the array): numvert, numface, vert_edgeadr[numvert], vert_globalid[numvert],
// edge_localid[numvert + 3 numface], face_globalid[3 numface].  Faces are
// oriented outward here (against the hull's vertex mean); volume and centre by
// SoupIntegrate.  Returns "" or what is wrong (indices out of range, a flat hull).
std::string AppendHull(const float* vert, int64_t nvert, const int* graph, int64_t ngraph,
                       HullPack* pack);

// Append the convex hull of the points vert (nvert x 3, float as mjModel stores
// mesh_vert, geom frame), built by quickhull in double precision: the hull's
// vertices in ascending index order, its triangles outward, coplanar points
// (within 1e-12 of the points' extent) not made vertices.  Deterministic: the
// same points give bitwise the same hull, whatever collides in the model.  Then
// as AppendHull (every point inside every face, volume and centre).  Returns ""
// or what is wrong (fewer than 4 points, all points on one plane or line).
std::string BuildHull(const float* vert, int64_t nvert, HullPack* pack);

}  // namespace aurgen::core

#endif  // AURGEN_CORE_HULL_H_
