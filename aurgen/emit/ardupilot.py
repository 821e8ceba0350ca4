"""ArduPilot SITL outputs: each thruster's servo channel, the SDF's ArduPilotPlugin block, the parameter file.

The chassis' wiring (catalog ``ardupilot:``, aurgen.config.autopilot) names thruster slots; the
thruster filling slot ``s`` of the base is the one named ``s`` (a slot fill's default name).

**The Gazebo block** (ardupilot_gazebo ``src/ArduPilotPlugin.cc``, commit 082a0fe231f6: ``Configure``,
``LoadControlChannels``, ``UpdateMotorCommands``, ``ApplyMotorForces``, ``PreUpdate``,
``CreateStateJSON``), written when the config says ``ardupilot: true``:

- ``<control channel="n-1">`` per thruster wired to SERVOn (the packet's 0-based pwm index), type
  COMMAND: the plugin publishes ``multiplier·(clamp((pwm − servo_min)/(servo_max − servo_min), 0, 1)
  + offset)`` as a gz.msgs.Double on ``cmd_topic``, which is the topic the thruster's gz-maritime
  Thruster subscribes to (``/<ns>/<name>/cmd``, normalised: [-1, 1] onto [min_thrust_cmd,
  max_thrust_cmd], gz-maritime ``gz_thruster/src/Thruster.cc`` ``OnCmdThrust``). ``offset`` puts
  the trim at 0 and ``multiplier`` the farther band end at ±1 (1100/1500/1900 µs: −0.5 and 2).
  Gazebo's thrust is then linear on each side of the trim; the thrust curve is the MJCF's.
- ``gazeboXYZToNED`` 0 0 0 π 0 π/2 (rad): aurgen's worlds are ENU, ArduPilot's NED;
  ``modelXYZToAirplaneXForwardZDown`` 0 0 0 π 0 0: aurgen's bodies are REP-103 (x forward, y left,
  z up), ArduPilot's forward-right-down. The plugin composes ``gazeboXYZToNED⁻¹ · pose ·
  modelXYZToAirplaneXForwardZDown``.
- ``imuName`` names a sensor the plugin can hear: it subscribes to the sensor's scoped name +
  ``/imu``, which gz-sim's Imu system publishes on only when the sensor has no ``<topic>``
  (gz-sim ``src/systems/imu/Imu.cc`` ``ImuPrivate::AddSensor``), and reads its data as
  forward-right-down. The chassis' ``imu`` sensor has a topic (for ROS), so the block adds
  ``ardupilot_imu`` beside it on the same link: the same point and noise, turned π about x,
  no topic, IMU_RATE Hz.
- ``fdm_port_in`` 9002 + 10·N for ``ardupilot: {instance: N}`` (``true``: N = 0): ``sim_vehicle.py -I N``
  sends its servo packets there (ArduPilot ``libraries/AP_HAL_SITL/SITL_cmdline.cpp``: ``-I`` adds
  10·N to ``_simin_port``). The plugin's reply port is the sender's (``fdm_port_out`` is deprecated and
  ignored), so nothing else is per instance.

**Video** (ardupilot_gazebo ``src/GstCameraPlugin.cc``, same commit, ``GstCameraPlugin::Configure``,
``PreUpdate``, ``OnImage``): each camera sensor (``camera``, ``rgbd_camera``) carries a
``<plugin filename="GstCameraPlugin" name="GstCameraPlugin">`` inside its ``<sensor>`` (a sensor
system: Configure refuses an entity that is not a sensor), streaming H.264 over RTP/UDP
(``use_basic_pipeline``: what QGroundControl's "UDP h.264 Video Stream" and the README's
``gst-launch-1.0 udpsrc port=5600 ... rtph264depay`` receive) to 127.0.0.1:``5600 + 10·N + k``, k the
camera's place (0, 1, …) in the SDF (links in order, a link's sensors in order), at most
VIDEO_PORTS cameras. The image topic is the sensor's own for a camera; an RGB-D camera publishes its
colour image on ``<topic>/image`` (gz-sensors RgbdCameraSensor), written as ``image_topic``. The
stream starts when ``<sensor topic>/enable_streaming`` gets a gz.msgs.Boolean true.
"""

