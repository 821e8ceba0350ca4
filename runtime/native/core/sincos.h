// Cosine and sine of many angles at once (a sea's component phases and its columns' chord ends: sea.cc,
// sea_moments.cc).
//
// Branch-free IEEE double arithmetic (adds, multiplies, bit selects) in lanes (lanes.h: two
// angles per SSE2 register, the scalar code's bits in every lane; SinCosWide, sincos.cc: four, as the
// compiler's vector type, in SSE2 or AVX2 registers); no FMA (the build's
// -ffp-contract=off), so the bits are the same on every machine and at every width.  Per angle x (rad):
//   q = round(x 2 / pi) (by adding and subtracting 1.5 2^52), r = x - q pi / 2 in three parts
//   (Cody-Waite: pi / 2 = P1 + P2 + P3, P1 and P2 of 22 significant bits, so q P1 and q P2 are
//   exact for |q| < 2^31 and x - q P1 is exact by Sterbenz), |r| <= pi / 4 (1 + 2^-52);
//   sin r and cos r by fdlibm's kernels (k_sin.c, k_cos.c: minimax polynomials on [-pi/4, pi/4],
//   under 1 ulp), swapped and negated by the quadrant q mod 4.
// Angles beyond kSinCosMax in magnitude (and NaN, infinities) take std::cos and std::sin instead.
// Error: within 2 ulp of the true values over |x| <= kSinCosMax (tests/runtime/test_sincos.py
// holds it to mpmath).
#ifndef AURGEN_CORE_SINCOS_H_
#define AURGEN_CORE_SINCOS_H_

#include <cmath>
#include <cstdint>

#include "lanes.h"

