"""The BlueBoat environments on MuJoCo Warp: thousands of worlds, everything on the device.

    from aurgen.gym.warp import WarpStationKeeping
    env = WarpStationKeeping(num_envs=4096, density=rho_per_world, current=flow_per_world,
                             mass_scale=scale_per_world)
    obs, info = env.reset(seed=0)                 # obs: a warp array (num_envs, 11), on the device
    obs, reward, terminated, truncated, info = env.step(actions)   # actions: (num_envs, 2) float32

``gymnasium.make_vec("BlueBoatStationKeeping-v0", num_envs=N, vectorization_mode="vector_entry_point",
backend="warp")`` gives it too, and ``"BlueBoatWaypoint-v0"`` gives :class:`aurgen.gym.warp_waypoint.WarpWaypoint`.
Each is its CPU environment's (aurgen.gym's module docstring: its action, observation, reward, reset
distribution and ends; its keywords checked by the CPU class, in its words), stepped on MuJoCo Warp with
the hydrostatics as its passive callback (aurgen.runtime.mjwarp); the actions are clipped into the
ctrlrange, the observation, reward and ends computed, and ended worlds reset, by Warp kernels: no host
round trip per step (the arrays stay on the device; ``.numpy()`` them, or ``warp.to_torch``). Each
task's kernels mirror envs.py's ``_obs`` / ``_score`` (``_transition``) and base.py ``_MarineEnv``'s
kinematics (the shared ``@wp.func`` here); tests/aurgen/test_gym_warp.py checks them on the same states.

:class:`WarpEnv` is the common part (the model, its data, the domain randomisation, the action kernel,
the step loop and autoreset); a task adds its buffers, its reset kernel and its observation kernel.

Differences from the CPU environments, by design: float32 (MuJoCo Warp's precision); the reset draws
come from Warp's per-world random streams (``seed``, the world and its episode), not numpy's, so a
world is not bitwise the CPU environment with the same seed; there is no health ledger on this
backend: a world whose state turns non-finite is terminated instead (``info["nonfinite"]``, a device
array); autoreset as gymnasium's ``NEXT_STEP`` (a world that ended is reset by the next ``step``, its
action then ignored, reward 0). Domain randomisation per world: ``density`` (N,) the water's density
(kg/m^3), ``current`` (N, 3) its flow (m/s, world frame), ``mass_scale`` (N,) every body's mass and
inertia scaled, and with an irregular ``sea`` (the CPU environment's keyword) ``wave_seed`` (N,) ints,
each world's sea drawn with its own seed (the CPU vector env's worlds share one sea; here the seas stay
the worlds' own across resets: a reset restarts the world's time, not its sea). Refused: an added-mass vehicle (MjWarpRefused: the hydrostatics on MuJoCo Warp cannot
carry added mass, runtime/mjwarp/host.py), and so BlueROV2DepthHeading-v0.
"""

import math

import numpy as np

from aurgen.gym.base import gymnasium, whole
from aurgen.gym.envs import BlueBoatStationKeeping

MAX_WARP_ENVS = 1 << 20  # worlds in one environment (each holds MuJoCo Warp's Data row, ~100 kB)

_KERNELS = None
SEED_MAX = 2 ** 63 - 1  # a world's waves.seed (aurgen.config.world)


