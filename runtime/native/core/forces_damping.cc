// The force stage's declared hydrodynamic damping (forces.h Damper; Fossen's form, at the
// body origin in body axes, relative to the local flow).
#include "forces.h"

#include <cmath>

#include "forces_util.h"

namespace aurgen::core {

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

}  // namespace aurgen::core
