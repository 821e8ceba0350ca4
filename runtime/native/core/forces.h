// The force stage: buoyancy, drag, declared damping, gravity fields, added mass.
//
// One evaluation per integrator stage (MuJoCo's passive stage): adds
// generalized forces to qfrc_passive and the added-mass metric to the mass
// matrix M (the caller refactors it).  Everything is accumulated in one fixed
// order (cells, then geoms in model order, then bodies, then damping items,
// then added-mass items), so two runs are bitwise identical.  The model is
// described by named records built once per model (ForceModel: the plugin
// builds it from the mjModel, plugin/build.cc; the Python binding from the
// arrays of runtime/sim/plan.py Plan, bindings/module.cc); the state by pointers
// into mjData (ForceData).  No allocation in Passive: the scratch is sized at
// construction.  World frame and SI units throughout; frames, units and the
// drag model: runtime/sim/forces.py and docs/runtime.md; the numba reference
// implementation is tests/runtime/numba_oracle/forces.py.
#ifndef AURGEN_CORE_FORCES_H_
#define AURGEN_CORE_FORCES_H_

#include <cstdint>
#include <limits>
#include <vector>

#include "kernel.h"
#include "lines.h"
#include "sea.h"

namespace aurgen::core {

// ledger slots (led): what one evaluation books for the health ledger
enum { kLUBuoy = 0, kLPDrag = 1, kLUGrav = 2, kLKE = 3, kLVSub = 4, kNLed = 8 };

inline constexpr double kNoGravity = std::numeric_limits<double>::quiet_NaN();

// phi = -g.x + K (J/kg): the potential of a uniform field g (m/s^2) with constant K.
inline double UniformPotential(const double g[3], double K, const double x[3]) {
  return -(g[0] * x[0] + g[1] * x[1] + g[2] * x[2]) + K;
}

// The environment's gravity field (world; docs/formats.md "gravity").  g = -grad phi.
struct GravityField {
  enum class Kind : int {
    kUniform = 0,  // g everywhere, applied to the bodies by MuJoCo (opt.gravity)
    kCentral = 1,  // g = -mu (x - centre) / |x - centre|^3
    kLinear = 2,   // g = g0 + grad x
    kPerCell = 3,  // uniform g, but cells may carry their own (Cell::g); the stage applies it
  };
  Kind kind = Kind::kUniform;
  double g[3] = {0.0, 0.0, 0.0};       // m/s^2, uniform and per-cell (the cells' default)
  double mu = 0.0;                     // m^3/s^2, central
  double centre[3] = {0.0, 0.0, 0.0};  // m, central
  double g0[3] = {0.0, 0.0, 0.0};      // m/s^2 at the origin, linear
  double grad[9] = {};                 // 1/s^2, linear: dg_i/dx_j at 3 i + j

