"""The documented limits on input (docs/config.md "Limits of input"): one place.

Configs come from other people and run unattended in CI, so every name is an
identifier, every number lies in a stated range, and every size a YAML file
can make the generator spend (nesting, aliases, segments, parts) is capped.
A value outside a limit is a ConfigError naming the file, line and key.
"""

from __future__ import annotations

import re

# ---------------------------------------------------------------- names
# Vehicle, instance, slot, frame, world, plane and cell names and part types:
# they become file names, XML names and comment text, so they are identifiers.
NAME_PATTERN = r"[A-Za-z][A-Za-z0-9_]*"
NAME_MAX = 64
NAME_RE = re.compile(NAME_PATTERN)
# topic namespaces and topics: identifiers joined by '/'
TOPIC_RE = re.compile(rf"{NAME_PATTERN}(?:/{NAME_PATTERN})*")
TOPIC_MAX = 128

# ---------------------------------------------------------------- YAML
MAX_FILE_BYTES = 1_000_000  # a config or catalog file
MAX_DEPTH = 32  # nested mappings/lists
MAX_NODES = 100_000  # nodes after alias expansion (a "billion laughs" stops here)

# ---------------------------------------------------------------- numbers
NUMBER_MAX = 1e9  # any number's magnitude, unless a key states its own range
LENGTH_MAX = 1e4  # m: positions, offsets, sizes
SIZE_MIN = 1e-6  # m: a positive size (box edge, radius, pontoon length/width/height)
ANGLE_MAX = 100.0  # rad: rpy angles and joint limits of a revolute joint
MASS_MIN, MASS_MAX = 1e-6, 1e6  # kg: a part's mass
INERTIA_MIN = 1e-12  # kg m^2: a part's smallest principal moment (MuJoCo refuses < 1e-15)
DENSITY_MIN, DENSITY_MAX = 1e-3, 1e5  # kg/m^3: a fluid (air 1.2, sea water 1025)
NET_BUOYANCY_RATIO = 10.0  # |net_buoyancy| at most this many times the vehicle's mass

# ---------------------------------------------------------------- counts
MAX_SEGMENTS = 200  # hull_displacement.segments (boxes per pontoon)
MAX_PARTS = 2000  # placed instances in one vehicle (slot fills and free placements)
# folders of aurgen's output tree beside the vehicles' (build/ros/, build/worlds/, <vehicle>/report/): a
# vehicle of one of these names (any case: a case-insensitive file system) would share a folder with them
RESERVED_NAMES = ("report", "ros", "worlds")
MAX_NESTING = 100  # parts on parts: an instance at most this many links below the base (MJCF nests its bodies)


def bad_name(value) -> str | None:
    """Why ``value`` is not a name, or None when it is one."""
    if not isinstance(value, str) or not value:
        return "expected a name (a non-empty string)"
    if not NAME_RE.fullmatch(value):
        return (f"{value[:80]!r} is not a name: a name is a letter followed by letters, digits and '_' "
                f"({NAME_PATTERN}, at most {NAME_MAX} characters)")
    if len(value) > NAME_MAX:
        return f"a name has at most {NAME_MAX} characters, this has {len(value)}"
    return None


def bad_topic(value, absolute: bool = False) -> str | None:
    """Why ``value`` is not a topic (identifiers joined by '/'; ``absolute``: one leading '/' allowed), or None."""
    if not isinstance(value, str) or not value:
        return "expected a topic (a non-empty string)"
    if not TOPIC_RE.fullmatch(value[1:] if absolute and value.startswith("/") else value):
        lead = ", optionally with a leading '/' (absolute: no namespace)" if absolute else ""
        return f"{value[:80]!r} is not a topic: names ({NAME_PATTERN}) joined by '/'{lead}"
    if len(value) > TOPIC_MAX:
        return f"a topic has at most {TOPIC_MAX} characters, this has {len(value)}"
    return None
