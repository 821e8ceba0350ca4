"""Health of a running world: ok, or invalid with a named reason; settled detection.

Checks, per step, kept by the engine plugin ``aurgen.hydrostatics`` in its
``d.plugin_state`` (runtime/native/plugin/state.h; the step's account is
:func:`ledger_step`, C++ in runtime/native/core/ledger.cc, called from the
plugin's ``advance``): no Python runs per step, and any MuJoCo host that steps
an aurgen world (``Simulation``, ``mujoco.batch.Batch``, ``mujoco.rollout``,
the viewer, a C++ program) keeps it. :func:`health_of` reads it from any
``MjData``; :class:`Monitor` is a Simulation's reader.

* **invalid plugin state**: a value restored into ``d.plugin_state`` that no step leaves
  (state.h StateError; checked by the plugin before use, repaired, named; S_BAD 3);
* **non-finite state**: any NaN/inf in qpos, qvel or qacc, or a non-finite energy or work;
* **energy gained with no work done**: the ledger ``E - E0 - W`` where
  ``E = kinetic (1/2 qdot^T (M + M_A) qdot) + gravitational + buoyancy potential``
  (the integral of the hydrostatic pressure over the submerged pieces) and ``W``
  the work of the non-conservative forces (actuators, applied forces,
  constraints, MuJoCo's own passive forces, the runtime's drag and damping),
  booked with the integrator's own quadrature (Euler, implicitfast, implicit: the
  force the step applied times the mean velocity, exact for the kinetic energy;
  RK4: the stage forces weighted 1, 2, 2, 1 against the stage velocities, core/ledger.h
  RK4Stage; core/ledger.h StepWork). Flagged when it exceeds
  ``ENERGY_RTOL * scale + dt/2 |f_c . v0| + ENERGY_ATOL (1 + |E0|)``, ``scale``
  being the largest kinetic energy, work or energy drop seen so far and f_c the
  conservative generalized force (the integrator's first-order offset);
* **contact penetration**, judged by MuJoCo's soft-contact model: a contact's *rest depth*
  ``R W / (n K I)`` is where its constraint rows settle (``R f = aref = -K I r``: ``efc_R``,
  ``efc_KBIP``'s stiffness K and impedance I;
  n rows share the normal force) if it alone carried the whole weight ``W`` of the tree it
  touches; its *scale* is the larger of its geom size (the smaller of its two geoms' smallest
  half-extent: sphere and capsule radius, cylinder min(radius, half-length), box and ellipsoid
  smallest semi-axis, mesh smallest bounding half-size; a plane or height field has none),
  ``REST_SCALE`` (20) times its rest depth and ``IMPACT_SCALE`` (20) times its *impact depth*
  ``r_w + sqrt(r_w^2 + 2 c E)``, how far the undamped contact (compliance ``c = R / (n K I)``)
  would go in to stop a landing under the weight with the model's recent largest kinetic energy
  ``E`` of the contact episode (forgotten with the time constant ``IMPACT_MEMORY``, 1 s). Deeper
  than ``PEN_FAIL`` (50 %) of its scale (half-way through the thinner geom, and 10 times what the
  whole weight or a landing explains: a body driven through the floor) is invalid, named with the body, the depths and the time; from ``PEN_WARN`` (10 %) the
  health stays ok and carries a ``warning`` saying the same. A body resting under its weight or
  landing (at most its rest or impact depth, however small the geom) is ok with no warning;
* **energy gained at a contact**: the work of the contact rows of the constraint force
  (``efc_force . J (v0 + v1) / 2 dt``, per step) summed over a contact episode (steps with an
  active contact; it restarts at 0 when none is) exceeds the energy tolerance above: a soft
  contact gives back no more than it took, so a positive sum is energy from nothing (a body
  placed inside another and thrown out), named with the body of the contact that did the
  most work in the step and the time (the energy ledger only; a contact with a moving mocap
  body can do positive work and is not told apart);
* and, read when asked, **MuJoCo warnings** (any ``d.warning[i].number`` above
  its count at reset). A **state reset** (MuJoCo found NaN, inf or a huge value
  in qpos, qvel or qacc and restarted from the initial state) comes first: the
  run is invalid, with the number of resets and the simulated time reached, and
  never settled (the ledger restarts with the state, so it cannot say). The
  plugin counts resets in its state after each step and re-arms MuJoCo's
  counters (MuJoCo prints a kind only while its counter is 0), so every reset is
  counted; a ``mj_resetData`` by the user starts a new run (the count clears).
  The messages themselves go to the runtime's handler (aurgen.runtime.sim.mjwarn:
  never printed, never written to a ``MUJOCO_LOG.TXT``).

Settled: the range (max - min) of the tracked body's height over the last
``window`` seconds is below ``tol`` (a floating body's speed never reaches
exactly zero, its height range does). The plugin's window is its
``settle_window`` config (s, default 1) and the tracked body its ``track``
config (default the first free body).

A model with no environment keeps the state checks and the height window only
(the plugin's ``ledger`` plain). Without the plugin (an ``MjModel`` with no
environment and no instance, or the reference engine the tests keep,
tests/runtime/callback_engine.py) a :class:`Monitor` keeps the same ledger in
its own arrays, from a Python step loop.
"""

