// Registers aurgen.hydrostatics with MuJoCo when the library is loaded
// (import mujoco loads it through the mujoco.plugins entry point).
#include <mujoco/mjplugin.h>

#include "hydro.h"

namespace aurgen::hydro {

mjPLUGIN_LIB_INIT(aurgen_hydrostatics) { Hydro::RegisterPlugin(); }

}  // namespace aurgen::hydro
