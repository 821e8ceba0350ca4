// aurgen.hydrostatics; see hydro.h.  Build() is the C++ form of runtime/sim.py
// _Plan (+ Simulation._finish): the same arrays in the same order, so the
// plugin and the Python layer apply bitwise the same forces.
#include "hydro.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>
#include <string>

#include "hull.h"
#include "json.h"

namespace aurgen::hydro {
namespace {

constexpr char kEnvText[] = "aurgen:environment";
constexpr char kPluginName[] = "aurgen.hydrostatics";
constexpr const char* kAttributes[] = {"drag",          "added_mass", "buoyancy",
                                       "settle_window", "track",      "ledger"};
constexpr int kNBoolAttributes = 3;
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr int kMarkDisplacement = 1, kMarkWindage = 2, kMarkAddedOnly = 3;
constexpr float kCobRgba[4] = {0.15f, 0.45f, 1.0f, 1.0f};  // centre of buoyancy (Visualize)
// size limits, runtime/env.py's (MAX_PLANES, MAX_CELL_PLANES, MAX_CELLS; docs/formats.md)
constexpr size_t kMaxPlanes = 1024, kMaxCellPlanes = 64, kMaxCells = 256;

struct Cell {
  std::string name;
  std::vector<int> signs;  // per plane: -1 (n.x <= d), +1 (n.x >= d), 0
  int used = 0;            // the planes that bound it (nonzero signs)
  double density = 0, viscosity = 0, flow[3] = {0, 0, 0}, gravity[3] = {0, 0, 0};
  bool has_gravity = false;
};

struct Env {
  std::vector<double> planes;  // (P x 4) unit n, d
  int P = 0;
  std::vector<Cell> cells;
  int gkind = 0;  // 0 uniform, 1 central, 2 linear
  double g[3] = {0, 0, -9.81}, mu = 0, centre[3] = {0, 0, 0}, g0[3] = {0, 0, 0}, G[9] = {0};
};

struct Fail : std::runtime_error {
  using std::runtime_error::runtime_error;
};

double Num(const json::Value* v, const std::string& what) {
  if (!v || v->kind != json::Value::kNum || !std::isfinite(v->num))
    throw Fail(what + ": expected a finite number");
  return v->num;
}

void Vec(const json::Value* v, int n, double* out, const std::string& what) {
  if (!v || v->kind != json::Value::kArr || static_cast<int>(v->arr.size()) != n)
    throw Fail(what + ": expected " + std::to_string(n) + " finite numbers");
  for (int i = 0; i < n; ++i) out[i] = Num(&v->arr[i], what);
}

Env ParseEnv(const std::string& text) {
  json::Value root;
  try {
    root = json::Parser(text).Parse();
  } catch (const std::runtime_error& e) {
    throw Fail(e.what());
  }
  if (root.kind != json::Value::kObj) throw Fail("expected a JSON object with planes, cells, gravity");
  Env env;
  if (const json::Value* pl = root.Get("planes")) {
    if (pl->kind != json::Value::kArr) throw Fail("planes: expected a list of [nx, ny, nz, d]");
    if (pl->arr.size() > kMaxPlanes)
      throw Fail("planes: " + std::to_string(pl->arr.size()) + " planes, more than the " +
                 std::to_string(kMaxPlanes) + " an environment may have");
    for (size_t i = 0; i < pl->arr.size(); ++i) {
      double p[4];
      Vec(&pl->arr[i], 4, p, "planes[" + std::to_string(i) + "]");
      double nn = std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
      if (std::fabs(nn - 1.0) > 1e-9)
        throw Fail("planes[" + std::to_string(i) + "]: the normal is not a unit vector");
      env.planes.insert(env.planes.end(), p, p + 4);
    }
  }
  env.P = static_cast<int>(env.planes.size() / 4);
  if (const json::Value* cs = root.Get("cells")) {
    if (cs->kind != json::Value::kArr) throw Fail("cells: expected a list");
    if (cs->arr.size() > kMaxCells)
      throw Fail("cells: " + std::to_string(cs->arr.size()) + " cells, more than the " +
                 std::to_string(kMaxCells) + " an environment may have");
    for (size_t i = 0; i < cs->arr.size(); ++i) {
      const json::Value& c = cs->arr[i];
      Cell cell;
      const json::Value* nm = c.Get("name");
      cell.name = nm && nm->kind == json::Value::kStr ? nm->str : "cell" + std::to_string(i);
      std::string w = "cell '" + cell.name + "'";
      if (c.kind != json::Value::kObj) throw Fail(w + ": expected an object");
      const json::Value* sg = c.Get("signs");
      if (sg) {
        if (sg->kind != json::Value::kArr || static_cast<int>(sg->arr.size()) > env.P)
          throw Fail(w + " signs: expected -1, 0 or +1 per plane");
        for (const json::Value& s : sg->arr) {
          double v = Num(&s, w + " signs");
          if (v != -1 && v != 0 && v != 1) throw Fail(w + " signs: expected -1, 0 or +1 per plane");
          cell.signs.push_back(static_cast<int>(v));
        }
      }
      cell.signs.resize(env.P, 0);
      cell.used = static_cast<int>(
          std::count_if(cell.signs.begin(), cell.signs.end(), [](int s) { return s != 0; }));
      if (static_cast<size_t>(cell.used) > kMaxCellPlanes)
        throw Fail(w + " signs: bounded by " + std::to_string(cell.used) + " planes, more than the " +
                   std::to_string(kMaxCellPlanes) + " a cell may use (split it into several cells)");
      cell.density = c.Get("density") ? Num(c.Get("density"), w + " density") : 0.0;
      cell.viscosity = c.Get("viscosity") ? Num(c.Get("viscosity"), w + " viscosity") : 0.0;
      if (cell.density < 0 || cell.viscosity < 0) throw Fail(w + ": density and viscosity must be >= 0");
      if (c.Get("flow")) Vec(c.Get("flow"), 3, cell.flow, w + " flow");
      if (const json::Value* cg = c.Get("gravity"); cg && cg->kind != json::Value::kNull) {
        Vec(cg, 3, cell.gravity, w + " gravity");
        cell.has_gravity = true;
      }
      env.cells.push_back(cell);
    }
  }
  const json::Value* gd = root.Get("gravity");
  if (gd && gd->kind == json::Value::kArr) {
    Vec(gd, 3, env.g, "gravity");
  } else if (gd && gd->kind == json::Value::kObj) {
    const json::Value* t = gd->Get("type");
    std::string kind = t && t->kind == json::Value::kStr ? t->str : "uniform";
    if (kind == "uniform") {
      if (gd->Get("g")) Vec(gd->Get("g"), 3, env.g, "gravity.g");
    } else if (kind == "central") {
      env.gkind = 1;
      env.mu = Num(gd->Get("mu"), "gravity.mu");
      if (env.mu <= 0) throw Fail("gravity.mu: expected a positive number (m^3/s^2)");
      if (gd->Get("centre")) Vec(gd->Get("centre"), 3, env.centre, "gravity.centre");
    } else if (kind == "linear") {
      env.gkind = 2;
      if (gd->Get("g0")) Vec(gd->Get("g0"), 3, env.g0, "gravity.g0");
      const json::Value* G = gd->Get("G");
      if (!G || G->kind != json::Value::kArr || G->arr.size() != 3) throw Fail("gravity.G: expected a 3x3 matrix");
      for (int r = 0; r < 3; ++r) Vec(&G->arr[r], 3, env.G + 3 * r, "gravity.G row");
    } else {
      throw Fail("gravity.type: expected uniform, central or linear");
    }
  } else if (gd && gd->kind != json::Value::kNull) {
    throw Fail("gravity: expected [gx, gy, gz] or an object");
  }
  bool percell = false;
  for (const Cell& c : env.cells) percell |= c.has_gravity;
  if (percell && env.gkind != 0)
    throw Fail("per-cell gravity is only allowed with a uniform global gravity");
  return env;
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

// A settle_window config value: a finite positive number of seconds, nothing after it.
bool ParseWindow(const char* v, double* w) {
  char* end = nullptr;
  double x = std::strtod(v, &end);
  if (end == v || *end != '\0' || !std::isfinite(x) || x <= 0) return false;
  *w = x;
  return true;
}

}  // namespace

std::optional<HydroConfig> HydroConfig::FromModel(const mjModel* m, int instance) {
  HydroConfig c;
  bool* fields[] = {&c.drag, &c.added_mass, &c.buoyancy};
  for (int i = 0; i < kNBoolAttributes; ++i) {
    const char* v = mj_getPluginConfig(m, instance, kAttributes[i]);
    if (!v || !*v) continue;
    std::string s(v);
    if (s == "true" || s == "1") {
      *fields[i] = true;
    } else if (s == "false" || s == "0") {
      *fields[i] = false;
    } else {
      mju_warning("%s instance %d: config key '%s' is '%s'; expected true or false", kPluginName,
                  instance, kAttributes[i], v);
      return std::nullopt;
    }
  }
  if (const char* v = mj_getPluginConfig(m, instance, "settle_window"); v && *v) {
    double w = 0, dt = m->opt.timestep;
    if (!ParseWindow(v, &w) || (dt > 0 && w / dt > kMaxWindow)) {
      mju_warning("%s instance %d: config key 'settle_window' is '%s'; expected a positive number "
                  "of seconds, at most %d timesteps", kPluginName, instance, v, kMaxWindow);
      return std::nullopt;
    }
    c.settle_window = w;
  }
  if (const char* v = mj_getPluginConfig(m, instance, "ledger"); v && *v) {
    std::string s(v);
    if (s != "energy" && s != "plain") {
      mju_warning("%s instance %d: config key 'ledger' is '%s'; expected energy or plain", kPluginName,
                  instance, v);
      return std::nullopt;
    }
    c.plain = s == "plain";
  }
  if (const char* v = mj_getPluginConfig(m, instance, "track"); v && *v) {
    if (mj_name2id(m, mjOBJ_BODY, v) < 0) {
      mju_warning("%s instance %d: config key 'track' is '%s'; expected the name of a body", kPluginName,
                  instance, v);
      return std::nullopt;
    }
    c.track = v;
  }
  return c;
}

namespace {

// The settle window (steps) of an instance: its settle_window config, else 1 s.
int WindowOf(const mjModel* m, int instance) {
  double w = 1.0;
  if (const char* v = mj_getPluginConfig(m, instance, "settle_window"); v && *v && !ParseWindow(v, &w))
    w = 1.0;  // init reports it
  return WindowSteps(w, m->opt.timestep);
}

// The tracked body: the config's, else the first body with a free joint, else body 1 (0 if none).
int TrackOf(const mjModel* m, const HydroConfig& c) {
  if (!c.track.empty()) return mj_name2id(m, mjOBJ_BODY, c.track.c_str());
  for (int j = 0; j < m->njnt; ++j)
    if (m->jnt_type[j] == mjJNT_FREE) return m->jnt_bodyid[j];
  return m->nbody > 1 ? 1 : 0;
}

}  // namespace

int StateSize(const mjModel* m, int instance) { return Layout(m->nv, WindowOf(m, instance)).size; }

std::unique_ptr<Hydro> Hydro::Create(const mjModel* m, mjData* d, int instance) {
  std::optional<HydroConfig> cfg = HydroConfig::FromModel(m, instance);
  if (!cfg) return nullptr;
  std::unique_ptr<Hydro> h(new Hydro());
  std::string err;
  h->plain_ = cfg->plain;
  if (!h->plain_ && !h->Build(m, instance, *cfg, &err)) {
    mju_warning("%s instance %d: %s", kPluginName, instance, err.c_str());
    return nullptr;
  }
  (void)d;
  h->L_ = Layout(m->nv, WindowOf(m, instance));
  h->track_ = TrackOf(m, *cfg);
  return h;
}

bool Hydro::Build(const mjModel* m, int instance, const HydroConfig& cfg, std::string* err) {
  try {
    (void)instance;
    const char* text = TextOf(m, kEnvText);
    if (!text)
      throw Fail(std::string("the model has no <custom><text name=\"") + kEnvText +
                 "\"> (the environment: planes, cells, gravity; docs/formats.md)");
    Env env = ParseEnv(text);
    // ---- geoms: displacement / windage marks (geom_user[0]), ellipsoid added mass
    std::vector<std::pair<int, int>> geoms;  // (geom id, mark)
    std::vector<int> is_ell(m->ngeom, 0);
    if (cfg.added_mass)
      for (int g = 0; g < m->ngeom; ++g)
        if (m->geom_bodyid[g] != 0 && m->geom_fluid[g * mjNFLUID] == 1.0) is_ell[g] = 1;
    for (int g = 0; g < m->ngeom; ++g) {
      int mark = m->nuser_geom > 0 ? static_cast<int>(std::lround(m->geom_user[g * m->nuser_geom])) : 0;
      if (mark == kMarkDisplacement || mark == kMarkWindage) geoms.push_back({g, mark});
      else if (is_ell[g]) geoms.push_back({g, kMarkAddedOnly});
    }
    int ng = ng_ = static_cast<int>(geoms.size());
    gi_.assign(4 * ng, 0);
    gsz_.assign(3 * ng, 0.0);
    mesh_ids_.assign(ng, 0);
    for (int k = 0; k < ng; ++k) {
      int g = geoms[k].first, typ = m->geom_type[g];
      const char* nm = m->names + m->name_geomadr[g];
      if (!core::IsKernelType(typ))
        throw Fail(std::string("geom '") + nm + "': this type cannot displace fluid (sphere, capsule, ellipsoid, cylinder, box or mesh)");
      gi_[4 * k] = g;
      gi_[4 * k + 1] = m->geom_bodyid[g];
      gi_[4 * k + 2] = typ;
      gi_[4 * k + 3] = geoms[k].second;
      for (int a = 0; a < 3; ++a) gsz_[3 * k + a] = m->geom_size[3 * g + a];
      if (typ == mjGEOM_MESH) {  // its convex hull, from MuJoCo's (as runtime/sim.py _Plan, from trimesh)
        int mid = m->geom_dataid[g];
        if (mid < 0 || mid >= m->nmesh) throw Fail(std::string("geom '") + nm + "': no mesh");
        int ga = m->mesh_graphadr[mid];
        std::string why = ga < 0 ? "the mesh has no convex hull in the model (mesh_graph)"
                                 : core::AppendHull(m->mesh_vert + 3 * static_cast<int64_t>(m->mesh_vertadr[mid]),
                                                    m->mesh_vertnum[mid], m->mesh_graph + ga, m->nmeshgraph - ga,
                                                    &hulls_);
        if (!why.empty()) throw Fail(std::string("geom '") + nm + "' (mesh displacement): " + why);
        mesh_ids_[k] = static_cast<int64_t>(hulls_.volume.size()) - 1;
        for (int a = 0; a < 3; ++a) gsz_[3 * k + a] = m->geom_aabb[6 * g + 3 + a];  // half-extents
      }
    }
    core::HullSet hs = hulls_.View();
    gvol_.assign(ng, 0.0);
    gcl_.assign(3 * ng, 0.0);
    for (int k = 0; k < ng; ++k) {
      double full[4];
      core::FullLocal(static_cast<int>(gi_[4 * k + 2]), &gsz_[3 * k], hs, mesh_ids_[k], full);
      gvol_[k] = full[0];
      for (int a = 0; a < 3; ++a) gcl_[3 * k + a] = full[1 + a];
    }
    gt_.assign(ng, 0);
    for (int k = 0; k < ng; ++k) gt_[k] = gi_[4 * k + 2];
    // weld groups
    std::vector<int> welds;
    gw_.assign(ng, 0);
    for (int k = 0; k < ng; ++k) {
      int w = m->body_weldid[gi_[4 * k + 1]];
      auto it = std::find(welds.begin(), welds.end(), w);
      if (it == welds.end()) {
        welds.push_back(w);
        it = welds.end() - 1;
      }
      gw_[k] = it - welds.begin();
    }
    int nw = static_cast<int>(welds.size());
    wvol_.assign(nw, 0.0);
    for (int k = 0; k < ng; ++k)
      if (gi_[4 * k + 3] == kMarkDisplacement) wvol_[gw_[k]] += gvol_[k];
    // ---- cells
    // kmax: the most planes one cell uses (the clip's scratch grows with its square: a world
    // of many small cells must not size it by all its planes; as runtime/sim.py _Plan)
    int P = env.P, nc = static_cast<int>(env.cells.size()), kmax = 1;
    for (const Cell& cell : env.cells) kmax = std::max(kmax, cell.used);
    cpl_.assign(static_cast<size_t>(nc) * kmax * 4, 0.0);
    cnp_.assign(nc, 0);
    cf_.assign(static_cast<size_t>(nc) * core::kNCF, 0.0);
    double gvec[3] = {0, 0, -1.0};
    if (env.gkind == 0) std::copy(env.g, env.g + 3, gvec);
    bool percell = false;
    for (int c = 0; c < nc; ++c) {
      const Cell& cell = env.cells[c];
      percell |= cell.has_gravity;
      int r = 0;
      for (int j = 0; j < P; ++j) {
        if (cell.signs[j] == 0) continue;
        for (int a = 0; a < 4; ++a)
          cpl_[4 * (c * kmax + r) + a] = cell.signs[j] < 0 ? env.planes[4 * j + a] : -env.planes[4 * j + a];
        ++r;
      }
      cnp_[c] = r;
      double* row = &cf_[c * core::kNCF];
      row[core::kCRho] = cell.density;
      row[core::kCMu] = cell.viscosity;
      for (int a = 0; a < 3; ++a) {
        row[core::kCFlow + a] = cell.flow[a];
        row[core::kCG + a] = cell.has_gravity ? cell.gravity[a] : kNan;
      }
      row[core::kCGas] = cell.density < 10.0 ? 1.0 : 0.0;  // forces.GAS_DENSITY
    }
    // ---- gravity
    gf_.assign(core::kNGravF, 0.0);
    int64_t gk;
    if (env.gkind == 0) {
      gk = percell ? 3 : 0;
      std::copy(env.g, env.g + 3, gf_.begin());
    } else if (env.gkind == 1) {
      gk = 1;
      gf_[3] = env.mu;
      std::copy(env.centre, env.centre + 3, gf_.begin() + 4);
    } else {
      gk = 2;
      std::copy(env.g0, env.g0 + 3, gf_.begin() + 7);
      std::copy(env.G, env.G + 9, gf_.begin() + 10);
    }
    auto gof = [&](int c, double* out) {
      const Cell& cell = env.cells[c];
      for (int a = 0; a < 3; ++a) out[a] = cell.has_gravity ? cell.gravity[a] : env.g[a];
    };
    if (gk == 3) {  // K_c so that phi_c(x) = -g_c.x + K_c is continuous across faces (BFS)
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
                double x0[3], gi[3], gj[3], dg[3];
                for (int a = 0; a < 3; ++a) x0[a] = env.planes[4 * k + a] * env.planes[4 * k + 3];
                gof(i, gi);
                gof(j, gj);
                for (int a = 0; a < 3; ++a) dg[a] = gj[a] - gi[a];
                K[j] = K[i] + Dot3(dg, x0);
                todo.push_back(j);
                break;
              }
            }
          }
        }
      }
      for (int c = 0; c < nc; ++c) cf_[c * core::kNCF + core::kCK] = K[c];
    }
    // pressure constants: p = -rho phi(x) + P, zero on each cell's upper face
    double gn = std::sqrt(Dot3(gvec, gvec));
    double gh[3];
    for (int a = 0; a < 3; ++a) gh[a] = gvec[a] / (gn > 0 ? gn : 1.0);
    for (int c = 0; c < nc; ++c) {
      const Cell& cell = env.cells[c];
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
      double ph;
      if (gk == 3 && cell.has_gravity) {
        ph = -Dot3(cell.gravity, x0) + cf_[c * core::kNCF + core::kCK];
      } else if (gk == 1) {
        double r[3] = {x0[0] - env.centre[0], x0[1] - env.centre[1], x0[2] - env.centre[2]};
        ph = -env.mu / std::sqrt(Dot3(r, r));
      } else if (gk == 2) {
        double q = 0.0;
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j) q += x0[i] * env.G[3 * i + j] * x0[j];
        ph = -(Dot3(env.g0, x0) + 0.5 * q);
      } else {
        ph = -Dot3(env.g, x0);
      }
      cf_[c * core::kNCF + core::kCP] = cell.density * ph;
    }
    // ---- bodies: ancestor dof chains
    int nb = m->nbody, nv = m->nv;
    std::vector<std::vector<int64_t>> chains(nb);
    int maxd = 1;
    for (int b = 0; b < nb; ++b) {
      int w = m->body_weldid[b];
      if (w == 0 || m->body_dofnum[w] == 0) continue;
      for (int j = m->body_dofadr[w] + m->body_dofnum[w] - 1; j >= 0; j = m->dof_parentid[j])
        chains[b].push_back(j);
      maxd = std::max(maxd, static_cast<int>(chains[b].size()));
    }
    bch_.assign(static_cast<size_t>(nb) * maxd, 0);
    bnd_.assign(nb, 0);
    broot_.assign(nb, 0);
    bmass_.assign(m->body_mass, m->body_mass + nb);
    binert_.assign(m->body_inertia, m->body_inertia + 3 * nb);
    for (int b = 0; b < nb; ++b) {
      std::copy(chains[b].begin(), chains[b].end(), bch_.begin() + static_cast<size_t>(b) * maxd);
      bnd_[b] = static_cast<int64_t>(chains[b].size());
      broot_[b] = m->body_rootid[b];
    }
    auto group_of = [&](int b) -> int64_t {  // weld group index with displacement, or -1
      int w = m->body_weldid[b];
      auto it = std::find(welds.begin(), welds.end(), w);
      if (it == welds.end()) return -1;
      int64_t idx = it - welds.begin();
      return wvol_[idx] > 0 ? idx : -1;
    };
    // ---- declared damping
    di_.clear();
    df_.clear();
    for (int b = 1; b < nb; ++b) {
      const char* name = m->names + m->name_bodyadr[b];
      if (!*name) continue;
      double Dl[36] = {0}, Dq[36] = {0};
      bool hl = FindNumeric(m, "damping_linear", name, Dl);
      bool hq = FindNumeric(m, "damping_quadratic", name, Dq);
      if (!hl && !hq) continue;
      di_.push_back(b);
      di_.push_back(group_of(b));
      df_.insert(df_.end(), Dl, Dl + 36);
      df_.insert(df_.end(), Dq, Dq + 36);
    }
    // ---- added mass: declared (Fossen sign, negative), then ellipsoid geoms
    ai_.clear();
    af_.clear();
    std::vector<int> added_bodies;
    if (cfg.added_mass) {
      for (int b = 1; b < nb; ++b) {
        const char* name = m->names + m->name_bodyadr[b];
        double A[36];
        if (!*name || !FindNumeric(m, "added_mass", name, A)) continue;
        int64_t row[4] = {0, b, b, group_of(b)};
        ai_.insert(ai_.end(), row, row + 4);
        for (int i = 0; i < 6; ++i)
          for (int j = 0; j < 6; ++j) af_.push_back(-0.5 * (A[6 * i + j] + A[6 * j + i]));
        added_bodies.push_back(b);
      }
      for (int k = 0; k < ng; ++k) {
        int g = static_cast<int>(gi_[4 * k]);
        if (!is_ell[g]) continue;
        int64_t row[4] = {1, m->geom_bodyid[g], g, k};
        ai_.insert(ai_.end(), row, row + 4);
        for (int i = 0; i < 6; ++i)
          for (int j = 0; j < 6; ++j) af_.push_back(i == j ? m->geom_fluid[g * mjNFLUID + 6 + i] : 0.0);
        added_bodies.push_back(m->geom_bodyid[g]);
      }
    }
    has_added_ = !ai_.empty();
    Mmap_.assign(static_cast<size_t>(nv) * nv, -1);
    for (int i = 0; i < nv; ++i)
      for (int k = m->M_rowadr[i]; k < m->M_rowadr[i] + m->M_rownnz[i]; ++k)
        Mmap_[static_cast<size_t>(i) * nv + m->M_colind[k]] = k;
    for (int b : added_bodies)
      for (int64_t j1 : chains[b])
        for (int64_t j2 : chains[b])
          if (j2 <= j1 && Mmap_[j1 * nv + j2] < 0)
            throw Fail(std::string("body '") + (m->names + m->name_bodyadr[b]) +
                       "' carries added mass but MuJoCo stores only the diagonal of its mass-matrix "
                       "rows: write it <body simple=\"false\">");
    // ---- options the plugin takes over
    if (m->opt.density != 0 || m->opt.viscosity != 0 || m->opt.wind[0] != 0 || m->opt.wind[1] != 0 ||
        m->opt.wind[2] != 0)
      throw Fail("option density, viscosity and wind must be 0: the environment's cells carry the fluid");
    for (int a = 0; a < 3; ++a) {
      double want = gk == 0 ? env.g[a] : 0.0;  // as Simulation sets it (runtime/sim.py _finish)
      if (m->opt.gravity[a] != want)
        throw Fail(gk != 0
                       ? "option gravity must be 0 0 0: the plugin applies the environment's gravity field"
                       : "option gravity must equal the environment's uniform gravity");
    }
    // ---- flags, outputs
    fl_.assign(core::kNFlag, 0);
    fl_[core::kFDrag] = cfg.drag ? 1 : 0;
    fl_[core::kFAdded] = has_added_ ? 1 : 0;
    fl_[core::kFGrav] = gk;
    fl_[core::kFBuoy] = cfg.buoyancy ? 1 : 0;
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
    core::ForceModel M;
    M.ng = ng;
    M.nc = nc;
    M.kmax = kmax;
    M.nb = nb;
    M.nv = nv;
    M.nw = nw;
    M.nd = static_cast<int>(di_.size() / 2);
    M.na = static_cast<int>(ai_.size() / 4);
    M.maxd = maxd;
    M.ngeom = m->ngeom;
    M.nM = m->nC;
    M.fl = fl_.data();
    M.gi = gi_.data();
    M.gt = gt_.data();
    M.gcl = gcl_.data();
    M.gsz = gsz_.data();
    M.gvol = gvol_.data();
    M.gw = gw_.data();
    M.mesh_ids = mesh_ids_.data();
    M.hulls = hs;
    M.cpl = cpl_.data();
    M.cnp = cnp_.data();
    M.cf = cf_.data();
    M.gf = gf_.data();
    M.bch = bch_.data();
    M.bnd = bnd_.data();
    M.broot = broot_.data();
    M.bmass = bmass_.data();
    M.binert = binert_.data();
    M.di = di_.data();
    M.df = df_.data();
    M.ai = ai_.data();
    M.af = af_.data();
    M.wvol = wvol_.data();
    M.Mmap = Mmap_.data();
    core::ForceOut O{pos_.data(), mats_.data(), planes_.data(), out_.data(), vols_.data(),
                     cents_.data(), areas_.data(), wfrac_.data(), led_.data(), qmine_.data()};
    stage_ = std::make_unique<core::ForceStage>(M, O);
    return true;
  } catch (const std::exception& e) {
    *err = e.what();
    return false;
  }
}

