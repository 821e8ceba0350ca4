// ExpWide (exp_lanes.h): fdlibm's exp four arguments at a time (vec4.h).
#include "exp_lanes.h"

#include "vec4.h"

#pragma GCC diagnostic ignored "-Wpsabi"  // vec4.h's helpers: inlined, their ABI never seen

namespace aurgen::core {
namespace {

using namespace exp_detail;  // NOLINT: the constants

// e^x of x[0 .. 4) into y (an argument out of range: any value, the caller's to redo).
inline void Kernel(const double* x, double* y) {
  using namespace vec4;  // NOLINT: the lane type and its operators
  const V4 z0{};
  auto K = [&](double v) { return Set(v, z0); };
  const V4 xi = Load(x, z0);
  const V4 a = Sel(Abs(xi) <= K(kLimit), xi, K(0.0));
  const V4 tk = a * K(kInvLn2) + K(kRound);  // x / ln 2, rounded to an integer k
  const V4 k = tk - K(kRound);
  const V4 hi = a - k * K(kLn2Hi), lo = k * K(kLn2Lo);
  const V4 r = hi - lo;
  const V4 t = r * r;
  const V4 c = r - t * (K(kE1) + t * (K(kE2) + t * (K(kE3) + t * (K(kE4) + t * K(kE5)))));
  const V4 e = K(1.0) - ((lo - (r * c) / (K(2.0) - c)) - hi);  // e^r, in [1/sqrt2, sqrt2]
  // times 2^k: k (two's complement in tk's low bits, |k| <= 1022) added to the exponent field
  const V4u kb = (V4u)(Bits(tk) - Bits(K(kRound)));
  Store(y, FromBits(Bits(e) + (V4i)(kb << 52)));
}

}  // namespace

#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
void ExpWide(const double* x, int n, double* y) {
  int i = 0;
  for (; i + 4 <= n; i += 4) Kernel(x + i, y + i);
  if (i < n) {  // the last one to three, padded with zeros
    double xt[4] = {0.0, 0.0, 0.0, 0.0}, yt[4];
    for (int k = i; k < n; ++k) xt[k - i] = x[k];
    Kernel(xt, yt);
    for (int k = i; k < n; ++k) y[k] = yt[k - i];
  }
  for (i = 0; i < n; ++i)
    if (!(std::fabs(x[i]) <= kLimit)) y[i] = std::exp(x[i]);
}

}  // namespace aurgen::core
