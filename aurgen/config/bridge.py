"""``extra_bridge_topics:`` of a vehicle config: ros_gz_bridge entries appended to its bridge YAML.

Each entry is validated as ros_gz_bridge reads a ``config_file`` entry (ros_gz_bridge/src/bridge_config.cpp,
``parseEntry``): ``ros_type_name`` and ``gz_type_name`` both required; ``topic_name`` (both sides) mutually
exclusive with ``ros_topic_name`` and ``gz_topic_name``; one side's name alone names both; ``direction``
BIDIRECTIONAL (its default), GZ_TO_ROS or ROS_TO_GZ; ``lazy`` a boolean. The (ROS, Gazebo) type pair must
be one ros_gz_bridge converts (its table below), or the bridge would not be created. A topic without a
leading '/' is put under the vehicle's namespace, as a part entry's topic keys are (docs/config.md).
A topic that meets one the vehicle already bridges is refused by aurgen.emit.ros.
"""

from __future__ import annotations

from aurgen.core import limits as lim
from aurgen.core.records import record

KEYS = ("topic_name", "ros_topic_name", "gz_topic_name", "ros_type_name", "gz_type_name", "direction", "lazy")
DIRECTIONS = ("BIDIRECTIONAL", "GZ_TO_ROS", "ROS_TO_GZ")

# ros_gz_bridge's type table: ros_gz_bridge/ros_gz_bridge/mappings.py, MAPPINGS (gazebosim/ros_gz), as
# {ROS package: ((ROS message, Gazebo message), ...)}; plus marine_acoustic_msgs' Dvl (gazebosim/ros_gz
# pull request #789, ros_gz_bridge 1.0.22 / Jazzy). tests/aurgen/test_topic_keys.py holds the subset the
# generated entries use, written out independently.
_MAPPINGS = {
    "builtin_interfaces": (("Time", "Time"),),
    "geometry_msgs": (("Point", "Vector3d"), ("Pose", "Pose"), ("PoseArray", "Pose_V"), ("PoseStamped", "Pose"),
                      ("PoseWithCovariance", "PoseWithCovariance"), ("Quaternion", "Quaternion"),
                      ("Transform", "Pose"), ("TransformStamped", "Pose"), ("Twist", "Twist"),
                      ("TwistWithCovariance", "TwistWithCovariance"), ("Wrench", "Wrench"), ("Vector3", "Vector3d")),
    "gps_msgs": (("GPSFix", "NavSat"),),
    "marine_acoustic_msgs": (("Dvl", "DVLVelocityTracking"),),
    "nav_msgs": (("Odometry", "Odometry"), ("Odometry", "OdometryWithCovariance")),
    "rcl_interfaces": (("ParameterValue", "Any"),),
    "ros_gz_interfaces": (("Contact", "Contact"), ("Contacts", "Contacts"), ("Dataframe", "Dataframe"),
                          ("Entity", "Entity"), ("Float32Array", "Float_V"), ("GuiCamera", "GUICamera"),
                          ("JointWrench", "JointWrench"), ("Light", "Light"), ("ParamVec", "Param"),
                          ("ParamVec", "Param_V"), ("StringVec", "StringMsg_V"), ("TrackVisual", "TrackVisual"),
                          ("VideoRecord", "VideoRecord")),
    "rosgraph_msgs": (("Clock", "Clock"),),
    "sensor_msgs": (("BatteryState", "BatteryState"), ("CameraInfo", "CameraInfo"),
                    ("FluidPressure", "FluidPressure"), ("Image", "Image"), ("Imu", "IMU"), ("JointState", "Model"),
                    ("Joy", "Joy"), ("LaserScan", "LaserScan"), ("MagneticField", "Magnetometer"),
                    ("NavSatFix", "NavSat"), ("PointCloud2", "PointCloudPacked")),
    "std_msgs": (("Bool", "Boolean"), ("ColorRGBA", "Color"), ("Empty", "Empty"), ("Float32", "Float"),
                 ("Float64", "Double"), ("Header", "Header"), ("Int32", "Int32"), ("UInt32", "UInt32"),
                 ("String", "StringMsg")),
    "tf2_msgs": (("TFMessage", "Pose_V"),),
    "trajectory_msgs": (("JointTrajectory", "JointTrajectory"),),
}
TYPES = frozenset((f"{pkg}/msg/{r}", f"gz.msgs.{g}") for pkg, pairs in _MAPPINGS.items() for r, g in pairs)


