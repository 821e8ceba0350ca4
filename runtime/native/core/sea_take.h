// A piece's volume and cap moments (sea_moments.cc FroudeKrylovMoments' Moments) from its fan triangles,
// in lanes: the only implementation (a piece of more triangles than FanTris holds takes the exact path).
//
// The piece's fan triangles (each a tetrahedron with its apex at the expansion point c) as
// structure-of-arrays, four at a time in vec4.h's lanes (AVX2 where the CPU has it, else SSE2, chosen at
// run time; the same bits): triangle t in lane t mod 4, each lane summing its triangles in order, the
// lanes added (0 + 1) + (2 + 3) at the end.  Per triangle (vertices y_j relative to c, w_j = w(y_j)):
// h_n(w0, w1, w2) by the running recursions h1 = w0^n, h2 = h1 + w1 h2', h3 = h2 + w2 h3', and
// g_j = h3 + w_j g_j' for the first moments; above the mean level w = i u.y is imaginary and
// h_n(i b) = i^n h_n(b), so the real recursions of b, each order's value in one slot.
#ifndef AURGEN_CORE_SEA_TAKE_H_
#define AURGEN_CORE_SEA_TAKE_H_

namespace aurgen::core {

// The fan triangles of a piece, relative to c (world axes, m): vertex j's coordinate a of triangle t at
// q[3 j + a][t]; v6 six times the tetrahedron's signed volume (m^3), a2 twice its area on the cap face
// (m^2; 0 off it).  n <= kMax.
struct FanTris {
  static constexpr int kMax = 128;
  int n = 0;
  double q[9][kMax];
  double v6[kMax], a2[kMax];
};

// s[16 n + 2 r + i] (n < N, r < 8, i re / im) = the moments below the mean level (above false: w = up.y +
// i u.y) or above it (above true: w = i u.y): rows 0 .. 3 the volume's int w^n / n! dV and int y w^n / n! dV, rows
// 4 .. 7 the cap's by area.
void TakeLanes(const FanTris& T, const double up[3], const double u[3], int N, bool above, double* s);

}  // namespace aurgen::core

#endif  // AURGEN_CORE_SEA_TAKE_H_
