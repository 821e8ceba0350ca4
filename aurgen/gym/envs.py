"""The three environments (their spaces, rewards and ends: aurgen.gym's module docstring).

Each task is written once for one world and for many (aurgen.gym.kinematics): ``_begin`` (the start from
the episode's draws), ``_observe``, ``_score_worlds`` / ``_step_worlds`` (reward, ends, info) take one
world's values or arrays whose first axis is the world; the single environment runs them on its world,
the vector environment on every world of its batch at once, so the two are bitwise the same."""

from __future__ import annotations

import math

import numpy as np

from aurgen.gym.base import _MarineEnv, interval, real, whole
from aurgen.gym.kinematics import (body_velocity, capsized, columns, control_cost, frames, in_yaw_frame, quat_yaw,
                                   roll_pitch, select, stack, wrap, yaw_of)

MAX_WAYPOINTS = 10_000


def _q0(env) -> np.ndarray:
    """The kernel's floating equilibrium attitude of ``env``'s vehicle, as a quaternion (w, x, y, z)."""
    from aurgen.core.spatial import quat_of

    return np.asarray(quat_of(np.asarray(env._eq.mat, float)), float)


def _motion(qvel, R) -> tuple:
    """The observation's last 8 columns: the body velocity [u, v, w, p, q, r], heel (roll), trim (pitch)."""
    return body_velocity(R, qvel) + roll_pitch(R)


class BlueBoatStationKeeping(_MarineEnv):
    """Hold a position and heading on the surface with the BlueBoat (see the module doc)."""

    config = "blueboat.yaml"
    _nobs = 11
    _TASK = {"target": "_target"}  # x, y (m), z, yaw (rad): world frame

    def __init__(self, render_mode=None, frame_skip: int = 10, step_limit: int = 1000,
                 target_range: float = 5.0, max_distance: float = 20.0, _model=None, config=None, sea=None):
        super().__init__(render_mode, frame_skip, step_limit, _model, config, sea)
        self.target_range = real("target_range", target_range, 0.0)
        self.max_distance = real("max_distance", max_distance, above=0.0)

    def _draw(self) -> np.ndarray:
        r = self.np_random
        yaw0 = float(r.uniform(-math.pi, math.pi))
        tx, ty = (float(t) for t in r.uniform(-self.target_range, self.target_range, size=2))
        tyaw = float(r.uniform(-math.pi, math.pi))
        return np.array([yaw0, tx, ty, tyaw])

    def _begin(self, draws):
        n = draws.shape[0]
        target = np.zeros((n, 4))
        target[:, 0:2], target[:, 3] = draws[:, 1:3], draws[:, 3]
        return np.tile(np.asarray(self._eq.pos, float), (n, 1)), quat_yaw(_q0(self), draws[:, 0]), {"target": target}

    def _observe(self, qpos, qvel, task, R):
        x, y = columns(qpos)[0:2]
        tx, ty, _, tyaw = columns(task["target"])
        yaw = yaw_of(R)
        ex, ey = in_yaw_frame(np.cos(yaw), np.sin(yaw), tx - x, ty - y)
        return stack((ex, ey, wrap(tyaw - yaw)) + _motion(qvel, R))

    def _score_worlds(self, obs, a, qpos, R):
        ex, ey, epsi = columns(obs)[0:3]
        dist = np.hypot(ex, ey)
        reward = -(1.0 * dist + 0.5 * abs(epsi) + control_cost(a, self._amax))
        terminated = capsized(R) | (dist > self.max_distance)
        return reward, terminated, {"distance": dist, "heading_error": epsi}


