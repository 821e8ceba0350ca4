"""``aurgen audit``: check generated files against their specs comment, their config and each other.

For each generated vehicle file (SDF ``model.sdf``, URDF ``<name>.urdf``,
MJCF ``<name>.xml``; directories are searched for them):

1. **content**: mass, CoM and principal inertia summed over the file's own
   inertials through its joint tree, and the displaced volume and CoB of its
   displacement boxes (aurgen.check.readback), against the rows of its specs
   comment; the part names in the comment against the file's links; for
   SDF and MJCF, the floating equilibrium (``draft``, ``heel``, ``trim``,
   ``GM_T``, ``GM_L`` and its status: floating, neutral or none) solved by
   the hydrostatics kernel from the file's displacement boxes, mass and CoM
   at the comment's fluid density.
2. **config**: the comment's ``config sha256`` against the config named in
   the header line (by file name and sha256, found with
   ``aurgen.config.vehicle.locate_config``: ``--config`` paths, ``./``, ``./vehicles``,
   the bundled ones), composed now (``aurgen.compose.resolve``): a difference
   means the file is stale (rebuild); the comment's figures are compared with
   the freshly composed ones too, to show what changed.
3. **formats**: the files of one vehicle against each other: mass, CoM,
   inertia, displaced volume and CoB (URDF carries no displacement, by
   design).

A printed value is compared within half a unit of its last printed digit;
files against each other within ``REL_TOL`` (numbers are written losslessly).
Exit status: 0 clean, 1 something differs, 2 unreadable input.
"""

from __future__ import annotations

import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from aurgen import __version__
from aurgen.core import spatial
from aurgen.core.errors import AurgenError
from aurgen.core.records import record

NUM_RE = re.compile(r"[-+]?\d+(?:\.(\d*))?(?:[eE][-+]?\d+)?")
MARKER_LINKS = {"hull_displacement", "buoyancy_displacement", "windage"}
REL_TOL = 1e-9  # formats against each other, and file content against exact figures
EQ_SLACK = 1e-8  # equilibrium rows: the kernel solves iteratively (to ~1e-11 m), beyond the printed half unit
VEHICLE_SUFFIXES = (".sdf", ".urdf", ".xml")


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

def find_files(paths, foreign: list | None = None) -> list[Path]:
    """Generated vehicle files named by ``paths`` (files, or directories searched recursively).

    Raises AurgenError for a path that does not exist or a directory with no
    generated vehicle file in it. In a directory search, every other file in a
    folder that holds generated files (not a dot file, not under ``report/``)
    is appended to ``foreign``: a hand-written or garbage file where aurgen's
    files belong is a difference, never silently skipped.
    """
    out = []
    for p in map(Path, paths):
        if p.is_file():
            out.append(p)
        elif p.is_dir():
            files = sorted(f for f in p.rglob("*") if f.is_file() and "report" not in f.relative_to(p).parts[:-1])
            found = [f for f in files if _is_vehicle_file(f)]
            if not found:
                raise AurgenError(f"{p}: no generated files (model.sdf, <name>.urdf, <name>.xml, worlds/*) here")
            out.extend(found)
            if foreign is not None:
                folders = {f.parent for f in found}
                SCANNED.update(folders)
                foreign.extend(f for f in files if f.parent in folders and f not in found
                               and not f.name.startswith("."))
        else:
            raise AurgenError(f"{p}: no such file or directory")
    return list(dict.fromkeys(out))


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
        if rb.format != "urdf":
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
    if rho is None or not rb.displacement:
        return None
    from aurgen.runtime import hydrostatics as hs

    geoms = [hs.Geom("box", np.asarray(size, dtype=float) / 2, T[:3, 3].copy(), T[:3, :3].copy())
             for size, T in rb.boxes_in_root(rb.displacement)]
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
    """Half a unit of the last printed digit, plus float noise."""
    return 0.5 * 10.0 ** (-decimals) + 1e-9 * max(1.0, abs(value))


