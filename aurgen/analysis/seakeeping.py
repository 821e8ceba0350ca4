"""``aurgen report --seakeeping``: RAOs in regular waves and motion statistics in an irregular sea.

Time-domain runs of the emitted MJCF in the runtime (``aurgen.runtime.sim``, the plugin's linear
sea: docs/config.md "Waves"), free-floating from the kernel's equilibrium (the report's
``eq``: base_link origin ``eq.pos``, attitude ``eq.mat``; a wholly submerged vehicle from
``depth`` m down at its hanging attitude, as the roll-decay run), in open water of the
vehicle's declared density below z = 0, deep water (k = omega^2 / g).

Frames and signs: world z up, the vehicle starting with base_link x (forward) along world +x.
A heading is the direction the waves travel TOWARD, deg from the bow (+x) toward port (+y):
``head`` = 180 (waves meet the bow), ``beam`` = 90 (waves arrive on the starboard side and travel
toward port), ``following`` = 0. Heave: the whole vehicle's centre of mass height (m, world
z, ``subtree_com`` of the root body); roll ``atan2(R21, R22)`` (rad, starboard down positive, about
+x), pitch ``asin(-R20)`` (rad, bow down positive, about +y) of the root body's rotation R.

Regular waves (one run per period and heading; the environment is in the model text, so each
is its own model and they run one after the other: ``mujoco.batch`` shares one model): height
H = min(``height``, ``steepness`` * lambda), amplitude a = H / 2, wavenumber k; ramped in over
``ramp_cycles`` periods (the environment's ramp), then ``settle_cycles`` periods for the start's
transient, then ``fit_cycles`` periods fitted by :func:`fit_harmonic` (least squares on 1, t,
cos wt, sin wt). RAOs: heave amplitude / a, roll and pitch amplitude / (k a) (the wave slope);
phases (deg) of each motion relative to the wave elevation at the vehicle's mean horizontal
position over the fitted window, positive when the motion leads.

Irregular sea: the declared spectrum (:mod:`aurgen.runtime.environment.waves`, seeded), ``duration`` s after
its ramp; significant amplitude = 2 sigma (half the significant double amplitude 4 sigma, the
Rayleigh narrow-band figure), sigma the standard deviation about the record's mean (= its RMS
about the mean); the record's own H1/3 / 2 (mean of the highest third of zero-upcrossing
double amplitudes, halved) beside it; and the wave elevation the vehicle meets (at its centre of
mass's horizontal position at each sample: it drifts), whose 4 sigma is the realised Hs there.
"""

from __future__ import annotations

import json
import math
import re

import numpy as np

from aurgen.core.errors import AurgenError

G = 9.81
HEADINGS = {"head": 180.0, "beam": 90.0, "following": 0.0}

#: settings (``--seakeeping-set KEY=VALUE``), their defaults, units and ranges
DEFAULTS = {"periods": [1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 7.0, 10.0], "height": 0.1, "steepness": 1 / 60,
            "headings": ["head", "beam"], "ramp_cycles": 3, "settle_cycles": 2, "fit_cycles": 5, "depth": 3.0,
            "samples_per_period": 50, "timestep": 0.004,
            "sea.spectrum": "jonswap", "sea.hs": 0.5, "sea.tp": 4.0, "sea.gamma": 3.3, "sea.components": 16,
            "sea.seed": 1, "sea.duration": 300.0, "sea.ramp": 10.0, "sea.headings": ["head", "beam"],
            "sea.world": None}
UNITS = {"periods": "s", "height": "m", "steepness": "H/lambda", "ramp_cycles": "periods",
         "settle_cycles": "periods", "fit_cycles": "periods", "depth": "m", "samples_per_period": "samples",
         "timestep": "s",
         "sea.hs": "m", "sea.tp": "s", "sea.gamma": "", "sea.components": "components", "sea.seed": "",
         "sea.duration": "s", "sea.ramp": "s"}
