"""drag= and damping= do what their names say (issue 27 item 6): drag the drag model (form,
Stokes and rotational drag), damping the surface damping and the declared hydrodynamic damping;
and a model that declares no hydrodynamic damping is noted once on stderr.

Oracles: the documented closed forms (docs/runtime.md "Drag (the model)", "Declared damping")
evaluated here for an upright box: surface damping -C_S rho A sqrt(|g| h) v_n (C_S = 0.3, A the
section area, h the box's height), form + Stokes drag -(3 pi mu d_eq + 1/2 rho C_D A_p |v|) f v,
and a declared linear damping D v.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from aurgen.runtime.sim import loading

from aurgen.runtime import plugin as hplugin
from aurgen.runtime import sim as simmod
from aurgen.runtime.sim import Simulation

from simfixtures import G, body, geom, mjcf, water_env

if not hplugin.library_path().exists():
    pytest.skip("the plugin library is not built", allow_module_level=True)

RHO, MU, A = 1000.0, 1e-3, 0.1  # water (vacuum above), the box's half-side
VOL = (2 * A) ** 3
MASS = RHO * VOL / 2  # floats half-submerged at z = 0


def _box(extra=""):
    b = body("b", (0, 0, 0), MASS, (MASS * (2 * A) ** 2 / 6,) * 3, geom("box", [A, A, A]))
    return mjcf(b).replace("<worldbody>", extra + "<worldbody>")


def _heave_force(vz, **switches):
    """The vertical force on the half-submerged box heaving at vz (m/s): m qacc_z (buoyancy
    balances weight at z = 0)."""
    with Simulation(_box(), environment=water_env(RHO, None, mu=MU), **switches) as sim:
        sim.data.qvel[2] = vz
        sim.forward()
        return MASS * sim.data.qacc[2]


def test_drag_off_keeps_the_surface_damping():
    v = 0.1
    surf = -0.3 * RHO * (2 * A) ** 2 * math.sqrt(G * 2 * A) * v
    assert _heave_force(v, drag=False) == pytest.approx(surf, rel=1e-9)
    assert _heave_force(v, drag=False, damping=False) == pytest.approx(0.0, abs=1e-9)


def test_damping_off_keeps_the_drag():
    v = 0.1
    deq = (6 * VOL / math.pi) ** (1 / 3)
    # f = 1/2 of the volume (Stokes), the whole bottom face wetted (form; docs/runtime.md)
    drag = -(3 * math.pi * MU * deq * 0.5 + 0.5 * RHO * 1.0 * 4 * A * A * abs(v)) * v
    assert _heave_force(v, damping=False) == pytest.approx(drag, rel=1e-9)
    surf = -0.3 * RHO * (2 * A) ** 2 * math.sqrt(G * 2 * A) * v
    assert _heave_force(v) == pytest.approx(drag + surf, rel=1e-9)


def _declared(D00):
    D = np.zeros(36)
    D[0] = D00
    data = " ".join(repr(float(x)) for x in D)
    return f'<custom><numeric name="aurgen:damping_linear:b" data="{data}"/></custom>'


def test_drag_off_keeps_the_declared_damping():
    """Deep under water (fraction 1), surging at 0.5 m/s: the declared D[0,0] v with drag off."""
    D00, u = -20.0, 0.5
    xml = _box(_declared(D00)).replace('pos="0.0 0.0 0.0" euler', 'pos="0.0 0.0 -3.0" euler', 1)
    for switches, expect in (({"drag": False}, D00 * u), ({"drag": False, "damping": False}, 0.0)):
        with Simulation(xml, environment=water_env(RHO, None, mu=MU), **switches) as sim:
            sim.data.qvel[0] = u
            sim.forward()
            assert MASS * sim.data.qacc[0] == pytest.approx(expect, rel=1e-9, abs=1e-9), switches


def test_a_model_with_no_declared_damping_is_noted_once(capsys, monkeypatch):
    monkeypatch.setattr(loading, "NOTED_UNDAMPED", set())
    env = water_env(RHO, None)
    with Simulation(_box(), environment=env):
        pass
    with Simulation(_box(), environment=env):
        pass
    err = capsys.readouterr().err
    assert err.count("declares no hydrodynamic damping") == 1, err
    monkeypatch.setattr(loading, "NOTED_UNDAMPED", set())
    with Simulation(_box(_declared(-20.0)), environment=env):
        pass
    assert "hydrodynamic damping" not in capsys.readouterr().err