from __future__ import annotations

import math


import numpy as np

from aurgen.core.records import record

from aurgen.runtime.sim import mjwarn
from aurgen.runtime._native import (TALLY, ledger_step, plugin_state_error, plugin_state_layout,  # noqa: F401
                                    window_steps)

ENERGY_RTOL = 0.01  # core/ledger.h kEnergyRtol
ENERGY_ATOL = 1e-9

# ledger state slots
S_E0 = 0
S_W = 1
S_SCALE = 2
S_EMIN = 3
S_RES = 4  # last residual E - E0 - W
S_BAD = 5  # 0 ok, 1 non-finite, 2 energy
S_N = 6  # steps recorded
S_E = 7  # last energy
S_RESMAX = 8
S_BADTIME = 9
S_KEMAX = 10
S_BADSLOT = 11  # with S_BAD 3: where the invalid value was (a plugin state offset, else a slot)
NSTATE = 12
BAD_NONFINITE, BAD_ENERGY, BAD_STATE, BAD_PENETRATION, BAD_CONTACT_ENERGY = 1, 2, 3, 4, 5  # S_BAD's (0 ok)

# contact health (core/ledger.h kCRatio .. kCWorkBody; the plugin state's contact region)
(C_RATIO, C_DEPTH, C_SIZE, C_TIME, C_BODY, C_WORK, C_WORKMAX, C_WORKTIME, C_WORKBODY, C_REST, C_IMPACT,
 C_EPISODE_KE) = range(12)
NCONTACT = 12
PEN_WARN = 0.1  # core/ledger.h kPenWarn: a warning (health ok), of the contact's scale
PEN_FAIL = 0.5  # kPenFail: invalid
REST_SCALE = 20.0  # kRestScale: the scale is max(geom size, REST_SCALE x rest depth, IMPACT_SCALE x impact depth)
IMPACT_SCALE = 20.0  # kImpactScale
IMPACT_MEMORY = 1.0  # s, kImpactMemory: the episode's kinetic energy is forgotten with this time constant
_CONTACT_NAMES = ("deepest penetration ratio", "deepest penetration depth", "penetration geom size",
                  "penetration time", "penetration body", "contact episode work",
                  "largest contact episode work", "contact work time", "contact work body",
                  "penetration rest depth", "penetration impact depth", "contact episode kinetic energy")

# what each slot is, for the reason "invalid plugin state"
_LEDGER_NAMES = {S_E0: "E0", S_W: "work W", S_SCALE: "energy scale", S_EMIN: "least energy",
                 S_RES: "residual", S_BAD: "verdict", S_N: "step count", S_E: "energy",
                 S_RESMAX: "largest residual", S_BADTIME: "verdict time", S_KEMAX: "slot 10",
                 S_BADSLOT: "invalid value's slot"}


