"""The names users subscribe to and look up, pinned (issue 37).

Every bundled vehicle and world is built with ``aurgen build --all`` and the names a user's nodes,
launch files, TF lookups and MuJoCo code depend on are read back from the files it writes (lxml for
SDF, URDF, MJCF and package.xml; yaml for the bridge and RViz configs; ``ast`` for the launch
files), never from aurgen's own naming code: topics, frame ids, links, joints, frames, sensors,
plugins' joints and topics, bridge entries, ROS package names and files, world names and includes,
the TF prefix each world's launch gives a vehicle, MJCF bodies, joints, sites and actuators. They
are compared with the checked-in, sorted list tests/data/golden/user_names.txt, so a rename only
happens deliberately: regenerate with ``AURGEN_UPDATE_GOLDEN=1`` and say so in CHANGELOG.md.
"""

from __future__ import annotations

import ast
import difflib
import os
from pathlib import Path

import yaml
from lxml import etree

from aurgen.cli import main

GOLDEN = Path(__file__).parents[1] / "data" / "golden" / "user_names.txt"
UPDATE = os.environ.get("AURGEN_UPDATE_GOLDEN") == "1"
HEADER = """\
# The user-visible names of every bundled vehicle and world, read from the files `aurgen build --all`
# writes (tests/aurgen/test_user_names.py): <file> <kind> <name> [<what goes with it>]. A rename here
# breaks users' nodes, launch files and TF lookups: make it deliberately (AURGEN_UPDATE_GOLDEN=1) and
# list it in CHANGELOG.md.
"""


def _xml(path: Path):
    return etree.parse(str(path), etree.XMLParser(remove_comments=True)).getroot()


def _sdf_model(rel: str, path: Path) -> list[str]:
    out = []
    model = _xml(path).find("model")
    out.append(f"{rel} model {model.get('name')}")
    for el in model:
        if el.tag in ("link", "joint", "frame"):
            out.append(f"{rel} {el.tag} {el.get('name')}")
    for s in model.iter("sensor"):
        out.append(f"{rel} sensor {s.get('name')} type {s.get('type')} topic {s.findtext('topic')} "
                   f"frame_id {s.findtext('gz_frame_id')}")
    for p in model.findall("plugin"):
        said = [f"{k} {p.findtext(k)}" for k in ("link_name", "joint_name", "topic") if p.find(k) is not None]
        out.append(f"{rel} plugin {p.get('filename')} " + " ".join(said))
    return out


def _urdf(rel: str, path: Path) -> list[str]:
    robot = _xml(path)
    return ([f"{rel} robot {robot.get('name')}"] + [f"{rel} link {el.get('name')}" for el in robot.findall("link")] +
            [f"{rel} joint {el.get('name')} {el.get('type')}" for el in robot.findall("joint")])


def _mjcf(rel: str, path: Path) -> list[str]:
    root = _xml(path)
    out = [f"{rel} model {root.get('model')}"]
    for tag in ("body", "joint", "freejoint", "site"):
        out += [f"{rel} {tag} {el.get('name')}" for el in root.iter(tag) if el.get("name")]
    for group in ("actuator", "sensor"):
        for g in root.findall(group):
            out += [f"{rel} {group} {el.get('name')} ({el.tag})" for el in g if el.get("name")]
    for el in root.iter("frame"):
        out.append(f"{rel} frame {el.get('name')}")
    for el in root.iter("attach"):
        out.append(f"{rel} attach {el.get('model')} prefix {el.get('prefix')}")
    return out


def _bridge(rel: str, path: Path) -> list[str]:
    out = []
    for e in yaml.safe_load(path.read_text(encoding="utf-8")):
        ros = e.get("ros_topic_name", e.get("topic_name"))
        gz = e.get("gz_topic_name", e.get("topic_name"))
        out.append(f"{rel} bridge ros {ros} {e['ros_type_name']} {e['direction']} gz {gz} {e['gz_type_name']}")
    return out


