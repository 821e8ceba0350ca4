// The layout of one aurgen.hydrostatics instance's d->plugin_state (MuJoCo-free,
// so the Python module exports it too: aurgen.runtime._native.plugin_state_layout,
// read by runtime/sim/health.py).  Everything the health ledger keeps lives here, per
// mjData: mj_resetData resets it (keeping the reset tally, see below),
// mj_copyData / mj_getState / mj_setState carry it, threads never share it.
//
//   [led      , +kNLed)  the force stage's ledger of the latest recorded
//                        evaluation (core::kLUBuoy J, kLPDrag W, kLUGrav J, kLKE J,
//                        kLVSub m^3, ...)
//   [record]             1: the next evaluation records (set by reset and advance)
//   [mine     , +nv)     the generalized force the latest evaluation added (N, N m)
//   [q0       , +nv)     qvel at the recorded evaluation (the step's start)
//   [qdrag    , +nv)     of mine, the recorded evaluation's non-conservative part
//                        (drag and damping; core::ForceOut::qdrag)
//   [trec]               d->time of the recorded evaluation (s)
//   [track]              the body whose height (xipos z) fills the settle window
//   [ledger   , +kNState) the health ledger's state (core/ledger.h slots)
//   [tally    , +kNTally) MuJoCo's state resets, counted by advance (TallySlot)
//   [rk       , +1 + nv) RK4: the step's work booked by its stages so far (J), and the
//                        latest stage's velocity (core::RK4Stage)
//   [rkstage]            RK4: the latest evaluation's stage (0..3)
//   [contact  , +kNContact) contact health: the deepest penetration and the contact
//                        episode's work (core/ledger.h kCRatio .. kCWorkBody)
//   [zbuf     , +nz)     ring buffer of the tracked body's height (m), one per step
#ifndef AURGEN_PLUGIN_STATE_H_
#define AURGEN_PLUGIN_STATE_H_

#include <algorithm>
#include <cmath>

#include "forces.h"
#include "ledger.h"

namespace aurgen::hydro {

// The reset tally: MuJoCo resets the state when qpos, qvel or qacc goes bad and
// counts it in d->warning; advance reads those three counters after every step,
// adds them here and zeroes them (so MuJoCo prints, to the warning handler, and
// counts every reset, not only the first of a kind).  mj_resetData keeps these
// slots (MuJoCo's own resets go through it) and sets kTPending; the next advance
// that sees no reset clears them (the user reset the run).
enum TallySlot {
  kTResets = 0,     // resets counted
  kTQpos = 1,       // of which mjWARN_BADQPOS, BADQVEL, BADQACC
  kTQvel = 2,
  kTQacc = 3,
  kTFirstKind = 4,  // 0 none, 1 + index into (QPOS, QVEL, QACC) of the first reset
  kTFirstTime = 5,  // s, the time the first reset happened at (the step's start)
  kTReached = 6,    // s, the largest time reached before a reset
  kTLast = 7,       // s, d->time after the latest advance
  kTPending = 8,    // 1: mj_resetData ran since the latest advance
  kNTally = 9
};

struct StateLayout {
  int led, record, mine, q0, qdrag, trec, track, ledger, tally, rk, rkstage, contact, zbuf, nz, size;
};

// nv: the model's dofs; nz (>= 2): the settle window in steps.
inline StateLayout Layout(int nv, int nz) {
  StateLayout L;
  L.led = 0;
  L.record = core::kNLed;
  L.mine = L.record + 1;
  L.q0 = L.mine + nv;
  L.qdrag = L.q0 + nv;
  L.trec = L.qdrag + nv;
  L.track = L.trec + 1;
  L.ledger = L.track + 1;
  L.tally = L.ledger + core::kNState;
  L.rk = L.tally + kNTally;
  L.rkstage = L.rk + 1 + nv;
  L.contact = L.rkstage + 1;
  L.zbuf = L.contact + core::kNContact;
  L.nz = nz;
  L.size = L.zbuf + nz;
  return L;
}

// The first offset (into one instance's state st, layout L, a model of nbody bodies) of
// a value no step can have left there, as restored by mj_setState (mjSTATE_PLUGIN), a
// rollout's initial_state or mj_copyData: the record flag not 0 or 1, a non-finite
// recorded time, a tracked body not an integer in [0, nbody), a ledger slot failing
// core::LedgerStateError, a reset tally whose counts are not integers in [0, 2^53] that
// add up, whose first kind is not 0..3 (0 exactly when no reset, else a kind counted)
// or whose times are not finite, a pending flag not 0 or 1, an RK4 stage not 0..3, a contact
// slot failing core::ContactStateError; -1 if none.  The force
// stage's arrays (led, mine, q0, qdrag) and the heights (zbuf) are values only, never
// indices: non-finite ones show as a non-finite energy (the verdict non-finite state)
// or an unsettled window.
inline int StateError(const double* st, const StateLayout& L, int nbody) {
  auto count = [](double x, double max) { return x >= 0.0 && x <= max && x == std::floor(x); };
  const double rec = st[L.record];
  if (rec != 0.0 && rec != 1.0) return L.record;
  if (!std::isfinite(st[L.trec])) return L.trec;
  if (!count(st[L.track], nbody - 1.0)) return L.track;
  if (int e = core::LedgerStateError(st + L.ledger); e >= 0) return L.ledger + e;
  const double* ty = st + L.tally;
  for (int k : {kTResets, kTQpos, kTQvel, kTQacc})
    if (!count(ty[k], core::kMaxSteps)) return L.tally + k;
  if (ty[kTQpos] + ty[kTQvel] + ty[kTQacc] != ty[kTResets]) return L.tally + kTResets;
  const double fk = ty[kTFirstKind];
  if (!count(fk, 3.0) || (fk == 0.0) != (ty[kTResets] == 0.0) ||
      (fk > 0.0 && !(ty[kTQpos + static_cast<int>(fk) - 1] > 0.0)))
    return L.tally + kTFirstKind;
  for (int k : {kTFirstTime, kTReached, kTLast})
    if (!std::isfinite(ty[k])) return L.tally + k;
  if (ty[kTPending] != 0.0 && ty[kTPending] != 1.0) return L.tally + kTPending;
  if (!count(st[L.rkstage], 3.0)) return L.rkstage;
  if (int e = core::ContactStateError(st + L.contact, nbody); e >= 0) return L.contact + e;
  return -1;
}

// The settle window in steps for a window (s) and timestep (s): max(2, round(window / dt)),
// rounding half to even as Python's round (runtime/sim/health.py Monitor); at most kMaxWindow.
inline constexpr int kMaxWindow = 1000000;
inline int WindowSteps(double window, double dt) {
  double n = dt > 0 ? std::nearbyint(window / dt) : 2.0;
  if (!(n >= 2.0)) return 2;
  return n > kMaxWindow ? kMaxWindow : static_cast<int>(n);
}

}  // namespace aurgen::hydro

#endif  // AURGEN_PLUGIN_STATE_H_