def _fmt(v) -> str:
    v = np.atleast_1d(np.asarray(v, dtype=float))
    if v.size == 1:
        return f"{v[0]:.9g}"
    return "[" + ", ".join(f"{x:.9g}" for x in v.ravel()) + "]"


def _row_values(rows: dict, label: str, n: int):
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
    m = re.search(r"at ([-+\d.eE]+) kg/m\^3", rows.get("displaced volume", ""))
    return float(m.group(1)) if m else None


# ---------------------------------------------------------------- checks

def _check_figures(a: Audited, figures, slack: float = 0.0,
                   note: str = "recomputed from the file's content vs its specs comment") -> list[Difference]:
    """Content figures against their specs rows, each within its printed half unit (+ ``slack``)."""
    out = []
    f = str(a.path)
    for label, n, key in figures:
        if key not in a.figures:
            continue
        row = _row_values(a.rows, label, n)
        if row is None:
            out.append(Difference(f, "content", label, "(no row)", "a row in the specs comment"))
            continue
        expected, tols = row
        tols = tols + slack
        found = np.atleast_1d(a.figures[key])
        d = np.abs(found - expected)
        bad = ~(d <= tols)  # a nan figure is a difference too
        if np.any(bad):
            i = int(np.argmax(d - tols))  # a nan wins argmax
            out.append(Difference(f, "content", label, _fmt(found), _fmt(expected), float(d[i]), float(tols[i]),
                                  note))
    return out


def check_equilibrium(a: Audited) -> list[Difference]:
    """The floating-equilibrium rows against the kernel's solution from the file's content."""
    if a.equilibrium is None:
        return []
    f = str(a.path)
    if "draft" not in a.rows:
        return [Difference(f, "content", "draft", "(no row)", "a row in the specs comment")]
    found, expected = equilibrium_status(a.equilibrium), equilibrium_status(draft_row=a.rows["draft"])
    if found != expected:
        return [Difference(f, "content", "draft", found, expected,
                           note="equilibrium status recomputed from the file's content vs its specs comment")]
    return _check_figures(a, EQ_FIGURES, EQ_SLACK,
                          "equilibrium recomputed from the file's content vs its specs comment")


def check_content(a: Audited) -> list[Difference]:
    """The file's own content against its specs comment."""
    f = str(a.path)
    out = _check_figures(a, SPEC_FIGURES)
    out.extend(check_equilibrium(a))
    if "displaced volume" in a.figures:
        rho = fluid_density(a.rows)
        V, m = float(a.figures["displaced volume"][0]), float(a.figures["total mass"][0])
        for label in ("net buoyancy", "reserve buoyancy"):
            nums = numbers(a.rows.get(label, ""))
            if rho is None or not nums:
                continue
            (value, dec) = nums[0]
            found = rho * V - m
            # the density is printed rounded: allow its half unit times the volume
            tol = printed_tol(dec, value) + 0.5 * V + printed_tol(6, V) * rho
            if abs(found - value) > tol:
                out.append(Difference(f, "content", label, _fmt(found), _fmt(value), abs(found - value), tol,
                                      "rho V - m from the file's content"))
    parts = a.rows.get("parts")
    if parts is not None and a.read is not None:
        names = set()
        for item in parts.split("; "):
            m = re.fullmatch(r"\s*(\S+) \((.+)\)\s*", item)
            if m:
                names.add(m.group(2))
        links = {n for n, rec in a.read.links.items() if not rec.marker and n not in MARKER_LINKS}
        massive = {n for n in links if a.read.links[n].mass > 0.0}  # frames are massless links (URDF)
        missing, extra = sorted(names - links), sorted(massive - names)
        if missing or extra:
            found = "; ".join(x for x in (f"missing {', '.join(missing)}" if missing else "",
                                          f"extra {', '.join(extra)}" if extra else "") if x)
            out.append(Difference(f, "content", "parts", found, f"{len(names)} part links",
                                  note="the file's links vs the parts list"))
    return out


