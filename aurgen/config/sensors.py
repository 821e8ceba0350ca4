"""Sensors: a part's ``sensors:`` catalog entries, placed on a vehicle, as gz-sim sensors.

A catalog entry declares each sensor of the part (docs/config.md, "sensors"):

    sensors:
      ping:                       # key: the sensor's name on a base part, else the instance's
        type: gpu_lidar           # one of SENSOR_TYPES
        frame: beam               # optional: a frame of the part (else the part's origin)
        ros_frame: optical        # optional: the part frame its messages are stamped with (else ``frame``;
                                  # a camera's optical frame, z forward, REP-103 / REP-105)
        quantity: range           # optional: the topic's last segment (else the type's default)
        rate: 10                  # Hz
        source: "..."             # required: where the figures come from
        <the type's parameters>   # SENSOR_TYPES[type].params, SI units, angles in rad

Names and topics (the reference convention, docs/sources.md §1a/§5): a sensor
on the vehicle's base part is named by its key (``imu``); a part with one sensor names
it after the instance (``ping``, ``camera``); a part with several, ``<instance>_<key>``.
The topic is ``/<namespace>/<name>/<quantity>``, and the message's ``frame_id`` is
``<namespace>/<link>``, the link the sensor sits on in the URDF (the part's frame link
``<instance>_<frame>``, or the instance's link) under the TF prefix the generated launch
file gives robot_state_publisher (so several vehicles share one TF tree).
"""

from __future__ import annotations

from aurgen.core import limits
from aurgen.core.records import record

ZERO3 = (0.0, 0.0, 0.0)


@record
class SensorType:
    """How one kind of sensor is written.

    ``sdf``: the SDF sensor type (``custom`` with ``gz_type`` for gz-sim's DVL);
    ``quantity``: default last topic segment; ``topics``: (suffix, gz msg, ROS msg) of
    what it publishes, suffix "" = the sensor's own topic, else a sub-topic of its
    topic's parent (camera_info) or of the topic (rgbd); ``params``: required parameter
    keys; ``optional``: parameter keys with defaults; ``system``: the world systems it
    needs (filename, name).
    """

    sdf: str
    quantity: str
    topics: tuple
    params: tuple
    optional: dict
    systems: tuple
    gz_type: str | None = None


SENSORS_SYSTEM = ("gz-sim-sensors-system", "gz::sim::systems::Sensors")
SENSOR_TYPES = {
    "camera": SensorType(
        "camera", "image",
        (("", "gz.msgs.Image", "sensor_msgs/msg/Image"),
         ("../camera_info", "gz.msgs.CameraInfo", "sensor_msgs/msg/CameraInfo")),
        ("hfov", "width", "height", "near", "far"), {"noise_stddev": 0.0}, (SENSORS_SYSTEM,)),
    "rgbd_camera": SensorType(
        "rgbd_camera", "rgbd",
        (("/image", "gz.msgs.Image", "sensor_msgs/msg/Image"),
         ("/depth_image", "gz.msgs.Image", "sensor_msgs/msg/Image"),
         ("/points", "gz.msgs.PointCloudPacked", "sensor_msgs/msg/PointCloud2"),
         ("/camera_info", "gz.msgs.CameraInfo", "sensor_msgs/msg/CameraInfo")),
        ("hfov", "width", "height", "near", "far"), {"noise_stddev": 0.0}, (SENSORS_SYSTEM,)),
    "gpu_lidar": SensorType(
        "gpu_lidar", "scan", (("", "gz.msgs.LaserScan", "sensor_msgs/msg/LaserScan"),),
        ("h_samples", "h_min", "h_max", "range_min", "range_max", "range_resolution"),
        {"v_samples": 1, "v_min": 0.0, "v_max": 0.0, "noise_stddev": 0.0}, (SENSORS_SYSTEM,)),
    "dvl": SensorType(
        "custom", "velocity", (("", "gz.msgs.DVLVelocityTracking", "marine_acoustic_msgs/msg/Dvl"),),
        ("beam_tilt", "beam_aperture", "range_min", "range_max"), {"noise_stddev": 0.0},
        (SENSORS_SYSTEM, ("gz-sim-dvl-system", "gz::sim::systems::DopplerVelocityLogSystem")), gz_type="dvl"),
    "imu": SensorType(
        "imu", "data", (("", "gz.msgs.IMU", "sensor_msgs/msg/Imu"),),
        (), {"gyro_noise_stddev": 0.0, "accel_noise_stddev": 0.0},
        (("gz-sim-imu-system", "gz::sim::systems::Imu"),)),
    "navsat": SensorType(
        "navsat", "fix", (("", "gz.msgs.NavSat", "sensor_msgs/msg/NavSatFix"),),
        (), {"horizontal_noise_stddev": 0.0, "vertical_noise_stddev": 0.0},
        (("gz-sim-navsat-system", "gz::sim::systems::NavSat"),)),
    "magnetometer": SensorType(
        "magnetometer", "field", (("", "gz.msgs.Magnetometer", "sensor_msgs/msg/MagneticField"),),
        (), {"noise_stddev": 0.0}, (("gz-sim-magnetometer-system", "gz::sim::systems::Magnetometer"),)),
    "air_pressure": SensorType(
        "air_pressure", "pressure", (("", "gz.msgs.FluidPressure", "sensor_msgs/msg/FluidPressure"),),
        (), {"noise_stddev": 0.0, "reference_altitude": 0.0},
        (("gz-sim-air-pressure-system", "gz::sim::systems::AirPressure"),)),
}
SENSOR_KEYS = {"type", "frame", "ros_frame", "quantity", "rate", "source"}

