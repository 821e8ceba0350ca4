// The force stage; see forces.h.  A port of the numba reference implementation
// (tests/runtime/numba_oracle/forces.py, kept as the test oracle), mostly operation for
// operation, so the two agree to rounding.  Where they differ in order: the piece loop
// sums each body's piece wrenches before projecting them on its dofs (the oracle
// projects each piece), and the drag of boxes, meshes and ellipsoids takes A_p |v|
// from the unnormalised velocity (the oracle: A_p(v / |v|) |v|).
#include "forces.h"

#include "clip_box.h"
#include "lanes.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

namespace aurgen::core {
namespace {

constexpr double kPi = 3.141592653589793;
constexpr double kCD = 1.0;         // form drag coefficient
constexpr double kCS = 0.3;         // surface (radiation stand-in) damping coefficient

// a and b hold the same bits (as memcmp would say, without the call).
inline bool SameBits(const double* a, const double* b) {
  for (int i = 0; i < 3; ++i) {
    uint64_t x, y;
    std::memcpy(&x, a + i, sizeof x);
    std::memcpy(&y, b + i, sizeof y);
    if (x != y) return false;
  }
  return true;
}

// x^3 and x^5 by squaring, as numba evaluates x ** 3 and x ** 5.
inline double Pow3(double x) { return x * (x * x); }
inline double Pow5(double x) {
  double x2 = x * x;
  return x * (x2 * x2);
}

// The products (b c, a c, a b) of sizes (a, b, c) into pr.
inline void SizeProducts(const double* size, double* pr) {
  pr[0] = size[1] * size[2];
  pr[1] = size[0] * size[2];
  pr[2] = size[0] * size[1];
}

// R^T n: the world direction n in the frame of R (row-major, frame -> world), into l.
inline void ToFrame(const double R[9], const double n[3], double l[3]) {
  l[0] = R[0] * n[0] + R[3] * n[1] + R[6] * n[2];
  l[1] = R[1] * n[0] + R[4] * n[1] + R[7] * n[2];
  l[2] = R[2] * n[0] + R[5] * n[1] + R[8] * n[2];
}

// The motion s (rot, lin; MuJoCo's cdof / cvel layout) about a point c, seen at
// c + r, as (lin, rot): lin + rot x r, then rot.
inline void MotionAt(const double s[6], const double r[3], double out[6]) {
  out[0] = s[3] + s[1] * r[2] - s[2] * r[1];
  out[1] = s[4] + s[2] * r[0] - s[0] * r[2];
  out[2] = s[5] + s[0] * r[1] - s[1] * r[0];
  out[3] = s[0];
  out[4] = s[1];
  out[5] = s[2];
}

// The drag's projected area, one piece per lane (lanes.h: the scalar code's bits
// in every lane).  A box (a mesh: its bounding half-sizes) or an ellipsoid across
// w (geom frame) times |w|: homogeneous of degree 1 in w, so ProjAreaV(v) is
// A_p(v / |v|) |v| without normalising (m^2 x the unit of w).  pr: the products
// of the sizes (b c, a c, a b).
template <class L>
inline L ProjAreaV(int typ, const double* pr, L wx, L wy, L wz) {
  using namespace lanes;  // NOLINT: the lane types and their operators
  if (typ == kEllipsoid) {
    const L p = Set(pr[0], L{}) * wx, q = Set(pr[1], L{}) * wy, s = Set(pr[2], L{}) * wz;
    return Set(kPi, L{}) * Sqrt(p * p + q * q + s * s);
  }
  return Set(4.0, L{}) * ((Set(pr[0], L{}) * Abs(wx) + Set(pr[1], L{}) * Abs(wy)) +
                          Set(pr[2], L{}) * Abs(wz));
}

// The projected area (m^2) of a sphere, cylinder or capsule across the unit
// direction u (geom frame), one piece per lane.
template <class L>
inline L ProjArea(int typ, const double* size, L ux, L uy, L uz) {
  using namespace lanes;  // NOLINT
  (void)ux;
  (void)uy;
  if (typ == kSphere) return Set(kPi * size[0] * size[0], L{});
  const double r = size[0], h = size[1];
  const L zero = Set(0.0, L{}), t = Set(1.0, L{}) - uz * uz;
  const L lat = Sqrt(Sel(zero < t, t, zero));  // sqrt(max(0, 1 - uz^2))
  const L extra = typ == kCapsule ? Set(kPi * r * r, L{}) * lat : zero;
  return (Set(4.0 * r * h, L{}) * lat + Set(kPi * r * r, L{}) * Abs(uz)) + extra;
}

}  // namespace

// ---------------------------------------------------------------- model records

void GravityField::At(const double x[3], double out[3]) const {
  if (kind == Kind::kCentral) {
    double rx = x[0] - centre[0], ry = x[1] - centre[1], rz = x[2] - centre[2];
    double R = std::sqrt(rx * rx + ry * ry + rz * rz);
    double s = -mu / (R * R * R);
    out[0] = s * rx;
    out[1] = s * ry;
    out[2] = s * rz;
  } else if (kind == Kind::kLinear) {
    for (int i = 0; i < 3; ++i)
      out[i] = g0[i] + grad[3 * i] * x[0] + grad[3 * i + 1] * x[1] + grad[3 * i + 2] * x[2];
  } else {
    out[0] = g[0];
    out[1] = g[1];
    out[2] = g[2];
  }
}

double GravityField::Potential(const double x[3]) const {
  if (kind == Kind::kCentral) {
    double rx = x[0] - centre[0], ry = x[1] - centre[1], rz = x[2] - centre[2];
    return -mu / std::sqrt(rx * rx + ry * ry + rz * rz);
  }
  if (kind == Kind::kLinear) {
    double s = g0[0] * x[0] + g0[1] * x[1] + g0[2] * x[2];
    double q = 0.0;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) q += x[i] * grad[3 * i + j] * x[j];
    return -(s + 0.5 * q);
  }
  return -(g[0] * x[0] + g[1] * x[1] + g[2] * x[2]);
}

void GravityField::GradientTorque(const double x[3], const double I[3][3], double T[3]) const {
  if (kind == Kind::kCentral) {  // 3 mu / R^5 r x (I r), r from the centre
    double rx = x[0] - centre[0], ry = x[1] - centre[1], rz = x[2] - centre[2];
    double R2 = rx * rx + ry * ry + rz * rz;
    double s3 = 3.0 * mu / (R2 * R2 * std::sqrt(R2));
    double IR0 = I[0][0] * rx + I[0][1] * ry + I[0][2] * rz;
    double IR1 = I[1][0] * rx + I[1][1] * ry + I[1][2] * rz;
    double IR2 = I[2][0] * rx + I[2][1] * ry + I[2][2] * rz;
    T[0] = s3 * (ry * IR2 - rz * IR1);
    T[1] = s3 * (rz * IR0 - rx * IR2);
    T[2] = s3 * (rx * IR1 - ry * IR0);
    return;
  }
  double GI[3][3];  // linear: tau_i = eps_iab (G I)_ab
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) {
      double s = 0.0;
      for (int q = 0; q < 3; ++q) s += grad[3 * a + q] * I[q][b];
      GI[a][b] = s;
    }
  T[0] = GI[1][2] - GI[2][1];
  T[1] = GI[2][0] - GI[0][2];
  T[2] = GI[0][1] - GI[1][0];
}

int ForceModel::CellAt(const double x[3]) const {
  for (int c = 0; c < static_cast<int>(cells.size()); ++c) {
    const double* pl = Planes(c);
    bool inside = true;
    for (int j = 0; j < cells[c].nplanes; ++j, pl += 4) {
      if (pl[0] * x[0] + pl[1] * x[1] + pl[2] * x[2] > pl[3]) {
        inside = false;
        break;
      }
    }
    if (inside) return c;
  }
  return -1;
}

// ---------------------------------------------------------------- the stage

