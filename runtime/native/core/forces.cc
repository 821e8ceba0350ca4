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

namespace aurgen::core {
namespace {

constexpr double kPi = 3.141592653589793;
constexpr double kCD = 1.0;         // form drag coefficient
constexpr double kCS = 0.3;         // surface (radiation stand-in) damping coefficient
constexpr double kNanD = std::numeric_limits<double>::quiet_NaN();

// Gravity at x into g (3).  gk: 0/3 uniform, 1 central, 2 linear.
inline void GravAt(int64_t gk, const double* gf, const double* x, double* g) {
  if (gk == 1) {
    double rx = x[0] - gf[4], ry = x[1] - gf[5], rz = x[2] - gf[6];
    double R = std::sqrt(rx * rx + ry * ry + rz * rz);
    double s = -gf[3] / (R * R * R);
    g[0] = s * rx;
    g[1] = s * ry;
    g[2] = s * rz;
  } else if (gk == 2) {
    for (int i = 0; i < 3; ++i)
      g[i] = gf[7 + i] + gf[10 + 3 * i] * x[0] + gf[11 + 3 * i] * x[1] + gf[12 + 3 * i] * x[2];
  } else {
    g[0] = gf[0];
    g[1] = gf[1];
    g[2] = gf[2];
  }
}

// Gravity potential (J/kg) at x; g = -grad phi.
inline double Phi(int64_t gk, const double* gf, const double* x) {
  if (gk == 1) {
    double rx = x[0] - gf[4], ry = x[1] - gf[5], rz = x[2] - gf[6];
    return -gf[3] / std::sqrt(rx * rx + ry * ry + rz * rz);
  }
  if (gk == 2) {
    double s = gf[7] * x[0] + gf[8] * x[1] + gf[9] * x[2];
    double q = 0.0;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) q += x[i] * gf[10 + 3 * i + j] * x[j];
    return -(s + 0.5 * q);
  }
  return -(gf[0] * x[0] + gf[1] * x[1] + gf[2] * x[2]);
}

inline bool IsNan(double v) { return v != v; }

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

// The drag's projected area, one piece per lane (lanes.h: the scalar code's bits
// in every lane).  A box (a mesh: its bounding half-sizes) or an ellipsoid across
// w (geom frame) times |w|: homogeneous of degree 1 in w, so ProjAreaV(v) is
// A_p(v / |v|) |v| without normalising (m^2 x the unit of w).  pr: the products
// of the sizes (b c, a c, a b).
template <class L>
inline L ProjAreaV(int64_t typ, const double* pr, L wx, L wy, L wz) {
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
inline L ProjArea(int64_t typ, const double* size, L ux, L uy, L uz) {
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

// The first cell whose half-spaces (cpl, cnp; kmax rows per cell) all hold x,
// or -1 when none does.
inline int CellAt(const double* cpl, const int64_t* cnp, int nc, int kmax, const double* x) {
  for (int cc = 0; cc < nc; ++cc) {
    bool inside = true;
    for (int64_t j = 0; j < cnp[cc]; ++j) {
      const double* pl = cpl + 4 * (cc * kmax + j);
      if (pl[0] * x[0] + pl[1] * x[1] + pl[2] * x[2] > pl[3]) {
        inside = false;
        break;
      }
    }
    if (inside) return cc;
  }
  return -1;
}

}  // namespace

ForceStage::ForceStage(const ForceModel& model, const ForceOut& out) : m_(model), o_(out) {
  int64_t emax = 1, fmax = 1;
  for (int k = 0; k < m_.ng; ++k) {
    int64_t e, f;
    ScratchNeed(static_cast<int>(m_.gt[k]), m_.mesh_ids[k], m_.hulls, m_.kmax, &e, &f);
    emax = std::max(emax, e);
    fmax = std::max(fmax, f);
  }
  scratch_.Reserve(emax, fmax, std::max(m_.kmax, 1));
  // the drag coefficients of each geom in each cell's fluid, from the
  // equivalent-sphere diameter d: 0.5 rho C_D (form), 3 pi mu d (Stokes),
  // pi mu d^3 and rho C_D d^5 / 64 (rotation); each is the leading product of
  // the per-piece expression it replaces, so the forces keep their bits
  slot_stride_ = std::max(static_cast<int64_t>(m_.ng) * m_.nc, int64_t{1});
  const int64_t S = slot_stride_;
  dcoef_.assign(kNDC * S, 0.0);
  for (int k = 0; k < m_.ng; ++k) {
    double deq = std::pow(6.0 * m_.gvol[k] / kPi, 1.0 / 3.0);
    for (int c = 0; c < m_.nc; ++c) {
      const double rho = m_.cf[c * kNCF + kCRho], mu = m_.cf[c * kNCF + kCMu];
      const int64_t si = static_cast<int64_t>(k) * m_.nc + c;
      dcoef_[kDQ * S + si] = 0.5 * rho * kCD;
      dcoef_[kDLin * S + si] = 3.0 * kPi * mu * deq;
      dcoef_[kDRot * S + si] = kPi * mu * Pow3(deq);
      dcoef_[kDRot2 * S + si] = rho * kCD * Pow5(deq) / 64.0;
    }
  }
  // the cells' density, flow and pressure constant, each a column (lanes load two cells)
  crho_.assign(std::max(m_.nc, 1), 0.0);
  cP_.assign(std::max(m_.nc, 1), 0.0);
  cflow_.assign(3 * std::max(m_.nc, 1), 0.0);
  for (int c = 0; c < m_.nc; ++c) {
    crho_[c] = m_.cf[c * kNCF + kCRho];
    cP_[c] = m_.cf[c * kNCF + kCP];
    for (int a = 0; a < 3; ++a) cflow_[a * m_.nc + c] = m_.cf[c * kNCF + kCFlow + a];
  }
  slots_.assign(kNSlot * S, 0.0);
  valid_.assign(S, 0);
  // the nonzero entries (6 i + j) of each damping item's D or Dq, and the stored
  // entries of M's lower triangle, in the order the sums visit them
  dnz0_.assign(m_.nd + 1, 0);
  for (int it = 0; it < m_.nd; ++it) {
    const double* D = m_.df + 72 * it;
    for (int ij = 0; ij < 36; ++ij)
      if (D[ij] != 0.0 || D[36 + ij] != 0.0) dnz_.push_back(ij);
    dnz0_[it + 1] = static_cast<int64_t>(dnz_.size());
  }
  for (int i = 0; i < m_.nv; ++i)
    for (int j = 0; j <= i; ++j) {
      int64_t idx = m_.Mmap[i * m_.nv + j];
      if (idx >= 0) ment_.push_back(MEntry{i, j, idx, i == j ? 0.5 : 1.0});
    }
  gpr_.assign(3 * std::max(m_.ng, 1), 0.0);
  for (int k = 0; k < m_.ng; ++k) SizeProducts(m_.gsz + 3 * k, gpr_.data() + 3 * k);
  for (int k = 0; k < m_.ng; ++k)
    if (m_.gt[k] == kBox) box_idx_.push_back(k);
  one_.assign(std::max(m_.nc, 1), -1);
  onesg_.assign(std::max(m_.nc, 1), 0.0);
  J_.assign(6 * std::max(m_.maxd, 1), 0.0);
  AJ_.assign(6 * std::max(m_.maxd, 1), 0.0);
}

// Add the wrench (F at x, torque T) on body b to qfrc (and qmine).
#define AURGEN_APPLY(b, F, T, x)                                                          \
  do {                                                                                    \
    int64_t r_ = m_.broot[b];                                                             \
    double dx_ = x[0] - d.subtree_com[3 * r_], dy_ = x[1] - d.subtree_com[3 * r_ + 1];    \
    double dz_ = x[2] - d.subtree_com[3 * r_ + 2];                                        \
    double mx_ = T[0] + dy_ * F[2] - dz_ * F[1];                                          \
    double my_ = T[1] + dz_ * F[0] - dx_ * F[2];                                          \
    double mz_ = T[2] + dx_ * F[1] - dy_ * F[0];                                          \
    for (int64_t k_ = 0; k_ < m_.bnd[b]; ++k_) {                                          \
      int64_t j_ = m_.bch[(b) * m_.maxd + k_];                                            \
      const double* cd_ = d.cdof + 6 * j_;                                                \
      double q_ = (cd_[0] * mx_ + cd_[1] * my_ + cd_[2] * mz_ + cd_[3] * F[0] +           \
                   cd_[4] * F[1] + cd_[5] * F[2]);                                        \
      d.qfrc_passive[j_] += q_;                                                           \
      o_.qmine[j_] += q_;                                                                 \
    }                                                                                     \
  } while (0)

// Flush the wrench (moment m about body b's root subtree com, force F) summed in
// the piece loop: qfrc (and qmine) += its projection on b's ancestor dofs.
#define AURGEN_FLUSH(b, m, F)                                                             \
  do {                                                                                    \
    for (int64_t k_ = 0; k_ < m_.bnd[b]; ++k_) {                                          \
      int64_t j_ = m_.bch[(b) * m_.maxd + k_];                                            \
      const double* cd_ = d.cdof + 6 * j_;                                                \
      double q_ = (cd_[0] * m[0] + cd_[1] * m[1] + cd_[2] * m[2] + cd_[3] * F[0] +        \
                   cd_[4] * F[1] + cd_[5] * F[2]);                                        \
      d.qfrc_passive[j_] += q_;                                                           \
      o_.qmine[j_] += q_;                                                                 \
    }                                                                                     \
  } while (0)

// Linear velocity (world) of the point x fixed to body b into v.
#define AURGEN_POINTVEL(b, x, v)                                                          \
  do {                                                                                    \
    int64_t r_ = m_.broot[b];                                                             \
    double dx_ = x[0] - d.subtree_com[3 * r_], dy_ = x[1] - d.subtree_com[3 * r_ + 1];    \
    double dz_ = x[2] - d.subtree_com[3 * r_ + 2];                                        \
    const double* cv_ = d.cvel + 6 * (b);                                                 \
    v[0] = cv_[3] + cv_[1] * dz_ - cv_[2] * dy_;                                          \
    v[1] = cv_[4] + cv_[2] * dx_ - cv_[0] * dz_;                                          \
    v[2] = cv_[5] + cv_[0] * dy_ - cv_[1] * dx_;                                          \
  } while (0)

// Piece (B): the wrench and ledger terms of geom k's pieces in cells c .. c + lanes
// (one per lane; a lane whose piece is not valid computes what pass C skips).
// The force F (world) is buoyancy -rho V g plus drag; the torque T is drag's;
// the moment about the run's root subtree com M = T + (x - com) x F; U (J) the
// pressure energy, P (W) the drag power.  The scalar code's operations in its
// order in every lane (lanes.h), so D2 and D1 give the same bits.
template <class L>
void ForceStage::Wrenches(int k, int c, const Run& r, int64_t typ, PieceFlags pf) {
  using namespace lanes;  // NOLINT: the lane types and their operators
  const L z{};
  const L zero = Set(0.0, z);
  const int nc = m_.nc;
  const int64_t S = slot_stride_, si = static_cast<int64_t>(k) * nc + c;
  const int64_t ii[2] = {si, si + 1};
  double* sl = slots_.data();
  auto col = [&](int j) { return sl + j * S + si; };
  const L V = Load(o_.vols + si, z), rho = Load(crho_.data() + c, z);
  const L x0 = Gather(o_.cents, ii, 3, 0, z), x1 = Gather(o_.cents, ii, 3, 1, z),
          x2 = Gather(o_.cents, ii, 3, 2, z);
  const L dx = x0 - Set(r.sc[0], z), dy = x1 - Set(r.sc[1], z), dz = x2 - Set(r.sc[2], z);
  L F0 = zero, F1 = zero, F2 = zero, T0 = zero, T1 = zero, T2 = zero;
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
      Store(col(kSU), V * (-rho * phi + Load(cP_.data() + c, z)));
    }
  }
  if (pf.drag) {
    const L w0 = Set(r.cv[0], z), w1 = Set(r.cv[1], z), w2 = Set(r.cv[2], z);
    const L f = V / Set(m_.gvol[k], z);
    // the piece centroid's velocity (AURGEN_POINTVEL), then relative to the cell's flow
    const L vab0 = Set(r.cv[3], z) + w1 * dz - w2 * dy;
    const L vab1 = Set(r.cv[4], z) + w2 * dx - w0 * dz;
    const L vab2 = Set(r.cv[5], z) + w0 * dy - w1 * dx;
    const L v0 = vab0 - Load(cflow_.data() + c, z), v1 = vab1 - Load(cflow_.data() + nc + c, z),
            v2 = vab2 - Load(cflow_.data() + 2 * nc + c, z);
    const L sp2 = v0 * v0 + v1 * v1 + v2 * v2;  // |v|^2: sqrt only where needed
    // the relative velocity in the geom frame
    const double* R = o_.mats + 9 * k;
    const L lx = Set(R[0], z) * v0 + Set(R[3], z) * v1 + Set(R[6], z) * v2;
    const L ly = Set(R[1], z) * v0 + Set(R[4], z) * v1 + Set(R[7], z) * v2;
    const L lz = Set(R[2], z) * v0 + Set(R[5], z) * v1 + Set(R[8], z) * v2;
    const L dQ = Load(dcoef_.data() + kDQ * S + si, z);
    L dq;  // 0.5 rho C_D A_p |v| (kg/s): no division where A_p is homogeneous
    if (typ == kBox || typ == kMesh || typ == kEllipsoid) {
      dq = dQ * ProjAreaV(typ, gpr_.data() + 3 * k, lx, ly, lz);
    } else {
      const L sp = Sqrt(sp2);
      dq = dQ * ProjArea(typ, m_.gsz + 3 * k, lx / sp, ly / sp, lz / sp) * sp;
    }
    const L ncoef = -((Load(dcoef_.data() + kDLin * S + si, z) + dq) * f);
    const auto moving = sp2 > zero;  // else no drag force
    L Fd0 = Sel(moving, ncoef * v0, zero), Fd1 = Sel(moving, ncoef * v1, zero),
      Fd2 = Sel(moving, ncoef * v2, zero);
    const L nct = -((Load(dcoef_.data() + kDRot * S + si, z) +
                     Load(dcoef_.data() + kDRot2 * S + si, z) * Set(r.wn, z)) *
                    f);
    L Td0 = nct * w0, Td1 = nct * w1, Td2 = nct * w2;
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
    if (pf.record)
      Store(col(kSP), Fd0 * vab0 + Fd1 * vab1 + Fd2 * vab2 + Td0 * w0 + Td1 * w1 + Td2 * w2);
    F0 = F0 + Fd0;
    F1 = F1 + Fd1;
    F2 = F2 + Fd2;
    T0 = T0 + Td0;
    T1 = T1 + Td1;
    T2 = T2 + Td2;
  }
  Store(col(kSM), T0 + dy * F2 - dz * F1);
  Store(col(kSM + 1), T1 + dz * F0 - dx * F2);
  Store(col(kSM + 2), T2 + dx * F1 - dy * F0);
  Store(col(kSF), F0);
  Store(col(kSF + 1), F1);
  Store(col(kSF + 2), F2);
}

