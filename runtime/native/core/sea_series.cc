// The per-component part of the Froude-Krylov moments, components in lanes (sea_series.h).
//
// Four components at a time (vec4.h: V4 for AVX2, Lanes4 for every CPU, one chosen at run time by
// lanes.h W4Fast), each lane doing, operation for operation, what
// FroudeKrylovMoments' scalar code did for its component (the same products and sums in the same order;
// -ffp-contract=off, and AVX2 is chosen without FMA), so the bits are the scalar code's at either width;
// the orders' bound likewise (MomentOrders), eight lanes at a time.  The one difference: a component
// whose order N is below the chunk's largest adds its zero powers' terms, 0 s = +-0, which changes
// nothing but, where a sum is exactly zero, the sign of that zero.
#include "sea_series.h"

#include "sea.h"
#include "vec4.h"

#pragma GCC diagnostic ignored "-Wpsabi"  // vec4.h's helpers: inlined, their ABI never seen

namespace aurgen::core {
namespace {

// The series' lanes on the lane type L (vec4.h V4 or Lanes4): the same operations on either.
template <class L>
struct Series {
  static AURGEN_V4_INLINE L K(double v) { return Set(v, L{}); }
  static AURGEN_V4_INLINE L At(const double* p) { return Load(p, L{}); }

  // Four components' accumulated terms (sea_moments.cc): Xs, Xi, Xa, Js, Ji, Ja.
  struct Terms {
    L xs, xi, xa, js[3], ji[3], ja[3];
    Terms() {
      xs = xi = xa = K(0.0);
      for (int c = 0; c < 3; ++c) js[c] = ji[c] = ja[c] = K(0.0);
    }
  };

  // The series' even and odd orders' sums for four components (their powers P[k] + j), nq rows of the
  // moments s0 (16 per order, ds apart per row; the odd orders' value at + odd): each in a register over the
  // orders, from its first order's term (1 s = s as the scalar code's 0 + 1 s, but for the sign of a zero).
  static AURGEN_V4_INLINE void Sums(const double (*P)[kSeriesChunk], int j, int Ng, const double* s0, int nq, int ds,
                                   int odd, L* e, L* o) {
    for (int i = 0; i < nq; ++i) {
      const double* s = s0 + ds * i;
      e[i] = At(P[0] + j) * K(s[0]);
      o[i] = Ng > 1 ? At(P[1] + j) * K(s[16 + odd]) : K(0.0);
      for (int k = 2; k < Ng; k += 2) {
        e[i] = e[i] + At(P[k] + j) * K(s[16 * k]);
        if (k + 1 < Ng) o[i] = o[i] + At(P[k + 1] + j) * K(s[16 * (k + 1) + odd]);
      }
    }
  }

  // The field's term below the mean level (s = 1, the series S = E + O at +kn; C = (cr, ci)), and the
  // finite depth's mirrored one (s = -1, the conjugate of the series at -kn: E - O, imaginary parts
  // negated): sea_moments.cc's term(), its s and sign folded in (1 x = x and -1 x = -x exactly).
  template <bool kMirror>
  static AURGEN_V4_INLINE void TermBelow(const L* e, const L* o, L cr, L ci, Terms& a) {
    L S[16];
    for (int i = 0; i < 16; ++i) S[i] = kMirror ? e[i] - o[i] : e[i] + o[i];
    const L sg = K(kMirror ? -1.0 : 1.0);
    const L ir = S[0], ii = sg * S[1];
    const L xs = cr * ir - ci * ii;
    a.xs = kMirror ? a.xs + K(-1.0) * xs : a.xs + xs;
    a.xi = a.xi + (cr * ii + ci * ir);
    a.xa = a.xa + (cr * S[8] - ci * (sg * S[9]));
    for (int c = 0; c < 3; ++c) {
      const L vr = S[2 + 2 * c], vi = sg * S[3 + 2 * c];
      const L js = cr * vr - ci * vi;
      a.js[c] = kMirror ? a.js[c] + K(-1.0) * js : a.js[c] + js;
      a.ji[c] = a.ji[c] + (cr * vi + ci * vr);
      a.ja[c] = a.ja[c] + (cr * S[10 + 2 * c] - ci * (sg * S[11 + 2 * c]));
    }
  }

  // Above the mean level (s = 0): the series' even orders real (e), odd imaginary (o).
  static AURGEN_V4_INLINE void TermAbove(const L* e, const L* o, L cr, L ci, Terms& a) {
    a.xi = a.xi + (cr * o[0] + ci * e[0]);
    a.xa = a.xa + (cr * e[4] - ci * o[4]);
    for (int c = 0; c < 3; ++c) {
      a.ji[c] = a.ji[c] + (cr * o[1 + c] + ci * e[1 + c]);
      a.ja[c] = a.ja[c] + (cr * e[5 + c] - ci * o[5 + c]);
    }
  }