RANGES = {"periods": (0.3, 60.0), "height": (1e-4, 1.0), "steepness": (1e-4, 1 / 10), "ramp_cycles": (0, 20),
          "settle_cycles": (0, 50), "fit_cycles": (1, 50), "depth": (0.0, 1000.0), "samples_per_period": (8, 1000),
          "timestep": (1e-4, 0.01),
          "sea.hs": (1e-3, 10.0), "sea.tp": (0.5, 30.0), "sea.gamma": (1.0, 7.0), "sea.components": (1, 256),
          "sea.seed": (0, 2**32 - 1), "sea.duration": (10.0, 3600.0), "sea.ramp": (0.0, 600.0)}
INTEGERS = ("ramp_cycles", "settle_cycles", "fit_cycles", "samples_per_period", "sea.components", "sea.seed")
SPECTRA = ("jonswap", "pierson_moskowitz")
SEA_SAMPLE = 0.05  # s between samples of the irregular record


# --------------------------------------------------------------------------- settings


class SeakeepingInvalid(AurgenError):
    """A seakeeping setting the report cannot use; the message starts with ``seakeeping.<key>``."""


def _bad(key: str, msg: str):
    return SeakeepingInvalid(f"seakeeping.{key}: {msg} (--seakeeping-set {key}=VALUE; docs/report.md, Seakeeping)")


# a number as the config language writes one (YAML 1.2 core schema's decimal floats and ints, ASCII
# digits only): Python's float() also takes '1_0' (10) and other scripts' digits ('２'), which a config refuses
_DECIMAL = re.compile(r"[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?", re.ASCII)
# the keys of the generated irregular sea, which a world's own sea (sea.world) replaces
_GENERATED_SEA = ("sea.spectrum", "sea.hs", "sea.tp", "sea.gamma", "sea.components", "sea.seed", "sea.ramp",
                  "sea.headings")


def _number(key: str, text) -> float:
    lo, hi = RANGES[key]
    t = str(text).strip()
    if not _DECIMAL.fullmatch(t):
        raise _bad(key, f"expected a number, got {text!r}")
    x = float(t)
    if not math.isfinite(x) or not lo <= x <= hi:
        raise _bad(key, f"{text!r} {UNITS.get(key, '')} is outside [{lo:g}, {hi:g}]".replace("  ", " "))
    if key in INTEGERS:
        if x != int(x):
            raise _bad(key, f"expected an integer, got {text!r}")
        return int(x)
    return x


def _heading(key: str, text: str) -> float:
    t = text.strip()
    if t in HEADINGS:
        return HEADINGS[t]
    try:
        x = float(t)
    except ValueError:
        raise _bad(key, f"expected head, beam, following or degrees (the direction the waves travel toward, "
                        f"from the bow toward port), got {t!r}") from None
    if not math.isfinite(x) or not -360.0 <= x <= 360.0:
        raise _bad(key, f"{t!r} deg is outside [-360, 360]")
    return x


