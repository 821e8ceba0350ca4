"""BlueBoat station keeping on MuJoCo Warp: thousands of worlds, everything on the device.

    from aurgen.gym.warp import WarpStationKeeping
    env = WarpStationKeeping(num_envs=4096, density=rho_per_world, current=flow_per_world,
                             mass_scale=scale_per_world)
    obs, info = env.reset(seed=0)                 # obs: a warp array (num_envs, 11), on the device
    obs, reward, terminated, truncated, info = env.step(actions)   # actions: (num_envs, 2) float32

``gymnasium.make_vec("BlueBoatStationKeeping-v0", num_envs=N, vectorization_mode="vector_entry_point",
backend="warp")`` gives it too. The environment is BlueBoatStationKeeping-v0's (aurgen.gym's module
docstring: its action, observation, reward, reset distribution and ends), stepped on MuJoCo Warp with
the hydrostatics as its passive callback (aurgen.runtime.mjwarp); the actions are clipped into the
ctrlrange, the observation, reward and ends computed, and ended worlds reset, by Warp kernels: no host
round trip per step (the arrays stay on the device; ``.numpy()`` them, or ``warp.to_torch``). The
observation and reward kernel mirrors envs.py ``BlueBoatStationKeeping._obs`` / ``_score`` and base.py
``_MarineEnv``'s kinematics; tests/aurgen/test_gym_warp.py checks both on the same states.

Differences from the CPU environments, by design: float32 (MuJoCo Warp's precision); the reset draws
come from Warp's per-world random streams (``seed``, the world and its episode), not numpy's, so a
world is not bitwise the CPU environment with the same seed; there is no health ledger on this
backend: a world whose state turns non-finite is terminated instead (``info["nonfinite"]``, a device
array); autoreset as gymnasium's ``NEXT_STEP`` (a world that ended is reset by the next ``step``, its
action then ignored, reward 0). Domain randomisation per world: ``density`` (N,) the water's density
(kg/m^3), ``current`` (N, 3) its flow (m/s), ``mass_scale`` (N,) every body's mass and inertia scaled.
Refused: an added-mass vehicle (the hydrostatics on MuJoCo Warp cannot carry added mass: runtime/mjwarp.py).
"""

import math

import numpy as np

from aurgen.gym.base import gymnasium, real, whole

MAX_WARP_ENVS = 1 << 20  # worlds in one environment (each holds MuJoCo Warp's Data row, ~100 kB)

_KERNELS = None


