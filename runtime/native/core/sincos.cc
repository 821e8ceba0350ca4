// SinCosWide (sincos.h): its Kernel four angles at a time, as the compiler's vector of four doubles.
//
// The lane type (vec4.h's V4) has lanes.h's operations on the compiler's vector of four doubles, so
// each lane computes Kernel's scalar bits.  SinCosWide is built twice on x86-64 Linux (GCC): for every
// x86-64 (the vector split into SSE2 pairs) and for AVX2 (one register), chosen at run time; AVX2's
// clone does not take FMA (not in its target, and -ffp-contract=off), so the bits are the same.
#include "sincos.h"

#include "vec4.h"

#pragma GCC diagnostic ignored "-Wpsabi"  // vec4.h's helpers: inlined, their ABI never seen

namespace aurgen::core {
namespace vec4 {

// sincos.h's Quadrant on V4 (found by Kernel<V4> through V4's namespace): swapped where q is odd, the
// signs flipped by q's bit 1 and (q + 1)'s bit 1
AURGEN_V4_INLINE void Quadrant(V4 tq, V4 sr, V4 cr, V4* s, V4* c) {
  const V4i qb = Bits(tq);
  const V4i one = {1, 1, 1, 1}, two = {2, 2, 2, 2};
  const M4 odd = {V4i{0, 0, 0, 0} - (qb & one)};
  const V4 sv = Sel(odd, cr, sr), cv = Sel(odd, sr, cr);
  *s = FromBits(Bits(sv) ^ ((qb & two) << 62));
  *c = FromBits(Bits(cv) ^ (((qb + one) & two) << 62));
}

}  // namespace vec4

#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
void SinCosWide(const double* x, int n, double* c, double* s) {
  int i = 0;
  for (; i + 4 <= n; i += 4) sincos_detail::Kernel<vec4::V4>(x + i, c + i, s + i);
  if (i < n) {  // the last one to three, padded with zeros
    double xt[4] = {0.0, 0.0, 0.0, 0.0}, ct[4], st[4];
    for (int k = i; k < n; ++k) xt[k - i] = x[k];
    sincos_detail::Kernel<vec4::V4>(xt, ct, st);
    for (int k = i; k < n; ++k) {
      c[k] = ct[k - i];
      s[k] = st[k - i];
    }
  }
  for (i = 0; i < n; ++i)
    if (!(std::fabs(x[i]) <= kSinCosMax)) {
      c[i] = std::cos(x[i]);
      s[i] = std::sin(x[i]);
    }
}

}  // namespace aurgen::core
