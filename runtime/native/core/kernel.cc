// The hydrostatics kernel; see kernel.h.  The order of floating-point
// operations follows the reference implementation (the numba kernel kept as the
// test oracle), so the two agree to rounding and mostly bit for bit.
#include "kernel.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "clip_box.h"
#include "clip_smooth.h"
#include "smooth_rows.h"

namespace aurgen::core {
namespace {

constexpr double kPi = 3.141592653589793;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

// (radius, z) of ring ii of the revolution model (unit sphere for ellipsoids).
inline void Ring(int type, int ii, double r, double h, double* rho, double* z) {
  if (type == kCylinder) {
    *rho = r;
    *z = ii == 0 ? -h : h;
    return;
  }
  if (type == kCapsule) {
    if (ii <= kNLat / 2) {
      double th = kPi * ii / kNLat;
      *rho = r * std::sin(th);
      *z = -h - r * std::cos(th);
      return;
    }
    double th = kPi * (ii - 1) / kNLat;
    *rho = r * std::sin(th);
    *z = h - r * std::cos(th);
    return;
  }
  double th = kPi * ii / kNLat;
  *rho = std::sin(th);
  *z = -std::cos(th);
}

// Volume-matched polyhedral model of a smooth geom (geom frame) into (E, fs);
// returns its number of faces.  acc is scratch (kNAcc).
int RevolutionSoup(int type, const double size[3], double* E, int64_t* fs, double* acc) {
  const int M = kNLon;
  double g = std::sqrt(2.0 * kPi / (M * std::sin(2.0 * kPi / M)));  // ring polygon area = pi rho^2
  int nring = type == kCylinder ? 2 : (type == kCapsule ? kNLat + 2 : kNLat + 1);
  double r = size[0], h = size[1];
  int64_t k = 0;
  int f = 0;
  for (int i = 0; i < nring - 1; ++i) {
    double rho0, z0, rho1, z1;
    Ring(type, i, r, h, &rho0, &z0);
    Ring(type, i + 1, r, h, &rho1, &z1);
    rho0 *= g;
    rho1 *= g;
    for (int j = 0; j < M; ++j) {
      double c0 = std::cos(2.0 * kPi * j / M), s0 = std::sin(2.0 * kPi * j / M);
      double c1 = std::cos(2.0 * kPi * (j + 1) / M), s1 = std::sin(2.0 * kPi * (j + 1) / M);
      fs[f++] = k;
      double ax = rho0 * c0, ay = rho0 * s0, bx = rho0 * c1, by = rho0 * s1;
      double cx = rho1 * c1, cy = rho1 * s1, dx = rho1 * c0, dy = rho1 * s0;
      PutEdge(E, k, ax, ay, z0, bx, by, z0);
      PutEdge(E, k + 1, bx, by, z0, cx, cy, z1);
      PutEdge(E, k + 2, cx, cy, z1, dx, dy, z1);
      PutEdge(E, k + 3, dx, dy, z1, ax, ay, z0);
      k += 4;
    }
  }
  if (type == kCylinder) {
    for (int side = 0; side < 2; ++side) {
      fs[f++] = k;
      double rr = r * g;
      for (int j = 0; j < M; ++j) {
        double p0, p1, zz;
        if (side == 0) {  // top, +z, counter-clockwise seen from above
          p0 = 2.0 * kPi * j / M;
          p1 = 2.0 * kPi * (j + 1) / M;
          zz = h;
        } else {
          p0 = 2.0 * kPi * (M - j) / M;
          p1 = 2.0 * kPi * (M - j - 1) / M;
          zz = -h;
        }
        PutEdge(E, k, rr * std::cos(p0), rr * std::sin(p0), zz, rr * std::cos(p1),
                rr * std::sin(p1), zz);
        ++k;
      }
    }
  }
  fs[f] = k;
  // volume match: isotropic scale about the centre
  SoupIntegrate(E, fs, f, 0.0, 0.0, 1.0, kInf, acc);
  double vt;
  if (type == kCylinder) {
    vt = 2.0 * kPi * r * r * h;
  } else if (type == kCapsule) {
    vt = kPi * r * r * (2.0 * h + 4.0 * r / 3.0);
  } else {
    vt = 4.0 * kPi / 3.0;
  }
  double sc = std::pow(vt / acc[0], 1.0 / 3.0);
  double sx = sc, sy = sc, sz = sc;
  if (type == kEllipsoid || type == kSphere) {
    sx = sc * size[0];
    sy = type == kEllipsoid ? sc * size[1] : sx;
    sz = type == kEllipsoid ? sc * size[2] : sx;
  }
  for (int64_t i = 0; i < k; ++i) {
    double* e = E + 6 * i;
    e[0] *= sx;
    e[1] *= sy;
    e[2] *= sz;
    e[3] *= sx;
    e[4] *= sy;
    e[5] *= sz;
  }
  return f;
}

// (edges, faces) of the starting soup of a smooth geom's model.
inline void ModelSize(int type, int64_t* e, int64_t* f) {
  if (type == kCylinder) {
    *e = 6 * kNLon;
    *f = kNLon + 2;
  } else if (type == kCapsule) {
    *e = 4 * kNLon * (kNLat + 1);
    *f = kNLon * (kNLat + 1);
  } else {
    *e = 4 * kNLon * kNLat;
    *f = kNLon * kNLat;
  }
}

// One plane, smooth geom, geom frame: res[0] V, res[1:4] ∫x dV, res[4] A.
inline void Smooth1(int type, const double size[3], double nx, double ny, double nz, double t,
                    double* res, double* tmp) {
  if (type == kSphere) {
    double r = size[0];
    Ellipsoid1(r, r, r, nx, ny, nz, t, res);
  } else if (type == kEllipsoid) {
    Ellipsoid1(size[0], size[1], size[2], nx, ny, nz, t, res);
  } else if (type == kCylinder) {
    Cylinder1(size[0], size[1], nx, ny, nz, t, res);
  } else {
    Capsule1(size[0], size[1], nx, ny, nz, t, res, tmp);
  }
}

// Waterplane first/second moments of a cylinder or capsule by central
// differences of the exact first moment (I = -dM/dn, F = dM/dt).  Writes
// acc[4] = A, acc[5:8] = ∫x dA, acc[8:14] = ∫x xᵀ dA about the origin.
void FdWaterplane(int type, const double size[3], double nx, double ny, double nz, double t,
                  double A, double* acc, double* res, double* tmp) {
  double L = size[0] + size[1];
  double dt = kFdEps * L;
  Smooth1(type, size, nx, ny, nz, t + dt, res, tmp);
  double p0 = res[1], p1 = res[2], p2 = res[3];
  Smooth1(type, size, nx, ny, nz, t - dt, res, tmp);
  double F0 = (p0 - res[1]) / (2 * dt);
  double F1 = (p1 - res[2]) / (2 * dt);
  double F2 = (p2 - res[3]) / (2 * dt);
  // tangent basis
  double ux, uy, uz;
  if (std::fabs(nx) < 0.9) {
    ux = 1.0 - nx * nx;
    uy = -nx * ny;
    uz = -nx * nz;
  } else {
    ux = -ny * nx;
    uy = 1.0 - ny * ny;
    uz = -ny * nz;
  }
  double un = std::sqrt(ux * ux + uy * uy + uz * uz);
  ux /= un;
  uy /= un;
  uz /= un;
  double vx = ny * uz - nz * uy, vy = nz * ux - nx * uz, vz = nx * uy - ny * ux;
  double Ju[2][3];
  double q = 1.0 / std::sqrt(1.0 + kFdEps * kFdEps);
  for (int b = 0; b < 2; ++b) {
    double wx = b == 0 ? ux : vx, wy = b == 0 ? uy : vy, wz = b == 0 ? uz : vz;
    Smooth1(type, size, (nx + kFdEps * wx) * q, (ny + kFdEps * wy) * q, (nz + kFdEps * wz) * q,
            t * q, res, tmp);
    double a0 = res[1], a1 = res[2], a2 = res[3];
    Smooth1(type, size, (nx - kFdEps * wx) * q, (ny - kFdEps * wy) * q, (nz - kFdEps * wz) * q,
            t * q, res, tmp);
    Ju[b][0] = -(a0 - res[1]) / (2 * kFdEps);
    Ju[b][1] = -(a1 - res[2]) / (2 * kFdEps);
    Ju[b][2] = -(a2 - res[3]) / (2 * kFdEps);
  }
  double j00 = ux * Ju[0][0] + uy * Ju[0][1] + uz * Ju[0][2];
  double j11 = vx * Ju[1][0] + vy * Ju[1][1] + vz * Ju[1][2];
  double j01 = 0.5 * (vx * Ju[0][0] + vy * Ju[0][1] + vz * Ju[0][2] + ux * Ju[1][0] +
                      uy * Ju[1][1] + uz * Ju[1][2]);
  acc[4] = A;
  acc[5] = F0;
  acc[6] = F1;
  acc[7] = F2;
  // J = T Jt T^T + t (T y1 n^T + n y1^T T^T) + t^2 A n n^T, y1 = T^T F
  double y0 = ux * F0 + uy * F1 + uz * F2;
  double y1 = vx * F0 + vy * F1 + vz * F2;
  const double tu[3] = {ux, uy, uz}, tv[3] = {vx, vy, vz}, nn[3] = {nx, ny, nz};
  static constexpr int kI[6] = {0, 1, 2, 0, 0, 1}, kJ[6] = {0, 1, 2, 1, 2, 2};
  for (int m = 0; m < 6; ++m) {
    int i = kI[m], j = kJ[m];
    double ti = y0 * tu[i] + y1 * tv[i];
    double tj = y0 * tu[j] + y1 * tv[j];
    acc[8 + m] = (j00 * tu[i] * tu[j] + j11 * tv[i] * tv[j] + j01 * (tu[i] * tv[j] + tv[i] * tu[j]) +
                  t * (ti * nn[j] + nn[i] * tj) + t * t * A * nn[i] * nn[j]);
  }
}

}  // namespace

void Scratch::Reserve(int64_t e, int64_t f, int P) {
  if (e > e_cap) {
    E1.resize(6 * e);
    E2.resize(6 * e);
    e_cap = e;
  }
  if (f > f_cap) {
    cap.resize(6 * f);
    fs1.resize(f + 1);
    fs2.resize(f + 1);
    f_cap = f;
  }
  if (P > p_cap) {
    act.resize(4 * P);
    p_cap = P;
  }
  if (acc.empty()) {
    acc.resize(kNAcc);
    res.resize(kNAcc);
    tmp.resize(8);
  }
}

void ScratchNeed(int type, int64_t mesh_id, const HullSet& hulls, int P, int64_t* e,
                 int64_t* f) {
  int64_t e0, f0;
  if (type == kMesh) {
    int64_t fa = hulls.face_range[mesh_id], fb = hulls.face_range[mesh_id + 1];
    f0 = fb - fa;
    e0 = hulls.face_start[fb] - hulls.face_start[fa];
  } else if (type == kBox) {
    e0 = 24;
    f0 = 6;
  } else if (P >= 2) {
    ModelSize(type, &e0, &f0);
  } else {
    *e = 0;
    *f = 0;
    return;
  }
  // each plane adds at most one closing edge per face and one cap face
  *e = e0 + 2 * static_cast<int64_t>(P) * (f0 + P) + 8;
  *f = f0 + P + 2;
}

void SupportLocal(int type, const double size[3], double nx, double ny, double nz,
                  const double* hv, int64_t v0, int64_t v1, double* hi, double* lo) {
  double h;
  switch (type) {
    case kSphere:
      h = size[0] * std::sqrt(nx * nx + ny * ny + nz * nz);
      break;
    case kEllipsoid: {
      double a = size[0] * nx, b = size[1] * ny, c = size[2] * nz;
      h = std::sqrt(a * a + b * b + c * c);
      break;
    }
    case kBox:
      h = size[0] * std::fabs(nx) + size[1] * std::fabs(ny) + size[2] * std::fabs(nz);
      break;
    case kCylinder:
      h = size[0] * std::sqrt(nx * nx + ny * ny) + size[1] * std::fabs(nz);
      break;
    case kCapsule:  // segment ±h ẑ swept by a ball: h|n_z| + r|n|
      h = size[1] * std::fabs(nz) + size[0] * std::sqrt(nx * nx + ny * ny + nz * nz);
      break;
    default: {
      double mx = -kInf, mn = kInf;
      for (int64_t i = v0; i < v1; ++i) {
        double s = nx * hv[3 * i] + ny * hv[3 * i + 1] + nz * hv[3 * i + 2];
        if (s > mx) mx = s;
        if (s < mn) mn = s;
      }
      *hi = mx;
      *lo = mn;
      return;
    }
  }
  *hi = h;
  *lo = -h;
}

void FullLocal(int type, const double size[3], const HullSet& hulls, int64_t mesh_id,
               double out[4]) {
  out[1] = out[2] = out[3] = 0.0;
  switch (type) {
    case kSphere: {
      double r = size[0];
      out[0] = 4.0 * kPi / 3.0 * r * r * r;
      return;
    }
    case kEllipsoid:
      out[0] = 4.0 * kPi / 3.0 * size[0] * size[1] * size[2];
      return;
    case kBox:
      out[0] = 8.0 * size[0] * size[1] * size[2];
      return;
    case kCylinder: {
      double r = size[0];
      out[0] = 2.0 * kPi * r * r * size[1];
      return;
    }
    case kCapsule: {
      double r = size[0];
      out[0] = kPi * r * r * (2.0 * size[1] + 4.0 * r / 3.0);
      return;
    }
    default:
      out[0] = hulls.volume[mesh_id];
      out[1] = hulls.centre[3 * mesh_id];
      out[2] = hulls.centre[3 * mesh_id + 1];
      out[3] = hulls.centre[3 * mesh_id + 2];
  }
}

int ClipGeom(int type, const double size[3], const double pos[3], const double R[9],
             int64_t mid, const HullSet& hulls, const double* planes, int P, double* row,
             int out_w, bool want_wp, Scratch& s) {
  const bool wp = want_wp && out_w >= kOutW;
  if (P > s.p_cap || s.acc.empty()) {
    for (int c = 0; c < out_w; ++c) row[c] = kNan;
    return -1;
  }
  if (type != kMesh) mid = 0;
  int64_t v0 = type == kMesh ? hulls.vert_range[mid] : 0;
  int64_t v1 = type == kMesh ? hulls.vert_range[mid + 1] : 0;
  double px = pos[0], py = pos[1], pz = pos[2];
  double* act = s.act.data();
  double* acc = s.acc.data();
  double* res = s.res.data();
  double* tmp = s.tmp.data();
  int nact = 0;
  bool empty = false;
  for (int j = 0; j < P; ++j) {
    const double* pl = planes + 4 * j;
    double wx = pl[0], wy = pl[1], wz = pl[2];
    double lx = R[0] * wx + R[3] * wy + R[6] * wz;
    double ly = R[1] * wx + R[4] * wy + R[7] * wz;
    double lz = R[2] * wx + R[5] * wy + R[8] * wz;
    double t = pl[3] - (wx * px + wy * py + wz * pz);
    double hmax, hmin;
    SupportLocal(type, size, lx, ly, lz, hulls.verts, v0, v1, &hmax, &hmin);
    if (hmax <= t) continue;
    if (hmin >= t) {
      empty = true;
      break;
    }
    act[4 * nact] = lx;
    act[4 * nact + 1] = ly;
    act[4 * nact + 2] = lz;
    act[4 * nact + 3] = t;
    ++nact;
  }
  for (int c = 0; c < out_w; ++c) row[c] = 0.0;
  if (empty) {
    row[1] = px;
    row[2] = py;
    row[3] = pz;
    if (wp)
      for (int c = 5; c < kOutW; ++c) row[c] = kNan;
    return 0;
  }
  double full[4];
  FullLocal(type, size, hulls, mid, full);
  double vf = full[0], cfx = full[1], cfy = full[2], cfz = full[3];
  double V, mx, my, mz, A;
  if (nact == 0) {
    V = vf;
    mx = vf * cfx;
    my = vf * cfy;
    mz = vf * cfz;
    A = 0.0;
    for (int c = 0; c < kNAcc; ++c) acc[c] = 0.0;
  } else if (nact == 1) {
    double nx = act[0], ny = act[1], nz = act[2], t = act[3];
    if (type == kBox || type == kMesh) {
      if (type == kBox && !s.box_generic) {
        BoxClip1(size[0], size[1], size[2], nx, ny, nz, t, wp, acc);
      } else if (type == kBox) {
        if (s.e_cap < 24 || s.f_cap < 6) {
          for (int c = 0; c < out_w; ++c) row[c] = kNan;
          return -1;
        }
        int nf = BoxSoup(size[0], size[1], size[2], s.E1.data(), s.fs1.data());
        SoupIntegrate(s.E1.data(), s.fs1.data(), nf, nx, ny, nz, t, acc);
      } else {
        int64_t fa = hulls.face_range[mid], fb = hulls.face_range[mid + 1];
        SoupIntegrate(hulls.edges, hulls.face_start + fa, static_cast<int>(fb - fa), nx, ny, nz,
                      t, acc);
      }
      V = acc[0];
      mx = acc[1];
      my = acc[2];
      mz = acc[3];
      A = acc[4];
    } else {
      Smooth1(type, size, nx, ny, nz, t, res, tmp);
      V = res[0];
      mx = res[1];
      my = res[2];
      mz = res[3];
      A = res[4];
      if (wp) {
        if (type == kSphere || type == kEllipsoid) {
          acc[4] = A;
          double cx_ = res[5], cy_ = res[6], cz_ = res[7];
          acc[5] = A * cx_;
          acc[6] = A * cy_;
          acc[7] = A * cz_;
          acc[8] = res[8] + A * cx_ * cx_;
          acc[9] = res[9] + A * cy_ * cy_;
          acc[10] = res[10] + A * cz_ * cz_;
          acc[11] = res[11] + A * cx_ * cy_;
          acc[12] = res[12] + A * cx_ * cz_;
          acc[13] = res[13] + A * cy_ * cz_;
        } else {
          FdWaterplane(type, size, nx, ny, nz, t, A, acc, res, tmp);
        }
      }
    }
  } else {
    A = kNan;
    if ((type == kSphere || type == kEllipsoid) && nact == 2) {
      double a = size[0];
      double b = type == kSphere ? size[0] : size[1];
      double c = type == kSphere ? size[0] : size[2];
      double q[8];
      for (int j = 0; j < 2; ++j) {
        double ex = a * act[4 * j], ey = b * act[4 * j + 1], ez = c * act[4 * j + 2];
        double L = std::sqrt(ex * ex + ey * ey + ez * ez);
        q[4 * j] = ex / L;
        q[4 * j + 1] = ey / L;
        q[4 * j + 2] = ez / L;
        q[4 * j + 3] = act[4 * j + 3] / L;
      }
      Ball2(q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7], res);
      double det = a * b * c;
      V = det * res[0];
      mx = det * a * res[1];
      my = det * b * res[2];
      mz = det * c * res[3];
    } else {
      int64_t ne, nfc;
      ScratchNeed(type, mid, hulls, nact, &ne, &nfc);
      if (ne > s.e_cap || nfc > s.f_cap) {
        for (int c = 0; c < out_w; ++c) row[c] = kNan;
        return -1;
      }
      double* E1 = s.E1.data();
      double* E2 = s.E2.data();
      int64_t* fs1 = s.fs1.data();
      int64_t* fs2 = s.fs2.data();
      int nf;
      if (type == kBox) {
        nf = BoxSoup(size[0], size[1], size[2], E1, fs1);
      } else if (type == kMesh) {
        int64_t fa = hulls.face_range[mid], fb = hulls.face_range[mid + 1];
        int64_t e0 = hulls.face_start[fa];
        int64_t ne0 = hulls.face_start[fb] - e0;
        std::copy(hulls.edges + 6 * e0, hulls.edges + 6 * (e0 + ne0), E1);
        nf = static_cast<int>(fb - fa);
        for (int f = 0; f <= nf; ++f) fs1[f] = hulls.face_start[fa + f] - e0;
      } else {
        nf = RevolutionSoup(type, size, E1, fs1, acc);
      }
      bool src1 = true;
      for (int j = 0; j < nact - 1; ++j) {
        const double* pl = act + 4 * j;
        if (src1) {
          nf = SoupClip(E1, fs1, nf, pl[0], pl[1], pl[2], pl[3], E2, fs2, s.cap.data(), s.e_cap,
                        s.f_cap);
        } else {
          nf = SoupClip(E2, fs2, nf, pl[0], pl[1], pl[2], pl[3], E1, fs1, s.cap.data(), s.e_cap,
                        s.f_cap);
        }
        if (nf < 0) {
          for (int c = 0; c < out_w; ++c) row[c] = kNan;
          return -1;
        }
        src1 = !src1;
      }
      const double* pl = act + 4 * (nact - 1);
      if (src1) {
        SoupIntegrate(E1, fs1, nf, pl[0], pl[1], pl[2], pl[3], acc);
      } else {
        SoupIntegrate(E2, fs2, nf, pl[0], pl[1], pl[2], pl[3], acc);
      }
      V = acc[0];
      mx = acc[1];
      my = acc[2];
      mz = acc[3];
    }
  }
  // to world
  double cx, cy, cz;
  if (V > 0.0) {
    cx = mx / V;
    cy = my / V;
    cz = mz / V;
  } else {
    V = 0.0;
    cx = cfx;
    cy = cfy;
    cz = cfz;
  }
  row[0] = V;
  row[1] = px + R[0] * cx + R[1] * cy + R[2] * cz;
  row[2] = py + R[3] * cx + R[4] * cy + R[5] * cz;
  row[3] = pz + R[6] * cx + R[7] * cy + R[8] * cz;
  row[4] = A;
  if (!wp) return 0;
  if (nact != 1) {
    for (int c = 5; c < kOutW; ++c) row[c] = nact >= 2 ? kNan : 0.0;
    if (nact == 0) {
      row[5] = px;
      row[6] = py;
      row[7] = pz;
    }
    return 0;
  }
  double Aw = acc[4];
  double fx = cx, fy = cy, fz = cz;
  if (Aw > 0.0) {
    fx = acc[5] / Aw;
    fy = acc[6] / Aw;
    fz = acc[7] / Aw;
  }
  row[5] = px + R[0] * fx + R[1] * fy + R[2] * fz;
  row[6] = py + R[3] * fx + R[4] * fy + R[5] * fz;
  row[7] = pz + R[6] * fx + R[7] * fy + R[8] * fz;
  // centroidal, local, then rotate: R Jc R^T
  double Jc[3][3];
  Jc[0][0] = acc[8] - Aw * fx * fx;
  Jc[1][1] = acc[9] - Aw * fy * fy;
  Jc[2][2] = acc[10] - Aw * fz * fz;
  Jc[0][1] = Jc[1][0] = acc[11] - Aw * fx * fy;
  Jc[0][2] = Jc[2][0] = acc[12] - Aw * fx * fz;
  Jc[1][2] = Jc[2][1] = acc[13] - Aw * fy * fz;
  double RJ[3][3], Jw[3][3];
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) RJ[a][b] = R[3 * a] * Jc[0][b] + R[3 * a + 1] * Jc[1][b] + R[3 * a + 2] * Jc[2][b];
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) Jw[a][b] = RJ[a][0] * R[3 * b] + RJ[a][1] * R[3 * b + 1] + RJ[a][2] * R[3 * b + 2];
  row[8] = Jw[0][0];
  row[9] = Jw[1][1];
  row[10] = Jw[2][2];
  row[11] = Jw[0][1];
  row[12] = Jw[0][2];
  row[13] = Jw[1][2];
  return 0;
}

