// Edge-soup clipping and integration; see clip_poly.h.  Every operation is in
// the same order as the reference implementation (runtime numba kernel, kept as
// the test oracle), so the results agree to rounding, mostly bit for bit.
#include "clip_poly.h"

namespace aurgen::core {
namespace {

// outward, counter-clockwise face loops of a box, as sign patterns of (a, b, c)
constexpr double kBoxLoops[6][4][3] = {
    {{1, -1, -1}, {1, 1, -1}, {1, 1, 1}, {1, -1, 1}},
    {{-1, -1, -1}, {-1, -1, 1}, {-1, 1, 1}, {-1, 1, -1}},
    {{-1, 1, -1}, {-1, 1, 1}, {1, 1, 1}, {1, 1, -1}},
    {{-1, -1, -1}, {1, -1, -1}, {1, -1, 1}, {-1, -1, 1}},
    {{-1, -1, 1}, {1, -1, 1}, {1, 1, 1}, {-1, 1, 1}},
    {{-1, -1, -1}, {-1, 1, -1}, {1, 1, -1}, {1, -1, -1}},
};

inline void Emit(double* E, int64_t k, double ax, double ay, double az, double bx,
                 double by, double bz) {
  double* r = E + 6 * k;
  r[0] = ax;
  r[1] = ay;
  r[2] = az;
  r[3] = bx;
  r[4] = by;
  r[5] = bz;
}

// 6 x volume of the tetrahedron (0, q, a, b) and 24 x its first moment.
struct Tet {
  double v, m1, m2, m3;
};
inline Tet MakeTet(double qx, double qy, double qz, double ax, double ay, double az,
                   double bx, double by, double bz) {
  double v6 = qx * (ay * bz - az * by) + qy * (az * bx - ax * bz) + qz * (ax * by - ay * bx);
  return {v6, v6 * (qx + ax + bx), v6 * (qy + ay + by), v6 * (qz + az + bz)};
}

// Cap triangle (q, a, b): area and its first and second moments into
// acc[4:14] (x 2, 6, 24).
inline void AccCap(double* acc, double nx, double ny, double nz, double qx, double qy,
                   double qz, double ax, double ay, double az, double bx, double by,
                   double bz) {
  double ux = ax - qx, uy = ay - qy, uz = az - qz;
  double wx = bx - qx, wy = by - qy, wz = bz - qz;
  double a2 = nx * (uy * wz - uz * wy) + ny * (uz * wx - ux * wz) + nz * (ux * wy - uy * wx);
  acc[4] += a2;
  double sx = qx + ax + bx, sy = qy + ay + by, sz = qz + az + bz;
  acc[5] += a2 * sx;
  acc[6] += a2 * sy;
  acc[7] += a2 * sz;
  acc[8] += a2 * (qx * qx + ax * ax + bx * bx + sx * sx);
  acc[9] += a2 * (qy * qy + ay * ay + by * by + sy * sy);
  acc[10] += a2 * (qz * qz + az * az + bz * bz + sz * sz);
  acc[11] += a2 * (qx * qy + ax * ay + bx * by + sx * sy);
  acc[12] += a2 * (qx * qz + ax * az + bx * bz + sx * sz);
  acc[13] += a2 * (qy * qz + ay * az + by * bz + sy * sz);
}

}  // namespace

int BoxSoup(double a, double b, double c, double* E, int64_t* fs) {
  int64_t k = 0;
  for (int f = 0; f < 6; ++f) {
    fs[f] = k;
    for (int i = 0; i < 4; ++i) {
      int j = (i + 1) % 4;
      Emit(E, k, a * kBoxLoops[f][i][0], b * kBoxLoops[f][i][1], c * kBoxLoops[f][i][2],
           a * kBoxLoops[f][j][0], b * kBoxLoops[f][j][1], c * kBoxLoops[f][j][2]);
      ++k;
    }
  }
  fs[6] = k;
  return 6;
}

int SoupClip(const double* Ein, const int64_t* fsin, int nF, double nx, double ny,
             double nz, double t, double* Eout, int64_t* fsout, double* cap,
             int64_t e_cap, int64_t f_cap) {
  int64_t k = 0;
  int fo = 0;
  int64_t nc = 0;
  for (int f = 0; f < nF; ++f) {
    int64_t k0 = k;
    bool has_first = false, has_pend = false;
    double fx = 0, fy = 0, fz = 0, px = 0, py = 0, pz = 0;
    // at most one edge out per edge in, plus one closing edge
    if (k + (fsin[f + 1] - fsin[f]) + 1 > e_cap) return -1;
    for (int64_t e = fsin[f]; e < fsin[f + 1]; ++e) {
      const double* r = Ein + 6 * e;
      double ax = r[0], ay = r[1], az = r[2], bx = r[3], by = r[4], bz = r[5];
      double sa = nx * ax + ny * ay + nz * az - t;
      double sb = nx * bx + ny * by + nz * bz - t;
      if (sa <= 0.0) {
        if (sb <= 0.0) {
          Emit(Eout, k++, ax, ay, az, bx, by, bz);
        } else {
          double lam = sa / (sa - sb);
          double cx = ax + (bx - ax) * lam, cy = ay + (by - ay) * lam, cz = az + (bz - az) * lam;
          Emit(Eout, k++, ax, ay, az, cx, cy, cz);
          has_pend = true;
          px = cx;
          py = cy;
          pz = cz;
        }
      } else if (sb <= 0.0) {
        double lam = sa / (sa - sb);
        double cx = ax + (bx - ax) * lam, cy = ay + (by - ay) * lam, cz = az + (bz - az) * lam;
        Emit(Eout, k++, cx, cy, cz, bx, by, bz);
        if (has_pend) {
          Emit(Eout, k++, px, py, pz, cx, cy, cz);
          Emit(cap, nc++, cx, cy, cz, px, py, pz);
          has_pend = false;
        } else if (!has_first) {
          has_first = true;
          fx = cx;
          fy = cy;
          fz = cz;
        }
      }
    }
    if (has_pend && has_first) {
      Emit(Eout, k++, px, py, pz, fx, fy, fz);
      Emit(cap, nc++, fx, fy, fz, px, py, pz);
    }
    if (k > k0) {
      if (fo >= f_cap) return -1;
      fsout[fo++] = k0;
    }
  }
  if (nc > 0) {
    if (fo >= f_cap || k + nc > e_cap) return -1;
    fsout[fo++] = k;
    for (int64_t i = 0; i < nc; ++i) {
      for (int j = 0; j < 6; ++j) Eout[6 * k + j] = cap[6 * i + j];
      ++k;
    }
  }
  fsout[fo] = k;
  return fo;
}

void SoupIntegrate(const double* E, const int64_t* fs, int nF, double nx, double ny,
                   double nz, double t, double* acc) {
  for (int i = 0; i < kNAcc; ++i) acc[i] = 0.0;
  double V6 = 0.0, MX = 0.0, MY = 0.0, MZ = 0.0;
  double qcx = nx * t, qcy = ny * t, qcz = nz * t;
  for (int f = 0; f < nF; ++f) {
    int64_t e0 = fs[f];
    double qx = E[6 * e0], qy = E[6 * e0 + 1], qz = E[6 * e0 + 2];
    bool has_first = false, has_pend = false;
    double fx = 0, fy = 0, fz = 0, px = 0, py = 0, pz = 0;
    for (int64_t e = e0; e < fs[f + 1]; ++e) {
      const double* r = E + 6 * e;
      double ax = r[0], ay = r[1], az = r[2], bx = r[3], by = r[4], bz = r[5];
      double sa = nx * ax + ny * ay + nz * az - t;
      double sb = nx * bx + ny * by + nz * bz - t;
      Tet m;
      if (sa <= 0.0) {
        if (sb <= 0.0) {
          m = MakeTet(qx, qy, qz, ax, ay, az, bx, by, bz);
        } else {
          double lam = sa / (sa - sb);
          double cx = ax + (bx - ax) * lam, cy = ay + (by - ay) * lam, cz = az + (bz - az) * lam;
          m = MakeTet(qx, qy, qz, ax, ay, az, cx, cy, cz);
          has_pend = true;
          px = cx;
          py = cy;
          pz = cz;
        }
      } else if (sb <= 0.0) {
        double lam = sa / (sa - sb);
        double cx = ax + (bx - ax) * lam, cy = ay + (by - ay) * lam, cz = az + (bz - az) * lam;
        m = MakeTet(qx, qy, qz, cx, cy, cz, bx, by, bz);
        if (has_pend) {
          // closing edge exit -> entry on this face; the cap gets entry -> exit
          Tet n = MakeTet(qx, qy, qz, px, py, pz, cx, cy, cz);
          Tet c = MakeTet(qcx, qcy, qcz, cx, cy, cz, px, py, pz);
          m.v += n.v + c.v;
          m.m1 += n.m1 + c.m1;
          m.m2 += n.m2 + c.m2;
          m.m3 += n.m3 + c.m3;
          AccCap(acc, nx, ny, nz, qcx, qcy, qcz, cx, cy, cz, px, py, pz);
          has_pend = false;
        } else if (!has_first) {
          has_first = true;
          fx = cx;
          fy = cy;
          fz = cz;
        }
      } else {
        continue;
      }
      V6 += m.v;
      MX += m.m1;
      MY += m.m2;
      MZ += m.m3;
    }
    if (has_pend && has_first) {
      Tet n = MakeTet(qx, qy, qz, px, py, pz, fx, fy, fz);
      Tet c = MakeTet(qcx, qcy, qcz, fx, fy, fz, px, py, pz);
      V6 += n.v + c.v;
      MX += n.m1 + c.m1;
      MY += n.m2 + c.m2;
      MZ += n.m3 + c.m3;
      AccCap(acc, nx, ny, nz, qcx, qcy, qcz, fx, fy, fz, px, py, pz);
    }
  }
  acc[0] = V6 / 6.0;
  acc[1] = MX / 24.0;
  acc[2] = MY / 24.0;
  acc[3] = MZ / 24.0;
  acc[4] *= 0.5;
  for (int i = 5; i < 8; ++i) acc[i] /= 6.0;
  for (int i = 8; i < 14; ++i) acc[i] /= 24.0;
}

}  // namespace aurgen::core
