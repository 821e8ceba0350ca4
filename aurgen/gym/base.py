"""The environments' common ground: the vehicle composed in memory, the free body's kinematics, the
checks of every setting and action, the health read after every step (the rules: aurgen.gym's
module docstring)."""

from __future__ import annotations

import math
import numbers

import mujoco
import numpy as np

from aurgen.gym.kinematics import body_velocity, capsized, control_cost, frames, roll_pitch, stack, yaw_of

try:
    import gymnasium
    from gymnasium import spaces
except ImportError as exc:  # pragma: no cover - the scale extra is missing
    raise ImportError("aurgen.gym needs gymnasium: pip install gymnasium (or pip install '.[scale]' in aurgen's "
                      "clone)") from exc

MAX_FRAME_SKIP = 10_000  # MuJoCo steps per env step (20 s at the 2 ms step)
MAX_STEP_LIMIT = 10 ** 9


def whole(name: str, v, lo: int, hi: int) -> int:
    """``v`` as an int in [lo, hi] (a whole float such as 10.0 is honoured); ValueError naming
    ``name`` otherwise (a bool, 2.5, NaN, a string)."""
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise ValueError(f"{name}: a whole number in [{lo}, {hi}], got {v!r}")
    f = float(v) if not isinstance(v, numbers.Integral) else None
    if f is not None and not (math.isfinite(f) and f == int(f)):
        raise ValueError(f"{name}: a whole number in [{lo}, {hi}], got {v!r}")
    n = int(v)
    if not lo <= n <= hi:
        raise ValueError(f"{name}: a whole number in [{lo}, {hi}], got {v!r}")
    return n


def real(name: str, v, lo: float = -math.inf, hi: float = math.inf, above: float | None = None) -> float:
    """``v`` as a finite float in [lo, hi] (and > ``above`` where given); ValueError naming
    ``name`` otherwise."""
    ok = not isinstance(v, bool) and isinstance(v, numbers.Real)
    f = float(v) if ok else math.nan
    if not (math.isfinite(f) and lo <= f <= hi and (above is None or f > above)):
        want = [f"> {above:g}"] if above is not None else []
        want += [f">= {lo:g}"] if math.isfinite(lo) else []
        want += [f"<= {hi:g}"] if math.isfinite(hi) else []
        raise ValueError(f"{name}: a finite number{' ' + ' and '.join(want) if want else ''}, got {v!r}")
    return f


def interval(name: str, v, lo: float = -math.inf, hi: float = math.inf, positive: bool = False) -> tuple:
    """``v`` as (low, high), two finite numbers with lo <= low <= high <= hi (0 < low if
    ``positive``); ValueError naming ``name`` otherwise."""
    try:
        a, b = v
    except (TypeError, ValueError):
        raise ValueError(f"{name}: a pair (low, high), got {v!r}") from None
    a, b = real(f"{name}[0]", a, lo, hi), real(f"{name}[1]", b, lo, hi)
    if not a <= b or (positive and not a > 0):
        raise ValueError(f"{name}: expected {'0 < ' if positive else ''}low <= high, got {v!r}")
    return a, b


def sea_keyword(sea):
    """The ``sea`` keyword checked: None (still water), or a mapping of the world's ``waves:`` keys
    but ``surface`` (aurgen.analysis.sea: checked and synthesised as a world's sea, in its words).
    Returns (the mapping as a plain dict, its Sea) or (None, None); ValueError naming ``sea.<key>``."""
    from collections.abc import Mapping

    from aurgen.analysis.sea import sea_of
    from aurgen.core.errors import ConfigError

    if sea is None:
        return None, None
    if not isinstance(sea, Mapping):
        raise ValueError(f"sea: None or a mapping of the world's waves keys (spectrum, height, period, hs, tp, "
                         f"...), got {sea!r}")
    try:
        return dict(sea), sea_of(sea, prefix="sea")
    except ConfigError as exc:
        raise ValueError(exc.render()) from None


SEA_STREAM = 0x5EA  # the episode seeds' stream, beside the env's np_random: numpy.random.default_rng([SEA_STREAM, ...])


