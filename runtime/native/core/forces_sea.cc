// The force stage's part of a sea (forces.h ForceStage, sea.h): each geom's tangent plane
// of the surface (SeaPlanes, GeomPlanes: a sea cell's planes for one geom), the flow drag sees
// below the surface (SeaFlow), and the Froude-Krylov correction on the pieces in the water
// (SeaForces).
#include "forces.h"

#include <algorithm>
#include <cmath>

#include "forces_util.h"

namespace aurgen::core {

void ForceStage::SeaPlanes(double t) {
  const Sea& sea = m_.sea;
  for (int k = 0; k < ng_; ++k) {  // at the geom's full-volume centroid: eta + G.(x - xc)
    const Geom& g = m_.geoms[k];
    const double* R = o_.mats + 9 * k;
    const double* gc = g.centre;
    const double xc[3] = {o_.pos[3 * k] + R[0] * gc[0] + R[1] * gc[1] + R[2] * gc[2],
                          o_.pos[3 * k + 1] + R[3] * gc[0] + R[4] * gc[1] + R[5] * gc[2],
                          o_.pos[3 * k + 2] + R[6] * gc[0] + R[7] * gc[1] + R[8] * gc[2]};
    double eta, G[3];
    sea.Elevation(xc, t, &eta, G);
    // the water side n.x - d <= eta + G.(x - xc): (n - G).x <= d + eta - G.xc, normalised
    double row[4] = {sea.n[0] - G[0], sea.n[1] - G[1], sea.n[2] - G[2],
                     sea.d + eta - (G[0] * xc[0] + G[1] * xc[1] + G[2] * xc[2])};
    const double L = std::sqrt(row[0] * row[0] + row[1] * row[1] + row[2] * row[2]);
    for (int a = 0; a < 4; ++a) tplane_[4 * k + a] = row[a] / L;
  }
}

const double* ForceStage::GeomPlanes(int c, int k) {
  const int npl = kept_n_[c];
  const double* kp = kept_.data() + 4 * static_cast<size_t>(c) * m_.kmax;
  std::copy(kp, kp + 4 * npl, gplanes_.begin());
  const int j = kept_sea_[c];
  if (j >= 0) {
    const double sgn = sea_side_[c] > 0 ? 1.0 : -1.0;
    for (int a = 0; a < 4; ++a) gplanes_[4 * j + a] = sgn * tplane_[4 * k + a];
  }
  return gplanes_.data();
}

void ForceStage::SeaFlow(double t) {
  const int64_t S = slot_stride_;
  for (int k = 0; k < ng_; ++k)
    for (int c = 0; c < nc_; ++c) {
      const int64_t si = Piece(k, c);
      double u[3] = {0.0, 0.0, 0.0};
      if (sea_side_[c] > 0 && o_.vols[si] > 0.0)
        m_.sea.Orbital(o_.cents + 3 * si, t, u, PiecePhases(si));
      for (int a = 0; a < 3; ++a) pflow_[a * S + si] = m_.cells[c].flow[a] + u[a];
    }
}

// The Froude-Krylov correction on every displacement geom's piece in the water under the
// surface (sea.h FroudeKrylov), applied to its body; recorded: booked as work (qdrag and
// the power at this evaluation's velocity), as the sea cells' buoyancy is.
void ForceStage::SeaForces(const ForceData& d, bool record) {
  if (!m_.buoyancy) return;
  for (int k = 0; k < ng_; ++k) {
    const Geom& g = m_.geoms[k];
    if (g.mark != Mark::kDisplacement) continue;
    for (int c = 0; c < nc_; ++c) {
      if (sea_side_[c] <= 0 || o_.vols[Piece(k, c)] <= 0.0 || kept_sea_[c] < 0) continue;
      double F[3], T[3];
      const double* p = o_.pos + 3 * k;
      const double* pl = GeomPlanes(c, k);
      if (!m_.sea.fk_moments ||
          !FroudeKrylovMoments(m_.sea, d.time, m_.cells[c].rho, g.type, g.size, g.mesh, hull_planes_, p,
                               o_.mats + 9 * k, pl, kept_n_[c], kept_sea_[c], o_.cents + 3 * Piece(k, c),
                               PiecePhases(Piece(k, c)), F, T))
        FroudeKrylov(m_.sea, d.time, m_.cells[c].rho, g.type, g.size, g.mesh, hull_planes_, p,
                     o_.mats + 9 * k, pl, kept_n_[c], kept_sea_[c], F, T);
      Apply(d, g.body, F, T, p);
      if (!record) continue;
      const int64_t b = g.body;
      const double* sc = d.subtree_com + 3 * m_.bodies[b].root;
      const double r[3] = {p[0] - sc[0], p[1] - sc[1], p[2] - sc[2]};
      const double m[3] = {T[0] + r[1] * F[2] - r[2] * F[1], T[1] + r[2] * F[0] - r[0] * F[2],
                           T[2] + r[0] * F[1] - r[1] * F[0]};
      ProjectDrag(d, b, m, F);
      double v[6];
      MotionAt(d.cvel + 6 * b, r, v);
      o_.led[kLPDrag] += F[0] * v[0] + F[1] * v[1] + F[2] * v[2] + T[0] * v[3] + T[1] * v[4] + T[2] * v[5];
    }
  }
}

}  // namespace aurgen::core
