"""Lockstep with ArduPilot: what a frame count asks of the physics (pure).

ArduPilot numbers its servo packets (``frame_count``) and waits for the answer to each; with no
answer for about a second it sends the same packet again (``libraries/SITL/SIM_JSON.cpp``,
``recv_fdm``). A restarted ArduPilot counts from 0 again. So, as ArduPilot's own JSON examples do
(``libraries/SITL/examples/JSON/python/``): a new count steps one frame; the same count again is
answered with the last reply, not stepped; a count below the last resets the world.
"""

from __future__ import annotations

STEP, REPEAT, RESET = "step", "repeat", "reset"


class Lockstep:
    """The frame count last answered (None before the first packet)."""

    def __init__(self):
        self.last = None

    def action(self, frame_count: int) -> str:
        """STEP, REPEAT or RESET (reset, then step this frame) for the packet's ``frame_count``."""
        last, self.last = self.last, frame_count
        if last is None or frame_count > last:
            return STEP
        if frame_count == last:
            return REPEAT
        return RESET
