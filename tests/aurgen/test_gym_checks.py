"""aurgen.gym: what a step accepts, the health it reports, the settings it takes.

References are independent of the environments' code: the actuator names and ctrlranges
read from the compiled model, a twin environment stepped with the clipped action, a fault
injected by the test (a NaN velocity, which MuJoCo answers by resetting the state), and the
caps the module docstring states.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from test_gym import IDS, _have_gymnasium, _make

pytestmark = [pytest.mark.scale,
              pytest.mark.skipif(not _have_gymnasium(),
                                 reason="gymnasium is not installed (pip install '.[scale]')")]


def _vec(name, n, **kw):
    import gymnasium

    import aurgen.gym  # noqa: F401

    return gymnasium.make_vec(name, num_envs=n, vectorization_mode="vector_entry_point", **kw)


@pytest.mark.parametrize("name", IDS)
@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_action_refused_naming_the_actuator_and_nothing_stepped(name, bad):
    env = _make(name).unwrapped
    try:
        env.reset(seed=4)
        m = env.model
        i = m.nu - 1
        a = np.zeros(m.nu)
        a[i] = bad
        before = (env.data.qpos.tobytes(), env.data.qvel.tobytes(), float(env.data.time))
        with pytest.raises(ValueError, match=f"{m.actuator(i).name} \\(index {i}\\).*non-finite"):
            env.step(a)
        assert (env.data.qpos.tobytes(), env.data.qvel.tobytes(), float(env.data.time)) == before
        with pytest.raises(ValueError, match=f"shape \\({m.nu},\\)"):
            env.step(np.zeros(m.nu + 1))
        with pytest.raises(ValueError, match="shape"):
            env.step(np.zeros((1, m.nu)))
    finally:
        env.close()


@pytest.mark.parametrize("name", IDS)
def test_out_of_range_action_is_the_ctrlrange_edge(name):
    """A command beyond the ctrlrange steps bitwise as the range's edge (read from the model)."""
    envs = [_make(name).unwrapped, _make(name).unwrapped]
    try:
        lo, hi = envs[0].model.actuator_ctrlrange[:, 0], envs[0].model.actuator_ctrlrange[:, 1]
        far = np.where(np.arange(lo.size) % 2 == 0, 1e6, -1e6)
        edge = np.where(far > 0, hi, lo)
        out = []
        for env, a in zip(envs, (far, edge)):
            env.reset(seed=9)
            steps = [env.step(a) for _ in range(5)]
            out.append((np.array([s[0] for s in steps]).tobytes(), [s[1] for s in steps]))
        assert out[0] == out[1]
        # the reward's control cost is of the applied (clipped) command: finite, as for the edge
        assert all(math.isfinite(r) for r in out[0][1])
    finally:
        for env in envs:
            env.close()


@pytest.mark.parametrize("name", IDS)
def test_info_carries_the_health_and_an_invalid_world_terminates(name):
    env = _make(name).unwrapped
    try:
        _, info = env.reset(seed=1)
        assert (info["health"], info["health_reason"]) == ("ok", "")
        obs, r, term, trunc, info = env.step(np.zeros(env.model.nu))
        assert (info["health"], info["health_reason"], term) == ("ok", "", False)
        env.data.qvel[0] = math.nan  # a fault the step cannot have made: MuJoCo resets the state
        obs, r, term, trunc, info = env.step(np.zeros(env.model.nu))
        assert term and not trunc
        assert info["health"] == "invalid"
        assert "non-finite state" in info["health_reason"] and "qvel" in info["health_reason"]
        assert not env.health().ok
        _, info = env.reset(seed=1)  # a new run
        assert info["health"] == "ok" and env.step(np.zeros(env.model.nu))[4]["health"] == "ok"
    finally:
        env.close()


