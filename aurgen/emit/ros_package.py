"""A ROS 2 description package per vehicle: ``<output>/ros/<vehicle>_description/`` (``aurgen build``).

An ament_cmake package, so that ``colcon build`` in a workspace holding it installs it and
``ros2 launch <vehicle>_description display.launch.py`` shows the vehicle in RViz:

- ``package.xml`` (format 3: exec_depend robot_state_publisher, joint_state_publisher, rviz2,
  launch, launch_ros, ament_index_python; joint_state_publisher_gui only for ``gui:=true``);
- ``CMakeLists.txt``: installs ``config/ launch/ rviz/ urdf/`` (and ``meshes/``) under ``share/<package>/``;
- ``urdf/<vehicle>.urdf``: the very bytes of ``<output>/<vehicle>/<vehicle>.urdf``, but for its mesh
  files, which RViz finds through the package: ``package://<package>/meshes/<name>`` where the
  vehicle folder's copy has ``meshes/<name>`` (aurgen.emit.meshes);
- ``meshes/``: the mesh files the URDF uses (when it uses any), the bytes of the vehicle folder's;
- ``launch/display.launch.py``: robot_state_publisher with that URDF, a joint state publisher,
  rviz2 with the RViz config (paths from ``get_package_share_directory``);
- ``config/<vehicle>_bridge.yaml``: the very bytes of ``<output>/ros/<vehicle>_bridge.yaml``;
- ``rviz/<vehicle>.rviz``: fixed frame the base link, a RobotModel from ``/robot_description``, TF.

Every file is stamped with the config's file name and sha256: the XML ones with the header
line and specs comment (aurgen.compose.stamp), the Python, CMake and YAML ones with the header
line as a ``#`` comment. The package name is the vehicle name in lower case (REP 144; catkin_pkg
warns on capitals).
"""

from __future__ import annotations

import re

from aurgen import __version__
from aurgen.compose import stamp
from aurgen.emit import meshes
from aurgen.emit.render import context, environment, render

# what the package's CMakeLists.txt installs (each a folder of the package)
FOLDERS = ("config", "launch", "rviz", "urdf")
MAINTAINER = ("aurgen", "aurgen@example.com")  # generated: no person maintains it (catkin_pkg needs an email)
LICENSE = "Apache-2.0"  # aurgen's own (pyproject.toml)


def package_name(vehicle) -> str:
    """The package's name: ``<vehicle name in lower case>_description``."""
    return f"{vehicle.name.lower()}_description"


def _version() -> str:
    m = re.match(r"\d+\.\d+\.\d+", __version__)  # package.xml wants major.minor.patch
    return m.group(0) if m else "0.0.0"


def files(vehicle, urdf: str, bridge: str) -> dict[str, str | bytes]:
    """Path inside the package -> stamped text (a mesh: its bytes). ``urdf``: the vehicle's stamped
    URDF as built (its header and specs comment stamp ``package.xml`` too); ``bridge``: its bridge YAML."""
    head, rest = urdf.split("\n", 1)
    comment = rest[:rest.index(stamp.CLOSE) + len(stamp.CLOSE)]
    pkg = package_name(vehicle)
    mesh_set = meshes.set_files(vehicle)
    if mesh_set:  # the URDF again, its meshes found through the package
        urdf = stamp.stamp(render("urdf", vehicle, dict(context(vehicle), urdf_mesh_prefix=f"package://{pkg}/")),
                           head, comment)
    paths = {"urdf": f"urdf/{vehicle.name}.urdf", "rviz": f"rviz/{vehicle.name}.rviz",
             "bridge": f"config/{vehicle.name}_bridge.yaml", "launch": "launch/display.launch.py"}
    ctx = {"package": pkg, "vehicle": vehicle.name, "base": vehicle.base, "header": stamp.hash_comment(vehicle),
           "config": stamp.config_label(vehicle.source), "version": _version(), "maintainer": MAINTAINER[0],
           "email": MAINTAINER[1], "license": LICENSE,
           "install": list(FOLDERS) + ([meshes.FOLDER] if mesh_set else []),
           "urdf": paths["urdf"], "rviz": paths["rviz"]}
    env = environment()
    package_xml = env.get_template("ros_package.xml.j2").render(**ctx)
    return {
        "package.xml": stamp.stamp(package_xml, head, comment),
        "CMakeLists.txt": env.get_template("ros_CMakeLists.txt.j2").render(**ctx),
        paths["urdf"]: urdf,
        paths["launch"]: env.get_template("ros_display.launch.py.j2").render(**ctx),
        paths["bridge"]: bridge,
        paths["rviz"]: env.get_template("ros_display.rviz.j2").render(**ctx),
        **mesh_set,
    }
