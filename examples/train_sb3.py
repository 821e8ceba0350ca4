"""Train a PPO policy for the BlueBoat on aurgen's vector environment (stable-baselines3).

What it shows: aurgen's gymnasium environments (``aurgen.gym``: ``BlueBoatWaypoint-v0``,
``BlueBoatStationKeeping-v0``, ``BlueROV2DepthHeading-v0``) trained with stable-baselines3's PPO, then
one evaluation episode of the trained policy.

Run it::

    pip install 'aurgen[scale,examples]'    # gymnasium, stable-baselines3 (and its torch)
    python examples/train_sb3.py --env BlueBoatWaypoint-v0 --num-envs 64 --steps 2000000 --threads 2
    python examples/train_sb3.py --quick --out my_ppo     # a smoke run: 4096 steps on 8 worlds, ~1 min

``--quick`` trains 4,096 steps on 8 worlds with short rollouts (it shows the pipeline works, it does not
learn the task: that takes millions of steps); ``--steps``/``--num-envs`` given with it still win.

Writes, under ``--out`` (default ``./examples_out/train_sb3``): ``policy.zip`` (the PPO model,
``PPO.load``), ``vecnormalize.pkl`` (the observation and reward normalisation, ``VecNormalize.load``).
Prints stable-baselines3's training log and the evaluation episode's return and length.

Needs: gymnasium (the ``scale`` extra) and stable-baselines3 (the ``examples`` extra; it pulls torch).

The worlds run on ``mujoco.batch.Batch`` (``aurgen.gym.MarineVectorEnv``: one compiled
model, the ``aurgen.hydrostatics`` plugin's forces inside ``mj_step``). stable-baselines3
has its own vector API (``VecEnv``: ``reset()`` returns the observations only, and a world
that finishes is reset in the same ``step``, its last observation in
``info["terminal_observation"]``), so :class:`AurgenVecEnv` adapts gymnasium's
``VectorEnv`` (next-step autoreset) to it through ``reset(options={"reset_mask": ...})``.
Actions are thruster commands in newtons; PPO's Gaussian policy is unbounded, so the
adapter clips to the actuators' ranges (the environment clips too) and
``VecNormalize`` scales observations and rewards.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import gymnasium
import numpy as np

import aurgen.gym  # noqa: F401  (registers the ids)

try:
    from stable_baselines3 import PPO
    from stable_baselines3.common.vec_env import VecEnv, VecMonitor, VecNormalize
except ImportError as exc:  # pragma: no cover - an example
    raise SystemExit("this example needs stable-baselines3: pip install stable-baselines3 "
                     "(or aurgen's examples extra)") from exc


class AurgenVecEnv(VecEnv):
    """A gymnasium ``VectorEnv`` with next-step autoreset as a stable-baselines3 ``VecEnv``."""

    def __init__(self, vec):
        self.vec = vec
        super().__init__(vec.num_envs, vec.single_observation_space, vec.single_action_space)
        self._actions = None
        self._seed = None

    def reset(self):
        obs, _ = self.vec.reset(seed=self._seed)
        self._seed = None
        return obs

    def step_async(self, actions):
        lo, hi = self.action_space.low, self.action_space.high
        self._actions = np.clip(np.asarray(actions, dtype=np.float64), lo, hi)

    def step_wait(self):
        obs, rew, term, trunc, info = self.vec.step(self._actions)
        done = term | trunc
        infos = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(done):
            infos[i]["terminal_observation"] = obs[i].copy()
            infos[i]["TimeLimit.truncated"] = bool(trunc[i] and not term[i])
        if done.any():  # stable-baselines3 resets in the same step
            fresh, _ = self.vec.reset(options={"reset_mask": done})
            obs[done] = fresh[done]
        return obs, rew.astype(np.float32), done, infos

    def seed(self, seed=None):
        self._seed = seed
        return [None if seed is None else seed + i for i in range(self.num_envs)]

    def close(self):
        self.vec.close()

    def get_attr(self, attr_name, indices=None):
        return [getattr(self.vec.envs[i], attr_name) for i in self._indices(indices)]

    def set_attr(self, attr_name, value, indices=None):
        for i in self._indices(indices):
            setattr(self.vec.envs[i], attr_name, value)

    def env_method(self, method_name, *args, indices=None, **kwargs):
        return [getattr(self.vec.envs[i], method_name)(*args, **kwargs) for i in self._indices(indices)]

    def env_is_wrapped(self, wrapper_class, indices=None):
        return [False for _ in self._indices(indices)]

    def _indices(self, indices):
        if indices is None:
            return range(self.num_envs)
        return [indices] if isinstance(indices, int) else indices


def evaluate(env_id: str, model, vecnormalize: str, seed: int, max_steps: int = 1000) -> tuple:
    """(return, steps) of one deterministic episode of ``model`` in a fresh single world of ``env_id``
    reset with ``seed``, observations normalised by the saved ``vecnormalize`` statistics (frozen)."""
    single = AurgenVecEnv(gymnasium.make_vec(env_id, num_envs=1, vectorization_mode="vector_entry_point"))
    single.seed(seed)
    norm = VecNormalize.load(vecnormalize, single)
    norm.training, norm.norm_reward = False, False
    obs, total, steps = norm.reset(), 0.0, 0
    for steps in range(1, max_steps + 1):
        action, _ = model.predict(obs, deterministic=True)
        obs, reward, done, _ = norm.step(action)
        total += float(reward[0])
        if done[0]:
            break
    norm.close()
    return total, steps


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--env", default="BlueBoatWaypoint-v0",
                    help="BlueBoatWaypoint-v0, BlueBoatStationKeeping-v0 or BlueROV2DepthHeading-v0")
    ap.add_argument("--num-envs", type=int, help="worlds stepped together (default 64; --quick 8)")
    ap.add_argument("--threads", type=int, default=2, help="mujoco.batch threads")
    ap.add_argument("--steps", type=int, help="environment steps in all (default 1,000,000; --quick 4096)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="examples_out/train_sb3", help="output folder: the policy and the normalisation")
    ap.add_argument("--quick", action="store_true", help="a smoke run: 4096 steps on 8 worlds, short rollouts")
    args = ap.parse_args(argv)
    num_envs = args.num_envs or (8 if args.quick else 64)
    steps = args.steps or (4096 if args.quick else 1_000_000)
    n_steps, batch_size = (128, 256) if args.quick else (256, 4096)
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)

    vec = gymnasium.make_vec(args.env, num_envs=num_envs, vectorization_mode="vector_entry_point",
                             threads=args.threads)
    env = AurgenVecEnv(vec)
    env.seed(args.seed)
    env = VecNormalize(VecMonitor(env), norm_obs=True, norm_reward=True, clip_obs=10.0)
    model = PPO("MlpPolicy", env, n_steps=n_steps, batch_size=batch_size, n_epochs=5, gamma=0.99, gae_lambda=0.95,
                learning_rate=3e-4, ent_coef=0.0, clip_range=0.2, seed=args.seed, verbose=1,
                policy_kwargs={"net_arch": [128, 128]})
    model.learn(total_timesteps=steps)
    model.save(out / "policy.zip")
    env.save(str(out / "vecnormalize.pkl"))
    env.close()
    print(f"wrote {out / 'policy.zip'} ({model.num_timesteps} steps trained) and {out / 'vecnormalize.pkl'}")

    # roll the trained policy out in one environment (normalised as in training)
    total, n = evaluate(args.env, model, str(out / "vecnormalize.pkl"), args.seed + 10_000)
    print(f"{args.env}: one evaluation episode (seed {args.seed + 10_000}), return {total:.6f} in {n} steps")
    return 0


if __name__ == "__main__":
    sys.exit(main())