from __future__ import annotations

import math

from aurgen.core import spatial
from aurgen.core.errors import BuildError

FDM_ADDR = "127.0.0.1"
FDM_PORT_IN = 9002  # ArduPilot's JSON backend sends to 9002 + 10·instance
PORT_STRIDE = 10  # ports per SITL instance (sim_vehicle.py -I N adds 10·N to each of its ports)
VIDEO_PORT = 5600  # GstCameraPlugin's default udp_port, QGroundControl's default video port
VIDEO_PORTS = PORT_STRIDE  # cameras per instance: instance N streams on 5600 + 10·N … 5609 + 10·N
STREAMED = ("camera", "rgbd_camera")  # the sensor types whose images are RGB (R8G8B8), as OnImage reads them
IMU_NAME = "ardupilot_imu"
IMU_RATE = 1000.0  # Hz: at least the worlds' step rate (0.002 s), as ardupilot_gazebo's examples
GAZEBO_XYZ_TO_NED = (0.0, 0.0, 0.0, math.pi, 0.0, math.pi / 2)
MODEL_XYZ_TO_AIRPLANE = (0.0, 0.0, 0.0, math.pi, 0.0, 0.0)
PARM_SUFFIX = "_sitl.parm"
RANGEFINDER_SITL = 100  # RNGFND1_TYPE 100: SITL (ArduPilot libraries/AP_RangeFinder/AP_RangeFinder_Params.cpp @Values)
ROTATION_PITCH_270 = 25  # RNGFND1_ORIENT 25: down (the same file; AP_Math rotations.h ROTATION_PITCH_270)


def parm_name(vehicle) -> str:
    """The parameter file's name in the vehicle's folder: ``<vehicle>_sitl.parm``."""
    return f"{vehicle.name}{PARM_SUFFIX}"


def servo_channels(vehicle) -> dict:
    """Thruster name → its SERVOn (1-based), when the base part declares a wiring whose every slot
    holds a thruster of that name; else {}."""
    w = vehicle.wiring
    if w is None:
        return {}
    names = {t.name for t in vehicle.thrusters}
    if any(s.slot not in names for s in w.servos):
        return {}
    return {s.slot: s.servo for s in w.servos}


def check(vehicle) -> None:
    """Refuse ``ardupilot: true`` a vehicle cannot honour: no wiring, a wired slot with no thruster
    of its name, or no IMU on the base link. BuildError naming the config, the key and what to do."""
    if not vehicle.ardupilot:
        return
    base = vehicle.link(vehicle.base).part_type
    if vehicle.wiring is None:
        raise BuildError(f"{vehicle.source}: ardupilot: true, but the base part {base!r} declares no ArduPilot "
                         "wiring (its catalog entry has no 'ardupilot:' key): add one (servos per thruster slot, "
                         "see aurgen.config.autopilot) or drop 'ardupilot: true'")
    names = {t.name for t in vehicle.thrusters}
    for s in vehicle.wiring.servos:
        if s.slot not in names:
            raise BuildError(f"{vehicle.source}: ardupilot: true, but {base!r} wires SERVO{s.servo} to slot "
                             f"{s.slot!r} and no thruster of this vehicle is named {s.slot!r} (the slot is empty, "
                             "or its entry renames the part with name:): fill the slot with a propeller under "
                             "its own name, or drop 'ardupilot: true'")
    cams = streamed_cameras(vehicle)
    if len(cams) > VIDEO_PORTS:
        raise BuildError(f"{vehicle.source}: ardupilot: true, but the vehicle has {len(cams)} cameras and an instance "
                         f"streams at most {VIDEO_PORTS} (UDP {VIDEO_PORT} + 10·instance + 0..{VIDEO_PORTS - 1}): "
                         "empty a camera slot, or drop 'ardupilot: true'")
    if _base_imu(vehicle) is None:
        raise BuildError(f"{vehicle.source}: ardupilot: true, but the base link {vehicle.base!r} carries no IMU "
                         f"sensor (ArduPilot's plugin needs one): give {base!r} a sensors: entry of type imu, or "
                         "drop 'ardupilot: true'")


