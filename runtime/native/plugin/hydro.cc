// aurgen.hydrostatics' instance at work (hydro.h): each evaluation (Compute), each step's
// account (Advance, Contacts), the state's checks and reset (Validate, Reset), and the
// centre of buoyancy drawn (Visualize).  Its config and creation: config.cc; the model
// scan: build.cc; the environment: environment.cc; registration: register.cc.
#include "hydro.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace aurgen::hydro {
namespace {

constexpr float kCobRgba[4] = {0.15f, 0.45f, 1.0f, 1.0f};  // centre of buoyancy (Visualize)
constexpr float kTroughRgba[4] = {0.02f, 0.16f, 0.32f, 0.7f};  // a sea's surface (DrawSea): troughs
constexpr float kCrestRgba[4] = {0.55f, 0.78f, 0.9f, 0.7f};    // to crests
constexpr int kSeaGroup = 2;      // the geom group the worlds' surface plane is in: its switch
constexpr int kSeaMaxCells = 48;  // cells along a side of the drawn sea, at most
constexpr int kSeaSpare = 16;     // scene geoms left for others

}  // namespace

core::StepArrays Hydro::StageArrays(const mjModel* m, const mjData* d) const {
  core::StepArrays a;
  a.qa = d->qfrc_actuator;
  a.qap = d->qfrc_applied;
  a.qc = d->qfrc_constraint;
  a.qp = d->qfrc_passive;
  a.xfrc = d->xfrc_applied;
  a.cvel = d->cvel;
  a.xipos = d->xipos;
  a.scom = d->subtree_com;
  a.qpos = d->qpos;
  a.qvel = d->qvel;
  a.qacc = d->qacc;
  a.broot = broot_.data();
  a.nv = m->nv;
  a.nq = m->nq;
  a.nb = m->nbody;
  return a;
}

void Hydro::Validate(const mjModel* m, const mjData* d, double* st) const {
  const int first = StateError(st, L_, m->nbody);
  if (first < 0) return;
  // repair region by region, each to a value StateError accepts (a NaN d->time, set between steps,
  // is no recorded time: 0), so each pass clears one; bounded all the same, then a reset's values
  int passes = L_.size;
  int e = first;
  for (; e >= 0 && passes-- > 0; e = StateError(st, L_, m->nbody)) {
    if (e == L_.record) st[L_.record] = 1;
    else if (e == L_.rkstage) st[L_.rkstage] = 0;
    else if (e == L_.trec) st[L_.trec] = std::isfinite(d->time) ? d->time : 0.0;
    else if (e == L_.track) st[L_.track] = track_;
    else if (e >= L_.contact && e < L_.contact + core::kNContact)
      std::fill(st + L_.contact, st + L_.contact + core::kNContact, 0.0);
    else if (e >= L_.tally) std::fill(st + L_.tally, st + L_.tally + kNTally, 0.0);
    else core::MarkInvalidState(st + L_.ledger, e, d->time);
  }
  if (e >= 0) Reset(m, st);
  core::MarkInvalidState(st + L_.ledger, first, d->time);
}