def test_vector_env_health_per_world_and_actions_checked():
    import mujoco

    name, n = "BlueBoatStationKeeping-v0", 3
    vec = _vec(name, n, threads=2)
    try:
        _, infos = vec.reset(seed=2)
        assert list(infos["health"]) == ["ok"] * n
        rows = vec.unwrapped._rows
        before = rows.copy()
        acts = np.zeros((n, 2))
        acts[2, 1] = math.nan
        with pytest.raises(ValueError, match=r"actions\[2\]: the command for motor_stbd"):
            vec.step(acts)
        with pytest.raises(ValueError, match=r"shape \(3, 2\)"):
            vec.step(np.zeros(2 * n))
        assert rows.tobytes() == before.tobytes()  # nothing stepped
        # world 1 given a NaN velocity in its batch row
        w = vec.unwrapped.envs[1]
        w.data.qvel[0] = math.nan
        mujoco.mj_getState(w.model, w.data, rows[1], mujoco.mjtState.mjSTATE_INTEGRATION)
        obs, rew, term, trunc, infos = vec.step(np.zeros((n, 2)))
        assert list(term) == [False, True, False] and not trunc.any()
        assert list(infos["health"]) == ["ok", "invalid", "ok"]
        assert "non-finite state" in infos["health_reason"][1] and infos["health_reason"][0] == ""
        obs, rew, term, trunc, infos = vec.step(np.zeros((n, 2)))  # world 1 autoreset
        assert list(infos["health"]) == ["ok"] * n and not term.any()
        with pytest.raises(ValueError, match="one seed per world"):
            vec.reset(seed=[1, 2])
    finally:
        vec.close()


@pytest.mark.parametrize("kw, key", [
    ({"num_envs": 10 ** 7}, "num_envs"),  # MuJoCo's fatal allocation error before the cap
    ({"num_envs": 4097}, "num_envs"),
    ({"num_envs": 0}, "num_envs"),
    ({"num_envs": 2.5}, "num_envs"),
    ({"num_envs": True}, "num_envs"),
    ({"num_envs": 2, "threads": 0}, "threads"),
    ({"num_envs": 2, "threads": 1000}, "threads"),
])
def test_vector_settings_refused(kw, key):
    n = kw.pop("num_envs")
    with pytest.raises(ValueError, match=f"^{key}: a whole number in"):
        _vec("BlueBoatWaypoint-v0", n, **kw)


def test_vector_at_the_cap_edge_is_taken():
    """A whole float is honoured as its int (the same worlds as the int)."""
    vec = _vec("BlueBoatStationKeeping-v0", 2.0)
    try:
        assert vec.num_envs == 2 and vec.reset(seed=0)[0].shape == (2, 11)
    finally:
        vec.close()


@pytest.mark.parametrize("name, kw, key", [
    ("BlueBoatStationKeeping-v0", {"frame_skip": 0}, "frame_skip"),
    ("BlueBoatStationKeeping-v0", {"frame_skip": 2.5}, "frame_skip"),
    ("BlueBoatStationKeeping-v0", {"frame_skip": 10 ** 6}, "frame_skip"),
    ("BlueBoatStationKeeping-v0", {"step_limit": 0}, "step_limit"),
    ("BlueBoatStationKeeping-v0", {"step_limit": math.nan}, "step_limit"),
    ("BlueBoatStationKeeping-v0", {"target_range": -1.0}, "target_range"),
    ("BlueBoatStationKeeping-v0", {"max_distance": math.inf}, "max_distance"),
    ("BlueBoatWaypoint-v0", {"n_waypoints": 0}, "n_waypoints"),
    ("BlueBoatWaypoint-v0", {"leg": (8.0, 3.0)}, "leg"),
    ("BlueBoatWaypoint-v0", {"leg": (0.0, 3.0)}, "leg"),
    ("BlueBoatWaypoint-v0", {"leg": 3.0}, "leg"),
    ("BlueBoatWaypoint-v0", {"reach_radius": 0.0}, "reach_radius"),
    ("BlueBoatWaypoint-v0", {"reach_bonus": math.nan}, "reach_bonus"),
    ("BlueROV2DepthHeading-v0", {"depth_range": (-1.0, 2.0)}, "depth_range"),
    ("BlueROV2DepthHeading-v0", {"depth_range": (-1.0, -4.0)}, "depth_range"),
    ("BlueROV2DepthHeading-v0", {"max_depth_error": -3.0}, "max_depth_error"),
])
def test_env_settings_refused_naming_the_key(name, kw, key):
    with pytest.raises(ValueError, match=f"^{key}"):
        _make(name, **kw)
