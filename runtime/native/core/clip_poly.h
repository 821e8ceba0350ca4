// Convex polyhedra clipped by half-spaces, by the divergence theorem (geom frame).
//
// A polyhedron is an *edge soup grouped by face*: `E` is an (m x 6) row-major
// array of directed edges (ax, ay, az, bx, by, bz) and `fs` (nF+1) the index in
// E where each face's edges start (fs[nF] = one past the last edge).  Each
// face's edges form its boundary, counter-clockwise seen from outside; their
// order within a face does not matter.  Clipping a face by n.x <= t keeps the
// inside part of each edge and adds the closing edge exit -> entry on the
// plane; the cap (the section, outward normal +n) receives entry -> exit.
// Without the cap the volumes come out plausible and silently wrong.
// Units: metres; moments about the geom origin.
#ifndef AURGEN_CORE_CLIP_POLY_H_
#define AURGEN_CORE_CLIP_POLY_H_

#include <cstdint>

namespace aurgen::core {

// Accumulator layout written by SoupIntegrate (and the smooth routines):
// [0] V (m^3), [1:4] first moment  ∫x dV (m^4), [4] cap area (m^2),
// [5:8] ∫x dA over the cap (m^3), [8:14] ∫x xᵀ dA about the origin
// (xx, yy, zz, xy, xz, yz; m^4).
inline constexpr int kNAcc = 14;

// Row k of the edge soup E: the directed edge (ax, ay, az) -> (bx, by, bz).
inline void PutEdge(double* E, int64_t k, double ax, double ay, double az, double bx, double by,
                    double bz) {
  double* r = E + 6 * k;
  r[0] = ax;
  r[1] = ay;
  r[2] = az;
  r[3] = bx;
  r[4] = by;
  r[5] = bz;
}

// The box with half-sizes (a, b, c) as 6 faces / 24 edges into E (>= 24 rows)
// and fs (>= 7); returns 6.
int BoxSoup(double a, double b, double c, double* E, int64_t* fs);

// Clip the soup (E_in, fs_in, nF) by n.x <= t into (E_out, fs_out), the cap face
// last; `cap` is scratch with at least nF rows of 6.  Faces wholly outside are
// dropped.  Returns the number of faces written, or -1 if E_out would need more
// than `e_cap` rows or fs_out more than `f_cap` + 1 entries.
int SoupClip(const double* E_in, const int64_t* fs_in, int nF, double nx, double ny,
             double nz, double t, double* E_out, int64_t* fs_out, double* cap,
             int64_t e_cap, int64_t f_cap);

// Clip the soup by n.x <= t (t = +inf: no clip) and integrate in one streaming
// pass; writes acc[0:kNAcc] (layout above).  Edge indices in fs are absolute
// rows of E.
void SoupIntegrate(const double* E, const int64_t* fs, int nF, double nx, double ny,
                   double nz, double t, double* acc);

}  // namespace aurgen::core

#endif  // AURGEN_CORE_CLIP_POLY_H_
