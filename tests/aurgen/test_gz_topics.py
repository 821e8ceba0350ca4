"""The topic each Gazebo system hears equals the topic the ros_gz bridge talks on (issue 23).

Re-implemented from the consumers' source, not from aurgen's own output:

- gz-sim 8 (Harmonic) ``src/systems/thruster/Thruster.cc``, ``Thruster::Configure``: the
  namespace defaults to the model entity's name (``model.Name(_ecm)``, the name the model
  was spawned under), ``<namespace>`` overrides it; with a ``<topic>`` the system subscribes
  to ``AsValidTopic(ns + "/" + AsValidTopic(topic))``. gz-maritime's
  ``gz_thruster/src/Thruster.cc`` ``Thruster::Configure`` is the same code for a given topic.
- gz-sim 8 ``src/systems/joint_position_controller/JointPositionController.cc``,
  ``Configure``: ``AsValidTopic(<topic>)`` when given; ``JointStatePublisher.cc``,
  ``Configure``: ``<topic>`` as written.
- gz-transport 13 ``src/TopicUtils.cc``: ``AsValidTopic`` (spaces to ``_``, drops ``@``,
  ``~``, ``:=`` and every ``//`` pair) and ``FullyQualifiedName`` (a relative topic gets
  the node's namespace, ``/`` for a default node) -- what ``Node::Subscribe`` and
  ``Node::Advertise`` (the bridge's Gazebo side) really use.
- ros_gz_bridge ``src/bridge_config.cpp``, ``parseEntry``: ``gz_topic_name`` is the topic
  the bridge's Gazebo node advertises (ROS_TO_GZ) or subscribes (GZ_TO_ROS).

The same derivation runs twice: in Python below (no library needed) and in
tests/data/gz_topics.cc, where libsdformat reads the plugin elements and ign-transport's
own TopicUtils cleans the names (fixture ``gz_topics``, skipped when the libraries are missing).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from lxml import etree

from aurgen.compose.resolve import resolve
from aurgen.emit.build import bundled_vehicles

DATA = Path(__file__).parents[1] / "data"
FEATURES = DATA / "emit_features"
CONFIGS = [str(p) for p in bundled_vehicles()] + [str(FEATURES / n) for n in
                                                  ("features.yaml", "equipped_rov.yaml", "equipped_boat.yaml",
                                                   "topic_keys.yaml", "two_grippers.yaml")]
IDS = [Path(c).stem for c in CONFIGS]
THRUSTERS = ("gz::sim::systems::Thruster", "gz::sim::maritime::Thruster")


# ------------------------------------------------- gz-transport 13, src/TopicUtils.cc


def _is_valid_topic(t: str) -> bool:
    """TopicUtils::IsValidTopic = IsValidNamespace(t) and not empty."""
    return bool(t) and len(t) <= 65535 and t != "/" and not any(s in t for s in ("~", " ", "//", "@", ":="))


def as_valid_topic(topic: str) -> str:
    """TopicUtils::AsValidTopic: '' when the cleaned name is still invalid."""
    out, i = [], 0
    while i < len(topic):
        c = topic[i]
        if c == " ":
            out.append("_")
        elif c in "@~":
            pass
        elif c == ":" and topic[i + 1:i + 2] == "=":
            i += 1
        elif c == "/" and topic[i + 1:i + 2] == "/":
            i += 1  # both slashes are dropped
        else:
            out.append(c)
        i += 1
    v = "".join(out)
    return v if _is_valid_topic(v) else ""


def fully_qualified(topic: str, ns: str = "") -> str:
    """TopicUtils::FullyQualifiedName(partition "", ns, topic), the partition prefix left out."""
    if not _is_valid_topic(topic):
        return "<invalid>"
    if not ns.endswith("/"):
        ns += "/"
    if not ns.startswith("/"):
        ns = "/" + ns
    if topic.endswith("/"):
        topic = topic[:-1]
    return topic if topic.startswith("/") else ns + topic


# ------------------------------------------------- gz-sim 8 systems' Configure


def thruster_topic(plugin, model_name: str) -> str:
    """Thruster::Configure (gz-sim and gz-maritime), the subscription topic."""
    ns = plugin.findtext("namespace") if plugin.find("namespace") is not None else model_name
    joint = plugin.findtext("joint_name")
    topic = as_valid_topic(plugin.findtext("topic")) if plugin.find("topic") is not None else ""
    if topic:
        return as_valid_topic(ns + "/" + topic)
    maritime = plugin.get("name") == THRUSTERS[1]
    normalized = maritime and (plugin.findtext("use_normalized_cmd") or "").strip() in ("true", "1")
    angvel = (plugin.findtext("use_angvel_cmd") or "").strip() in ("true", "1") and not normalized
    last = "/cmd_vel" if angvel else "/cmd_normalized" if normalized else "/cmd_thrust"
    return as_valid_topic("/model/" + ns + "/joint/" + joint + last)


def plugin_topics(sdf_path, spawned_name=None) -> list[tuple[str, str, str]]:
    """(system, joint, fully qualified topic) per model plugin, as gz_topics.cc prints them."""
    model = etree.parse(str(sdf_path)).getroot().find("model")
    name = spawned_name or model.get("name")
    out = []
    for p in model.findall("plugin"):
        joint = p.findtext("joint_name") or "-"
        if p.get("name") in THRUSTERS:
            out.append(("thruster", joint, fully_qualified(thruster_topic(p, name))))
        elif p.get("name") == "gz::sim::systems::JointPositionController":
            t = as_valid_topic(p.findtext("topic")) if p.find("topic") is not None else \
                as_valid_topic(f"/model/{name}/joint/{joint}/{p.findtext('joint_index') or 0}/cmd_pos")
            out.append(("joint_position", joint, fully_qualified(t)))
        elif p.get("name") == "gz::sim::systems::JointStatePublisher":
            t = p.findtext("topic") if p.find("topic") is not None else f"/world/world/model/{name}/joint_state"
            out.append(("joint_state", "-", fully_qualified(t)))
    return out


def bridge_gz_topics(bridge_path, direction: str) -> set[str]:
    """ros_gz_bridge parseEntry: the Gazebo topic of each entry in ``direction``, as its node qualifies it."""
    out = set()
    for e in yaml.safe_load(Path(bridge_path).read_text(encoding="utf-8")):
        gz = e.get("gz_topic_name") or e.get("topic_name") or e.get("ros_topic_name")
        if e.get("direction", "BIDIRECTIONAL") in (direction, "BIDIRECTIONAL"):
            out.add(fully_qualified(gz))
    return out


@pytest.fixture(scope="module")
def out(built_vehicles):
    return built_vehicles  # CONFIGS, built once per session (tests/conftest.py)


def _paths(out, config):
    v = resolve(config)
    return v, out / v.name / "model.sdf", out / "ros" / f"{v.name}_bridge.yaml"


def test_the_python_topic_utils_follow_gz_transport():
    # the cases gz-transport's own test (test/integration or src/TopicUtils_TEST.cc) pins
    assert as_valid_topic("/abc") == "/abc"
    assert as_valid_topic("a b") == "a_b"
    assert as_valid_topic("a@b~c:=d") == "abcd"
    assert as_valid_topic("//") == ""
    assert as_valid_topic("blueboat//blueboat/x") == "blueboatblueboat/x"
    assert fully_qualified("a/b") == "/a/b" and fully_qualified("/a/b/") == "/a/b"


@pytest.mark.parametrize("spawned", [None, "renamed_vehicle"], ids=["own_name", "spawned_renamed"])
@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_every_thruster_and_joint_command_hears_the_bridge(out, config, spawned):
    v, sdf, bridge = _paths(out, config)
    plugins = plugin_topics(sdf, spawned)
    assert sum(1 for k, _, _ in plugins if k == "thruster") == len(v.thrusters)
    subscribed = {t for k, _, t in plugins if k in ("thruster", "joint_position")}
    published = bridge_gz_topics(bridge, "ROS_TO_GZ")
    assert subscribed == published, (sorted(subscribed), sorted(published))
    states = {t for k, _, t in plugins if k == "joint_state"}
    assert states and states <= bridge_gz_topics(bridge, "GZ_TO_ROS")


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_libsdformat_and_ign_transport_agree(out, config, gz_topics):
    """The same derivation with the consumers' own libraries (tests/data/gz_topics.cc)."""
    v, sdf, bridge = _paths(out, config)
    for spawned in (None, "renamed_vehicle"):
        got = gz_topics(sdf, spawned)
        assert got == plugin_topics(sdf, spawned)
        subscribed = {t for k, _, t in got if k in ("thruster", "joint_position")}
        assert subscribed == bridge_gz_topics(bridge, "ROS_TO_GZ")


# ------------------------------------------------- worlds as `gz sdf -p` prints them


def test_a_printed_world_is_well_formed_xml(tmp_path):
    """libsdformat resolves each ``<include>`` into the world (``gz sdf -p`` prints the result): the
    included models' ``gz:`` attributes then sit in the world document, whose root must declare the
    prefix (lxml, like every XML parser, refuses an undeclared prefix)."""
    import re

    from aurgen.emit import worlds

    worlds.write_worlds(["open_water", "pool"], tmp_path)
    for world in (tmp_path / "worlds").glob("*.sdf"):
        text = world.read_text(encoding="utf-8")

        def inline(m):
            name = re.search(r"<name>(\w+)</name>", m.group(0)).group(1)
            model = (tmp_path / name / "model.sdf").read_text(encoding="utf-8")
            return re.search(r"<model .*</model>", model, re.S).group(0)

        printed = re.sub(r"<include>.*?</include>", inline, text, flags=re.S)
        assert "gz:" in printed
        etree.fromstring(printed.encode())  # raises on an undeclared gz: prefix
