"""``aurgen sweep --time-domain``: a seeded disturbance run per variant on ``mujoco.batch.Batch``.

Each variant floats in open water at its declared fluid density (surface z = 0, air
above; the sweep's ``current`` and ``wind`` are the water's and the air's flow, m/s,
world frame), with the ``aurgen.hydrostatics`` engine plugin applying buoyancy, drag,
damping and added mass inside ``mj_step``. It starts at rest at the hydrostatics
kernel's equilibrium (``aurgen specs``: the base_link origin ``draft`` below the surface,
attitude ``R_y(trim) R_x(heel)``), turned by the initial ``heel`` and ``trim`` (deg, added
to the equilibrium's) at the depth where the turned body displaces its weight (as the
righting arm GZ is defined: a release at rest inside the vanishing angle rights, beyond
it capsizes). A variant the kernel finds ``capsizes`` (no stable upright equilibrium)
or ``not converged`` starts from upright instead; one that ``sinks`` is not run (its
time-domain columns are empty).

Disturbance: a roll moment about the body's x axis (N m, applied at the root body
through ``xfrc_applied``, held over each control period of ``control`` s)
``M(t) = s · roll_moment · sin(2π t / period + φ)`` for ``t < disturbance`` s, then
none; ``s`` uniform in [0.5, 1] and ``φ`` uniform in [0, 2π) are drawn from a
generator seeded with ``(sweep seed, variant, 1)``: a variant's run is a pure
function of the sweep and its index.

Figures, from the attitude sampled every control period (t = 0 included), roll
``atan2(R21, R22)`` and pitch ``asin(-R20)`` of the body rotation R:

* ``td_capsized``: the body z axis pointed below the horizontal (R22 < 0) at a sample;
* ``td_max_roll_deg`` / ``td_max_pitch_deg``: the largest |roll| / |pitch| (deg);
* ``td_settle_time_s``: the first sample time from which roll and pitch stay within
  ``settle_band`` deg of their final values to the end; empty when the run capsized or
  that stretch is shorter than ``settle_window`` s (still moving at the end);
* ``td_draft_m``: the base_link origin's depth below the surface at the end (m; empty
  if capsized).

A sea (``time_domain.waves``: the world ``waves:`` keys but ``surface``, docs/config.md
"Waves"; each also a swept key ``waves.<name>``): the variant's mapping, checked and synthesised
by :func:`aurgen.analysis.sea.sea_of` (the world loader's checks and words,
:func:`aurgen.runtime.environment.waves.synthesize`), rides on the open water's plane z = 0 as the
environment's ``waves`` block (deep water unless it declares ``depth``: the open water has no
seabed). A variant whose sea cannot be made (a height and a period breaking only together) gets
the refusal as its ``reason``. The table's ``td_sea`` column names each variant's sea
(:func:`aurgen.analysis.sea.describe`), in a sweep with one.

Batching (why by model): the plugin parses the vehicle's geometry and its
environment (flows) from the model when an MjData is made, so simulations that share
a ``Batch`` must share a compiled model. Variants whose composition differs (payload
mass or position, parts, hull sizes) differ in the model, so the variants of a chunk
are grouped by (MJCF text, environment): each group is one ``Batch`` of its variants,
which differ only in their initial attitude and disturbance (the time-domain keys
other than current and wind). ``Batch`` is bitwise a loop over one MjData per
simulation at any thread count, so a variant's row does not depend on which others
share its group: the table is the same at any chunk size, worker count, ``-j`` or
Ray. The last few compiled models are kept per process (grid points differing only
in time-domain keys compile once).
"""

from __future__ import annotations

import json
import math
from collections import OrderedDict

import numpy as np

#: the run's settings: defaults (the sweep file's ``time_domain:`` overrides them), units
DEFAULTS = {"duration": 20.0, "control": 0.02, "heel": 0.0, "trim": 0.0, "current": [0.0, 0.0, 0.0],
            "wind": [0.0, 0.0, 0.0], "roll_moment": 0.0, "period": 2.0, "disturbance": 4.0,
            "settle_band": 1.0, "settle_window": 2.0, "waves": None}
UNITS = {"duration": "s", "control": "s", "heel": "deg", "trim": "deg", "current": "m_s", "wind": "m_s",
         "roll_moment": "N_m", "period": "s", "disturbance": "s", "settle_band": "deg", "settle_window": "s",
         "waves": ""}
