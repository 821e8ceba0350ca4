// The box tier of the kernel; see clip_box.h.
//
// Work frame u: the box reflected so that the plane normal has no negative
// component (m = |n|, the box is symmetric) and shifted to its deepest corner
// v0 = -(a, b, c): u in [0, L0] x [0, L1] x [0, L2], L = 2 (a, b, c), the
// submerged part m.u <= tau, tau = t + m.(a, b, c) >= 0 the depth of v0.
// Corner i (bits: i & 1 -> u_x = L0, i & 2 -> u_y = L1, i & 4 -> u_z = L2)
// has depth d_i = tau - m.u_i, which only decreases along +u; a corner is
// submerged when d_i >= 0 (the generic soup's rule n.x - t <= 0).  Results
// go back to the geom frame by x_k = s_k (u_k - h_k), s = sign(n) (+1 at 0).
#include "clip_box.h"

#include <cmath>

#include "lanes.h"

namespace aurgen::core {
namespace {

// Faces as corner loops c0 c1 c2 c3, counter-clockwise seen from outside, c0
// the face's deepest corner and c2 its shallowest.  The first three are the
// faces u_k = L_k opposite v0 (k = x, y, z), the last three pass through v0
// (u_k = 0), where u.normal = 0: they add nothing to the volume integrals,
// only their edge on the cap.
constexpr int kFaces[6][4] = {
    {1, 3, 7, 5}, {2, 6, 7, 3}, {4, 5, 7, 6},  // u_x = L0, u_y = L1, u_z = L2
    {0, 4, 6, 2}, {0, 1, 5, 4}, {0, 2, 3, 1},  // u_x = 0,  u_y = 0,  u_z = 0
};

inline void Corner(int i, const double L[3], double u[3]) {
  u[0] = (i & 1) ? L[0] : 0.0;
  u[1] = (i & 2) ? L[1] : 0.0;
  u[2] = (i & 4) ? L[2] : 0.0;
}

// Where the plane crosses the box edge from corner lo (submerged) to corner
// hi = lo + one bit (dry), from the table xc of BoxClip1 (each crossing is
// computed once, so the two faces sharing an edge get the same point).
inline void Crossing(int lo, int hi, const double xc[8][3], const double L[3], double u[3]) {
  int k = (hi ^ lo) == 1 ? 0 : ((hi ^ lo) == 2 ? 1 : 2);
  Corner(lo, L, u);
  u[k] = xc[lo][k];
}

// The prism case of BoxClip1: the plane crosses the four edges along axis k
// at heights z (u_k) over the corners (0, 0), (Lp, 0), (0, Lr), (Lp, Lr) of
// the cross-section in its axes p = k + 1, r = k + 2 (mod 3).  z is linear:
// z = zm + dp (u_p/Lp - 1/2) + dr (u_r/Lr - 1/2), so with S = Lp Lr
//   V = S zm,  ∫(u_p - h_p) dV = S Lp dp / 12,  ∫(u_k - h_k) dV = S (zm (zm - Lk)/2 + (dp² + dr²)/24),
// and the cap (the graph of z, area S / m_k) has its centroid over the middle
// of the cross-section at height zm, with central second moments
// A (Lp²/12, Lr²/12, (dp² + dr²)/12) and A Lp dp/12 (p, k), A Lr dr/12 (r, k).
void Prism(int k, const double d[8], const double L[3], const double h[3], const double sg[3],
           const double m[3], bool want_wp, double* acc) {
  const int p = (k + 1) % 3, r = (k + 2) % 3;
  const int bk = 1 << k, lo[4] = {0, 1 << p, 1 << r, (1 << p) | (1 << r)};
  double z[4];
  for (int i = 0; i < 4; ++i)  // as xc[lo][k] in BoxClip1
    z[i] = L[k] * (d[lo[i]] / (d[lo[i]] - d[lo[i] | bk]));
  const double S = L[p] * L[r];
  const double zm = 0.25 * ((z[0] + z[1]) + (z[2] + z[3]));
  const double dp = 0.5 * ((z[1] + z[3]) - (z[0] + z[2]));
  const double dr = 0.5 * ((z[2] + z[3]) - (z[0] + z[1]));
  const double q2 = dp * dp + dr * dr;
  const double A = S / m[k];
  acc[0] = S * zm;
  acc[1 + p] = sg[p] * (S * (L[p] * dp / 12.0));
  acc[1 + r] = sg[r] * (S * (L[r] * dr / 12.0));
  acc[1 + k] = sg[k] * (S * (0.5 * zm * (zm - L[k]) + q2 / 24.0));
  acc[4] = A;
  const double ck = zm - h[k];  // the cap's centroid, centred frame: (0, 0, ck) in (p, r, k)
  acc[5 + p] = 0.0;
  acc[5 + r] = 0.0;
  acc[5 + k] = sg[k] * (A * ck);
  if (!want_wp) {
    for (int e = 8; e < kNAcc; ++e) acc[e] = 0.0;
    return;
  }
  double J[3][3];  // about the origin, reflected frame
  J[p][p] = A * (L[p] * L[p]) / 12.0;
  J[r][r] = A * (L[r] * L[r]) / 12.0;
  J[k][k] = A * q2 / 12.0 + A * ck * ck;
  J[p][r] = J[r][p] = 0.0;
  J[p][k] = J[k][p] = A * (L[p] * dp) / 12.0;
  J[r][k] = J[k][r] = A * (L[r] * dr) / 12.0;
  static constexpr int kI[6] = {0, 1, 2, 0, 0, 1}, kJ[6] = {0, 1, 2, 1, 2, 2};
  for (int e = 0; e < 6; ++e) acc[8 + e] = sg[kI[e]] * sg[kJ[e]] * J[kI[e]][kJ[e]];
}

}  // namespace

void BoxClip1(double a, double b, double c, double nx, double ny, double nz, double t,
              bool want_wp, double* acc) {
  const double h[3] = {a, b, c};
  const double L[3] = {2.0 * a, 2.0 * b, 2.0 * c};
  const double sg[3] = {nx < 0.0 ? -1.0 : 1.0, ny < 0.0 ? -1.0 : 1.0, nz < 0.0 ? -1.0 : 1.0};
  const double m[3] = {std::fabs(nx), std::fabs(ny), std::fabs(nz)};
  // depth t - m.y of corner y = (±a, ±b, ±c) (reflected frame), summed as the
  // support test sums h = a m0 + b m1 + c m2, so corner 0 (depth t + h) is wet
  // and corner 7 (t - h) dry exactly when ClipGeom's support test says the
  // plane cuts; rounding is monotone, so d never increases along +u
  const double am = a * m[0], bm = b * m[1], cm = c * m[2];
  double d[8];
  for (int i = 0; i < 8; ++i)
    d[i] = t - (((i & 1) ? am : -am) + ((i & 2) ? bm : -bm) + ((i & 4) ? cm : -cm));
  const double tau = d[0];
  if (d[0] < 0.0 || d[7] >= 0.0) {  // wholly above / below the plane: no cap
    // (element-wise: a 14-double memset compiles to a slow `rep stos` here)
    acc[0] = d[0] < 0.0 ? 0.0 : 8.0 * a * b * c;
    for (int i = 1; i < kNAcc; ++i) acc[i] = 0.0;
    return;
  }
  // the plane crosses the four edges along one axis k (the face u_k = 0 wet,
  // the face u_k = L_k dry; a level pontoon at the waterline): a prism under a
  // plane, in closed form
  for (int k = 0; k < 3; ++k) {
    const int bk = 1 << k;
    if (d[7 ^ bk] >= 0.0 && d[bk] < 0.0) {
      Prism(k, d, L, h, sg, m, want_wp, acc);
      return;
    }
  }
  // the crossings of the cut edges: xc[lo][k] = u_k where the plane crosses
  // the edge from corner lo along +u_k (d[lo] >= 0 > d[hi]); other entries
  // are never read
  double xc[8][3];
  for (int lo = 0; lo < 8; ++lo)
    for (int k = 0; k < 3; ++k) {
      int hi = lo | (1 << k);
      if (hi != lo && d[lo] >= 0.0 && d[hi] < 0.0) xc[lo][k] = L[k] * (d[lo] / (d[lo] - d[hi]));
    }
  // the cap's normal is m: twice a fan triangle's area is its cross product's
  // component along m's largest axis K over m_K (>= 1/sqrt(3))
  const int K = m[0] >= m[1] ? (m[0] >= m[2] ? 0 : 2) : (m[1] >= m[2] ? 1 : 2);
  const int K1 = (K + 1) % 3, K2 = (K + 2) % 3;
  const double inv_mK = 1.0 / m[K];
  double vsum = 0.0, msum[3] = {0.0, 0.0, 0.0};  // sum L_k A_k, sum L_k ∫_face u dA
  bool has_q = false;
  double q[3] = {0.0, 0.0, 0.0};  // fan apex of the cap: its first vertex
  double A2 = 0.0, C1[3] = {0.0, 0.0, 0.0}, C2[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
  for (int f = 0; f < 6; ++f) {
    const int c0 = kFaces[f][0], c1 = kFaces[f][1], c2 = kFaces[f][2], c3 = kFaces[f][3];
    const bool far = f < 3;
    // far face: empty when its deepest corner is dry (never full: corner 7 is
    // dry); near face: no cap edge when its shallowest corner is submerged
    // (never empty: it holds v0).  Otherwise c0 is wet and c2 dry, and the
    // face is c0, [c1], exit, entry, [c3] with the brackets present when wet.
    if (far ? d[c0] < 0.0 : d[c2] >= 0.0) continue;
    const bool wet1 = d[c1] >= 0.0, wet3 = d[c3] >= 0.0;
    double ex[3], ent[3];  // leaving the water along the loop, entering it
    if (wet1) {
      Crossing(c1, c2, xc, L, ex);
    } else {
      Crossing(c0, c1, xc, L, ex);
    }
    if (wet3) {
      Crossing(c3, c2, xc, L, ent);
    } else {
      Crossing(c0, c3, xc, L, ent);
    }
    if (far) {
      // shoelace from c0 (the origin of the face's in-plane axes (p, r),
      // counter-clockwise seen from +u_k): an absent corner is replaced by
      // its neighbouring crossing, a zero-length edge adding nothing
      const int k = f, pa = (k + 1) % 3, ra = (k + 2) % 3;
      double v1[3], v4[3];
      if (wet1) {
        Corner(c1, L, v1);
      } else {
        v1[pa] = ex[pa];
        v1[ra] = ex[ra];
      }
      if (wet3) {
        Corner(c3, L, v4);
      } else {
        v4[pa] = ent[pa];
        v4[ra] = ent[ra];
      }
      double cr1 = v1[pa] * ex[ra] - ex[pa] * v1[ra];
      double cr2 = ex[pa] * ent[ra] - ent[pa] * ex[ra];
      double cr3 = ent[pa] * v4[ra] - v4[pa] * ent[ra];
      double area = 0.5 * (cr1 + cr2 + cr3);
      double sp = cr1 * (v1[pa] + ex[pa]) + cr2 * (ex[pa] + ent[pa]) + cr3 * (ent[pa] + v4[pa]);
      double sr = cr1 * (v1[ra] + ex[ra]) + cr2 * (ex[ra] + ent[ra]) + cr3 * (ent[ra] + v4[ra]);
      vsum += L[k] * area;
      msum[k] += L[k] * (L[k] * area);
      msum[pa] += L[k] * (sp / 6.0);
      msum[ra] += L[k] * (sr / 6.0);
    }
    // the cap's edge on this face runs entry -> exit (the face's own closing
    // edge runs exit -> entry); fan triangle (q, entry, exit)
    if (!has_q) {
      has_q = true;
      q[0] = ent[0];
      q[1] = ent[1];
      q[2] = ent[2];
    }
    double w1[3] = {ent[0] - q[0], ent[1] - q[1], ent[2] - q[2]};
    double w2[3] = {ex[0] - q[0], ex[1] - q[1], ex[2] - q[2]};
    double a2 = (w1[K1] * w2[K2] - w1[K2] * w2[K1]) * inv_mK;
    A2 += a2;
    double s[3] = {w1[0] + w2[0], w1[1] + w2[1], w1[2] + w2[2]};
    C1[0] += a2 * s[0];
    C1[1] += a2 * s[1];
    C1[2] += a2 * s[2];
    if (want_wp) {
      static constexpr int kI[6] = {0, 1, 2, 0, 0, 1}, kJ[6] = {0, 1, 2, 1, 2, 2};
      for (int r = 0; r < 6; ++r) {
        int i = kI[r], j = kJ[r];
        C2[r] += a2 * (w1[i] * w1[j] + w2[i] * w2[j] + s[i] * s[j]);
      }
    }
  }
  // cap: area, ∫u dA (u frame)
  const double A = 0.5 * A2;
  const double cw[3] = {C1[0] / 6.0, C1[1] / 6.0, C1[2] / 6.0};  // ∫(u - q) dA
  double cu[3];
  for (int k = 0; k < 3; ++k) cu[k] = q[k] * A + cw[k];
  const double V = (vsum + tau * A) / 3.0;
  acc[0] = V;
  acc[4] = A;
  for (int k = 0; k < 3; ++k) {
    double mu = (msum[k] + tau * cu[k]) / 4.0;  // ∫u_k dV
    acc[1 + k] = sg[k] * (mu - h[k] * V);
    acc[5 + k] = sg[k] * (cu[k] - h[k] * A);
  }
  if (!want_wp) {
    for (int e = 8; e < kNAcc; ++e) acc[e] = 0.0;
    return;
  }
  // ∫x_i x_j dA = s_i s_j ∫(w_i + r_i)(w_j + r_j) dA, w = u - q, r = q - h
  static constexpr int kI[6] = {0, 1, 2, 0, 0, 1}, kJ[6] = {0, 1, 2, 1, 2, 2};
  const double r[3] = {q[0] - h[0], q[1] - h[1], q[2] - h[2]};
  for (int e = 0; e < 6; ++e) {
    int i = kI[e], j = kJ[e];
    double J = C2[e] / 24.0 + r[i] * cw[j] + r[j] * cw[i] + r[i] * r[j] * A;
    acc[8 + e] = sg[i] * sg[j] * J;
  }
}

void BoxClipRow(const double size[3], const double pos[3], const double R[9], const double pl[4],
                double row[5]) {
  // the same operations as ClipGeom (kernel.cc) in the same order
  const double wx = pl[0], wy = pl[1], wz = pl[2];
  const double px = pos[0], py = pos[1], pz = pos[2];
  const double lx = R[0] * wx + R[3] * wy + R[6] * wz;
  const double ly = R[1] * wx + R[4] * wy + R[7] * wz;
  const double lz = R[2] * wx + R[5] * wy + R[8] * wz;
  const double t = pl[3] - (wx * px + wy * py + wz * pz);
  const double h = size[0] * std::fabs(lx) + size[1] * std::fabs(ly) + size[2] * std::fabs(lz);
  double V, cx, cy, cz, A;
  if (-h >= t) {  // wholly above the plane
    row[0] = 0.0;
    row[1] = px;
    row[2] = py;
    row[3] = pz;
    row[4] = 0.0;
    return;
  }
  if (h <= t) {  // wholly below: the full box, centroid at its centre
    V = 8.0 * size[0] * size[1] * size[2];
    cx = cy = cz = 0.0;
    A = 0.0;
  } else {
    double acc[kNAcc];
    BoxClip1(size[0], size[1], size[2], lx, ly, lz, t, false, acc);
    V = acc[0];
    A = acc[4];
    if (V > 0.0) {
      cx = acc[1] / V;
      cy = acc[2] / V;
      cz = acc[3] / V;
    } else {
      V = 0.0;
      cx = cy = cz = 0.0;
    }
  }
  row[0] = V;
  row[1] = px + R[0] * cx + R[1] * cy + R[2] * cz;
  row[2] = py + R[3] * cx + R[4] * cy + R[5] * cz;
  row[3] = pz + R[6] * cx + R[7] * cy + R[8] * cz;
  row[4] = A;
}

namespace {

// BoxClipRow's operations for the boxes ii[0..lanes), one per lane: the plane to
// the geom frame, the support test, BoxClip1's corner depths and its prism
// across axis k = 2 (p = 0, r = 1), the centroid to world.  A lane cut any
// other way (a corner, a wedge, a prism across x or y) is left to BoxClipRow.
template <class L, class M>
AURGEN_W4_INLINE void Rows(const int64_t* ii, const double* sizes, const double* pos, const double* mats,
                 const double pl[4], double* out, int W) {
  using namespace lanes;  // NOLINT: the lane types and their operators
  const L z{};
  const L zero = Set(0.0, z), one = Set(1.0, z), two = Set(2.0, z);
  const L wx = Set(pl[0], z), wy = Set(pl[1], z), wz = Set(pl[2], z);
  L R[9];
  for (int j = 0; j < 9; ++j) R[j] = Gather(mats, ii, 9, j, z);
  const L P0 = Gather(pos, ii, 3, 0, z), P1 = Gather(pos, ii, 3, 1, z), P2 = Gather(pos, ii, 3, 2, z);
  const L a = Gather(sizes, ii, 3, 0, z), b = Gather(sizes, ii, 3, 1, z), c = Gather(sizes, ii, 3, 2, z);
  const L lx = R[0] * wx + R[3] * wy + R[6] * wz;
  const L ly = R[1] * wx + R[4] * wy + R[7] * wz;
  const L lz = R[2] * wx + R[5] * wy + R[8] * wz;
  const L t = Set(pl[3], z) - (wx * P0 + wy * P1 + wz * P2);
  const L m0 = Abs(lx), m1 = Abs(ly), m2 = Abs(lz);
  const L am = a * m0, bm = b * m1, cm = c * m2;
  const L h = am + bm + cm;  // the support (size_0 |l_0| + size_1 |l_1| + size_2 |l_2|)
  const auto dry = -h >= t;
  const auto full = AndNot(dry, h <= t);
  // BoxClip1's corner depths d_i = t - (±am ± bm ± cm) of the corners the prism reads
  const L d0 = t - (-am + -bm + -cm), d1 = t - (am + -bm + -cm), d2 = t - (-am + bm + -cm);
  const L d3 = t - (am + bm + -cm), d4 = t - (-am + -bm + cm), d5 = t - (am + -bm + cm);
  const L d6 = t - (-am + bm + cm), d7 = t - (am + bm + cm);
  const auto cut = AndNot(dry | full, Set(1.0, z) > zero);
  // the prism across z: the face z = -c wet at its shallowest corner (3), the face
  // z = +c dry at its deepest (4); no prism across x or y can hold with it
  const auto prism = cut & ((d3 >= zero) & (d4 < zero));
  L V = Set(8.0, z) * a * b * c, Mx = zero, My = zero, Mz = zero, A = zero;
  if (Any(prism)) {
    const L Lp = two * a, Lr = two * b, Lk = two * c;
    const L z0 = Lk * (d0 / (d0 - d4)), z1 = Lk * (d1 / (d1 - d5));
    const L z2 = Lk * (d2 / (d2 - d6)), z3 = Lk * (d3 / (d3 - d7));
    const L S = Lp * Lr;
    const L zm = Set(0.25, z) * ((z0 + z1) + (z2 + z3));
    const L dp = Set(0.5, z) * ((z1 + z3) - (z0 + z2));
    const L dr = Set(0.5, z) * ((z2 + z3) - (z0 + z1));
    const L q2 = dp * dp + dr * dr;
    const L sg0 = Sel(lx < zero, Set(-1.0, z), one), sg1 = Sel(ly < zero, Set(-1.0, z), one);
    const L sg2 = Sel(lz < zero, Set(-1.0, z), one);
    const L Vp = S * zm;
    V = Sel(prism, Vp, V);
    Mx = Sel(prism, sg0 * (S * (Lp * dp / Set(12.0, z))), Mx);
    My = Sel(prism, sg1 * (S * (Lr * dr / Set(12.0, z))), My);
    Mz = Sel(prism, sg2 * (S * (Set(0.5, z) * zm * (zm - Lk) + q2 / Set(24.0, z))), Mz);
    A = Sel(prism, S / m2, A);
  }
  PutRows(out, ii, W, R, P0, P1, P2, V, Mx, My, Mz, A, dry);
  // the other cuts, one box at a time
  const auto other = AndNot(prism, cut);
  if (Any(other)) {
    constexpr int kLanes = sizeof(L) / sizeof(double);
    for (int j = 0; j < kLanes; ++j)
      if (Lane(other, j)) {
        double* row = out + static_cast<int64_t>(W) * ii[j];
        BoxClipRow(sizes + 3 * ii[j], pos + 3 * ii[j], mats + 9 * ii[j], pl, row);
        for (int col = 5; col < W; ++col) row[col] = 0.0;
      }
  }
}

}  // namespace

#if defined(AURGEN_AVX2_BUILT)
namespace {
// BoxRows' boxes four at a time (lanes.h W4) in AVX2, called only where the CPU runs it (W4Fast); how
// many it did.
__attribute__((target("avx2"))) int BoxRows4(const int64_t* idx, int n, const double* sizes, const double* pos,
                                             const double* mats, const double pl[4], double* out, int W) {
  int k = 0;
  for (; k + 4 <= n; k += 4) Rows<lanes::W4, lanes::MW4>(idx + k, sizes, pos, mats, pl, out, W);
  return k;
}
}  // namespace
#endif

void BoxRows(const int64_t* idx, int n, const double* sizes, const double* pos,
             const double* mats, const double pl[4], double* out, int W) {
  int k = 0;
#if defined(AURGEN_AVX2_BUILT)
  if (lanes::W4Fast()) k = BoxRows4(idx, n, sizes, pos, mats, pl, out, W);
#endif
#if defined(__SSE2__)
  for (; k + 2 <= n; k += 2) Rows<lanes::D2, lanes::M2>(idx + k, sizes, pos, mats, pl, out, W);
#endif
  for (; k < n; ++k) Rows<lanes::D1, lanes::M1>(idx + k, sizes, pos, mats, pl, out, W);
}

}  // namespace aurgen::core
