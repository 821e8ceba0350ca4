"""ROS 2 files: a ros_gz_bridge config per vehicle and a launch file per Gazebo world.

``<output>/ros/<vehicle>_bridge.yaml`` (``aurgen build``): one entry per topic the
vehicle's SDF publishes or subscribes (sensors, thruster commands, joint position
commands, joint states), with its ROS and Gazebo message types and direction, in the
format of ros_gz_bridge's ``config_file`` parameter (sensors ``lazy``; an entry's ``gz_topic`` /
``ros_topic`` keys give the two sides different names), then the config's ``extra_bridge_topics``.
A topic whose Gazebo message has no ros_gz mapping would be listed in a comment.

``<output>/ros/<world>.launch.py`` (``aurgen worlds``, for each world with an SDF): starts
``gz sim`` with the world (``GZ_SIM_RESOURCE_PATH`` set to the output folder, so the
``model://`` includes resolve), a ``/clock`` bridge, and per vehicle its bridge and a
``robot_state_publisher`` in the vehicle's namespace with the URDF (TF frames prefixed
``<namespace>/``, as the sensors' ``frame_id``). Paths are relative to the launch file.
"""

from __future__ import annotations

import json

from aurgen.compose import stamp
from aurgen.config import sensors
from aurgen.core.errors import ConfigError
from aurgen.emit.render import controllers_ctx, thruster_ctx

# Everything that is not a sensor: (gz message, ROS message) by kind.
COMMAND = ("gz.msgs.Double", "std_msgs/msg/Float64")
JOINT_STATES = ("gz.msgs.Model", "sensor_msgs/msg/JointState")


def topics(vehicle) -> list[dict]:
    """Every topic the vehicle's SDF names: {topic (Gazebo side), ros_topic, gz, ros (None: no ros_gz
    mapping), direction, what, owner (the part instance, or None)}. Two entries on one topic, on either
    side, are a ConfigError naming the entry whose topic key made them meet."""
    out = []
    for s in vehicle.sensors:
        for t, rt, gz, ros in sensors.bridged(s):
            out.append({"topic": t, "ros_topic": rt, "gz": gz, "ros": ros, "direction": "GZ_TO_ROS",
                        "what": f"sensor {s.name}", "owner": s.instance})
    for t in thruster_ctx(vehicle):
        out.append({"topic": t["gz_topic"], "ros_topic": t["ros_topic"], "gz": COMMAND[0], "ros": COMMAND[1],
                    "direction": "ROS_TO_GZ", "what": f"thruster {t['name']}: normalised command in [-1, 1]",
                    "owner": t["name"]})
    for c in controllers_ctx(vehicle):
        out.append({"topic": c["topic"], "ros_topic": c["ros_topic"], "gz": COMMAND[0], "ros": COMMAND[1],
                    "direction": "ROS_TO_GZ", "what": f"joint {c['joint']}: position command", "owner": c["child"]})
    js = f"/{vehicle.namespace}/joint_states"
    out.append({"topic": js, "ros_topic": js, "gz": JOINT_STATES[0], "ros": JOINT_STATES[1],
                "direction": "GZ_TO_ROS", "what": "joint states", "owner": None})
    for x in vehicle.extra_bridge:  # the config's extra_bridge_topics, after the vehicle's own
        out.append({"topic": x.gz_topic, "ros_topic": x.ros_topic, "gz": x.gz_type, "ros": x.ros_type,
                    "direction": x.direction, "what": f"extra_bridge_topics[{x.index}]", "owner": None,
                    "extra": x})
    _refuse_shared(vehicle, out)
    return out


def _refuse_shared(vehicle, entries) -> None:
    bases = {b[0]: b for b in vehicle.topic_bases}
    for side, field in (("Gazebo", "topic"), ("ROS", "ros_topic")):
        seen = {}
        for e in entries:
            first = seen.setdefault(e[field], e)
            if first is e:
                continue
            culprit = bases.get(e["owner"]) or bases.get(first["owner"])
            x = e.get("extra") or first.get("extra")
            if x is not None:  # an extra_bridge_topics entry: name its topic key
                name = "gz_topic_name" if field == "topic" else "ros_topic_name"
                culprit = (None, None, None, f"extra_bridge_topics[{x.index}].{name}", x.line)
            raise ConfigError(vehicle.source, culprit[3] if culprit else None,
                              f"{first['what']} and {e['what']} would share the {side} topic {e[field]!r}",
                              "give one of them another topic (topic, gz_topic or ros_topic)",
                              line=culprit[4] if culprit else None)


