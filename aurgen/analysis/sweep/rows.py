"""A variant's row of the table, what one worker task computes (:func:`run_chunk`): its values
and its static figures (:func:`figures_of`: the kernel's equilibrium, the deck's freeboard and,
on request, the righting arm's figures; each column's unit ends its name: kg, m, m3, deg), or
the reason it has none; with ``--time-domain``, the seeded disturbance runs
(:mod:`aurgen.analysis.timedomain`, their ``td_`` columns). Writes no file.
"""

from __future__ import annotations

import math

import numpy as np

from aurgen.analysis.sweep.spec import FIGURES, Sweep, td_settings
from aurgen.analysis.sweep.variants import compose_variant, values_of
from aurgen.core.errors import AurgenError


def _num(x):
    x = float(x)
    return x if math.isfinite(x) else None


def figures_of(sweep: Sweep, vehicle) -> dict:
    """The static figures of a composed vehicle (the FIGURES columns but ``composed``/``reason``)."""
    from aurgen.analysis import stability as stb
    from aurgen.compose.stamp import equilibrium_of

    s = vehicle.specs
    out = {k: None for k in FIGURES}
    out.update(composed=True, reason="", total_mass_kg=float(s.total_mass),
               payload_total_kg=float(s.total_mass) - sweep.base_mass, com_x_m=float(s.com[0]),
               com_y_m=float(s.com[1]), com_z_m=float(s.com[2]), displaced_volume_m3=float(s.volume),
               reserve_buoyancy_kg=float(s.buoyancy_margin))
    eq = equilibrium_of(vehicle)
    out["equilibrium_status"] = eq.status
    out["capsized"] = eq.status in ("capsizes", "sinks")
    body = stb.body_of(vehicle)
    if eq.converged:
        out.update(draft_m=_num(eq.draft), heel_deg=_num(math.degrees(eq.heel)), trim_deg=_num(math.degrees(eq.trim)),
                   gm_t_m=_num(eq.gm_t), gm_l_m=_num(eq.gm_l))
        if eq.status == "floating":
            out["freeboard_m"] = _num(stb.freeboard_of(body, eq))
    fb = out["freeboard_m"]
    out["safe"] = bool(eq.converged and eq.stable and not out["capsized"] and (fb is None or fb > 0))
    if sweep.gz != "off" and eq.status != "sinks":
        out.update(_gz(sweep, body, vehicle, eq))
    return out


def _gz(sweep: Sweep, body, vehicle=None, eq=None) -> dict:
    """max GZ, its angle, the AVS and the free-trim fold: ``exact`` from :func:`aurgen.analysis.stability.gz_curve`
    (the report's figures, GZ sampled every ``gz_step_deg``, then refined); ``samples`` read off the kernel's GZ
    at every ``gz_step_deg`` on the same basis (:func:`aurgen.analysis.stability.sampled_arms`): the largest sample, and
    the AVS interpolated linearly between the samples around the first fall through zero after it.
    ``gz_fold_deg``: where the pitch-stable trim branch continuous with upright ends before the curve vanishes;
    when set, the figures are with the trim held at the equilibrium's (:class:`aurgen.analysis.stability.GZCurve`)."""
    from aurgen.analysis import stability as stb

    if sweep.gz == "exact":
        c = stb.gz_curve(body, "heel", sweep.gz_step_deg)
        out = {"max_gz_m": _num(c.max_gz), "angle_max_gz_deg": _num(math.degrees(c.angle_max_gz)),
               "avs_deg": _num(math.degrees(c.avs)) if c.avs is not None else None,
               "gz_fold_deg": _num(math.degrees(c.fold)) if c.fold is not None else None}
        if vehicle is not None and eq is not None and eq.status == "floating" and not c.submerged:
            from aurgen.analysis import criteria as crm

            out.update(crm.margins(crm.evaluate(vehicle, body, c, eq)))
        return out
    n = int(round(180.0 / sweep.gz_step_deg)) + 1
    ang = np.radians(np.linspace(0.0, 180.0, n))
    gz, fold = stb.sampled_arms(body, ang)
    i = int(np.nanargmax(gz))
    avs = None
    for k in range(i, n - 1):
        if gz[k] > 0 >= gz[k + 1]:
            avs = math.degrees(ang[k] + (ang[k + 1] - ang[k]) * gz[k] / (gz[k] - gz[k + 1]))
            break
    return {"max_gz_m": _num(gz[i]), "angle_max_gz_deg": _num(math.degrees(ang[i])),
            "avs_deg": _num(avs) if avs is not None else None,
            "gz_fold_deg": _num(math.degrees(fold)) if fold is not None else None}


def row_of(sweep: Sweep, i: int) -> dict:
    """Variant ``i``'s row: its values and figures, or its reason for failing (never raises an
    AurgenError or an arithmetic failure: those are the row's reason)."""
    return run_chunk(sweep, [i])[0]


def _static_row(sweep: Sweep, i: int):
    """(variant ``i``'s row of static figures, its Vehicle or None when it has a reason)."""
    values = values_of(sweep, i)
    row = {"variant": i, **values}
    try:
        vehicle = compose_variant(sweep, values, i)
    except (AurgenError, KeyError) as exc:
        return row | {k: None for k in FIGURES} | {"composed": False, "reason": str(exc)}, None
    try:
        return row | figures_of(sweep, vehicle), vehicle
    except Exception as exc:  # noqa: BLE001 (a figure the kernel cannot give: a row, not a crash)
        return row | {k: None for k in FIGURES} | {"composed": True,
                                                    "reason": f"figures: {type(exc).__name__}: {exc}"}, None


def run_chunk(sweep: Sweep, indices) -> list:
    """Rows of the variants ``indices`` (what one worker task computes); with the time domain, the
    composed variants' runs on ``mujoco.batch`` (grouped by model: :mod:`aurgen.analysis.timedomain`)."""
    from aurgen.compose.stamp import equilibrium_of

    out = [_static_row(sweep, int(i)) for i in indices]
    rows = [r for r, _ in out]
    if not sweep.time_domain:
        return rows
    from aurgen.analysis import timedomain as td

    jobs = []
    for r, vehicle in out:
        r.update({c: None for c in sweep.columns if c.startswith("td_") and c not in r})
        if vehicle is None:
            continue
        try:
            settings = td_settings(sweep, r)
        except ValueError as exc:
            r["reason"] = f"time domain: {exc}"
            continue
        jobs.append({"variant": r["variant"], "vehicle": vehicle, "eq": equilibrium_of(vehicle),
                     "settings": settings})
    got = td.run_variants(jobs, sweep.seed)
    for r in rows:
        if r["variant"] in got:
            res = got[r["variant"]]
            if "reason" in res:
                r["reason"] = res["reason"]
            else:
                r.update(res)
    return rows