def fdm_port(vehicle) -> int:
    """The UDP port ArduPilotPlugin binds (``fdm_port_in``) for the config's instance N: 9002 + 10·N."""
    return FDM_PORT_IN + PORT_STRIDE * vehicle.ardupilot_instance


def streamed_cameras(vehicle) -> list:
    """The sensors that carry GstCameraPlugin, in SDF order (links in order, then placement order)."""
    order = {link.name: i for i, link in enumerate(vehicle.links)}
    cams = [s for s in vehicle.sensors if s.type in STREAMED]
    return sorted(cams, key=lambda s: order.get(s.link, len(order)))  # stable: placement order within a link


def video_ctx(vehicle) -> dict:
    """``"<link>::<sensor>"`` → the template's GstCameraPlugin block (``udp_host``, ``udp_port``,
    ``image_topic`` or None for the sensor's own topic); {} without ``ardupilot``."""
    if not vehicle.ardupilot:
        return {}
    base = VIDEO_PORT + PORT_STRIDE * vehicle.ardupilot_instance
    return {f"{s.link}::{s.name}": {"udp_host": FDM_ADDR, "udp_port": base + k,
                                    "image_topic": f"{s.topic}/image" if s.type == "rgbd_camera" else None}
            for k, s in enumerate(streamed_cameras(vehicle))}


def _base_imu(vehicle):
    return next((s for s in vehicle.sensors if s.type == "imu" and s.link == vehicle.base), None)


def command_map(pwm_min: float, pwm_trim: float, pwm_max: float) -> tuple[float, float]:
    """(offset, multiplier) sending ``pwm_trim`` to 0 and the farther end of the band to ±1 in
    ArduPilotPlugin's ``multiplier·(raw + offset)``, raw = (pwm − min)/(max − min)."""
    offset = -(pwm_trim - pwm_min) / (pwm_max - pwm_min)
    return offset, 1.0 / max(-offset, 1.0 + offset)


def plugin_ctx(vehicle, thrusters: list) -> dict | None:
    """The template's ArduPilotPlugin block (``thrusters``: render.thruster_ctx's), or None when the
    config does not ask for it. Call ``check`` first."""
    if not vehicle.ardupilot:
        return None
    w = vehicle.wiring
    servo = servo_channels(vehicle)
    offset, multiplier = command_map(w.pwm_min, w.pwm_trim, w.pwm_max)
    controls = [{"channel": servo[t["name"]] - 1, "joint": t["joint"], "topic": t["gz_topic"],
                 "servo_min": float(w.pwm_min), "servo_max": float(w.pwm_max), "offset": offset,
                 "multiplier": multiplier} for t in thrusters if t["name"] in servo]
    imu = _base_imu(vehicle)
    R = spatial.matmul(spatial.rot_rpy(imu.rpy), spatial.rot_rpy((math.pi, 0.0, 0.0)))
    return {"fdm_addr": FDM_ADDR, "fdm_port_in": fdm_port(vehicle), "video": video_ctx(vehicle),
            "have_32_channels": int(max(servo.values()) > 16),
            "gazebo_xyz_to_ned": GAZEBO_XYZ_TO_NED, "model_xyz_to_airplane": MODEL_XYZ_TO_AIRPLANE,
            "imu_scoped": f"{imu.link}::{IMU_NAME}",
            "imu": {"name": IMU_NAME, "link": imu.link, "xyz": imu.xyz, "rpy": tuple(spatial.rpy_of(R)),
                    "rate": IMU_RATE, "p": dict(imu.params)},
            "controls": sorted(controls, key=lambda c: c["channel"])}