def _slot_name(off: int, layout: dict | None) -> str:
    """The name of plugin-state offset ``off`` (layout: plugin_state_layout's; None: a slot of
    a Monitor's own ledger state)."""
    if layout is None:
        return f"ledger {_LEDGER_NAMES.get(off, f'slot {off}')} (slot {off})"
    L = layout
    if L["ledger"] <= off < L["ledger"] + NSTATE:
        what = f"ledger {_LEDGER_NAMES[off - L['ledger']]}"
    elif L["tally"] <= off < L["tally"] + NTALLY:
        what = f"reset tally {TALLY[off - L['tally']]}"
    elif off == L["record"]:
        what = "record flag"
    elif off == L["trec"]:
        what = "recorded time"
    elif off == L["track"]:
        what = "tracked body"
    elif off == L["rkstage"]:
        what = "RK4 stage index"
    elif L["contact"] <= off < L["contact"] + NCONTACT:
        what = f"contact health {_CONTACT_NAMES[off - L['contact']]}"
    elif L["rk"] <= off < L["rkstage"]:
        what = "RK4 booked work" if off == L["rk"] else "RK4 stage velocity"
    else:
        what = "value"
    return f"{what} (plugin state [{off}])"

# the plugin's reset tally (runtime/native/plugin/state.h TallySlot)
T_RESETS, T_QPOS, T_QVEL, T_QACC, T_FIRST_KIND, T_FIRST_TIME, T_REACHED, T_LAST, T_PENDING = range(9)
NTALLY = len(TALLY)
PLUGIN_INSTANCE = "hydrostatics"  # the instance name aurgen's worlds and Simulation give it


@record
class Health:
    """``ok`` or not, with ``reason`` (None when ok); ``settled`` by the height window."""

    ok: bool
    reason: str | None
    settled: bool
    time: float
    energy_residual: float = 0.0
    energy_scale: float = 0.0
    warning: str | None = None  # a contact deeper than PEN_WARN of its geom size (ok stays True)

    @property
    def status(self) -> str:
        return "ok" if self.ok else "invalid"

    def __str__(self) -> str:
        s = "ok" if self.ok else f"invalid: {self.reason}"
        s += ", settled" if self.settled else ""
        return s + (f" (warning: {self.warning})" if self.ok and self.warning else "")


def _warning_name(i: int) -> str:
    try:
        import mujoco

        return mujoco.mjtWarning(i).name
    except Exception:
        return f"warning {i}"


@record
class Resets:
    """MuJoCo's state resets in a run: how many, of which kind, the first (kind, time s), the
    largest simulated time reached before one (s)."""

    count: int = 0
    kinds: tuple = ()  # ((mjtWarning name, count), ...), the first reset's kind first
    first: tuple | None = None  # (mjtWarning name, time s)
    time_reached: float = 0.0

    def reason(self) -> str | None:
        """Why the run is invalid, or None (no reset)."""
        if not self.count:
            return None
        kind, t = self.first
        what = {"mjWARN_BADQPOS": "qpos", "mjWARN_BADQVEL": "qvel", "mjWARN_BADQACC": "qacc"}[kind]
        kinds = ", ".join(f"{k} {n}" for k, n in self.kinds)
        return (f"non-finite state (NaN, inf or a huge value in {what}) at t = {t:.4f} s: "
                f"MuJoCo reset the state to the initial one {self.count} time{'s' if self.count != 1 else ''} "
                f"({kinds}); simulated time reached {self.time_reached:.4f} s")


def find_instance(m) -> int:
    """The aurgen.hydrostatics instance of model ``m``: the one named ``hydrostatics``, else
    the only instance; ValueError naming what is there otherwise."""
    import mujoco

    names = [mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_PLUGIN, i) for i in range(m.nplugin)]
    if PLUGIN_INSTANCE in names:
        return names.index(PLUGIN_INSTANCE)
    if m.nplugin == 1:
        return 0
    raise ValueError(f"no aurgen.hydrostatics instance named {PLUGIN_INSTANCE!r} among the model's "
                     f"plugin instances {names} (pass instance=)")


