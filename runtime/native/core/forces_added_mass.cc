// The force stage's added mass (forces.h AddedMass): the mass-matrix term J' A_w J, the
// Kirchhoff wrench of each item (Wrench; relative to the water in a current), and the terms
// of its submerged fraction changing (SurfaceTerms).
#include "forces.h"

#include "forces_util.h"

namespace aurgen::core {

// The added-mass terms of an item's submerged fraction s(q) (Lagrange: T = 1/2 qdot' (M + s
// K(q)) qdot, K = J' A1 J, A1 = Aw1 its unscaled world matrix at p): -sdot A1 V at p and
// 1/2 (V' A1 V) grad s, added to the wrench (F, T) at p.  A geom item's s is its geom's own
// fraction sum_c rho_c V_c / Vg; a declared (body) item's is its weld group's, sum over the
// group's displacement geoms k of sum_c rho_c V_kc / (rho_max Vw).  Crossing cell c's one face
// n.x <= d with section area A_kc changes s by -rho_c A_kc / den (n . v(x_kc)) per unit time
// (den = Vg, or rho_max Vw), x_kc the section's centroid (a force -rho_c A_kc / den n at x_kc
// is grad s); for an ellipsoid of centre x0 and semi-axes a (R a2 R'), x_kc = x0 + t Q n /
// (n' Q n), Q = R diag(a^2) R', t = d - n.x0 (exact for a sphere or an ellipsoid; other shapes
// use the ellipsoid of their sizes, about the geom's full-volume centroid for a body item).
// Pieces cut by several planes (area nan) or not cut (area 0) add nothing: a geom wholly in
// one cell keeps its bits.
bool ForceStage::Crosses(int64_t k) const {
  for (int c = 0; c < nc_; ++c) {
    const double A = o_.areas[Piece(static_cast<int>(k), c)];
    if (A > 0.0 && one_[c] == 1) return true;
  }
  return false;
}

// Geom k's crossings (SurfaceTerms): sdot += its rate, (F, T) += the grad-s forces at the section
// centroids, torques about p; the ellipsoid's centre x0 and frame Rg, off = x0 - p (null: x0 is p).
void ForceStage::Crossings(int64_t k, const double Rg[3][3], const double x0[3], const double* off,
                           double den, const double V[6], double ke1, double* sdot, double F[3],
                           double T[3]) {
  const Geom& g = m_.geoms[k];
  double a2[3];  // the semi-axes squared
  const double* sz = g.size;
  switch (g.type) {
    case kSphere: a2[0] = a2[1] = a2[2] = sz[0] * sz[0]; break;
    case kCylinder: a2[0] = a2[1] = sz[0] * sz[0]; a2[2] = sz[1] * sz[1]; break;
    case kCapsule: a2[0] = a2[1] = sz[0] * sz[0]; a2[2] = (sz[0] + sz[1]) * (sz[0] + sz[1]); break;
    default: for (int a = 0; a < 3; ++a) a2[a] = sz[a] * sz[a];
  }
  for (int c = 0; c < nc_; ++c) {
    const double A = o_.areas[Piece(static_cast<int>(k), c)];
    if (!(A > 0.0) || one_[c] != 1) continue;
    const double* pl = m_.Planes(c) + 4 * static_cast<int64_t>(onesg_[c]);
    const double t = pl[3] - (pl[0] * x0[0] + pl[1] * x0[1] + pl[2] * x0[2]);
    double u[3], w[3];
    ToFrame(&Rg[0][0], pl, u);
    double nqn = 0.0;
    for (int a = 0; a < 3; ++a) {
      w[a] = a2[a] * u[a];
      nqn += u[a] * w[a];
    }
    double r[3];  // x_c - p, world
    for (int a = 0; a < 3; ++a) r[a] = t * (Rg[a][0] * w[0] + Rg[a][1] * w[1] + Rg[a][2] * w[2]) / nqn;
    if (off)
      for (int a = 0; a < 3; ++a) r[a] += off[a];
    const double coef = -m_.cells[c].rho * A / den;
    const double vx = V[0] + V[4] * r[2] - V[5] * r[1], vy = V[1] + V[5] * r[0] - V[3] * r[2],
                 vz = V[2] + V[3] * r[1] - V[4] * r[0];
    *sdot += coef * (pl[0] * vx + pl[1] * vy + pl[2] * vz);
    const double f = 0.5 * ke1 * coef;
    const double Fc[3] = {f * pl[0], f * pl[1], f * pl[2]};
    for (int a = 0; a < 3; ++a) F[a] += Fc[a];
    T[0] += r[1] * Fc[2] - r[2] * Fc[1];
    T[1] += r[2] * Fc[0] - r[0] * Fc[2];
    T[2] += r[0] * Fc[1] - r[1] * Fc[0];
  }
}

void ForceStage::SurfaceTerms(const ForceData& d, const AddedMass& item, const double Rb[3][3],
                              const double p[3], const double Aw1[6][6], const double V[6], double F[3],
                              double T[3]) {
  const bool geom = item.kind == AddedMass::Kind::kGeom;
  double den = 0.0;  // the fraction's denominator (geom: its volume; body: rho_max Vw)
  bool any = false;
  if (geom) {
    any = Crosses(item.geom);
  } else {
    if (item.group < 0 || !(rho_max_ > 0.0) || !(m_.weld_volume[item.group] > 0.0)) return;
    den = rho_max_ * m_.weld_volume[item.group];
    for (int64_t k = 0; k < ng_ && !any; ++k)
      any = m_.geoms[k].weld == item.group && m_.geoms[k].mark == Mark::kDisplacement && Crosses(k);
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
  double sdot = 0.0;
  if (geom) {
    Crossings(item.geom, Rb, p, nullptr, m_.geoms[item.geom].volume, V, ke1, &sdot, F, T);
  } else {
    for (int64_t k = 0; k < ng_; ++k) {
      const Geom& g = m_.geoms[k];
      if (g.weld != item.group || g.mark != Mark::kDisplacement || !Crosses(k)) continue;
      const double* xp = d.geom_xpos + 3 * g.id;
      const double* xm = d.geom_xmat + 9 * g.id;
      double Rg[3][3], x0[3], off[3];
      for (int a = 0; a < 3; ++a) {
        for (int c2 = 0; c2 < 3; ++c2) Rg[a][c2] = xm[3 * a + c2];
        x0[a] = xp[a] + (xm[3 * a] * g.centre[0] + xm[3 * a + 1] * g.centre[1] + xm[3 * a + 2] * g.centre[2]);
        off[a] = x0[a] - p[a];
      }
      Crossings(k, Rg, x0, off, den, V, ke1, &sdot, F, T);
    }
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
// P_lin), P = Aw V, and the surface terms of its submerged fraction; relative to the water or, given the
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
  SurfaceTerms(d, item, Rb, p, Aw1, V, F, T);
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
    // difference is work the flow does, booked with the drag's; aurgen.runtime.sim.health)
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