void Hydro::Compute(const mjModel* m, mjData* d, int instance) {
  if (plain_) return;  // no environment: no forces
  mjtNum* st = d->plugin_state + m->plugin_stateadr[instance];
  core::ForceData fd;
  fd.qvel = d->qvel;
  fd.geom_xpos = d->geom_xpos;
  fd.geom_xmat = d->geom_xmat;
  fd.xpos = d->xpos;
  fd.xmat = d->xmat;
  fd.xipos = d->xipos;
  fd.ximat = d->ximat;
  fd.cdof = d->cdof;
  fd.cdof_dot = d->cdof_dot;
  fd.subtree_com = d->subtree_com;
  fd.cvel = d->cvel;
  fd.qfrc_passive = d->qfrc_passive;
  fd.M = d->M;
  // every evaluation records but Runge-Kutta's inner stages (see Compute in hydro.h)
  bool record = st[L_.record] != 0 || m->opt.integrator != mjINT_RK4 || d->time == st[L_.trec];
  fl_[core::kFRecord] = record ? 1 : 0;
  stage_->SetBodyArrays(m->body_mass, m->body_inertia);  // live: users edit them between steps
  stage_->Passive(fd);
  if (record) {
    for (int i = 0; i < core::kNLed; ++i) st[L_.led + i] = led_[i];
    st[L_.record] = 0;
    for (int i = 0; i < m->nv; ++i) st[L_.q0 + i] = d->qvel[i];
    st[L_.trec] = d->time;
  }
  for (int i = 0; i < m->nv; ++i) st[L_.mine + i] = qmine_[i];
  if (has_added_) mj_factorM(m, d);
}

