// The force stage's pieces (forces.h ForceStage): every geom clipped by every cell
// (ClipCells), then per piece (a geom's part in one cell) its buoyancy, drag and surface
// damping (Pieces, Wrenches; the drag's projected areas ProjAreaV and ProjArea), summed per
// body and projected on its dofs.  Where this differs in order from the numba reference
// (tests/runtime/numba_oracle/forces.py): the piece loop sums each body's piece wrenches
// before projecting them on its dofs (the oracle projects each piece), and the drag of
// boxes, meshes and ellipsoids takes A_p |v| from the unnormalised velocity (the oracle:
// A_p(v / |v|) |v|).
#include "forces.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "clip_box.h"
#include "drag_faces.h"
#include "forces_util.h"
#include "lanes.h"

namespace aurgen::core {
namespace {

// a and b hold the same bits (as memcmp would say, without the call).
inline bool SameBits(const double* a, const double* b) {
  for (int i = 0; i < 3; ++i) {
    uint64_t x, y;
    std::memcpy(&x, a + i, sizeof x);
    std::memcpy(&y, b + i, sizeof y);
    if (x != y) return false;
  }
  return true;
}

// The drag's projected area, one piece per lane (lanes.h: the scalar code's bits
// in every lane): an ellipsoid across w (geom frame) times |w|, homogeneous of
// degree 1 in w, so ProjAreaV(v) is A_p(v / |v|) |v| without normalising (m^2 x
// the unit of w).  pr: the products of the semi-axes (b c, a c, a b).  (A box's
// and a mesh's: ForceStage::FaceAreas.)
template <class L>
AURGEN_W4_INLINE L ProjAreaV(const double* pr, L wx, L wy, L wz) {
  using namespace lanes;  // NOLINT: the lane types and their operators
  const L p = Set(pr[0], L{}) * wx, q = Set(pr[1], L{}) * wy, s = Set(pr[2], L{}) * wz;
  return Set(kPi, L{}) * Sqrt(p * p + q * q + s * s);
}

// The projected area (m^2) of a sphere, cylinder or capsule across the unit
// direction u (geom frame), one piece per lane.
template <class L>
AURGEN_W4_INLINE L ProjArea(int typ, const double* size, L ux, L uy, L uz) {
  using namespace lanes;  // NOLINT
  (void)ux;
  (void)uy;
  if (typ == kSphere) return Set(kPi * size[0] * size[0], L{});
  const double r = size[0], h = size[1];
  const L zero = Set(0.0, L{}), t = Set(1.0, L{}) - uz * uz;
  const L lat = Sqrt(Sel(zero < t, t, zero));  // sqrt(max(0, 1 - uz^2))
  const L extra = typ == kCapsule ? Set(kPi * r * r, L{}) * lat : zero;
  return (Set(4.0 * r * h, L{}) * lat + Set(kPi * r * r, L{}) * Abs(uz)) + extra;
}

// The vector (x, y, z) (world) with its components along the axes of R (row-major, frame ->
// world) scaled by keep (3: 1 kept, 0 dropped); untouched where all three are kept.
template <class L>
AURGEN_W4_INLINE void Keep(const double* R, const double* keep, L* x, L* y, L* z) {
  using namespace lanes;  // NOLINT
  if (keep[0] != 0.0 && keep[1] != 0.0 && keep[2] != 0.0) return;
  const L a = Set(keep[0], L{}) * (Set(R[0], L{}) * *x + Set(R[3], L{}) * *y + Set(R[6], L{}) * *z);
  const L b = Set(keep[1], L{}) * (Set(R[1], L{}) * *x + Set(R[4], L{}) * *y + Set(R[7], L{}) * *z);
  const L c = Set(keep[2], L{}) * (Set(R[2], L{}) * *x + Set(R[5], L{}) * *y + Set(R[8], L{}) * *z);
  *x = Set(R[0], L{}) * a + Set(R[1], L{}) * b + Set(R[2], L{}) * c;
  *y = Set(R[3], L{}) * a + Set(R[4], L{}) * b + Set(R[5], L{}) * c;
  *z = Set(R[6], L{}) * a + Set(R[7], L{}) * b + Set(R[8], L{}) * c;
}

}  // namespace

// Face j of geom k's (and k + 1's, kGeoms) exposed share for its pieces in cells c, c + 1, ...:
// gexp_, or 1 where its coverer has no part in the piece's cell.
template <class L>
AURGEN_W4_INLINE L ForceStage::Exposed(int k, int j, int c, L z) const {
  using namespace lanes;  // NOLINT
  static constexpr double kWet[4] = {1.0, 1.0, 1.0, 1.0};  // no coverer (or none that matters)
  const double* v[2];  // per geom: its face's coverer's volumes in cells c, c + 1, ...
  for (int g = 0; g < kGeoms<L>; ++g) {
    const int64_t gj = 6 * static_cast<int64_t>(k + g) + j, cv = gcov_[gj];
    v[g] = cv < 0 || gexp_[gj] == 1.0 ? kWet : o_.vols + Piece(static_cast<int>(cv), c);
  }
  const auto wet = PairLoad(v[0], v[kGeoms<L> - 1], z) > Set(0.0, z);
  return Sel(wet, PerGeom(k, [&](int g) { return gexp_[6 * static_cast<int64_t>(g) + j]; }, z), Set(1.0, z));
}

// The drag areas of a box's (a mesh's bounding box's) piece along its axes times |w_i| (w the
// flow, geom frame; m^2 x the unit of w), into a: per geom axis i (drag acts per axis, as
// gz-maritime's MarkedShapes::ApplyDrag), the face area 4 pr_i x the mean exposed share of its
// two faces (gexp_) x their wetted share s_i = f + (1 - f) u_i^2, u_i the axis' component of
// up (-g / |g|; down in a gas cell): a side face is wetted as the piece's volume (f), a face
// across up wholly (the bottom of a floating hull).  A piece cut by the surface (A > 0) has its
// cut for a face: the share of the face looking up that is covered is exposed by u_i^2.  A face
// whose coverer has no part in the cell is exposed (Exposed).
template <class L>
AURGEN_W4_INLINE void ForceStage::FaceAreas(int k, int c, const PieceFlags& pf, const L* R, L f, L A, L wx,
                                            L wy, L wz, L a[3]) {
  using namespace lanes;  // NOLINT
  const L z{};
  const L zero = Set(0.0, z), one = Set(1.0, z);
  const int64_t S = slot_stride_, si = Piece(k, c), nc = nc_;
  const double* sl = slots_.data();
  L u[3];  // up in the geom frame, per lane (down in a gas cell)
  if (pf.uniform) {  // one up for every piece (pf.up: -g / |g|, or 0 without gravity)
    const L side = PerCell(cup_.data() + c, z);
    const double* n = pf.up;
    for (int i = 0; i < 3; ++i) {
      const L ui = PerGeom(k, [&](int g) {
        const double* Rg = o_.mats + 9 * static_cast<int64_t>(g);
        return Rg[i] * n[0] + Rg[3 + i] * n[1] + Rg[6 + i] * n[2];
      }, z);
      u[i] = ui * side;
    }
  } else {
    const L g0 = PieceLoad(sl + kSG * S + si, nc, z), g1 = PieceLoad(sl + (kSG + 1) * S + si, nc, z),
            g2 = PieceLoad(sl + (kSG + 2) * S + si, nc, z);
    const L gn2 = g0 * g0 + g1 * g1 + g2 * g2;
    const auto hasg = gn2 > zero;
    const L s = Sel(hasg, -PerCell(cup_.data() + c, z) / Sqrt(Sel(hasg, gn2, one)), zero);
    const L n0 = g0 * s, n1 = g1 * s, n2 = g2 * s;  // up, world
    for (int i = 0; i < 3; ++i) u[i] = R[i] * n0 + R[3 + i] * n1 + R[6 + i] * n2;
  }
  const L w[3] = {Abs(wx), Abs(wy), Abs(wz)};
  const auto cut = A > zero;  // false for nan (several planes)
  for (int i = 0; i < 3; ++i) {
    const L q = u[i] * u[i];
    const L wet = f + (one - f) * q;
    const auto upw = u[i] >= zero;
    const L em = Exposed(k, 2 * i, c, z), ep = Exposed(k, 2 * i + 1, c, z);
    L eu = Sel(upw, ep, em);
    const L ed = Sel(upw, em, ep);
    eu = Sel(cut, eu + (one - eu) * q, eu);
    a[i] = PerGeom(k, [&](int g) { return 2.0 * gpr_[3 * static_cast<int64_t>(g) + i]; }, z) * wet * (eu + ed) * w[i];
  }
}

void ForceStage::Up(const double g[3], int k) {
  if (!SameBits(g, up_.g)) {
    std::memcpy(up_.g, g, sizeof up_.g);
    up_.gn = std::sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
    up_.n[0] = -g[0] / up_.gn;
    up_.n[1] = -g[1] / up_.gn;
    up_.n[2] = -g[2] / up_.gn;
    up_.k = -1;
  }
  if (up_.gn > 0.0 && up_.k != k) {
    const Geom& geom = m_.geoms[k];
    double l[3];
    ToFrame(o_.mats + 9 * k, up_.n, l);
    double ext;  // the geom's extent along n: hmax - hmin
    if (geom.type == kBox) {  // SupportLocal's box, inline: hmax = h, hmin = -h
      const double* sz = geom.size;
      double h = sz[0] * std::fabs(l[0]) + sz[1] * std::fabs(l[1]) + sz[2] * std::fabs(l[2]);
      ext = h - -h;
    } else {
      double hmax, hmin;
      Support(geom, l, &hmax, &hmin);
      ext = hmax - hmin;
    }
    up_.gh = up_.gn * ext;
    up_.k = k;
  }
}

void ForceStage::Support(const Geom& g, const double l[3], double* hmax, double* hmin) const {
  const bool mesh = g.type == kMesh;
  const int64_t v0 = mesh ? m_.hulls.vert_range[g.mesh] : 0;
  const int64_t v1 = mesh ? m_.hulls.vert_range[g.mesh + 1] : 0;
  SupportLocal(g.type, g.size, l[0], l[1], l[2], m_.hulls.verts, v0, v1, hmax, hmin);
}

// Piece (B): the wrench and ledger terms of geom k's pieces in cells c .. c + lanes (D1, D2: one
// per lane), or of geoms k and k + 1 in cells c, c + 1 (W4: a batch, PieceFlags::gh2); a lane
// whose piece is not valid computes what pass C skips.  The force F (world) is buoyancy -rho V g
// plus drag; the torque T is drag's; the moment about the run's root subtree com M = T + (x -
// com) x F; U (J) the pressure energy, P (W) the drag power.  The scalar code's operations in
// its order in every lane (lanes.h), so every width gives the same bits.
template <class L, int NC>
AURGEN_W4_INLINE void ForceStage::Wrenches(int k, int c, const Run& r, int typ, const PieceFlags& pf) {
  using namespace lanes;  // NOLINT: the lane types and their operators
  const L z{};
  const L zero = Set(0.0, z);
  const int64_t nc = NC > 0 ? NC : nc_;  // NC: the cells, known when built (0: nc_)
  const int64_t S = slot_stride_, si = Piece(k, c);
  const int64_t ii[4] = {si, si + 1, si + nc, si + nc + 1};  // the lanes' pieces
  double* sl = slots_.data();
  auto col = [&](int j) { return sl + j * S + si; };
  auto ld = [&](const double* p) { return PieceLoad(p, nc, z); };
  const L V = ld(o_.vols + si), rho = PerCell(crho_.data() + c, z);
  const L x0 = Gather(o_.cents, ii, 3, 0, z), x1 = Gather(o_.cents, ii, 3, 1, z),
          x2 = Gather(o_.cents, ii, 3, 2, z);
  const L dx = x0 - Set(r.sc[0], z), dy = x1 - Set(r.sc[1], z), dz = x2 - Set(r.sc[2], z);
  L F0 = zero, F1 = zero, F2 = zero, T0 = zero, T1 = zero, T2 = zero;
  L Fb0 = zero, Fb1 = zero, Fb2 = zero;  // a sea cell's buoyancy: booked as work (recorded)
  // the recorded work: force W (drag and damping, and a sea cell's buoyancy) and torque Tw at the
  // piece's velocity (va, w), with its moment about the run's root com (by pointer: no lane
  // passes a call, lanes.h W4)
  auto book = [&](const L* W, const L* Tw, const L* va, const L* w) {
    PieceStore(col(kSP), W[0] * va[0] + W[1] * va[1] + W[2] * va[2] + Tw[0] * w[0] + Tw[1] * w[1] + Tw[2] * w[2], nc);
    PieceStore(col(kSDM), Tw[0] + dy * W[2] - dz * W[1], nc);
    PieceStore(col(kSDM + 1), Tw[1] + dz * W[0] - dx * W[2], nc);
    PieceStore(col(kSDM + 2), Tw[2] + dx * W[1] - dy * W[0], nc);
    PieceStore(col(kSDF), W[0], nc);
    PieceStore(col(kSDF + 1), W[1], nc);
    PieceStore(col(kSDF + 2), W[2], nc);
  };
  if (pf.buoy) {
    const L nrv = -rho * V;
    const L g0 = pf.uniform ? Set(pf.g[0], z) : ld(col(kSG));
    const L g1 = pf.uniform ? Set(pf.g[1], z) : ld(col(kSG + 1));
    const L g2 = pf.uniform ? Set(pf.g[2], z) : ld(col(kSG + 2));
    F0 = nrv * g0;
    F1 = nrv * g1;
    F2 = nrv * g2;
    if (pf.record) {  // U = integral of the hydrostatic pressure p = -rho phi + P over the piece
      const L phi = pf.uniform ? -(g0 * x0 + g1 * x1 + g2 * x2) : ld(col(kSPhi));  // Phi
      if (pf.sea) {
        const auto sm = PerCell(seamask_.data() + c, z) > zero;
        PieceStore(col(kSU), Sel(sm, zero, V * (-rho * phi + PerCell(cP_.data() + c, z))), nc);
        Fb0 = Sel(sm, F0, zero);
        Fb1 = Sel(sm, F1, zero);
        Fb2 = Sel(sm, F2, zero);
      } else {
        PieceStore(col(kSU), V * (-rho * phi + PerCell(cP_.data() + c, z)), nc);
      }
    }
  }
  const L w[3] = {Set(r.cv[0], z), Set(r.cv[1], z), Set(r.cv[2], z)};
  const L &w0 = w[0], &w1 = w[1], &w2 = w[2];
  // the piece centroid's velocity (MotionAt)
  const L vab[3] = {Set(r.cv[3], z) + w1 * dz - w2 * dy, Set(r.cv[4], z) + w2 * dx - w0 * dz,
                    Set(r.cv[5], z) + w0 * dy - w1 * dx};
  if (pf.drag || pf.damp) {
    const L f = V / PerGeom(k, [&](int g) { return m_.geoms[g].volume; }, z);
    // relative to the cell's flow (a sea: the piece's own, the cell's flow plus the orbital
    // velocity at its centroid)
    L v[3];
    for (int a = 0; a < 3; ++a)
      v[a] = vab[a] - (pf.sea ? ld(pflow_.data() + a * S + si) : PerCell(cflow_.data() + a * nc + c, z));
    const L &v0 = v[0], &v1 = v[1], &v2 = v[2];
    const L sp2 = v0 * v0 + v1 * v1 + v2 * v2;  // |v|^2: sqrt only where needed
    // the relative velocity in the geom frame
    L R[9];
    for (int i = 0; i < 9; ++i) R[i] = PerGeom(k, [&](int g) { return o_.mats[9 * static_cast<int64_t>(g) + i]; }, z);
    const L lx = R[0] * v0 + R[3] * v1 + R[6] * v2;
    const L ly = R[1] * v0 + R[4] * v1 + R[7] * v2;
    const L lz = R[2] * v0 + R[5] * v1 + R[8] * v2;
    L Fd0 = zero, Fd1 = zero, Fd2 = zero, Td0 = zero, Td1 = zero, Td2 = zero;
    if (pf.drag) {
      const L dQ = ld(dcoef_.data() + kDQ * S + si);
      const auto moving = sp2 > zero;  // else no drag force
      if (kGeoms<L> > 1 || typ == kBox || typ == kMesh) {  // per geom axis, on its exposed, wetted faces
        L a[3];
        FaceAreas(k, c, pf, R, f, ld(o_.areas + si), lx, ly, lz, a);
        const L lin = ld(dcoef_.data() + kDLin * S + si) * f;
        const L f0 = -(lin + dQ * a[0]) * lx, f1 = -(lin + dQ * a[1]) * ly, f2 = -(lin + dQ * a[2]) * lz;
        Fd0 = R[0] * f0 + R[1] * f1 + R[2] * f2;
        Fd1 = R[3] * f0 + R[4] * f1 + R[5] * f2;
        Fd2 = R[6] * f0 + R[7] * f1 + R[8] * f2;
      } else {  // (a batch of two geoms is boxes and meshes: Pieces)
        L dq;  // 0.5 rho C_D A_p |v| (kg/s): no division where A_p is homogeneous
        if (typ == kEllipsoid) {
          dq = dQ * ProjAreaV(gpr_.data() + 3 * k, lx, ly, lz);
        } else {
          const L sp = Sqrt(sp2);
          dq = dQ * ProjArea(typ, m_.geoms[k].size, lx / sp, ly / sp, lz / sp) * sp;
        }
        const L ncoef = -((ld(dcoef_.data() + kDLin * S + si) + dq) * f);
        Fd0 = Sel(moving, ncoef * v0, zero);
        Fd1 = Sel(moving, ncoef * v1, zero);
        Fd2 = Sel(moving, ncoef * v2, zero);
      }
      const L nct = -((ld(dcoef_.data() + kDRot * S + si) + ld(dcoef_.data() + kDRot2 * S + si) * Set(r.wn, z)) * f);
      Td0 = nct * w0;
      Td1 = nct * w1;
      Td2 = nct * w2;
      if (pf.keep) {  // one drag per degree of freedom: the declared ones taken out (Keep)
        const L rx = x0 - Set(pf.mo[0], z), ry = x1 - Set(pf.mo[1], z), rz = x2 - Set(pf.mo[2], z);
        L M0 = Td0 + (ry * Fd2 - rz * Fd1), M1 = Td1 + (rz * Fd0 - rx * Fd2), M2 = Td2 + (rx * Fd1 - ry * Fd0);
        Keep(pf.mR, pf.keep, &Fd0, &Fd1, &Fd2);
        Keep(pf.mR, pf.keep + 3, &M0, &M1, &M2);
        Td0 = M0 - (ry * Fd2 - rz * Fd1);
        Td1 = M1 - (rz * Fd0 - rx * Fd2);
        Td2 = M2 - (rx * Fd1 - ry * Fd0);
      }
    }
    // surface (radiation stand-in) damping: where the section area A > 0 (false for nan)
    const L A = ld(o_.areas + si);
    const auto surf = pf.uniform ? (pf.surf ? A > zero : zero > zero) : ld(col(kSSurf)) > zero;
    if (Any(surf)) {
      const L n0 = pf.uniform ? Set(pf.n[0], z) : ld(col(kSN));
      const L n1 = pf.uniform ? Set(pf.n[1], z) : ld(col(kSN + 1));
      const L n2 = pf.uniform ? Set(pf.n[2], z) : ld(col(kSN + 2));
      const L gh = pf.uniform ? PerGeom(k, [&](int g) { return g == k ? pf.gh : pf.gh2; }, z) : ld(col(kSGH));
      const L B = Set(kCS, z) * rho * A * Sqrt(gh);
      const L vn = v0 * n0 + v1 * n1 + v2 * n2;
      Fd0 = Sel(surf, Fd0 - B * vn * n0, Fd0);
      Fd1 = Sel(surf, Fd1 - B * vn * n1, Fd1);
      Fd2 = Sel(surf, Fd2 - B * vn * n2, Fd2);
      const L wnn = w0 * n0 + w1 * n1 + w2 * n2;
      const L bt = B * A / Set(12.0, z);
      Td0 = Sel(surf, Td0 - bt * (w0 - wnn * n0), Td0);
      Td1 = Sel(surf, Td1 - bt * (w1 - wnn * n1), Td1);
      Td2 = Sel(surf, Td2 - bt * (w2 - wnn * n2), Td2);
    }
    if (pf.record) {  // with the sea cells' buoyancy
      const L W[3] = {pf.sea ? Fd0 + Fb0 : Fd0, pf.sea ? Fd1 + Fb1 : Fd1, pf.sea ? Fd2 + Fb2 : Fd2};
      const L Tw[3] = {Td0, Td1, Td2};
      book(W, Tw, vab, w);
    }
    F0 = F0 + Fd0;
    F1 = F1 + Fd1;
    F2 = F2 + Fd2;
    T0 = T0 + Td0;
    T1 = T1 + Td1;
    T2 = T2 + Td2;
  } else if (pf.record && pf.sea) {  // the sea cells' buoyancy alone as work
    const L W[3] = {Fb0, Fb1, Fb2}, Tw[3] = {zero, zero, zero};
    book(W, Tw, vab, w);
  }
  PieceStore(col(kSM), T0 + dy * F2 - dz * F1, nc);
  PieceStore(col(kSM + 1), T1 + dz * F0 - dx * F2, nc);
  PieceStore(col(kSM + 2), T2 + dx * F1 - dy * F0, nc);
  PieceStore(col(kSF), F0, nc);
  PieceStore(col(kSF + 1), F1, nc);
  PieceStore(col(kSF + 2), F2, nc);
}

// Clip every geom by every cell (planes no geom crosses dropped) into the pieces'
// vols, cents and areas.  A cell bounded (after dropping) by the one plane another
// cell was bounded by, from the other side, is the complement: full geom minus that piece.
void ForceStage::ClipCells() {
  const double* pos = o_.pos;
  const double* mats = o_.mats;
  for (int c = 0; c < nc_; ++c) {
    one_[c] = -1;
    onesg_[c] = 0.0;
  }
  for (int c = 0; c < nc_; ++c) {
    int npl = 0;
    int64_t last = -1;
    for (int64_t j = 0; j < m_.cells[c].nplanes; ++j) {
      const double* pl = m_.Planes(c) + 4 * j;
      bool keep = m_.sea.active && sea_row_[c] == j;  // a sea's surface: always (it moves)
      for (int k = 0; k < ng_ && !keep; ++k) {
        double l[3];
        ToFrame(mats + 9 * k, pl, l);
        double t = pl[3] - (pl[0] * pos[3 * k] + pl[1] * pos[3 * k + 1] + pl[2] * pos[3 * k + 2]);
        double hmax, hmin;
        Support(m_.geoms[k], l, &hmax, &hmin);
        if (hmax > t) {
          keep = true;
          break;
        }
      }
      if (keep) {
        if (m_.sea.active && sea_row_[c] == j) kept_sea_[c] = npl;
        for (int a = 0; a < 4; ++a) o_.planes[4 * npl + a] = pl[a];
        ++npl;
        last = j;
      }
    }
    const bool seac = m_.sea.active && sea_side_[c] != 0;
    if (seac) {  // its kept planes, for SeaForces
      kept_n_[c] = npl;
      std::copy(o_.planes, o_.planes + 4 * npl, kept_.begin() + 4 * static_cast<size_t>(c) * m_.kmax);
    }
    int comp = -1;
    if (npl == 1) {
      one_[c] = 1;
      for (int c2 = 0; c2 < c; ++c2) {
        if (one_[c2] != 1) continue;
        // a sea cell is the complement of a sea cell only (the same tangent plane per geom)
        if (m_.sea.active && (sea_side_[c2] != 0) != seac) continue;
        const double* p2 = m_.Planes(c2) + 4 * static_cast<int64_t>(onesg_[c2]);
        if (p2[0] == -o_.planes[0] && p2[1] == -o_.planes[1] && p2[2] == -o_.planes[2] &&
            p2[3] == -o_.planes[3]) {
          comp = c2;
          break;
        }
      }
      onesg_[c] = static_cast<double>(last);
    }
    if (comp >= 0) {
      for (int k = 0; k < ng_; ++k) {
        const Geom& g = m_.geoms[k];
        const double* R = mats + 9 * k;
        const double* gc = g.centre;
        double fx = pos[3 * k] + R[0] * gc[0] + R[1] * gc[1] + R[2] * gc[2];
        double fy = pos[3 * k + 1] + R[3] * gc[0] + R[4] * gc[1] + R[5] * gc[2];
        double fzz = pos[3 * k + 2] + R[6] * gc[0] + R[7] * gc[1] + R[8] * gc[2];
        const int64_t si = Piece(k, c), so = Piece(k, comp);
        double Vo = o_.vols[so];
        double V = g.volume - Vo;
        double* ce = o_.cents + 3 * si;
        const double* co = o_.cents + 3 * so;
        if (V <= 1e-13 * g.volume) {
          o_.vols[si] = 0.0;
          ce[0] = fx;
          ce[1] = fy;
          ce[2] = fzz;
        } else if (Vo <= 0.0) {
          o_.vols[si] = g.volume;
          ce[0] = fx;
          ce[1] = fy;
          ce[2] = fzz;
        } else {
          o_.vols[si] = V;
          ce[0] = (g.volume * fx - Vo * co[0]) / V;
          ce[1] = (g.volume * fy - Vo * co[1]) / V;
          ce[2] = (g.volume * fzz - Vo * co[2]) / V;
        }
        o_.areas[si] = o_.areas[so];
      }
      continue;
    }
    // boxes cut by one plane several at a time (BoxRows), the rest one by one
    const bool boxes = npl == 1 && !box_idx_.empty() && !seac;
    if (boxes)
      BoxRows(box_idx_.data(), static_cast<int>(box_idx_.size()), gsz_.data(), pos, mats, o_.planes,
              o_.out, 5);
    for (int k = 0; k < ng_; ++k) {
      const Geom& g = m_.geoms[k];
      double* row = o_.out + 5 * k;
      if (seac)  // against the geom's own tangent plane of the sea
        ClipGeom(g.type, g.size, pos + 3 * k, mats + 9 * k, g.mesh, m_.hulls, GeomPlanes(c, k), npl,
                 row, 5, false, scratch_);
      else if (!(boxes && g.type == kBox))
        ClipGeom(g.type, g.size, pos + 3 * k, mats + 9 * k, g.mesh, m_.hulls, o_.planes, npl, row,
                 5, false, scratch_);
      const int64_t si = Piece(k, c);
      o_.vols[si] = row[0];
      double* ce = o_.cents + 3 * si;
      ce[0] = row[1];
      ce[1] = row[2];
      ce[2] = row[3];
      o_.areas[si] = npl <= 1 ? row[4] : std::numeric_limits<double>::quiet_NaN();
    }
  }
}

#if defined(__SSE2__)
#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
void WrenchesPair(ForceStage& s, int k, int c, const ForceStage::Run& r, int typ,
                  const ForceStage::PieceFlags& pf) {
  if (s.nc_ == 2)  // the four pieces side by side: one load or store a column
    s.Wrenches<lanes::W4, 2>(k, c, r, typ, pf);
  else
    s.Wrenches<lanes::W4, 0>(k, c, r, typ, pf);
}
#endif

bool ForceStage::PieceInputs(int k, bool record, bool* anysurf) {
  const GravityField& G = m_.gravity;
  const bool uniform = G.kind == GravityField::Kind::kUniform;
  const Geom& geom = m_.geoms[k];
  const bool displaces = geom.mark == Mark::kDisplacement;
  const int nc = nc_;
  const int64_t S = slot_stride_;
  double* sl = slots_.data();
  if (displaces && rho_max_ > 0.0) {  // the submerged fraction of its weld group, summed
    double s = 0.0;
    for (int c = 0; c < nc; ++c) s += m_.cells[c].rho * o_.vols[Piece(k, c)];
    o_.wfrac[geom.weld] += s / rho_max_;
  }
  const bool surfk = m_.damping && displaces;  // surface damping where the section area A > 0
  bool any = false;
  *anysurf = false;
  for (int c = 0; c < nc; ++c) {
    const int64_t si = Piece(k, c);
    const Cell& cell = m_.cells[c];
    const bool valid = o_.vols[si] > 0.0 && !(geom.mark == Mark::kWindage && !cell.gas);
    valid_[si] = valid ? 1 : 0;
    if (!valid) continue;
    any = true;
    const double A = o_.areas[si];
    const bool surf = surfk && A == A && A > 0.0;
    *anysurf |= surf;
    if (uniform) continue;
    const double* x = o_.cents + 3 * si;
    const bool cellg = G.kind == GravityField::Kind::kPerCell && cell.HasGravity();
    double g[3];
    if (cellg) {
      g[0] = cell.g[0];
      g[1] = cell.g[1];
      g[2] = cell.g[2];
    } else {
      G.At(x, g);
    }
    for (int a = 0; a < 3; ++a) sl[(kSG + a) * S + si] = g[a];
    if (record && displaces && m_.buoyancy)  // the potential phi (J/kg) for the pressure energy U
      sl[kSPhi * S + si] = cellg ? UniformPotential(g, cell.k, x) : G.Potential(x);
    if (surf) Up(g, k);
    sl[kSSurf * S + si] = surf && up_.gn > 0.0 ? 1.0 : 0.0;
    if (surf && up_.gn > 0.0) {
      sl[kSGH * S + si] = up_.gh;
      for (int a = 0; a < 3; ++a) sl[(kSN + a) * S + si] = up_.n[a];
    }
  }
  return any;
}

ForceStage::PieceFlags ForceStage::Flags(const ForceData& d, int k, bool record, bool anysurf) {
  const GravityField& G = m_.gravity;
  const bool uniform = G.kind == GravityField::Kind::kUniform;
  const Geom& geom = m_.geoms[k];
  const bool displaces = geom.mark == Mark::kDisplacement;
  // the drag model on the degrees of freedom the weld group declares no term for
  const int wm = displaces && nw_ > 0 ? wmode_[geom.weld] : 0;
  const int64_t mb = wm == 1 ? wmbody_[geom.weld] : 0;
  PieceFlags pf{displaces && m_.buoyancy, m_.drag && wm != 2, record, m_.sea.active, anysurf, uniform, false,
                G.g, up_.n, 0.0, wm == 1 ? wkeep_.data() + 6 * geom.weld : nullptr, d.xmat + 9 * mb,
                d.xpos + 3 * mb, gup_, 0.0};
  if (uniform && anysurf) {
    Up(G.g, k);
    pf.surf = up_.gn > 0.0;
    pf.gh = up_.gh;
  }
  return pf;
}

void ForceStage::SumPieces(int k, const PieceFlags& pf, bool record, bool keepd, Sums* s) const {
  const int64_t S = slot_stride_;
  const double* sl = slots_.data();
  const bool work = pf.drag || pf.damp || (pf.sea && pf.buoy);
  Sums t = *s;  // in locals (the slots cannot alias them)
  for (int c = 0; c < nc_; ++c) {
    const int64_t si = Piece(k, c);
    if (!valid_[si]) continue;
    for (int a = 0; a < 3; ++a) {
      t.m[a] += sl[(kSM + a) * S + si];
      t.F[a] += sl[(kSF + a) * S + si];
    }
    if (record) {
      if (pf.buoy) t.ubuoy += sl[kSU * S + si];
      if (work) t.pdrag += sl[kSP * S + si];
    }
    if (keepd && work)
      for (int a = 0; a < 3; ++a) {
        t.dm[a] += sl[(kSDM + a) * S + si];
        t.dF[a] += sl[(kSDF + a) * S + si];
      }
  }
  *s = t;
}

// Per geom, per cell: buoyancy, drag, surface damping.  Per geom in model order:
// (A) its body's run and, per piece (the geom's part in one cell), what the piece
// reads that is not in the clip's rows: gravity, the pressure potential, the
// surface's up direction and height (PieceInputs; Up, cached while gravity's bits and
// the geom stay the same); (B) the wrenches and ledger terms in lanes (Wrenches): two
// geoms of one body (boxes or meshes, the same flags) together, their cells two at a time
// (WrenchesPair), else one geom's cells two at a time; (C) the sums, in piece order (geoms,
// then cells: SumPieces): per run of consecutive geoms on one body, the wrench (moment about
// the root's subtree com, world) projected on its dofs once, when the run ends.  No
// piece's wrench waits on the sums, so the batches give the bits one geom at a time gives.
void ForceStage::Pieces(const ForceData& d, bool record) {
  up_ = UpCache{};
  Run run;          // the current run
  int64_t sb = -1;  // its body
  Sums sums;        // the run's wrench so far, and the ledger's terms over every run
  sums.ubuoy = o_.led[kLUBuoy];
  sums.pdrag = o_.led[kLPDrag];
  const bool keepd = record && (m_.drag || m_.damping || m_.sea.active) && o_.qdrag;
  if (!gexp_ready_) {  // the faces' exposure, once (relative poses within a weld group are fixed)
    FaceExposure(m_.geoms, o_.pos, o_.mats, &gexp_, &gcov_);
    gexp_ready_ = true;
  }
  const int nc = nc_;
  auto boxy = [](const Geom& g) { return g.type == kBox || g.type == kMesh; };
  int ready = -1;  // a geom whose pass A ran already (a batch's second that did not batch)
  bool ready_any = false, ready_surf = false;
  PieceFlags ready_pf{};  // its flags (where it has pieces)
  for (int k = 0; k < ng_; ++k) {
    const Geom& geom = m_.geoms[k];
    const int64_t b = geom.body;
    if (geom.mark != Mark::kDisplacement && geom.mark != Mark::kWindage) continue;
    if (b != sb) {  // a new run: its root's subtree com, its velocity, |w|
      if (sb >= 0) {  // the last run's wrench to its dofs
        Project(d, sb, sums.m, sums.F);
        if (keepd) ProjectDrag(d, sb, sums.dm, sums.dF);
        for (int a = 0; a < 3; ++a) sums.m[a] = sums.F[a] = sums.dm[a] = sums.dF[a] = 0.0;
      }
      sb = b;
      const int64_t rb = m_.bodies[b].root;
      for (int a = 0; a < 3; ++a) run.sc[a] = d.subtree_com[3 * rb + a];
      const double* cv = d.cvel + 6 * b;
      for (int a = 0; a < 6; ++a) run.cv[a] = cv[a];
      run.wn = std::sqrt(cv[0] * cv[0] + cv[1] * cv[1] + cv[2] * cv[2]);
    }
    // (A) this geom's inputs
    bool anysurf = ready_surf;
    const bool any = k == ready ? ready_any : PieceInputs(k, record, &anysurf);
    if (!any) continue;
    const PieceFlags pf = k == ready ? ready_pf : Flags(d, k, record, anysurf);
    // (B) this geom's wrenches, batched with the next geom's where it can
    int c = 0;
#if defined(__SSE2__)
    const Geom* g2 = k + 1 < ng_ ? &m_.geoms[k + 1] : nullptr;
    if (batches_ && nc >= 2 && boxy(geom) && g2 && g2->body == b && g2->mark == geom.mark && boxy(*g2)) {
      ready = k + 1;
      ready_any = PieceInputs(k + 1, record, &ready_surf);
      if (ready_any) ready_pf = Flags(d, k + 1, record, ready_surf);
      const PieceFlags& pf2 = ready_pf;
      if (ready_any && pf2.buoy == pf.buoy && pf2.drag == pf.drag && pf2.damp == pf.damp &&
          pf2.surf == pf.surf && pf2.keep == pf.keep && pf2.mR == pf.mR && pf2.mo == pf.mo) {
        PieceFlags pp = pf;
        pp.gh2 = pf2.gh;
        for (; c + 2 <= nc; c += 2) {
          const int64_t s0 = Piece(k, c), s1 = Piece(k + 1, c);
          if (valid_[s0] || valid_[s0 + 1] || valid_[s1] || valid_[s1 + 1]) WrenchesPair(*this, k, c, run, geom.type, pp);
        }
        GeomWrenches(k, c, run, pf);
        GeomWrenches(k + 1, c, run, pf2);
        SumPieces(k, pf, record, keepd, &sums);  // (C) in piece order
        SumPieces(k + 1, pf2, record, keepd, &sums);
        ++k;
        continue;
      }
    }
#endif
    GeomWrenches(k, c, run, pf);
    // (C) the sums, in piece order
    SumPieces(k, pf, record, keepd, &sums);
  }
  if (sb >= 0) Project(d, sb, sums.m, sums.F);
  if (sb >= 0 && keepd) ProjectDrag(d, sb, sums.dm, sums.dF);
  o_.led[kLUBuoy] = sums.ubuoy;
  o_.led[kLPDrag] = sums.pdrag;
}

// Geom k's wrenches (pass B) in cells c0 .. nc: two cells at a time, then one.
void ForceStage::GeomWrenches(int k, int c0, const Run& run, const PieceFlags& pf) {
  const int nc = nc_, typ = m_.geoms[k].type;
  int c = c0;
#if defined(__SSE2__)
  for (; c + 2 <= nc; c += 2)
    if (valid_[Piece(k, c)] || valid_[Piece(k, c) + 1]) Wrenches<lanes::D2>(k, c, run, typ, pf);
#endif
  for (; c < nc; ++c)
    if (valid_[Piece(k, c)]) Wrenches<lanes::D1>(k, c, run, typ, pf);
}

}  // namespace aurgen::core
