"""The bundled vehicles' published added mass: carried by the MJCF, left out of the SDF, and stable.

* The MJCF's ``aurgen:added_mass:base_link`` (read back from the file) is the 6x6 matrix of the
  config's ``{F}Dot{V}`` coefficients (read from the YAML, not from aurgen's loader); the SDF
  writes none of them into Gazebo's Hydrodynamics plugin and says why in a comment.
* In a world with the three bundled vehicles (the ROVs kicked in all six DOF at 3 m depth, the
  BlueBoat settling from 5 cm above its draft) the runtime's kinetic energy at the kick is
  1/2 sum m_i |v_i|^2 + 1/2 w^T I_i w over the bodies plus 1/2 nu^T M_A nu with the config's M_A
  (computed here from the model's inertials), and the run is stable for 1,000 s simulated under
  Euler, implicitfast, implicit and RK4 at the world's 2 ms step: finite state, health ok, the
  energy never above its start (only damping acts), the ROVs come to rest (quadratic damping:
  as 1/t) within 2 m of where they were kicked. One run per integrator carries all three
  vehicles (RK4, the slowest, about 50 s on one core; the others 15-30 s).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import mujoco
import numpy as np
import pytest
import yaml

from aurgen.cli import main
from aurgen.runtime.sim import Simulation

VEHICLES = Path(__file__).parents[2] / "vehicles"
NAMES = ("blueboat", "bluerov2", "bluerov2_heavy")
ROVS = {"bluerov2": (5.0, 0.0, -3.0), "bluerov2_heavy": (-5.0, 0.0, -3.0)}
KICK = np.array([0.5, -0.3, 0.4, 0.6, -0.5, 0.8])  # body-frame u, v, w (m/s), p, q, r (rad/s)
WORLD = """description: open water with the three bundled vehicles
timestep: 0.002
integrator: implicitfast
gravity: [0, 0, -9.81]
planes:
  surface: {normal: [0, 0, 1], offset: 0.0}
  seabed:  {normal: [0, 0, 1], offset: -30.0, size: [200, 200]}
cells:
  air:   {above: [surface], density: 1.225, viscosity: 1.81e-5, flow: [0, 0, 0]}
  water: {below: [surface], above: [seabed], density: 1025.0, viscosity: 1.08e-3, flow: [0, 0, 0]}
ground: seabed
vehicles:
  - {config: blueboat.yaml, name: blueboat, xyz: [0, 0, 0.05], rpy: [0, 0, 0]}
  - {config: bluerov2.yaml, name: bluerov2, xyz: [5, 0, -3], rpy: [0, 0, 0]}
  - {config: bluerov2_heavy.yaml, name: bluerov2_heavy, xyz: [-5, 0, -3], rpy: [0, 0, 0]}
