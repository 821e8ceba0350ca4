// The environment's parser and validator (environment.h): runtime/environment/schema.py's checks, in its
// order and words.
#include "environment.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "interior.h"
#include "json.h"
#include "schema.h"

namespace aurgen::hydro {
namespace {

// size limits: the schema's (schema.h; runtime/environment/schema.py's MAX_PLANES, MAX_CELL_PLANES, MAX_CELLS)
using schema::kMaxPlanes, schema::kMaxCellPlanes, schema::kMaxCells;

// ---- runtime/environment/schema.py's words (parse, _kind, _num, _vec, _list, _obj): the same checks in
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

// runtime/environment/schema.py _kind: how a JSON value reads in a message.
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

// runtime/environment/schema.py _list
const json::Value& List(const json::Value* v, const std::string& what) {
  if (!v || v->kind != json::Value::kArr) throw Fail(what + ": expected a list, got " + Kind(v));
  return *v;
}

// Python's repr of a cell name (runtime/environment/schema.py writes {name!r}): quoted with ', or with "
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

// runtime/environment/schema.py _fmt: "[x, y, z]" with each entry as format(x, '.6g').
std::string Fmt3(const double* v) {
  std::string out = "[";
  for (int a = 0; a < 3; ++a) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.6g", v[a]);
    out += (a ? ", " : "") + std::string(buf);
  }
  return out + "]";
}

// runtime/environment/schema.py validate, same checks and words: overlapping cells, then per-cell gravity
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

// An object's keys against the schema's table (schema.h; runtime/environment/schema.py's words).
void CheckKeys(const json::Value& v, const std::string& where, const char* table) {
  if (v.kind != json::Value::kObj) return;
  const std::vector<std::string>& keys = schema::KeysOf(table);
  for (const auto& kv : v.obj)  // std::map: sorted, as runtime/environment/schema.py checks them
    if (std::string e = schema::UnknownKey(where, kv.first, keys); !e.empty()) throw Fail(e);
}

std::string Join(const std::vector<std::string>& keys) {
  std::string out;
  for (const std::string& k : keys) out += (out.empty() ? "" : ", ") + k;
  return out;
}

// runtime/environment/schema.py _obj: an object (else "<where>: expected an object (<keys>), got ...") with no
// key outside the schema's table.
void Obj(const json::Value* v, const std::string& where, const char* table) {
  const std::vector<std::string>& keys = schema::KeysOf(table);
  if (!v || v->kind != json::Value::kObj)
    throw Fail(where + ": expected an object (" + Join(keys) + "), got " + Kind(v));
  CheckKeys(*v, where, table);
}

// runtime/environment/schema.py _gravity
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
  double gmax = 0.0;  // runtime/environment/schema.py: allclose(G, G.T, rtol=0, atol=1e-12 max(1, max |G|))
  for (int k = 0; k < 9; ++k) gmax = std::max(gmax, std::fabs(G.grad[k]));
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c)
      if (!(std::fabs(G.grad[3 * r + c] - G.grad[3 * c + r]) <= 1e-12 * std::max(1.0, gmax)))
        throw Fail("gravity.G must be symmetric: a non-symmetric gradient is not "
                   "the gradient of a potential (energy would not be conserved)");
  return G;
}

// runtime/environment/schema.py _waves: the sea on one plane (docs/formats.md "waves"), in runtime/environment/schema.py's order and words.
void ParseWaves(const json::Value* wv, Env* env) {
  Obj(wv, "waves", "waves");
  core::Sea& sea = env->sea;
  const json::Value* sf = wv->Get("surface");
  // an integral number, as a sign may be (1.0 is 1; -0.0 and 0e0 are 0): its value, not how it is written
  const bool isint =
      sf && sf->kind == json::Value::kNum && std::isfinite(sf->num) && sf->num == std::floor(sf->num);
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
    if (!(h >= schema::kMinWaveDepth))
      throw Fail("waves.depth: expected a depth >= " + PyFloat(schema::kMinWaveDepth) +
                 " m (omit it for deep water), got " + PyFloat(h));
    sea.depth = h;
  }
  if (const json::Value* rp = wv->Get("ramp")) {
    const double r = Num(rp, "waves.ramp");
    if (!(r >= 0.0)) throw Fail("waves.ramp: expected a ramp time >= 0 s, got " + PyFloat(r));
    sea.ramp = r;
  }
  if (const json::Value* fk = wv->Get("fk")) {
    if (fk->kind != json::Value::kStr || (fk->str != "exact" && fk->str != "moments"))
      throw Fail("waves.fk: expected \"exact\" or \"moments\", got " + Kind(fk));
    sea.fk_moments = fk->str == "moments";
  }
  if (const json::Value* ft = wv->Get("fk_tolerance")) {
    const double v = Num(ft, "waves.fk_tolerance");
    if (!(v >= schema::kMinFkTolerance && v <= schema::kMaxFkTolerance))
      throw Fail("waves.fk_tolerance: expected a tolerance from " + PyFloat(schema::kMinFkTolerance) + " to " +
                 PyFloat(schema::kMaxFkTolerance) + ", got " + PyFloat(v));
    sea.fk_tol = v;
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
    // the limits (schema.h) before anything is squared; each comparison refuses a NaN
    if (!(w.omega <= schema::kMaxWaveOmega))
      throw Fail(key + ": omega " + PyFloat(w.omega) + " rad/s must be at most " + PyFloat(schema::kMaxWaveOmega) +
                 " (a period of 6.3 ms)");
    // |k| scaled by its largest component (no square overflows or underflows)
    const double km = std::max({std::fabs(w.k[0]), std::fabs(w.k[1]), std::fabs(w.k[2])});
    if (!(km > 0.0)) throw Fail(key + ": the wave vector is zero");
    const double q0 = w.k[0] / km, q1 = w.k[1] / km, q2 = w.k[2] / km;
    const double kn = km * std::sqrt(q0 * q0 + q1 * q1 + q2 * q2);
    if (!(kn >= schema::kMinWaveNumber && kn <= schema::kMaxWaveNumber))
      throw Fail(key + ": |k| " + PyFloat(kn) + " rad/m must be from " + PyFloat(schema::kMinWaveNumber) + " to " +
                 PyFloat(schema::kMaxWaveNumber) + " (a wavelength from 6.3 um to 6,300 km)");
    const double kd = w.k[0] * pl[0] + w.k[1] * pl[1] + w.k[2] * pl[2];
    if (std::fabs(kd) > 1e-9 * kn)
      throw Fail(key + ": the wave vector must lie in the surface plane (k.n = " + PyFloat(kd) + " rad/m)");
    const double th = std::isfinite(sea.depth) ? std::tanh(kn * sea.depth) : 1.0;
    if (!(std::fabs(w.omega * w.omega - gn * kn * th) <= 1e-9 * w.omega * w.omega))
      throw Fail(key + ": omega and k do not satisfy omega^2 = g |k| tanh(|k| h) (to 1e-9)");
    const double st = w.a * kn / 3.141592653589793;
    if (!(st <= 1.0 / 7.0))
      throw Fail(key + ": steepness H/lambda = a |k| / pi = " + PyFloat(st) + " is beyond the breaking limit 1/7");
    sea.waves.push_back(w);
  }
  sea.active = true;
  sea.Prepare();
}

}  // namespace

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

}  // namespace aurgen::hydro
