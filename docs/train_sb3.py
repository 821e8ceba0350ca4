"""Train a PPO policy for the BlueBoat on aurgen's vector environment (stable-baselines3).

An example, not run in CI, and stable-baselines3 is not one of aurgen's dependencies:

    pip install '.[scale]' stable-baselines3
    python docs/train_sb3.py --env BlueBoatWaypoint-v0 --num-envs 64 --steps 2000000 --threads 2

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

import gymnasium
import numpy as np

import aurgen.gym  # noqa: F401  (registers the ids)

try:
    from stable_baselines3 import PPO
    from stable_baselines3.common.vec_env import VecEnv, VecMonitor, VecNormalize
except ImportError as exc:  # pragma: no cover - an example
    raise SystemExit("this example needs stable-baselines3: pip install stable-baselines3") from exc


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


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--env", default="BlueBoatWaypoint-v0",
                    help="BlueBoatWaypoint-v0, BlueBoatStationKeeping-v0 or BlueROV2DepthHeading-v0")
    ap.add_argument("--num-envs", type=int, default=64)
    ap.add_argument("--threads", type=int, default=2, help="mujoco.batch threads")
    ap.add_argument("--steps", type=int, default=1_000_000, help="environment steps in all")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="ppo_blueboat", help="where the policy and the normalisation go")
    args = ap.parse_args(argv)

    vec = gymnasium.make_vec(args.env, num_envs=args.num_envs, vectorization_mode="vector_entry_point",
                             threads=args.threads)
    env = AurgenVecEnv(vec)
    env.seed(args.seed)
    env = VecNormalize(VecMonitor(env), norm_obs=True, norm_reward=True, clip_obs=10.0)
    model = PPO("MlpPolicy", env, n_steps=256, batch_size=4096, n_epochs=5, gamma=0.99, gae_lambda=0.95,
                learning_rate=3e-4, ent_coef=0.0, clip_range=0.2, seed=args.seed, verbose=1,
                policy_kwargs={"net_arch": [128, 128]})
    model.learn(total_timesteps=args.steps)
    model.save(args.out)
    env.save(f"{args.out}_vecnormalize.pkl")
    env.close()

    # roll the trained policy out in one environment (normalised as in training)
    single = AurgenVecEnv(gymnasium.make_vec(args.env, num_envs=1, vectorization_mode="vector_entry_point"))
    single.seed(args.seed + 10_000)
    norm = VecNormalize.load(f"{args.out}_vecnormalize.pkl", single)
    norm.training, norm.norm_reward = False, False
    obs, total = norm.reset(), 0.0
    for _ in range(1000):
        action, _ = model.predict(obs, deterministic=True)
        obs, reward, done, info = norm.step(action)
        total += float(reward[0])
        if done[0]:
            break
    print(f"{args.env}: one evaluation episode, return {total:.2f}")


if __name__ == "__main__":
    main()
