"""Motions in regular waves: a small box in long waves, and the BlueBoat's heave and pitch RAOs
against a frequency-domain solve (validations 4 and 5 of issue 25).

Oracles, not computed by aurgen:
* long waves (lambda >= 50 L): a small free-floating body follows the surface; the heave of a
  half-density box in a 6 s deep-water wave (lambda 56 m = 112 L) is the elevation at its
  position (RAO 1 to O((k d)^2): e^{-kd} / (1 - omega^2 d / g) = 1 - (kd)^2), its pitch the slope
  (amplitude k a), with every default force on (drag, damping) and 1,000 s of health;
* the BlueBoat: (-omega^2 M + C) X = F solved here: M the model's mass matrix (mj_fullM, the
  free joint's dofs about the root origin), C the hydrostatic stiffness written here from the
  pontoon boxes' waterplane (rho g int (1, x, y, x^2, xy, y^2) dA) and the displaced volume and
  centre of mass (rho g V z_B - m g z_G), F capytaine's Froude-Krylov force on the pontoons'
  mean wetted boxes (test_waves_capytaine), no radiation, so undamped. The time-domain runs
  match that model: drag and damping off (the plugin's surface damping is a radiation stand-in
  and the declared Fossen damping has no counterpart in the undamped solve), surge, sway and yaw
  free (the solve carries them: zero stiffness), no mooring. The boat starts at its still-water
  equilibrium (Newton on the residual with C), the wave ramps in, and the steady part is fitted
  with the wave frequency and the natural frequencies (eigenvalues of M^-1 C), which an undamped
  run keeps ringing.
"""
from __future__ import annotations

import cmath
import math

import mujoco
import numpy as np
import pytest

from aurgen.runtime import plugin as hplugin
from aurgen.runtime.sim import Simulation

import seascenes as ss

if not hplugin.library_path().exists():
    pytest.skip(f"the plugin library is not built ({hplugin.library_path()})", allow_module_level=True)
ss.load()


def _pitch(q):
    """Rotation about y (rad) of an attitude quaternion near upright: theta = -asin(R[2, 0])."""
    R = np.empty(9)
    mujoco.mju_quat2Mat(R, q)
    return -math.asin(R[6])


def test_small_box_follows_a_long_wave_and_stays_healthy():
    L, h = 0.5, 0.125  # 0.5 x 0.5 x 0.25 m, half-density: draft 0.125 m
    mass = 0.5 * ss.RHO * L * L * 2 * h
    I = mass / 12 * (L * L + 4 * h * h)
    T, a = 6.0, 0.05
    omega = 2 * math.pi / T
    k = ss.deep_k(omega)
    assert 2 * math.pi / k >= 50 * L
    env = ss.sea_env([ss.component(a, omega, k)], ramp=20.0)
    body = ss.free_body(ss.gm("box", (L / 2, L / 2, h)), (0, 0, 0.0), mass, (I, I, mass / 6 * L * L))
    xml = ss.scene(body, env, drag=True, damping=True, timestep=0.01, integrator="RK4")
    rec = []
    with Simulation(xml) as sim:
        d = sim.data

        def grab(s):
            rec.append((d.time, d.qpos[0], d.qpos[2], _pitch(d.qpos[3:7])))
        sim.run(900.0)
        assert sim.check().ok, str(sim.check())
        sim.run(100.0, grab)
        health = sim.check()
        assert health.ok, str(health)
        assert abs(d.time - 1000.0) < 1e-6
    t, x, z, th = np.array(rec).T
    ph = k * x - omega * t
    eta = a * np.cos(ph)  # the elevation at the box (its slope: -k a sin(ph))
    B = np.column_stack([np.ones_like(t), np.cos(ph), np.sin(ph)])
    cz = np.linalg.lstsq(B, z, rcond=None)[0]
    cth = np.linalg.lstsq(B, th, rcond=None)[0]
    rao = complex(cz[1], -cz[2]) / a  # z = Re(rao a e^{i ph}) + mean: Re(Z e^{i ph}) = Zr cos - Zi sin
    assert abs(abs(rao) - 1) < 0.02, rao
    assert abs(math.degrees(cmath.phase(rao))) < 3.0, rao
    # pitch follows the slope: theta = -d eta / dx (a rotation about +y lowers the bow)
    pr = complex(cth[1], -cth[2]) / (-1j * k * a)  # -slope = k a sin(ph) = Re(-i k a e^{i ph})
    print(f"long-wave box: heave RAO {abs(rao):.4f} phase {math.degrees(cmath.phase(rao)):+.3f} deg, "
          f"pitch / (k a) {abs(pr):.4f} phase {math.degrees(cmath.phase(pr)):+.3f} deg")
    assert abs(abs(pr) - 1) < 0.05, pr  # pitch amplitude k a
    assert abs(math.degrees(cmath.phase(pr))) < 10.0, pr  # lags a few degrees: drag and damping on
    assert np.abs(z - (eta + cz[0])).max() < 0.1 * a  # and it rides the wave throughout


