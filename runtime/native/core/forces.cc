// The force stage; see forces.h.  A port of the numba reference implementation
// (tests/runtime/numba_oracle/forces.py, kept as the test oracle), mostly operation for
// operation, so the two agree to rounding (where they differ in order: forces_pieces.cc).
// This file: the model's CellAt, the stage's constructor, Passive (its sweeps, in order) and
// the projection of wrenches on the dofs (Project, ProjectDrag, Apply).  The sweeps:
// forces_pieces.cc (ClipCells, Pieces: buoyancy, drag, surface damping), forces_sea.cc (a
// sea's tangent planes, flow and Froude-Krylov forces), forces_gravity.cc (the gravity
// fields, BodyGravity), forces_damping.cc (declared damping), forces_added_mass.cc; their
// shared helpers forces_util.h.
#include "forces.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#include "forces_util.h"
#include "lanes.h"

namespace aurgen::core {
namespace {

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

}  // namespace

// ---------------------------------------------------------------- model records

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
  batches_ = lanes::W4Fast();
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
      const double cd = m_.geoms[k].cd;
      dcoef_[kDQ * S + si] = 0.5 * rho * cd;
      dcoef_[kDLin * S + si] = 3.0 * kPi * mu * deq;
      dcoef_[kDRot * S + si] = kPi * mu * Pow3(deq);
      dcoef_[kDRot2 * S + si] = rho * cd * Pow5(deq) / 64.0;
    }
  }
  // one drag per degree of freedom: a weld group's declared terms (its dampers' nonzero rows)
  // take those degrees of freedom from the drag model
  const int nwg = std::max(nw_, 1);
  wkeep_.assign(6 * static_cast<size_t>(nwg), 1.0);
  wmbody_.assign(nwg, -1);
  wmode_.assign(nwg, 0);
  for (const Damper& dm : m_.dampers) {
    if (dm.group < 0 || dm.group >= nw_) continue;
    if (wmbody_[dm.group] < 0) wmbody_[dm.group] = dm.body;
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j)
        if (dm.D[6 * i + j] != 0.0 || dm.Dq[6 * i + j] != 0.0) wkeep_[6 * dm.group + i] = 0.0;
  }
  for (int w = 0; w < nw_; ++w) {
    int kept = 0;
    for (int i = 0; i < 6; ++i) kept += wkeep_[6 * w + i] != 0.0;
    wmode_[w] = kept == 6 ? 0 : kept == 0 ? 2 : 1;
  }
  // the up direction of a uniform field (the model's g: fixed for the stage's life)
  const double* gg = m_.gravity.g;
  if (const double gn2 = gg[0] * gg[0] + gg[1] * gg[1] + gg[2] * gg[2]; gn2 > 0.0)
    for (int a = 0; a < 3; ++a) gup_[a] = gg[a] * (-1.0 / std::sqrt(gn2));
  // the cells' density, flow and pressure constant, each a column (lanes load two cells)
  crho_.assign(std::max(nc_, 1), 0.0);
  cP_.assign(std::max(nc_, 1), 0.0);
  cup_.assign(std::max(nc_, 1), 1.0);
  cflow_.assign(3 * std::max(nc_, 1), 0.0);
  for (int c = 0; c < nc_; ++c) {
    const Cell& cell = m_.cells[c];
    crho_[c] = cell.rho;
    cP_[c] = cell.p;
    cup_[c] = cell.gas ? -1.0 : 1.0;
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
    // the pieces' phases at their centroids, kept by SeaFlow for FroudeKrylovMoments
    const size_t nw = sea.waves.size();
    sphase_n_ = sea.fk_moments ? 3 * static_cast<int64_t>(nw) : 0;
    sphase_.assign(static_cast<size_t>(sphase_n_) * ng_ * nc_, 0.0);
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

}  // namespace aurgen::core
