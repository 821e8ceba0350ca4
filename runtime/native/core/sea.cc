// A sea: the per-component constants, the Gauss rules, the elevation and the orbital velocity;
// see sea.h.  The Froude-Krylov quadrature over columns is sea_columns.cc, by moments sea_moments.cc.
#include "sea.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "exp_lanes.h"
#include "sincos.h"

namespace aurgen::core {
namespace {

constexpr double kPi = 3.141592653589793;

// Gauss-Legendre rule of n points on [-1, 1] by Newton's method on P_n (x, w: n each).
void Legendre(int n, double* x, double* w) {
  for (int i = 0; i < n; ++i) {
    double z = std::cos(kPi * (i + 0.75) / (n + 0.5)), dp = 1.0;
    for (int it = 0; it < 100; ++it) {
      double p0 = 1.0, p1 = z;
      for (int k = 2; k <= n; ++k) {
        const double p2 = ((2.0 * k - 1.0) * z * p1 - (k - 1.0) * p0) / k;
        p0 = p1;
        p1 = p2;
      }
      dp = n * (z * p1 - p0) / (z * z - 1.0);
      const double dz = p1 / dp;
      z -= dz;
      if (std::fabs(dz) < 1e-16) break;
    }
    x[n - 1 - i] = z;  // ascending
    w[n - 1 - i] = 2.0 / ((1.0 - z * z) * dp * dp);
  }
}

inline double Dot(const double* a, const double* b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

}  // namespace

void Sea::Prepare() {
  kmax = 0.0;
  for (Wave& w : waves) {
    w.kn = std::sqrt(Dot(w.k, w.k));
    kmax = std::max(kmax, w.kn);
    if (std::isfinite(depth)) {
      w.e2h = std::exp(-2.0 * w.kn * depth);
      w.c = 1.0 / (1.0 + w.e2h);
      w.lc = std::log(w.c);
      w.cu = 1.0 / std::tanh(w.kn * depth);
    } else {
      w.e2h = 0.0;
      w.c = 1.0;
      w.lc = 0.0;
      w.cu = 1.0;
    }
  }
  // Order's thresholds: n points integrate e^{i k x} over an extent L with the Gauss-Legendre
  // remainder c_n (k L / 2)^{2n}, c_n = 2^{2n} (n!)^4 / ((2n + 1) ((2n)!)^3); the extent n
  // suffices for is the largest L with (a_j / a_max) c_n (k_j L / 2)^{2n} <= 1e-9 for every j
  double amax = 0.0;
  for (const Wave& w : waves) amax = std::max(amax, w.a);
  double c = 4.0 / 3.0 / 8.0;  // c_1
  for (int n = 1; n <= kMaxRule; ++n) {
    double L = std::numeric_limits<double>::infinity();
    for (const Wave& w : waves)
      if (w.a > 0.0 && w.kn > 0.0)
        L = std::min(L, 2.0 / w.kn * std::pow(1e-9 * amax / (w.a * c), 1.0 / (2.0 * n)));
    lmax[n] = L;
    const double m = n + 1.0;
    c *= 4.0 * m * m * m * m * (2.0 * n + 1.0) /
         ((2.0 * n + 3.0) * std::pow((2.0 * n + 1.0) * (2.0 * n + 2.0), 3.0));
  }
  // the directions (FroudeKrylovMoments' moments are per direction): unit vectors within 1e-13 of the
  // group's first (a long-crested sea's components, whose k / |k| differ in their last bits); the
  // moments then stand within kR 1e-13 of each component's own
  by_dir.clear();
  dir_start.assign(1, 0);
  dirs.clear();
  std::vector<double> u(3 * waves.size());
  for (size_t j = 0; j < waves.size(); ++j)
    for (int a = 0; a < 3; ++a) u[3 * j + a] = waves[j].kn > 0.0 ? waves[j].k[a] / waves[j].kn : 0.0;
  std::vector<bool> done(waves.size(), false);
  for (size_t j = 0; j < waves.size(); ++j) {
    if (done[j]) continue;
    for (size_t i = j; i < waves.size(); ++i)
      if (!done[i] && std::fabs(u[3 * i] - u[3 * j]) <= 1e-13 && std::fabs(u[3 * i + 1] - u[3 * j + 1]) <= 1e-13 &&
          std::fabs(u[3 * i + 2] - u[3 * j + 2]) <= 1e-13) {
        done[i] = true;
        by_dir.push_back(static_cast<int>(i));
      }
    dirs.insert(dirs.end(), u.begin() + 3 * j, u.begin() + 3 * j + 3);
    dir_start.push_back(static_cast<int>(by_dir.size()));
  }
  const size_t nw = waves.size();
  soa.assign(kSoaCols * nw, 0.0);
  for (size_t j = 0; j < nw; ++j) {
    const Wave& w = waves[j];
    const double col[kSoaCols] = {w.k[0], w.k[1], w.k[2], w.omega, w.phase, w.a, w.a * w.omega * w.c * w.cu,
                                  w.kn, w.e2h};
    for (int c = 0; c < kSoaCols; ++c) soa[c * nw + j] = col[c];
  }
  gx.assign(kMaxRule * (kMaxRule + 1) / 2, 0.0);
  gw.assign(gx.size(), 0.0);
  for (int n = 1; n <= kMaxRule; ++n) Legendre(n, gx.data() + n * (n - 1) / 2, gw.data() + n * (n - 1) / 2);
}

double Sea::Ramp(double t) const {
  if (!(ramp > 0.0) || t >= ramp) return 1.0;
  if (t <= 0.0) return 0.0;
  return 0.5 * (1.0 - std::cos(kPi * t / ramp));
}

int Sea::Order(double L) const {
  const double a = std::fabs(L);
  for (int n = 2; n < kMaxRule; ++n)
    if (a <= lmax[n]) return n;
  return kMaxRule;
}

void Sea::Phases(const double x[3], double t, size_t j0, int m, double* c, double* s) const {
  const double *kx = Soa(kSoaKx) + j0, *ky = Soa(kSoaKy) + j0, *kz = Soa(kSoaKz) + j0;
  const double *om = Soa(kSoaOmega) + j0, *phi = Soa(kSoaPhase) + j0;
  double th[kPhaseChunk];
  for (int i = 0; i < m; ++i) th[i] = (kx[i] * x[0] + ky[i] * x[1] + kz[i] * x[2]) - om[i] * t + phi[i];
  SinCos(th, m, c, s);
}

namespace {

// Sums over components in four lanes: f(i, l) adds component i's terms to lane l, for i < m in blocks of
// four (component i in lane i mod 4; a chunk starts at a multiple of 4).
template <class F>
inline void InLanes(int m, F&& f) {
  int i = 0;
  for (; i + 4 <= m; i += 4)
    for (int l = 0; l < 4; ++l) f(i + l, l);
  for (int l = 0; i + l < m; ++l) f(i + l, l);
}
inline double Lanes(const double v[4]) { return (v[0] + v[1]) + (v[2] + v[3]); }

}  // namespace

void Sea::Elevation(const double x[3], double t, double* eta, double grad[3]) const {
  static_assert(kPhaseChunk % 4 == 0, "a chunk starts at lane 0");
  const double r = Ramp(t);
  double E[4] = {}, G0[4] = {}, G1[4] = {}, G2[4] = {};
  double cs[kPhaseChunk], sn[kPhaseChunk];
  for (size_t j0 = 0; j0 < waves.size(); j0 += kPhaseChunk) {
    const int m = static_cast<int>(std::min<size_t>(kPhaseChunk, waves.size() - j0));
    Phases(x, t, j0, m, cs, sn);
    const double *a = Soa(kSoaA) + j0, *kx = Soa(kSoaKx) + j0, *ky = Soa(kSoaKy) + j0, *kz = Soa(kSoaKz) + j0;
    InLanes(m, [&](int i, int l) {
      E[l] += a[i] * cs[i];
      const double q = a[i] * sn[i];
      G0[l] -= q * kx[i];
      G1[l] -= q * ky[i];
      G2[l] -= q * kz[i];
    });
  }
  *eta = r * Lanes(E);
  grad[0] = r * Lanes(G0);
  grad[1] = r * Lanes(G1);
  grad[2] = r * Lanes(G2);
}

void Sea::Orbital(const double x[3], double t, double u[3], double* ph) const {
  const double r = Ramp(t);
  // the depth factor held above the mean level and below the seabed (deep water: -inf)
  const double zeta = std::max(std::min(Dot(n, x) - d, 0.0), -depth);
  double U0[4] = {}, U1[4] = {}, U2[4] = {}, W[4] = {};
  const size_t nw = waves.size();
  double cs[kPhaseChunk], sn[kPhaseChunk], ex[kPhaseChunk], e1[kPhaseChunk];
  for (size_t j0 = 0; j0 < nw; j0 += kPhaseChunk) {
    const int m = static_cast<int>(std::min<size_t>(kPhaseChunk, nw - j0));
    Phases(x, t, j0, m, cs, sn);
    const double *kn = Soa(kSoaKn) + j0, *aw = Soa(kSoaAw) + j0, *e2h = Soa(kSoaE2h) + j0;
    const double *kx = Soa(kSoaKx) + j0, *ky = Soa(kSoaKy) + j0, *kz = Soa(kSoaKz) + j0;
    for (int i = 0; i < m; ++i) ex[i] = kn[i] * zeta;
    Exp(ex, m, e1);
    if (ph)
      for (int i = 0; i < m; ++i) {
        ph[j0 + i] = cs[i];
        ph[nw + j0 + i] = sn[i];
        ph[2 * nw + j0 + i] = e1[i];
      }
    InLanes(m, [&](int i, int l) {
      const double e2 = e2h[i] > 0.0 ? e2h[i] / e1[i] : 0.0;
      const double uh = aw[i] * (e1[i] + e2) * cs[i] / kn[i];  // along k / |k|: / kn
      U0[l] += uh * kx[i];
      U1[l] += uh * ky[i];
      U2[l] += uh * kz[i];
      W[l] += aw[i] * (e1[i] - e2) * sn[i];
    });
  }
  const double U[3] = {Lanes(U0), Lanes(U1), Lanes(U2)}, Ws = Lanes(W);
  for (int i = 0; i < 3; ++i) u[i] = r * (U[i] + Ws * n[i]);
}

void HullPlanes::Build(const HullSet& hs) {
  rows.clear();
  range.assign(1, 0);
  lo.clear();
  hi.clear();
  for (int64_t m = 0; m < hs.nmesh; ++m) {
    for (int64_t f = hs.face_range[m]; f < hs.face_range[m + 1]; ++f) {
      const double* e = hs.edges + 6 * hs.face_start[f];  // three directed edges, outward
      const double u[3] = {e[3] - e[0], e[4] - e[1], e[5] - e[2]};
      const double v[3] = {e[9] - e[6], e[10] - e[7], e[11] - e[8]};
      double nrm[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
      const double L = std::sqrt(Dot(nrm, nrm));
      if (!(L > 0.0)) continue;
      for (double& c : nrm) c /= L;
      rows.insert(rows.end(), {nrm[0], nrm[1], nrm[2], Dot(nrm, e)});
    }
    range.push_back(static_cast<int64_t>(rows.size() / 4));
    double l[3] = {1e300, 1e300, 1e300}, h[3] = {-1e300, -1e300, -1e300};
    for (int64_t v = hs.vert_range[m]; v < hs.vert_range[m + 1]; ++v)
      for (int a = 0; a < 3; ++a) {
        l[a] = std::min(l[a], hs.verts[3 * v + a]);
        h[a] = std::max(h[a], hs.verts[3 * v + a]);
      }
    lo.insert(lo.end(), l, l + 3);
    hi.insert(hi.end(), h, h + 3);
  }
  HullPolys(this);
}

}  // namespace aurgen::core