def _q(s: str) -> str:
    return json.dumps(s)  # a YAML double-quoted scalar


def bridge_yaml(vehicle) -> str:
    """The ros_gz_bridge config of ``vehicle`` (deterministic text)."""
    lines = [stamp.hash_comment(vehicle),
             f"# ros_gz_bridge config for model '{vehicle.namespace}': "
             "ros2 run ros_gz_bridge parameter_bridge --ros-args -p config_file:=<this file>"]
    skipped = []
    entries = []
    for t in topics(vehicle):
        if t["ros"] is None:
            skipped.append(t)
            continue
        entries += [f"# {t['what']}",
                    f"- ros_topic_name: {_q(t['ros_topic'])}",
                    f"  gz_topic_name: {_q(t['topic'])}",
                    f"  ros_type_name: {_q(t['ros'])}",
                    f"  gz_type_name: {_q(t['gz'])}",
                    f"  direction: {t['direction']}"]
        if t["what"].startswith("sensor "):  # subscribe in Gazebo (render a camera) only while ROS listens
            entries.append("  lazy: true")
        elif t.get("extra") is not None and t["extra"].lazy is not None:
            entries.append(f"  lazy: {'true' if t['extra'].lazy else 'false'}")
    for t in skipped:
        lines.append(f"# not bridged: {t['topic']} ({t['gz']}, {t['what']}): ros_gz_bridge has no ROS type for it")
    return "\n".join(lines + entries) + "\n"


def launch_py(world, placed, header: str) -> str:
    """The ROS 2 launch file of one world (``placed``: aurgen.emit.worlds.Placed)."""
    vehicles = []
    for pl in placed:
        v = pl.vehicle
        vehicles.append((v.namespace, f"{v.name}/{v.name}.urdf", f"ros/{v.name}_bridge.yaml"))
    vs = ",\n".join(f"    ({_q(ns)}, {_q(urdf)}, {_q(bridge)})" for ns, urdf, bridge in vehicles)
    return f'''# {header}
"""ROS 2 launch: Gazebo with the world {world.name!r}, a ros_gz bridge and robot_state_publisher per vehicle.

    ros2 launch {world.name}.launch.py      (from this folder, or give its path)

Paths are relative to the aurgen output folder (this file's parent's parent).
"""

import os

from launch import LaunchDescription
from launch.actions import ExecuteProcess, SetEnvironmentVariable
from launch_ros.actions import Node

OUTPUT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORLD = "worlds/{world.name}.sdf"
# (namespace, URDF, bridge config) per vehicle, relative to OUTPUT
VEHICLES = [
{vs}{"," if vs else ""}
]


def generate_launch_description():
    resource_path = os.pathsep.join(p for p in (OUTPUT, os.environ.get("GZ_SIM_RESOURCE_PATH", "")) if p)
    actions = [
        SetEnvironmentVariable("GZ_SIM_RESOURCE_PATH", resource_path),
        ExecuteProcess(cmd=["gz", "sim", "-r", os.path.join(OUTPUT, WORLD)], output="screen"),
        Node(package="ros_gz_bridge", executable="parameter_bridge", name="clock_bridge",
             arguments=["/clock@rosgraph_msgs/msg/Clock[gz.msgs.Clock"], output="screen"),
    ]
    for namespace, urdf, bridge in VEHICLES:
        with open(os.path.join(OUTPUT, urdf), encoding="utf-8") as f:
            description = f.read()
        actions.append(Node(package="ros_gz_bridge", executable="parameter_bridge", name=namespace + "_bridge",
                            parameters=[{{"config_file": os.path.join(OUTPUT, bridge), "use_sim_time": True}}],
                            output="screen"))
        actions.append(Node(package="robot_state_publisher", executable="robot_state_publisher",
                            namespace=namespace,
                            parameters=[{{"robot_description": description, "frame_prefix": namespace + "/",
                                         "use_sim_time": True}}],
                            output="screen"))
    return LaunchDescription(actions)
'''
