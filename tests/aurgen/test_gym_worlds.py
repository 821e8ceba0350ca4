"""aurgen.gym over many worlds at once: the tasks' arithmetic over arrays of worlds, the vector
environment's steps and infos, its health screen.

References are independent of the code under test: each world's observation, reward and end computed
here one world at a time with MuJoCo's own quaternion functions (mju_normalize4, mju_quat2Mat) and
Python's math, from the module docstring's formulas; the single environments stepped one by one (and
gymnasium's own ``VectorEnv._add_info`` building their infos into the vector infos); and the runtime's
``health_of`` read from an MjData given each world's state row.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from test_gym import _have_gymnasium, _make

pytestmark = [pytest.mark.scale,
              pytest.mark.skipif(not _have_gymnasium(),
                                 reason="gymnasium is not installed (pip install '.[scale]')")]

AMAX = 51.4849125  # N: the T200's largest ctrlrange bound (the docstring's a_max)


def _vec(name, n, **kw):
    import gymnasium

    import aurgen.gym  # noqa: F401

    return gymnasium.make_vec(name, num_envs=n, vectorization_mode="vector_entry_point", **kw)


def _wrap(a):
    return (a + math.pi) % (2 * math.pi) - math.pi


def _rotation(q):
    import mujoco

    quat = np.array(q[3:7], dtype=float)
    mujoco.mju_normalize4(quat)
    R = np.empty(9)
    mujoco.mju_quat2Mat(R, quat)
    return R.reshape(3, 3)


def _motion(R, v):
    """[u, v, w, p, q, r, heel, trim] of one world, one number at a time."""
    vb = [sum(R[i, j] * v[i] for i in range(3)) for j in range(3)]
    return vb + list(v[3:6]) + [math.atan2(R[2, 1], R[2, 2]), math.asin(max(-1.0, min(1.0, -R[2, 0])))]


def _cost(a):
    return 0.01 * sum((x / AMAX) ** 2 for x in a)


def _station_ref(q, v, target, a, max_distance=20.0):
    R = _rotation(q)
    yaw = math.atan2(R[1, 0], R[0, 0])
    c, s = math.cos(yaw), math.sin(yaw)
    dx, dy = target[0] - q[0], target[1] - q[1]
    obs = [c * dx + s * dy, -s * dx + c * dy, _wrap(target[3] - yaw)] + _motion(R, v)
    dist = math.hypot(obs[0], obs[1])
    return obs, -(dist + 0.5 * abs(obs[2]) + _cost(a)), R[2, 2] < 0 or dist > max_distance


def _rov_ref(q, v, target, a, max_depth_error=3.0):
    R = _rotation(q)
    obs = [target[2] - q[2], _wrap(target[3] - math.atan2(R[1, 0], R[0, 0]))] + _motion(R, v)
    end = R[2, 2] < 0 or abs(obs[0]) > max_depth_error or q[2] > 0.0
    return obs, -(abs(obs[0]) + 0.5 * abs(obs[1]) + _cost(a)), end


def _waypoint_ref(q, v, wps, k, last, a, radius=1.0, bonus=10.0, max_distance=20.0):
    """The docstring's waypoint rule for one world: (obs, reward, terminated, k after, reached)."""
    n = len(wps)
    dist = math.hypot(wps[k][0] - q[0], wps[k][1] - q[1])
    reward = (last - dist) - _cost(a)
    done = False
    if dist <= radius:
        reward += bonus
        if k == n - 1:
            done = True
        else:
            k += 1
            dist = math.hypot(wps[k][0] - q[0], wps[k][1] - q[1])
    R = _rotation(q)
    yaw = math.atan2(R[1, 0], R[0, 0])
    c, s = math.cos(yaw), math.sin(yaw)
    rel = []
    for w in (wps[k], wps[min(k + 1, n - 1)]):
        dx, dy = w[0] - q[0], w[1] - q[1]
        rel += [c * dx + s * dy, -s * dx + c * dy]
    end = done or R[2, 2] < 0 or dist > max_distance
    return rel + _motion(R, v), reward, end, k, k + done, dist