class PluginLedger:
    """Views into one aurgen.hydrostatics instance's ``d.plugin_state`` (state.h layout):
    ``led`` the force stage's ledger, ``state`` (NSTATE,) the health ledger, ``zbuf`` the
    settle window, ``tally`` (NTALLY,) the reset tally; ``nz`` the window in steps and
    ``track`` the tracked body. The views stay valid for the MjData's lifetime."""

    def __init__(self, m, d, instance: int | None = None):
        i = find_instance(m) if instance is None else int(instance)
        if not 0 <= i < m.nplugin:
            raise ValueError(f"instance {i}: the model has {m.nplugin} plugin instances")
        a, n = int(m.plugin_stateadr[i]), int(m.plugin_statenum[i])
        nz = n - plugin_state_layout(m.nv, 2)["zbuf"]
        if nz < 2:
            raise ValueError(f"plugin instance {i} keeps {n} numbers of state: not an aurgen.hydrostatics "
                             "instance of this version")
        L = plugin_state_layout(m.nv, nz)
        ps = d.plugin_state
        self.layout, self.adr, self.nz = L, a, nz
        self.led = ps[a + L["led"]:a + L["led"] + L["record"]]
        self.state = ps[a + L["ledger"]:a + L["ledger"] + NSTATE]
        self.tally = ps[a + L["tally"]:a + L["tally"] + NTALLY]
        self.zbuf = ps[a + L["zbuf"]:a + L["zbuf"] + nz]
        self.contact = ps[a + L["contact"]:a + L["contact"] + NCONTACT]
        self._ps = ps
        self._m = m
        self._nv, self._nbody = int(m.nv), int(m.nbody)

    def restored_health(self, d) -> Health | None:
        """Health invalid naming the first value no step can have left in this state (a
        tampered mj_setState not yet stepped: the plugin repairs it at its next evaluation),
        or None."""
        err = self.state_error()
        if err < 0:
            return None
        v = float(self._ps[self.adr + err])
        reason = f"invalid plugin state: the {_slot_name(err, self.layout)} is {v!r}, a value {_STATE_WHY}"
        return Health(False, reason, False, float(d.time), float(self.state[S_RES]), float(self.state[S_SCALE]))

    @property
    def track(self) -> int:
        return int(self._ps[self.adr + self.layout["track"]])

    def resets(self) -> Resets:
        t = self.tally
        if t[T_PENDING]:  # mj_resetData since the latest step: the run starts afresh
            return Resets()
        names = ("mjWARN_BADQPOS", "mjWARN_BADQVEL", "mjWARN_BADQACC")
        counts = [int(t[T_QPOS + k]) for k in range(3)]
        if not int(t[T_RESETS]):
            return Resets()
        first = int(t[T_FIRST_KIND]) - 1
        order = [first] + [k for k in range(3) if k != first]
        return Resets(int(t[T_RESETS]), tuple((names[k], counts[k]) for k in order if counts[k]),
                      (names[first], float(t[T_FIRST_TIME])), float(t[T_REACHED]))

    def state_error(self) -> int:
        """The first offset (into this instance's state) of a value no step can have left
        there (runtime/native/plugin/state.h StateError, what the plugin checks), or -1."""
        n = self.layout["size"]
        return int(plugin_state_error(np.ascontiguousarray(self._ps[self.adr:self.adr + n]), self._nv,
                                      self.nz, self._nbody))

    def clear_resets(self) -> None:
        """Forget the reset tally (a new run)."""
        self.tally[:] = 0.0


_STATE_WHY = ("restored by mj_setState, a rollout's initial_state or a copy of a tampered MjData; "
              "no step leaves it")