class BlueBoatWaypoint(_MarineEnv):
    """Follow a course of waypoints on the surface with the BlueBoat (see the module doc)."""

    config = "blueboat.yaml"
    _nobs = 12
    _TASK = {"wps": "_wps", "k": "_k", "last": "_last"}  # the course (m), the current waypoint, its distance (m)

    def __init__(self, render_mode=None, frame_skip: int = 10, step_limit: int = 1000, n_waypoints: int = 4,
                 leg=(3.0, 8.0), reach_radius: float = 1.0, reach_bonus: float = 10.0,
                 max_distance: float = 20.0, _model=None, config=None, sea=None):
        super().__init__(render_mode, frame_skip, step_limit, _model, config, sea)
        self.n_waypoints = whole("n_waypoints", n_waypoints, 1, MAX_WAYPOINTS)
        self.leg = interval("leg", leg, positive=True)
        self.reach_radius = real("reach_radius", reach_radius, above=0.0)
        self.reach_bonus = real("reach_bonus", reach_bonus)
        self.max_distance = real("max_distance", max_distance, above=0.0)
        self._wps = np.zeros((self.n_waypoints, 2))
        self._k = 0
        self._last = 0.0

    def _draw(self) -> np.ndarray:
        """[yaw0, then per waypoint the bearing's turn (rad) and the leg (m)], in the order drawn."""
        r = self.np_random
        out = [float(r.uniform(-math.pi, math.pi))]
        for _ in range(self.n_waypoints):
            out += [float(r.uniform(-math.pi / 2, math.pi / 2)), float(r.uniform(*self.leg))]
        return np.array(out)

    def _begin(self, draws):
        n = draws.shape[0]
        # each leg's bearing: the start yaw and the turns so far, summed in turn; each waypoint the sum of
        # the legs so far (numpy's accumulate adds in index order, as the course is walked)
        bearing = np.cumsum(np.concatenate([draws[:, :1], draws[:, 1::2]], axis=1), axis=1)[:, 1:]
        legs = draws[:, 2::2]
        wps = np.cumsum(np.stack([legs * np.cos(bearing), legs * np.sin(bearing)], axis=2), axis=1)
        task = {"wps": wps, "k": np.zeros(n, dtype=np.int64), "last": np.zeros(n)}
        return np.tile(np.asarray(self._eq.pos, float), (n, 1)), quat_yaw(_q0(self), draws[:, 0]), task

    def _started(self, qpos, task):
        return dict(task, last=_gap(qpos, task["wps"], task["k"]))

    def _distance(self) -> float:
        return float(_gap(self.data.qpos, self._wps, self._k))

    def _observe(self, qpos, qvel, task, R):
        wps, k = task["wps"], task["k"]
        wx, wy = _waypoint(wps, k)
        nx, ny = _waypoint(wps, np.minimum(k + 1, self.n_waypoints - 1))
        x, y = columns(qpos)[0:2]
        yaw = yaw_of(R)
        c, s = np.cos(yaw), np.sin(yaw)
        return stack(in_yaw_frame(c, s, wx - x, wy - y) + in_yaw_frame(c, s, nx - x, ny - y) + _motion(qvel, R))

    def _step_worlds(self, qpos, qvel, task, a):
        wps, k = task["wps"], task["k"]
        dist = _gap(qpos, wps, k)
        reward = (task["last"] - dist) - control_cost(a, self._amax)
        reach = dist <= self.reach_radius
        reward = select(reach, reward + self.reach_bonus, reward)
        done = reach & (k == self.n_waypoints - 1)
        on = reach & ~done  # the next waypoint becomes current
        if on.any():
            k = k + on
            dist = select(on, _gap(qpos, wps, k), dist)
        task["k"], task["last"] = k, dist
        R = frames(qpos[..., 3:7])
        obs = self._observe(qpos, qvel, task, R)
        terminated = done | capsized(R) | (dist > self.max_distance)
        return obs, reward, terminated, {"distance": dist, "waypoint": k, "reached": k + done}


class BlueROV2DepthHeading(_MarineEnv):
    """Hold a depth and heading with the BlueROV2 (see the module doc)."""

    config = "bluerov2.yaml"
    _nobs = 10
    _TASK = {"target": "_target"}  # x, y (m), z (m), yaw (rad): world frame

    def __init__(self, render_mode=None, frame_skip: int = 10, step_limit: int = 1000,
                 depth_range=(-4.0, -1.0), max_depth_error: float = 3.0, _model=None, config=None, sea=None):
        super().__init__(render_mode, frame_skip, step_limit, _model, config, sea)
        self.depth_range = interval("depth_range", depth_range, hi=0.0)
        self.max_depth_error = real("max_depth_error", max_depth_error, above=0.0)

    def _draw(self) -> np.ndarray:
        r = self.np_random
        z0 = float(r.uniform(*self.depth_range))
        yaw0 = float(r.uniform(-math.pi, math.pi))
        tz = float(r.uniform(*self.depth_range))
        tyaw = float(r.uniform(-math.pi, math.pi))
        return np.array([z0, yaw0, tz, tyaw])

    def _begin(self, draws):
        n = draws.shape[0]
        pos, target = np.zeros((n, 3)), np.zeros((n, 4))
        pos[:, 2], target[:, 2], target[:, 3] = draws[:, 0], draws[:, 2], draws[:, 3]
        return pos, quat_yaw((1.0, 0.0, 0.0, 0.0), draws[:, 1]), {"target": target}

    def _observe(self, qpos, qvel, task, R):
        _, _, tz, tyaw = columns(task["target"])
        return stack((tz - columns(qpos)[2], wrap(tyaw - yaw_of(R))) + _motion(qvel, R))

    def _score_worlds(self, obs, a, qpos, R):
        ez, epsi = columns(obs)[0:2]
        reward = -(1.0 * abs(ez) + 0.5 * abs(epsi) + control_cost(a, self._amax))
        terminated = capsized(R) | (abs(ez) > self.max_depth_error) | (columns(qpos)[2] > 0.0)
        return reward, terminated, {"depth_error": ez, "heading_error": epsi}


def _waypoint(wps, k) -> tuple:
    """(x, y) m of waypoint ``k`` of each world's course ``wps`` (N, n, 2), k (N,); or of one world's
    (n, 2), k a whole number."""
    w = wps[np.arange(wps.shape[0]), k] if wps.ndim == 3 else wps[k]
    return columns(w)


def _gap(qpos, wps, k):
    """The horizontal distance (m) of each world (qpos (N, nq), or one world's (nq,)) from its waypoint
    ``k`` of its course ``wps``."""
    wx, wy = _waypoint(wps, k)
    x, y = columns(qpos)[0:2]
    return np.hypot(wx - x, wy - y)
