"""``extra_bridge_topics`` (issue 23): ros_gz_bridge entries a vehicle config appends to its bridge YAML.

Each entry is read back as ros_gz_bridge reads it (ros_gz_bridge/src/bridge_config.cpp ``parseEntry``:
``topic_name`` or one side's name alone names both sides, both type names required, direction default
BIDIRECTIONAL) and its type pair is checked against ros_gz_bridge's table as tests/aurgen/test_topic_keys.py
writes it out (ROS_GZ_MAPPINGS, from ros_gz_bridge/ros_gz_bridge/mappings.py). A malformed entry is
refused naming ``extra_bridge_topics[i].<key>`` and its line.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from aurgen.compose.resolve import resolve
from aurgen.config import bridge
from aurgen.core.errors import AurgenError
from aurgen.emit import ros
from aurgen.emit.build import build
from test_topic_keys import ROS_GZ_MAPPINGS

CONFIG = Path(__file__).parents[1] / "data" / "emit_features" / "topic_keys.yaml"
EXTRA = """extra_bridge_topics:
  - {ros_topic_name: cmd_vel, gz_topic_name: /model/tk/cmd_vel, ros_type_name: geometry_msgs/msg/Twist,
     gz_type_name: gz.msgs.Twist, direction: ROS_TO_GZ}
  - {topic_name: /tk_status, ros_type_name: std_msgs/msg/String, gz_type_name: gz.msgs.StringMsg}
  - {gz_topic_name: odometry, ros_type_name: nav_msgs/msg/Odometry, gz_type_name: gz.msgs.Odometry,
     direction: GZ_TO_ROS, lazy: true}
  - {ros_topic_name: depth_setpoint, ros_type_name: std_msgs/msg/Float64, gz_type_name: gz.msgs.Double,
     direction: BIDIRECTIONAL, lazy: false}
