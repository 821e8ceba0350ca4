"""aurgen.gym: the Gymnasium environments (the scale extra).

References are independent of the environments' code: gymnasium's own env checker,
a second environment stepped with the same seed and actions, the hydrostatics
kernel's floating equilibrium as ``aurgen specs --json`` prints it, and the sign
of the body-frame displacement under equal forward thrust.
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout

import numpy as np
import pytest


def _have_gymnasium() -> bool:
    try:
        import gymnasium  # noqa: F401
    except ImportError:
        return False
    return True


pytestmark = [pytest.mark.scale,
              pytest.mark.skipif(not _have_gymnasium(),
                                 reason="gymnasium is not installed (pip install '.[scale]')")]

IDS = ["BlueBoatStationKeeping-v0", "BlueBoatWaypoint-v0", "BlueROV2DepthHeading-v0"]


def _make(name, **kw):
    import gymnasium

    import aurgen.gym  # noqa: F401  (registers the ids)

    return gymnasium.make(name, **kw)


@pytest.mark.parametrize("name", IDS)
def test_env_checker_passes(name):
    from gymnasium.utils.env_checker import check_env

    env = _make(name)
    try:
        check_env(env.unwrapped, skip_render_check=True)
        assert env.unwrapped.render_mode is None
        assert env.observation_space.dtype == np.float64 and env.action_space.dtype == np.float64
        m = env.unwrapped.model
        np.testing.assert_array_equal(env.action_space.low, m.actuator_ctrlrange[:, 0])
        np.testing.assert_array_equal(env.action_space.high, m.actuator_ctrlrange[:, 1])
    finally:
        env.close()


@pytest.mark.parametrize("name", IDS)
def test_same_seed_same_actions_bitwise_identical(name):
    envs = [_make(name), _make(name)]
    try:
        acts = np.random.default_rng(7).uniform(envs[0].action_space.low, envs[0].action_space.high,
                                                size=(200,) + envs[0].action_space.shape)
        runs = []
        for env in envs:
            obs, _ = env.reset(seed=123)
            traj, rew = [obs.copy()], []
            for a in acts:
                obs, r, term, trunc, _ = env.step(a)
                traj.append(obs.copy())
                rew.append(r)
                if term or trunc:
                    break
            runs.append((np.array(traj), np.array(rew)))
        assert runs[0][0].shape == runs[1][0].shape == (201, envs[0].observation_space.shape[0])
        assert runs[0][0].tobytes() == runs[1][0].tobytes()
        assert runs[0][1].tobytes() == runs[1][1].tobytes()
        # a different seed draws a different start or target
        o1, _ = envs[0].reset(seed=123)
        o2, _ = envs[1].reset(seed=124)
        assert not np.array_equal(o1, o2)
    finally:
        for env in envs:
            env.close()


def test_blueboat_settles_at_the_specs_draft():
    from aurgen.cli import main

    buf = io.StringIO()
    with redirect_stdout(buf):
        assert main(["specs", "blueboat.yaml", "--json"]) == 0
    draft = json.loads(buf.getvalue())["draft"]
    env = _make("BlueBoatStationKeeping-v0").unwrapped
    try:
        env.reset(seed=3)
        env.data.qpos[2] += 0.05  # dropped 5 cm from the equilibrium height
        zero = np.zeros(env.action_space.shape)
        for _ in range(500):  # 10 s
            env.step(zero)
        assert abs(env.data.qvel[2]) < 1e-6
        # the runtime's rest height against the kernel's equilibrium (box displacement),
        # the root link origin's depth below the surface; measured gap 1.6e-4 m
        assert -env.data.qpos[2] == pytest.approx(draft, abs=2.5e-4)
    finally:
        env.close()


def test_blueboat_equal_thrust_moves_it_forward():
    env = _make("BlueBoatStationKeeping-v0").unwrapped
    try:
        env.reset(seed=5)
        p0 = env.data.qpos[0:3].copy()
        R0 = env.data.xmat[1].reshape(3, 3).copy()
        for _ in range(100):  # 2 s at 20 N per motor
            obs, *_ = env.step(np.array([20.0, 20.0]))
        d = R0.T @ (env.data.qpos[0:3] - p0)  # displacement in the start's body frame
        assert d[0] > 0.5 and abs(d[1]) < 0.2 * d[0]
        assert obs[3] > 0.1  # surge velocity u, body frame
    finally:
        env.close()


def test_bluerov2_vertical_thrust_changes_depth():
    env = _make("BlueROV2DepthHeading-v0").unwrapped
    try:
        import mujoco

        env.reset(seed=2)
        z0 = float(env.data.qpos[2])
        zero = np.zeros(env.action_space.shape)
        for _ in range(50):
            env.step(zero)
        drift = float(env.data.qpos[2]) - z0
        env.reset(seed=2)
        names = [env.model.actuator(i).name for i in range(env.model.nu)]
        a = np.zeros(env.model.nu)
        # the vertical pair: the actuators whose unit command has a world-z force at rest
        mujoco.mj_forward(env.model, env.data)
        for i in range(env.model.nu):
            env.data.ctrl[:] = 0.0
            env.data.ctrl[i] = 1.0
            mujoco.mj_forward(env.model, env.data)
            a[i] = env.data.qfrc_actuator[2]
        env.reset(seed=2)
        vert = np.abs(a) > 0.5
        assert vert.sum() == 2, (names, a)
        act = np.where(vert, 20.0 * np.sign(a), 0.0)  # push up
        for _ in range(50):
            env.step(act)
        assert float(env.data.qpos[2]) - z0 > drift + 0.05
    finally:
        env.close()


@pytest.mark.parametrize("name", IDS)
def test_vector_env_bitwise_equals_single_envs(name):
    """MarineVectorEnv (mujoco.batch on 2 threads, NEXT_STEP autoreset) against single envs
    reset with seed + i and stepped with the same actions, through a truncation and its reset."""
    import gymnasium

    import aurgen.gym  # noqa: F401

    n, horizon = 3, 40
    vec = gymnasium.make_vec(name, num_envs=n, vectorization_mode="vector_entry_point", threads=2,
                             step_limit=horizon)
    singles = [_make(name, step_limit=horizon).unwrapped for _ in range(n)]
    try:
        assert vec.observation_space.shape == (n,) + vec.single_observation_space.shape
        obs, _ = vec.reset(seed=11)
        ref = np.stack([e.reset(seed=11 + i)[0] for i, e in enumerate(singles)])
        assert obs.tobytes() == ref.tobytes()
        rng = np.random.default_rng(3)
        lo, hi = vec.single_action_space.low, vec.single_action_space.high
        done = np.zeros(n, dtype=bool)
        resets = 0
        for _ in range(2 * horizon + 5):
            acts = rng.uniform(lo, hi, size=(n,) + lo.shape)
            obs, rew, term, trunc, _ = vec.step(acts)
            for i, e in enumerate(singles):
                if done[i]:
                    o, r, t, tr = *e.reset()[:1], 0.0, False, False
                    resets += 1
                else:
                    o, r, t, tr, _ = e.step(acts[i])
                assert o.tobytes() == obs[i].tobytes()
                assert (r, t, tr) == (rew[i], term[i], trunc[i])
                done[i] = t or tr
        assert resets >= n  # every world went through an autoreset
    finally:
        vec.close()
        for e in singles:
            e.close()


def test_waypoint_reward_is_the_distance_gained_and_a_reached_waypoint_advances():
    """The reward against distances measured from qpos and the course the env drew: the
    distance gained on the current waypoint less the control cost; inside the reach radius
    the bonus is paid and the next waypoint becomes the current one."""
    env = _make("BlueBoatWaypoint-v0").unwrapped
    try:
        env.reset(seed=5)
        wps = env._wps.copy()
        legs = np.linalg.norm(np.diff(np.vstack([[0.0, 0.0], wps]), axis=0), axis=1)
        assert wps.shape == (4, 2) and np.all((legs >= 3.0) & (legs <= 8.0))
        a = np.array([30.0, 30.0])
        d0 = float(np.hypot(*(wps[0] - env.data.qpos[:2])))
        obs, r, term, trunc, info = env.step(a)
        d1 = float(np.hypot(*(wps[0] - env.data.qpos[:2])))
        cost = 0.01 * float(np.sum((a / 51.4849125) ** 2))  # a_max: the T200 curve's 5.25 kgf
        assert r == pytest.approx((d0 - d1) - cost, abs=1e-12)
        assert info["waypoint"] == 0 and info["reached"] == 0 and not term
        # the observation's first two entries: the waypoint in the boat's yaw frame, same length
        assert float(np.hypot(obs[0], obs[1])) == pytest.approx(d1, abs=1e-12)
        # moved onto the first waypoint: the bonus, and the second one is current
        env.data.qpos[0:2] = wps[0]
        env.data.qvel[:] = 0.0
        obs, r, term, trunc, info = env.step(np.zeros(2))
        assert info["waypoint"] == 1 and info["reached"] == 1 and not term
        assert r > 9.0
        d = float(np.hypot(*(wps[1] - env.data.qpos[:2])))
        assert float(np.hypot(obs[0], obs[1])) == pytest.approx(d, abs=1e-12)
        # the last one: terminated
        env._k = 3
        env.data.qpos[0:2] = wps[3]
        env._last = 0.0
        obs, r, term, trunc, info = env.step(np.zeros(2))
        assert term and info["reached"] == 4
    finally:
        env.close()


def test_vector_reset_mask_resets_only_those_worlds():
    """reset(options={"reset_mask": m}) (as gymnasium's SyncVectorEnv): the masked worlds are the
    single environment reset with seed + i, the others keep their state and observation."""
    import gymnasium

    import aurgen.gym  # noqa: F401

    name = "BlueBoatWaypoint-v0"
    vec = gymnasium.make_vec(name, num_envs=3, vectorization_mode="vector_entry_point")
    single = _make(name).unwrapped
    try:
        vec.reset(seed=1)
        acts = np.full((3, 2), 20.0)
        for _ in range(5):
            before, *_ = vec.step(acts)
        mask = np.array([True, False, True])
        obs, _ = vec.reset(seed=30, options={"reset_mask": mask})
        assert obs[1].tobytes() == before[1].tobytes()
        for i in (0, 2):
            assert obs[i].tobytes() == single.reset(seed=30 + i)[0].tobytes()
        with pytest.raises(ValueError, match="reset_mask"):
            vec.reset(options={"reset_mask": np.ones(2, dtype=bool)})
    finally:
        vec.close()
        single.close()


def test_the_examples_byte_compile(tmp_path):
    """Every example and docs/train_sb3.py (the wrapper at the old path) compiles in the fast tier;
    tests/test_examples.py runs them in the slow one (stable-baselines3 from the examples extra)."""
    import py_compile
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    paths = sorted((root / "examples").glob("*.py")) + [root / "docs" / "train_sb3.py"]
    if not (root / "examples").is_dir():
        pytest.skip("examples/ is not beside the tests (an installed wheel)")
    assert (root / "examples" / "train_sb3.py") in paths
    for i, path in enumerate(paths):
        py_compile.compile(str(path), doraise=True, cfile=str(tmp_path / f"{i}.pyc"))