void Hydro::Compute(const mjModel* m, mjData* d, int instance) {
  mjtNum* st = d->plugin_state + m->plugin_stateadr[instance];
  Validate(m, d, st);
  if (plain_) return;  // no environment: no forces
  core::ForceData fd;
  fd.time = d->time;
  fd.qvel = d->qvel;
  fd.geom_xpos = d->geom_xpos;
  fd.geom_xmat = d->geom_xmat;
  fd.xpos = d->xpos;
  fd.xmat = d->xmat;
  fd.xipos = d->xipos;
  fd.ximat = d->ximat;
  fd.cdof = d->cdof;
  fd.cdof_dot = d->cdof_dot;
  fd.subtree_com = d->subtree_com;
  fd.cvel = d->cvel;
  fd.qfrc_passive = d->qfrc_passive;
  fd.M = d->M;
  // every evaluation records but Runge-Kutta's inner stages (see Compute in hydro.h)
  bool record = st[L_.record] != 0 || m->opt.integrator != mjINT_RK4 || d->time == st[L_.trec];
  // RK4: every stage keeps its drag and damping (qdrag) for the stage's work (the force stage's
  // forces do not depend on the flag, only what it records besides them)
  const bool rk4 = m->opt.integrator == mjINT_RK4;
  stage_->SetBodyArrays(m->body_mass, m->body_inertia);  // live: users edit them between steps
  stage_->Passive(fd, record || rk4);
  if (record) {
    for (int i = 0; i < core::kNLed; ++i) st[L_.led + i] = led_[i];
    st[L_.record] = 0;
    for (int i = 0; i < m->nv; ++i) st[L_.q0 + i] = d->qvel[i];
    for (int i = 0; i < m->nv; ++i) st[L_.qdrag + i] = qdrag_[i];
    st[L_.trec] = d->time;
  }
  for (int i = 0; i < m->nv; ++i) st[L_.mine + i] = qmine_[i];
  if (rk4) {  // the stage's share of the step's work (core/ledger.h RK4Stage)
    const int k = record ? 0 : std::min(3, static_cast<int>(st[L_.rkstage]) + 1);
    core::StepArrays a = StageArrays(m, d);
    a.qmine = qmine_.data();
    a.qdrag = qdrag_.data();
    core::RK4Stage(st + L_.rk, k, m->opt.timestep, a);
    st[L_.rkstage] = k;
  }
  if (has_added_) mj_factorM(m, d);
}

void Hydro::Advance(const mjModel* m, mjData* d, int instance) {
  mjtNum* st = d->plugin_state + m->plugin_stateadr[instance];
  Validate(m, d, st);
  // MuJoCo's state resets in this step: counted, their counters re-armed
  double* ty = st + L_.tally;
  constexpr int kinds[3] = {mjWARN_BADQPOS, mjWARN_BADQVEL, mjWARN_BADQACC};
  // each of MuJoCo's resets in this step left a warning (a later reset in the
  // same step can clear an earlier one's; the tally then counts fewer); without
  // auto-reset a warning is no reset.  mj_resetData with no reset in the step
  // is the user's: a new run.  (A user reset directly followed by a step MuJoCo
  // resets is taken for MuJoCo's: the old run's tally carries on.)
  const bool autoreset = !(m->opt.disableflags & mjDSBL_AUTORESET);
  int resets = 0;
  for (int k = 0; k < 3 && autoreset; ++k) {
    int n = d->warning[kinds[k]].number;
    if (n <= 0) continue;
    resets += n;
    ty[kTQpos + k] += n;
    if (ty[kTFirstKind] == 0) {
      ty[kTFirstKind] = 1 + k;
      ty[kTFirstTime] = ty[kTLast];
    }
    d->warning[kinds[k]].number = 0;
  }
  if (resets > 0) {
    ty[kTResets] += resets;
    ty[kTReached] = std::max(ty[kTReached], ty[kTLast]);
  } else if (ty[kTPending] != 0) {  // mj_resetData by the user: a new run
    for (int i = 0; i < kNTally; ++i) ty[i] = 0.0;
  }
  ty[kTPending] = 0;
  ty[kTLast] = d->time;
  // the step's account: the evaluation recorded at its start, the state after it
  const int tb = static_cast<int>(st[L_.track]);  // in [0, nbody) (Validate)
  core::StepArrays a = StageArrays(m, d);
  a.led = st + L_.led;
  a.q0 = st + L_.q0;
  a.qmine = st + L_.mine;
  if (!plain_ && m->opt.integrator == mjINT_RK4) {  // RK4's stages (core/ledger.h RK4Stage)
    a.rkw = st + L_.rk;
    a.rkv = st + L_.rk + 1;
  }
  if (!plain_ && m->opt.integrator != mjINT_RK4) {  // the exact rule (core/ledger.h StepWork)
    for (int i = 0; i < m->nv; ++i) dv_[i] = d->qvel[i] - st[L_.q0 + i];
    mj_mulM(m, d, mdv_.data(), dv_.data());
    a.qbias = d->qfrc_bias;
    a.qdrag = st + L_.qdrag;
    a.mdv = mdv_.data();
  }
  if (plain_)  // no environment: the state checks and the height only
    core::AccountPlain(st + L_.ledger, a, m->opt.timestep, d->time, tb, st + L_.zbuf, L_.nz);
  else
    core::Account(st + L_.ledger, a, m->opt.timestep, d->time, tb, st + L_.zbuf, L_.nz);
  Contacts(m, d, st);
  st[L_.record] = 1;
}