def _boat(blueboat, env):
    from test_waves_capytaine import blueboat_scene
    return blueboat_scene(blueboat, env, timestep=0.005)


@pytest.fixture(scope="module")
def blueboat(tmp_path_factory):
    from aurgen.cli import main
    out = tmp_path_factory.mktemp("bb")
    assert main(["build", "blueboat.yaml", "-o", str(out)]) == 0
    return out / "blueboat" / "blueboat.xml"


def _stiffness(m, d, boxes, z0):
    """C (nv x nv) about the root origin at height z0, upright: waterplane of the boxes
    (centre (x, y), half sizes (a, b), half height h, centre z zc in the body frame), displaced
    volume, centre of mass (subtree of the root)."""
    rg = ss.RHO * ss.G
    A = Ax = Ay = Axx = Axy = Ayy = V = Vz = 0.0
    for (x, y), (a, b), h, zc in boxes:
        w = 4 * a * b
        dr = -(z0 + zc - h)  # draft of the box
        A += w
        Ax += w * x
        Ay += w * y
        Axx += w * (x * x + a * a / 3)
        Ayy += w * (y * y + b * b / 3)
        Axy += w * x * y
        V += w * dr
        Vz += w * dr * (zc - h + dr / 2)  # body-frame z of the submerged centroid, times volume
    mass = float(m.body_subtreemass[1])
    zG = float(d.subtree_com[1][2] - d.xpos[1][2])
    C = np.zeros((m.nv, m.nv))
    C[2, 2] = rg * A
    C[2, 3] = C[3, 2] = rg * Ay
    C[2, 4] = C[4, 2] = -rg * Ax
    C[3, 3] = rg * (Ayy + Vz) - mass * ss.G * zG
    C[4, 4] = rg * (Axx + Vz) - mass * ss.G * zG
    C[3, 4] = C[4, 3] = -rg * Axy
    return C, rg * V, mass


def _settle(m, d, C):
    """Newton on the still-water residual (t = 0: the ramp holds the sea at zero) with C."""
    for _ in range(4):
        d.time = 0.0
        d.qvel[:] = 0
        mujoco.mj_forward(m, d)
        f = (d.qfrc_passive - d.qfrc_bias)[2:5]
        dx = np.linalg.solve(C[2:5, 2:5], f)
        v = np.zeros(m.nv)
        v[2:5] = dx
        mujoco.mj_integratePos(m, d.qpos, v, 1.0)
    d.qvel[:] = 0
    mujoco.mj_forward(m, d)
    return float(np.abs((d.qfrc_passive - d.qfrc_bias)[2:5]).max())


PERIODS = (1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 7.0, 10.0)
A_WAVE = 0.002


