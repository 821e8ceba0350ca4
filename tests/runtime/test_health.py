"""Health: ok, or invalid with a named reason; settled by the height range."""

import math
import os
import re

import numpy as np
import pytest

from aurgen.runtime.sim import Simulation

from simfixtures import body, geom, mjcf, water_env


def cube(dt, mass=0.04):
    s = (mass / 500.0) ** (1 / 3)
    return mjcf(body("c", (0, 0, s / 2 + 0.01), mass, (mass * s * s / 6,) * 3, geom("box", [s / 2] * 3)),
                timestep=dt)


def test_unstable_timestep_is_flagged_as_energy_gain():
    # buoyancy stiffness rho g A on 40 g: omega ~ 21 rad/s; dt = 0.12 s puts omega dt > 2
    with Simulation(cube(0.12), environment=water_env(1000.0, None)) as sim:
        for _ in range(200):
            sim.step()
            if not sim.check().ok:
                break
        h = sim.check()
        assert not h.ok
        assert "energy gained" in h.reason or "non-finite" in h.reason or "MuJoCo warning" in h.reason


def test_stable_run_is_ok_and_settles():
    with Simulation(cube(0.002), environment=water_env(1000.0, None)) as sim:
        assert not sim.check().settled
        sim.step(10000)
        h = sim.check()
        assert h.ok and h.settled and h.reason is None
        assert str(h) == "ok, settled"


def test_non_finite_state_is_named():
    with Simulation(cube(0.002), environment=water_env(1000.0, None)) as sim:
        sim.step(10)
        sim.data.qvel[2] = math.nan
        sim.step(2)
        h = sim.check()
        assert not h.ok
        assert "non-finite" in h.reason or "BADQVEL" in h.reason


def test_mujoco_warning_is_named_without_environment():
    xml = mjcf(body("c", (0, 0, 1), 1.0, (0.1, 0.1, 0.1), geom("box", [0.1] * 3)))
    with Simulation(xml) as sim:
        sim.data.qacc_warmstart[:] = 0
        sim.data.qvel[0] = np.inf
        sim.step(1)
        h = sim.check()
        assert not h.ok and ("MuJoCo warning" in h.reason or "non-finite" in h.reason)


# ---- MuJoCo's state resets and warnings (aurgen.runtime.sim.mjwarn): counted, never printed or logged

ENGINES = ("plugin", "callback")


def _resets(reason: str) -> int:
    return int(re.search(r"reset the state to the initial one (\d+) times?", reason).group(1))


@pytest.mark.parametrize("engine", ENGINES)
def test_central_gravity_centred_on_the_body_is_invalid_with_every_reset_counted(engine, tmp_path, monkeypatch,
                                                                                capfd):
    """g = -mu r / |r|^3 a millimetre from the centre of an Earth-mass field is ~4e20 m/s^2, beyond
    MuJoCo's bound on qacc (1e10): every step starts from a state MuJoCo must reset, so the run never
    gets past its first step, and each of the n steps resets at least once."""
    monkeypatch.chdir(tmp_path)
    env = water_env(1000.0, None)
    env["gravity"] = {"type": "central", "mu": 3.986e14, "centre": [0.0, 0.0, -0.501]}
    xml = mjcf(body("b", (0, 0, -0.5), 1.0, (0.01,) * 3, geom("sphere", [0.1]), simple=False))
    n, dt = 100, 0.002
    with Simulation(xml, environment=env, engine=engine) as sim:
        sim.step(n)
        h = sim.check()
    assert not h.ok and not h.settled
    assert h.reason.startswith("non-finite state") and "MuJoCo reset the state" in h.reason, h.reason
    assert _resets(h.reason) >= n
    reached = float(re.search(r"simulated time reached ([0-9.]+) s", h.reason).group(1))
    assert reached <= dt + 1e-12  # never past the first step
    assert os.listdir(tmp_path) == []  # no MUJOCO_LOG.TXT
    out, err = capfd.readouterr()
    assert "WARNING" not in out + err and "unstable" not in out + err


@pytest.mark.parametrize("engine", ENGINES)
def test_repeated_resets_of_one_kind_are_each_counted(engine):
    """MuJoCo prints a warning kind only while its counter is 0, and a reset leaves it at 1: plain
    MuJoCo's counter says 1 after any number of same-kind resets; the runtime counts each one."""
    import mujoco

    k = 7
    with Simulation(cube(0.002), environment=water_env(1000.0, None), engine=engine) as sim:
        sim.step(10)
        for _ in range(k):
            sim.data.qfrc_applied[2] = math.nan  # MuJoCo zeroes it with the reset
            sim.step(1)
        h = sim.check()
        assert sim.data.warning[mujoco.mjtWarning.mjWARN_BADQACC].number <= 1  # what MuJoCo alone says
    assert not h.ok and _resets(h.reason) == k, h.reason
    assert "mjWARN_BADQACC 7" in h.reason and "t = 0.0200 s" in h.reason


@pytest.mark.parametrize("engine", ENGINES)
def test_a_nan_applied_force_is_a_non_finite_state_not_an_energy_gain(engine):
    with Simulation(cube(0.002), environment=water_env(1000.0, None), engine=engine) as sim:
        sim.step(50)
        sim.data.xfrc_applied[1, 2] = math.nan
        sim.step(50)
        h = sim.check()
    assert not h.ok and h.reason.startswith("non-finite state"), h.reason
    assert "energy" not in h.reason and _resets(h.reason) == 1
    assert "at t = 0.1000 s" in h.reason  # the step the force was applied in


def test_a_warning_outside_any_simulation_goes_to_stderr_not_a_file(tmp_path, monkeypatch, capfd):
    import mujoco

    from aurgen.runtime.sim import mjwarn

    mjwarn.install()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(mjwarn._local, "tally", None, raising=False)
    m = mujoco.MjModel.from_xml_string("<mujoco><worldbody><body><freejoint/><geom size='0.1'/></body>"
                                       "</worldbody></mujoco>")
    d = mujoco.MjData(m)
    d.qvel[0] = math.inf
    mujoco.mj_step(m, d)
    assert os.listdir(tmp_path) == []
    assert "MuJoCo warning: Nan, Inf or huge value in QVEL" in capfd.readouterr().err


def test_a_closed_simulation_hears_no_more_warnings(capfd):
    import mujoco

    with Simulation(cube(0.002), environment=water_env(1000.0, None)) as sim:
        sim.step(1)
    m = mujoco.MjModel.from_xml_string("<mujoco><worldbody><body><freejoint/><geom size='0.1'/></body>"
                                       "</worldbody></mujoco>")
    d = mujoco.MjData(m)
    d.qvel[0] = math.inf
    mujoco.mj_step(m, d)
    assert sim.monitor.tally.resets == 0
    assert "MuJoCo warning: Nan, Inf or huge value in QVEL" in capfd.readouterr().err