ForceStage::ForceStage(ForceModel model, const ForceOut& out) : m_(std::move(model)), o_(out) {
  ng_ = static_cast<int>(m_.geoms.size());
  nc_ = static_cast<int>(m_.cells.size());
  nb_ = static_cast<int>(m_.bodies.size());
  nw_ = static_cast<int>(m_.weld_volume.size());
  int64_t emax = 1, fmax = 1;
  for (const Geom& g : m_.geoms) {
    int64_t e, f;
    ScratchNeed(g.type, g.mesh, m_.hulls, m_.kmax, &e, &f);
    emax = std::max(emax, e);
    fmax = std::max(fmax, f);
  }
  scratch_.Reserve(emax, fmax, std::max(m_.kmax, 1));
  // the drag coefficients of each geom in each cell's fluid, from the
  // equivalent-sphere diameter d: 0.5 rho C_D (form), 3 pi mu d (Stokes),
  // pi mu d^3 and rho C_D d^5 / 64 (rotation); each is the leading product of
  // the per-piece expression it replaces, so the forces keep their bits
  slot_stride_ = std::max(static_cast<int64_t>(ng_) * nc_, int64_t{1});
  const int64_t S = slot_stride_;
  dcoef_.assign(kNDC * S, 0.0);
  for (int k = 0; k < ng_; ++k) {
    double deq = std::pow(6.0 * m_.geoms[k].volume / kPi, 1.0 / 3.0);
    for (int c = 0; c < nc_; ++c) {
      const double rho = m_.cells[c].rho, mu = m_.cells[c].mu;
      const int64_t si = Piece(k, c);
      dcoef_[kDQ * S + si] = 0.5 * rho * kCD;
      dcoef_[kDLin * S + si] = 3.0 * kPi * mu * deq;
      dcoef_[kDRot * S + si] = kPi * mu * Pow3(deq);
      dcoef_[kDRot2 * S + si] = rho * kCD * Pow5(deq) / 64.0;
    }
  }
  // the cells' density, flow and pressure constant, each a column (lanes load two cells)
  crho_.assign(std::max(nc_, 1), 0.0);
  cP_.assign(std::max(nc_, 1), 0.0);
  cflow_.assign(3 * std::max(nc_, 1), 0.0);
  for (int c = 0; c < nc_; ++c) {
    const Cell& cell = m_.cells[c];
    crho_[c] = cell.rho;
    cP_[c] = cell.p;
    for (int a = 0; a < 3; ++a) cflow_[a * nc_ + c] = cell.flow[a];
    if (cell.rho > rho_max_) {
      rho_max_ = cell.rho;
      for (int a = 0; a < 3; ++a) uflow_[a] = cell.flow[a];
    }
  }
  flowing_ = uflow_[0] != 0.0 || uflow_[1] != 0.0 || uflow_[2] != 0.0;
  slots_.assign(kNSlot * S, 0.0);
  valid_.assign(S, 0);
  // the nonzero entries (6 i + j) of each damper's D or Dq, and the stored
  // entries of M's lower triangle, in the order the sums visit them
  dnz0_.assign(m_.dampers.size() + 1, 0);
  for (size_t it = 0; it < m_.dampers.size(); ++it) {
    const Damper& dm = m_.dampers[it];
    for (int ij = 0; ij < 36; ++ij)
      if (dm.D[ij] != 0.0 || dm.Dq[ij] != 0.0) dnz_.push_back(ij);
    dnz0_[it + 1] = static_cast<int64_t>(dnz_.size());
  }
  for (int i = 0; i < m_.nv; ++i)
    for (int j = 0; j <= i; ++j) {
      int64_t idx = m_.Mmap[i * m_.nv + j];
      if (idx >= 0) ment_.push_back(MEntry{i, j, idx, i == j ? 0.5 : 1.0});
    }
  gpr_.assign(3 * std::max(ng_, 1), 0.0);
  gsz_.assign(3 * std::max(ng_, 1), 0.0);
  for (int k = 0; k < ng_; ++k) {
    const Geom& g = m_.geoms[k];
    SizeProducts(g.size, gpr_.data() + 3 * k);
    std::copy(g.size, g.size + 3, gsz_.begin() + 3 * k);
    if (g.type == kBox) box_idx_.push_back(k);
  }
  one_.assign(std::max(nc_, 1), -1);
  onesg_.assign(std::max(nc_, 1), 0.0);
  J_.assign(6 * std::max(m_.maxd, 1), 0.0);
  AJ_.assign(6 * std::max(m_.maxd, 1), 0.0);
  if (m_.sea.active) {  // each cell's surface row and side; the scratch a sea needs
    const Sea& sea = m_.sea;
    sea_side_.assign(std::max(nc_, 1), 0);
    sea_row_.assign(std::max(nc_, 1), -1);
    seamask_.assign(std::max(nc_, 1), 0.0);
    for (int c = 0; c < nc_; ++c)
      for (int j = 0; j < m_.cells[c].nplanes; ++j) {
        const double* pl = m_.Planes(c) + 4 * j;
        const bool same = pl[0] == sea.n[0] && pl[1] == sea.n[1] && pl[2] == sea.n[2] && pl[3] == sea.d;
        const bool flip = pl[0] == -sea.n[0] && pl[1] == -sea.n[1] && pl[2] == -sea.n[2] && pl[3] == -sea.d;
        if (same || flip) {
          sea_side_[c] = same ? 1 : -1;
          sea_row_[c] = j;
          seamask_[c] = 1.0;
          break;
        }
      }
    tplane_.assign(4 * std::max(ng_, 1), 0.0);
    kept_.assign(4 * static_cast<size_t>(std::max(nc_, 1)) * std::max(m_.kmax, 1), 0.0);
    kept_n_.assign(std::max(nc_, 1), 0);
    kept_sea_.assign(std::max(nc_, 1), -1);
    gplanes_.assign(4 * std::max(m_.kmax, 1), 0.0);
    pflow_.assign(3 * S, 0.0);
    hull_planes_.Build(m_.hulls);
  }
}

void ForceStage::Project(const ForceData& d, int64_t b, const double m[3], const double F[3]) {
  const int64_t* dofs = m_.Dofs(b);
  for (int64_t k = 0; k < m_.bodies[b].ndof; ++k) {
    const int64_t j = dofs[k];
    const double* cd = d.cdof + 6 * j;
    double q = (cd[0] * m[0] + cd[1] * m[1] + cd[2] * m[2] + cd[3] * F[0] + cd[4] * F[1] +
                cd[5] * F[2]);
    d.qfrc_passive[j] += q;
    o_.qmine[j] += q;
  }
}

void ForceStage::ProjectDrag(const ForceData& d, int64_t b, const double m[3], const double F[3]) {
  if (!o_.qdrag) return;
  const int64_t* dofs = m_.Dofs(b);
  for (int64_t k = 0; k < m_.bodies[b].ndof; ++k) {
    const int64_t j = dofs[k];
    const double* cd = d.cdof + 6 * j;
    o_.qdrag[j] += (cd[0] * m[0] + cd[1] * m[1] + cd[2] * m[2] + cd[3] * F[0] + cd[4] * F[1] +
                    cd[5] * F[2]);
  }
}

void ForceStage::Apply(const ForceData& d, int64_t b, const double F[3], const double T[3],
                       const double x[3]) {
  const double* c = d.subtree_com + 3 * m_.bodies[b].root;
  const double dx = x[0] - c[0], dy = x[1] - c[1], dz = x[2] - c[2];
  const double m[3] = {T[0] + dy * F[2] - dz * F[1], T[1] + dz * F[0] - dx * F[2],
                       T[2] + dx * F[1] - dy * F[0]};
  Project(d, b, m, F);
}