def test_blueboat_heave_and_pitch_raos_against_a_frequency_domain_solve(blueboat):
    from test_waves_capytaine import _capy_fk, pontoons, specs_draft
    import capytaine  # noqa: F401  (the excitation's oracle)

    z0 = -specs_draft(blueboat)
    omega0 = 2 * math.pi / PERIODS[0]
    m0 = _boat(blueboat, ss.sea_env([ss.component(A_WAVE, omega0, ss.deep_k(omega0))], ramp=5.0))
    boxes = pontoons(m0)
    rows = []
    for T in PERIODS:
        omega = 2 * math.pi / T
        k = ss.deep_k(omega)
        ramp = max(2 * T, 5.0)
        m = _boat(blueboat, ss.sea_env([ss.component(A_WAVE, omega, k)], ramp=ramp))
        d = mujoco.MjData(m)
        d.qpos[2] = z0
        mujoco.mj_forward(m, d)
        C, _, _ = _stiffness(m, d, boxes, z0)
        assert _settle(m, d, C) < 1e-6 * m.body_subtreemass[1] * ss.G
        zeq, qeq = float(d.qpos[2]), d.qpos[3:7].copy()
        C, _, _ = _stiffness(m, d, boxes, zeq)
        M = np.empty((m.nv, m.nv))
        mujoco.mj_fullM(m, d, M)
        # the excitation: capytaine's FK on the mean wetted boxes, moments about the origin
        wet = [((x, y), (a, b), -(zeq + zc - h), (9, 9, 3)) for (x, y), (a, b), h, zc in boxes]
        fk = _capy_fk(wet, omega, 0.0, (0, 0, zeq))
        F = np.zeros(m.nv, complex)
        F[2], F[3], F[4] = fk["Heave"], fk["Roll"], fk["Pitch"]
        F *= A_WAVE
        # surge excitation too (the solve carries surge: free, coupled to pitch by the mass)
        import capytaine as cpt
        from capytaine.bem.airy_waves import froude_krylov_force
        fs = 0j
        for (x, y), (a, b), dr, res in wet:
            mesh = cpt.mesh_parallelepiped(size=(2 * a, 2 * b, dr), center=(x, y, -dr / 2), resolution=res,
                                           missing_sides={"top"})
            body = cpt.FloatingBody(mesh=mesh, dofs=cpt.rigid_body_dofs(only=["Surge"], rotation_center=(0, 0, zeq)))
            pb = cpt.DiffractionProblem(body=body, wave_direction=0.0, omega=omega, rho=ss.RHO, g=ss.G,
                                        water_depth=np.inf)
            fs += complex(froude_krylov_force(pb)["Surge"])
        F[0] = A_WAVE * fs
        X = np.linalg.solve(-omega ** 2 * M + C, F)
        ev = np.linalg.eigvals(np.linalg.solve(M, C)).real
        wn = np.sqrt(ev[ev > 1e-6 * ev.max()])
        # the time domain
        t_end = ramp + max(4 * T, 20.0)
        n_fit = int(round(max(4 * T, 20.0) / m.opt.timestep))
        n_ramp = int(round(ramp / m.opt.timestep))
        for _ in range(n_ramp):
            mujoco.mj_step(m, d)
        rec = np.empty((n_fit, 3))
        dq = np.empty(3)
        for i in range(n_fit):
            mujoco.mj_step(m, d)
            mujoco.mju_subQuat(dq, d.qpos[3:7], qeq)
            rec[i] = (d.time, d.qpos[2] - zeq, dq[1])
        assert abs(d.time - t_end) < 1e-6
        t = rec[:, 0]
        cols = [np.ones_like(t), t, np.cos(omega * t), np.sin(omega * t)]
        for w in wn:
            cols += [np.cos(w * t), np.sin(w * t)]
        B = np.column_stack(cols)
        got = []
        for j in (1, 2):
            c = np.linalg.lstsq(B, rec[:, j], rcond=None)[0]
            got.append(complex(c[2], c[3]))  # Re(Z e^{-i omega t}) = Zr cos + Zi sin
        heave, pitch = got
        rows.append((T, heave, X[2], pitch, X[4], wn))
    worst = []
    for T, h, hr, p, pr, wn in rows:
        for got, ref, what in ((h, hr, "heave"), (p, pr, "pitch")):
            r = got / ref
            worst.append((T, what, abs(r), math.degrees(cmath.phase(r))))
            print(f"T {T:5.1f} s {what}: TD/FD amplitude {abs(r):.4f} phase {math.degrees(cmath.phase(r)):+.3f} deg "
                  f"(FD RAO {abs(ref) / (A_WAVE if what == 'heave' else ss.deep_k(2 * math.pi / T) * A_WAVE):.4f})")
            assert abs(abs(r) - 1) < 0.05, (T, what, got, ref)
            assert abs(math.degrees(cmath.phase(r))) < 3.0, (T, what, got, ref)
    # the natural periods (resonance) lie below the band: heave and pitch ring near 0.4-0.5 s
    print("natural periods (s):", np.round(2 * math.pi / rows[0][5], 3))
    assert 2 * math.pi / rows[0][5].min() < PERIODS[0]