def _kernels():
    global _KERNELS
    if _KERNELS is not None:
        return _KERNELS
    import warp as wp

    TWO_PI = 2.0 * math.pi
    vec11 = wp.types.vector(length=11, dtype=float)

    @wp.func
    def _wrap(a: float) -> float:  # base.py _wrap: (a + pi) % (2 pi) - pi, Python's modulo
        m = wp.mod(a + wp.pi, TWO_PI)
        if m < 0.0:
            m += TWO_PI
        return m - wp.pi

    @wp.kernel
    def reset(mask: wp.array(dtype=int), seed: int, episode: wp.array(dtype=int), eq_pos: wp.vec3,
              eq_quat: wp.vec4, target_range: float, qpos: wp.array2d(dtype=float),
              target: wp.array2d(dtype=float), steps: wp.array(dtype=int)):
        # BlueBoatStationKeeping.reset: yaw uniform in [-pi, pi), the target uniform in the square and
        # its heading uniform; the boat at the kernel's equilibrium, yawed (base.py _quat_yaw)
        w = wp.tid()
        if mask[w] == 0:
            return
        st = wp.rand_init(seed, w * 1000003 + episode[w])
        episode[w] = episode[w] + 1
        yaw0 = wp.randf(st, -wp.pi, wp.pi)
        target[w, 0] = wp.randf(st, -target_range, target_range)
        target[w, 1] = wp.randf(st, -target_range, target_range)
        target[w, 2] = 0.0
        target[w, 3] = wp.randf(st, -wp.pi, wp.pi)
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
        steps[w] = 0

    @wp.kernel
    def act(actions: wp.array2d(dtype=float), lo: wp.array(dtype=float), hi: wp.array(dtype=float),
            ended: wp.array(dtype=int), ctrl: wp.array2d(dtype=float), applied: wp.array2d(dtype=float),
            bad: wp.array(dtype=int)):
        # base.py _MarineEnv.action: clipped into the ctrlrange; a non-finite command flagged (the
        # host refuses the step); a world being reset steps with no thrust
        w, i = wp.tid()
        a = actions[w, i]
        if not wp.isfinite(a):
            bad[0] = 1
            a = 0.0
        a = wp.clamp(a, lo[i], hi[i])
        if ended[w] != 0:
            a = 0.0
        ctrl[w, i] = a
        applied[w, i] = a

    @wp.kernel
    def observe(qpos: wp.array2d(dtype=float), qvel: wp.array2d(dtype=float), target: wp.array2d(dtype=float),
                applied: wp.array2d(dtype=float), amax: float, max_distance: float, step_limit: int,
                count: int, ended: wp.array(dtype=int), steps: wp.array(dtype=int),
                obs: wp.array2d(dtype=float), reward: wp.array(dtype=float), terminated: wp.array(dtype=int),
                truncated: wp.array(dtype=int), nonfinite: wp.array(dtype=int)):
        # envs.py BlueBoatStationKeeping._obs and _score; base.py _R, _yaw, _rp, _body_vel, _capsized, _cost
        w = wp.tid()
        reset_now = ended[w] != 0
        if count != 0 and not reset_now:
            steps[w] = steps[w] + 1
        q = wp.quat(qpos[w, 4], qpos[w, 5], qpos[w, 6], qpos[w, 3])  # warp quat: (x, y, z, w)
        q = wp.normalize(q)
        R = wp.quat_to_matrix(q)
        yaw = wp.atan2(R[1, 0], R[0, 0])
        c = wp.cos(yaw)
        s = wp.sin(yaw)
        dx = target[w, 0] - qpos[w, 0]
        dy = target[w, 1] - qpos[w, 1]
        ex = c * dx + s * dy
        ey = -s * dx + c * dy
        epsi = _wrap(target[w, 3] - yaw)
        v = wp.transpose(R) @ wp.vec3(qvel[w, 0], qvel[w, 1], qvel[w, 2])
        heel = wp.atan2(R[2, 1], R[2, 2])
        trim = wp.asin(wp.clamp(-R[2, 0], -1.0, 1.0))
        o = vec11(ex, ey, epsi, v[0], v[1], v[2], qvel[w, 3], qvel[w, 4], qvel[w, 5], heel, trim)
        fin = int(1)
        for i in range(11):
            obs[w, i] = o[i]
            if not wp.isfinite(o[i]):
                fin = 0
        cost = float(0.0)
        for i in range(applied.shape[1]):
            cost += (applied[w, i] / amax) * (applied[w, i] / amax)
        dist = wp.sqrt(ex * ex + ey * ey)
        if count != 0 and not reset_now:
            reward[w] = -(1.0 * dist + 0.5 * wp.abs(epsi) + 0.01 * cost)
        else:
            reward[w] = 0.0
        term = int(0)
        if count != 0 and not reset_now and (R[2, 2] < 0.0 or dist > max_distance or fin == 0):
            term = 1
        terminated[w] = term
        trunc = int(0)
        if count != 0 and not reset_now and term == 0 and steps[w] >= step_limit:
            trunc = 1
        truncated[w] = trunc
        nonfinite[w] = 1 - fin
        ended[w] = 0
        if term != 0 or trunc != 0:
            ended[w] = 1

    _KERNELS = {"reset": reset, "act": act, "observe": observe}
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


