"""Contact health (issue 27 item 2): penetration depth against the warn and fail thresholds
(relative to the geom size), and energy gained at a contact, named with the body and the time.

Oracles: MuJoCo's own contact distances (``d.contact.dist``) read here after every step and
the cube's half-side from its mass (not the plugin's record), and the cube's mechanical
energy in closed form (a cube thrown out of the floor gains it; only drag and the contact act).
"""
from __future__ import annotations

import re

import numpy as np
import pytest

from aurgen.runtime.sim import health
from aurgen.runtime import plugin as hplugin
from aurgen.runtime.sim import Simulation

from simfixtures import G, body, geom, mjcf, water_env

if not hplugin.library_path().exists():
    pytest.skip("the plugin library is not built", allow_module_level=True)

RHO, DENS, FLOOR, DT = 1000.0, 2500.0, -10.0, 0.002


def _cube(mass, integrator="Euler", gap=0.0):
    """A cube of density 2500 (side s) with its bottom gap above a floor 10 m under water."""
    s = (mass / DENS) ** (1 / 3)
    g = geom("box", [s / 2] * 3).replace('contype="0" conaffinity="0" ', "")
    b = body("c", (0, 0, FLOOR + s / 2 + gap), mass, (mass * s * s / 6,) * 3, g)
    fl = f'<geom name="floor" type="plane" size="50 50 1" pos="0 0 {FLOOR}"/>'
    return mjcf(fl + b, env=water_env(RHO, 1.225), integrator=integrator, timestep=DT), s


def _push_run(mass, weights, integrator, n=500):
    """Push the resting cube down by `weights` times its weight (ramped on over 0.1 s, off at
    0.6 s); return (sim's health, [(time, depth)] of the deepest contact after each step)."""
    xml, s = _cube(mass, integrator)
    out = []
    with Simulation(xml) as sim:
        d = sim.data
        for i in range(n):
            d.xfrc_applied[1, 2] = -weights * mass * G * min(1.0, max(0.0, (i - 50) / 50)) * (i < 300)
            sim.step(1)
            depth = float(-d.contact.dist[:d.ncon].min()) if d.ncon else 0.0
            out.append((float(d.time), depth))
        return sim.check(), out, s


def _seconds(reason):
    return float(re.search(r"t = ([0-9.]+) s", reason).group(1))


@pytest.mark.parametrize("integrator", ["Euler", "implicitfast", "RK4"])
def test_a_body_pushed_into_the_floor_gets_the_penetration_verdict(integrator):
    """A 4 kg cube (5.8 cm half-side) pushed by 1000x its weight: 49 mm deep; invalid from the
    first step whose contact (MuJoCo's dist) is deeper than PEN_FAIL of the half-side, naming
    the body and that time."""
    h, trace, s = _push_run(4.0, 1000, integrator)
    assert not h.ok and h.reason.startswith("contact penetration"), h
    assert "'c'" in h.reason
    first = next((t, dep) for t, dep in trace if dep / (s / 2) >= health.PEN_FAIL)
    assert _seconds(h.reason) == pytest.approx(first[0], abs=1e-9)
    mm = float(re.search(r"([0-9.]+) mm into", h.reason).group(1))
    assert mm == pytest.approx(1e3 * first[1], rel=1e-3)
    size = float(re.search(r"geom size ([0-9.]+) mm", h.reason).group(1))
    assert size == pytest.approx(1e3 * s / 2, rel=1e-3)


def test_a_moderate_push_warns_and_stays_ok():
    """300x its weight: 15 mm, 25 % of the half-side (between warn and fail): ok, with a
    warning naming the body, the deepest depth MuJoCo reported and its time."""
    h, trace, s = _push_run(4.0, 300, "Euler")
    deepest = max(trace, key=lambda x: x[1])
    assert health.PEN_WARN < deepest[1] / (s / 2) < health.PEN_FAIL
    assert h.ok, h.reason
    assert h.warning is not None and "'c'" in h.warning and "warning" in str(h)
    assert _seconds(h.warning) == pytest.approx(deepest[0], abs=1e-9)
    mm = float(re.search(r"([0-9.]+) mm into", h.warning).group(1))
    assert mm == pytest.approx(1e3 * deepest[1], rel=1e-3)


@pytest.mark.parametrize("integrator", ["Euler", "implicit", "RK4"])
@pytest.mark.parametrize("mass", [0.004, 40.0, 4e5])
def test_a_body_resting_on_the_floor_stays_ok_with_no_warning(mass, integrator):
    h, trace, s = _push_run(mass, 0, integrator, n=1000)
    assert max(dep for _, dep in trace) / (s / 2) < health.PEN_WARN  # (MuJoCo says: shallow)
    assert h.ok and h.warning is None, h
    assert h.settled


def _energy(d, mass, s):
    v, w = d.qvel[:3], d.qvel[3:]
    return 0.5 * mass * float(v @ v) + 0.5 * mass * s * s / 6 * float(w @ w) + (mass - RHO * s ** 3) * G * d.qpos[2]


@pytest.mark.parametrize("integrator", ["Euler", "RK4"])
def test_a_body_placed_inside_the_floor_is_thrown_out_and_named(integrator):
    """A 40 kg cube started 2 cm (16 % of its half-side) inside the floor, at rest: the contact
    throws it out, its mechanical energy (closed form here) rises though only drag and the
    contact act: "energy gained at a contact" at the first step, naming the body."""
    mass = 40.0
    xml, s = _cube(mass, integrator, gap=-0.02)
    with Simulation(xml) as sim:
        E0 = _energy(sim.data, mass, s)
        sim.step(1)
        h = sim.check()
        assert not h.ok and h.reason.startswith("energy gained at a contact"), h
        assert "'c'" in h.reason and _seconds(h.reason) == pytest.approx(DT)
        sim.step(50)
        assert _energy(sim.data, mass, s) - E0 > 0.01 * sim.monitor.state[health.S_SCALE]


def test_a_dropped_body_that_bounces_gains_nothing_at_the_contact():
    """Dropped 5 cm: the contact compresses and gives back (positive work on the rebound), but
    never more than it took: ok, and the episode's work stays <= 0 (its largest sum is 0)."""
    xml, s = _cube(40.0, gap=0.05)
    with Simulation(xml) as sim:
        sim.step(1000)
        h = sim.check()
        assert h.ok, h.reason
        assert sim.monitor.plugin.contact[health.C_WORKMAX] == 0.0


def test_the_contact_state_is_validated_on_restore():
    import mujoco

    xml, _ = _cube(40.0)
    with Simulation(xml) as sim:
        m, d = sim.model, sim.data
        sim.step(10)
        L = sim.monitor.plugin.layout
        spec = mujoco.mjtState.mjSTATE_PLUGIN
        st = np.zeros(mujoco.mj_stateSize(m, spec))
        mujoco.mj_getState(m, d, st, spec)
        st[L["contact"] + health.C_BODY] = 1e9  # a body index past the model's
        mujoco.mj_setState(m, d, st, spec)
        h = health.health_of(m, d)
        assert not h.ok and "invalid plugin state" in h.reason and "penetration body" in h.reason, h
        mujoco.mj_step(m, d)
        h = health.health_of(m, d)
        assert not h.ok and "invalid plugin state" in h.reason and "penetration body" in h.reason, h
