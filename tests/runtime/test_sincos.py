"""The sea's phase functions (runtime/native/core/sincos.h: Cody-Waite reduction and fdlibm's
kernels in SSE2 lanes), against mpmath at 50 digits: within 2 ulp of 1 over every range the
phases reach (k x - omega t + phi, t up to years) and about the quadrant boundaries, the same
bits in a lane pair as alone, and std::cos / std::sin past its range (NaN and infinities
included)."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from aurgen.runtime import _native

ULP1 = math.ulp(1.0)  # 2.2e-16: the error allowed is 2 of these, absolute (|cos|, |sin| <= 1)


def sincos(x):
    x = np.ascontiguousarray(x, dtype=np.float64)
    c, s = np.empty_like(x), np.empty_like(x)
    _native.sincos_into(x, c, s)
    return c, s


def reference(x):
    with mpmath.workdps(50):
        return (np.array([float(mpmath.cos(mpmath.mpf(float(v)))) for v in x]),
                np.array([float(mpmath.sin(mpmath.mpf(float(v)))) for v in x]))


@pytest.mark.parametrize("scale", [1e-8, 1.0, math.pi, 30.0, 1e3, 1e6, 1e9])
def test_within_two_ulp_of_mpmath(scale):
    x = np.random.default_rng(int(scale * 7) % 1000).uniform(-scale, scale, 3000)
    c, s = sincos(x)
    rc, rs = reference(x)
    assert np.max(np.abs(c - rc)) <= 2 * ULP1
    assert np.max(np.abs(s - rs)) <= 2 * ULP1


def test_quadrant_boundaries_and_signs():
    # multiples of pi/4 and their neighbours: every quadrant's swap and sign, both sides of each cut
    k = np.arange(-40, 41)
    base = k * (math.pi / 4)
    x = np.concatenate([base, np.nextafter(base, np.inf), np.nextafter(base, -np.inf), [0.0, -0.0]])
    c, s = sincos(x)
    rc, rs = reference(x)
    assert np.max(np.abs(c - rc)) <= 2 * ULP1
    assert np.max(np.abs(s - rs)) <= 2 * ULP1
    assert np.all(np.sign(np.round(c, 12)) == np.sign(np.round(rc, 12)))
    assert np.all(np.sign(np.round(s, 12)) == np.sign(np.round(rs, 12)))


def test_lane_pairs_give_the_scalar_bits():
    # an odd count: the last angle takes the one-lane path, the others pairs; shifting by one swaps
    x = np.random.default_rng(3).uniform(-50.0, 50.0, 101)
    c, s = sincos(x)
    for i in range(0, 101, 7):
        c1, s1 = sincos(x[i:i + 1])
        assert c1.tobytes() == c[i:i + 1].tobytes() and s1.tobytes() == s[i:i + 1].tobytes()
    c2, s2 = sincos(x[1:])
    assert c2.tobytes() == c[1:].tobytes() and s2.tobytes() == s[1:].tobytes()


def test_beyond_range_is_libm():
    x = np.array([1e9, 1.0000001e9, -3e12, 1e300, np.inf, -np.inf, np.nan, 2.5])
    c, s = sincos(x)
    for i in (1, 2, 3):  # past 1e9 rad: the C library's, as Python's math module calls it
        assert c[i] == math.cos(x[i]) and s[i] == math.sin(x[i])
    assert np.all(np.isnan(c[4:7])) and np.all(np.isnan(s[4:7]))
    rc, rs = reference(x[[0, 7]])  # 1e9 itself and an angle after them: the polynomials
    assert np.max(np.abs(c[[0, 7]] - rc)) <= 2 * ULP1 and np.max(np.abs(s[[0, 7]] - rs)) <= 2 * ULP1


def test_length_mismatch_is_refused():
    with pytest.raises(ValueError, match="x's length"):
        _native.sincos_into(np.zeros(3), np.zeros(2), np.zeros(3))
