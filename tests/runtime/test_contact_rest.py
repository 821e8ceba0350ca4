"""Penetration judged by MuJoCo's soft-contact model: a body resting under its weight is ok however
small the geom that carries it, an ROV landing on the seabed is ok throughout, and a body driven
through the floor is still invalid with the reason.

Oracles, none of them the plugin's record: MuJoCo's own contact distance (``d.contact.dist``) of a
sphere resting on one contact in air (its depth is the rest depth under its weight, by MuJoCo's
steady state), the feet's radius against that depth (the old rule's threshold, checked here as the
premise), and the vehicle's own build from its config (bluerov2.yaml with another net buoyancy).
"""
from __future__ import annotations

import re

import numpy as np
import pytest

from aurgen.cli import main
from aurgen.runtime import plugin as hplugin
from aurgen.runtime.sim import Simulation, health

from simfixtures import body, geom, mjcf, water_env

if not hplugin.library_path().exists():
    pytest.skip("the plugin library is not built", allow_module_level=True)

AIR = 1.225


def _settle(xml, n):
    sim = Simulation(xml)
    sim.step(n)
    return sim


def test_the_rest_depth_is_where_mujoco_rests_a_body_on_one_contact():
    """A 5 kg sphere on the floor, in air (buoyancy 5e-4 of its weight): MuJoCo settles it at some depth;
    the plugin's rest depth for that contact (R W / K, the whole weight on one contact) is that depth."""
    r, mass = 0.05, 5.0
    g = geom("sphere", [r]).replace('contype="0" conaffinity="0" ', "")
    b = body("s", (0, 0, r - 1e-4), mass, (0.4 * mass * r * r,) * 3, g)
    fl = '<geom name="floor" type="plane" size="5 5 1" pos="0 0 0"/>'
    with _settle(mjcf(fl + b, env=water_env(AIR, AIR), timestep=0.002), 2000) as sim:
        d = sim.data
        assert d.ncon == 1
        depth = float(-d.contact.dist[0])
        h = sim.check()
        assert h.ok and h.warning is None, h
        cs = sim.monitor.plugin.contact
        assert cs[health.C_REST] == pytest.approx(depth / (1 - AIR * 4 / 3 * np.pi * r ** 3 / mass), rel=2e-3)
        assert 5e-5 < depth < 1e-3  # MuJoCo's default solref/solimp: a fraction of a millimetre


@pytest.mark.parametrize("integrator", ["Euler", "implicitfast", "RK4"])
def test_a_heavy_body_on_small_feet_rests_ok(integrator):
    """A 20 kg plate on three feet of 2.5 mm radius, solref 0.1 (a softer contact, as a user may set):
    MuJoCo rests it more than half-way through each foot's radius (the old rule, relative to the smallest
    geom, called that invalid); by its soft contact's rest depth it is a body resting: ok, no warning."""
    mass, rf = 20.0, 0.0025
    feet = "".join(f'<geom type="sphere" size="{rf}" pos="{x} {y} -0.02" solref="0.1 1"/>'
                   for x, y in ((0.2, 0), (-0.1, 0.17), (-0.1, -0.17)))
    plate = geom("box", [0.25, 0.25, 0.02])
    b = body("p", (0, 0, 0.02 + rf), mass, (0.4, 0.4, 0.8), plate + feet)
    fl = '<geom name="floor" type="plane" size="5 5 1" pos="0 0 0" solref="0.1 1"/>'
    with _settle(mjcf(fl + b, env=water_env(AIR, AIR), integrator=integrator, timestep=0.002), 3000) as sim:
        d = sim.data
        depths = -d.contact.dist[:d.ncon]
        assert d.ncon == 3 and depths.min() > 0.5 * rf, depths  # the premise: past the old 50 % line
        h = sim.check()
        assert h.ok and h.warning is None, h
        assert np.abs(d.qvel).max() < 1e-3


@pytest.fixture(scope="module")
def seabed(tmp_path_factory):
    """A 6 m deep sea over a seabed, built by aurgen from its world config, the stock (neutral) BlueROV2
    0.5 m above the seabed."""
    work = tmp_path_factory.mktemp("seabed")
    (work / "bed.yaml").write_text("""description: a seabed 6 m down
timestep: 0.002
integrator: implicitfast
gravity: [0, 0, -9.81]
planes:
  surface: {normal: [0, 0, 1], offset: 0.0}
  seabed: {normal: [0, 0, 1], offset: -6.0, size: [20, 20]}
cells:
  air: {above: [surface], density: 1.225, viscosity: 1.81e-5, flow: [0, 0, 0]}
  water: {below: [surface], above: [seabed], density: 1025.0, viscosity: 1.08e-3, flow: [0, 0, 0]}
ground: seabed
vehicles:
  - {config: bluerov2.yaml, name: bluerov2, xyz: [0, 0, -5.5], rpy: [0, 0, 0]}
""")
    assert main(["worlds", str(work / "bed.yaml"), "-o", str(work / "build")]) == 0
    return work / "build" / "worlds" / "bed.xml"


def _heavier(sim, kg):
    """The ROV ``kg`` heavier (lead at its base link's centre of mass): net buoyancy -kg (the stock one is
    neutral; a config cannot declare -20 kg, which exceeds the vehicle's own mass)."""
    b = sim.model.body("bluerov2/base_link").id
    sim.model.body_mass[b] += kg
    sim.reset()
    return b


@pytest.mark.parametrize("net", [-2, -5, -20])
def test_a_sinking_rov_lands_on_the_seabed_and_rests_ok(seabed, net):
    """10,000 steps (20 s): it sinks, lands and rests on the seabed, and its health is ok throughout (read
    every 100 steps), with no penetration warning once resting."""
    with Simulation(str(seabed)) as sim:
        _heavier(sim, -net)
        d = sim.data
        for _ in range(100):
            sim.step(100)
            h = sim.check()
            assert h.ok, (d.time, h.reason)
        assert d.ncon > 0, "it landed"
        assert h.warning is None, h.warning
        assert np.abs(d.qvel[:6]).max() < 0.01, "it rests"


def test_a_rov_pushed_into_the_seabed_is_still_invalid_with_the_reason(seabed):
    """The ROV at net -5 kg, at rest, pushed down by 1000 x its weight: driven through the floor, invalid,
    named with the body, its depth and how far past its rest depth."""
    with Simulation(str(seabed)) as sim:
        m, d = sim.model, sim.data
        b = _heavier(sim, 5.0)
        sim.step(5000)
        assert sim.check().ok
        W = float(m.body_subtreemass[b]) * 9.81
        for i in range(500):
            d.xfrc_applied[b, 2] = -1000 * W * min(1.0, i / 100)
            sim.step(1)
        h = sim.check()
        assert not h.ok and h.reason.startswith("contact penetration: body 'bluerov2/"), h.reason
        depth = float(re.search(r"([0-9.]+) mm into", h.reason).group(1))
        rest = float(re.search(r"the ([0-9.e+-]+) mm its soft contact rests at", h.reason).group(1))
        assert depth > 10 * rest, h.reason