  // SeriesForces' body (sea_series.h)
  static AURGEN_V4_INLINE void Forces(const double* sb, const double* su, int Ng, bool hasb, bool mirror, bool hasu,
                                      const double n[3], const double nc[3], const SeriesIn& in,
                                      double out[6][kSeriesChunk]) {
    const int m = in.m;
    // kn^n for n < N, zero beyond (the scalar code's running product: kn^n = kn^(n-1) kn)
    double P[kMaxMomentOrder][kSeriesChunk];
    for (int j = 0; j < m; ++j) P[0][j] = 1.0;
    for (int k = 1; k < Ng; ++k)
      for (int j = 0; j < m; ++j) P[k][j] = k < in.N[j] ? P[k - 1][j] * in.kn[j] : 0.0;
    // the inputs padded to whole blocks of four (the spare lanes' results never read)
    const int mp = (m + 3) / 4 * 4;
    double pad[10][kSeriesChunk];
    const double* src[10] = {in.kn, in.zr, in.zi, in.a1, in.a2, in.amp, in.k[0], in.k[1], in.k[2], nullptr};
    for (int c = 0; c < 9; ++c)
      for (int j = 0; j < mp; ++j) pad[c][j] = j < m ? src[c][j] : 0.0;
    for (int k = 0; k < Ng; ++k)
      for (int j = m; j < mp; ++j) P[k][j] = 0.0;
    const double *kn = pad[0], *zr = pad[1], *zi = pad[2], *a1 = pad[3], *a2 = pad[4], *amp = pad[5];
    const double *kx = pad[6], *ky = pad[7], *kz = pad[8];
    const L n0 = K(n[0]), n1 = K(n[1]), n2 = K(n[2]), c0 = K(nc[0]), c1 = K(nc[1]), c2 = K(nc[2]);
    for (int j = 0; j < mp; j += 4) {
      Terms a;
      const L Zr = At(zr + j), Zi = At(zi + j);
      if (hasb) {  // below the mean level: the 16 values of each order
        L e[16], o[16];
        Sums(P, j, Ng, sb, 16, 1, 0, e, o);
        const L A1 = At(a1 + j);
        TermBelow<false>(e, o, A1 * Zr, A1 * Zi, a);
        if (mirror) {
          const L A2 = At(a2 + j);
          TermBelow<true>(e, o, A2 * Zr, A2 * Zi, a);
        }
      }
      if (hasu) {  // above: the even orders' real parts and the odd ones' imaginary, 8 values
        L e[8], o[8];
        Sums(P, j, Ng, su, 8, 2, 1, e, o);
        TermAbove(e, o, Zr, Zi, a);
      }
      // F = -a Re[kappa X] + n_c a Xa; T (about x0) = -a Re[Jv x kappa] + a Ja x n_c
      const L Kn = At(kn + j), k0 = At(kx + j), k1 = At(ky + j), k2 = At(kz + j), Am = At(amp + j);
      const L fv0 = Kn * n0 * a.xs - k0 * a.xi, fv1 = Kn * n1 * a.xs - k1 * a.xi, fv2 = Kn * n2 * a.xs - k2 * a.xi;
      const L tv0 = Kn * (a.js[1] * n2 - a.js[2] * n1) - (a.ji[1] * k2 - a.ji[2] * k1);
      const L tv1 = Kn * (a.js[2] * n0 - a.js[0] * n2) - (a.ji[2] * k0 - a.ji[0] * k2);
      const L tv2 = Kn * (a.js[0] * n1 - a.js[1] * n0) - (a.ji[0] * k1 - a.ji[1] * k0);
      const L m1 = K(-1.0);
      Store(out[0] + j, Am * (m1 * fv0 + a.xa * c0));
      Store(out[1] + j, Am * (m1 * fv1 + a.xa * c1));
      Store(out[2] + j, Am * (m1 * fv2 + a.xa * c2));
      Store(out[3] + j, Am * (m1 * tv0 + (a.ja[1] * c2 - a.ja[2] * c1)));
      Store(out[4] + j, Am * (m1 * tv1 + (a.ja[2] * c0 - a.ja[0] * c2)));
      Store(out[5] + j, Am * (m1 * tv2 + (a.ja[0] * c1 - a.ja[1] * c0)));
    }
  }
};

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

#if defined(AURGEN_AVX2_BUILT)
namespace {
__attribute__((target("avx2"))) void SeriesForcesAvx2(const double* sb, const double* su, int Ng, bool hasb,
                                                      bool mirror, bool hasu, const double n[3], const double nc[3],
                                                      const SeriesIn& in, double out[6][kSeriesChunk]) {
  Series<vec4::V4>::Forces(sb, su, Ng, hasb, mirror, hasu, n, nc, in, out);
}
}  // namespace
#endif

// V4 in AVX2 where the CPU has it (lanes.h W4Fast; not FMA: the same bits), else Lanes4.
void SeriesForces(const double* sb, const double* su, int Ng, bool hasb, bool mirror, bool hasu,
                  const double n[3], const double nc[3], const SeriesIn& in, double out[6][kSeriesChunk]) {
#if defined(AURGEN_AVX2_BUILT)
  if (lanes::W4Fast()) return SeriesForcesAvx2(sb, su, Ng, hasb, mirror, hasu, n, nc, in, out);
#endif
  Series<Lanes4>::Forces(sb, su, Ng, hasb, mirror, hasu, n, nc, in, out);
}

}  // namespace aurgen::core
