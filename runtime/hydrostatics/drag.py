"""A marked geom's form drag coefficient, as the force stage takes it (core/forces.h Geom::cd).

A displacement or windage geom's ``C_D`` is its MJCF ``user[1]`` (0, or no second user number:
1, ``runtime/sim/forces.py`` C_D); a value outside (0, MAX_DRAG_COEFFICIENT] is refused with the
plugin's words (core/forces.h kDragCoefficientError), naming the geom as the plugin names it
(plugin/build.cc GeomLabel). Read by runtime/sim/plan.py and the MuJoCo Warp backend.
"""

from __future__ import annotations

import mujoco
import numpy as np

MAX_DRAG_COEFFICIENT = 10.0
DRAG_COEFFICIENT_ERROR = "user[1], its form drag coefficient C_D, must be a number in (0, 10] (0 or absent: C_D 1)"
_MARK_ADDED_ONLY = 3  # an ellipsoid carrying added mass only (runtime/sim/plan.py)


def geom_label(m, g) -> str:
    """A geom as the plugin names it in an error (plugin/build.cc GeomLabel)."""
    name = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_GEOM, g)
    if name:
        return f"geom '{name}'"
    b = int(m.geom_bodyid[g])
    bname = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, b)
    return f"geom {g} (unnamed) of body " + (f"'{bname}'" if bname else str(b))


def drag_coefficients(m, geoms) -> np.ndarray:
    """(ng,) the form drag coefficient C_D of each (MuJoCo geom id, mark) of ``geoms``: its user[1]
    where nonzero, else 1 (an added-mass-only ellipsoid keeps 1). ValueError naming the geom for a
    value outside (0, 10]."""
    out = np.ones(len(geoms))
    if m.nuser_geom < 2:
        return out
    for k, (g, mark) in enumerate(geoms):
        cd = float(m.geom_user[g, 1])
        if mark == _MARK_ADDED_ONLY or cd == 0.0:
            continue
        if not (0.0 < cd <= MAX_DRAG_COEFFICIENT):
            raise ValueError(f"{geom_label(m, g)}: {DRAG_COEFFICIENT_ERROR}")
        out[k] = cd
    return out
