// Lanes for the kernel's block paths (smooth_rows.cc, clip_box.cc) and the force
// stage's pieces (forces_pieces.cc): one double (D1), two (D2, one SSE2 register) or
// four (D4, two registers), with the same operations, so one template serves
// every width.  Packed SSE2 add, sub, mul, div and sqrt round exactly as the
// scalar operations do, negation and Abs flip or clear the sign bit as -x and
// fabs do, and nothing is contracted (-ffp-contract=off): a lane computes the
// scalar code's bits.  SSE2 is baseline x86-64 (no -march); other CPUs get D1.
#ifndef AURGEN_CORE_LANES_H_
#define AURGEN_CORE_LANES_H_

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <cmath>
#include <cstdint>

namespace aurgen::core::lanes {

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
inline M1 operator<(D1 a, D1 b) { return {a.v < b.v}; }
inline M1 operator&(M1 a, M1 b) { return {a.m && b.m}; }
inline D1 Abs(D1 a) { return {std::fabs(a.v)}; }
inline bool Any(M1 m) { return m.m; }
inline bool Lane(M1 m, int) { return m.m; }

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
inline M2 operator<(D2 a, D2 b) { return {_mm_cmplt_pd(a.v, b.v)}; }
inline M2 operator&(M2 a, M2 b) { return {_mm_and_pd(a.m, b.m)}; }
inline D2 Abs(D2 a) { return {_mm_andnot_pd(_mm_set1_pd(-0.0), a.v)}; }  // exact, as fabs
inline bool Any(M2 m) { return _mm_movemask_pd(m.m) != 0; }
inline bool Lane(M2 m, int j) { return (_mm_movemask_pd(m.m) >> j) & 1; }

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
inline M4 operator<(D4 a, D4 b) { return {a.x < b.x, a.y < b.y}; }
inline M4 operator&(M4 a, M4 b) { return {a.x & b.x, a.y & b.y}; }
inline D4 Abs(D4 a) { return {Abs(a.x), Abs(a.y)}; }
inline bool Any(M4 m) { return Any(m.x) || Any(m.y); }
inline bool Lane(M4 m, int j) { return j < 2 ? Lane(m.x, j) : Lane(m.y, j - 2); }
#endif

// Lane loads and stores of consecutive doubles p[0..lanes).
inline D1 Load(const double* p, D1) { return {p[0]}; }
inline void Store(double* p, D1 x) { p[0] = x.v; }
#if defined(__SSE2__)
inline D2 Load(const double* p, D2) { return {_mm_loadu_pd(p)}; }
inline void Store(double* p, D2 x) { _mm_storeu_pd(p, x.v); }
#endif

// Lane loads and stores at rows ii[0..lanes) of a row-major array: element
// base[stride * ii[j] + col] of each.
inline D1 Gather(const double* base, const int64_t* ii, int64_t stride, int col, D1) {
  return {base[stride * ii[0] + col]};
}
inline void Scatter(double* base, const int64_t* ii, int64_t stride, int col, D1 x) {
  base[stride * ii[0] + col] = x.v;
}
#if defined(__SSE2__)
inline D2 Gather(const double* base, const int64_t* ii, int64_t stride, int col, D2) {
  return {_mm_loadh_pd(_mm_load_sd(base + stride * ii[0] + col), base + stride * ii[1] + col)};
}
inline void Scatter(double* base, const int64_t* ii, int64_t stride, int col, D2 x) {
  _mm_store_sd(base + stride * ii[0] + col, x.v);
  _mm_storeh_pd(base + stride * ii[1] + col, x.v);
}
inline D4 Gather(const double* base, const int64_t* ii, int64_t stride, int col, D4) {
  return {Gather(base, ii, stride, col, D2{}), Gather(base, ii + 2, stride, col, D2{})};
}
inline void Scatter(double* base, const int64_t* ii, int64_t stride, int col, D4 v) {
  Scatter(base, ii, stride, col, v.x);
  Scatter(base, ii + 2, stride, col, v.y);
}
#endif

// The kernel's row [V, c (world), A, 0 ...] (W >= 5 columns) of the geoms ii[0..lanes)
// from their volume V, first moments (Mx, My, Mz) and section area A in the geom
// frame (R row-major geom -> world, P its origin), as ClipGeom writes it: the
// centroid M / V where V > 0, else the geom's origin with V = 0; a lane in
// `empty` (wholly outside the half-space) V = A = 0 at the origin.
template <class L, class M>
inline void PutRows(double* out, const int64_t* ii, int W, const L R[9], L P0, L P1, L P2, L V,
                    L Mx, L My, L Mz, L A, M empty) {
  const L zero = Set(0.0, L{});
  const auto wet = V > zero;
  const L cx = Sel(wet, Mx / V, zero), cy = Sel(wet, My / V, zero), cz = Sel(wet, Mz / V, zero);
  const L x = P0 + R[0] * cx + R[1] * cy + R[2] * cz;
  const L y = P1 + R[3] * cx + R[4] * cy + R[5] * cz;
  const L z = P2 + R[6] * cx + R[7] * cy + R[8] * cz;
  Scatter(out, ii, W, 0, Sel(empty, zero, Sel(wet, V, zero)));
  Scatter(out, ii, W, 1, Sel(empty, P0, x));
  Scatter(out, ii, W, 2, Sel(empty, P1, y));
  Scatter(out, ii, W, 3, Sel(empty, P2, z));
  Scatter(out, ii, W, 4, Sel(empty, zero, A));
  for (int col = 5; col < W; ++col) Scatter(out, ii, W, col, zero);
}

}  // namespace aurgen::core::lanes

#endif  // AURGEN_CORE_LANES_H_
