"""ArduPilot's side of the JSON physics backend, re-implemented in pure Python for the tests.

What ArduPilot SITL does with the servo packet it sends and with the JSON text the physics replies
with, as read in these sources (the index answers a path with one stored version; where it did not
name the commit the stored text's index id is given instead, so it can be read again with the
search tool's ``read_file(id=...)``):

- ``ArduPilot/ardupilot libraries/SITL/SIM_JSON.cpp`` ``JSON::output_servos``, ``JSON::recv_fdm``,
  ``JSON::parse_sensors``, ``parse_array`` (the stored current text: index id 274968654, 19,716
  characters; the index does not report its commit. It is master after PR #31543 "SITL: Enhance JSON
  backend", merged 2025-11: latitude/longitude/altitude, ``no_lockstep``, 32-channel packets, arrays
  read by ``parse_array`` + ``atof`` instead of ``sscanf``).
- ``ArduPilot/ardupilot libraries/SITL/SIM_JSON.h`` ``servo_packet_16``, ``servo_packet_32``,
  ``keytable[36]``, ``DataKey`` (stored text: index id 532160591, the header of that .cpp).
- ``ArduPilot/ardupilot libraries/SITL/SIM_JSON.cpp`` ``JSON::parse_sensors`` (commit
  2ebd1127ac11b2a2b02dfabeb9f9e9318170af46): the older builds' vector parse,
  ``sscanf(p, "[%f, %f, %f]", ...)`` and ``"[%f, %f, %f, %f]"`` for the quaternion;
  ``vectors="sscanf"`` below selects it (the rest of the parser is the current one).
- ``ArduPilot/ardupilot libraries/SITL/SIM_Aircraft.cpp`` ``Aircraft::Aircraft`` (stored text: index id
  46527668): ``rangefinder_m[i] = -1.0f`` "to signify no data".
- ``ArduPilot/ardupilot libraries/SITL/examples/JSON/readme.md`` (commit
  045bdf55b47c85e1e5a0290fc5705dd6f23c478f): the packet layouts, the field list and an example line.

Frames (readme.md "SITL input"): ``imu.gyro`` rad/s and ``imu.accel_body`` m/s^2 in the body frame,
FRD (x forward, y right, z down; accel_body is specific force, about [0, 0, -9.81] level at rest);
``position`` m and ``velocity`` m/s in the earth frame NED from home; ``attitude`` [roll, pitch, yaw]
rad; ``quaternion`` [q1, q2, q3, q4] = [w, x, y, z] (AP_Math Quaternion's q1 is the scalar), body FRD to
earth NED. ``quaternion`` wins over ``attitude`` when both come.

The C behaviour kept here, byte for byte where it matters:

* the receive buffer (65,000 bytes) keeps what it holds between datagrams; each datagram is appended
  (cut to the free space: a UDP recv into a short buffer drops the rest), its ``\\n`` become NULs, and
  only the text between the last two NULs is parsed. When that text is rejected (a mandatory key
  missing, or neither ``attitude`` nor ``quaternion``) nothing is removed from the buffer, the state
  is not applied and ``frame_counter`` does not advance, so ArduPilot sends the same frame number
  again. When it is accepted, everything before the last NUL is dropped (the NUL stays). The buffer is
  modelled as the C memory it is (zeroed at start: ArduPilot's operator new clears; ``memmove`` leaves
  the bytes past the new length as they were), because the parser's fixed skips can step over a
  line's terminating NUL (an empty line from "\n\n", a key at the very end of a line) and then read
  what lies beyond it, as the C does. Rejected replies accumulate; once the 65,000 bytes are full the
  recv has no room (0 bytes) and SITL spins resending the servo packet (``stalled``).
* ``parse_sensors`` walks the keytable in its order. For each key: ``strstr(json, section)`` (the
  first occurrence anywhere in the line; the empty section matches at the start), skip
  ``strlen(section) + 1`` characters, ``strstr(p, key)`` (first occurrence after that point, so
  ``"velocity"`` finds ``"velocity_wind"`` if that comes first), skip ``strlen(key) + 2`` characters
  (the closing quote and the colon), then read the value there. The key's bit is set before the value
  is read. A required key missing returns 0 at once (later keys are not read, earlier ones were
  already written to the state); an array that fails to read returns the bits so far (its own bit
  included) and leaves its target unchanged.
* values: doubles and floats by ``atof`` (leading white space skipped; float fields round the double
  to float32), booleans by ``strncasecmp(p, "true", 4)`` / ``"false"`` right at p (no white space
  skipped: ``": true"`` with a space reads as ``strtoull(" true") != 0``, i.e. false) else
  ``strtoull(p) != 0``; arrays by ``parse_array``: for each element skip every character that is
  neither '-' nor a digit, ``atof`` there (into float32 for Vector3f and the quaternion, double for the
  position), then skip to the next ',' or ']', and between elements require a ','.
* time: ``timestamp`` below the last one prints "Detected physics reset", counts deltat 0 and clears
  the printed-keys memory; otherwise deltat = timestamp - last; ``time_now_us += deltat * 1e6``.
* rng_1..6: a received one is copied as it is (a negative value is ArduPilot's own "no data", the -1
  every rangefinder starts at); one not received keeps its previous value.
"""

