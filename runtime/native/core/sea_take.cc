// TakeLanes (sea_take.h): a piece's volume and cap moments, four fan triangles at a time: built on V4 for
// AVX2 and on vec4.h's Lanes4 for every CPU, one chosen at run time (lanes.h W4Fast), the same bits.
#include "sea_take.h"

#include "sea.h"
#include "vec4.h"

#pragma GCC diagnostic ignored "-Wpsabi"  // vec4.h's helpers: inlined, their ABI never seen

namespace aurgen::core {
namespace {

struct InvFact {  // 1 / n! as sea_moments.cc's table (the same running quotients)
  double inv[kMaxMomentOrder + 5];
  InvFact() {
    inv[0] = 1.0;
    for (int n = 1; n < kMaxMomentOrder + 5; ++n) inv[n] = inv[n - 1] / n;
  }
};
const InvFact kInv;

template <class L>
AURGEN_V4_INLINE L K(double v) { return Set(v, L{}); }
template <class L>
AURGEN_V4_INLINE L At(const double* p, int t) { return Load(p + t, L{}); }

template <class L>
AURGEN_V4_INLINE void Take(const FanTris& T, const double up[3], const double u[3], int N, bool above, double* s) {
  L acc[kMaxMomentOrder][16];
  for (int n = 0; n < N; ++n)
    for (int r = 0; r < 16; ++r) acc[n][r] = K<L>(0.0);
  // the triangles padded to a multiple of four with empty ones (v6 = a2 = 0: they add zeros)
  double q[9][FanTris::kMax + 3], v6[FanTris::kMax + 3], a2[FanTris::kMax + 3];
  const int nt = (T.n + 3) / 4 * 4;
  for (int t = 0; t < nt; ++t) {
    const bool in = t < T.n;
    for (int c = 0; c < 9; ++c) q[c][t] = in ? T.q[c][t] : 0.0;
    v6[t] = in ? T.v6[t] : 0.0;
    a2[t] = in ? T.a2[t] : 0.0;
  }
  for (int t = 0; t < nt; t += 4) {
    bool cap = false;
    for (int l = 0; l < 4; ++l) cap |= a2[t + l] != 0.0;
    L Q[3][3];
    for (int j = 0; j < 3; ++j)
      for (int a = 0; a < 3; ++a) Q[j][a] = At<L>(q[3 * j + a], t);
    const L V6 = At<L>(v6, t), A2 = At<L>(a2, t);
    L wr[3], wi[3];
    for (int j = 0; j < 3; ++j) {
      wr[j] = K<L>(up[0]) * Q[j][0] + K<L>(up[1]) * Q[j][1] + K<L>(up[2]) * Q[j][2];  // Dot(up, q_j)
      wi[j] = K<L>(u[0]) * Q[j][0] + K<L>(u[1]) * Q[j][1] + K<L>(u[2]) * Q[j][2];
    }
    if (!above) {  // below: h_n(w0, w1, w2) by h1 = w0^n, h2 = h1 + w1 h2', h3 = h2 + w2 h3'; g_j = h3 + w_j g_j'
      L p0r = K<L>(1.0), p0i = K<L>(0.0), h2r = K<L>(1.0), h2i = K<L>(0.0), h3r = K<L>(1.0), h3i = K<L>(0.0);
      L gr[3], gi[3];
      for (int j = 0; j < 3; ++j) gr[j] = gi[j] = K<L>(0.0);
      for (int n = 0; n < N; ++n) {
        if (n > 0) {
          L x = p0r * wr[0] - p0i * wi[0];
          p0i = p0r * wi[0] + p0i * wr[0];
          p0r = x;
          x = p0r + (h2r * wr[1] - h2i * wi[1]);
          h2i = p0i + (h2r * wi[1] + h2i * wr[1]);
          h2r = x;
          x = h2r + (h3r * wr[2] - h3i * wi[2]);
          h3i = h2i + (h3r * wi[2] + h3i * wr[2]);
          h3r = x;
        }
        L sr[3] = {K<L>(0.0), K<L>(0.0), K<L>(0.0)}, si[3] = {K<L>(0.0), K<L>(0.0), K<L>(0.0)};  // sum_j y_j g_j
        for (int j = 0; j < 3; ++j) {
          const L x = h3r + (gr[j] * wr[j] - gi[j] * wi[j]);
          gi[j] = h3i + (gr[j] * wi[j] + gi[j] * wr[j]);
          gr[j] = x;
          for (int a = 0; a < 3; ++a) {
            sr[a] = sr[a] + Q[j][a] * gr[j];
            si[a] = si[a] + Q[j][a] * gi[j];
          }
        }
        L* o = acc[n];
        const L fa = V6 * K<L>(kInv.inv[n + 3]), fb = V6 * K<L>(kInv.inv[n + 4]);
        o[0] = o[0] + fa * h3r;
        o[1] = o[1] + fa * h3i;
        for (int a = 0; a < 3; ++a) {
          o[2 + 2 * a] = o[2 + 2 * a] + fb * sr[a];
          o[3 + 2 * a] = o[3 + 2 * a] + fb * si[a];
        }
        if (cap) {
          const L ca = A2 * K<L>(kInv.inv[n + 2]), cb = A2 * K<L>(kInv.inv[n + 3]);
          o[8] = o[8] + ca * h3r;
          o[9] = o[9] + ca * h3i;
          for (int a = 0; a < 3; ++a) {
            o[10 + 2 * a] = o[10 + 2 * a] + cb * sr[a];
            o[11 + 2 * a] = o[11 + 2 * a] + cb * si[a];
          }
        }
      }
    } else {  // above: w = i b, h_n(i b) = i^n h_n(b): the real recursions, each order in one slot
      const L* b = wi;
      L p0 = K<L>(1.0), h2 = K<L>(1.0), h3 = K<L>(1.0), g[3];
      for (int j = 0; j < 3; ++j) g[j] = K<L>(0.0);
      for (int n = 0; n < N; ++n) {
        if (n > 0) {
          p0 = p0 * b[0];
          h2 = p0 + h2 * b[1];
          h3 = h2 + h3 * b[2];
        }
        L sr[3] = {K<L>(0.0), K<L>(0.0), K<L>(0.0)};
        for (int j = 0; j < 3; ++j) {
          g[j] = h3 + g[j] * b[j];
          for (int a = 0; a < 3; ++a) sr[a] = sr[a] + Q[j][a] * g[j];
        }
        const int im = n & 1;
        const double sg = (n & 2) ? -1.0 : 1.0;
        L* o = acc[n];
        const L fa = K<L>(sg) * (V6 * K<L>(kInv.inv[n + 3])), fb = K<L>(sg) * (V6 * K<L>(kInv.inv[n + 4]));
        o[im] = o[im] + fa * h3;
        for (int a = 0; a < 3; ++a) o[2 + 2 * a + im] = o[2 + 2 * a + im] + fb * sr[a];
        if (cap) {
          const L ca = K<L>(sg) * (A2 * K<L>(kInv.inv[n + 2])), cb = K<L>(sg) * (A2 * K<L>(kInv.inv[n + 3]));
          o[8 + im] = o[8 + im] + ca * h3;
          for (int a = 0; a < 3; ++a) o[10 + 2 * a + im] = o[10 + 2 * a + im] + cb * sr[a];
        }
      }
    }
  }
  for (int n = 0; n < N; ++n)
    for (int r = 0; r < 16; ++r) {
      double l[4];
      Store(l, acc[n][r]);
      s[16 * n + r] = (l[0] + l[1]) + (l[2] + l[3]);
    }
}

#if defined(AURGEN_AVX2_BUILT)
__attribute__((target("avx2"))) void TakeAvx2(const FanTris& T, const double up[3], const double u[3], int N,
                                              bool above, double* s) {
  Take<vec4::V4>(T, up, u, N, above, s);
}
#endif

}  // namespace

void TakeLanes(const FanTris& T, const double up[3], const double u[3], int N, bool above, double* s) {
#if defined(AURGEN_AVX2_BUILT)
  if (lanes::W4Fast()) return TakeAvx2(T, up, u, N, above, s);
#endif
  Take<Lanes4>(T, up, u, N, above, s);
}

}  // namespace aurgen::core
