// Mesh hulls from MuJoCo's convex hull; see hull.h.
#include "hull.h"

#include <algorithm>
#include <cmath>

#include "clip_poly.h"

namespace aurgen::core {

HullSet HullPack::View() const {
  HullSet hs;
  hs.verts = verts.data();
  hs.vert_range = vert_range.data();
  hs.edges = edges.data();
  hs.face_start = face_start.data();
  hs.face_range = face_range.data();
  hs.volume = volume.data();
  hs.centre = centre.data();
  hs.nmesh = static_cast<int64_t>(volume.size());
  hs.nvert = static_cast<int64_t>(verts.size() / 3);
  hs.nedge = static_cast<int64_t>(edges.size() / 6);
  hs.nface = static_cast<int64_t>(face_start.size()) - 1;
  return hs;
}

std::string AppendHull(const float* vert, int64_t nvert, const int* graph, int64_t ngraph,
                       HullPack* pack) {
  if (ngraph < 2) return "the mesh has no convex hull in the model (mesh_graph)";
  int64_t nv = graph[0], nf = graph[1];
  if (nv < 4 || nf < 4 || 2 + 3 * nv + 6 * nf > ngraph)
    return "its convex hull in the model (mesh_graph) is truncated or has fewer than 4 vertices";
  const int* globalid = graph + 2 + nv;
  const int* faces = graph + 2 + 3 * nv + 3 * nf;
  for (int64_t i = 0; i < nv; ++i)
    if (globalid[i] < 0 || globalid[i] >= nvert) return "a hull vertex index is out of range";
  for (int64_t i = 0; i < 3 * nf; ++i)
    if (faces[i] < 0 || faces[i] >= nvert) return "a hull face index is out of range";
  auto P = [&](int i, int a) { return static_cast<double>(vert[3 * static_cast<int64_t>(i) + a]); };
  double mid[3] = {0, 0, 0};
  for (int64_t i = 0; i < nv; ++i)
    for (int a = 0; a < 3; ++a) mid[a] += P(globalid[i], a);
  for (int a = 0; a < 3; ++a) mid[a] /= static_cast<double>(nv);
  pack->face_start.pop_back();  // the end marker, re-appended after this hull's faces
  size_t f0 = pack->face_start.size();
  for (int64_t i = 0; i < nv; ++i)
    for (int a = 0; a < 3; ++a) pack->verts.push_back(P(globalid[i], a));
  for (int64_t f = 0; f < nf; ++f) {
    int t[3] = {faces[3 * f], faces[3 * f + 1], faces[3 * f + 2]};
    double u[3], v[3], w[3];
    for (int a = 0; a < 3; ++a) {
      u[a] = P(t[1], a) - P(t[0], a);
      v[a] = P(t[2], a) - P(t[0], a);
      w[a] = P(t[0], a) - mid[a];
    }
    double n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
    if (n[0] * w[0] + n[1] * w[1] + n[2] * w[2] < 0) std::swap(t[1], t[2]);
    pack->face_start.push_back(static_cast<int64_t>(pack->edges.size() / 6));
    for (int k = 0; k < 3; ++k)
      for (int s = 0; s < 2; ++s)
        for (int a = 0; a < 3; ++a) pack->edges.push_back(P(t[(k + s) % 3], a));
  }
  pack->face_start.push_back(static_cast<int64_t>(pack->edges.size() / 6));
  // every mesh vertex inside every face plane: else MuJoCo's hull is a reduced one (maxhullvert)
  double scale = 0.0;
  for (int64_t i = 0; i < nvert; ++i)
    for (int a = 0; a < 3; ++a) scale = std::max(scale, std::fabs(P(static_cast<int>(i), a) - mid[a]));
  for (int64_t f = 0; f < nf; ++f) {
    const double* e = &pack->edges[6 * (pack->face_start[f0 + f])];  // the face's first two edges
    const double* e2 = e + 6;
    double u[3] = {e[3] - e[0], e[4] - e[1], e[5] - e[2]}, v[3] = {e2[3] - e[0], e2[4] - e[1], e2[5] - e[2]};
    double n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
    double nn = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (!(nn > 0)) continue;  // a degenerate triangle bounds nothing
    for (int64_t i = 0; i < nvert; ++i) {
      double h = 0.0;
      for (int a = 0; a < 3; ++a) h += n[a] / nn * (P(static_cast<int>(i), a) - e[a]);
      if (h > 1e-9 * scale)
        return "a mesh vertex lies outside its convex hull in the model (a hull reduced by maxhullvert?): "
               "the displacement needs the full hull";
    }
  }
  pack->vert_range.push_back(static_cast<int64_t>(pack->verts.size() / 3));
  pack->face_range.push_back(pack->face_range.back() + nf);
  double acc[kNAcc];
  SoupIntegrate(pack->edges.data(), pack->face_start.data() + f0, static_cast<int>(nf), 0.0, 0.0,
                1.0, INFINITY, acc);
  if (!(acc[0] > 0) || !std::isfinite(acc[0])) return "its convex hull has no volume (a flat mesh)";
  pack->volume.push_back(acc[0]);
  for (int a = 0; a < 3; ++a) pack->centre.push_back(acc[1 + a] / acc[0]);
  return "";
}

}  // namespace aurgen::core