def _body_name(m, b) -> str:
    import mujoco

    name = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, int(b)) if m is not None and 0 <= b < m.nbody else None
    return repr(name) if name else f"#{int(b)}"


def _penetration(cs, m) -> str:
    """The deepest penetration in contact state ``cs``: depth, the geom size, rest depth and impact depth
    its scale comes from, its fraction of that scale, body, time."""
    depth, size, rest, impact = (float(cs[k]) for k in (C_DEPTH, C_SIZE, C_REST, C_IMPACT))
    return (f"body {_body_name(m, cs[C_BODY])} {1e3 * depth:.4g} mm into a contact at t = {cs[C_TIME]:.4f} s: "
            f"{depth / size if size > 0 else math.inf:.3g} x its geom size {1e3 * size:.4g} mm, "
            f"{depth / rest if rest > 0 else math.inf:.3g} x the {1e3 * rest:.4g} mm its soft contact rests at "
            f"under the whole weight it touches, {depth / impact if impact > 0 else math.inf:.3g} x the "
            f"{1e3 * impact:.4g} mm a landing with the recent kinetic energy could drive it in (solref/solimp); "
            f"{100 * cs[C_RATIO]:.3g} % of its scale, the largest of the size, {REST_SCALE:g} x the rest depth "
            f"and {IMPACT_SCALE:g} x the impact depth (warn from {100 * PEN_WARN:g} %, invalid from "
            f"{100 * PEN_FAIL:g} %)")


def _verdict(st, zbuf, tol, resets: Resets | None, d, warn0, layout=None, cs=None, m=None) -> Health:
    """The Health of ledger state ``st`` (NSTATE,), window ``zbuf``, resets and MuJoCo's
    warnings in ``d`` above the counts ``warn0`` (None: not read); ``layout`` names the
    plugin state's offsets (None: ``st`` is a Monitor's own); ``cs`` (NCONTACT,) the plugin's
    contact health (None: none kept), ``m`` the model (body names)."""
    if st[S_BAD] == BAD_STATE:  # an invalid state comes first: nothing else in it can be trusted
        reason = (f"invalid plugin state at t = {st[S_BADTIME]:.4f} s: the "
                  f"{_slot_name(int(st[S_BADSLOT]), layout)} held a value {_STATE_WHY} "
                  "(the plugin repaired it and restarted the ledger: the run stays invalid)")
        return Health(False, reason, False, float(d.time), float(st[S_RES]), float(st[S_SCALE]))
    reason = resets.reason()
    if reason is not None:  # the ledger restarted with the state: its verdict means nothing now
        return Health(False, reason, False, float(d.time), float(st[S_RES]), float(st[S_SCALE]))
    bad = int(st[S_BAD])
    if bad == 1:
        reason = f"non-finite state (NaN or inf) at t = {st[S_BADTIME]:.4f} s"
    elif bad == 2:
        reason = (f"energy gained with no work done at t = {st[S_BADTIME]:.4f} s "
                  f"(E - E0 - W = {st[S_RESMAX]:.6g} J, scale {st[S_SCALE]:.6g} J)")
    elif bad == BAD_PENETRATION and cs is not None:
        reason = f"contact penetration: {_penetration(cs, m)}"
    elif bad == BAD_CONTACT_ENERGY and cs is not None:
        reason = (f"energy gained at a contact at t = {st[S_BADTIME]:.4f} s: body {_body_name(m, cs[C_WORKBODY])}; "
                  f"the contact forces did {cs[C_WORKMAX]:.6g} J of net positive work over the contact "
                  f"episode (a contact gives back no more than it took; scale {st[S_SCALE]:.6g} J)")
    elif bad in (BAD_PENETRATION, BAD_CONTACT_ENERGY):
        reason = f"contact verdict {bad} at t = {st[S_BADTIME]:.4f} s"
    if reason is None and warn0 is not None:
        for i in range(len(d.warning)):
            n = int(d.warning[i].number)
            if n > warn0[i]:
                name = _warning_name(i)
                reason = f"MuJoCo warning: {name} ({n - warn0[i]} times)"
                break
    if reason is None:
        for a in (d.qpos, d.qvel):
            if not np.all(np.isfinite(a)):
                reason = "non-finite state (NaN or inf)"
                break
    warning = None
    if reason is None and cs is not None and cs[C_RATIO] >= PEN_WARN:
        warning = f"contact penetration: {_penetration(cs, m)}"
    return Health(reason is None, reason, _settled(st, zbuf, tol), float(d.time),
                  float(st[S_RES]), float(st[S_SCALE]), warning)