def _locate(name: str, kind: str, given) -> tuple[str | None, str]:
    """(path of the config a header names, or None; a label for messages)."""
    from aurgen.config.vehicle import locate_config

    found = locate_config(name, kind, given)
    return (None if found is None else str(found)), (name if found is None else str(found))


def check_config(a: Audited, cache: dict, given=()) -> list[Difference]:
    """The specs comment against the config as it composes now (stale files)."""
    from aurgen.compose import specs
    from aurgen.compose.resolve import resolve

    f = str(a.path)
    out = []
    if a.version != __version__:
        out.append(Difference(f, "config", "aurgen version", a.version, __version__,
                              note="generated by another aurgen: rebuild"))
    path, label = _locate(a.config, "vehicles", given)
    if path is None:
        return out + [Difference(f, "config", "config", f"{a.config} not found", "the config the header names",
                                 note="looked in ./, ./vehicles and the bundled vehicles: pass --config PATH")]
    if path not in cache:
        try:
            cache[path] = resolve(path)
        except AurgenError as exc:
            cache[path] = exc
    vehicle = cache[path]
    if isinstance(vehicle, AurgenError):
        return out + [Difference(f, "config", "config", label, "a config that composes",
                                 note=f"cannot compose it now: {vehicle}")]
    sha = a.rows.get("config sha256", "(no row)")
    if sha != vehicle.sha256:
        out.append(Difference(f, "config", "config sha256", sha[:16] + "...", vehicle.sha256[:16] + "...",
                              note=f"stale: {label} (or a part it uses) changed since: rebuild"))
        from aurgen.compose.stamp import equilibrium_of

        fresh = dict(specs.rows(vehicle, equilibrium_of(vehicle)))  # the equilibrium rows too
        for label, value in a.rows.items():
            if label in fresh and label not in ("config sha256", "aurgen version") and fresh[label] != value:
                out.append(Difference(f, "config", label, value, fresh[label],
                                      note="specs comment vs the config composed now"))
    return out


def check_world(w: WorldFile, given=()) -> list[Difference]:
    """A world file against a fresh render of its world config, and its vehicles' files present.

    Worlds carry no specs: the render is deterministic, so any difference is
    a stale world (its config, or a vehicle config it places, changed) or a
    hand edit: a row at its first differing line, then a row per element and
    attribute that differs (aurgen.check.xmldiff, numbers to ``REL_TOL``); a file that
    means the same as the fresh render (whitespace, number notation) is current.
    """
    from aurgen.emit import worlds
    from aurgen.config import world as world_config

    f = str(w.path)
    out = []
    if w.version != __version__:
        out.append(Difference(f, "config", "aurgen version", w.version, __version__,
                              note="generated by another aurgen: rebuild"))
    path, label = _locate(w.config, "worlds", given)
    if path is None:
        return out + [Difference(f, "config", "world", f"{w.config} not found", "the world config the header names",
                                 note="looked in ./, ./worlds and the bundled worlds: pass --config PATH")]
    try:
        world = world_config.load_world(path)
        placed = worlds.place_vehicles(world)
        fresh = worlds.render_mjcf(world, placed) if w.path.suffix == ".xml" else worlds.render_sdf(world, placed)
    except AurgenError as exc:
        return out + [Difference(f, "config", "world", label, "a world config that renders",
                                 note=f"cannot render it now: {exc}")]
    from aurgen.check import xmldiff

    deltas = xmldiff.compare(w.text, fresh, REL_TOL) if fresh != w.text else []
    if deltas != []:  # None: another structure; [] (bytes equal, or the same meaning): current
        a, b = w.text.splitlines(), fresh.splitlines()
        line = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        note = "stale or edited: rebuild with 'aurgen worlds'"
        out.append(Difference(f, "config", "world", f"differs from line {line + 1}", f"a fresh render of {label}",
                              note=note))
        for d in (deltas or [])[:MAX_RENDER_ROWS]:  # what differs, element by element (aurgen.check.xmldiff)
            out.append(Difference(f"{f}:{d.line}", "render", f"{d.element} {d.attribute}", d.found, d.expected,
                                  d.diff, d.tol, note))
    for pl in placed:
        v = pl.vehicle.name
        need = w.path.parent.parent / v / (f"{v}.xml" if w.path.suffix == ".xml" else "model.sdf")
        if not need.is_file():
            out.append(Difference(f, "config", "vehicle files", f"{need} missing", f"the files of {v!r}",
                                  note="the world includes them: build the vehicle into the same root"))
    return out