def _kernels():
    """The shared ``@wp.func`` (base.py's kinematics, the pose, the ends) and kernels (the actions; station
    keeping's reset and observation), compiled on first use."""
    global _KERNELS
    if _KERNELS is not None:
        return _KERNELS
    import warp as wp

    TWO_PI = 2.0 * math.pi

    @wp.func
    def wrap(a: float) -> float:  # base.py _wrap: (a + pi) % (2 pi) - pi, Python's modulo (rad)
        m = wp.mod(a + wp.pi, TWO_PI)
        if m < 0.0:
            m += TWO_PI
        return m - wp.pi

    @wp.func
    def stream(seed: int, w: int, episode: wp.array(dtype=int)) -> wp.uint32:
        # world w's random stream for its next episode (counted in episode)
        st = wp.rand_init(seed, w * 1000003 + episode[w])
        episode[w] = episode[w] + 1
        return st

    @wp.func
    def pose(w: int, yaw0: float, eq_pos: wp.vec3, eq_quat: wp.vec4, qpos: wp.array2d(dtype=float)):
        # the boat at the kernel's equilibrium (world frame, m), yawed by yaw0 (rad): base.py _quat_yaw
        c = wp.cos(yaw0 / 2.0)
        s = wp.sin(yaw0 / 2.0)
        q0w, q0x, q0y, q0z = eq_quat[0], eq_quat[1], eq_quat[2], eq_quat[3]
        qpos[w, 0] = eq_pos[0]
        qpos[w, 1] = eq_pos[1]
        qpos[w, 2] = eq_pos[2]
        qpos[w, 3] = c * q0w - s * q0z
        qpos[w, 4] = c * q0x - s * q0y
        qpos[w, 5] = c * q0y + s * q0x
        qpos[w, 6] = c * q0z + s * q0w

    @wp.func
    def frame(qpos: wp.array2d(dtype=float), w: int) -> wp.mat33:
        # base.py _R: the body rotation (body to world) of the normalised qpos quaternion (w, x, y, z)
        q = wp.quat(qpos[w, 4], qpos[w, 5], qpos[w, 6], qpos[w, 3])  # warp quat: (x, y, z, w)
        return wp.quat_to_matrix(wp.normalize(q))

    @wp.func
    def yaw_of(R: wp.mat33) -> float:  # base.py _yaw (rad)
        return wp.atan2(R[1, 0], R[0, 0])

    @wp.func
    def in_yaw_frame(yaw: float, dx: float, dy: float) -> wp.vec2:
        # the world-frame offset (dx, dy) (m) in the boat's yaw frame (x forward, y left)
        c = wp.cos(yaw)
        s = wp.sin(yaw)
        return wp.vec2(c * dx + s * dy, -s * dx + c * dy)

    @wp.func
    def motion(R: wp.mat33, qvel: wp.array2d(dtype=float), w: int, obs: wp.array2d(dtype=float), i0: int):
        # obs[w, i0:i0 + 8]: base.py _body_vel (u, v, w m/s in the body frame; p, q, r rad/s) and _rp
        # (heel, trim rad)
        v = wp.transpose(R) @ wp.vec3(qvel[w, 0], qvel[w, 1], qvel[w, 2])
        for i in range(3):
            obs[w, i0 + i] = v[i]
            obs[w, i0 + 3 + i] = qvel[w, 3 + i]
        obs[w, i0 + 6] = wp.atan2(R[2, 1], R[2, 2])
        obs[w, i0 + 7] = wp.asin(wp.clamp(-R[2, 0], -1.0, 1.0))

    @wp.func
    def finite_row(obs: wp.array2d(dtype=float), w: int) -> int:  # 1 if world w's observation is finite
        fin = int(1)
        for i in range(obs.shape[1]):
            if not wp.isfinite(obs[w, i]):
                fin = 0
        return fin

    @wp.func
    def cost(applied: wp.array2d(dtype=float), w: int, amax: float) -> float:
        # base.py _cost: 0.01 sum (a_i / a_max)^2 of the applied (clipped) commands (N)
        c = float(0.0)
        for i in range(applied.shape[1]):
            c += (applied[w, i] / amax) * (applied[w, i] / amax)
        return 0.01 * c

    @wp.func
    def finish(w: int, live: bool, fail: bool, fin: int, step_limit: int, steps: wp.array(dtype=int),
               terminated: wp.array(dtype=int), truncated: wp.array(dtype=int), ended: wp.array(dtype=bool),
               nonfinite: wp.array(dtype=int)):
        # base.py _finish: a live world's step counted; terminated on ``fail`` (the task's ends) or a
        # non-finite observation, else truncated at the step limit; either ends it (reset next step)
        if live:
            steps[w] = steps[w] + 1
        term = int(0)
        if live and (fail or fin == 0):
            term = 1
        trunc = int(0)
        if live and term == 0 and steps[w] >= step_limit:
            trunc = 1
        terminated[w] = term
        truncated[w] = trunc
        nonfinite[w] = 1 - fin
        ended[w] = False
        if term != 0 or trunc != 0:
            ended[w] = True

    @wp.kernel
    def act(actions: wp.array2d(dtype=float), lo: wp.array(dtype=float), hi: wp.array(dtype=float),
            ended: wp.array(dtype=bool), ctrl: wp.array2d(dtype=float), applied: wp.array2d(dtype=float),
            bad: wp.array(dtype=int)):
        # base.py _MarineEnv.action: clipped into the ctrlrange (N); a non-finite command flagged (the
        # host refuses it at check_actions); a world being reset steps with no thrust
        w, i = wp.tid()
        a = actions[w, i]
        if not wp.isfinite(a):
            bad[0] = 1
            a = 0.0
        a = wp.clamp(a, lo[i], hi[i])
        if ended[w]:
            a = 0.0
        ctrl[w, i] = a
        applied[w, i] = a

    @wp.kernel
    def finite(actions: wp.array2d(dtype=float), bad: wp.array(dtype=int)):
        # step's refusal: a flag for any non-finite command (the host then names it, nothing stepped)
        w, i = wp.tid()
        if not wp.isfinite(actions[w, i]):
            bad[0] = 1

    @wp.kernel
    def reset(mask: wp.array(dtype=bool), seed: int, episode: wp.array(dtype=int), eq_pos: wp.vec3,
              eq_quat: wp.vec4, target_range: float, qpos: wp.array2d(dtype=float),
              target: wp.array2d(dtype=float), steps: wp.array(dtype=int)):
        # envs.py BlueBoatStationKeeping.reset: yaw uniform in [-pi, pi), the target uniform in the square
        # (m) and its heading uniform (rad); the boat at the kernel's equilibrium, yawed
        w = wp.tid()
        if not mask[w]:
            return
        st = stream(seed, w, episode)
        yaw0 = wp.randf(st, -wp.pi, wp.pi)
        target[w, 0] = wp.randf(st, -target_range, target_range)
        target[w, 1] = wp.randf(st, -target_range, target_range)
        target[w, 2] = 0.0
        target[w, 3] = wp.randf(st, -wp.pi, wp.pi)
        pose(w, yaw0, eq_pos, eq_quat, qpos)
        steps[w] = 0

    @wp.kernel
    def observe(qpos: wp.array2d(dtype=float), qvel: wp.array2d(dtype=float), target: wp.array2d(dtype=float),
                applied: wp.array2d(dtype=float), amax: float, max_distance: float, step_limit: int,
                count: int, ended: wp.array(dtype=bool), steps: wp.array(dtype=int),
                obs: wp.array2d(dtype=float), reward: wp.array(dtype=float), terminated: wp.array(dtype=int),
                truncated: wp.array(dtype=int), nonfinite: wp.array(dtype=int)):
        # envs.py BlueBoatStationKeeping._obs and _score (count 0: the reset's observation, no step)
        w = wp.tid()
        live = count != 0 and not ended[w]
        R = frame(qpos, w)
        yaw = yaw_of(R)
        e = in_yaw_frame(yaw, target[w, 0] - qpos[w, 0], target[w, 1] - qpos[w, 1])
        epsi = wrap(target[w, 3] - yaw)
        obs[w, 0] = e[0]
        obs[w, 1] = e[1]
        obs[w, 2] = epsi
        motion(R, qvel, w, obs, 3)
        dist = wp.sqrt(e[0] * e[0] + e[1] * e[1])
        reward[w] = 0.0
        if live:
            reward[w] = -(1.0 * dist + 0.5 * wp.abs(epsi) + cost(applied, w, amax))
        finish(w, live, R[2, 2] < 0.0 or dist > max_distance, finite_row(obs, w), step_limit, steps, terminated,
               truncated, ended, nonfinite)

    _KERNELS = {"stream": stream, "pose": pose, "frame": frame, "yaw_of": yaw_of, "in_yaw_frame": in_yaw_frame,
                "motion": motion, "finite_row": finite_row, "cost": cost, "finish": finish, "act": act, "finite": finite,
                "reset": reset, "observe": observe}
    return _KERNELS


