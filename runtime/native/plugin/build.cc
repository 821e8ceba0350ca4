// Hydro::Build (hydro.h): the model scan.  The C++ form of runtime/sim/plan.py Plan
// (+ Simulation._finish): the same arrays in the same order, so the plugin and the Python
// layer apply bitwise the same forces.
#include "hydro.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "environment.h"
#include "hull.h"

namespace aurgen::hydro {
namespace {

constexpr char kEnvText[] = "aurgen:environment";
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

// How a message names geom g: "geom 'name'", or by index and body when it has no name
// ("geom 3 (unnamed) of body 'hull'").
std::string GeomLabel(const mjModel* m, int g) {
  const char* nm = m->names + m->name_geomadr[g];
  if (*nm) return std::string("geom '") + nm + "'";
  const int b = m->geom_bodyid[g];
  const char* bn = m->names + m->name_bodyadr[b];
  return "geom " + std::to_string(g) + " (unnamed) of body " +
         (*bn ? std::string("'") + bn + "'" : std::to_string(b));
}

const char* TextOf(const mjModel* m, const char* name) {
  for (int i = 0; i < m->ntext; ++i)
    if (std::strcmp(m->names + m->name_textadr[i], name) == 0) return m->text_data + m->text_adr[i];
  return nullptr;
}

// The 6x6 in <numeric name="aurgen:<kind>:<body>"> (also under an attach prefix).
bool FindNumeric(const mjModel* m, const std::string& kind, const std::string& body, double out[36]) {
  std::vector<std::string> names = {"aurgen:" + kind + ":" + body};
  for (size_t i = body.find('/'); i != std::string::npos; i = body.find('/', i + 1))
    names.push_back(body.substr(0, i + 1) + "aurgen:" + kind + ":" + body.substr(i + 1));
  for (const std::string& n : names) {
    for (int i = 0; i < m->nnumeric; ++i) {
      if (n != m->names + m->name_numericadr[i]) continue;
      if (m->numeric_size[i] != 36) throw Fail("<numeric name='" + n + "'>: expected 36 numbers (a 6x6 matrix)");
      for (int k = 0; k < 36; ++k) {
        out[k] = m->numeric_data[m->numeric_adr[i] + k];
        if (!std::isfinite(out[k])) throw Fail("<numeric name='" + n + "'>: non-finite entry");
      }
      return true;
    }
  }
  return false;
}

double Dot3(const double* a, const double* b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

}  // namespace

bool Hydro::Build(const mjModel* m, int instance, const HydroConfig& cfg, std::string* err) {
  using Kind = core::GravityField::Kind;
  try {
    (void)instance;
    const char* text = TextOf(m, kEnvText);
    if (!text)
      throw Fail(std::string("the model has no <custom><text name=\"") + kEnvText +
                 "\"> (the environment: planes, cells, gravity; docs/formats.md)");
    Env env = ParseEnv(text);
    core::ForceModel M;
    M.drag = cfg.drag;
    M.buoyancy = cfg.buoyancy;
    M.damping = cfg.damping;
    // ---- geoms: displacement / windage marks (geom_user[0]), ellipsoid added mass
    std::vector<std::pair<int, int>> geoms;  // (geom id, core::Mark)
    std::vector<int> is_ell(m->ngeom, 0);
    if (cfg.added_mass)
      for (int g = 0; g < m->ngeom; ++g)
        if (m->geom_bodyid[g] != 0 && m->geom_fluid[g * mjNFLUID] == 1.0) is_ell[g] = 1;
    for (int g = 0; g < m->ngeom; ++g) {
      // round half to even, as runtime/sim/plan.py's round(); a non-finite or huge value marks nothing
      const double u = m->nuser_geom > 0 ? m->geom_user[g * m->nuser_geom] : 0.0;
      const int mark = std::fabs(u) < 1e9 ? static_cast<int>(std::nearbyint(u)) : 0;
      const core::Mark mk = static_cast<core::Mark>(mark);
      if (mk == core::Mark::kDisplacement || mk == core::Mark::kWindage)
        geoms.push_back({g, mark});
      else if (is_ell[g])
        geoms.push_back({g, static_cast<int>(core::Mark::kAddedOnly)});
    }
    const int ng = static_cast<int>(geoms.size());
    M.geoms.resize(ng);
    for (int k = 0; k < ng; ++k) {
      core::Geom& G = M.geoms[k];
      const int g = geoms[k].first, typ = m->geom_type[g];
      const std::string nm = GeomLabel(m, g);
      if (!core::IsKernelType(typ))
        throw Fail(nm + ": this type cannot displace fluid (sphere, capsule, ellipsoid, cylinder, box or mesh)");
      G.id = g;
      G.body = m->geom_bodyid[g];
      G.type = typ;
      G.mark = static_cast<core::Mark>(geoms[k].second);
      // user[1]: the form drag coefficient C_D of a marked geom (0, or no second user number: 1),
      // as runtime/sim/plan.py reads it
      const double cd = m->nuser_geom > 1 ? m->geom_user[g * m->nuser_geom + 1] : 0.0;
      if (G.mark != core::Mark::kAddedOnly && cd != 0.0) {
        if (!(cd > 0.0 && cd <= core::kMaxDragCoefficient)) throw Fail(nm + ": " + core::kDragCoefficientError);
        G.cd = cd;
      }
      std::copy(m->geom_size + 3 * g, m->geom_size + 3 * g + 3, G.size);
      if (typ == mjGEOM_MESH) {  // its convex hull, built from its vertices (core/hull.h BuildHull):
        // MuJoCo's (mesh_graph) exists only when some geom collides with the mesh
        int mid = m->geom_dataid[g];
        if (mid < 0 || mid >= m->nmesh) throw Fail(nm + ": no mesh");
        std::string why = core::BuildHull(m->mesh_vert + 3 * static_cast<int64_t>(m->mesh_vertadr[mid]),
                                          m->mesh_vertnum[mid], &hulls_);
        if (!why.empty()) throw Fail(nm + " (mesh displacement, mesh '" + (m->names + m->name_meshadr[mid]) + "'): " + why);
        G.mesh = static_cast<int64_t>(hulls_.volume.size()) - 1;
        std::copy(m->geom_aabb + 6 * g + 3, m->geom_aabb + 6 * g + 6, G.size);  // half-extents
      }
    }
    M.hulls = hulls_.View();
    // full volumes and centroids; weld groups and their displacement volumes
    std::vector<int> welds;
    for (core::Geom& G : M.geoms) {
      double full[4];
      core::FullLocal(G.type, G.size, M.hulls, G.mesh, full);
      G.volume = full[0];
      std::copy(full + 1, full + 4, G.centre);
      int w = m->body_weldid[G.body];
      auto it = std::find(welds.begin(), welds.end(), w);
      if (it == welds.end()) it = welds.insert(welds.end(), w);
      G.weld = it - welds.begin();
    }
    M.weld_volume.assign(welds.size(), 0.0);
    for (const core::Geom& G : M.geoms)
      if (G.mark == core::Mark::kDisplacement) M.weld_volume[G.weld] += G.volume;
    // ---- cells
    // kmax: the most planes one cell uses (the clip's scratch grows with its square: a world
    // of many small cells must not size it by all its planes; as runtime/sim/plan.py Plan)
    const int P = env.P, nc = static_cast<int>(env.cells.size());
    int kmax = 1;
    for (const EnvCell& cell : env.cells) kmax = std::max(kmax, cell.used);
    M.kmax = kmax;
    M.cell_planes.assign(static_cast<size_t>(nc) * kmax * 4, 0.0);
    M.cells.resize(nc);
    bool percell = false;
    for (int c = 0; c < nc; ++c) {
      const EnvCell& cell = env.cells[c];
      core::Cell& C = M.cells[c];
      percell |= cell.has_gravity;
      double* rows = M.cell_planes.data() + 4 * static_cast<size_t>(c) * kmax;
      for (int j = 0; j < P; ++j) {
        if (cell.signs[j] == 0) continue;
        for (int a = 0; a < 4; ++a)
          rows[4 * C.nplanes + a] = cell.signs[j] < 0 ? env.planes[4 * j + a] : -env.planes[4 * j + a];
        ++C.nplanes;
      }
      C.rho = cell.density;
      C.mu = cell.viscosity;
      std::copy(cell.flow, cell.flow + 3, C.flow);
      if (cell.has_gravity) std::copy(cell.gravity, cell.gravity + 3, C.g);
      C.gas = cell.density < 10.0;  // forces.GAS_DENSITY
    }
    // ---- gravity
    M.gravity = env.gravity;
    M.sea = env.sea;
    if (M.gravity.kind == Kind::kUniform && percell) M.gravity.kind = Kind::kPerCell;
    const double* genv = M.gravity.g;
    if (M.gravity.kind == Kind::kPerCell) {
      // K_c so that phi_c(x) = -g_c.x + K_c is continuous across faces (BFS)
      auto gof = [&](int c) { return env.cells[c].has_gravity ? env.cells[c].gravity : genv; };
      std::vector<double> K(nc, kNan);
      for (int start = 0; start < nc; ++start) {
        if (!std::isnan(K[start])) continue;
        K[start] = 0.0;
        std::vector<int> todo = {start};
        while (!todo.empty()) {
          int i = todo.back();
          todo.pop_back();
          for (int j = 0; j < nc; ++j) {
            if (!std::isnan(K[j])) continue;
            for (int k = 0; k < P; ++k) {
              if (env.cells[i].signs[k] * env.cells[j].signs[k] < 0) {
                double x0[3], dg[3];
                for (int a = 0; a < 3; ++a) x0[a] = env.planes[4 * k + a] * env.planes[4 * k + 3];
                for (int a = 0; a < 3; ++a) dg[a] = gof(j)[a] - gof(i)[a];
                K[j] = K[i] + Dot3(dg, x0);
                todo.push_back(j);
                break;
              }
            }
          }
        }
      }
      for (int c = 0; c < nc; ++c) M.cells[c].k = K[c];
    }
    // pressure constants: p = -rho phi(x) + P, zero on each cell's upper face (a uniform
    // field's direction; down for the others)
    double gvec[3] = {0, 0, -1.0};
    if (env.gravity.kind == Kind::kUniform) std::copy(genv, genv + 3, gvec);
    double gn = std::sqrt(Dot3(gvec, gvec));
    double gh[3];
    for (int a = 0; a < 3; ++a) gh[a] = gvec[a] / (gn > 0 ? gn : 1.0);
    for (int c = 0; c < nc; ++c) {
      const EnvCell& cell = env.cells[c];
      int best = -1;
      double score = -std::numeric_limits<double>::infinity();
      for (int j = 0; j < P; ++j) {
        if (cell.signs[j] == 0) continue;
        double nd = Dot3(&env.planes[4 * j], gh);
        double sc = cell.signs[j] * nd;
        sc = sc > 0 ? sc : std::fabs(nd) - 2.0;
        if (sc > score) {
          best = j;
          score = sc;
        }
      }
      double x0[3] = {0, 0, 0};
      if (best >= 0)
        for (int a = 0; a < 3; ++a) x0[a] = env.planes[4 * best + a] * env.planes[4 * best + 3];
      const double ph = M.gravity.kind == Kind::kPerCell && cell.has_gravity
                            ? core::UniformPotential(cell.gravity, M.cells[c].k, x0)
                            : M.gravity.Potential(x0);
      M.cells[c].p = cell.density * ph;
    }
    // ---- bodies: roots and ancestor dof chains
    const int nb = m->nbody, nv = m->nv;
    std::vector<std::vector<int64_t>> chains(nb);
    int maxd = 1;
    for (int b = 0; b < nb; ++b) {
      int w = m->body_weldid[b];
      if (w == 0 || m->body_dofnum[w] == 0) continue;
      for (int j = m->body_dofadr[w] + m->body_dofnum[w] - 1; j >= 0; j = m->dof_parentid[j])
        chains[b].push_back(j);
      maxd = std::max(maxd, static_cast<int>(chains[b].size()));
    }
    M.maxd = maxd;
    M.chains.assign(static_cast<size_t>(nb) * maxd, 0);
    M.bodies.resize(nb);
    broot_.assign(nb, 0);
    for (int b = 0; b < nb; ++b) {
      std::copy(chains[b].begin(), chains[b].end(), M.chains.begin() + static_cast<size_t>(b) * maxd);
      M.bodies[b] = core::Body{m->body_rootid[b], static_cast<int64_t>(chains[b].size())};
      broot_[b] = m->body_rootid[b];
    }
    M.body_mass = m->body_mass;  // (Compute points them at its model's, live)
    M.body_inertia = m->body_inertia;
    auto group_of = [&](int b) -> int64_t {  // weld group index with displacement, or -1
      int w = m->body_weldid[b];
      auto it = std::find(welds.begin(), welds.end(), w);
      if (it == welds.end()) return -1;
      int64_t idx = it - welds.begin();
      return M.weld_volume[idx] > 0 ? idx : -1;
    };
    // ---- declared damping
    for (int b = 1; b < nb; ++b) {
      const char* name = m->names + m->name_bodyadr[b];
      if (!*name) continue;
      core::Damper dm;
      bool hl = FindNumeric(m, "damping_linear", name, dm.D);
      bool hq = FindNumeric(m, "damping_quadratic", name, dm.Dq);
      if (!hl && !hq) continue;
      dm.body = b;
      dm.group = group_of(b);
      M.dampers.push_back(dm);
    }
    // ---- added mass: declared (Fossen sign, negative), then ellipsoid geoms
    std::vector<int> added_bodies;
    if (cfg.added_mass) {
      for (int b = 1; b < nb; ++b) {
        const char* name = m->names + m->name_bodyadr[b];
        double A[36];
        if (!*name || !FindNumeric(m, "added_mass", name, A)) continue;
        core::AddedMass am;
        am.kind = core::AddedMass::Kind::kBody;
        am.body = am.object = b;
        am.group = group_of(b);
        for (int i = 0; i < 6; ++i)
          for (int j = 0; j < 6; ++j) am.A[6 * i + j] = -0.5 * (A[6 * i + j] + A[6 * j + i]);
        M.added.push_back(am);
        added_bodies.push_back(b);
      }
      for (int k = 0; k < ng; ++k) {
        const int g = static_cast<int>(M.geoms[k].id);
        if (!is_ell[g]) continue;
        core::AddedMass am;
        am.kind = core::AddedMass::Kind::kGeom;
        am.body = m->geom_bodyid[g];
        am.object = g;
        am.geom = k;
        for (int i = 0; i < 6; ++i) am.A[7 * i] = m->geom_fluid[g * mjNFLUID + 6 + i];
        M.added.push_back(am);
        added_bodies.push_back(m->geom_bodyid[g]);
      }
    }
    has_added_ = !M.added.empty();
    M.added_mass = has_added_;
    M.nv = nv;
    M.Mmap.assign(static_cast<size_t>(nv) * nv, -1);
    for (int i = 0; i < nv; ++i)
      for (int k = m->M_rowadr[i]; k < m->M_rowadr[i] + m->M_rownnz[i]; ++k)
        M.Mmap[static_cast<size_t>(i) * nv + m->M_colind[k]] = k;
    for (int b : added_bodies)
      for (int64_t j1 : chains[b])
        for (int64_t j2 : chains[b])
          if (j2 <= j1 && M.Mmap[j1 * nv + j2] < 0)
            throw Fail(std::string("body '") + (m->names + m->name_bodyadr[b]) +
                       "' carries added mass but MuJoCo stores only the diagonal of its mass-matrix "
                       "rows: write it <body simple=\"false\">");
    // ---- options the plugin takes over
    if (m->opt.density != 0 || m->opt.viscosity != 0 || m->opt.wind[0] != 0 || m->opt.wind[1] != 0 ||
        m->opt.wind[2] != 0)
      throw Fail("option density, viscosity and wind must be 0: the environment's cells carry the fluid");
    for (int a = 0; a < 3; ++a) {
      double want = M.gravity.Applied() ? 0.0 : genv[a];  // as Simulation sets it (runtime/sim/simulation.py _finish)
      if (m->opt.gravity[a] != want)
        throw Fail(M.gravity.Applied()
                       ? "option gravity must be 0 0 0: the plugin applies the environment's gravity field"
                       : "option gravity must equal the environment's uniform gravity");
    }
    // ---- outputs
    const int nw = static_cast<int>(welds.size());
    pos_.assign(3 * ng, 0.0);
    mats_.assign(9 * ng, 0.0);
    planes_.assign(4 * kmax, 0.0);
    out_.assign(5 * ng, 0.0);
    vols_.assign(static_cast<size_t>(ng) * nc, 0.0);
    cents_.assign(static_cast<size_t>(ng) * nc * 3, 0.0);
    areas_.assign(static_cast<size_t>(ng) * nc, 0.0);
    wfrac_.assign(nw, 0.0);
    led_.assign(core::kNLed, 0.0);
    qmine_.assign(nv, 0.0);
    qdrag_.assign(nv, 0.0);
    dv_.assign(nv, 0.0);
    vbar_.assign(nv, 0.0);
    mdv_.assign(nv, 0.0);
    core::ForceOut O{pos_.data(), mats_.data(), planes_.data(), out_.data(), vols_.data(),
                     cents_.data(), areas_.data(), wfrac_.data(), led_.data(), qmine_.data(),
                     qdrag_.data()};
    stage_ = std::make_unique<core::ForceStage>(std::move(M), O);
    return true;
  } catch (const std::exception& e) {
    *err = e.what();
    return false;
  }
}

}  // namespace aurgen::hydro
