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
#include "interior.h"
#include "json.h"
#include "schema.h"

namespace aurgen::hydro {
namespace {

constexpr char kEnvText[] = "aurgen:environment";
constexpr char kPluginName[] = "aurgen.hydrostatics";
constexpr const char* kAttributes[] = {"drag",          "added_mass", "buoyancy", "damping",
                                       "settle_window", "track",      "ledger"};
constexpr int kNBoolAttributes = 4;
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr float kCobRgba[4] = {0.15f, 0.45f, 1.0f, 1.0f};  // centre of buoyancy (Visualize)
// size limits: the schema's (schema.h; runtime/env.py's MAX_PLANES, MAX_CELL_PLANES, MAX_CELLS)
using schema::kMaxPlanes, schema::kMaxCellPlanes, schema::kMaxCells;

// A cell as the environment declares it (docs/formats.md "cells").
struct EnvCell {
  std::string name;
  std::vector<int> signs;  // per plane: -1 (n.x <= d), +1 (n.x >= d), 0
  int used = 0;            // the planes that bound it (nonzero signs)
  double density = 0, viscosity = 0, flow[3] = {0, 0, 0}, gravity[3] = {0, 0, 0};
  bool has_gravity = false;
};

struct Env {
  std::vector<double> planes;  // (P x 4) unit n, d
  int P = 0;
  std::vector<EnvCell> cells;
  // uniform (g, default 0 0 -9.81), central (mu, centre) or linear (g0, grad); the other
  // fields 0.  Per-cell gravity (kPerCell) is decided in Build, from the cells.
  core::GravityField gravity;
  core::Sea sea;  // waves (inactive: none)
  Env() { gravity.g[2] = -9.81; }
};

struct Fail : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// ---- runtime/env.py's words (parse, _kind, _num, _vec, _list, _obj): the same checks in
// the same order, so the plugin and the loader refuse an environment with the same text.

std::string Repr(const std::string& v);

// Python's repr of a float (the shortest digits that read back; scientific below 1e-4
// and from 1e16; an integral value ends in ".0").
std::string PyFloat(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buf[48];
  for (int p = 1; p <= 17; ++p) {
    std::snprintf(buf, sizeof buf, "%.*e", p - 1, x);
    if (std::strtod(buf, nullptr) == x) break;
  }
  std::string t(buf);
  const bool neg = t[0] == '-';
  if (neg) t.erase(0, 1);
  const size_t e = t.find('e');
  const int exp = std::atoi(t.c_str() + e + 1);
  std::string digits;
  for (size_t i = 0; i < e; ++i)
    if (t[i] != '.') digits += t[i];
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  const int decpt = exp + 1, nd = static_cast<int>(digits.size());
  std::string out;
  if (decpt > 16 || decpt <= -4) {
    out = digits.substr(0, 1) + (nd > 1 ? "." + digits.substr(1) : "");
    char eb[12];
    std::snprintf(eb, sizeof eb, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    out += eb;
  } else if (decpt <= 0) {
    out = "0." + std::string(-decpt, '0') + digits;
  } else if (decpt >= nd) {
    out = digits + std::string(decpt - nd, '0') + ".0";
  } else {
    out = digits.substr(0, decpt) + "." + digits.substr(decpt);
  }
  return (neg ? "-" : "") + out;
}

// repr of a JSON number as Python's json reads it: an integer token is an int.
std::string PyNum(const json::Value& v) {
  if (!v.integral) return PyFloat(v.num);
  std::string t = v.tok;
  if (t.find_first_not_of("-0") == std::string::npos) return "0";  // -0 is the int 0
  return t;
}

// env.py _kind: how a JSON value reads in a message.
std::string Kind(const json::Value* v) {
  if (!v) return "null";
  switch (v->kind) {
    case json::Value::kStr: return "a string (" + Repr(v->str.substr(0, 40)) + ")";
    case json::Value::kBool: return v->b ? "true" : "false";
    case json::Value::kNull: return "null";
    case json::Value::kObj: return "an object";
    case json::Value::kArr: return "a list of " + std::to_string(v->arr.size());
    case json::Value::kNum: return PyNum(*v);
  }
  return "null";
}

double Num(const json::Value* v, const std::string& what) {
  if (!v || v->kind != json::Value::kNum || !std::isfinite(v->num))
    throw Fail(what + ": expected a finite number, got " + Kind(v));
  return v->num;
}

void Vec(const json::Value* v, int n, double* out, const std::string& what) {
  if (!v || v->kind != json::Value::kArr || static_cast<int>(v->arr.size()) != n)
    throw Fail(what + ": expected a list of " + std::to_string(n) + " finite numbers, got " + Kind(v));
  for (int i = 0; i < n; ++i) out[i] = Num(&v->arr[i], what + "[" + std::to_string(i) + "]");
}

// env.py _list
const json::Value& List(const json::Value* v, const std::string& what) {
  if (!v || v->kind != json::Value::kArr) throw Fail(what + ": expected a list, got " + Kind(v));
  return *v;
}

// Python's repr of a cell name (runtime/env.py writes {name!r}): quoted with ', or with "
// when the name holds a ' and no ", backslashes and the quote escaped.
std::string Repr(const std::string& v) {
  const bool dq = v.find('\'') != std::string::npos && v.find('"') == std::string::npos;
  const char q = dq ? '"' : '\'';
  std::string out(1, q);
  for (char ch : v) {
    if (ch == '\\' || ch == q) out += '\\';
    out += ch;
  }
  return out + q;
}

// runtime/env.py _fmt: "[x, y, z]" with each entry as format(x, '.6g').
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

std::string Fmt3(const double* v) {
  std::string out = "[";
  for (int a = 0; a < 3; ++a) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.6g", v[a]);
    out += (a ? ", " : "") + std::string(buf);
  }
  return out + "]";
}

// runtime/env.py validate, same checks and words: overlapping cells, then per-cell gravity
// with a non-uniform field, then a tangential jump of g across a shared face.
void ValidateEnv(const Env& env) {
  const int nc = static_cast<int>(env.cells.size()), P = env.P;
  const double tol = 1e-9;
  auto rows_of = [&](int i, int skip) {  // cell i's half-spaces n.x <= d, but plane skip
    std::vector<interior::Row> r;
    for (int k = 0; k < P; ++k) {
      const int sg = env.cells[i].signs[k];
      if (sg == 0 || k == skip) continue;
      const double* p = &env.planes[4 * k];
      r.push_back(sg < 0 ? interior::Row{p[0], p[1], p[2], p[3]} : interior::Row{-p[0], -p[1], -p[2], -p[3]});
    }
    return r;
  };
  for (int i = 0; i < nc; ++i)
    for (int j = i + 1; j < nc; ++j) {
      bool apart = false;
      for (int k = 0; k < P && !apart; ++k) apart = env.cells[i].signs[k] * env.cells[j].signs[k] < 0;
      if (apart) continue;  // opposite sides of one plane: disjoint
      std::vector<interior::Row> r = rows_of(i, -1), rj = rows_of(j, -1);
      r.insert(r.end(), rj.begin(), rj.end());
      if (interior::Margin(r) > tol)
        throw Fail("cells " + Repr(env.cells[i].name) + " and " + Repr(env.cells[j].name) +
                   " overlap (their intersection has an interior): cells must be disjoint; give one of "
                   "them the opposite sign on a plane that separates them");
    }
  bool percell = false;
  for (const EnvCell& c : env.cells) percell |= c.has_gravity;
  if (!percell) return;
  if (env.gravity.kind != core::GravityField::Kind::kUniform)
    throw Fail("per-cell gravity is only allowed with a uniform global gravity "
               "(cells without their own take the global g)");
  auto g_of = [&](int c) { return env.cells[c].has_gravity ? env.cells[c].gravity : env.gravity.g; };
  for (int i = 0; i < nc; ++i)
    for (int j = i + 1; j < nc; ++j) {
      double jump[3];
      for (int a = 0; a < 3; ++a) jump[a] = g_of(i)[a] - g_of(j)[a];
      if (jump[0] == 0 && jump[1] == 0 && jump[2] == 0) continue;
      for (int k = 0; k < P; ++k) {
        if (env.cells[i].signs[k] * env.cells[j].signs[k] >= 0) continue;
        std::vector<interior::Row> r = rows_of(i, k), rj = rows_of(j, k);
        r.insert(r.end(), rj.begin(), rj.end());
        const double* p = &env.planes[4 * k];
        const interior::Row on{p[0], p[1], p[2], p[3]};
        if (interior::Margin(r, &on) <= tol) continue;  // no shared face on plane k
        const double jn = jump[0] * p[0] + jump[1] * p[1] + jump[2] * p[2];
        double tang[3];
        for (int a = 0; a < 3; ++a) tang[a] = jump[a] - jn * p[a];
        const double lt = std::sqrt(tang[0] * tang[0] + tang[1] * tang[1] + tang[2] * tang[2]);
        const double lj = std::sqrt(jump[0] * jump[0] + jump[1] * jump[1] + jump[2] * jump[2]);
        if (lt > 1e-9 * std::max(1.0, lj))
          throw Fail("gravity is not conservative: cells " + Repr(env.cells[i].name) + " (g = " +
                     Fmt3(g_of(i)) + ") and " + Repr(env.cells[j].name) + " (g = " + Fmt3(g_of(j)) +
                     ") share a face on plane " + std::to_string(k) + " (normal " + Fmt3(p) +
                     ") and the tangential component of g jumps by " + Fmt3(tang) +
                     " m/s^2; a closed loop across that face would gain energy. Only the normal "
                     "component may jump: make the two g differ along the plane normal, or use a "
                     "gravity field");
      }
    }
}

// An object's keys against the schema's table (schema.h; runtime/env.py's words).
void CheckKeys(const json::Value& v, const std::string& where, const char* table) {
  if (v.kind != json::Value::kObj) return;
  const std::vector<std::string>& keys = schema::KeysOf(table);
  for (const auto& kv : v.obj)  // std::map: sorted, as env.py checks them
    if (std::string e = schema::UnknownKey(where, kv.first, keys); !e.empty()) throw Fail(e);
}

std::string Join(const std::vector<std::string>& keys) {
  std::string out;
  for (const std::string& k : keys) out += (out.empty() ? "" : ", ") + k;
  return out;
}

// env.py _obj: an object (else "<where>: expected an object (<keys>), got ...") with no
// key outside the schema's table.
void Obj(const json::Value* v, const std::string& where, const char* table) {
  const std::vector<std::string>& keys = schema::KeysOf(table);
  if (!v || v->kind != json::Value::kObj)
    throw Fail(where + ": expected an object (" + Join(keys) + "), got " + Kind(v));
  CheckKeys(*v, where, table);
}

// env.py _gravity
core::GravityField ParseGravity(const json::Value* gd) {
  core::GravityField G;
  G.g[2] = -9.81;
  using Kind_ = core::GravityField::Kind;
  if (!gd || gd->kind == json::Value::kNull) return G;
  if (gd->kind == json::Value::kArr) {
    Vec(gd, 3, G.g, "gravity");
    return G;
  }
  if (gd->kind != json::Value::kObj)
    throw Fail("gravity: expected an object {type: uniform, central or linear, ...} or [gx, gy, gz], got " +
               Kind(gd));
  const json::Value* t = gd->Get("type");
  std::string kind = "uniform";
  if (t) {
    if (t->kind != json::Value::kStr || (t->str != "uniform" && t->str != "central" && t->str != "linear"))
      throw Fail("gravity.type: expected uniform, central or linear, got " + Kind(t));
    kind = t->str;
  }
  Obj(gd, "gravity", ("gravity." + kind).c_str());
  if (kind == "uniform") {
    if (const json::Value* g = gd->Get("g")) Vec(g, 3, G.g, "gravity.g");
    return G;
  }
  G = core::GravityField{};
  if (kind == "central") {
    G.kind = Kind_::kCentral;
    const json::Value* mu = gd->Get("mu");
    if (!mu) throw Fail("gravity.mu: missing (a positive number, m^3/s^2)");
    G.mu = Num(mu, "gravity.mu");
    if (G.mu <= 0) throw Fail("gravity.mu: expected a positive number (m^3/s^2), got " + PyNum(*mu));
    if (const json::Value* c = gd->Get("centre")) Vec(c, 3, G.centre, "gravity.centre");
    return G;
  }
  G.kind = Kind_::kLinear;
  if (const json::Value* g0 = gd->Get("g0")) Vec(g0, 3, G.g0, "gravity.g0");
  const json::Value* Gm = gd->Get("G");
  if (!Gm || Gm->kind != json::Value::kArr || Gm->arr.size() != 3)
    throw Fail("gravity.G: expected a 3x3 matrix (three lists of 3 numbers), got " + Kind(Gm));
  for (int r = 0; r < 3; ++r) Vec(&Gm->arr[r], 3, G.grad + 3 * r, "gravity.G[" + std::to_string(r) + "]");
  double gmax = 0.0;  // env.py: allclose(G, G.T, rtol=0, atol=1e-12 max(1, max |G|))
  for (int k = 0; k < 9; ++k) gmax = std::max(gmax, std::fabs(G.grad[k]));
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c)
      if (!(std::fabs(G.grad[3 * r + c] - G.grad[3 * c + r]) <= 1e-12 * std::max(1.0, gmax)))
        throw Fail("gravity.G must be symmetric: a non-symmetric gradient is not "
                   "the gradient of a potential (energy would not be conserved)");
  return G;
}

// env.py _waves: the sea on one plane (docs/formats.md "waves"), in env.py's order and words.
void ParseWaves(const json::Value* wv, Env* env) {
  Obj(wv, "waves", "waves");
  core::Sea& sea = env->sea;
  const json::Value* sf = wv->Get("surface");
  const bool isint = sf && sf->kind == json::Value::kNum && sf->integral;
  if (!isint || sf->num < 0 || sf->num >= env->P)
    throw Fail("waves.surface: expected a plane index (an integer from 0 to " + std::to_string(env->P - 1) +
               "), got " + Kind(sf));
  const int i = static_cast<int>(sf->num);
  bool below = false;
  for (const EnvCell& c : env->cells) below |= c.signs[i] < 0;
  if (!below)
    throw Fail("waves.surface: plane " + std::to_string(i) +
               " has no fluid cell below it (sign -1): the sea's water is the cell under its surface");
  const double* pl = &env->planes[4 * i];
  bool percell = false;
  for (const EnvCell& c : env->cells) percell |= c.has_gravity;
  const double* g = env->gravity.g;
  const double gn = std::sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
  const double cx[3] = {g[1] * pl[2] - g[2] * pl[1], g[2] * pl[0] - g[0] * pl[2], g[0] * pl[1] - g[1] * pl[0]};
  const double cn = std::sqrt(cx[0] * cx[0] + cx[1] * cx[1] + cx[2] * cx[2]);
  if (env->gravity.kind != core::GravityField::Kind::kUniform || percell || cn > 1e-9 * gn ||
      !(g[0] * pl[0] + g[1] * pl[1] + g[2] * pl[2] < 0.0))
    throw Fail("waves: a sea needs uniform gravity along -n of its surface plane (n = [" + PyFloat(pl[0]) +
               ", " + PyFloat(pl[1]) + ", " + PyFloat(pl[2]) + "])");
  std::copy(pl, pl + 3, sea.n);
  sea.d = pl[3];
  sea.g = gn;
  if (const json::Value* dp = wv->Get("depth"); dp && dp->kind != json::Value::kNull) {
    const double h = Num(dp, "waves.depth");
    if (!(h > 0.0)) throw Fail("waves.depth: expected a depth > 0 m (omit it for deep water), got " + PyFloat(h));
    sea.depth = h;
  }
  if (const json::Value* rp = wv->Get("ramp")) {
    const double r = Num(rp, "waves.ramp");
    if (!(r >= 0.0)) throw Fail("waves.ramp: expected a ramp time >= 0 s, got " + PyFloat(r));
    sea.ramp = r;
  }
  const json::Value* cl = wv->Get("components");
  const size_t nmax = schema::kMaxWaveComponents;
  if (!cl || cl->kind != json::Value::kArr || cl->arr.empty() || cl->arr.size() > nmax)
    throw Fail("waves.components: expected 1 to " + std::to_string(nmax) +
               " components [a, omega, kx, ky, kz, phase], got " +
               (cl && cl->kind == json::Value::kArr ? std::to_string(cl->arr.size()) : Kind(cl)));
  for (size_t j = 0; j < cl->arr.size(); ++j) {
    const std::string key = "waves.components[" + std::to_string(j) + "]";
    double v[6];
    Vec(&cl->arr[j], 6, v, key);
    core::Wave w;
    w.a = v[0];
    w.omega = v[1];
    std::copy(v + 2, v + 5, w.k);
    w.phase = v[5];
    if (!(w.a >= 0.0)) throw Fail(key + ": amplitude " + PyFloat(w.a) + " m must be >= 0");
    if (!(w.omega > 0.0)) throw Fail(key + ": omega " + PyFloat(w.omega) + " rad/s must be > 0");
    const double kn = std::sqrt(w.k[0] * w.k[0] + w.k[1] * w.k[1] + w.k[2] * w.k[2]);
    if (!(kn > 0.0)) throw Fail(key + ": the wave vector is zero");
    const double kd = w.k[0] * pl[0] + w.k[1] * pl[1] + w.k[2] * pl[2];
    if (std::fabs(kd) > 1e-9 * kn)
      throw Fail(key + ": the wave vector must lie in the surface plane (k.n = " + PyFloat(kd) + " rad/m)");
    const double th = std::isfinite(sea.depth) ? std::tanh(kn * sea.depth) : 1.0;
    if (std::fabs(w.omega * w.omega - gn * kn * th) > 1e-9 * w.omega * w.omega)
      throw Fail(key + ": omega and k do not satisfy omega^2 = g |k| tanh(|k| h) (to 1e-9)");
    const double st = w.a * kn / 3.141592653589793;
    if (st > 1.0 / 7.0)
      throw Fail(key + ": steepness H/lambda = a |k| / pi = " + PyFloat(st) + " is beyond the breaking limit 1/7");
    sea.waves.push_back(w);
  }
  sea.active = true;
  sea.Prepare();
}

// env.py parse, then validate (ValidateEnv).
Env ParseEnv(const std::string& text) {
  json::Value root;
  try {
    root = json::Parser(text).Parse();
  } catch (const std::runtime_error& e) {
    throw Fail(e.what());
  }
  if (root.kind != json::Value::kObj)
    throw Fail("environment: expected a JSON object with planes, cells, gravity, got " + Kind(&root));
  CheckKeys(root, "environment", "environment");
  Env env;
  static const json::Value kEmpty = [] {
    json::Value v;
    v.kind = json::Value::kArr;
    return v;
  }();
  const json::Value* pl = root.obj.count("planes") ? root.Get("planes") : &kEmpty;
  const json::Value& planes = List(pl, "planes");
  if (planes.arr.size() > kMaxPlanes)
    throw Fail("planes: " + std::to_string(planes.arr.size()) + " planes, more than the " +
               std::to_string(kMaxPlanes) + " an environment may have");
  for (size_t i = 0; i < planes.arr.size(); ++i) {
    double p[4];
    Vec(&planes.arr[i], 4, p, "planes[" + std::to_string(i) + "]");
    double nn = std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    if (std::fabs(nn - 1.0) > 1e-9) {
      char buf[40];
      std::snprintf(buf, sizeof buf, "%.9g", nn);
      throw Fail("planes[" + std::to_string(i) + "]: normal (" + PyFloat(p[0]) + ", " + PyFloat(p[1]) + ", " +
                 PyFloat(p[2]) + ") is not a unit vector (|n| = " + buf + ")");
    }
    env.planes.insert(env.planes.end(), p, p + 4);
  }
  env.P = static_cast<int>(env.planes.size() / 4);
  const json::Value* cl = root.obj.count("cells") ? root.Get("cells") : &kEmpty;
  const json::Value& cells = List(cl, "cells");
  if (cells.arr.size() > kMaxCells)
    throw Fail("cells: " + std::to_string(cells.arr.size()) + " cells, more than the " +
               std::to_string(kMaxCells) + " an environment may have");
  for (size_t i = 0; i < cells.arr.size(); ++i) {
    const json::Value& c = cells.arr[i];
    std::string key = "cells[" + std::to_string(i) + "]";
    if (c.kind != json::Value::kObj)
      throw Fail(key + ": expected an object {name, signs, density, viscosity, flow}, got " + Kind(&c));
    CheckKeys(c, key, "cell");
    EnvCell cell;
    if (c.obj.count("name")) {
      const json::Value* nm = c.Get("name");
      if (nm->kind != json::Value::kStr || nm->str.empty())
        throw Fail(key + ".name: expected a non-empty string, got " + Kind(nm));
      cell.name = nm->str;
    } else {
      cell.name = "cell" + std::to_string(i);
    }
    for (const EnvCell& o : env.cells)
      if (o.name == cell.name) throw Fail("cells: two cells named " + Repr(cell.name));
    key += " (" + Repr(cell.name) + ")";
    const std::string sw = key + ".signs";
    if (c.obj.count("signs")) {
      const json::Value& sg = List(c.Get("signs"), sw);
      if (static_cast<int>(sg.arr.size()) > env.P)
        throw Fail(sw + ": " + std::to_string(sg.arr.size()) + " signs for " + std::to_string(env.P) +
                   " planes (one per plane: -1, 0 or +1)");
      for (size_t k = 0; k < sg.arr.size(); ++k) {
        const json::Value& x = sg.arr[k];
        if (x.kind != json::Value::kNum || (x.num != -1 && x.num != 0 && x.num != 1))
          throw Fail(sw + "[" + std::to_string(k) + "]: expected -1, 0 or +1 (the side of plane " +
                     std::to_string(k) + "), got " + Kind(&x));
        cell.signs.push_back(static_cast<int>(x.num));
      }
    }
    cell.signs.resize(env.P, 0);
    cell.used = static_cast<int>(
        std::count_if(cell.signs.begin(), cell.signs.end(), [](int s) { return s != 0; }));
    if (static_cast<size_t>(cell.used) > kMaxCellPlanes)
      throw Fail(sw + ": bounded by " + std::to_string(cell.used) + " planes, more than the " +
                 std::to_string(kMaxCellPlanes) + " a cell may use (split it into several cells)");
    cell.density = c.obj.count("density") ? Num(c.Get("density"), key + ".density") : 0.0;
    cell.viscosity = c.obj.count("viscosity") ? Num(c.Get("viscosity"), key + ".viscosity") : 0.0;
    if (cell.density < 0)
      throw Fail("cell " + Repr(cell.name) + ": density " + PyFloat(cell.density) +
                 " kg/m^3 must be finite and >= 0");
    if (cell.viscosity < 0)
      throw Fail("cell " + Repr(cell.name) + ": viscosity " + PyFloat(cell.viscosity) +
                 " Pa s must be finite and >= 0");
    if (c.obj.count("flow")) Vec(c.Get("flow"), 3, cell.flow, key + ".flow");
    if (const json::Value* cg = c.Get("gravity"); cg && cg->kind != json::Value::kNull) {
      Vec(cg, 3, cell.gravity, key + ".gravity");
      cell.has_gravity = true;
    }
    env.cells.push_back(cell);
  }
  env.gravity = ParseGravity(root.Get("gravity"));
  if (const json::Value* wv = root.Get("waves"); wv && wv->kind != json::Value::kNull) ParseWaves(wv, &env);
  ValidateEnv(env);
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
  bool* fields[] = {&c.drag, &c.added_mass, &c.buoyancy, &c.damping};
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
  int mine = 0;  // this plugin's instances in the model: each would apply every force again
  for (int i = 0; i < m->nplugin; ++i) {
    const mjpPlugin* p = mjp_getPluginAtSlot(m->plugin[i]);
    if (p && p->name && std::strcmp(p->name, kPluginName) == 0) ++mine;
  }
  if (mine > 1) {
    mju_warning("%s instance %d: the model declares %d %s instances; declare one (each would apply "
                "every force again)", kPluginName, instance, mine, kPluginName);
    return nullptr;
  }
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
      // round half to even, as runtime/plan.py's round(); a non-finite or huge value marks nothing
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
    // of many small cells must not size it by all its planes; as runtime/sim.py _Plan)
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
      double want = M.gravity.Applied() ? 0.0 : genv[a];  // as Simulation sets it (runtime/sim.py _finish)
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

core::StepArrays Hydro::StageArrays(const mjModel* m, const mjData* d) const {
  core::StepArrays a;
  a.qa = d->qfrc_actuator;
  a.qap = d->qfrc_applied;
  a.qc = d->qfrc_constraint;
  a.qp = d->qfrc_passive;
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
  return a;
}

void Hydro::Validate(const mjModel* m, const mjData* d, double* st) const {
  const int first = StateError(st, L_, m->nbody);
  if (first < 0) return;
  for (int e = first; e >= 0; e = StateError(st, L_, m->nbody)) {  // repair region by region
    if (e == L_.record) st[L_.record] = 1;
    else if (e == L_.rkstage) st[L_.rkstage] = 0;
    else if (e == L_.trec) st[L_.trec] = d->time;
    else if (e == L_.track) st[L_.track] = track_;
    else if (e >= L_.contact && e < L_.contact + core::kNContact)
      std::fill(st + L_.contact, st + L_.contact + core::kNContact, 0.0);
    else if (e >= L_.tally) std::fill(st + L_.tally, st + L_.tally + kNTally, 0.0);
    else core::MarkInvalidState(st + L_.ledger, e, d->time);
  }
  core::MarkInvalidState(st + L_.ledger, first, d->time);
}

void Hydro::Compute(const mjModel* m, mjData* d, int instance) {
  mjtNum* st = d->plugin_state + m->plugin_stateadr[instance];
  Validate(m, d, st);
  if (plain_) return;  // no environment: no forces
  core::ForceData fd;
  fd.time = d->time;
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
  // RK4: every stage keeps its drag and damping (qdrag) for the stage's work (the force stage's
  // forces do not depend on the flag, only what it records besides them)
  const bool rk4 = m->opt.integrator == mjINT_RK4;
  stage_->SetBodyArrays(m->body_mass, m->body_inertia);  // live: users edit them between steps
  stage_->Passive(fd, record || rk4);
  if (record) {
    for (int i = 0; i < core::kNLed; ++i) st[L_.led + i] = led_[i];
    st[L_.record] = 0;
    for (int i = 0; i < m->nv; ++i) st[L_.q0 + i] = d->qvel[i];
    for (int i = 0; i < m->nv; ++i) st[L_.qdrag + i] = qdrag_[i];
    st[L_.trec] = d->time;
  }
  for (int i = 0; i < m->nv; ++i) st[L_.mine + i] = qmine_[i];
  if (rk4) {  // the stage's share of the step's work (core/ledger.h RK4Stage)
    const int k = record ? 0 : std::min(3, static_cast<int>(st[L_.rkstage]) + 1);
    core::StepArrays a = StageArrays(m, d);
    a.qmine = qmine_.data();
    a.qdrag = qdrag_.data();
    core::RK4Stage(st + L_.rk, k, m->opt.timestep, a);
    st[L_.rkstage] = k;
  }
  if (has_added_) mj_factorM(m, d);
}

void Hydro::Advance(const mjModel* m, mjData* d, int instance) {
  mjtNum* st = d->plugin_state + m->plugin_stateadr[instance];
  Validate(m, d, st);
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
  const int tb = static_cast<int>(st[L_.track]);  // in [0, nbody) (Validate)
  core::StepArrays a = StageArrays(m, d);
  a.led = st + L_.led;
  a.q0 = st + L_.q0;
  a.qmine = st + L_.mine;
  if (!plain_ && m->opt.integrator == mjINT_RK4) {  // RK4's stages (core/ledger.h RK4Stage)
    a.rkw = st + L_.rk;
    a.rkv = st + L_.rk + 1;
  }
  if (!plain_ && m->opt.integrator != mjINT_RK4) {  // the exact rule (core/ledger.h StepWork)
    for (int i = 0; i < m->nv; ++i) dv_[i] = d->qvel[i] - st[L_.q0 + i];
    mj_mulM(m, d, mdv_.data(), dv_.data());
    a.qbias = d->qfrc_bias;
    a.qdrag = st + L_.qdrag;
    a.mdv = mdv_.data();
  }
  if (plain_)  // no environment: the state checks and the height only
    core::AccountPlain(st + L_.ledger, a, m->opt.timestep, d->time, tb, st + L_.zbuf, L_.nz);
  else
    core::Account(st + L_.ledger, a, m->opt.timestep, d->time, tb, st + L_.zbuf, L_.nz);
  Contacts(m, d, st);
  st[L_.record] = 1;
}

namespace {
// A geom's size for the penetration check (m): its smallest half-extent (sphere and capsule
// radius; cylinder min(radius, half-length); box and ellipsoid the smallest semi-axis; mesh
// and SDF the smallest half-size of their bounding box); 0 for a plane or height field.
double GeomSize(const mjModel* m, int g) {
  if (g < 0 || g >= m->ngeom) return 0.0;
  const double* s = m->geom_size + 3 * g;
  switch (m->geom_type[g]) {
    case mjGEOM_SPHERE:
    case mjGEOM_CAPSULE: return s[0];
    case mjGEOM_CYLINDER: return std::min(s[0], s[1]);
    case mjGEOM_BOX:
    case mjGEOM_ELLIPSOID: return std::min({s[0], s[1], s[2]});
    case mjGEOM_MESH:
    case mjGEOM_SDF: {
      const double* h = m->geom_aabb + 6 * g + 3;
      return std::min({h[0], h[1], h[2]});
    }
    default: return 0.0;
  }
}
}  // namespace

void Hydro::Contacts(const mjModel* m, mjData* d, double* st) const {
  double* cs = st + L_.contact;
  double* led = st + L_.ledger;
  const double t = d->time;
  bool any = false;
  for (int i = 0; i < d->ncon; ++i) {  // the contacts of the step's evaluation
    const mjContact& c = d->contact[i];
    if (c.exclude != 0 && c.exclude != 4) continue;
    any |= c.exclude == 0 && c.efc_address >= 0;
    if (!(c.dist < 0.0)) continue;
    double size = 0.0;
    for (int k = 0; k < 2; ++k) {
      const double sz = GeomSize(m, c.geom[k]);
      if (sz > 0.0 && (size == 0.0 || sz < size)) size = sz;
    }
    core::ContactPenetration(cs, led, -c.dist, size, ContactBody(m, c), t);
  }
  if (plain_) return;  // no energy ledger: no contact work
  if (!any) {
    core::ContactWork(cs, led, 0.0, 0, false, t);
    return;
  }
  // the contact rows' work over the step: efc_force . J (q0 + qvel) / 2 dt, per contact
  const double* q0 = st + L_.q0;
  for (int i = 0; i < m->nv; ++i) vbar_[i] = 0.5 * (q0[i] + d->qvel[i]);
  // a buffer of the instance's own (grown, never shrunk): MuJoCo's stack markers are macros that a
  // sanitized build maps to symbols the released library does not export (mj__markStack)
  if (jv_.size() < static_cast<size_t>(std::max(d->nefc, 1))) jv_.resize(std::max(d->nefc, 1));
  mjtNum* jv = jv_.data();
  mj_mulJacVec(m, d, jv, vbar_.data());
  double W = 0.0, best = -std::numeric_limits<double>::infinity();
  int body = 0;
  const bool pyramidal = m->opt.cone == mjCONE_PYRAMIDAL;
  for (int i = 0; i < d->ncon; ++i) {
    const mjContact& c = d->contact[i];
    if (c.exclude != 0 || c.efc_address < 0) continue;
    const int rows = c.dim == 1 ? 1 : (pyramidal ? 2 * (c.dim - 1) : c.dim);
    double w = 0.0;
    for (int r = c.efc_address; r < c.efc_address + rows && r < d->nefc; ++r) w += d->efc_force[r] * jv[r];
    w *= m->opt.timestep;
    W += w;
    if (w > best) {
      best = w;
      body = ContactBody(m, c);
    }
  }
  core::ContactWork(cs, led, W, body, true, t);
}

int Hydro::ContactBody(const mjModel* m, const mjContact& c) {
  int b[2] = {0, 0};
  for (int k = 0; k < 2; ++k)
    if (c.geom[k] >= 0 && c.geom[k] < m->ngeom) b[k] = m->geom_bodyid[c.geom[k]];
  return m->body_weldid[b[0]] == 0 ? b[1] : b[0];
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
  const core::ForceModel& M = stage_->model();
  const int ng = static_cast<int>(M.geoms.size()), nc = static_cast<int>(M.cells.size());
  std::vector<double> acc(4 * static_cast<size_t>(m->nbody), 0.0);  // per root: sum w, sum w x
  for (int k = 0; k < ng; ++k) {
    if (M.geoms[k].mark != core::Mark::kDisplacement) continue;
    const int root = m->body_rootid[M.geoms[k].body];
    for (int c = 0; c < nc; ++c) {
      const double w = M.cells[c].rho * vols_[k * nc + c];
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
