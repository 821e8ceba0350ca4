"""Thrust from PWM: a thruster's published curve, interpolated (pure functions).

A curve is the MJCF's ``aurgen:thrust_curve:<thruster>`` numeric, pairs (PWM µs, thrust N) in
ascending PWM, written by ``aurgen build`` from the catalog's table (Blue Robotics' T200 data for
the bundled vehicles). Between its points the thrust is linear in PWM; beyond its ends the ESC
saturates (the end's thrust). PWM 0 is an output ArduPilot does not drive, and a PWM outside
800–2200 µs is no ESC command (ArduPilot's JSON examples treat it as neutral): both give no thrust.
"""

from __future__ import annotations

import bisect

import numpy as np

PWM_VALID = (800, 2200)  # µs: outside this an output is not an ESC command


def curve_from_numeric(data) -> np.ndarray:
    """The (n, 2) curve of a numeric's flat data [pwm0, thrust0, pwm1, thrust1, …]; ValueError
    when it is not one (odd length, fewer than two points, PWM not ascending, a non-finite value)."""
    a = np.asarray(data, float).ravel()
    if a.size < 4 or a.size % 2:
        raise ValueError(f"{a.size} numbers: expected pairs (PWM µs, thrust N), at least two")
    c = a.reshape(-1, 2)
    if not np.all(np.isfinite(c)):
        raise ValueError("a value is not a finite number")
    if not np.all(np.diff(c[:, 0]) > 0):
        raise ValueError("the PWM values are not strictly ascending")
    return c


def thrust(pwms: tuple, thrusts: tuple, pwm: float) -> float:
    """Thrust (N, along the thruster's axis) at ``pwm`` µs on the curve (``pwms`` ascending, µs;
    ``thrusts``, N): linear between points, the end's value beyond an end."""
    if pwm == 0 or not PWM_VALID[0] <= pwm <= PWM_VALID[1]:
        return 0.0
    i = bisect.bisect_right(pwms, pwm)
    if i == 0:
        return thrusts[0]
    if i == len(pwms):
        return thrusts[-1]
    x0, x1, y0, y1 = pwms[i - 1], pwms[i], thrusts[i - 1], thrusts[i]
    return y0 + (y1 - y0) * (pwm - x0) / (x1 - x0)


def table(pwms: tuple, thrusts: tuple) -> tuple:
    """The thrust (N) at every whole PWM 0…2200 µs (:func:`thrust` at each): ArduPilot's PWM is a whole
    number of µs, so the bridge looks it up instead of interpolating each frame."""
    return tuple(thrust(pwms, thrusts, p) for p in range(PWM_VALID[1] + 1))


def thrusts(thrusters, pwm) -> list:
    """Each of ``thrusters``' thrust (N) for a servo packet's ``pwm`` (µs per channel): its ``table``
    at its channel's PWM; 0 where the packet has no such channel or the PWM is above the valid range."""
    top = PWM_VALID[1]
    return [t.table[pwm[t.channel - 1]] if t.channel <= len(pwm) and pwm[t.channel - 1] <= top else 0.0
            for t in thrusters]


def ctrl_index(actuators):
    """The index into ``mjData.ctrl`` that sets ``actuators`` (their ids, in the thrusters' order) at
    once: a slice where they are consecutive (a view, half the cost of a list index), else an array."""
    ids = [int(a) for a in actuators]
    if ids and ids == list(range(ids[0], ids[0] + len(ids))):
        return slice(ids[0], ids[0] + len(ids))
    return np.array(ids, dtype=np.intp)
