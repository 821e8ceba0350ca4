"""Gymnasium environments on aurgen's runtime: ``BlueBoatStationKeeping-v0``, ``BlueBoatWaypoint-v0``,
``BlueROV2DepthHeading-v0``.

Needs gymnasium (``pip install '.[scale]'`` from aurgen's clone); the core does not import this module.

    import gymnasium as gym
    import aurgen.gym  # registers the ids
    env = gym.make("BlueBoatStationKeeping-v0")
    obs, info = env.reset(seed=0)

Each environment composes its bundled vehicle config (never a local ``./vehicles/`` file of the
same name; ``config=`` a path or name for another, e.g. ``gym.make(id, config="my_boat.yaml")``)
in memory (aurgen.compose.resolve,
aurgen.emit.build.outputs; nothing is written), simulates it in open water at the
vehicle's declared fluid density (surface z = 0) through
:class:`aurgen.runtime.sim.Simulation` (the ``aurgen.hydrostatics`` engine plugin:
buoyancy, drag, damping, added mass), at MuJoCo's 2 ms step with the action held
for ``frame_skip`` = 10 steps (a control period of 0.02 s).

Spaces are ``gymnasium.spaces.Box`` of float64 throughout. ``render_mode`` is
``None`` only (no rendering).

BlueBoatStationKeeping-v0 — hold a position and heading on the surface
    action (2,): the thruster commands in N of ``motor_port``, ``motor_stbd`` (thrust along
        the propeller axis, positive forward), each within the actuator's ctrlrange
        [-40.2, 51.5]; out-of-range actions are clipped.
    observation (11,): [ex, ey] the target's position relative to the boat in the
        boat's yaw frame (m; x forward, y left), e_psi the heading error
        target − yaw wrapped to [−π, π) (rad), [u, v, w] the body-frame linear
        velocity (m/s), [p, q, r] the body angular velocity (rad/s), heel, trim (rad).
    reward: −(1.0·|e_xy| + 0.5·|e_psi| + 0.01·Σ (a_i / a_max)²) with a_max = 51.5 N.
    reset: the boat at the kernel's floating equilibrium (aurgen specs) at the origin,
        yaw uniform in [−π, π); the target uniform in [−5, 5]² m with a heading uniform in
        [−π, π); all from the env's ``np_random``.
    terminated: capsized (the body z axis points below the horizontal) or farther than
        ``max_distance`` = 20 m from the target. truncated: after ``step_limit``
        = 1000 steps (20 s).

BlueBoatWaypoint-v0 — follow a course of waypoints on the surface
    action (2,): as station keeping (``motor_port``, ``motor_stbd``, N).
    observation (12,): [ex, ey] the current waypoint relative to the boat in its yaw frame (m),
        [nx, ny] the waypoint after it likewise (m; the current one again on the last leg),
        [u, v, w] (m/s), [p, q, r] (rad/s), heel, trim (rad).
    reward: the distance gained on the current waypoint over the step (m), + ``reach_bonus``
        = 10 on reaching it (within ``reach_radius`` = 1 m; the next one becomes current),
        − 0.01·Σ (a_i / a_max)².
    reset: the boat at the kernel's equilibrium at the origin, yaw uniform in [−π, π);
        ``n_waypoints`` = 4 waypoints, each ``leg`` uniform in [3, 8] m from the one before
        (the first from the origin), on a bearing that turns uniformly within ±π/2 of the
        leg before (the first within ±π/2 of the start yaw); all from ``np_random``.
    terminated: the last waypoint reached, capsized, or farther than ``max_distance`` = 20 m
        from the current waypoint. truncated: after ``step_limit`` = 1000 steps (20 s).
    info: ``distance`` (m), ``waypoint`` (index of the current one), ``reached`` (how many).

BlueROV2DepthHeading-v0 — hold a depth and heading
    action (6,): the thruster commands in N of ``thruster_1`` … ``thruster_6`` (the
        vectored frame: 1–4 horizontal, 5–6 vertical), each within [-40.2, 51.5].
    observation (10,): e_z = target depth z − z (m, positive: the target is above),
        e_psi (rad, wrapped), [u, v, w] (m/s), [p, q, r] (rad/s), roll, pitch (rad).
    reward: −(1.0·|e_z| + 0.5·|e_psi| + 0.01·Σ (a_i / a_max)²).
    reset: the vehicle level at rest at z uniform in [−4, −1] m, yaw uniform; the
        target z uniform in [−4, −1] m, target heading uniform.
    terminated: capsized, or |e_z| > ``max_depth_error`` = 3 m, or the vehicle's origin
        above the surface. truncated: after ``step_limit`` = 1000 steps.

``info`` carries ``time`` (s) and the unwrapped error terms. Keyword arguments:
``config``, ``frame_skip``, ``step_limit`` and the ranges named above (``gymnasium.make``'s own
``max_episode_steps`` adds its TimeLimit wrapper on top).

Vector version: ``gymnasium.make_vec(id, num_envs=N, vectorization_mode="vector_entry_point",
threads=2)`` gives a :class:`MarineVectorEnv`: the N worlds share one compiled model and
advance together on ``mujoco.batch.Batch`` (on ``threads`` threads); gymnasium's VectorEnv
API with ``AutoresetMode.NEXT_STEP``; world i is bitwise the single environment reset with
``seed + i`` and stepped with the same actions (tested).
"""