  // MuJoCo applies the body forces (uniform): the stage adds none.
  bool Applied() const { return kind != Kind::kUniform; }
  // g (m/s^2) at x (m) into out (3); a per-cell field gives its global g.
  void At(const double x[3], double out[3]) const;
  // phi (J/kg) at x (m); a per-cell field gives its global g's, K = 0.
  double Potential(const double x[3]) const;
  // The torque (N m) of a central or linear field on a body at x (m) whose inertia
  // tensor about its centre of mass is I (kg m^2, world), to second order.
  void GradientTorque(const double x[3], const double I[3][3], double T[3]) const;
};

// A convex cell of fluid: the intersection of nplanes half-spaces n.x <= d (rows
// of ForceModel::cell_planes) and its fluid.
struct Cell {
  double rho = 0.0;                    // density, kg/m^3
  double mu = 0.0;                     // dynamic viscosity, Pa s
  double flow[3] = {0.0, 0.0, 0.0};    // fluid velocity, world, m/s
  double g[3] = {kNoGravity, kNoGravity, kNoGravity};  // its own gravity, m/s^2 (nan: the field's)
  double p = 0.0;                      // pressure constant P, Pa: p(x) = -rho phi(x) + P
  double k = 0.0;                      // potential constant K, J/kg: phi = -g.x + K (its own g)
  bool gas = false;                    // a gas (rho < 10 kg/m^3): windage geoms feel it
  int nplanes = 0;
  bool HasGravity() const { return g[0] == g[0]; }
};

// How a geom meets the fluid (its geom_user[0]).
enum class Mark : int64_t {
  kDisplacement = 1,  // buoyancy, drag, surface damping, the weld group's submerged fraction
  kWindage = 2,       // drag only, in gas cells only
  kAddedOnly = 3,     // neither: an ellipsoid that carries added mass only
};

// One geom the stage clips against the cells.
struct Geom {
  int64_t id = 0;      // MuJoCo geom id
  int64_t body = 0;    // its body
  int type = 0;        // MuJoCo mjtGeom code (kernel.h GeomType)
  Mark mark = Mark::kDisplacement;
  int64_t weld = 0;    // its weld group (ForceModel::weld_volume)
  int64_t mesh = 0;    // a mesh: its hull (ForceModel::hulls), else 0
  double size[3] = {0.0, 0.0, 0.0};    // m (mjModel geom_size; a mesh: bounding half-sizes)
  double centre[3] = {0.0, 0.0, 0.0};  // full-volume centroid, geom frame, m
  double volume = 0.0;                 // full volume, m^3
  double cd = 1.0;                     // form drag coefficient C_D (MJCF geom user[1]; kCD)
};

// A marked geom's drag coefficient (its MJCF user[1]) lies in (0, kMaxDragCoefficient]; the
// refusal's words, shared with runtime/sim/plan.py.
inline constexpr double kMaxDragCoefficient = 10.0;
inline constexpr const char* kDragCoefficientError =
    "user[1], its form drag coefficient C_D, must be a number in (0, 10] (0 or absent: C_D 1)";

// A body's place in the kinematic tree.
struct Body {
  int64_t root = 0;  // its root body: wrenches are taken about subtree_com[root]
  int64_t ndof = 0;  // its ancestor dofs (ForceModel::Dofs)
};

// Declared hydrodynamic damping of one body (Fossen sign: tau = D nu + Dq |nu| nu,
// nu = (v, w) in body axes at the body origin, v relative to the local flow).
struct Damper {
  int64_t body = 0;
  int64_t group = -1;   // weld group whose submerged fraction scales it; -1: fully immersed
  double D[36] = {};    // linear 6x6, row-major (N s/m, N s, N m s)
  double Dq[36] = {};   // quadratic 6x6, row-major
};

// Added mass of a body (declared) or of an ellipsoid geom (MuJoCo's fluid model).
struct AddedMass {
  enum class Kind : int64_t { kBody = 0, kGeom = 1 };
  Kind kind = Kind::kBody;
  int64_t body = 0;     // the body it acts on
  int64_t object = 0;   // whose frame A is in: the body (kBody) or the MuJoCo geom id (kGeom)
  int64_t group = -1;   // kBody: weld group whose submerged fraction scales it; -1: fully immersed
  int64_t geom = -1;    // kGeom: its index in ForceModel::geoms (scaled by its own fraction)
  double A[36] = {};    // 6x6 (positive; kg, kg m, kg m^2), (lin, ang) in the object's frame
};

// Read-only model records, built once.  Sizes: ng geoms, nc cells (kmax
// half-spaces at most), nb bodies, nv dofs, nw weld groups.
struct ForceModel {
  // drag: the drag model (form, Stokes, rotational; wind); damping: surface damping and the
  // declared hydrodynamic damping
  bool drag = true, added_mass = true, buoyancy = true, damping = true;
  GravityField gravity;
  std::vector<Geom> geoms;           // displacement, windage and added-mass geoms, model order
  HullSet hulls;                     // mesh geoms' convex hulls (a view: the caller keeps them)
  std::vector<Cell> cells;
  int kmax = 1;                      // the most half-spaces one cell has (>= 1)
  std::vector<double> cell_planes;   // (nc x kmax x 4) each cell's half-spaces n.x <= d, unit n
  std::vector<Body> bodies;          // (nb) MuJoCo's bodies
  int maxd = 1;                      // the longest ancestor dof chain (>= 1)
  std::vector<int64_t> chains;       // (nb x maxd) each body's ancestor dofs, deepest first
  const double* body_mass = nullptr;     // (nb) kg: live (ForceStage::SetBodyArrays)
  const double* body_inertia = nullptr;  // (nb x 3) principal inertia, kg m^2: live
  std::vector<Damper> dampers;
  std::vector<AddedMass> added;
  std::vector<double> weld_volume;   // (nw) displacement volume per weld group, m^3
  int nv = 0;
  std::vector<int64_t> Mmap;         // (nv x nv) index into M of M[i, j] (i >= j), or -1
  // waves on one of the cells' planes (sea.h; inactive: still water, and none of its code
  // runs): the cells bounded by that plane clip each geom against the geom's tangent plane
  // of the sea, the water below it adds the Froude-Krylov correction and the orbital
  // velocity to the flow drag sees, and the pressure's work in those cells is booked as work
  Sea sea;

