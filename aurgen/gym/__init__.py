"""Gymnasium environments on aurgen's runtime: ``BlueBoatStationKeeping-v0``, ``BlueBoatWaypoint-v0``,
``BlueROV2DepthHeading-v0``.

Needs gymnasium (``pip install '.[scale]'`` from aurgen's clone); the core does not import this module.

    import gymnasium as gym
    import aurgen.gym  # registers the ids
    env = gym.make("BlueBoatStationKeeping-v0")
    obs, info = env.reset(seed=0)

Each environment composes its bundled vehicle config (never a local ``./vehicles/`` file of the
same name; ``config=`` a path or name for another, e.g. ``gym.make(id, config="my_boat.yaml")``)
in memory (aurgen.compose.resolve,
aurgen.emit.build.model_mjcf; nothing is written), simulates it in open water at the
vehicle's declared fluid density (surface z = 0) through
:class:`aurgen.runtime.sim.Simulation` (the ``aurgen.hydrostatics`` engine plugin:
buoyancy, drag, damping, added mass), at MuJoCo's 2 ms step with the action held
for ``frame_skip`` = 10 steps (a control period of 0.02 s).

Spaces are ``gymnasium.spaces.Box`` of float64 throughout. ``render_mode`` is
``None`` only (no rendering).

Actions, in every environment: an action of another shape than the action space's, or
with a NaN or inf in it, is refused (``ValueError`` naming the actuator; nothing is
stepped); a finite command outside its actuator's ctrlrange is clipped into it (the
rule MuJoCo's ``ctrllimited`` applies; the reward's control cost is of the clipped one).

Health: after every step (and reset) ``info["health"]`` is ``"ok"`` or ``"invalid"`` and
``info["health_reason"]`` the reason (``""`` when ok): the runtime's health ledger
(:class:`aurgen.runtime.sim.health.Health`, as ``Simulation.check()`` and ``health_of`` report
it: a non-finite state, MuJoCo resetting the state, energy gained with no work done, an
invalid plugin state, a MuJoCo warning). A step whose health is invalid is
``terminated`` (its observation and reward are of a state that cannot be trusted); the
environment's own ``health()`` returns the full record.

BlueBoatStationKeeping-v0 — hold a position and heading on the surface
    action (2,): the thruster commands in N of ``motor_port``, ``motor_stbd`` (thrust along
        the propeller axis, positive forward), each within the actuator's ctrlrange
        [-39.9130655, 51.4849125] (clipped into it; non-finite refused: see Actions above).
    observation (11,): [ex, ey] the target's position relative to the boat in the
        boat's yaw frame (m; x forward, y left), e_psi the heading error
        target − yaw wrapped to [−π, π) (rad), [u, v, w] the body-frame linear
        velocity (m/s), [p, q, r] the body angular velocity (rad/s), heel, trim (rad).
    reward: −(1.0·|e_xy| + 0.5·|e_psi| + 0.01·Σ (a_i / a_max)²) with a_max = 51.4849125 N (the largest ctrlrange).
    reset: the boat at the kernel's floating equilibrium (aurgen specs) at the origin,
        yaw uniform in [−π, π); the target uniform in [−5, 5]² m with a heading uniform in
        [−π, π); all from the env's ``np_random``.
    terminated: capsized (the body z axis points below the horizontal) or farther than
        ``max_distance`` = 20 m from the target. truncated: after ``step_limit``
        = 1000 steps (20 s).

BlueBoatWaypoint-v0 — follow a course of waypoints on the surface
    action (2,): as station keeping (``motor_port``, ``motor_stbd``, N).
    observation (12,): [ex, ey] the current waypoint relative to the boat in its yaw frame (m),
        [nx, ny] the waypoint after it likewise (m; the current one again on the last leg),
        [u, v, w] (m/s), [p, q, r] (rad/s), heel, trim (rad).
    reward: the distance gained on the current waypoint over the step (m), + ``reach_bonus``
        = 10 on reaching it (within ``reach_radius`` = 1 m; the next one becomes current),
        − 0.01·Σ (a_i / a_max)².
    reset: the boat at the kernel's equilibrium at the origin, yaw uniform in [−π, π);
        ``n_waypoints`` = 4 waypoints, each ``leg`` uniform in [3, 8] m from the one before
        (the first from the origin), on a bearing that turns uniformly within ±π/2 of the
        leg before (the first within ±π/2 of the start yaw); all from ``np_random``.
    terminated: the last waypoint reached, capsized, or farther than ``max_distance`` = 20 m
        from the current waypoint. truncated: after ``step_limit`` = 1000 steps (20 s).
    info: ``distance`` (m), ``waypoint`` (index of the current one), ``reached`` (how many).

BlueROV2DepthHeading-v0 — hold a depth and heading
    action (6,): the thruster commands in N of ``thruster_1`` … ``thruster_6`` (the
        vectored frame: 1–4 horizontal, 5–6 vertical), each within [-39.9130655, 51.4849125].
    observation (10,): e_z = target depth z − z (m, positive: the target is above),
        e_psi (rad, wrapped), [u, v, w] (m/s), [p, q, r] (rad/s), roll, pitch (rad).
    reward: −(1.0·|e_z| + 0.5·|e_psi| + 0.01·Σ (a_i / a_max)²).
    reset: the vehicle level at rest at z uniform in [−4, −1] m, yaw uniform; the
        target z uniform in [−4, −1] m, target heading uniform.
    terminated: capsized, or |e_z| > ``max_depth_error`` = 3 m, or the vehicle's origin
        above the surface. truncated: after ``step_limit`` = 1000 steps.

``info`` carries ``time`` (s), the health and the unwrapped error terms. Keyword arguments:
``config``, ``frame_skip``, ``step_limit`` and the ranges named above (``gymnasium.make``'s own
``max_episode_steps`` adds its TimeLimit wrapper on top), each checked, a bad one refused
with a ``ValueError`` naming it: ``frame_skip`` a whole number in [1, 10000], ``step_limit``
in [1, 10⁹], ``n_waypoints`` in [1, 10000] (a whole float such as ``10.0`` is taken; ``2.5``,
a bool or NaN is not); ``target_range`` ≥ 0, ``max_distance``, ``reach_radius`` and
``max_depth_error`` > 0, ``reach_bonus`` finite; ``leg`` (low, high) with 0 < low ≤ high;
``depth_range`` (low, high) with low ≤ high ≤ 0.

A sea: ``sea=`` None (still water, the default: the model as it always was) or a mapping of the
world's ``waves:`` keys but ``surface`` (docs/config.md "Waves": ``spectrum``, ``height``,
``period``, ``hs``, ``tp``, ``gamma``, ``components``, ``seed``, ``spreading``, ``direction``,
``depth``, ``ramp``, ``fk``, ``fk_tolerance``), checked and synthesised as a world's sea is
(aurgen.analysis.sea.sea_of: the world loader's checks and words; a bad one refused with a
``ValueError`` naming ``sea.<key>``, or ``sea`` for a value that is not a mapping), on the open
water's surface z = 0 (deep unless it declares ``depth``; no seabed). Its components ride in the
environment of the env's model, so the plugin steps the sea inside ``mj_step``. ``fk`` picks the
Froude-Krylov method (default: the volume moments; ``exact``: the columns), on the MuJoCo Warp
environments as on the CPU ones. An irregular sea's phases (and frequencies, directions) are
redrawn every episode: ``reset(seed=s)`` draws the episode's sea seed from
``numpy.random.default_rng([0x5EA, sea seed, s])`` (``sea seed``: the declared ``seed``, default
0), a reset without a seed draws the next from the same generator (from entropy if the env was
never seeded), so episodes differ and the same seeds replay bitwise; ``env.sea_seed`` is the sea
of the episode, and the model is compiled again with it (about 10 ms for the BlueBoat). A regular
wave has no phases to draw: the same sea every episode. The episode starts at t = 0: a ``ramp``
brings the sea in from still water.

Vector version: ``gymnasium.make_vec(id, num_envs=N, vectorization_mode="vector_entry_point",
threads=2)`` gives a :class:`MarineVectorEnv`: the N worlds share one compiled model and
advance together on ``mujoco.batch.Batch`` (on ``threads`` threads); gymnasium's VectorEnv
API with ``AutoresetMode.NEXT_STEP``; world i is bitwise the single environment reset with
``seed + i`` and stepped with the same actions (tested). A step computes the observations,
rewards, ends, infos and health of every world at once, numpy over the batch's state rows, with
the single environment's own arithmetic (each task is written once for one world and for many:
aurgen.gym.kinematics), so the environment costs little beyond its physics; ``envs[i]`` is world
i as a single environment, brought up to date when read. ``num_envs`` is a whole number in
[1, 4096] (``MAX_NUM_ENVS``: each world keeps an MjData of its own; for more, run several
processes) and ``threads`` in [1, 256], both checked before anything is
allocated; ``actions`` must be of shape (num_envs, nu), each row checked as above (a
non-finite row is refused even for a world being autoreset); ``reset(seed=)`` takes an int,
None or one seed per world. Each world's health is in ``infos`` as above, and a world whose
health turns invalid terminates (and is reset by the next step). In a sea the worlds share one sea
(one model): a reset of every world draws it as the single environment would on world 0's reset
(world 0 is bitwise that environment); a ``reset_mask`` reset and an autoreset keep it, so world
i > 0 of an irregular sea runs in world 0's sea, not the one its own seed would draw.

On MuJoCo Warp (``pip install '.[gpu]'``): ``gymnasium.make_vec("BlueBoatStationKeeping-v0",
num_envs=N, vectorization_mode="vector_entry_point", backend="warp")`` gives
:class:`aurgen.gym.warp.WarpStationKeeping`, and ``"BlueBoatWaypoint-v0"``
:class:`aurgen.gym.warp_waypoint.WarpWaypoint`: the same environments with everything on the device
(actions, observations, rewards, waypoint switching, ends, resets; per-world density, current and
mass): float32, their own random streams, no health ledger (a non-finite state terminates);
aurgen.gym.warp's module docstring says what differs. ``BlueROV2DepthHeading-v0`` is refused there
(``ValueError``: the BlueROV2's added mass must enter the mass matrix, which MuJoCo Warp's passive
callback cannot).
"""

