// aurgen.hydrostatics: the MuJoCo engine plugin (passive capability) that applies
// the runtime's environment forces: buoyancy over convex cells, drag, wind,
// declared damping, gravity fields with gradient torque, and added mass in the
// mass matrix.  One instance per world, declared in the world's MJCF:
//
//   <extension><plugin plugin="aurgen.hydrostatics">
//     <instance name="hydrostatics"><config key="drag" value="true"/></instance>
//   </plugin></extension>
//
// At init it reads the world's <custom><text name="aurgen:environment"> (the
// JSON of docs/formats.md) and scans the model once into flat arrays; compute
// allocates nothing.  Per-instance state: the instance object in
// d->plugin_data (one per mjData, so threads never share it), and the energy
// ledger of the latest recorded evaluation in d->plugin_state (kStateSize
// numbers: see StateSlot), which mj_resetData and mj_copyData carry.
#ifndef AURGEN_PLUGIN_HYDRO_H_
#define AURGEN_PLUGIN_HYDRO_H_

#include <mujoco/mujoco.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "forces.h"
#include "kernel.h"

namespace aurgen::hydro {

// plugin_state layout (StateSize(m) numbers): the force stage's ledger of the
// latest recorded evaluation (core::kNLed numbers: buoyancy potential J, drag
// power W, gravity potential J, kinetic energy J, submerged volume m^3, ...),
// the record flag (1: the next evaluation records; set by reset and advance),
// then the generalized force the latest evaluation added (nv, N or N m).
enum StateSlot { kStateLedger = 0, kStateRecord = core::kNLed, kStateMine = core::kNLed + 1 };
inline int StateSize(const mjModel* m) { return kStateMine + static_cast<int>(m->nv); }

struct HydroConfig {
  bool drag = true, added_mass = true, buoyancy = true;
  // Reads the instance's config; on a bad value, mju_warning naming the key and nullopt.
  static std::optional<HydroConfig> FromModel(const mjModel* m, int instance);
};

class Hydro {
 public:
  // Scans the model and the environment; nullptr after mju_warning (naming the
  // instance and what is wrong) if they can't be used.
  static std::unique_ptr<Hydro> Create(const mjModel* m, mjData* d, int instance);
  // One evaluation for the current stage: qfrc_passive += forces, M += added mass (refactored).
  void Compute(const mjModel* m, mjData* d, int instance);
  // Once per step, after integration: the next evaluation records the ledger.
  void Advance(const mjModel* m, mjData* d, int instance);
  static void RegisterPlugin();

 private:
  Hydro() = default;
  bool Build(const mjModel* m, int instance, const HydroConfig& cfg, std::string* err);
  // model arrays (see core/forces.h ForceModel for the shapes)
  std::vector<int64_t> fl_, gi_, gt_, gw_, mesh_ids_, cnp_, bch_, bnd_, broot_, di_, ai_, Mmap_;
  std::vector<double> gcl_, gsz_, gvol_, cpl_, cf_, gf_, bmass_, binert_, df_, af_, wvol_;
  std::vector<int64_t> hull_vr_, hull_fs_, hull_fr_;
  std::vector<double> hull_v_, hull_e_, hull_vol_, hull_cen_;
  // outputs and scratch (ForceOut)
  std::vector<double> pos_, mats_, planes_, out_, vols_, cents_, areas_, wfrac_, led_, qmine_;
  bool has_added_ = false;
  int ng_ = 0;
  std::unique_ptr<core::ForceStage> stage_;
};

}  // namespace aurgen::hydro

#endif  // AURGEN_PLUGIN_HYDRO_H_
