// aurgen.runtime._native: the compiled hydrostatics kernel for Python.
//
// Every function checks the shapes, dtypes and indices of its arrays and raises
// ValueError (never crashes) on a mismatch; inputs are converted to contiguous
// float64 / int64 when needed, outputs must already be writable C-contiguous
// float64 arrays (they are written in place).  Shapes and units are those of
// core/kernel.h; the Python facade is aurgen.runtime.hydrostatics.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/tuple.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>

#include <memory>
#include <vector>

#include "clip_poly.h"
#include "drag_faces.h"
#include "forces.h"
#include "kernel.h"
#include "lanes.h"
#include "hull.h"
#include "ledger.h"
#include "schema.h"
#include "sincos.h"
#include "state.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

namespace core = aurgen::core;
namespace hydro = aurgen::hydro;

template <typename T, typename... Extra>
using In = nb::ndarray<const T, nb::numpy, nb::c_contig, nb::device::cpu, Extra...>;
using OutF = nb::ndarray<double, nb::numpy, nb::c_contig, nb::device::cpu, nb::ndim<2>>;
using Out1 = nb::ndarray<double, nb::numpy, nb::c_contig, nb::device::cpu, nb::ndim<1>>;

[[noreturn]] void Fail(const std::string& msg) { throw nb::value_error(msg.c_str()); }

// The packed-hull tuple of geoms.pack_hulls, validated, kept alive for a call.
struct Hulls {
  In<double, nb::shape<-1, 3>> verts;
  In<int64_t, nb::ndim<1>> vert_range;
  In<double, nb::shape<-1, 6>> edges;
  In<int64_t, nb::ndim<1>> face_start;
  In<int64_t, nb::ndim<1>> face_range;
  In<double, nb::ndim<1>> volume;
  In<double, nb::shape<-1, 3>> centre;
  core::HullSet set;
};

template <typename A>
A CastArg(nb::handle h, const char* what) {
  try {
    return nb::cast<A>(h, /*convert=*/true);
  } catch (const nb::cast_error&) {
    Fail(std::string("hulls: ") + what + " has the wrong shape or dtype");
  }
}

bool Monotone(const int64_t* a, int64_t n, int64_t lo, int64_t hi) {
  if (n <= 0) return false;
  if (a[0] < lo || a[n - 1] > hi) return false;
  for (int64_t i = 1; i < n; ++i)
    if (a[i] < a[i - 1]) return false;
  return true;
}

void LoadHulls(nb::handle tup, Hulls& h) {
  nb::tuple t;
  if (!nb::try_cast(tup, t) || nb::len(t) != 7)
    Fail("hulls must be the 7-tuple of pack_hulls (verts, vert_range, edges, face_start, "
         "face_range, volume, centre)");
  h.verts = CastArg<decltype(h.verts)>(t[0], "verts (V, 3)");
  h.vert_range = CastArg<decltype(h.vert_range)>(t[1], "vert_range (M+1,) int64");
  h.edges = CastArg<decltype(h.edges)>(t[2], "edges (E, 6)");
  h.face_start = CastArg<decltype(h.face_start)>(t[3], "face_start (F+1,) int64");
  h.face_range = CastArg<decltype(h.face_range)>(t[4], "face_range (M+1,) int64");
  h.volume = CastArg<decltype(h.volume)>(t[5], "volume (M,)");
  h.centre = CastArg<decltype(h.centre)>(t[6], "centre (M, 3)");
  core::HullSet& s = h.set;
  s.nmesh = static_cast<int64_t>(h.volume.shape(0));
  s.nvert = static_cast<int64_t>(h.verts.shape(0));
  s.nedge = static_cast<int64_t>(h.edges.shape(0));
  s.nface = static_cast<int64_t>(h.face_start.shape(0)) - 1;
  if (static_cast<int64_t>(h.vert_range.shape(0)) != s.nmesh + 1 ||
      static_cast<int64_t>(h.face_range.shape(0)) != s.nmesh + 1 ||
      static_cast<int64_t>(h.centre.shape(0)) != s.nmesh || s.nface < 0)
    Fail("hulls: vert_range and face_range need M+1 entries, centre M rows (M = len(volume))");
  if (!Monotone(h.vert_range.data(), s.nmesh + 1, 0, s.nvert) ||
      !Monotone(h.face_range.data(), s.nmesh + 1, 0, s.nface) ||
      !Monotone(h.face_start.data(), s.nface + 1, 0, s.nedge))
    Fail("hulls: vert_range, face_range and face_start must be non-decreasing indices in range");
  s.verts = h.verts.data();
  s.vert_range = h.vert_range.data();
  s.edges = h.edges.data();
  s.face_start = h.face_start.data();
  s.face_range = h.face_range.data();
  s.volume = h.volume.data();
  s.centre = h.centre.data();
}

core::Scratch& ThreadScratch() {
  thread_local core::Scratch s;
  return s;
}

using Types = In<int64_t, nb::ndim<1>>;
using V3 = In<double, nb::shape<-1, 3>>;
using M33 = In<double, nb::shape<-1, 3, 3>>;
using Planes = In<double, nb::shape<-1, 4>>;

// Check the per-geom arrays of a batch; returns N.
int64_t CheckBatch(const Types& types, const V3& sizes, const V3& pos, const M33& mats,
                   const Types& mesh_ids, const core::HullSet& hs) {
  int64_t N = static_cast<int64_t>(types.shape(0));
  if (static_cast<int64_t>(sizes.shape(0)) != N || static_cast<int64_t>(pos.shape(0)) != N ||
      static_cast<int64_t>(mats.shape(0)) != N || static_cast<int64_t>(mesh_ids.shape(0)) != N)
    Fail("types (N,), sizes (N, 3), pos (N, 3), mats (N, 3, 3) and mesh_ids (N,) need the same N");
  for (int64_t i = 0; i < N; ++i) {
    int64_t t = types.data()[i];
    if (!core::IsKernelType(t))
      Fail("geom " + std::to_string(i) + ": type code " + std::to_string(t) +
           " is not a kernel type (MuJoCo codes 2 sphere, 3 capsule, 4 ellipsoid, 5 cylinder, "
           "6 box, 7 mesh)");
    if (t == core::kMesh) {
      int64_t m = mesh_ids.data()[i];
      if (m < 0 || m >= hs.nmesh)
        Fail("geom " + std::to_string(i) + ": mesh id " + std::to_string(m) +
             " out of range (the hulls hold " + std::to_string(hs.nmesh) + ")");
    }
  }
  return N;
}

