// Closed forms and exact quadratures for smooth geoms against planes (geom frame).
//
// Every routine works in the geom's own frame, metres, on a plane n.x <= t with
// n a unit vector of that frame.  Results: volume (m^3), first moment ∫x dV
// (m^4, about the geom origin) and, where stated, the section area (m^2).
// Callers have done the support test, but every routine clamps so that it
// stays correct (and non-negative) when the plane misses the geom.
//
// * Ellipsoid / sphere, one plane: closed form on the unit ball,
//   V = π(1+τ)²(2−τ)/3, centroid −(3/4)(1−τ)²/(2−τ) along the normal, mapped
//   forward by A = diag(a, b, c).
// * Unit ball, two planes (Ball2): sliced along the first normal; each slice is
//   a disk cut by a chord, closed form; the outer integral is split at the
//   kinks and integrated by 24-point Gauss–Legendre after a sin substitution.
// * Cylinder, one plane: 16-point Gauss–Legendre in θ (s = −r cos θ) on each
//   piece between the breakpoints; the integrands are trigonometric
//   polynomials of degree <= 4, so the rule is exact to rounding.
// * Capsule, one plane: the cylinder plus two half balls (Ball2).
#ifndef AURGEN_CORE_CLIP_SMOOTH_H_
#define AURGEN_CORE_CLIP_SMOOTH_H_

namespace aurgen::core {

// Area of the unit disk where u <= x (clamped to [0, π]).
double SegArea(double x);
// First moment along u of the unit disk where u <= x: −(2/3)(1−x²)^{3/2}.
double SegMoment(double x);
// Mean of the unit-disk chord 2√(1−u²) over [u0, u1], stable as u1 -> u0.
double MeanChord(double u0, double u1);

// Unit ball below m.y <= tau (m unit): volume, centroid k (along m), section area.
struct Ball1Result {
  double v, k, area;
};
Ball1Result Ball1(double tau);

// Unit ball ∩ {m1.y <= t1} ∩ {m2.y <= t2} (m1, m2 unit).  out[0] volume,
// out[1:4] first moment ∫y dV, out[4] area of the section on plane 1 (within
// plane 2's half-space).  out has >= 5 entries.
void Ball2(double m1x, double m1y, double m1z, double t1, double m2x, double m2y,
           double m2z, double t2, double* out);

// Ellipsoid with semi-axes (a, b, c) below n.x <= t.  out (>= 14): [0] V,
// [1:4] ∫x dV, [4] section area, [5:8] section centroid, [8:14] section second
// moments about its centroid (xx, yy, zz, xy, xz, yz).
void Ellipsoid1(double a, double b, double c, double nx, double ny, double nz, double t,
                double* out);

// Cylinder (axis z, radius r, half-length h) below n.x <= t: out[0] V,
// out[1:4] ∫x dV, out[4] section area.
void Cylinder1(double r, double h, double nx, double ny, double nz, double t, double* out);

// Capsule below n.x <= t: out as Cylinder1; tmp is scratch (>= 5).
void Capsule1(double r, double h, double nx, double ny, double nz, double t, double* out,
              double* tmp);

}  // namespace aurgen::core

#endif  // AURGEN_CORE_CLIP_SMOOTH_H_
