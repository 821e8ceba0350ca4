// The drag's exposed faces (drag_faces.h).
#include "drag_faces.h"

#include <algorithm>
#include <cmath>

#include "kernel.h"

namespace aurgen::core {
namespace {

// The half-sizes of geom g's drag box (a box: its sizes; a mesh: its bounding half-sizes) and
// the box's centre in the geom frame (a mesh: its hull's centroid).
bool DragBox(const Geom& g, const double** half, double c[3]) {
  if (g.type != kBox && g.type != kMesh) return false;
  *half = g.size;
  for (int a = 0; a < 3; ++a) c[a] = g.type == kMesh ? g.centre[a] : 0.0;
  return true;
}

// The point q (geom frame of g) lies in g (a mesh: in its drag box).
bool Inside(const Geom& g, const double q[3]) {
  const double* s = g.size;
  switch (g.type) {
    case kSphere:
      return q[0] * q[0] + q[1] * q[1] + q[2] * q[2] <= s[0] * s[0];
    case kEllipsoid: {
      const double x = q[0] / s[0], y = q[1] / s[1], z = q[2] / s[2];
      return x * x + y * y + z * z <= 1.0;
    }
    case kCylinder:
      return q[0] * q[0] + q[1] * q[1] <= s[0] * s[0] && std::fabs(q[2]) <= s[1];
    case kCapsule: {
      const double z = std::max(-s[1], std::min(s[1], q[2]));
      return q[0] * q[0] + q[1] * q[1] + (q[2] - z) * (q[2] - z) <= s[0] * s[0];
    }
    case kBox:
    case kMesh: {
      const double* h;
      double c[3];
      DragBox(g, &h, c);
      return std::fabs(q[0] - c[0]) <= h[0] && std::fabs(q[1] - c[1]) <= h[1] &&
             std::fabs(q[2] - c[2]) <= h[2];
    }
    default:
      return false;
  }
}

// The radius of a sphere about geom g's origin holding it (a mesh: its drag box).
double Reach(const Geom& g) {
  const double* s = g.size;
  switch (g.type) {
    case kSphere:
      return s[0];
    case kCylinder:
      return std::sqrt(s[0] * s[0] + s[1] * s[1]);
    case kCapsule:
      return s[0] + s[1];
    case kMesh:
      return std::sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]) +
             std::sqrt(g.centre[0] * g.centre[0] + g.centre[1] * g.centre[1] + g.centre[2] * g.centre[2]);
    default:
      return std::sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
  }
}

}  // namespace

void FaceExposure(const std::vector<Geom>& geoms, const double* pos, const double* mats,
                  std::vector<double>* expo, std::vector<int64_t>* cover) {
  const int ng = static_cast<int>(geoms.size());
  expo->assign(6 * static_cast<size_t>(std::max(ng, 1)), 1.0);
  cover->assign(6 * static_cast<size_t>(std::max(ng, 1)), -1);
  std::vector<int> near, hits;
  for (int k = 0; k < ng; ++k) {
    const Geom& g = geoms[k];
    const double* h;
    double c[3];
    if (!DragBox(g, &h, c)) continue;
    if (g.mark != Mark::kDisplacement && g.mark != Mark::kWindage) continue;
    const double* R = mats + 9 * k;
    const double* p = pos + 3 * k;
    // the geoms that may cover a face of k: same mark, same weld group, within reach
    near.clear();
    const double rk = Reach(g);
    for (int j = 0; j < ng; ++j) {
      const Geom& o = geoms[j];
      if (j == k || o.mark != g.mark || o.weld != g.weld) continue;
      const double* q = pos + 3 * j;
      const double dx = q[0] - p[0], dy = q[1] - p[1], dz = q[2] - p[2];
      const double r = rk + Reach(o);
      if (dx * dx + dy * dy + dz * dz <= r * r * (1.0 + 1e-9)) near.push_back(j);
    }
    if (near.empty()) continue;
    const double off = 1e-6 * std::max(h[0], std::max(h[1], h[2]));
    for (int i = 0; i < 3; ++i) {
      const int a = (i + 1) % 3, b = (i + 2) % 3;
      for (int side = 0; side < 2; ++side) {
        const double sg = side ? 1.0 : -1.0;
        int covered = 0;
        hits.assign(near.size(), 0);
        for (int u = 0; u < kFaceGrid; ++u) {
          for (int v = 0; v < kFaceGrid; ++v) {
            double l[3];  // the sample, just outside the face, geom frame
            l[i] = c[i] + sg * (h[i] + off);
            l[a] = c[a] + h[a] * ((2.0 * u + 1.0) / kFaceGrid - 1.0);
            l[b] = c[b] + h[b] * ((2.0 * v + 1.0) / kFaceGrid - 1.0);
            double w[3];  // world
            for (int r = 0; r < 3; ++r) w[r] = p[r] + R[3 * r] * l[0] + R[3 * r + 1] * l[1] + R[3 * r + 2] * l[2];
            for (size_t jn = 0; jn < near.size(); ++jn) {
              const int j = near[jn];
              const double* Rj = mats + 9 * j;
              const double* pj = pos + 3 * j;
              const double e[3] = {w[0] - pj[0], w[1] - pj[1], w[2] - pj[2]};
              const double q[3] = {Rj[0] * e[0] + Rj[3] * e[1] + Rj[6] * e[2],
                                   Rj[1] * e[0] + Rj[4] * e[1] + Rj[7] * e[2],
                                   Rj[2] * e[0] + Rj[5] * e[1] + Rj[8] * e[2]};
              if (Inside(geoms[j], q)) {
                ++covered;
                ++hits[jn];
                break;
              }
            }
          }
        }
        (*expo)[6 * static_cast<size_t>(k) + 2 * i + side] =
            1.0 - static_cast<double>(covered) / (kFaceGrid * kFaceGrid);
        int best = 0;
        for (size_t jn = 0; jn < near.size(); ++jn)
          if (hits[jn] > best) {
            best = hits[jn];
            (*cover)[6 * static_cast<size_t>(k) + 2 * i + side] = near[jn];
          }
      }
    }
  }
}

}  // namespace aurgen::core
