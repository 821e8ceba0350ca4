"""The roll-decay measurement tells an exponential decay from one that is not: a linearly damped
oscillator (closed form) against one with quadratic damping, integrated here by scipy's DOP853."""

from __future__ import annotations

import math

import numpy as np
import pytest

from aurgen.analysis import roll_decay as rd


def test_linear_damping_is_one_exponential():
    t = np.linspace(0.0, 10.0, 20001)
    zeta, wn = 0.05, 2 * math.pi / 0.8
    wd = wn * math.sqrt(1 - zeta ** 2)
    phi = math.atan2(zeta, math.sqrt(1 - zeta ** 2))
    y = 0.2 + 0.17 * np.exp(-zeta * wn * t) * np.cos(wd * t - phi) / math.cos(phi)
    d = rd.log_decrement(t, y, 0.2)
    want = 2 * math.pi * zeta / math.sqrt(1 - zeta ** 2)
    assert d["exponential"]
    np.testing.assert_allclose(d["per_cycle"], want, rtol=1e-3)
    assert len(d["peaks"]) == len(d["per_cycle"]) + 1


def test_quadratic_damping_is_not_and_its_decrements_fall_with_amplitude():
    """x'' + c x'|x'| + w^2 x = 0 from 10 deg at rest: for small damping the per-cycle decrement is
    (8/3) c x_m (energy balance over a half cycle), proportional to the amplitude."""
    from scipy.integrate import solve_ivp

    w, c, x0 = 2 * math.pi / 1.1, 1.0, math.radians(10.0)
    t = np.arange(0.0, 20.0, 0.01)
    sol = solve_ivp(lambda _, s: [s[1], -c * s[1] * abs(s[1]) - w * w * s[0]], (0.0, t[-1]), [x0, 0.0],
                    method="DOP853", t_eval=t, rtol=1e-11, atol=1e-13)
    d = rd.log_decrement(t, sol.y[0], 0.0)
    per = np.array(d["per_cycle"])
    assert not d["exponential"]
    assert np.all(np.diff(per) < 0)  # each swing smaller, each decrement smaller
    amp = 0.5 * np.abs([a for _, a in d["peaks"]][:-1]) + 0.5 * np.abs([a for _, a in d["peaks"]][1:])
    # the small-damping law, on the later (small) swings
    np.testing.assert_allclose(per[-3:], 8.0 / 3.0 * c * amp[-3:], rtol=0.05)
    assert per[0] / per[-1] > rd.EXPONENTIAL_RATIO