from __future__ import annotations

import math
import re
import struct
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

SERVO_MAGIC_16 = 18458
SERVO_MAGIC_32 = 29569
SENSOR_BUFFER_BYTES = 65000  # SIM_JSON.h: uint8_t sensor_buffer[65000]

# SIM_JSON.h keytable[36] (section, key, type, required), in its order; the bit of entry i is 1 << i.
DOUBLE, FLOAT, VECTOR3F, VECTOR3D, QUATERNION, BOOLEAN = "double", "float", "vec3f", "vec3d", "quat", "bool"
KEYTABLE = (
    ("", "timestamp", DOUBLE, True),
    ("", "latitude", DOUBLE, False),
    ("", "longitude", DOUBLE, False),
    ("", "altitude", DOUBLE, False),
    ("imu", "gyro", VECTOR3F, True),
    ("imu", "accel_body", VECTOR3F, True),
    ("", "position", VECTOR3D, False),
    ("", "attitude", VECTOR3F, False),
    ("", "quaternion", QUATERNION, False),
    ("", "velocity", VECTOR3F, True),
    ("", "rng_1", FLOAT, False),
    ("", "rng_2", FLOAT, False),
    ("", "rng_3", FLOAT, False),
    ("", "rng_4", FLOAT, False),
    ("", "rng_5", FLOAT, False),
    ("", "rng_6", FLOAT, False),
    ("", "velocity_wind", VECTOR3F, False),
    ("windvane", "direction", FLOAT, False),
    ("windvane", "speed", FLOAT, False),
    ("", "airspeed", FLOAT, False),
    ("", "no_time_sync", BOOLEAN, False),
    ("", "no_lockstep", BOOLEAN, False),
) + tuple(("rc", f"rc_{i}", FLOAT, False) for i in range(1, 13)) + (
    ("battery", "voltage", FLOAT, False),
    ("battery", "current", FLOAT, False),
)
assert len(KEYTABLE) == 36

BIT = {(s + "." if s else "") + k: 1 << i for i, (s, k, _, _) in enumerate(KEYTABLE)}
TIMESTAMP, LATITUDE, LONGITUDE, ALTITUDE = BIT["timestamp"], BIT["latitude"], BIT["longitude"], BIT["altitude"]
GYRO, ACCEL_BODY, POSITION = BIT["imu.gyro"], BIT["imu.accel_body"], BIT["position"]
EULER_ATT, QUAT_ATT, VELOCITY = BIT["attitude"], BIT["quaternion"], BIT["velocity"]
TIME_SYNC, LOCKSTEP = BIT["no_time_sync"], BIT["no_lockstep"]
RNG = tuple(BIT[f"rng_{i}"] for i in range(1, 7))
MANDATORY = tuple(n for (s, k, _, r) in KEYTABLE if r for n in [(s + "." if s else "") + k])


