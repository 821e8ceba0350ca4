"""Declared added mass through the surface: a body's ``aurgen:added_mass:<body>`` is scaled by its
weld group's submerged fraction s(q), so crossing the surface its motion must be the Lagrangian
one with T = 1/2 qdot' (M + s K(q)) qdot (the terms of s changing, as for a geom item:
test_added_mass_surface.py), and the energy ledger must find nothing to book.

Reference, derived here and not from the code: an upright box (half-sizes a, b, c; h = 2 c) of
mass m heaving with its centre at height z (the surface at z = 0, water of density rho below,
vacuum above), a declared heave added mass A_33 = -zDotW = a_w at the body origin (the box's
centre).  Submerged depth d(z) = clip(c - z, 0, h), s(z) = d / h, buoyancy F_b = rho g 4 a b d,
U_b' = -F_b, and L = 1/2 (m + s a_w) zdot^2 - m g z - U_b(z).  Euler-Lagrange:

    (m + s a_w) zddot + 1/2 a_w s'(z) zdot^2 = F_b(z) - m g,   s' = -1/h inside the band.

The energy E = 1/2 (m + s a_w) zdot^2 + m g z + U_b is conserved.  Integrated by scipy's DOP853.
Released with a tenth of its height submerged (rho_body = rho / 2), the box oscillates between a
tenth and nine tenths submerged (U is quadratic in z there, so the turning points are symmetric
about the half-submerged equilibrium): the right-hand side is smooth all the way.

The tolerances are the integrators' own errors at these steps, measured: RK4 at 5e-4 s 2e-11 of
h (the reference's own accuracy), first order (Euler, implicitfast) at 1e-4 s 1.8e-4 of h (3.6e-4
at 2e-4 s: the Euler error is checked to halve with the step); the energy of the trajectory
drifts 4e-12 (RK4) and 9e-4 (first order) of its swing.  The model without the surface terms
(the code before them, whose run was 0.1 h off the reference) goes 0.1 h away.

And the bundled ROVs (declared added mass, one displacement box) dropped at the surface of open
water (their box starts above it) fall through it and stay healthy under every integrator for
4 s: before the surface terms their ledger found energy gained with no work done within 0.1 s.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import mujoco
import numpy as np
import pytest

from aurgen.runtime import plugin as hplugin
from aurgen.runtime.sim import Simulation

from simfixtures import G, body, geom, heave, mjcf, water_env

if not hplugin.library_path().exists():
    pytest.skip("the plugin library is not built", allow_module_level=True)
scipy_integrate = pytest.importorskip("scipy.integrate")

RHO, RHO_BODY = 1000.0, 500.0
HA, HB, HC = 0.15, 0.1, 0.1  # half-sizes
H = 2 * HC
AWP = 4 * HA * HB  # waterplane area
VOL = AWP * H
MASS = RHO_BODY * VOL
AW = MASS  # declared heave added mass at full immersion (zDotW = -AW)
Z0 = HC - 0.1 * H  # released with a tenth of its height submerged


def depth(z):
    return min(max(HC - z, 0.0), H)


def frac(z):
    return depth(z) / H


def dfrac(z):
    return -1.0 / H if 0.0 < HC - z < H else 0.0


def rhs(t, y, surface_term=True):
    z, zd = y
    f = -MASS * G + RHO * G * AWP * depth(z)
    if surface_term:
        f -= 0.5 * AW * dfrac(z) * zd * zd
    return [zd, f / (MASS + frac(z) * AW)]


def energy(z, zd):
    assert -HC <= z <= HC  # inside the band: U_b = -rho g A integral_0^z (c - z') dz'
    u_b = -RHO * G * AWP * (HC * z - 0.5 * z * z)
    return 0.5 * (MASS + frac(z) * AW) * zd * zd + MASS * G * z + u_b


def _xml(integrator, dt):
    added = np.zeros((6, 6))
    added[2, 2] = -AW  # Fossen's sign: zDotW
    numeric = ('<custom><numeric name="aurgen:added_mass:box" data="'
               + " ".join(repr(float(x)) for x in added.ravel()) + '"/></custom>')
    inertia = (MASS / 3 * (HB ** 2 + HC ** 2), MASS / 3 * (HA ** 2 + HC ** 2), MASS / 3 * (HA ** 2 + HB ** 2))
    b = body("box", (0, 0, Z0), MASS, inertia, geom("box", [HA, HB, HC]), simple=False)
    xml = mjcf(b, env=water_env(RHO, None), integrator=integrator, timestep=dt)
    return xml.replace("</mujoco>", numeric + "</mujoco>")


def _run(integrator, dt, T):
    return heave(_xml(integrator, dt), energy, dt, T)


def _reference(ts, surface_term=True):
    ref = scipy_integrate.solve_ivp(lambda t, y: rhs(t, y, surface_term), (0, ts[-1]), [Z0, 0.0],
                                    method="DOP853", rtol=1e-11, atol=1e-13, t_eval=ts)
    assert ref.success
    return ref.y


T_RUN = 2.0
TOL = {"RK4": 1e-9, "Euler": 5e-4, "implicitfast": 5e-4}  # x h


@pytest.mark.parametrize("integrator,dt", [("RK4", 5e-4), ("Euler", 1e-4), ("implicitfast", 1e-4)])
def test_a_box_with_declared_added_mass_heaves_through_the_surface_on_the_lagrangian_reference(integrator, dt):
    ts, zs, es, h = _run(integrator, dt, T_RUN)
    y = _reference(ts)
    e_ref = [energy(z, zd) for z, zd in y.T]
    assert max(e_ref) - min(e_ref) < 1e-9  # the reference conserves its energy
    assert zs.min() < -0.3 * H and zs.max() > 0.3 * H  # through the half-submerged equilibrium both ways
    err = np.abs(zs - y[0]).max()
    assert err < TOL[integrator] * H, err
    # the energy of the sim's trajectory drifts by no more than the integrator's error
    scale = abs(es[0] - energy(0.0, 0.0))
    assert np.ptp(es) < (1e-9 if integrator == "RK4" else 2e-3) * scale, (np.ptp(es), scale)
    assert h.ok, h.reason
    # and the test can tell: without the 1/2 a_w s' zdot^2 term the reference goes elsewhere
    wrong = _reference(ts, surface_term=False)
    assert np.abs(wrong[0] - y[0]).max() > 20 * TOL[integrator] * H


def test_the_first_order_error_halves_with_the_step():
    errs = []
    for dt in (2e-4, 1e-4):
        ts, zs, _, _ = _run("Euler", dt, T_RUN)
        errs.append(np.abs(zs - _reference(ts)[0]).max())
    assert 1.6 < errs[0] / errs[1] < 2.5, errs


def test_the_declared_surface_terms_agree_with_numba_in_crosscheck_mode():
    """The native stage against the numba oracle (tests/runtime/numba_oracle/forces.py) on every
    evaluation of the RK4 run above (crosscheck mode: conftest.py)."""
    pytest.importorskip("numba", reason="the numba oracle needs numba (the test extra)")
    here = Path(__file__).parent
    env = dict(os.environ, AURGEN_FORCES_CROSSCHECK="1")
    r = subprocess.run([sys.executable, "-c", "import sys, aurgen, pytest; sys.exit(pytest.main(sys.argv[1:]))",
                        "-q", "-p", "no:warnings", "-p", "no:cacheprovider", "-n", "0", "-m", "slow or not slow",
                        f"{Path(__file__).name}::test_a_box_with_declared_added_mass_heaves_through_the_surface"
                        "_on_the_lagrangian_reference[RK4-0.0005]",
                        f"{Path(__file__).name}::test_the_bundled_rovs_stay_healthy_dropped_at_the_surface[Euler]"],
                       capture_output=True, text=True, env=env, cwd=here)
    summary = [ln for ln in r.stdout.splitlines() if ln.startswith("forces crosscheck:")]
    print("\n".join(summary))
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    assert summary and " 0 evaluations" not in summary[0]


ROVS = ("bluerov2", "bluerov2_heavy")


@pytest.fixture(scope="module")
def rovs(tmp_path_factory):
    from aurgen.cli import main

    out = tmp_path_factory.mktemp("rovs")
    assert main(["build", *(f"{n}.yaml" for n in ROVS), "-o", str(out)]) == 0
    return out


@pytest.mark.parametrize("integrator", ["Euler", "implicitfast", "implicit", "RK4"])
def test_the_bundled_rovs_stay_healthy_dropped_at_the_surface(rovs, integrator):
    for name in ROVS:
        src = rovs / name / f"{name}.xml"
        text = src.read_text()
        assert "<option" not in text  # MuJoCo's defaults: the option below is the only one
        path = src.with_name(f"{name}_{integrator}.xml")
        path.write_text(text.replace("<compiler ", f'<option integrator="{integrator}"/><compiler ', 1))
        with Simulation(str(path), water=1025.0) as sim:
            m, d = sim.model, sim.data
            g = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_GEOM, "displacement")
            assert d.geom_xpos[g, 2] - m.geom_size[g, 2] > 0.0  # the box starts out of the water
            while d.time < 4.0 - 1e-9:
                sim.step(100)
                h = sim.check()
                assert h.ok, (name, integrator, d.time, h.reason)
            assert np.isfinite(d.qpos).all() and np.isfinite(d.qvel).all()
            assert d.geom_xpos[g, 2] + m.geom_size[g, 2] < 0.0  # and went through the surface
