"""``aurgen audit`` of a sweep's outputs (``aurgen sweep``: by default ``build/sweeps/<sweep>/``).

A sweep is sealed (:mod:`aurgen.core.seal`): its summary ``sweep.md`` lists the sweep's inputs (the
sweep file's, the base config's and every catalog entry's sha256 a variant can use, aurgen's
version) and ends in a seal line naming the sha256 of the journal (``rows.jsonl``), the table
(``sweep.csv``, ``sweep.parquet``) and each figure. The audit reports: sweep.md's text edited; a
file of the set edited, missing, or one the seal does not list (``variants/``, the composed
variants' build sets, is audited as any build); another aurgen's sweep; and, with the sweep file
found by its name (``--config``, ./, ./sweeps, the bundled sweeps) and its base config as
``aurgen sweep`` finds it, each input that changed since: stale, rerun ``aurgen sweep``.
Recomputing the rows would run the sweep again; the seal's hashes are exact and cheap.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from aurgen import __version__
from aurgen.check.audit_files import Difference
from aurgen.check import audit_report
from aurgen.check.audit_report import _read, sealed_files
from aurgen.core import seal as seal_mod
from aurgen.core.errors import AurgenError

SUMMARY = "sweep.md"
TITLE = "# Sweep: "
VARIANTS = "variants"  # the composed variants' build sets (aurgen sweep --emit), audited as builds


def is_sweep(folder: Path) -> bool:
    """Whether ``folder`` holds a sweep aurgen wrote (sweep.md, starting with its title)."""
    return audit_report.titled(folder, SUMMARY, TITLE)


def sweeps_in(path: Path) -> list[Path]:
    """The sweep folders named by ``path`` (a sweep folder or one of its files, or a folder searched)."""
    return audit_report.titled_folders(path, SUMMARY, TITLE, any_file=True)


def _seal_of(folder: Path):
    try:
        got = seal_mod.unseal(_read(Path(folder) / SUMMARY).decode("utf-8"))
    except (AurgenError, UnicodeDecodeError):
        return None
    return got


def _file_sha(p: Path) -> str:
    return "sha256:" + hashlib.sha256(Path(p).read_bytes()).hexdigest()


def inputs_now(recorded: dict, sweep_path: Path) -> dict:
    """The values of the ``recorded`` inputs' keys now (``sweep_path``: the sweep file found); a key
    whose file is not found has the value 'absent'. AurgenError: the sweep file is unreadable."""
    from aurgen.config.catalog import catalog_for
    from aurgen.config.vehicle import sweep_base_path
    from aurgen.core.yamlio import load

    data = load(sweep_path)
    vehicle = data.get("vehicle") if isinstance(data, dict) else None
    base = sweep_base_path(sweep_path, vehicle) if isinstance(vehicle, str) and vehicle else None
    catalog = catalog_for(base) if base is not None else None
    out = {}
    for key in recorded:
        kind, _, name = key.partition(" ")
        if kind == "aurgen":
            out[key] = __version__
        elif kind == "sweep":
            out[key] = _file_sha(sweep_path) if name == sweep_path.name else "absent"
        elif kind == "vehicle":
            out[key] = _file_sha(base) if base is not None and base.name == name else "absent"
        elif kind == "part":
            p = catalog.path_of(name) if catalog is not None else None
            out[key] = "absent" if p is None else _file_sha(p)
    return out


def check_sweep(folder: Path, given=()) -> list[Difference]:
    """The differences of one sweep folder (AurgenError: sweep.md unreadable)."""
    from aurgen.check.audit_fresh import _locate

    md = Path(folder) / SUMMARY
    f = str(md)
    try:
        text = _read(md).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise AurgenError(f"{md}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    got = seal_mod.unseal(text)
    if got is None:
        return [Difference(f, "content", "seal", "no seal line", "aurgen's seal as its last line",
                           note="edited, or written by an older aurgen: rerun aurgen sweep")]
    body, s = got
    out = audit_report.seal_rows(f, s, SUMMARY, "sweep") + sealed_files(folder, s["files"], {SUMMARY, VARIANTS}, "sweep")
    recorded = seal_mod.inputs_of_text(body)
    if seal_mod.inputs_sha(recorded) != s["sha"]:
        return out + ([] if not s["text_ok"] else  # an edit the text's hash missed cannot be: said once
                      [Difference(f, "content", "inputs", "edited", "the inputs its seal hashes")])
    path, label = _locate(s["config"], "sweeps", given)
    if path is None:
        return out + [Difference(f, "config", "sweep file", f"{s['config']} not found", "the sweep the seal names",
                                 note="looked in ./, ./sweeps and the bundled sweeps: pass --config PATH")]
    try:
        now = inputs_now(recorded, Path(path))
    except AurgenError as exc:
        return out + [Difference(f, "config", "sweep file", label, "a sweep file that reads",
                                 note=f"cannot read it now: {exc}")]
    for key in sorted(recorded):
        if now.get(key) != recorded[key]:
            short = [v if len(v) < 24 else v[:23] + "..." for v in (recorded[key], now.get(key, "absent"))]
            out.append(Difference(f, "config", key, short[0], short[1],
                                  note=f"stale: {key.partition(' ')[2] or key} changed since: rerun aurgen sweep "
                                       f"{s['config']}"))
    return out


def configs_of(folders) -> list[str]:
    """The sweep file names the sweeps' seals name (``--config`` is used for them)."""
    return [got[1]["config"] for got in map(_seal_of, folders) if got is not None]


def files_in(folder: Path) -> list[Path]:
    """sweep.md and the files its seal lists (those audited)."""
    got = _seal_of(folder)
    names = sorted(got[1]["files"]) if got else []
    return [Path(folder) / SUMMARY] + [Path(folder) / n for n in names]
