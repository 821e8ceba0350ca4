"""ArduPilot's JSON physics backend on the wire: the servo packet in, the JSON line out (pure functions).

The format is ArduPilot's, ``libraries/SITL/SIM_JSON.cpp`` and ``SIM_JSON.h`` (``servo_packet_16``,
``servo_packet_32``, ``output_servos``, ``recv_fdm``, ``parse_sensors``; ``examples/JSON/readme.md``):

* ArduPilot sends a packed little-endian struct: uint16 magic (18458 with 16 channels, 29569 with 32:
  ``SERVO_32_ENABLE``), uint16 frame_rate (Hz), uint32 frame_count, uint16 pwm[16 or 32] (µs; 0: the
  output is not driven): 40 or 72 bytes.
* The physics answers with one JSON object framed as ``"\\n{...}\\n"``. ArduPilot parses only the text
  between the last two newlines and finds each key by substring (the first occurrence wins, so a key
  that is a prefix of another comes first: ``velocity`` before any ``velocity_wind``), reading the
  value right after ``"key":`` (a space before the colon reads 0). Current builds read arrays with
  ``parse_array`` + ``atof`` (float32 for the gyro, acceleration, velocity and quaternion, double for
  the timestamp and position); older ones with ``sscanf("[%f, %f, %f]")``, which wants ``[`` right
  after the colon: the reply is written with compact separators and suits both. Booleans go as
  numbers.
* Frames: ``position`` (m, from home) and ``velocity`` (m/s) are NED; ``imu.gyro`` (rad/s) and
  ``imu.accel_body`` (m/s², specific force: about [0, 0, -9.81] level at rest) are body FRD;
  ``quaternion`` is [w, x, y, z], the body FRD attitude in NED.
"""

from __future__ import annotations

import struct
from typing import NamedTuple

from aurgen.runtime import _native

MAGIC_16 = 18458
MAGIC_32 = 29569
CHANNELS = {MAGIC_16: 16, MAGIC_32: 32}
HEADER = struct.Struct("<HHI")
SIZES = {MAGIC_16: HEADER.size + 2 * 16, MAGIC_32: HEADER.size + 2 * 32}  # 40 and 72 bytes
MAX_FRAME_RATE = 10_000  # Hz: a faster rate is refused as garbage (ArduPilot's loop rate is at most a few kHz)


class PacketRefused(ValueError):
    """A datagram that is no servo packet ArduPilot sends (size, magic or frame rate); it is dropped."""


class NonFinite(ValueError):
    """A state with a non-finite value: no reply can carry it (JSON has none)."""


class ServoPacket(NamedTuple):
    """One servo packet: ``frame_rate`` (Hz), ``frame_count``, ``pwm`` (µs per channel, 16 or 32; 0: not driven)."""

    frame_rate: int
    frame_count: int
    pwm: tuple

    @property
    def dt(self) -> float:
        """The physics time one frame stands for, s."""
        return 1.0 / self.frame_rate


_PACKETS = {SIZES[m]: (m, struct.Struct(f"<HHI{CHANNELS[m]}H")) for m in SIZES}


def decode(datagram: bytes) -> ServoPacket:
    """The servo packet in ``datagram``; :class:`PacketRefused` (with the reason) for anything else.

    A frame rate of 0 is refused too: ArduPilot's examples ignore such a packet (there is no step to
    take), as does the bridge."""
    form = _PACKETS.get(len(datagram))
    if form is not None:
        v = form[1].unpack(datagram)
        if v[0] == form[0] and 0 < v[1] <= MAX_FRAME_RATE:
            return ServoPacket(v[1], v[2], v[3:])
    n = len(datagram)
    if n < 2:
        raise PacketRefused(f"{n} bytes: shorter than the magic number")
    (magic,) = struct.unpack_from("<H", datagram)
    if magic not in SIZES:
        raise PacketRefused(f"magic {magic}: expected {MAGIC_16} (16 channels) or {MAGIC_32} (32 channels)")
    if n != SIZES[magic]:
        raise PacketRefused(f"{n} bytes with magic {magic}: a {CHANNELS[magic]}-channel packet is "
                            f"{SIZES[magic]} bytes")
    rate = HEADER.unpack_from(datagram)[1]
    raise PacketRefused(f"frame rate {rate} Hz: expected 1 to {MAX_FRAME_RATE}")


def encode(packet: ServoPacket) -> bytes:
    """The bytes ArduPilot sends for ``packet`` (16 or 32 channels by its length): for tests and tools."""
    magic = {16: MAGIC_16, 32: MAGIC_32}[len(packet.pwm)]
    return HEADER.pack(magic, packet.frame_rate, packet.frame_count) + struct.pack(f"<{len(packet.pwm)}H", *packet.pwm)


class Fdm(NamedTuple):
    """The state one reply carries, in ArduPilot's frames (see the module doc).

    ``timestamp`` s; ``gyro`` rad/s and ``accel_body`` m/s² (body FRD); ``position`` m and ``velocity``
    m/s (NED, position from home); ``quaternion`` (w, x, y, z); ``rng`` (m, rangefinders 1…6 in order;
    ArduPilot keeps a rangefinder's last value while its key is missing, so each is always sent)."""

    timestamp: float
    gyro: tuple
    accel_body: tuple
    position: tuple
    velocity: tuple
    quaternion: tuple
    rng: tuple = ()


def reply(fdm: Fdm) -> bytes:
    """The JSON line for ``fdm``, framed ``"\\n{...}\\n"``; :class:`NonFinite` for a non-finite value (JSON
    has none, and ArduPilot's parser would read garbage).

    The keys go in the order ArduPilot's substring search needs (no key written before a longer key it
    is a prefix of): ``timestamp``, ``imu`` {``gyro``, ``accel_body``}, ``position``, ``quaternion``,
    ``velocity``, then ``rng_1`` … with compact separators but ``", "`` inside the arrays. Every
    number is written as Python's ``repr`` writes the double (the shortest text that reads back as
    it), so ArduPilot reads each value as its own conversion of the double would give (atof, then
    float32 for the float fields). The text is made by the compiled core (``_native.sitl_reply``,
    ``runtime/native/core/json_number.cc``): Python's float formatting costs some 16 µs a reply, a
    quarter of a 400 Hz frame's budget on one core; tests/sitl/test_bridge_units.py checks its bytes
    against Python's own ``%r``."""
    text = _native.sitl_reply((fdm.timestamp, *fdm.gyro, *fdm.accel_body, *fdm.position, *fdm.quaternion,
                               *fdm.velocity, *fdm.rng))
    if text is None:
        raise NonFinite(f"a non-finite value in the reply: {fdm}")
    return text