void ForceStage::Up(const double g[3], int k) {
  if (!SameBits(g, up_.g)) {
    std::memcpy(up_.g, g, sizeof up_.g);
    up_.gn = std::sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
    up_.n[0] = -g[0] / up_.gn;
    up_.n[1] = -g[1] / up_.gn;
    up_.n[2] = -g[2] / up_.gn;
    up_.k = -1;
  }
  if (up_.gn > 0.0 && up_.k != k) {
    const Geom& geom = m_.geoms[k];
    double l[3];
    ToFrame(o_.mats + 9 * k, up_.n, l);
    double ext;  // the geom's extent along n: hmax - hmin
    if (geom.type == kBox) {  // SupportLocal's box, inline: hmax = h, hmin = -h
      const double* sz = geom.size;
      double h = sz[0] * std::fabs(l[0]) + sz[1] * std::fabs(l[1]) + sz[2] * std::fabs(l[2]);
      ext = h - -h;
    } else {
      double hmax, hmin;
      Support(geom, l, &hmax, &hmin);
      ext = hmax - hmin;
    }
    up_.gh = up_.gn * ext;
    up_.k = k;
  }
}

void ForceStage::Support(const Geom& g, const double l[3], double* hmax, double* hmin) const {
  const bool mesh = g.type == kMesh;
  const int64_t v0 = mesh ? m_.hulls.vert_range[g.mesh] : 0;
  const int64_t v1 = mesh ? m_.hulls.vert_range[g.mesh + 1] : 0;
  SupportLocal(g.type, g.size, l[0], l[1], l[2], m_.hulls.verts, v0, v1, hmax, hmin);
}

// Piece (B): the wrench and ledger terms of geom k's pieces in cells c .. c + lanes
// (one per lane; a lane whose piece is not valid computes what pass C skips).
// The force F (world) is buoyancy -rho V g plus drag; the torque T is drag's;
// the moment about the run's root subtree com M = T + (x - com) x F; U (J) the
// pressure energy, P (W) the drag power.  The scalar code's operations in its
// order in every lane (lanes.h), so D2 and D1 give the same bits.
template <class L>
void ForceStage::Wrenches(int k, int c, const Run& r, int typ, PieceFlags pf) {
  using namespace lanes;  // NOLINT: the lane types and their operators
  const L z{};
  const L zero = Set(0.0, z);
  const int nc = nc_;
  const int64_t S = slot_stride_, si = Piece(k, c);
  const int64_t ii[2] = {si, si + 1};
  double* sl = slots_.data();
  auto col = [&](int j) { return sl + j * S + si; };
  const L V = Load(o_.vols + si, z), rho = Load(crho_.data() + c, z);
  const L x0 = Gather(o_.cents, ii, 3, 0, z), x1 = Gather(o_.cents, ii, 3, 1, z),
          x2 = Gather(o_.cents, ii, 3, 2, z);
  const L dx = x0 - Set(r.sc[0], z), dy = x1 - Set(r.sc[1], z), dz = x2 - Set(r.sc[2], z);
  L F0 = zero, F1 = zero, F2 = zero, T0 = zero, T1 = zero, T2 = zero;
  L Fb0 = zero, Fb1 = zero, Fb2 = zero;  // a sea cell's buoyancy: booked as work (recorded)
  // the recorded work: force W (drag and damping, and a sea cell's buoyancy) and torque Tw at the
  // piece's velocity (va, w), with its moment about the run's root com
  auto book = [&](L W0, L W1, L W2, L Tw0, L Tw1, L Tw2, L va0, L va1, L va2, L w0, L w1, L w2) {
    Store(col(kSP), W0 * va0 + W1 * va1 + W2 * va2 + Tw0 * w0 + Tw1 * w1 + Tw2 * w2);
    Store(col(kSDM), Tw0 + dy * W2 - dz * W1);
    Store(col(kSDM + 1), Tw1 + dz * W0 - dx * W2);
    Store(col(kSDM + 2), Tw2 + dx * W1 - dy * W0);
    Store(col(kSDF), W0);
    Store(col(kSDF + 1), W1);
    Store(col(kSDF + 2), W2);
  };
  if (pf.buoy) {
    const L nrv = -rho * V;
    const L g0 = pf.uniform ? Set(pf.g[0], z) : Load(col(kSG), z);
    const L g1 = pf.uniform ? Set(pf.g[1], z) : Load(col(kSG + 1), z);
    const L g2 = pf.uniform ? Set(pf.g[2], z) : Load(col(kSG + 2), z);
    F0 = nrv * g0;
    F1 = nrv * g1;
    F2 = nrv * g2;
    if (pf.record) {  // U = integral of the hydrostatic pressure p = -rho phi + P over the piece
      const L phi = pf.uniform ? -(g0 * x0 + g1 * x1 + g2 * x2) : Load(col(kSPhi), z);  // Phi
      if (pf.sea) {
        const auto sm = Load(seamask_.data() + c, z) > zero;
        Store(col(kSU), Sel(sm, zero, V * (-rho * phi + Load(cP_.data() + c, z))));
        Fb0 = Sel(sm, F0, zero);
        Fb1 = Sel(sm, F1, zero);
        Fb2 = Sel(sm, F2, zero);
      } else {
        Store(col(kSU), V * (-rho * phi + Load(cP_.data() + c, z)));
      }
    }
  }
  if (pf.drag || pf.damp) {
    const L w0 = Set(r.cv[0], z), w1 = Set(r.cv[1], z), w2 = Set(r.cv[2], z);
    const L f = V / Set(m_.geoms[k].volume, z);
    // the piece centroid's velocity (MotionAt), then relative to the cell's flow
    const L vab0 = Set(r.cv[3], z) + w1 * dz - w2 * dy;
    const L vab1 = Set(r.cv[4], z) + w2 * dx - w0 * dz;
    const L vab2 = Set(r.cv[5], z) + w0 * dy - w1 * dx;
    // (a sea: the piece's own, the cell's flow plus the orbital velocity at its centroid)
    const double* fl = pf.sea ? pflow_.data() + si : cflow_.data() + c;
    const int64_t fs = pf.sea ? S : nc;
    const L v0 = vab0 - Load(fl, z), v1 = vab1 - Load(fl + fs, z), v2 = vab2 - Load(fl + 2 * fs, z);
    const L sp2 = v0 * v0 + v1 * v1 + v2 * v2;  // |v|^2: sqrt only where needed
    // the relative velocity in the geom frame
    const double* R = o_.mats + 9 * k;
    const L lx = Set(R[0], z) * v0 + Set(R[3], z) * v1 + Set(R[6], z) * v2;
    const L ly = Set(R[1], z) * v0 + Set(R[4], z) * v1 + Set(R[7], z) * v2;
    const L lz = Set(R[2], z) * v0 + Set(R[5], z) * v1 + Set(R[8], z) * v2;
    L Fd0 = zero, Fd1 = zero, Fd2 = zero, Td0 = zero, Td1 = zero, Td2 = zero;
    if (pf.drag) {
    const L dQ = Load(dcoef_.data() + kDQ * S + si, z);
    L dq;  // 0.5 rho C_D A_p |v| (kg/s): no division where A_p is homogeneous
    if (typ == kBox || typ == kMesh || typ == kEllipsoid) {
      dq = dQ * ProjAreaV(typ, gpr_.data() + 3 * k, lx, ly, lz);
    } else {
      const L sp = Sqrt(sp2);
      dq = dQ * ProjArea(typ, m_.geoms[k].size, lx / sp, ly / sp, lz / sp) * sp;
    }
    const L ncoef = -((Load(dcoef_.data() + kDLin * S + si, z) + dq) * f);
    const auto moving = sp2 > zero;  // else no drag force
    Fd0 = Sel(moving, ncoef * v0, zero);
    Fd1 = Sel(moving, ncoef * v1, zero);
    Fd2 = Sel(moving, ncoef * v2, zero);
    const L nct = -((Load(dcoef_.data() + kDRot * S + si, z) +
                     Load(dcoef_.data() + kDRot2 * S + si, z) * Set(r.wn, z)) *
                    f);
    Td0 = nct * w0;
    Td1 = nct * w1;
    Td2 = nct * w2;
    }
    // surface (radiation stand-in) damping: where the section area A > 0 (false for nan)
    const L A = Load(o_.areas + si, z);
    const auto surf = pf.uniform ? (pf.surf ? A > zero : zero > zero) : Load(col(kSSurf), z) > zero;
    if (Any(surf)) {
      const L n0 = pf.uniform ? Set(pf.n[0], z) : Load(col(kSN), z);
      const L n1 = pf.uniform ? Set(pf.n[1], z) : Load(col(kSN + 1), z);
      const L n2 = pf.uniform ? Set(pf.n[2], z) : Load(col(kSN + 2), z);
      const L gh = pf.uniform ? Set(pf.gh, z) : Load(col(kSGH), z);
      const L B = Set(kCS, z) * rho * A * Sqrt(gh);
      const L vn = v0 * n0 + v1 * n1 + v2 * n2;
      Fd0 = Sel(surf, Fd0 - B * vn * n0, Fd0);
      Fd1 = Sel(surf, Fd1 - B * vn * n1, Fd1);
      Fd2 = Sel(surf, Fd2 - B * vn * n2, Fd2);
      const L wnn = w0 * n0 + w1 * n1 + w2 * n2;
      const L bt = B * A / Set(12.0, z);
      Td0 = Sel(surf, Td0 - bt * (w0 - wnn * n0), Td0);
      Td1 = Sel(surf, Td1 - bt * (w1 - wnn * n1), Td1);
      Td2 = Sel(surf, Td2 - bt * (w2 - wnn * n2), Td2);
    }
    if (pf.record && pf.sea)  // with the sea cells' buoyancy
      book(Fd0 + Fb0, Fd1 + Fb1, Fd2 + Fb2, Td0, Td1, Td2, vab0, vab1, vab2, w0, w1, w2);
    else if (pf.record)
      book(Fd0, Fd1, Fd2, Td0, Td1, Td2, vab0, vab1, vab2, w0, w1, w2);
    F0 = F0 + Fd0;
    F1 = F1 + Fd1;
    F2 = F2 + Fd2;
    T0 = T0 + Td0;
    T1 = T1 + Td1;
    T2 = T2 + Td2;
  } else if (pf.record && pf.sea) {  // the sea cells' buoyancy alone as work
    const L w0 = Set(r.cv[0], z), w1 = Set(r.cv[1], z), w2 = Set(r.cv[2], z);
    const L vab0 = Set(r.cv[3], z) + w1 * dz - w2 * dy;
    const L vab1 = Set(r.cv[4], z) + w2 * dx - w0 * dz;
    const L vab2 = Set(r.cv[5], z) + w0 * dy - w1 * dx;
    book(Fb0, Fb1, Fb2, zero, zero, zero, vab0, vab1, vab2, w0, w1, w2);
  }
  Store(col(kSM), T0 + dy * F2 - dz * F1);
  Store(col(kSM + 1), T1 + dz * F0 - dx * F2);
  Store(col(kSM + 2), T2 + dx * F1 - dy * F0);
  Store(col(kSF), F0);
  Store(col(kSF + 1), F1);
  Store(col(kSF + 2), F2);
}