def parse_settings(pairs) -> dict:
    """The settings: :data:`DEFAULTS` with ``pairs`` ("KEY=VALUE" strings) applied (SeakeepingInvalid
    naming the key). Lists (``periods``, ``headings``, ``sea.headings``) are comma-separated."""
    out = json.loads(json.dumps(DEFAULTS))
    given = []
    for p in pairs or ():
        key, eq, value = str(p).partition("=")
        key = key.strip()
        if not eq:
            raise SeakeepingInvalid(f"--seakeeping-set {p!r}: expected KEY=VALUE (keys: {', '.join(DEFAULTS)})")
        if key not in DEFAULTS:
            raise _bad(key, f"unknown setting (known: {', '.join(DEFAULTS)})")
        value = value.strip()
        given.append(key)
        if key == "periods":
            vals = [_number(key, w) for w in value.split(",") if w.strip()]
            if not vals or len(vals) > 40:
                raise _bad(key, f"expected 1 to 40 periods (s), comma-separated, got {value!r}")
            out[key] = sorted(set(vals))
        elif key in ("headings", "sea.headings"):
            words = [w for w in value.split(",") if w.strip()]
            if not words or len(words) > 8:
                raise _bad(key, f"expected 1 to 8 headings, comma-separated, got {value!r}")
            out[key] = [w.strip() if w.strip() in HEADINGS else _heading(key, w) for w in words]
        elif key == "sea.spectrum":
            if value not in SPECTRA:
                raise _bad(key, f"expected one of {', '.join(SPECTRA)}, got {value!r}")
            out[key] = value
        elif key == "sea.world":
            out[key] = value or None
        else:
            out[key] = _number(key, value)
    # a setting given and then not used would be silently ignored: refuse it, naming what to change
    if "sea.gamma" in given and out["sea.spectrum"] != "jonswap":
        raise _bad("sea.gamma", f"only for sea.spectrum=jonswap (the peak enhancement), not {out['sea.spectrum']}: "
                                "drop it, or set sea.spectrum=jonswap")
    if out["sea.world"]:
        unused = [k for k in _GENERATED_SEA if k in given]
        if unused:
            raise _bad(unused[0], f"the sea of sea.world={out['sea.world']} is the world's own, so "
                                  f"{', '.join(unused)} would be ignored: drop {'it' if len(unused) == 1 else 'them'}, "
                                  "or drop sea.world for a generated sea")
    return out


def heading_deg(h) -> float:
    """A heading (a name of :data:`HEADINGS` or deg) in deg: the waves' direction of travel from the bow."""
    return HEADINGS[h] if isinstance(h, str) else float(h)


def heading_name(h) -> str:
    return h if isinstance(h, str) else f"{float(h):g}°"


# --------------------------------------------------------------------------- pure physics


def wave_of(period: float, settings: dict) -> dict:
    """The regular wave of ``period`` s: {T, omega rad/s, k rad/m, wavelength m, H m, a m} with
    H = min(height, steepness * lambda) (deep water)."""
    omega = 2 * math.pi / period
    k = omega * omega / G
    lam = 2 * math.pi / k
    H = min(float(settings["height"]), float(settings["steepness"]) * lam)
    return {"T": float(period), "omega": omega, "k": k, "wavelength": lam, "H": H, "a": H / 2}


def regular_component(wave: dict, heading: float) -> list:
    """The environment's component [a, omega, kx, ky, kz, phase] of ``wave`` travelling toward ``heading``
    deg (from world +x toward +y)."""
    th = math.radians(heading)
    c, s = math.cos(th), math.sin(th)
    c, s = (0.0 if abs(c) < 1e-15 else c), (0.0 if abs(s) < 1e-15 else s)
    return [wave["a"], wave["omega"], wave["k"] * c, wave["k"] * s, 0.0, 0.0]


def environment(rho: float, waves: dict) -> dict:
    """Open water of density ``rho`` below z = 0 (still air above) carrying the environment's ``waves`` block."""
    from aurgen.analysis.timedomain import environment_of

    env = environment_of(rho, [0.0, 0.0, 0.0], [0.0, 0.0, 0.0])
    env["waves"] = waves
    return env


def fit_harmonic(t, y, omega: float) -> dict:
    """Least squares of ``y`` on 1, (t − t̄), cos ωt, sin ωt: y ≈ c + s (t − t̄) + A cos(ωt + φ).

    ``t`` s, ``y`` any unit, ``omega`` rad/s. Returns {amplitude A (y's unit, ≥ 0), phase φ (rad, in
    (−π, π]), mean c, slope s (per s), residual (RMS of the misfit)}. The trend term takes a slow drift
    (a vehicle not exactly neutral) out of the harmonic; over whole periods it is nearly orthogonal to it.
    """
    t = np.asarray(t, float)
    y = np.asarray(y, float)
    tm = float(t.mean())
    X = np.stack([np.ones_like(t), t - tm, np.cos(omega * t), np.sin(omega * t)], axis=1)
    coef, *_ = np.linalg.lstsq(X, y, rcond=None)
    p, q = float(coef[2]), float(coef[3])
    return {"amplitude": math.hypot(p, q), "phase": math.atan2(-q, p), "mean": float(coef[0]),
            "slope": float(coef[1]), "residual": float(np.sqrt(np.mean((y - X @ coef) ** 2)))}


