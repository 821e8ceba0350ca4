"""``aurgen sitl ... --view``: MuJoCo's viewer on the world while ArduPilot flies it.

A watcher of :func:`aurgen.runtime.sitl.server.serve`: MuJoCo's passive viewer
(``mujoco.viewer.launch_passive``) draws the simulation's own ``MjModel``/``MjData`` in its own thread,
and the bridge loop hands it the state at the screen's rate, not per physics step: after a frame, when
at least :data:`SYNC_EVERY` s of wall time have passed since the last hand-over, ``sync()`` copies the
state under the viewer's lock (which it takes itself): a copy per screen refresh, not per frame, so
the lockstep rate stays near a headless run's. The camera tracks the flown vehicle's root body (MuJoCo's tracking
camera: it follows the body's position, the user still turns and zooms it) from a distance fitted to
the vehicle; the sea is drawn by the plugin as in ``aurgen view``. Closing the window ends the run as
Ctrl-C does.
"""

from __future__ import annotations

import time

SYNC_EVERY = 1.0 / 60.0  # s of wall time between hand-overs to the viewer (a 60 Hz screen)
TRACK_DISTANCE = 2.5  # m: the tracking camera's first distance from the flown vehicle


class Viewer:
    """The viewer watching ``sim`` (an :class:`aurgen.runtime.sim.Simulation`), following ``rig``
    (:class:`aurgen.runtime.sitl.rig.Rig`). ``launch(model, data)`` opens the window and returns its
    handle (default ``mujoco.viewer.launch_passive``; a test passes its own); ``clock`` gives wall
    time in seconds."""

    def __init__(self, sim, rig, launch=None, clock=time.perf_counter):
        import mujoco

        if launch is None:
            import mujoco.viewer

            launch = mujoco.viewer.launch_passive
        self.clock = clock
        self.handle = launch(sim.model, sim.data)
        with self.handle.lock():
            cam = self.handle.cam
            cam.type = mujoco.mjtCamera.mjCAMERA_TRACKING
            cam.trackbodyid = rig.body
            cam.distance = TRACK_DISTANCE
        self.syncs = 0
        self.closed = False
        self._next = clock()
        self.sync()

    def sync(self) -> None:
        """Hand the current state to the viewer (and take the user's camera and perturbation back)."""
        self.handle.sync()  # takes the viewer's lock itself
        self.syncs += 1

    def frame(self, sim) -> bool:
        """After a frame: hand it over when a screen refresh is due; False once the window is closed."""
        if not self.handle.is_running():
            self.closed = True
            return False
        now = self.clock()
        if now >= self._next:
            self._next = now + SYNC_EVERY
            self.sync()
        return True

    def summary(self) -> str | None:
        return "viewer: window closed" if self.closed else None

    def close(self) -> None:
        self.handle.close()