void ClipRows(const Types& types, const V3& sizes, const V3& pos, const M33& mats,
              const Types& mesh_ids, const core::HullSet& hs, const double* planes, int P,
              double* out, int W, bool want_wp, int64_t N, bool box_tier = true,
              bool smooth_rows = true) {
  core::Scratch& s = ThreadScratch();
  s.box_generic = !box_tier;
  int64_t emax = 1, fmax = 1;
  auto need = [&](int t, int64_t mid) {
    int64_t e, f;
    core::ScratchNeed(t, mid, hs, P, &e, &f);
    emax = std::max(emax, e);
    fmax = std::max(fmax, f);
  };
  // a mesh's need depends on its hull, any other geom's on its type alone
  unsigned seen = 0;
  for (int64_t i = 0; i < N; ++i) {
    int64_t t = types.data()[i];
    if (t == core::kMesh)
      need(core::kMesh, mesh_ids.data()[i]);
    else
      seen |= 1u << t;
  }
  for (int t = core::kSphere; t < core::kMesh; ++t)
    if (seen & (1u << t)) need(t, 0);
  s.Reserve(emax, fmax, std::max(P, 1));
  int64_t bad = core::ClipBatch(types.data(), sizes.data(), pos.data(), mats.data(),
                                mesh_ids.data(), hs, planes, P, out, W, want_wp, N, s, smooth_rows);
  if (bad >= 0) Fail("internal: clip scratch too small for geom " + std::to_string(bad));
}

void ClipInto(const Types& types, const V3& sizes, const V3& pos, const M33& mats,
              const Types& mesh_ids, nb::handle hulls, const Planes& planes, OutF out,
              bool want_wp, bool box_tier, bool smooth_rows) {
  Hulls h;
  LoadHulls(hulls, h);
  int64_t N = CheckBatch(types, sizes, pos, mats, mesh_ids, h.set);
  if (static_cast<int64_t>(out.shape(0)) != N || out.shape(1) < 5)
    Fail("out must be (N, >= 5) float64, C-contiguous and writable");
  int P = static_cast<int>(planes.shape(0));
  int W = static_cast<int>(out.shape(1));
  nb::gil_scoped_release release;
  ClipRows(types, sizes, pos, mats, mesh_ids, h.set, planes.data(), P, out.data(), W, want_wp,
           N, box_tier, smooth_rows);
}

void ClipCellsInto(const Types& types, const V3& sizes, const V3& pos, const M33& mats,
                   const Types& mesh_ids, nb::handle hulls, const Planes& cell_planes,
                   const Types& cell_start,
                   nb::ndarray<double, nb::numpy, nb::c_contig, nb::device::cpu, nb::ndim<3>> out) {
  Hulls h;
  LoadHulls(hulls, h);
  int64_t N = CheckBatch(types, sizes, pos, mats, mesh_ids, h.set);
  int64_t C = static_cast<int64_t>(cell_start.shape(0)) - 1;
  int64_t K = static_cast<int64_t>(cell_planes.shape(0));
  if (C < 0 || !Monotone(cell_start.data(), C + 1, 0, K))
    Fail("cell_start must be (C+1,) non-decreasing row indices into cell_planes");
  if (static_cast<int64_t>(out.shape(0)) != C || static_cast<int64_t>(out.shape(1)) != N ||
      out.shape(2) < 5)
    Fail("out must be (C, N, >= 5) float64, C-contiguous and writable");
  int W = static_cast<int>(out.shape(2));
  nb::gil_scoped_release release;
  for (int64_t c = 0; c < C; ++c) {
    int64_t a = cell_start.data()[c], b = cell_start.data()[c + 1];
    ClipRows(types, sizes, pos, mats, mesh_ids, h.set, cell_planes.data() + 4 * a,
             static_cast<int>(b - a), out.data() + c * N * W, W, false, N);
  }
}

std::pair<double, double> Support(int64_t typ, In<double, nb::ndim<1>> size, double nx,
                                  double ny, double nz, V3 hv, int64_t v0, int64_t v1) {
  if (!core::IsKernelType(typ)) Fail("support_local: unknown geom type " + std::to_string(typ));
  if (size.shape(0) < 3) Fail("support_local: size needs 3 entries");
  if (typ == core::kMesh &&
      (v0 < 0 || v1 < v0 || v1 > static_cast<int64_t>(hv.shape(0))))
    Fail("support_local: vertex range out of bounds");
  double hi, lo;
  core::SupportLocal(static_cast<int>(typ), size.data(), nx, ny, nz, hv.data(), v0, v1, &hi, &lo);
  return {hi, lo};
}

std::tuple<double, double, double, double> Full(int64_t typ, In<double, nb::ndim<1>> size,
                                                In<double, nb::ndim<1>> hvol, V3 hcen,
                                                int64_t mid) {
  if (!core::IsKernelType(typ)) Fail("full_local: unknown geom type " + std::to_string(typ));
  if (size.shape(0) < 3) Fail("full_local: size needs 3 entries");
  core::HullSet hs;
  hs.volume = hvol.data();
  hs.centre = hcen.data();
  hs.nmesh = static_cast<int64_t>(hvol.shape(0));
  if (typ == core::kMesh &&
      (mid < 0 || mid >= hs.nmesh || static_cast<int64_t>(hcen.shape(0)) != hs.nmesh))
    Fail("full_local: mesh id out of range");
  double o[4];
  core::FullLocal(static_cast<int>(typ), size.data(), hs, mid, o);
  return {o[0], o[1], o[2], o[3]};
}

