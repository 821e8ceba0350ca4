"""The real consumers load every generated file: MuJoCo, libsdformat, urdfdom and yourdfpy."""

from __future__ import annotations

from pathlib import Path

import mujoco
import numpy as np
import pytest

from aurgen.build import build, bundled_vehicles
from aurgen.compose import resolve

FEATURES = Path(__file__).parents[1] / "data" / "emit_features" / "features.yaml"
CONFIGS = [str(p) for p in bundled_vehicles()] + [str(FEATURES)]
IDS = [Path(c).stem for c in CONFIGS]


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    root = tmp_path_factory.mktemp("build")
    build(CONFIGS, root)
    return root


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
    assert len(disp) == len(v.displacement.boxes)
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
