// Numbers as text for ArduPilot's JSON physics backend (no Python, no MuJoCo).
//
// ReprDouble writes a double exactly as Python's repr(float) does (the shortest text that reads
// back as the same double; among those the closest; exponent form when the decimal point is more
// than 16 places right or 4 places left of the first digit, with a sign and at least two exponent
// digits; a ".0" on a whole number): the bridge's replies are byte for byte the text Python's
// %r gives, only without Python's cost (Python's dtoa takes ~0.5 us a number).
#pragma once

#include <cstddef>
#include <string>

namespace aurgen::core {

// Appends repr(x) to out; x must be finite.
void ReprDouble(double x, std::string& out);

// ArduPilot's JSON reply for the 17 state values (timestamp s; gyro rad/s and accel_body m/s^2,
// body FRD; position m and quaternion w, x, y, z, NED; velocity m/s, NED) and n_rng rangefinder
// distances (m) after them, framed "\n{...}\n" with the keys in the order ArduPilot's substring
// search needs (runtime/sitl/protocol.py). False (out untouched) when a value is not finite.
bool SitlReply(const double* values, std::size_t n_values, std::string& out);

}  // namespace aurgen::core
