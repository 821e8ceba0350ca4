"""aurgen.gym.warp and aurgen.gym.warp_waypoint (BlueBoatStationKeeping and BlueBoatWaypoint on MuJoCo
Warp) against the CPU environments.

Each task's observation, reward and end kernel is checked against envs.py's ``_obs`` / ``_score`` (the
waypoint's ``_transition``, its switch to the next waypoint and its end on the last) on the same states
(the expected values the CPU environment's own code computes: the one set of checks both backends answer
to); a trajectory against the CPU environment's from the same start under the same actions; the
autoreset, the reset's draws, the per-world domain randomisation, determinism and the refusals. Warp
runs on its CPU device here; skipped without mujoco-warp (the gpu extra).
"""
import math

import numpy as np
import pytest

pytest.importorskip("gymnasium")
mjw = pytest.importorskip("mujoco_warp", reason="needs mujoco-warp and warp-lang (pip install 'aurgen[gpu]')")
wp = pytest.importorskip("warp", reason="needs warp-lang (pip install 'aurgen[gpu]')")

from aurgen.gym.envs import BlueBoatStationKeeping, BlueBoatWaypoint  # noqa: E402
from aurgen.gym.warp import WarpStationKeeping  # noqa: E402
from aurgen.gym.warp_waypoint import WarpWaypoint  # noqa: E402


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


@pytest.mark.parametrize("cls", [WarpStationKeeping, WarpWaypoint])
def test_truncated_after_the_step_limit(cls):
    env = cls(num_envs=2, step_limit=3, max_distance=100.0)
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
    # a non-finite command is refused before anything steps (docs/guide/analysis.md: "nothing is stepped"), in the CPU
    # environments' words, from a host array and from a device array alike
    import warp as wp

    before = env.data.qpos.numpy().copy(), env.data.time.numpy().copy()
    for bad in (np.array([[0.0, 0.0], [0.0, np.nan]]), np.array([[0.0, 0.0], [0.0, -np.inf]])):
        for given in (bad, wp.array(bad.astype(np.float32), dtype=float, device=env.device)):
            with pytest.raises(ValueError, match=r"actions\[1\]: the command for .* \(index 1\) is (nan|-inf); "
                                                 r"a non-finite action is refused, never clipped"):
                env.step(given)
    assert np.array_equal(env.data.qpos.numpy(), before[0]) and np.array_equal(env.data.time.numpy(), before[1])
    env.check_actions()  # nothing reached the action kernel
    env.step(wp.array(np.zeros((2, 2), np.float32), dtype=float, device=env.device))
    assert np.all(env.data.time.numpy() > before[1])
    with pytest.raises(ValueError, match=r"BlueROV2DepthHeading cannot run on MuJoCo Warp: its vehicle "
                                         r"\(bluerov2.yaml\) carries added mass"):
        gymnasium.make_vec("BlueROV2DepthHeading-v0", num_envs=2, vectorization_mode="vector_entry_point",
                           backend="warp")
    from aurgen.runtime.mjwarp import MjWarpRefused

    with pytest.raises(MjWarpRefused, match="added mass must enter the mass matrix"):
        WarpWaypoint(num_envs=2, config="bluerov2.yaml")  # the runtime's refusal, for any added-mass vehicle
    with pytest.raises(ValueError, match="backend: expected 'batch'"):
        gymnasium.make_vec("BlueBoatStationKeeping-v0", num_envs=2, vectorization_mode="vector_entry_point",
                           backend="gpu")
    v = gymnasium.make_vec("BlueBoatStationKeeping-v0", num_envs=2, vectorization_mode="vector_entry_point",
                           backend="warp")
    assert isinstance(v, WarpStationKeeping)


# ---------------------------------------------------------------- BlueBoatWaypoint-v0


def _cpu_waypoint(n_waypoints, max_distance):
    env = BlueBoatWaypoint(n_waypoints=n_waypoints, max_distance=max_distance)
    env.reset(seed=0)
    return env