def _fmt(v) -> str:
    """A parameter value as ArduPilot's files write it: whole numbers bare, others as the shortest repr."""
    v = float(v)
    return str(int(v)) if v.is_integer() else repr(v)


def parm_text(vehicle, header_comment: str) -> str | None:
    """The ``<vehicle>_sitl.parm`` text (``header_comment``: the '#' header line), or None when the
    vehicle has no usable wiring (servo_channels empty). Deterministic: catalog order, no time."""
    w = vehicle.wiring
    servo = servo_channels(vehicle)
    if not servo:
        return None
    n = vehicle.ardupilot_instance
    lines = [header_comment,
             f"# ArduPilot parameters for {vehicle.name}'s SITL ({w.sim_vehicle}, frame {w.frame}): the chassis'",
             "# wiring as the real vehicle ships, for aurgen's MuJoCo bridge and Gazebo alike. Loaded after",
             "# ArduPilot's defaults for the frame, e.g. from the vehicle's folder:",
             f"#   sim_vehicle.py -v {w.sim_vehicle} -f {w.frame} --model JSON{f' -I {n}' if n else ''} "
             f"--add-param-file={parm_name(vehicle)}"]
    if n:
        video = f"; its cameras stream from UDP {VIDEO_PORT + PORT_STRIDE * n}" if video_ctx(vehicle) else ""
        lines.append(f"# (instance {n}: ArduPilot's JSON backend sends to UDP {fdm_port(vehicle)}, where model.sdf's "
                     f"ArduPilotPlugin listens{video})")
    lines += [f"{name} {_fmt(v)}" for name, v in w.params]
    for s in w.servos:
        lines += [f"SERVO{s.servo}_FUNCTION {s.function}", f"SERVO{s.servo}_MIN {w.pwm_min}",
                  f"SERVO{s.servo}_MAX {w.pwm_max}", f"SERVO{s.servo}_TRIM {w.pwm_trim}"]
    if rangefinders(vehicle):
        lines += ["# a downward echosounder: ArduPilot's SITL rangefinder, fed by the physics' rng_1",
                  f"RNGFND1_TYPE {RANGEFINDER_SITL}", f"RNGFND1_ORIENT {ROTATION_PITCH_270}"]
    return "\n".join(lines) + "\n"


def rangefinders(vehicle) -> list:
    """The downward echosounders ArduPilot's SITL rangefinder reads (rng_1 …), as (site, beam
    direction in the site's frame): one-ray range sensors looking down (``_downward``) whose frame is
    a site of the MJCF (``<instance>_<frame>``, the sensor's pose: the Ping2's ``ping_beam``)."""
    sites = {f.name for f in vehicle.frames}
    out = []
    for s in vehicle.sensors:
        site = s.frame_id.split("/", 1)[-1]
        if site in sites and _downward(vehicle, s):
            p = dict(s.params)
            h, v = float(p["h_min"]), float(p["v_min"])
            out.append((site, (math.cos(v) * math.cos(h), math.cos(v) * math.sin(h), math.sin(v))))
    return sorted(out)


def _downward(vehicle, sensor) -> bool:
    """A one-ray range sensor (an echosounder: gpu_lidar, one sample each way) whose ray points down
    in the base link (within 2.6 deg: z component at most -0.999), the vehicle's joints at zero."""
    p = dict(sensor.params)
    if sensor.type != "gpu_lidar" or p.get("h_samples") != 1 or p.get("v_samples") != 1:
        return False
    h, v = float(p["h_min"]), float(p["v_min"])
    ray = (math.cos(v) * math.cos(h), math.cos(v) * math.sin(h), math.sin(v))
    R = spatial.rot_rpy(sensor.rpy)
    parent = {j.child: j for j in vehicle.joints}
    link = sensor.link
    while link in parent:  # up the tree to the base: each joint's rotation in its parent
        j = parent[link]
        R = spatial.matmul(spatial.rot_rpy(j.rpy), R)
        link = j.parent
    return float(spatial.matvec(R, ray)[2]) <= -0.999