# ---------------------------------------------------------------- the servo packet
def servo_packet(frame_rate: int, frame_count: int, pwm, channels: int = 16) -> bytes:
    """SIM_JSON.h servo_packet_16 / servo_packet_32 as JSON::output_servos sends it: little-endian
    uint16 magic (18458 / 29569), uint16 frame_rate (the C ``rate_hz`` stored in a uint16_t),
    uint32 frame_count, uint16 pwm[16 | 32] (µs, 0 = not driven); 40 or 72 bytes, no padding (the
    uint32 sits at offset 4). ``pwm`` shorter than ``channels`` is padded with 0."""
    if channels not in (16, 32):
        raise ValueError("channels must be 16 or 32 (SIM_JSON.h has no other packet)")
    pwm = list(pwm)
    if len(pwm) > channels:
        raise ValueError(f"{len(pwm)} pwm values for a {channels}-channel packet")
    pwm += [0] * (channels - len(pwm))
    magic = SERVO_MAGIC_16 if channels == 16 else SERVO_MAGIC_32
    return struct.pack(f"<HHI{channels}H", magic, frame_rate & 0xFFFF, frame_count & 0xFFFFFFFF,
                       *(p & 0xFFFF for p in pwm))


def read_servo_packet(data: bytes):
    """The inverse, for tests: (magic, frame_rate, frame_count, pwm tuple); ValueError for a size or
    magic that is neither packet."""
    if len(data) == 40 and struct.unpack_from("<H", data)[0] == SERVO_MAGIC_16:
        return struct.unpack("<HHI16H", data)[:3] + (struct.unpack("<HHI16H", data)[3:],)
    if len(data) == 72 and struct.unpack_from("<H", data)[0] == SERVO_MAGIC_32:
        return struct.unpack("<HHI32H", data)[:3] + (struct.unpack("<HHI32H", data)[3:],)
    raise ValueError(f"not a SIM_JSON servo packet: {len(data)} bytes")


# ---------------------------------------------------------------- C number parsing
_WS = b" \t\n\v\f\r"
_DEC = re.compile(rb"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_HEX = re.compile(rb"[+-]?0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?\d+)?")
_SPECIAL = re.compile(rb"[+-]?(?:inf(?:inity)?|nan(?:\([0-9A-Za-z_]*\))?)", re.IGNORECASE)


def _strtod_prefix(b: bytes, i: int):
    """glibc strtod on b[i:]: (the matched number text, the index after it), or (None, i) when no
    conversion is performed. Leading white space is skipped."""
    j = i
    while j < len(b) and b[j] in _WS:
        j += 1
    for rx in (_HEX, _SPECIAL, _DEC):
        m = rx.match(b, j)
        if m:
            return m.group(0), m.end()
    return None, i


def _text_to_fraction(t: bytes):
    """The exact value of a strtod-style number text (None for inf/nan, handled by float())."""
    s = t.decode("ascii").lower()
    if "inf" in s or "nan" in s:
        return None
    if "x" in s:
        return Fraction(float.fromhex(s))  # a hex float is exact in binary
    return Fraction(s)


def atof(b: bytes, i: int = 0) -> float:
    """C ``atof`` (= strtod, correctly rounded to double by glibc; 0.0 when nothing converts)."""
    t, _ = _strtod_prefix(b, i)
    if t is None:
        return 0.0
    s = t.decode("ascii").lower()
    if "x" in s:
        return float.fromhex(s)
    if "nan" in s:
        return -math.nan if s.startswith("-") else math.nan
    return float(s)  # Python's float() of a decimal/inf text rounds correctly, as glibc does


def f32(x: float) -> float:
    """A C double -> float conversion (round to nearest even), as a Python float."""
    with np.errstate(over="ignore"):
        return float(np.float32(x))


def strtof_exact(t: bytes) -> float:
    """glibc strtof: the decimal text rounded once, directly to float32 (what sscanf %f stores).
    Differs from f32(atof(t)) only where double rounding bites."""
    fr = _text_to_fraction(t)
    if fr is None:
        return f32(atof(t))
    c = np.float32(float(fr))
    if not np.isfinite(c):
        return float(c)
    best = c
    for n in (np.nextafter(c, np.float32(-np.inf)), np.nextafter(c, np.float32(np.inf))):
        if not np.isfinite(n):
            continue
        d_best, d_n = abs(Fraction(float(best)) - fr), abs(Fraction(float(n)) - fr)
        if d_n < d_best or (d_n == d_best and (int(np.float32(n).view(np.uint32)) & 1) == 0):
            best = n
    return float(best)


