"""Generated vehicles in a generated world (aurgen build + aurgen worlds in a tmp dir).

The BlueBoat's floating attitude is checked against the specs comment when it
carries a draft row, and always against a first-principles solution: its
displacement geoms are upright boxes, and a box cut by a plane crossing its
four vertical edges is a prism of linearly varying height, whose volume and
moments are closed forms; the equilibrium (weight = buoyancy incl. air, the
buoyancy line through the centre of mass) is solved with scipy.
"""

import math
import re

import mujoco
import numpy as np
import pytest
from scipy.optimize import fsolve

from aurgen.cli import main
from aurgen.runtime.sim import Simulation


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    out = tmp_path_factory.mktemp("build")
    assert main(["build", "blueboat.yaml", "bluerov2.yaml", "-o", str(out)]) == 0
    assert main(["worlds", "open_water", "-o", str(out)]) == 0
    return out


def specs_rows(path):
    text = open(path).read()
    return dict(re.findall(r"^  (?P<label>[^:]+): +(?P<value>.+)$", text.split("-->", 2)[1], re.M))


def prism_reference(path, rho=1025.0, rho_air=1.225, g=9.81):
    """Equilibrium (draft at the root origin, heel, trim) of the boat's box displacement."""
    m = mujoco.MjModel.from_xml_path(str(path))
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    mass = float(m.body_subtreemass[1])
    G = d.subtree_com[1] - d.xpos[1]  # root frame = world at qpos0 (identity attitude, at origin?)
    G = d.xmat[1].reshape(3, 3).T @ G
    boxes = [(m.geom_size[i].copy(), (d.xmat[1].reshape(3, 3).T @ (d.geom_xpos[i] - d.xpos[1])))
             for i in range(m.ngeom) if m.geom_user[i, 0] == 1]
    Vtot = sum(8 * s[0] * s[1] * s[2] for s, _ in boxes)
    Mtot = sum(8 * s[0] * s[1] * s[2] * c for s, c in boxes)

    def sub(z, phi, th):
        # world point = Rot(phi about x, th about y) body + (0, 0, z); surface world z = 0
        R = (np.array([[math.cos(th), 0, math.sin(th)], [0, 1, 0], [-math.sin(th), 0, math.cos(th)]])
             @ np.array([[1, 0, 0], [0, math.cos(phi), -math.sin(phi)], [0, math.sin(phi), math.cos(phi)]]))
        up = R.T @ np.array([0, 0, 1.0])  # world up in body axes
        # surface in body frame: up . x = -z ; height of the water above a body point along body z
        V = 0.0
        M = np.zeros(3)
        for s, c in boxes:
            a, b, h = s
            zb = c[2] - h  # bottom of the box (body z)
            # water depth along body z at (x, y): surface z_s(x, y) from up.(x, y, z_s) = -z
            def zs(x, y):
                return (-z - up[0] * x - up[1] * y) / up[2]
            h0 = zs(c[0], c[1]) - zb
            gx = -up[0] / up[2]
            gy = -up[1] / up[2]
            assert 0 < h0 - abs(gx) * a - abs(gy) * b and h0 + abs(gx) * a + abs(gy) * b < 2 * h
            A = 4 * a * b
            V += A * h0
            M += np.array([c[0] * A * h0 + gx * A * a * a / 3, c[1] * A * h0 + gy * A * b * b / 3,
                           zb * A * h0 + A * (h0 * h0 + gx * gx * a * a / 3 + gy * gy * b * b / 3) / 2])
        return V, M, up

    def eqs(x):
        z, phi, th = x
        V, M, up = sub(z, phi, th)
        Fb = rho * V + rho_air * (Vtot - V)
        B = (rho * M + rho_air * (Mtot - M)) / Fb  # centre of the buoyant force, body frame
        r = np.cross(B - G, up)
        return [Fb - mass, r[0], r[1]]

    z, phi, th = fsolve(eqs, [-0.01, 0.0, 0.0], xtol=1e-14)
    return -z, phi, th  # draft of the root origin (positive below), roll, pitch


