// Spheres and ellipsoids cut by one plane, several rows at a time; see
// smooth_rows.h.  The arithmetic below is ClipGeom's (kernel.cc: SupportLocal,
// FullLocal, Smooth1 -> Ellipsoid1 -> Ball1 of clip_smooth.cc, the world
// transform) operation for operation; keep the two in step.
#include "smooth_rows.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <cmath>

#include "kernel.h"
#include "lanes.h"

namespace aurgen::core {
namespace {

constexpr double kPi = 3.141592653589793;
constexpr double k4Pi3 = 4.0 * kPi / 3.0;  // as clip_smooth.cc and kernel.cc spell it

using namespace lanes;  // NOLINT: the lane types and their operators

inline M1 IsSphere(const int64_t* types, const int64_t* ii, M1) { return {types[ii[0]] == kSphere}; }
#if defined(__SSE2__)
inline M2 IsSphere(const int64_t* types, const int64_t* ii, M2) {
  return {_mm_castsi128_pd(_mm_set_epi64x(-static_cast<int64_t>(types[ii[1]] == kSphere),
                                          -static_cast<int64_t>(types[ii[0]] == kSphere)))};
}
inline M4 IsSphere(const int64_t* types, const int64_t* ii, M4) {
  return {IsSphere(types, ii, M2{}), IsSphere(types, ii + 2, M2{})};
}
#endif

// The rows ii[0..lanes) of the batch, one per lane: the plane to the geom frame,
// support test, tier, closed form, centroid to world, the row.
template <class L, class M>
inline void Rows(const int64_t* ii, const int64_t* types, const double* sizes, const double* pos,
                 const double* mats, const double pl[4], double* out, int W) {
  const L z{};
  const L zero = Set(0.0, z), one = Set(1.0, z);
  const L wx = Set(pl[0], z), wy = Set(pl[1], z), wz = Set(pl[2], z);
  L R[9];
  for (int j = 0; j < 9; ++j) R[j] = Gather(mats, ii, 9, j, z);
  L P0 = Gather(pos, ii, 3, 0, z), P1 = Gather(pos, ii, 3, 1, z), P2 = Gather(pos, ii, 3, 2, z);
  // semi-axes: a sphere's are (r, r, r)
  const M sph = IsSphere(types, ii, M{});
  L a = Gather(sizes, ii, 3, 0, z);
  L b = Sel(sph, a, Gather(sizes, ii, 3, 1, z));
  L c = Sel(sph, a, Gather(sizes, ii, 3, 2, z));
  // the plane in the geom frame: n.x <= t
  L lx = R[0] * wx + R[3] * wy + R[6] * wz;
  L ly = R[1] * wx + R[4] * wy + R[7] * wz;
  L lz = R[2] * wx + R[5] * wy + R[8] * wz;
  L t = Set(pl[3], z) - (wx * P0 + wy * P1 + wz * P2);
  L px = a * lx, py = b * ly, pz = c * lz;
  // support test (SupportLocal: sphere r |l|, ellipsoid |p|; hmax = h, hmin = -h)
  L qx = Sel(sph, lx, px), qy = Sel(sph, ly, py), qz = Sel(sph, lz, pz);
  L h = Sel(sph, a, one) * Sqrt(qx * qx + qy * qy + qz * qz);
  auto full = h <= t;                  // wholly inside: the plane is ignored
  auto empty = AndNot(full, -h >= t);  // wholly outside
  // the whole geom (FullLocal: centre at the origin)
  L vf = Set(k4Pi3, z) * a * b * c;
  L mf = vf * zero;
  L V = vf, Mx = mf, My = mf, Mz = mf, A = zero;
  // Some lane cut: the closed form.  (Otherwise every lane is whole, V = vf, or
  // wholly outside, whose V, A and centroid are replaced below.)
  if (!All(full | empty)) {
    // Ellipsoid1: the unit ball below m.y <= tau, m = p / |p|
    L len = Sqrt(px * px + py * py + pz * pz);
    L mx = px / len, my = py / len, mz = pz / len;
    L tau = t / len;
    // Ball1
    auto lo = tau <= Set(-1.0, z);
    auto hi = tau >= one;
    L p = one + tau, q = one - tau, tw = Set(2.0, z) - tau;
    L v = Set(kPi, z) * p * p * tw / Set(3.0, z);
    L kk = Set(-0.75, z) * q * q / tw;
    L area = Set(kPi, z) * p * q;
    v = Sel(lo, zero, Sel(hi, Set(k4Pi3, z), v));
    kk = Sel(lo, Set(-1.0, z), Sel(hi, zero, kk));
    area = Sel(lo | hi, zero, area);
    L det = a * b * c;
    L Vc = det * v;
    V = Sel(full, vf, Vc);
    Mx = Sel(full, mf, Vc * kk * a * mx);
    My = Sel(full, mf, Vc * kk * b * my);
    Mz = Sel(full, mf, Vc * kk * c * mz);
    A = Sel(full, zero, det * area / len);
  }
  PutRows(out, ii, W, R, P0, P1, P2, V, Mx, My, Mz, A, empty);
}

}  // namespace

void SmoothRows1(const int64_t* idx, int n, const int64_t* types, const double* sizes,
                 const double* pos, const double* mats, const double pl[4], double* out,
                 int W) {
  int k = 0;
#if defined(__SSE2__)
  for (; k + 4 <= n; k += 4) Rows<D4, M4>(idx + k, types, sizes, pos, mats, pl, out, W);
  for (; k + 2 <= n; k += 2) Rows<D2, M2>(idx + k, types, sizes, pos, mats, pl, out, W);
#endif
  for (; k < n; ++k) Rows<D1, M1>(idx + k, types, sizes, pos, mats, pl, out, W);
}

}  // namespace aurgen::core
