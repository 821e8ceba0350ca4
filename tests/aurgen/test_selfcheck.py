"""The build's self-check (aurgen.emit.selfcheck): the consumers load each file before anything is written.

The oracles are the consumers themselves: a mutated MJCF is refused by the build with the message
MuJoCo gives when it compiles the same text here; a mutated SDF or URDF that the structural check
refuses is refused by libsdformat and urdfdom too, and the unmutated files pass all of them.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import mujoco

from aurgen.emit.meshes import set_files
import pytest

import aurgen.emit.render as render_mod
from aurgen.emit import selfcheck
from aurgen.emit.build import build, bundled_vehicles, outputs
from aurgen.cli import main
from aurgen.compose.resolve import resolve
from aurgen.core.errors import BuildError

FEATURES = Path(__file__).parents[1] / "data" / "emit_features" / "features.yaml"
CONFIGS = [str(p) for p in bundled_vehicles()] + [str(FEATURES)]


@pytest.fixture(scope="module")
def features():
    return outputs(resolve(FEATURES))


def _tree_digest(root: Path) -> dict:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("config", CONFIGS, ids=[Path(c).stem for c in CONFIGS])
def test_every_bundled_output_passes_the_self_check(config):
    selfcheck.check_outputs(outputs(resolve(config)), config)  # no error


# (id, old, new) applied to the first occurrence in the rendered MJCF
MJCF_MUTATIONS = [
    ("unknown-attribute", '<freejoint name="root"/>', '<freejoint name="root" bogus="1"/>'),
    ("repeated-body-name", '<body name="arm"', '<body name="base_link"'),
    ("site-of-actuator-missing", 'site="prop_thrust"', 'site="nowhere"'),
]


@pytest.mark.parametrize("old,new", [m[1:] for m in MJCF_MUTATIONS], ids=[m[0] for m in MJCF_MUTATIONS])
def test_a_file_mujoco_refuses_is_a_build_error_and_nothing_is_written(tmp_path, monkeypatch, capsys, old, new):
    out = tmp_path / "out"
    assert main(["build", str(FEATURES), "-o", str(out)]) == 0
    before = _tree_digest(tmp_path)
    real = render_mod.render

    def render(kind, vehicle, ctx=None):
        text = real(kind, vehicle, ctx)
        if kind == "mjcf":
            assert old in text
            text = text.replace(old, new, 1)
            with pytest.raises(ValueError) as refused:  # the oracle: MuJoCo on the same text (and meshes)
                mujoco.MjModel.from_xml_string(text, set_files(vehicle))
            render.expected = str(refused.value).splitlines()[0].removeprefix("Error: ").strip()
        return text

    monkeypatch.setattr(render_mod, "render", render)
    monkeypatch.chdir(tmp_path)
    code = main(["build", str(FEATURES), "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err and err.count("\n") == 1, err
    assert f"{FEATURES}: features.xml: MuJoCo refuses the generated MJCF" in err
    assert render.expected in err, (render.expected, err)
    assert _tree_digest(tmp_path) == before  # nothing written, no MUJOCO_LOG.TXT either


def test_build_refuses_before_writing_any_vehicle(tmp_path, monkeypatch):
    """Two configs, the second refused by MuJoCo: the first vehicle's files are not written either."""
    real = render_mod.render

    def render(kind, vehicle, ctx=None):
        text = real(kind, vehicle, ctx)
        return text.replace("<freejoint", "<freejoint bogus='1'", 1) if kind == "mjcf" and \
            vehicle.name == "features" else text

    monkeypatch.setattr(render_mod, "render", render)
    with pytest.raises(BuildError, match="unrecognized attribute"):
        build([CONFIGS[0], str(FEATURES)], tmp_path / "out")
    assert not (tmp_path / "out").exists()


