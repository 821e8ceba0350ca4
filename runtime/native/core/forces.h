// The force stage: buoyancy, drag, declared damping, gravity fields, added mass.
//
// One evaluation per integrator stage (MuJoCo's passive stage): adds
// generalized forces to qfrc_passive and the added-mass metric to the mass
// matrix M (the caller refactors it).  Everything is accumulated in one fixed
// order (cells, then geoms in model order, then bodies, then damping items,
// then added-mass items), so two runs are bitwise identical.  The model is
// described by flat arrays built once per model (ForceModel, see
// runtime/sim.py _Plan for how each is built); the state by pointers into
// mjData (ForceData).  No allocation in Passive: ForceScratch is sized at
// construction.  Frames, units and the drag model: runtime/forces.py and docs/runtime.md;
// the numba reference implementation is tests/runtime/numba_oracle/forces.py.
#ifndef AURGEN_CORE_FORCES_H_
#define AURGEN_CORE_FORCES_H_

#include <cstdint>
#include <vector>

#include "kernel.h"
#include "lines.h"

namespace aurgen::core {

// flags (fl)
enum { kFDrag = 0, kFAdded = 1, kFGrav = 2, kFRecord = 3, kFBuoy = 4, kNFlag = 5 };
// ledger slots (led)
enum { kLUBuoy = 0, kLPDrag = 1, kLUGrav = 2, kLKE = 3, kLVSub = 4, kNLed = 8 };
// cell float columns (cf)
enum { kCRho = 0, kCMu = 1, kCFlow = 2, kCG = 5, kCP = 8, kCGas = 9, kCK = 10, kNCF = 11 };
inline constexpr int kNGravF = 19;  // gf: g(3) mu centre(3) g0(3) G(9)

// Read-only model arrays (row-major).  Sizes: ng displacement/windage/added-mass
// geoms, nc cells (kmax planes max), nb bodies, nv dofs, nw weld groups, nd
// damping items, na added-mass items, maxd the longest ancestor dof chain.
struct ForceModel {
  int ng = 0, nc = 0, kmax = 0, nb = 0, nv = 0, nw = 0, nd = 0, na = 0, maxd = 0;
  int64_t ngeom = 0, nM = 0;
  int64_t* fl = nullptr;            // (kNFlag) mutable: the record flag is set per stage
  const int64_t* gi = nullptr;      // (ng x 4) geom id, body id, mjtGeom type, mark
  const int64_t* gt = nullptr;      // (ng) types again
  const double* gcl = nullptr;      // (ng x 3) full-volume centroids, geom frame
  const double* gsz = nullptr;      // (ng x 3) sizes (mesh: bounding half-sizes)
  const double* gvol = nullptr;     // (ng) full volumes (m^3)
  const int64_t* gw = nullptr;      // (ng) weld group
  const int64_t* mesh_ids = nullptr;  // (ng)
  HullSet hulls;
  const double* cpl = nullptr;      // (nc x kmax x 4) cell half-spaces n.x <= d
  const int64_t* cnp = nullptr;     // (nc) their counts
  const double* cf = nullptr;       // (nc x kNCF)
  const double* gf = nullptr;       // (kNGravF)
  const int64_t* bch = nullptr;     // (nb x maxd) ancestor dofs of each body
  const int64_t* bnd = nullptr;     // (nb) their counts
  const int64_t* broot = nullptr;   // (nb) root body
  const double* bmass = nullptr;    // (nb) kg
  const double* binert = nullptr;   // (nb x 3) principal inertia, kg m^2
  const int64_t* di = nullptr;      // (nd x 2) body, weld group (-1: fully immersed)
  const double* df = nullptr;       // (nd x 72) linear 6x6 then quadratic 6x6 (Fossen sign)
  const int64_t* ai = nullptr;      // (na x 4) kind (0 body, 1 geom), body, object id, k
  const double* af = nullptr;       // (na x 36) added mass 6x6 (positive)
  const double* wvol = nullptr;     // (nw) displacement volume per weld group (m^3)
  const int64_t* Mmap = nullptr;    // (nv x nv) index into M of M[i, j] (i >= j) or -1
};

// mjData arrays (world frame; MuJoCo layouts).
struct ForceData {
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

// Outputs and scratch of one evaluation (row-major; sizes from ForceModel).
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
};

// alignas: the object (SetBodyArrays writes it every evaluation) fills cache lines
// of its own, as do the buffers it writes (lines.h): instances on two threads
// share no line.
class alignas(kLine) ForceStage {
 public:
  ForceStage(const ForceModel& model, const ForceOut& out);
  // One evaluation for the current stage of d.
  void Passive(const ForceData& d);
  const ForceModel& model() const { return m_; }
  // Point the body masses and inertias at live arrays (nb, nb x 3): MuJoCo lets
  // a user edit m->body_mass between steps, and the ledger must see it.
  void SetBodyArrays(const double* bmass, const double* binert) {
    m_.bmass = bmass;
    m_.binert = binert;
  }

