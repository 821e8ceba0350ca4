"""The drag model's records for MuJoCo Warp (runtime/mjwarp/kernels.py ``pieces``), as the plugin takes
them: each geom's form drag coefficient (aurgen.runtime.hydrostatics.drag), its faces' exposure and
coverers (core/drag_faces.h FaceExposure, through aurgen.runtime._native.face_exposure, at the model's
reference pose), and per weld group the degrees of freedom its declared terms take from the drag model
(core/forces.cc: wkeep_, wmode_, wmbody_). docs/runtime.md "Drag (the model)".
"""

from __future__ import annotations

import mujoco
import numpy as np

from aurgen.runtime._native import face_exposure
from aurgen.runtime.hydrostatics.drag import drag_coefficients


def records(mjm, geoms, size, cen, weld, nw, dampers) -> dict:
    """The drag model's per-geom records as the plugin takes them (plugin/build.cc, core/forces.cc): each
    geom's C_D (its user[1]; aurgen.runtime.hydrostatics.drag), its faces' exposure at the model's
    reference pose (core/drag_faces.h, through aurgen.runtime._native.face_exposure), and per weld group
    the degrees of freedom its dampers declare (wkeep 0), their mode and frame body."""
    ng = len(geoms)
    gcd = drag_coefficients(mjm, [(g, mark) for g, mark, _ in geoms])  # ValueError: a bad C_D, named
    d = mujoco.MjData(mjm)
    mujoco.mj_kinematics(mjm, d)
    gids = np.array([g for g, _, _ in geoms], np.int64)
    gi = np.array([(g, mjm.geom_bodyid[g], t, mark) for g, mark, t in geoms], np.int64).reshape(-1, 4)
    gexp, gcov = np.ones((max(ng, 1), 6)), np.full((max(ng, 1), 6), -1, np.int64)
    if ng:
        face_exposure(gi, np.ascontiguousarray(size[:ng]), np.ascontiguousarray(cen[:ng]),
                      np.array(weld, np.int64), np.ascontiguousarray(d.geom_xpos[gids]),
                      np.ascontiguousarray(d.geom_xmat[gids]), gexp[:ng], gcov[:ng])
    nwg = max(nw, 1)
    keep, body = np.ones((nwg, 6)), np.full(nwg, -1, np.int32)
    for b, grp, D, Q in zip(dampers["damper_body"], dampers["damper_group"], dampers["damper_D"], dampers["damper_Q"]):
        if grp < 0:
            continue
        if body[grp] < 0:
            body[grp] = b
        rows = np.any(np.asarray(D).reshape(6, 6) != 0.0, axis=1) | np.any(np.asarray(Q).reshape(6, 6) != 0.0, axis=1)
        keep[grp, rows] = 0.0
    kept = keep.sum(axis=1)
    mode = np.where(kept == 6, 0, np.where(kept == 0, 2, 1)).astype(np.int32)
    return {"geom_cd": np.asarray(gcd, float).reshape(-1) if ng else np.ones(1), "geom_exposure": gexp,
            "geom_cover": gcov.astype(np.int32),
            "weld_keep": keep, "weld_mode": mode, "weld_body": np.maximum(body, 0)}
