"""Propeller thrust curves: bollard thrust (N) against the ESC's command pulse width (µs).

A curve is a catalog entry of its own, ``thrust_curves/<name>.yaml`` in a catalog directory (the
bundled one: ``vehicles/parts/thrust_curves/``), found as part types are (aurgen.config.catalog:
a vehicle's own ``parts/``, then ``$AURGEN_PARTS_PATH``, then the bundled catalog, first wins). A
propeller's ``drive: {thrust_curve: <name>}`` names it (a name, never a path); its thrust limits
are then the curve's extremes (max_thrust, min_thrust derived, never written beside it).

File keys: ``description``, ``source`` (the document and its transcription, cited), ``voltage``
(V, the supply the table was measured at), ``unit`` (``N`` or ``kgf``: the table's force unit,
kept as the source prints it; kgf is converted with the standard gravity, exactly 9.80665 N) and
``points``: ``[[pwm µs, thrust], ...]`` in strictly ascending pulse width within 800–2200 µs
(ArduPilot's JSON SITL reads a pulse outside that band as not driven), every figure finite, with
a zero band (thrust exactly 0 at one pulse width or more; below it no thrust is positive, above
it none is negative). Between points the thrust is piecewise linear; outside, the end values hold.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import field
from pathlib import Path

from aurgen.core import limits
from aurgen.core.errors import ConfigError, did_you_mean
from aurgen.core.records import record
from aurgen.core.yamlio import Reader, load

FOLDER = "thrust_curves"  # inside each catalog directory
KGF = 9.80665  # N per kilogram-force: the standard gravity, exact by definition (CGPM 1901)
UNITS = {"N": 1.0, "kgf": KGF}
PWM_MIN, PWM_MAX = 800.0, 2200.0  # µs: ArduPilot's JSON backend treats a pulse outside as not driven
MAX_POINTS = 4096
CURVE_KEYS = {"description", "source", "voltage", "unit", "points"}


@record
class ThrustCurve:
    """A thrust table: ``points`` ((pwm µs, thrust N), ...) ascending in pwm; ``voltage`` V."""

    name: str
    path: str
    voltage: float
    points: tuple
    source: str = ""
    sha256: str = field(default="", compare=False)

    @property
    def max_thrust(self) -> float:
        """The largest thrust of the table, N (ahead)."""
        return max(t for _, t in self.points)

    @property
    def min_thrust(self) -> float:
        """The smallest thrust of the table, N (astern: negative)."""
        return min(t for _, t in self.points)

    def thrust(self, pwm: float) -> float:
        """Thrust N at pulse width ``pwm`` µs: linear between points, the end values outside."""
        pts = self.points
        if pwm <= pts[0][0]:
            return pts[0][1]
        for (p0, t0), (p1, t1) in zip(pts, pts[1:]):
            if pwm <= p1:
                return t0 + (t1 - t0) * (pwm - p0) / (p1 - p0)
        return pts[-1][1]

    def flat(self) -> tuple:
        """``(pwm0, thrust0, pwm1, thrust1, ...)``: the MJCF numeric's data (µs, N)."""
        return tuple(x for p in self.points for x in p)


def curve_path(dirs, name: str) -> Path | None:
    """The file of curve ``name`` in the first of catalog directories ``dirs`` that has one, or None.
    A ``<name>.yaml`` there that is not a regular file is an error."""
    for d in dirs:
        p = Path(d) / FOLDER / f"{name}.yaml"
        if p.is_file():
            return p
        if p.exists() or p.is_symlink():
            raise ConfigError(p, None, f"thrust curve '{name}': not a regular file", "a curve is a .yaml file")
    return None


def curve_names(dirs) -> list[str]:
    """The curves found in catalog directories ``dirs``, sorted."""
    seen = set()
    for d in dirs:
        folder = Path(d) / FOLDER
        if folder.is_dir():
            seen.update(p.stem for p in folder.glob("*.yaml") if limits.bad_name(p.stem) is None)
    return sorted(seen)