from __future__ import annotations

import math

import mujoco
import numpy as np

try:
    import gymnasium
    from gymnasium import spaces
except ImportError as exc:  # pragma: no cover - the scale extra is missing
    raise ImportError("aurgen.gym needs gymnasium: pip install gymnasium (or pip install '.[scale]' in aurgen's "
                      "clone)") from exc

_MODELS: dict = {}


def _vehicle_xml(config: str, given=None):
    """(MJCF text, fluid density, kernel equilibrium) of the bundled config ``config``, or of
    ``given`` (a path or a name, resolved as the CLI does), composed in memory (cached)."""
    from aurgen.config.vehicle import bundled_config, resolve_config_path

    path = bundled_config(config) if given is None else resolve_config_path(given)
    key = (str(path), path.stat().st_mtime_ns)
    if key not in _MODELS:
        from aurgen.emit.build import outputs
        from aurgen.compose.resolve import resolve
        from aurgen.analysis.stability import body_of
        from aurgen.compose.stamp import equilibrium_of

        v = resolve(path)
        _MODELS[key] = (outputs(v)[f"{v.name}.xml"], float(body_of(v).rho), equilibrium_of(v))
    return _MODELS[key]


def _wrap(a: float) -> float:
    return (a + math.pi) % (2 * math.pi) - math.pi


def _quat_yaw(q0, yaw: float) -> np.ndarray:
    """The quaternion Rz(yaw) ⊗ q0 (w, x, y, z)."""
    c, s = math.cos(yaw / 2), math.sin(yaw / 2)
    w, x, y, z = (float(t) for t in q0)
    return np.array([c * w - s * z, c * x - s * y, c * y + s * x, c * z + s * w])


