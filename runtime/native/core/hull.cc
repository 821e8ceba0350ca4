// Mesh hulls: quickhull of a mesh's vertices, or MuJoCo's convex hull; see hull.h.
#include "hull.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <unordered_map>
#include <vector>

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

namespace {

// A hull face of BuildHull: its vertices (counter-clockwise seen from outside),
// unit outward normal n and offset (n.x = off on its plane), and the points
// outside it that no other face holds.
struct QFace {
  int v[3];
  double n[3], off;
  std::vector<int> outside;
  bool alive = true;
};

// The plane through points a, b, c of P (3 per point): unit n along (b - a) x (c - a)
// and its offset; false when the three are on one line (no normal).
bool PlaneOf(const std::vector<double>& P, int a, int b, int c, double n[3], double* off) {
  const double* A = &P[3 * static_cast<size_t>(a)];
  const double* B = &P[3 * static_cast<size_t>(b)];
  const double* C = &P[3 * static_cast<size_t>(c)];
  double u[3] = {B[0] - A[0], B[1] - A[1], B[2] - A[2]}, v[3] = {C[0] - A[0], C[1] - A[1], C[2] - A[2]};
  n[0] = u[1] * v[2] - u[2] * v[1];
  n[1] = u[2] * v[0] - u[0] * v[2];
  n[2] = u[0] * v[1] - u[1] * v[0];
  double nn = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  if (!(nn > 0)) return false;
  for (int i = 0; i < 3; ++i) n[i] /= nn;
  *off = n[0] * A[0] + n[1] * A[1] + n[2] * A[2];
  return true;
}

inline double Dist(const QFace& f, const std::vector<double>& P, int i) {
  const double* x = &P[3 * static_cast<size_t>(i)];
  return f.n[0] * x[0] + f.n[1] * x[1] + f.n[2] * x[2] - f.off;
}

inline uint64_t EdgeKey(int a, int b) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) | static_cast<uint32_t>(b);
}

}  // namespace