def strtoull_nonzero(b: bytes, i: int) -> bool:
    """``strtoull(p, nullptr, 10) != 0``: white space, an optional sign (a '-' negates in unsigned
    arithmetic, still non-zero), decimal digits; no digits -> 0."""
    j = i
    while j < len(b) and b[j] in _WS:
        j += 1
    if j < len(b) and b[j] in b"+-":
        j += 1
    k = j
    while k < len(b) and 48 <= b[k] <= 57:
        k += 1
    return k > j and int(b[j:k]) != 0


def parse_array(b: bytes, i: int, count: int, as_float32: bool):
    """SIM_JSON.cpp ``template <typename T> bool parse_array(const char *str, T &arr, int count)``:
    the values, or None when it returns false."""
    p, n, out = i, len(b), []
    for k in range(count):
        while p < n and b[p] != 0x2D and not (48 <= b[p] <= 57):  # skip to '-' or a digit
            p += 1
        if p >= n:
            return None
        v = atof(b, p)
        out.append(f32(v) if as_float32 else v)
        while p < n and b[p] not in b",]":
            p += 1
        if k < count - 1:
            if p >= n or b[p] != 0x2C:
                return None
            p += 1
    return out


def sscanf_floats(b: bytes, i: int, count: int):
    """``sscanf(p, "[%f, %f, %f]")`` (count 3) or ``"[%f, %f, %f, %f]"`` (4) as the older builds call
    it (SIM_JSON.cpp parse_sensors, commit 2ebd1127): '[' must be the very next character (a literal
    does not skip white space), each %f skips white space then reads the longest strtof prefix
    (rounded once to float32), ',' literal, ' ' matches any white space (also none). Returns the
    values converted before the first mismatch (sscanf's count is their number)."""
    p, n, out = i, len(b), []
    if p >= n or b[p] != 0x5B:
        return out
    p += 1
    for k in range(count):
        t, e = _strtod_prefix(b, p)
        if t is None:
            return out
        out.append(strtof_exact(t))
        p = e
        if k < count - 1:
            if p >= n or b[p] != 0x2C:
                return out
            p += 1
            while p < n and b[p] in _WS:
                p += 1
    return out  # the trailing ']' is not checked by the return value


# ---------------------------------------------------------------- parse_sensors
def new_state() -> dict:
    """SIM_JSON.h ``state`` as the C++ zero-initialises it (the JSON object's members)."""
    return {"timestamp": 0.0, "latitude": 0.0, "longitude": 0.0, "altitude": 0.0,
            "imu.gyro": [0.0] * 3, "imu.accel_body": [0.0] * 3, "position": [0.0] * 3,
            "attitude": [0.0] * 3, "quaternion": [1.0, 0.0, 0.0, 0.0], "velocity": [0.0] * 3,
            **{f"rng_{i}": 0.0 for i in range(1, 7)}, "velocity_wind": [0.0] * 3,
            "windvane.direction": 0.0, "windvane.speed": 0.0, "airspeed": 0.0,
            "no_time_sync": False, "no_lockstep": False, **{f"rc.rc_{i}": 0.0 for i in range(1, 13)},
            "battery.voltage": 0.0, "battery.current": 0.0}
# (AP_Math's Quaternion() constructor sets q1 = 1: the only member not zero)


def _cstr(mem, addr: int) -> bytes:
    """The C string at ``addr`` of ``mem`` (up to the next NUL, or the end of the memory)."""
    if addr >= len(mem):
        return b""
    e = mem.find(b"\0", addr)
    return bytes(mem[addr:] if e < 0 else mem[addr:e])


def parse_sensors(json, state: dict, vectors: str = "parse_array", log=None, info=None) -> int:
    """SIM_JSON.cpp ``uint64_t JSON::parse_sensors(const char *json)`` on one NUL-free line (followed
    by a NUL, as in the buffer): writes the keys it reads into ``state`` (in place, as the C writes
    its member) and returns the bitmask of keys found (0 when a required key is missing). ``log`` (a
    list) collects the printf lines; ``info`` (a dict) gets ``missing``: the required key that
    stopped the parse, if any."""
    if isinstance(json, str):
        json = json.encode("utf-8")
    return parse_sensors_at(bytes(json) + b"\0", 0, state, vectors, log, info)


