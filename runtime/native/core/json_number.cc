// Python's repr(float) in C++17 (std::to_chars' shortest round trip), and ArduPilot's JSON reply.
#include "json_number.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <system_error>

namespace aurgen::core {

void ReprDouble(double x, std::string& out) {
  // the shortest round-trip digits, in scientific form: [-]d[.ddd]e(+|-)XX
  char buf[32];
  const auto res = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific);
  const char* p = buf;
  if (*p == '-') {
    out.push_back('-');
    ++p;
  }
  char digits[20];
  int nd = 0;
  const char* e = p;
  for (; e < res.ptr && *e != 'e'; ++e)
    if (*e != '.') digits[nd++] = *e;
  int exp10 = 0;  // x = d.ddd * 10^exp10 (to_chars writes no terminating nul: read up to res.ptr)
  for (const char* c = e + 2; c < res.ptr; ++c) exp10 = exp10 * 10 + (*c - '0');
  if (e[1] == '-') exp10 = -exp10;
  const int decpt = exp10 + 1;         // x = 0.dddd * 10^decpt, Python's float_repr_style 'short'
  if (decpt <= -4 || decpt > 16) {     // Python's rule for 'r' (PyOS_double_to_string)
    out.push_back(digits[0]);
    if (nd > 1) {
      out.push_back('.');
      out.append(digits + 1, nd - 1);
    }
    out.push_back('e');
    out.push_back(exp10 < 0 ? '-' : '+');
    const int a = std::abs(exp10);
    if (a < 10) out.push_back('0');
    char eb[8];
    const auto er = std::to_chars(eb, eb + sizeof eb, a);
    out.append(eb, er.ptr);
  } else if (decpt <= 0) {  // 0.000ddd
    out.append("0.");
    out.append(-decpt, '0');
    out.append(digits, nd);
  } else if (decpt >= nd) {  // ddd000.0
    out.append(digits, nd);
    out.append(decpt - nd, '0');
    out.append(".0");
  } else {  // dd.ddd
    out.append(digits, decpt);
    out.push_back('.');
    out.append(digits + decpt, nd - decpt);
  }
}

bool SitlReply(const double* v, std::size_t n, std::string& out) {
  if (n < 17) return false;
  for (std::size_t i = 0; i < n; ++i)
    if (!std::isfinite(v[i])) return false;
  // the text between the values, as protocol.py's format: "\n{\"timestamp\":%r,\"imu\":{\"gyro\":[%r, ..."
  static const char* const kBefore[17] = {
      "\n{\"timestamp\":", ",\"imu\":{\"gyro\":[", ", ", ", ", "],\"accel_body\":[", ", ", ", ",
      "]},\"position\":[", ", ", ", ", "],\"quaternion\":[", ", ", ", ", ", ", "],\"velocity\":[", ", ",
      ", "};
  out.clear();
  out.reserve(512);
  for (int i = 0; i < 17; ++i) {
    out.append(kBefore[i]);
    ReprDouble(v[i], out);
  }
  out.push_back(']');
  for (std::size_t i = 17; i < n; ++i) {
    char nb[24];
    const auto nr = std::to_chars(nb, nb + sizeof nb, i - 16);  // rangefinders count from 1
    out.append(",\"rng_");
    out.append(nb, nr.ptr);
    out.append("\":");
    ReprDouble(v[i], out);
  }
  out.append("}\n");
  return true;
}

}  // namespace aurgen::core
