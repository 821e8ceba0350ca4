// Smooth-shape closed forms and quadratures; see clip_smooth.h.  The order of
// operations follows the reference implementation (the numba kernel kept as the
// test oracle) so that the two agree to rounding.
#include "clip_smooth.h"

#include <algorithm>
#include <cmath>

#include "gauss.h"

namespace aurgen::core {
namespace {

constexpr double kPi = 3.141592653589793;

inline double Clamp1(double x) {
  if (x < -1.0) return -1.0;
  if (x > 1.0) return 1.0;
  return x;
}

}  // namespace

double SegArea(double x) {
  if (x <= -1.0) return 0.0;
  if (x >= 1.0) return kPi;
  double v = std::acos(-x) + x * std::sqrt(1.0 - x * x);
  return v > 0.0 ? v : 0.0;
}

double SegMoment(double x) {
  if (x <= -1.0 || x >= 1.0) return 0.0;
  double q = 1.0 - x * x;
  return -(2.0 / 3.0) * q * std::sqrt(q);
}

double MeanChord(double u0, double u1) {
  double d = u1 - u0;
  if (std::fabs(d) > 0.25) {
    double f1 = u1 * std::sqrt(1.0 - u1 * u1) + std::asin(u1);
    double f0 = u0 * std::sqrt(1.0 - u0 * u0) + std::asin(u0);
    return (f1 - f0) / d;
  }
  double c0 = std::sqrt(1.0 - u0 * u0);
  double c1 = std::sqrt(1.0 - u1 * u1);
  double cs = c0 + c1;
  if (cs <= 0.0) return 0.0;
  double g = u0 * (u0 + u1) / cs;
  double k = c0 + g;
  double cc = c0 * c1 + u0 * u1;
  double at = (d == 0.0) ? k / cc : std::atan2(d * k, cc) / d;
  return c1 - g + at;
}

Ball1Result Ball1(double tau) {
  if (tau <= -1.0) return {0.0, -1.0, 0.0};
  if (tau >= 1.0) return {4.0 * kPi / 3.0, 0.0, 0.0};
  double p = 1.0 + tau, q = 1.0 - tau;
  return {kPi * p * p * (2.0 - tau) / 3.0, -0.75 * q * q / (2.0 - tau), kPi * p * q};
}

void Ball2(double m1x, double m1y, double m1z, double t1, double m2x, double m2y,
           double m2z, double t2, double* out) {
  double alpha = m1x * m2x + m1y * m2y + m1z * m2z;
  double vx = m2x - alpha * m1x, vy = m2y - alpha * m1y, vz = m2z - alpha * m1z;
  double beta = std::sqrt(vx * vx + vy * vy + vz * vz);
  double ulo = -1.0;
  double uhi = t1 < 1.0 ? t1 : 1.0;
  if (beta > 1e-300) {
    vx /= beta;
    vy /= beta;
    vz /= beta;
  } else {
    beta = 0.0;
    double c = t2 / alpha;
    if (alpha > 0.0) {
      if (c < uhi) uhi = c;
    } else {
      if (c > ulo) ulo = c;
    }
  }
  for (int i = 0; i < 5; ++i) out[i] = 0.0;
  if (uhi <= ulo) return;
  double plo = std::acos(-Clamp1(ulo));
  double phi_ = std::acos(-Clamp1(uhi));
  double bk[4] = {plo, plo, plo, phi_};
  if (beta > 0.0 && std::fabs(t2) < 1.0) {
    double disc = beta * std::sqrt(1.0 - t2 * t2);
    double ka = std::acos(-Clamp1(t2 * alpha - disc));
    double kb = std::acos(-Clamp1(t2 * alpha + disc));
    if (ka > kb) std::swap(ka, kb);
    bk[1] = std::min(std::max(ka, plo), phi_);
    bk[2] = std::min(std::max(kb, plo), phi_);
  }
  double V = 0.0, Mu = 0.0, Mv = 0.0;
  for (int piece = 0; piece < 3; ++piece) {
    double a = bk[piece], b = bk[piece + 1];
    if (b <= a) continue;
    double mid = 0.5 * (a + b), hl = 0.5 * (b - a);
    for (int k = 0; k < 24; ++k) {
      double ph = mid + hl * gauss::kS24[k];
      double wgt = hl * gauss::kC24[k];
      double u = -std::cos(ph);
      double R = std::sin(ph);
      double w = beta > 0.0 ? Clamp1(((t2 - alpha * u) / beta) / R) : 1.0;
      double f = wgt * R;  // du = sin(phi) dphi
      double ar = R * R * SegArea(w);
      V += f * ar;
      Mu += f * u * ar;
      Mv += f * R * R * R * SegMoment(w);
    }
  }
  out[0] = V;
  out[1] = Mu * m1x + Mv * vx;
  out[2] = Mu * m1y + Mv * vy;
  out[3] = Mu * m1z + Mv * vz;
  if (-1.0 < t1 && t1 < 1.0 && ulo <= t1 && t1 <= uhi) {
    double R1 = std::sqrt((1.0 - t1) * (1.0 + t1));
    if (beta > 0.0) {
      if (R1 > 0.0) out[4] = R1 * R1 * SegArea(((t2 - alpha * t1) / beta) / R1);
    } else {
      out[4] = kPi * R1 * R1;
    }
  }
}

void Ellipsoid1(double a, double b, double c, double nx, double ny, double nz, double t,
                double* out) {
  double px = a * nx, py = b * ny, pz = c * nz;
  double L = std::sqrt(px * px + py * py + pz * pz);
  double mx = px / L, my = py / L, mz = pz / L;
  double tau = t / L;
  Ball1Result r = Ball1(tau);
  double det = a * b * c;
  double V = det * r.v;
  out[0] = V;
  out[1] = V * r.k * a * mx;
  out[2] = V * r.k * b * my;
  out[3] = V * r.k * c * mz;
  out[4] = det * r.area / L;
  double tc = Clamp1(tau);
  out[5] = a * tc * mx;
  out[6] = b * tc * my;
  out[7] = c * tc * mz;
  // disk of radius R in y: S_y = (pi R^4 / 4)(I - m m^T); S_x = (det/L) A S_y A
  double R2 = (1.0 - tc) * (1.0 + tc);
  double s = (det / L) * kPi * R2 * R2 * 0.25;
  out[8] = s * a * a * (1.0 - mx * mx);
  out[9] = s * b * b * (1.0 - my * my);
  out[10] = s * c * c * (1.0 - mz * mz);
  out[11] = -s * a * b * mx * my;
  out[12] = -s * a * c * mx * mz;
  out[13] = -s * b * c * my * mz;
}

void Cylinder1(double r, double h, double nx, double ny, double nz, double t, double* out) {
  double rho = std::sqrt(nx * nx + ny * ny);
  double ex = 1.0, ey = 0.0;
  if (rho > 0.0) {
    ex = nx / rho;
    ey = ny / rho;
  }
  double b1 = 0.0, b2 = 0.0, s1 = 0.0, s2 = 0.0;
  if (rho > 0.0) {
    s1 = (t - nz * h) / rho;
    s2 = (t + nz * h) / rho;
    b1 = std::acos(-Clamp1(s1 / r));
    b2 = std::acos(-Clamp1(s2 / r));
    if (b1 > b2) std::swap(b1, b2);
  }
  double V = 0.0, Ms = 0.0, Mz = 0.0;
  for (int piece = 0; piece < 3; ++piece) {
    double lo = piece == 0 ? 0.0 : (piece == 1 ? b1 : b2);
    double hi = piece == 0 ? b1 : (piece == 1 ? b2 : kPi);
    if (hi <= lo) continue;
    double mid = 0.5 * (lo + hi), hl = 0.5 * (hi - lo);
    for (int k = 0; k < 16; ++k) {
      double th = mid + hl * gauss::kX16[k];
      double sn = std::sin(th);
      double s = -r * std::cos(th);
      double zlo, zhi;
      if (nz > 0.0) {
        zlo = -h;
        zhi = (t - rho * s) / nz;
        zhi = zhi < -h ? -h : (zhi > h ? h : zhi);
      } else if (nz < 0.0) {
        zhi = h;
        zlo = (t - rho * s) / nz;
        zlo = zlo < -h ? -h : (zlo > h ? h : zlo);
      } else {
        if (rho * s <= t) {
          zlo = -h;
          zhi = h;
        } else {
          continue;
        }
      }
      double ln = zhi - zlo;
      if (ln <= 0.0) continue;
      double f = hl * gauss::kW16[k] * 2.0 * r * r * sn * sn * ln;
      V += f;
      Ms += f * s;
      Mz += f * 0.5 * (zhi + zlo);
    }
  }
  out[0] = V;
  out[1] = Ms * ex;
  out[2] = Ms * ey;
  out[3] = Mz;
  // section area
  double anz = std::fabs(nz);
  double A = 0.0;
  if (rho == 0.0) {
    if (std::fabs(t) < h) A = kPi * r * r;
  } else if (anz >= rho) {
    double lo = std::min(s1, s2), hi = std::max(s1, s2);
    A = r * r * (SegArea(hi / r) - SegArea(lo / r)) / anz;
  } else if (nz == 0.0) {
    double u = t / rho / r;
    if (std::fabs(u) < 1.0) A = 2.0 * h * r * 2.0 * std::sqrt((1.0 - u) * (1.0 + u)) / rho;
  } else {
    double za = (t - rho * r) / nz, zb = (t + rho * r) / nz;
    double z0 = std::max(std::min(za, zb), -h);
    double z1 = std::min(std::max(za, zb), h);
    if (z1 > z0) {
      double u0 = Clamp1((t - nz * z0) / rho / r);
      double u1 = Clamp1((t - nz * z1) / rho / r);
      A = (z1 - z0) * r * MeanChord(u0, u1) / rho;
    }
  }
  out[4] = A;
}

void Capsule1(double r, double h, double nx, double ny, double nz, double t, double* out,
              double* tmp) {
  Cylinder1(r, h, nx, ny, nz, t, out);
  double r3 = r * r * r;
  for (int side = 0; side < 2; ++side) {
    double sg = side == 0 ? 1.0 : -1.0;
    // cap centre (0, 0, sg*h); y = (x - c)/r; half ball sg*y_z >= 0
    Ball2(nx, ny, nz, (t - sg * nz * h) / r, 0.0, 0.0, -sg, 0.0, tmp);
    double vy = tmp[0];
    out[0] += r3 * vy;
    out[1] += r3 * r * tmp[1];
    out[2] += r3 * r * tmp[2];
    out[3] += r3 * (sg * h * vy + r * tmp[3]);
    out[4] += r * r * tmp[4];
  }
}

}  // namespace aurgen::core