  const double* Planes(int c) const { return cell_planes.data() + 4 * static_cast<int64_t>(c) * kmax; }
  const int64_t* Dofs(int64_t b) const { return chains.data() + b * maxd; }
  // The first cell whose half-spaces all hold x, or -1 when none does.
  int CellAt(const double x[3]) const;
};

// mjData arrays (world frame; MuJoCo layouts).
struct ForceData {
  double time = 0.0;                    // s (a sea's phase)
  const double* qvel = nullptr;         // (nv)
  const double* geom_xpos = nullptr;    // (ngeom x 3)
  const double* geom_xmat = nullptr;    // (ngeom x 9)
  const double* xpos = nullptr;         // (nb x 3)
  const double* xmat = nullptr;         // (nb x 9)
  const double* xipos = nullptr;        // (nb x 3)
  const double* ximat = nullptr;        // (nb x 9)
  const double* cdof = nullptr;         // (nv x 6) (rot, lin)
  const double* cdof_dot = nullptr;     // (nv x 6)
  const double* subtree_com = nullptr;  // (nb x 3)
  const double* cvel = nullptr;         // (nb x 6) (rot, lin)
  double* qfrc_passive = nullptr;       // (nv) +=
  double* M = nullptr;                  // (nM) +=
};

// Outputs and scratch of one evaluation (row-major; sizes from ForceModel).  A
// piece is geom k's part in cell c, at k nc + c.
struct ForceOut {
  double* pos = nullptr;     // (ng x 3) gathered geom poses
  double* mats = nullptr;    // (ng x 9)
  double* planes = nullptr;  // (kmax x 4) a cell's kept planes
  double* out = nullptr;     // (ng x 5) kernel rows
  double* vols = nullptr;    // (ng x nc) piece volumes (m^3)
  double* cents = nullptr;   // (ng x nc x 3) piece centroids, world
  double* areas = nullptr;   // (ng x nc) section areas (nan: cut by several planes)
  double* wfrac = nullptr;   // (nw) submerged fraction per weld group
  double* led = nullptr;     // (kNLed) energy ledger of this evaluation
  double* qmine = nullptr;   // (nv) the generalized force this stage added
  // (nv) of which the non-conservative part (drag, surface and declared damping),
  // written by recorded evaluations only (the health ledger's work; null: not kept)
  double* qdrag = nullptr;
};

// alignas: the object (SetBodyArrays writes it every evaluation) fills cache lines
// of its own, as do the buffers it writes (lines.h): instances on two threads
// share no line.
class alignas(kLine) ForceStage {
 public:
  ForceStage(ForceModel model, const ForceOut& out);
  // One evaluation for the current stage of d; record: book the ledger's terms
  // (every evaluation but Runge-Kutta's inner stages).
  void Passive(const ForceData& d, bool record);
  // Pass B takes two boxes or meshes of one body together (true; the default where the CPU runs
  // AVX2, lanes.h W4Fast) or one geom at a time (false): the same bits either way
  // (tests/runtime/test_force_batches.py).
  void SetBatches(bool on) { batches_ = on; }
  const ForceModel& model() const { return m_; }
  // Point the body masses and inertias at live arrays (nb, nb x 3): MuJoCo lets
  // a user edit m->body_mass between steps, and the ledger must see it.
  void SetBodyArrays(const double* mass, const double* inertia) {
    m_.body_mass = mass;
    m_.body_inertia = inertia;
  }

