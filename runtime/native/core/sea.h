// A sea: linear (Airy) waves on the environment's surface plane (docs/formats.md "waves",
// docs/kernel.md "Waves").  Used by the force stage (forces_sea.cc) when an environment
// declares one; an environment without waves never reaches this code.
//
// Frames and units: world frame, SI.  The surface plane is n.x = d with n the unit "up"
// (the water on n.x <= d); zeta = n.x - d is the height above the mean level.  Component j
// (amplitude a, frequency omega, wave vector k in the plane, phase phi) has the phase
// theta_j = k_j.x - omega_j t + phi_j, and the sea
//   eta(x, t)   = r(t) sum_j a_j cos theta_j                 (elevation, m)
//   p_d(x, t)   = rho g r(t) sum_j a_j D_j(zeta) cos theta_j (dynamic pressure, Pa)
// with D_j the depth factor cosh k_j (zeta + h) / cosh k_j h (deep water: e^{k zeta}),
// held at its mean-level value above zeta = 0 (vertical extrapolation: then the total
// pressure -rho g zeta + p_d vanishes at the crest, zeta = eta, exactly), and r(t) the
// ramp.  The orbital velocity is the gradient of the linear potential, with the same rule.
// Every sum over components runs in a fixed order (in declared order, or in four lanes of it: Elevation,
// Orbital), the same on every x86-64: two runs are bitwise identical.
#ifndef AURGEN_CORE_SEA_H_
#define AURGEN_CORE_SEA_H_

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernel.h"

namespace aurgen::core {

struct Wave {
  double a = 0.0;                   // amplitude, m
  double omega = 0.0;               // rad/s
  double k[3] = {0.0, 0.0, 0.0};    // wave vector, rad/m (world, in the surface plane)
  double kn = 0.0;                  // |k|, rad/m
  double phase = 0.0;               // rad
  // depth factor constants: D(zeta) = c (e^{k zeta} + e^{-k (zeta + 2 h)}), D' likewise with
  // the minus sign; cu = 1 / tanh(k h) (deep: 1) turns D into the horizontal velocity's factor
  double c = 1.0, e2h = 0.0, cu = 1.0;
  double lc = 0.0;  // log c
};

// The Gauss-Legendre rules the quadrature uses (1 to kMaxRule points on [-1, 1]).
inline constexpr int kMaxRule = 16;

struct Sea {
  bool active = false;
  double n[3] = {0.0, 0.0, 1.0};  // up: the surface plane's unit normal
  double d = 0.0;                 // the mean level: n.x = d
  double depth = std::numeric_limits<double>::infinity();  // m below the mean level
  double ramp = 0.0;              // s: amplitudes ramped in as 0.5 (1 - cos(pi t / ramp))
  double g = 9.81;                // |g|, m/s^2
  double kmax = 0.0;              // the largest |k|, rad/m
  std::vector<Wave> waves;
  // Order's thresholds: the largest extent (m) rule n serves (Prepare)
  double lmax[kMaxRule + 1] = {};
  // Gauss-Legendre nodes and weights, rule n at [n (n - 1) / 2, n (n + 1) / 2)
  std::vector<double> gx, gw;
  // Froude-Krylov by volume moments (sea_moments.cc; the environment's waves.fk, absent: moments): on,
  // and the truncation tolerance relative to each component's force scale (docs/kernel.md "Waves")
  bool fk_moments = true;
  double fk_tol = 1e-4;
  // the components as structure-of-arrays for the lanes (Prepare): column c (kSoa*) of component j at
  // soa[c * waves.size() + j]
  enum { kSoaKx, kSoaKy, kSoaKz, kSoaOmega, kSoaPhase, kSoaA, kSoaAw, kSoaKn, kSoaE2h, kSoaCols };
  std::vector<double> soa;
  const double* Soa(int c) const { return soa.data() + c * waves.size(); }
  // the components grouped by direction (Prepare): group g holds the waves by_dir[dir_start[g]
  // .. dir_start[g + 1]), in declared order, travelling toward the unit dirs[3 g .. 3 g + 3)
  std::vector<int> by_dir, dir_start;
  std::vector<double> dirs;