class _MarineEnv(gymnasium.Env):
    """One vehicle in open water, its free joint first; thrusters are the actuators."""

    metadata = {"render_modes": [], "render_fps": 50}
    config = ""

    def __init__(self, render_mode=None, frame_skip: int = 10, step_limit: int = 1000, _model=None, config=None):
        if render_mode is not None:
            raise ValueError("aurgen.gym environments have no rendering: render_mode must be None")
        from aurgen.runtime.sim import Simulation

        self.render_mode = None
        xml, rho, self._eq = _vehicle_xml(self.config, config)
        if _model is None:
            self.sim = Simulation(xml, water=rho)
            self.model, self.data = self.sim.model, self.sim.data
        else:  # a world of a vector env: the shared model (carrying the plugin), its own MjData
            self.sim = None
            self.model, self.data = _model, mujoco.MjData(_model)
        self.frame_skip = int(frame_skip)
        self.step_limit = int(step_limit)
        self.dt = self.model.opt.timestep * self.frame_skip
        lo, hi = self.model.actuator_ctrlrange[:, 0].copy(), self.model.actuator_ctrlrange[:, 1].copy()
        self.action_space = spaces.Box(lo, hi, dtype=np.float64)
        self._amax = float(np.max(np.abs(np.concatenate([lo, hi]))))
        n = self._nobs
        self.observation_space = spaces.Box(-np.inf, np.inf, shape=(n,), dtype=np.float64)
        self._steps = 0
        self._target = np.zeros(4)  # x, y, z, yaw

    # -- kinematics of the free body
    def _R(self) -> np.ndarray:
        """The body rotation from qpos (after mj_step, xmat is still the step's start); kept for
        the quaternion it was made from (an observation and its reward read it four times).
        Read-only."""
        key = self.data.qpos[3:7].tobytes()
        if key != getattr(self, "_r_key", None):
            q = self.data.qpos[3:7].copy()
            mujoco.mju_normalize4(q)
            R = np.empty(9)
            mujoco.mju_quat2Mat(R, q)
            self._r_val = R.reshape(3, 3)
            self._r_val.flags.writeable = False
            self._r_key = key
        return self._r_val

    def _yaw(self) -> float:
        R = self._R()
        return math.atan2(R[1, 0], R[0, 0])

    def _rp(self):
        R = self._R()
        return math.atan2(R[2, 1], R[2, 2]), math.asin(max(-1.0, min(1.0, -R[2, 0])))

    def _body_vel(self) -> np.ndarray:
        q = self.data.qvel
        return np.concatenate([self._R().T @ q[0:3], q[3:6]])

    def _capsized(self) -> bool:
        return bool(self._R()[2, 2] < 0.0)

    def _set_pose(self, pos, quat):
        mujoco.mj_resetData(self.model, self.data)
        self.data.qpos[0:3] = pos
        self.data.qpos[3:7] = quat
        if self.sim is not None:  # the health monitor starts from this pose
            self.sim.forward()
            self.sim.monitor.reset(self.data)
        else:
            mujoco.mj_forward(self.model, self.data)

    def _cost(self, a) -> float:
        return 0.01 * float(np.sum((a / self._amax) ** 2))

    def _transition(self, a):
        """(observation, reward, terminated, info) after a step with the (clipped) action ``a``."""
        obs = self._obs()
        reward, terminated, info = self._score(obs, a)
        return obs, reward, terminated, info

    def step(self, action):
        a = np.clip(np.asarray(action, dtype=np.float64), self.action_space.low, self.action_space.high)
        self.data.ctrl[:] = a
        self.sim.step(self.frame_skip)
        self._steps += 1
        obs, reward, terminated, info = self._transition(a)
        truncated = (not terminated) and self._steps >= self.step_limit
        info["time"] = float(self.data.time)
        return obs, reward, terminated, truncated, info

    def render(self):
        return None

    def close(self):
        if getattr(self, "sim", None) is not None:
            self.sim.close()
            self.sim = None


class BlueBoatStationKeeping(_MarineEnv):
    """Hold a position and heading on the surface with the BlueBoat (see the module doc)."""

    config = "blueboat.yaml"
    _nobs = 11

    def __init__(self, render_mode=None, frame_skip: int = 10, step_limit: int = 1000,
                 target_range: float = 5.0, max_distance: float = 20.0, _model=None, config=None):
        super().__init__(render_mode, frame_skip, step_limit, _model, config)
        self.target_range = float(target_range)
        self.max_distance = float(max_distance)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        r = self.np_random
        yaw0 = float(r.uniform(-math.pi, math.pi))
        tx, ty = (float(t) for t in r.uniform(-self.target_range, self.target_range, size=2))
        tyaw = float(r.uniform(-math.pi, math.pi))
        self._target = np.array([tx, ty, 0.0, tyaw])
        from aurgen.core.spatial import quat_of

        q0 = np.asarray(quat_of(np.asarray(self._eq.mat, float)), float)
        self._set_pose(np.asarray(self._eq.pos, float), _quat_yaw(q0, yaw0))
        self._steps = 0
        return self._obs(), {"time": float(self.data.time)}

    def _obs(self) -> np.ndarray:
        yaw = self._yaw()
        c, s = math.cos(yaw), math.sin(yaw)
        dx, dy = self._target[0] - self.data.qpos[0], self._target[1] - self.data.qpos[1]
        heel, trim = self._rp()
        return np.concatenate([[c * dx + s * dy, -s * dx + c * dy, _wrap(self._target[3] - yaw)],
                               self._body_vel(), [heel, trim]]).astype(np.float64)

    def _score(self, obs, a):
        dist = math.hypot(obs[0], obs[1])
        reward = -(1.0 * dist + 0.5 * abs(obs[2]) + self._cost(a))
        terminated = self._capsized() or dist > self.max_distance
        return float(reward), bool(terminated), {"distance": dist, "heading_error": float(obs[2])}