def _per_world(x, n: int, shape: tuple, what: str, lo: float = -math.inf, above: float | None = None):
    """A finite per-world array of shape (n,) + shape (a scalar or one row: every world the same)."""
    if x is None:
        return None
    try:
        a = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{what}: expected numbers, got {x!r}") from None
    try:
        a = np.broadcast_to(a, (n,) + shape).copy()
    except ValueError:
        raise ValueError(f"{what}: expected shape {(n,) + shape} (one per world) or {shape or 'a number'}, "
                         f"got {a.shape}") from None
    if not np.all(np.isfinite(a)) or np.any(a < lo) or (above is not None and np.any(a <= above)):
        bound = f"> {above}" if above is not None else f">= {lo}"
        raise ValueError(f"{what}: every value must be finite{'' if lo == -math.inf and above is None else ' and ' + bound}")
    return a


class WarpEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` worlds of the CPU environment class ``cpu_env`` on MuJoCo Warp (the module docstring):
    gymnasium's VectorEnv API with ``AutoresetMode.NEXT_STEP``, its arrays warp arrays on the device.

    ``task``: the CPU class's own keywords (checked by it, in its words; the checked values are read
    back from it by the task). A task implements ``_buffers(n)``, ``_reset_task(mask)`` (its reset kernel:
    the pose, its draws, ``_steps`` zeroed) and ``_observe(count)`` (its observation, reward and ends
    kernel; count 0 at ``reset``), and may extend ``_info``."""

    metadata = {"render_modes": [], "autoreset_mode": gymnasium.vector.AutoresetMode.NEXT_STEP}
    cpu_env = None

    def __init__(self, num_envs: int = 1, frame_skip: int = 10, step_limit: int = 1000, config=None, density=None,
                 current=None, mass_scale=None, device=None, render_mode=None, wave_seed=None, **task):
        from aurgen.core.spatial import quat_of
        from aurgen.runtime import mjwarp

        if render_mode is not None:
            raise ValueError("aurgen.gym environments have no rendering: render_mode must be None")
        n = self.num_envs = whole("num_envs", num_envs, 1, MAX_WARP_ENVS)
        randomised = (_per_world(density, n, (), "density", above=0.0), _per_world(current, n, (3,), "current"),
                      _per_world(mass_scale, n, (), "mass_scale", above=0.0))
        mjw, wp = mjwarp.backend()
        self._wp, self._mjw, self._K = wp, mjw, self._task_kernels()
        self.device = device
        proto = self.cpu_env(frame_skip=frame_skip, step_limit=step_limit, config=config, **task)
        try:
            self.model = mjwarp.put_model(proto.sim.to_xml(), device=device)
        finally:
            proto.close()
        self.proto, self.frame_skip, self.step_limit = proto, proto.frame_skip, proto.step_limit
        self.render_mode = None
        self.single_observation_space, self.single_action_space = proto.observation_space, proto.action_space
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, n)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, n)
        mjm = self.mjm = self.model.aurgen.mjm
        self._randomise(*randomised)
        self._seas(wave_seed, proto.sea)
        self.data = mjw.make_data(mjm, nworld=n)
        self._eq_pos = wp.vec3(*[float(x) for x in np.asarray(proto._eq.pos, float)])
        self._eq_quat = wp.vec4(*[float(x) for x in np.asarray(quat_of(np.asarray(proto._eq.mat, float)), float)])
        self._lo = wp.array(mjm.actuator_ctrlrange[:, 0].astype(np.float32), dtype=float, device=device)
        self._hi = wp.array(mjm.actuator_ctrlrange[:, 1].astype(np.float32), dtype=float, device=device)
        self._amax = float(proto._amax)
        z = self._zeros
        self.obs, self.reward, self.terminated, self.truncated = z(n, proto._nobs), z(n), z(n, dt=int), z(n, dt=int)
        self.nonfinite, self._steps, self._episode = z(n, dt=int), z(n, dt=int), z(n, dt=int)
        self._ended, self._all = z(n, dt=bool), wp.ones(n, dtype=bool, device=device)
        self._applied, self._bad = z(n, mjm.nu), z(1, dt=int)
        self._seed = 0
        self._buffers(n)

    def _zeros(self, *shape, dt=float):
        return self._wp.zeros(shape, dtype=dt, device=self.device)

    def _seas(self, wave_seed, sea) -> None:
        """A sea per world: ``wave_seed`` (N,) ints, world i's irregular sea the declared ``sea`` with
        ``seed: wave_seed[i]`` (synthesised as the CPU environment's, aurgen.analysis.sea.sea_of)."""
        if wave_seed is None:
            return
        if sea is None or sea.get("spectrum") == "regular":
            raise ValueError("wave_seed: only with an irregular sea (sea={'spectrum': 'jonswap', ...}); "
                             f"the sea is {'still water' if sea is None else 'a regular wave'}")
        seeds = np.asarray(wave_seed)
        if seeds.shape != (self.num_envs,) or seeds.dtype.kind not in "iu" or np.any(seeds < 0) \
                or any(int(k) > SEED_MAX for k in seeds):  # a world's waves.seed (aurgen.config.world), as ints
            raise ValueError(f"wave_seed: expected {self.num_envs} integers from 0 to {SEED_MAX} (one per world, "
                             f"a world's waves.seed), got {wave_seed!r}")
        from aurgen.analysis.sea import sea_of

        comps = {int(k): sea_of(dict(sea, seed=int(k)), prefix="sea").components for k in np.unique(seeds)}
        self.model.aurgen.set_waves(np.stack([comps[int(k)] for k in seeds]))

    def _randomise(self, rho, flow, scale) -> None:
        """Per-world water density (kg/m^3) and current (m/s) in the densest cell, and mass scale."""
        wp, hydro, device, n = self._wp, self.model.aurgen, self.device, self.num_envs
        cells = hydro.env.cells
        water = int(np.argmax([c.density for c in cells]))
        if rho is not None or flow is not None:
            dens = np.tile([c.density for c in cells], (n, 1))
            fl = np.tile(np.array([c.flow for c in cells], float), (n, 1, 1))
            if rho is not None:
                dens[:, water] = rho
            if flow is not None:
                fl[:, water] = flow
            hydro.set_cells(n, density=dens, flow=fl)
        if scale is not None:  # MuJoCo Warp's batched model fields, one row per world: every mass, inertia
            # and the constants derived from them scale together (subtree masses by s, inverse weights 1/s)
            m, mjm, sc = self.model, self.mjm, scale[:, None]
            m.body_mass = wp.array(np.asarray(mjm.body_mass)[None] * sc, dtype=float, device=device)
            m.body_subtreemass = wp.array(np.asarray(mjm.body_subtreemass)[None] * sc, dtype=float, device=device)
            m.body_inertia = wp.array(np.asarray(mjm.body_inertia)[None] * sc[:, :, None], dtype=wp.vec3,
                                      device=device)
            m.body_invweight0 = wp.array(np.asarray(mjm.body_invweight0)[None] / sc[:, :, None], dtype=wp.vec2,
                                         device=device)
            m.dof_invweight0 = wp.array(np.asarray(mjm.dof_invweight0)[None] / sc, dtype=float, device=device)

    @staticmethod
    def _task_kernels() -> dict:
        """The kernels by name: the shared ones and the task's."""
        return _kernels()

    def _launch(self, kernel: str, inputs, outputs, dim=None) -> None:
        self._wp.launch(self._K[kernel], dim=dim or self.num_envs, inputs=inputs, outputs=outputs,
                        device=self.device)

    def _reset_worlds(self, mask) -> None:
        self._mjw.reset_data(self.model, self.data, reset=mask)
        self._reset_task(mask)

    def _info(self) -> dict:
        return {"nonfinite": self.nonfinite}

    def reset(self, *, seed=None, options=None):
        """Every world reset (its draws from ``seed``, the world and its episode): (obs, info)."""
        if seed is not None:
            self._seed = whole("seed", seed, 0, 2 ** 31 - 1)
            self._episode.zero_()
        self._reset_worlds(self._all)
        self._applied.zero_()
        self._ended.zero_()
        self._observe(0)
        return self.obs, self._info()

    def _device_actions(self, actions):
        """``actions`` as a device array, refused (ValueError, nothing stepped) where a command is NaN or
        infinite, as the CPU environments refuse it: on the host for a host array, by a flag kernel and one
        read of it for a device array (the read waits for the device: one sync per env-step)."""
        wp, shape = self._wp, (self.num_envs, self.mjm.nu)
        if not isinstance(actions, wp.array):
            try:
                a = np.asarray(actions, dtype=np.float32)
            except (TypeError, ValueError):
                raise ValueError(f"actions: expected an array of shape {shape} (N), got {actions!r}") from None
            if a.shape != shape:
                raise ValueError(f"actions: expected shape {shape}, got {a.shape}")
            self._refuse_nonfinite(a)
            return wp.array(a, dtype=float, device=self.device)
        if tuple(actions.shape) != shape:
            raise ValueError(f"actions: expected shape {shape}, got {tuple(actions.shape)}")
        self._bad.zero_()
        self._launch("finite", [actions], [self._bad], dim=shape)
        if int(self._bad.numpy()[0]):
            self._bad.zero_()
            self._refuse_nonfinite(actions.numpy())
        return actions

    def _refuse_nonfinite(self, a) -> None:
        """The CPU environments' refusal (base.py _MarineEnv.action), in their words, for the first world and
        actuator whose command is not finite."""
        bad = np.argwhere(~np.isfinite(a))
        if bad.size:
            w, i = (int(x) for x in bad[0])
            raise ValueError(f"actions[{w}]: the command for {self.proto._names[i]} (index {i}) is {float(a[w, i])!r}; "
                             "a non-finite action is refused, never clipped (reset or pass finite numbers)")

    def step(self, actions):
        """Apply ``actions`` ((num_envs, nu) N: a warp array on the device, or anything numpy reads),
        step ``frame_skip`` MuJoCo Warp steps, and return (obs, reward, terminated, truncated, info),
        device arrays. Worlds that ended at the previous step are reset first (autoreset, NEXT_STEP)."""
        actions = self._device_actions(actions)
        ended = self._ended  # the worlds that ended at the previous step: stepped idle, then reset
        self._launch("act", [actions, self._lo, self._hi, ended], [self.data.ctrl, self._applied, self._bad],
                     dim=(self.num_envs, self.mjm.nu))
        for _ in range(self.frame_skip):
            self._mjw.step(self.model, self.data)
        self._reset_worlds(ended)  # NEXT_STEP: their observation is the reset's, reward 0, not ended
        self._observe(1)
        return self.obs, self.reward, self.terminated, self.truncated, self._info()

    def check_actions(self) -> None:
        """Raise ValueError if a non-finite command reached the action kernel since the last check (kept for
        callers of earlier versions: ``step`` now refuses such an action before anything is stepped)."""
        if int(self._bad.numpy()[0]):
            self._bad.zero_()
            raise ValueError("actions: a non-finite command was given (applied as 0, clipped otherwise)")

    def close(self, **kwargs) -> None:
        self.model = self.data = None


class WarpStationKeeping(WarpEnv):
    """``num_envs`` BlueBoatStationKeeping worlds on MuJoCo Warp (see the module docstring)."""

    cpu_env = BlueBoatStationKeeping

    def __init__(self, num_envs: int = 1, frame_skip: int = 10, step_limit: int = 1000, target_range: float = 5.0,
                 max_distance: float = 20.0, config=None, density=None, current=None, mass_scale=None, device=None,
                 render_mode=None, sea=None, wave_seed=None):
        super().__init__(num_envs, frame_skip, step_limit, config, density, current, mass_scale, device, render_mode,
                         wave_seed, target_range=target_range, max_distance=max_distance, sea=sea)
        self.target_range, self.max_distance = self.proto.target_range, self.proto.max_distance

    def _buffers(self, n: int) -> None:
        self.target = self._zeros(n, 4)  # x, y (m), z, yaw (rad): world frame

    def _reset_task(self, mask) -> None:
        d = self.data
        self._launch("reset", [mask, self._seed, self._episode, self._eq_pos, self._eq_quat, self.target_range],
                     [d.qpos, self.target, self._steps])

    def _observe(self, count: int) -> None:
        d = self.data
        self._launch("observe", [d.qpos, d.qvel, self.target, self._applied, self._amax, self.max_distance,
                                 self.step_limit, count],
                     [self._ended, self._steps, self.obs, self.reward, self.terminated, self.truncated,
                      self.nonfinite])
