// ExpWide (exp_lanes.h): fdlibm's exp four arguments at a time, built on V4 for AVX2 and on vec4.h's
// Lanes4 for every CPU, one chosen at run time (lanes.h W4Fast): the same bits.
#include "exp_lanes.h"

#include "vec4.h"

#pragma GCC diagnostic ignored "-Wpsabi"  // vec4.h's helpers: inlined, their ABI never seen

namespace aurgen::core {
namespace {

using namespace exp_detail;  // NOLINT: the constants

// e 2^k, k (two's complement in tk's low bits, tk = k + kRound, |k| <= 1022) added to e's exponent field
AURGEN_V4_INLINE vec4::V4 Scale(vec4::V4 e, vec4::V4 tk) {
  using namespace vec4;  // NOLINT: the lane type and its operators
  const V4u kb = (V4u)(Bits(tk) - Bits(Set(kRound, V4{})));
  return FromBits(Bits(e) + (V4i)(kb << 52));
}
#if defined(__SSE2__)
inline lanes::D2 Scale(lanes::D2 e, lanes::D2 tk) {
  const __m128i kb = _mm_sub_epi64(_mm_castpd_si128(tk.v), _mm_castpd_si128(_mm_set1_pd(kRound)));
  return {_mm_castsi128_pd(_mm_add_epi64(_mm_castpd_si128(e.v), _mm_slli_epi64(kb, 52)))};
}
inline lanes::D4 Scale(lanes::D4 e, lanes::D4 tk) { return {Scale(e.x, tk.x), Scale(e.y, tk.y)}; }
#endif

// e^x of x[0 .. 4) into y (an argument out of range: any value, the caller's to redo).
template <class L>
AURGEN_V4_INLINE void Kernel(const double* x, double* y) {
  const L z0{};
  auto K = [&](double v) { return Set(v, z0); };
  const L xi = Load(x, z0);
  const L a = Sel(Abs(xi) <= K(kLimit), xi, K(0.0));
  const L tk = a * K(kInvLn2) + K(kRound);  // x / ln 2, rounded to an integer k
  const L k = tk - K(kRound);
  const L hi = a - k * K(kLn2Hi), lo = k * K(kLn2Lo);
  const L r = hi - lo;
  const L t = r * r;
  const L c = r - t * (K(kE1) + t * (K(kE2) + t * (K(kE3) + t * (K(kE4) + t * K(kE5)))));
  const L e = K(1.0) - ((lo - (r * c) / (K(2.0) - c)) - hi);  // e^r, in [1/sqrt2, sqrt2]
  Store(y, Scale(e, tk));
}

template <class L>
AURGEN_V4_INLINE void ExpLanes(const double* x, int n, double* y) {
  int i = 0;
  for (; i + 4 <= n; i += 4) Kernel<L>(x + i, y + i);
  if (i < n) {  // the last one to three, padded with zeros
    double xt[4] = {0.0, 0.0, 0.0, 0.0}, yt[4];
    for (int k = i; k < n; ++k) xt[k - i] = x[k];
    Kernel<L>(xt, yt);
    for (int k = i; k < n; ++k) y[k] = yt[k - i];
  }
  for (i = 0; i < n; ++i)
    if (!(std::fabs(x[i]) <= kLimit)) y[i] = std::exp(x[i]);
}

#if defined(AURGEN_AVX2_BUILT)
__attribute__((target("avx2"))) void ExpAvx2(const double* x, int n, double* y) { ExpLanes<vec4::V4>(x, n, y); }
#endif

}  // namespace

void ExpWide(const double* x, int n, double* y) {
#if defined(AURGEN_AVX2_BUILT)
  if (lanes::W4Fast()) return ExpAvx2(x, n, y);
#endif
  ExpLanes<Lanes4>(x, n, y);
}

}  // namespace aurgen::core
