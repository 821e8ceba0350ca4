"""A chassis' ArduPilot wiring: the catalog key ``ardupilot:``, as the real vehicle ships.

::

    ardupilot:
      firmware: Rover                     # Rover (ArduRover) or Sub (ArduSub)
      frame: rover-skid                   # sim_vehicle.py's -f: rover, rover-skid | vectored, vectored_6dof
      pwm: {min: 1100, max: 1900, trim: 1500}   # µs, every servo below (SERVOn_MIN, _MAX, _TRIM)
      params: {FRAME_CLASS: 2, MOT_THST_ASYM: 1.6}   # further parameters, written in this order
      servos:                             # a thruster slot of this part -> its output
        motor_stbd: {servo: 1, function: 74}

``servo`` is the 1-based SERVOn output (1..32); ``function`` its SERVOn_FUNCTION, one of those an
ArduPilot motor mixer drives (ArduPilot libraries/SRV_Channel/SRV_Channel.h, enum
SRV_Channel::Function, commit 00d81afc0f24: FUNCTIONS below). Checked here: the slots exist, the
numbers are whole, in range and not reused, the band is 800 <= min < trim < max <= 2200.
"""

from __future__ import annotations

import re

from aurgen.core import limits
from aurgen.core.records import record
from aurgen.core.yamlio import Reader

# sim_vehicle.py -v and its frames (Tools/autotest/pysim/vehicleinfo.py) per firmware key
FIRMWARE = {"Rover": ("Rover", ("rover", "rover-skid")), "Sub": ("ArduSub", ("vectored", "vectored_6dof"))}
# SRV_Channel::Function values a thruster can be driven by (SRV_Channel.h)
FUNCTIONS = {26: "k_steering", 70: "k_throttle", 73: "k_throttleLeft", 74: "k_throttleRight",
             **{32 + k: f"k_motor{k}" for k in range(1, 9)}, **{73 + k: f"k_motor{k}" for k in range(9, 13)}}
SERVO_MAX = 32  # ArduPilot's NUM_SERVO_CHANNELS at most (SRV_Channel.h static_assert)
PARAM_RE = re.compile(r"^[A-Z][A-Z0-9_]{0,15}$")  # AP_Param names: at most 16 characters
KEYS = {"firmware", "frame", "pwm", "params", "servos"}


@record
class Servo:
    """One output: thruster slot ``slot`` on SERVO``servo`` (1-based) with SERVOn_FUNCTION ``function``."""

    slot: str
    servo: int
    function: int


@record
class Wiring:
    """A chassis' autopilot: ``firmware`` (Rover|Sub), ``frame`` (sim_vehicle.py -f), the PWM band µs
    (``pwm_min``, ``pwm_trim``, ``pwm_max``), ``params`` ((NAME, value), ...) and ``servos`` (Servo, by servo)."""

    firmware: str
    frame: str
    pwm_min: int
    pwm_trim: int
    pwm_max: int
    params: tuple
    servos: tuple

    @property
    def sim_vehicle(self) -> str:
        """sim_vehicle.py's ``-v`` for this firmware (Rover, ArduSub)."""
        return FIRMWARE[self.firmware][0]

    def servo_of(self, slot: str) -> Servo | None:
        return next((s for s in self.servos if s.slot == slot), None)


def _whole(r: Reader, node, field: str, key: str, lo: int, hi: int) -> int:
    v = node.get(field)
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise r.error(f"{key}.{field}", f"expected a whole number in {lo}..{hi}, got {v!r}", node=node, field=field)
    return v


