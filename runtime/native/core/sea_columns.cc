// The exact Froude-Krylov correction: Gauss columns across a geom, each chord integrated in closed
// form per component (sea.h FroudeKrylov; docs/kernel.md "Waves").
#include <algorithm>
#include <cmath>

#include "sea.h"
#include "sincos.h"

namespace aurgen::core {
namespace {

constexpr double kPi = 3.141592653589793;
constexpr double kLn2 = 0.6931471805599453;  // log 2
// the series of phi1(z) = (e^z - 1) / z and phi2(z) = (z e^z - e^z + 1) / z^2: 1 / (n+1)! and
// 1 / (n! (n+2)), n = 0 .. 8 (below |z| = 0.05 the next term is under 1e-17)
constexpr double kP1[9] = {1.0, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720, 1.0 / 5040, 1.0 / 40320,
                           1.0 / 362880};
constexpr double kP2[9] = {1.0 / 2, 1.0 / 3, 1.0 / 8, 1.0 / 30, 1.0 / 144, 1.0 / 840, 1.0 / 5760, 1.0 / 45360,
                           1.0 / 403200};

inline double Dot(const double* a, const double* b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

// R l: a geom-frame vector in the world (R row-major, frame -> world).
inline void ToWorld(const double R[9], const double l[3], double w[3]) {
  w[0] = R[0] * l[0] + R[1] * l[1] + R[2] * l[2];
  w[1] = R[3] * l[0] + R[4] * l[1] + R[5] * l[2];
  w[2] = R[6] * l[0] + R[7] * l[1] + R[8] * l[2];
}

// Two unit vectors completing the unit u to a right-handed orthonormal basis (f, h, u).
void Complete(const double u[3], double f[3], double h[3]) {
  const double a[3] = {std::fabs(u[0]) < 0.9 ? 1.0 : 0.0, std::fabs(u[0]) < 0.9 ? 0.0 : 1.0, 0.0};
  double t = Dot(a, u);
  for (int i = 0; i < 3; ++i) f[i] = a[i] - t * u[i];
  t = std::sqrt(Dot(f, f));
  for (int i = 0; i < 3; ++i) f[i] /= t;
  h[0] = u[1] * f[2] - u[2] * f[1];
  h[1] = u[2] * f[0] - u[0] * f[2];
  h[2] = u[0] * f[1] - u[1] * f[0];
}

// Along a segment of length L from its end x_e, where the field is W_e = exp(e) (cos th, sin th) and
// grows as W_e e^{z v L} (z = gamma L, v in [0, 1] the distance from x_e over L): I0 = int W = W_e L
// phi1(z) and q2 = int v L W = W_e L^2 phi2(z), with phi1(z) = int_0^1 e^{z v} dv = (e^z - 1) / z and
// phi2(z) = int_0^1 v e^{z v} dv = (z e^z - e^z + 1) / z^2 (their series below |z| = 0.05); returns Re W
// at the other end, W_e e^z, and sets *we = Re W_e.
double Integrals(double e, double th, double L, double zr, double zi, double I0[2], double q2[2], double* we) {
  const double ang[2] = {th, zi};
  double cs[2], sn[2];
  SinCos(ang, 2, cs, sn);  // both angles in one pair of lanes
  // exp(0) = 1 exactly: the segments above the mean level (e = zr = 0) and under the seabed (zr = 0) skip it
  const double ea = e == 0.0 ? 1.0 : std::exp(e);
  const double Wa[2] = {ea * cs[0], ea * sn[0]};
  const double ez = zr == 0.0 ? 1.0 : std::exp(zr), ezc = ez * cs[1], ezs = ez * sn[1];
  double p1[2], p2[2];
  if (zr * zr + zi * zi < 0.0025) {  // |z| < 0.05: the series z^n / (n+1)!, z^n / (n! (n+2)), Horner
    p1[0] = kP1[8];
    p1[1] = 0.0;
    p2[0] = kP2[8];
    p2[1] = 0.0;
    for (int n = 7; n >= 0; --n) {
      const double a1 = p1[0] * zr - p1[1] * zi + kP1[n], b1 = p1[0] * zi + p1[1] * zr;
      const double a2 = p2[0] * zr - p2[1] * zi + kP2[n], b2 = p2[0] * zi + p2[1] * zr;
      p1[0] = a1;
      p1[1] = b1;
      p2[0] = a2;
      p2[1] = b2;
    }
  } else {
    const double inv = 1.0 / (zr * zr + zi * zi);  // 1 / |z|^2 (and |z^2|^2 = |z|^4)
    const double n1r = ezc - 1.0, n1i = ezs;  // (e^z - 1) / z
    p1[0] = (n1r * zr + n1i * zi) * inv;
    p1[1] = (n1i * zr - n1r * zi) * inv;
    // z e^z - e^z + 1, over z^2
    const double n2r = (zr * ezc - zi * ezs) - ezc + 1.0, n2i = (zr * ezs + zi * ezc) - ezs;
    const double z2r = zr * zr - zi * zi, z2i = 2.0 * zr * zi, inv2 = inv * inv;
    p2[0] = (n2r * z2r + n2i * z2i) * inv2;
    p2[1] = (n2i * z2r - n2r * z2i) * inv2;
  }
  I0[0] = L * (Wa[0] * p1[0] - Wa[1] * p1[1]);
  I0[1] = L * (Wa[0] * p1[1] + Wa[1] * p1[0]);
  q2[0] = L * L * (Wa[0] * p2[0] - Wa[1] * p2[1]);
  q2[1] = L * L * (Wa[0] * p2[1] + Wa[1] * p2[0]);
  *we = Wa[0];
  return Wa[0] * ezc - Wa[1] * ezs;
}

// What the columns of one piece sum (world): F and T about p.
struct Sums {
  const Sea& sea;
  double t, rg, r;  // time, rho g, ramp
  const double* p;
  const double* planes;
  int npl, cap;
  const unsigned char* only;  // null: every component
  double F[3] = {0.0, 0.0, 0.0}, T[3] = {0.0, 0.0, 0.0};

  void Add(const double x[3], const double f[3]) {
    const double dx = x[0] - p[0], dy = x[1] - p[1], dz = x[2] - p[2];
    F[0] += f[0];
    F[1] += f[1];
    F[2] += f[2];
    T[0] += dy * f[2] - dz * f[1];
    T[1] += dz * f[0] - dx * f[2];
    T[2] += dx * f[1] - dy * f[0];
  }
  // The total pressure's force on the cap at the chord end x, for a column of weight w and
  // direction E, when plane row `row` (the tangent plane) bounds it there; pd: sum a D cos theta
  // at x (m).
  void CapAt(const double x[3], const double E[3], double w, int row, double pd) {
    const double* nc = planes + 4 * row;
    const double ne = std::fabs(Dot(nc, E));
    if (!(ne > 0.0)) return;
    const double ptot = rg * (-(Dot(sea.n, x) - sea.d) + r * pd);  // Pa
    const double s = ptot * w / ne;
    const double f[3] = {s * nc[0], s * nc[1], s * nc[2]};
    Add(x, f);
  }
  // The line x0 + s E for s in [s0, s1] (inside the geom), weight w (the column's cross-section:
  // dV = w ds); ns is unused (each chord is integrated exactly); ex: an extra half-space (world
  // row, or null) that bounds the part of the geom the column belongs to.
  void Column(const double x0[3], const double E[3], double s0, double s1, double w, int ns,
              const double* ex) {
    (void)ns;
    int lo = -1, hi = -1;  // the rows bounding s0 and s1 (-1: the geom)
    auto clip = [&](const double* row, int id) {
      const double a = Dot(row, E), b = row[3] - Dot(row, x0);
      if (a > 0.0) {
        const double sb = b / a;
        if (sb < s1) s1 = sb, hi = id;
      } else if (a < 0.0) {
        const double sb = b / a;
        if (sb > s0) s0 = sb, lo = id;
      } else if (b < 0.0) {
        s1 = s0;
      }
    };
    for (int j = 0; j < npl; ++j) clip(planes + 4 * j, j);
    if (ex) clip(ex, -2);
    if (!(s1 > s0)) return;
    // the chord below the mean level [s0, sm] and above it [sm, s1] (one of them may be empty)
    const double z0 = Dot(sea.n, x0) - sea.d, zs = Dot(sea.n, E);
    const double sm = zs != 0.0 ? -z0 / zs : s1;  // where zeta = 0 (level: none inside)
    const bool rising = zs > 0.0 || (zs == 0.0 && z0 <= 0.0);  // below first along +s
    double bl = rising ? s0 : std::max(s0, sm), bh = rising ? std::min(s1, sm) : s1;  // below
    double al = rising ? std::max(s0, sm) : s0, ah = rising ? s1 : std::min(s1, sm);  // above
    const bool fin = std::isfinite(sea.depth);
    // at finite depth, the below part's stretch under the seabed (zeta < -h) [dl, dh]: the depth factor held
    // at its zeta = -h value there, as it is held at its zeta = 0 value above the mean level (the field of
    // linear theory ends at the seabed; its continuation grows without bound)
    double dl = 0.0, dh = 0.0;
    if (fin && bh > bl) {
      if (zs != 0.0) {
        const double sd = (-sea.depth - z0) / zs;  // where zeta = -h
        if (zs > 0.0) {
          dl = bl;
          dh = std::min(bh, sd);
          if (dh > dl) bl = dh;
        } else {
          dl = std::max(bl, sd);
          dh = bh;
          if (dh > dl) bh = dl;
        }
      } else if (z0 < -sea.depth) {  // level, under the seabed
        dl = bl;
        dh = bh;
        bl = bh;
      }
    }
    const bool hasb = bh > bl, hasa = ah > al, hasd = dh > dl;
    double Fv[3] = {0.0, 0.0, 0.0}, Tv[3] = {0.0, 0.0, 0.0};
    double plo = 0.0, phi = 0.0;  // sum a Re W at the chord's ends (the caps' dynamic pressure)
    const double dx0[3] = {x0[0] - p[0], x0[1] - p[1], x0[2] - p[2]};
    for (size_t jw = 0; jw < sea.waves.size(); ++jw) {
      if (only && !only[jw]) continue;
      const Wave& wv = sea.waves[jw];
      const double th0 = Dot(wv.k, x0) - wv.omega * t + wv.phase, ths = Dot(wv.k, E);
      // one segment [a, b]: the field W(s) = C exp(sig k zeta(s) + i theta(s)) (sig 0: the depth factor
      // held, above the mean level or below the seabed), its gradient Re[kap W] with kap = sig k n + i k;
      // adds -a (Re[kap I0], Re[J x kap]) with I0 = int W ds, J = int (x - p) W ds, and returns W at a and
      // b for the caps.  From W(a) (Integrals); where that is not finite (W(a) underflowed to 0 and e^{gamma
      // L} overflowed: a short wave along a long chord rising toward the surface), from W(b) instead: I0 =
      // W(b) L phi1(-gamma L), int (b - s) W ds = W(b) L^2 phi2(-gamma L), |W| at most |W(b)| <= 1 on it
      auto seg = [&](double a, double b, double sig, double lc, double* wa, double* wb) {
        const double L = b - a;
        const double ga = sig * wv.kn * zs, gb = ths;  // gamma = ga + i gb
        const double zr = ga * L, zi = gb * L;
        double I0[2], q2[2], I1[2];
        *wb = Integrals(lc + sig * wv.kn * (z0 + zs * a), th0 + ths * a, L, zr, zi, I0, q2, wa);
        I1[0] = a * I0[0] + q2[0];  // I1 = int_a^b s W ds = a I0 + Wa L^2 p2
        I1[1] = a * I0[1] + q2[1];
        if (!(std::isfinite(I0[0]) && std::isfinite(I0[1]) && std::isfinite(I1[0]) && std::isfinite(I1[1]) &&
              std::isfinite(*wb))) {
          *wa = Integrals(lc + sig * wv.kn * (z0 + zs * b), th0 + ths * b, L, -zr, -zi, I0, q2, wb);
          I1[0] = b * I0[0] - q2[0];  // I1 = b I0 - int (b - s) W ds
          I1[1] = b * I0[1] - q2[1];
        }
        const double kr = sig * wv.kn;  // kap = kr n + i k
        double Jr[3], Ji[3], kapr[3];
        for (int i = 0; i < 3; ++i) {
          Jr[i] = dx0[i] * I0[0] + E[i] * I1[0];
          Ji[i] = dx0[i] * I0[1] + E[i] * I1[1];
          kapr[i] = kr * sea.n[i];
          Fv[i] -= wv.a * (kapr[i] * I0[0] - wv.k[i] * I0[1]);
        }
        // Re[J x kap] = Jr x kapr - Ji x k
        Tv[0] -= wv.a * ((Jr[1] * kapr[2] - Jr[2] * kapr[1]) - (Ji[1] * wv.k[2] - Ji[2] * wv.k[1]));
        Tv[1] -= wv.a * ((Jr[2] * kapr[0] - Jr[0] * kapr[2]) - (Ji[2] * wv.k[0] - Ji[0] * wv.k[2]));
        Tv[2] -= wv.a * ((Jr[0] * kapr[1] - Jr[1] * kapr[0]) - (Ji[0] * wv.k[1] - Ji[1] * wv.k[0]));
      };
      double wbl = 0.0, wbh = 0.0, wal = 0.0, wah = 0.0, w2l = 0.0, w2h = 0.0, wdl = 0.0, wdh = 0.0;
      if (hasb) {
        seg(bl, bh, 1.0, wv.lc, &wbl, &wbh);  // c e^{k zeta}
        if (fin && wv.e2h > 0.0)  // c e^{-k (zeta + 2 h)}
          seg(bl, bh, -1.0, wv.lc - 2.0 * wv.kn * sea.depth, &w2l, &w2h);
      }
      if (hasa) seg(al, ah, 0.0, 0.0, &wal, &wah);
      if (hasd) seg(dl, dh, 0.0, wv.lc + kLn2 - wv.kn * sea.depth, &wdl, &wdh);  // D(-h) = 2 c e^{-k h}
      // the chord's ends: rising, the segments come under the seabed, below, above (s0 the first's
      // start, s1 the last's end); falling, the other way
      const double v0 = rising ? (hasd ? wdl : hasb ? wbl + w2l : wal) : (hasa ? wal : hasb ? wbl + w2l : wdl);
      const double v1 = rising ? (hasa ? wah : hasb ? wbh + w2h : wdh) : (hasd ? wdh : hasb ? wbh + w2h : wah);
      if (lo == cap) plo += wv.a * v0;
      if (hi == cap) phi += wv.a * v1;
    }
    const double sc = rg * r * w;
    for (int i = 0; i < 3; ++i) {
      Fv[i] *= sc;
      Tv[i] *= sc;
    }
    F[0] += Fv[0];
    F[1] += Fv[1];
    F[2] += Fv[2];
    T[0] += Tv[0];
    T[1] += Tv[1];
    T[2] += Tv[2];
    if (hi == cap) {
      const double x[3] = {x0[0] + s1 * E[0], x0[1] + s1 * E[1], x0[2] + s1 * E[2]};
      CapAt(x, E, w, cap, phi);
    }
    if (lo == cap) {
      const double x[3] = {x0[0] + s0 * E[0], x0[1] + s0 * E[1], x0[2] + s0 * E[2]};
      CapAt(x, E, w, cap, plo);
    }
  }
};

// Columns of a geom, in its frame: q0 + s e for s in [s0, s1], weight w, ns points along;
// col(q0, e, s0, s1, w, ns, extra local row or null).  cap: the tangent plane in the same frame
// (n.q <= d, 4 numbers): where it meets a curved side the chords' ends have a kink, and the
// curved rules split their intervals there so each piece is smooth (Kinks).

// The angles x in (lo, hi) where X sin x + Y cos x = P, sorted, appended to out (n so far).
int Roots(double X, double Y, double P, double lo, double hi, double* out, int n) {
  const double M = std::sqrt(X * X + Y * Y);
  if (!(M > 0.0) || std::fabs(P) >= M) return n;
  const double x0 = std::atan2(Y, X), a = std::asin(P / M);  // sin(x + x0) = P / M
  const double cand[2] = {a - x0, kPi - a - x0};
  for (double x : cand) {
    for (int k = -2; k <= 2; ++k) {
      const double y = x + 2.0 * kPi * k;
      if (y > lo && y < hi) out[n++] = y;
    }
  }
  std::sort(out, out + n);
  return n;
}

// Where the cap plane (n.q <= d) meets the chords q0(x) + t e, |t| <= R cos x, of a curved
// section q0(x) = c + R sin x f (f, e unit, x in (lo, hi)): the kinks X sin x + Y cos x = P with
// X = R (n.f) / (n.e), Y = +-R, P = (d - n.c) / (n.e); into cuts (the interval's ends included).
int Kinks(const double* cap, const double c[3], const double f[3], const double e[3], double R, double lo,
          double hi, double* cuts) {
  int n = 0;
  cuts[n++] = lo;
  if (cap) {
    const double ne = Dot(cap, e);
    if (ne != 0.0) {
      const double X = R * Dot(cap, f) / ne, P = (cap[3] - Dot(cap, c)) / ne;
      double r[8];
      int nr = Roots(X, R, P, lo, hi, r, 0);
      nr = Roots(X, -R, P, lo, hi, r, nr);
      std::sort(r, r + nr);
      for (int i = 0; i < nr; ++i) cuts[n++] = r[i];
    }
  }
  cuts[n++] = hi;
  return n;
}

// The minimum points of a curved section's rule (its Jacobian, cos or sin cos, is smooth but not
// polynomial): 8 gives it to about 1e-10 on each smooth piece.
constexpr int kCurvedMin = 8;

template <class C>
void Disk(const Sea& sea, double R, const double u[3], const double c[3], double H, bool sphere,
          const double* ex, double L, const double* cap, C&& col) {
  // the disk of radius R across unit u, centred at c: radial Gauss (sphere: r = R sin psi,
  // the chord half-length R cos psi, split where the cap meets the sphere), angular
  // trapezoid; chords [-H, H] (sphere: +-R cos psi); the orders for a physical extent L
  double f[3], h[3];
  Complete(u, f, h);
  const int nr = sphere ? std::max(sea.Order(L), kCurvedMin) : sea.Order(L), nt = 2 * nr + 4;
  const int ns = sea.Order(sphere ? L : 2.0 * H);
  const double* gx = sea.Nodes(nr);
  const double* gw = sea.Weights(nr);
  for (int j = 0; j < nt; ++j) {
    const double th = 2.0 * kPi * (j + 0.5) / nt;
    const double dir[3] = {std::cos(th) * f[0] + std::sin(th) * h[0], std::cos(th) * f[1] + std::sin(th) * h[1],
                           std::cos(th) * f[2] + std::sin(th) * h[2]};
    double cuts[10] = {0.0, 0.5 * kPi};
    const int nc = sphere ? Kinks(cap, c, dir, u, R, 0.0, 0.5 * kPi, cuts) : 2;
    for (int q = 0; q + 1 < nc; ++q) {
      const double mid = 0.5 * (cuts[q] + cuts[q + 1]), half = 0.5 * (cuts[q + 1] - cuts[q]);
      for (int i = 0; i < nr; ++i) {
        double r, wr, hl;
        if (sphere) {  // psi in [0, pi/2]: r dr = R^2 sin psi cos psi dpsi
          const double psi = mid + half * gx[i];
          r = R * std::sin(psi);
          hl = R * std::cos(psi);
          wr = half * gw[i] * R * R * std::sin(psi) * std::cos(psi);
        } else {
          r = 0.5 * R * (1.0 + gx[i]);
          hl = H;
          wr = 0.5 * R * gw[i] * r;
        }
        const double q0[3] = {c[0] + r * dir[0], c[1] + r * dir[1], c[2] + r * dir[2]};
        col(q0, u, -hl, hl, wr * 2.0 * kPi / nt, ns, ex);
      }
    }
  }
}

template <class C>
void Cylinder(const Sea& sea, double R, double H, const double l[3], const double* cap, C&& col) {
  const double z[3] = {0.0, 0.0, 1.0}, o[3] = {0.0, 0.0, 0.0};
  if (std::fabs(l[2]) * std::fabs(l[2]) >= 0.5) {  // within 45 degrees of up: axial columns
    Disk(sea, R, z, o, H, false, nullptr, 2.0 * R, nullptr, col);
    return;
  }
  // across: columns along the radial direction nearest up, e = (cx, cy, 0); cross-section
  // (s along f = (-cy, cx, 0), z) with s = R sin(phi): the chord's half-length R cos(phi),
  // phi split where the cap meets the side
  const double ln = std::sqrt(l[0] * l[0] + l[1] * l[1]);
  const double e[3] = {l[0] / ln, l[1] / ln, 0.0}, f[3] = {-e[1], e[0], 0.0};
  const int nz = sea.Order(2.0 * H), nf = std::max(sea.Order(2.0 * R), kCurvedMin), ns = sea.Order(2.0 * R);
  const double *zx = sea.Nodes(nz), *zw = sea.Weights(nz), *fx = sea.Nodes(nf), *fw = sea.Weights(nf);
  for (int i = 0; i < nz; ++i) {
    const double zc = H * zx[i];
    const double c0[3] = {0.0, 0.0, zc};
    double cuts[10];
    const int nc = Kinks(cap, c0, f, e, R, -0.5 * kPi, 0.5 * kPi, cuts);
    for (int q = 0; q + 1 < nc; ++q) {
      const double mid = 0.5 * (cuts[q] + cuts[q + 1]), half = 0.5 * (cuts[q + 1] - cuts[q]);
      for (int j = 0; j < nf; ++j) {
        const double phi = mid + half * fx[j], s = R * std::sin(phi), hl = R * std::cos(phi);
        const double q0[3] = {s * f[0], s * f[1], zc};
        col(q0, e, -hl, hl, H * zw[i] * half * fw[j] * R * std::cos(phi), ns, nullptr);
      }
    }
  }
}

// The kinks of a box's chords across its cross-section (b, c): the chord along the axis a is
// [max of its lower bounds, min of its upper bounds], each bound linear in (b, c): the box's faces
// lo_a and hi_a, and every row n.q <= d (geom frame) that crosses the box, where n_a != 0 (a row the
// box lies on one side of bounds no chord).  Where two bounds meet, or a crossing row parallel to
// the axis (n_a = 0) cuts the section, the chords' integrals have a kink (a tangent plane across the
// top or bottom face; weaker, in the second derivative only, the mean level across the tangent plane:
// the depth factor's rule changes there), which the Gauss product rule across does not resolve.
// Out: the lines L0 + Lb b + Lc c = 0 through the rectangle's interior (in the order: the rows' own,
// then the bounds' pairs), false where there are more than the limits (then the rectangle is left
// whole).  runtime/mjwarp/sea_box.py _box_kinks mirrors this.
constexpr int kMaxKinkRows = 6, kMaxKinks = 16, kMaxBreaks = 64;
bool KinkLines(const double lo[3], const double hi[3], int a, int b, int c, const double* rows, int nr,
               double (*lines)[3], int* nl) {
  double f[2 + kMaxKinkRows][3];  // the bounds s = f0 + fb b + fc c (lower and upper alike)
  int nf = 0, nx = 0;
  *nl = 0;
  const double cb[2] = {lo[b], hi[b]}, cc[2] = {lo[c], hi[c]};
  auto add = [&](double L0, double Lb, double Lc) {
    double mn = 0.0, mx = 0.0, sc = std::fabs(L0);
    for (int i = 0; i < 4; ++i) {
      const double g = L0 + Lb * cb[i & 1] + Lc * cc[i >> 1];
      mn = std::min(mn, g);
      mx = std::max(mx, g);
      sc = std::max(sc, std::fabs(g));
    }
    if (!(mx > 1e-12 * sc && mn < -1e-12 * sc)) return true;  // not through the interior
    if (*nl >= kMaxKinks) return false;
    lines[*nl][0] = L0;
    lines[*nl][1] = Lb;
    lines[*nl][2] = Lc;
    ++*nl;
    return true;
  };
  f[nf][0] = lo[a], f[nf][1] = f[nf][2] = 0.0, ++nf;
  f[nf][0] = hi[a], f[nf][1] = f[nf][2] = 0.0, ++nf;
  for (int j = 0; j < nr; ++j) {
    const double* r = rows + 4 * j;
    double mn = 0.0, mx = 0.0, sc = std::fabs(r[3]);  // the row at the box's corners
    for (int k = 0; k < 8; ++k) {
      const double q[3] = {(k & 1) ? hi[0] : lo[0], (k & 2) ? hi[1] : lo[1], (k & 4) ? hi[2] : lo[2]};
      const double g = Dot(r, q) - r[3];
      mn = std::min(mn, g);
      mx = std::max(mx, g);
      sc = std::max(sc, std::fabs(g));
    }
    if (!(mx > 1e-12 * sc && mn < -1e-12 * sc)) continue;  // the box on one side
    if (++nx > kMaxKinkRows) return false;
    if (r[a] != 0.0) {
      f[nf][0] = r[3] / r[a], f[nf][1] = -r[b] / r[a], f[nf][2] = -r[c] / r[a], ++nf;
    } else if (!add(-r[3], r[b], r[c])) {
      return false;
    }
  }
  for (int i = 0; i < nf; ++i)
    for (int j = i + 1; j < nf; ++j)
      if (!add(f[i][0] - f[j][0], f[i][1] - f[j][1], f[i][2] - f[j][2])) return false;
  return true;
}

template <class C>
void BoxColumns(const Sea& sea, const double lo[3], const double hi[3], const double l[3], const double* rows,
                int nr, int nstrong, C&& col) {
  int a = 0;
  for (int i = 1; i < 3; ++i)
    if (std::fabs(l[i]) > std::fabs(l[a])) a = i;
  const int b = (a + 1) % 3, c = (a + 2) % 3;
  const double hb = 0.5 * (hi[b] - lo[b]), hc = 0.5 * (hi[c] - lo[c]);
  const double mb = 0.5 * (hi[b] + lo[b]), mc = 0.5 * (hi[c] + lo[c]);
  const int ns = sea.Order(hi[a] - lo[a]);
  double e[3] = {0.0, 0.0, 0.0};
  e[a] = 1.0;
  double lines[kMaxKinks][3];
  int nl = 0;
  // the strong kinks first (the chord's ends changing plane: rows[0 .. nstrong)); the weak ones (the rows
  // after: the field's rule changing, a kink in the second derivative only) where there are strong ones
  if (!rows || !KinkLines(lo, hi, a, b, c, rows, nstrong, lines, &nl)) nl = 0;
  if (nl > 0 && nr > nstrong && !KinkLines(lo, hi, a, b, c, rows, nr, lines, &nl)) nl = 0;
  if (nl == 0) {  // one Gauss product rule over the rectangle
    const int nb = sea.Order(2.0 * hb), ncn = sea.Order(2.0 * hc);
    const double *bx = sea.Nodes(nb), *bw = sea.Weights(nb), *cx = sea.Nodes(ncn), *cw = sea.Weights(ncn);
    for (int i = 0; i < nb; ++i)
      for (int j = 0; j < ncn; ++j) {
        double q0[3];
        q0[a] = 0.0;
        q0[b] = mb + hb * bx[i];
        q0[c] = mc + hc * cx[j];
        col(q0, e, lo[a], hi[a], hb * hc * bw[i] * cw[j], ns, nullptr);
      }
    return;
  }
  // Split at the kinks: slabs in b between the lines' crossings (with each other and the c edges),
  // in each slab the regions between the lines in c order (no two cross inside a slab), each region
  // by a Gauss product rule (its c limits linear in b): the chords' integrals smooth on each.
  double br[kMaxBreaks];
  int nbr = 0;
  br[nbr++] = lo[b];
  br[nbr++] = hi[b];
  bool room = true;
  auto brk = [&](double x) {
    if (!(x > lo[b] && x < hi[b])) return;
    if (nbr < kMaxBreaks) br[nbr++] = x;
    else room = false;
  };
  for (int i = 0; i < nl; ++i) {
    const double* L = lines[i];
    if (L[1] != 0.0) {  // where it meets the c edges (a line along c: its b)
      brk(-(L[0] + L[2] * lo[c]) / L[1]);
      brk(-(L[0] + L[2] * hi[c]) / L[1]);
    }
    for (int j = i + 1; j < nl; ++j) {
      const double* M = lines[j];
      const double det = L[1] * M[2] - L[2] * M[1];
      if (det != 0.0) brk((L[2] * M[0] - L[0] * M[2]) / det);
    }
  }
  if (!room) {  // more crossings than kMaxBreaks (not met by kMaxKinks lines of one box): left whole
    BoxColumns(sea, lo, hi, l, nullptr, 0, 0, col);
    return;
  }
  std::sort(br, br + nbr);
  const double tiny = 1e-13 * (hi[b] - lo[b]);
  for (int k = 0; k + 1 < nbr; ++k) {
    const double b0 = br[k], b1 = br[k + 1];
    if (!(b1 - b0 > tiny)) continue;
    const double bm = 0.5 * (b0 + b1), bh = 0.5 * (b1 - b0);
    // the region boundaries in this slab, c = u0 + u1 b, bottom to top
    double ub[kMaxKinks + 2][2], um[kMaxKinks + 2];
    int nu = 0;
    ub[nu][0] = lo[c], ub[nu][1] = 0.0, um[nu++] = lo[c];
    for (int i = 0; i < nl; ++i) {
      const double* L = lines[i];
      if (L[2] == 0.0) continue;
      const double u0 = -L[0] / L[2], u1 = -L[1] / L[2], cm = u0 + u1 * bm;
      if (cm > lo[c] && cm < hi[c]) ub[nu][0] = u0, ub[nu][1] = u1, um[nu++] = cm;
    }
    ub[nu][0] = hi[c], ub[nu][1] = 0.0, um[nu++] = hi[c];
    int ord[kMaxKinks + 2];
    for (int i = 0; i < nu; ++i) ord[i] = i;
    std::sort(ord, ord + nu, [&](int x, int y) { return um[x] < um[y] || (um[x] == um[y] && x < y); });
    const int nb = sea.Order(b1 - b0);
    const double *bx = sea.Nodes(nb), *bw = sea.Weights(nb);
    for (int r = 0; r + 1 < nu; ++r) {
      const double* B0 = ub[ord[r]];
      const double* B1 = ub[ord[r + 1]];
      const double w0 = (B1[0] + B1[1] * b0) - (B0[0] + B0[1] * b0), w1 = (B1[0] + B1[1] * b1) - (B0[0] + B0[1] * b1);
      const int ncn = sea.Order(std::max(w0, w1));
      const double *cx = sea.Nodes(ncn), *cw = sea.Weights(ncn);
      for (int i = 0; i < nb; ++i) {
        const double bb = bm + bh * bx[i];
        const double cl = B0[0] + B0[1] * bb, cu = B1[0] + B1[1] * bb;
        if (!(cu > cl)) continue;
        const double chh = 0.5 * (cu - cl), cmm = 0.5 * (cu + cl);
        for (int j = 0; j < ncn; ++j) {
          double q0[3];
          q0[a] = 0.0;
          q0[b] = bb;
          q0[c] = cmm + chh * cx[j];
          col(q0, e, lo[a], hi[a], bh * bw[i] * chh * cw[j], ns, nullptr);
        }
      }
    }
  }
}

}  // namespace

void FroudeKrylov(const Sea& sea, double t, double rho, int type, const double size[3], int64_t mesh,
                  const HullPlanes& hp, const double p[3], const double R[9], const double* planes,
                  int npl, int cap, double F[3], double T[3], const unsigned char* only) {
  Sums S{sea, t, rho * sea.g, sea.Ramp(t), p, planes, npl, cap, only};
  double l[3];  // up in the geom frame
  l[0] = R[0] * sea.n[0] + R[3] * sea.n[1] + R[6] * sea.n[2];
  l[1] = R[1] * sea.n[0] + R[4] * sea.n[1] + R[7] * sea.n[2];
  l[2] = R[2] * sea.n[0] + R[5] * sea.n[1] + R[8] * sea.n[2];
  // a column in the geom frame (scaled by sc: an ellipsoid's axes) to the world; rows the
  // geom-frame half-spaces that bound the column's part of the geom (a mesh's faces)
  const double one[3] = {1.0, 1.0, 1.0};
  const double* sc = one;
  double jac = 1.0;
  const double* hrows = nullptr;
  int nh = 0;
  auto col = [&](const double q0[3], const double e[3], double s0, double s1, double w, int ns,
                 const double* exl) {
    if (hrows) {  // a mesh: the chord inside the hull's faces
      for (int j = 0; j < nh; ++j) {
        const double* r = hrows + 4 * j;
        const double a = Dot(r, e), b = r[3] - Dot(r, q0);
        if (a > 0.0) s1 = std::min(s1, b / a);
        else if (a < 0.0) s0 = std::max(s0, b / a);
        else if (b < 0.0) return;
      }
      if (!(s1 > s0)) return;
    }
    const double qs[3] = {q0[0] * sc[0], q0[1] * sc[1], q0[2] * sc[2]};
    const double es[3] = {e[0] * sc[0], e[1] * sc[1], e[2] * sc[2]};
    double x0[3], E[3];
    ToWorld(R, qs, x0);
    for (int i = 0; i < 3; ++i) x0[i] += p[i];
    ToWorld(R, es, E);
    double ex[4];
    if (exl) {  // the local row n.q <= d in the world: (R n).x <= d + (R n).p
      ToWorld(R, exl, ex);
      ex[3] = exl[3] + Dot(ex, p);
    }
    S.Column(x0, E, s0, s1, w * jac, ns, exl ? ex : nullptr);
  };
  // the cap plane in the geom frame: (R' n).q <= d - n.p
  const double* cw = planes + 4 * cap;
  double capl[4];
  capl[0] = R[0] * cw[0] + R[3] * cw[1] + R[6] * cw[2];
  capl[1] = R[1] * cw[0] + R[4] * cw[1] + R[7] * cw[2];
  capl[2] = R[2] * cw[0] + R[5] * cw[1] + R[8] * cw[2];
  capl[3] = cw[3] - Dot(cw, p);
  switch (type) {
    case kBox: {
      const double lo[3] = {-size[0], -size[1], -size[2]};
      // the planes the chords' integrands change rule at, in the geom frame ((R' n).q <= d - n.p): the
      // cell's rows (the chords' ends), then the mean level and a finite sea's seabed (the field's rule;
      // BoxColumns splits at their kinks)
      double lrows[4 * 66];
      const bool fin = std::isfinite(sea.depth);
      const int nr = npl + (fin ? 2 : 1);
      auto local = [&](const double* w, double d, double* out) {
        for (int k = 0; k < 3; ++k) out[k] = R[k] * w[0] + R[3 + k] * w[1] + R[6 + k] * w[2];
        out[3] = d - Dot(w, p);
      };
      if (nr <= 66) {
        for (int j = 0; j < npl; ++j) local(planes + 4 * j, planes[4 * j + 3], lrows + 4 * j);
        local(sea.n, sea.d, lrows + 4 * npl);
        if (fin) local(sea.n, sea.d - sea.depth, lrows + 4 * npl + 4);
      }
      BoxColumns(sea, lo, size, l, nr <= 66 ? lrows : nullptr, nr, npl, col);
      break;
    }
    case kMesh: {
      hrows = hp.rows.data() + 4 * hp.range[mesh];
      nh = static_cast<int>(hp.range[mesh + 1] - hp.range[mesh]);
      BoxColumns(sea, hp.lo.data() + 3 * mesh, hp.hi.data() + 3 * mesh, l, nullptr, 0, 0, col);
      break;
    }
    case kCylinder:
      Cylinder(sea, size[0], size[1], l, capl, col);
      break;
    case kSphere: case kEllipsoid: {
      // a sphere, or an ellipsoid as the unit sphere scaled by its semi-axes (jac = a b c)
      const double ax[3] = {size[0], type == kSphere ? size[0] : size[1], type == kSphere ? size[0] : size[2]};
      double u[3] = {l[0] * ax[0], l[1] * ax[1], l[2] * ax[2]};  // up in the unit sphere's frame
      const double un = std::sqrt(Dot(u, u));
      for (double& c : u) c /= un;
      const double Rmax = std::max(ax[0], std::max(ax[1], ax[2]));  // the orders' extent
      sc = ax;
      jac = ax[0] * ax[1] * ax[2];
      const double o[3] = {0.0, 0.0, 0.0};
      // the cap in the unit sphere's frame: (S n).y <= d
      const double capy[4] = {capl[0] * ax[0], capl[1] * ax[1], capl[2] * ax[2], capl[3]};
      Disk(sea, 1.0, u, o, 0.0, true, nullptr, 2.0 * Rmax, capy, col);
      break;
    }
    case kCapsule: {
      Cylinder(sea, size[0], size[1], l, capl, col);
      double u[3] = {l[0], l[1], l[2]};
      const double un = std::sqrt(Dot(u, u));
      for (double& c : u) c /= un;
      const double top[3] = {0.0, 0.0, size[1]}, bot[3] = {0.0, 0.0, -size[1]};
      const double rt[4] = {0.0, 0.0, -1.0, -size[1]}, rb[4] = {0.0, 0.0, 1.0, -size[1]};
      Disk(sea, size[0], u, top, 0.0, true, rt, 2.0 * size[0], capl, col);
      Disk(sea, size[0], u, bot, 0.0, true, rb, 2.0 * size[0], capl, col);
      break;
    }
    default:
      break;
  }
  for (int i = 0; i < 3; ++i) {
    F[i] = S.F[i];
    T[i] = S.T[i];
  }
}

}  // namespace aurgen::core
