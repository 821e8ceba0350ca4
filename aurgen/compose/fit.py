"""What must fit and what deserves a word: a battery pack in its enclosure tube (refused when it cannot
fit), a static heel beyond ``HEEL_WARN_DEG`` and parts marked ``discontinued:`` (warnings, never fatal).

A slot with ``tube: {diameter, length, ends}`` (catalog, docs/config.md) is an enclosure tube along the
slot's x axis, of that inner diameter, taking packs up to ``length`` long, its own ends at x ``ends`` in the
slot's frame (default: centred on the slot's origin, ``length`` long; the BlueBoat's bays are their
pontoon's tube). A battery part (``battery:``) filling it is a round pack along its own x:
``battery.diameter`` / ``battery.length`` where the part gives them, else its first visual box's x size
and the diagonal of its y-z section. The pack must lie on the tube's axis (its centre on the axis, its x
along it), be no wider than its inner diameter and no longer than ``length``, and its ends lie within the
tube's ends.
"""

from __future__ import annotations

import math

import numpy as np

from aurgen.core import spatial
from aurgen.core.errors import ConfigError

HEEL_WARN_DEG = 5.0  # a static heel (or trim) beyond this is a warning: a one-sided loadout
ON_AXIS_TOL = 1e-6  # m, and the cosine's shortfall for the pack's axis


def pack_envelope(part) -> tuple | None:
    """(diameter, length, centre in the part frame) of a battery part's round envelope, or None."""
    b = part.battery or {}
    box = next((g for g in part.visual if g.shape.kind == "box"), None)
    if box is None and not ("diameter" in b and "length" in b):
        return None
    dims = box.shape.dims if box is not None else (0.0, 0.0, 0.0)
    d = b.get("diameter", math.hypot(dims[1], dims[2]))
    length = b.get("length", dims[0])
    return float(d), float(length), tuple(box.xyz) if box is not None else (0.0, 0.0, 0.0)


def check_tube(slot, carrier: str, part, T_pack, where, entry=None) -> None:
    """Refuse a battery ``part`` posed ``T_pack`` in ``slot``'s frame that cannot sit in the slot's tube.

    ``where``: (file, key, line) of what put the part there (the config entry, or the slot's default);
    ``entry``: that config entry, whose xyz / rpy an off-axis placement is blamed on."""
    if slot.tube is None or part.battery is None:
        return
    env = pack_envelope(part)
    if env is None:
        return
    d, length, centre = env
    inner_d, inner_l, ends = slot.tube
    lo, hi = ends if ends is not None else (-inner_l / 2, inner_l / 2)
    c = spatial.matvec(T_pack[:3, :3], np.asarray(centre, dtype=float)) + T_pack[:3, 3]
    x_axis = T_pack[:3, 0]
    tube = (f"tube of slot '{slot.name}' of '{carrier}' (inner diameter {inner_d:g} m, length {inner_l:g} m"
            + (f", ends at x {lo:.4g} and {hi:.4g} m of the slot)" if ends is not None else ")"))
    pack = f"pack '{part.type}' (diameter {d:g} m, length {length:g} m)"
    off = math.hypot(c[1], c[2])

    def blamed(field):  # a placement the config entry gave is blamed on its xyz / rpy, else on what put it there
        return where[1] if entry is None else f"{where[1].rsplit('.', 1)[0]}.{field}"

    if off > ON_AXIS_TOL or 1.0 - abs(x_axis[0]) > ON_AXIS_TOL:
        raise ConfigError(where[0], blamed("xyz" if off > ON_AXIS_TOL and entry.xyz else "rpy"),
                          f"{pack} is off the axis of the {tube}: its centre {off:.4g} m from the "
                          f"axis, its long axis {math.degrees(math.acos(min(1.0, abs(x_axis[0])))):.3g} deg off it",
                          "offset the pack along x only (xyz: [x, 0, 0]) and rotate it about x only", line=where[2])
    if d > inner_d or length > inner_l + 1e-12:
        what = (f"{d:g} m across, the tube {inner_d:g} m" if d > inner_d else
                f"{length:g} m long, the longest pack the tube takes {inner_l:g} m")
        raise ConfigError(where[0], where[1], f"{pack} does not fit the {tube}: {what}",
                          "fit a smaller pack", line=where[2])
    a, b = c[0] - length / 2, c[0] + length / 2
    if a < lo - 1e-12 or b > hi + 1e-12:
        raise ConfigError(where[0], blamed("xyz") if entry is not None and entry.xyz else where[1],
                          f"{pack} does not fit the {tube}: its ends reach x {a:.4g} .. {b:.4g} m of the slot, "
                          f"past the tube's ends at {lo:.4g} and {hi:.4g} m",
                          "slide it along x within the tube's ends (xyz: [x, 0, 0]), or fit a smaller pack",
                          line=where[2])


def warnings(vehicle, eq) -> list[str]:
    """The warnings of a composed vehicle (never fatal): a static heel or trim beyond HEEL_WARN_DEG in the
    specs' equilibrium ``eq`` (aurgen.compose.stamp.equilibrium_of), and each discontinued part."""
    out = []
    for what, angle in (("heel", eq.heel), ("trim", eq.trim)):
        deg = math.degrees(angle)
        if abs(deg) > HEEL_WARN_DEG:
            out.append(f"{vehicle.source}: '{vehicle.name}' floats at a static {what} of {deg:+.2f} deg, beyond "
                       f"{HEEL_WARN_DEG:g} deg (the specs' equilibrium): balance the loadout (batteries, payload)")
    for name, typ, note in vehicle.discontinued:
        out.append(f"{vehicle.source}: part '{name}' is a {typ}, marked discontinued in its catalog entry"
                   + (f" ({note})" if note else "") + ": it may not be available")
    return out