CROSS = (("total mass", "mass"), ("center of mass", "CoM"), ("inertia", "inertia"),
         ("displaced volume", "displaced volume"), ("center of buoyancy", "CoB"))


def _agree(a, b) -> tuple[bool, float, float]:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    scale = max(1.0, float(np.abs(a).max()), float(np.abs(b).max()))
    d = float(np.abs(a - b).max())
    return d <= REL_TOL * scale, d, REL_TOL * scale


def check_formats(group: list[Audited], content_ok: dict) -> list[Difference]:
    """The files of one vehicle against each other, figure by figure.

    The reference for a figure is the value most files agree on; without a
    majority, the first file whose own content check passed for it (so a
    hand-edited file is the one reported), else the first file.
    """
    out = []
    for key, label in CROSS:
        have = [a for a in group if key in a.figures]  # URDF: no displacement, by design
        if len(have) < 2:
            continue
        votes = [sum(_agree(a.figures[key], b.figures[key])[0] for b in have) for a in have]
        best = max(votes)
        if best > len(have) / 2:
            ref = have[votes.index(best)]
        else:
            ref = next((a for a in have if content_ok.get((a.path, key), True)), have[0])
        for other in have:
            ok, d, tol = _agree(ref.figures[key], other.figures[key])
            if not ok:
                out.append(Difference(str(other.path), "formats", label, _fmt(other.figures[key]),
                                      _fmt(ref.figures[key]), d, tol, note=f"vs {ref.path.name}"))
    shas = [a.rows.get("config sha256") for a in group]
    if len(set(shas)) > 1:
        common = max(set(shas), key=shas.count)
        for a, sha in zip(group, shas):
            if sha != common:
                out.append(Difference(str(a.path), "formats", "config sha256", f"{str(sha)[:16]}...",
                                      f"{str(common)[:16]}...", note="built from another config than its siblings"))
    return out


def _group(files: list[Audited]) -> list[list[Audited]]:
    """Files of one vehicle: the same folder (one vehicle per folder, whatever their headers say,
    so a mixed set is compared). Order: MJCF, SDF, URDF, model.config."""
    order = {".xml": 0, ".sdf": 1, ".urdf": 2, ".config": 3}
    groups: dict = {}
    for a in files:
        groups.setdefault(str(a.path.parent), []).append(a)
    return [sorted(g, key=lambda a: order[a.path.suffix]) for g in groups.values()]


def _fresh(path: str, cache: dict):
    """{file name: text} of a fresh build of the config at ``path`` (cached), or an AurgenError."""
    key = ("fresh", path)
    if key not in cache:
        from aurgen.emit import build
        from aurgen.compose import stamp
        from aurgen.compose.resolve import resolve

        try:
            v = resolve(path)
            cache[key] = (v, build.outputs(v, stamp.equilibrium_of(v)))
        except AurgenError as exc:
            cache[key] = exc
    return cache[key]


def first_difference(got: str, want: str) -> tuple[int, str, str]:
    """(1-based line, found line, expected line) of the first line where two texts differ."""
    a, b = got.splitlines(), want.splitlines()
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i + 1, x.strip(), y.strip()
    i = min(len(a), len(b))
    return i + 1, (a[i].strip() if i < len(a) else "(end of file)"), (b[i].strip() if i < len(b) else "(end of file)")


MAX_RENDER_ROWS = 20  # per file; a file differing in more places gets a row saying how many more