# Not a catalog type: the depth camera aurgen adds beside an rgbd camera whose images are stamped
# with an optical frame. gz-sensors 8 (Harmonic) src/RgbdCameraSensor.cc stamps all four of its
# messages with one frame (CreateCameras: <optical_frame_id>, else the sensor's frame id; the cloud's
# InitPointCloudPacked too), but the cloud's data is in the sensor's own axes, x forward
# (test/integration/rgbd_camera.cc: a point's x is its depth, y grows to the left). This sensor's
# cloud is stamped with the body frame; its depth image and camera_info stay in Gazebo, unbridged.
CLOUD = "rgbd_cloud"
INTERNAL_TYPES = {CLOUD: SensorType(
    "depth_camera", "points", (("/points", "gz.msgs.PointCloudPacked", "sensor_msgs/msg/PointCloud2"),),
    ("hfov", "width", "height", "near", "far"), {"noise_stddev": 0.0}, (SENSORS_SYSTEM,))}


def sensor_type(kind: str) -> SensorType:
    """The SensorType of a catalog sensor type or of aurgen's own (INTERNAL_TYPES)."""
    return SENSOR_TYPES.get(kind) or INTERNAL_TYPES[kind]


@record
class SensorSpec:
    """One sensor of a catalog part: pose in the part frame (its frame's, if any)."""

    key: str
    type: str
    frame: str | None
    quantity: str
    rate: float
    source: str
    params: tuple  # ((name, value), ...) in SENSOR_TYPES order: required, then optional
    ros_frame: str | None = None


@record
class Sensor:
    """A sensor placed on a vehicle: on ``link`` at (xyz, rpy) in that link's frame.

    ``topic`` is the full gz topic (``/<ns>/<name>/<quantity>``); ``frame_id`` what its
    messages are stamped with, ``<ns>/<URDF link>``.
    """

    name: str
    type: str
    part_type: str
    link: str
    frame_id: str
    xyz: tuple
    rpy: tuple
    rate: float
    topic: str
    source: str
    params: tuple
    ros_topic: str | None = None  # the ROS side's topic, when an entry's ros_topic/gz_topic splits them
    instance: str | None = None  # the part instance carrying it
    cloud_apart: bool = False  # an rgbd camera whose cloud a CLOUD sensor beside it publishes

    def param(self, key: str) -> float:
        return dict(self.params)[key]


def parse(r, data: dict, frames) -> tuple:
    """The ``sensors:`` mapping of a catalog entry (``r``: its yamlio Reader) as SensorSpecs."""
    node = data.get("sensors") or {}
    r.mapping(node, "sensors", node=data, field="sensors")
    frame_names = {f.name for f in frames}
    out = []
    for key, s in node.items():
        k = f"sensors.{key}"
        r.as_name(key, k, node=node, field=key)
        s = r.mapping(s, k, node=node, field=key)
        kind = r.string(s, "type", k, required=True, choices=tuple(SENSOR_TYPES))
        st = SENSOR_TYPES[kind]
        r.check_keys(s, SENSOR_KEYS | set(st.params) | set(st.optional), k, required=("type", "rate", "source"))
        frame = r.string(s, "frame", k)
        ros_frame = r.string(s, "ros_frame", k)
        for field, value in (("frame", frame), ("ros_frame", ros_frame)):
            if value is not None and value not in frame_names:
                raise r.error(f"{k}.{field}", f"'{value}' is not a frame of this part (frames: {sorted(frame_names)})",
                              node=s, field=field)
        quantity = s.get("quantity", st.quantity)
        r.as_name(quantity, f"{k}.quantity", node=s, field="quantity")
        params = [(p, r.number(s, p, k, required=True, magnitude=limits.NUMBER_MAX)) for p in st.params]
        params += [(p, r.number(s, p, k, default=float(d), magnitude=limits.NUMBER_MAX))
                   for p, d in st.optional.items()]
        out.append(SensorSpec(str(key), kind, frame, str(quantity),
                              r.number(s, "rate", k, positive=True, magnitude=limits.NUMBER_MAX),
                              r.string(s, "source", k, required=True), tuple(params), ros_frame))
    return tuple(out)