"""


def _config(tmp_path, extra: str) -> Path:
    p = tmp_path / "v.yaml"
    text = CONFIG.read_text(encoding="utf-8").split("buoyancy:\n")
    p.write_text(text[0] + extra + "buoyancy:\n" + text[1], encoding="utf-8")
    (tmp_path / "parts").mkdir(exist_ok=True)
    return p


def parse_entry(e: dict) -> dict:
    """ros_gz_bridge bridge_config.cpp parseEntry, the fields it keeps (None: the entry is refused)."""
    get = lambda k: str(e[k]) if k in e else ""  # noqa: E731
    topic, ros_t, gz_t = get("topic_name"), get("ros_topic_name"), get("gz_topic_name")
    if (topic and ros_t) or (topic and gz_t) or not get("ros_type_name") or not get("gz_type_name"):
        return None
    direction = get("direction") if "direction" in e else "BIDIRECTIONAL"
    if direction not in ("BIDIRECTIONAL", "GZ_TO_ROS", "ROS_TO_GZ"):
        return None
    if topic:
        ros_t = gz_t = topic
    elif ros_t and not gz_t:
        gz_t = ros_t
    elif gz_t and not ros_t:
        ros_t = gz_t
    return {"ros": ros_t, "gz": gz_t, "types": (e["ros_type_name"], e["gz_type_name"]), "direction": direction,
            "lazy": bool(e.get("lazy", False))}


def test_extra_entries_are_appended_as_ros_gz_bridge_reads_them(tmp_path):
    p = _config(tmp_path, EXTRA)
    out = tmp_path / "out"
    build([str(p)], out)
    text = (out / "ros" / "topic_keys_bridge.yaml").read_text(encoding="utf-8")
    entries = [parse_entry(e) for e in yaml.safe_load(text)]
    assert None not in entries
    extra = entries[-4:]
    assert extra[0] == {"ros": "/tk/cmd_vel", "gz": "/model/tk/cmd_vel",
                        "types": ("geometry_msgs/msg/Twist", "gz.msgs.Twist"), "direction": "ROS_TO_GZ",
                        "lazy": False}
    assert extra[1] == {"ros": "/tk_status", "gz": "/tk_status", "types": ("std_msgs/msg/String", "gz.msgs.StringMsg"),
                        "direction": "BIDIRECTIONAL", "lazy": False}
    assert extra[2]["ros"] == extra[2]["gz"] == "/tk/odometry" and extra[2]["lazy"] is True
    assert extra[3]["ros"] == extra[3]["gz"] == "/tk/depth_setpoint" and extra[3]["direction"] == "BIDIRECTIONAL"
    # the vehicle's own entries are unchanged: the same as without the key
    base = tmp_path / "base"
    base.mkdir()
    build([str(_config(base, ""))], base / "out")
    own = (base / "out" / "ros" / "topic_keys_bridge.yaml").read_text(encoding="utf-8")
    assert text.splitlines()[2:len(own.splitlines())] == own.splitlines()[2:]
    # the ROS package carries the same bytes
    assert (out / "ros" / "topic_keys_description" / "config" / "topic_keys_bridge.yaml").read_text(
        encoding="utf-8") == text
    # and every type pair the generated entries use is one ros_gz_bridge converts
    for e in entries[:-4]:
        assert e["types"] in ROS_GZ_MAPPINGS
    assert ("std_msgs/msg/Float64", "gz.msgs.Double") in ROS_GZ_MAPPINGS


def test_aurgen_type_table_holds_ros_gz_bridge_pairs():
    assert ROS_GZ_MAPPINGS <= bridge.TYPES


E = "ros_type_name: std_msgs/msg/Float64, gz_type_name: gz.msgs.Double"


@pytest.mark.parametrize("entry, key, words", [
    (f"{{topic_name: a, {E}, speed: 3}}", "extra_bridge_topics[0].speed", "unknown key"),
    ("{topic_name: a, ros_type_name: std_msgs/msg/Float64}", "extra_bridge_topics[0].gz_type_name", "missing"),
    ("{topic_name: a, gz_type_name: gz.msgs.Double}", "extra_bridge_topics[0].ros_type_name", "missing"),
    ("{topic_name: a, ros_type_name: std_msgs/msg/Float64, gz_type_name: gz.msgs.Float}",
     "extra_bridge_topics[0].gz_type_name", "no conversion"),
    ("{topic_name: a, ros_type_name: my_msgs/msg/Thing, gz_type_name: gz.msgs.Double}",
     "extra_bridge_topics[0].ros_type_name", "no conversion"),
    (f"{{topic_name: a, {E}, direction: BOTH}}", "extra_bridge_topics[0].direction", "must be one of"),
    (f"{{topic_name: a, {E}, lazy: yes please}}", "extra_bridge_topics[0].lazy", "true or false"),
    (f"{{topic_name: a, ros_topic_name: b, {E}}}", "extra_bridge_topics[0].ros_topic_name", "mutually exclusive"),
    (f"{{{E}}}", "extra_bridge_topics[0].topic_name", "no topic"),
    (f"{{topic_name: 'a//b', {E}}}", "extra_bridge_topics[0].topic_name", "is not a topic"),
    (f"{{gz_topic_name: thruster_1/cmd, ros_topic_name: mine, {E}}}", "extra_bridge_topics[0].gz_topic_name",
     "share the Gazebo topic"),
    (f"{{ros_topic_name: /teleop/thruster_1/cmd, gz_topic_name: mine, {E}}}",
     "extra_bridge_topics[0].ros_topic_name", "share the ROS topic"),
    ("3", "extra_bridge_topics[0]", "expected a mapping"),
])
def test_a_bad_extra_entry_is_refused_naming_key_and_line(tmp_path, entry, key, words):
    p = _config(tmp_path, f"extra_bridge_topics:\n  - {{topic_name: ok_first, {E}}}\n  - {entry}\n")
    key = key.replace("[0]", "[1]")
    with pytest.raises(AurgenError) as exc:
        ros.topics(resolve(str(p)))
    msg = str(exc.value)
    at = p.read_text(encoding="utf-8").splitlines().index("extra_bridge_topics:") + 1
    line = at if entry == "3" else at + 2  # a scalar has no line of its own: the key's
    assert key in msg and words in msg and f"{p}:{line}" in msg, (msg, line)


def test_a_bad_extra_entry_is_one_line_from_the_cli(tmp_path, capsys):
    from aurgen.cli import main

    p = _config(tmp_path, "extra_bridge_topics:\n  - {topic_name: a, ros_type_name: std_msgs/msg/Float64}\n")
    code = main(["build", str(p), "-o", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2 and "extra_bridge_topics[0].gz_type_name" in err and "Traceback" not in err, err
    assert not (tmp_path / "out").exists()
