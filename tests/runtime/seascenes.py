"""Scenes for the wave validation tests (test_waves_*.py): a sea in the environment JSON, a held
body's first-harmonic wave force from plain MuJoCo with the aurgen.hydrostatics plugin.

Conventions (the plugin's, docs/formats.md "waves"): a component ``[a, omega, kx, ky, kz, phase]``
has elevation ``a cos(k.x - omega t + phase)``; complex amplitudes here are for ``e^{-i omega t}``
(``F(t) = Re(F_hat e^{-i omega t})``), capytaine's convention, so a unit wave of phase 0 has
``eta_hat(x) = e^{i k.x}``.
"""

from __future__ import annotations

import json
import math

import mujoco
import numpy as np

from aurgen.runtime import plugin as hplugin

G = 9.81
RHO = 1025.0
RHO_AIR = 1.225


def deep_k(omega, g=G):
    return omega * omega / g


def finite_k(omega, h, g=G):
    """omega^2 = g k tanh(k h), Newton from the deep-water guess (written here, not imported)."""
    k = max(omega * omega / g, omega / math.sqrt(g * h))
    for _ in range(60):
        f = g * k * math.tanh(k * h) - omega * omega
        df = g * math.tanh(k * h) + g * k * h / math.cosh(k * h) ** 2
        k -= f / df
    return k


def component(a, omega, k, direction=0.0, phase=0.0):
    """One regular component travelling toward ``direction`` (rad, from +x toward +y)."""
    return [a, omega, k * math.cos(direction), k * math.sin(direction), 0.0, phase]


def sea_env(components, *, depth=None, ramp=None, rho=RHO, air=RHO_AIR, g=G, mu=1e-3, fk=None):
    """The environment JSON (a dict) of open water carrying ``components``; ``fk``: waves.fk as declared
    (None: left out, the runtime's default)."""
    cells = [{"name": "water", "signs": [-1], "density": rho, "viscosity": mu}]
    if air is not None:
        cells.insert(0, {"name": "air", "signs": [1], "density": air, "viscosity": 1.81e-5})
    waves = {"surface": 0, "components": [list(map(float, c)) for c in components]}
    if depth is not None:
        waves["depth"] = float(depth)
    if ramp is not None:
        waves["ramp"] = float(ramp)
    if fk is not None:
        waves["fk"] = fk
    return {"planes": [[0, 0, 1, 0]], "cells": cells, "gravity": {"type": "uniform", "g": [0, 0, -g]},
            "waves": waves}


def plugin_decl(drag=False, damping=False):
    cfg = ""
    if not drag:
        cfg += '<config key="drag" value="false"/>'
    if not damping:
        cfg += '<config key="damping" value="false"/>'
    return (f'<extension><plugin plugin="{hplugin.NAME}"><instance name="hydrostatics">{cfg}'
            f"</instance></plugin></extension>")


def env_text(env):
    return json.dumps(env).replace('"', "&quot;")


def scene(bodies, env, *, drag=False, damping=False, timestep=0.002, integrator="RK4", head=""):
    """An MJCF of ``bodies`` (worldbody XML) in ``env`` with the plugin declared."""
    return (f'<mujoco><compiler angle="radian" inertiafromgeom="false"/><size nuser_geom="1"/>'
            f'<option timestep="{timestep}" integrator="{integrator}" gravity="0 0 {-G}"/>{head}'
            f'<custom><text name="aurgen:environment" data="{env_text(env)}"/></custom>'
            f"{plugin_decl(drag, damping)}<worldbody>{bodies}</worldbody></mujoco>")


def free_body(geoms, pos=(0, 0, 0), mass=1.0, inertia=(1, 1, 1)):
    f = lambda v: " ".join(repr(float(x)) for x in v)  # noqa: E731
    return (f'<body name="b" pos="{f(pos)}"><freejoint/>'
            f'<inertial pos="0 0 0" mass="{float(mass)!r}" diaginertia="{f(inertia)}"/>{geoms}</body>')


def gm(type_, size, pos=(0, 0, 0), quat=None):
    f = lambda v: " ".join(repr(float(x)) for x in v)  # noqa: E731
    q = f' quat="{f(quat)}"' if quat is not None else ""
    return (f'<geom type="{type_}" size="{f(size)}" pos="{f(pos)}"{q} user="1" '
            f'contype="0" conaffinity="0"/>')


def load():
    hplugin.load()


def held_harmonic(m, omega, n=48, qpos=None):
    """The held body's generalized passive force over one period: (mean (nv,), F_hat (nv,)).

    The state is held (qpos fixed, qvel zero) and d.time swept over a period; each sample is one
    mj_forward. ``F_hat`` is the first-harmonic complex amplitude for e^{-i omega t}.
    """
    d = mujoco.MjData(m)
    if qpos is not None:
        d.qpos[:] = qpos
    T = 2 * math.pi / omega
    ts = np.arange(n) * (T / n)
    F = np.empty((n, m.nv))
    for i, t in enumerate(ts):
        d.time = t
        d.qvel[:] = 0
        mujoco.mj_forward(m, d)
        F[i] = d.qfrc_passive
    c = np.exp(1j * omega * ts)
    return F.mean(axis=0), 2 * (F * c[:, None]).mean(axis=0)