void SoupIntegratePy(In<double, nb::shape<-1, 6>> E, Types fs, int64_t nF, double nx, double ny,
                     double nz, double t, Out1 acc) {
  if (nF < 0 || static_cast<int64_t>(fs.shape(0)) < nF + 1 ||
      !Monotone(fs.data(), nF + 1, 0, static_cast<int64_t>(E.shape(0))))
    Fail("soup_integrate: fs must hold nF+1 non-decreasing edge indices into E");
  if (acc.shape(0) < core::kNAcc) Fail("soup_integrate: acc needs 14 entries");
  core::SoupIntegrate(E.data(), fs.data(), static_cast<int>(nF), nx, ny, nz, t, acc.data());
}

// ---------------------------------------------------------------- force stage

// Pointer to the data of an array that must already be C-contiguous with the
// given dtype (no conversion: the stage keeps the pointer); checks its shape,
// where -1 is any extent and -2 takes the extent from *n (first use sets it).
template <typename T>
T* Arr(nb::handle h, const char* name, std::initializer_list<int64_t*> dims) {
  nb::ndarray<T, nb::c_contig, nb::device::cpu> a;
  if (!nb::try_cast(h, a, /*convert=*/false))
    Fail(std::string("ForceStage: ") + name + " must be a C-contiguous " +
         (std::is_same_v<std::remove_const_t<T>, double> ? "float64" : "int64") +
         (std::is_const_v<T> ? "" : ", writable") + " array");
  if (a.ndim() != dims.size())
    Fail(std::string("ForceStage: ") + name + " has " + std::to_string(a.ndim()) +
         " dimensions, expected " + std::to_string(dims.size()));
  size_t i = 0;
  for (int64_t* n : dims) {
    int64_t got = static_cast<int64_t>(a.shape(i));
    if (n != nullptr) {
      if (*n < 0) *n = got;
      else if (*n != got)
        Fail(std::string("ForceStage: ") + name + " dimension " + std::to_string(i) + " is " +
             std::to_string(got) + ", expected " + std::to_string(*n));
    }
    ++i;
  }
  return a.data();
}

// The packed arrays of runtime/sim/plan.py Plan (runtime/sim/forces.py F_*, C_*), read once, by
// PyForceStage, into core::ForceModel's named records.
namespace packed {
enum Flag { kFDrag = 0, kFAdded = 1, kFGrav = 2, kFRecord = 3, kFBuoy = 4, kFDamp = 5, kNFlag = 6 };
// cf (nc x kNCF): density, viscosity, flow (3), own gravity (3, nan: none), pressure
// constant P, gas (1/0), potential constant K
enum CellColumn { kCRho = 0, kCMu = 1, kCFlow = 2, kCG = 5, kCP = 8, kCGas = 9, kCK = 10, kNCF = 11 };
// gf (kNGravF): g (3), mu, centre (3), g0 (3), grad (9, row-major)
enum GravityColumn { kGG = 0, kGMu = 3, kGCentre = 4, kGG0 = 7, kGGrad = 10, kNGravF = 19 };

core::GravityField Gravity(int64_t kind, const double* gf) {
  core::GravityField G;
  G.kind = static_cast<core::GravityField::Kind>(kind);
  std::copy(gf + kGG, gf + kGG + 3, G.g);
  G.mu = gf[kGMu];
  std::copy(gf + kGCentre, gf + kGCentre + 3, G.centre);
  std::copy(gf + kGG0, gf + kGG0 + 3, G.g0);
  std::copy(gf + kGGrad, gf + kGGrad + 9, G.grad);
  return G;
}

core::Cell CellOf(const double* row, int64_t nplanes) {
  core::Cell c;
  c.rho = row[kCRho];
  c.mu = row[kCMu];
  std::copy(row + kCFlow, row + kCFlow + 3, c.flow);
  std::copy(row + kCG, row + kCG + 3, c.g);
  c.p = row[kCP];
  c.k = row[kCK];
  c.gas = row[kCGas] != 0.0;
  c.nplanes = static_cast<int>(nplanes);
  return c;
}
}  // namespace packed