def _states(rng, n, nq, nv):
    """n worlds: positions over 30 m, any attitude (some capsized), quaternions off unit length by up to
    1e-3 and a few exactly unit or exactly the identity, velocities of a metre or radian a second."""
    q = np.zeros((n, nq))
    q[:, 0:2] = rng.uniform(-15, 15, (n, 2))
    q[:, 2] = rng.uniform(-4.5, 0.5, n)
    quat = rng.normal(size=(n, 4))
    quat /= np.linalg.norm(quat, axis=1, keepdims=True)
    quat *= rng.uniform(1 - 1e-3, 1 + 1e-3, (n, 1))
    quat[:3] = [1.0, 0.0, 0.0, 0.0]
    q[:, 3:7] = quat
    return q, rng.normal(0, 1.0, (n, nv)), rng.uniform(-45.0, 60.0, (n, 2 if nq == 9 else 6))


def _close(got, ref, angles=()):
    """Each entry within 1e-12 (angles: their difference wrapped, so a heading error at +-pi matches)."""
    d = np.abs(np.asarray(got, float) - np.asarray(ref, float))
    for i in angles:
        d[i] = abs(_wrap(got[i] - ref[i]))
    assert np.all(d <= 1e-12 * (1 + np.abs(ref))), (got, ref, d)


@pytest.mark.parametrize("name", ["BlueBoatStationKeeping-v0", "BlueROV2DepthHeading-v0"])
def test_the_tasks_over_worlds_are_the_per_world_rule(name):
    """Observation, reward, end and info of 300 worlds at once (random states, targets and commands)
    against the rule computed one world at a time."""
    env = _make(name).unwrapped
    try:
        rng = np.random.default_rng(1)
        n = 300
        q, v, a = _states(rng, n, env.model.nq, env.model.nv)
        a = np.clip(a, env.action_space.low, env.action_space.high)
        target = np.zeros((n, 4))
        target[:, 0:3] = rng.uniform(-5, 5, (n, 3))
        target[:, 3] = rng.uniform(-math.pi, math.pi, n)
        obs, reward, end, info = env._step_worlds(q, v, {"target": target}, a)
        ref = _station_ref if name.startswith("BlueBoat") else _rov_ref
        ends = 0
        for i in range(n):
            o, r, t = ref(q[i], v[i], target[i], a[i])
            _close(obs[i], o, angles=(2,) if name.startswith("BlueBoat") else (1,))
            _close([reward[i]], [r])
            assert end[i] == t
            ends += t
        assert 0 < ends < n  # both kinds of world were there
        key = "distance" if name.startswith("BlueBoat") else "depth_error"
        assert set(info) == ({"distance", "heading_error"} if key == "distance" else {"depth_error", "heading_error"})
        assert info[key].shape == (n,)
    finally:
        env.close()


def test_the_waypoint_task_over_worlds_is_the_per_world_rule():
    """The waypoint's step over 300 worlds at once: some on their current waypoint (paid, the next made
    current), some on their last (ended), against the rule one world at a time."""
    env = _make("BlueBoatWaypoint-v0").unwrapped
    try:
        rng = np.random.default_rng(2)
        n, nw = 300, env.n_waypoints
        q, v, a = _states(rng, n, env.model.nq, env.model.nv)
        a = np.clip(a, env.action_space.low, env.action_space.high)
        wps = rng.uniform(-10, 10, (n, nw, 2))
        k = rng.integers(0, nw, n)
        last = rng.uniform(0, 12, n)
        on = rng.random(n) < 0.3  # standing within the reach radius of the current waypoint
        q[on, 0:2] = wps[on, k[on]] + rng.uniform(-0.5, 0.5, (on.sum(), 2))
        task = {"wps": wps, "k": k.copy(), "last": last.copy()}
        obs, reward, end, info = env._step_worlds(q, v, task, a)
        for i in range(n):
            o, r, t, k1, reached, dist = _waypoint_ref(q[i], v[i], wps[i], int(k[i]), last[i], a[i])
            _close(obs[i], o)
            _close([reward[i], info["distance"][i], task["last"][i]], [r, dist, dist])
            assert (end[i], info["waypoint"][i], task["k"][i], info["reached"][i]) == (t, k1, k1, reached)
        assert np.any(task["k"] != k) and np.any(end & on & (k == nw - 1))
    finally:
        env.close()


