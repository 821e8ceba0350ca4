// The health ledger: energy gained with no work done, non-finite state, and the
// height window for "settled" (see runtime/sim/health.py for the checks and the
// layout of the state vector st).
#ifndef AURGEN_CORE_LEDGER_H_
#define AURGEN_CORE_LEDGER_H_

#include <cstdint>

namespace aurgen::core {

// slots of the ledger state st (kNState doubles)
enum {
  kSE0 = 0, kSW = 1, kSScale = 2, kSEMin = 3, kSRes = 4, kSBad = 5, kSN = 6, kSE = 7,
  kSResMax = 8, kSBadTime = 9, kSKEMax = 10, kSBadSlot = 11, kNState = 12
};
// st[kSBad]: the verdict
enum {
  kBadNone = 0, kBadNonFinite = 1, kBadEnergy = 2, kBadState = 3,
  kBadPenetration = 4,    // a contact deeper than kPenFail x its geom size (ContactPenetration)
  kBadContactEnergy = 5,  // contacts did net positive work over one contact episode (ContactWork)
  kBadLast = 5
};
// The largest step count the ledger keeps (exact in a double).
inline constexpr double kMaxSteps = 9007199254740992.0;  // 2^53

// The first slot of a restored ledger state st that no step of LedgerStep can have left
// (a count that is not an integer in [0, 2^53], a verdict not in 0..3, an invalid slot's
// index not an integer in [0, 2^31), a non-finite energy, work, residual or scale or a
// negative scale while the verdict is ok), or -1.  Nothing but st is read.
int LedgerStateError(const double* st);
// A ledger that restarts (step count 0) with the verdict kBadState at time t (s), naming
// where (an index the caller defines: the plugin's state offset, else a slot of st).
void MarkInvalidState(double* st, int where, double t);
// flagged when E - E0 - W > kEnergyRtol scale + allow + kEnergyAtol (1 + |E0|): scale the
// largest kinetic energy, |work| or energy drop seen; allow (J) the integrator's own
// first-order energy offset at this step (StepWork)
inline constexpr double kEnergyRtol = 0.01;
inline constexpr double kEnergyAtol = 1e-9;

// ---- contact health: the slots of its state cs (kNContact doubles; plugin/state.h's
// contact region)
enum {
  kCRatio = 0,     // the deepest penetration seen, as a fraction of its geom size (>= 0)
  kCDepth = 1,     // its depth (m, -mjContact.dist)
  kCSize = 2,      // the geom size it is measured against (m, ContactSize)
  kCTime = 3,      // when (s)
  kCBody = 4,      // the body in that contact (the one not welded to the world, else geom 1's)
  kCWork = 5,      // J: the contact forces' work over the current contact episode
  kCWorkMax = 6,   // J: the largest kCWork seen (>= 0)
  kCWorkTime = 7,  // when (s)
  kCWorkBody = 8,  // the body of the contact that did the most work in that step
  kCRest = 9,      // the deepest contact's rest depth under its tree's weight (m, >= 0)
  kCImpact = 10,   // its impact depth for the episode's kinetic energy (m, >= 0)
  kCEpisodeKE = 11,  // J: the model's recent largest kinetic energy in the contact episode (decaying)
  kNContact = 12
};
// Penetration, judged by what MuJoCo's soft contact implies.  A contact row's steady state is
// R f = aref = -K I r (solref's K, solimp's impedance I, R from both), so a contact is a spring of
// compliance c = R / (n K I) (m/N; n rows share the normal force): carrying a weight W it rests at
// r_w = c W, and stopping a kinetic energy E it goes in at most r_e = sqrt(2 c E) (the undamped
// spring taking all of it).  Those are the depths its own model gives it, however small its geom (a
// thruster guard carrying an ROV, 3 mm into a 6 mm geom at landing).  A contact is measured against
// its scale, the largest of its geom size (ContactSize: the smaller of its two geoms' smallest
// half-extent), kRestScale r_w (W the whole weight of the tree it touches) and kImpactScale r_e (E the
// model's largest kinetic energy since the contact episode began, forgotten with the time constant
// kImpactMemory: an impact is over within a few of the contact's time constants): a warning from
// kPenWarn of it (health stays ok), the verdict kBadPenetration from kPenFail.  So a penetration is
// invalid only where it is half-way through the thinner geom, 10 times what the whole weight explains
// and 10 times what a landing with the recent kinetic energy could drive in: a body driven through the
// floor (1000 times its weight: up to 1000 r_w), never one resting (<= r_w) or landing (<= r_e).
inline constexpr double kPenWarn = 0.1;
inline constexpr double kPenFail = 0.5;
inline constexpr double kRestScale = 20.0;
inline constexpr double kImpactScale = 20.0;
inline constexpr double kImpactMemory = 1.0;  // s
// The first slot of a restored contact state cs that no step can have left (a non-finite
// or negative ratio, depth, size or largest work; a non-finite time or work; a body not an
// integer in [0, nbody)), or -1.
int ContactStateError(const double* cs, int nbody);
// One contact of a step: depth (m, > 0: penetrating), size (m, > 0), rest and impact (m, >= 0:
// r_w and r_e above; 0 where it has no constraint rows), body, at time t (s).  The deepest (by
// depth / scale) is kept in cs; from kPenFail the ledger st (ok so far) takes the verdict
// kBadPenetration at t.  Nothing changes once st holds a verdict.
void ContactPenetration(double* cs, double* st, double depth, double size, double rest, double impact,
                        int body, double t);
// The contact episode's kinetic energy: ke (J) the model's now, any a contact is active (none: the
// episode ends, cs[kCEpisodeKE] = 0), dt (s) the step: cs[kCEpisodeKE] = max(ke, its value
// exp(-dt / kImpactMemory)), the recent largest.
void ContactEpisodeEnergy(double* cs, double ke, bool any, double dt);
// The step's contacts: W (J) the work of their constraint forces over the step (force times
// the step's mean velocity), body the contact that did the most, any: a contact was active
// (none: the episode ends, cs[kCWork] = 0).  A soft contact stores and returns energy but
// gives back no more than it took, so over an episode the work is <= 0; above
// kEnergyRtol st[kSScale] + kEnergyAtol (1 + |st[kSE0]|) (the energy ledger's tolerance, st
// after its step) the ledger (ok so far) takes the verdict kBadContactEnergy at t.
void ContactWork(double* cs, double* st, double W, int body, bool any, double t);

// Account one step: E (J, energy at the step's start), ke (J, kinetic then), W (J,
// the non-conservative work of the step that starts), dt (s), t (s, time after the step); the state
// qpos (nq), qvel and qacc (nv) is checked for non-finite values; z (m) goes
// into the ring buffer zbuf (nz >= 1).  A state that fails LedgerStateError is first
// marked invalid (MarkInvalidState, naming its slot), so nothing is indexed by it.
void LedgerStep(double* st, double E, double ke, double W, double dt, double t,
                const double* qpos, int64_t nq, const double* qvel, const double* qacc,
                int64_t nv, double z, double* zbuf, int64_t nz, double allow = 0.0);

// Power (W) of the non-conservative generalized forces at the step's start:
// sum (qfrc_actuator + qfrc_applied + qfrc_constraint + qfrc_passive - mine) . qvel0
// plus the applied Cartesian wrenches xfrc (nb x 6, at each body's CoM) times
// the body velocities (cvel (nb x 6) rot/lin about subtree_com[root]).
double Power(const double* q0, const double* qa, const double* qap, const double* qc,
             const double* qp, const double* qmine, int64_t nv, const double* xfrc,
             const double* cvel, const double* xipos, const double* scom, const int64_t* broot,
             int64_t nb);

// What one step's account reads, in MuJoCo's mjData layout (nv dofs, nq
// coordinates, nb bodies): the force stage's ledger led (core::kNLed, of the
// evaluation at the step's start), qvel at the step's start q0, the generalized
// forces of Power, the body arrays of Power, and the state after the step.
struct StepArrays {
  const double *led = nullptr, *q0 = nullptr, *qa = nullptr, *qap = nullptr, *qc = nullptr,
               *qp = nullptr, *qmine = nullptr, *xfrc = nullptr, *cvel = nullptr,
               *xipos = nullptr, *scom = nullptr, *qpos = nullptr, *qvel = nullptr,
               *qacc = nullptr;
  // the exact rule (Euler, implicitfast, implicit; null: RK4's): qfrc_bias of the step's
  // evaluation, the recorded evaluation's non-conservative part of mine (ForceOut::qdrag),
  // and M (qvel - q0), M the mass matrix the step integrated with (added mass in it)
  const double *qbias = nullptr, *qdrag = nullptr, *mdv = nullptr;
  // RK4's rule (null: the left rectangle): the work its stages booked (RK4Stage), and the
  // last stage's velocity; StepWork adds the last stage's actuator and constraint work
  const double *rkw = nullptr, *rkv = nullptr;
  const int64_t* broot = nullptr;
  int64_t nv = 0, nq = 0, nb = 0;
};

// Account one runtime step: E = kinetic + gravity + buoyancy potential from led, W
// the step's non-conservative work (StepWork), then LedgerStep with the height (m)
// of body tb (xipos, world z).  The one implementation behind the plugin's advance and
// the Python binding Ledger.account.
// The work (J) of the non-conservative forces over one step of dt (s).  With a.mdv
// (Euler, implicitfast, implicit: q' = q + dt v1, M (v1 - v0) = dt f, f the
// generalized force the integrator applied, its implicit part included): f minus
// its conservative and inertial parts (the stage's buoyancy, gravity fields and
// added-mass terms, mine - qdrag, and MuJoCo's qfrc_bias: gravity, Coriolis) times
// the mean velocity (v0 + v1) / 2, so that the kinetic energy change over the step,
// (v1 - v0)' M (v1 + v0) / 2 = dt f . (v0 + v1) / 2, is booked exactly and
// E - E0 - W is only the integrator's error in the conservative forces.  Without
// (RK4): with a.rkw, the stages' work (RK4Stage) plus the last stage's actuator and
// constraint work; else led's drag power + Power(...), times dt (the left rectangle).
// *allow (J): dt/2 |f_c . v0|, f_c = mine - qdrag - qbias the conservative and inertial
// generalized force at the step's start: semi-implicit Euler conserves not E but a
// modified energy E + O(dt f_c . v), so E - E0 - W oscillates by about that much
// (0 for RK4).
double StepWork(const StepArrays& a, double dt, double* allow = nullptr);

// RK4 (MuJoCo's mj_RungeKutta: v1 = v0 + h sum_i b_i a_i, b = 1/6, 1/3, 1/3, 1/6, the
// stages at v_i): the step's work is h sum_i b_i P_i, P_i the power of the stage's
// non-conservative forces against v_i.  A stage's passive part (MuJoCo's own passive forces
// qp - qmine, the force stage's drag and damping qdrag, qfrc_applied, xfrc_applied) is known
// at its own evaluation; its actuator and constraint forces only after it (MuJoCo computes
// them after the passive forces), so they are booked at the next stage's evaluation (with
// the velocity kept in rk[1..]) or, for the last stage, by StepWork.  rk = (w (J), v (nv)).
// At stage k (0..3) of an evaluation reading a (q0 unused; qvel the stage's velocity, qa
// and qc the previous stage's, qp, qmine, qdrag, cvel this one's): k 0 restarts w.
inline constexpr double kRK4B[4] = {1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0};
void RK4Stage(double* rk, int k, double dt, const StepArrays& a);

void Account(double* st, const StepArrays& a, double dt, double t, int64_t tb, double* zbuf,
             int64_t nz);

// Account one step of a model with no environment: no energy (E = ke = P = 0),
// the state checks and the height of body tb only (reads a.qpos, a.qvel, a.qacc,
// a.xipos and the sizes).  Behind the plugin's ledger plain and Ledger.plain.
void AccountPlain(double* st, const StepArrays& a, double dt, double t, int64_t tb, double* zbuf,
                  int64_t nz);

}  // namespace aurgen::core

#endif  // AURGEN_CORE_LEDGER_H_
