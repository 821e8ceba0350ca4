"""The force stage's wrench pass in batches (runtime/native/core/forces_pieces.cc WrenchesPair:
two boxes or meshes of one body, their two cells each, four pieces in one AVX2 register where
the CPU has it, taken there by default) against the same pass one geom at a time
(ForceStage.set_batches(False): its cells in SSE2 pairs): the same bits, over random states of
scenes that take every branch of the pass (buoyancy, the faces' drag areas with covered faces,
surface damping, the drag model with declared damping taking degrees of freedom out, a current,
a gravity field per piece, a sea)."""
from __future__ import annotations

import mujoco
import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from aurgen.runtime._native import ForceStage
from aurgen.runtime.sim import Simulation
from aurgen.runtime.sim import forces as fz

from seascenes import component, deep_k, sea_env
from simfixtures import body, geom, mjcf, water_env

# a convex mesh (an irregular octahedron, m): a mesh hull beside the boxes
_OCTA = "0.3 0 0  -0.25 0 0  0 0.12 0  0 -0.1 0  0 0 0.09  0 0 -0.11"
_ASSET = f'<asset><mesh name="octa" vertex="{_OCTA}"/></asset>'


def _hull_boxes():
    """Two bodies: five boxes side by side (their touching faces cover each other: the drag's
    exposed shares) and an odd one out; two meshes between two boxes (box, mesh, mesh, box)."""
    segs = "".join(geom("box", (0.1, 0.08, 0.06), pos=(0.2 * i - 0.4, 0.0, 0.0)) for i in range(5))
    a = body("a", (0, 0, 0), 8.0, (0.3, 0.4, 0.5), segs + geom("box", (0.05, 0.05, 0.05), pos=(0, 0.3, 0.1)))
    mixed = (geom("box", (0.08, 0.08, 0.08), pos=(-0.4, 0, 0)) +
             geom("mesh", (0, 0, 0), pos=(-0.1, 0, 0), extra='mesh="octa"') +
             geom("mesh", (0, 0, 0), pos=(0.25, 0, 0.02), extra='mesh="octa"') +
             geom("box", (0.06, 0.1, 0.05), pos=(0.55, 0, 0)))
    b = body("b", (2, 0, 0), 6.0, (0.2, 0.3, 0.4), mixed)
    return a + b


def _xml(env=None, declared=False):
    text = mjcf(_hull_boxes(), env=env).replace("<worldbody>", _ASSET + "<worldbody>", 1)
    if declared:  # a linear damping term on body a's surge: the drag model keeps the other five
        D = np.zeros(36)
        D[0] = -15.0
        data = " ".join(repr(float(x)) for x in D)
        text = text.replace("<worldbody>", f'<custom><numeric name="aurgen:damping_linear:a" data="{data}"/>'
                            "</custom><worldbody>", 1)
    return text


def _scenes():
    still = water_env(rho=1025.0)
    current = water_env(rho=1025.0, flow=(0.4, -0.2, 0.0))
    field = dict(water_env(rho=1025.0), gravity={"type": "linear", "g0": [0.0, 0.0, -9.81],
                                                 "G": [[1e-3, 0, 0], [0, 2e-3, 0], [0, 0, -3e-3]]})
    omega = 2 * np.pi / 2.5
    sea = sea_env([component(0.08, omega, deep_k(omega), direction=0.3),
                   component(0.03, 1.7 * omega, deep_k(1.7 * omega), direction=-0.8, phase=1.0)])
    return {"still water": (_xml(still), None), "a current": (_xml(current), None),
            "declared damping": (_xml(still, declared=True), None),
            "a gravity field": (_xml(), field), "a sea": (_xml(), sea)}


def _outputs(stage, d, args):
    """One evaluation from a zeroed qfrc_passive: what the stage writes (qfrc_passive, the pieces'
    volumes, centroids and section areas, the submerged fractions, the ledger, qmine, qdrag), as bits."""
    d.qfrc_passive[:] = 0.0
    stage.run()
    return [np.array(a, copy=True).view(np.uint64) for a in (d.qfrc_passive, *args[41:48])]


@pytest.mark.parametrize("scene", sorted(_scenes()))
def test_batched_wrenches_are_bitwise_one_geom_at_a_time(scene):
    xml, env = _scenes()[scene]
    sim = Simulation(xml, environment=env) if env is not None else Simulation(xml)
    m, d, args = sim.model, sim.data, list(sim._plan.args)
    batched, single = ForceStage(tuple(args)), ForceStage(tuple(args))
    batched.set_batches(True)  # the default only where the CPU runs AVX2 (lanes.h W4Fast)
    single.set_batches(False)
    sim._plan.fl[fz.F_RECORD] = 1  # the ledger's terms too
    rng = np.random.default_rng(3)
    cut = 0
    for trial in range(60):
        for name in ("a", "b"):
            adr = m.jnt_qposadr[m.body_jntadr[m.body(name).id]]
            dof = m.jnt_dofadr[m.body_jntadr[m.body(name).id]]
            level = trial % 3 == 0  # level at a random draft: the prism across z in the clip
            q = (np.array([1.0, 0, 0, 0]) if level else
                 Rotation.random(random_state=rng.integers(1 << 31)).as_quat(scalar_first=True))
            d.qpos[adr:adr + 7] = [d.qpos[adr], d.qpos[adr + 1], rng.uniform(-0.15, 0.15), *q]
            d.qvel[dof:dof + 6] = rng.normal(0.0, 0.6, 6) * (trial % 5 != 0)  # some at rest
        d.time = rng.uniform(0.0, 10.0)
        mujoco.mj_forward(m, d)
        a = _outputs(batched, d, args)
        b = _outputs(single, d, args)
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)
        vols = np.asarray(args[41])
        cut += int(np.count_nonzero((vols > 0).all(axis=1)))  # pieces on both sides of the surface
    assert cut > 100  # the states cut the hulls (else the test checks little)
    sim.close()
