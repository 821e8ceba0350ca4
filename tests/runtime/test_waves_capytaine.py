"""Froude-Krylov heave force and roll/pitch moments against capytaine (validation 3, issue 25).

Oracle: capytaine (a BEM code; only its Froude-Krylov force, ``capytaine.bem.airy_waves.
froude_krylov_force``: the incident pressure rho g f(z) e^{i k (x cos b + y sin b)} at each panel
centre of the mean wetted mesh, integrated as -int p n.dof dS; e^{-i omega t}, unit amplitude,
``wave_direction`` b the direction the waves travel toward, rotations about ``rotation_center``).
That is our convention (seascenes), so a component ``[a, omega, k cos b, k sin b, 0, 0]`` must give
a first harmonic ``a`` times capytaine's complex force. Ours: the held body in plain MuJoCo with
the plugin, drag and damping off, no air cell, small amplitude (the first harmonic converges to
the mean-surface integral), moments about the body origin (capytaine's rotation centre).

Bodies: a 2 x 1 m box barge of 0.5 m draft, and the BlueBoat's pontoon boxes (the displacement
geoms, user=1, of the BlueBoat that ``aurgen build`` writes) held upright at the specs draft.
Panels ~ 2-5 cm (capytaine's one-point rule converges as the panel size squared).
"""
from __future__ import annotations

import cmath
import math
import re

import mujoco
import numpy as np
import pytest

from aurgen.cli import main
from aurgen.runtime import plugin as hplugin

import seascenes as ss

cpt = pytest.importorskip("capytaine")
from capytaine.bem.airy_waves import froude_krylov_force  # noqa: E402

if not hplugin.library_path().exists():
    pytest.skip(f"the plugin library is not built ({hplugin.library_path()})", allow_module_level=True)
ss.load()

A = 1e-3
PERIODS = (0.8, 1.0, 1.5, 2.0, 3.0, 5.0)
DOFS = {"Heave": 2, "Roll": 3, "Pitch": 4}


def _capy_fk(boxes, omega, beta, center):
    """Sum over the boxes (centre (x, y), half sizes (a, b), draft d: the wetted part, no lid)."""
    out = dict.fromkeys(DOFS, 0j)
    for (x, y), (a, b), d, res in boxes:
        mesh = cpt.mesh_parallelepiped(size=(2 * a, 2 * b, d), center=(x, y, -d / 2), resolution=res,
                                       missing_sides={"top"})
        body = cpt.FloatingBody(mesh=mesh, dofs=cpt.rigid_body_dofs(rotation_center=center))
        pb = cpt.DiffractionProblem(body=body, wave_direction=beta, omega=omega, rho=ss.RHO, g=ss.G,
                                    water_depth=np.inf)
        f = froude_krylov_force(pb)
        for k in DOFS:
            out[k] += complex(f[k])
    return out


def _check(got, ref, scale, what):
    """Amplitude within 2 % and phase within 2 deg where the component is not near a zero
    (10 % of its largest over the frequencies); elsewhere within 2 % of that largest."""
    if abs(ref) > 0.1 * scale:
        assert abs(abs(got / ref) - 1) < 0.02, (what, got, ref)
        assert abs(math.degrees(cmath.phase(got / ref))) < 2.0, (what, got, ref)
    else:
        assert abs(got - ref) < 0.02 * scale, (what, got, ref)


def _run(make_model, qpos, boxes, center, beta):
    res = {}
    for T in PERIODS:
        omega = 2 * math.pi / T
        k = ss.deep_k(omega)
        m = make_model(ss.sea_env([ss.component(A, omega, k, beta)], air=None))
        _, F = ss.held_harmonic(m, omega, qpos=qpos)
        ref = _capy_fk(boxes, omega, beta, center)
        res[T] = {name: (F[i] / A, ref[name]) for name, i in DOFS.items()}
    scale = {name: max(abs(r[name][1]) for r in res.values()) for name in DOFS}
    return res, scale


