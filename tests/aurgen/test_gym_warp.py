"""aurgen.gym.warp (BlueBoatStationKeeping on MuJoCo Warp) against the CPU environment.

The observation, reward and end kernel is checked against envs.py's ``_obs`` / ``_score`` on the same
states and targets (the one set of checks both backends answer to); a trajectory against the CPU
environment's from the same start under the same actions; the autoreset, the per-world domain
randomisation, determinism and the refusals. Warp runs on its CPU device here; skipped without
mujoco-warp (the gpu extra).
"""
import math

import numpy as np
import pytest

pytest.importorskip("gymnasium")
mjw = pytest.importorskip("mujoco_warp", reason="needs mujoco-warp and warp-lang (pip install 'aurgen[gpu]')")
wp = pytest.importorskip("warp", reason="needs warp-lang (pip install 'aurgen[gpu]')")

from aurgen.gym.envs import BlueBoatStationKeeping  # noqa: E402
from aurgen.gym.warp import WarpStationKeeping  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def cpu_device():
    wp.config.quiet = True
    wp.set_device("cpu")


@pytest.fixture(scope="module")
def cpu_env():
    env = BlueBoatStationKeeping()
    yield env
    env.close()


def _states(rng, n, nq, nv, qpos0):
    q = np.tile(qpos0, (n, 1))
    q[:, 0:2] = rng.uniform(-6, 6, (n, 2))
    q[:, 2] = rng.uniform(-0.05, 0.02, n)
    ax = rng.normal(size=(n, 3))
    ax /= np.linalg.norm(ax, axis=1, keepdims=True)
    ang = rng.uniform(0, 2.5, n)
    q[:, 3] = np.cos(ang / 2)
    q[:, 4:7] = ax * np.sin(ang / 2)[:, None]
    v = rng.normal(0, 0.5, (n, nv))
    return q.astype(np.float32).astype(float), v.astype(np.float32).astype(float)


def test_observation_reward_and_ends_are_the_cpu_environments(cpu_env):
    """At 64 random float32 states and targets (heeled past capsizing for some, far from the target
    for some) the kernel's observation, reward and terminated match envs.py's on the same state."""
    n = 64
    env = WarpStationKeeping(num_envs=n, max_distance=8.0)
    cpu_env.max_distance = 8.0
    rng = np.random.default_rng(5)
    m = cpu_env.model
    q, v = _states(rng, n, m.nq, m.nv, m.qpos0)
    tgt = np.zeros((n, 4))
    tgt[:, 0:2] = rng.uniform(-5, 5, (n, 2))
    tgt[:, 3] = rng.uniform(-math.pi, math.pi, n)
    a = rng.uniform(-40, 50, (n, m.nu))
    env.data.qpos.assign(q.astype(np.float32))
    env.data.qvel.assign(v.astype(np.float32))
    env.target.assign(tgt.astype(np.float32))
    env._applied.assign(a.astype(np.float32))
    env._observe(1)
    obs, rew, term = env.obs.numpy(), env.reward.numpy(), env.terminated.numpy()
    capsized = far = 0
    for i in range(n):
        cpu_env.data.qpos[:] = q[i]
        cpu_env.data.qvel[:] = v[i]
        cpu_env._target = tgt[i]
        o = cpu_env._obs()
        r, t, _ = cpu_env._score(o, a[i])
        d = o.copy()
        d[2] = (obs[i, 2] - o[2] + math.pi) % (2 * math.pi) - math.pi  # the heading error, wrapped
        assert np.abs(obs[i] - o)[[0, 1, 3, 4, 5, 6, 7, 8, 9, 10]].max() < 2e-5 * (1 + np.abs(o).max()), (i, obs[i], o)
        assert abs(d[2]) < 2e-5, (i, obs[i, 2], o[2])
        assert abs(rew[i] - r) < 2e-5 * (1 + abs(r)), (i, rew[i], r)
        assert bool(term[i]) == t, (i, term[i], t)
        capsized += cpu_env._capsized()
        far += math.hypot(o[0], o[1]) > 8.0
    assert capsized >= 3 and far >= 3, (capsized, far)  # both ends sampled


def test_a_trajectory_follows_the_cpu_environment(cpu_env):
    """From the CPU environment's reset (pose and target copied in), 100 steps of the same varying
    thrust: the observations stay within float32's drift of the float64 plugin run."""
    env = WarpStationKeeping(num_envs=1, max_distance=50.0)
    cpu_env.max_distance = 50.0
    o_cpu, _ = cpu_env.reset(seed=11)
    env.reset(seed=0)
    env.data.qpos.assign(cpu_env.data.qpos[None].astype(np.float32))
    env.data.qvel.assign(np.zeros((1, cpu_env.model.nv), np.float32))
    env.target.assign(cpu_env._target[None].astype(np.float32))
    worst = 0.0
    for k in range(100):
        a = np.array([30.0 * math.sin(0.1 * k), 25.0 + 20.0 * math.cos(0.07 * k)])
        o_cpu, r_cpu, *_ = cpu_env.step(a)
        o, r, *_ = env.step(a[None])
        worst = max(worst, float(np.abs(o.numpy()[0] - o_cpu).max()))
    print(f"worst observation gap over 100 steps: {worst:.3g}")
    assert worst < 2e-4, worst  # measured 1.0e-5


