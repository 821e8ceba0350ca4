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

namespace aurgen::core {
namespace {

constexpr double kPi = 3.141592653589793;
constexpr double k4Pi3 = 4.0 * kPi / 3.0;  // as clip_smooth.cc and kernel.cc spell it

// ---- lanes: one double (D1), two (D2, one SSE2 register) or four (D4, two
// registers), with the same operations.  A mask is the result of a comparison;
// Sel(m, a, b) = m ? a : b per lane; All(m): every lane's m.

struct D1 {
  double v;
};
struct M1 {
  bool m;
};
inline D1 Set(double c, D1) { return {c}; }
inline D1 operator+(D1 a, D1 b) { return {a.v + b.v}; }
inline D1 operator-(D1 a, D1 b) { return {a.v - b.v}; }
inline D1 operator*(D1 a, D1 b) { return {a.v * b.v}; }
inline D1 operator/(D1 a, D1 b) { return {a.v / b.v}; }
inline D1 operator-(D1 a) { return {-a.v}; }
inline D1 Sqrt(D1 a) { return {std::sqrt(a.v)}; }
inline M1 operator<=(D1 a, D1 b) { return {a.v <= b.v}; }
inline M1 operator>=(D1 a, D1 b) { return {a.v >= b.v}; }
inline M1 operator>(D1 a, D1 b) { return {a.v > b.v}; }
inline M1 operator|(M1 a, M1 b) { return {a.m || b.m}; }
inline M1 AndNot(M1 a, M1 b) { return {!a.m && b.m}; }  // !a & b
inline D1 Sel(M1 m, D1 a, D1 b) { return {m.m ? a.v : b.v}; }
inline bool All(M1 m) { return m.m; }

#if defined(__SSE2__)
struct D2 {
  __m128d v;
};
struct M2 {
  __m128d m;
};
inline D2 Set(double c, D2) { return {_mm_set1_pd(c)}; }
inline D2 operator+(D2 a, D2 b) { return {_mm_add_pd(a.v, b.v)}; }
inline D2 operator-(D2 a, D2 b) { return {_mm_sub_pd(a.v, b.v)}; }
inline D2 operator*(D2 a, D2 b) { return {_mm_mul_pd(a.v, b.v)}; }
inline D2 operator/(D2 a, D2 b) { return {_mm_div_pd(a.v, b.v)}; }
inline D2 operator-(D2 a) { return {_mm_xor_pd(a.v, _mm_set1_pd(-0.0))}; }  // exact, as -x
inline D2 Sqrt(D2 a) { return {_mm_sqrt_pd(a.v)}; }
// ordered comparisons: false on nan, as the scalar operators
inline M2 operator<=(D2 a, D2 b) { return {_mm_cmple_pd(a.v, b.v)}; }
inline M2 operator>=(D2 a, D2 b) { return {_mm_cmpge_pd(a.v, b.v)}; }
inline M2 operator>(D2 a, D2 b) { return {_mm_cmpgt_pd(a.v, b.v)}; }
inline M2 operator|(M2 a, M2 b) { return {_mm_or_pd(a.m, b.m)}; }
inline M2 AndNot(M2 a, M2 b) { return {_mm_andnot_pd(a.m, b.m)}; }
inline D2 Sel(M2 m, D2 a, D2 b) {
  return {_mm_or_pd(_mm_and_pd(m.m, a.v), _mm_andnot_pd(m.m, b.v))};
}
inline bool All(M2 m) { return _mm_movemask_pd(m.m) == 3; }

// Four lanes: two SSE2 pairs side by side, so that two independent dependency
// chains (sqrt, div) are in flight at once.
struct D4 {
  D2 x, y;
};
struct M4 {
  M2 x, y;
};
inline D4 Set(double c, D4) { return {Set(c, D2{}), Set(c, D2{})}; }
inline D4 operator+(D4 a, D4 b) { return {a.x + b.x, a.y + b.y}; }
inline D4 operator-(D4 a, D4 b) { return {a.x - b.x, a.y - b.y}; }
inline D4 operator*(D4 a, D4 b) { return {a.x * b.x, a.y * b.y}; }
inline D4 operator/(D4 a, D4 b) { return {a.x / b.x, a.y / b.y}; }
inline D4 operator-(D4 a) { return {-a.x, -a.y}; }
inline D4 Sqrt(D4 a) { return {Sqrt(a.x), Sqrt(a.y)}; }
inline M4 operator<=(D4 a, D4 b) { return {a.x <= b.x, a.y <= b.y}; }
inline M4 operator>=(D4 a, D4 b) { return {a.x >= b.x, a.y >= b.y}; }
inline M4 operator>(D4 a, D4 b) { return {a.x > b.x, a.y > b.y}; }
inline M4 operator|(M4 a, M4 b) { return {a.x | b.x, a.y | b.y}; }
inline M4 AndNot(M4 a, M4 b) { return {AndNot(a.x, b.x), AndNot(a.y, b.y)}; }
inline D4 Sel(M4 m, D4 a, D4 b) { return {Sel(m.x, a.x, b.x), Sel(m.y, a.y, b.y)}; }
inline bool All(M4 m) { return All(m.x) && All(m.y); }
#endif

// Lane loads and stores at rows ii[0..lanes) of a row-major array: element
// base[stride * ii[j] + col] of each.
inline D1 Gather(const double* base, const int64_t* ii, int64_t stride, int col, D1) {
  return {base[stride * ii[0] + col]};
}
inline void Scatter(double* base, const int64_t* ii, int64_t stride, int col, D1 x) {
  base[stride * ii[0] + col] = x.v;
}
inline M1 IsSphere(const int64_t* types, const int64_t* ii, M1) { return {types[ii[0]] == kSphere}; }
#if defined(__SSE2__)
inline D2 Gather(const double* base, const int64_t* ii, int64_t stride, int col, D2) {
  return {_mm_loadh_pd(_mm_load_sd(base + stride * ii[0] + col), base + stride * ii[1] + col)};
}
inline void Scatter(double* base, const int64_t* ii, int64_t stride, int col, D2 x) {
  _mm_store_sd(base + stride * ii[0] + col, x.v);
  _mm_storeh_pd(base + stride * ii[1] + col, x.v);
}
inline M2 IsSphere(const int64_t* types, const int64_t* ii, M2) {
  return {_mm_castsi128_pd(_mm_set_epi64x(-static_cast<int64_t>(types[ii[1]] == kSphere),
                                          -static_cast<int64_t>(types[ii[0]] == kSphere)))};
}
inline D4 Gather(const double* base, const int64_t* ii, int64_t stride, int col, D4) {
  return {Gather(base, ii, stride, col, D2{}), Gather(base, ii + 2, stride, col, D2{})};
}
inline void Scatter(double* base, const int64_t* ii, int64_t stride, int col, D4 v) {
  Scatter(base, ii, stride, col, v.x);
  Scatter(base, ii + 2, stride, col, v.y);
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
  // centroid (the geom centre when V is not positive), to world
  auto wet = V > zero;
  L cx = Sel(wet, Mx / V, zero), cy = Sel(wet, My / V, zero), cz = Sel(wet, Mz / V, zero);
  L x = P0 + R[0] * cx + R[1] * cy + R[2] * cz;
  L y = P1 + R[3] * cx + R[4] * cy + R[5] * cz;
  L zz = P2 + R[6] * cx + R[7] * cy + R[8] * cz;
  // the row; wholly outside: V = A = 0 at the geom centre
  Scatter(out, ii, W, 0, Sel(empty, zero, Sel(wet, V, zero)));
  Scatter(out, ii, W, 1, Sel(empty, P0, x));
  Scatter(out, ii, W, 2, Sel(empty, P1, y));
  Scatter(out, ii, W, 3, Sel(empty, P2, zz));
  Scatter(out, ii, W, 4, Sel(empty, zero, A));
  for (int col = 5; col < W; ++col) Scatter(out, ii, W, col, zero);
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