void ForceStage::Passive(const ForceData& d, bool record) {
  double* led = o_.led;
  for (int j = 0; j < m_.nv; ++j) o_.qmine[j] = 0.0;
  if (record && o_.qdrag)
    for (int j = 0; j < m_.nv; ++j) o_.qdrag[j] = 0.0;
  for (int i = 0; i < kNLed; ++i) led[i] = 0.0;
  for (int w = 0; w < nw_; ++w) o_.wfrac[w] = 0.0;
  // ---- gather geom poses
  for (int k = 0; k < ng_; ++k) {
    const int64_t gid = m_.geoms[k].id;
    std::memcpy(o_.pos + 3 * k, d.geom_xpos + 3 * gid, 3 * sizeof(double));
    std::memcpy(o_.mats + 9 * k, d.geom_xmat + 9 * gid, 9 * sizeof(double));
  }
  if (m_.sea.active) SeaPlanes(d.time);
  ClipCells();
  if (m_.sea.active) SeaFlow(d.time);
  Pieces(d, record);
  if (m_.sea.active) SeaForces(d, record);
  // ---- submerged fraction per weld group (for declared damping / added mass):
  // its displaced volume in densest-fluid equivalent, summed by Pieces
  if (rho_max_ > 0.0)
    for (int w = 0; w < nw_; ++w) {
      led[kLVSub] += o_.wfrac[w];
      if (m_.weld_volume[w] > 0.0) o_.wfrac[w] = o_.wfrac[w] / m_.weld_volume[w];
    }
  if (m_.gravity.Applied()) BodyGravity(d, record);
  if (m_.damping) Damping(d, record);
  if (m_.added_mass) AddedMassTerms(d, record);
  if (record) {
    double ke = 0.0;  // 1/2 qvel' M qvel over M's stored lower triangle, row by row
    for (const MEntry& e : ment_)  // w: 0.5 on the diagonal, else 1 (1 * x is x)
      ke += e.w * d.M[e.idx] * d.qvel[e.i] * d.qvel[e.j];
    led[kLKE] = ke;
    if (!m_.gravity.Applied()) {
      const double* g = m_.gravity.g;
      double ug = 0.0;
      for (int b = 1; b < nb_; ++b)
        ug -= m_.body_mass[b] *
              (g[0] * d.xipos[3 * b] + g[1] * d.xipos[3 * b + 1] + g[2] * d.xipos[3 * b + 2]);
      led[kLUGrav] = ug;
    }
  }
}

