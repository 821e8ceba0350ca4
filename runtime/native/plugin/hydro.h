// aurgen.hydrostatics: the MuJoCo engine plugin (passive capability) that applies
// the runtime's environment forces: buoyancy over convex cells, drag, wind,
// declared damping, gravity fields with gradient torque, and added mass in the
// mass matrix.  One instance per world, declared in the world's MJCF:
//
//   <extension><plugin plugin="aurgen.hydrostatics">
//     <instance name="hydrostatics"><config key="drag" value="true"/></instance>
//   </plugin></extension>
//
// Config keys: drag (the drag model: form, Stokes and rotational drag, wind), damping
// (surface damping and declared hydrodynamic damping), added_mass, buoyancy (true/false,
// default true);
// settle_window (s, default 1) and track (a body name, default the first body
// with a free joint) for the health ledger's "settled" window; ledger (energy,
// the default, or plain: a model with no environment, no forces, and the health
// ledger's state checks and height window only, as for plain MuJoCo).
//
// At init it reads the world's <custom><text name="aurgen:environment"> (the
// JSON of docs/formats.md; none with ledger plain) and scans the model once into
// the force stage's records (core/forces.h ForceModel); compute allocates
// nothing.  Per-instance state: the instance object, named by d->plugin_data
// (one per mjData, so threads never share it; register.cc), and the health
// ledger in d->plugin_state (state.h), advanced once per step by advance, which
// mj_resetData, mj_copyData and mj_get/setState carry: any host (Simulation,
// mujoco.batch, mujoco.rollout, the viewer) keeps health with no Python per step.
//
// Sources: config.cc (the config, Create), build.cc (Build: the model scan),
// environment.cc (the environment's JSON, environment.h), hydro.cc (Compute, Advance,
// Contacts, Validate, Reset, Visualize), register.cc (the callbacks, RegisterPlugin).
#ifndef AURGEN_PLUGIN_HYDRO_H_
#define AURGEN_PLUGIN_HYDRO_H_

#include <mujoco/mujoco.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "forces.h"
#include "hull.h"
#include "kernel.h"
#include "ledger.h"
#include "state.h"