std::string BuildHull(const float* vert, int64_t nvert, HullPack* pack) {
  if (nvert < 4) return "the mesh has fewer than 4 vertices: it encloses no volume";
  if (nvert > INT_MAX / 8) return "the mesh has too many vertices for its hull";
  const int n = static_cast<int>(nvert);
  std::vector<double> P(3 * static_cast<size_t>(n));
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int i = 0; i < n; ++i)
    for (int a = 0; a < 3; ++a) {
      double x = static_cast<double>(vert[3 * static_cast<size_t>(i) + a]);
      if (!std::isfinite(x)) return "a mesh vertex is not finite";
      P[3 * static_cast<size_t>(i) + a] = x;
      lo[a] = std::min(lo[a], x);
      hi[a] = std::max(hi[a], x);
    }
  int ax = 0;
  for (int a = 1; a < 3; ++a)
    if (hi[a] - lo[a] > hi[ax] - lo[ax]) ax = a;
  const double extent = hi[ax] - lo[ax];
  if (!(extent > 0)) return "all the mesh's vertices are one point: it encloses no volume";
  const double eps = 1e-12 * extent;
  // the first simplex: the extremes along the widest axis, the point farthest from
  // their line, the point farthest from the three's plane (the lowest index on ties)
  int i0 = 0, i1 = 0;
  for (int i = 1; i < n; ++i) {
    if (P[3 * i + ax] < P[3 * i0 + ax]) i0 = i;
    if (P[3 * i + ax] > P[3 * i1 + ax]) i1 = i;
  }
  int i2 = -1;
  double best = eps;
  {
    const double* A = &P[3 * i0];
    double d[3] = {P[3 * i1] - A[0], P[3 * i1 + 1] - A[1], P[3 * i1 + 2] - A[2]};
    double dn = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    for (int a = 0; a < 3; ++a) d[a] /= dn;
    for (int i = 0; i < n; ++i) {
      double w[3] = {P[3 * i] - A[0], P[3 * i + 1] - A[1], P[3 * i + 2] - A[2]};
      double c[3] = {w[1] * d[2] - w[2] * d[1], w[2] * d[0] - w[0] * d[2], w[0] * d[1] - w[1] * d[0]};
      double r = std::sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
      if (r > best) {
        best = r;
        i2 = i;
      }
    }
  }
  if (i2 < 0) return "all the mesh's vertices lie on one line: it encloses no volume";
  double n0[3], off0;
  if (!PlaneOf(P, i0, i1, i2, n0, &off0)) return "all the mesh's vertices lie on one line: it encloses no volume";
  int i3 = -1;
  best = eps;
  for (int i = 0; i < n; ++i) {
    double h = std::fabs(n0[0] * P[3 * i] + n0[1] * P[3 * i + 1] + n0[2] * P[3 * i + 2] - off0);
    if (h > best) {
      best = h;
      i3 = i;
    }
  }
  if (i3 < 0) return "all the mesh's vertices lie on one plane (a flat mesh): it encloses no volume";
  std::vector<QFace> faces;
  std::unordered_map<uint64_t, int> edge;  // directed edge a -> b of a live face: that face
  edge.reserve(static_cast<size_t>(6 * n + 16));
  bool broken = false;
  auto add_face = [&](int a, int b, int c) {
    QFace f;
    f.v[0] = a;
    f.v[1] = b;
    f.v[2] = c;
    if (!PlaneOf(P, a, b, c, f.n, &f.off)) {  // a sliver the tolerance let through
      broken = true;
      f.n[0] = f.n[1] = f.n[2] = 0.0;
      f.off = 0.0;
    }
    const int id = static_cast<int>(faces.size());
    for (int k = 0; k < 3; ++k)
      if (!edge.emplace(EdgeKey(f.v[k], f.v[(k + 1) % 3]), id).second) broken = true;
    faces.push_back(std::move(f));
    return id;
  };
  {
    const int s[4] = {i0, i1, i2, i3};
    double mid[3] = {0, 0, 0};
    for (int q : s)
      for (int a = 0; a < 3; ++a) mid[a] += 0.25 * P[3 * q + a];
    const int tri[4][3] = {{i0, i1, i2}, {i0, i3, i1}, {i1, i3, i2}, {i2, i3, i0}};
    // all four outward, or all four inward: the orientation of the first decides
    double nt[3], ot;
    PlaneOf(P, i0, i1, i2, nt, &ot);
    const bool flip = nt[0] * mid[0] + nt[1] * mid[1] + nt[2] * mid[2] - ot > 0;
    for (const auto& t : tri) flip ? add_face(t[0], t[2], t[1]) : add_face(t[0], t[1], t[2]);
  }
  if (broken) return "the mesh's hull could not be built (degenerate vertices)";
  std::vector<int> fresh = {0, 1, 2, 3};
  // each point outside some face goes to the face it is farthest outside of (the first on ties)
  auto assign = [&](const std::vector<int>& pts, const std::vector<int>& to) {
    for (int i : pts) {
      int bf = -1;
      double bd = eps;
      for (int f : to) {
        double h = Dist(faces[f], P, i);
        if (h > bd) {
          bd = h;
          bf = f;
        }
      }
      if (bf >= 0) faces[bf].outside.push_back(i);
    }
  };
  {
    std::vector<int> all;
    all.reserve(n);
    for (int i = 0; i < n; ++i)
      if (i != i0 && i != i1 && i != i2 && i != i3) all.push_back(i);
    assign(all, fresh);
  }
  std::vector<int> visible, stack, horizon, orphans;
  std::vector<char> seen;
  for (size_t cur = 0; cur < faces.size(); ++cur) {
    if (!faces[cur].alive || faces[cur].outside.empty()) continue;
    // the farthest point outside this face (the lowest index on ties)
    int p = -1;
    double pd = -INFINITY;
    for (int i : faces[cur].outside) {
      double h = Dist(faces[cur], P, i);
      if (h > pd || (h == pd && i < p)) {
        pd = h;
        p = i;
      }
    }
    // the faces p sees, connected to this one; the horizon: their edges whose other face it doesn't see
    seen.assign(faces.size(), 0);
    visible.clear();
    stack.assign(1, static_cast<int>(cur));
    seen[cur] = 1;
    while (!stack.empty()) {
      int f = stack.back();
      stack.pop_back();
      visible.push_back(f);
      for (int k = 0; k < 3; ++k) {
        auto it = edge.find(EdgeKey(faces[f].v[(k + 1) % 3], faces[f].v[k]));
        if (it == edge.end()) return "the mesh's hull could not be built (an open hull)";
        int g = it->second;
        if (!seen[g] && Dist(faces[g], P, p) > eps) {
          seen[g] = 1;
          stack.push_back(g);
        }
      }
    }
    std::sort(visible.begin(), visible.end());
    horizon.clear();
    orphans.clear();
    for (int f : visible) {
      for (int k = 0; k < 3; ++k) {
        int a = faces[f].v[k], b = faces[f].v[(k + 1) % 3];
        int g = edge.find(EdgeKey(b, a))->second;
        if (!seen[g]) {
          horizon.push_back(a);
          horizon.push_back(b);
        }
      }
      for (int i : faces[f].outside)
        if (i != p) orphans.push_back(i);
      faces[f].outside.clear();
      faces[f].outside.shrink_to_fit();
    }
    for (int f : visible) {
      faces[f].alive = false;
      for (int k = 0; k < 3; ++k) edge.erase(EdgeKey(faces[f].v[k], faces[f].v[(k + 1) % 3]));
    }
    fresh.clear();
    for (size_t h = 0; h < horizon.size(); h += 2) fresh.push_back(add_face(horizon[h], horizon[h + 1], p));
    if (broken) return "the mesh's hull could not be built (degenerate vertices)";
    std::sort(orphans.begin(), orphans.end());
    assign(orphans, fresh);
    // the new faces are appended: the scan reaches them; the faces before cur hold no points
  }
  // the live faces, as a mesh_graph for AppendHull (vertices ascending, faces in creation order)
  std::vector<int> used;
  int64_t nf = 0;
  for (const QFace& f : faces)
    if (f.alive) {
      ++nf;
      for (int k = 0; k < 3; ++k) used.push_back(f.v[k]);
    }
  std::sort(used.begin(), used.end());
  used.erase(std::unique(used.begin(), used.end()), used.end());
  const int64_t nv = static_cast<int64_t>(used.size());
  if (nv - 3 * nf / 2 + nf != 2) return "the mesh's hull could not be built (not a closed surface)";
  std::vector<int> graph(2 + 3 * nv + 6 * nf, 0);
  graph[0] = static_cast<int>(nv);
  graph[1] = static_cast<int>(nf);
  std::copy(used.begin(), used.end(), graph.begin() + 2 + nv);
  int64_t t = 2 + 3 * nv + 3 * nf;
  for (const QFace& f : faces)
    if (f.alive)
      for (int k = 0; k < 3; ++k) graph[t++] = f.v[k];
  return AppendHull(vert, nvert, graph.data(), static_cast<int64_t>(graph.size()), pack);
}

}  // namespace aurgen::core
