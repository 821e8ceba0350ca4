"""The real consumers load every generated file: MuJoCo, libsdformat, urdfdom and yourdfpy."""

from __future__ import annotations

import re
from pathlib import Path

import mujoco
import numpy as np
import pytest

from aurgen.emit.build import bundled_vehicles
from aurgen.compose.resolve import resolve

FEATURES = Path(__file__).parents[1] / "data" / "emit_features" / "features.yaml"
# features: every shape and joint kind; equipped_*: every bundled part type (sensors, gripper, batteries)
EQUIPPED = [FEATURES.parent / "equipped_rov.yaml", FEATURES.parent / "equipped_boat.yaml"]
CONFIGS = [str(p) for p in bundled_vehicles()] + [str(FEATURES)] + [str(p) for p in EQUIPPED]
IDS = [Path(c).stem for c in CONFIGS]


@pytest.fixture(scope="module")
def out(built_vehicles):
    return built_vehicles  # CONFIGS, built once per session (tests/conftest.py)


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_mujoco_compiles_with_the_composed_mass_and_com(out, config):
    v = resolve(config)
    m = mujoco.MjModel.from_xml_path(str(out / v.name / f"{v.name}.xml"))
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    s = v.specs
    assert abs(m.body_mass.sum() - s.total_mass) <= 1e-9 * s.total_mass
    root = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, "base_link")
    np.testing.assert_allclose(d.subtree_com[root], s.com, rtol=0, atol=1e-9)
    assert m.nu == len(v.thrusters)
    # the marks the runtime reads
    disp = [i for i in range(m.ngeom) if m.geom_user[i, 0] == 1]
    # a hull mesh's convex pieces, else the boxes
    assert len(disp) == (len(v.displacement.hull.pieces) if v.displacement.kind == "mesh" else len(v.displacement.boxes))
    wind = [i for i in range(m.ngeom) if m.geom_user[i, 0] == 2]
    assert len(wind) == len(v.windage)
    for i in disp + wind:
        assert m.geom_contype[i] == 0 and m.geom_conaffinity[i] == 0


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_libsdformat_loads_model_sdf(out, config, sdf_checker):
    v = resolve(config)
    ok, text = sdf_checker(out / v.name / "model.sdf")
    assert ok, text
    assert f"ok model {v.namespace} " in text


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_urdfdom_and_yourdfpy_load_the_urdf(out, config, check_urdf):
    import yourdfpy

    v = resolve(config)
    path = out / v.name / f"{v.name}.urdf"
    ok, text = check_urdf(path)
    assert ok, text
    assert "Successfully Parsed XML" in text
    u = yourdfpy.URDF.load(str(path))
    assert u.base_link == "base_link"
    assert set(u.link_map) == {link.name for link in v.links} | {f.name for f in v.frames}
    assert abs(sum(l.inertial.mass for l in u.link_map.values() if l.inertial) - v.specs.total_mass) <= 1e-9


# ------------------------------------------------ every mainstream URDF (and SDF) loader


def _assert_mass_and_com(total, com, v, what):
    s = v.specs
    assert abs(total - s.total_mass) <= 1e-9 * s.total_mass, f"{what}: mass {total!r} vs specs {s.total_mass!r}"
    scale = max(1.0, float(np.linalg.norm(s.com)))
    err = float(np.linalg.norm(np.asarray(com, dtype=float) - np.asarray(s.com)))
    assert err <= 1e-9 * scale, f"{what}: CoM {com} vs specs {s.com} (error {err:.3g} m)"


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_pybullet_loads_the_specs_mass_and_com(out, config, pybullet):
    """pybullet gives a link without <inertial> 1 kg: every massless frame must say 0 explicitly."""
    v = resolve(config)
    cid = pybullet.connect(pybullet.DIRECT)
    try:
        body = pybullet.loadURDF(str(out / v.name / f"{v.name}.urdf"), physicsClientId=cid)
        n = pybullet.getNumJoints(body, physicsClientId=cid)
        assert n == len(v.links) - 1 + len(v.frames)  # every link and frame, no merging
        total, first = 0.0, np.zeros(3)
        for i in range(-1, n):
            m = pybullet.getDynamicsInfo(body, i, physicsClientId=cid)[0]
            if i == -1:  # the base's inertial frame in the world (the URDF root frame at the origin)
                pos = pybullet.getBasePositionAndOrientation(body, physicsClientId=cid)[0]
            else:
                pos = pybullet.getLinkState(body, i, computeForwardKinematics=1, physicsClientId=cid)[0]
            total += m
            first += m * np.asarray(pos)
        # merging fixed links (URDF_MERGE_FIXED_LINKS) keeps the mass too: no frame gains any. (pybullet's
        # merged CoM is its own business: it is off with or without aurgen's frame links; docs/performance.md, Limits)
        merged = pybullet.loadURDF(str(out / v.name / f"{v.name}.urdf"), basePosition=(10.0, 0.0, 0.0),
                                   flags=pybullet.URDF_MERGE_FIXED_LINKS, physicsClientId=cid)
        m_merged = sum(pybullet.getDynamicsInfo(merged, i, physicsClientId=cid)[0]
                       for i in range(-1, pybullet.getNumJoints(merged, physicsClientId=cid)))
    finally:
        pybullet.disconnect(cid)
    _assert_mass_and_com(total, first / total, v, "pybullet")
    assert abs(m_merged - v.specs.total_mass) <= 1e-9 * v.specs.total_mass