// The force stage of one (model, data) pair, built from the arrays
// runtime/sim/plan.py Plan assembles (the argument tuple of the numba reference passive(), in
// order): checked, and read once into the stage's records; the mjData views, the
// outputs, the body masses and inertias (live: a user may edit them) and the record
// flag fl[3] (set per stage) stay pointers into the tuple, which it holds.  run()
// evaluates once, with no arguments and no allocation.
class PyForceStage {
 public:
  explicit PyForceStage(nb::tuple args) : args_(args) {
    if (nb::len(args) != 49) Fail("ForceStage: expected the 49 arrays of plan.Plan.args");
    auto at = [&](int i) { return args[i]; };
    core::ForceData& D = data_;
    core::ForceOut& O = out_;
    int64_t ng = -1, nc = -1, kmax = -1, nb = -1, nv = -1, nw = -1, nd = -1, na = -1, maxd = -1,
            ngeom = -1, nM = -1, c3 = 3, c4 = 4, c5 = 5, c6 = 6, c9 = 9, c36 = 36, c72 = 72,
            c2 = 2, cF = packed::kNFlag, cG = packed::kNGravF, cC = packed::kNCF, cL = core::kNLed;
    fl_ = Arr<int64_t>(at(0), "fl", {&cF});
    const int64_t* gi = Arr<const int64_t>(at(1), "gi", {&ng, &c4});
    const int64_t* gt = Arr<const int64_t>(at(2), "gt", {&ng});
    const double* gcl = Arr<const double>(at(3), "gcl", {&ng, &c3});
    const double* gsz = Arr<const double>(at(4), "gsz", {&ng, &c3});
    const double* gvol = Arr<const double>(at(5), "gvol", {&ng});
    const int64_t* gw = Arr<const int64_t>(at(6), "gw", {&ng});
    const int64_t* mesh_ids = Arr<const int64_t>(at(7), "mesh_ids", {&ng});
    LoadHulls(at(8), hulls_);
    const double* cpl = Arr<const double>(at(9), "cpl", {&nc, &kmax, &c4});
    const int64_t* cnp = Arr<const int64_t>(at(10), "cnp", {&nc});
    const double* cf = Arr<const double>(at(11), "cf", {&nc, &cC});
    const double* gf = Arr<const double>(at(12), "gf", {&cG});
    const int64_t* bch = Arr<const int64_t>(at(13), "bch", {&nb, &maxd});
    const int64_t* bnd = Arr<const int64_t>(at(14), "bnd", {&nb});
    const int64_t* broot = Arr<const int64_t>(at(15), "broot", {&nb});
    const double* bmass = Arr<const double>(at(16), "bmass", {&nb});
    const double* binert = Arr<const double>(at(17), "binert", {&nb, &c3});
    const int64_t* di = Arr<const int64_t>(at(18), "di", {&nd, &c2});
    const double* df = Arr<const double>(at(19), "df", {&nd, &c72});
    const int64_t* ai = Arr<const int64_t>(at(20), "ai", {&na, &c4});
    const double* af = Arr<const double>(at(21), "af", {&na, &c36});
    const double* wvol = Arr<const double>(at(22), "wvol", {&nw});
    const int64_t* Mmap = Arr<const int64_t>(at(23), "Mmap", {&nv, &nv});
    D.qvel = Arr<const double>(at(24), "qvel", {&nv});
    D.geom_xpos = Arr<const double>(at(25), "geom_xpos", {&ngeom, &c3});
    D.geom_xmat = Arr<const double>(at(26), "geom_xmat", {&ngeom, &c9});
    D.xpos = Arr<const double>(at(27), "xpos", {&nb, &c3});
    D.xmat = Arr<const double>(at(28), "xmat", {&nb, &c9});
    D.xipos = Arr<const double>(at(29), "xipos", {&nb, &c3});
    D.ximat = Arr<const double>(at(30), "ximat", {&nb, &c9});
    D.cdof = Arr<const double>(at(31), "cdof", {&nv, &c6});
    D.cdof_dot = Arr<const double>(at(32), "cdof_dot", {&nv, &c6});
    D.subtree_com = Arr<const double>(at(33), "subtree_com", {&nb, &c3});
    D.cvel = Arr<const double>(at(34), "cvel", {&nb, &c6});
    D.qfrc_passive = Arr<double>(at(35), "qfrc_passive", {&nv});
    D.M = Arr<double>(at(36), "M", {&nM});
    O.pos = Arr<double>(at(37), "pos", {&ng, &c3});
    O.mats = Arr<double>(at(38), "mats", {&ng, &c3, &c3});
    O.planes = Arr<double>(at(39), "planes", {&kmax, &c4});
    O.out = Arr<double>(at(40), "out", {&ng, &c5});
    O.vols = Arr<double>(at(41), "vols", {&ng, &nc});
    O.cents = Arr<double>(at(42), "cents", {&ng, &nc, &c3});
    O.areas = Arr<double>(at(43), "areas", {&ng, &nc});
    O.wfrac = Arr<double>(at(44), "wfrac", {&nw});
    O.led = Arr<double>(at(45), "led", {&cL});
    O.qmine = Arr<double>(at(46), "qmine", {&nv});
    O.qdrag = Arr<double>(at(47), "qdrag", {&nv});
    const double* gcd = Arr<const double>(at(48), "gcd", {&ng});
    // indices
    auto in = [](int64_t v, int64_t lo, int64_t hi) { return v >= lo && v < hi; };
    if (!in(fl_[packed::kFGrav], 0, 4)) Fail("ForceStage: fl[2], the gravity kind, must be 0, 1, 2 or 3");
    for (int64_t k = 0; k < ng; ++k) {
      const int64_t* g = gi + 4 * k;
      if (!in(g[0], 0, ngeom) || !in(g[1], 0, nb) || !core::IsKernelType(g[2]) || gt[k] != g[2])
        Fail("ForceStage: gi row " + std::to_string(k) + " has a bad geom id, body id or type");
      if (nw > 0 ? !in(gw[k], 0, nw) : g[3] == 1)
        Fail("ForceStage: gw[" + std::to_string(k) + "] is not a weld group index");
      if (g[2] == core::kMesh && !in(mesh_ids[k], 0, hulls_.set.nmesh))
        Fail("ForceStage: mesh id of geom " + std::to_string(k) + " out of range");
      if (!(gcd[k] > 0.0 && gcd[k] <= core::kMaxDragCoefficient))
        Fail("ForceStage: gcd[" + std::to_string(k) + "]: " + core::kDragCoefficientError);
    }
    for (int64_t c = 0; c < nc; ++c)
      if (!in(cnp[c], 0, kmax + 1)) Fail("ForceStage: cnp out of range");
    for (int64_t b = 0; b < nb; ++b) {
      if (!in(bnd[b], 0, maxd + 1) || !in(broot[b], 0, nb))
        Fail("ForceStage: bnd or broot out of range for body " + std::to_string(b));
      for (int64_t k = 0; k < bnd[b]; ++k)
        if (!in(bch[b * maxd + k], 0, nv)) Fail("ForceStage: bch holds a dof out of range");
    }
    for (int64_t i = 0; i < nv * nv; ++i)
      if (!in(Mmap[i], -1, nM)) Fail("ForceStage: Mmap holds an index out of range of M");
    for (int64_t it = 0; it < nd; ++it) {
      if (!in(di[2 * it], 0, nb)) Fail("ForceStage: di row " + std::to_string(it) + " out of range");
      if (!in(di[2 * it + 1], -1, nw)) Fail("ForceStage: di weld group out of range");
    }
    for (int64_t it = 0; it < na; ++it) {
      const int64_t* a = ai + 4 * it;
      bool ok = in(a[1], 0, nb) && (a[0] == 1 ? in(a[2], 0, ngeom) && in(a[3], 0, ng)
                                             : a[0] == 0 && in(a[2], 0, nb));
      if (!ok) Fail("ForceStage: ai row " + std::to_string(it) + " out of range");
      if (a[0] == 0 && !in(a[3], -1, nw)) Fail("ForceStage: ai weld group out of range");
    }
    // the records
    core::ForceModel M;
    M.drag = fl_[packed::kFDrag] != 0;
    M.added_mass = fl_[packed::kFAdded] != 0;
    M.buoyancy = fl_[packed::kFBuoy] != 0;
    M.damping = fl_[packed::kFDamp] != 0;
    M.gravity = packed::Gravity(fl_[packed::kFGrav], gf);
    M.geoms.resize(ng);
    for (int64_t k = 0; k < ng; ++k) {
      core::Geom& g = M.geoms[k];
      g.id = gi[4 * k];
      g.body = gi[4 * k + 1];
      g.type = static_cast<int>(gi[4 * k + 2]);
      g.mark = static_cast<core::Mark>(gi[4 * k + 3]);
      g.weld = gw[k];
      g.mesh = mesh_ids[k];
      std::copy(gsz + 3 * k, gsz + 3 * k + 3, g.size);
      std::copy(gcl + 3 * k, gcl + 3 * k + 3, g.centre);
      g.volume = gvol[k];
      g.cd = gcd[k];
    }
    M.hulls = hulls_.set;
    for (int64_t c = 0; c < nc; ++c) M.cells.push_back(packed::CellOf(cf + packed::kNCF * c, cnp[c]));
    M.kmax = static_cast<int>(kmax);
    M.cell_planes.assign(cpl, cpl + nc * kmax * 4);
    M.bodies.resize(nb);
    for (int64_t b = 0; b < nb; ++b) M.bodies[b] = core::Body{broot[b], bnd[b]};
    M.maxd = static_cast<int>(maxd);
    M.chains.assign(bch, bch + nb * maxd);
    M.body_mass = bmass;
    M.body_inertia = binert;
    M.dampers.resize(nd);
    for (int64_t it = 0; it < nd; ++it) {
      core::Damper& dm = M.dampers[it];
      dm.body = di[2 * it];
      dm.group = di[2 * it + 1];
      std::copy(df + 72 * it, df + 72 * it + 36, dm.D);
      std::copy(df + 72 * it + 36, df + 72 * it + 72, dm.Dq);
    }
    M.added.resize(na);
    for (int64_t it = 0; it < na; ++it) {
      const int64_t* a = ai + 4 * it;
      core::AddedMass& am = M.added[it];
      am.kind = a[0] == 1 ? core::AddedMass::Kind::kGeom : core::AddedMass::Kind::kBody;
      am.body = a[1];
      am.object = a[2];
      (a[0] == 1 ? am.geom : am.group) = a[3];
      std::copy(af + 36 * it, af + 36 * it + 36, am.A);
    }
    M.weld_volume.assign(wvol, wvol + nw);
    M.nv = static_cast<int>(nv);
    M.Mmap.assign(Mmap, Mmap + nv * nv);
    stage_ = std::make_unique<core::ForceStage>(std::move(M), out_);
  }

