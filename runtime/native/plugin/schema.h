// The environment JSON's keys and size limits (docs/formats.md): the one table both the plugin
// (environment.cc ParseEnv) and runtime/environment/schema.py (through aurgen.runtime._native.ENV_KEYS)
// refuse unknown keys by, with the same words:
//   "<where>.<key>: unknown key (expected <the keys, sorted, comma-separated>)"
// where "environment" (the top level), "cells[i]", "gravity" or "waves"; an object's keys are
// checked in sorted order (the first unknown one is named).
#ifndef AURGEN_PLUGIN_SCHEMA_H_
#define AURGEN_PLUGIN_SCHEMA_H_

#include <cstddef>
#include <string>
#include <vector>

namespace aurgen::hydro::schema {

// size limits (docs/formats.md): planes in an environment, cells, planes one cell uses
inline constexpr size_t kMaxPlanes = 1024, kMaxCells = 256, kMaxCellPlanes = 64;
// the most wave components a sea may have (docs/formats.md "waves"): each costs a sin/cos per
// displacement geom and quadrature point per evaluation
inline constexpr size_t kMaxWaveComponents = 256;
// a wave component's limits (docs/formats.md "waves"): omega at most kMaxWaveOmega rad/s (a period of
// 6.3 ms), |k| from kMinWaveNumber to kMaxWaveNumber rad/m (a wavelength of 6.3 um to 6,300 km), a finite
// depth at least kMinWaveDepth m; far beyond any sea (capillarity, not gravity, sets waves shorter than
// 1.7 cm, about 60 rad/s; tides are 10,000 km long), checked before anything is squared, and bounds
// that keep every quantity of the sea's arithmetic finite (its pressure, orbital velocity and forces)
inline constexpr double kMaxWaveOmega = 1e3, kMinWaveNumber = 1e-6, kMaxWaveNumber = 1e6, kMinWaveDepth = 1e-3;
// waves.fk_tolerance (docs/kernel.md "Waves"): the moments' truncation bound, relative to each
// component's force scale, from kMinFkTolerance to kMaxFkTolerance
inline constexpr double kMinFkTolerance = 1e-12, kMaxFkTolerance = 0.1;

// the instance config's 'track' naming the world body (config.cc; runtime/sim/simulation.py refuses it
// with these words, through aurgen.runtime._native.TRACK_WORLD): body 0 never moves, so its height
// range is 0 and the health would call the model settled at once
inline constexpr char kTrackWorld[] =
    "the world body (body 0), which never moves and would read as settled at once; name a body that moves";
// the model's timestep, s (config.cc; aurgen's world config and runtime/sim/loading.py, through
// aurgen.runtime._native.TIMESTEP_LIMITS, with these words): from kMinTimestep (the 1 s settle window
// holds at most kMaxWindow = 1e6 heights, and a simulated second takes a million steps) to kMaxTimestep
// (the 1 s settle window holds the 2 heights it needs at least; MuJoCo's explicit integrators are
// unstable beyond 2/omega, 0.15 s for a small boat's heave at about 13 rad/s)
inline constexpr double kMinTimestep = 1e-6, kMaxTimestep = 0.5;
inline constexpr char kTimestepWhy[] =
    "below, the 1 s settle window of the health would hold more than the 1e6 heights it keeps and a "
    "simulated second take more than a million steps; above, it would hold fewer than the 2 heights "
    "it needs";

struct KeySet {
  const char* what;                // "environment", "cell", "gravity.uniform", ...
  std::vector<std::string> keys;   // sorted
};

inline const std::vector<KeySet>& Keys() {
  static const std::vector<KeySet> k = {
      {"environment", {"cells", "gravity", "planes", "waves"}},
      {"cell", {"density", "flow", "gravity", "name", "signs", "viscosity"}},
      {"gravity.uniform", {"g", "type"}},
      {"gravity.central", {"centre", "mu", "type"}},
      {"gravity.linear", {"G", "g0", "type"}},
      {"waves", {"components", "depth", "fk", "fk_tolerance", "ramp", "surface"}},
  };
  return k;
}

inline const std::vector<std::string>& KeysOf(const std::string& what) {
  for (const KeySet& s : Keys())
    if (what == s.what) return s.keys;
  static const std::vector<std::string> none;
  return none;
}

// "<where>.<key>: unknown key (expected a, b, c)", or "" when key is one of keys.
inline std::string UnknownKey(const std::string& where, const std::string& key,
                              const std::vector<std::string>& keys) {
  std::string list;
  for (const std::string& k : keys) {
    if (k == key) return "";
    list += (list.empty() ? "" : ", ") + k;
  }
  return where + "." + key + ": unknown key (expected " + list + ")";
}

}  // namespace aurgen::hydro::schema

#endif  // AURGEN_PLUGIN_SCHEMA_H_
