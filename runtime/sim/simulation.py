"""``Simulation``: load an aurgen MJCF (world or vehicle), step it with the runtime's forces.

    sim = Simulation("build/worlds/open_water.xml")
    sim.step(500)
    sim.state()    # time, per free body: position, rpy, velocity, draft
    sim.check()    # Health: ok / invalid with a reason, settled

The environment comes from the file (``<custom><text name="aurgen:environment">``),
or from ``environment=`` (dict, JSON or :class:`~aurgen.runtime.environment.schema.Environment`),
or ``water=density`` (open water, surface z = 0). With none, the model steps
exactly as plain MuJoCo (bitwise): the plugin is attached with ``ledger`` plain
(no forces; the health ledger's state checks and height window only).

Forces are computed inside MuJoCo's pipeline by the engine plugin
``aurgen.hydrostatics`` (runtime/native/plugin): a file that declares it runs
as it is; otherwise the instance is attached through MjSpec (with the
environment text, the options it takes over, and ``simple="false"`` on bodies
that carry added mass; aurgen.runtime.sim.attach) and the model recompiled, and
``to_xml()`` writes the same edits into the source's text. Mesh displacement geoms are
served too (the plugin builds their convex hulls from the mesh vertices).
The plugin also keeps the health ledger in its state (aurgen.runtime.sim.health),
so ``step(n)`` is one ``mj_step(m, d, nstep=n)``: no Python runs per step.

No global callback: aurgen installs none. The tests keep a reference engine of
their own (tests/runtime/callback_engine.py: the same compiled force stage,
``_native.ForceStage`` over the arrays :class:`aurgen.runtime.sim.plan.Plan` builds, run from MuJoCo's
``mjcb_passive`` with the ledger kept by a Python step loop), which they
register through :func:`register_engine`. Only an ``MjModel`` without an
environment or an instance steps in a Python loop, which keeps the state checks
and the settle window (there is no plugin to keep them, and it can't be
recompiled with one).
"""

from __future__ import annotations

import math
import numbers

import mujoco
import numpy as np

from aurgen.runtime.sim import attach
from aurgen.runtime.sim import loading
from aurgen.runtime.sim.loading import _body_names, _compile, _read_bytes, _recompile_not_simple, _spec_of  # noqa: F401
from aurgen.runtime.environment import schema as envmod
from aurgen.runtime.sim import forces as fz
from aurgen.runtime import plugin as hplugin
from aurgen.runtime._native import Ledger
from aurgen.runtime.sim.health import PLUGIN_INSTANCE, Monitor, PluginLedger, window_steps
from aurgen.runtime.sim.plan import MARK_DISPLACEMENT, MARK_WINDAGE, Plan, SimulationError  # noqa: F401 (public here)



DEFAULT_ENGINE = "plugin"


# --------------------------------------------------------------- reference engines
# Engines other than the plugin, by name: none ships with aurgen (the tests
# register their callback reference, see the module doc).  An engine object has
# prepare(sim, m, src, env, plan, drag, added_mass, buoyancy) -> (m, d, plan),
# step(sim, n), forward(sim) and close(sim).
_ENGINES: dict = {}


def register_engine(name: str, engine) -> None:
    """Make ``Simulation(..., engine=name)`` use ``engine`` (the tests' reference)."""
    _ENGINES[name] = engine


def _positive(name: str, value, unit: str) -> float:
    """``value`` as a finite float > 0, else a SimulationError naming the argument (a bool or a
    string is no number: ``water=True`` is not a density of 1)."""
    try:
        x = float(value) if _real(value) else math.nan
    except (TypeError, ValueError, OverflowError):
        x = math.nan
    if not (math.isfinite(x) and x > 0):
        raise SimulationError(f"{name}={_show(value)}: expected {unit}, a finite number > 0")
    return x


MAX_NSTEP = 2**31 - 1  # mj_step's nstep is a C int: one call steps at most this many


def _real(x) -> bool:
    """A real number, never a bool or a string (``True`` is not 1 here)."""
    return isinstance(x, numbers.Real) and not isinstance(x, (bool, np.bool_))


def _show(x) -> str:
    """``x`` for a message (an int of thousands of digits as its magnitude)."""
    if isinstance(x, int) and not isinstance(x, bool) and abs(x) > 10**30:
        return f"an integer of {x.bit_length()} bits"
    return repr(x)


