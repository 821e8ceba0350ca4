"""aurgen.gym in a sea: the ``sea=`` keyword (the world's ``waves:`` keys), checked, reseeded per episode.

References independent of the environments' code: the same environment in still water (an
undisturbed BlueBoat at its equilibrium does not heel), a second reset with the same seed, the
regular wave of linear theory written here (a = H/2, omega = 2 pi / T, deep-water k = omega^2 / g
along the travel direction), and the single environment a vector env's world 0 must equal.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from test_gym import _have_gymnasium, _make

pytestmark = [pytest.mark.scale,
              pytest.mark.skipif(not _have_gymnasium(),
                                 reason="gymnasium is not installed (pip install '.[scale]')")]

SEA = {"spectrum": "jonswap", "hs": 0.5, "tp": 3.0, "components": 16, "direction": 90}  # beam seas, sea state 2-3
STEPS = 15  # 0.3 s


def _run(env, seed=None, steps=STEPS):
    """The observations of an episode under zero thrust (reset with ``seed``), as one array."""
    obs, _ = env.reset(seed=seed)
    out = [obs]
    for _ in range(steps):
        out.append(env.step(np.zeros(env.action_space.shape))[0])
    return np.array(out)


@pytest.fixture(scope="module")
def envs():
    sea, still = _make("BlueBoatStationKeeping-v0", sea=SEA).unwrapped, _make("BlueBoatStationKeeping-v0").unwrapped
    yield sea, still
    sea.close()
    still.close()


def test_a_sea_moves_the_boat_under_zero_thrust_and_still_water_does_not(envs):
    sea, still = envs
    a, s = _run(sea, 3), _run(still, 3)
    heel = 9  # observation index of the heel (rad): the beam sea rolls the boat
    assert np.max(np.abs(s[:, heel])) < 1e-3
    assert np.max(np.abs(a[:, heel])) > 0.02
    assert np.max(np.abs(a[1:] - s[1:])) > 0.1
    assert "waves" not in still.sim.environment.to_json() and sea.sim.environment.waves is not None


def test_the_same_reset_seed_reproduces_bitwise_and_episodes_differ(envs):
    sea, _ = envs
    a = _run(sea, 11)
    seed_a = sea.sea_seed
    b = _run(sea, 11)
    assert sea.sea_seed == seed_a and a.tobytes() == b.tobytes()
    c = _run(sea, 12)  # another reset seed: another sea
    assert sea.sea_seed != seed_a and a.tobytes() != c.tobytes()
    # an unseeded reset continues the draws: a new sea each episode, the sequence reproducible
    _run(sea, 11)
    n1 = (_run(sea), sea.sea_seed)
    _run(sea, 11)
    n2 = (_run(sea), sea.sea_seed)
    assert n1[1] == n2[1] != seed_a and n1[0].tobytes() == n2[0].tobytes()


def test_a_regular_wave_is_linear_theory_and_is_not_reseeded():
    env = _make("BlueBoatStationKeeping-v0", sea={"spectrum": "regular", "height": 0.2, "period": 3.0,
                                                   "direction": 90}).unwrapped
    try:
        c = np.asarray(env.sim.environment.waves.components)
        omega = 2 * math.pi / 3.0
        assert c.shape == (1, 6)
        np.testing.assert_allclose(c[0], [0.1, omega, 0.0, omega ** 2 / 9.81, 0.0, 0.0], rtol=1e-12, atol=0)
        a = _run(env, 1, 5)
        model = env.model
        b = _run(env, 2, 5)  # no phases to draw: the same model, the same sea
        assert env.model is model and env.sea_seed is None and a.tobytes() != b.tobytes()  # (yaw differs)
    finally:
        env.close()


def test_vector_worlds_share_the_sea_world_0_is_the_single_env():
    import gymnasium

    import aurgen.gym  # noqa: F401

    vec = gymnasium.make_vec("BlueBoatStationKeeping-v0", num_envs=2, vectorization_mode="vector_entry_point",
                             sea=SEA)
    single = _make("BlueBoatStationKeeping-v0", sea=SEA).unwrapped
    try:
        obs, _ = vec.reset(seed=5)
        out = [obs]
        for _ in range(STEPS):
            out.append(vec.step(np.zeros((2, 2)))[0])
        out = np.array(out)
        ref = _run(single, 5)
        assert out[:, 0].tobytes() == ref.tobytes()
        u = vec.unwrapped
        assert u._proto.sea_seed == single.sea_seed and all(e.model is u.model for e in u.envs)
    finally:
        vec.close()
        single.close()


@pytest.mark.parametrize("sea, words", [
    (5, "sea: None or a mapping"),
    ("jonswap", "sea: None or a mapping"),
    ({"spectrum": "regular", "height": 0.2}, "sea.period: required for spectrum regular"),
    ({"spectrum": "regular", "height": 0.2, "period": 3, "seed": 1}, "sea.seed: only for an irregular sea"),
    ({"spectrum": "jonswap", "hs": 1.0, "tp": 5.0, "seed": -1}, "sea.seed: expected a whole number"),
    ({"spectrum": "jonswap", "hs": 1.0, "tp": 5.0, "components": 0}, "sea.components: expected a whole number"),
    ({"spectrum": "jonswap", "hs": 1.0, "tp": 5.0, "gamma": 9}, "sea.gamma"),
    ({"spectrum": "regular", "height": 3.0, "period": 1.0}, "sea.height: H/lambda"),
    ({"spectrum": "regular", "height": math.nan, "period": 3.0}, "sea.height"),
    ({"spectrum": "chop", "height": 0.2, "period": 3.0}, "sea.spectrum: must be one of"),
    ({"surface": "surface", "spectrum": "regular", "height": 0.2, "period": 3.0}, "sea.surface: unknown key"),
    ({"spectrum": "regular", "height": 0.2, "period": 3.0, "heigth": 1}, "sea.heigth: unknown key"),
])
def test_bad_sea_refused_naming_the_keyword(sea, words):
    with pytest.raises(ValueError, match="^" + words.replace("(", r"\(").replace(".", r"\.")):
        _make("BlueROV2DepthHeading-v0", sea=sea)


def test_bad_sea_refused_by_the_vector_env_before_anything_is_made():
    import gymnasium

    import aurgen.gym  # noqa: F401

    with pytest.raises(ValueError, match=r"^sea\.hs: must be positive"):
        gymnasium.make_vec("BlueBoatWaypoint-v0", num_envs=2, vectorization_mode="vector_entry_point",
                           sea={"spectrum": "pierson_moskowitz", "hs": -1.0, "tp": 4.0})