def test_blueboat_dropped_5cm_settles_to_its_draft(world):
    ref_draft, ref_heel, ref_trim = prism_reference(world / "blueboat" / "blueboat.xml")
    rows = specs_rows(world / "blueboat" / "blueboat.xml")
    with Simulation(str(world / "worlds" / "open_water.xml")) as sim:
        b = sim.model.body("blueboat/base_link").id
        assert abs(sim.data.xpos[b, 2] - 0.05) < 1e-12  # spawned 5 cm up
        sim.step(5000)
        h = sim.check()
        assert h.ok and h.settled, h
        s = sim.body_state(b)
    assert s["draft"] == pytest.approx(ref_draft, abs=1e-3)
    assert math.degrees(abs(s["roll"] - ref_heel)) < 0.1
    assert math.degrees(abs(s["pitch"] - ref_trim)) < 0.1
    if "draft" in rows and not rows["draft"].startswith("none"):
        assert s["draft"] == pytest.approx(float(rows["draft"].split()[0]), abs=1e-3)
        assert abs(math.degrees(s["roll"]) - float(rows["heel"].split()[0])) < 0.1
        assert abs(math.degrees(s["pitch"]) - float(rows["trim"].split()[0])) < 0.1


def test_blueboat_pushed_1m_under_resurfaces_within_6s(world):
    with Simulation(str(world / "worlds" / "open_water.xml")) as sim:
        b = sim.model.body("blueboat/base_link").id
        j = sim.model.body_jntadr[b]
        sim.data.qpos[sim.model.jnt_qposadr[j] + 2] = -1.0
        sim.forward()
        t_up = None
        for k in range(300):
            sim.step(10)
            if sim.body_state(b)["draft"] < 0.03:
                t_up = sim.data.time
                break
        assert t_up is not None and t_up <= 6.0
        assert sim.check().ok


def test_blueboat_equal_thrust_goes_forward_straight(world):
    with Simulation(str(world / "worlds" / "open_water.xml")) as sim:
        m, d = sim.model, sim.data
        b = m.body("blueboat/base_link").id
        d.ctrl[m.actuator("blueboat/motor_port").id] = 20.0
        d.ctrl[m.actuator("blueboat/motor_stbd").id] = 20.0
        sim.step(5000)
        s = sim.body_state(b)
        assert s["position"][0] > 1.0
        assert abs(math.degrees(s["yaw"])) < 20.0
        assert sim.check().ok


def _rov(sim):
    return sim.model.body("bluerov2/base_link").id


def test_bluerov2_neutral_holds_depth(world):
    with Simulation(str(world / "worlds" / "open_water.xml")) as sim:
        b = _rov(sim)
        vz = []
        for _ in range(100):
            sim.step(50)
            vz.append(sim.body_state(b)["velocity"][2])
        assert max(abs(v) for v in vz) < 0.05
        assert abs(sim.data.xpos[b, 2] + 3.0) < 0.1
        assert sim.check().ok


def test_bluerov2_vertical_thrusters_move_it(world):
    with Simulation(str(world / "worlds" / "open_water.xml")) as sim:
        m, d = sim.model, sim.data
        b = _rov(sim)
        for name in ("bluerov2/thruster_5", "bluerov2/thruster_6"):
            d.ctrl[m.actuator(name).id] = -20.0
        sim.step(2500)
        assert np.linalg.norm(sim.body_state(b)["velocity"]) > 0.1
        assert sim.check().ok


def test_bluerov2_with_positive_net_buoyancy_rises(world):
    with Simulation(str(world / "worlds" / "open_water.xml")) as sim:
        b = _rov(sim)
        sim.model.body_mass[b] -= 0.5  # 0.5 kg lighter than the water it displaces
        sim.reset()
        z0 = sim.data.xpos[b, 2]
        sim.step(2500)
        assert sim.data.xpos[b, 2] > z0 + 0.1
        assert sim.body_state(b)["velocity"][2] > 0.0
        assert sim.check().ok