  // Fill the per-component constants and the rules (after the waves are set).
  void Prepare();
  // cos and sin of the phases theta_j = k_j.x - omega_j t + phi_j of the components j0 .. j0 + m
  // at x, time t (core/sincos.h: the same bits at any width), into c and s (m each, m <=
  // kPhaseChunk).  The sums over components take them a chunk at a time.
  static constexpr int kPhaseChunk = 64;
  void Phases(const double x[3], double t, size_t j0, int m, double* c, double* s) const;
  double Ramp(double t) const;
  // eta (m) and its gradient (world, in the plane) at x, time t.  The sums over components in four
  // lanes (component j in lane j mod 4, each in declared order; the lanes added (0 + 1) + (2 + 3)).
  void Elevation(const double x[3], double t, double* eta, double grad[3]) const;
  // The orbital velocity (m/s, world) at x, time t (its sums in lanes as Elevation's; e^{k zeta} by
  // exp_lanes.h's Exp).  ph (null: not kept): every component's
  // cos theta_j, sin theta_j and vertical factor e^{k_j zeta} there (3 x waves.size(), in blocks:
  // the cosines, the sines, the factors; zeta = n.x - d held to [-depth, 0]), which
  // FroudeKrylovMoments takes at the same point instead of computing them again.
  void Orbital(const double x[3], double t, double u[3], double* ph = nullptr) const;
  // The Gauss points for a dimension of extent L (m) across a column: the fewest n >= 2 whose
  // remainder, weighted by each component's amplitude, is below 1e-9 (docs/kernel.md).
  int Order(double L) const;
  const double* Nodes(int n) const { return gx.data() + n * (n - 1) / 2; }
  const double* Weights(int n) const { return gw.data() + n * (n - 1) / 2; }
};

// A mesh hull's face planes, geom frame (n.x <= d, unit n), and its bounding box.
struct HullPlanes {
  std::vector<double> rows;            // (F x 4)
  std::vector<int64_t> range{0};       // (M + 1) each hull's first row
  std::vector<double> lo, hi;          // (M x 3) bounding box, geom frame
  // each hull as a polyhedron, for FroudeKrylovMoments (sea_moments.cc HullPolys): its bounding box
  // clipped by its face planes, geom frame, once; hull m's faces pface[m] .. pface[m + 1] (none: more
  // than the moments' scratch holds), face f's vertices pvert[3 pv[f]] .. pvert[3 pv[f + 1]]
  std::vector<int64_t> pface{0}, pv{0};
  std::vector<double> pvert;
  void Build(const HullSet& hulls);
};
void HullPolys(HullPlanes* hp);

// The Froude-Krylov correction on the piece of a geom (kernel type, sizes as mjModel's
// geom_size, mesh: its hull's index in hp; pose p, rotation R row-major frame
// to world) inside the npl half-spaces `planes` (world rows n.x <= d), of which row `cap` is
// the geom's tangent plane of the sea, in water of density rho at time t: the force of the
// linear total pressure on the piece's wetted surface, less the buoyancy -rho V g the stage
// applies from the clipped volume:
//   F = -integral_V grad p_d dV + integral_cap (-rho g zeta + p_d) n dA
// and its moment T about p (N, N m, world).  Quadrature over columns of the geom (Gauss
// points across, Gauss along each clipped chord, split at the mean level); its order by
// Sea::Order.  only (null: every component): the components to integrate (nonzero), the
// others left out, the cap's hydrostatic term -rho g zeta kept (FroudeKrylovMoments' fallback).
void FroudeKrylov(const Sea& sea, double t, double rho, int type, const double size[3],
                  int64_t mesh, const HullPlanes& hp,
                  const double p[3], const double R[9], const double* planes, int npl, int cap,
                  double F[3], double T[3], const unsigned char* only = nullptr);

// The same correction by the piece's volume moments (sea_moments.cc, docs/kernel.md "Waves"):
// e^{kappa.y} expanded about x0 (world: the piece's centroid, as the force stage's clip gives it; the
// bound takes the piece's extent from x0, so any point of the piece serves), with ph the components'
// phases and vertical factors at x0 (Sea::Orbital's ph), to the order each component's truncation bound
// needs to stay within sea.fk_tol of its force scale; a component whose bound the largest order
// does not meet is integrated by FroudeKrylov.  Boxes and mesh hulls; returns false (F, T
// untouched) for any other shape, a box in a sea of fewer than kMomentsMinWaves components (the columns
// cost less there: measured, docs/kernel.md; a mesh hull takes the moments at any number, its columns
// up to 1e-2 of the force scale off at its silhouette), no ph, or a piece it does not handle (below a
// finite sea's seabed, more faces than its scratch holds, more than 256 components): then FroudeKrylov
// is the caller's.
inline constexpr size_t kMomentsMinWaves = 2;
bool FroudeKrylovMoments(const Sea& sea, double t, double rho, int type, const double size[3],
                         int64_t mesh, const HullPlanes& hp, const double p[3], const double R[9],
                         const double* planes, int npl, int cap, const double x0[3], const double* ph,
                         double F[3], double T[3]);

// The truncation bound (sea_moments.cc): the smallest order N (1 .. kMaxMomentOrder) with
// sqrt(2) amp rho^N / N! (N + 1) / (N + 1 - rho) <= tol, rho = |kappa| R; kMaxMomentOrder + 1
// if none.  MomentTail(rho, N): rho^N / N! (N + 1) / (N + 1 - rho) (infinity for rho >= N + 1),
// a bound on |e^z - sum_{n<N} z^n / n!| for |z| <= rho.
inline constexpr int kMaxMomentOrder = 30;
double MomentTail(double rho, int N);
int MomentOrder(double rho, double amp, double tol);

}  // namespace aurgen::core

#endif  // AURGEN_CORE_SEA_H_
