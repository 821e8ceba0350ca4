"""Added mass: which bodies and geoms carry it, and in what frame.

Method (see docs/runtime.md): the added-mass matrix goes into MuJoCo's mass
matrix, never into a force computed from the previous step's acceleration.
Inside the passive callback (after MuJoCo has built ``d.M`` for the stage and
before it solves for ``qacc``), :mod:`aurgen.runtime.sim.forces` (the compiled force stage) adds

    M~ = M + sum_i J_i^T A_w,i J_i,   A_w,i = s_i blkdiag(R_i, R_i) A_i blkdiag(R_i, R_i)^T

and the caller refactors (``mj_factorM``); the velocity-product terms
(added Coriolis, Munk moment) are applied as forces. Items:

* declared: ``<numeric name="aurgen:added_mass:<body>">`` (Fossen's sign,
  negative; (u, v, w, p, q, r); at the body origin in body axes), scaled by
  ``s`` = the body's submerged fraction (densest-fluid-equivalent displaced
  volume over its displacement volume);
* ellipsoid geoms (``fluidshape="ellipsoid"``, ``geom_fluid[0] == 1``): the
  virtual masses and inertias per unit density MuJoCo's compiler stores in
  ``geom_fluid[6:12]`` (Lamb's coefficients) in the geom frame at its centre,
  scaled by ``s = sum_c rho_c V_c / V`` (kg/m^3).

A body MuJoCo deems "simple" stores only the diagonal of its rows of ``M``;
bodies that carry added mass are recompiled with ``simple = 0``.
"""

from __future__ import annotations

import mujoco
import numpy as np

PREFIX = "aurgen:added_mass:"


def numeric_matrix(m, name: str) -> np.ndarray | None:
    """The 6x6 matrix stored in ``<numeric name=...>`` (row-major), or None."""
    i = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_NUMERIC, name)
    if i < 0:
        return None
    a, n = int(m.numeric_adr[i]), int(m.numeric_size[i])
    v = np.array(m.numeric_data[a : a + n], dtype=float)
    if v.size != 36 or not np.all(np.isfinite(v)):
        from aurgen.core.errors import AurgenError

        raise AurgenError(f"<numeric name={name!r}>: expected 36 finite numbers (a 6x6 matrix), got {v.size}")
    return v.reshape(6, 6)


def find_numeric(m, kind: str, body_name: str) -> np.ndarray | None:
    """``aurgen:<kind>:<body>``; in a world where a vehicle was attached with a
    prefix (``blueboat/base_link``) MuJoCo prefixes the numeric's name too
    (``blueboat/aurgen:<kind>:base_link``)."""
    A = numeric_matrix(m, f"aurgen:{kind}:{body_name}")
    i = body_name.find("/")
    while A is None and i >= 0:
        A = numeric_matrix(m, f"{body_name[: i + 1]}aurgen:{kind}:{body_name[i + 1:]}")
        i = body_name.find("/", i + 1)
    return A


def declared(m) -> list[tuple[int, np.ndarray]]:
    """[(body id, M_A positive 6x6)] from the model's numerics, in body-id order."""
    out = []
    for b in range(1, m.nbody):
        name = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, b)
        if not name:
            continue
        A = find_numeric(m, "added_mass", name)
        if A is not None:
            out.append((b, -0.5 * (A + A.T)))
    return out


def ellipsoid_geoms(m) -> list[tuple[int, np.ndarray]]:
    """[(geom id, 6x6 diagonal per unit density)] for fluidshape="ellipsoid" geoms."""
    out = []
    for g in range(m.ngeom):
        if m.geom_bodyid[g] == 0 or m.geom_fluid[g, 0] != 1.0:
            continue
        A = np.zeros((6, 6))
        A[np.arange(6), np.arange(6)] = m.geom_fluid[g, 6:12]
        out.append((g, A))
    return out


def lamb_ellipsoid(a: float, b: float, c: float, rho: float = 1.0) -> np.ndarray:
    """Lamb's added masses and inertias (6,) of an ellipsoid with semi-axes a, b, c.

    Reference implementation for docs and reports (the runtime reads MuJoCo's
    ``geom_fluid``); integrals by scipy quadrature.
    """
    from scipy.integrate import quad

    def integral(k):
        ax = (a, b, c)

        def f(lam):
            D = np.sqrt((a * a + lam) * (b * b + lam) * (c * c + lam))
            return 1.0 / ((ax[k] ** 2 + lam) * D)

        return a * b * c * quad(f, 0, np.inf, limit=200)[0]

    al, be, ga = integral(0), integral(1), integral(2)
    V = 4.0 / 3.0 * np.pi * a * b * c
    m = [al / (2 - al), be / (2 - be), ga / (2 - ga)]
    out = np.zeros(6)
    out[:3] = np.array(m) * rho * V
    pairs = ((b, c, be, ga), (c, a, ga, al), (a, b, al, be))
    for i, (p, q, bp, bq) in enumerate(pairs):
        num = (p * p - q * q) ** 2 * (bq - bp)
        den = 2 * (p * p - q * q) + (p * p + q * q) * (bp - bq)
        out[3 + i] = 0.0 if num == 0 else rho * V / 5.0 * num / den
    return out
