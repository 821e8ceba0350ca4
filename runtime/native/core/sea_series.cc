// The per-component part of the Froude-Krylov moments, components in lanes (sea_series.h).
//
// Every loop runs over the chunk's components j, on contiguous arrays, with no branch and no sum
// across j: the compiler vectorises it (2 lanes in SSE2, 4 in AVX2) and each lane does, operation
// for operation, what FroudeKrylovMoments' scalar code did for its component (the same products and
// sums in the same order; -ffp-contract=off, and AVX2 is chosen without FMA), so the bits are the
// scalar code's at either width.  The one difference: a component whose order N is below the chunk's
// largest adds its zero powers' terms, 0 s = +-0, which changes nothing but, where a sum is exactly
// zero, the sign of that zero.
#include "sea_series.h"

#include "sea.h"

namespace aurgen::core {
namespace {

// The scratch of one chunk: A[q][j] for q < 16 (an order's 8 complex moments, (re, im) interleaved).
using Rows = double[16][kSeriesChunk];

// The accumulated terms (sea_moments.cc): Xs, Xi, Xa, Js[3], Ji[3], Ja[3] per component.
enum { kXs = 0, kXi = 1, kXa = 2, kJs = 3, kJi = 6, kJa = 9, kAcc = 12 };
using Acc = double[kAcc][kSeriesChunk];

// The field's term below the mean level (s = 1, the series S = E + O at +kn; C = (cr, ci)), and the
// finite depth's mirrored one (s = -1, the conjugate of the series at -kn: E - O, imaginary parts
// negated): sea_moments.cc's term(), its s and sign folded in (1 x = x and -1 x = -x exactly).
inline void TermBelow(const Rows& E, const Rows& O, int j, double cr, double ci, bool mirror, Acc& a) {
  double S[16];
  for (int i = 0; i < 16; ++i) S[i] = mirror ? E[i][j] - O[i][j] : E[i][j] + O[i][j];
  const double sg = mirror ? -1.0 : 1.0;
  const double ir = S[0], ii = sg * S[1];
  const double xs = cr * ir - ci * ii;
  a[kXs][j] += mirror ? -xs : xs;
  a[kXi][j] += cr * ii + ci * ir;
  a[kXa][j] += cr * S[8] - ci * (sg * S[9]);
  for (int c = 0; c < 3; ++c) {
    const double vr = S[2 + 2 * c], vi = sg * S[3 + 2 * c];
    const double js = cr * vr - ci * vi;
    a[kJs + c][j] += mirror ? -js : js;
    a[kJi + c][j] += cr * vi + ci * vr;
    a[kJa + c][j] += cr * S[10 + 2 * c] - ci * (sg * S[11 + 2 * c]);
  }
}

// Above the mean level (s = 0): the series' even orders real (E), odd imaginary (O).
inline void TermAbove(const Rows& E, const Rows& O, int j, double cr, double ci, Acc& a) {
  const double ir = E[0][j], ii = O[0][j];
  a[kXi][j] += cr * ii + ci * ir;
  a[kXa][j] += cr * E[4][j] - ci * O[4][j];
  for (int c = 0; c < 3; ++c) {
    const double vr = E[1 + c][j], vi = O[1 + c][j];
    a[kJi + c][j] += cr * vi + ci * vr;
    a[kJa + c][j] += cr * E[5 + c][j] - ci * O[5 + c][j];
  }
}

// 1 / n! as sea_moments.cc's table (the same running quotients, so the same bits)
struct InvFact {
  double inv[kMaxMomentOrder + 1];
  InvFact() {
    inv[0] = 1.0;
    for (int n = 1; n <= kMaxMomentOrder; ++n) inv[n] = inv[n - 1] / n;
  }
};
const InvFact kInvFact;

}  // namespace

#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
void MomentOrders(const double* rho, const double* amp, double tol, int m, int* N) {
  // MomentOrder's loop (sea_moments.cc): t = sqrt(2) amp rho^K, the bound met at the first K with
  // rho < K + 1 and t / K! (K + 1) <= tol (K + 1 - rho); none: kMaxMomentOrder + 1
  constexpr double kSqrt2 = 1.4142135623730951;
  constexpr int kB = 8;
  for (int j0 = 0; j0 < m; j0 += kB) {
    double r[kB], t[kB];
    int n[kB];
    for (int i = 0; i < kB; ++i) {  // a short block's spare lanes: rho 0, met at K = 1, never read
      r[i] = j0 + i < m ? rho[j0 + i] : 0.0;
      t[i] = j0 + i < m ? kSqrt2 * amp[j0 + i] : 0.0;
      n[i] = kMaxMomentOrder + 1;
    }
    for (int K = 1; K <= kMaxMomentOrder; ++K) {
      const double k1 = K + 1.0, f = kInvFact.inv[K];
      int open = 0;
      for (int i = 0; i < kB; ++i) {
        t[i] *= r[i];
        const bool met = r[i] < k1 && t[i] * f * k1 <= tol * (k1 - r[i]);
        n[i] = met && n[i] > kMaxMomentOrder ? K : n[i];
        open |= n[i] > kMaxMomentOrder;
      }
      if (!open) break;
    }
    for (int i = 0; i < kB && j0 + i < m; ++i) N[j0 + i] = n[i];
  }
}

// Chosen at run time on x86-64 Linux (an ifunc): AVX2 where the CPU has it (not FMA: the same bits).
#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
void SeriesForces(const double* sb, const double* su, int Ng, bool hasb, bool mirror, bool hasu,
                  const double n[3], const double nc[3], const SeriesIn& in, double out[6][kSeriesChunk]) {
  const int m = in.m;
  // kn^n for n < N, zero beyond (the scalar code's running product: kn^n = kn^(n-1) kn)
  double P[kMaxMomentOrder][kSeriesChunk];
  for (int j = 0; j < m; ++j) P[0][j] = 1.0;
  for (int k = 1; k < Ng; ++k)
    for (int j = 0; j < m; ++j) P[k][j] = k < in.N[j] ? P[k - 1][j] * in.kn[j] : 0.0;
  Acc a = {};  // whole (one store of the block, not one per row of m)
  Rows E, O;
  // each sum starts from its first order's term (E: order 0, O: order 1, or 0 where there is none), 1 s = s
  // as the scalar code's 0 + 1 s (but for the sign of a zero)
  if (hasb) {  // the even and odd orders' sums of the moments below the mean level
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < m; ++j) {
        E[i][j] = P[0][j] * sb[i];
        O[i][j] = Ng > 1 ? P[1][j] * sb[16 + i] : 0.0;
      }
    for (int k = 2; k < Ng; ++k) {
      const double* s = sb + 16 * k;
      Rows& A = (k & 1) ? O : E;
      for (int i = 0; i < 16; ++i) {
        const double si = s[i];
        for (int j = 0; j < m; ++j) A[i][j] += P[k][j] * si;
      }
    }
    for (int j = 0; j < m; ++j) TermBelow(E, O, j, in.a1[j] * in.zr[j], in.a1[j] * in.zi[j], false, a);
    if (mirror)
      for (int j = 0; j < m; ++j) TermBelow(E, O, j, in.a2[j] * in.zr[j], in.a2[j] * in.zi[j], true, a);
  }
  if (hasu) {  // above: the even orders' real parts (E[q]) and the odd ones' imaginary (O[q]), q < 8
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < m; ++j) {
        E[i][j] = P[0][j] * su[2 * i];
        O[i][j] = Ng > 1 ? P[1][j] * su[16 + 2 * i + 1] : 0.0;
      }
    for (int k = 2; k < Ng; ++k) {
      const double* s = su + 16 * k + (k & 1);
      Rows& A = (k & 1) ? O : E;
      for (int i = 0; i < 8; ++i) {
        const double si = s[2 * i];
        for (int j = 0; j < m; ++j) A[i][j] += P[k][j] * si;
      }
    }
    for (int j = 0; j < m; ++j) TermAbove(E, O, j, in.zr[j], in.zi[j], a);
  }
  // F = -a Re[kappa X] + n_c a Xa; T (about x0) = -a Re[Jv x kappa] + a Ja x n_c
  for (int j = 0; j < m; ++j) {
    const double kn = in.kn[j], k0 = in.k[0][j], k1 = in.k[1][j], k2 = in.k[2][j], amp = in.amp[j];
    const double xs = a[kXs][j], xi = a[kXi][j], xa = a[kXa][j];
    const double js0 = a[kJs][j], js1 = a[kJs + 1][j], js2 = a[kJs + 2][j];
    const double ji0 = a[kJi][j], ji1 = a[kJi + 1][j], ji2 = a[kJi + 2][j];
    const double ja0 = a[kJa][j], ja1 = a[kJa + 1][j], ja2 = a[kJa + 2][j];
    const double fv0 = kn * n[0] * xs - k0 * xi, fv1 = kn * n[1] * xs - k1 * xi, fv2 = kn * n[2] * xs - k2 * xi;
    const double tv0 = kn * (js1 * n[2] - js2 * n[1]) - (ji1 * k2 - ji2 * k1);
    const double tv1 = kn * (js2 * n[0] - js0 * n[2]) - (ji2 * k0 - ji0 * k2);
    const double tv2 = kn * (js0 * n[1] - js1 * n[0]) - (ji0 * k1 - ji1 * k0);
    out[0][j] = amp * (-fv0 + xa * nc[0]);
    out[1][j] = amp * (-fv1 + xa * nc[1]);
    out[2][j] = amp * (-fv2 + xa * nc[2]);
    out[3][j] = amp * (-tv0 + (ja1 * nc[2] - ja2 * nc[1]));
    out[4][j] = amp * (-tv1 + (ja2 * nc[0] - ja0 * nc[2]));
    out[5][j] = amp * (-tv2 + (ja0 * nc[1] - ja1 * nc[0]));
  }
}

}  // namespace aurgen::core