  void Run() { stage_->Passive(data_, fl_[packed::kFRecord] != 0); }
  void SetBatches(bool on) { stage_->SetBatches(on); }

 private:
  nb::tuple args_;
  Hulls hulls_;
  int64_t* fl_ = nullptr;  // (kNFlag) fl[kFRecord] is read per evaluation
  core::ForceData data_;
  core::ForceOut out_;
  std::unique_ptr<core::ForceStage> stage_;
};

// ---------------------------------------------------------------- ledger

using Vec = In<double, nb::ndim<1>>;

void LedgerStepPy(Out1 st, double E, double ke, double P, double dt, double t, Vec qpos, Vec qvel,
                  Vec qacc, double z, Out1 zbuf) {
  if (st.shape(0) < core::kNState) Fail("ledger_step: st needs 12 entries");
  if (qacc.shape(0) != qvel.shape(0)) Fail("ledger_step: qvel and qacc differ in length");
  if (zbuf.shape(0) < 1) Fail("ledger_step: zbuf is empty");
  if (!(st.data()[core::kSN] >= 0.0)) Fail("ledger_step: the step count st[6] is not >= 0");
  core::LedgerStep(st.data(), E, ke, P * dt, dt, t, qpos.data(), static_cast<int64_t>(qpos.shape(0)),
                   qvel.data(), qacc.data(), static_cast<int64_t>(qvel.shape(0)), z, zbuf.data(),
                   static_cast<int64_t>(zbuf.shape(0)));
}

// The ledger of one Simulation, bound once to its arrays (kept alive here):
// account(dt, t, tb) after each runtime step, plain(dt, t, tb) for a model
// without an environment (no energy terms).
class PyLedger {
 public:
  explicit PyLedger(nb::tuple a) : args_(a) {
    if (nb::len(a) != 20)
      Fail("Ledger: expected (st, zbuf, led, q0, qfrc_actuator, qfrc_applied, qfrc_constraint, "
           "qfrc_passive, mine, xfrc_applied, cvel, xipos, subtree_com, body_rootid, qpos, qvel, qacc, "
           "qfrc_bias, qdrag, mdv)");
    int64_t cS = core::kNState, nz = -1, cL = core::kNLed, nv = -1, nb = -1, nq = -1, c3 = 3, c6 = 6;
    st_ = Arr<double>(a[0], "st", {&cS});
    zbuf_ = Arr<double>(a[1], "zbuf", {&nz});
    a_.led = Arr<const double>(a[2], "led", {&cL});
    a_.q0 = Arr<const double>(a[3], "q0", {&nv});
    a_.qa = Arr<const double>(a[4], "qfrc_actuator", {&nv});
    a_.qap = Arr<const double>(a[5], "qfrc_applied", {&nv});
    a_.qc = Arr<const double>(a[6], "qfrc_constraint", {&nv});
    a_.qp = Arr<const double>(a[7], "qfrc_passive", {&nv});
    a_.qmine = Arr<const double>(a[8], "mine", {&nv});
    a_.xfrc = Arr<const double>(a[9], "xfrc_applied", {&nb, &c6});
    a_.cvel = Arr<const double>(a[10], "cvel", {&nb, &c6});
    a_.xipos = Arr<const double>(a[11], "xipos", {&nb, &c3});
    a_.scom = Arr<const double>(a[12], "subtree_com", {&nb, &c3});
    a_.broot = Arr<const int64_t>(a[13], "body_rootid", {&nb});
    a_.qpos = Arr<const double>(a[14], "qpos", {&nq});
    a_.qvel = Arr<const double>(a[15], "qvel", {&nv});
    a_.qacc = Arr<const double>(a[16], "qacc", {&nv});
    qbias_ = Arr<const double>(a[17], "qfrc_bias", {&nv});
    qdrag_ = Arr<const double>(a[18], "qdrag", {&nv});
    mdv_ = Arr<const double>(a[19], "mdv", {&nv});
    if (nz < 1) Fail("Ledger: zbuf is empty");
    for (int64_t b = 0; b < nb; ++b)
      if (a_.broot[b] < 0 || a_.broot[b] >= nb) Fail("Ledger: body_rootid out of range");
    nz_ = nz;
    rk_.assign(1 + nv, 0.0);
    a_.nv = nv;
    a_.nb = nb;
    a_.nq = nq;
  }
  // exact: the exact rule (Euler, implicitfast, implicit; the caller filled mdv with
  // M (qvel - q0)); rk4: RK4's (the stages booked by rk4_stage); neither: the left
  // rectangle (core/ledger.h StepWork)
  void Account(double dt, double t, int64_t tb, bool exact, bool rk4) {
    Check(tb);
    core::StepArrays a = a_;
    if (exact) {
      a.qbias = qbias_;
      a.qdrag = qdrag_;
      a.mdv = mdv_;
    } else if (rk4) {
      a.rkw = rk_.data();
      a.rkv = rk_.data() + 1;
    }
    core::Account(st_, a, dt, t, tb, zbuf_, nz_);
  }
  // An RK4 stage k (0..3) evaluated (after the force stage): its share of the step's work
  // (core::RK4Stage, what the plugin's compute books).
  void RK4Stage(int k, double dt) {
    core::StepArrays a = a_;
    a.qdrag = qdrag_;
    core::RK4Stage(rk_.data(), k, dt, a);
  }
  void Plain(double dt, double t, int64_t tb) {
    Check(tb);
    core::AccountPlain(st_, a_, dt, t, tb, zbuf_, nz_);
  }

