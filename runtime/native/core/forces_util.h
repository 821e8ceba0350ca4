// The force stage's private helpers (forces.h ForceStage), shared by its files
// forces.cc and forces_*.cc and by nothing else: the drag model's coefficients and two
// small frame and motion transforms.  Not a public header of the core.
#ifndef AURGEN_CORE_FORCES_UTIL_H_
#define AURGEN_CORE_FORCES_UTIL_H_

namespace aurgen::core {

inline constexpr double kPi = 3.141592653589793;
inline constexpr double kCD = 1.0;  // form drag coefficient
inline constexpr double kCS = 0.3;  // surface (radiation stand-in) damping coefficient

// R^T n: the world direction n in the frame of R (row-major, frame -> world), into l.
inline void ToFrame(const double R[9], const double n[3], double l[3]) {
  l[0] = R[0] * n[0] + R[3] * n[1] + R[6] * n[2];
  l[1] = R[1] * n[0] + R[4] * n[1] + R[7] * n[2];
  l[2] = R[2] * n[0] + R[5] * n[1] + R[8] * n[2];
}

// The motion s (rot, lin; MuJoCo's cdof / cvel layout) about a point c, seen at
// c + r, as (lin, rot): lin + rot x r, then rot.
inline void MotionAt(const double s[6], const double r[3], double out[6]) {
  out[0] = s[3] + s[1] * r[2] - s[2] * r[1];
  out[1] = s[4] + s[2] * r[0] - s[0] * r[2];
  out[2] = s[5] + s[0] * r[1] - s[1] * r[0];
  out[3] = s[0];
  out[4] = s[1];
  out[5] = s[2];
}

}  // namespace aurgen::core

#endif  // AURGEN_CORE_FORCES_UTIL_H_