// Clip every geom by every cell (planes no geom crosses dropped) into the pieces'
// vols, cents and areas.  A cell bounded (after dropping) by the one plane another
// cell was bounded by, from the other side, is the complement: full geom minus that piece.
void ForceStage::ClipCells() {
  const double* pos = o_.pos;
  const double* mats = o_.mats;
  for (int c = 0; c < nc_; ++c) {
    one_[c] = -1;
    onesg_[c] = 0.0;
  }
  for (int c = 0; c < nc_; ++c) {
    int npl = 0;
    int64_t last = -1;
    for (int64_t j = 0; j < m_.cells[c].nplanes; ++j) {
      const double* pl = m_.Planes(c) + 4 * j;
      bool keep = m_.sea.active && sea_row_[c] == j;  // a sea's surface: always (it moves)
      for (int k = 0; k < ng_ && !keep; ++k) {
        double l[3];
        ToFrame(mats + 9 * k, pl, l);
        double t = pl[3] - (pl[0] * pos[3 * k] + pl[1] * pos[3 * k + 1] + pl[2] * pos[3 * k + 2]);
        double hmax, hmin;
        Support(m_.geoms[k], l, &hmax, &hmin);
        if (hmax > t) {
          keep = true;
          break;
        }
      }
      if (keep) {
        if (m_.sea.active && sea_row_[c] == j) kept_sea_[c] = npl;
        for (int a = 0; a < 4; ++a) o_.planes[4 * npl + a] = pl[a];
        ++npl;
        last = j;
      }
    }
    const bool seac = m_.sea.active && sea_side_[c] != 0;
    if (seac) {  // its kept planes, for SeaForces
      kept_n_[c] = npl;
      std::copy(o_.planes, o_.planes + 4 * npl, kept_.begin() + 4 * static_cast<size_t>(c) * m_.kmax);
    }
    int comp = -1;
    if (npl == 1) {
      one_[c] = 1;
      for (int c2 = 0; c2 < c; ++c2) {
        if (one_[c2] != 1) continue;
        // a sea cell is the complement of a sea cell only (the same tangent plane per geom)
        if (m_.sea.active && (sea_side_[c2] != 0) != seac) continue;
        const double* p2 = m_.Planes(c2) + 4 * static_cast<int64_t>(onesg_[c2]);
        if (p2[0] == -o_.planes[0] && p2[1] == -o_.planes[1] && p2[2] == -o_.planes[2] &&
            p2[3] == -o_.planes[3]) {
          comp = c2;
          break;
        }
      }
      onesg_[c] = static_cast<double>(last);
    }
    if (comp >= 0) {
      for (int k = 0; k < ng_; ++k) {
        const Geom& g = m_.geoms[k];
        const double* R = mats + 9 * k;
        const double* gc = g.centre;
        double fx = pos[3 * k] + R[0] * gc[0] + R[1] * gc[1] + R[2] * gc[2];
        double fy = pos[3 * k + 1] + R[3] * gc[0] + R[4] * gc[1] + R[5] * gc[2];
        double fzz = pos[3 * k + 2] + R[6] * gc[0] + R[7] * gc[1] + R[8] * gc[2];
        const int64_t si = Piece(k, c), so = Piece(k, comp);
        double Vo = o_.vols[so];
        double V = g.volume - Vo;
        double* ce = o_.cents + 3 * si;
        const double* co = o_.cents + 3 * so;
        if (V <= 1e-13 * g.volume) {
          o_.vols[si] = 0.0;
          ce[0] = fx;
          ce[1] = fy;
          ce[2] = fzz;
        } else if (Vo <= 0.0) {
          o_.vols[si] = g.volume;
          ce[0] = fx;
          ce[1] = fy;
          ce[2] = fzz;
        } else {
          o_.vols[si] = V;
          ce[0] = (g.volume * fx - Vo * co[0]) / V;
          ce[1] = (g.volume * fy - Vo * co[1]) / V;
          ce[2] = (g.volume * fzz - Vo * co[2]) / V;
        }
        o_.areas[si] = o_.areas[so];
      }
      continue;
    }
    // boxes cut by one plane several at a time (BoxRows), the rest one by one
    const bool boxes = npl == 1 && !box_idx_.empty() && !seac;
    if (boxes)
      BoxRows(box_idx_.data(), static_cast<int>(box_idx_.size()), gsz_.data(), pos, mats, o_.planes,
              o_.out, 5);
    for (int k = 0; k < ng_; ++k) {
      const Geom& g = m_.geoms[k];
      double* row = o_.out + 5 * k;
      if (seac)  // against the geom's own tangent plane of the sea
        ClipGeom(g.type, g.size, pos + 3 * k, mats + 9 * k, g.mesh, m_.hulls, GeomPlanes(c, k), npl,
                 row, 5, false, scratch_);
      else if (!(boxes && g.type == kBox))
        ClipGeom(g.type, g.size, pos + 3 * k, mats + 9 * k, g.mesh, m_.hulls, o_.planes, npl, row,
                 5, false, scratch_);
      const int64_t si = Piece(k, c);
      o_.vols[si] = row[0];
      double* ce = o_.cents + 3 * si;
      ce[0] = row[1];
      ce[1] = row[2];
      ce[2] = row[3];
      o_.areas[si] = npl <= 1 ? row[4] : std::numeric_limits<double>::quiet_NaN();
    }
  }
}

// Per geom, per cell: buoyancy, drag, surface damping.  Per geom in model order:
// (A) its body's run and, per piece (the geom's part in one cell), what the piece
// reads that is not in the clip's rows: gravity, the pressure potential, the
// surface's up direction and height (Up, cached while gravity's bits and the geom
// stay the same); (B) the wrenches and ledger terms, its cells two at a time in
// lanes (Wrenches); (C) the sums, in piece order (geoms, then cells): per run of
// consecutive geoms on one body, the wrench (moment about the root's subtree com,
// world) projected on its dofs once, when the run ends.  No piece's wrench waits
// on the sums.
void ForceStage::Pieces(const ForceData& d, bool record) {
  const GravityField& G = m_.gravity;
  const bool drag = m_.drag, buoy = m_.buoyancy;
  // one gravity for every piece (a uniform field, no cell's own): pass B reads
  // it, and the up direction, from PieceFlags instead of the slots
  const bool uniform = G.kind == GravityField::Kind::kUniform;
  up_ = UpCache{};
  Run run;  // the current run
  int64_t sb = -1;  // its body
  double sm[3] = {0.0, 0.0, 0.0}, sF[3] = {0.0, 0.0, 0.0};  // the run's wrench so far
  double dm[3] = {0.0, 0.0, 0.0}, dF[3] = {0.0, 0.0, 0.0};  // of which drag (recorded)
  const bool damping = m_.damping;
  const bool sea = m_.sea.active;
  const bool keepd = record && (drag || damping || sea) && o_.qdrag;
  double l_ubuoy = o_.led[kLUBuoy], l_pdrag = o_.led[kLPDrag];
  const int nc = nc_;
  const int64_t S = slot_stride_;
  double* sl = slots_.data();
  for (int k = 0; k < ng_; ++k) {
    const Geom& geom = m_.geoms[k];
    const int64_t b = geom.body;
    if (geom.mark != Mark::kDisplacement && geom.mark != Mark::kWindage) continue;
    const bool displaces = geom.mark == Mark::kDisplacement;
    if (b != sb) {  // a new run: its root's subtree com, its velocity, |w|
      if (sb >= 0) {  // the last run's wrench to its dofs
        Project(d, sb, sm, sF);
        for (int a = 0; a < 3; ++a) sm[a] = sF[a] = 0.0;
        if (keepd) {
          ProjectDrag(d, sb, dm, dF);
          for (int a = 0; a < 3; ++a) dm[a] = dF[a] = 0.0;
        }
      }
      sb = b;
      const int64_t rb = m_.bodies[b].root;
      for (int a = 0; a < 3; ++a) run.sc[a] = d.subtree_com[3 * rb + a];
      const double* cv = d.cvel + 6 * b;
      for (int a = 0; a < 6; ++a) run.cv[a] = cv[a];
      run.wn = std::sqrt(cv[0] * cv[0] + cv[1] * cv[1] + cv[2] * cv[2]);
    }
    const int typ = geom.type;
    if (displaces && rho_max_ > 0.0) {  // the submerged fraction of its weld group, summed
      double s = 0.0;
      for (int c = 0; c < nc; ++c) s += m_.cells[c].rho * o_.vols[Piece(k, c)];
      o_.wfrac[geom.weld] += s / rho_max_;
    }
    const bool surfk = damping && displaces;  // surface damping where the section area A > 0
    bool any = false, anysurf = false;
    for (int c = 0; c < nc; ++c) {
      const int64_t si = Piece(k, c);
      const Cell& cell = m_.cells[c];
      const bool valid = o_.vols[si] > 0.0 && !(geom.mark == Mark::kWindage && !cell.gas);
      valid_[si] = valid ? 1 : 0;
      if (!valid) continue;
      any = true;
      const double A = o_.areas[si];
      const bool surf = surfk && A == A && A > 0.0;
      anysurf |= surf;
      if (uniform) continue;
      const double* x = o_.cents + 3 * si;
      const bool cellg = G.kind == GravityField::Kind::kPerCell && cell.HasGravity();
      double g[3];
      if (cellg) {
        g[0] = cell.g[0];
        g[1] = cell.g[1];
        g[2] = cell.g[2];
      } else {
        G.At(x, g);
      }
      for (int a = 0; a < 3; ++a) sl[(kSG + a) * S + si] = g[a];
      if (record && displaces && buoy)  // the potential phi (J/kg) for the pressure energy U
        sl[kSPhi * S + si] = cellg ? UniformPotential(g, cell.k, x) : G.Potential(x);
      if (surf) Up(g, k);
      sl[kSSurf * S + si] = surf && up_.gn > 0.0 ? 1.0 : 0.0;
      if (surf && up_.gn > 0.0) {
        sl[kSGH * S + si] = up_.gh;
        for (int a = 0; a < 3; ++a) sl[(kSN + a) * S + si] = up_.n[a];
      }
    }
    if (!any) continue;
    // (B) this geom's wrenches, its cells two at a time
    PieceFlags pf{displaces && buoy, drag, record, sea, anysurf, uniform, false, G.g, up_.n, 0.0};
    if (uniform && anysurf) {
      Up(G.g, k);
      pf.surf = up_.gn > 0.0;
      pf.gh = up_.gh;
    }
    int c = 0;
#if defined(__SSE2__)
    for (; c + 2 <= nc; c += 2)
      if (valid_[Piece(k, c)] || valid_[Piece(k, c) + 1]) Wrenches<lanes::D2>(k, c, run, typ, pf);
#endif
    for (; c < nc; ++c)
      if (valid_[Piece(k, c)]) Wrenches<lanes::D1>(k, c, run, typ, pf);
    // (C) the sums, in piece order
    for (int c2 = 0; c2 < nc; ++c2) {
      const int64_t si = Piece(k, c2);
      if (!valid_[si]) continue;
      for (int a = 0; a < 3; ++a) {
        sm[a] += sl[(kSM + a) * S + si];
        sF[a] += sl[(kSF + a) * S + si];
      }
      const bool work = pf.drag || pf.damp || (pf.sea && pf.buoy);
      if (record) {
        if (pf.buoy) l_ubuoy += sl[kSU * S + si];
        if (work) l_pdrag += sl[kSP * S + si];
      }
      if (keepd && work)
        for (int a = 0; a < 3; ++a) {
          dm[a] += sl[(kSDM + a) * S + si];
          dF[a] += sl[(kSDF + a) * S + si];
        }
    }
  }
  if (sb >= 0) Project(d, sb, sm, sF);
  if (sb >= 0 && keepd) ProjectDrag(d, sb, dm, dF);
  o_.led[kLUBuoy] = l_ubuoy;
  o_.led[kLPDrag] = l_pdrag;
}

