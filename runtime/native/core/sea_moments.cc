// Froude-Krylov by volume moments (sea.h FroudeKrylovMoments; docs/kernel.md "Waves").
//
// A piece (a box or mesh hull clipped by its cell's planes, the tangent plane among them) is built
// as a convex polyhedron (faces: polygons, each labelled with the plane it lies on), split at the
// mean level (the field's rule changes there), and its moments about its centroid c taken by the
// simplex formula: for a tetrahedron (apex c, base triangle y0 y1 y2) of signed volume V and a
// linear w(y) with values w_j at the base,
//   int w^n / n! dV = 6 V h_n(w_0, w_1, w_2) / (n + 3)!
//   int y w^n / n! dV = 6 V / (n + 4)! sum_j y_j h_n(w_0, w_1, w_2, w_j)
// (h_n the complete homogeneous symmetric polynomial; the triangle's area moments likewise with
// (n + 2)!, (n + 3)!).  The field's term C e^{kappa.x} = C e^{kappa.c} e^{k w(y)}, with
// w = n.y + i khat.y below the mean level (deep; at finite depth also -n.y + i khat.y, whose
// moments are (-1)^n conj of the first's) and i khat.y above, is then the series
// sum_n k^n int w^n / n!, truncated where the bound allows (MomentOrder).
#include <algorithm>
#include <cmath>
#include <limits>

#include "sea.h"
#include "sea_series.h"
#include "sea_take.h"