 private:
  void AddedMass(const ForceData& d);
  ForceModel m_;
  ForceOut o_;
  Scratch scratch_;
  LineVec<int64_t> one_;     // (nc)
  LineVec<double> onesg_;    // (nc)
  LineVec<double> J_, AJ_;   // (6 x maxd)
  // drag coefficients per geom and cell (see the constructor): column j at j S, the
  // piece of geom k in cell c at k nc + c (S = slot_stride_)
  enum { kDQ = 0, kDLin = 1, kDRot = 2, kDRot2 = 3, kNDC = 4 };
  std::vector<double> dcoef_;
  std::vector<double> gpr_;      // (ng x 3) size products b c, a c, a b (drag's projected area)
  std::vector<double> crho_, cP_, cflow_;  // (nc), (nc), (3 x nc): the cells' columns
  std::vector<int64_t> box_idx_;  // the box geoms (BoxRows)
  std::vector<int> dnz_;         // nonzero entries 6 i + j of the damping items' D or Dq
  std::vector<int64_t> dnz0_;    // (nd + 1) each item's first in dnz_
  struct MEntry {
    int i, j;
    int64_t idx;
    double w;  // 0.5 on the diagonal, else 1
  };
  std::vector<MEntry> ment_;     // M's stored lower-triangle entries (i >= j), row by row
  // the pieces (a geom's part in one cell), one slot k nc + c each, column j at
  // j S: what pass A gives pass B (gravity, potential, surface damping's up
  // direction, |g| x height and switch) and what pass B gives pass C (moment,
  // force, energy, power)
  enum {
    kSG = 0, kSPhi = 3, kSN = 4, kSGH = 7, kSSurf = 8, kSM = 9, kSF = 12, kSU = 15, kSP = 16,
    kNSlot = 17
  };
  int64_t slot_stride_ = 1;     // S: ng nc (at least 1)
  LineVec<double> slots_;   // (kNSlot x S)
  LineVec<uint8_t> valid_;  // (S) the slot holds a piece
  // a run of consecutive geoms on one body: its root's subtree com, velocity, |w|
  struct Run {
    double sc[3] = {}, cv[6] = {}, wn = 0.0;
  };
  struct PieceFlags {
    bool buoy, drag, record;  // buoyancy (a displacement geom), drag, the ledger's terms
    // one gravity g (3) for every piece, so the slots hold none; then surface
    // damping (surf: where the section area > 0) with the up direction n (3) and
    // |g| x the geom's height along n, gh
    bool uniform, surf;
    const double *g, *n;
    double gh;
  };
  template <class L>
  void Wrenches(int k, int c, const Run& r, int64_t typ, PieceFlags pf);
};

}  // namespace aurgen::core

#endif  // AURGEN_CORE_FORCES_H_
