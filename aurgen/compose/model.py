"""The resolved model: plain, format-neutral dataclasses every emitter reads.

All poses are (xyz m, rpy rad) relative to the parent named in the record;
every inertia is about the stated CoM in the stated link's axes (kg·m²).
"""

from __future__ import annotations

from functools import cached_property

from aurgen.config.catalog import Drive, Limits
from aurgen.core.records import record
from aurgen.config.shapes import Shape


@record
class Geom:
    """A named shape posed in its link frame."""

    name: str
    shape: Shape
    xyz: tuple
    rpy: tuple
    rgba: tuple | None = None  # a visual's own colour (catalog ``rgba:``); None: its link's role colour


@record
class Link:
    """A rigid link. ``role``: 'part' (a catalog instance), 'displacement' or 'windage'.

    ``mass`` kg, ``com`` m in the link frame, ``inertia`` 3×3 about the CoM in
    link axes. Displacement and windage links carry no mass (0.0).
    """

    name: str
    part_type: str | None
    role: str
    mass: float
    com: tuple
    inertia: tuple
    collisions: tuple = ()
    visuals: tuple = ()
    inertia_from: str = ""  # the part's inertia derived from its 'collision' or 'visual' shapes ('' : given)


@record
class Joint:
    """Joint ``name`` placing ``child`` at pose (xyz, rpy) in ``parent``'s frame."""

    name: str
    type: str
    parent: str
    child: str
    xyz: tuple
    rpy: tuple
    axis: tuple = (1.0, 0.0, 0.0)
    limits: Limits | None = None


@record
class FrameDef:
    """A massless named frame (slot or part frame) attached to ``link``."""

    name: str
    link: str
    xyz: tuple
    rpy: tuple


@record
class Thruster:
    """A propeller: thrust acts on ``link`` along ``axis`` (unit, link frame) at its origin."""

    name: str
    link: str
    joint: str
    axis: tuple
    drive: Drive
    topic: str  # the base of its command topic, Gazebo side: /<ns>/<topic>/cmd (a leading '/': absolute)
    ros_topic: str | None = None  # the same on the ROS side (None: as ``topic``)


@record
class Displacement:
    """What displaces: boxes (``Geom`` with box shapes) on link ``link``, posed in base_link.

    kind 'hull' (USV pontoon segments), 'buoyancy' (UUV solved box) or 'mesh' (a USV hull mesh:
    ``hull`` its convex pieces, aurgen.compose.hull_mesh.HullMesh, which the specs, the kernel and
    the MJCF displace; ``boxes`` then Gazebo's boxes fitted to it, ``fit`` their BoxFit).
    """

    kind: str
    link: str
    boxes: tuple
    fluid_density: float
    declared_net_buoyancy: float | None = None
    declared_cob_offset: tuple | None = None
    cob_frame: str | None = None
    hull: object = None
    fit: object = None
    segments: int = 0


@record
class Specs:
    """The composed figures. Frames: base_link. Units: kg, m, m³, kg·m².

    ``buoyancy_margin`` is ρV − m: the net buoyancy of a UUV (declared beside
    it) or the reserve buoyancy at full submersion of a USV.
    """

    total_mass: float
    com: tuple
    inertia: tuple
    principal_moments: tuple
    volume: float
    fluid_density: float
    fluid_mass: float
    cob: tuple
    bg: tuple
    buoyancy_margin: float
    parts: tuple  # ((type, name), ...)


@record
class Vehicle:
    """One resolved vehicle: everything an emitter needs, nothing format-specific."""

    name: str
    namespace: str
    source: str  # the config file's path (messages only: files name it by file name, aurgen.compose.stamp)
    sha256: str  # content hash: the config file and the catalog entries it uses (the specs row)
    config_sha256: str  # sha256 of the config file alone (the header)
    base: str
    links: tuple
    joints: tuple
    frames: tuple
    thrusters: tuple
    displacement: Displacement
    windage: tuple  # Geoms in base_link (USV), empty for a UUV
    hydrodynamics: tuple  # ((Fossen name, value), ...)
    specs: Specs
    sensors: tuple = ()  # aurgen.config.sensors.Sensor, placement order
    # the entries' topic keys: ((instance, gz base or None, ros base or None, config key, line), ...)
    topic_bases: tuple = ()
    openings: tuple = ()  # (name, xyz m in base_link), the config's openings: (downflooding points)
    extra_bridge: tuple = ()  # the config's extra_bridge_topics (aurgen.config.bridge.ExtraBridge)
    discontinued: tuple = ()  # (instance, part type, note) of each part its catalog marks discontinued
    ardupilot: bool = False  # the config's ardupilot: (the SDF's ArduPilotPlugin block)
    ardupilot_instance: int = 0  # the config's ardupilot: {instance: N} (sim_vehicle.py -I N), else 0
    wiring: object = None  # the base part's ArduPilot wiring (aurgen.config.autopilot.Wiring), or None

    def link(self, name: str) -> Link:
        """The link named ``name`` (KeyError if none); a dict lookup, built once."""
        return self._links_by_name[name]

    @cached_property
    def _links_by_name(self) -> dict:
        return {link.name: link for link in self.links}
