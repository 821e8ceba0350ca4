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

Reading the files is in :mod:`aurgen.check.audit_files`; the checks against a
fresh composition and render of their config (config, set, worlds) are in
:mod:`aurgen.check.audit_fresh`.

A printed value is compared within half a unit of its last printed digit;
files against each other within ``REL_TOL`` (numbers are written losslessly).
Exit status: 0 clean, 1 something differs, 2 unreadable input.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np

from aurgen.check.audit_files import (EQ_FIGURES, NUM_RE, REL_TOL, SCANNED, SPEC_FIGURES, Audited, Difference, WorldFile,
                                      fmt_value, row_values, equilibrium_status, find_files, fluid_density, numbers,
                                      printed_tol, read_file)
from aurgen.check import audit_report, audit_ros, audit_sweep
from aurgen.check.audit_fresh import check_config, check_set, check_world
from aurgen.core.errors import AurgenError

MARKER_LINKS = {"hull_displacement", "buoyancy_displacement", "windage"}
EQ_SLACK = 1e-8  # equilibrium rows: the kernel solves iteratively (to ~1e-11 m), beyond the printed half unit


# ---------------------------------------------------------------- checks

def _check_figures(a: Audited, figures, slack: float = 0.0,
                   note: str = "recomputed from the file's content vs its specs comment") -> list[Difference]:
    """Content figures against their specs rows, each within its printed half unit (+ ``slack``)."""
    out = []
    f = str(a.path)
    for label, n, key in figures:
        if key not in a.figures:
            continue
        row = row_values(a.rows, label, n)
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
            out.append(Difference(f, "content", label, fmt_value(found), fmt_value(expected), float(d[i]), float(tols[i]),
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


def check_gazebo_boxes(a: Audited) -> list[Difference]:
    """An SDF of a hull mesh: its buoyant boxes' part below the design waterline (the kernel's
    clip of each box read back) against the ``gazebo boxes`` row: count, volume and centroid."""
    row = a.rows.get("gazebo boxes")
    if row is None or a.read is None or a.read.format != "sdf":
        return []
    from aurgen.runtime import hydrostatics as hs

    f = str(a.path)
    num = NUM_RE.pattern.replace("(?:\\.([0-9]*))", "(?:\\.[0-9]*)")  # no inner group
    m = re.match(rf"({num}) boxes .*? at z = ({num}) m in the root link: below it ({num}) m\^3 at "
                 rf"\[({num}), ({num}), ({num})\] m", row, re.ASCII)
    if m is None:
        return [Difference(f, "content", "gazebo boxes", "(unreadable row)", "count, z, volume and CoB")]
    nums = [(float(g), len(g.split(".")[1]) if "." in g else 0) for g in m.groups()]
    n, z = int(nums[0][0]), nums[1][0]
    nums = [nums[0], None, nums[1], *nums[2:]]  # as numbers() would give: count, (per hull), z, V, CoB
    boxes = a.read.boxes_in_root(a.read.displacement)
    if len(boxes) != n:
        return [Difference(f, "content", "gazebo boxes", f"{len(boxes)} boxes", f"{n} boxes",
                           note="the SDF's buoyant boxes vs the specs comment")]
    V, first, area = 0.0, np.zeros(3), 0.0
    for size, T in boxes:
        c = hs.clip(hs.Geom("box", np.asarray(size, float) / 2, T[:3, 3].copy(), T[:3, :3].copy()),
                    (0.0, 0.0, 1.0), z)
        V += c.volume
        first += c.volume * np.asarray(c.centroid, float)
        area += c.area if np.isfinite(c.area) else 0.0
    cob = first / V if V > 0 else first
    dz = printed_tol(nums[2][1], z)  # the waterline is printed rounded: the boxes' part moves with it
    out = []
    for k, (label, found, (want, dec)) in enumerate((("gazebo boxes volume", V, nums[3]),
                                                     *((f"gazebo boxes CoB {'xyz'[i]}", cob[i], nums[4 + i])
                                                       for i in range(3)))):
        tol = printed_tol(dec, want) + (area * dz if k == 0 else dz)
        if not abs(found - want) <= tol:
            out.append(Difference(f, "content", label, fmt_value(found), fmt_value(want), abs(found - want), tol,
                                  "the SDF's boxes below the design waterline vs the specs comment"))
    return out


def check_content(a: Audited) -> list[Difference]:
    """The file's own content against its specs comment."""
    f = str(a.path)
    out = _check_figures(a, SPEC_FIGURES)
    out.extend(check_equilibrium(a))
    out.extend(check_gazebo_boxes(a))
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
            if not (abs(found - value) <= tol and np.isfinite(tol)):
                out.append(Difference(f, "content", label, fmt_value(found), fmt_value(value), abs(found - value), tol,
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


CROSS = (("total mass", "mass"), ("center of mass", "CoM"), ("inertia", "inertia"),
         ("displaced volume", "displaced volume"), ("center of buoyancy", "CoB"))


def _agree(a, b) -> tuple[bool, float, float]:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):  # an infinity agrees with nothing
        return bool(np.array_equal(a, b)), float("inf"), 0.0
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
                out.append(Difference(str(other.path), "formats", label, fmt_value(other.figures[key]),
                                      fmt_value(ref.figures[key]), d, tol, note=f"vs {ref.path.name}"))
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


WORLD_VEHICLE_RE = re.compile(r'<model name="[^"]*" file="\.\./([A-Za-z][A-Za-z0-9_]*)/')


def audit(paths, configs=()) -> tuple[list[Difference], list[str], list[Path]]:
    """(differences, unreadable messages, files audited). ``configs``: paths of the configs the
    files were built from, where the header's file name alone does not find them.

    A world's audit follows the vehicles it attaches: their folders are audited too."""
    files, unreadable, targets, foreign, packages, reports, sweeps = [], [], [], [], [], [], []
    SCANNED.clear()
    for path in paths:
        here = audit_report.reports_in(path)  # report folders (aurgen report), sealed
        reports.extend(r for r in here if r not in reports)
        swept = audit_sweep.sweeps_in(path)  # sweep folders (aurgen sweep), sealed
        sweeps.extend(s for s in swept if s not in sweeps)
        here = here + swept
        if here and (Path(path).is_file() or (Path(path) in here and not (Path(path) / audit_sweep.VARIANTS).is_dir())):
            continue
        try:
            targets.extend(t for t in find_files([path], foreign, packages) if t not in targets)
        except AurgenError as exc:
            if not here:
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
    pkg_configs = []
    for pkg in packages:  # the ROS description packages (aurgen.check.audit_ros)
        found, bad, name = audit_ros.check_package(pkg, cache, configs)
        diffs.extend(found)
        unreadable.extend(bad)
        pkg_configs.append(name)
    for r in reports:
        try:
            diffs.extend(audit_report.check_report(r, cache, configs))
        except AurgenError as exc:
            unreadable.append(str(exc))
    for s in sweeps:
        try:
            diffs.extend(audit_sweep.check_sweep(s, configs))
        except AurgenError as exc:
            unreadable.append(str(exc))
    files = files + world_files
    unreadable.extend(_unused_configs(configs, files, pkg_configs + audit_report.configs_of(reports)
                                      + audit_sweep.configs_of(sweeps)))
    order = {a.path: i for i, a in enumerate(files)}
    checks = {"content": 0, "config": 1, "formats": 2, "set": 3, "render": 4}
    diffs.sort(key=lambda d: (order.get(Path(d.file.split(":")[0]), len(order)), checks[d.check]))
    return diffs, unreadable, ([a.path for a in files] + [pkg / rel for pkg in packages for rel in audit_ros.files_in(pkg)]
                               + [f for r in reports for f in audit_report.files_in(r)]
                               + [f for s in sweeps for f in audit_sweep.files_in(s)])


def _unused_configs(configs, files, also=()) -> list[str]:
    """A ``--config`` path that is not a file, or that no audited file's header names (by file
    name, as :func:`aurgen.config.vehicle.locate_config` matches it): a message each. Silently unused,
    it would let the audit pass against another config of the header's name."""
    named = sorted({a.config for a in files} | {n for n in also if n})  # also: the packages' configs
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
    if diffs:  # the stale figures (the config check) grouped by figure; every other row as it is
        from aurgen.check.audit_table import stale_table

        stale = [d for d in diffs if d.check == "config"]
        rest = [d for d in diffs if d.check != "config"]
        print(f"aurgen audit: {_n(len(diffs), 'difference')} in {_n(len(files), 'file')}"
              + (" (--json for each file's rows)" if stale else ""))
        if rest:
            print(table(rest))
        if stale:
            print(("\n" if rest else "") + stale_table(stale))
    for msg in unreadable:
        print(f"aurgen: error: {msg}", file=sys.stderr)
    if unreadable:
        return 2
    if diffs:
        return 1
    print(f"aurgen audit: clean ({_n(len(files), 'file')}: specs, config and formats agree; worlds current)")
    return 0
