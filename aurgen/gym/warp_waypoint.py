"""BlueBoat waypoint following on MuJoCo Warp: BlueBoatWaypoint-v0 with everything on the device.

    from aurgen.gym.warp_waypoint import WarpWaypoint
    env = WarpWaypoint(num_envs=4096, current=flow_per_world)
    obs, info = env.reset(seed=0)                 # obs: a warp array (num_envs, 12), on the device
    obs, reward, terminated, truncated, info = env.step(actions)   # actions: (num_envs, 2) float32

``gymnasium.make_vec("BlueBoatWaypoint-v0", num_envs=N, vectorization_mode="vector_entry_point",
backend="warp")`` gives it too. The environment is envs.py ``BlueBoatWaypoint``'s (aurgen.gym's module
docstring: its observation, reward, waypoint rule, reset distribution and ends) on aurgen.gym.warp's
:class:`~aurgen.gym.warp.WarpEnv` (its differences from the CPU environments: float32, Warp's random
streams, no health ledger, per-world ``density``, ``current`` and ``mass_scale``). The reset kernel mirrors
``BlueBoatWaypoint.reset`` (the course drawn leg by leg from the origin), the observation kernel
``_obs`` and ``_transition`` (the distance gained, the bonus and the switch to the next waypoint within
``reach_radius``, terminated on the last one reached); tests/aurgen/test_gym_warp.py checks them against
the CPU code on the same states.

``info``: ``nonfinite``, ``distance`` (m, to the current waypoint), ``waypoint`` (its index) and ``reached``
(how many), device arrays of (num_envs,), as the CPU environment's info. The course is ``env.waypoints``
((num_envs, n_waypoints, 2), world frame, m).
"""

import math

from aurgen.gym.envs import BlueBoatWaypoint
from aurgen.gym.warp import WarpEnv, _kernels

_KERNELS = None


def _waypoint_kernels():
    """The waypoint task's reset and observation kernels (on aurgen.gym.warp's shared functions)."""
    global _KERNELS
    if _KERNELS is not None:
        return _KERNELS
    import warp as wp

    k = _kernels()
    stream, pose, frame, yaw_of, in_yaw_frame = k["stream"], k["pose"], k["frame"], k["yaw_of"], k["in_yaw_frame"]
    motion, finite_row, cost, finish = k["motion"], k["finite_row"], k["cost"], k["finish"]
    HALF_PI = 0.5 * math.pi

    @wp.func
    def gap(wps: wp.array3d(dtype=float), w: int, j: int, qpos: wp.array2d(dtype=float)) -> float:
        # envs.py BlueBoatWaypoint._distance: the horizontal distance (m) from the boat to waypoint j
        dx = wps[w, j, 0] - qpos[w, 0]
        dy = wps[w, j, 1] - qpos[w, 1]
        return wp.sqrt(dx * dx + dy * dy)

    @wp.kernel
    def reset(mask: wp.array(dtype=bool), seed: int, episode: wp.array(dtype=int), eq_pos: wp.vec3,
              eq_quat: wp.vec4, leg_lo: float, leg_hi: float, qpos: wp.array2d(dtype=float),
              wps: wp.array3d(dtype=float), current: wp.array(dtype=int), last: wp.array(dtype=float),
              steps: wp.array(dtype=int)):
        # envs.py BlueBoatWaypoint.reset: yaw uniform in [-pi, pi); each waypoint a leg uniform in
        # [leg_lo, leg_hi] m from the one before (the first from the origin) on a bearing turned uniformly
        # within +-pi/2; the boat at the kernel's equilibrium, yawed; the first waypoint current
        w = wp.tid()
        if not mask[w]:
            return
        st = stream(seed, w, episode)
        yaw0 = wp.randf(st, -wp.pi, wp.pi)
        bearing = float(yaw0)
        px = float(0.0)
        py = float(0.0)
        for j in range(wps.shape[1]):
            bearing += wp.randf(st, -HALF_PI, HALF_PI)
            leg = wp.randf(st, leg_lo, leg_hi)
            px += leg * wp.cos(bearing)
            py += leg * wp.sin(bearing)
            wps[w, j, 0] = px
            wps[w, j, 1] = py
        pose(w, yaw0, eq_pos, eq_quat, qpos)
        current[w] = 0
        last[w] = gap(wps, w, 0, qpos)
        steps[w] = 0

    @wp.kernel
    def observe(qpos: wp.array2d(dtype=float), qvel: wp.array2d(dtype=float), wps: wp.array3d(dtype=float),
                applied: wp.array2d(dtype=float), amax: float, reach_radius: float, reach_bonus: float,
                max_distance: float, step_limit: int, count: int, ended: wp.array(dtype=bool),
                steps: wp.array(dtype=int), current: wp.array(dtype=int), last: wp.array(dtype=float),
                obs: wp.array2d(dtype=float), reward: wp.array(dtype=float), terminated: wp.array(dtype=int),
                truncated: wp.array(dtype=int), nonfinite: wp.array(dtype=int), distance: wp.array(dtype=float),
                reached: wp.array(dtype=int)):
        # envs.py BlueBoatWaypoint._transition and _obs (count 0: the reset's observation, no step)
        w = wp.tid()
        live = count != 0 and not ended[w]
        nw = wps.shape[1]
        j = int(current[w])
        dist = float(gap(wps, w, j, qpos))
        rew = float(0.0)
        done = bool(False)
        if live:
            rew = (last[w] - dist) - cost(applied, w, amax)
            if dist <= reach_radius:
                rew += reach_bonus
                if j == nw - 1:
                    done = True
                else:
                    j += 1
                    dist = gap(wps, w, j, qpos)
            last[w] = dist
            current[w] = j
        R = frame(qpos, w)
        yaw = yaw_of(R)
        nxt = wp.min(j + 1, nw - 1)
        e = in_yaw_frame(yaw, wps[w, j, 0] - qpos[w, 0], wps[w, j, 1] - qpos[w, 1])
        f = in_yaw_frame(yaw, wps[w, nxt, 0] - qpos[w, 0], wps[w, nxt, 1] - qpos[w, 1])
        obs[w, 0] = e[0]
        obs[w, 1] = e[1]
        obs[w, 2] = f[0]
        obs[w, 3] = f[1]
        motion(R, qvel, w, obs, 4)
        reward[w] = rew
        distance[w] = dist
        reached[w] = j
        if done:
            reached[w] = j + 1
        finish(w, live, done or R[2, 2] < 0.0 or dist > max_distance, finite_row(obs, w), step_limit, steps,
               terminated, truncated, ended, nonfinite)

    _KERNELS = {"waypoint_reset": reset, "waypoint_observe": observe}
    return _KERNELS