namespace aurgen::core {

inline constexpr double kSinCosMax = 1e9;  // rad: |q| < 2^30, the reduction exact

namespace sincos_detail {

// sin and cos of the quadrant q (tq = q + 1.5 2^52: q mod 4 in its low bits, two's complement)
// from those of the reduced angle: swapped in quadrants 1 and 3, sin negated in 2 and 3, cos in 1
// and 2 (sign-bit flips: exact).
inline void Quadrant(lanes::D1 tq, lanes::D1 sr, lanes::D1 cr, lanes::D1* s, lanes::D1* c) {
  const uint64_t qb = __builtin_bit_cast(uint64_t, tq.v);
  const bool odd = (qb & 1) != 0;
  const uint64_t sb = __builtin_bit_cast(uint64_t, odd ? cr.v : sr.v) ^ ((qb & 2) << 62);
  const uint64_t cb = __builtin_bit_cast(uint64_t, odd ? sr.v : cr.v) ^ (((qb + 1) & 2) << 62);
  s->v = __builtin_bit_cast(double, sb);
  c->v = __builtin_bit_cast(double, cb);
}
#if defined(__SSE2__)
inline void Quadrant(lanes::D2 tq, lanes::D2 sr, lanes::D2 cr, lanes::D2* s, lanes::D2* c) {
  const __m128i qb = _mm_castpd_si128(tq.v);
  const __m128i one = _mm_set1_epi64x(1), two = _mm_set1_epi64x(2);
  const __m128d odd = _mm_castsi128_pd(_mm_sub_epi64(_mm_setzero_si128(), _mm_and_si128(qb, one)));
  const __m128d sv = _mm_or_pd(_mm_andnot_pd(odd, sr.v), _mm_and_pd(odd, cr.v));
  const __m128d cv = _mm_or_pd(_mm_andnot_pd(odd, cr.v), _mm_and_pd(odd, sr.v));
  const __m128i ss = _mm_slli_epi64(_mm_and_si128(qb, two), 62);
  const __m128i cs = _mm_slli_epi64(_mm_and_si128(_mm_add_epi64(qb, one), two), 62);
  s->v = _mm_xor_pd(sv, _mm_castsi128_pd(ss));
  c->v = _mm_xor_pd(cv, _mm_castsi128_pd(cs));
}
#endif

// fdlibm k_sin.c and k_cos.c: sin r = r + r^3 S(r^2), cos r = 1 - r^2 / 2 + r^4 C(r^2) on [-pi/4, pi/4]
constexpr double kS1 = -1.66666666666666324348e-01, kS2 = 8.33333333332248946124e-03,
                 kS3 = -1.98412698298579493134e-04, kS4 = 2.75573137070700676789e-06,
                 kS5 = -2.50507602534068634195e-08, kS6 = 1.58969099521155010221e-10;
constexpr double kC1 = 4.16666666666666019037e-02, kC2 = -1.38888888888741095749e-03,
                 kC3 = 2.48015872894767294178e-05, kC4 = -2.75573143513906633035e-07,
                 kC5 = 2.08757232129817482790e-09, kC6 = -1.13596475577881948265e-11;
// pi / 2 = kP1 + kP2 + kP3 (kP1, kP2 of 22 significant bits), 2 / pi, and 1.5 2^52 (adding and
// subtracting it rounds to an integer)
constexpr double kP1 = 0x1.921fb00000000p+0, kP2 = 0x1.5110b00000000p-22, kP3 = 0x1.18469898cc517p-44;
constexpr double kTwoOverPi = 0x1.45f306dc9c883p-1, kRound = 0x1.8p52;

// cos and sin of x[0 .. lanes) into c, s (an angle out of range: 0's, the caller's to redo).
template <class L>
inline void Kernel(const double* x, double* c, double* s) {
  using namespace lanes;  // NOLINT: the lane types and their operators
  const L z0{};
  auto K = [&](double v) { return Set(v, z0); };
  const L xi = Load(x, z0);
  const L a = Sel(Abs(xi) <= K(kSinCosMax), xi, K(0.0));
  const L tq = a * K(kTwoOverPi) + K(kRound);  // x 2 / pi, rounded to an integer
  const L q = tq - K(kRound);
  const L r = ((a - q * K(kP1)) - q * K(kP2)) - q * K(kP3);
  const L z = r * r, v = z * r, w = z * z;
  const L sr = r + v * (K(kS1) + z * (K(kS2) + z * (K(kS3) + z * (K(kS4) + z * (K(kS5) + z * K(kS6))))));
  const L cp = z * (K(kC1) + z * (K(kC2) + z * K(kC3))) + w * w * (K(kC4) + z * (K(kC5) + z * K(kC6)));
  const L hz = K(0.5) * z, one_hz = K(1.0) - hz;
  const L cr = one_hz + (((K(1.0) - one_hz) - hz) + z * cp);
  L so, co;
  Quadrant(tq, sr, cr, &so, &co);
  Store(s, so);
  Store(c, co);
}

}  // namespace sincos_detail

// SinCos over many angles (sincos.cc): Kernel's arithmetic four angles at a time, on x86-64 Linux in
// AVX2 where the CPU has it, else SSE2, chosen at run time: the same bits as the lanes below.
void SinCosWide(const double* x, int n, double* c, double* s);

// c[i] = cos x[i], s[i] = sin x[i] for i < n: a few (a column's chord ends) inline in SSE2 pairs, many
// (a sea's components) by SinCosWide.
inline void SinCos(const double* x, int n, double* c, double* s) {
  if (n >= 8) {
    SinCosWide(x, n, c, s);
    return;
  }
  int i = 0;
#if defined(__SSE2__)
  for (; i + 2 <= n; i += 2) sincos_detail::Kernel<lanes::D2>(x + i, c + i, s + i);
#endif
  for (; i < n; ++i) sincos_detail::Kernel<lanes::D1>(x + i, c + i, s + i);
  for (i = 0; i < n; ++i)
    if (!(std::fabs(x[i]) <= kSinCosMax)) {
      c[i] = std::cos(x[i]);
      s[i] = std::sin(x[i]);
    }
}

}  // namespace aurgen::core

#endif  // AURGEN_CORE_SINCOS_H_