 private:
  // the sweeps of Passive, in its order
  void ClipCells();
  void Pieces(const ForceData& d, bool record);
  // a sea: the geoms' tangent planes, then the Froude-Krylov corrections (after Pieces)
  void SeaPlanes(double t);
  void SeaFlow(double t);  // pflow_: the cells' flow, plus the orbital velocity below the surface
  void SeaForces(const ForceData& d, bool record);
  // cell c's kept planes with its surface row replaced by geom k's tangent plane (gplanes_)
  const double* GeomPlanes(int c, int k);
  void BodyGravity(const ForceData& d, bool record);
  void Damping(const ForceData& d, bool record);
  void AddedMassTerms(const ForceData& d, bool record);
  // an added-mass item's wrench at p from V and bias (AddedMassTerms: relative to the water, and in
  // a current once more as in still water, to book the current's share)
  void Wrench(const ForceData& d, const AddedMass& item, const double Aw[6][6], const double Aw1[6][6],
                   const double Rb[3][3], const double p[3], const double V[6], const double bias[6],
                   double F[3], double T[3]);
  // the terms of an item's submerged fraction changing (d/dt (s K qdot) - dT/dq), added to its
  // wrench (F, T) at p; Rb, Aw1 its frame and unscaled world added mass, V its velocity.  A geom
  // item's fraction is its geom's, a declared item's its weld group's (every displacement geom)
  void SurfaceTerms(const ForceData& d, const AddedMass& item, const double Rb[3][3], const double p[3],
                    const double Aw1[6][6], const double V[6], double F[3], double T[3]);
  // geom k crosses a cell's one face (a section area > 0)
  bool Crosses(int64_t k) const;
  // geom k's crossings: sdot += -rho_c A_kc / den n.v(x_kc), (F, T) += 1/2 ke1 (-rho_c A_kc / den) n
  // at x_kc (torques about p); x0, Rg its ellipsoid's centre and frame, off = x0 - p (null: x0 = p)
  void Crossings(int64_t k, const double Rg[3][3], const double x0[3], const double* off, double den,
                 const double V[6], double ke1, double* sdot, double F[3], double T[3]);
  // qfrc (and qmine) += the wrench (moment m about body b's root subtree com, force F)
  // projected on b's ancestor dofs
  void Project(const ForceData& d, int64_t b, const double m[3], const double F[3]);
  // o_.qdrag += the same projection (nothing else changes)
  void ProjectDrag(const ForceData& d, int64_t b, const double m[3], const double F[3]);
  // the wrench (F at x, torque T) on body b: Project with m = T + (x - com) x F
  void Apply(const ForceData& d, int64_t b, const double F[3], const double T[3], const double x[3]);
  // the up direction n = -g/|g| and |g| x geom k's height along n (UpCache)
  void Up(const double g[3], int k);
  // (max, min) of l.x over geom g, l in its frame (SupportLocal; a mesh: its hull)
  void Support(const Geom& g, const double l[3], double* hmax, double* hmin) const;
  int64_t Piece(int k, int c) const { return static_cast<int64_t>(k) * nc_ + c; }

