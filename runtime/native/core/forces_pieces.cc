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
inline L ProjAreaV(const double* pr, L wx, L wy, L wz) {
  using namespace lanes;  // NOLINT: the lane types and their operators
  const L p = Set(pr[0], L{}) * wx, q = Set(pr[1], L{}) * wy, s = Set(pr[2], L{}) * wz;
  return Set(kPi, L{}) * Sqrt(p * p + q * q + s * s);
}

// The projected area (m^2) of a sphere, cylinder or capsule across the unit
// direction u (geom frame), one piece per lane.
template <class L>
inline L ProjArea(int typ, const double* size, L ux, L uy, L uz) {
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
inline void Keep(const double* R, const double* keep, L* x, L* y, L* z) {
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

// Face j of geom k's exposed share for its pieces in cells c, c + 1, ...: gexp_, or 1 where its
// coverer has no part in the piece's cell.
template <class L>
L ForceStage::Exposed(int k, int j, int c, L z) const {
  using namespace lanes;  // NOLINT
  const double e = gexp_[6 * static_cast<int64_t>(k) + j];
  const int64_t cv = gcov_[6 * static_cast<int64_t>(k) + j];
  if (cv < 0 || e == 1.0) return Set(e, z);
  const auto wet = Load(o_.vols + Piece(static_cast<int>(cv), c), z) > Set(0.0, z);
  return Sel(wet, Set(e, z), Set(1.0, z));
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
void ForceStage::FaceAreas(int k, int c, const PieceFlags& pf, L f, L A, L wx, L wy, L wz, L a[3]) {
  using namespace lanes;  // NOLINT
  const L z{};
  const L zero = Set(0.0, z), one = Set(1.0, z);
  const int64_t S = slot_stride_, si = Piece(k, c);
  const double* sl = slots_.data();
  const double* R = o_.mats + 9 * k;
  L u[3];  // up in the geom frame, per lane (down in a gas cell)
  if (pf.uniform) {  // one up for every piece (pf.up: -g / |g|, or 0 without gravity)
    const L side = Load(cup_.data() + c, z);
    const double* n = pf.up;
    for (int i = 0; i < 3; ++i) u[i] = Set(R[i] * n[0] + R[3 + i] * n[1] + R[6 + i] * n[2], z) * side;
  } else {
    const L g0 = Load(sl + kSG * S + si, z), g1 = Load(sl + (kSG + 1) * S + si, z),
            g2 = Load(sl + (kSG + 2) * S + si, z);
    const L gn2 = g0 * g0 + g1 * g1 + g2 * g2;
    const auto hasg = gn2 > zero;
    const L s = Sel(hasg, -Load(cup_.data() + c, z) / Sqrt(Sel(hasg, gn2, one)), zero);
    const L n0 = g0 * s, n1 = g1 * s, n2 = g2 * s;  // up, world
    for (int i = 0; i < 3; ++i) u[i] = Set(R[i], z) * n0 + Set(R[3 + i], z) * n1 + Set(R[6 + i], z) * n2;
  }
  const L w[3] = {Abs(wx), Abs(wy), Abs(wz)};
  const auto cut = A > zero;  // false for nan (several planes)
  const double* pr = gpr_.data() + 3 * k;
  for (int i = 0; i < 3; ++i) {
    const L q = u[i] * u[i];
    const L wet = f + (one - f) * q;
    const auto upw = u[i] >= zero;
    const L em = Exposed(k, 2 * i, c, z), ep = Exposed(k, 2 * i + 1, c, z);
    L eu = Sel(upw, ep, em);
    const L ed = Sel(upw, em, ep);
    eu = Sel(cut, eu + (one - eu) * q, eu);
    a[i] = Set(2.0 * pr[i], z) * wet * (eu + ed) * w[i];
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

// Piece (B): the wrench and ledger terms of geom k's pieces in cells c .. c + lanes
// (one per lane; a lane whose piece is not valid computes what pass C skips).
// The force F (world) is buoyancy -rho V g plus drag; the torque T is drag's;
// the moment about the run's root subtree com M = T + (x - com) x F; U (J) the
// pressure energy, P (W) the drag power.  The scalar code's operations in its
// order in every lane (lanes.h), so D2 and D1 give the same bits.
template <class L>
void ForceStage::Wrenches(int k, int c, const Run& r, int typ, PieceFlags pf) {
  using namespace lanes;  // NOLINT: the lane types and their operators
  const L z{};
  const L zero = Set(0.0, z);
  const int nc = nc_;
  const int64_t S = slot_stride_, si = Piece(k, c);
  const int64_t ii[2] = {si, si + 1};
  double* sl = slots_.data();
  auto col = [&](int j) { return sl + j * S + si; };
  const L V = Load(o_.vols + si, z), rho = Load(crho_.data() + c, z);
  const L x0 = Gather(o_.cents, ii, 3, 0, z), x1 = Gather(o_.cents, ii, 3, 1, z),
          x2 = Gather(o_.cents, ii, 3, 2, z);
  const L dx = x0 - Set(r.sc[0], z), dy = x1 - Set(r.sc[1], z), dz = x2 - Set(r.sc[2], z);
  L F0 = zero, F1 = zero, F2 = zero, T0 = zero, T1 = zero, T2 = zero;
  L Fb0 = zero, Fb1 = zero, Fb2 = zero;  // a sea cell's buoyancy: booked as work (recorded)
  // the recorded work: force W (drag and damping, and a sea cell's buoyancy) and torque Tw at the
  // piece's velocity (va, w), with its moment about the run's root com
  auto book = [&](L W0, L W1, L W2, L Tw0, L Tw1, L Tw2, L va0, L va1, L va2, L w0, L w1, L w2) {
    Store(col(kSP), W0 * va0 + W1 * va1 + W2 * va2 + Tw0 * w0 + Tw1 * w1 + Tw2 * w2);
    Store(col(kSDM), Tw0 + dy * W2 - dz * W1);
    Store(col(kSDM + 1), Tw1 + dz * W0 - dx * W2);
    Store(col(kSDM + 2), Tw2 + dx * W1 - dy * W0);
    Store(col(kSDF), W0);
    Store(col(kSDF + 1), W1);
    Store(col(kSDF + 2), W2);
  };
  if (pf.buoy) {
    const L nrv = -rho * V;
    const L g0 = pf.uniform ? Set(pf.g[0], z) : Load(col(kSG), z);
    const L g1 = pf.uniform ? Set(pf.g[1], z) : Load(col(kSG + 1), z);
    const L g2 = pf.uniform ? Set(pf.g[2], z) : Load(col(kSG + 2), z);
    F0 = nrv * g0;
    F1 = nrv * g1;
    F2 = nrv * g2;
    if (pf.record) {  // U = integral of the hydrostatic pressure p = -rho phi + P over the piece
      const L phi = pf.uniform ? -(g0 * x0 + g1 * x1 + g2 * x2) : Load(col(kSPhi), z);  // Phi
      if (pf.sea) {
        const auto sm = Load(seamask_.data() + c, z) > zero;
        Store(col(kSU), Sel(sm, zero, V * (-rho * phi + Load(cP_.data() + c, z))));
        Fb0 = Sel(sm, F0, zero);
        Fb1 = Sel(sm, F1, zero);
        Fb2 = Sel(sm, F2, zero);
      } else {
        Store(col(kSU), V * (-rho * phi + Load(cP_.data() + c, z)));
      }
    }
  }
  if (pf.drag || pf.damp) {
    const L w0 = Set(r.cv[0], z), w1 = Set(r.cv[1], z), w2 = Set(r.cv[2], z);
    const L f = V / Set(m_.geoms[k].volume, z);
    // the piece centroid's velocity (MotionAt), then relative to the cell's flow
    const L vab0 = Set(r.cv[3], z) + w1 * dz - w2 * dy;
    const L vab1 = Set(r.cv[4], z) + w2 * dx - w0 * dz;
    const L vab2 = Set(r.cv[5], z) + w0 * dy - w1 * dx;
    // (a sea: the piece's own, the cell's flow plus the orbital velocity at its centroid)
    const double* fl = pf.sea ? pflow_.data() + si : cflow_.data() + c;
    const int64_t fs = pf.sea ? S : nc;
    const L v0 = vab0 - Load(fl, z), v1 = vab1 - Load(fl + fs, z), v2 = vab2 - Load(fl + 2 * fs, z);
    const L sp2 = v0 * v0 + v1 * v1 + v2 * v2;  // |v|^2: sqrt only where needed
    // the relative velocity in the geom frame
    const double* R = o_.mats + 9 * k;
    const L lx = Set(R[0], z) * v0 + Set(R[3], z) * v1 + Set(R[6], z) * v2;
    const L ly = Set(R[1], z) * v0 + Set(R[4], z) * v1 + Set(R[7], z) * v2;
    const L lz = Set(R[2], z) * v0 + Set(R[5], z) * v1 + Set(R[8], z) * v2;
    L Fd0 = zero, Fd1 = zero, Fd2 = zero, Td0 = zero, Td1 = zero, Td2 = zero;
    if (pf.drag) {
    const L dQ = Load(dcoef_.data() + kDQ * S + si, z);
    const auto moving = sp2 > zero;  // else no drag force
    if (typ == kBox || typ == kMesh) {  // per geom axis, on its exposed, wetted faces (FaceAreas)
      L a[3];
      FaceAreas(k, c, pf, f, Load(o_.areas + si, z), lx, ly, lz, a);
      const L lin = Load(dcoef_.data() + kDLin * S + si, z) * f;
      const L f0 = -(lin + dQ * a[0]) * lx, f1 = -(lin + dQ * a[1]) * ly, f2 = -(lin + dQ * a[2]) * lz;
      Fd0 = Set(R[0], z) * f0 + Set(R[1], z) * f1 + Set(R[2], z) * f2;
      Fd1 = Set(R[3], z) * f0 + Set(R[4], z) * f1 + Set(R[5], z) * f2;
      Fd2 = Set(R[6], z) * f0 + Set(R[7], z) * f1 + Set(R[8], z) * f2;
    } else {
      L dq;  // 0.5 rho C_D A_p |v| (kg/s): no division where A_p is homogeneous
      if (typ == kEllipsoid) {
        dq = dQ * ProjAreaV(gpr_.data() + 3 * k, lx, ly, lz);
      } else {
        const L sp = Sqrt(sp2);
        dq = dQ * ProjArea(typ, m_.geoms[k].size, lx / sp, ly / sp, lz / sp) * sp;
      }
      const L ncoef = -((Load(dcoef_.data() + kDLin * S + si, z) + dq) * f);
      Fd0 = Sel(moving, ncoef * v0, zero);
      Fd1 = Sel(moving, ncoef * v1, zero);
      Fd2 = Sel(moving, ncoef * v2, zero);
    }
    const L nct = -((Load(dcoef_.data() + kDRot * S + si, z) +
                     Load(dcoef_.data() + kDRot2 * S + si, z) * Set(r.wn, z)) *
                    f);
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
    const L A = Load(o_.areas + si, z);
    const auto surf = pf.uniform ? (pf.surf ? A > zero : zero > zero) : Load(col(kSSurf), z) > zero;
    if (Any(surf)) {
      const L n0 = pf.uniform ? Set(pf.n[0], z) : Load(col(kSN), z);
      const L n1 = pf.uniform ? Set(pf.n[1], z) : Load(col(kSN + 1), z);
      const L n2 = pf.uniform ? Set(pf.n[2], z) : Load(col(kSN + 2), z);
      const L gh = pf.uniform ? Set(pf.gh, z) : Load(col(kSGH), z);
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
    if (pf.record && pf.sea)  // with the sea cells' buoyancy
      book(Fd0 + Fb0, Fd1 + Fb1, Fd2 + Fb2, Td0, Td1, Td2, vab0, vab1, vab2, w0, w1, w2);
    else if (pf.record)
      book(Fd0, Fd1, Fd2, Td0, Td1, Td2, vab0, vab1, vab2, w0, w1, w2);
    F0 = F0 + Fd0;
    F1 = F1 + Fd1;
    F2 = F2 + Fd2;
    T0 = T0 + Td0;
    T1 = T1 + Td1;
    T2 = T2 + Td2;
  } else if (pf.record && pf.sea) {  // the sea cells' buoyancy alone as work
    const L w0 = Set(r.cv[0], z), w1 = Set(r.cv[1], z), w2 = Set(r.cv[2], z);
    const L vab0 = Set(r.cv[3], z) + w1 * dz - w2 * dy;
    const L vab1 = Set(r.cv[4], z) + w2 * dx - w0 * dz;
    const L vab2 = Set(r.cv[5], z) + w0 * dy - w1 * dx;
    book(Fb0, Fb1, Fb2, zero, zero, zero, vab0, vab1, vab2, w0, w1, w2);
  }
  Store(col(kSM), T0 + dy * F2 - dz * F1);
  Store(col(kSM + 1), T1 + dz * F0 - dx * F2);
  Store(col(kSM + 2), T2 + dx * F1 - dy * F0);
  Store(col(kSF), F0);
  Store(col(kSF + 1), F1);
  Store(col(kSF + 2), F2);
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

// Per geom, per cell: buoyancy, drag, surface damping.  Per geom in model order:
// (A) its body's run and, per piece (the geom's part in one cell), what the piece
// reads that is not in the clip's rows: gravity, the pressure potential, the
// surface's up direction and height (Up, cached while gravity's bits and the geom
// stay the same); (B) the wrenches and ledger terms, its cells two at a time in
// lanes (Wrenches); (C) the sums, in piece order (geoms, then cells): per run of
// consecutive geoms on one body, the wrench (moment about the root's subtree com,
// world) projected on its dofs once, when the run ends.  No piece's wrench waits
// on the sums.
void ForceStage::Pieces(const ForceData& d, bool record) {
  const GravityField& G = m_.gravity;
  const bool drag = m_.drag, buoy = m_.buoyancy;
  // one gravity for every piece (a uniform field, no cell's own): pass B reads
  // it, and the up direction, from PieceFlags instead of the slots
  const bool uniform = G.kind == GravityField::Kind::kUniform;
  up_ = UpCache{};
  Run run;  // the current run
  int64_t sb = -1;  // its body
  double sm[3] = {0.0, 0.0, 0.0}, sF[3] = {0.0, 0.0, 0.0};  // the run's wrench so far
  double dm[3] = {0.0, 0.0, 0.0}, dF[3] = {0.0, 0.0, 0.0};  // of which drag (recorded)
  const bool damping = m_.damping;
  const bool sea = m_.sea.active;
  const bool keepd = record && (drag || damping || sea) && o_.qdrag;
  if (!gexp_ready_) {  // the faces' exposure, once (relative poses within a weld group are fixed)
    FaceExposure(m_.geoms, o_.pos, o_.mats, &gexp_, &gcov_);
    gexp_ready_ = true;
  }
  double l_ubuoy = o_.led[kLUBuoy], l_pdrag = o_.led[kLPDrag];
  const int nc = nc_;
  const int64_t S = slot_stride_;
  double* sl = slots_.data();
  for (int k = 0; k < ng_; ++k) {
    const Geom& geom = m_.geoms[k];
    const int64_t b = geom.body;
    if (geom.mark != Mark::kDisplacement && geom.mark != Mark::kWindage) continue;
    const bool displaces = geom.mark == Mark::kDisplacement;
    if (b != sb) {  // a new run: its root's subtree com, its velocity, |w|
      if (sb >= 0) {  // the last run's wrench to its dofs
        Project(d, sb, sm, sF);
        for (int a = 0; a < 3; ++a) sm[a] = sF[a] = 0.0;
        if (keepd) {
          ProjectDrag(d, sb, dm, dF);
          for (int a = 0; a < 3; ++a) dm[a] = dF[a] = 0.0;
        }
      }
      sb = b;
      const int64_t rb = m_.bodies[b].root;
      for (int a = 0; a < 3; ++a) run.sc[a] = d.subtree_com[3 * rb + a];
      const double* cv = d.cvel + 6 * b;
      for (int a = 0; a < 6; ++a) run.cv[a] = cv[a];
      run.wn = std::sqrt(cv[0] * cv[0] + cv[1] * cv[1] + cv[2] * cv[2]);
    }
    const int typ = geom.type;
    if (displaces && rho_max_ > 0.0) {  // the submerged fraction of its weld group, summed
      double s = 0.0;
      for (int c = 0; c < nc; ++c) s += m_.cells[c].rho * o_.vols[Piece(k, c)];
      o_.wfrac[geom.weld] += s / rho_max_;
    }
    const bool surfk = damping && displaces;  // surface damping where the section area A > 0
    bool any = false, anysurf = false;
    for (int c = 0; c < nc; ++c) {
      const int64_t si = Piece(k, c);
      const Cell& cell = m_.cells[c];
      const bool valid = o_.vols[si] > 0.0 && !(geom.mark == Mark::kWindage && !cell.gas);
      valid_[si] = valid ? 1 : 0;
      if (!valid) continue;
      any = true;
      const double A = o_.areas[si];
      const bool surf = surfk && A == A && A > 0.0;
      anysurf |= surf;
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
      if (record && displaces && buoy)  // the potential phi (J/kg) for the pressure energy U
        sl[kSPhi * S + si] = cellg ? UniformPotential(g, cell.k, x) : G.Potential(x);
      if (surf) Up(g, k);
      sl[kSSurf * S + si] = surf && up_.gn > 0.0 ? 1.0 : 0.0;
      if (surf && up_.gn > 0.0) {
        sl[kSGH * S + si] = up_.gh;
        for (int a = 0; a < 3; ++a) sl[(kSN + a) * S + si] = up_.n[a];
      }
    }
    if (!any) continue;
    // (B) this geom's wrenches, its cells two at a time
    // the drag model on the degrees of freedom the weld group declares no term for
    const int wm = displaces && nw_ > 0 ? wmode_[geom.weld] : 0;
    const int64_t mb = wm == 1 ? wmbody_[geom.weld] : 0;
    PieceFlags pf{displaces && buoy, drag && wm != 2, record, sea, anysurf, uniform, false, G.g, up_.n, 0.0,
                  wm == 1 ? wkeep_.data() + 6 * geom.weld : nullptr, d.xmat + 9 * mb, d.xpos + 3 * mb, gup_};
    if (uniform && anysurf) {
      Up(G.g, k);
      pf.surf = up_.gn > 0.0;
      pf.gh = up_.gh;
    }
    int c = 0;
#if defined(__SSE2__)
    for (; c + 2 <= nc; c += 2)
      if (valid_[Piece(k, c)] || valid_[Piece(k, c) + 1]) Wrenches<lanes::D2>(k, c, run, typ, pf);
#endif
    for (; c < nc; ++c)
      if (valid_[Piece(k, c)]) Wrenches<lanes::D1>(k, c, run, typ, pf);
    // (C) the sums, in piece order
    for (int c2 = 0; c2 < nc; ++c2) {
      const int64_t si = Piece(k, c2);
      if (!valid_[si]) continue;
      for (int a = 0; a < 3; ++a) {
        sm[a] += sl[(kSM + a) * S + si];
        sF[a] += sl[(kSF + a) * S + si];
      }
      const bool work = pf.drag || pf.damp || (pf.sea && pf.buoy);
      if (record) {
        if (pf.buoy) l_ubuoy += sl[kSU * S + si];
        if (work) l_pdrag += sl[kSP * S + si];
      }
      if (keepd && work)
        for (int a = 0; a < 3; ++a) {
          dm[a] += sl[(kSDM + a) * S + si];
          dF[a] += sl[(kSDF + a) * S + si];
        }
    }
  }
  if (sb >= 0) Project(d, sb, sm, sF);
  if (sb >= 0 && keepd) ProjectDrag(d, sb, dm, dF);
  o_.led[kLUBuoy] = l_ubuoy;
  o_.led[kLPDrag] = l_pdrag;
}

}  // namespace aurgen::core