@pytest.mark.parametrize("beta", [0.0, math.radians(30)], ids=["head", "oblique30"])
def test_box_barge_against_capytaine(beta):
    half, d = (1.0, 0.5, 0.5), 0.5  # 2 x 1 x 1 m box, 0.5 m draft, origin at the mean level
    geom = ss.gm("box", half, pos=(0, 0, half[2] - d))

    def make(env):
        return mujoco.MjModel.from_xml_string(ss.scene(ss.free_body(geom), env))

    boxes = [((0.0, 0.0), half[:2], d, (40, 24, 20))]
    res, scale = _run(make, None, boxes, (0, 0, 0), beta)
    for T, r in res.items():
        for name, (got, ref) in r.items():
            if name == "Roll" and beta == 0.0:
                assert abs(got) < 1e-9 * scale["Pitch"]
                continue
            _check(got, ref, scale[name], (T, name))


@pytest.fixture(scope="module")
def blueboat(tmp_path_factory):
    out = tmp_path_factory.mktemp("bb")
    assert main(["build", "blueboat.yaml", "-o", str(out)]) == 0
    return out / "blueboat" / "blueboat.xml"


def blueboat_scene(path, env, *, drag=False, damping=False, timestep=0.002, integrator="RK4"):
    text = path.read_text()
    head = (f'<option timestep="{timestep}" integrator="{integrator}" gravity="0 0 {-ss.G}"/>'
            f'<size nuser_geom="2"/>')
    text = text.replace("<worldbody>", head + ss.plugin_decl(drag, damping) + "<worldbody>", 1)
    text = text.replace("<custom>", f'<custom><text name="aurgen:environment" data="{ss.env_text(env)}"/>', 1)
    p = path.with_name(f"_sea_{abs(hash(text))}.xml")
    p.write_text(text)
    try:
        return mujoco.MjModel.from_xml_path(str(p))
    finally:
        p.unlink()


def specs_draft(path):
    return float(re.search(r"draft: +([-0-9.]+) m", path.read_text()).group(1))


def pontoons(m):
    """The displacement boxes (user=1) of the root body: (centre (x, y) body frame, half sizes
    (a, b), half height, centre z body frame)."""
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    out = []
    for g in range(m.ngeom):
        if m.geom_user[g, 0] == 1:
            assert m.geom_type[g] == mujoco.mjtGeom.mjGEOM_BOX
            assert np.allclose(d.geom_xmat[g].reshape(3, 3), np.eye(3))
            c = d.geom_xpos[g] - d.xpos[1]
            s = m.geom_size[g]
            out.append(((c[0], c[1]), (s[0], s[1]), s[2], c[2]))
    return out


@pytest.mark.parametrize("beta", [0.0, math.radians(30)], ids=["head", "oblique30"])
def test_blueboat_pontoons_against_capytaine(blueboat, beta):
    z0 = -specs_draft(blueboat)  # the root origin's height at the specs draft, held upright
    env0 = ss.sea_env([ss.component(A, 3.0, ss.deep_k(3.0))], air=None)
    m0 = blueboat_scene(blueboat, env0)
    boxes = []
    for (x, y), (a, b), h, zc in pontoons(m0):
        draft = -(z0 + zc - h)  # bottom below the mean level
        assert 0 < draft < 2 * h
        boxes.append(((x, y), (a, b), draft, (9, 9, 3)))
    qpos = m0.qpos0.copy()
    qpos[2] = z0
    res, scale = _run(lambda env: blueboat_scene(blueboat, env), qpos, boxes, (0, 0, z0), beta)
    for T, r in res.items():
        for name, (got, ref) in r.items():
            if name == "Roll" and beta == 0.0:
                continue  # zero both (symmetric), checked below
            _check(got, ref, scale[name], (T, name))
    if beta == 0.0:
        assert max(abs(r["Roll"][0]) for r in res.values()) < 1e-6 * scale["Pitch"]