def collect(asm, namespace: str, base: str) -> tuple:
    """The vehicle's sensors, in placement order, from its assembled instances."""
    out = []
    for inst in asm.instances:
        specs = inst.part.sensors
        frames = {f.name: f for f in inst.part.frames}
        for spec in specs:
            if inst.name == base:
                name = spec.key
            elif len(specs) == 1:
                name = inst.name
            else:
                name = f"{inst.name}_{spec.key}"
            if spec.frame is not None:
                fr = frames[spec.frame]
                xyz, rpy, link = fr.xyz, fr.rpy, f"{inst.name}_{spec.frame}"
            else:
                xyz, rpy, link = ZERO3, ZERO3, inst.name
            body = f"{namespace}/{link}"
            if spec.ros_frame is not None:
                link = f"{inst.name}_{spec.ros_frame}"
            frame_id = f"{namespace}/{link}"
            tb = asm.topics.get(inst.name)
            gz = _topic(namespace, name, spec, inst.name, tb.gz if tb else None)
            ros = _topic(namespace, name, spec, inst.name, tb.ros if tb else None)
            apart = spec.type == "rgbd_camera" and frame_id != body
            out.append(Sensor(name, spec.type, inst.part.type, inst.name, frame_id, tuple(xyz), tuple(rpy),
                              spec.rate, gz, spec.source, spec.params, None if ros == gz else ros, inst.name,
                              apart))
            if apart:
                # its cloud from a depth camera at the same pose, stamped with the body frame; Gazebo
                # topics under <topic>/cloud (depth image <topic>/cloud/depth, points .../depth/points,
                # camera_info <topic>/cloud/camera_info: CameraSensor::AdvertiseInfo's parent + /camera_info)
                out.append(Sensor(f"{name}_cloud", CLOUD, inst.part.type, inst.name, body, tuple(xyz), tuple(rpy),
                                  spec.rate, f"{gz}/cloud/depth", spec.source, spec.params, ros, inst.name))
    return tuple(out)


def _topic(namespace: str, name: str, spec: SensorSpec, instance: str, base: str | None) -> str:
    """``/<ns>/<name>/<quantity>``; an entry's topic ``base`` stands for the instance's name in ``<name>``
    (a leading '/': absolute, no namespace)."""
    if base is not None:
        name = base + name[len(instance):] if name.startswith(instance) else base
    root = name if name.startswith("/") else f"/{namespace}/{name}"
    return root + ("" if spec.type == "rgbd_camera" else f"/{spec.quantity}")


def _sub(topic: str, suffix: str) -> str:
    if suffix == "":
        return topic
    if suffix.startswith("../"):
        return topic.rsplit("/", 1)[0] + "/" + suffix[3:]
    return topic + suffix


def _topics(sensor: Sensor) -> tuple:
    return tuple(t for t in sensor_type(sensor.type).topics if not (sensor.cloud_apart and t[0] == "/points"))


def published(sensor: Sensor) -> list[tuple[str, str, str | None]]:
    """(gz topic, gz message type, ROS message type or None) of everything of ``sensor`` the bridge carries."""
    return [(_sub(sensor.topic, suffix), gz, ros) for suffix, gz, ros in _topics(sensor)]


def bridged(sensor: Sensor) -> list[tuple[str, str, str, str | None]]:
    """(gz topic, ROS topic, gz message type, ROS message type or None) of everything ``sensor`` publishes."""
    ros_root = sensor.ros_topic or sensor.topic
    return [(_sub(sensor.topic, suffix), _sub(ros_root, suffix), gz, ros)
            for suffix, gz, ros in _topics(sensor)]


def systems(sensor_types) -> list[tuple[str, str]]:
    """The world systems (filename, name) the given sensor types need, in a fixed order."""
    seen = []
    for kind in SENSOR_TYPES:
        if kind in sensor_types:
            for s in SENSOR_TYPES[kind].systems:
                if s not in seen:
                    seen.append(s)
    return seen