def _drake_mass_and_com(path, skip=()):
    from pydrake.multibody.parsing import Parser
    from pydrake.multibody.plant import MultibodyPlant
    from pydrake.multibody.tree import BodyIndex

    plant = MultibodyPlant(0.0)
    Parser(plant).AddModels(str(path))
    plant.Finalize()
    ctx = plant.CreateDefaultContext()
    total, first = 0.0, np.zeros(3)
    for i in range(1, plant.num_bodies()):  # 0 is the world
        b = plant.get_body(BodyIndex(i))
        if b.name() in skip:
            continue
        m = b.get_mass(ctx)
        c = plant.EvalBodyPoseInWorld(ctx, b).multiply(b.CalcCenterOfMassInBodyFrame(ctx))
        total += m
        first += m * np.asarray(c)
    return total, first / total


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_drake_loads_the_specs_mass_and_com_from_urdf_and_sdf(out, config, pydrake):
    v = resolve(config)
    total, com = _drake_mass_and_com(out / v.name / f"{v.name}.urdf")
    _assert_mass_and_com(total, com, v, "Drake (URDF)")
    # the SDF's marker links (displacement, windage) carry a token inertial that the base link's
    # carries less (SDF gives a link without one 1 kg): every body counts, as in Gazebo
    # Drake refuses elements outside the SDF spec, and gz-sim reads a sensor's frame_id from one
    # (<gz_frame_id>, copied through by libsdformat with a warning): docs/performance.md tells Drake users to
    # drop those lines, which is what is loaded here (nothing else is touched)
    sdf = out / v.name / "model.sdf"
    text = sdf.read_text(encoding="utf-8")
    stripped = re.sub(r"\n *<gz_frame_id>[^<]*</gz_frame_id>", "", text)
    assert stripped.count("<gz_frame_id>") == 0 and stripped.count("\n") == text.count("\n") - text.count("<gz_frame_id>")
    drake_sdf = out / v.name / "drake_model.sdf"
    drake_sdf.write_text(stripped, encoding="utf-8")
    try:
        total, com = _drake_mass_and_com(drake_sdf)
    finally:
        drake_sdf.unlink()
    _assert_mass_and_com(total, com, v, "Drake (SDF)")


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_pinocchio_free_flyer_loads_the_specs_mass_and_com(out, config, pinocchio):
    v = resolve(config)
    model = pinocchio.buildModelFromUrdf(str(out / v.name / f"{v.name}.urdf"), pinocchio.JointModelFreeFlyer())
    data = model.createData()
    com = pinocchio.centerOfMass(model, data, pinocchio.neutral(model))
    _assert_mass_and_com(pinocchio.computeTotalMass(model), com, v, "pinocchio")


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_every_urdf_visual_has_a_material_with_a_colour(out, config):
    from lxml import etree

    v = resolve(config)
    root = etree.parse(str(out / v.name / f"{v.name}.urdf")).getroot()
    colours = {m.get("name"): m.find("color").get("rgba") for m in root.findall("material")}
    visuals = root.findall("link/visual")
    assert visuals
    for vis in visuals:
        m = vis.find("material")
        assert m is not None and m.get("name") in colours, etree.tostring(vis)
    sdf = etree.parse(str(out / v.name / "model.sdf")).getroot()
    for vis in sdf.iter("visual"):
        assert vis.find("material/diffuse") is not None
