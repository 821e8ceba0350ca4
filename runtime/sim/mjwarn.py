"""MuJoCo's warnings, kept by the runtime: counted per simulation, never printed, never logged to a file.

Without a handler MuJoCo prints every warning and appends it to ``MUJOCO_LOG.TXT``
in the working directory (the user's folder). :func:`install` sets a
process-wide handler (``mujoco.set_mju_user_warning``) once; each message goes
to the :class:`Tally` of the simulation stepping in this thread
(:meth:`Tally.activate`, called by the Simulation before it steps), which the
health ledger reads (aurgen.runtime.sim.health). A message outside any simulation
(a compile, plain MuJoCo in the same process) is written to stderr as one line,
never to a file.

State resets: when qpos, qvel or qacc goes bad (NaN, inf or huge), MuJoCo warns
(``mjWARN_BADQPOS``, ``mjWARN_BADQVEL``, ``mjWARN_BADQACC``) and resets the state
to the model's initial one, time 0 included. It prints a kind only while that
kind's counter in ``mjData.warning`` is zero, and the reset leaves it at 1, so a
second reset of the same kind would be silent (and its counter stays 1). The
engine plugin ``aurgen.hydrostatics`` re-arms those counters itself after every
step (its ``advance``) and counts the resets in its state, which the health
ledger reads (no Python per step); the Tally's own count and :meth:`Tally.rearm`
serve the runs with no plugin (an ``MjModel`` with no environment and no
instance, the tests' ``callback`` reference), whose Python step loops call it
after a step in which a reset was heard.
"""

from __future__ import annotations

import re
import sys
import threading

__all__ = ["RESET_KINDS", "Tally", "install", "installed"]

RESET_KINDS = ("mjWARN_BADQPOS", "mjWARN_BADQVEL", "mjWARN_BADQACC")

_local = threading.local()
_lock = threading.Lock()
_installed = False
_PREFIXES: list = []  # (message prefix, warning name), from mju_warningText


def _prefixes() -> list:
    if not _PREFIXES:
        import mujoco

        for i in range(int(mujoco.mjtWarning.mjNWARNING)):
            w = mujoco.mjtWarning(i)
            text = mujoco.mju_warningText(w, 7)  # the text up to the number MuJoCo fills in
            _PREFIXES.append((text.split("7", 1)[0], w.name))
    return _PREFIXES


def kind_of(message: str) -> str | None:
    """The ``mjtWarning`` name of a message MuJoCo printed, or None (another warning)."""
    for prefix, name in _prefixes():
        if prefix and message.startswith(prefix):
            return name
    return None


class Tally:
    """The warnings one simulation heard: resets (count, first, the simulated time reached) and the rest."""

    def __init__(self):
        self.data = None
        self.clear(None)

    def clear(self, data) -> None:
        """Forget everything (a Simulation reset); ``data``: the MjData it steps."""
        self.data = data
        self.pending = False  # a reset heard in the step running now (rearm after it)
        self.resets = 0
        self.reset_kinds: dict = {}
        self.first_reset = None  # (kind, message, time)
        self.time_reached = 0.0  # the largest simulated time before a reset
        self.others: dict = {}  # kind or message -> count (warnings that do not reset)

    def activate(self) -> None:
        """Route this thread's MuJoCo warnings here (until another tally is activated)."""
        _local.tally = self

    def release(self) -> None:
        """Stop routing this thread's warnings here (the Simulation closed)."""
        if getattr(_local, "tally", None) is self:
            _local.tally = None

    def hear(self, message: str) -> None:
        kind = kind_of(message)
        if kind in RESET_KINDS:
            t = float(self.data.time) if self.data is not None else _message_time(message)
            self.resets += 1
            self.reset_kinds[kind] = self.reset_kinds.get(kind, 0) + 1
            if self.first_reset is None:
                self.first_reset = (kind, message, t)
            self.time_reached = max(self.time_reached, t)
            self.pending = True
        else:
            key = kind or message
            self.others[key] = self.others.get(key, 0) + 1

    def rearm(self) -> None:
        """After a step in which MuJoCo reset the state: zero the reset kinds' counters so the
        next reset is printed (to us) too; keep the time the restarted run reaches."""
        self.pending = False
        d = self.data
        if d is None:
            return
        import mujoco

        for name in RESET_KINDS:
            d.warning[int(getattr(mujoco.mjtWarning, name))].number = 0


def _message_time(message: str) -> float:
    m = re.search(r"Time = ([-+0-9.eE]+)", message)
    return float(m.group(1)) if m else float("nan")


def _handler(message) -> None:
    try:
        message = message.decode("utf-8", "replace") if isinstance(message, bytes) else str(message)
        tally = getattr(_local, "tally", None)
        if tally is not None:
            tally.hear(message)
        else:
            sys.stderr.write(f"MuJoCo warning: {message.strip()}\n")
    except Exception:  # never raise into MuJoCo
        pass


def install() -> None:
    """Install the handler (process-wide, once): MuJoCo's warnings reach the tallies, not a file."""
    global _installed
    if _installed:
        return
    with _lock:
        if not _installed:
            import mujoco

            _prefixes()
            mujoco.set_mju_user_warning(_handler)
            _installed = True


def installed() -> bool:
    return _installed