def test_one_world_is_bitwise_that_world_among_many():
    """The single environment's numbers (one world's scalars) are bitwise those of the same world in an
    array of 257 (the kinematics and each task on the same states)."""
    from aurgen.gym.kinematics import frames

    rng = np.random.default_rng(3)
    for name in ("BlueBoatStationKeeping-v0", "BlueBoatWaypoint-v0", "BlueROV2DepthHeading-v0"):
        env = _make(name).unwrapped
        try:
            n = 257
            q, v, a = _states(rng, n, env.model.nq, env.model.nv)
            q[5, 3:7] = [0.0, 0.0, 0.0, 0.0]  # no rotation at all: MuJoCo's identity
            q[6, 3:7] = [np.nan, 0.0, 0.0, 1.0]
            R = frames(q[:, 3:7])
            for i in (0, 1, 5, 6, 100, 256):
                assert np.array(frames(q[i, 3:7])).tobytes() == np.array([c[i] for c in R]).tobytes()
            if name == "BlueBoatWaypoint-v0":
                task = {"wps": rng.uniform(-10, 10, (n, 4, 2)), "k": rng.integers(0, 4, n),
                        "last": rng.uniform(0, 9, n)}
            else:
                task = {"target": rng.uniform(-4, 4, (n, 4))}
            many = env._step_worlds(q, v, dict(task), a)
            for i in (0, 1, 2, 100, 256):
                one = env._step_worlds(q[i], v[i], {k: x[i] for k, x in task.items()}, a[i])
                assert one[0].tobytes() == many[0][i].tobytes()
                assert np.float64(one[1]).tobytes() == many[1][i].tobytes() and one[2] == many[2][i]
                assert {k: np.asarray(x).tobytes() for k, x in one[3].items()} == \
                    {k: x[i].tobytes() for k, x in many[3].items()}
        finally:
            env.close()


@pytest.mark.parametrize("name", ["BlueBoatStationKeeping-v0", "BlueBoatWaypoint-v0"])
def test_a_vector_env_of_many_worlds_is_bitwise_the_single_envs_infos_included(name):
    """37 worlds (more than any SIMD width, not a multiple of one) through an autoreset: observations,
    rewards, ends bitwise the single environments', and the infos exactly what gymnasium's
    VectorEnv._add_info builds from the single environments' infos, world by world."""
    import gymnasium

    n, horizon = 37, 6
    vec = _vec(name, n, threads=2, step_limit=horizon)
    singles = [_make(name, step_limit=horizon).unwrapped for _ in range(n)]
    try:
        add = gymnasium.vector.VectorEnv._add_info.__get__(vec.unwrapped)

        def expected(infos):
            out = {}
            for i, info in infos:
                out = add(out, info, i)
            return out

        def same(got, want):
            assert list(got) == list(want)
            for k in want:
                assert got[k].dtype == want[k].dtype, k
                if want[k].dtype == object:
                    assert list(got[k]) == list(want[k]), k
                else:
                    assert got[k].tobytes() == want[k].tobytes(), k

        obs, infos = vec.reset(seed=5)
        refs = [e.reset(seed=5 + i) for i, e in enumerate(singles)]
        assert obs.tobytes() == np.stack([r[0] for r in refs]).tobytes()
        same(infos, expected([(i, r[1]) for i, r in enumerate(refs)]))
        rng = np.random.default_rng(4)
        lo, hi = vec.single_action_space.low, vec.single_action_space.high
        done = np.zeros(n, dtype=bool)
        for _ in range(2 * horizon + 2):
            acts = rng.uniform(lo, hi, size=(n,) + lo.shape)
            obs, rew, term, trunc, infos = vec.step(acts)
            live, reset = [], []
            for i, e in enumerate(singles):
                if done[i]:
                    o, info = e.reset()
                    r, t, tr = 0.0, False, False
                    reset.append((i, info))
                else:
                    o, r, t, tr, info = e.step(acts[i])
                    live.append((i, info))
                assert o.tobytes() == obs[i].tobytes() and (r, t, tr) == (rew[i], term[i], trunc[i])
                done[i] = t or tr
            same(infos, expected(live + reset))
        # the worlds as single environments, brought up to date: world i is singles[i]
        for i, (w, e) in enumerate(zip(vec.unwrapped.envs, singles)):
            assert w.data.qpos.tobytes() == e.data.qpos.tobytes() and w._steps == e._steps
            assert w._obs().tobytes() == e._obs().tobytes(), i
    finally:
        vec.close()
        for e in singles:
            e.close()


def test_the_health_screen_passes_no_world_the_exact_reading_rejects():
    """Worlds whose plugin state has one slot tampered with (NaN, inf, negative, fractional, out of range),
    or a reset tally of MuJoCo's reset (pending a user reset or not), or a NaN velocity: the vector env's
    health of every world is exactly health_of's (status and reason, read from an MjData given the
    world's row), the screen passes no world health_of finds invalid, and an untampered world is ok
    without the exact reading."""
    import mujoco

    from aurgen.runtime.sim.health import PluginLedger, health_of

    vec = _vec("BlueBoatStationKeeping-v0", 1)
    try:
        u = vec.unwrapped
        vec.reset(seed=0)
        for _ in range(3):
            vec.step(np.full((1, 2), 20.0))
        model, spec = u.model, mujoco.mjtState.mjSTATE_INTEGRATION
        base = u._rows[0].copy()
        d = mujoco.MjData(model)
        mujoco.mj_setState(model, d, base, spec)
        led = PluginLedger(model, d, u._proto._instance)

        def at(bit):  # where a row holds the state component ``bit`` (mj_getState's order: by bit)
            return mujoco.mj_stateSize(model, int(spec) & (int(bit) - 1))

        ps_at, q_at, v_at = at(mujoco.mjtState.mjSTATE_PLUGIN), at(mujoco.mjtState.mjSTATE_QPOS), \
            at(mujoco.mjtState.mjSTATE_QVEL)
        adr = ps_at + led.adr
        values = [math.nan, math.inf, -1.0, 0.5, 2.0, 3.0, 7.0, 2.0 ** 53 + 2, float(model.nbody), 1e300]
        rows = [base]
        for off in range(led.layout["zbuf"] + 2):
            for x in values:
                r = base.copy()
                r[adr + off] = x
                rows.append(r)
        tally = adr + led.layout["tally"]
        for pending in (0.0, 1.0):  # MuJoCo reset the state once (a NaN qvel), then a user reset or not
            r = base.copy()
            r[tally:tally + 9] = [1.0, 0.0, 1.0, 0.0, 2.0, 0.02, 0.04, 0.06, pending]
            rows.append(r)
        for x in (math.nan, math.inf):  # a non-finite velocity
            r = base.copy()
            r[v_at] = x
            rows.append(r)
        rows = np.array(rows)
        h = u._health
        ps = rows[:, ps_at:ps_at + d.plugin_state.size]
        q, v = rows[:, q_at:q_at + model.nq], rows[:, v_at:v_at + model.nv]
        fast = h.plainly_ok(ps, q, v)
        ok, status, reason = h.of(rows, ps, q, v)
        for i, row in enumerate(rows):
            mujoco.mj_setState(model, d, row, spec)
            ref = health_of(model, d, instance=u._proto._instance)
            assert (ok[i], status[i], reason[i]) == (ref.ok, ref.status, ref.reason or ""), i
            assert ref.ok or not fast[i], i  # the screen never passes an invalid world
        # an untampered world is read by the screen alone, and so is nearly every ok one; many were invalid
        assert fast[0] and fast.sum() >= 0.9 * ok.sum() and (~ok).sum() >= 100
    finally:
        vec.close()