#: (low, high) of each setting (a vector's components)
RANGES = {"duration": (0.1, 3600.0), "control": (1e-4, 1.0), "heel": (-180.0, 180.0), "trim": (-90.0, 90.0),
          "current": (-50.0, 50.0), "wind": (-100.0, 100.0), "roll_moment": (-1e6, 1e6), "period": (0.01, 1e3),
          "disturbance": (0.0, 3600.0), "settle_band": (1e-6, 90.0), "settle_window": (0.0, 3600.0)}
#: the keys a sweep may vary per variant (``time_domain.<name>``, ``[k]`` for a vector)
SWEEPABLE = ("heel", "trim", "current", "wind", "roll_moment", "period")
VECTORS = ("current", "wind")
COLUMNS = ("td_settle_time_s", "td_max_roll_deg", "td_max_pitch_deg", "td_capsized", "td_draft_m")
SEA_COLUMN = "td_sea"  # the variant's sea (aurgen.analysis.sea.describe), in a sweep with one
_CACHE_MODELS = 8


def check_value(name: str, value, where: str) -> float:
    """``value`` as a float within the setting's range (ValueError naming ``where``)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{where}: expected a number, got {value!r}")
    lo, hi = RANGES[name]
    if not lo <= value <= hi:
        raise ValueError(f"{where}: {value!r} {UNITS[name].replace('_', '/')} is outside [{lo:g}, {hi:g}]")
    return float(value)


def parse_settings(node) -> dict:
    """The sweep file's ``time_domain:`` mapping over :data:`DEFAULTS` (ValueError naming the key)."""
    out = json.loads(json.dumps(DEFAULTS))
    if node is None:
        return out
    if not isinstance(node, dict):
        raise ValueError("time_domain: expected a mapping")
    for k, v in node.items():
        if k not in DEFAULTS:
            raise ValueError(f"time_domain.{k}: unknown setting (known: {', '.join(DEFAULTS)})")
        if k == "waves":
            out[k] = _waves_node(v)
        elif k in VECTORS:
            if not (isinstance(v, list) and len(v) == 3):
                raise ValueError(f"time_domain.{k}: expected [x, y, z] in m/s")
            out[k] = [check_value(k, x, f"time_domain.{k}[{j}]") for j, x in enumerate(v)]
        else:
            out[k] = check_value(k, v, f"time_domain.{k}")
    if out["control"] > out["duration"]:
        raise ValueError("time_domain.control: longer than the duration")
    return out


def _waves_node(v) -> dict | None:
    """``time_domain.waves`` as a plain mapping of sea keys (its values are checked with the swept
    ones, per variant and up front: :func:`sea_of_settings`); ValueError naming a key that is not one."""
    from aurgen.analysis import sea

    if v is None:
        return None
    if not isinstance(v, dict):
        raise ValueError("time_domain.waves: expected a mapping of the world's waves keys "
                         f"({', '.join(sea.KEYS)})")
    bad = sea.unknown(v)
    if bad is not None:
        why = "open water has one surface (z = 0): no surface key" if bad == "surface" else \
            f"known: {', '.join(sea.KEYS)}"
        raise ValueError(f"time_domain.waves.{bad}: unknown key ({why})")
    return json.loads(json.dumps(v))


def sea_of_settings(settings: dict, path=None, prefix: str = "waves"):
    """The Sea of a variant's settings (None: still water); ConfigError in the world's words."""
    from aurgen.analysis import sea

    w = settings.get("waves")
    return None if w is None else sea.sea_of(w, path, prefix)


def settings_of(base: dict, values: dict) -> dict:
    """The settings with ``values`` ({(name, index or None): value}) applied; ``("waves", key)`` sets
    a key of the sea (as given: a spectrum name, a whole seed)."""
    s = json.loads(json.dumps(base))
    for (name, k), v in values.items():
        if name == "waves":
            s["waves"] = dict(s.get("waves") or {})
            s["waves"][k] = json.loads(json.dumps(v))
        elif k is None:
            s[name] = float(v)
        else:
            s[name][k] = float(v)
    return s


# --------------------------------------------------------------------------- the model