 private:
  void Check(int64_t tb) const {
    if (tb < 0 || tb >= a_.nb) Fail("Ledger: tracked body " + std::to_string(tb) + " out of range");
    if (!(st_[core::kSN] >= 0.0)) Fail("Ledger: the step count st[6] is not >= 0");
  }
  nb::tuple args_;
  double *st_, *zbuf_;
  core::StepArrays a_;  // what each account reads: pointers into args_
  const double *qbias_ = nullptr, *qdrag_ = nullptr, *mdv_ = nullptr;
  std::vector<double> rk_;  // RK4: the step's booked work and the latest stage's velocity
  int64_t nz_;
};

}  // namespace

// A HullPack as runtime/hydrostatics/geoms.py pack_hulls's tuple (verts, vert_range, edges, face_start,
// face_range, volume, centre), numpy arrays owning copies.
static nb::tuple PackTuple(const core::HullPack& pack) {
  auto D = [](const std::vector<double>& v, int64_t cols) {
    auto* p = new std::vector<double>(v);
    nb::capsule owner(p, [](void* q) noexcept { delete static_cast<std::vector<double>*>(q); });
    size_t rows = cols > 0 ? v.size() / cols : v.size();
    if (cols > 0) return nb::ndarray<nb::numpy, double>(p->data(), {rows, static_cast<size_t>(cols)}, owner);
    return nb::ndarray<nb::numpy, double>(p->data(), {rows}, owner);
  };
  auto I = [](const std::vector<int64_t>& v) {
    auto* p = new std::vector<int64_t>(v);
    nb::capsule owner(p, [](void* q) noexcept { delete static_cast<std::vector<int64_t>*>(q); });
    return nb::ndarray<nb::numpy, int64_t>(p->data(), {p->size()}, owner);
  };
  return nb::make_tuple(D(pack.verts, 3), I(pack.vert_range), D(pack.edges, 6), I(pack.face_start),
                        I(pack.face_range), D(pack.volume, 0), D(pack.centre, 3));
}

void RegisterSitl(nb::module_& m);  // bindings/sitl.cc

