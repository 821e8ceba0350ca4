// SinCosWide (sincos.h): its Kernel four angles at a time.
//
// Built twice (vec4.h Lanes4): on vec4.h's V4 for AVX2 (one register) and on Lanes4 for every CPU
// (two SSE2 registers on x86-64), one chosen at run time (lanes.h W4Fast).  Each lane computes
// Kernel's scalar bits in either; the AVX2 copy does not take FMA (not in its target, and
// -ffp-contract=off), so the bits are the same.
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

#if defined(__SSE2__)
namespace lanes {
// on D4 (found by Kernel<D4> through D4's namespace): sincos.h's D2 Quadrant on each half
inline void Quadrant(D4 tq, D4 sr, D4 cr, D4* s, D4* c) {
  sincos_detail::Quadrant(tq.x, sr.x, cr.x, &s->x, &c->x);
  sincos_detail::Quadrant(tq.y, sr.y, cr.y, &s->y, &c->y);
}
}  // namespace lanes
#endif

namespace {

template <class L>
AURGEN_V4_INLINE void SinCosLanes(const double* x, int n, double* c, double* s) {
  int i = 0;
  for (; i + 4 <= n; i += 4) sincos_detail::Kernel<L>(x + i, c + i, s + i);
  if (i < n) {  // the last one to three, padded with zeros
    double xt[4] = {0.0, 0.0, 0.0, 0.0}, ct[4], st[4];
    for (int k = i; k < n; ++k) xt[k - i] = x[k];
    sincos_detail::Kernel<L>(xt, ct, st);
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

#if defined(AURGEN_AVX2_BUILT)
__attribute__((target("avx2"))) void SinCosAvx2(const double* x, int n, double* c, double* s) {
  SinCosLanes<vec4::V4>(x, n, c, s);
}
#endif

}  // namespace

void SinCosWide(const double* x, int n, double* c, double* s) {
#if defined(AURGEN_AVX2_BUILT)
  if (lanes::W4Fast()) return SinCosAvx2(x, n, c, s);
#endif
  SinCosLanes<Lanes4>(x, n, c, s);
}

}  // namespace aurgen::core