def find_curve(dirs, name, where) -> ThrustCurve:
    """Curve ``name`` from catalog directories ``dirs``; ``where`` = (path, key, line) of the
    reference (a part's ``drive.thrust_curve``), for errors."""
    wpath, wkey, wline = where
    why = limits.bad_name(name) if isinstance(name, str) else "not a string"
    if why:
        raise ConfigError(wpath, wkey, f"a thrust curve is a catalog name, never a path: {why}",
                          "name a file of thrust_curves/ without .yaml (t200_16v)", line=wline)
    path = curve_path(dirs, name)
    if path is None:
        hint = did_you_mean(name, curve_names(dirs)) or \
            f"known curves: {', '.join(curve_names(dirs)) or 'none'} (thrust_curves/<name>.yaml in a catalog directory)"
        raise ConfigError(wpath, wkey, f"unknown thrust curve '{name}'", hint, line=wline)
    return parse_curve(name, path, load(path))


def parse_curve(name: str, path: Path, data) -> ThrustCurve:
    """Validate one curve file (module docstring). Raises ConfigError naming file, key and line."""
    r = Reader(path)
    if not isinstance(data, dict):
        raise r.error(None, "expected a mapping at the top level", "see vehicles/parts/thrust_curves/t200_16v.yaml")
    r.check_keys(data, CURVE_KEYS, "", required=("voltage", "unit", "points", "source"))
    unit = r.string(data, "unit", "", choices=tuple(UNITS))
    scale = UNITS[unit]
    voltage = r.number(data, "voltage", "", positive=True, magnitude=limits.NUMBER_MAX)
    raw = r.sequence(data, "points", "")
    if not 2 <= len(raw) <= MAX_POINTS:
        raise r.error("points", f"{len(raw)} points: a curve has 2 to {MAX_POINTS}",
                      node=data, field="points")
    points = []
    for i, p in enumerate(raw):
        key = f"points[{i}]"
        if not isinstance(p, list) or len(p) != 2:
            raise r.error(key, f"expected [pwm µs, thrust {unit}], got {p!r}", node=data, field="points")
        pwm = r.as_number(p[0], f"{key}[0]", node=data, field="points", at_least=PWM_MIN, at_most=PWM_MAX)
        thrust = r.as_number(p[1], f"{key}[1]", node=data, field="points", magnitude=limits.NUMBER_MAX)
        if points and not pwm > points[-1][0]:
            raise r.error(f"{key}[0]", f"pulse width {pwm:g} µs is not above the previous point's "
                          f"({points[-1][0]:g} µs)", "list the points in strictly ascending pulse width",
                          node=data, field="points")
        points.append((pwm, thrust * scale))
    zeros = [i for i, (_, t) in enumerate(points) if t == 0.0]
    if not zeros:
        raise r.error("points", "no zero band: no point has thrust 0",
                      "include the ESC's dead band (thrust 0 at its centre pulse width)", node=data, field="points")
    wrong = [i for i, (_, t) in enumerate(points) if (i < zeros[0] and t > 0.0) or (i > zeros[-1] and t < 0.0)]
    if wrong:
        i = wrong[0]
        raise r.error(f"points[{i}]", f"thrust {points[i][1] / scale:g} {unit} at {points[i][0]:g} µs has the "
                      "wrong sign for its side of the zero band (below it thrust is astern, not positive; "
                      "above it ahead, not negative)", "check the row against the source", node=data, field="points")
    if not all(math.isfinite(t) for _, t in points):  # kgf scaled beyond a float
        raise r.error("points", "a thrust overflows when converted to N", node=data, field="points")
    return ThrustCurve(name=name, path=str(path), voltage=voltage, points=tuple(points),
                       source=str(data.get("source", "")).strip(),
                       sha256=hashlib.sha256(Path(path).read_bytes()).hexdigest())