namespace {
// A geom's size for the penetration check (m): its smallest half-extent (sphere and capsule
// radius; cylinder min(radius, half-length); box and ellipsoid the smallest semi-axis; mesh
// and SDF the smallest half-size of their bounding box); 0 for a plane or height field.
double GeomSize(const mjModel* m, int g) {
  if (g < 0 || g >= m->ngeom) return 0.0;
  const double* s = m->geom_size + 3 * g;
  switch (m->geom_type[g]) {
    case mjGEOM_SPHERE:
    case mjGEOM_CAPSULE: return s[0];
    case mjGEOM_CYLINDER: return std::min(s[0], s[1]);
    case mjGEOM_BOX:
    case mjGEOM_ELLIPSOID: return std::min({s[0], s[1], s[2]});
    case mjGEOM_MESH:
    case mjGEOM_SDF: {
      const double* h = m->geom_aabb + 6 * g + 3;
      return std::min({h[0], h[1], h[2]});
    }
    default: return 0.0;
  }
}
}  // namespace

void Hydro::Contacts(const mjModel* m, mjData* d, double* st) const {
  double* cs = st + L_.contact;
  double* led = st + L_.ledger;
  const double t = d->time;
  bool any = false;
  for (int i = 0; i < d->ncon; ++i) {
    const mjContact& c = d->contact[i];
    any |= c.exclude == 0 && c.efc_address >= 0;
  }
  if (any) {  // the model's kinetic energy 1/2 qvel' M qvel (J), the contact episode's largest kept
    if (kev_.size() < static_cast<size_t>(m->nv)) kev_.resize(m->nv);
    mj_mulM(m, d, kev_.data(), d->qvel);
    double ke = 0.0;
    for (int i = 0; i < m->nv; ++i) ke += 0.5 * d->qvel[i] * kev_[i];
    core::ContactEpisodeEnergy(cs, ke, true, m->opt.timestep);
  } else {
    core::ContactEpisodeEnergy(cs, 0.0, false, m->opt.timestep);
  }
  for (int i = 0; i < d->ncon; ++i) {  // the contacts of the step's evaluation
    const mjContact& c = d->contact[i];
    if (c.exclude != 0 && c.exclude != 4) continue;
    if (!(c.dist < 0.0)) continue;
    double size = 0.0;
    for (int k = 0; k < 2; ++k) {
      const double sz = GeomSize(m, c.geom[k]);
      if (sz > 0.0 && (size == 0.0 || sz < size)) size = sz;
    }
    const double comp = Compliance(m, d, c);
    const double rest = comp * TreeWeight(m, d, ContactBody(m, c));
    const double impact = rest + std::sqrt(rest * rest + 2.0 * comp * cs[core::kCEpisodeKE]);
    core::ContactPenetration(cs, led, -c.dist, size, rest, impact, ContactBody(m, c), t);
  }
  if (plain_) return;  // no energy ledger: no contact work
  if (!any) {
    core::ContactWork(cs, led, 0.0, 0, false, t);
    return;
  }
  // the contact rows' work over the step: efc_force . J (q0 + qvel) / 2 dt, per contact
  const double* q0 = st + L_.q0;
  for (int i = 0; i < m->nv; ++i) vbar_[i] = 0.5 * (q0[i] + d->qvel[i]);
  // a buffer of the instance's own (grown, never shrunk): MuJoCo's stack markers are macros that a
  // sanitized build maps to symbols the released library does not export (mj__markStack)
  if (jv_.size() < static_cast<size_t>(std::max(d->nefc, 1))) jv_.resize(std::max(d->nefc, 1));
  mjtNum* jv = jv_.data();
  mj_mulJacVec(m, d, jv, vbar_.data());
  double W = 0.0, best = -std::numeric_limits<double>::infinity();
  int body = 0;
  const bool pyramidal = m->opt.cone == mjCONE_PYRAMIDAL;
  for (int i = 0; i < d->ncon; ++i) {
    const mjContact& c = d->contact[i];
    if (c.exclude != 0 || c.efc_address < 0) continue;
    const int rows = c.dim == 1 ? 1 : (pyramidal ? 2 * (c.dim - 1) : c.dim);
    double w = 0.0;
    for (int r = c.efc_address; r < c.efc_address + rows && r < d->nefc; ++r) w += d->efc_force[r] * jv[r];
    w *= m->opt.timestep;
    W += w;
    if (w > best) {
      best = w;
      body = ContactBody(m, c);
    }
  }
  core::ContactWork(cs, led, W, body, true, t);
}