class BlueBoatWaypoint(_MarineEnv):
    """Follow a course of waypoints on the surface with the BlueBoat (see the module doc)."""

    config = "blueboat.yaml"
    _nobs = 12

    def __init__(self, render_mode=None, frame_skip: int = 10, step_limit: int = 1000, n_waypoints: int = 4,
                 leg=(3.0, 8.0), reach_radius: float = 1.0, reach_bonus: float = 10.0,
                 max_distance: float = 20.0, _model=None, config=None):
        super().__init__(render_mode, frame_skip, step_limit, _model, config)
        if int(n_waypoints) < 1:
            raise ValueError(f"n_waypoints: at least 1, got {n_waypoints}")
        if not 0.0 < float(leg[0]) <= float(leg[1]):
            raise ValueError(f"leg: expected 0 < low <= high (m), got {leg}")
        self.n_waypoints = int(n_waypoints)
        self.leg = (float(leg[0]), float(leg[1]))
        self.reach_radius = float(reach_radius)
        self.reach_bonus = float(reach_bonus)
        self.max_distance = float(max_distance)
        self._wps = np.zeros((self.n_waypoints, 2))
        self._k = 0
        self._last = 0.0

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        r = self.np_random
        yaw0 = float(r.uniform(-math.pi, math.pi))
        p = np.zeros(2)
        bearing = yaw0
        for k in range(self.n_waypoints):
            bearing += float(r.uniform(-math.pi / 2, math.pi / 2))
            p = p + float(r.uniform(*self.leg)) * np.array([math.cos(bearing), math.sin(bearing)])
            self._wps[k] = p
        self._k = 0
        from aurgen.core.spatial import quat_of

        q0 = np.asarray(quat_of(np.asarray(self._eq.mat, float)), float)
        self._set_pose(np.asarray(self._eq.pos, float), _quat_yaw(q0, yaw0))
        self._steps = 0
        self._last = self._distance()
        return self._obs(), {"time": float(self.data.time)}

    def _distance(self) -> float:
        w = self._wps[self._k]
        return math.hypot(w[0] - self.data.qpos[0], w[1] - self.data.qpos[1])

    def _obs(self) -> np.ndarray:
        yaw = self._yaw()
        c, s = math.cos(yaw), math.sin(yaw)
        x, y = self.data.qpos[0], self.data.qpos[1]
        w, nxt = self._wps[self._k], self._wps[min(self._k + 1, self.n_waypoints - 1)]
        rel = [c * (w[0] - x) + s * (w[1] - y), -s * (w[0] - x) + c * (w[1] - y),
               c * (nxt[0] - x) + s * (nxt[1] - y), -s * (nxt[0] - x) + c * (nxt[1] - y)]
        heel, trim = self._rp()
        return np.concatenate([rel, self._body_vel(), [heel, trim]]).astype(np.float64)

    def _transition(self, a):
        dist = self._distance()
        reward = (self._last - dist) - self._cost(a)
        done = False
        if dist <= self.reach_radius:
            reward += self.reach_bonus
            if self._k == self.n_waypoints - 1:
                done = True
            else:
                self._k += 1
                dist = self._distance()
        self._last = dist
        obs = self._obs()
        terminated = done or self._capsized() or dist > self.max_distance
        reached = self._k + (1 if done else 0)
        return obs, float(reward), bool(terminated), {"distance": dist, "waypoint": self._k, "reached": reached}


