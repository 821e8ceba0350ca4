// e^x of many arguments at once (a sea's depth factors e^{k zeta}, one per component: sea.cc Orbital).
//
// fdlibm's e_exp.c in lanes (vec4.h: four arguments per step, AVX2 where the CPU has it, else SSE2
// pairs, chosen at run time; no FMA, so the same bits on every x86-64): k = round(x / ln 2) (by adding
// and subtracting 1.5 2^52), r = x - k ln 2 in two parts (ln2HI of 32 significant bits, so k ln2HI is
// exact for |k| < 2^20), e^r by fdlibm's rational form 1 + 2 r / (2 - c) with c = r - r^2 P(r^2) (P of
// degree 4, minimax on [-ln2/2, ln2/2]), and 2^k added to the exponent's bits.  Error under 1 ulp
// (fdlibm's).  Arguments outside [-708, 708] (the result subnormal, or beyond 2^1021) and NaN take
// std::exp instead.
#ifndef AURGEN_CORE_EXP_LANES_H_
#define AURGEN_CORE_EXP_LANES_H_

#include <cmath>
#include <cstdint>

namespace aurgen::core {

namespace exp_detail {
inline constexpr double kLimit = 708.0;  // |x| beyond: std::exp (2^k out of the normal range's reach)
// fdlibm e_exp.c: ln 2 = kLn2Hi + kLn2Lo (kLn2Hi of 32 significant bits), 1 / ln 2, and P1 .. P5
inline constexpr double kLn2Hi = 6.93147180369123816490e-01, kLn2Lo = 1.90821492927058770002e-10,
                        kInvLn2 = 1.44269504088896338700e+00;
inline constexpr double kE1 = 1.66666666666666019037e-01, kE2 = -2.77777777770155933842e-03,
                        kE3 = 6.61375632143793436117e-05, kE4 = -1.65339022054652515390e-06,
                        kE5 = 4.13813679705723846039e-08;
inline constexpr double kRound = 0x1.8p52;  // adding and subtracting it rounds to an integer

// One argument: the lanes' arithmetic (exp_lanes.cc Kernel), operation for operation.
inline double Exp1(double x) {
  if (!(std::fabs(x) <= kLimit)) return std::exp(x);
  const double tk = x * kInvLn2 + kRound, k = tk - kRound;
  const double hi = x - k * kLn2Hi, lo = k * kLn2Lo;
  const double r = hi - lo, t = r * r;
  const double c = r - t * (kE1 + t * (kE2 + t * (kE3 + t * (kE4 + t * kE5))));
  const double e = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi);
  const uint64_t kb = __builtin_bit_cast(uint64_t, tk) - __builtin_bit_cast(uint64_t, kRound);
  return __builtin_bit_cast(double, __builtin_bit_cast(uint64_t, e) + (kb << 52));
}
}  // namespace exp_detail

// Many arguments (exp_lanes.cc), four at a time.
void ExpWide(const double* x, int n, double* y);

// y[i] = e^{x[i]} for i < n: a few (a one- to three-component sea) inline, many by ExpWide; the same bits.
inline void Exp(const double* x, int n, double* y) {
  if (n >= 4) {
    ExpWide(x, n, y);
    return;
  }
  for (int i = 0; i < n; ++i) y[i] = exp_detail::Exp1(x[i]);
}

}  // namespace aurgen::core

#endif  // AURGEN_CORE_EXP_LANES_H_