def _settled(st, zbuf, tol) -> bool:
    if not st[S_N] >= zbuf.shape[0]:  # a NaN count (a tampered state) included
        return False
    return float(zbuf.max() - zbuf.min()) < tol


def health_of(m, d, tol: float = 1e-4, instance: int | None = None) -> Health:
    """The Health of any MjData stepped with the aurgen.hydrostatics plugin (a Simulation's,
    a ``mujoco.batch.Batch`` world's, a rollout's, a viewer's), read from its plugin state;
    ``tol`` (m) the height range below which it is settled. MuJoCo warnings count from 0
    (their count at ``mj_resetData``)."""
    led = PluginLedger(m, d, instance)
    h = led.restored_health(d)
    if h is not None:
        return h
    return _verdict(led.state, led.zbuf, tol, led.resets(), d, [0] * len(d.warning), led.layout, led.contact, m)


class Monitor:
    """A Simulation's health bookkeeping: the plugin's ledger (``plugin``, a
    :class:`PluginLedger`) or, without the plugin, its own ledger arrays filled by the
    Simulation's step loop; the warning baseline; the thread's warning tally."""

    def __init__(self, dt: float, window: float = 1.0, tol: float = 1e-4, plugin: PluginLedger | None = None):
        self.window = window
        self.tol = tol
        self.dt = dt
        self.plugin = plugin
        if plugin is not None:
            self.state, self.zbuf = plugin.state, plugin.zbuf
        else:
            self.state = np.zeros(NSTATE)
            self.zbuf = np.zeros(window_steps(window, dt))
        self.warn0 = None
        mjwarn.install()
        self.tally = mjwarn.Tally()  # MuJoCo's messages during this run (the Simulation activates it)

    def reset(self, d):
        """A new run from the current state (the ledger, its window and the reset tally cleared)."""
        self.state[:] = 0.0
        self.zbuf[:] = 0.0
        if self.plugin is not None:
            self.plugin.clear_resets()
        self.warn0 = [int(d.warning[i].number) for i in range(len(d.warning))]
        self.tally.clear(d)
        self.tally.activate()

    def resets(self) -> Resets:
        """MuJoCo's state resets in this run (the plugin's tally, else the messages heard)."""
        if self.plugin is not None:
            return self.plugin.resets()
        t = self.tally
        if not t.resets:
            return Resets()
        return Resets(t.resets, tuple(t.reset_kinds.items()), (t.first_reset[0], t.first_reset[2]),
                      t.time_reached)

    def reset_reason(self) -> str | None:
        """Why the run is invalid when MuJoCo reset its state, or None."""
        return self.resets().reason()

    def settled(self) -> bool:
        return _settled(self.state, self.zbuf, self.tol)

    def height_range(self) -> float:
        n = self.state[S_N]
        if not 0 <= n <= 2 ** 53:
            return float("nan")
        n = int(n)
        z = self.zbuf if n >= self.zbuf.shape[0] else self.zbuf[:n]
        return float(z.max() - z.min()) if len(z) else float("nan")

    def health(self, d) -> Health:
        if self.plugin is not None:
            h = self.plugin.restored_health(d)
            if h is not None:
                return h
            return _verdict(self.state, self.zbuf, self.tol, self.resets(), d, self.warn0, self.plugin.layout,
                            self.plugin.contact, self.plugin._m)
        return _verdict(self.state, self.zbuf, self.tol, self.resets(), d, self.warn0)