double Hydro::Compliance(const mjModel* m, const mjData* d, const mjContact& c) {
  const int a = c.efc_address;
  if (c.exclude != 0 || a < 0 || a >= d->nefc) return 0.0;
  const double K = d->efc_KBIP[4 * a], I = d->efc_KBIP[4 * a + 2], R = d->efc_R[a];
  if (!(K > 0.0 && I > 0.0 && R > 0.0)) return 0.0;
  const int n = c.dim == 1 || m->opt.cone != mjCONE_PYRAMIDAL ? 1 : 2 * (c.dim - 1);
  return R / (n * K * I);
}

double Hydro::TreeWeight(const mjModel* m, const mjData* d, int body) const {
  const int root = m->body_rootid[body];
  double g[3] = {m->opt.gravity[0], m->opt.gravity[1], m->opt.gravity[2]};
  if (stage_ && stage_->model().gravity.Applied()) stage_->model().gravity.At(d->subtree_com + 3 * root, g);
  return m->body_subtreemass[root] * std::sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
}

int Hydro::ContactBody(const mjModel* m, const mjContact& c) {
  int b[2] = {0, 0};
  for (int k = 0; k < 2; ++k)
    if (c.geom[k] >= 0 && c.geom[k] < m->ngeom) b[k] = m->geom_bodyid[c.geom[k]];
  return m->body_weldid[b[0]] == 0 ? b[1] : b[0];
}

void Hydro::Reset(const mjModel* m, mjtNum* state) const {
  (void)m;
  double tally[kNTally];
  std::copy(state + L_.tally, state + L_.tally + kNTally, tally);
  std::fill(state, state + L_.size, 0.0);
  std::copy(tally, tally + kNTally, state + L_.tally);
  state[L_.tally + kTPending] = 1;
  state[L_.record] = 1;
  state[L_.track] = track_;
}