# --------------------------------------------------------------- loading: runtime/sim/loading.py

class Simulation:
    """A model stepped with the runtime's environment forces (see module doc).

    Parameters: ``model`` a path to an MJCF file, an MJCF string, or an MjModel
    that declares the aurgen.hydrostatics instance;
    ``environment`` overrides the file's; ``water`` (density, kg/m^3) gives open
    water at z = 0 to a file that declares none; ``drag`` (the drag model: form,
    Stokes and rotational drag, wind), ``damping`` (surface damping and the declared
    hydrodynamic damping), ``added_mass``, ``buoyancy`` switch those terms (for tests); ``settle_window`` (s) and
    ``settle_tol`` (m) define "settled" (the window and ``track``, the body whose
    height fills it, go into the plugin's config); ``engine`` "plugin" (the
    default and the only one aurgen ships) or a name given to :func:`register_engine`.
    """

    def __init__(self, model, environment=None, *, water: float | None = None, drag: bool = True,
                 added_mass: bool = True, buoyancy: bool = True, damping: bool = True,
                 settle_window: float = 1.0,
                 settle_tol: float = 1e-4, track: str | None = None, engine: str | None = None):
        engine = DEFAULT_ENGINE if engine is None else engine
        if engine != "plugin" and engine not in _ENGINES:
            raise SimulationError(f"engine {engine!r}: expected 'plugin'")
        if water is not None:
            water = _positive("water", water, "a fluid density in kg/m^3")
            if environment is not None:
                raise SimulationError("pass environment= or water= (open water of that density), not both")
        _positive("settle_window", settle_window, "seconds")
        _positive("settle_tol", settle_tol, "metres")
        self._ref = _ENGINES.get(engine)  # a reference engine, or None: the plugin
        self._attachment = self._xml = None  # set by _attach, read by to_xml
        m, src = _compile(model)
        self.source = str(model) if src is None or src[0] == "path" else "<MJCF string>"
        if track is not None and mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, str(track)) == 0:
            # the world body never moves: settled at once, whatever the model does (the plugin's words)
            raise SimulationError(f"{self.source}: {hplugin.track_world_refusal(str(track))}")
        env = None
        if environment is not None:
            env = envmod.parse(environment)
        else:
            env = envmod.from_model(m)
            if env is not None and water is not None:
                raise SimulationError(f"{self.source}: water= is for a model without an environment; this "
                                      "one carries its own (drop water=, or pass environment= to replace it)")
            if env is None and water is not None:
                env = envmod.open_water(water)
        self.environment = env
        self._plan = None
        self._plugin = False
        if env is not None:
            d = mujoco.MjData(m)
            plan = Plan(m, d, env, drag, added_mass, buoyancy, damping)
            simple = _body_names(m, [b for b in range(m.nbody) if m.body_simple[b]])  # as the source has it
            welds = []
            if plan.missing_offdiag:
                if src is None:
                    raise SimulationError("bodies carrying added mass need full mass-matrix rows: write them "
                                          '<body simple="false"> (or pass a path/string so the runtime can)')
                names = welds = sorted(_body_names(m, plan.missing_offdiag))
                m = _recompile_not_simple(src, names)
                d = mujoco.MjData(m)
                plan = Plan(m, d, env, drag, added_mass, buoyancy, damping)
                if plan.missing_offdiag:
                    raise SimulationError(f"bodies {names}: MuJoCo keeps only the diagonal of their mass "
                                          "matrix rows even with simple=0; added mass cannot be applied")
            self._finish(m, env, plan)
            self._plugin = self._ref is None and self._plugin_mode(m, src)
            if self._plugin:
                if src is not None:
                    # simple="false" where the source leaves a body carrying added mass simple
                    names = (_body_names(m, plan.added_bodies) | set(welds)) & simple
                    m = self._attach(src, attach.Attachment(
                        self._plugin_config(settle_window, track, drag=drag, added_mass=added_mass,
                                            buoyancy=buoyancy, damping=damping),
                        environment=env.to_json(),
                        gravity=tuple(env.gravity.g) if plan.gk == 0 else (0.0, 0.0, 0.0),
                        not_simple=tuple(sorted(names))))
                    d = mujoco.MjData(m)
                    plan = Plan(m, d, env, drag, added_mass, buoyancy, damping)
                    self._finish(m, env, plan)
            else:
                if env.waves is not None:  # the packed arrays carry no sea: the plugin alone steps one
                    raise SimulationError(f"engine {engine!r} has no sea (waves): step a sea with the plugin "
                                          "(the default engine)")
                m, d, plan = self._ref.prepare(self, m, src, env, plan, drag, added_mass, buoyancy)
            self._plan = plan
            self.model, self.data = m, d
            if damping:
                loading.note_undamped(m, self.source)
            loading.note_long_geoms(m, env, self.source)
        else:  # no environment: the plugin keeps the health ledger (no forces), if it can be attached
            if self._ref is None and (src is not None or self._declares_plugin(m)):
                self._plugin = self._plugin_mode(m, src)
                if src is not None:
                    m = self._attach(src, attach.Attachment(self._plugin_config(settle_window, track,
                                                                                ledger="plain")))
            self.model, self.data = m, mujoco.MjData(m)
        self._track = self._find_track(track)
        ledger = None
        if self._plugin:
            ledger = PluginLedger(self.model, self.data)
            if ledger.nz != window_steps(settle_window, self.model.opt.timestep) or ledger.track != self._track:
                raise SimulationError("this MjModel's aurgen.hydrostatics instance keeps another settle window "
                                      "or tracked body: pass the file, or settle_window and track as its config "
                                      "(settle_window, track) says")
        self.monitor = Monitor(self.model.opt.timestep, settle_window, settle_tol, plugin=ledger)
        self._q0 = np.zeros(self.model.nv)
        self._dv, self._mdv = np.zeros(self.model.nv), np.zeros(self.model.nv)  # qvel - q0, M (qvel - q0)
        self._ledger_obj = None
        self._closed = False
        self.reset()

    # -- set-up
    def _finish(self, m, env, plan):
        """Hand the environment to MuJoCo's options: gravity, no built-in fluid model."""
        m.opt.density = 0.0
        m.opt.viscosity = 0.0
        m.opt.wind[:] = 0.0
        if plan.gk == 0:
            m.opt.gravity[:] = env.gravity.g
        else:
            m.opt.gravity[:] = 0.0

    @staticmethod
    def _plugin_mode(m, src) -> bool:
        """The plugin applies the forces (there is no other engine for users); a clear error
        where it can't: its library does not load, or an MjModel without its instance."""
        try:
            hplugin.load()
        except ImportError as exc:
            raise SimulationError(f"the runtime's MuJoCo plugin does not load: {exc}") from None
        if src is None and not Simulation._declares_plugin(m):
            raise SimulationError("this MjModel has no aurgen.hydrostatics instance and an MjModel cannot be "
                                  "recompiled with one: pass the MJCF path or string instead, or declare "
                                  "the plugin in it (docs/runtime.md)")
        return True

    def _attach(self, src, att):
        """The source recompiled through MjSpec with ``att`` (aurgen.runtime.sim.attach: the
        plugin instance, the environment text, the options it takes over, full mass-matrix
        rows where added mass needs them); ``att`` and the source's bytes as compiled are
        kept for :meth:`to_xml`."""
        try:
            m = attach.to_spec(_spec_of(src), att).compile()
        except ValueError as exc:
            where = src[1] if src[0] == "path" else "MJCF string"
            raise SimulationError(f"{where}: {loading.mujoco_words(exc)}") from None
        self._attachment = att
        self._xml = src[1].encode() if src[0] == "string" else _read_bytes(src[1])
        return m

    @staticmethod
    def _plugin_config(settle_window, track, **config):
        """The instance's config: the switches given, the health ledger's settle window and
        tracked body."""
        config = {k: v if isinstance(v, str) else str(bool(v)).lower() for k, v in config.items()}
        config["settle_window"] = repr(float(settle_window))
        if track is not None:
            config["track"] = str(track)
        return config

    def to_xml(self) -> str:
        """The MJCF this simulation runs: the source with the ``aurgen.hydrostatics``
        instance and its config, the environment text and the options the plugin takes
        over (gravity, no built-in fluid model).  Any MuJoCo host with the plugin
        registered runs it as ``step`` does, bit for bit: ``python -m mujoco.viewer
        --mjcf`` after saving it, MuJoCo's ``simulate`` with the plugin library, a
        ``mujoco.MjModel.from_xml_string`` of its own.  Asset files (meshes) stay named
        as the source names them, relative to the source's folder.  An ``MjModel``
        given as the model has no MJCF to return (SimulationError)."""
        if self._attachment is None:
            raise SimulationError("this simulation was made from an MjModel (or by a reference engine), "
                                  "which keeps no MJCF: pass the MJCF path or string to Simulation")
        try:
            return attach.to_xml(self._xml, self._attachment)
        except attach.AttachError as exc:
            raise SimulationError(f"{self.source}: {exc}") from None

    @staticmethod
    def _declares_plugin(m) -> bool:
        return any(mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_PLUGIN, i) == PLUGIN_INSTANCE for i in range(m.nplugin))

    def _led(self):
        """The force stage's ledger of the latest recorded evaluation (NLED,)."""
        if self._plugin:
            return self.monitor.plugin.led
        return self._plan.led_rec

    def _find_track(self, name):
        m = self.model
        if name is not None:
            b = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, name)
            if b < 0:
                raise SimulationError(f"no body named {name!r}")
            return b
        for j in range(m.njnt):
            if m.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE:
                return int(m.jnt_bodyid[j])
        return 1 if m.nbody > 1 else 0

    def free_bodies(self) -> list[int]:
        m = self.model
        return [int(m.jnt_bodyid[j]) for j in range(m.njnt) if m.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE]

    # -- stepping
    def reset(self):
        mujoco.mj_resetData(self.model, self.data)
        self.forward()
        self.monitor.reset(self.data)

    def step(self, n: int = 1):
        """Advance n steps (mj_step with the runtime's forces), keeping the health ledger."""
        if type(n) is not int or not 0 <= n <= MAX_NSTEP:  # the common case first: step(1) in a control loop
            if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
                raise ValueError(f"step(n): n is a whole number of steps >= 0, got {n!r}")
            if n > MAX_NSTEP:
                raise ValueError(f"step(n): at most {MAX_NSTEP} steps in one call, got {_show(n)}")
        m, d = self.model, self.data
        self.monitor.tally.activate()  # MuJoCo's messages in this thread go to this run's tally
        if self._plugin:  # the plugin keeps the ledger and counts MuJoCo's resets: no Python per step
            mujoco.mj_step(m, d, nstep=n)
            return
        if self._plan is not None:  # a reference engine (the tests')
            self._ref.step(self, n)
            return
        # no environment, no plugin: the state checks and the height only
        plain, dt, tb, tally = self._ledger().plain, m.opt.timestep, self._track, self.monitor.tally
        for _ in range(n):
            mujoco.mj_step(m, d)
            if tally.pending:
                tally.rearm()
            plain(dt, d.time, tb)

    def _ledger(self):
        """Without the plugin: the compiled ledger bound to this run's arrays (views into
        mjData are stable for its lifetime; the monitor's arrays for the Simulation's)."""
        st, zb = self.monitor.state, self.monitor.zbuf
        if self._ledger_obj is None or self._ledger_obj[0] is not st or self._ledger_obj[1] is not zb:
            d, plan = self.data, self._plan
            led = plan.led_rec if plan is not None else np.zeros(fz.NLED)
            mine = plan.qmine if plan is not None else np.zeros(self.model.nv)
            qdrag = plan.qdrag if plan is not None else np.zeros(self.model.nv)
            broot = np.ascontiguousarray(self.model.body_rootid, dtype=np.int64)
            arrays = (st, zb, led, self._q0, d.qfrc_actuator, d.qfrc_applied, d.qfrc_constraint,
                      d.qfrc_passive, mine, d.xfrc_applied, d.cvel, d.xipos, d.subtree_com, broot,
                      d.qpos, d.qvel, d.qacc, d.qfrc_bias, qdrag, self._mdv)
            self._ledger_obj = (st, zb, Ledger(arrays))
        return self._ledger_obj[2]

    def run(self, duration: float, callback=None, every: int = 1):
        """Step for ``duration`` seconds; ``callback(sim)`` every ``every`` steps."""
        try:
            secs = float(duration) if _real(duration) else math.nan
        except OverflowError:  # an int beyond a double
            secs = math.inf
        if not (math.isfinite(secs) and secs >= 0):
            raise ValueError(f"run(duration): a finite number of seconds >= 0, got {_show(duration)}")
        if secs / self.model.opt.timestep > MAX_NSTEP:
            raise ValueError(f"run(duration): {secs:.3g} s is more than the {MAX_NSTEP} steps of "
                             f"{self.model.opt.timestep:g} s one call may take")
        if isinstance(every, bool) or not isinstance(every, (int, np.integer)) or every < 1:
            raise ValueError(f"run(every=): a whole number of steps >= 1, got {every!r}")
        n = int(round(duration / self.model.opt.timestep))
        if callback is None:
            self.step(n)
            return
        for i in range(n):
            self.step(1)
            if i % every == 0:
                callback(self)

    def forward(self):
        """mj_forward with the runtime's forces (fills qacc, the ledger, d.M with added mass)."""
        if hasattr(self, "monitor"):
            self.monitor.tally.activate()
        if self._plan is None or self._plugin:
            self._record_next()
            mujoco.mj_forward(self.model, self.data)
            return
        self._ref.forward(self)

    # -- readouts
    def energy(self) -> float:
        """Mechanical energy at the current state (J): kinetic (with added mass) +
        gravitational + buoyancy potential. Runs mj_forward."""
        if self._plan is None:
            raise SimulationError("no environment: the runtime keeps no energy ledger")
        self.forward()
        led = self._led()
        return float(led[fz.L_KE] + led[fz.L_UGRAV] + led[fz.L_UBUOY])

    def kinetic_energy(self) -> float:
        if self._plan is None:
            raise SimulationError("no environment")
        self.forward()
        return float(self._led()[fz.L_KE])

    def submerged_volume(self) -> float:
        """Displaced volume in densest-fluid equivalent (m^3) at the last evaluation."""
        return float(self._led()[fz.L_VSUB]) if self._plan is not None else 0.0

    def _record_next(self):
        """The next evaluation records the ledger (the plugin records the first one after a step)."""
        if self._plugin:
            led = self.monitor.plugin
            self.data.plugin_state[led.adr + led.layout["record"]] = 1.0

    def _sync_kinematics(self):
        """Make the pose and velocity readouts those of the current ``qpos``/``qvel``.

        ``mj_step`` integrates after computing kinematics, so after it ``xpos``,
        ``xquat``, ``xmat`` and ``cvel`` describe the state *before* the step
        (Euler, implicitfast) or an internal stage (RK4). Position and velocity
        kinematics are recomputed here; the next ``mj_step`` recomputes them
        anyway, so the trajectory is unchanged (bitwise).
        """
        m, d = self.model, self.data
        mujoco.mj_kinematics(m, d)
        mujoco.mj_comPos(m, d)
        mujoco.mj_comVel(m, d)

    def body_state(self, b: int) -> dict:
        """Pose and velocity of body ``b`` at ``data.time`` (world frame; m, rad, m/s, rad/s)."""
        self._sync_kinematics()
        d = self.data
        R = d.xmat[b].reshape(3, 3)
        roll = math.atan2(R[2, 1], R[2, 2])
        pitch = -math.asin(max(-1.0, min(1.0, R[2, 0])))
        yaw = math.atan2(R[1, 0], R[0, 0])
        out = {
            "name": mujoco.mj_id2name(self.model, mujoco.mjtObj.mjOBJ_BODY, b) or f"body{b}",
            "position": d.xpos[b].copy(),
            "quaternion": d.xquat[b].copy(),
            "roll": roll, "pitch": pitch, "yaw": yaw,
            "velocity": (d.cvel[b, 3:] + np.cross(d.cvel[b, :3], d.xpos[b] - d.subtree_com[self.model.body_rootid[b]])),
            "angular_velocity": d.cvel[b, :3].copy(),
        }
        surf = self._plan.surface if self._plan is not None else None
        if surf is not None:
            u, off = surf
            out["draft"] = float(off - np.dot(u, d.xpos[b]))
        return out

    def state(self) -> dict:
        """Time, health and per free body: position, quaternion, roll/pitch/yaw (rad),
        velocity, and draft (m, positive below the free surface) where there is one."""
        return {"time": float(self.data.time), "health": self.check(),
                "bodies": [self.body_state(b) for b in (self.free_bodies() or [self._track])]}

    def check(self):
        """Health (ok / invalid with a reason, settled), at any time."""
        return self.monitor.health(self.data)

    def height_range(self) -> float:
        return self.monitor.height_range()

    # -- lifetime
    def close(self):
        if not self._closed and self._plan is not None and self._ref is not None:
            self._ref.close(self)
        if hasattr(self, "monitor"):
            self.monitor.tally.release()  # later warnings in this thread are no longer this run's
        self._closed = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass
