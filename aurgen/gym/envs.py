"""The three environments (their spaces, rewards and ends: aurgen.gym's module docstring)."""

from __future__ import annotations

import math

import numpy as np

from aurgen.gym.base import _MarineEnv, _quat_yaw, _wrap, interval, real, whole

MAX_WAYPOINTS = 10_000


class BlueBoatStationKeeping(_MarineEnv):
    """Hold a position and heading on the surface with the BlueBoat (see the module doc)."""

    config = "blueboat.yaml"
    _nobs = 11

    def __init__(self, render_mode=None, frame_skip: int = 10, step_limit: int = 1000,
                 target_range: float = 5.0, max_distance: float = 20.0, _model=None, config=None, sea=None):
        super().__init__(render_mode, frame_skip, step_limit, _model, config, sea)
        self.target_range = real("target_range", target_range, 0.0)
        self.max_distance = real("max_distance", max_distance, above=0.0)

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
        return self._obs(), self._info({})

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
        return self._obs(), self._info({})

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
                 depth_range=(-4.0, -1.0), max_depth_error: float = 3.0, _model=None, config=None, sea=None):
        super().__init__(render_mode, frame_skip, step_limit, _model, config, sea)
        self.depth_range = interval("depth_range", depth_range, hi=0.0)
        self.max_depth_error = real("max_depth_error", max_depth_error, above=0.0)

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
        return self._obs(), self._info({})

    def _obs(self) -> np.ndarray:
        roll, pitch = self._rp()
        return np.concatenate([[self._target[2] - self.data.qpos[2], _wrap(self._target[3] - self._yaw())],
                               self._body_vel(), [roll, pitch]]).astype(np.float64)

    def _score(self, obs, a):
        reward = -(1.0 * abs(obs[0]) + 0.5 * abs(obs[1]) + self._cost(a))
        terminated = self._capsized() or abs(obs[0]) > self.max_depth_error or self.data.qpos[2] > 0.0
        return float(reward), bool(terminated), {"depth_error": float(obs[0]), "heading_error": float(obs[1])}