# (id, file, old, new): structural faults the SDF/URDF check refuses
STRUCTURE_MUTATIONS = [
    ("sdf-joint-child-missing", "model.sdf", "<child>arm</child>", "<child>nowhere</child>"),
    ("sdf-link-repeated", "model.sdf", '<link name="arm">', '<link name="prop">'),
    ("sdf-frame-named-as-a-link", "model.sdf", '<frame name="base_link_nose"', '<frame name="arm"'),
    ("sdf-frame-attached-to-nothing", "model.sdf", 'attached_to="base_link"', 'attached_to="nowhere"'),
    ("sdf-pose-relative-to-nothing", "model.sdf", '<pose relative_to="base_link">', '<pose relative_to="nowhere">'),
    ("sdf-joint-named-as-a-link", "model.sdf", '<joint name="arm_joint"', '<joint name="prop"'),
    ("urdf-joint-parent-missing", "features.urdf", '<parent link="base_link"/>', '<parent link="nowhere"/>'),
    ("urdf-link-repeated", "features.urdf", '<link name="arm">', '<link name="prop">'),
    ("urdf-not-xml", "features.urdf", "</robot>", "</robt>"),
    ("config-not-xml", "model.config", "</model>", "</mode>"),
    ("config-names-another-sdf", "model.config", ">model.sdf</sdf>", ">other.sdf</sdf>"),
]


@pytest.mark.parametrize("fname,old,new", [m[1:] for m in STRUCTURE_MUTATIONS],
                         ids=[m[0] for m in STRUCTURE_MUTATIONS])
def test_structural_check_refuses_what_the_consumer_refuses(tmp_path, features, sdf_checker, check_urdf,
                                                            fname, old, new):
    text = features[fname]
    assert old in text
    bad = text.replace(old, new, 1)
    with pytest.raises(BuildError, match=f"cfg.yaml: {fname}: the generated"):
        selfcheck.check_outputs({fname: bad}, "cfg.yaml")
    if fname == "model.config":  # no consumer library reads it here: the structural check alone
        return
    path = tmp_path / fname
    path.write_text(bad)
    ok, output = (sdf_checker if fname.endswith(".sdf") else check_urdf)(path)
    assert not ok, output  # the consumer refuses it too
    path.write_text(text)
    ok, output = (sdf_checker if fname.endswith(".sdf") else check_urdf)(path)
    assert ok, output


def test_thruster_plugin_names_a_joint(features):
    bad = features["model.sdf"].replace("<joint_name>prop_joint</joint_name>", "<joint_name>x</joint_name>", 1)
    assert bad != features["model.sdf"]
    with pytest.raises(BuildError, match="names no joint of the model"):
        selfcheck.check_sdf(bad, "f")


def test_self_check_writes_no_mujoco_log(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(BuildError):
        selfcheck.check_mjcf("<mujoco><worldbody><body><geom size='-1'/></body></worldbody></mujoco>", "x")
    assert os.listdir(tmp_path) == []


def test_a_world_mujoco_refuses_is_a_build_error_and_nothing_is_written(tmp_path, monkeypatch, capsys):
    import aurgen.emit.worlds as worlds_mod

    real = worlds_mod.render_mjcf

    def render_mjcf(world, placed):
        return real(world, placed).replace("<worldbody>", '<worldbody bogus="1">', 1)

    oracle = tmp_path / "oracle"
    assert main(["worlds", "open_water", "-o", str(oracle)]) == 0
    bad = oracle / "worlds" / "open_water.xml"
    bad.write_text(bad.read_text().replace("<worldbody>", '<worldbody bogus="1">', 1))
    with pytest.raises(ValueError) as refused:  # MuJoCo on the same text, the vehicles beside it
        mujoco.MjModel.from_xml_path(str(bad))
    expected = str(refused.value).splitlines()[0].removeprefix("Error: ").strip()
    capsys.readouterr()

    monkeypatch.setattr(worlds_mod, "render_mjcf", render_mjcf)
    out = tmp_path / "out"
    code = main(["worlds", "open_water", "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert "open_water.yaml: open_water.xml: MuJoCo refuses the generated MJCF" in err and expected in err, err
    assert not out.exists()  # not even the vehicles