int64_t ClipBatch(const int64_t* types, const double* sizes, const double* pos,
                  const double* mats, const int64_t* mesh_ids, const HullSet& hulls,
                  const double* planes, int P, double* out, int out_w, bool want_wp, int64_t N,
                  Scratch& s, bool smooth_rows) {
  const bool block = smooth_rows && P == 1 && !(want_wp && out_w >= kOutW);
  const bool boxes = block && !s.box_generic;  // the box tier's rows, four at a time too
  int64_t idx[kSmoothBlock], bidx[kSmoothBlock];
  int nb = 0, nx = 0;
  for (int64_t i = 0; i < N; ++i) {
    const int64_t t = types[i];
    if (block && (t == kSphere || t == kEllipsoid)) {
      idx[nb++] = i;
      if (nb == kSmoothBlock) {
        SmoothRows1(idx, nb, types, sizes, pos, mats, planes, out, out_w);
        nb = 0;
      }
      continue;
    }
    if (boxes && t == kBox) {
      bidx[nx++] = i;
      if (nx == kSmoothBlock) {
        BoxRows(bidx, nx, sizes, pos, mats, planes, out, out_w);
        nx = 0;
      }
      continue;
    }
    if (ClipGeom(static_cast<int>(t), sizes + 3 * i, pos + 3 * i, mats + 9 * i, mesh_ids[i], hulls,
                 planes, P, out + static_cast<int64_t>(out_w) * i, out_w, want_wp, s) != 0)
      return i;
  }
  if (nb > 0) SmoothRows1(idx, nb, types, sizes, pos, mats, planes, out, out_w);
  if (nx > 0) BoxRows(bidx, nx, sizes, pos, mats, planes, out, out_w);
  return -1;
}

}  // namespace aurgen::core