class WarpWaypoint(WarpEnv):
    """``num_envs`` BlueBoatWaypoint worlds on MuJoCo Warp (see the module docstring)."""

    cpu_env = BlueBoatWaypoint

    def __init__(self, num_envs: int = 1, frame_skip: int = 10, step_limit: int = 1000, n_waypoints: int = 4,
                 leg=(3.0, 8.0), reach_radius: float = 1.0, reach_bonus: float = 10.0, max_distance: float = 20.0,
                 config=None, density=None, current=None, mass_scale=None, device=None, render_mode=None, sea=None,
                 wave_seed=None):
        super().__init__(num_envs, frame_skip, step_limit, config, density, current, mass_scale, device, render_mode,
                         wave_seed, n_waypoints=n_waypoints, leg=leg, reach_radius=reach_radius,
                         reach_bonus=reach_bonus, max_distance=max_distance, sea=sea)
        p = self.proto
        self.n_waypoints, self.leg, self.max_distance = p.n_waypoints, p.leg, p.max_distance
        self.reach_radius, self.reach_bonus = p.reach_radius, p.reach_bonus

    @staticmethod
    def _task_kernels() -> dict:
        return {**_kernels(), **_waypoint_kernels()}

    def _buffers(self, n: int) -> None:
        self.waypoints = self._zeros(n, self.proto.n_waypoints, 2)  # the course: x, y (m), world frame
        self.waypoint, self.reached = self._zeros(n, dt=int), self._zeros(n, dt=int)
        self.distance, self._last = self._zeros(n), self._zeros(n)  # to the current waypoint (m)

    def _info(self) -> dict:
        return {**super()._info(), "distance": self.distance, "waypoint": self.waypoint, "reached": self.reached}

    def _reset_task(self, mask) -> None:
        self._launch("waypoint_reset", [mask, self._seed, self._episode, self._eq_pos, self._eq_quat, *self.leg],
                     [self.data.qpos, self.waypoints, self.waypoint, self._last, self._steps])

    def _observe(self, count: int) -> None:
        d = self.data
        self._launch("waypoint_observe", [d.qpos, d.qvel, self.waypoints, self._applied, self._amax,
                                          self.reach_radius, self.reach_bonus, self.max_distance, self.step_limit,
                                          count],
                     [self._ended, self._steps, self.waypoint, self._last, self.obs, self.reward, self.terminated,
                      self.truncated, self.nonfinite, self.distance, self.reached])
