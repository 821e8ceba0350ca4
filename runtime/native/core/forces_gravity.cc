// Gravity fields (forces.h GravityField: g, its potential and gradient torque at a point)
// and the force stage's sweep that applies a non-uniform field to the bodies (BodyGravity).
#include "forces.h"

#include <cmath>

namespace aurgen::core {

void GravityField::At(const double x[3], double out[3]) const {
  if (kind == Kind::kCentral) {
    double rx = x[0] - centre[0], ry = x[1] - centre[1], rz = x[2] - centre[2];
    double R = std::sqrt(rx * rx + ry * ry + rz * rz);
    double s = -mu / (R * R * R);
    out[0] = s * rx;
    out[1] = s * ry;
    out[2] = s * rz;
  } else if (kind == Kind::kLinear) {
    for (int i = 0; i < 3; ++i)
      out[i] = g0[i] + grad[3 * i] * x[0] + grad[3 * i + 1] * x[1] + grad[3 * i + 2] * x[2];
  } else {
    out[0] = g[0];
    out[1] = g[1];
    out[2] = g[2];
  }
}

double GravityField::Potential(const double x[3]) const {
  if (kind == Kind::kCentral) {
    double rx = x[0] - centre[0], ry = x[1] - centre[1], rz = x[2] - centre[2];
    return -mu / std::sqrt(rx * rx + ry * ry + rz * rz);
  }
  if (kind == Kind::kLinear) {
    double s = g0[0] * x[0] + g0[1] * x[1] + g0[2] * x[2];
    double q = 0.0;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) q += x[i] * grad[3 * i + j] * x[j];
    return -(s + 0.5 * q);
  }
  return -(g[0] * x[0] + g[1] * x[1] + g[2] * x[2]);
}

void GravityField::GradientTorque(const double x[3], const double I[3][3], double T[3]) const {
  if (kind == Kind::kCentral) {  // 3 mu / R^5 r x (I r), r from the centre
    double rx = x[0] - centre[0], ry = x[1] - centre[1], rz = x[2] - centre[2];
    double R2 = rx * rx + ry * ry + rz * rz;
    double s3 = 3.0 * mu / (R2 * R2 * std::sqrt(R2));
    double IR0 = I[0][0] * rx + I[0][1] * ry + I[0][2] * rz;
    double IR1 = I[1][0] * rx + I[1][1] * ry + I[1][2] * rz;
    double IR2 = I[2][0] * rx + I[2][1] * ry + I[2][2] * rz;
    T[0] = s3 * (ry * IR2 - rz * IR1);
    T[1] = s3 * (rz * IR0 - rx * IR2);
    T[2] = s3 * (rx * IR1 - ry * IR0);
    return;
  }
  double GI[3][3];  // linear: tau_i = eps_iab (G I)_ab
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) {
      double s = 0.0;
      for (int q = 0; q < 3; ++q) s += grad[3 * a + q] * I[q][b];
      GI[a][b] = s;
    }
  T[0] = GI[1][2] - GI[2][1];
  T[1] = GI[2][0] - GI[0][2];
  T[2] = GI[0][1] - GI[1][0];
}

// Gravity fields over each body's mass distribution (second order): the force at
// its centre of mass, the gradient torque of a central or linear field.
void ForceStage::BodyGravity(const ForceData& d, bool record) {
  const GravityField& G = m_.gravity;
  double F[3], T[3], x[3], g[3], Iw[3][3];
  for (int b = 1; b < nb_; ++b) {
    double mass = m_.body_mass[b];
    if (mass <= 0.0 || m_.bodies[b].ndof == 0) continue;
    for (int a = 0; a < 3; ++a) x[a] = d.xipos[3 * b + a];
    if (G.kind == GravityField::Kind::kPerCell) {  // its cell's own g, else the global g
      int c = m_.CellAt(x);
      double K;
      if (c >= 0 && m_.cells[c].HasGravity()) {
        for (int a = 0; a < 3; ++a) g[a] = m_.cells[c].g[a];
        K = m_.cells[c].k;
      } else {
        for (int a = 0; a < 3; ++a) g[a] = G.g[a];
        K = 0.0;
      }
      for (int a = 0; a < 3; ++a) {
        F[a] = mass * g[a];
        T[a] = 0.0;
      }
      if (record) o_.led[kLUGrav] += mass * UniformPotential(g, K, x);
    } else {
      G.At(x, g);
      for (int a = 0; a < 3; ++a) F[a] = mass * g[a];
      const double* xm = d.ximat + 9 * b;
      const double* bi = m_.body_inertia + 3 * b;
      for (int a = 0; a < 3; ++a)  // the inertia tensor about the CoM, world
        for (int bb = 0; bb < 3; ++bb) {
          double s = 0.0;
          for (int q = 0; q < 3; ++q) s += xm[3 * a + q] * bi[q] * xm[3 * bb + q];
          Iw[a][bb] = s;
        }
      G.GradientTorque(x, Iw, T);
      if (record) o_.led[kLUGrav] += mass * G.Potential(x);
    }
    Apply(d, b, F, T, x);
  }
}

}  // namespace aurgen::core