def parse(r: Reader, data, slots) -> Wiring | None:
    """The part's ``ardupilot:`` (module docstring), or None. ``slots``: the part's Slot records."""
    if "ardupilot" not in data:
        return None
    key = "ardupilot"
    a = r.mapping(data[key], key, node=data, field=key)
    r.check_keys(a, KEYS, key, required=("firmware", "frame", "servos"))
    firmware = r.string(a, "firmware", key, choices=tuple(FIRMWARE))
    frame = r.string(a, "frame", key, choices=FIRMWARE[firmware][1])
    pwm = r.mapping(a.get("pwm", {"min": 1100, "max": 1900, "trim": 1500}), f"{key}.pwm", node=a, field="pwm")
    r.check_keys(pwm, {"min", "max", "trim"}, f"{key}.pwm", required=("min", "max", "trim"))
    lo, trim, hi = (_whole(r, pwm, k, f"{key}.pwm", 800, 2200) for k in ("min", "trim", "max"))
    if not lo < trim < hi:
        raise r.error(f"{key}.pwm", f"expected min < trim < max, got {lo}, {trim}, {hi}", node=a, field="pwm")
    params = []
    pnode = r.mapping(a.get("params") or {}, f"{key}.params", node=a, field="params")
    for name in pnode:
        if not isinstance(name, str) or not PARAM_RE.match(name):
            raise r.error(f"{key}.params.{name}", "not an ArduPilot parameter name",
                          "upper-case letters, digits and _, at most 16 characters", node=pnode, field=name)
        params.append((name, r.number(pnode, name, f"{key}.params", magnitude=limits.NUMBER_MAX)))
    names = {s.name for s in slots}
    snode = r.mapping(a["servos"], f"{key}.servos", node=a, field="servos")
    if not snode:
        raise r.error(f"{key}.servos", "no servo declared", "map each thruster slot to {servo, function}", node=a)
    servos, used = [], {}
    for slot, s in snode.items():
        k = f"{key}.servos.{slot}"
        if slot not in names:
            from aurgen.core.errors import did_you_mean

            raise r.error(k, f"this part has no slot {slot!r}", did_you_mean(str(slot), sorted(names)) or
                          f"name one of its slots ({', '.join(sorted(names)) or 'it has none'})", node=snode,
                          field=slot)
        s = r.mapping(s, k, node=snode, field=slot)
        r.check_keys(s, {"servo", "function"}, k, required=("servo", "function"))
        n = _whole(r, s, "servo", k, 1, SERVO_MAX)
        fn = _whole(r, s, "function", k, 1, 255)
        if fn not in FUNCTIONS:
            raise r.error(f"{k}.function", f"{fn} is no thruster output function ArduPilot's mixers drive",
                          "one of " + ", ".join(f"{v} ({FUNCTIONS[v]})" for v in sorted(FUNCTIONS)), node=s,
                          field="function")
        for what, v in (("servo", n), ("function", fn)):
            if (what, v) in used:
                raise r.error(f"{k}.{what}", f"{what} {v} is also slot {used[(what, v)]!r}'s", "each once",
                              node=s, field=what)
            used[(what, v)] = slot
        servos.append(Servo(str(slot), n, fn))
    return Wiring(firmware, frame, lo, trim, hi, tuple(params), tuple(sorted(servos, key=lambda s: s.servo)))


INSTANCE_MAX = 255  # sim_vehicle.py -I N: ArduPilot's SITL keeps the instance in a uint8_t (SITL_cmdline.cpp)


def config_key(r: Reader, data) -> tuple[bool, int]:
    """A vehicle config's ``ardupilot:`` (docs/config.md) as (on, instance): absent or ``false`` is
    (False, 0), ``true`` is (True, 0), ``{instance: N}`` is (True, N) with N a whole number 0..255:
    ``sim_vehicle.py -I N``, whose JSON backend sends to UDP 9002 + 10·N. Anything else is refused
    naming the key."""
    if "ardupilot" not in data or isinstance(data["ardupilot"], bool):
        return bool(data.get("ardupilot", False)), 0
    node = data["ardupilot"]
    if not isinstance(node, dict):
        raise r.error("ardupilot", f"expected true, false or {{instance: N}}, got {node!r}",
                      "write 'ardupilot: true' (instance 0) or 'ardupilot: {instance: 1}'",
                      node=data, field="ardupilot")
    r.check_keys(node, {"instance"}, "ardupilot", required=("instance",))
    return True, _whole(r, node, "instance", "ardupilot", 0, INSTANCE_MAX)
