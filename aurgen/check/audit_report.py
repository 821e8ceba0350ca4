"""``aurgen audit`` of a report folder (``aurgen report``: report.md and its PNGs, by default
``build/<vehicle>/report/``); the file-set check (:func:`sealed_files`) serves a sweep's outputs too
(:mod:`aurgen.check.audit_sweep`).

A report is sealed (:mod:`aurgen.core.seal`): report.md's last line names the config it was made
from (file name, the composed vehicle's sha256), each PNG's sha256 and that of its own text. The
audit reads the seal and reports: report.md's text edited; a PNG edited, missing, or one the seal
does not list; another aurgen's report; and, composing the config the seal names now (found as a
vehicle file's header names it: ``--config``, ./, ./vehicles, the bundled ones), a report made from
a config (or a part it uses) that has changed since: stale, rerun ``aurgen report``. Comparing a
re-render would take the report's runs again (about 10 s, a roll-decay run in the runtime); the
seal's hashes are exact and cheap.
"""

from __future__ import annotations

from pathlib import Path

from aurgen import __version__
from aurgen.check.audit_files import Difference
from aurgen.core import seal as seal_mod
from aurgen.core.errors import AurgenError

REPORT = "report.md"
TITLE = "# Stability and trim report: "


def seal_rows(f: str, s: dict, name: str, command: str) -> list[Difference]:
    """The rows of a seal ``s`` (aurgen.core.seal.unseal) of summary ``name`` in file ``f`` that need no
    other file: another aurgen's, and the text edited since (rerun ``aurgen <command>``)."""
    out = []
    if s["version"] != __version__:
        out.append(Difference(f, "config", "aurgen version", s["version"], __version__,
                              note=f"made by another aurgen: rerun aurgen {command}"))
    if not s["text_ok"]:
        out.append(Difference(f, "content", "text", "edited", "the text its seal hashes",
                              note=f"{name} changed since aurgen wrote it: rerun aurgen {command}"))
    return out


def titled(folder: Path, name: str, title: str) -> bool:
    """Whether ``folder/name`` is a summary aurgen wrote: it starts with ``title`` (report.md, sweep.md)."""
    try:
        with open(Path(folder) / name, "rb") as fh:
            return fh.read(len(title)) == title.encode()
    except OSError:
        return False


def titled_folders(path: Path, name: str, title: str, any_file: bool = False) -> list[Path]:
    """The folders ``path`` names whose ``name`` is titled ``title``: ``path`` itself, its folder when
    it is that summary (or, with ``any_file``, any file of such a folder), or every one below it."""
    p = Path(path)
    if p.is_file():
        return [p.parent] if (any_file or p.name == name) and titled(p.parent, name, title) else []
    if not p.is_dir():
        return []
    return sorted({f.parent for f in p.rglob(name) if titled(f.parent, name, title)})


def is_report(folder: Path) -> bool:
    """Whether ``folder`` holds a report aurgen wrote (report.md, starting with its title)."""
    return titled(folder, REPORT, TITLE)


def reports_in(path: Path) -> list[Path]:
    """The report folders named by ``path`` (a report folder or its report.md, or a folder searched)."""
    return titled_folders(path, REPORT, TITLE)


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise AurgenError(f"{path}: cannot read: {exc.strerror or exc}") from None


def sealed_files(folder: Path, listed: dict, own: set, what: str) -> list[Difference]:
    """The files of a sealed ``folder`` against its seal's ``listed`` ({name: sha256}): one edited, one
    missing, or one it does not list (hidden ones too; aurgen's marker and lock and the ``own`` names, the
    sealed text's and folders audited otherwise, aside); ``what``: 'report' or 'sweep' (the command to rerun)."""
    from aurgen.core.outdir import bookkeeping

    sealed = {"report": REPORT}.get(what, f"{what}.md")
    on_disk = sorted(p.name for p in Path(folder).iterdir() if not bookkeeping(p.name) and p.name not in own)
    out = []
    for name in sorted(set(on_disk) | set(listed)):
        p = Path(folder) / name
        if name not in listed:
            out.append(Difference(str(p), "set", "file", f"not in the {what}", f"only the files {sealed}'s seal lists",
                                  note=f"garbage, hand-written, or from another {what}"))
        elif name not in on_disk:
            out.append(Difference(str(p), "set", "file", "missing", f"the file {sealed}'s seal lists",
                                  note=f"removed since: rerun aurgen {what}"))
        elif not p.is_file() or p.is_symlink() or seal_mod.sha(_read(p)) != listed[name]:
            out.append(Difference(str(p), "content", "file sha256", "edited", listed[name][:16] + "...",
                                  note=f"changed since aurgen wrote it: rerun aurgen {what}"))
    return out


def check_report(folder: Path, cache: dict, given=()) -> list[Difference]:
    """The differences of one report folder (AurgenError: report.md unreadable)."""
    from aurgen.check.audit_fresh import composed

    md = Path(folder) / REPORT
    try:
        text = _read(md).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise AurgenError(f"{md}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    got = seal_mod.unseal(text)
    f = str(md)
    if got is None:
        return [Difference(f, "content", "seal", "no seal line", "aurgen's seal as its last line",
                           note="edited, or written by an older aurgen: rerun aurgen report")]
    _, s = got
    out = seal_rows(f, s, REPORT, "report") + sealed_files(folder, s["files"], {REPORT}, "report")
    vehicle, label, missing = composed(s["config"], f, "seal", cache, given)
    if vehicle is None:
        return out + missing
    if s["sha"] != vehicle.sha256:
        out.append(Difference(f, "config", "config sha256", s["sha"][:16] + "...", vehicle.sha256[:16] + "...",
                              note=f"stale: {label} (or a part it uses) changed since: rerun aurgen report"))
    return out


def _seal_of(folder: Path):
    try:
        got = seal_mod.unseal(_read(Path(folder) / REPORT).decode("utf-8"))
    except (AurgenError, UnicodeDecodeError):
        return None
    return None if got is None else got[1]


def configs_of(folders) -> list[str]:
    """The config file names the reports' seals name (``--config`` is used for them)."""
    return [s["config"] for s in map(_seal_of, folders) if s is not None]


def files_in(folder: Path) -> list[Path]:
    """report.md and the files its seal lists (those audited)."""
    s = _seal_of(folder)
    return [Path(folder) / REPORT] + [Path(folder) / n for n in sorted(s["files"]) if s] if s else [Path(folder) / REPORT]