def test_waypoint_kernels_are_the_cpu_environments():
    """At 64 random float32 states, courses and current waypoints, the kernel's observation, reward,
    terminated and the waypoint it moves to match envs.py BlueBoatWaypoint._transition's (its own code, on
    the same state): a quarter of the worlds within reach of a waypoint before the last (the switch, the
    bonus), a quarter within reach of the last (the end), some capsized, some too far."""
    n, nw = 64, 3
    env = WarpWaypoint(num_envs=n, n_waypoints=nw, max_distance=8.0)
    cpu = _cpu_waypoint(nw, 8.0)
    rng = np.random.default_rng(7)
    m = cpu.model
    q, v = _states(rng, n, m.nq, m.nv, m.qpos0)
    wps = rng.uniform(-8, 8, (n, nw, 2)).astype(np.float32).astype(float)
    k = rng.integers(0, nw, n)
    k[1::4], k[2::4] = rng.integers(0, nw - 1, n // 4), nw - 1
    near = (np.arange(n) % 4 == 1) | (np.arange(n) % 4 == 2)  # within reach: at most 0.9 m from wps[k]
    off = rng.normal(size=(n, 2))
    off *= rng.uniform(0.0, 0.9, (n, 1)) / np.linalg.norm(off, axis=1, keepdims=True)
    q[near, 0:2] = (wps[np.arange(n), k] + off)[near].astype(np.float32)
    last = rng.uniform(0.0, 10.0, n).astype(np.float32).astype(float)
    a = rng.uniform(-40, 50, (n, m.nu)).astype(np.float32).astype(float)
    for arr, x in ((env.data.qpos, q), (env.data.qvel, v), (env.waypoints, wps), (env.waypoint, k),
                   (env._last, last), (env._applied, a)):
        arr.assign(x.astype(arr.numpy().dtype))  # float32, the waypoint index int32
    env._observe(1)
    got = {name: getattr(env, name).numpy() for name in ("obs", "reward", "terminated", "waypoint", "distance",
                                                         "reached")}
    seen = {"switched": 0, "done": 0, "capsized": 0, "far": 0}
    for i in range(n):
        cpu.data.qpos[:], cpu.data.qvel[:] = q[i], v[i]
        cpu._wps, cpu._k, cpu._last = wps[i].copy(), int(k[i]), float(last[i])
        o, r, t, info = cpu._transition(a[i])
        assert np.abs(got["obs"][i] - o).max() < 2e-5 * (1 + np.abs(o).max()), (i, got["obs"][i], o)
        assert abs(got["reward"][i] - r) < 2e-5 * (1 + abs(r)), (i, got["reward"][i], r)
        assert bool(got["terminated"][i]) == t, (i, got["terminated"][i], t)
        assert got["waypoint"][i] == info["waypoint"] and got["reached"][i] == info["reached"], (i, info)
        assert abs(got["distance"][i] - info["distance"]) < 2e-5 * (1 + info["distance"]), (i, info)
        assert abs(env._last.numpy()[i] - cpu._last) < 2e-5 * (1 + cpu._last)
        seen["switched"] += info["waypoint"] > k[i]
        seen["done"] += info["reached"] == nw
        seen["capsized"] += cpu._capsized()
        seen["far"] += info["distance"] > 8.0
    assert min(seen.values()) >= 3, seen  # every branch sampled


def _course_ahead(cpu):
    """Three waypoints 1.3, 2.0 and 2.8 m ahead of the CPU environment's boat, a little to either side
    (world frame, m): reached in about 1.6 s at the thrust below."""
    yaw, p = cpu._yaw(), cpu.data.qpos[0:2]
    h = np.array([math.cos(yaw), math.sin(yaw)])
    return p + np.outer([1.3, 2.0, 2.8], h) + np.outer([0.2, -0.3, 0.3], [-h[1], h[0]])


def test_a_waypoint_course_follows_the_cpu_environment():
    """From the CPU environment's reset (pose and course copied in), the same varying thrust until the
    last waypoint is reached: the observations and rewards stay within float32's drift of the float64
    plugin run, both switch waypoints on the same steps and end on the same step; the next step is the
    autoreset (reward 0, the first waypoint of a new course)."""
    cpu = _cpu_waypoint(3, 50.0)
    cpu.reset(seed=3)
    cpu._wps = _course_ahead(cpu)
    cpu._last = cpu._distance()
    env = WarpWaypoint(num_envs=1, n_waypoints=3, max_distance=50.0)
    env.reset(seed=0)
    env.data.qpos.assign(cpu.data.qpos[None].astype(np.float32))
    env.data.qvel.assign(np.zeros((1, cpu.model.nv), np.float32))
    env.waypoints.assign(cpu._wps[None].astype(np.float32))
    env._last.assign(np.array([cpu._last], np.float32))
    worst = worst_r = 0.0
    switches = []
    for k in range(150):
        a = np.array([45.0 + 5.0 * math.sin(0.1 * k), 45.0 - 5.0 * math.sin(0.1 * k)])
        o_cpu, r_cpu, te_cpu, _, info = cpu.step(a)
        o, r, te, _, winfo = env.step(a[None])
        worst = max(worst, float(np.abs(o.numpy()[0] - o_cpu).max()))
        worst_r = max(worst_r, abs(float(r.numpy()[0]) - r_cpu))
        assert int(winfo["waypoint"].numpy()[0]) == info["waypoint"], k
        assert bool(te.numpy()[0]) == te_cpu, k
        if r_cpu > 5.0:
            switches.append(k)
        if te_cpu:
            break
    print(f"waypoint course: {k + 1} steps, bonuses at steps {switches}; worst observation gap {worst:.3g}, "
          f"worst reward gap {worst_r:.3g}")
    assert te_cpu and info["reached"] == 3 and int(winfo["reached"].numpy()[0]) == 3 and len(switches) == 3
    assert worst < 2e-4 and worst_r < 2e-4, (worst, worst_r)
    o, r, te, tr, winfo = env.step(np.full((1, 2), 40.0))
    assert float(r.numpy()[0]) == 0.0 and not te.numpy()[0] and int(winfo["waypoint"].numpy()[0]) == 0
    assert np.all(o.numpy()[0, 4:10] == 0.0)  # at rest: the reset's state


def test_a_waypoint_world_ends_on_its_last_waypoint_and_resets():
    """One waypoint within a 100 m reach: the first step reaches it (the bonus, terminated, reached 1),
    the next is the autoreset (reward 0, reached 0, a new course from the origin)."""
    env = WarpWaypoint(num_envs=3, n_waypoints=1, reach_radius=100.0, reach_bonus=7.0)
    env.reset(seed=5)
    course = env.waypoints.numpy().copy()
    _, r, te, tr, info = env.step(np.zeros((3, 2)))
    assert te.numpy().all() and not tr.numpy().any() and np.all(info["reached"].numpy() == 1)
    assert np.all(np.abs(r.numpy() - 7.0) < 0.05), r.numpy()  # the bonus, the distance gained ~0
    o, r, te, tr, info = env.step(np.full((3, 2), 40.0))
    assert not te.numpy().any() and np.all(r.numpy() == 0.0) and np.all(info["reached"].numpy() == 0)
    assert not np.array_equal(env.waypoints.numpy(), course) and np.all(env._steps.numpy() == 0)


def test_the_waypoint_reset_draws_by_the_cpu_environments_rule():
    """64 worlds' courses: each leg within ``leg`` from the one before (the first from the origin), each
    bearing turned within +-pi/2 of the one before (the first of the boat's start yaw), spread over the
    range; the boat at the equilibrium at rest, the first waypoint current; the same seed the same."""
    n, lo, hi = 64, 2.0, 6.0
    env = WarpWaypoint(num_envs=n, n_waypoints=4, leg=(lo, hi))
    cpu = _cpu_waypoint(4, 20.0)
    obs, info = env.reset(seed=4)
    wps, q = env.waypoints.numpy().astype(float), env.data.qpos.numpy().astype(float)
    steps = np.diff(np.concatenate([np.zeros((n, 1, 2)), wps], axis=1), axis=1)
    legs = np.linalg.norm(steps, axis=2)
    bearing = np.arctan2(steps[..., 1], steps[..., 0])
    yaw0 = []
    for i in range(n):
        cpu.data.qpos[:] = q[i]
        yaw0.append(cpu._yaw())
    turns = np.diff(np.concatenate([np.array(yaw0)[:, None], bearing], axis=1), axis=1)
    turns = (turns + math.pi) % (2 * math.pi) - math.pi
    assert legs.min() >= lo - 1e-5 and legs.max() <= hi + 1e-5 and legs.min() < lo + 0.3 and legs.max() > hi - 0.3
    assert np.abs(turns).max() <= math.pi / 2 + 1e-4 and np.abs(turns).max() > 1.4, np.abs(turns).max()
    assert np.allclose(q[:, 0:3], cpu._eq.pos, atol=1e-6) and np.all(env.data.qvel.numpy() == 0.0)
    assert np.all(info["waypoint"].numpy() == 0)
    assert np.allclose(info["distance"].numpy(), legs[:, 0], atol=1e-5)
    env.reset(seed=4)
    assert np.array_equal(env.waypoints.numpy(), wps.astype(np.float32))


def test_per_world_randomisation_changes_the_waypoint_dynamics():
    """Four worlds idle for 50 steps: against world 0 (the vehicle's water), denser water floats world 1
    higher, a heavier boat sits world 2 lower, a 0.6 m/s current along x carries world 3 downstream."""
    n = 4
    env = WarpWaypoint(num_envs=n, density=[1025.0, 1060.0, 1025.0, 1025.0], mass_scale=[1.0, 1.0, 1.15, 1.0],
                       current=[[0.0, 0.0, 0.0]] * 3 + [[0.6, 0.0, 0.0]])
    env.reset(seed=0)
    for _ in range(50):
        env.step(np.zeros((n, 2)))
    q = env.data.qpos.numpy()
    print(f"after 1 s idle: z {q[:, 2]}, x {q[:, 0]}")
    assert q[1, 2] > q[0, 2] + 1e-3 and q[2, 2] < q[0, 2] - 1e-3, q[:, 2]
    assert abs(q[0, 0]) < 0.02 and q[3, 0] > 0.1, q[:, 0]


def test_make_vec_gives_the_waypoint_environment_with_its_keywords():
    import gymnasium

    import aurgen.gym  # noqa: F401  (registers the ids)

    v = gymnasium.make_vec("BlueBoatWaypoint-v0", num_envs=2, vectorization_mode="vector_entry_point",
                           backend="warp", n_waypoints=2, reach_radius=0.5)
    assert isinstance(v, WarpWaypoint) and v.waypoints.shape == (2, 2, 2) and v.reach_radius == 0.5
    assert v.single_observation_space.shape == (12,)
    with pytest.raises(ValueError, match=r"leg: expected 0 < low <= high"):
        WarpWaypoint(num_envs=2, leg=(0.0, 1.0))
    with pytest.raises(ValueError, match="n_waypoints"):
        WarpWaypoint(num_envs=2, n_waypoints=0)


def test_wave_seed_gives_each_world_its_own_sea_the_cpu_environments():
    """wave_seed (one per world) over an irregular sea: at one state and time in every world, world i's
    qfrc_passive is the plugin's in the CPU environment declared with seed wave_seed[i] and no fk
    (float32's agreement: both take the volume moments, issue 48), and the Warp environment declaring
    fk: exact the plugin's declaring it (the columns, float32's agreement), the two methods within 1e-3
    of the largest component; the two worlds of one seed agree bitwise, the other differs; a sea declaring
    fk: moments takes them; a regular sea or the wrong count is refused."""
    import mujoco

    sea = {"spectrum": "jonswap", "hs": 0.5, "tp": 3.0, "components": 8, "seed": 1}
    seeds = [3, 4, 3]
    env = WarpStationKeeping(num_envs=3, sea=sea, wave_seed=seeds)
    m, mjm = env.model, env.mjm
    d = mjw.make_data(mjm, nworld=3)
    q = mjm.qpos0.copy()
    q[2] = -0.02
    q[3:7] = [math.cos(0.1), math.sin(0.1), 0.0, 0.0]
    v = np.zeros(mjm.nv)
    v[:6] = [0.3, -0.1, 0.05, 0.1, 0.0, 0.2]
    q, v = q.astype(np.float32), v.astype(np.float32)
    d.qpos.assign(np.tile(q, (3, 1)))
    d.qvel.assign(np.tile(v, (3, 1)))
    d.time.assign(np.full(3, 5.0, np.float32))
    mjw.forward(m, d)
    got = d.qfrc_passive.numpy().astype(float)
    assert np.array_equal(got[0], got[2]) and np.abs(got[0] - got[1]).max() > 1e-3 * np.abs(got[0]).max()
    # declaring fk: exact, the columns: another method, within the moments' error bound of them
    ex = WarpStationKeeping(num_envs=3, sea={**sea, "fk": "exact"}, wave_seed=seeds)
    de = mjw.make_data(ex.mjm, nworld=3)
    de.qpos.assign(np.tile(q, (3, 1)))
    de.qvel.assign(np.tile(v, (3, 1)))
    de.time.assign(np.full(3, 5.0, np.float32))
    mjw.forward(ex.model, de)
    gotx = de.qfrc_passive.numpy().astype(float)
    assert not np.array_equal(gotx, got) and np.abs(gotx - got).max() <= 1e-3 * np.abs(got).max()
    for i, s in enumerate(seeds):
        # sea fk: exact, the columns, against Warp's fk: exact; without fk the plugin's default, the volume
        # moments, against Warp's default (the same method on both)
        exact, cpu = BlueBoatStationKeeping(sea={**sea, "seed": s, "fk": "exact"}), BlueBoatStationKeeping(
            sea={**sea, "seed": s})
        for model, w in ((exact.model, gotx), (cpu.model, got)):
            dc = mujoco.MjData(model)
            dc.qpos[:], dc.qvel[:], dc.time = q, v, 5.0
            mujoco.mj_forward(model, dc)
            assert np.abs(w[i] - dc.qfrc_passive).max() <= 2e-5 * np.abs(dc.qfrc_passive).max(), i
        exact.close()
        cpu.close()
    mo = WarpStationKeeping(num_envs=2, sea={**sea, "fk": "moments"})
    assert mo.model.aurgen.fkm == 1 and ex.model.aurgen.fkm == 0 and env.model.aurgen.fkm == 1
    mo.close()
    with pytest.raises(ValueError, match="wave_seed: only with an irregular sea"):
        WarpStationKeeping(num_envs=2, sea={"spectrum": "regular", "height": 0.1, "period": 3.0}, wave_seed=[1, 2])
    with pytest.raises(ValueError, match="wave_seed: expected 2 integers from 0 to 9223372036854775807"):
        WarpStationKeeping(num_envs=2, sea=sea, wave_seed=[1, 2, 3])
    with pytest.raises(ValueError, match="wave_seed: expected 2 integers from 0 to 9223372036854775807"):
        WarpStationKeeping(num_envs=2, sea=sea, wave_seed=np.array([1, 2 ** 64 - 1], dtype=np.uint64))
