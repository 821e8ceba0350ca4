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

struct Pt3 {
  double x, y, z;
};

// Walk the edges [e0, e1) of one face of E clipped by n.x <= t, in order:
//   keep(a, b)              an edge wholly inside, or the inside part a -> c
//                           of an edge leaving (c its crossing, the exit);
//   enter(c, b, closes, p)  the inside part c -> b of an edge entering (c the
//                           entry); closes: an exit p is pending, and the
//                           closing edge p -> c on the plane belongs here;
//   close(p, f)             at the end, the closing edge from the last exit p
//                           to the face's first entry f (when it was deferred).
// Crossings: c = a + (b - a) sa / (sa - sb), sa and sb the ends' n.x - t.
template <class Keep, class Enter, class Close>
inline void ClipFace(const double* E, int64_t e0, int64_t e1, double nx, double ny, double nz,
                     double t, Keep&& keep, Enter&& enter, Close&& close) {
  bool has_first = false, has_pend = false;
  Pt3 f{0.0, 0.0, 0.0}, p{0.0, 0.0, 0.0};
  for (int64_t e = e0; e < e1; ++e) {
    const double* r = E + 6 * e;
    const Pt3 a{r[0], r[1], r[2]}, b{r[3], r[4], r[5]};
    double sa = nx * a.x + ny * a.y + nz * a.z - t;
    double sb = nx * b.x + ny * b.y + nz * b.z - t;
    if (sa <= 0.0 && sb <= 0.0) {
      keep(a, b);
    } else if (sa <= 0.0 || sb <= 0.0) {
      double lam = sa / (sa - sb);
      const Pt3 c{a.x + (b.x - a.x) * lam, a.y + (b.y - a.y) * lam, a.z + (b.z - a.z) * lam};
      if (sa <= 0.0) {
        keep(a, c);
        has_pend = true;
        p = c;
      } else {
        enter(c, b, has_pend, p);
        if (has_pend) {
          has_pend = false;
        } else if (!has_first) {
          has_first = true;
          f = c;
        }
      }
    }
  }
  if (has_pend && has_first) close(p, f);
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
      PutEdge(E, k, a * kBoxLoops[f][i][0], b * kBoxLoops[f][i][1], c * kBoxLoops[f][i][2],
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
  auto emit = [&](double* dst, int64_t& i, const Pt3& u, const Pt3& v) {
    PutEdge(dst, i++, u.x, u.y, u.z, v.x, v.y, v.z);
  };
  for (int f = 0; f < nF; ++f) {
    int64_t k0 = k;
    // at most one edge out per edge in, plus one closing edge
    if (k + (fsin[f + 1] - fsin[f]) + 1 > e_cap) return -1;
    ClipFace(
        Ein, fsin[f], fsin[f + 1], nx, ny, nz, t,
        [&](const Pt3& a, const Pt3& b) { emit(Eout, k, a, b); },
        [&](const Pt3& c, const Pt3& b, bool closes, const Pt3& p) {
          emit(Eout, k, c, b);
          if (closes) {
            emit(Eout, k, p, c);
            emit(cap, nc, c, p);
          }
        },
        [&](const Pt3& p, const Pt3& c) {
          emit(Eout, k, p, c);
          emit(cap, nc, c, p);
        });
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
    auto add = [&](const Tet& m) {
      V6 += m.v;
      MX += m.m1;
      MY += m.m2;
      MZ += m.m3;
    };
    // closing edge exit p -> entry c on this face (tet m: its sum with the
    // face's edge is kept in the reference's order); the cap gets c -> p
    auto closing = [&](Tet& m, const Pt3& p, const Pt3& c) {
      Tet n = MakeTet(qx, qy, qz, p.x, p.y, p.z, c.x, c.y, c.z);
      Tet k = MakeTet(qcx, qcy, qcz, c.x, c.y, c.z, p.x, p.y, p.z);
      m.v += n.v + k.v;
      m.m1 += n.m1 + k.m1;
      m.m2 += n.m2 + k.m2;
      m.m3 += n.m3 + k.m3;
      AccCap(acc, nx, ny, nz, qcx, qcy, qcz, c.x, c.y, c.z, p.x, p.y, p.z);
    };
    ClipFace(
        E, e0, fs[f + 1], nx, ny, nz, t,
        [&](const Pt3& a, const Pt3& b) { add(MakeTet(qx, qy, qz, a.x, a.y, a.z, b.x, b.y, b.z)); },
        [&](const Pt3& c, const Pt3& b, bool closes, const Pt3& p) {
          Tet m = MakeTet(qx, qy, qz, c.x, c.y, c.z, b.x, b.y, b.z);
          if (closes) closing(m, p, c);
          add(m);
        },
        [&](const Pt3& p, const Pt3& c) {
          Tet m{0.0, 0.0, 0.0, 0.0};
          closing(m, p, c);
          add(m);
        });
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
