// Lanes for the kernel's block paths (smooth_rows.cc, clip_box.cc) and the force
// stage's pieces (forces_pieces.cc): one double (D1), two (D2, one SSE2 register),
// four (D4, two registers) or four in the compiler's vector type (W4: one AVX2
// register where the caller is built for AVX2), with the same operations, so one
// template serves every width.  Packed SSE2 add, sub, mul, div and sqrt round exactly as the
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
#include <cstdlib>
#include <cstring>

// What takes or returns a W4 (below) is always inlined: see W4.
#define AURGEN_W4_INLINE inline __attribute__((always_inline))

namespace aurgen::core::lanes {

// Whether the four-wide paths (W4 below, vec4.h's V4) run in AVX2 here: built with their AVX2 copies
// (x86-64 Linux, GCC: AURGEN_AVX2_BUILT) on a CPU that has AVX2, and the environment does not set
// AURGEN_NO_AVX2 (to any value but empty or 0: the paths a CPU without AVX2 takes, for tests).
// Elsewhere a 32-byte vector is two SSE2 registers that GCC moves through memory between operations,
// slower than D2 and D4 (measured on the BlueBoat: its force stage 2.63 us in W4 batches against
// 1.87 one geom at a time), so those run instead, with the same bits.
#if defined(__SSE2__) && defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(__clang__)
#define AURGEN_AVX2_BUILT 1
#endif
inline bool W4Fast() {
#if defined(AURGEN_AVX2_BUILT)
  static const bool fast = [] {
    const char* off = std::getenv("AURGEN_NO_AVX2");
    return __builtin_cpu_supports("avx2") && !(off && *off && std::strcmp(off, "0") != 0);
  }();
  return fast;
#else
  return false;
#endif
}

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
inline D4 Load(const double* p, D4) { return {Load(p, D2{}), Load(p + 2, D2{})}; }
inline void Store(double* p, D4 x) {
  Store(p, x.x);
  Store(p + 2, x.y);
}
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

// ---- the force stage's batches (forces_pieces.cc Wrenches): the pieces of one geom k in
// cells c, c + 1, ... (D1, D2), or of two geoms k, k + 1 in cells c, c + 1 (W4: lanes (k, c),
// (k, c + 1), (k + 1, c), (k + 1, c + 1)).  PerGeom: a per-geom value f(g) in each lane;
// PairLoad: p0[0..] for geom k's lanes, p1[0..] for k + 1's;
// PerCell: a per-cell column p[c'] in each lane; PieceLoad / PieceStore: a per-piece column
// (piece g nc + c' at p + (g - k) nc + (c' - c)).
template <class L>
inline constexpr int kGeoms = 1;
template <class F>
inline D1 PerGeom(int k, F f, D1) { return {f(k)}; }
inline D1 PerCell(const double* p, D1) { return {p[0]}; }
inline D1 PairLoad(const double* p0, const double*, D1) { return {p0[0]}; }
inline D1 PieceLoad(const double* p, int64_t, D1) { return {p[0]}; }
inline void PieceStore(double* p, D1 x, int64_t) { p[0] = x.v; }
#if defined(__SSE2__)
template <class F>
inline D2 PerGeom(int k, F f, D2) { return Set(f(k), D2{}); }
inline D2 PerCell(const double* p, D2) { return Load(p, D2{}); }
inline D2 PairLoad(const double* p0, const double*, D2) { return Load(p0, D2{}); }
inline D2 PieceLoad(const double* p, int64_t, D2) { return Load(p, D2{}); }
inline void PieceStore(double* p, D2 x, int64_t) { Store(p, x); }

// W4: four doubles as the compiler's vector type itself (as vec4.h; no struct around it, whose
// copies GCC splits into halves), so that a function built for AVX2 (target_clones) holds them
// in one register and the default build in two; its own operators are IEEE per lane (no FMA:
// -ffp-contract=off), -x flips the sign bit, and a comparison gives a mask MW4 (all ones or
// zero per lane, false on nan), so a lane has the scalar code's bits.  Always inlined, so no
// call passes one (vec4.h: the ABI differs between the two builds).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
typedef double W4 __attribute__((vector_size(32)));
using MW4 = decltype(W4{} < W4{});
template <>
inline constexpr int kGeoms<W4> = 2;
AURGEN_W4_INLINE W4 Set(double c, W4) { return W4{c, c, c, c}; }
AURGEN_W4_INLINE W4 Abs(W4 a) {  // as fabs
  return (W4)((MW4)a & ~MW4{INT64_MIN, INT64_MIN, INT64_MIN, INT64_MIN});
}
AURGEN_W4_INLINE W4 Sqrt(W4 a) {  // two SSE2 square roots (correctly rounded, as std::sqrt)
  const __m128d lo = _mm_sqrt_pd(__m128d{a[0], a[1]}), hi = _mm_sqrt_pd(__m128d{a[2], a[3]});
  return W4{lo[0], lo[1], hi[0], hi[1]};
}
AURGEN_W4_INLINE MW4 AndNot(MW4 a, MW4 b) { return ~a & b; }
AURGEN_W4_INLINE W4 Sel(MW4 m, W4 a, W4 b) { return (W4)((m & (MW4)a) | (~m & (MW4)b)); }
AURGEN_W4_INLINE bool Any(MW4 m) { return (m[0] | m[1] | m[2] | m[3]) != 0; }
AURGEN_W4_INLINE bool All(MW4 m) { return (m[0] & m[1] & m[2] & m[3]) != 0; }
AURGEN_W4_INLINE bool Lane(MW4 m, int j) { return m[j] != 0; }
AURGEN_W4_INLINE W4 Gather(const double* base, const int64_t* ii, int64_t stride, int col, W4) {
  return W4{base[stride * ii[0] + col], base[stride * ii[1] + col], base[stride * ii[2] + col],
            base[stride * ii[3] + col]};
}
template <class F>
AURGEN_W4_INLINE W4 PerGeom(int k, F f, W4) {
  const double a = f(k), b = f(k + 1);
  return W4{a, a, b, b};
}
AURGEN_W4_INLINE W4 PairLoad(const double* p0, const double* p1, W4) { return W4{p0[0], p0[1], p1[0], p1[1]}; }
AURGEN_W4_INLINE W4 PerCell(const double* p, W4) { return W4{p[0], p[1], p[0], p[1]}; }
AURGEN_W4_INLINE W4 PieceLoad(const double* p, int64_t nc, W4) {
  if (nc == 2) {  // one load
    W4 x;
    std::memcpy(&x, p, sizeof x);
    return x;
  }
  return W4{p[0], p[1], p[nc], p[nc + 1]};
}
AURGEN_W4_INLINE void Scatter(double* base, const int64_t* ii, int64_t stride, int col, W4 x) {
  for (int j = 0; j < 4; ++j) base[stride * ii[j] + col] = x[j];
}
AURGEN_W4_INLINE void PieceStore(double* p, W4 x, int64_t nc) {
  if (nc == 2) {  // one store
    std::memcpy(p, &x, sizeof x);
    return;
  }
  p[0] = x[0];
  p[1] = x[1];
  p[nc] = x[2];
  p[nc + 1] = x[3];
}
#pragma GCC diagnostic pop
#endif

// The kernel's row [V, c (world), A, 0 ...] (W >= 5 columns) of the geoms ii[0..lanes)
// from their volume V, first moments (Mx, My, Mz) and section area A in the geom
// frame (R row-major geom -> world, P its origin), as ClipGeom writes it: the
// centroid M / V where V > 0, else the geom's origin with V = 0; a lane in
// `empty` (wholly outside the half-space) V = A = 0 at the origin.
template <class L, class M>
AURGEN_W4_INLINE void PutRows(double* out, const int64_t* ii, int W, const L R[9], L P0, L P1, L P2, L V,
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
