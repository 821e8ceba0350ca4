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

#include "clip_poly.h"
#include "kernel.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

namespace core = aurgen::core;

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
              double* out, int W, bool want_wp, int64_t N) {
  core::Scratch& s = ThreadScratch();
  int64_t emax = 1, fmax = 1;
  for (int64_t i = 0; i < N; ++i) {
    int64_t e, f;
    core::ScratchNeed(static_cast<int>(types.data()[i]), mesh_ids.data()[i], hs, P, &e, &f);
    emax = std::max(emax, e);
    fmax = std::max(fmax, f);
  }
  s.Reserve(emax, fmax, std::max(P, 1));
  for (int64_t i = 0; i < N; ++i) {
    int rc = core::ClipGeom(static_cast<int>(types.data()[i]), sizes.data() + 3 * i,
                            pos.data() + 3 * i, mats.data() + 9 * i, mesh_ids.data()[i], hs,
                            planes, P, out + W * i, W, want_wp, s);
    if (rc != 0) Fail("internal: clip scratch too small for geom " + std::to_string(i));
  }
}

void ClipInto(const Types& types, const V3& sizes, const V3& pos, const M33& mats,
              const Types& mesh_ids, nb::handle hulls, const Planes& planes, OutF out,
              bool want_wp) {
  Hulls h;
  LoadHulls(hulls, h);
  int64_t N = CheckBatch(types, sizes, pos, mats, mesh_ids, h.set);
  if (static_cast<int64_t>(out.shape(0)) != N || out.shape(1) < 5)
    Fail("out must be (N, >= 5) float64, C-contiguous and writable");
  int P = static_cast<int>(planes.shape(0));
  int W = static_cast<int>(out.shape(1));
  nb::gil_scoped_release release;
  ClipRows(types, sizes, pos, mats, mesh_ids, h.set, planes.data(), P, out.data(), W, want_wp,
           N);
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

}  // namespace

NB_MODULE(_native, m) {
  m.doc() =
      "aurgen's compiled hydrostatics kernel (C++17).  See aurgen.runtime.hydrostatics for the "
      "public API and docs/kernel.md for the algorithms.";
  m.attr("OUT_W") = core::kOutW;
  m.attr("N_ACC") = core::kNAcc;
  m.attr("NLON") = core::kNLon;
  m.attr("NLAT") = core::kNLat;

  m.def("clip_into", &ClipInto, "types"_a, "sizes"_a, "pos"_a, "mats"_a, "mesh_ids"_a, "hulls"_a,
        "planes"_a, "out"_a.noconvert(), "want_wp"_a,
        "Clip N geoms by the convex set planes (P, 4) rows (nx, ny, nz, d), n.x <= d, and write\n"
        "out (N, >= 5) in place: [V, cx, cy, cz, A] (m^3, world m, m^2); with want_wp and 14\n"
        "columns also [5:8] the section centroid and [8:14] its second moments (xx, yy, zz, xy,\n"
        "xz, yz) about it, world axes.  types: MuJoCo mjtGeom codes (N,); sizes (N, 3); pos\n"
        "(N, 3) world; mats (N, 3, 3) geom -> world; mesh_ids (N,) rows of hulls (a pack_hulls\n"
        "tuple).  Deterministic: the same inputs give bitwise the same outputs, whatever N.");
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
  m.def("soup_integrate", &SoupIntegratePy, "E"_a, "fs"_a, "nF"_a, "nx"_a, "ny"_a, "nz"_a, "t"_a,
        "acc"_a.noconvert(),
        "Clip the edge soup (E (m, 6), fs (nF+1,)) by n.x <= t (t = inf: no clip) and integrate:\n"
        "acc[0] V, [1:4] first moment, [4] cap area, [5:8] and [8:14] the cap's first and second\n"
        "moments about the origin (geom frame).");
}