void Hydro::Advance(const mjModel* m, mjData* d, int instance) {
  mjtNum* st = d->plugin_state + m->plugin_stateadr[instance];
  // MuJoCo's state resets in this step: counted, their counters re-armed
  double* ty = st + L_.tally;
  constexpr int kinds[3] = {mjWARN_BADQPOS, mjWARN_BADQVEL, mjWARN_BADQACC};
  // each of MuJoCo's resets in this step left a warning (a later reset in the
  // same step can clear an earlier one's; the tally then counts fewer); without
  // auto-reset a warning is no reset.  mj_resetData with no reset in the step
  // is the user's: a new run.  (A user reset directly followed by a step MuJoCo
  // resets is taken for MuJoCo's: the old run's tally carries on.)
  const bool autoreset = !(m->opt.disableflags & mjDSBL_AUTORESET);
  int resets = 0;
  for (int k = 0; k < 3 && autoreset; ++k) {
    int n = d->warning[kinds[k]].number;
    if (n <= 0) continue;
    resets += n;
    ty[kTQpos + k] += n;
    if (ty[kTFirstKind] == 0) {
      ty[kTFirstKind] = 1 + k;
      ty[kTFirstTime] = ty[kTLast];
    }
    d->warning[kinds[k]].number = 0;
  }
  if (resets > 0) {
    ty[kTResets] += resets;
    ty[kTReached] = std::max(ty[kTReached], ty[kTLast]);
  } else if (ty[kTPending] != 0) {  // mj_resetData by the user: a new run
    for (int i = 0; i < kNTally; ++i) ty[i] = 0.0;
  }
  ty[kTPending] = 0;
  ty[kTLast] = d->time;
  // the step's account: the evaluation recorded at its start, the state after it
  int tb = static_cast<int>(st[L_.track]);
  if (tb < 0 || tb >= m->nbody) tb = track_;
  core::StepArrays a;
  a.led = st + L_.led;
  a.q0 = st + L_.q0;
  a.qa = d->qfrc_actuator;
  a.qap = d->qfrc_applied;
  a.qc = d->qfrc_constraint;
  a.qp = d->qfrc_passive;
  a.qmine = st + L_.mine;
  a.xfrc = d->xfrc_applied;
  a.cvel = d->cvel;
  a.xipos = d->xipos;
  a.scom = d->subtree_com;
  a.qpos = d->qpos;
  a.qvel = d->qvel;
  a.qacc = d->qacc;
  a.broot = broot_.data();
  a.nv = m->nv;
  a.nq = m->nq;
  a.nb = m->nbody;
  if (plain_)  // no environment: the state checks and the height only
    core::AccountPlain(st + L_.ledger, a, m->opt.timestep, d->time, tb, st + L_.zbuf, L_.nz);
  else
    core::Account(st + L_.ledger, a, m->opt.timestep, d->time, tb, st + L_.zbuf, L_.nz);
  st[L_.record] = 1;
}