class BlueROV2DepthHeading(_MarineEnv):
    """Hold a depth and heading with the BlueROV2 (see the module doc)."""

    config = "bluerov2.yaml"
    _nobs = 10

    def __init__(self, render_mode=None, frame_skip: int = 10, step_limit: int = 1000,
                 depth_range=(-4.0, -1.0), max_depth_error: float = 3.0, _model=None, config=None):
        super().__init__(render_mode, frame_skip, step_limit, _model, config)
        self.depth_range = (float(depth_range[0]), float(depth_range[1]))
        self.max_depth_error = float(max_depth_error)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        r = self.np_random
        z0 = float(r.uniform(*self.depth_range))
        yaw0 = float(r.uniform(-math.pi, math.pi))
        tz = float(r.uniform(*self.depth_range))
        tyaw = float(r.uniform(-math.pi, math.pi))
        self._target = np.array([0.0, 0.0, tz, tyaw])
        self._set_pose(np.array([0.0, 0.0, z0]), _quat_yaw((1.0, 0.0, 0.0, 0.0), yaw0))
        self._steps = 0
        return self._obs(), {"time": float(self.data.time)}

    def _obs(self) -> np.ndarray:
        roll, pitch = self._rp()
        return np.concatenate([[self._target[2] - self.data.qpos[2], _wrap(self._target[3] - self._yaw())],
                               self._body_vel(), [roll, pitch]]).astype(np.float64)

    def _score(self, obs, a):
        reward = -(1.0 * abs(obs[0]) + 0.5 * abs(obs[1]) + self._cost(a))
        terminated = self._capsized() or abs(obs[0]) > self.max_depth_error or self.data.qpos[2] > 0.0
        return float(reward), bool(terminated), {"depth_error": float(obs[0]), "heading_error": float(obs[1])}


class MarineVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` worlds of one environment class stepped together on ``mujoco.batch.Batch``.

    Follows gymnasium's VectorEnv API with ``AutoresetMode.NEXT_STEP``: a world that
    terminated or truncated is reset by the next ``step`` (its action then ignored,
    reward 0). ``reset(seed=s)`` seeds world i with ``s + i`` (as SyncVectorEnv does), so
    world i's trajectory is bitwise that of the single environment reset with ``s + i``
    and stepped with the same actions. All worlds share one compiled model (the
    ``aurgen.hydrostatics`` plugin carries each world's state in its MjData);
    ``threads`` > 1 runs the batch on that many threads (bitwise the same).

    The batch holds each world's ``mjSTATE_INTEGRATION`` row: a reset writes the row
    from the world's own MjData (the single environment's reset), a step writes the
    controls into the rows, advances the live worlds ``frame_skip`` steps in C, and
    copies each row back into its world's MjData for the observation and reward
    (Python per world per step, the same code as the single environment).
    ``mujoco.rollout`` did the same stepping but needs each world's state copied in and
    out on every call; bench/scale.py measures both.
    """

    metadata = {"render_modes": [], "autoreset_mode": gymnasium.vector.AutoresetMode.NEXT_STEP}

    def __init__(self, env_cls, num_envs: int, threads: int = 1, render_mode=None, **kwargs):
        from mujoco import batch as mjbatch

        if render_mode is not None:
            raise ValueError("aurgen.gym environments have no rendering: render_mode must be None")
        if int(num_envs) < 1:
            raise ValueError(f"num_envs: at least 1, got {num_envs}")
        self._proto = env_cls(**kwargs)  # compiles the model once (with the plugin instance)
        model = self._proto.model
        self.envs = [env_cls(_model=model, **kwargs) for _ in range(int(num_envs))]
        self.model = model
        self.num_envs = int(num_envs)
        self.render_mode = None
        self.single_observation_space = self._proto.observation_space
        self.single_action_space = self._proto.action_space
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, self.num_envs)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, self.num_envs)
        self._spec = mujoco.mjtState.mjSTATE_INTEGRATION
        self.batch = mjbatch.Batch(model, nsim=self.num_envs, nthread=max(1, int(threads)))
        self._rows = self.batch.state  # (num_envs, nstate): each world's integration state
        self._ctrl = self.batch.bind("ctrl")
        self._done = np.zeros(self.num_envs, dtype=bool)
        self.frame_skip = self._proto.frame_skip

    def _reset_world(self, i, seed, options):
        env = self.envs[i]
        o, info = env.reset(seed=seed, options=options)
        mujoco.mj_getState(self.model, env.data, self._rows[i], self._spec)
        return o, info

    def reset(self, *, seed=None, options=None):
        """Reset every world, or with ``options={"reset_mask": mask}`` (a bool array, one per world,
        as gymnasium's SyncVectorEnv) only those; the others keep their state and report their
        current observation."""
        options = dict(options or {})
        mask = options.pop("reset_mask", None)
        if mask is None:
            mask = np.ones(self.num_envs, dtype=bool)
        mask = np.asarray(mask)
        if mask.shape != (self.num_envs,) or mask.dtype != np.bool_:
            raise ValueError(f"options['reset_mask']: expected a bool array of shape ({self.num_envs},)")
        if isinstance(seed, int):
            seeds = [seed + i for i in range(self.num_envs)]
        elif seed is None:
            seeds = [None] * self.num_envs
        else:
            seeds = list(seed)
        obs, infos = [], {}
        for i, sd in enumerate(seeds):
            if mask[i]:
                o, info = self._reset_world(i, sd, options or None)
                infos = self._add_info(infos, info, i)
            else:
                o = self.envs[i]._obs()
            obs.append(o)
        self._done[mask] = False
        return np.stack(obs), infos

    def step(self, actions):
        actions = np.asarray(actions, dtype=np.float64).reshape(self.num_envs, -1)
        live = np.flatnonzero(~self._done)
        obs = np.empty((self.num_envs,) + self.single_observation_space.shape)
        rew = np.zeros(self.num_envs)
        term = np.zeros(self.num_envs, dtype=bool)
        trunc = np.zeros(self.num_envs, dtype=bool)
        infos = {}
        if live.size:
            lo, hi = self.single_action_space.low, self.single_action_space.high
            a = np.clip(actions[live], lo, hi)
            self._ctrl[live] = a
            self.batch.step(ids=live if live.size < self.num_envs else None, nstep=self.frame_skip)
            for k, i in enumerate(live):
                env = self.envs[i]
                mujoco.mj_setState(self.model, env.data, self._rows[i], self._spec)
                env._steps += 1
                o, r, t, info = env._transition(a[k])
                obs[i], rew[i], term[i] = o, r, t
                trunc[i] = (not t) and env._steps >= env.step_limit
                info["time"] = float(env.data.time)
                infos = self._add_info(infos, info, i)
        for i in np.flatnonzero(self._done):
            o, info = self._reset_world(i, None, None)
            obs[i] = o
            infos = self._add_info(infos, info, i)
        self._done = term | trunc
        return obs, rew, term, trunc, infos

    def close_extras(self, **kwargs):
        self._proto.close()


def _register():
    reg = gymnasium.envs.registry
    for name, cls in (("BlueBoatStationKeeping-v0", BlueBoatStationKeeping),
                      ("BlueBoatWaypoint-v0", BlueBoatWaypoint),
                      ("BlueROV2DepthHeading-v0", BlueROV2DepthHeading)):
        if name not in reg:
            gymnasium.register(id=name, entry_point=f"{__name__}:{cls.__name__}", max_episode_steps=None,
                               vector_entry_point=_vector_entry(cls))


def _vector_entry(cls):
    def make(num_envs: int = 1, **kwargs):
        return MarineVectorEnv(cls, num_envs, **kwargs)
    return make


_register()
