"""Hand-written MJCF fixtures and environments for the runtime's physics tests."""

from __future__ import annotations

import json

G = 9.81


def water_env(rho=1000.0, air=1.225, g=G, flow=(0, 0, 0), mu=1e-3):
    cells = [{"name": "water", "signs": [-1], "density": rho, "viscosity": mu, "flow": list(flow)}]
    if air is not None:
        cells.insert(0, {"name": "air", "signs": [1], "density": air, "viscosity": 1.81e-5})
    return {"planes": [[0, 0, 1, 0]], "cells": cells, "gravity": {"type": "uniform", "g": [0, 0, -g]}}


def body(name, pos, mass, inertia, geoms, *, ipos=(0, 0, 0), euler=(0, 0, 0), simple=True, extra=""):
    fmt = lambda v: " ".join(repr(float(x)) for x in v)  # noqa: E731
    s = "" if simple else ' simple="false"'
    return (f'<body name="{name}" pos="{fmt(pos)}" euler="{fmt(euler)}"{s}><freejoint/>'
            f'<inertial pos="{fmt(ipos)}" mass="{float(mass)!r}" diaginertia="{fmt(inertia)}"/>'
            f"{geoms}{extra}</body>")


def geom(type_, size, pos=(0, 0, 0), mark=1, extra=""):
    fmt = lambda v: " ".join(repr(float(x)) for x in v)  # noqa: E731
    return (f'<geom type="{type_}" size="{fmt(size)}" pos="{fmt(pos)}" user="{mark}" '
            f'contype="0" conaffinity="0" {extra}/>')


def mjcf(bodies, *, env=None, timestep=0.002, integrator="Euler", gravity=(0, 0, -G)):
    custom = ""
    if env is not None:
        custom = f"<custom><text name=\"aurgen:environment\" data='{json.dumps(env)}'/></custom>"
    g = " ".join(repr(float(x)) for x in gravity)
    return (f'<mujoco><compiler angle="radian" inertiafromgeom="false"/>'
            f'<option timestep="{timestep}" integrator="{integrator}" gravity="{g}"/>'
            f"{custom}<worldbody>{bodies}</worldbody></mujoco>")


def heave(xml, energy, dt, T):
    """Step ``xml`` (one free body that only heaves) for ``T`` s of ``dt`` without drag or damping:
    (times, heights, ``energy(z, w)`` at each, health)."""
    import numpy as np

    from aurgen.runtime.sim import Simulation

    with Simulation(xml, drag=False, damping=False) as sim:
        d = sim.data
        ts, zs, es = [0.0], [d.qpos[2]], [energy(d.qpos[2], d.qvel[2])]
        for _ in range(int(round(T / dt))):
            sim.step(1)
            ts.append(d.time)
            zs.append(d.qpos[2])
            es.append(energy(d.qpos[2], d.qvel[2]))
        assert np.abs(d.qvel[[0, 1, 3, 4, 5]]).max() < 1e-9  # it only heaves
        return np.array(ts), np.array(zs), np.array(es), sim.check()
