"""How a bridge run ends, for one vehicle's loop (``server``) and the fleet's (``fleet``) alike: Ctrl-C,
SIGTERM and a watcher's end (:class:`Stop`: the viewer closed) end the loop quietly, then the summary,
to which each watcher adds its line; and what both loops keep while running: the health checks' and the
status line's intervals, and ``--speedup``'s pacing."""

from __future__ import annotations

import signal
import threading
import time
from contextlib import contextmanager


class Stop(Exception):
    """SIGTERM, or a watcher's end (the viewer closed): end as Ctrl-C does."""


def _terminate(signum, frame):
    raise Stop()


@contextmanager
def interruptible():
    """The loop inside ends quietly on Ctrl-C, SIGTERM (in the main thread, where a handler can be set;
    the previous one is restored after) or :class:`Stop`."""
    main = threading.current_thread() is threading.main_thread()
    old = signal.signal(signal.SIGTERM, _terminate) if main else None
    try:
        yield
    except (KeyboardInterrupt, Stop):
        pass
    finally:
        if old is not None:
            signal.signal(signal.SIGTERM, old)


def watcher_lines(watchers, out) -> None:
    """Each watcher's summary line (those that have one), indented as the summary's, then flush."""
    for w in watchers:
        line = w.summary()
        if line:
            print(f"  {line}", file=out)
    out.flush()


def watcher_status(watchers) -> str:
    """The watchers' parts of the terminal's status line (those with a ``status()`` that says
    something: the video's frames sent and dropped so far), each after two spaces."""
    parts = [w.status() for w in watchers if hasattr(w, "status")]
    return "".join(f"  {part}" for part in parts if part)


CHECK_EVERY = 0.25  # s of simulated time between health checks
STATUS_EVERY = 0.5  # s of wall time between status lines


def pace(sim_time: float, speedup: float, started: float) -> None:
    """``--speedup``: sleep while the run is ahead of ``speedup`` times real time (``sim_time`` simulated
    seconds flown since the wall time ``started``, ``time.perf_counter``'s)."""
    ahead = sim_time / speedup - (time.perf_counter() - started)
    if ahead > 0:
        time.sleep(ahead)
