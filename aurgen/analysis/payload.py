"""Payload and ballast: what a point mass added to the hydrostatic problem does (pure functions, no I/O).

On :class:`aurgen.analysis.stability.Body` and the hydrostatics kernel's
floating equilibrium:

- a load line: draft (m), heel and trim (rad) against a payload (kg) added at
  a point, up to the reserve buoyancy, and the payload at which freeboard
  reaches zero (a UUV: at which net buoyancy reaches zero, i.e. it sinks);
- for a UUV, net buoyancy and CoB−CoM as declared and as built, and the
  ballast that makes it neutral with zero trim;
- the catalog look-ups they start from: the payload slot, the mass by part.

Frames: base_link (x forward, y port, z up); heel about +x (starboard down
positive), trim about +y (bow down positive), as in :mod:`aurgen.analysis.stability`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from aurgen.analysis.stability import FLOAT_MARGIN, Body, body_of, freeboard_of, full_volume, hydrostatics_module


# --------------------------------------------------------------------------- load line


@dataclass
class LoadLine:
    """Draft m, heel and trim rad, freeboard m against payload kg added at ``at`` (base_link).

    ``limit`` is the payload at which the body is wholly submerged (its reserve
    buoyancy); ``zero_freeboard`` the payload at which the lowest deck point
    reaches the water (None if it stays dry up to the limit). For a body that
    does not float these are equal and the arrays are empty.
    """

    at: np.ndarray
    payload: np.ndarray
    draft: np.ndarray
    heel: np.ndarray
    trim: np.ndarray
    freeboard: np.ndarray
    converged: np.ndarray
    limit: float
    zero_freeboard: float | None
    notes: list = field(default_factory=list)


def load_line(body: Body, at, samples: int = 41, progress=None) -> LoadLine:
    """The load line for payload added at ``at`` (m, base_link), 0 up to the reserve buoyancy.

    Each sample is the kernel's equilibrium of the loaded body. Samples stop
    just short of the limit (the equilibrium of a wholly submerged body is not
    unique); samples whose equilibrium did not converge are NaN.
    """
    hs = hydrostatics_module()
    at = np.asarray(at, float)
    V, _ = full_volume(body)
    limit = body.rho * V - body.mass
    notes = []
    if limit <= FLOAT_MARGIN * body.mass:
        e = np.zeros(0)
        return LoadLine(at, e, e, e, e, e, np.zeros(0, bool), max(limit, 0.0), max(limit, 0.0),
                        ["does not float: no load line (it sinks with any payload)"])
    payload = np.linspace(0.0, limit * (1.0 - 1e-3), samples)
    out = {k: np.full(samples, np.nan) for k in ("draft", "heel", "trim", "freeboard")}
    ok = np.zeros(samples, bool)
    status = []

    def solve(mp):
        bb = body.with_payload(mp, at)
        return bb, hs.equilibrium(list(bb.geoms), bb.mass, bb.com, bb.rho)

    for k, mp in enumerate(payload):
        bb, e = solve(mp)
        status.append(getattr(e, "status", "floating" if getattr(e, "converged", True) else "not converged"))
        if getattr(e, "converged", True):
            ok[k] = True
            out["draft"][k], out["heel"][k], out["trim"][k] = e.draft, e.heel, e.trim
            out["freeboard"][k] = freeboard_of(bb, e)
        if progress:
            progress(k + 1, samples)
    if not ok.all():
        first = int(np.argmin(ok))
        kinds = sorted({status[k] for k in range(samples) if not ok[k]})
        notes.append(f"{int((~ok).sum())} of {samples} samples have no upright floating equilibrium "
                     f"(kernel: {', '.join(kinds)}), the first at {payload[first]:.3f} kg; left blank")

    zero = None
    fb = out["freeboard"]
    idx = [k for k in range(samples - 1) if ok[k] and ok[k + 1] and fb[k] > 0 >= fb[k + 1]]
    if idx:
        from scipy.optimize import brentq

        k = idx[0]

        def fbm(mp):
            bb, e = solve(mp)
            return freeboard_of(bb, e)

        zero = float(brentq(fbm, payload[k], payload[k + 1], xtol=1e-9 * max(1.0, limit)))
    elif ok.any() and fb[ok][0] <= 0:
        zero = 0.0
    return LoadLine(at, payload, out["draft"], out["heel"], out["trim"], out["freeboard"], ok, float(limit), zero,
                    notes)


# --------------------------------------------------------------------------- UUV balance


@dataclass
class Balance:
    """A UUV's buoyancy, declared against as built, and the ballast that makes it neutral and level.

    Masses kg (net buoyancy = ρV − m, positive floats), offsets m (CoB − CoM,
    base_link). ``ballast`` kg to add (negative: buoyancy to add, or mass to
    remove) at ``ballast_at``: the chosen point with x (and y) moved so that the
    loaded CoM sits under the CoB (zero trim and heel). ``trim_at_chosen`` and
    ``heel_at_chosen`` (rad) are the submerged attitude with the ballast exactly
    at the chosen point instead.
    """

    declared_net: float | None
    built_net: float
    declared_offset: np.ndarray | None
    built_offset: np.ndarray
    volume: float
    cob: np.ndarray
    ballast: float
    chosen: np.ndarray
    ballast_at: np.ndarray | None
    trim_at_chosen: float
    heel_at_chosen: float


def submerged_attitude(com, cob) -> tuple[float, float]:
    """(heel, trim) rad at which a wholly submerged body hangs: CoM straight below CoB
    (``aurgen.runtime.hydrostatics.equilibrium.hanging_attitude`` of B − G)."""
    from aurgen.runtime.hydrostatics.equilibrium import hanging_attitude

    return hanging_attitude(np.asarray(cob, float) - np.asarray(com, float))


def uuv_balance(vehicle, at=None, body: Body | None = None) -> Balance:
    """Declared vs as-built buoyancy of a UUV and its neutralising ballast at ``at`` (default: payload slot)."""
    body = body or body_of(vehicle)
    V, B = full_volume(body)
    G_ = np.asarray(body.com, float)
    net = body.rho * V - body.mass
    d = vehicle.displacement
    declared_off = None
    if d.declared_cob_offset is not None:
        declared_off = np.asarray(d.declared_cob_offset, float)
        if d.cob_frame != "com":  # declared as a point in base_link
            declared_off = declared_off - G_
    chosen = np.asarray(at if at is not None else default_payload_point(vehicle), float)
    mb = net  # added mass that makes ρV = m + mb
    ballast_at = None
    if abs(mb) > 0:
        # (m G + mb p) / (m + mb) has x, y equal to B's: solve p_x, p_y; keep the chosen z
        p = chosen.copy()
        p[:2] = B[:2] + body.mass * (B[:2] - G_[:2]) / mb
        ballast_at = p
        loaded = body.with_payload(mb, chosen)
        heel, trim = submerged_attitude(loaded.com, B)
    else:
        heel, trim = submerged_attitude(G_, B)
    return Balance(d.declared_net_buoyancy, float(net), declared_off, B - G_, float(V), B, float(mb), chosen,
                   ballast_at, trim_at_chosen=float(trim), heel_at_chosen=float(heel))


# --------------------------------------------------------------------------- catalog look-ups


def default_payload_point(vehicle) -> np.ndarray:
    """The base link's ``payload`` slot origin (m, base_link); the CoM if it has none."""
    for fr in vehicle.frames:
        if fr.name == f"{vehicle.base}_payload_slot" and fr.link == vehicle.base:
            return np.asarray(fr.xyz, float)
    return np.asarray(vehicle.specs.com, float)


def part_masses(vehicle) -> list[tuple[str, str, float, float]]:
    """(link, part type, mass kg, share of total) per fitted part, in placement order."""
    total = vehicle.specs.total_mass
    return [(l.name, l.part_type, l.mass, l.mass / total) for l in vehicle.links if l.role == "part"]