void Hydro::Reset(const mjModel* m, mjtNum* state) const {
  (void)m;
  double tally[kNTally];
  std::copy(state + L_.tally, state + L_.tally + kNTally, tally);
  std::fill(state, state + L_.size, 0.0);
  std::copy(tally, tally + kNTally, state + L_.tally);
  state[L_.tally + kTPending] = 1;
  state[L_.record] = 1;
  state[L_.track] = track_;
}

void Hydro::Visualize(const mjModel* m, const mjvOption* opt, mjvScene* scn) const {
  if (plain_ || !opt->flags[mjVIS_COM]) return;
  const int nc = static_cast<int>(cf_.size() / core::kNCF);
  std::vector<double> acc(4 * static_cast<size_t>(m->nbody), 0.0);  // per root: sum w, sum w x
  for (int k = 0; k < ng_; ++k) {
    if (gi_[4 * k + 3] != kMarkDisplacement) continue;
    const int root = m->body_rootid[gi_[4 * k + 1]];
    for (int c = 0; c < nc; ++c) {
      const double w = cf_[c * core::kNCF + core::kCRho] * vols_[k * nc + c];
      if (!(w > 0.0)) continue;
      const double* x = cents_.data() + 3 * (static_cast<size_t>(k) * nc + c);
      acc[4 * root] += w;
      for (int a = 0; a < 3; ++a) acc[4 * root + 1 + a] += w * x[a];
    }
  }
  const mjtNum r = m->vis.scale.com * m->stat.meansize;
  const mjtNum size[3] = {r, r, r};
  for (int b = 0; b < m->nbody; ++b) {
    if (!(acc[4 * b] > 0.0)) continue;
    if (scn->ngeom >= scn->maxgeom) return;  // a full scene: nothing more
    const mjtNum pos[3] = {acc[4 * b + 1] / acc[4 * b], acc[4 * b + 2] / acc[4 * b],
                           acc[4 * b + 3] / acc[4 * b]};
    mjvGeom* g = scn->geoms + scn->ngeom++;
    mjv_initGeom(g, mjGEOM_SPHERE, size, pos, nullptr, kCobRgba);
    g->category = mjCAT_DECOR;
    g->objtype = mjOBJ_BODY;
    g->objid = b;
  }
}