void Hydro::Visualize(const mjModel* m, const mjData* d, const mjvOption* opt, mjvScene* scn) const {
  if (plain_) return;
  if (stage_->model().sea.active && opt->geomgroup[kSeaGroup]) DrawSea(m, d, scn);
  if (!opt->flags[mjVIS_COM]) return;
  const core::ForceModel& M = stage_->model();
  const int ng = static_cast<int>(M.geoms.size()), nc = static_cast<int>(M.cells.size());
  std::vector<double> acc(4 * static_cast<size_t>(m->nbody), 0.0);  // per root: sum w, sum w x
  for (int k = 0; k < ng; ++k) {
    if (M.geoms[k].mark != core::Mark::kDisplacement) continue;
    const int root = m->body_rootid[M.geoms[k].body];
    for (int c = 0; c < nc; ++c) {
      const double w = M.cells[c].rho * vols_[k * nc + c];
      if (!(w > 0.0)) continue;
      const double* x = cents_.data() + 3 * (static_cast<size_t>(k) * nc + c);
      acc[4 * root] += w;
      for (int a = 0; a < 3; ++a) acc[4 * root + 1 + a] += w * x[a];
    }
  }
  const mjtNum r = m->vis.scale.com * m->stat.meansize;
  const mjtNum size[3] = {r, r, r};
  for (int b = 0; b < m->nbody; ++b) {
    if (!(acc[4 * b] > 0.0)) continue;
    if (scn->ngeom >= scn->maxgeom) return;  // a full scene: nothing more
    const mjtNum pos[3] = {acc[4 * b + 1] / acc[4 * b], acc[4 * b + 2] / acc[4 * b],
                           acc[4 * b + 3] / acc[4 * b]};
    mjvGeom* g = scn->geoms + scn->ngeom++;
    mjv_initGeom(g, mjGEOM_SPHERE, size, pos, nullptr, kCobRgba);
    g->category = mjCAT_DECOR;
    g->objtype = mjOBJ_BODY;
    g->objid = b;
  }
}

