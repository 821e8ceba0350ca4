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

namespace aurgen::core {

// y[i] = e^{x[i]} for i < n.
void ExpWide(const double* x, int n, double* y);

}  // namespace aurgen::core

#endif  // AURGEN_CORE_EXP_LANES_H_
