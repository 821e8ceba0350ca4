"""The vector environment: worlds of one environment class on ``mujoco.batch.Batch``."""

from __future__ import annotations

import mujoco
import numpy as np

from aurgen.gym.base import gymnasium, whole

# Each world keeps two MjData (its environment's and the batch's, about 0.7 MB resident each for
# the bundled vehicles, ~13.6 MB of arena reserved) and costs Python per world per step: beyond
# this, run several processes. MuJoCo ends the process (a fatal allocation error) well before
# 1e7 worlds, so the cap is checked before anything is allocated.
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
        try:
            num_envs = whole("num_envs", num_envs, 1, MAX_NUM_ENVS)
        except ValueError as exc:
            raise ValueError(f"{exc} (MAX_NUM_ENVS: each world keeps two MjData and Python per step; for more "
                             "worlds, run several processes)") from None
        threads = whole("threads", threads, 1, MAX_THREADS)
        self._proto = env_cls(**kwargs)  # compiles the model once (with the plugin instance)
        model = self._proto.model
        self.envs = [env_cls(_model=model, **kwargs) for _ in range(num_envs)]
        self.model = model
        self.num_envs = num_envs
        self.render_mode = None
        self.single_observation_space = self._proto.observation_space
        self.single_action_space = self._proto.action_space
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, self.num_envs)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, self.num_envs)
        self._spec = mujoco.mjtState.mjSTATE_INTEGRATION
        self.batch = mjbatch.Batch(model, nsim=self.num_envs, nthread=threads)
        self._rows = self.batch.state  # (num_envs, nstate): each world's integration state
        self._ctrl = self.batch.bind("ctrl")
        self._done = np.zeros(self.num_envs, dtype=bool)
        self.frame_skip = self._proto.frame_skip
        self._threads = threads

    def _reseed_sea(self, seed):
        """Every world's one sea for the episodes that follow (an irregular sea; the Batch holds one
        model): the one the single environment would draw on this reset (``seed``: world 0's), the
        model compiled again and each world given an MjData of it."""
        from mujoco import batch as mjbatch

        s = self._proto.next_sea_seed(seed)
        if s is None or s == self._proto.sea_seed:
            return
        model = self._proto.use_sea(s)
        for env in self.envs:
            env.adopt(model)
        self.model = model
        self.batch = mjbatch.Batch(model, nsim=self.num_envs, nthread=self._threads)
        self._rows = self.batch.state
        self._ctrl = self.batch.bind("ctrl")

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
        proto = self._proto
        acts = np.stack([proto.action(a_all[i], f"actions[{i}]") for i in range(self.num_envs)])
        live = np.flatnonzero(~self._done)
        obs = np.empty((self.num_envs,) + self.single_observation_space.shape)
        rew = np.zeros(self.num_envs)
        term = np.zeros(self.num_envs, dtype=bool)
        trunc = np.zeros(self.num_envs, dtype=bool)
        infos = {}
        if live.size:
            a = acts[live]
            self._ctrl[live] = a
            self.batch.step(ids=live if live.size < self.num_envs else None, nstep=self.frame_skip)
            for k, i in enumerate(live):
                env = self.envs[i]
                mujoco.mj_setState(self.model, env.data, self._rows[i], self._spec)
                obs[i], rew[i], term[i], trunc[i], info = env._finish(a[k])
                infos = self._add_info(infos, info, i)
        for i in np.flatnonzero(self._done):
            o, info = self._reset_world(i, None, None)
            obs[i] = o
            infos = self._add_info(infos, info, i)
        self._done = term | trunc
        return obs, rew, term, trunc, infos

    def close_extras(self, **kwargs):
        self._proto.close()


