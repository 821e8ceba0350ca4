// The health ledger; see ledger.h.  Same operations, in the same order, as the
// reference implementation it replaced (runtime/sim/health.py ledger_step in numba,
// now tests/runtime/numba_oracle/ledger.py).
#include "ledger.h"

#include <algorithm>
#include <cmath>

#include "forces.h"

namespace aurgen::core {

namespace {
bool IsCount(double x, double max) { return x >= 0.0 && x <= max && x == std::floor(x); }
}  // namespace

int LedgerStateError(const double* st) {
  if (!IsCount(st[kSN], kMaxSteps)) return kSN;
  const double bad = st[kSBad];
  if (!IsCount(bad, kBadLast)) return kSBad;
  if (bad == kBadState && !IsCount(st[kSBadSlot], 2147483647.0)) return kSBadSlot;
  if (bad != kBadNone) return -1;  // an invalid run keeps what it had (NaN energies included)
  for (int s : {kSE0, kSW, kSScale, kSEMin, kSRes, kSE, kSResMax})
    if (!std::isfinite(st[s])) return s;
  if (!(st[kSScale] >= 0.0)) return kSScale;
  return -1;
}

int ContactStateError(const double* cs, int nbody) {
  for (int s : {kCRatio, kCDepth, kCSize, kCWorkMax, kCRest, kCImpact, kCEpisodeKE})
    if (!(std::isfinite(cs[s]) && cs[s] >= 0.0)) return s;
  for (int s : {kCTime, kCWork, kCWorkTime})
    if (!std::isfinite(cs[s])) return s;
  for (int s : {kCBody, kCWorkBody})
    if (!IsCount(cs[s], nbody - 1.0)) return s;
  return -1;
}

void ContactPenetration(double* cs, double* st, double depth, double size, double rest, double impact,
                        int body, double t) {
  if (st[kSBad] != kBadNone || !(depth > 0.0 && size > 0.0)) return;
  if (!(std::isfinite(rest) && rest > 0.0)) rest = 0.0;
  if (!(std::isfinite(impact) && impact > 0.0)) impact = 0.0;
  const double ratio = depth / std::max({size, kRestScale * rest, kImpactScale * impact});
  if (!(ratio > cs[kCRatio])) return;
  cs[kCRatio] = ratio;
  cs[kCDepth] = depth;
  cs[kCSize] = size;
  cs[kCRest] = rest;
  cs[kCImpact] = impact;
  cs[kCTime] = t;
  cs[kCBody] = body;
  if (ratio >= kPenFail) {
    st[kSBad] = kBadPenetration;
    st[kSBadTime] = t;
  }
}

void ContactEpisodeEnergy(double* cs, double ke, bool any, double dt) {
  if (!any) {
    cs[kCEpisodeKE] = 0.0;
    return;
  }
  const double kept = cs[kCEpisodeKE] * std::exp(-std::max(dt, 0.0) / kImpactMemory);
  cs[kCEpisodeKE] = std::isfinite(ke) && ke > kept ? ke : kept;
}

void ContactWork(double* cs, double* st, double W, int body, bool any, double t) {
  if (st[kSBad] != kBadNone) return;
  if (!any) {
    cs[kCWork] = 0.0;
    return;
  }
  cs[kCWork] += W;
  if (!std::isfinite(cs[kCWork])) {
    st[kSBad] = kBadNonFinite;
    st[kSBadTime] = t;
    return;
  }
  if (cs[kCWork] > cs[kCWorkMax]) {
    cs[kCWorkMax] = cs[kCWork];
    cs[kCWorkTime] = t;
    cs[kCWorkBody] = body;
  }
  const double tol = kEnergyRtol * st[kSScale] + kEnergyAtol * (1.0 + std::fabs(st[kSE0]));
  if (cs[kCWork] > tol) {
    st[kSBad] = kBadContactEnergy;
    st[kSBadTime] = t;
  }
}

void MarkInvalidState(double* st, int where, double t) {
  for (int i = 0; i < kNState; ++i) st[i] = 0.0;
  st[kSBad] = kBadState;
  st[kSBadTime] = t;
  st[kSBadSlot] = where;
}

void LedgerStep(double* st, double E, double ke, double W, double dt, double t,
                const double* qpos, int64_t nq, const double* qvel, const double* qacc,
                int64_t nv, double z, double* zbuf, int64_t nz, double allow) {
  if (int e = LedgerStateError(st); e >= 0) MarkInvalidState(st, e, t);
  if (st[kSBad] == 0.0) {
    const double* arrs[3] = {qpos, qvel, qacc};
    const int64_t lens[3] = {nq, nv, nv};
    for (int a = 0; a < 3; ++a)
      for (int64_t i = 0; i < lens[a]; ++i)
        if (!std::isfinite(arrs[a][i])) {
          st[kSBad] = 1.0;
          st[kSBadTime] = t;
          break;
        }
  }
  int64_t n = static_cast<int64_t>(st[kSN]);
  if (n == 0) {
    st[kSE0] = E;
    st[kSEMin] = E;
    st[kSW] = 0.0;
  }
  if (E < st[kSEMin]) st[kSEMin] = E;
  double res = E - st[kSE0] - st[kSW];
  st[kSRes] = res;
  if (res > st[kSResMax]) st[kSResMax] = res;
  st[kSE] = E;
  double scale = st[kSScale];
  if (ke > scale) scale = ke;
  double drop = st[kSE0] - st[kSEMin];
  if (drop > scale) scale = drop;
  if (std::fabs(st[kSW]) > scale) scale = std::fabs(st[kSW]);
  st[kSScale] = scale;
  if (st[kSBad] == 0.0 && std::isfinite(res)) {
    double tol = kEnergyRtol * scale + allow + kEnergyAtol * (1.0 + std::fabs(st[kSE0]));
    if (res > tol && n > 0) {
      st[kSBad] = 2.0;
      st[kSBadTime] = t;
    }
  } else if (st[kSBad] == 0.0) {
    st[kSBad] = 1.0;
    st[kSBadTime] = t;
  }
  (void)dt;
  st[kSW] += W;
  if (st[kSBad] == 0.0 && !std::isfinite(st[kSW])) {  // non-finite work: no verdict could follow
    st[kSBad] = 1.0;
    st[kSBadTime] = t;
  }
  zbuf[n % nz] = z;
  st[kSN] = static_cast<double>(n + 1);
}

namespace {
// The power (W) of the applied Cartesian wrenches xfrc (at each body's CoM) at the body
// velocities cvel, added to P.
double XfrcPower(double P, const double* xfrc, const double* cvel, const double* xipos,
                 const double* scom, const int64_t* broot, int64_t nb) {
  for (int64_t b = 1; b < nb; ++b) {
    const double* f = xfrc + 6 * b;
    if (f[0] == 0.0 && f[1] == 0.0 && f[2] == 0.0 && f[3] == 0.0 && f[4] == 0.0 && f[5] == 0.0)
      continue;
    int64_t r = broot[b];
    double dx = xipos[3 * b] - scom[3 * r], dy = xipos[3 * b + 1] - scom[3 * r + 1];
    double dz = xipos[3 * b + 2] - scom[3 * r + 2];
    const double* c = cvel + 6 * b;
    double w0 = c[0], w1 = c[1], w2 = c[2];
    double v0 = c[3] + w1 * dz - w2 * dy;
    double v1 = c[4] + w2 * dx - w0 * dz;
    double v2 = c[5] + w0 * dy - w1 * dx;
    P += f[0] * v0 + f[1] * v1 + f[2] * v2 + f[3] * w0 + f[4] * w1 + f[5] * w2;
  }
  return P;
}
}  // namespace

double Power(const double* q0, const double* qa, const double* qap, const double* qc,
             const double* qp, const double* qmine, int64_t nv, const double* xfrc,
             const double* cvel, const double* xipos, const double* scom, const int64_t* broot,
             int64_t nb) {
  double P = 0.0;
  for (int64_t i = 0; i < nv; ++i) P += (qa[i] + qap[i] + qc[i] + qp[i] - qmine[i]) * q0[i];
  return XfrcPower(P, xfrc, cvel, xipos, scom, broot, nb);
}

void RK4Stage(double* rk, int k, double dt, const StepArrays& a) {
  k = k < 0 ? 0 : (k > 3 ? 3 : k);
  double* v = rk + 1;
  if (k <= 0) {
    rk[0] = 0.0;
  } else {  // the previous stage's actuator and constraint forces, at its velocity
    double P = 0.0;
    for (int64_t i = 0; i < a.nv; ++i) P += (a.qa[i] + a.qc[i]) * v[i];
    rk[0] += dt * kRK4B[k - 1] * P;
  }
  double P = 0.0;
  for (int64_t i = 0; i < a.nv; ++i) P += (a.qap[i] + a.qp[i] - a.qmine[i] + a.qdrag[i]) * a.qvel[i];
  P = XfrcPower(P, a.xfrc, a.cvel, a.xipos, a.scom, a.broot, a.nb);
  rk[0] += dt * kRK4B[k] * P;
  for (int64_t i = 0; i < a.nv; ++i) v[i] = a.qvel[i];
}

double StepWork(const StepArrays& a, double dt, double* allow) {
  if (allow) *allow = 0.0;
  if (a.mdv) {
    double W = 0.0, pc = 0.0;
    for (int64_t i = 0; i < a.nv; ++i) {
      const double fc = a.qmine[i] - a.qdrag[i] - a.qbias[i];
      W += (a.mdv[i] - dt * fc) * (0.5 * (a.q0[i] + a.qvel[i]));
      pc += fc * a.q0[i];
    }
    if (allow) *allow = 0.5 * dt * std::fabs(pc);
    return W;
  }
  if (a.rkw) {  // RK4: the stages' work and the last stage's actuator and constraint work
    double P = 0.0;
    for (int64_t i = 0; i < a.nv; ++i) P += (a.qa[i] + a.qc[i]) * a.rkv[i];
    return *a.rkw + dt * kRK4B[3] * P;
  }
  double P = a.led[kLPDrag] + Power(a.q0, a.qa, a.qap, a.qc, a.qp, a.qmine, a.nv, a.xfrc, a.cvel,
                                    a.xipos, a.scom, a.broot, a.nb);
  return P * dt;
}

void Account(double* st, const StepArrays& a, double dt, double t, int64_t tb, double* zbuf,
             int64_t nz) {
  double allow = 0.0;
  double W = StepWork(a, dt, &allow);
  double E = a.led[kLKE] + a.led[kLUGrav] + a.led[kLUBuoy];
  LedgerStep(st, E, a.led[kLKE], W, dt, t, a.qpos, a.nq, a.qvel, a.qacc, a.nv, a.xipos[3 * tb + 2],
             zbuf, nz, allow);
}

void AccountPlain(double* st, const StepArrays& a, double dt, double t, int64_t tb, double* zbuf,
                  int64_t nz) {
  LedgerStep(st, 0.0, 0.0, 0.0, dt, t, a.qpos, a.nq, a.qvel, a.qacc, a.nv, a.xipos[3 * tb + 2], zbuf,
             nz);
}

}  // namespace aurgen::core