class WarpStationKeeping(gymnasium.vector.VectorEnv):
    """``num_envs`` BlueBoatStationKeeping worlds on MuJoCo Warp (see the module docstring): gymnasium's
    VectorEnv API with ``AutoresetMode.NEXT_STEP``, its arrays warp arrays on the device."""

    metadata = {"render_modes": [], "autoreset_mode": gymnasium.vector.AutoresetMode.NEXT_STEP}

    def __init__(self, num_envs: int = 1, frame_skip: int = 10, step_limit: int = 1000, target_range: float = 5.0,
                 max_distance: float = 20.0, config=None, density=None, current=None, mass_scale=None, device=None,
                 render_mode=None):
        from aurgen.gym.envs import BlueBoatStationKeeping
        from aurgen.runtime import mjwarp

        if render_mode is not None:
            raise ValueError("aurgen.gym environments have no rendering: render_mode must be None")
        n = self.num_envs = whole("num_envs", num_envs, 1, MAX_WARP_ENVS)
        self.frame_skip = whole("frame_skip", frame_skip, 1, 10_000)
        self.step_limit = whole("step_limit", step_limit, 1, 10 ** 9)
        self.target_range = real("target_range", target_range, 0.0)
        self.max_distance = real("max_distance", max_distance, above=0.0)
        rho = _per_world(density, n, (), "density", above=0.0)
        flow = _per_world(current, n, (3,), "current")
        scale = _per_world(mass_scale, n, (), "mass_scale", above=0.0)
        mjw, wp = mjwarp._import()
        self._wp, self._mjw, self._K = wp, mjw, _kernels()
        self.device = device
        proto = BlueBoatStationKeeping(frame_skip=self.frame_skip, step_limit=self.step_limit, config=config)
        try:
            self.model = mjwarp.put_model(proto.sim.to_xml(), device=device)
        finally:
            proto.close()
        self.render_mode = None
        self.single_observation_space, self.single_action_space = proto.observation_space, proto.action_space
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, n)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, n)
        mjm = self.mjm = self.model.aurgen.mjm
        hydro = self.model.aurgen
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
            m, sc = self.model, scale[:, None]
            m.body_mass = wp.array(np.asarray(mjm.body_mass)[None] * sc, dtype=float, device=device)
            m.body_subtreemass = wp.array(np.asarray(mjm.body_subtreemass)[None] * sc, dtype=float, device=device)
            m.body_inertia = wp.array(np.asarray(mjm.body_inertia)[None] * sc[:, :, None], dtype=wp.vec3,
                                      device=device)
            m.body_invweight0 = wp.array(np.asarray(mjm.body_invweight0)[None] / sc[:, :, None], dtype=wp.vec2,
                                         device=device)
            m.dof_invweight0 = wp.array(np.asarray(mjm.dof_invweight0)[None] / sc, dtype=float, device=device)
        self.data = mjw.make_data(mjm, nworld=n)
        from aurgen.core.spatial import quat_of

        eq = proto._eq
        self._eq_pos = wp.vec3(*[float(x) for x in np.asarray(eq.pos, float)])
        self._eq_quat = wp.vec4(*[float(x) for x in np.asarray(quat_of(np.asarray(eq.mat, float)), float)])
        self._lo = wp.array(mjm.actuator_ctrlrange[:, 0].astype(np.float32), dtype=float, device=device)
        self._hi = wp.array(mjm.actuator_ctrlrange[:, 1].astype(np.float32), dtype=float, device=device)
        self._amax = float(np.max(np.abs(mjm.actuator_ctrlrange)))
        z = lambda *shape, dt=float: wp.zeros(shape, dtype=dt, device=device)  # noqa: E731
        self.target, self.obs = z(n, 4), z(n, 11)
        self.reward, self.terminated, self.truncated = z(n), z(n, dt=int), z(n, dt=int)
        self.nonfinite, self._ended, self._steps, self._episode = z(n, dt=int), z(n, dt=int), z(n, dt=int), z(n, dt=int)
        self._applied, self._bad = z(n, mjm.nu), z(1, dt=int)
        self._seed = 0

    def _observe(self, count: int) -> None:
        wp, d = self._wp, self.data
        wp.launch(self._K["observe"], dim=self.num_envs,
                  inputs=[d.qpos, d.qvel, self.target, self._applied, self._amax, self.max_distance, self.step_limit,
                          count],
                  outputs=[self._ended, self._steps, self.obs, self.reward, self.terminated, self.truncated,
                           self.nonfinite], device=self.device)

    def _reset_worlds(self, mask) -> None:
        wp, mjw, d = self._wp, self._mjw, self.data
        mjw.reset_data(self.model, d, reset=mask)
        wp.launch(self._K["reset"], dim=self.num_envs,
                  inputs=[mask, self._seed, self._episode, self._eq_pos, self._eq_quat, self.target_range],
                  outputs=[d.qpos, self.target, self._steps], device=self.device)

    def reset(self, *, seed=None, options=None):
        """Every world reset (its draws from ``seed``, the world and its episode): (obs, info)."""
        wp = self._wp
        if seed is not None:
            self._seed = whole("seed", seed, 0, 2 ** 31 - 1)
            self._episode.zero_()
        self._reset_worlds(wp.ones(self.num_envs, dtype=int, device=self.device))
        self._applied.zero_()
        self._ended.zero_()
        self._observe(0)
        return self.obs, {"nonfinite": self.nonfinite}

    def step(self, actions):
        """Apply ``actions`` ((num_envs, nu) N: a warp array on the device, or anything numpy reads),
        step ``frame_skip`` MuJoCo Warp steps, and return (obs, reward, terminated, truncated, info),
        device arrays. Worlds that ended at the previous step are reset first (autoreset, NEXT_STEP)."""
        wp, mjw = self._wp, self._mjw
        if not isinstance(actions, wp.array):
            a = np.asarray(actions, dtype=np.float32)
            if a.shape != (self.num_envs, self.mjm.nu):
                raise ValueError(f"actions: expected shape {(self.num_envs, self.mjm.nu)}, got {a.shape}")
            actions = wp.array(a, dtype=float, device=self.device)
        elif tuple(actions.shape) != (self.num_envs, self.mjm.nu):
            raise ValueError(f"actions: expected shape {(self.num_envs, self.mjm.nu)}, got {tuple(actions.shape)}")
        ended = self._ended  # the worlds that ended at the previous step: stepped idle, then reset
        wp.launch(self._K["act"], dim=(self.num_envs, self.mjm.nu), inputs=[actions, self._lo, self._hi, ended],
                  outputs=[self.data.ctrl, self._applied, self._bad], device=self.device)
        for _ in range(self.frame_skip):
            mjw.step(self.model, self.data)
        self._reset_worlds(ended)  # NEXT_STEP: their observation is the reset's, reward 0, not ended
        self._observe(1)
        return self.obs, self.reward, self.terminated, self.truncated, {"nonfinite": self.nonfinite}

    def check_actions(self) -> None:
        """Raise ValueError if a non-finite command reached ``step`` since the last check (one read
        from the device: call it when you can afford the round trip)."""
        if int(self._bad.numpy()[0]):
            self._bad.zero_()
            raise ValueError("actions: a non-finite command was given (applied as 0, clipped otherwise)")

    def close(self, **kwargs) -> None:
        self.model = self.data = None