def wrap_deg(x: float) -> float:
    """An angle in deg wrapped into (−180, 180]."""
    r = math.fmod(x + 180.0, 360.0)
    r = r + 360.0 if r <= 0.0 else r
    return r - 180.0


def upcrossing_heights(y) -> np.ndarray:
    """The double amplitudes (crest − trough) between successive zero upcrossings of ``y`` − its mean."""
    y = np.asarray(y, float) - float(np.mean(y))
    up = np.flatnonzero((y[:-1] < 0.0) & (y[1:] >= 0.0))
    return np.array([float(y[a:b + 1].max() - y[a:b + 1].min()) for a, b in zip(up[:-1], up[1:])])


def statistics(y) -> dict:
    """Motion statistics of a record ``y`` (any unit): {mean, rms (about the mean = sigma), significant
    (2 sigma: half of 4 sigma), h13_half (the record's H1/3 / 2, None under three upcrossing waves),
    max (largest |y − mean|), waves (upcrossing waves counted)}."""
    y = np.asarray(y, float)
    m = float(np.mean(y))
    sigma = float(np.sqrt(np.mean((y - m) ** 2)))
    h = np.sort(upcrossing_heights(y))[::-1]
    n3 = len(h) // 3
    return {"mean": m, "rms": sigma, "significant": 2 * sigma,
            "h13_half": float(np.mean(h[:n3])) / 2 if n3 >= 1 else None,
            "max": float(np.max(np.abs(y - m))), "waves": int(len(h))}


def _rows_of_quat(q):
    from aurgen.analysis.timedomain import _rows_of_quat as rows

    return rows(np.atleast_2d(np.asarray(q, float)))


# --------------------------------------------------------------------------- the runs


def start(vehicle, body, eq, depth: float):
    """(base_link origin (3,) m, rotation (3, 3), submerged?): the report's equilibrium, or for a vehicle
    with no floating equilibrium (a UUV) ``depth`` m down at its hanging attitude."""
    from aurgen.analysis import payload as pl
    from aurgen.analysis import stability as st
    from aurgen.core import spatial

    if eq is not None:
        return np.asarray(eq.pos, float), np.asarray(eq.mat, float), False
    heel, trim = pl.submerged_attitude(body.com, st.full_volume(body)[1])
    return np.array([0.0, 0.0, -float(depth)]), spatial.rot_rpy((heel, trim, 0.0)), True


def simulate(xml: str, env: dict, pos, R, duration: float, sample: float, timestep: float | None = None):
    """Run ``xml`` in ``env`` from rest at (``pos``, ``R``) for ``duration`` s, sampling every ``sample`` s
    (rounded to whole steps): (t, CoM (n, 3) m, roll rad, pitch rad, health text). The root body's free
    joint takes the pose; ``timestep`` (s) replaces the model's own (None: kept)."""
    from aurgen.core import spatial
    from aurgen.runtime.sim import Simulation

    sim = Simulation(xml, environment=env)
    try:
        m, d = sim.model, sim.data
        if timestep is not None:
            m.opt.timestep = float(timestep)
        root = int(m.jnt_bodyid[0])
        d.qpos[:3] = pos
        d.qpos[3:7] = spatial.quat_of(R)
        d.qvel[:] = 0.0
        sim.forward()
        dt = float(m.opt.timestep)
        every = max(1, int(round(sample / dt)))
        n = int(math.ceil(duration / (every * dt) - 1e-9))
        t = np.empty(n + 1)
        com = np.empty((n + 1, 3))
        quat = np.empty((n + 1, 4))
        for j in range(n + 1):
            if j:
                sim.step(every)
            t[j], com[j], quat[j] = d.time, d.subtree_com[root], d.qpos[3:7]
        health = str(sim.check())
    finally:
        sim.close()
    _, _, R20, R21, R22 = _rows_of_quat(quat)
    return t, com, np.arctan2(R21, R22), np.arcsin(np.clip(-R20, -1.0, 1.0)), health