from __future__ import annotations

from aurgen.gym.base import (MAX_FRAME_SKIP, MAX_STEP_LIMIT, _quat_yaw, _vehicle_xml, _wrap,  # noqa: F401
                             gymnasium)
from aurgen.gym.envs import MAX_WAYPOINTS, BlueBoatStationKeeping, BlueBoatWaypoint, BlueROV2DepthHeading  # noqa: F401
from aurgen.gym.vector import MAX_NUM_ENVS, MAX_THREADS, MarineVectorEnv  # noqa: F401


def _register():
    reg = gymnasium.envs.registry
    for name, cls in (("BlueBoatStationKeeping-v0", BlueBoatStationKeeping),
                      ("BlueBoatWaypoint-v0", BlueBoatWaypoint),
                      ("BlueROV2DepthHeading-v0", BlueROV2DepthHeading)):
        if name not in reg:
            gymnasium.register(id=name, entry_point=f"{__name__}:{cls.__name__}", max_episode_steps=None,
                               vector_entry_point=_vector_entry(cls))


def _warp_class(cls):
    """The MuJoCo Warp version of the environment class ``cls``, or None (the BlueROV2's added mass)."""
    if cls is BlueBoatStationKeeping:
        from aurgen.gym.warp import WarpStationKeeping

        return WarpStationKeeping
    if cls is BlueBoatWaypoint:
        from aurgen.gym.warp_waypoint import WarpWaypoint

        return WarpWaypoint
    return None


def _vector_entry(cls):
    def make(num_envs: int = 1, backend: str = "batch", **kwargs):
        if backend == "batch":
            return MarineVectorEnv(cls, num_envs, **kwargs)
        if backend != "warp":
            raise ValueError(f"backend: expected 'batch' (mujoco.batch, the default) or 'warp' (MuJoCo Warp), "
                             f"got {backend!r}")
        warp_cls = _warp_class(cls)
        if warp_cls is None:
            raise ValueError(f"backend 'warp': {cls.__name__} cannot run on MuJoCo Warp: its vehicle "
                             f"({cls.config}) carries added mass, which must enter the mass matrix and MuJoCo "
                             "Warp's passive callback cannot (aurgen.runtime.mjwarp refuses it); use backend='batch'")
        return warp_cls(num_envs, **kwargs)
    return make


_register()