def render_differences(path: Path, body: str, fresh: str, label: str) -> list[Difference]:
    """Rows for a file whose bytes differ from a fresh render (aurgen.check.xmldiff): ``file:line``, the
    element and attribute, found and expected, numbers compared to ``REL_TOL`` relative. A file
    whose structure differs at the root (or that is not XML) gets one row at its first differing
    line; one that means the same as the fresh render (whitespace, number notation) gets none."""
    from aurgen.check import xmldiff

    note = f"differs from a fresh build of {label}: edited, or built otherwise"
    deltas = xmldiff.compare(body, fresh, REL_TOL)
    if deltas is None:
        line, found, expected = first_difference(body, fresh)
        return [Difference(f"{path}:{line}", "render", "content", found, expected, note=note)]
    rows = [Difference(f"{path}:{d.line}", "render", f"{d.element} {d.attribute}", d.found, d.expected, d.diff,
                       d.tol, note) for d in deltas[:MAX_RENDER_ROWS]]
    if len(deltas) > MAX_RENDER_ROWS:
        rows.append(Difference(str(path), "render", "content", f"{len(deltas) - MAX_RENDER_ROWS} more differences",
                               "none", note=note))
    return rows


def check_set(group: list[Audited], cache: dict, given=()) -> list[Difference]:
    """One folder's files against a fresh render of the config their headers name.

    Output is deterministic, so a file equal to the fresh render is right; a file whose bytes
    differ is compared with it by meaning (``render_differences``): an edit of physics, names,
    comments or ``model.config`` is a row naming the line, element and attribute. Also: one
    config for the whole folder (a mixed set is a difference), and every file
    the config builds present.
    """
    out = []
    heads = {(a.config, a.config_sha) for a in group}
    if len(heads) > 1:
        for a in group:
            out.append(Difference(str(a.path), "set", "config", f"{a.config} sha256:{a.config_sha[:12]}...",
                                  "one config for every file in the folder",
                                  note="a mixed set: files from different configs (or builds) in one folder"))
        return out
    name, sha = next(iter(heads))
    path, label = _locate(name, "vehicles", given)
    if path is None:
        return out  # check_config reports the missing config
    got = _fresh(path, cache)
    if isinstance(got, AurgenError):
        return out
    vehicle, fresh = got
    if vehicle.config_sha256 != sha:
        return out  # stale: check_config reports it, row by row
    folder = group[0].path.parent
    have = {a.path.name: a for a in group}
    for fname, text in fresh.items():
        if fname not in have and folder in SCANNED:
            out.append(Difference(str(folder / fname), "set", "file", "missing", f"written by a build of {label}",
                                  note="the set is incomplete: rebuild"))
            continue
        if fname not in have:
            continue
        body = have[fname].path.read_text(encoding="utf-8")
        if body != text:
            out.extend(render_differences(have[fname].path, body, text, label))
    for fname, a in have.items():
        if fname not in fresh:
            out.append(Difference(str(a.path), "set", "file", "present", f"not a file {label} builds",
                                  note="a file of another vehicle in this folder"))
    return out


SCANNED: set = set()  # folders found by a directory search in this audit (their set must be complete)
WORLD_VEHICLE_RE = re.compile(r'<model name="[^"]*" file="\.\./([A-Za-z][A-Za-z0-9_]*)/')