// ---------------------------------------------------------------- a sea

void ForceStage::SeaPlanes(double t) {
  const Sea& sea = m_.sea;
  for (int k = 0; k < ng_; ++k) {  // at the geom's full-volume centroid: eta + G.(x - xc)
    const Geom& g = m_.geoms[k];
    const double* R = o_.mats + 9 * k;
    const double* gc = g.centre;
    const double xc[3] = {o_.pos[3 * k] + R[0] * gc[0] + R[1] * gc[1] + R[2] * gc[2],
                          o_.pos[3 * k + 1] + R[3] * gc[0] + R[4] * gc[1] + R[5] * gc[2],
                          o_.pos[3 * k + 2] + R[6] * gc[0] + R[7] * gc[1] + R[8] * gc[2]};
    double eta, G[3];
    sea.Elevation(xc, t, &eta, G);
    // the water side n.x - d <= eta + G.(x - xc): (n - G).x <= d + eta - G.xc, normalised
    double row[4] = {sea.n[0] - G[0], sea.n[1] - G[1], sea.n[2] - G[2],
                     sea.d + eta - (G[0] * xc[0] + G[1] * xc[1] + G[2] * xc[2])};
    const double L = std::sqrt(row[0] * row[0] + row[1] * row[1] + row[2] * row[2]);
    for (int a = 0; a < 4; ++a) tplane_[4 * k + a] = row[a] / L;
  }
}

const double* ForceStage::GeomPlanes(int c, int k) {
  const int npl = kept_n_[c];
  const double* kp = kept_.data() + 4 * static_cast<size_t>(c) * m_.kmax;
  std::copy(kp, kp + 4 * npl, gplanes_.begin());
  const int j = kept_sea_[c];
  if (j >= 0) {
    const double sgn = sea_side_[c] > 0 ? 1.0 : -1.0;
    for (int a = 0; a < 4; ++a) gplanes_[4 * j + a] = sgn * tplane_[4 * k + a];
  }
  return gplanes_.data();
}

void ForceStage::SeaFlow(double t) {
  const int64_t S = slot_stride_;
  for (int k = 0; k < ng_; ++k)
    for (int c = 0; c < nc_; ++c) {
      const int64_t si = Piece(k, c);
      double u[3] = {0.0, 0.0, 0.0};
      if (sea_side_[c] > 0 && o_.vols[si] > 0.0) m_.sea.Orbital(o_.cents + 3 * si, t, u);
      for (int a = 0; a < 3; ++a) pflow_[a * S + si] = m_.cells[c].flow[a] + u[a];
    }
}

// The Froude-Krylov correction on every displacement geom's piece in the water under the
// surface (sea.h FroudeKrylov), applied to its body; recorded: booked as work (qdrag and
// the power at this evaluation's velocity), as the sea cells' buoyancy is.
void ForceStage::SeaForces(const ForceData& d, bool record) {
  if (!m_.buoyancy) return;
  for (int k = 0; k < ng_; ++k) {
    const Geom& g = m_.geoms[k];
    if (g.mark != Mark::kDisplacement) continue;
    for (int c = 0; c < nc_; ++c) {
      if (sea_side_[c] <= 0 || o_.vols[Piece(k, c)] <= 0.0 || kept_sea_[c] < 0) continue;
      double F[3], T[3];
      const double* p = o_.pos + 3 * k;
      FroudeKrylov(m_.sea, d.time, m_.cells[c].rho, g.type, g.size, g.mesh, hull_planes_, p,
                   o_.mats + 9 * k, GeomPlanes(c, k), kept_n_[c], kept_sea_[c], F, T);
      Apply(d, g.body, F, T, p);
      if (!record) continue;
      const int64_t b = g.body;
      const double* sc = d.subtree_com + 3 * m_.bodies[b].root;
      const double r[3] = {p[0] - sc[0], p[1] - sc[1], p[2] - sc[2]};
      const double m[3] = {T[0] + r[1] * F[2] - r[2] * F[1], T[1] + r[2] * F[0] - r[0] * F[2],
                           T[2] + r[0] * F[1] - r[1] * F[0]};
      ProjectDrag(d, b, m, F);
      double v[6];
      MotionAt(d.cvel + 6 * b, r, v);
      o_.led[kLPDrag] += F[0] * v[0] + F[1] * v[1] + F[2] * v[2] + T[0] * v[3] + T[1] * v[4] + T[2] * v[5];
    }
  }
}

// Gravity fields over each body's mass distribution (second order): the force at
// its centre of mass, the gradient torque of a central or linear field.
void ForceStage::BodyGravity(const ForceData& d, bool record) {
  const GravityField& G = m_.gravity;
  double F[3], T[3], x[3], g[3], Iw[3][3];
  for (int b = 1; b < nb_; ++b) {
    double mass = m_.body_mass[b];
    if (mass <= 0.0 || m_.bodies[b].ndof == 0) continue;
    for (int a = 0; a < 3; ++a) x[a] = d.xipos[3 * b + a];
    if (G.kind == GravityField::Kind::kPerCell) {  // its cell's own g, else the global g
      int c = m_.CellAt(x);
      double K;
      if (c >= 0 && m_.cells[c].HasGravity()) {
        for (int a = 0; a < 3; ++a) g[a] = m_.cells[c].g[a];
        K = m_.cells[c].k;
      } else {
        for (int a = 0; a < 3; ++a) g[a] = G.g[a];
        K = 0.0;
      }
      for (int a = 0; a < 3; ++a) {
        F[a] = mass * g[a];
        T[a] = 0.0;
      }
      if (record) o_.led[kLUGrav] += mass * UniformPotential(g, K, x);
    } else {
      G.At(x, g);
      for (int a = 0; a < 3; ++a) F[a] = mass * g[a];
      const double* xm = d.ximat + 9 * b;
      const double* bi = m_.body_inertia + 3 * b;
      for (int a = 0; a < 3; ++a)  // the inertia tensor about the CoM, world
        for (int bb = 0; bb < 3; ++bb) {
          double s = 0.0;
          for (int q = 0; q < 3; ++q) s += xm[3 * a + q] * bi[q] * xm[3 * bb + q];
          Iw[a][bb] = s;
        }
      G.GradientTorque(x, Iw, T);
      if (record) o_.led[kLUGrav] += mass * G.Potential(x);
    }
    Apply(d, b, F, T, x);
  }
}

