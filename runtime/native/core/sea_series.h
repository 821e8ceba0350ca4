// The per-component part of the Froude-Krylov moments (sea_moments.cc FroudeKrylovMoments), with the
// components in lanes: a direction's components side by side as structure-of-arrays, four at a time in
// vec4.h's lanes (on x86-64 Linux built twice, SSE2 and AVX2, the AVX2 one chosen at run time where the
// CPU has it; neither contracts a multiply and an add, so both give the scalar code's bits: the same on
// every x86-64).
//
// For one piece and one direction (its moments s[n][q][(re, im)] below the mean level, sb, and above
// it, su: 8 complex moments per order n, laid out as sea_moments.cc's Moments), each component j's
// series at kappa = kn_j (its powers kn_j^n for n < N_j, zero beyond, so a component sums exactly the
// orders its bound asks for, in the scalar code's order), its field's terms and its force and moment
// about the expansion point x0, times the component's amplitude; world frame, in units of rho g r
// (N / (rho g r), N m / (rho g r)).
#ifndef AURGEN_CORE_SEA_SERIES_H_
#define AURGEN_CORE_SEA_SERIES_H_

namespace aurgen::core {

inline constexpr int kSeriesChunk = 32;  // components a call takes at most

// One chunk's inputs, m components (m <= kSeriesChunk), each array m long.
struct SeriesIn {
  int m = 0;
  const int* N;          // the series' order (terms n < N), 1 .. kMaxMomentOrder
  const double* kn;      // |k|, rad/m
  const double* zr;      // cos theta at x0
  const double* zi;      // sin theta at x0
  const double* a1;      // the below term's real factor c e^{k zeta(x0)}
  const double* a2;      // the mirrored term's, c e^{-2 k h} / e^{k zeta(x0)} (finite depth; else unused)
  const double* amp;     // amplitude, m
  const double* k[3];    // the wave vector's components, rad/m
};

// out[0 .. 3) the force's and out[3 .. 6) the moment's components of each component (out[c][j]);
// sb (hasb) and su (hasu): the moments, Ng orders (Ng >= every N); mirror: the finite depth's mirrored
// term (below the mean level); n: up; nc: the cap plane's unit normal (world).
void SeriesForces(const double* sb, const double* su, int Ng, bool hasb, bool mirror, bool hasu,
                  const double n[3], const double nc[3], const SeriesIn& in, double out[6][kSeriesChunk]);

// N[j] = MomentOrder(rho[j], amp[j], tol) for j < m (sea.h): the same arithmetic, so the same orders, in
// lanes of 8 components, each block's loop over the orders ending where its last component has its own
// (no branch per component, whose orders vary from one to the next).
void MomentOrders(const double* rho, const double* amp, double tol, int m, int* N);

}  // namespace aurgen::core

#endif  // AURGEN_CORE_SEA_SERIES_H_