def audit(paths, configs=()) -> tuple[list[Difference], list[str], list[Path]]:
    """(differences, unreadable messages, files audited). ``configs``: paths of the configs the
    files were built from, where the header's file name alone does not find them.

    A world's audit follows the vehicles it attaches: their folders are audited too."""
    files, unreadable, targets, foreign = [], [], [], []
    SCANNED.clear()
    for path in paths:
        try:
            targets.extend(t for t in find_files([path], foreign) if t not in targets)
        except AurgenError as exc:
            unreadable.append(str(exc))
    world_files = []
    i = 0
    while i < len(targets):
        p = targets[i]
        i += 1
        try:
            got = read_file(p)
        except AurgenError as exc:
            unreadable.append(str(exc))
            continue
        if isinstance(got, WorldFile):
            world_files.append(got)
            for v in WORLD_VEHICLE_RE.findall(got.text):
                folder = p.parent.parent / v
                if folder.is_dir():
                    try:
                        targets.extend(t for t in find_files([folder], foreign) if t not in targets)
                    except AurgenError as exc:
                        unreadable.append(str(exc))
        else:
            files.append(got)
    diffs, cache, content_ok = [], {}, {}
    keys = {label: key for label, _, key in SPEC_FIGURES}
    keys["total mass"] = "total mass"
    for a in files:
        found = check_content(a)
        for d in found:
            content_ok[(a.path, keys.get(d.figure, d.figure))] = False
            if d.figure in ("total mass", "center of mass", "principal inertia"):
                content_ok[(a.path, "inertia")] = False
        diffs.extend(found)
        diffs.extend(check_config(a, cache, configs))
    for g in _group(files):
        diffs.extend(check_formats(g, content_ok))
        diffs.extend(check_set(g, cache, configs))
    for f in dict.fromkeys(foreign):
        diffs.append(Difference(str(f), "set", "file", "not an aurgen file", "only files aurgen generated",
                                note="garbage, hand-written, or its header was removed"))
    for w in world_files:
        diffs.extend(check_world(w, configs))
    files = files + world_files
    unreadable.extend(_unused_configs(configs, files))
    order = {a.path: i for i, a in enumerate(files)}
    checks = {"content": 0, "config": 1, "formats": 2, "set": 3, "render": 4}
    diffs.sort(key=lambda d: (order.get(Path(d.file.split(":")[0]), len(order)), checks[d.check]))
    return diffs, unreadable, [a.path for a in files]


def _unused_configs(configs, files) -> list[str]:
    """A ``--config`` path that is not a file, or that no audited file's header names (by file
    name, as :func:`aurgen.config.vehicle.locate_config` matches it): a message each. Silently unused,
    it would let the audit pass against another config of the header's name."""
    named = sorted({a.config for a in files})
    out = []
    for c in configs:
        if not Path(c).is_file():
            out.append(f"--config {c}: {'not a regular file' if Path(c).exists() else 'no such file'}")
        elif Path(c).name not in named:
            out.append(f"--config {c}: no audited file was built from a config named '{Path(c).name}' "
                       f"(their headers name {', '.join(named) or 'none'}); --config is used for the "
                       f"files whose header names its file name: rename it to match, or drop --config")
    return out


# ---------------------------------------------------------------- output

def table(diffs: list[Difference]) -> str:
    """The differences as an aligned text table."""
    head = ("file", "check", "figure", "found", "expected", "difference", "tolerance", "note")
    body = [(d.file, d.check, d.figure, d.found, d.expected,
             "" if d.diff is None else f"{d.diff:.3g}", "" if d.tol is None else f"{d.tol:.3g}", d.note)
            for d in diffs]
    widths = [max(len(r[i]) for r in [head, *body]) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in [head, *body]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _n(k: int, word: str) -> str:
    return f"{k} {word}{'' if k == 1 else 's'}"


def cli_audit(args) -> int:
    diffs, unreadable, files = audit(args.paths, getattr(args, "config", ()) or ())
    status = 2 if unreadable else 1 if diffs else 0
    if getattr(args, "json", False):
        import dataclasses
        import json

        print(json.dumps({"status": ["clean", "differences", "unreadable"][status],
                          "files": [str(f) for f in files], "unreadable": unreadable,
                          "differences": [dataclasses.asdict(d) for d in diffs]}, indent=2))
        return status
    if diffs:
        print(f"aurgen audit: {_n(len(diffs), 'difference')} in {_n(len(files), 'file')}")
        print(table(diffs))
    for msg in unreadable:
        print(f"aurgen: error: {msg}", file=sys.stderr)
    if unreadable:
        return 2
    if diffs:
        return 1
    print(f"aurgen audit: clean ({_n(len(files), 'file')}: specs, config and formats agree; worlds current)")
    return 0