def regular_run(xml: str, rho: float, pos, R, wave: dict, heading: float, settings: dict) -> dict:
    """One regular-wave run and its fitted motions (module doc): {heave, roll, pitch: fit dicts with
    ``rao`` and ``phase_deg``}, the mean position, the health; the record's tail kept for the figure."""
    T, a, k = wave["T"], wave["a"], wave["k"]
    ramp = settings["ramp_cycles"] * T
    waves = {"surface": 0, "ramp": ramp, "components": [regular_component(wave, heading)]}
    total = (settings["ramp_cycles"] + settings["settle_cycles"] + settings["fit_cycles"]) * T
    t, com, roll, pitch, health = simulate(xml, environment(rho, waves), pos, R, total,
                                           T / settings["samples_per_period"], settings["timestep"])
    w = t >= t[-1] - settings["fit_cycles"] * T - 1e-9
    kx, ky = waves["components"][0][2:4]
    xm, ym = float(com[w, 0].mean()), float(com[w, 1].mean())
    phase_eta = -(kx * xm + ky * ym)  # eta = a cos(k.x - wt) = a cos(wt + phase_eta) at the mean position
    out = {"wave": wave, "heading": heading, "health": health, "mean_xy": (xm, ym),
           "drift": float(math.hypot(com[-1, 0] - com[0, 0], com[-1, 1] - com[0, 1])),
           "depth_com": -float(com[w, 2].mean())}
    for name, y, scale in (("heave", com[:, 2], a), ("roll", roll, k * a), ("pitch", pitch, k * a)):
        f = fit_harmonic(t[w], y[w], wave["omega"])
        f["rao"] = f["amplitude"] / scale
        f["phase_deg"] = wrap_deg(math.degrees(f["phase"] - phase_eta))
        out[name] = f
    return out


def irregular_sea(settings: dict, heading: float):
    """(the environment's ``waves`` block, its Sea, a description) of the irregular sea: the declared
    spectrum travelling toward ``heading`` deg, or ``sea.world``'s sea as that world declares it."""
    from aurgen.runtime.environment import waves as wv

    if settings.get("sea.world"):
        from aurgen.config.vehicle import resolve_config_path
        from aurgen.config.world import load_world

        path = resolve_config_path(settings["sea.world"], "worlds")
        world = load_world(path)
        if world.waves is None:
            raise _bad("sea.world", f"{path.name} declares no sea (no waves:)")
        sea = world.waves
        plane = world.planes[sea.surface]
        if not (np.allclose(plane.normal, [0, 0, 1]) and abs(plane.offset) < 1e-12):
            raise _bad("sea.world", f"{path.name}: its sea's surface is not the level plane z = 0")
        return sea.block(), sea, f"the sea of {path.name} (its own spectrum, seed and direction)"
    decl = wv.Declaration(spectrum=settings["sea.spectrum"], hs=settings["sea.hs"], tp=settings["sea.tp"],
                          gamma=settings["sea.gamma"] if settings["sea.spectrum"] == "jonswap" else 3.3,
                          components=int(settings["sea.components"]), seed=int(settings["sea.seed"]),
                          direction=heading, ramp=settings["sea.ramp"])
    try:
        sea = wv.synthesize(decl, (0.0, 0.0, 1.0), G, None)
    except wv.WavesInvalid as exc:
        raise _bad(f"sea.{exc.key}", exc.message) from None
    gamma = f", γ {settings['sea.gamma']:g}" if settings["sea.spectrum"] == "jonswap" else ""
    name = {"jonswap": "JONSWAP", "pierson_moskowitz": "Pierson–Moskowitz"}[settings["sea.spectrum"]]
    return sea.block(), sea, (f"{name} hs {settings['sea.hs']:g} m, "
                              f"tp {settings['sea.tp']:g} s{gamma}, {int(settings['sea.components'])} "
                              f"components, seed {int(settings['sea.seed'])}")


