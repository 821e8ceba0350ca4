// The kernel's box tier: a box cut by ONE plane, with fixed-size stack arrays
// and no edge soup (ClipGeom's common case: a pontoon at the waterline).
//
// Exact: the submerged part is a convex polyhedron whose faces are the box
// faces clipped by the plane plus the section polygon (the cap), integrated by
// the divergence theorem from the box's deepest corner v0, so every term is
// non-negative (no cancellation for a sliver at a corner):
//   V        = 1/3 (sum over the three faces opposite v0 of L_k A_k + tau A_cap)
//   ∫(x-v0)dV = 1/4 (sum of L_k ∫_face (x-v0) dA + tau ∫_cap (x-v0) dA)
// with L_k the box's edge lengths, tau the depth of v0 below the plane, A_k
// the clipped face areas (exact polygons, <= 5 vertices) and the cap a fan of
// triangles (<= 6).  When the plane crosses the four edges along one axis
// (the common case: a level pontoon at the waterline) the wet part is a prism
// under a plane and everything is in closed form from the four crossing
// heights (no faces, no fan).  Boxes cut by several planes stay on the generic
// polyhedral path (clip_poly.h), which is also this tier's test reference.
// Units: metres; geom frame (the box centred at the origin, axis-aligned).
#ifndef AURGEN_CORE_CLIP_BOX_H_
#define AURGEN_CORE_CLIP_BOX_H_

#include <cstdint>

#include "clip_poly.h"

namespace aurgen::core {

// The box |x| <= a, |y| <= b, |z| <= c clipped by n.x <= t (unit n) into
// acc[0:kNAcc] in SoupIntegrate's layout (moments about the geom origin).
// Without want_wp acc[8:14] (the cap's second moments) are left 0.
// Deterministic; no allocation.
void BoxClip1(double a, double b, double c, double nx, double ny, double nz, double t,
              bool want_wp, double* acc);

// A box geom (half-sizes size, world position pos, rotation R row-major) cut by
// ONE world half-space pl = (n, d), n.x <= d (unit n), into row[0:5]: volume
// (m^3), centroid (world; the box centre when nothing is submerged) and the
// section area (m^2).  Bitwise ClipGeom's row for a box and one plane without
// the waterplane, in fewer steps (the force stage's common case).
void BoxClipRow(const double size[3], const double pos[3], const double R[9], const double pl[4],
                double row[5]);

// BoxClipRow for the boxes idx[0..n) of arrays sizes (N x 3), pos (N x 3),
// mats (N x 9) into out[W i : W i + 5], then zeros to W (W >= 5), four boxes at
// a time (lanes.h): every tier and the prism across the box's z axis (a level
// pontoon at the waterline) computed branch-free in lanes, any other cut by
// BoxClipRow itself.  Bitwise BoxClipRow's rows (and ClipGeom's without the
// waterplane).
void BoxRows(const int64_t* idx, int n, const double* sizes, const double* pos,
             const double* mats, const double pl[4], double* out, int W);

}  // namespace aurgen::core

#endif  // AURGEN_CORE_CLIP_BOX_H_
