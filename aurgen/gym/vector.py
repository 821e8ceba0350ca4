"""The vector environment: worlds of one environment class on ``mujoco.batch.Batch``."""

from __future__ import annotations

import mujoco
import numpy as np

from aurgen.gym.base import gymnasium, whole
from aurgen.gym.kinematics import checked_actions, frames

# Each world keeps an environment object (its random stream) and an MjData (its view, brought up to
# date when ``envs`` is read: about 0.5 MB resident each for the bundled vehicles, ~13.6 MB of arena
# reserved); beyond this, run several processes. MuJoCo ends the process (a fatal allocation error)
# well before 1e7 worlds, so the cap is checked before anything is allocated.
MAX_NUM_ENVS = 4096
MAX_THREADS = 256


class MarineVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` worlds of one environment class stepped together on ``mujoco.batch.Batch``.

    Follows gymnasium's VectorEnv API with ``AutoresetMode.NEXT_STEP``: a world that
    terminated or truncated is reset by the next ``step`` (its action then ignored,
    reward 0). ``reset(seed=s)`` seeds world i with ``s + i`` (as SyncVectorEnv does), so
    world i's trajectory is bitwise that of the single environment reset with ``s + i``
    and stepped with the same actions. All worlds share one compiled model (the
    ``aurgen.hydrostatics`` plugin carries each world's state in its MjData);
    ``threads`` > 1 runs the batch on that many threads (bitwise the same).

    A sea (``sea=``): every world steps the same sea (one compiled model). A reset of every world
    draws it as the single environment would on world 0's reset (so world 0 is bitwise that
    environment reset with the same seeds); a partial reset (``reset_mask``) and an autoreset keep
    it (a world's episode then starts in the sea the others are in, at its own time 0). So for an
    irregular sea world i > 0 is the single environment with ``seed + i`` in world 0's sea, not its own.

    The batch holds each world's ``mjSTATE_INTEGRATION`` row, and everything a step computes is
    numpy over all worlds at once on those rows: the actions checked and clipped, the controls
    written, the live worlds advanced ``frame_skip`` steps in C, then the observations, rewards,
    ends and infos of every world from the rows' qpos and qvel and the task's arrays (one row per
    world: the target, or the course and its current waypoint), with the single environment's own
    arithmetic (aurgen.gym.envs: each task is written over worlds, the single environment being one
    world), and the health from the rows' plugin state (aurgen.gym.health: a per-world reading only
    for a world the screen does not pass). A reset draws each reset world's episode from its own
    random stream (``envs[i].np_random``: the single environment's draws, a few numbers per world),
    then resets, poses and forwards those worlds on the batch. ``envs[i]`` is world i as a single
    environment (its ``data`` and episode state brought up to date from the batch when ``envs`` is
    read; a write to a world's MjData reaches the batch through ``mujoco.mj_getState`` into its row
    ``batch.state[i]``).
    """

    metadata = {"render_modes": [], "autoreset_mode": gymnasium.vector.AutoresetMode.NEXT_STEP}

    def __init__(self, env_cls, num_envs: int, threads: int = 1, render_mode=None, **kwargs):
        if render_mode is not None:
            raise ValueError("aurgen.gym environments have no rendering: render_mode must be None")
        try:
            num_envs = whole("num_envs", num_envs, 1, MAX_NUM_ENVS)
        except ValueError as exc:
            raise ValueError(f"{exc} (MAX_NUM_ENVS: each world keeps an MjData of its own; for more "
                             "worlds, run several processes)") from None
        threads = whole("threads", threads, 1, MAX_THREADS)
        self._proto = env_cls(**kwargs)  # compiles the model once (with the plugin instance)
        model = self._proto.model
        self._worlds = [env_cls(_model=model, **kwargs) for _ in range(num_envs)]
        self.num_envs = num_envs
        self.render_mode = None
        self.single_observation_space = self._proto.observation_space
        self.single_action_space = self._proto.action_space
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, self.num_envs)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, self.num_envs)
        self._spec = mujoco.mjtState.mjSTATE_INTEGRATION
        self._threads = threads
        self._use(model)
        self._done = np.zeros(self.num_envs, dtype=bool)
        self._steps = np.zeros(self.num_envs, dtype=np.int64)
        proto = self._proto
        # the episode state of every world (the task's arrays, one row per world), set by reset
        self._task = {k: np.repeat(np.asarray(v)[None], num_envs, axis=0) for k, v in proto._task_state().items()}
        self._synced = True  # the worlds' MjData and episode state are the batch's (nothing stepped yet)
        self.frame_skip = proto.frame_skip
        self._lo, self._hi = proto.action_space.low, proto.action_space.high

    def _use(self, model) -> None:
        """Step ``model`` (a new sea's): a Batch of it and the views of its rows."""
        from mujoco import batch as mjbatch

        from aurgen.gym.health import WorldsHealth

        self.model = model
        self.batch = mjbatch.Batch(model, nsim=self.num_envs, nthread=self._threads)
        self._rows = self.batch.state  # (num_envs, nstate): each world's integration state
        self._ctrl = self.batch.bind("ctrl")
        self._qpos, self._qvel = self.batch.bind("qpos"), self.batch.bind("qvel")
        self._time, self._plugin = self.batch.bind("time"), self.batch.bind("plugin_state")
        self._health = WorldsHealth(model, self._proto._instance)

    @property
    def envs(self) -> list:
        """The worlds as single environments: world i's ``data`` (its MjData) holds its batch row and
        its episode state (``_target``, the waypoint course ...) is the vector env's, as of the latest
        ``step`` or ``reset`` (brought up to date here, when read after one)."""
        if not self._synced:
            task = self._task
            for i, env in enumerate(self._worlds):
                if env.model is not self.model:
                    env.adopt(self.model)
                mujoco.mj_setState(self.model, env.data, self._rows[i], self._spec)
                env._set_task({k: v[i] for k, v in task.items()})
                env._steps = int(self._steps[i])
            self._synced = True
        return self._worlds

    def _reseed_sea(self, seed):
        """Every world's one sea for the episodes that follow (an irregular sea; the Batch holds one
        model): the one the single environment would draw on this reset (``seed``: world 0's), the
        model compiled again and the batch made of it (each world's MjData follows when ``envs`` is read)."""
        s = self._proto.next_sea_seed(seed)
        if s is None or s == self._proto.sea_seed:
            return
        self._use(self._proto.use_sea(s))

    def _infos(self, parts) -> dict:
        """gymnasium's vector infos (each key an array over worlds and ``_key`` its mask, as
        ``VectorEnv._add_info`` builds them world by world) of ``parts``: (worlds (int array), their
        infos {key: (len(worlds),) array}), the keys in the order the first part gives them."""
        out = {}
        for ids, info in parts:
            for key, v in info.items():
                if key not in out:
                    kind = v.dtype
                    out[key] = np.full(self.num_envs, None, dtype=object) if kind == object else \
                        np.zeros(self.num_envs, dtype=kind)
                    out[f"_{key}"] = np.zeros(self.num_envs, dtype=np.bool_)
                out[key][ids] = v
                out[f"_{key}"][ids] = True
        return out

    def _ended(self, ids, info, qpos=None, qvel=None) -> tuple:
        """(health ok (n,), info with ``time``, ``health`` and ``health_reason`` added) of worlds ``ids``
        (None: all) after a step or reset (the single environment's ``_info``); ``qpos``, ``qvel``: their
        rows' values where the caller has them."""
        sel = slice(None) if ids is None else ids
        q = self._qpos[sel] if qpos is None else qpos
        v = self._qvel[sel] if qvel is None else qvel
        ok, status, reason = self._health.of(self._rows[sel], self._plugin[sel], q, v)
        info["time"] = self._time[sel].copy()
        info["health"], info["health_reason"] = status, reason
        return ok, info

    def _reset_worlds(self, ids, seeds) -> dict:
        """Reset worlds ``ids`` (int array): each world's episode drawn from its own stream (reseeded with
        its entry of ``seeds`` where not None), its row reset, posed and forwarded on the batch, its
        task's arrays set; their info."""
        proto = self._proto
        draws = np.stack([self._worlds[i].draw_episode(sd) for i, sd in zip(ids, seeds)])
        pos, quat, task = proto._begin(draws)
        b, tally = self.batch, self._health.tally(self._plugin, ids)
        b.reset(ids, stage=mujoco.mjtStage.mjSTAGE_NONE)
        self._health.reset_with_tally(self._plugin, ids, tally)
        self._qpos[ids, 0:3] = pos
        self._qpos[ids, 3:7] = quat
        b.forward(ids)
        task = proto._started(self._qpos[ids], task)
        for k, v in task.items():
            self._task[k][ids] = v
        self._steps[ids] = 0
        self._synced = False
        return self._ended(ids, {})[1]

    def _observe(self, ids=None) -> np.ndarray:
        """The observations of worlds ``ids`` (None: all) now."""
        sel = slice(None) if ids is None else ids
        q = self._qpos[sel]
        task = {k: v[sel] for k, v in self._task.items()}
        return self._proto._observe(q, self._qvel[sel], task, frames(q[:, 3:7]))

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
        if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            seeds = [int(seed) + i for i in range(self.num_envs)]
        elif seed is None:
            seeds = [None] * self.num_envs
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"seed: an int, None or one seed per world ({self.num_envs}), got {len(seeds)}")
        if mask.all():  # a reset of every world: the sea reseeded, as world 0's single environment would
            self._reseed_sea(seeds[0])
        ids = np.flatnonzero(mask)
        infos = {}
        if ids.size:
            infos = self._infos([(ids, self._reset_worlds(ids, [seeds[i] for i in ids]))])
        self._done[mask] = False
        return self._observe(), infos

    def step(self, actions):
        """Step every live world with its row of ``actions`` ((num_envs, nu); each row checked and
        clipped as the single environment's ``step`` does, a non-finite one refused even where
        the world is autoreset and its action ignored)."""
        try:
            a_all = np.asarray(actions, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"actions: expected an array of shape {self.action_space.shape} (N), got "
                             f"{actions!r}") from None
        if a_all.shape != self.action_space.shape:
            raise ValueError(f"actions: expected shape {self.action_space.shape} (num_envs, thruster commands), "
                             f"got shape {np.shape(actions)}")
        acts = checked_actions(a_all, self._lo, self._hi, self._proto._names)
        n, done = self.num_envs, self._done
        obs = np.empty((n,) + self.single_observation_space.shape)
        rew = np.zeros(n)
        term = np.zeros(n, dtype=bool)
        trunc = np.zeros(n, dtype=bool)
        parts = []
        live = np.flatnonzero(~done)
        if live.size:
            every = live.size == n
            sel = slice(None) if every else live
            self._ctrl[sel] = acts[sel]
            self.batch.step(ids=None if every else live, nstep=self.frame_skip)
            q, v = np.array(self._qpos[sel]), np.array(self._qvel[sel])  # one read of the rows each
            task = {k: x[sel] for k, x in self._task.items()}
            o, r, t, info = self._proto._step_worlds(q, v, task, acts[sel])
            for k, x in task.items():
                self._task[k][sel] = x
            self._steps[sel] += 1
            ok, info = self._ended(None if every else live, info, q, v)
            t |= ~ok  # an invalid health terminates
            obs[sel], rew[sel], term[sel] = o, r, t
            trunc[sel] = ~t & (self._steps[sel] >= self._proto.step_limit)
            parts.append((live, info))
        if done.any():
            ids = np.flatnonzero(done)
            parts.append((ids, self._reset_worlds(ids, [None] * ids.size)))
            obs[ids] = self._observe(ids)
        self._synced = False
        self._done = term | trunc
        return obs, rew, term, trunc, self._infos(parts)

    def close_extras(self, **kwargs):
        self._proto.close()
