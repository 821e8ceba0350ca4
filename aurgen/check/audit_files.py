"""Reading generated files for ``aurgen audit``: finding them, their header and specs comment, their content.

A generated vehicle file (SDF ``model.sdf``, URDF ``<name>.urdf``, MJCF
``<name>.xml``, or ``model.config``) is read into an :class:`Audited`: its
header (aurgen version, config file name and sha256), its specs rows, and the
figures recomputed from its own content (aurgen.check.readback): mass (kg),
CoM (m, base_link), inertia (kg·m²), displaced volume (m³) and CoB (m), and
for SDF and MJCF the kernel's floating equilibrium (draft m, heel and trim
deg, GM_T and GM_L m) at the comment's fluid density. A generated world is a
:class:`WorldFile`. Also here: the :class:`Difference` row every check
reports, and the parsing of the specs comment's printed numbers (each
compared within half a unit of its last printed digit).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from aurgen.core import spatial
from aurgen.core.errors import AurgenError
from aurgen.core.files import GENERATED
from aurgen.core.outdir import bookkeeping
from aurgen.core.records import record

NUM_RE = re.compile(r"[-+]?[0-9]+(?:\.([0-9]*))?(?:[eE][-+]?[0-9]+)?", re.ASCII)  # ASCII digits only
REL_TOL = 1e-9  # formats against each other, and file content against exact figures
VEHICLE_SUFFIXES = (".sdf", ".urdf", ".xml")
SCANNED: set = set()  # folders found by a directory search in this audit (their set must be complete)


@record
class Difference:
    """One row of the audit table. ``found``/``expected`` as text; ``diff``/``tol`` None when not numeric."""

    file: str
    check: str  # 'content', 'config' or 'formats'
    figure: str
    found: str
    expected: str
    diff: float | None = None
    tol: float | None = None
    note: str = ""


@dataclass
class WorldFile:
    """A generated world (SDF or MJCF): audited by rendering its config afresh."""

    path: Path
    version: str
    config: str  # the world config's file name (header)
    config_sha: str  # its sha256 (header)
    text: str


@dataclass
class Audited:
    """One generated file: its header, specs rows and what it says."""

    path: Path
    version: str
    config: str  # the vehicle config's file name (header)
    config_sha: str  # its sha256 (header)
    rows: dict
    read: object  # aurgen.check.readback.Readback, or None for model.config
    figures: dict  # figure name -> np.ndarray (from the file's content)
    equilibrium: object = None  # the kernel's Equilibrium from the file's content (SDF, MJCF), or None


# ---------------------------------------------------------------- reading

def find_files(paths, foreign: list | None = None, packages: list | None = None) -> list[Path]:
    """Generated vehicle files named by ``paths`` (files, or directories searched recursively).

    Raises AurgenError for a path that does not exist or a directory with no
    generated vehicle file in it. In a directory search, every other file in a
    folder that holds generated files (hidden ones too, but aurgen's marker and
    lock, aurgen.core.outdir.bookkeeping; not under ``report/``) is appended to ``foreign``: a hand-written or garbage file where aurgen's
    files belong is a difference, never silently skipped. A generated ROS package's files (aurgen.check.audit_ros)
    are no vehicle set: its folder goes to ``packages``.
    """
    out = []
    for p in map(Path, paths):
        if p.is_file():
            out.append(p)
        elif p.is_dir():
            files = sorted(f for f in p.rglob("*") if f.is_file() and "report" not in f.relative_to(p).parts[:-1])
            in_pkg = {f: package_of(f) for f in files}
            if packages is not None:
                packages.extend(d for d in dict.fromkeys(in_pkg.values()) if d is not None and d not in packages)
            files = [f for f in files if in_pkg[f] is None]
            found = [f for f in files if _is_vehicle_file(f)]
            if not found and any(in_pkg.values()):
                continue
            if not found:
                raise AurgenError(f"{p}: no generated files (model.sdf, <name>.urdf, <name>.xml, worlds/*) here")
            out.extend(found)
            if foreign is not None:
                folders = {f.parent for f in found}
                SCANNED.update(folders)
                # every other file there, hidden ones too (an edited .blueboat.xml), but aurgen's marker and lock
                foreign.extend(f for f in files if f.parent in folders and f not in found
                               and not bookkeeping(f.name) and not is_sitl_parm(f))
        else:
            raise AurgenError(f"{p}: no such file or directory")
    return list(dict.fromkeys(out))


def is_sitl_parm(f: Path) -> bool:
    """An ArduPilot parameter file aurgen wrote beside a model (``<vehicle>_sitl.parm``, aurgen.emit.ardupilot):
    audited against a fresh build with its set (aurgen.check.audit_fresh.check_parm), not foreign."""
    from aurgen.core.outdir import read_file_nofollow

    data = read_file_nofollow(f) if f.name.endswith("_sitl.parm") else None
    return data is not None and data.startswith(b"# generated by aurgen ")


def is_package(folder: Path) -> bool:
    """Whether ``folder`` is an aurgen-generated ROS package (its package.xml starts with aurgen's header)."""
    try:
        with open(Path(folder) / "package.xml", "rb") as fh:
            return fh.read(len(GENERATED)) == GENERATED
    except OSError:
        return False


def package_of(f: Path) -> Path | None:
    """The generated ROS package ``f`` lies in, or None."""
    return next((folder for folder in Path(f).parents if is_package(folder)), None)


def _is_vehicle_file(f: Path) -> bool:
    """A generated vehicle file, or a generated world file in a ``worlds/`` directory."""
    if f.name.startswith(".") or (f.suffix not in VEHICLE_SUFFIXES and f.name != "model.config"):
        return False
    in_worlds = f.parent.name == "worlds" and f.suffix in (".sdf", ".xml")
    if f.suffix == ".sdf" and f.name != "model.sdf" and not in_worlds:
        return False
    try:
        with f.open("r", encoding="utf-8") as fh:
            return fh.readline().startswith("<!-- generated by aurgen ")
    except (OSError, UnicodeDecodeError):
        return False


def read_file(path: Path):
    """Header, specs rows and content figures of one generated file (an Audited, or a WorldFile);
    AurgenError if unreadable."""
    from aurgen.check import readback
    from aurgen.compose import stamp

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise AurgenError(f"{path}: cannot read: {exc}") from None
    head = stamp.parse_header(text)
    if head is None:
        if stamp.HEADER_RE.match(text):
            raise AurgenError(f"{path}: its header is in an older aurgen's format (no config sha256): "
                              "rebuild it with this aurgen")
        raise AurgenError(f"{path}: no aurgen header line (\"<!-- generated by aurgen ... -->\"): "
                          "not a file aurgen generated")
    if path.name == "model.config":  # no physics: audited by the fresh render and its specs rows
        return Audited(path, *head, stamp.read_rows(text), None, {})
    if path.suffix not in VEHICLE_SUFFIXES:
        raise AurgenError(f"{path}: unknown format (expected .sdf, .urdf or .xml)")
    if re.search(r"<world[ >]", text) or 'name="aurgen:environment"' in text:
        return WorldFile(path, *head, text)
    rows = stamp.read_rows(text)
    if not rows:
        raise AurgenError(f"{path}: no specs comment under the header")
    try:
        rb = readback.read(path)
        mass, com, inertia = rb.mass_properties()
        figures = {"total mass": np.array([mass]), "center of mass": com, "inertia": inertia,
                   "principal inertia": spatial.principal_moments(inertia)}
        if rb.format == "sdf" and "gazebo boxes" in rows:
            # a hull mesh: the SDF carries boxes fitted to it, not the mesh: their part below the
            # design waterline against the row that states it (aurgen.check.audit.check_gazebo_boxes)
            eq = None
        elif rb.format != "urdf":
            V, cob = rb.displaced()
            figures["displaced volume"] = np.array([V])
            figures["center of buoyancy"] = cob
            figures["cob offset"] = cob - com
            eq = file_equilibrium(rb, mass, com, fluid_density(rows))
            if eq is not None:
                figures.update(equilibrium_figures(eq))
        else:
            eq = None
    except AurgenError:
        raise
    except Exception as exc:  # malformed content the reader cannot follow
        raise AurgenError(f"{path}: cannot read the model: {type(exc).__name__}: {exc}") from None
    return Audited(path, *head, rows, rb, figures, eq)


def file_equilibrium(rb, mass: float, com, rho: float | None):
    """The kernel's floating equilibrium of a file's own content, or None without a density.

    The displacement boxes as read back (base_link poses, half sizes), the
    file's total mass and CoM, and ``rho`` (the specs comment's density),
    as ``aurgen.compose.stamp.equilibrium_of`` gives them from the composed vehicle.
    """
    if rho is None or not (rb.displacement or rb.meshes):
        return None
    from aurgen.runtime import hydrostatics as hs

    geoms = [hs.Geom("box", np.asarray(size, dtype=float) / 2, T[:3, 3].copy(), T[:3, :3].copy())
             for size, T in rb.boxes_in_root(rb.displacement)]
    for pts in rb.meshes_in_root():
        half = np.maximum((pts.max(axis=0) - pts.min(axis=0)) / 2, 1e-9)
        geoms.append(hs.Geom("mesh", half, np.zeros(3), np.eye(3), vertices=pts))
    return hs.equilibrium(geoms, float(mass), np.asarray(com, dtype=float), float(rho))


def equilibrium_figures(eq) -> dict:
    """The equilibrium rows' figures in the units the specs comment prints (m, deg); none unless converged."""
    if not eq.converged:
        return {}
    return {"draft": np.array([eq.draft]), "heel": np.array([math.degrees(eq.heel)]),
            "trim": np.array([math.degrees(eq.trim)]), "GM_T": np.array([eq.gm_t]), "GM_L": np.array([eq.gm_l])}


def equilibrium_status(eq=None, draft_row: str | None = None) -> str:
    """The status wording of an equilibrium, or of a specs ``draft`` row (aurgen.compose.specs.rows):
    'floating', 'neutral' or 'none: <status>'."""
    if eq is not None:
        if not eq.converged:
            return f"none: {eq.status}"
        return "neutral" if eq.status == "neutral" else "floating"
    text = (draft_row or "").strip()
    if text.startswith("neutral:"):
        return "neutral"
    m = re.match(r"none: ([^(]*)", text)
    if m:
        return f"none: {m.group(1).strip()}"
    return "floating"


# ---------------------------------------------------------------- parsing specs values

def numbers(text: str) -> list[tuple[float, int]]:
    """(value, decimals printed) of every number in ``text``, in order."""
    out = []
    for m in NUM_RE.finditer(text):
        out.append((float(m.group(0)), len(m.group(1) or "")))
    return out


def printed_tol(decimals: int, value: float) -> float:
    """Half a unit of the last printed digit, plus float noise; none for a value that is not finite
    (an infinity printed as ``1e999`` agrees with nothing)."""
    if not math.isfinite(value):
        return 0.0
    return 0.5 * 10.0 ** (-min(decimals, 300)) + 1e-9 * max(1.0, abs(value))


def fmt_value(v) -> str:
    v = np.atleast_1d(np.asarray(v, dtype=float))
    if v.size == 1:
        return f"{v[0]:.9g}"
    return "[" + ", ".join(f"{x:.9g}" for x in v.ravel()) + "]"


def row_values(rows: dict, label: str, n: int):
    """The first ``n`` numbers of row ``label`` as (values, tolerances), or None if absent/short."""
    if label not in rows:
        return None
    nums = numbers(rows[label])
    if len(nums) < n:
        return None
    vals = np.array([v for v, _ in nums[:n]])
    tols = np.array([printed_tol(d, v) for v, d in nums[:n]])
    return vals, tols


SPEC_FIGURES = (  # (row label, how many numbers, figure key)
    ("total mass", 1, "total mass"),
    ("center of mass", 3, "center of mass"),
    ("principal inertia", 3, "principal inertia"),
    ("displaced volume", 1, "displaced volume"),
    ("center of buoyancy", 3, "center of buoyancy"),
    ("cob offset", 3, "cob offset"),
)
EQ_FIGURES = (  # the floating-equilibrium rows (SDF, MJCF), when the equilibrium converged
    ("draft", 1, "draft"),  # the neutral form's first number is the awash depth
    ("heel", 1, "heel"),
    ("trim", 1, "trim"),
    ("GM_T", 1, "GM_T"),
    ("GM_L", 1, "GM_L"),
)


def fluid_density(rows: dict) -> float | None:
    m = re.search(r"at (" + NUM_RE.pattern + r") kg/m\^3", rows.get("displaced volume", ""), re.ASCII)
    if not m:
        return None
    rho = float(m.group(1))
    return rho if math.isfinite(rho) and rho > 0 else None