def irregular_run(xml: str, rho: float, pos, R, settings: dict, heading: float) -> dict:
    """The record in the irregular sea and its statistics (module doc); the ramp is left out."""
    from aurgen.runtime.environment import waves as wv

    block, sea, what = irregular_sea(settings, heading)
    ramp = float(sea.ramp)
    t, com, roll, pitch, health = simulate(xml, environment(rho, block), pos, R,
                                           ramp + settings["sea.duration"], SEA_SAMPLE, settings["timestep"])
    w = t >= ramp - 1e-9
    at = np.column_stack([com[:, 0], com[:, 1], np.zeros(len(t))])  # the CoM's horizontal position, each sample
    eta = wv.elevation(sea, at, t)
    if settings.get("sea.world"):  # the world's direction of travel (energy-weighted mean of the k vectors)
        c = np.asarray(sea.components, float)
        e = c[:, 0] ** 2 / np.maximum(np.hypot(c[:, 2], c[:, 3]), 1e-300)
        heading = wrap_deg(math.degrees(math.atan2(float(e @ c[:, 3]), float(e @ c[:, 2]))))
    stats = {"heave": statistics(com[w, 2]), "roll": statistics(roll[w]), "pitch": statistics(pitch[w]),
             "eta": statistics(eta[w])}
    return {"heading": heading, "sea": what, "world": bool(settings.get("sea.world")), "t": t, "heave": com[:, 2],
            "roll": roll, "pitch": pitch, "eta": eta, "ramp": ramp, "stats": stats, "health": health,
            "duration": float(settings["sea.duration"]),
            "hs_declared": None if settings.get("sea.world") else float(settings["sea.hs"])}


def run(vehicle, body, eq, settings: dict, progress=None) -> dict:
    """Every seakeeping run of the report: {regular: [run per (heading, period)], irregular: [run per
    heading], submerged, depth, settings, seconds}."""
    import time

    from aurgen.emit import build

    t0 = time.monotonic()
    xml = build.model_mjcf(vehicle)
    pos, R, submerged = start(vehicle, body, eq, settings["depth"])
    rho = float(body.rho)
    regular = []
    jobs = [(h, T) for h in settings["headings"] for T in settings["periods"]]
    sea_headings = [None] if settings.get("sea.world") else settings["sea.headings"]
    total = len(jobs) + len(sea_headings)
    for i, (h, T) in enumerate(jobs):
        r = regular_run(xml, rho, pos, R, wave_of(T, settings), heading_deg(h), settings)
        r["heading_name"] = heading_name(h)
        regular.append(r)
        if progress:
            progress(i + 1, total)
    t1 = time.monotonic()
    irregular = []
    for j, h in enumerate(sea_headings):
        r = irregular_run(xml, rho, pos, R, settings, 0.0 if h is None else heading_deg(h))
        r["heading_name"] = "the world's sea" if h is None else heading_name(h)
        irregular.append(r)
        if progress:
            progress(len(jobs) + j + 1, total)
    from aurgen.analysis.stability import full_volume

    return {"regular": regular, "irregular": irregular, "submerged": submerged, "depth": float(-pos[2]),
            "displaced": rho * float(full_volume(body)[0]),
            "settings": settings, "seconds": (t1 - t0, time.monotonic() - t1)}


def check_sea(settings: dict) -> None:
    """Refuse (SeakeepingInvalid) an irregular sea that cannot be made: one that breaks, a world without a
    sea or whose surface is not z = 0. Run before any work, so a bad setting writes nothing."""
    for h in ([None] if settings.get("sea.world") else settings["sea.headings"]):
        irregular_sea(settings, 0.0 if h is None else heading_deg(h))
