// The interior test behind the environment's refusals of overlapping cells and of a
// tangential gravity jump across a shared face: the C++ form of runtime/environment/schema.py
// _interior (scipy's HiGHS there), a small dense simplex (Bland's rule; the classic
// tableau with a phase 1 for negative right-hand sides).
#ifndef AURGEN_PLUGIN_INTERIOR_H_
#define AURGEN_PLUGIN_INTERIOR_H_

#include <array>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

namespace aurgen::hydro::interior {

inline constexpr double kBig = 1e6;  // metres: the box in which interiors are sought (runtime/environment/schema.py _BIG)

// max c.z subject to A z <= b, z >= 0; -inf if infeasible, +inf if unbounded.
class Simplex {
 public:
  Simplex(const std::vector<std::vector<double>>& A, const std::vector<double>& b,
          const std::vector<double>& c)
      : m_(static_cast<int>(b.size())), n_(static_cast<int>(c.size())), B_(m_), N_(n_ + 1),
        D_(m_ + 2, std::vector<double>(n_ + 2, 0.0)) {
    for (int i = 0; i < m_; ++i)
      for (int j = 0; j < n_; ++j) D_[i][j] = A[i][j];
    for (int i = 0; i < m_; ++i) {
      B_[i] = n_ + i;
      D_[i][n_] = -1;
      D_[i][n_ + 1] = b[i];
    }
    for (int j = 0; j < n_; ++j) {
      N_[j] = j;
      D_[m_][j] = -c[j];
    }
    N_[n_] = -1;
    D_[m_ + 1][n_] = 1;
  }

  double Solve() {
    int r = 0;
    for (int i = 1; i < m_; ++i)
      if (D_[i][n_ + 1] < D_[r][n_ + 1]) r = i;
    if (m_ > 0 && D_[r][n_ + 1] < -kEps) {
      Pivot(r, n_);
      if (!Run(1) || D_[m_ + 1][n_ + 1] < -kEps) return -std::numeric_limits<double>::infinity();
      for (int i = 0; i < m_; ++i)
        if (B_[i] == -1) {
          int s = -1;
          for (int j = 0; j <= n_; ++j)
            if (s == -1 || D_[i][j] < D_[i][s] || (D_[i][j] == D_[i][s] && N_[j] < N_[s])) s = j;
          Pivot(i, s);
        }
    }
    if (!Run(2)) return std::numeric_limits<double>::infinity();
    return D_[m_][n_ + 1];
  }

 private:
  static constexpr double kEps = 1e-12;
  void Pivot(int r, int s) {
    const double inv = 1.0 / D_[r][s];
    for (int i = 0; i < m_ + 2; ++i)
      if (i != r)
        for (int j = 0; j < n_ + 2; ++j)
          if (j != s) D_[i][j] -= D_[r][j] * D_[i][s] * inv;
    for (int j = 0; j < n_ + 2; ++j)
      if (j != s) D_[r][j] *= inv;
    for (int i = 0; i < m_ + 2; ++i)
      if (i != r) D_[i][s] *= -inv;
    D_[r][s] = inv;
    std::swap(B_[r], N_[s]);
  }
  bool Run(int phase) {
    const int x = phase == 1 ? m_ + 1 : m_;
    for (int it = 0; it < 100000; ++it) {
      int s = -1;
      for (int j = 0; j <= n_; ++j) {
        if (phase == 2 && N_[j] == -1) continue;
        if (s == -1 || D_[x][j] < D_[x][s] || (D_[x][j] == D_[x][s] && N_[j] < N_[s])) s = j;
      }
      if (D_[x][s] > -kEps) return true;
      int r = -1;
      for (int i = 0; i < m_; ++i) {
        if (D_[i][s] < kEps) continue;
        if (r == -1) {
          r = i;
          continue;
        }
        const double a = D_[i][n_ + 1] / D_[i][s], b = D_[r][n_ + 1] / D_[r][s];
        if (a < b || (a == b && B_[i] < B_[r])) r = i;
      }
      if (r == -1) return false;
      Pivot(r, s);
    }
    return false;  // no convergence: read as unbounded (callers see no interior)
  }
  int m_, n_;
  std::vector<int> B_, N_;
  std::vector<std::vector<double>> D_;
};

using Row = std::array<double, 4>;  // (n, d): n.x <= d

// runtime/environment/schema.py _interior: the largest margin s (capped at 1) with n.x + s <= d for every row and
// x in the box [-kBig, kBig]^3; with on (a unit normal and d), x restricted to the plane
// n.x = d.  -1 if no x is feasible.
inline double Margin(const std::vector<Row>& rows, const Row* on = nullptr) {
  // x = x0 + E y: E the identity (dim 3), or an orthonormal basis of the plane (dim 2)
  double x0[3] = {0, 0, 0}, E[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  int dim = 3;
  if (on) {
    const double* n = on->data();
    for (int a = 0; a < 3; ++a) x0[a] = n[a] * (*on)[3];
    int k = std::fabs(n[0]) < 0.6 ? 0 : (std::fabs(n[1]) < 0.6 ? 1 : 2);  // an axis off the normal
    double u[3] = {0, 0, 0};
    u[k] = 1.0;
    const double un = u[0] * n[0] + u[1] * n[1] + u[2] * n[2];
    double e1[3], e2[3];
    for (int a = 0; a < 3; ++a) e1[a] = u[a] - un * n[a];
    const double l = std::sqrt(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]);
    for (int a = 0; a < 3; ++a) e1[a] /= l;
    e2[0] = n[1] * e1[2] - n[2] * e1[1];
    e2[1] = n[2] * e1[0] - n[0] * e1[2];
    e2[2] = n[0] * e1[1] - n[1] * e1[0];
    for (int a = 0; a < 3; ++a) {
      E[a][0] = e1[a];
      E[a][1] = e2[a];
    }
    dim = 2;
    // the plane must meet the box (HiGHS: infeasible otherwise)
    for (int a = 0; a < 3; ++a)
      if (std::fabs(x0[a]) > kBig) return -1.0;
  }
  // variables z = (y+ (dim), y- (dim), t), y = y+ - y-, s = 1 - t; maximize -t
  const int nvar = 2 * dim + 1;
  std::vector<std::vector<double>> A;
  std::vector<double> b;
  auto add = [&](const double* a3, double d, bool margin) {  // a3.x (+ s) <= d
    std::vector<double> row(nvar, 0.0);
    double ax0 = 0.0;
    for (int a = 0; a < 3; ++a) ax0 += a3[a] * x0[a];
    for (int j = 0; j < dim; ++j) {
      double c = 0.0;
      for (int a = 0; a < 3; ++a) c += a3[a] * E[a][j];
      row[j] = c;
      row[dim + j] = -c;
    }
    double rhs = d - ax0;
    if (margin) {
      row[2 * dim] = -1.0;  // + s = + 1 - t
      rhs -= 1.0;
    }
    A.push_back(std::move(row));
    b.push_back(rhs);
  };
  for (const Row& r : rows) add(r.data(), r[3], true);
  for (int a = 0; a < 3; ++a) {
    double e[3] = {0, 0, 0};
    e[a] = 1.0;
    add(e, kBig, false);
    e[a] = -1.0;
    add(e, kBig, false);
  }
  std::vector<double> c(nvar, 0.0);
  c[2 * dim] = -1.0;
  const double v = Simplex(A, b, c).Solve();
  if (!std::isfinite(v)) return -1.0;
  return 1.0 + v;
}

}  // namespace aurgen::hydro::interior

#endif  // AURGEN_PLUGIN_INTERIOR_H_