@record
class ExtraBridge:
    """One ``extra_bridge_topics`` entry: both topics absolute, ``index`` and ``line`` for messages."""

    index: int
    line: int | None
    ros_topic: str
    gz_topic: str
    ros_type: str
    gz_type: str
    direction: str
    lazy: bool | None  # None: not written (ros_gz_bridge's default, false)


def _under(namespace: str, topic: str) -> str:
    return topic if topic.startswith("/") else f"/{namespace}/{topic}"


def extra_bridge_topics(r, data, namespace: str) -> tuple:
    """The validated ``extra_bridge_topics`` of config mapping ``data`` (``r``: its yamlio Reader)."""
    items = r.sequence(data, "extra_bridge_topics", "")
    if len(items) > lim.MAX_PARTS:
        raise r.error("extra_bridge_topics", f"{len(items)} entries: more than the {lim.MAX_PARTS} a vehicle may "
                      "have", node=data, field="extra_bridge_topics")
    out = []
    for i, e in enumerate(items):
        key = f"extra_bridge_topics[{i}]"
        e = r.mapping(e, key, node=data, field="extra_bridge_topics")
        r.check_keys(e, set(KEYS), key)
        for side in ("ros_topic_name", "gz_topic_name"):
            if "topic_name" in e and side in e:
                raise r.error(f"{key}.{side}", f"'topic_name' and '{side}' are mutually exclusive (ros_gz_bridge "
                              "refuses the entry)", "write topic_name for both sides, or ros_topic_name and/or "
                              "gz_topic_name", node=e, field=side)
        for t in ("ros_type_name", "gz_type_name"):
            if t not in e:
                raise r.error(f"{key}.{t}", "required key is missing: ros_gz_bridge needs both ros_type_name "
                              "and gz_type_name", "e.g. ros_type_name: std_msgs/msg/Float64, gz_type_name: "
                              "gz.msgs.Double", node=e)
        if not any(k in e for k in ("topic_name", "ros_topic_name", "gz_topic_name")):
            raise r.error(f"{key}.topic_name", "no topic: give topic_name, or ros_topic_name and/or gz_topic_name",
                          node=e)
        ros_type, gz_type = r.string(e, "ros_type_name", key), r.string(e, "gz_type_name", key)
        if (ros_type, gz_type) not in TYPES:
            known = sorted(g for rt, g in TYPES if rt == ros_type) or None
            hint = (f"ros_gz_bridge converts {ros_type} only to {', '.join(known)}" if known else
                    "see ros_gz_bridge's README for the pairs it converts (e.g. std_msgs/msg/Float64 and "
                    "gz.msgs.Double)")
            field = "gz_type_name" if known else "ros_type_name"
            raise r.error(f"{key}.{field}", f"ros_gz_bridge has no conversion between {ros_type!r} and "
                          f"{gz_type!r}", hint, node=e, field=field)
        names = {k: r.topic(e, k, key, absolute=True) for k in ("topic_name", "ros_topic_name", "gz_topic_name")}
        ros = names["topic_name"] or names["ros_topic_name"] or names["gz_topic_name"]
        gz = names["topic_name"] or names["gz_topic_name"] or names["ros_topic_name"]
        out.append(ExtraBridge(index=i, line=getattr(e, "line", None), ros_topic=_under(namespace, ros),
                               gz_topic=_under(namespace, gz), ros_type=ros_type, gz_type=gz_type,
                               direction=r.string(e, "direction", key, default="BIDIRECTIONAL", choices=DIRECTIONS),
                               lazy=r.boolean(e, "lazy", key)))
    return tuple(out)
