// A piece's volume and cap moments (sea_moments.cc Take, TakeUp) with its fan triangles in lanes.
//
// The piece's fan triangles (each a tetrahedron with its apex at the expansion point c) as
// structure-of-arrays, four at a time in vec4.h's lanes (AVX2 where the CPU has it, else SSE2, chosen at
// run time; the same bits): triangle t in lane t mod 4, each lane summing its triangles in order, the
// lanes added (0 + 1) + (2 + 3) at the end.  The arithmetic per triangle is Take's and TakeUp's.
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

// s[16 n + 2 r + i] (n < N, r < 8, i re / im) = the moments Take (above false: w = up.y + i u.y) or TakeUp
// (above true: w = i u.y) writes: rows 0 .. 3 the volume's int w^n / n! dV and int y w^n / n! dV, rows
// 4 .. 7 the cap's by area.
void TakeLanes(const FanTris& T, const double up[3], const double u[3], int N, bool above, double* s);

}  // namespace aurgen::core

#endif  // AURGEN_CORE_SEA_TAKE_H_
