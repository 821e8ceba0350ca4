// The world's environment (its <custom><text name="aurgen:environment">, the JSON of
// docs/formats.md) as the plugin reads it: parsed and validated by runtime/environment/schema.py's rules,
// refused in runtime/environment/schema.py's words (environment.cc).  Hydro::Build (build.cc) turns it
// into the force stage's records.
#ifndef AURGEN_PLUGIN_ENVIRONMENT_H_
#define AURGEN_PLUGIN_ENVIRONMENT_H_

#include <stdexcept>
#include <string>
#include <vector>

#include "forces.h"

namespace aurgen::hydro {

// A cell as the environment declares it (docs/formats.md "cells").
struct EnvCell {
  std::string name;
  std::vector<int> signs;  // per plane: -1 (n.x <= d), +1 (n.x >= d), 0
  int used = 0;            // the planes that bound it (nonzero signs)
  double density = 0, viscosity = 0, flow[3] = {0, 0, 0}, gravity[3] = {0, 0, 0};
  bool has_gravity = false;
};

struct Env {
  std::vector<double> planes;  // (P x 4) unit n, d
  int P = 0;
  std::vector<EnvCell> cells;
  // uniform (g, default 0 0 -9.81), central (mu, centre) or linear (g0, grad); the other
  // fields 0.  Per-cell gravity (kPerCell) is decided in Build, from the cells.
  core::GravityField gravity;
  core::Sea sea;  // waves (inactive: none)
  Env() { gravity.g[2] = -9.81; }
};

// A refusal (of the environment, or of the model in Build): what() is the message.
struct Fail : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// runtime/environment/schema.py parse, then validate (environment.cc ValidateEnv): the environment in
// text, or Fail in runtime/environment/schema.py's words.
Env ParseEnv(const std::string& text);

}  // namespace aurgen::hydro

#endif  // AURGEN_PLUGIN_ENVIRONMENT_H_
