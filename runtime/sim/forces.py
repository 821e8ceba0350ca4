"""The passive-force stage: buoyancy, drag, declared damping, gravity fields, added mass.

The computation is C++17 (``runtime/native/core/forces.cc``), run through
:class:`ForceStage` (``aurgen.runtime._native``): built once from the arrays
:class:`aurgen.runtime.sim.plan.Plan` assembles (flags, geoms, cells, bodies,
damping and added-mass items, the mjData views, outputs; their shapes:
bindings/module.cc), it reads them once into its records (core/forces.h),
keeps pointers to the mjData views and outputs, and ``run()`` evaluates the
stage with no arguments and no allocation.  This module holds the constants
that index those arrays.

The stage runs inside MuJoCo's pipeline (the engine plugin's passive
``compute``, runtime/native/plugin), so every stage of every integrator sees
forces for its own state. It adds generalized forces to ``qfrc_passive``
and the added-mass metric to ``d.M`` (the caller refactors with ``mj_factorM``).
Everything is accumulated in one fixed order (cells, then geoms in model order,
then bodies, then damping items, then added-mass items), so two runs are
bitwise identical.

Conventions: world frame, SI units. MuJoCo's ``cdof`` (rot, lin) are motion
axes about ``subtree_com[rootid]``; a wrench (F at point x, torque T) maps to
``qfrc_j += cdof_lin_j . F + cdof_rot_j . (T + (x - c) x F)`` for the dofs in
the body's ancestor chain (as ``mj_applyFT``).

The drag model (docs/runtime.md "Drag (the model)"; per displacement geom g and cell c
with a non-empty piece, submerged fraction ``f = V_gc / V_g``, relative velocity ``v``
of the piece's centroid to the cell's flow, body angular velocity ``w``, ``C_D`` the
geom's MJCF ``user[1]`` (0 or absent: ``C_D`` below)):

    box or mesh (its bounding box), per geom axis i, l = R^T v:
        F_i = -(3 pi mu d f + 1/2 rho C_D A_i |l_i|) l_i,
        A_i = a_i (f + (1 - f) u_i^2) (e_i- + e_i+) / 2
    sphere, ellipsoid, cylinder, capsule:
        F = -(3 pi mu d f + 1/2 rho C_D A_proj(v) f |v|) v
    T = -(pi mu d^3 f + rho C_D d^5 / 64 f |w|) w
    surface (piece cut by a plane, section area A > 0, n = up = -g/|g|):
    F += -B (v.n) n,  T += -B (A/12) (w - (w.n) n),  B = C_S rho A sqrt(|g| h)

with ``d`` the diameter of the sphere of the geom's volume, ``a_i`` the area of a box's
faces across axis i, ``u_i`` that axis' component of up, ``e_i-``, ``e_i+`` the faces'
exposed shares (not covered by another geom of the same weld group: core/drag_faces.h),
``A_proj`` the projected area of the whole geom across ``v``, ``h`` the geom's vertical
extent, C_S = 0.3. A weld group whose body declares Fossen terms loses the drag model on
those degrees of freedom (its pieces' drag wrench at the body origin, in its axes, with the
declared components dropped). The surface term stands in for wave radiation damping,
which a static free surface does not have: without it a floating body would bob for
minutes. Windage geoms feel the same drag (no buoyancy, no surface term), only in gas
cells (density below 10 kg/m^3).
"""

from __future__ import annotations

from aurgen.runtime._native import ForceStage  # noqa: F401

C_D = 1.0  # a geom's form drag coefficient where its MJCF user[1] gives none
C_S = 0.3
GAS_DENSITY = 10.0

# flags (fl)
F_DRAG = 0
F_ADDED = 1
F_GRAV = 2  # 0: MuJoCo's uniform gravity; 1 central; 2 linear; 3 per cell
F_RECORD = 3
F_BUOY = 4
F_DAMP = 5  # surface damping and declared hydrodynamic damping (F_DRAG: the drag model only)
NFLAG = 6

# ledger slots (led)
L_UBUOY = 0
L_PDRAG = 1
L_UGRAV = 2
L_KE = 3
L_VSUB = 4  # sum rho_c V_gc / rho_max over displacement geoms (m^3 of densest fluid)
NLED = 8

# cell float columns (cf)
C_RHO = 0
C_MU = 1
C_FLOW = 2  # 2:5
C_G = 5  # 5:8 per-cell gravity (nan: global)
C_P = 8  # pressure constant: p = -rho phi(x) + P
C_GAS = 9
C_K = 10  # per-cell gravity potential constant
NCF = 11