  ForceModel m_;
  ForceOut o_;
  int ng_ = 0, nc_ = 0, nb_ = 0, nw_ = 0;
  bool batches_ = false;  // SetBatches (the constructor: lanes::W4Fast)
  Scratch scratch_;
  LineVec<int64_t> one_;     // (nc) 1: the cell is bounded by one kept plane
  LineVec<double> onesg_;    // (nc) that plane's row
  LineVec<double> J_, AJ_;   // (6 x maxd)
  std::vector<double> gsz_;  // (ng x 3) the geoms' sizes, packed for BoxRows' gathers
  // drag coefficients per geom and cell (see the constructor): column j at j S, the
  // piece of geom k in cell c at k nc + c (S = slot_stride_)
  enum { kDQ = 0, kDLin = 1, kDRot = 2, kDRot2 = 3, kNDC = 4 };
  std::vector<double> dcoef_;
  std::vector<double> gpr_;      // (ng x 3) size products b c, a c, a b (drag's projected area)
  // (ng x 6) the exposed share of each face of a box's (a mesh's bounding box's) drag box
  // (drag_faces.h FaceExposure), from the first evaluation's poses (a weld group's geoms keep
  // their relative poses)
  std::vector<double> gexp_;
  std::vector<int64_t> gcov_;  // (ng x 6) each face's coverer (-1: none)
  bool gexp_ready_ = false;
  // per weld group, the drag model's share of each degree of freedom (nu = (v, w) in the body
  // axes at the origin of its first damper's body): 0 where a damper declares a term for it,
  // else 1; wmbody_ that body (-1: none), wmode_ 0 nothing masked, 1 some, 2 all (no drag)
  std::vector<double> wkeep_;
  std::vector<int64_t> wmbody_;
  std::vector<int> wmode_;
  std::vector<double> cup_;      // (nc) +1, -1 in a gas cell: the side a piece's cut faces
  double gup_[3] = {0.0, 0.0, 0.0};  // the model's uniform g's up, -g / |g| (0 without gravity)
  std::vector<double> crho_, cP_, cflow_;  // (nc), (nc), (3 x nc): the cells' rho, p, flow as columns
  double rho_max_ = 0.0;         // the densest cell's density (kg/m^3)
  double uflow_[3] = {0.0, 0.0, 0.0};  // its flow (m/s): added mass is relative to it
  bool flowing_ = false;               // uflow_ is not zero
  // a sea (m_.sea.active): per cell, the row of its planes that is the sea's surface (+1 its
  // water side n.x <= d, -1 the other; the row index in sea_row_), else 0; per geom its
  // tangent plane (water side, world rows); per cell the planes ClipCells kept (kmax x 4)
  // and the kept row that is the surface (-1: none); per piece the flow drag sees (3 x S)
  std::vector<int> sea_side_, sea_row_, kept_n_, kept_sea_;
  std::vector<double> tplane_, kept_, pflow_, seamask_;  // seamask_ (nc): 1 a cell of the sea
  std::vector<double> gplanes_;  // (kmax x 4) one geom's planes in a sea cell
  // (ng x nc x sphase_n_) each piece's phases and vertical factors at its centroid (Sea::Orbital's
  // ph), kept by SeaFlow for FroudeKrylovMoments where waves.fk is moments (else empty)
  std::vector<double> sphase_;
  int64_t sphase_n_ = 0;
  double* PiecePhases(int64_t si) { return sphase_.empty() ? nullptr : sphase_.data() + si * sphase_n_; }
  HullPlanes hull_planes_;
  std::vector<int64_t> box_idx_;  // the box geoms (BoxRows)
  std::vector<int> dnz_;         // nonzero entries 6 i + j of the dampers' D or Dq
  std::vector<int64_t> dnz0_;    // (nd + 1) each damper's first in dnz_
  struct MEntry {
    int i, j;
    int64_t idx;
    double w;  // 0.5 on the diagonal, else 1
  };
  std::vector<MEntry> ment_;     // M's stored lower-triangle entries (i >= j), row by row
  // the pieces, one slot k nc + c each, column j at j S: what pass A gives pass B
  // (gravity, potential, surface damping's up direction, |g| x height and switch)
  // and what pass B gives pass C (moment, force, energy, power)
  enum {
    kSG = 0, kSPhi = 3, kSN = 4, kSGH = 7, kSSurf = 8, kSM = 9, kSF = 12, kSU = 15, kSP = 16,
    kSDM = 17, kSDF = 20, kNSlot = 23  // kSDM, kSDF: the drag part of kSM, kSF (recorded)
  };
  int64_t slot_stride_ = 1;     // S: ng nc (at least 1)
  LineVec<double> slots_;   // (kNSlot x S)
  LineVec<uint8_t> valid_;  // (S) the slot holds a piece
  // the up direction n = -g/|g| and |g| x geom k's height along n: the same bits
  // of g (a uniform field: every piece) give the same values, so they are
  // recomputed only when g's bits or the geom change
  struct UpCache {
    double g[3] = {kNoGravity, kNoGravity, kNoGravity}, n[3] = {0.0, 0.0, 0.0};
    double gn = 0.0;  // |g|
    double gh = 0.0;  // |g| h (pass B takes its square root)
    int k = -1;
  } up_;
  // a run of consecutive geoms on one body: its root's subtree com, velocity, |w|
  struct Run {
    double sc[3] = {}, cv[6] = {}, wn = 0.0;
  };
  struct PieceFlags {
    bool buoy, drag, record;  // buoyancy (a displacement geom), drag, the ledger's terms
    bool sea;                 // a sea: its cells' buoyancy is booked as work, drag sees pflow_
    bool damp;                // some piece of the geom has surface damping (m_.damping)
    // one gravity g (3) for every piece, so the slots hold none; then surface
    // damping (surf: where the section area > 0) with the up direction n (3) and
    // |g| x the geom's height along n, gh (gh2: the second geom's, in a batch of two)
    bool uniform, surf;
    const double *g, *n;
    double gh;
    // the drag model's degrees of freedom kept (6; null: all) in the frame mR (9), at mo (3)
    const double *keep, *mR, *mo;
    const double* up;  // a uniform field's up (gup_): FaceAreas
    double gh2;
  };
  // the sums of pass C over a run of geoms on one body: moment m and force F, of which drag
  // (dm, dF: recorded), and the ledger's pressure energy and drag power
  struct Sums {
    double m[3] = {0.0, 0.0, 0.0}, F[3] = {0.0, 0.0, 0.0}, dm[3] = {0.0, 0.0, 0.0}, dF[3] = {0.0, 0.0, 0.0};
    double ubuoy = 0.0, pdrag = 0.0;
  };
  // pass A of geom k (Pieces): its pieces' valid_, slots and its weld group's submerged
  // fraction; false where it has no piece; anysurf: some piece has surface damping
  bool PieceInputs(int k, bool record, bool* anysurf);
  // geom k's PieceFlags (after PieceInputs; Up's cache then holds geom k)
  PieceFlags Flags(const ForceData& d, int k, bool record, bool anysurf);
  // pass C of geom k: its valid pieces' wrenches and ledger terms added to s, in cell order
  void SumPieces(int k, const PieceFlags& pf, bool record, bool keepd, Sums* s) const;
  template <class L, int NC = 0>
  void Wrenches(int k, int c, const Run& r, int typ, const PieceFlags& pf);
  // geom k's wrenches in cells c0 .. nc, one geom a call (D2, D1)
  void GeomWrenches(int k, int c0, const Run& r, const PieceFlags& pf);
  // geoms k and k + 1 (a batch: one body, boxes or meshes, the same flags but gh) in cells c, c + 1
  // (lanes.h W4), built for AVX2 where the CPU has it: forces_pieces.cc
  friend void WrenchesPair(ForceStage& s, int k, int c, const Run& r, int typ, const PieceFlags& pf);
  // a box's or mesh's drag areas along its axes, times |w_i|, for its pieces in cells c, c + 1,
  // ... (volume share f, section area A; R its frame, per lane): forces_pieces.cc
  template <class L>
  void FaceAreas(int k, int c, const PieceFlags& pf, const L* R, L f, L A, L wx, L wy, L wz, L a[3]);
  template <class L>
  L Exposed(int k, int j, int c, L z) const;
};

}  // namespace aurgen::core

#endif  // AURGEN_CORE_FORCES_H_
