// Four doubles as the compiler's vector type (GCC and Clang vector extensions), with lanes.h's
// operations: elementwise IEEE adds, subtracts, multiplies, divides and ordered comparisons, and bit
// operations on the same lanes as 64-bit integers, so each lane computes the scalar code's bits.  The
// compiler lowers a V4 to two SSE2 registers, or one AVX2 register in a function built for AVX2
// (target_clones: sincos.cc, exp_lanes.cc), with the same bits either way (no FMA: -ffp-contract=off).
// Internal to the functions that use it: its helpers are inlined, and their ABI never seen.
#ifndef AURGEN_CORE_VEC4_H_
#define AURGEN_CORE_VEC4_H_

#include <cstdint>
#include <cstring>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

namespace aurgen::core::vec4 {

typedef double V4d __attribute__((vector_size(32)));
typedef int64_t V4i __attribute__((vector_size(32)));
typedef uint64_t V4u __attribute__((vector_size(32)));

struct V4 {
  V4d v;
};
struct M4 {
  V4i m;  // all ones or zero per lane
};
inline V4 Set(double c, const V4&) { return {V4d{c, c, c, c}}; }
inline V4 operator+(V4 a, V4 b) { return {a.v + b.v}; }
inline V4 operator-(V4 a, V4 b) { return {a.v - b.v}; }
inline V4 operator*(V4 a, V4 b) { return {a.v * b.v}; }
inline V4 operator/(V4 a, V4 b) { return {a.v / b.v}; }
inline M4 operator<=(V4 a, V4 b) { return {a.v <= b.v}; }  // ordered: false on nan
inline M4 operator>=(V4 a, V4 b) { return {a.v >= b.v}; }
inline M4 operator&(M4 a, M4 b) { return {a.m & b.m}; }
inline V4i Bits(V4 a) { return (V4i)a.v; }  // the same bits (a vector cast between equal sizes)
inline V4 FromBits(V4i b) { return {(V4d)b}; }
inline V4 Abs(V4 a) { return FromBits(Bits(a) & ~V4i{INT64_MIN, INT64_MIN, INT64_MIN, INT64_MIN}); }  // as fabs
inline V4 Sel(M4 m, V4 a, V4 b) { return FromBits((m.m & Bits(a)) | (~m.m & Bits(b))); }
inline V4 Load(const double* p, const V4&) {
  V4 r;
  std::memcpy(&r.v, p, sizeof r.v);
  return r;
}
inline void Store(double* p, V4 x) { std::memcpy(p, &x.v, sizeof x.v); }

}  // namespace aurgen::core::vec4

#pragma GCC diagnostic pop

#endif  // AURGEN_CORE_VEC4_H_