namespace aurgen::core {
namespace {

constexpr int kMaxF = 40, kMaxV = 24;   // a polyhedron's faces, a face's vertices
constexpr int kMaxWaves = 256;          // the components a piece's scratch holds (schema.h's limit)
constexpr int kLevel = -2;              // the label of a face on the mean level
constexpr int kK = kMaxMomentOrder;     // moments n < kK

inline double Dot(const double* a, const double* b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

struct Poly {
  int nf = 0;
  int label[kMaxF];
  int nv[kMaxF];
  double v[kMaxF][kMaxV][3];
};

// The box lo..hi (geom frame) in the world relative to the geom's origin (R: frame -> world).
void BoxPoly(const double lo[3], const double hi[3], const double R[9], Poly* P) {
  static const int kFace[6][4] = {{0, 2, 6, 4}, {1, 5, 7, 3}, {0, 4, 5, 1}, {2, 3, 7, 6}, {0, 1, 3, 2}, {4, 6, 7, 5}};
  double c[8][3];
  for (int i = 0; i < 8; ++i) {
    const double q[3] = {(i & 4) ? hi[0] : lo[0], (i & 2) ? hi[1] : lo[1], (i & 1) ? hi[2] : lo[2]};
    for (int a = 0; a < 3; ++a) c[i][a] = R[3 * a] * q[0] + R[3 * a + 1] * q[1] + R[3 * a + 2] * q[2];
  }
  double m[3] = {0.0, 0.0, 0.0};
  for (int i = 0; i < 8; ++i)
    for (int a = 0; a < 3; ++a) m[a] += 0.125 * c[i][a];
  P->nf = 6;
  for (int f = 0; f < 6; ++f) {
    P->label[f] = -1;
    P->nv[f] = 4;
    for (int j = 0; j < 4; ++j) std::copy(c[kFace[f][j]], c[kFace[f][j]] + 3, P->v[f][j]);
    // counter-clockwise seen from outside: (v1 - v0) x (v2 - v0) along the face's outward side
    const double* v0 = P->v[f][0];
    const double e1[3] = {P->v[f][1][0] - v0[0], P->v[f][1][1] - v0[1], P->v[f][1][2] - v0[2]};
    const double e2[3] = {P->v[f][2][0] - v0[0], P->v[f][2][1] - v0[1], P->v[f][2][2] - v0[2]};
    const double nr[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
    const double o[3] = {v0[0] - m[0], v0[1] - m[1], v0[2] - m[2]};
    if (Dot(nr, o) < 0.0) {
      std::swap(P->v[f][1][0], P->v[f][3][0]);
      std::swap(P->v[f][1][1], P->v[f][3][1]);
      std::swap(P->v[f][1][2], P->v[f][3][2]);
    }
  }
}

// in clipped to n.y <= d (the new face labelled label): &in where the plane cuts nothing off, else out
// (written); null where out's scratch is short.
// A vertex within kOnPlane of the polyhedron's extent from the plane is on it (a plane met twice, a
// mesh hull's coplanar faces, cuts nothing off and makes no sliver face).
constexpr double kOnPlane = 1e-12;

inline double Side(const double n[3], double d, const double x[3], double eps) {
  const double s = Dot(n, x) - d;
  return std::fabs(s) <= eps ? 0.0 : s;
}

// An angle's stand-in for sorting, in the order of atan2(y, x) over [-pi, pi] (signed zeros as atan2
// takes them): the position on the unit diamond |x| + |y| = 1, from -2 (the direction -x, y = -0) to 2.
inline double PseudoAngle(double x, double y) {
  const double s = std::fabs(x) + std::fabs(y);
  const double q = s > 0.0 ? y / s : 0.0;  // -1 .. 1
  const bool neg = std::signbit(y);
  return !std::signbit(x) || (s > 0.0 && x >= 0.0) ? (neg ? -std::fabs(q) : std::fabs(q))
                                                   : (neg ? -2.0 - q : 2.0 - q);
}

const Poly* Clip(const Poly& in, const double n[3], double d, int label, Poly* out) {
  double ext = std::fabs(d);
  for (int f = 0; f < in.nf; ++f)
    for (int i = 0; i < in.nv[f]; ++i)
      for (int a = 0; a < 3; ++a) ext = std::max(ext, std::fabs(in.v[f][i][a]));
  const double eps = kOnPlane * ext;
  bool cuts = false, keeps = false;
  for (int f = 0; f < in.nf; ++f)
    for (int i = 0; i < in.nv[f]; ++i) {
      const double s = Side(n, d, in.v[f][i], eps);
      cuts |= s > 0.0;
      keeps |= s < 0.0;
    }
  if (!cuts) return &in;
  out->nf = 0;
  if (!keeps) return out;
  double cut[2 * kMaxF + kMaxV][3];
  int nc = 0;
  for (int f = 0; f < in.nf; ++f) {
    if (out->nf >= kMaxF) return nullptr;
    const int m = in.nv[f], o = out->nf;
    double s[kMaxV];
    for (int i = 0; i < m; ++i) s[i] = Side(n, d, in.v[f][i], eps);
    int k = 0;
    auto push = [&](const double* x, bool oncut) {
      if (k >= kMaxV || (oncut && nc >= 2 * kMaxF + kMaxV)) return false;
      std::copy(x, x + 3, out->v[o][k++]);
      if (oncut) std::copy(x, x + 3, cut[nc++]);
      return true;
    };
    for (int i = 0; i < m; ++i) {
      const int j = (i + 1) % m;
      if (s[i] <= 0.0 && !push(in.v[f][i], s[i] == 0.0)) return nullptr;
      if ((s[i] < 0.0 && s[j] > 0.0) || (s[i] > 0.0 && s[j] < 0.0)) {
        const int a = s[i] < 0.0 ? i : j, b = s[i] < 0.0 ? j : i;  // inside, outside: one edge, one point
        const double t = s[a] / (s[a] - s[b]);
        const double* pa = in.v[f][a];
        const double* pb = in.v[f][b];
        const double x[3] = {pa[0] + t * (pb[0] - pa[0]), pa[1] + t * (pb[1] - pa[1]), pa[2] + t * (pb[2] - pa[2])};
        if (!push(x, true)) return nullptr;
      }
    }
    if (k >= 3) {
      out->label[o] = in.label[f];
      out->nv[o] = k;
      ++out->nf;
    }
  }
  if (nc < 3) return out;
  // the new face: the cut points in order about n (counter-clockwise seen from +n, outward)
  double m[3] = {0.0, 0.0, 0.0};
  for (int i = 0; i < nc; ++i)
    for (int a = 0; a < 3; ++a) m[a] += cut[i][a] / nc;
  const double ax[3] = {std::fabs(n[0]) < 0.9 ? 1.0 : 0.0, std::fabs(n[0]) < 0.9 ? 0.0 : 1.0, 0.0};
  double e1[3] = {ax[0] - Dot(ax, n) * n[0], ax[1] - Dot(ax, n) * n[1], ax[2] - Dot(ax, n) * n[2]};
  const double l = std::sqrt(Dot(e1, e1));
  for (double& x : e1) x /= l;
  const double e2[3] = {n[1] * e1[2] - n[2] * e1[1], n[2] * e1[0] - n[0] * e1[2], n[0] * e1[1] - n[1] * e1[0]};
  double ang[2 * kMaxF + kMaxV];
  int idx[2 * kMaxF + kMaxV];
  for (int i = 0; i < nc; ++i) {
    const double r[3] = {cut[i][0] - m[0], cut[i][1] - m[1], cut[i][2] - m[2]};
    ang[i] = PseudoAngle(Dot(e1, r), Dot(e2, r));
    idx[i] = i;
  }
  std::sort(idx, idx + nc, [&](int a, int b) { return ang[a] < ang[b] || (ang[a] == ang[b] && a < b); });
  if (out->nf >= kMaxF) return nullptr;
  const int o = out->nf;
  int k = 0;
  for (int q = 0; q < nc; ++q) {
    const double* x = cut[idx[q]];
    if (k > 0 && x[0] == out->v[o][k - 1][0] && x[1] == out->v[o][k - 1][1] && x[2] == out->v[o][k - 1][2]) continue;
    if (k >= kMaxV) return nullptr;
    std::copy(x, x + 3, out->v[o][k++]);
  }
  while (k > 1 && out->v[o][k - 1][0] == out->v[o][0][0] && out->v[o][k - 1][1] == out->v[o][0][1] &&
         out->v[o][k - 1][2] == out->v[o][0][2])
    --k;
  if (k >= 3) {
    out->label[o] = label;
    out->nv[o] = k;
    ++out->nf;
  }
  return out;
}

// The volume (the divergence theorem over the faces' fans).
double Volume(const Poly& P) {
  double V = 0.0;
  if (P.nf == 0) return 0.0;
  const double* O = P.v[0][0];
  for (int f = 0; f < P.nf; ++f)
    for (int i = 1; i + 1 < P.nv[f]; ++i) {
      const double a[3] = {P.v[f][0][0] - O[0], P.v[f][0][1] - O[1], P.v[f][0][2] - O[2]};
      const double b[3] = {P.v[f][i][0] - O[0], P.v[f][i][1] - O[1], P.v[f][i][2] - O[2]};
      const double e[3] = {P.v[f][i + 1][0] - O[0], P.v[f][i + 1][1] - O[1], P.v[f][i + 1][2] - O[2]};
      V += a[0] * (b[1] * e[2] - b[2] * e[1]) + a[1] * (b[2] * e[0] - b[0] * e[2]) + a[2] * (b[0] * e[1] - b[1] * e[0]);
    }
  return V / 6.0;
}

// A piece's moments in one direction about x0 (vertices relative to it): w = n.y + i u.y below the mean level;
// s[0] = int w^n / n! dV, s[1 + a] = int y_a w^n / n! dV, and the cap's (faces labelled cap) by area,
// s[4] and s[5 + a]; each (re, im) for n < N, laid out by order (s[n][q][i]: an order's 16 values
// contiguous, so the series' sums over them are packed operations).
struct Moments {
  double s[kK][8][2];
};

struct Fact {
  double inv[kK + 5];  // 1 / n!
  Fact() {
    inv[0] = 1.0;
    for (int n = 1; n < kK + 5; ++n) inv[n] = inv[n - 1] / n;
  }
};
const Fact kFact;

// f(q, v6, a2, cap) for every triangle of the faces' fans (face k: vertices 0, i, i + 1): its vertices
// relative to c (q), six times the signed volume of the tetrahedron on it with its apex at c (v6), and,
// on a face labelled cap, twice its area (a2; else 0).
template <class F>
inline void EachFanTriangle(const Poly& P, const double c[3], int cap, F&& f) {
  for (int k = 0; k < P.nf; ++k) {
    const bool isc = P.label[k] == cap;
    for (int i = 1; i + 1 < P.nv[k]; ++i) {
      double q[3][3];
      for (int a = 0; a < 3; ++a) {
        q[0][a] = P.v[k][0][a] - c[a];
        q[1][a] = P.v[k][i][a] - c[a];
        q[2][a] = P.v[k][i + 1][a] - c[a];
      }
      const double v6 = q[0][0] * (q[1][1] * q[2][2] - q[1][2] * q[2][1]) +
                        q[0][1] * (q[1][2] * q[2][0] - q[1][0] * q[2][2]) +
                        q[0][2] * (q[1][0] * q[2][1] - q[1][1] * q[2][0]);
      double a2 = 0.0;
      if (isc) {
        const double e1[3] = {q[1][0] - q[0][0], q[1][1] - q[0][1], q[1][2] - q[0][2]};
        const double e2[3] = {q[2][0] - q[0][0], q[2][1] - q[0][1], q[2][2] - q[0][2]};
        const double x[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                             e1[0] * e2[1] - e1[1] * e2[0]};
        a2 = std::sqrt(Dot(x, x));
      }
      f(q, v6, a2, isc);
    }
  }
}

// The fan triangles of P about c as structure-of-arrays (sea_take.h); false where more than it holds.
bool Fan(const Poly& P, const double c[3], int cap, FanTris* T) {
  T->n = 0;
  bool room = true;
  EachFanTriangle(P, c, cap, [&](const double(&q)[3][3], double v6, double a2, bool) {
    if (T->n >= FanTris::kMax) {
      room = false;
      return;
    }
    const int t = T->n++;
    for (int j = 0; j < 3; ++j)
      for (int a = 0; a < 3; ++a) T->q[3 * j + a][t] = q[j][a];
    T->v6[t] = v6;
    T->a2[t] = a2;
  });
  return room;
}

}  // namespace

void HullPolys(HullPlanes* hp) {
  hp->pface.assign(1, 0);
  hp->pv.assign(1, 0);
  hp->pvert.clear();
  const double I[9] = {1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0};
  Poly P0, P1;
  for (size_t m = 0; m + 1 < hp->range.size(); ++m) {
    Poly* cur = &P0;
    Poly* nxt = &P1;
    BoxPoly(hp->lo.data() + 3 * m, hp->hi.data() + 3 * m, I, cur);
    bool ok = true;
    for (int64_t j = hp->range[m]; j < hp->range[m + 1] && ok; ++j) {
      const double* r = hp->rows.data() + 4 * j;
      const Poly* q = Clip(*cur, r, r[3], -1, nxt);
      ok = q != nullptr;
      if (q == nxt) std::swap(cur, nxt);
    }
    for (int f = 0; ok && f < cur->nf; ++f) {
      for (int i = 0; i < cur->nv[f]; ++i) hp->pvert.insert(hp->pvert.end(), cur->v[f][i], cur->v[f][i] + 3);
      hp->pv.push_back(static_cast<int64_t>(hp->pvert.size() / 3));
    }
    hp->pface.push_back(static_cast<int64_t>(hp->pv.size()) - 1);
  }
}

double MomentTail(double rho, int N) {
  if (!(rho < N + 1.0)) return std::numeric_limits<double>::infinity();
  double t = 1.0;
  for (int n = 1; n <= N; ++n) t *= rho / n;
  return t * (N + 1.0) / (N + 1.0 - rho);
}

int MomentOrder(double rho, double amp, double tol) {
  constexpr double kSqrt2 = 1.4142135623730951;
  double t = kSqrt2 * amp;  // sqrt(2) amp rho^N, over N! below (no division in the loop)
  for (int N = 1; N <= kMaxMomentOrder; ++N) {
    t *= rho;
    // sqrt(2) amp rho^N / N! (N + 1) / (N + 1 - rho) <= tol, multiplied out (N + 1 - rho > 0)
    if (rho < N + 1.0 && t * kFact.inv[N] * (N + 1.0) <= tol * (N + 1.0 - rho)) return N;
  }
  return kMaxMomentOrder + 1;
}

bool FroudeKrylovMoments(const Sea& sea, double t, double rho, int type, const double size[3], int64_t mesh,
                         const HullPlanes& hp, const double p[3], const double R[9], const double* planes,
                         int npl, int cap, const double x0[3], const double* ph, double F[3], double T[3]) {
  if ((type != kBox && type != kMesh) || !ph || (type == kBox && sea.waves.size() < kMomentsMinWaves) ||
      sea.waves.size() > static_cast<size_t>(kMaxWaves))
    return false;
  Poly P0, P1, P2;  // the piece, in the world relative to p (cur: one of P0, P1); P2, scratch
  Poly* cur = &P0;
  Poly* nxt = &P1;
  auto clip = [&](const double* n, double d, int label) {
    const Poly* q = Clip(*cur, n, d, label, nxt);
    if (!q) return false;
    if (q == nxt) std::swap(cur, nxt);
    return true;
  };
  if (type == kBox) {
    const double lo[3] = {-size[0], -size[1], -size[2]};
    BoxPoly(lo, size, R, cur);
  } else {  // the hull's polyhedron (HullPolys, geom frame) in the world relative to p
    const int64_t f0 = hp.pface[mesh], f1 = hp.pface[mesh + 1];
    if (f1 == f0) return false;
    cur->nf = static_cast<int>(f1 - f0);
    for (int64_t f = f0; f < f1; ++f) {
      const int k = static_cast<int>(f - f0);
      cur->label[k] = -1;
      cur->nv[k] = static_cast<int>(hp.pv[f + 1] - hp.pv[f]);
      for (int i = 0; i < cur->nv[k]; ++i) {
        const double* x = hp.pvert.data() + 3 * (hp.pv[f] + i);
        for (int a = 0; a < 3; ++a) cur->v[k][i][a] = R[3 * a] * x[0] + R[3 * a + 1] * x[1] + R[3 * a + 2] * x[2];
      }
    }
  }
  for (int j = 0; j < npl; ++j) {
    const double* r = planes + 4 * j;
    if (!clip(r, r[3] - Dot(r, p), j)) return false;
  }
  const Poly& A = *cur;
  for (int a = 0; a < 3; ++a) F[a] = T[a] = 0.0;
  if (!(Volume(A) > 0.0)) return true;
  const double* cw = x0;                                            // the expansion's point, world
  const double c[3] = {x0[0] - p[0], x0[1] - p[1], x0[2] - p[2]};  // and relative to p
  const double dl = sea.d - Dot(sea.n, p);                          // the mean level, relative to p
  double R2 = 0.0, zmin = 0.0;
  for (int f = 0; f < A.nf; ++f)
    for (int i = 0; i < A.nv[f]; ++i) {
      const double* x = A.v[f][i];
      const double r[3] = {x[0] - c[0], x[1] - c[1], x[2] - c[2]};
      R2 = std::max(R2, Dot(r, r));
      zmin = std::min(zmin, Dot(sea.n, x) - dl);
    }
  const bool fin = std::isfinite(sea.depth);
  if (fin && zmin < -sea.depth) return false;  // under the seabed the depth factor is held: the exact path
  const double Rm = std::sqrt(R2);
  // the cap's hydrostatic term (exact: zeta is linear): area, int y dA, int y (n.y) dA about c
  double Ac = 0.0, S1[3] = {0.0, 0.0, 0.0}, Q[3] = {0.0, 0.0, 0.0};
  for (int f = 0; f < A.nf; ++f) {
    if (A.label[f] != cap) continue;
    for (int i = 1; i + 1 < A.nv[f]; ++i) {
      double q[3][3];
      for (int a = 0; a < 3; ++a) {
        q[0][a] = A.v[f][0][a] - c[a];
        q[1][a] = A.v[f][i][a] - c[a];
        q[2][a] = A.v[f][i + 1][a] - c[a];
      }
      const double e1[3] = {q[1][0] - q[0][0], q[1][1] - q[0][1], q[1][2] - q[0][2]};
      const double e2[3] = {q[2][0] - q[0][0], q[2][1] - q[0][1], q[2][2] - q[0][2]};
      const double x[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
      const double At = 0.5 * std::sqrt(Dot(x, x));
      Ac += At;
      for (int j = 0; j < 3; ++j) {  // the edges' midpoints: exact for quadratics
        const double* u = q[j];
        const double* w = q[(j + 1) % 3];
        const double mid[3] = {0.5 * (u[0] + w[0]), 0.5 * (u[1] + w[1]), 0.5 * (u[2] + w[2])};
        const double zn = Dot(sea.n, mid);
        for (int a = 0; a < 3; ++a) {
          S1[a] += At / 3.0 * mid[a];
          Q[a] += At / 3.0 * mid[a] * zn;
        }
      }
    }
  }
  // the piece below the mean level (B) and above it (Up), each with its moments per direction
  const Poly* pb = Clip(A, sea.n, dl, kLevel, nxt);
  const double mn[3] = {-sea.n[0], -sea.n[1], -sea.n[2]};
  const Poly* pu = Clip(A, mn, -dl, kLevel, &P2);
  if (!pb || !pu) return false;
  const Poly& B = *pb;
  const Poly& Up = *pu;
  const bool hasb = B.nf > 0, hasu = Up.nf > 0;
  const double zc = Dot(sea.n, cw) - sea.d;
  const int nw = static_cast<int>(sea.waves.size());
  int order[kMaxWaves];
  double ebs[kMaxWaves];
  unsigned char only[kMaxWaves];
  int nfb = 0;
  for (int j = 0; j < nw; ++j) only[j] = 0;
  const double rg = rho * sea.g, r = sea.Ramp(t);
  double Fs[3] = {0.0, 0.0, 0.0}, Ts[3] = {0.0, 0.0, 0.0};
  // every component's phase at x0, cos and sin, and e^{k zeta} there: Orbital's, which holds zeta to
  // [-depth, 0], so outside it (x0 above the mean level) the factor is taken here
  const double* zre = ph;
  const double* zim = ph + nw;
  const double* zex = ph + 2 * nw;
  const bool own_exp = !(zc <= 0.0 && zc >= -sea.depth);
  Moments mb, mu;
  // the fan triangles below and above, in lanes (TakeLanes); more than FanTris holds: the exact path, as
  // for a polyhedron of more faces than Poly holds
  FanTris fb, fu;
  if ((hasb && !Fan(B, c, cap, &fb)) || (hasu && !Fan(Up, c, cap, &fu))) return false;
  const int ndir = static_cast<int>(sea.dir_start.size()) - 1;
  for (int g = 0; g < ndir; ++g) {
    // each component's order from its bound's rho = kn R and amplitude factor (the depth factor at c, at
    // least 1): MomentOrder's, in lanes (MomentOrders)
    const int q0 = sea.dir_start[g], mg = sea.dir_start[g + 1] - q0;
    double rhos[kMaxWaves], amps[kMaxWaves];
    int Ns[kMaxWaves];
    for (int q = 0; q < mg; ++q) {
      const int j = sea.by_dir[q0 + q];
      const Wave& w = sea.waves[j];
      const double eb = own_exp ? std::exp(w.kn * zc) : zex[j];
      ebs[j] = eb;
      const double db = w.c * (eb + (fin ? w.e2h / eb : 0.0));  // the depth factor at c
      rhos[q] = w.kn * Rm;
      amps[q] = std::max(db, 1.0);
    }
    MomentOrders(rhos, amps, sea.fk_tol, mg, Ns);
    int Ng = 0;
    for (int q = 0; q < mg; ++q) {
      const int j = sea.by_dir[q0 + q], N = Ns[q];
      order[j] = N;
      if (N > kMaxMomentOrder) {
        only[j] = 1;
        ++nfb;
      } else {
        Ng = std::max(Ng, N);
      }
    }
    if (Ng == 0) continue;
    const double* u = sea.dirs.data() + 3 * g;
    if (hasb) TakeLanes(fb, sea.n, u, Ng, false, &mb.s[0][0][0]);
    if (hasu) TakeLanes(fu, sea.n, u, Ng, true, &mu.s[0][0][0]);
    // the group's components on the moments, in its order, a chunk at a time in lanes (sea_series.h);
    // their forces and moments summed in that order
    const double* nc = planes + 4 * cap;
    int list[kMaxWaves];
    int ml = 0;
    for (int q = sea.dir_start[g]; q < sea.dir_start[g + 1]; ++q)
      if (!only[sea.by_dir[q]]) list[ml++] = sea.by_dir[q];
    for (int c0 = 0; c0 < ml; c0 += kSeriesChunk) {
      const int mc = std::min(kSeriesChunk, ml - c0);
      int Nj[kSeriesChunk];
      double kn[kSeriesChunk], zr[kSeriesChunk], zi[kSeriesChunk], a1[kSeriesChunk], a2[kSeriesChunk],
          amp[kSeriesChunk], kv[3][kSeriesChunk];
      for (int i = 0; i < mc; ++i) {
        const int j = list[c0 + i];
        const Wave& w = sea.waves[j];
        Nj[i] = order[j];
        kn[i] = w.kn;
        zr[i] = zre[j];
        zi[i] = zim[j];
        a1[i] = w.c * ebs[j];
        a2[i] = fin && w.e2h > 0.0 ? w.c * w.e2h / ebs[j] : 0.0;
        amp[i] = w.a;
        for (int a = 0; a < 3; ++a) kv[a][i] = w.k[a];
      }
      SeriesIn in;
      in.m = mc;
      in.N = Nj;
      in.kn = kn;
      in.zr = zr;
      in.zi = zi;
      in.a1 = a1;
      in.a2 = a2;
      in.amp = amp;
      for (int a = 0; a < 3; ++a) in.k[a] = kv[a];
      double out[6][kSeriesChunk];
      SeriesForces(&mb.s[0][0][0], &mu.s[0][0][0], Ng, hasb, fin, hasu, sea.n, nc, in, out);
      for (int i = 0; i < mc; ++i) {
        for (int a = 0; a < 3; ++a) Fs[a] += out[a][i];
        for (int a = 0; a < 3; ++a) Ts[a] += out[3 + a][i];
      }
    }
  }
  // about p: the lever x0 - p times the force
  Ts[0] += c[1] * Fs[2] - c[2] * Fs[1];
  Ts[1] += c[2] * Fs[0] - c[0] * Fs[2];
  Ts[2] += c[0] * Fs[1] - c[1] * Fs[0];
  const double sc = rg * r;
  for (int a = 0; a < 3; ++a) {
    F[a] = sc * Fs[a];
    T[a] = sc * Ts[a];
  }
  if (nfb > 0) {  // the components the bound sends to the exact path, with the cap's hydrostatic term
    double Fe[3], Te[3];
    FroudeKrylov(sea, t, rho, type, size, mesh, hp, p, R, planes, npl, cap, Fe, Te, only);
    for (int a = 0; a < 3; ++a) {
      F[a] += Fe[a];
      T[a] += Te[a];
    }
    return true;
  }
  // the cap's hydrostatic term -rho g zeta n_c: int zeta dA = zc Ac + n.S1, int y zeta dA = zc S1 + Q
  const double* nc = planes + 4 * cap;
  const double Iz = zc * Ac + Dot(sea.n, S1);
  const double Yz[3] = {c[0] * Iz + zc * S1[0] + Q[0], c[1] * Iz + zc * S1[1] + Q[1], c[2] * Iz + zc * S1[2] + Q[2]};
  for (int a = 0; a < 3; ++a) F[a] -= rg * Iz * nc[a];
  T[0] -= rg * (Yz[1] * nc[2] - Yz[2] * nc[1]);
  T[1] -= rg * (Yz[2] * nc[0] - Yz[0] * nc[2]);
  T[2] -= rg * (Yz[0] * nc[1] - Yz[1] * nc[0]);
  return true;
}

}  // namespace aurgen::core