def environment_of(rho: float, current, wind, sea=None) -> dict:
    """Open water of density ``rho`` below z = 0 (air above) with the given flows (m/s, world);
    ``sea`` (an aurgen.runtime.environment.waves.Sea on plane 0, :func:`aurgen.analysis.sea.sea_of`) its ``waves``."""
    out = {"planes": [[0, 0, 1, 0]],
           "cells": [{"name": "air", "signs": [1], "density": 1.225, "viscosity": 1.81e-5,
                      "flow": [float(x) for x in wind]},
                     {"name": "water", "signs": [-1], "density": float(rho), "viscosity": 1.08e-3,
                      "flow": [float(x) for x in current]}],
           "gravity": {"type": "uniform", "g": [0, 0, -9.81]}}
    if sea is not None:
        out["waves"] = sea.block()
    return out


_MODELS: OrderedDict = OrderedDict()


def compiled(xml: str, env: dict):
    """The MjModel of a vehicle's MJCF in ``env``, carrying the plugin instance (cached per process)."""
    from aurgen.runtime.sim import Simulation

    key = (xml, json.dumps(env, sort_keys=True))
    m = _MODELS.get(key)
    if m is None:
        sim = Simulation(xml, environment=env)  # the plugin instance attached (every geom type)
        m = sim.model
        sim.close()
        _MODELS[key] = m
        while len(_MODELS) > _CACHE_MODELS:
            _MODELS.popitem(last=False)
    else:
        _MODELS.move_to_end(key)
    return m


def mjcf_of(vehicle) -> str:
    """The vehicle's MJCF text as ``aurgen build`` renders it, without the header (a comment that
    would need the equilibrium again; MuJoCo compiles the same model)."""
    from aurgen.emit import render as emit
    from aurgen.emit.build import check_build

    check_build(vehicle)
    return emit.render("mjcf", vehicle, emit.context(vehicle))


def start_pose(vehicle, eq, heel_deg: float, trim_deg: float):
    """(qpos of the free joint (7,), or None when the variant sinks): see the module doc."""
    from aurgen.runtime.hydrostatics.equilibrium import attitude, draft_at
    from aurgen.core.spatial import quat_of
    from aurgen.analysis.stability import body_of

    if eq.status == "sinks":
        return None
    upright = eq.status in ("floating", "neutral")
    h0, t0 = (eq.heel, eq.trim) if upright else (0.0, 0.0)
    R = attitude(h0 + math.radians(heel_deg), t0 + math.radians(trim_deg))
    if upright and heel_deg == 0.0 and trim_deg == 0.0:
        depth = eq.draft
    else:
        body = body_of(vehicle)
        depth = draft_at(body.geoms, body.mass, body.com, body.rho, R)
    q = np.asarray(quat_of(R), float)
    return np.concatenate([[0.0, 0.0, -float(depth)], q / np.linalg.norm(q)])


# --------------------------------------------------------------------------- the run


def _rows_of_quat(q: np.ndarray):
    """(R00, R10, R20, R21, R22) of unit quaternions (n, 4) (w, x, y, z)."""
    q = q / np.linalg.norm(q, axis=1, keepdims=True)
    w, x, y, z = q.T
    return (1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y), 2 * (y * z + w * x),
            1 - 2 * (x * x + y * y))


def disturbance_draws(seed: int, index: int) -> tuple[float, float]:
    """(s, φ) of variant ``index``: its amplitude factor in [0.5, 1] and phase (rad)."""
    rng = np.random.default_rng([seed, index, 1])
    return float(rng.uniform(0.5, 1.0)), float(rng.uniform(0.0, 2 * math.pi))


