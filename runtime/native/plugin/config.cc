// The instance's config (HydroConfig::FromModel; the settle window and the tracked body)
// and its creation (Hydro::Create; StateSize): hydro.h.
#include "hydro.h"
#include "schema.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

namespace aurgen::hydro {
namespace {

// A settle_window config value: a finite positive number of seconds, nothing after it.
bool ParseWindow(const char* v, double* w) {
  char* end = nullptr;
  double x = std::strtod(v, &end);
  if (end == v || *end != '\0' || !std::isfinite(x) || x <= 0) return false;
  *w = x;
  return true;
}

}  // namespace

std::optional<HydroConfig> HydroConfig::FromModel(const mjModel* m, int instance) {
  HydroConfig c;
  bool* fields[] = {&c.drag, &c.added_mass, &c.buoyancy, &c.damping};
  for (int i = 0; i < kNBoolAttributes; ++i) {
    const char* v = mj_getPluginConfig(m, instance, kAttributes[i]);
    if (!v || !*v) continue;
    std::string s(v);
    if (s == "true" || s == "1") {
      *fields[i] = true;
    } else if (s == "false" || s == "0") {
      *fields[i] = false;
    } else {
      mju_warning("%s instance %d: config key '%s' is '%s'; expected true or false", kPluginName,
                  instance, kAttributes[i], v);
      return std::nullopt;
    }
  }
  if (const char* v = mj_getPluginConfig(m, instance, "settle_window"); v && *v) {
    double w = 0, dt = m->opt.timestep;
    if (!ParseWindow(v, &w) || (dt > 0 && w / dt > kMaxWindow)) {
      mju_warning("%s instance %d: config key 'settle_window' is '%s'; expected a positive number "
                  "of seconds, at most %d timesteps", kPluginName, instance, v, kMaxWindow);
      return std::nullopt;
    }
    c.settle_window = w;
  }
  if (const char* v = mj_getPluginConfig(m, instance, "ledger"); v && *v) {
    std::string s(v);
    if (s != "energy" && s != "plain") {
      mju_warning("%s instance %d: config key 'ledger' is '%s'; expected energy or plain", kPluginName,
                  instance, v);
      return std::nullopt;
    }
    c.plain = s == "plain";
  }
  if (const char* v = mj_getPluginConfig(m, instance, "track"); v && *v) {
    const int b = mj_name2id(m, mjOBJ_BODY, v);
    if (b < 0) {
      mju_warning("%s instance %d: config key 'track' is '%s'; expected the name of a body", kPluginName,
                  instance, v);
      return std::nullopt;
    }
    if (b == 0) {  // the world body: settled at once, whatever the model does
      mju_warning("%s instance %d: config key 'track' is '%s': %s", kPluginName, instance, v,
                  schema::kTrackWorld);
      return std::nullopt;
    }
    c.track = v;
  }
  return c;
}

namespace {

// The settle window (steps) of an instance: its settle_window config, else 1 s.
int WindowOf(const mjModel* m, int instance) {
  double w = 1.0;
  if (const char* v = mj_getPluginConfig(m, instance, "settle_window"); v && *v && !ParseWindow(v, &w))
    w = 1.0;  // init reports it
  return WindowSteps(w, m->opt.timestep);
}

// The tracked body: the config's, else the first body with a free joint, else body 1 (0 if none).
int TrackOf(const mjModel* m, const HydroConfig& c) {
  if (!c.track.empty()) return mj_name2id(m, mjOBJ_BODY, c.track.c_str());
  for (int j = 0; j < m->njnt; ++j)
    if (m->jnt_type[j] == mjJNT_FREE) return m->jnt_bodyid[j];
  return m->nbody > 1 ? 1 : 0;
}

}  // namespace

int StateSize(const mjModel* m, int instance) { return Layout(m->nv, WindowOf(m, instance)).size; }

void Hydro::ResetFromModel(const mjModel* m, int instance, mjtNum* state) {
  Hydro h;
  h.L_ = Layout(m->nv, WindowOf(m, instance));
  const std::optional<HydroConfig> cfg = HydroConfig::FromModel(m, instance);  // init has checked it
  h.track_ = cfg ? TrackOf(m, *cfg) : 0;
  h.Reset(m, state);
}

std::unique_ptr<Hydro> Hydro::Create(const mjModel* m, mjData* d, int instance) {
  int mine = 0;  // this plugin's instances in the model: each would apply every force again
  for (int i = 0; i < m->nplugin; ++i) {
    const mjpPlugin* p = mjp_getPluginAtSlot(m->plugin[i]);
    if (p && p->name && std::strcmp(p->name, kPluginName) == 0) ++mine;
  }
  if (mine > 1) {
    mju_warning("%s instance %d: the model declares %d %s instances; declare one (each would apply "
                "every force again)", kPluginName, instance, mine, kPluginName);
    return nullptr;
  }
  // the timestep before the config: the settle window's bound is in steps of it (checked at init only:
  // a host that changes it later, the SITL bridge's substeps, is its own judge)
  if (const double dt = m->opt.timestep; !(dt >= schema::kMinTimestep && dt <= schema::kMaxTimestep)) {
    mju_warning("%s instance %d: the model's timestep is %g s; expected %g to %g s (%s)", kPluginName,
                instance, dt, schema::kMinTimestep, schema::kMaxTimestep, schema::kTimestepWhy);
    return nullptr;  // (a NaN fails both comparisons)
  }
  std::optional<HydroConfig> cfg = HydroConfig::FromModel(m, instance);
  if (!cfg) return nullptr;
  std::unique_ptr<Hydro> h(new Hydro());
  std::string err;
  h->plain_ = cfg->plain;
  if (!h->plain_ && !h->Build(m, instance, *cfg, &err)) {
    mju_warning("%s instance %d: %s", kPluginName, instance, err.c_str());
    return nullptr;
  }
  (void)d;
  h->L_ = Layout(m->nv, WindowOf(m, instance));
  h->track_ = TrackOf(m, *cfg);
  return h;
}

}  // namespace aurgen::hydro