def test_ended_worlds_reset_on_the_next_step():
    """NEXT_STEP autoreset: a world that ends (here every world: max_distance below any target's
    distance) is reset by the next step, which returns its reset observation with reward 0."""
    env = WarpStationKeeping(num_envs=4, max_distance=1e-6, target_range=5.0)
    env.reset(seed=2)
    _, r, te, tr, _ = env.step(np.zeros((4, 2)))
    assert te.numpy().all() and not tr.numpy().any()
    o, r, te, tr, _ = env.step(np.full((4, 2), 40.0))
    o = o.numpy()
    assert not te.numpy().any() and np.all(r.numpy() == 0.0)
    assert np.all(o[:, 3:9] == 0.0)  # at rest: a fresh reset, not a world stepped under thrust
    assert np.all(env._steps.numpy() == 0)


def test_truncated_after_the_step_limit():
    env = WarpStationKeeping(num_envs=2, step_limit=3, max_distance=100.0)
    env.reset(seed=1)
    tr = [env.step(np.zeros((2, 2)))[3].numpy().copy() for _ in range(3)]
    assert not tr[0].any() and not tr[1].any() and tr[2].all()


def test_per_world_density_and_mass_set_each_worlds_draft():
    """Denser water floats a world higher, a heavier boat lower (50 idle steps: settled), in order."""
    n = 4
    env = WarpStationKeeping(num_envs=n, density=[990.0, 1010.0, 1030.0, 1050.0])
    env.reset(seed=0)
    for _ in range(50):
        env.step(np.zeros((n, 2)))
    z = env.data.qpos.numpy()[:, 2]
    assert np.all(np.diff(z) > 0), z
    env = WarpStationKeeping(num_envs=n, mass_scale=[0.9, 1.0, 1.1, 1.2])
    env.reset(seed=0)
    for _ in range(50):
        env.step(np.zeros((n, 2)))
    z = env.data.qpos.numpy()[:, 2]
    assert np.all(np.diff(z) < 0), z


def test_the_same_seed_replays_bitwise():
    runs = []
    for _ in range(2):
        env = WarpStationKeeping(num_envs=3)
        env.reset(seed=9)
        for k in range(20):
            o, *_ = env.step(np.full((3, 2), 10.0 + k))
        runs.append((o.numpy().copy(), env.target.numpy().copy()))
    assert np.array_equal(runs[0][0], runs[1][0]) and np.array_equal(runs[0][1], runs[1][1])
    env = WarpStationKeeping(num_envs=3)
    env.reset(seed=10)
    assert not np.array_equal(env.target.numpy(), runs[0][1])


def test_bad_settings_and_actions_are_refused():
    import gymnasium

    import aurgen.gym  # noqa: F401  (registers the ids)

    with pytest.raises(ValueError, match="num_envs"):
        WarpStationKeeping(num_envs=0)
    with pytest.raises(ValueError, match=r"density: expected shape \(2,\)"):
        WarpStationKeeping(num_envs=2, density=[1000.0, 1010.0, 1020.0])
    with pytest.raises(ValueError, match="mass_scale: every value must be finite and > 0"):
        WarpStationKeeping(num_envs=2, mass_scale=[1.0, -1.0])
    env = WarpStationKeeping(num_envs=2)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"actions: expected shape \(2, 2\)"):
        env.step(np.zeros((3, 2)))
    env.step(np.array([[np.nan, 0.0], [0.0, 0.0]]))
    with pytest.raises(ValueError, match="a non-finite command"):
        env.check_actions()
    with pytest.raises(ValueError, match="has no MuJoCo Warp version yet"):
        gymnasium.make_vec("BlueROV2DepthHeading-v0", num_envs=2, vectorization_mode="vector_entry_point",
                           backend="warp")
    with pytest.raises(ValueError, match="backend: expected 'batch'"):
        gymnasium.make_vec("BlueBoatStationKeeping-v0", num_envs=2, vectorization_mode="vector_entry_point",
                           backend="gpu")
    v = gymnasium.make_vec("BlueBoatStationKeeping-v0", num_envs=2, vectorization_mode="vector_entry_point",
                           backend="warp")
    assert isinstance(v, WarpStationKeeping)
