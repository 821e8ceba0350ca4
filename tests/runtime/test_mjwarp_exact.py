"""The MuJoCo Warp kernels against the plugin in float64, from identical inputs.

MuJoCo Warp is float32 throughout (its Model and Data arrays, its kinematics, qfrc_passive: no
float64 mode), so its trajectories cannot follow the plugin's to 1e-9, and its qfrc_passive agrees
to float32's precision only (tests/runtime/test_mjwarp.py). The hydrostatics inside its kernels are
float64, though, and keep their sum before it is rounded into qfrc_passive (``m.aurgen.qfrc``). Here
that sum is compared with the plugin's force computed from exactly the kinematics the kernels read
(warpscenes.plugin_at: Warp's float32 poses, velocities and dofs promoted to float64 in MuJoCo's data,
then mj_passive): every difference left is the two implementations' arithmetic, and the force stage
is asked to agree to 1e-12 of the state's largest component, at random states crossing the surface,
heeled, submerged, in air and moving, in one water, in two waters with their own densities and
currents, and in a sea.
"""
from __future__ import annotations

import mujoco
import numpy as np
import pytest

mjw = pytest.importorskip("mujoco_warp", reason="the MuJoCo Warp backend's tests need mujoco-warp and warp-lang "
                                                "(pip install 'aurgen[gpu]')")
wp = pytest.importorskip("warp", reason="the MuJoCo Warp backend's tests need warp-lang (pip install 'aurgen[gpu]')")

from aurgen.runtime import mjwarp  # noqa: E402
from aurgen.runtime.sim import Simulation  # noqa: E402

from simfixtures import water_env  # noqa: E402
from warpscenes import (AIR, RHO, SCENES, _currents_env, field_env, _random_states, _sea_states, plugin_at,  # noqa: E402
                        sea_scene, warp_cpu, warp_forward)  # noqa: F401  (warp_cpu: the module's fixture)

TOL = 1e-12  # of the state's largest generalized force


@pytest.fixture(scope="module")
def blueboat(tmp_path_factory):
    from aurgen.cli import main

    out = tmp_path_factory.mktemp("mjwarp_exact")
    assert main(["build", "blueboat.yaml", "-o", str(out)]) == 0
    return out / "blueboat" / "blueboat.xml"


def exact_gap(sim, q, v, t=None):
    """Per state: |Warp's float64 qfrc - the plugin's at Warp's inputs| / the largest component of
    the plugin's; and the plugin's forces (n, nv)."""
    mjm, config = mjwarp.plain_model(sim.to_xml())
    m = mjwarp.put_model(mjm, config=config)
    d = warp_forward(m, mjm, q, v, t)
    got = m.aurgen.qfrc.numpy()
    ref = np.array([plugin_at(sim.model, mjm, d, i) for i in range(len(q))])
    scale = np.maximum(np.abs(ref).max(axis=1), 1e-300)
    return np.abs(got - ref).max(axis=1) / scale, ref


def _scene(name, blueboat):
    if name == "blueboat":
        return blueboat, 0.8
    make, extent = SCENES[name]
    return make(), extent


@pytest.mark.parametrize("envname", ["open", "currents", "linear", "central", "percell"])
@pytest.mark.parametrize("scene", [*SCENES, "blueboat"])
def test_float64_forces_match_the_plugin_from_identical_inputs(scene, envname, blueboat):
    """Buoyancy, drag, surface damping, declared damping and (a field) the bodies' weights and the
    field's gradient torques, the plugin applying the field (MuJoCo's gravity 0 0 0)."""
    env = {"open": lambda: water_env(RHO, AIR, flow=(0.3, -0.1, 0.0)), "currents": _currents_env}.get(
        envname, lambda: field_env(envname))()
    src, extent = _scene(scene, blueboat)
    sim = Simulation(src, environment=env)
    q, v = _random_states(np.random.default_rng(12), sim, 48, extent,
                          x_away=extent + 1.2 if envname == "currents" else 0.0)
    err, ref = exact_gap(sim, q, v)
    if envname in ("open", "currents"):  # the states (the same in the fields) reach water and air
        wet = np.abs(ref[:, 2]) > 10 * AIR * 9.81 * 0.01
        assert wet.sum() >= 20 and (~wet).sum() >= 3, (wet.sum(), (~wet).sum())
    print(f"{scene} {envname}: worst {err.max():.3g}, median {np.median(err):.3g}")
    assert err.max() <= TOL, (err.max(), int(err.argmax()))


@pytest.mark.parametrize("seaname", ["regular", "jonswap_finite"])
@pytest.mark.parametrize("scene", ["box", "blueboat"])
def test_float64_sea_forces_match_the_plugin_from_identical_inputs(scene, seaname, blueboat):
    env = sea_scene(seaname)
    src, extent = _scene(scene, blueboat)
    sim = Simulation(src, environment=env)
    q, v, t = _sea_states(sim, 32, extent, 5)
    err, _ = exact_gap(sim, q, v, t)
    print(f"{scene} {seaname}: worst {err.max():.3g}, median {np.median(err):.3g}")
    assert err.max() <= TOL, (err.max(), int(err.argmax()))


def test_plugin_at_reads_warps_inputs_not_its_own(blueboat):
    """The comparison's premise: MuJoCo's float64 kinematics from the float32 state differ from Warp's
    by float32's error, so without the overwrite the same check fails at 1e-12 (it would not if
    plugin_at ignored Warp's fields)."""
    sim = Simulation(blueboat, environment=water_env(RHO, AIR))
    q, v = _random_states(np.random.default_rng(4), sim, 8, 0.5)
    mjm, config = mjwarp.plain_model(sim.to_xml())
    m = mjwarp.put_model(mjm, config=config)
    warp_forward(m, mjm, q, v)
    got = m.aurgen.qfrc.numpy()
    dm = mujoco.MjData(sim.model)
    own = []
    for i in range(len(q)):
        dm.qpos[:], dm.qvel[:] = q[i], v[i]
        mujoco.mj_forward(sim.model, dm)
        own.append(dm.qfrc_passive.copy())
    own = np.array(own)
    gap = (np.abs(got - own).max(axis=1) / np.abs(own).max(axis=1)).max()
    assert gap > 1e3 * TOL, gap