NB_MODULE(_native, m) {
  m.doc() =
      "aurgen's compiled hydrostatics kernel (C++17).  See aurgen.runtime.hydrostatics for the "
      "public API and docs/kernel.md for the algorithms.";
  m.attr("OUT_W") = core::kOutW;
  m.attr("N_ACC") = core::kNAcc;
  m.attr("NLON") = core::kNLon;
  m.attr("NLAT") = core::kNLat;
  RegisterSitl(m);

  m.def("clip_into", &ClipInto, "types"_a, "sizes"_a, "pos"_a, "mats"_a, "mesh_ids"_a, "hulls"_a,
        "planes"_a, "out"_a.noconvert(), "want_wp"_a, "box_tier"_a = true, "smooth_rows"_a = true,
        "Clip N geoms by the convex set planes (P, 4) rows (nx, ny, nz, d), n.x <= d, and write\n"
        "out (N, >= 5) in place: [V, cx, cy, cz, A] (m^3, world m, m^2); with want_wp and 14\n"
        "columns also [5:8] the section centroid and [8:14] its second moments (xx, yy, zz, xy,\n"
        "xz, yz) about it, world axes.  types: MuJoCo mjtGeom codes (N,); sizes (N, 3); pos\n"
        "(N, 3) world; mats (N, 3, 3) geom -> world; mesh_ids (N,) rows of hulls (a pack_hulls\n"
        "tuple).  Deterministic: the same inputs give bitwise the same outputs, whatever N.\n"
        "box_tier=False clips boxes cut by one plane with the generic polyhedral path instead of\n"
        "the box tier (the tier's test reference; same results to rounding).  smooth_rows=False\n"
        "clips spheres and ellipsoids cut by one plane one row at a time (ClipGeom) instead of\n"
        "the block path (the block path's test reference and benchmark baseline; bitwise the\n"
        "same rows).");
  m.def("clip_cells_into", &ClipCellsInto, "types"_a, "sizes"_a, "pos"_a, "mats"_a, "mesh_ids"_a,
        "hulls"_a, "cell_planes"_a, "cell_start"_a, "out"_a.noconvert(),
        "out[c, i, :] = the clip_into row of geom i in cell c; cell c is the rows\n"
        "cell_planes[cell_start[c]:cell_start[c+1]]; out (C, N, >= 5).");
  m.def("support_local", &Support, "typ"_a, "size"_a, "nx"_a, "ny"_a, "nz"_a, "hv"_a, "v0"_a,
        "v1"_a,
        "(max, min) of n.x over the geom, geom frame (n need not be unit); a mesh uses the\n"
        "hull vertices hv[v0:v1].");
  m.def("full_local", &Full, "typ"_a, "size"_a, "hvol"_a, "hcen"_a, "mid"_a,
        "(V, cx, cy, cz): full volume (m^3) and its centre (geom frame) of a geom.");
  nb::class_<PyForceStage>(m, "ForceStage",
                           "The force stage of one (model, data) pair: ForceStage(args) with the 47\n"
                           "arrays of sim._Plan.args in order, read once into its records (core/forces.h);\n"
                           "run() evaluates it once (no arguments, no allocation), writing the same outputs.")
      .def(nb::init<nb::tuple>(), "args"_a)
      .def("run", &PyForceStage::Run, "One evaluation for the current stage.")
      .def("set_batches", &PyForceStage::SetBatches, "on"_a,
           "Two boxes or meshes of one body together in the wrench pass (True; the default where the\n"
           "CPU runs AVX2), or one geom at a time (False): the same bits either way (for tests).");
  m.def("ledger_step", &LedgerStepPy, "st"_a.noconvert(), "E"_a, "ke"_a, "P"_a, "dt"_a, "t"_a,
        "qpos"_a, "qvel"_a, "qacc"_a, "z"_a, "zbuf"_a.noconvert(),
        "Account one step in the ledger state st (12,): E energy (J) and ke kinetic energy at\n"
        "the step's start, P non-conservative power (W) then, dt (s), t (s); checks the state for\n"
        "non-finite values; z (m) into the ring buffer zbuf.  See runtime/sim/health.py.");
  nb::class_<PyLedger>(m, "Ledger",
                       "The health ledger of one Simulation bound once to its arrays:\n"
                       "Ledger((st, zbuf, led, q0, qfrc_actuator, qfrc_applied, qfrc_constraint,\n"
                       "qfrc_passive, mine, xfrc_applied, cvel, xipos, subtree_com, body_rootid,\n"
                       "qpos, qvel, qacc)).")
      .def(nb::init<nb::tuple>(), "arrays"_a)
      .def("rk4_stage", &PyLedger::RK4Stage, "k"_a, "dt"_a,
           "RK4 stage k (0..3) evaluated: book its share of the step's work (core::RK4Stage).")
      .def("account", &PyLedger::Account, "dt"_a, "t"_a, "tb"_a, "exact"_a = true, "rk4"_a = false,
           "After a runtime step: energy from the force stage's ledger, power of the other forces.")
      .def("plain", &PyLedger::Plain, "dt"_a, "t"_a, "tb"_a,
           "After a step of a model with no environment: only the state checks and the height.");
  m.def(
      "hull_from_graph",
      [](In<float, nb::shape<-1, 3>> vert, In<int, nb::ndim<1>> graph) {
        core::HullPack pack;
        std::string why = core::AppendHull(vert.data(), static_cast<int64_t>(vert.shape(0)), graph.data(),
                                           static_cast<int64_t>(graph.shape(0)), &pack);
        if (!why.empty()) Fail("hull_from_graph: " + why);
        return PackTuple(pack);
      },
      "vert"_a, "graph"_a,
      "MuJoCo's convex hull of a mesh, packed as runtime/hydrostatics/geoms.py pack_hulls packs one: vert =\n"
      "mjModel.mesh_vert rows of the mesh (float32, geom frame), graph = mjModel.mesh_graph from\n"
      "the mesh's mesh_graphadr.");
  m.def(
      "hull_from_points",
      [](In<float, nb::shape<-1, 3>> vert) {
        core::HullPack pack;
        std::string why = core::BuildHull(vert.data(), static_cast<int64_t>(vert.shape(0)), &pack);
        if (!why.empty()) Fail("hull_from_points: " + why);
        return PackTuple(pack);
      },
      "vert"_a,
      "The convex hull the plugin builds for a mesh displacement geom (core::BuildHull, a\n"
      "quickhull of its vertices), packed as runtime/hydrostatics/geoms.py pack_hulls packs one: vert =\n"
      "mjModel.mesh_vert rows of the mesh (float32, geom frame).");
  m.def(
      "plugin_state_layout",
      [](int64_t nv, int64_t nz) {
        if (nv < 0 || nv > (1 << 24) || nz < 2 || nz > hydro::kMaxWindow)
          Fail("plugin_state_layout: expected 0 <= nv and 2 <= nz <= " + std::to_string(hydro::kMaxWindow));
        hydro::StateLayout L = hydro::Layout(static_cast<int>(nv), static_cast<int>(nz));
        nb::dict out;
        out["led"] = L.led;
        out["record"] = L.record;
        out["mine"] = L.mine;
        out["q0"] = L.q0;
        out["qdrag"] = L.qdrag;
        out["trec"] = L.trec;
        out["track"] = L.track;
        out["ledger"] = L.ledger;
        out["tally"] = L.tally;
        out["rk"] = L.rk;
        out["rkstage"] = L.rkstage;
        out["contact"] = L.contact;
        out["zbuf"] = L.zbuf;
        out["nz"] = L.nz;
        out["size"] = L.size;
        return out;
      },
      "nv"_a, "nz"_a,
      "Offsets into one aurgen.hydrostatics instance's plugin_state for a model with nv dofs\n"
      "and a settle window of nz steps (runtime/native/plugin/state.h): led, record, mine, q0,\n"
      "trec, track, ledger, tally, rk, rkstage, contact, zbuf, and nz, size.");
  m.def(
      "plugin_state_error",
      [](Vec st, int64_t nv, int64_t nz, int64_t nbody) {
        if (nv < 0 || nv > (1 << 24) || nz < 2 || nz > hydro::kMaxWindow || nbody < 1 || nbody > (1 << 24))
          Fail("plugin_state_error: expected 0 <= nv, 2 <= nz <= " + std::to_string(hydro::kMaxWindow) +
               " and 1 <= nbody");
        hydro::StateLayout L = hydro::Layout(static_cast<int>(nv), static_cast<int>(nz));
        if (st.shape(0) != static_cast<size_t>(L.size))
          Fail("plugin_state_error: expected " + std::to_string(L.size) + " numbers of state");
        return hydro::StateError(st.data(), L, static_cast<int>(nbody));
      },
      "st"_a, "nv"_a, "nz"_a, "nbody"_a,
      "The first offset into one aurgen.hydrostatics instance's plugin_state st (nv dofs, a\n"
      "settle window of nz steps, nbody bodies) holding a value no step can have left there\n"
      "(runtime/native/plugin/state.h StateError: counts, flags, indices, the ledger's\n"
      "energies while ok), or -1: what the plugin checks before it reads its state.");
  {
    nb::dict keys;  // the environment JSON's keys (plugin/schema.h), for runtime/environment/schema.py
    for (const hydro::schema::KeySet& k : hydro::schema::Keys()) {
      nb::list l;
      for (const std::string& s : k.keys) l.append(nb::str(s.c_str()));
      keys[k.what] = nb::tuple(l);
    }
    m.attr("ENV_KEYS") = keys;
    m.attr("ENV_LIMITS") = nb::make_tuple(hydro::schema::kMaxPlanes, hydro::schema::kMaxCells,
                                          hydro::schema::kMaxCellPlanes);
    m.attr("ENV_MAX_WAVES") = hydro::schema::kMaxWaveComponents;
    m.attr("TRACK_WORLD") = hydro::schema::kTrackWorld;  // the plugin's words for track = the world body
    m.attr("TIMESTEP_LIMITS") = nb::make_tuple(hydro::schema::kMinTimestep, hydro::schema::kMaxTimestep,
                                               hydro::schema::kTimestepWhy);
    m.attr("ENV_WAVE_LIMITS") = nb::make_tuple(hydro::schema::kMaxWaveOmega, hydro::schema::kMinWaveNumber,
                                               hydro::schema::kMaxWaveNumber, hydro::schema::kMinWaveDepth);
  }
  m.def(
      "sincos_into",
      [](In<double, nb::ndim<1>> x, Out1 c, Out1 s) {
        const size_t n = x.shape(0);
        if (c.shape(0) != n || s.shape(0) != n) Fail("sincos_into: c and s need x's length");
        if (n > static_cast<size_t>(1 << 30)) Fail("sincos_into: at most 2^30 angles");
        core::SinCos(x.data(), static_cast<int>(n), c.data(), s.data());
      },
      "x"_a, "c"_a.noconvert(), "s"_a.noconvert(),
      "cos x and sin x (x in rad) into c and s, as the sea's phases take them (core/sincos.h).");
  m.def(
      "face_exposure",
      [](In<int64_t, nb::ndim<2>> gi, In<double, nb::ndim<2>> gsz, In<double, nb::ndim<2>> gcl,
         In<int64_t, nb::ndim<1>> gw, In<double, nb::ndim<2>> pos, In<double, nb::ndim<2>> mats, OutF out,
         nb::ndarray<int64_t, nb::numpy, nb::c_contig, nb::device::cpu, nb::ndim<2>> cover) {
        const size_t n = gi.shape(0);
        if (gi.shape(1) != 4 || gsz.shape(0) != n || gsz.shape(1) != 3 || gcl.shape(0) != n ||
            gcl.shape(1) != 3 || gw.shape(0) != n || pos.shape(0) != n || pos.shape(1) != 3 ||
            mats.shape(0) != n || mats.shape(1) != 9 || out.shape(0) != n || out.shape(1) != 6 ||
            cover.shape(0) != n || cover.shape(1) != 6)
          Fail("face_exposure: expected gi (N, 4), gsz, gcl, pos (N, 3), gw (N,), mats (N, 9), out, cover (N, 6)");
        std::vector<core::Geom> geoms(n);
        for (size_t k = 0; k < n; ++k) {
          const int64_t* g = gi.data() + 4 * k;
          if (!core::IsKernelType(g[2])) Fail("face_exposure: unknown geom type " + std::to_string(g[2]));
          geoms[k].type = static_cast<int>(g[2]);
          geoms[k].mark = static_cast<core::Mark>(g[3]);
          geoms[k].weld = gw.data()[k];
          std::copy(gsz.data() + 3 * k, gsz.data() + 3 * k + 3, geoms[k].size);
          std::copy(gcl.data() + 3 * k, gcl.data() + 3 * k + 3, geoms[k].centre);
        }
        std::vector<double> e;
        std::vector<int64_t> cv;
        core::FaceExposure(geoms, pos.data(), mats.data(), &e, &cv);
        std::copy(e.begin(), e.begin() + 6 * n, out.data());
        std::copy(cv.begin(), cv.begin() + 6 * n, cover.data());
      },
      "gi"_a, "gsz"_a, "gcl"_a, "gw"_a, "pos"_a, "mats"_a, "out"_a.noconvert(), "cover"_a.noconvert(),
      "out (N, 6): the exposed share of each face (-x, +x, -y, +y, -z, +z) of each box geom's and\n"
      "mesh geom's drag box (core/drag_faces.h FaceExposure), as the force stage takes it: gi rows\n"
      "(geom id, body, type, mark), gsz sizes (a mesh: bounding half-sizes), gcl full-volume\n"
      "centroids (geom frame), gw weld groups, pos and mats (row-major) the world poses; cover (N, 6)\n"
      "int64: the geom covering most of each face (-1: none).");
  m.def("lanes_avx2", &core::lanes::W4Fast, "Whether the four-wide lanes run in AVX2 (lanes.h W4Fast).");
  m.def("window_steps", &hydro::WindowSteps, "window"_a, "dt"_a,
        "The settle window in steps: max(2, round(window / dt)), as the plugin sizes it.");
  m.attr("TALLY") = nb::make_tuple("resets", "qpos", "qvel", "qacc", "first_kind", "first_time",
                                   "reached", "last", "pending");
  m.def("soup_integrate", &SoupIntegratePy, "E"_a, "fs"_a, "nF"_a, "nx"_a, "ny"_a, "nz"_a, "t"_a,
        "acc"_a.noconvert(),
        "Clip the edge soup (E (m, 6), fs (nF+1,)) by n.x <= t (t = inf: no clip) and integrate:\n"
        "acc[0] V, [1:4] first moment, [4] cap area, [5:8] and [8:14] the cap's first and second\n"
        "moments about the origin (geom frame).");
}