def _launch(rel: str, path: Path) -> list[str]:
    """The launch file's names: its module constants (package, files, the world's vehicles) and the
    package / executable / name / namespace of each Node it starts; where it runs robot_state_publisher
    with ``frame_prefix: namespace + "/"``, the TF prefix of each vehicle."""
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text)
    out = []
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                continue
            if isinstance(value, str):
                out.append(f"{rel} {node.targets[0].id} {value}")
            elif isinstance(value, list):
                out += [f"{rel} {node.targets[0].id} {' '.join(v)}" for v in value]
    for call in ast.walk(tree):
        if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "Node":
            kw = {k.arg: (k.value.value if isinstance(k.value, ast.Constant) else ast.unparse(k.value))
                  for k in call.keywords}
            out.append(f"{rel} node " + " ".join(f"{k} {kw[k]}" for k in ("package", "executable", "name", "namespace")
                                                 if k in kw))
    if '"frame_prefix": namespace + "/"' in text:
        vehicles = next(ast.literal_eval(n.value) for n in tree.body if isinstance(n, ast.Assign)
                        and getattr(n.targets[0], "id", None) == "VEHICLES")
        out += [f"{rel} tf_prefix {ns}/ for {urdf}" for ns, urdf, _ in vehicles]
    return out


def _world_sdf(rel: str, path: Path) -> list[str]:
    world = _xml(path).find("world")
    out = [f"{rel} world {world.get('name')}"]
    out += [f"{rel} model {m.get('name')}" for m in world.findall("model")]
    out += [f"{rel} include {i.findtext('name')} {i.findtext('uri')}" for i in world.findall("include")]
    out += [f"{rel} enable {e.text}" for e in world.iter("enable")]
    return out


def user_names(root: Path) -> list[str]:
    """The sorted user-visible names of everything under an ``aurgen build --all`` output ``root``."""
    out: list[str] = []
    for path in sorted(p for p in root.rglob("*") if p.is_file() and not p.name.startswith(".")):
        rel = path.relative_to(root).as_posix()
        parts = rel.split("/")
        if parts[0] == "worlds":
            out += _world_sdf(rel, path) if path.suffix == ".sdf" else _mjcf(rel, path)
        elif parts[0] == "ros":
            if len(parts) > 2:  # a vehicle's ROS package: its files are names too (ros2 launch <pkg> <file>)
                out.append(f"{parts[0]}/{parts[1]} file {'/'.join(parts[2:])}")
            if path.name == "package.xml":
                out.append(f"{rel} package {_xml(path).findtext('name')}")
            elif path.suffix == ".yaml":
                out += _bridge(rel, path)
            elif path.suffix == ".py":
                out += _launch(rel, path)
            elif path.suffix == ".urdf":
                out += _urdf(rel, path)
            elif path.suffix == ".rviz":
                out.append(f"{rel} fixed_frame {yaml.safe_load(path.read_text(encoding='utf-8'))['Visualization Manager']['Global Options']['Fixed Frame']}")
        elif path.name == "model.sdf":
            out += _sdf_model(rel, path)
        elif path.name == "model.config":
            out.append(f"{rel} name {_xml(path).findtext('name')}")
        elif path.suffix == ".urdf":
            out += _urdf(rel, path)
        elif path.suffix == ".xml":
            out += _mjcf(rel, path)
    return sorted(out)


def test_every_bundled_vehicle_and_world_keeps_its_user_visible_names(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no ./vehicles or ./worlds here: --all builds the bundled ones alone
    assert main(["build", "--all", "-o", str(tmp_path / "out")]) == 0
    got = user_names(tmp_path / "out")
    if UPDATE:
        _restored(got)
        GOLDEN.write_text(HEADER + "".join(line + "\n" for line in got), encoding="utf-8", newline="\n")
        return
    want = [s for s in GOLDEN.read_text(encoding="utf-8").splitlines() if s and not s.startswith("#")]
    assert want == sorted(want), "tests/data/golden/user_names.txt is not sorted"
    diff = "\n".join(difflib.unified_diff(want, got, "user_names.txt", "built", lineterm="", n=0))
    assert got == want, ("user-visible names changed (a rename breaks users' nodes: if deliberate, regenerate "
                         "with AURGEN_UPDATE_GOLDEN=1 and list it in CHANGELOG.md):\n" + diff)
    _restored(got)


def _restored(got):
    """The names issue 37 restored (the Ping2's, as the reference models and aurgen's earlier output
    have them), checked by hand as well as through the list."""
    assert "blueboat/model.sdf sensor ping type gpu_lidar topic /blueboat/ping/range frame_id blueboat/ping_beam" in got
    assert "ros/blueboat_bridge.yaml bridge ros /blueboat/ping/range sensor_msgs/msg/LaserScan GZ_TO_ROS gz " \
           "/blueboat/ping/range gz.msgs.LaserScan" in got
    assert {"blueboat/blueboat.urdf link ping", "blueboat/blueboat.urdf link ping_beam",
            "ros/open_water.launch.py tf_prefix blueboat/ for blueboat/blueboat.urdf"} <= set(got)