// The sea's elevation drawn as triangles (mjGEOM_TRIANGLE: the corner, its two legs along the
// geom frame's x and y) on a square grid in the surface plane, centred on the floating bodies'
// mean position (the model's centre where none floats), half-size 10 m plus twice their spread
// (at most 200 m), with as many cells as the scene's free geoms allow (at most kSeaMaxCells a side,
// kSeaSpare geoms left): each vertex at the mean level plus the elevation the forces use
// (core::Sea::Elevation, the ramp included), each cell two triangles facing up, coloured from trough
// to crest by their mean elevation over twice the sea's standard deviation (sqrt(sum a^2 / 2)).
void Hydro::DrawSea(const mjModel* m, const mjData* d, mjvScene* scn) const {
  const core::Sea& sea = stage_->model().sea;
  const int budget = (scn->maxgeom - scn->ngeom - kSeaSpare) / 2;
  int n = std::min(kSeaMaxCells, static_cast<int>(std::sqrt(std::max(budget, 0))));
  if (n < 2) return;
  // the plane's frame: up = sea.n, u and v across it
  const double* up = sea.n;
  int least = 0;
  for (int a = 1; a < 3; ++a)
    if (std::fabs(up[a]) < std::fabs(up[least])) least = a;
  double e[3] = {0.0, 0.0, 0.0};
  e[least] = 1.0;
  double u[3] = {up[1] * e[2] - up[2] * e[1], up[2] * e[0] - up[0] * e[2], up[0] * e[1] - up[1] * e[0]};
  const double un = std::sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
  for (double& c : u) c /= un;
  const double v[3] = {up[1] * u[2] - up[2] * u[1], up[2] * u[0] - up[0] * u[2], up[0] * u[1] - up[1] * u[0]};
  // the centre and the half-size: the roots carrying displacement geoms
  const core::ForceModel& M = stage_->model();
  std::vector<char> floats(static_cast<size_t>(m->nbody), 0);
  for (const core::Geom& g : M.geoms)
    if (g.mark == core::Mark::kDisplacement) floats[m->body_rootid[g.body]] = 1;
  double c[3] = {0.0, 0.0, 0.0};
  int nf = 0;
  for (int b = 1; b < m->nbody; ++b)
    if (floats[b]) {
      for (int a = 0; a < 3; ++a) c[a] += d->xpos[3 * b + a];
      ++nf;
    }
  if (nf == 0)
    for (int a = 0; a < 3; ++a) c[a] = m->stat.center[a];
  else
    for (double& x : c) x /= nf;
  double spread = 0.0;
  for (int b = 1; b < m->nbody; ++b)
    if (floats[b]) {
      double r2 = 0.0;
      for (int a = 0; a < 3; ++a) r2 += (d->xpos[3 * b + a] - c[a]) * (d->xpos[3 * b + a] - c[a]);
      spread = std::max(spread, std::sqrt(r2));
    }
  const double half = std::min(10.0 + 2.0 * spread, 200.0), h = 2.0 * half / n;
  const double off = sea.d - (up[0] * c[0] + up[1] * c[1] + up[2] * c[2]);  // c onto the mean level
  for (int a = 0; a < 3; ++a) c[a] += off * up[a] - half * (u[a] + v[a]);
  // the vertices, row by row
  std::vector<double> P(3 * static_cast<size_t>(n + 1) * (n + 1)), H(static_cast<size_t>(n + 1) * (n + 1));
  double var = 0.0;
  for (const core::Wave& w : sea.waves) var += 0.5 * w.a * w.a;
  const double scale = var > 0.0 ? 0.25 / std::sqrt(var) : 0.0;  // 2 sigma: a half of the colour range
  for (int i = 0; i <= n; ++i)
    for (int j = 0; j <= n; ++j) {
      double x[3], eta = 0.0, grad[3];
      for (int a = 0; a < 3; ++a) x[a] = c[a] + i * h * u[a] + j * h * v[a];
      sea.Elevation(x, d->time, &eta, grad);
      if (!std::isfinite(eta)) eta = 0.0;
      H[static_cast<size_t>(i) * (n + 1) + j] = eta;
      for (int a = 0; a < 3; ++a) P[3 * (static_cast<size_t>(i) * (n + 1) + j) + a] = x[a] + eta * up[a];
    }
  auto at = [&](int i, int j) { return P.data() + 3 * (static_cast<size_t>(i) * (n + 1) + j); };
  auto height = [&](int i, int j) { return H[static_cast<size_t>(i) * (n + 1) + j]; };
  auto triangle = [&](const double* A, const double* B, const double* C, double eta) {
    double e1[3], e2[3], e3[3];
    for (int a = 0; a < 3; ++a) {
      e1[a] = B[a] - A[a];
      e2[a] = C[a] - A[a];
    }
    const double l1 = std::sqrt(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]);
    const double l2 = std::sqrt(e2[0] * e2[0] + e2[1] * e2[1] + e2[2] * e2[2]);
    for (int a = 0; a < 3; ++a) {
      e1[a] /= l1;
      e2[a] /= l2;
    }
    e3[0] = e1[1] * e2[2] - e1[2] * e2[1];
    e3[1] = e1[2] * e2[0] - e1[0] * e2[2];
    e3[2] = e1[0] * e2[1] - e1[1] * e2[0];
    const mjtNum size[3] = {l1, l2, 0.0}, pos[3] = {A[0], A[1], A[2]};
    const mjtNum mat[9] = {e1[0], e2[0], e3[0], e1[1], e2[1], e3[1], e1[2], e2[2], e3[2]};  // columns
    const double f = std::clamp(0.5 + scale * eta, 0.0, 1.0);
    float rgba[4];
    for (int a = 0; a < 4; ++a) rgba[a] = static_cast<float>(kTroughRgba[a] + f * (kCrestRgba[a] - kTroughRgba[a]));
    mjvGeom* g = scn->geoms + scn->ngeom++;
    mjv_initGeom(g, mjGEOM_TRIANGLE, size, pos, mat, rgba);
    g->category = mjCAT_DECOR;
  };
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {  // legs along u and v, then along -u and -v: both face up
      triangle(at(i, j), at(i + 1, j), at(i, j + 1), (height(i, j) + height(i + 1, j) + height(i, j + 1)) / 3);
      triangle(at(i + 1, j + 1), at(i, j + 1), at(i + 1, j),
               (height(i + 1, j + 1) + height(i, j + 1) + height(i + 1, j)) / 3);
    }
}

}  // namespace aurgen::hydro