namespace aurgen::hydro {

// The plugin's name and its config keys, the first kNBoolAttributes true/false
// (HydroConfig::FromModel, config.cc; Hydro::RegisterPlugin, register.cc).
inline constexpr char kPluginName[] = "aurgen.hydrostatics";
inline constexpr const char* kAttributes[] = {"drag",          "added_mass", "buoyancy", "damping",
                                              "settle_window", "track",      "ledger"};
inline constexpr int kNBoolAttributes = 4;

// plugin_state: see state.h (the force stage's ledger, the record flag, the
// generalized force added, and the health ledger with its reset tally and
// settle window).  StateSize reads the instance's settle_window.
int StateSize(const mjModel* m, int instance);

struct HydroConfig {
  bool drag = true, added_mass = true, buoyancy = true, damping = true;
  double settle_window = 1.0;  // s, the height window for "settled"
  std::string track;           // body whose height fills it; "": the first free body
  bool plain = false;          // ledger plain: no environment, no forces
  // Reads the instance's config; on a bad value, mju_warning naming the key and nullopt.
  static std::optional<HydroConfig> FromModel(const mjModel* m, int instance);
};

// alignas: the instance fills cache lines of its own (as do the buffers it writes,
// core/lines.h), so instances stepped on two threads share no line.
class alignas(core::kLine) Hydro {
 public:
  // Scans the model and the environment; nullptr after mju_warning (naming the
  // instance and what is wrong) if they can't be used.
  static std::unique_ptr<Hydro> Create(const mjModel* m, mjData* d, int instance);
  // One evaluation for the current stage: qfrc_passive += forces, M += added mass
  // (refactored).  It records (the force stage's ledger, q0 = qvel, trec = time)
  // unless it is an inner Runge-Kutta stage (RK4, not the step's first
  // evaluation, and at another time than the recorded one).
  void Compute(const mjModel* m, mjData* d, int instance);
  // Once per step, after MuJoCo integrated qpos, qvel and time (mj_advance; the
  // other arrays are still those of the step's last evaluation): count and re-arm
  // MuJoCo's state resets, account the step in the health ledger, and arm the
  // next evaluation to record.
  void Advance(const mjModel* m, mjData* d, int instance);
  // mj_resetData: zero the state but the reset tally (kTPending set), record next.
  void Reset(const mjModel* m, mjtNum* state) const;
  // Reset's values from the model alone (its layout and tracked body), for a state whose mjData's
  // plugin_data names another mjData's instance (register.cc).
  static void ResetFromModel(const mjModel* m, int instance, mjtNum* state);
  // With "centre of mass" shown (mjVIS_COM), a sphere at each kinematic tree's
  // centre of buoyancy (the displaced volume's centroid, weighted by each
  // cell's density; world), from the latest evaluation, beside MuJoCo's
  // centre-of-mass sphere: same radius, its own colour (kCobRgba).
  void Visualize(const mjModel* m, const mjData* d, const mjvOption* opt, mjvScene* scn) const;
  // A sea's surface at d->time: a grid of triangles on its elevation around the floating bodies.
  void DrawSea(const mjModel* m, const mjData* d, mjvScene* scn) const;
  const StateLayout& layout() const { return L_; }
  // Checks the instance's state (StateError) before anything reads it; an invalid one is
  // repaired (each bad value set to what a reset leaves: record 1, trec the time, track
  // the configured body, the tally zeroed) and the ledger restarted with the verdict
  // invalid state naming the first bad offset (core::MarkInvalidState).  Compute and
  // Advance call it first.
  void Validate(const mjModel* m, const mjData* d, double* st) const;
  // Contact health after the step's account (Advance): each contact of the step's
  // evaluation against the penetration thresholds, and (the energy ledger) the work of the
  // contact rows of its constraint force over the step (core::ContactPenetration,
  // core::ContactWork; state.h's contact region).
  void Contacts(const mjModel* m, mjData* d, double* st) const;
  // The compliance (m/N) of MuJoCo's soft contact c: R / (n K I), from a row's steady state
  // R f = aref = -K I r (efc_R; efc_KBIP's stiffness K and impedance I; n the rows sharing the
  // normal force: 1, or a pyramid's 2 (dim - 1) edges); 0 for a contact without constraint rows
  // (core/ledger.h ContactPenetration: its rest depth under a weight, its impact depth for an energy).
  static double Compliance(const mjModel* m, const mjData* d, const mjContact& c);
  // The weight (N) of the tree of body b: its mass times |g| at its centre of mass (the
  // environment's field where the plugin applies one, else MuJoCo's gravity).
  double TreeWeight(const mjModel* m, const mjData* d, int body) const;
  // The body a contact is reported with: the one not welded to the world, else geom 1's.
  static int ContactBody(const mjModel* m, const mjContact& c);
  // The mjData arrays of a step's account or an RK4 stage's (core::StepArrays).
  core::StepArrays StageArrays(const mjModel* m, const mjData* d) const;
  static void RegisterPlugin();

 private:
  Hydro() = default;
  // Scans the model and the environment into the force stage's records (core/forces.h
  // ForceModel) and sizes its outputs; false with *err saying what is wrong.
  bool Build(const mjModel* m, int instance, const HydroConfig& cfg, std::string* err);
  core::HullPack hulls_;        // mesh displacement geoms' convex hulls (core/hull.h)
  std::vector<int64_t> broot_;  // (nb) each body's root (the health ledger's Power)
  // outputs and scratch (ForceOut), written per evaluation: whole cache lines each
  // (core/lines.h), so the instances of two threads share none
  core::LineVec<double> pos_, mats_, planes_, out_, vols_, cents_, areas_, wfrac_, led_, qmine_,
      qdrag_, dv_, mdv_;  // qdrag: ForceOut's; dv, mdv: Advance's qvel - q0, M dv
  mutable core::LineVec<double> vbar_;  // Contacts' (q0 + qvel) / 2
  mutable std::vector<mjtNum> jv_;  // Contacts' efc_J (q0 + qvel) / 2 (grown to nefc, never shrunk)
  mutable std::vector<mjtNum> kev_;  // Contacts' M qvel, for the kinetic energy (grown to nv)
  bool has_added_ = false;
  bool plain_ = false;  // ledger plain (no force stage)
  int track_ = 0;
  StateLayout L_{};
  std::unique_ptr<core::ForceStage> stage_;  // its model views hulls_
};

}  // namespace aurgen::hydro

#endif  // AURGEN_PLUGIN_HYDRO_H_
