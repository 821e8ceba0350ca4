// aurgen.runtime._native's part for the SITL bridge: ArduPilot's JSON reply text
// (core/json_number.h), so a 400 Hz bridge does not spend its frame in Python's float formatting.
#include <nanobind/nanobind.h>
#include <nanobind/stl/vector.h>

#include <cmath>
#include <string>
#include <vector>

#include "json_number.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

nb::object SitlReply(const std::vector<double>& values) {
  if (values.size() < 17) throw nb::value_error("sitl_reply: 17 state values and the rangefinders after them");
  std::string out;
  if (!aurgen::core::SitlReply(values.data(), values.size(), out)) return nb::none();
  return nb::bytes(out.data(), out.size());
}

nb::str ReprDouble(double x) {
  if (!std::isfinite(x)) throw nb::value_error("repr_double: a finite number");
  std::string out;
  aurgen::core::ReprDouble(x, out);
  return nb::str(out.data(), out.size());
}

}  // namespace

void RegisterSitl(nb::module_& m) {
  m.def("sitl_reply", &SitlReply, "values"_a,
        "ArduPilot's JSON reply (bytes, framed \"\\n{...}\\n\") for the 17 state values (timestamp;\n"
        "gyro, accel_body; position; quaternion w, x, y, z; velocity) and the rangefinder distances\n"
        "after them, every number as Python's repr writes it; None when a value is not finite.");
  m.def("repr_double", &ReprDouble, "x"_a, "repr(x) for a finite float, from C++ (the reply's numbers).");
}