// Declared hydrodynamic damping (Fossen), at the body origin, body axes.
void ForceStage::Damping(const ForceData& d, bool record) {
  double x[3], F[3], T[3], nu[6], tau[6];
  for (size_t it = 0; it < m_.dampers.size(); ++it) {
    const Damper& dm = m_.dampers[it];
    const int64_t b = dm.body;
    double s = dm.group >= 0 ? o_.wfrac[dm.group] : 1.0;
    if (s <= 0.0) continue;
    for (int a = 0; a < 3; ++a) x[a] = d.xpos[3 * b + a];
    const double* com = d.subtree_com + 3 * m_.bodies[b].root;
    const double r[3] = {x[0] - com[0], x[1] - com[1], x[2] - com[2]};
    const double* cv = d.cvel + 6 * b;
    double vw[6];  // the body origin's velocity (world), then w
    MotionAt(cv, r, vw);
    double* v = vw;  // relative to the local flow below
    const double vab0 = v[0], vab1 = v[1], vab2 = v[2];
    int c = m_.CellAt(x);
    if (c >= 0)
      for (int a = 0; a < 3; ++a) v[a] -= m_.cells[c].flow[a];
    const double* xm = d.xmat + 9 * b;
    for (int a = 0; a < 3; ++a) {
      nu[a] = xm[a] * v[0] + xm[3 + a] * v[1] + xm[6 + a] * v[2];
      nu[3 + a] = xm[a] * cv[0] + xm[3 + a] * cv[1] + xm[6 + a] * cv[2];
    }
    // tau_i = s sum_j (D_ij nu_j + Dq_ij |nu_i| nu_j) over the entries where D or
    // Dq is nonzero, in j order: a sum from +0 that skips exact zero terms has
    // the full sum's bits
    double acc[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    for (int64_t e = dnz0_[it]; e < dnz0_[it + 1]; ++e) {
      const int ij = dnz_[e], i = ij / 6, j = ij % 6;
      acc[i] += dm.D[ij] * nu[j] + dm.Dq[ij] * std::fabs(nu[i]) * nu[j];
    }
    for (int i = 0; i < 6; ++i) tau[i] = s * acc[i];
    for (int a = 0; a < 3; ++a) {
      F[a] = xm[3 * a] * tau[0] + xm[3 * a + 1] * tau[1] + xm[3 * a + 2] * tau[2];
      T[a] = xm[3 * a] * tau[3] + xm[3 * a + 1] * tau[4] + xm[3 * a + 2] * tau[5];
    }
    if (record) {
      o_.led[kLPDrag] += (F[0] * vab0 + F[1] * vab1 + F[2] * vab2 + T[0] * cv[0] + T[1] * cv[1] +
                          T[2] * cv[2]);
      const double mm[3] = {T[0] + r[1] * F[2] - r[2] * F[1], T[1] + r[2] * F[0] - r[0] * F[2],
                            T[2] + r[0] * F[1] - r[1] * F[0]};
      ProjectDrag(d, b, mm, F);
    }
    Apply(d, b, F, T, x);
  }
}

// The added-mass terms of a geom's submerged fraction s(q) (Lagrange: T = 1/2 qdot' (M + s
// K(q)) qdot, K = J' A1 J, A1 = Aw1 its unscaled world matrix at p): -sdot A1 V at p and
// 1/2 (V' A1 V) grad s, added to the wrench (F, T) at p.  Crossing cell c's one face
// n.x <= d with section area A_c changes s by -rho_c A_c / Vg (n . v(x_c)) per unit time, x_c
// the section's centroid (a force -rho_c A_c / Vg n at x_c is grad s); for an ellipsoid of
// semi-axes a (R a2 R'), x_c = p + t Q n / (n' Q n), Q = R diag(a^2) R', t = d - n.p (exact
// for a sphere or an ellipsoid; other shapes use the ellipsoid of their sizes).  Pieces cut
// by several planes (area nan) or not cut (area 0) add nothing: a geom wholly in one cell
// keeps its bits.
void ForceStage::SurfaceTerms(const ForceData& d, int64_t k, const double Rb[3][3], const double p[3],
                              const double Aw1[6][6], const double V[6], double F[3], double T[3]) {
  (void)d;
  const Geom& g = m_.geoms[k];
  bool any = false;
  for (int c = 0; c < nc_; ++c) {
    const double A = o_.areas[Piece(static_cast<int>(k), c)];
    if (A > 0.0 && one_[c] == 1) any = true;
  }
  if (!any) return;
  double P1[6];
  for (int i = 0; i < 6; ++i) {
    double acc = 0.0;
    for (int q = 0; q < 6; ++q) acc += Aw1[i][q] * V[q];
    P1[i] = acc;
  }
  double ke1 = 0.0;  // V' A1 V
  for (int i = 0; i < 6; ++i) ke1 += V[i] * P1[i];
  double a2[3];  // the semi-axes squared
  const double* sz = g.size;
  switch (g.type) {
    case kSphere: a2[0] = a2[1] = a2[2] = sz[0] * sz[0]; break;
    case kCylinder: a2[0] = a2[1] = sz[0] * sz[0]; a2[2] = sz[1] * sz[1]; break;
    case kCapsule: a2[0] = a2[1] = sz[0] * sz[0]; a2[2] = (sz[0] + sz[1]) * (sz[0] + sz[1]); break;
    default: for (int a = 0; a < 3; ++a) a2[a] = sz[a] * sz[a];
  }
  double sdot = 0.0;
  for (int c = 0; c < nc_; ++c) {
    const double A = o_.areas[Piece(static_cast<int>(k), c)];
    if (!(A > 0.0) || one_[c] != 1) continue;
    const double* pl = m_.Planes(c) + 4 * static_cast<int64_t>(onesg_[c]);
    const double t = pl[3] - (pl[0] * p[0] + pl[1] * p[1] + pl[2] * p[2]);
    double u[3], w[3];
    ToFrame(&Rb[0][0], pl, u);
    double den = 0.0;
    for (int a = 0; a < 3; ++a) {
      w[a] = a2[a] * u[a];
      den += u[a] * w[a];
    }
    double r[3];  // x_c - p, world
    for (int a = 0; a < 3; ++a) r[a] = t * (Rb[a][0] * w[0] + Rb[a][1] * w[1] + Rb[a][2] * w[2]) / den;
    const double coef = -m_.cells[c].rho * A / g.volume;
    const double vx = V[0] + V[4] * r[2] - V[5] * r[1], vy = V[1] + V[5] * r[0] - V[3] * r[2],
                 vz = V[2] + V[3] * r[1] - V[4] * r[0];
    sdot += coef * (pl[0] * vx + pl[1] * vy + pl[2] * vz);
    const double f = 0.5 * ke1 * coef;
    const double Fc[3] = {f * pl[0], f * pl[1], f * pl[2]};
    for (int a = 0; a < 3; ++a) F[a] += Fc[a];
    T[0] += r[1] * Fc[2] - r[2] * Fc[1];
    T[1] += r[2] * Fc[0] - r[0] * Fc[2];
    T[2] += r[0] * Fc[1] - r[1] * Fc[0];
  }
  for (int a = 0; a < 3; ++a) {
    F[a] -= sdot * P1[a];
    T[a] -= sdot * P1[3 + a];
  }
}

// Added mass: M += J^T A_w J per item; wrench -(A_w b + [w]x P + (0, v x P_lin)) at
// the item's point (Kirchhoff's equations; see numba_oracle/forces.py _added_mass).
// The added-mass wrench (F, T) of ``item`` at p from the velocity V = (v at p, w) and the spatial
// velocity-product acceleration bias (both world, (lin, ang)): -Aw bias - (w x P_lin, w x H + v x
// P_lin), P = Aw V, and the surface terms of a geom item; relative to the water or, given the
// body's own V and bias, as in still water.
void ForceStage::Wrench(const ForceData& d, const AddedMass& item, const double Aw[6][6],
                             const double Aw1[6][6], const double Rb[3][3], const double p[3],
                             const double V[6], const double bias[6], double F[3], double T[3]) {
  double P[6];
  for (int i = 0; i < 6; ++i) {
    double acc = 0.0;
    for (int q = 0; q < 6; ++q) acc += Aw[i][q] * V[q];
    P[i] = acc;
  }
  const double w0 = V[3], w1 = V[4], w2 = V[5];
  for (int i = 0; i < 3; ++i) {
    double acc = 0.0, acc2 = 0.0;
    for (int q = 0; q < 6; ++q) {
      acc += Aw[i][q] * bias[q];
      acc2 += Aw[3 + i][q] * bias[q];
    }
    F[i] = -acc;
    T[i] = -acc2;
  }
  F[0] -= w1 * P[2] - w2 * P[1];
  F[1] -= w2 * P[0] - w0 * P[2];
  F[2] -= w0 * P[1] - w1 * P[0];
  T[0] -= (w1 * P[5] - w2 * P[4]) + (V[1] * P[2] - V[2] * P[1]);
  T[1] -= (w2 * P[3] - w0 * P[5]) + (V[2] * P[0] - V[0] * P[2]);
  T[2] -= (w0 * P[4] - w1 * P[3]) + (V[0] * P[1] - V[1] * P[0]);
  if (item.kind == AddedMass::Kind::kGeom) SurfaceTerms(d, item.geom, Rb, p, Aw1, V, F, T);
}

void ForceStage::AddedMassTerms(const ForceData& d, bool record) {
  double Aw[6][6], Aw1[6][6], Rb[3][3], p[3], V[6], bias[6], F[3], T[3];
  for (const AddedMass& item : m_.added) {
    const int64_t b = item.body, oid = item.object;
    double s;
    const double* xp;
    const double* xm;
    if (item.kind == AddedMass::Kind::kGeom) {  // scaled by the geom's own submerged fraction
      const int64_t k = item.geom;
      s = 0.0;
      for (int c = 0; c < nc_; ++c) s += m_.cells[c].rho * o_.vols[k * nc_ + c];
      s /= m_.geoms[k].volume;
      xp = d.geom_xpos + 3 * oid;
      xm = d.geom_xmat + 9 * oid;
    } else {
      s = item.group >= 0 ? o_.wfrac[item.group] : 1.0;
      xp = d.xpos + 3 * oid;
      xm = d.xmat + 9 * oid;
    }
    for (int a = 0; a < 3; ++a) {
      p[a] = xp[a];
      for (int c2 = 0; c2 < 3; ++c2) Rb[a][c2] = xm[3 * a + c2];
    }
    if (s <= 0.0) continue;
    const double* A = item.A;
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j) {
        double acc = 0.0;
        int bi = 3 * (i / 3), bj = 3 * (j / 3);
        for (int q = 0; q < 3; ++q)
          for (int r = 0; r < 3; ++r) acc += Rb[i - bi][q] * A[6 * (bi + q) + bj + r] * Rb[j - bj][r];
        Aw1[i][j] = acc;
        Aw[i][j] = s * acc;
      }
    const int64_t nd = m_.bodies[b].ndof;
    const double* com = d.subtree_com + 3 * m_.bodies[b].root;
    const double r[3] = {p[0] - com[0], p[1] - com[1], p[2] - com[2]};
    double* J = J_.data();    // (6 x nd): each dof's motion at p, (lin, ang)
    double* AJ = AJ_.data();  // (6 x nd)
    const int64_t* ch = m_.Dofs(b);
    for (int64_t kk = 0; kk < nd; ++kk) {
      double col[6];
      MotionAt(d.cdof + 6 * ch[kk], r, col);
      for (int i = 0; i < 6; ++i) J[i * nd + kk] = col[i];
    }
    // M += J^T Aw J (lower triangle of the chain)
    for (int i = 0; i < 6; ++i)
      for (int64_t kk = 0; kk < nd; ++kk) {
        double acc = 0.0;
        for (int q = 0; q < 6; ++q) acc += Aw[i][q] * J[q * nd + kk];
        AJ[i * nd + kk] = acc;
      }
    for (int64_t k1 = 0; k1 < nd; ++k1) {
      int64_t j1 = ch[k1];
      for (int64_t k2 = 0; k2 < nd; ++k2) {
        int64_t j2 = ch[k2];
        if (j2 > j1) continue;
        double acc = 0.0;
        for (int q = 0; q < 6; ++q) acc += J[q * nd + k1] * AJ[q * nd + k2];
        int64_t idx = m_.Mmap[j1 * m_.nv + j2];
        if (idx >= 0) d.M[idx] += acc;
      }
    }
    // velocities and the velocity-product acceleration at p
    double sb[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};  // (rot, lin) at the subtree com
    for (int i = 0; i < 6; ++i) V[i] = 0.0;
    for (int64_t kk = 0; kk < nd; ++kk) {
      int64_t j = ch[kk];
      double qd = d.qvel[j];
      for (int i = 0; i < 6; ++i) V[i] += J[i * nd + kk] * qd;
      for (int i = 0; i < 6; ++i) sb[i] += d.cdof_dot[6 * j + i] * qd;
    }
    MotionAt(sb, r, bias);  // at p, (lin, ang)
    double w0 = V[3], w1 = V[4], w2 = V[5];
    // in a current, the still-water wrench too (what the ledger's energy conserves: the
    // difference is work the flow does, booked with the drag's; aurgen.runtime.health)
    const bool book = flowing_ && record && o_.qdrag;
    double Fs[3] = {0.0, 0.0, 0.0}, Ts[3] = {0.0, 0.0, 0.0};
    if (book) Wrench(d, item, Aw, Aw1, Rb, p, V, bias, Fs, Ts);
    // Relative to the water (the densest cell's uniform flow u, constant in time): the fluid's
    // momentum is Aw V_r, V_r = (v - u, w), and in the frame moving with u (inertial) Kirchhoff's
    // equations hold in V_r; d/dt of u seen from the body adds w x u to the linear acceleration
    // (u = 0: every term below is the still-water one, bit for bit).
    if (flowing_) {
      V[0] -= uflow_[0];
      V[1] -= uflow_[1];
      V[2] -= uflow_[2];
      bias[0] += w1 * uflow_[2] - w2 * uflow_[1];
      bias[1] += w2 * uflow_[0] - w0 * uflow_[2];
      bias[2] += w0 * uflow_[1] - w1 * uflow_[0];
    }
    Wrench(d, item, Aw, Aw1, Rb, p, V, bias, F, T);  // - w x P_lin ; - w x H - v_r x P_lin
    // generalized force J^T (F, T)
    for (int64_t kk = 0; kk < nd; ++kk) {
      int64_t j = ch[kk];
      double q = 0.0;
      for (int i = 0; i < 3; ++i) q += J[i * nd + kk] * F[i] + J[(3 + i) * nd + kk] * T[i];
      d.qfrc_passive[j] += q;
      o_.qmine[j] += q;
      if (book) {
        double qs = 0.0;
        for (int i = 0; i < 3; ++i) qs += J[i * nd + kk] * Fs[i] + J[(3 + i) * nd + kk] * Ts[i];
        o_.qdrag[j] += q - qs;
      }
    }
  }
}

}  // namespace aurgen::core
