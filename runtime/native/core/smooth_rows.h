// The batch path of the kernel for spheres and ellipsoids cut by one plane.
//
// ClipGeom (kernel.h) clips one geom at a time through a generic set-up (plane
// list, support through a switch, full volume, a row zeroed then filled).  For
// the commonest smooth case, a sphere or an ellipsoid against a single
// half-space without waterplane moments, SmoothRows1 does the same work for a
// list of rows, four at a time, one per lane of two SSE2 registers (baseline
// x86-64, no -march; pairs, then plain scalar doubles, for the last rows and on
// other CPUs): the plane to the geom frame, support test, tier (wholly in / out
// / cut) and the closed form of clip_smooth.h (Ellipsoid1) computed
// branch-free, every tier's answer formed and each row's one selected (the
// closed form is skipped when it cuts none of the four), then the centroid to
// world.  Two independent chains of divisions and square roots are in flight at
// once; the divider is the bound.
//
// Every operation is the one ClipGeom performs, in the same order, on IEEE
// doubles with no contraction, and packed SSE2 arithmetic (add, mul, div,
// sqrt) rounds exactly as scalar arithmetic does: the rows are bitwise those of
// ClipGeom (tests/runtime/test_smooth_rows.py holds them to that), on any CPU.
#ifndef AURGEN_CORE_SMOOTH_ROWS_H_
#define AURGEN_CORE_SMOOTH_ROWS_H_

#include <cstdint>

namespace aurgen::core {

// Rows ClipBatch gathers per SmoothRows1 call (its index list is on the stack).
inline constexpr int kSmoothBlock = 128;

// Clip the geoms idx[0..n) of a batch (each a sphere, type 2, or an ellipsoid,
// type 4; n >= 0) by the one world half-space
// pl = (nx, ny, nz, d), n.x <= d, unit n, and write out[W*i : W*i + W] for
// each i = idx[k]: [V, cx, cy, cz, A] as ClipGeom writes it with want_wp
// false, then zeros (W >= 5).  types (N), sizes (N x 3), pos (N x 3, world),
// mats (N x 9, row-major geom -> world) are the batch's arrays.
void SmoothRows1(const int64_t* idx, int n, const int64_t* types, const double* sizes,
                 const double* pos, const double* mats, const double pl[4], double* out,
                 int W);

}  // namespace aurgen::core

#endif  // AURGEN_CORE_SMOOTH_ROWS_H_