def parse_sensors_at(mem, addr: int, state: dict, vectors: str = "parse_array", log=None, info=None) -> int:
    """``parse_sensors`` on the C string at ``mem[addr]``, reading memory as the C does: the skips
    after a match (``strlen(section) + 1``, ``strlen(key) + 2``) can step over the line's NUL (an
    empty line, a key at its very end) and then read what lies beyond it in the buffer."""
    log = [] if log is None else log
    mask = 0
    line = _cstr(mem, addr)
    for i, (section, key, typ, required) in enumerate(KEYTABLE):
        name = (section + "." if section else "") + key
        hit = line.find(section.encode())
        if hit < 0:
            if required:
                log.append(f"Failed to find {section}")
                if info is not None:
                    info["missing"] = name
                return 0
            continue
        p = addr + hit + len(section) + 1
        rest = _cstr(mem, p)
        hit = rest.find(key.encode())
        if hit < 0:
            if required:
                log.append(f"Failed to find key {section}/{key}")
                if info is not None:
                    info["missing"] = name
                return 0
            continue
        mask |= 1 << i
        val = _cstr(mem, p + hit + len(key) + 2)
        if typ == DOUBLE:
            state[name] = atof(val)
        elif typ == FLOAT:
            state[name] = f32(atof(val))
        elif typ in (VECTOR3F, VECTOR3D, QUATERNION):
            count = 4 if typ == QUATERNION else 3
            if vectors == "sscanf" and typ != VECTOR3D:
                vals = sscanf_floats(val, 0, count)
                # sscanf writes each converted value before it fails on the next one
                cur = list(state[name])
                cur[:len(vals)] = vals
                state[name] = cur
                if len(vals) != count:
                    log.append(f"Failed to parse Vector{'4' if count == 4 else '3'}f for {section}/{key}")
                    return mask
            else:
                vals = parse_array(val, 0, count, as_float32=(typ != VECTOR3D))
                if vals is None:
                    kind = {VECTOR3F: "Vector3f", VECTOR3D: "Vector3d", QUATERNION: "Vector4f"}[typ]
                    log.append(f"Failed to parse {kind} for {section}/{key}")
                    return mask
                state[name] = vals
        elif typ == BOOLEAN:
            head = val[:5].lower()
            if head[:4] == b"true":
                state[name] = True
            elif head[:5] == b"false":
                state[name] = False
            else:
                state[name] = strtoull_nonzero(val, 0)
    return mask


def mask_names(mask: int):
    """The keytable names whose bits are set, in keytable order."""
    return [(s + "." if s else "") + k for i, (s, k, _, _) in enumerate(KEYTABLE) if mask >> i & 1]


# ---------------------------------------------------------------- recv_fdm
@dataclass
class Applied:
    """What one accepted reply sets on ArduPilot's side (SIM_JSON.cpp recv_fdm, after the checks)."""
    frame_counter: int          # the count after this frame (the next servo packet carries it)
    timestamp: float            # s, physics time
    gyro: tuple                 # rad/s, body FRD
    accel_body: tuple           # m/s^2, body FRD, specific force
    velocity: tuple             # m/s, NED
    position: tuple | None      # m NED from home (state.position); None when lat/lon/alt set it
    position_from_location: bool
    quaternion: tuple | None    # (w, x, y, z) when the quaternion was received (it wins)
    attitude: tuple | None      # (roll, pitch, yaw) rad when it set the attitude (no quaternion)
    rng: tuple                  # rangefinder_m[0..5] after the update; -1 = no data
    deltat: float               # s the clock advanced by
    physics_reset: bool         # "Detected physics reset"
    use_time_sync: bool
    no_lockstep: bool
    mask: int
    received: list = field(default_factory=list)