"""


def _coast_bound(name, m, sub, ke, t=1000.0):
    """The farthest a ROV coasts in t under its declared quadratic terms (m) with kinetic energy ke (J) at
    the kick: its spin can turn into translation (the added mass couples them), so the speed along an
    axis is at most sqrt(2 ke / M) with M that axis' rigid and added mass; from there M dv/dt = -c v^2
    covers (M / c) ln(1 + c v0 t / M)."""
    h = yaml.safe_load((VEHICLES / f"{name}.yaml").read_text()).get("hydrodynamics") or {}
    rigid = float(sum(m.body_mass[c] for c in sub))
    out = 0.0
    for i, n in enumerate(("xUabsU", "yVabsV", "zWabsW")):
        M, c = rigid - declared(name)[i, i], -float(h[n])
        v0 = float(np.sqrt(2.0 * ke / M))
        out = max(out, M / c * np.log1p(c * v0 * t / M))
    return out


def declared(name):
    """The config's added-mass matrix (Fossen's sign), straight from the YAML."""
    h = yaml.safe_load((VEHICLES / f"{name}.yaml").read_text()).get("hydrodynamics") or {}
    A = np.zeros((6, 6))
    for k, v in h.items():
        mt = re.fullmatch(r"([xyzkmn])Dot([UVWPQR])", k)
        if mt:
            A["xyzkmn".index(mt[1]), "UVWPQR".index(mt[2])] = float(v)
    return A


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("am")
    (out / "am_water.yaml").write_text(WORLD)
    assert main(["build", *(f"{n}.yaml" for n in NAMES), "-o", str(out / "build")]) == 0
    assert main(["worlds", str(out / "am_water.yaml"), "-o", str(out / "build")]) == 0
    return out / "build"


def test_published_added_mass_is_declared():
    # the published figures (von Benzon et al. 2022, from Wu 2018; docs/sources.md), Fossen's sign
    published = np.diag([-6.36, -7.12, -18.68, -0.189, -0.135, -0.222])
    for n in ROVS:
        assert np.array_equal(declared(n), published), n
    assert not declared("blueboat").any()  # none is published for the BlueBoat


@pytest.mark.parametrize("name", NAMES)
def test_mjcf_carries_the_declared_added_mass_and_the_sdf_none(built, name):
    root = ET.parse(built / name / f"{name}.xml").getroot()
    nums = {e.get("name"): e.get("data") for e in root.iter("numeric")}
    A = declared(name)
    if A.any():
        data = np.array(nums["aurgen:added_mass:base_link"].split(), dtype=float)
        assert data.shape == (36,) and np.array_equal(data.reshape(6, 6), A)
        assert root.find(".//worldbody/body").get("simple") == "false"
    else:
        assert "aurgen:added_mass:base_link" not in nums
    sdf_text = (built / name / "model.sdf").read_text()
    sdf = ET.fromstring(sdf_text)
    hydro = [p for p in sdf.iter("plugin") if p.get("name") == "gz::sim::systems::Hydrodynamics"]
    assert len(hydro) == 1
    assert not [c.tag for c in hydro[0] if "Dot" in c.tag]
    if A.any():
        comment = re.search(r"<!-- added mass left out \(([^;]+);(.*?)-->", sdf_text, re.S)
        assert comment and sorted(comment[1].split(", ")) == sorted(
            f"{f}Dot{v}" for i, f in enumerate("xyzkmn") for j, v in enumerate("UVWPQR") if A[i, j])
        assert "diverges" in comment[2]
    else:
        assert "added mass left out" not in sdf_text


def _roots(m):
    """{vehicle: (free body id, its first dof, the body ids of its subtree)}."""
    out = {}
    for b in range(1, m.nbody):
        if m.body_parentid[b] == 0 and m.body_jntnum[b] and m.jnt_type[m.body_jntadr[b]] == 0:
            name = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, b).split("/")[0]
            sub = [c for c in range(1, m.nbody) if m.body_rootid[c] == b]
            out[name] = (b, int(m.jnt_dofadr[m.body_jntadr[b]]), sub)
    return out


def _kick(sim):
    m, d = sim.model, sim.data
    roots = _roots(m)
    for n in ROVS:
        b, a, _ = roots[n]
        R = d.xmat[b].reshape(3, 3)
        d.qvel[a:a + 3] = R @ KICK[:3]  # free joint: world-frame linear velocity of the body origin
        d.qvel[a + 3:a + 6] = KICK[3:]  # and body-frame angular velocity
    sim.forward()
    return roots


def _kinetic_reference(m, d, roots):
    """1/2 sum m |v|^2 + 1/2 w^T I w over each ROV's bodies, plus 1/2 nu^T M_A nu (config's M_A)."""
    ke = 0.0
    for n in ROVS:
        b, a, sub = roots[n]
        R = d.xmat[b].reshape(3, 3)
        v0, w = d.qvel[a:a + 3], R @ d.qvel[a + 3:a + 6]  # world frame
        for c in sub:
            vi = v0 + np.cross(w, d.xipos[c] - d.xpos[b])
            wi = d.ximat[c].reshape(3, 3).T @ w
            ke += 0.5 * m.body_mass[c] * vi @ vi + 0.5 * wi @ (m.body_inertia[c] * wi)
        nu = np.concatenate([R.T @ v0, R.T @ w])
        ke += 0.5 * nu @ (-declared(n)) @ nu
    return ke


def test_kinetic_energy_includes_the_declared_added_mass(built):
    with Simulation(built / "worlds" / "am_water.xml") as sim:
        roots = _kick(sim)
        ref = _kinetic_reference(sim.model, sim.data, roots)
        rigid = ref - sum(0.5 * KICK @ (-declared(n)) @ KICK for n in ROVS)
        assert ref - rigid > 3.0  # the added mass is a large share of it
        assert sim.kinetic_energy() == pytest.approx(ref, rel=1e-9)


@pytest.mark.parametrize("integrator", ["Euler", "implicitfast", "implicit", "RK4"])
def test_bundled_vehicles_with_added_mass_stable_for_1000_s(built, integrator):
    src = (built / "worlds" / "am_water.xml").read_text()
    path = built / "worlds" / f"am_water_{integrator}.xml"
    path.write_text(src.replace('integrator="implicitfast"', f'integrator="{integrator}"', 1))
    with Simulation(path) as sim:
        m, d = sim.model, sim.data
        assert m.opt.integrator == getattr(mujoco.mjtIntegrator, f"mjINT_{integrator.upper()}")
        roots = _kick(sim)
        E0 = sim.energy()
        ke0 = sim.kinetic_energy()  # every vehicle's, so a bound for each ROV's
        n = int(round(100.0 / m.opt.timestep))
        for k in range(10):  # 10 x 100 s
            sim.step(n)
            assert np.all(np.isfinite(d.qpos)) and np.all(np.isfinite(d.qvel)), (integrator, k)
            h = sim.check()
            assert h.ok, (integrator, d.time, h)
            assert sim.energy() <= E0 + 1e-6, (integrator, d.time)
        assert d.time == pytest.approx(1000.0)
        for name, spawn in ROVS.items():
            b, a, _ = roots[name]
            # quadratic damping alone decays as v = v0 / (1 + c v0 t / M) < M / (c t): the standard ROV's
            # heave, (11.5 + 18.68) kg / (73.2 kg/m x 1000 s) = 4e-4 m/s; the kick was 0.4
            assert np.abs(d.qvel[a:a + 6]).max() < 1e-3, (integrator, name)
            # and coasts no further across than quadratic damping alone lets it (the ROVs declare every degree
            # of freedom, so the drag model adds nothing); positively buoyant, it rises, at most to the surface
            moved = d.xpos[b] - spawn
            assert np.linalg.norm(moved[:2]) < _coast_bound(name, m, roots[name][2], ke0), (integrator, name)
            assert spawn[2] - 0.5 < d.xpos[b, 2] < 0.0, (integrator, name)