def sea_seeds(declared: int, seed):
    """The generator of an irregular sea's episode seeds: seeded by (the sea's declared ``seed``, the
    reset's ``seed``), or from entropy for ``seed`` None (an env never seeded)."""
    return np.random.default_rng([SEA_STREAM, int(declared), int(seed)]) if seed is not None \
        else np.random.default_rng()


_MODELS: dict = {}


def _vehicle_xml(config: str, given=None):
    """(MJCF text, fluid density, kernel equilibrium) of the bundled config ``config``, or of
    ``given`` (a path or a name, resolved as the CLI does), composed in memory (cached)."""
    from aurgen.config.vehicle import bundled_config, resolve_config_path

    path = bundled_config(config) if given is None else resolve_config_path(given)
    key = (str(path), path.stat().st_mtime_ns)
    if key not in _MODELS:
        from aurgen.emit.build import model_mjcf
        from aurgen.compose.resolve import resolve
        from aurgen.analysis.stability import body_of
        from aurgen.compose.stamp import equilibrium_of

        v = resolve(path)
        _MODELS[key] = (model_mjcf(v), float(body_of(v).rho), equilibrium_of(v))
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

    def __init__(self, render_mode=None, frame_skip: int = 10, step_limit: int = 1000, _model=None, config=None,
                 sea=None):
        if render_mode is not None:
            raise ValueError("aurgen.gym environments have no rendering: render_mode must be None")
        from aurgen.runtime.sim.health import find_instance

        self.render_mode = None
        self.frame_skip = whole("frame_skip", frame_skip, 1, MAX_FRAME_SKIP)
        self.step_limit = whole("step_limit", step_limit, 1, MAX_STEP_LIMIT)
        self.sea, sea0 = sea_keyword(sea)  # the declaration as given (None: still water)
        self._xml, self._rho, self._eq = _vehicle_xml(self.config, config)
        # an irregular sea is reseeded per episode (reset); a regular wave has no phases to draw
        self._reseeds = self.sea is not None and self.sea.get("spectrum") != "regular"
        self._sea_rng = None
        self.sea_seed = self.sea.get("seed", 0) if self._reseeds else None  # the sea the model now carries
        if _model is None:
            self.sim = self._simulation(sea0)
            self.model, self.data = self.sim.model, self.sim.data
        else:  # a world of a vector env: the shared model (carrying the plugin and the sea), its own MjData
            self.sim = None
            self.model, self.data = _model, mujoco.MjData(_model)
        self._instance = find_instance(self.model)
        self._names = [self.model.actuator(i).name for i in range(self.model.nu)]
        self.dt = self.model.opt.timestep * self.frame_skip
        lo, hi = self.model.actuator_ctrlrange[:, 0].copy(), self.model.actuator_ctrlrange[:, 1].copy()
        self.action_space = spaces.Box(lo, hi, dtype=np.float64)
        self._amax = float(np.max(np.abs(np.concatenate([lo, hi]))))
        n = self._nobs
        self.observation_space = spaces.Box(-np.inf, np.inf, shape=(n,), dtype=np.float64)
        self._steps = 0
        self._target = np.zeros(4)  # x, y, z, yaw

    # -- the sea
    def _simulation(self, sea):
        """A Simulation of the vehicle in open water at its density (surface z = 0), carrying ``sea``
        (an aurgen.runtime.environment.waves.Sea) or still water (``water=``: the model as it always was)."""
        from aurgen.runtime.sim import Simulation

        if sea is None:
            return Simulation(self._xml, water=self._rho)
        from aurgen.analysis.timedomain import environment_of

        return Simulation(self._xml, environment=environment_of(self._rho, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), sea))

    def next_sea_seed(self, seed) -> int | None:
        """The seed of the next episode's sea (None: no sea to reseed): a reset with ``seed`` restarts
        the draws (:func:`sea_seeds`), one without takes the next (from entropy if never seeded)."""
        if not self._reseeds:
            return None
        if seed is not None or self._sea_rng is None:
            self._sea_rng = sea_seeds(self.sea.get("seed", 0), seed)
        return int(self._sea_rng.integers(0, 2 ** 63 - 1))

    def use_sea(self, sea_seed: int):
        """Carry the sea with seed ``sea_seed`` (its model compiled again: about 10 ms for the BlueBoat);
        the model now stepped."""
        from aurgen.analysis.sea import sea_of
        from aurgen.runtime.sim.health import find_instance

        if sea_seed != self.sea_seed:
            sim = self._simulation(sea_of(dict(self.sea, seed=sea_seed), prefix="sea"))
            if self.sim is not None:
                self.sim.close()
            self.sim, self.model, self.data = sim, sim.model, sim.data
            self._instance = find_instance(self.model)
            self.sea_seed = sea_seed
        return self.model

    def adopt(self, model):
        """A vector env's world: step ``model`` (its sea) with an MjData of its own."""
        from aurgen.runtime.sim.health import find_instance

        self.model, self.data = model, mujoco.MjData(model)
        self._instance = find_instance(model)

    def reset(self, *, seed=None, options=None):
        """gymnasium's reset (``np_random`` seeded by ``seed``; for an irregular sea of an env of its own,
        not a vector env's world, the episode's sea), then the episode's draws from ``np_random``, the
        start pose and the task's state (the arithmetic of a vector env's reset of many worlds, here on
        one): (observation, info)."""
        super().reset(seed=seed)
        if self.sim is not None:
            s = self.next_sea_seed(seed)
            if s is not None:
                self.use_sea(s)
        pos, quat, task = self._begin(self._draw()[None])
        self._set_pose(pos[0], quat[0])
        self._set_task(self._started(self.data.qpos, {k: v[0] for k, v in task.items()}))
        self._steps = 0
        return self._obs(), self._info({})

    def draw_episode(self, seed=None) -> np.ndarray:
        """A vector env's world reset: gymnasium's reset (``np_random`` seeded by ``seed``, else kept) and
        the episode's draws (:meth:`_draw`), which the vector env turns into the world's start."""
        gymnasium.Env.reset(self, seed=seed)
        return self._draw()

    # -- the task, written once for one world and for many (aurgen.gym.kinematics: one world's values
    # give numpy scalars, arrays with a first axis over worlds give arrays over worlds)
    _TASK: dict = {}  # the episode's state: {key of the task's values: the env's attribute}

    def _draw(self) -> np.ndarray:
        """The episode's random draws from ``np_random``, in the order drawn (1-D)."""
        raise NotImplementedError

    def _begin(self, draws) -> tuple:
        """(pos (N, 3) m, quat (N, 4), the task's arrays) of episodes from their ``draws`` (N, k)."""
        raise NotImplementedError

    def _started(self, qpos, task) -> dict:
        """The task's state once the worlds stand at their start ``qpos`` (the default: as it is)."""
        return task

    def _observe(self, qpos, qvel, task, R) -> np.ndarray:
        """The observations (N, nobs) of worlds at ``qpos`` (N, nq), ``qvel`` (N, nv), with their task's
        state and body rotations ``R`` (kinematics.frames); one world's (nobs,) from its own."""
        raise NotImplementedError

    def _score_worlds(self, obs, a, qpos, R) -> tuple:
        """(reward, terminated, info {key: value}) of worlds that observe ``obs`` after a step with the
        applied commands ``a`` (N, nu): arrays over worlds, or one world's scalars."""
        raise NotImplementedError

    def _step_worlds(self, qpos, qvel, task, a) -> tuple:
        """(obs, reward, terminated, info) of worlds after a step with the applied commands ``a``; the
        task's state in ``task`` updated (its entries rebound) where the step changes it."""
        R = frames(qpos[..., 3:7])
        obs = self._observe(qpos, qvel, task, R)
        return (obs,) + self._score_worlds(obs, a, qpos, R)

    # -- the single environment: one world
    def _task_state(self) -> dict:
        """This env's episode state as the task's values of one world (its arrays as they are, a number
        as a numpy scalar)."""
        out = {}
        for k, attr in self._TASK.items():
            v = getattr(self, attr)
            out[k] = v if isinstance(v, np.ndarray) else np.asarray(v)[()]
        return out

    def _set_task(self, task) -> None:
        """Take the episode state from the task's values of one world (a number as a Python number)."""
        for k, attr in self._TASK.items():
            v = task[k]
            if v is not getattr(self, attr):
                setattr(self, attr, v.item() if np.ndim(v) == 0 else np.array(v))

    def _frames(self):
        return frames(self.data.qpos[3:7])

    def _R(self) -> np.ndarray:
        """The body rotation (3, 3) from qpos (kinematics.frames; after mj_step, xmat is still the
        step's start). Read-only."""
        R = np.array(self._frames(), dtype=np.float64).reshape(3, 3)
        R.flags.writeable = False
        return R

    def _yaw(self) -> float:
        return float(yaw_of(self._frames()))

    def _rp(self):
        heel, trim = roll_pitch(self._frames())
        return float(heel), float(trim)

    def _body_vel(self) -> np.ndarray:
        return stack(body_velocity(self._frames(), self.data.qvel))

    def _capsized(self) -> bool:
        return bool(capsized(self._frames()))

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
        return float(control_cost(np.asarray(a, float), self._amax))

    def _obs(self) -> np.ndarray:
        """The observation now (nobs,)."""
        q = self.data.qpos
        return self._observe(q, self.data.qvel, self._task_state(), frames(q[3:7]))

    def _score(self, obs, a):
        """(reward, terminated, info) of the observation ``obs`` after a step with the applied action ``a``."""
        q = self.data.qpos
        r, t, info = self._score_worlds(np.asarray(obs, float), np.asarray(a, float), q, frames(q[3:7]))
        return float(r), bool(t), {k: v.item() for k, v in info.items()}

    def _transition(self, a):
        """(observation, reward, terminated, info) after a step with the (clipped) action ``a``."""
        task = self._task_state()
        obs, r, t, info = self._step_worlds(self.data.qpos, self.data.qvel, task, np.asarray(a, float))
        self._set_task(task)
        return obs, float(r), bool(t), {k: v.item() for k, v in info.items()}

    def action(self, action, what: str = "action") -> np.ndarray:
        """The thruster commands ``action`` as applied: refused (ValueError) unless of the action
        space's shape and finite; clipped into each actuator's ctrlrange."""
        try:
            a = np.asarray(action, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"{what}: expected {self.model.nu} numbers (N), got {action!r}") from None
        if a.shape != self.action_space.shape:
            raise ValueError(f"{what}: expected shape {self.action_space.shape} (the thruster commands in N of "
                             f"{', '.join(self._names)}), got shape {a.shape}")
        bad = np.flatnonzero(~np.isfinite(a))
        if bad.size:
            i = int(bad[0])
            raise ValueError(f"{what}: the command for {self._names[i]} (index {i}) is {float(a[i])!r}; a non-finite "
                             "action is refused, never clipped (reset or pass finite numbers)")
        return np.clip(a, self.action_space.low, self.action_space.high)

    def health(self):
        """The world's :class:`aurgen.runtime.sim.health.Health` now (the runtime's ledger, read from
        the plugin state)."""
        if self.sim is not None:
            return self.sim.check()
        from aurgen.runtime.sim.health import health_of

        return health_of(self.model, self.data, instance=self._instance)

    def _info(self, info: dict) -> dict:
        h = self.health()
        info["time"] = float(self.data.time)
        info["health"] = h.status
        info["health_reason"] = h.reason or ""
        return info

    def _finish(self, a):
        """(obs, reward, terminated, truncated, info) of the step just taken with the applied
        action ``a``: an invalid health terminates, its reason in ``info``."""
        self._steps += 1
        obs, reward, terminated, info = self._transition(a)
        info = self._info(info)
        terminated = bool(terminated or info["health"] != "ok")
        truncated = (not terminated) and self._steps >= self.step_limit
        return obs, reward, terminated, truncated, info

    def step(self, action):
        a = self.action(action)
        self.data.ctrl[:] = a
        self.sim.step(self.frame_skip)
        return self._finish(a)

    def render(self):
        return None

    def close(self):
        if getattr(self, "sim", None) is not None:
            self.sim.close()
            self.sim = None