class Receiver:
    """ArduPilot's receive side of the JSON backend: ``feed(datagram)`` is one successful
    ``sock.recv`` in ``JSON::recv_fdm``; it returns an ``Applied`` record when the reply was
    accepted, else None (``rejected`` then says why, ``missing`` which mandatory key stopped it)."""

    def __init__(self, vectors: str = "parse_array", capacity: int = SENSOR_BUFFER_BYTES):
        if vectors not in ("parse_array", "sscanf"):
            raise ValueError(vectors)
        self.vectors = vectors
        self.capacity = capacity
        self.mem = bytearray(capacity)  # ArduPilot's operator new zeroes (calloc)
        self.length = 0                  # sensor_buffer_len
        self.state = new_state()
        self.frame_counter = 0
        self.last_timestamp_s = 0.0
        self.time_now_us = 0
        self.last_received_bitmask = 0
        self.use_time_sync = True
        self.last_no_lockstep = False
        self.rangefinder_m = [-1.0] * 6  # SIM_Aircraft.cpp: -1 "to signify no data"
        self.log: list[str] = []
        self.rejected: str | None = None
        self.missing: str | None = None
        self.stalled = False  # the buffer is full: recv gets 0 bytes, SITL loops resending servos

    @property
    def buffer(self) -> bytes:
        """sensor_buffer[0:sensor_buffer_len]."""
        return bytes(self.mem[:self.length])

    def feed(self, datagram: bytes):
        self.rejected = self.missing = None
        room = self.capacity - self.length
        if room <= 0 or not datagram:
            # sock.recv(..., 0 bytes) returns 0 (the datagram is lost): while (ret <= 0) spins,
            # resending the servo packet every second ("No JSON sensor message received")
            self.stalled = room <= 0
            self.rejected = "nothing received"
            return None
        chunk = bytes(datagram[:room]).replace(b"\n", b"\0")
        self.mem[self.length:self.length + len(chunk)] = chunk
        self.length += len(chunk)
        buf = bytes(self.mem[:self.length])
        p2 = buf.rfind(b"\0")
        if p2 <= 0:
            self.rejected = "fewer than two newlines in the buffer"
            return None
        p1 = buf.rfind(b"\0", 0, p2)
        if p1 < 0:
            self.rejected = "fewer than two newlines in the buffer"
            return None
        log: list[str] = []
        info: dict = {}
        mask = parse_sensors_at(self.mem, p1 + 1, self.state, self.vectors, log, info)
        self.log += log
        if mask == 0:
            self.log.append("Did not contain all mandatory fields")
            self.rejected = "a mandatory field is missing"
            self.missing = info.get("missing")
            return None
        if mask & (EULER_ATT | QUAT_ATT) == 0:
            self.log.append("Did not receive attitude or quaternion")
            self.rejected = "neither attitude nor quaternion"
            return None
        if mask != self.last_received_bitmask:
            self.log.append("JSON received: " + ", ".join(mask_names(mask)))
        self.last_received_bitmask = mask
        # memmove(sensor_buffer, p2, len - p2): the last NUL and what follows move to the front;
        # the bytes beyond the new length keep their old content
        tail = bytes(self.mem[p2:self.length])
        self.mem[:len(tail)] = tail
        self.length = len(tail)
        st = self.state
        from_loc = mask & (LATITUDE | LONGITUDE | ALTITUDE) == (LATITUDE | LONGITUDE | ALTITUDE)
        if mask & TIME_SYNC and self.use_time_sync != (not st["no_time_sync"]):
            self.use_time_sync = not st["no_time_sync"]
            self.log.append(f"Forcing use_time_sync={int(self.use_time_sync)}")
        if mask & LOCKSTEP and st["no_lockstep"] != self.last_no_lockstep:
            self.last_no_lockstep = st["no_lockstep"]
        for i in range(6):
            if mask & RNG[i]:
                self.rangefinder_m[i] = st[f"rng_{i + 1}"]
        reset = st["timestamp"] < self.last_timestamp_s
        if reset:
            self.log.append("Detected physics reset")
            deltat = 0.0
            self.last_received_bitmask = 0
        else:
            deltat = st["timestamp"] - self.last_timestamp_s
        self.time_now_us = int(float(self.time_now_us) + deltat * 1.0e6)  # uint64 += double
        self.last_timestamp_s = st["timestamp"]
        self.frame_counter += 1
        quat = tuple(st["quaternion"]) if mask & QUAT_ATT else None
        return Applied(
            frame_counter=self.frame_counter, timestamp=st["timestamp"],
            gyro=tuple(st["imu.gyro"]), accel_body=tuple(st["imu.accel_body"]),
            velocity=tuple(st["velocity"]),
            position=None if from_loc else tuple(st["position"]), position_from_location=from_loc,
            quaternion=quat, attitude=None if quat else tuple(st["attitude"]),
            rng=tuple(self.rangefinder_m), deltat=deltat, physics_reset=reset,
            use_time_sync=self.use_time_sync, no_lockstep=st["no_lockstep"], mask=mask,
            received=mask_names(mask))
