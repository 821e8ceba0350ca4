// Four doubles as the compiler's vector type (GCC and Clang vector extensions), with lanes.h's
// operations: elementwise IEEE adds, subtracts, multiplies, divides and ordered comparisons, and bit
// operations on the same lanes as 64-bit integers, so each lane computes the scalar code's bits.  A V4
// is one AVX2 register in a function built for AVX2; built for SSE2 alone, GCC keeps it in memory, so
// there the four-wide functions take Lanes4 (below) instead, with the same bits (no FMA either way:
// -ffp-contract=off).
// Internal to the functions that use it: every function taking or returning a V4 or an M4 by value
// is AURGEN_V4_INLINE (always inlined), so no call passes one: a V4 argument goes in a ymm register
// where the caller is built for AVX2 and in memory where it is not (GCC's -Wpsabi note), and an
// out-of-line helper built for the default target, called from an AVX2 clone, would read garbage
// (it did, in the sanitizer build, whose inlining differs).
#ifndef AURGEN_CORE_VEC4_H_
#define AURGEN_CORE_VEC4_H_

#include <cstdint>
#include <cstring>

#include "lanes.h"

#define AURGEN_V4_INLINE inline __attribute__((always_inline))

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
AURGEN_V4_INLINE V4 Set(double c, const V4&) { return {V4d{c, c, c, c}}; }
AURGEN_V4_INLINE V4 operator+(V4 a, V4 b) { return {a.v + b.v}; }
AURGEN_V4_INLINE V4 operator-(V4 a, V4 b) { return {a.v - b.v}; }
AURGEN_V4_INLINE V4 operator*(V4 a, V4 b) { return {a.v * b.v}; }
AURGEN_V4_INLINE V4 operator/(V4 a, V4 b) { return {a.v / b.v}; }
AURGEN_V4_INLINE M4 operator<=(V4 a, V4 b) { return {a.v <= b.v}; }  // ordered: false on nan
AURGEN_V4_INLINE M4 operator>=(V4 a, V4 b) { return {a.v >= b.v}; }
AURGEN_V4_INLINE M4 operator&(M4 a, M4 b) { return {a.m & b.m}; }
AURGEN_V4_INLINE V4i Bits(V4 a) { return (V4i)a.v; }  // the same bits (a vector cast between equal sizes)
AURGEN_V4_INLINE V4 FromBits(V4i b) { return {(V4d)b}; }
AURGEN_V4_INLINE V4 Abs(V4 a) { return FromBits(Bits(a) & ~V4i{INT64_MIN, INT64_MIN, INT64_MIN, INT64_MIN}); }  // as fabs
AURGEN_V4_INLINE V4 Sel(M4 m, V4 a, V4 b) { return FromBits((m.m & Bits(a)) | (~m.m & Bits(b))); }
AURGEN_V4_INLINE V4 Load(const double* p, const V4&) {
  V4 r;
  std::memcpy(&r.v, p, sizeof r.v);
  return r;
}
AURGEN_V4_INLINE void Store(double* p, V4 x) { std::memcpy(p, &x.v, sizeof x.v); }

}  // namespace aurgen::core::vec4

namespace aurgen::core {
// The four lanes of a function built for every CPU: lanes.h's D4 (two SSE2 registers, kept in
// registers) on x86-64, V4 elsewhere.  The four-wide functions (sincos.cc, exp_lanes.cc,
// sea_series.cc, sea_take.cc) are templates on the lane type, built once for AVX2 on V4 and once on
// Lanes4, one chosen at run time (lanes::W4Fast): the same operations, so the same bits.
#if defined(__SSE2__)
using Lanes4 = lanes::D4;
#else
using Lanes4 = vec4::V4;
#endif
}  // namespace aurgen::core

#pragma GCC diagnostic pop

#endif  // AURGEN_CORE_VEC4_H_