def run_batch(model, qpos0: np.ndarray, settings: list[dict], draws: list[tuple], nthread: int = 1) -> list[dict]:
    """Run the simulations of one model together; one dict of :data:`COLUMNS` each.

    ``qpos0`` (n, 7): each simulation's free-joint start; ``settings``: each one's
    (``duration``, ``control``, ``settle_*`` the same for all); ``draws``: (s, φ) each.
    """
    from mujoco import batch as mjb

    n = len(settings)
    s0 = settings[0]
    dt = float(model.opt.timestep)
    k = max(1, int(round(s0["control"] / dt)))
    tc = k * dt
    nctrl = int(math.ceil(s0["duration"] / tc - 1e-9))
    root = int(model.jnt_bodyid[0])
    b = mjb.Batch(model, nsim=n, nthread=nthread)
    b.reset(stage=0)  # mjSTAGE_NONE: the state is written next; the first mj_step runs forward
    qpos, qvel, xfrc = b.bind("qpos"), b.bind("qvel"), b.bind("xfrc_applied")
    qpos[:, 0:7] = qpos0
    qvel[:] = 0.0
    amp = np.array([st["roll_moment"] * d[0] for st, d in zip(settings, draws)])
    phase = np.array([d[1] for d in draws])
    omega = np.array([2 * math.pi / st["period"] for st in settings])
    t_end = np.array([st["disturbance"] for st in settings])
    roll = np.empty((nctrl + 1, n))
    pitch = np.empty((nctrl + 1, n))
    up = np.empty((nctrl + 1, n))
    depth_end = np.empty(n)

    def sample(j):
        R00, R10, R20, R21, R22 = _rows_of_quat(np.array(qpos[:, 3:7]))
        roll[j] = np.arctan2(R21, R22)
        pitch[j] = np.arcsin(np.clip(-R20, -1.0, 1.0))
        up[j] = R22
        return np.stack([R00, R10, R20], axis=1)

    for j in range(nctrl):
        xaxis = sample(j)
        t = j * tc
        m = np.where(t < t_end, amp * np.sin(omega * t + phase), 0.0)
        xfrc[:, root, 3:6] = m[:, None] * xaxis
        b.step(nstep=k)
    sample(nctrl)
    depth_end[:] = -np.array(qpos[:, 2])
    times = np.arange(nctrl + 1) * tc
    out = []
    for i in range(n):
        capsized = bool(np.any(up[:, i] < 0.0))
        row = {"td_capsized": capsized, "td_max_roll_deg": float(np.degrees(np.max(np.abs(roll[:, i])))),
               "td_max_pitch_deg": float(np.degrees(np.max(np.abs(pitch[:, i])))),
               "td_settle_time_s": None, "td_draft_m": None}
        if not capsized:
            row["td_draft_m"] = float(depth_end[i])
            band = math.radians(s0["settle_band"])
            off = (np.abs(roll[:, i] - roll[-1, i]) > band) | (np.abs(pitch[:, i] - pitch[-1, i]) > band)
            hits = np.flatnonzero(off)
            first = 0 if hits.size == 0 else int(hits[-1]) + 1
            if times[-1] - times[first] >= s0["settle_window"] - 1e-9:
                row["td_settle_time_s"] = float(times[first])
        out.append(row)
    return out


def run_variants(jobs: list[dict], seed: int, nthread: int = 1) -> dict:
    """{variant: td columns} of ``jobs`` ({variant, vehicle, eq, settings}), grouped by model (module doc).
    A variant that cannot run gets ``{"reason": ...}``."""
    from aurgen.analysis import sea as seamod
    from aurgen.analysis.stability import body_of
    from aurgen.core.errors import AurgenError

    groups: dict = {}
    out = {}
    for job in jobs:
        v, st = job["vehicle"], job["settings"]
        q0 = start_pose(v, job["eq"], st["heel"], st["trim"])
        if q0 is None:
            out[job["variant"]] = {c: None for c in COLUMNS}
            continue
        try:
            sea = sea_of_settings(st)
        except AurgenError as exc:  # a sea only this combination of swept values breaks: the row's reason
            out[job["variant"]] = {"reason": f"time domain: {exc}"}
            continue
        env = environment_of(float(body_of(v).rho), st["current"], st["wind"], sea)
        xml = mjcf_of(v)
        key = (xml, json.dumps(env, sort_keys=True), st["duration"], st["control"], st["settle_band"],
               st["settle_window"])
        groups.setdefault(key, []).append((job["variant"], q0, st, env, xml))
    for key, members in groups.items():
        _, _, _, env, xml = members[0]
        try:
            model = compiled(xml, env)
            rows = run_batch(model, np.stack([m[1] for m in members]), [m[2] for m in members],
                             [disturbance_draws(seed, m[0]) for m in members], nthread)
        except Exception as exc:  # noqa: BLE001 (a model MuJoCo refuses or a run that fails: rows, not a crash)
            rows = [{"reason": f"time domain: {type(exc).__name__}: {exc}"}] * len(members)
        for m, r in zip(members, rows):
            out[m[0]] = r if m[2].get("waves") is None or "reason" in r else \
                r | {SEA_COLUMN: seamod.describe(m[2]["waves"])}
    return out