void Hydro::RegisterPlugin() {
  mjpPlugin p;
  mjp_defaultPlugin(&p);
  p.name = kPluginName;
  p.capabilityflags |= mjPLUGIN_PASSIVE;
  p.nattribute = sizeof(kAttributes) / sizeof(kAttributes[0]);
  p.attributes = kAttributes;
  p.nstate = +[](const mjModel* m, int instance) { return StateSize(m, instance); };
  p.init = +[](const mjModel* m, mjData* d, int instance) {
    std::unique_ptr<Hydro> h = Hydro::Create(m, d, instance);
    if (!h) return -1;
    // a new mjData: no reset tally yet (mj_resetData, next, keeps it)
    std::fill_n(d->plugin_state + m->plugin_stateadr[instance], m->plugin_statenum[instance], 0.0);
    d->plugin_data[instance] = reinterpret_cast<uintptr_t>(h.release());
    return 0;
  };
  p.destroy = +[](mjData* d, int instance) {
    delete reinterpret_cast<Hydro*>(d->plugin_data[instance]);
    d->plugin_data[instance] = 0;
  };
  p.copy = +[](mjData* dest, const mjModel* m, const mjData* src, int instance) {
    (void)src;
    // a fresh instance for the copy (the model scan is deterministic); the
    // ledger state is in plugin_state, which mj_copyData copies
    delete reinterpret_cast<Hydro*>(dest->plugin_data[instance]);
    std::unique_ptr<Hydro> h = Hydro::Create(m, dest, instance);
    dest->plugin_data[instance] = reinterpret_cast<uintptr_t>(h.release());
  };
  p.reset = +[](const mjModel* m, mjtNum* state, void* data, int instance) {
    if (data) {
      static_cast<const Hydro*>(data)->Reset(m, state);
    } else {
      std::fill_n(state, StateSize(m, instance), 0.0);
      state[Layout(m->nv, 2).record] = 1;
    }
  };
  p.compute = +[](const mjModel* m, mjData* d, int instance, int) {
    auto* h = reinterpret_cast<Hydro*>(d->plugin_data[instance]);
    if (h) h->Compute(m, d, instance);
  };
  p.advance = +[](const mjModel* m, mjData* d, int instance) {
    auto* h = reinterpret_cast<Hydro*>(d->plugin_data[instance]);
    if (h) h->Advance(m, d, instance);
  };
  p.visualize = +[](const mjModel* m, mjData* d, const mjvOption* opt, mjvScene* scn, int instance) {
    auto* h = reinterpret_cast<const Hydro*>(d->plugin_data[instance]);
    if (h) h->Visualize(m, opt, scn);
  };
  mjp_registerPlugin(&p);
}

}  // namespace aurgen::hydro