void ForceStage::Passive(const ForceData& d) {
  const int ng = m_.ng, nc = m_.nc, nv = m_.nv, kmax = m_.kmax;
  const int64_t gk = m_.fl[kFGrav];
  const bool record = m_.fl[kFRecord] != 0;
  const double* cf = m_.cf;
  const double* gf = m_.gf;
  const double* hv = m_.hulls.verts;
  const int64_t* hvr = m_.hulls.vert_range;
  double* pos = o_.pos;
  double* mats = o_.mats;
  double* led = o_.led;
  for (int j = 0; j < nv; ++j) o_.qmine[j] = 0.0;
  for (int i = 0; i < kNLed; ++i) led[i] = 0.0;
  double F[3], T[3], x[3], v[3], g[3];
  double rho_max = 0.0;
  for (int c = 0; c < nc; ++c)
    if (cf[c * kNCF + kCRho] > rho_max) rho_max = cf[c * kNCF + kCRho];
  for (int w = 0; w < m_.nw; ++w) o_.wfrac[w] = 0.0;

  // ---- gather geom poses
  for (int k = 0; k < ng; ++k) {
    int64_t gid = m_.gi[4 * k];
    std::memcpy(pos + 3 * k, d.geom_xpos + 3 * gid, 3 * sizeof(double));
    std::memcpy(mats + 9 * k, d.geom_xmat + 9 * gid, 9 * sizeof(double));
  }

  // ---- clip every geom by every cell (planes no geom crosses dropped).  A cell
  // bounded (after dropping) by the one plane another cell was bounded by, from
  // the other side, is the complement: full geom minus that piece.
  for (int c = 0; c < nc; ++c) {
    one_[c] = -1;
    onesg_[c] = 0.0;
  }
  for (int c = 0; c < nc; ++c) {
    int npl = 0;
    int64_t last = -1;
    for (int64_t j = 0; j < m_.cnp[c]; ++j) {
      const double* pl = m_.cpl + 4 * (c * kmax + j);
      double nx = pl[0], ny = pl[1], nz = pl[2];
      bool keep = false;
      for (int k = 0; k < ng; ++k) {
        const double* R = mats + 9 * k;
        double lx = R[0] * nx + R[3] * ny + R[6] * nz;
        double ly = R[1] * nx + R[4] * ny + R[7] * nz;
        double lz = R[2] * nx + R[5] * ny + R[8] * nz;
        double t = pl[3] - (nx * pos[3 * k] + ny * pos[3 * k + 1] + nz * pos[3 * k + 2]);
        bool mesh = m_.gt[k] == kMesh;
        int64_t mid = mesh ? m_.mesh_ids[k] : 0;
        int64_t v0 = mesh ? hvr[mid] : 0, v1 = mesh ? hvr[mid + 1] : 0;
        double hmax, hmin;
        SupportLocal(static_cast<int>(m_.gt[k]), m_.gsz + 3 * k, lx, ly, lz, hv, v0, v1, &hmax,
                     &hmin);
        if (hmax > t) {
          keep = true;
          break;
        }
      }
      if (keep) {
        for (int a = 0; a < 4; ++a) o_.planes[4 * npl + a] = pl[a];
        ++npl;
        last = j;
      }
    }
    int comp = -1;
    if (npl == 1) {
      one_[c] = 1;
      for (int c2 = 0; c2 < c; ++c2) {
        if (one_[c2] != 1) continue;
        const double* p2 = m_.cpl + 4 * (c2 * kmax + static_cast<int64_t>(onesg_[c2]));
        if (p2[0] == -o_.planes[0] && p2[1] == -o_.planes[1] && p2[2] == -o_.planes[2] &&
            p2[3] == -o_.planes[3]) {
          comp = c2;
          break;
        }
      }
      onesg_[c] = static_cast<double>(last);
    }
    if (comp >= 0) {
      for (int k = 0; k < ng; ++k) {
        const double* R = mats + 9 * k;
        const double* gc = m_.gcl + 3 * k;
        double fx = pos[3 * k] + R[0] * gc[0] + R[1] * gc[1] + R[2] * gc[2];
        double fy = pos[3 * k + 1] + R[3] * gc[0] + R[4] * gc[1] + R[5] * gc[2];
        double fzz = pos[3 * k + 2] + R[6] * gc[0] + R[7] * gc[1] + R[8] * gc[2];
        double Vo = o_.vols[k * nc + comp];
        double V = m_.gvol[k] - Vo;
        double* ce = o_.cents + 3 * (k * nc + c);
        const double* co = o_.cents + 3 * (k * nc + comp);
        if (V <= 1e-13 * m_.gvol[k]) {
          o_.vols[k * nc + c] = 0.0;
          ce[0] = fx;
          ce[1] = fy;
          ce[2] = fzz;
        } else if (Vo <= 0.0) {
          o_.vols[k * nc + c] = m_.gvol[k];
          ce[0] = fx;
          ce[1] = fy;
          ce[2] = fzz;
        } else {
          o_.vols[k * nc + c] = V;
          ce[0] = (m_.gvol[k] * fx - Vo * co[0]) / V;
          ce[1] = (m_.gvol[k] * fy - Vo * co[1]) / V;
          ce[2] = (m_.gvol[k] * fzz - Vo * co[2]) / V;
        }
        o_.areas[k * nc + c] = o_.areas[k * nc + comp];
      }
      continue;
    }
    // boxes cut by one plane several at a time (BoxRows), the rest one by one
    const bool boxes = npl == 1 && !box_idx_.empty();
    if (boxes)
      BoxRows(box_idx_.data(), static_cast<int>(box_idx_.size()), m_.gsz, pos, mats, o_.planes,
              o_.out, 5);
    for (int k = 0; k < ng; ++k) {
      double* row = o_.out + 5 * k;
      if (!(boxes && m_.gt[k] == kBox))
        ClipGeom(static_cast<int>(m_.gt[k]), m_.gsz + 3 * k, pos + 3 * k, mats + 9 * k,
                 m_.mesh_ids[k], m_.hulls, o_.planes, npl, row, 5, false, scratch_);
      o_.vols[k * nc + c] = row[0];
      double* ce = o_.cents + 3 * (k * nc + c);
      ce[0] = row[1];
      ce[1] = row[2];
      ce[2] = row[3];
      o_.areas[k * nc + c] = npl <= 1 ? row[4] : std::numeric_limits<double>::quiet_NaN();
    }
  }

  // ---- per geom, per cell: buoyancy, drag, surface damping.  Per geom in model
  // order: (A) its body's run and, per piece (the geom's part in one cell), what
  // the piece reads that is not in the clip's rows: gravity, the pressure
  // potential, the surface's up direction and height (cached while gravity's
  // bits and the geom stay the same); (B) the wrenches and ledger terms, its
  // cells two at a time in lanes (Wrenches); (C) the sums, in piece order (geoms,
  // then cells): per run of consecutive geoms on one body, the wrench (moment
  // about the root's subtree com, world) projected on its dofs once, when the
  // run ends.  No piece's wrench waits on the sums.
  const bool drag = m_.fl[kFDrag] != 0, buoy = m_.fl[kFBuoy] != 0;
  // the up direction n = -g/|g| and |g| x geom k's height along n: the same bits
  // of g (a uniform field: every piece) give the same values, so they are
  // recomputed only when g's bits or the geom change
  double up_g[3] = {kNanD, kNanD, kNanD}, up_n[3] = {0.0, 0.0, 0.0}, up_gn = 0.0,
         up_gh = 0.0;  // up_gh: |g| h (pass B takes its square root)
  int up_k = -1;
  auto up = [&](const double* g, int k, int64_t typ) {
    if (!SameBits(g, up_g)) {
      std::memcpy(up_g, g, sizeof up_g);
      up_gn = std::sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
      up_n[0] = -g[0] / up_gn;
      up_n[1] = -g[1] / up_gn;
      up_n[2] = -g[2] / up_gn;
      up_k = -1;
    }
    if (up_gn > 0.0 && up_k != k) {
      const double* R = mats + 9 * k;
      double lx = R[0] * up_n[0] + R[3] * up_n[1] + R[6] * up_n[2];
      double ly = R[1] * up_n[0] + R[4] * up_n[1] + R[7] * up_n[2];
      double lz = R[2] * up_n[0] + R[5] * up_n[1] + R[8] * up_n[2];
      double ext;  // the geom's extent along n: hmax - hmin
      if (typ == kBox) {  // SupportLocal's box, inline: hmax = h, hmin = -h
        const double* sz = m_.gsz + 3 * k;
        double h = sz[0] * std::fabs(lx) + sz[1] * std::fabs(ly) + sz[2] * std::fabs(lz);
        ext = h - -h;
      } else {
        bool mesh = typ == kMesh;
        int64_t mid = mesh ? m_.mesh_ids[k] : 0;
        int64_t v0 = mesh ? hvr[mid] : 0, v1 = mesh ? hvr[mid + 1] : 0;
        double hmax, hmin;
        SupportLocal(static_cast<int>(typ), m_.gsz + 3 * k, lx, ly, lz, hv, v0, v1, &hmax, &hmin);
        ext = hmax - hmin;
      }
      up_gh = up_gn * ext;
      up_k = k;
    }
  };
  // one gravity for every piece (a uniform field, no cell's own): pass B reads
  // it, and the up direction, from PieceFlags instead of the slots
  const bool uniform = gk == 0;
  Run run;  // the current run
  int64_t sb = -1;  // its body
  double sm[3] = {0.0, 0.0, 0.0}, sF[3] = {0.0, 0.0, 0.0};  // the run's wrench so far
  double l_ubuoy = led[kLUBuoy], l_pdrag = led[kLPDrag];
  const int64_t S = slot_stride_;
  double* sl = slots_.data();
  for (int k = 0; k < ng; ++k) {
    int64_t b = m_.gi[4 * k + 1];
    int64_t mark = m_.gi[4 * k + 3];
    if (mark != 1 && mark != 2) continue;
    if (b != sb) {  // a new run: its root's subtree com, its velocity, |w|
      if (sb >= 0) {  // the last run's wrench to its dofs
        AURGEN_FLUSH(sb, sm, sF);
        for (int a = 0; a < 3; ++a) sm[a] = sF[a] = 0.0;
      }
      sb = b;
      const int64_t rb = m_.broot[b];
      for (int a = 0; a < 3; ++a) run.sc[a] = d.subtree_com[3 * rb + a];
      const double* cv = d.cvel + 6 * b;
      for (int a = 0; a < 6; ++a) run.cv[a] = cv[a];
      run.wn = std::sqrt(cv[0] * cv[0] + cv[1] * cv[1] + cv[2] * cv[2]);
    }
    const int64_t typ = m_.gi[4 * k + 2];
    if (mark == 1 && rho_max > 0.0) {  // the submerged fraction of its weld group, summed
      double s = 0.0;
      for (int c = 0; c < nc; ++c) s += cf[c * kNCF + kCRho] * o_.vols[k * nc + c];
      o_.wfrac[m_.gw[k]] += s / rho_max;
    }
    const bool surfk = drag && mark == 1;  // surface damping where the section area A > 0
    bool any = false, anysurf = false;
    for (int c = 0; c < nc; ++c) {
      const int64_t si = static_cast<int64_t>(k) * nc + c;
      const double* cc = cf + c * kNCF;
      const bool valid = o_.vols[si] > 0.0 && !(mark == 2 && cc[kCGas] == 0.0);
      valid_[si] = valid ? 1 : 0;
      if (!valid) continue;
      any = true;
      const double A = o_.areas[si];
      const bool surf = surfk && A == A && A > 0.0;
      anysurf |= surf;
      if (uniform) continue;
      const double* x = o_.cents + 3 * si;
      const bool cellg = gk == 3 && !IsNan(cc[kCG]);
      double g[3];
      if (cellg) {
        g[0] = cc[kCG];
        g[1] = cc[kCG + 1];
        g[2] = cc[kCG + 2];
      } else {
        GravAt(gk, gf, x, g);
      }
      for (int a = 0; a < 3; ++a) sl[(kSG + a) * S + si] = g[a];
      if (record && mark == 1 && buoy)  // the potential phi (J/kg) for the pressure energy U
        sl[kSPhi * S + si] =
            cellg ? -(g[0] * x[0] + g[1] * x[1] + g[2] * x[2]) + cc[kCK] : Phi(gk, gf, x);
      if (surf) up(g, k, typ);
      sl[kSSurf * S + si] = surf && up_gn > 0.0 ? 1.0 : 0.0;
      if (surf && up_gn > 0.0) {
        sl[kSGH * S + si] = up_gh;
        for (int a = 0; a < 3; ++a) sl[(kSN + a) * S + si] = up_n[a];
      }
    }
    if (!any) continue;
    // (B) this geom's wrenches, its cells two at a time
    PieceFlags pf{mark == 1 && buoy, drag, record, uniform, false, gf, up_n, 0.0};
    if (uniform && anysurf) {
      up(gf, k, typ);
      pf.surf = up_gn > 0.0;
      pf.gh = up_gh;
    }
    int c = 0;
#if defined(__SSE2__)
    for (; c + 2 <= nc; c += 2)
      if (valid_[k * nc + c] || valid_[k * nc + c + 1])
        Wrenches<lanes::D2>(k, c, run, typ, pf);
#endif
    for (; c < nc; ++c)
      if (valid_[k * nc + c]) Wrenches<lanes::D1>(k, c, run, typ, pf);
    // (C) the sums, in piece order
    for (int c2 = 0; c2 < nc; ++c2) {
      const int64_t si = static_cast<int64_t>(k) * nc + c2;
      if (!valid_[si]) continue;
      for (int a = 0; a < 3; ++a) {
        sm[a] += sl[(kSM + a) * S + si];
        sF[a] += sl[(kSF + a) * S + si];
      }
      if (record) {
        if (pf.buoy) l_ubuoy += sl[kSU * S + si];
        if (drag) l_pdrag += sl[kSP * S + si];
      }
    }
  }

  if (sb >= 0) AURGEN_FLUSH(sb, sm, sF);
  led[kLUBuoy] = l_ubuoy;
  led[kLPDrag] = l_pdrag;

  // ---- submerged fraction per weld group (for declared damping / added mass):
  // its displaced volume in densest-fluid equivalent, summed in the loop above
  if (rho_max > 0.0)
    for (int w = 0; w < m_.nw; ++w) {
      led[kLVSub] += o_.wfrac[w];
      if (m_.wvol[w] > 0.0) o_.wfrac[w] = o_.wfrac[w] / m_.wvol[w];
    }

  // ---- gravity fields over each body's mass distribution (second order)
  if (gk != 0) {
    double Iw[3][3];
    for (int b = 1; b < m_.nb; ++b) {
      double mass = m_.bmass[b];
      if (mass <= 0.0 || m_.bnd[b] == 0) continue;
      for (int a = 0; a < 3; ++a) x[a] = d.xipos[3 * b + a];
      if (gk == 3) {
        int c = CellAt(m_.cpl, m_.cnp, nc, kmax, x);
        double K;
        if (c >= 0 && !IsNan(cf[c * kNCF + kCG])) {
          for (int a = 0; a < 3; ++a) g[a] = cf[c * kNCF + kCG + a];
          K = cf[c * kNCF + kCK];
        } else {
          for (int a = 0; a < 3; ++a) g[a] = gf[a];
          K = 0.0;
        }
        for (int a = 0; a < 3; ++a) {
          F[a] = mass * g[a];
          T[a] = 0.0;
        }
        if (record) led[kLUGrav] += mass * (-(g[0] * x[0] + g[1] * x[1] + g[2] * x[2]) + K);
      } else {
        GravAt(gk, gf, x, g);
        for (int a = 0; a < 3; ++a) F[a] = mass * g[a];
        const double* xm = d.ximat + 9 * b;
        const double* bi = m_.binert + 3 * b;
        for (int a = 0; a < 3; ++a)
          for (int bb = 0; bb < 3; ++bb) {
            double s = 0.0;
            for (int q = 0; q < 3; ++q) s += xm[3 * a + q] * bi[q] * xm[3 * bb + q];
            Iw[a][bb] = s;
          }
        if (gk == 1) {
          double rx = x[0] - gf[4], ry = x[1] - gf[5], rz = x[2] - gf[6];
          double R2 = rx * rx + ry * ry + rz * rz;
          double s3 = 3.0 * gf[3] / (R2 * R2 * std::sqrt(R2));
          double IR0 = Iw[0][0] * rx + Iw[0][1] * ry + Iw[0][2] * rz;
          double IR1 = Iw[1][0] * rx + Iw[1][1] * ry + Iw[1][2] * rz;
          double IR2 = Iw[2][0] * rx + Iw[2][1] * ry + Iw[2][2] * rz;
          T[0] = s3 * (ry * IR2 - rz * IR1);
          T[1] = s3 * (rz * IR0 - rx * IR2);
          T[2] = s3 * (rx * IR1 - ry * IR0);
        } else {
          double GI[3][3];
          for (int a = 0; a < 3; ++a)
            for (int bb = 0; bb < 3; ++bb) {
              double s = 0.0;
              for (int q = 0; q < 3; ++q) s += gf[10 + 3 * a + q] * Iw[q][bb];
              GI[a][bb] = s;
            }
          // tau_i = eps_iab (G I)_ab with I the world inertia tensor about the CoM
          T[0] = GI[1][2] - GI[2][1];
          T[1] = GI[2][0] - GI[0][2];
          T[2] = GI[0][1] - GI[1][0];
        }
        if (record) led[kLUGrav] += mass * Phi(gk, gf, x);
      }
      AURGEN_APPLY(b, F, T, x);
    }
  }

  // ---- declared hydrodynamic damping (Fossen), at the body origin, body axes
  if (m_.fl[kFDrag] != 0) {
    double nu[6], tau[6];
    for (int it = 0; it < m_.nd; ++it) {
      int64_t b = m_.di[2 * it];
      int64_t grp = m_.di[2 * it + 1];
      double s = grp >= 0 ? o_.wfrac[grp] : 1.0;
      if (s <= 0.0) continue;
      for (int a = 0; a < 3; ++a) x[a] = d.xpos[3 * b + a];
      AURGEN_POINTVEL(b, x, v);
      int c = CellAt(m_.cpl, m_.cnp, nc, kmax, x);
      double vab0 = v[0], vab1 = v[1], vab2 = v[2];
      if (c >= 0)
        for (int a = 0; a < 3; ++a) v[a] -= cf[c * kNCF + kCFlow + a];
      const double* xm = d.xmat + 9 * b;
      const double* cv = d.cvel + 6 * b;
      for (int a = 0; a < 3; ++a) {
        nu[a] = xm[a] * v[0] + xm[3 + a] * v[1] + xm[6 + a] * v[2];
        nu[3 + a] = xm[a] * cv[0] + xm[3 + a] * cv[1] + xm[6 + a] * cv[2];
      }
      // tau_i = s sum_j (D_ij nu_j + Dq_ij |nu_i| nu_j) over the entries where D or
      // Dq is nonzero, in j order: a sum from +0 that skips exact zero terms has
      // the full sum's bits
      const double* D = m_.df + 72 * it;
      double acc[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
      for (int64_t e = dnz0_[it]; e < dnz0_[it + 1]; ++e) {
        const int ij = dnz_[e], i = ij / 6, j = ij % 6;
        acc[i] += D[ij] * nu[j] + D[36 + ij] * std::fabs(nu[i]) * nu[j];
      }
      for (int i = 0; i < 6; ++i) tau[i] = s * acc[i];
      for (int a = 0; a < 3; ++a) {
        F[a] = xm[3 * a] * tau[0] + xm[3 * a + 1] * tau[1] + xm[3 * a + 2] * tau[2];
        T[a] = xm[3 * a] * tau[3] + xm[3 * a + 1] * tau[4] + xm[3 * a + 2] * tau[5];
      }
      if (record)
        led[kLPDrag] += (F[0] * vab0 + F[1] * vab1 + F[2] * vab2 + T[0] * cv[0] + T[1] * cv[1] +
                         T[2] * cv[2]);
      AURGEN_APPLY(b, F, T, x);
    }
  }

  // ---- added mass: metric into M, velocity-product terms as forces
  if (m_.fl[kFAdded] != 0) AddedMass(d);

  if (record) {
    double ke = 0.0;  // 1/2 qvel' M qvel over M's stored lower triangle, row by row
    for (const MEntry& e : ment_)  // w: 0.5 on the diagonal, else 1 (1 * x is x)
      ke += e.w * d.M[e.idx] * d.qvel[e.i] * d.qvel[e.j];
    led[kLKE] = ke;
    if (gk == 0) {
      double ug = 0.0;
      for (int b = 1; b < m_.nb; ++b)
        ug -= m_.bmass[b] * (gf[0] * d.xipos[3 * b] + gf[1] * d.xipos[3 * b + 1] +
                             gf[2] * d.xipos[3 * b + 2]);
      led[kLUGrav] = ug;
    }
  }
}

// M += J^T A_w J per item; wrench -(A_w b + [w]x P + (0, v x P_lin)) at the item's
// point (Kirchhoff's equations; see numba_oracle/forces.py _added_mass).
void ForceStage::AddedMass(const ForceData& d) {
  const int nc = m_.nc;
  double Aw[6][6], Rb[3][3], p[3], V[6], bias[6], P[6], F[3], T[3];
  for (int it = 0; it < m_.na; ++it) {
    const int64_t* a4 = m_.ai + 4 * it;
    int64_t kind = a4[0], b = a4[1], oid = a4[2];
    double s;
    const double* xp;
    const double* xm;
    if (kind == 1) {
      int64_t k = a4[3];
      s = 0.0;
      for (int c = 0; c < nc; ++c) s += m_.cf[c * kNCF + kCRho] * o_.vols[k * nc + c];
      s /= m_.gvol[k];
      xp = d.geom_xpos + 3 * oid;
      xm = d.geom_xmat + 9 * oid;
    } else {
      s = a4[3] >= 0 ? o_.wfrac[a4[3]] : 1.0;
      xp = d.xpos + 3 * oid;
      xm = d.xmat + 9 * oid;
    }
    for (int a = 0; a < 3; ++a) {
      p[a] = xp[a];
      for (int c2 = 0; c2 < 3; ++c2) Rb[a][c2] = xm[3 * a + c2];
    }
    if (s <= 0.0) continue;
    const double* A = m_.af + 36 * it;
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j) {
        double acc = 0.0;
        int bi = 3 * (i / 3), bj = 3 * (j / 3);
        for (int q = 0; q < 3; ++q)
          for (int r = 0; r < 3; ++r) acc += Rb[i - bi][q] * A[6 * (bi + q) + bj + r] * Rb[j - bj][r];
        Aw[i][j] = s * acc;
      }
    int64_t nd = m_.bnd[b];
    int64_t rr = m_.broot[b];
    double dx = p[0] - d.subtree_com[3 * rr], dy = p[1] - d.subtree_com[3 * rr + 1];
    double dz = p[2] - d.subtree_com[3 * rr + 2];
    double* J = J_.data();    // (6 x nd)
    double* AJ = AJ_.data();  // (6 x nd)
    const int64_t* ch = m_.bch + b * m_.maxd;
    for (int64_t kk = 0; kk < nd; ++kk) {
      const double* cd = d.cdof + 6 * ch[kk];
      double w0 = cd[0], w1 = cd[1], w2 = cd[2];
      J[0 * nd + kk] = cd[3] + w1 * dz - w2 * dy;
      J[1 * nd + kk] = cd[4] + w2 * dx - w0 * dz;
      J[2 * nd + kk] = cd[5] + w0 * dy - w1 * dx;
      J[3 * nd + kk] = w0;
      J[4 * nd + kk] = w1;
      J[5 * nd + kk] = w2;
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
    for (int i = 0; i < 6; ++i) {
      V[i] = 0.0;
      bias[i] = 0.0;
    }
    for (int64_t kk = 0; kk < nd; ++kk) {
      int64_t j = ch[kk];
      double qd = d.qvel[j];
      for (int i = 0; i < 6; ++i) V[i] += J[i * nd + kk] * qd;
      for (int i = 0; i < 6; ++i) bias[i] += d.cdof_dot[6 * j + i] * qd;  // (rot, lin) at the subtree com
    }
    // spatial -> at p: lin += rot x (p - c); reorder to (lin, ang)
    double b0 = bias[3] + bias[1] * dz - bias[2] * dy;
    double b1 = bias[4] + bias[2] * dx - bias[0] * dz;
    double b2 = bias[5] + bias[0] * dy - bias[1] * dx;
    double r0 = bias[0], r1 = bias[1], r2 = bias[2];
    bias[0] = b0;
    bias[1] = b1;
    bias[2] = b2;
    bias[3] = r0;
    bias[4] = r1;
    bias[5] = r2;
    for (int i = 0; i < 6; ++i) {
      double acc = 0.0;
      for (int q = 0; q < 6; ++q) acc += Aw[i][q] * V[q];
      P[i] = acc;
    }
    double w0 = V[3], w1 = V[4], w2 = V[5];
    for (int i = 0; i < 3; ++i) {
      double acc = 0.0, acc2 = 0.0;
      for (int q = 0; q < 6; ++q) {
        acc += Aw[i][q] * bias[q];
        acc2 += Aw[3 + i][q] * bias[q];
      }
      F[i] = -acc;
      T[i] = -acc2;
    }
    // - w x P_lin ; - w x H - v x P_lin
    F[0] -= w1 * P[2] - w2 * P[1];
    F[1] -= w2 * P[0] - w0 * P[2];
    F[2] -= w0 * P[1] - w1 * P[0];
    T[0] -= (w1 * P[5] - w2 * P[4]) + (V[1] * P[2] - V[2] * P[1]);
    T[1] -= (w2 * P[3] - w0 * P[5]) + (V[2] * P[0] - V[0] * P[2]);
    T[2] -= (w0 * P[4] - w1 * P[3]) + (V[0] * P[1] - V[1] * P[0]);
    // generalized force J^T (F, T)
    for (int64_t kk = 0; kk < nd; ++kk) {
      int64_t j = ch[kk];
      double q = 0.0;
      for (int i = 0; i < 3; ++i) q += J[i * nd + kk] * F[i] + J[(3 + i) * nd + kk] * T[i];
      d.qfrc_passive[j] += q;
      o_.qmine[j] += q;
    }
  }
}

#undef AURGEN_APPLY
#undef AURGEN_POINTVEL
#undef AURGEN_FLUSH

}  // namespace aurgen::core
