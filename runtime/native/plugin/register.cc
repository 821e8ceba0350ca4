// Registers aurgen.hydrostatics with MuJoCo when the library is loaded
// (import mujoco loads it through the mujoco.plugins entry point): the plugin's
// callbacks, each calling the instance (hydro.h) in d->plugin_data.
#include <mujoco/mjplugin.h>

#include <algorithm>
#include <cstdint>
#include <memory>

#include "hydro.h"

namespace aurgen::hydro {

void Hydro::RegisterPlugin() {
  mjpPlugin p;
  mjp_defaultPlugin(&p);
  p.name = kPluginName;
  p.capabilityflags |= mjPLUGIN_PASSIVE;
  p.nattribute = sizeof(kAttributes) / sizeof(kAttributes[0]);
  p.attributes = kAttributes;
  p.nstate = +[](const mjModel* m, int instance) { return StateSize(m, instance); };
  p.init = +[](const mjModel* m, mjData* d, int instance) {
    std::unique_ptr<Hydro> h = Hydro::Create(m, d, instance);
    if (!h) return -1;
    // a new mjData: no reset tally yet (mj_resetData, next, keeps it)
    std::fill_n(d->plugin_state + m->plugin_stateadr[instance], m->plugin_statenum[instance], 0.0);
    d->plugin_data[instance] = reinterpret_cast<uintptr_t>(h.release());
    return 0;
  };
  p.destroy = +[](mjData* d, int instance) {
    delete reinterpret_cast<Hydro*>(d->plugin_data[instance]);
    d->plugin_data[instance] = 0;
  };
  p.copy = +[](mjData* dest, const mjModel* m, const mjData* src, int instance) {
    (void)src;
    // a fresh instance for the copy (the model scan is deterministic); the
    // ledger state is in plugin_state, which mj_copyData copies
    delete reinterpret_cast<Hydro*>(dest->plugin_data[instance]);
    std::unique_ptr<Hydro> h = Hydro::Create(m, dest, instance);
    dest->plugin_data[instance] = reinterpret_cast<uintptr_t>(h.release());
  };
  p.reset = +[](const mjModel* m, mjtNum* state, void* data, int instance) {
    if (data) {
      static_cast<const Hydro*>(data)->Reset(m, state);
    } else {
      std::fill_n(state, StateSize(m, instance), 0.0);
      state[Layout(m->nv, 2).record] = 1;
    }
  };
  p.compute = +[](const mjModel* m, mjData* d, int instance, int) {
    auto* h = reinterpret_cast<Hydro*>(d->plugin_data[instance]);
    if (h) h->Compute(m, d, instance);
  };
  p.advance = +[](const mjModel* m, mjData* d, int instance) {
    auto* h = reinterpret_cast<Hydro*>(d->plugin_data[instance]);
    if (h) h->Advance(m, d, instance);
  };
  p.visualize = +[](const mjModel* m, mjData* d, const mjvOption* opt, mjvScene* scn, int instance) {
    auto* h = reinterpret_cast<const Hydro*>(d->plugin_data[instance]);
    if (h) h->Visualize(m, opt, scn);
  };
  mjp_registerPlugin(&p);
}

mjPLUGIN_LIB_INIT(aurgen_hydrostatics) { Hydro::RegisterPlugin(); }

}  // namespace aurgen::hydro
