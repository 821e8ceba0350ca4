"""What a sweep's journal (``rows.jsonl``) may be trusted with (pure but for reading the catalog):

- :func:`inputs_of`: every input a variant's row depends on beyond the sweep file and its base
  config: aurgen's version and the file sha256 of every catalog entry any variant can use (the
  base's parts, every part type named by an ``add`` entry, a swept value or choice, a catalog key
  or a sweep part, and the slot defaults and other part types each of those entries names, to
  the end of the chain). A part type that a swept value names but the catalog lacks is recorded
  as absent, so adding it later counts as a change. The sweep's sha256 covers them
  (:func:`aurgen.analysis.sweep.variants.prepare`) and the journal's header lists them, so a
  refusal names what changed (:func:`changed`).
- :func:`row_problem`: why a row read back from the journal is not one this sweep computes
  (its columns, each column's type, the variant's own swept values, a composed row's figures),
  or None; such a row is recomputed, with a note.
- :func:`row_digest` / :func:`journal_line`: each row is written with a ``digest``, the sha256 of a
  canonical JSON of the sweep's sha256 (its file, base config, catalog parts and aurgen's version),
  the variant's own swept values, the row's figures and aurgen's version; :func:`digest_problem`: a
  row read back whose digest is missing or does not match (figures edited by hand, or a row written
  before rows carried one) is recomputed, with a note. It proves the row was written by aurgen from
  these inputs, not that nobody recomputed the sha256: it is a check against edits, not a signature.
"""

from __future__ import annotations

import hashlib
import json
import math

from aurgen.analysis.sweep.spec import FIGURES, Sweep, plain, td_settings

#: columns that hold true/false, and those that hold text; every other figure is a number or empty
BOOLEANS = frozenset({"composed", "capsized", "safe", "is_pass", "td_capsized"})
TEXTS = frozenset({"reason", "equilibrium_status", "td_sea"})
#: what a row that composed and has no reason always has
COMPOSED_NEEDS = ("equilibrium_status", "capsized", "safe", "total_mass_kg", "com_x_m", "com_y_m", "com_z_m",
                  "displaced_volume_m3", "reserve_buoyancy_kg")


def _strings(node, out: set) -> set:
    if isinstance(node, str):
        out.add(node)
    elif isinstance(node, dict):
        for v in node.values():
            _strings(v, out)
    elif isinstance(node, (list, tuple)):
        for v in node:
            _strings(v, out)
    return out


def inputs_of(sweep: Sweep, catalog=None) -> dict:
    """{input: its sha256 or version} (sorted keys): ``aurgen`` and ``part <type>`` for every catalog
    entry any variant of ``sweep`` can use (``absent`` for a swept type the catalog lacks)."""
    from aurgen import __version__
    from aurgen.config.catalog import catalog_for
    from aurgen.core import limits
    from aurgen.core.yamlio import load

    catalog = catalog or catalog_for(sweep.base_path)
    swept = set()
    for a in sweep.axes:
        if a.key.kind == "catalog":
            swept.add(a.key.part_type)
        if a.key.kind != "time":
            _strings(list(a.values or ()) + list(a.params.get("choices", ())), swept)
    todo = sorted(_strings(plain(sweep.base), set()) | _strings(plain(sweep.parts), set()) | swept)
    out, seen = {"aurgen": __version__}, set()
    while todo:
        t = todo.pop()
        if t in seen or t in sweep.parts or limits.bad_name(t) is not None:  # a sweep part: in its file
            continue
        seen.add(t)
        p = catalog.path_of(t)
        if p is None:
            if t in swept and t != "none":
                out[f"part {t}"] = "absent"
            continue
        out[f"part {t}"] = hashlib.sha256(p.read_bytes()).hexdigest()
        todo.extend(sorted(_strings(plain(load(p)), set()) - seen))
    return dict(sorted(out.items()))


def changed(old, new: dict) -> list:
    """The inputs that differ between a journal header's ``inputs`` and this run's (names only)."""
    if not isinstance(old, dict):
        return []
    return [k for k in sorted(set(old) | set(new)) if old.get(k) != new.get(k)]


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _same(a, b) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _sea_problem(sweep: Sweep, row: dict, values: dict) -> str | None:
    """Why the row's ``td_sea`` is not the text its variant's sea is described by, or None."""
    from aurgen.analysis.sea import describe

    try:
        want = describe(td_settings(sweep, values).get("waves") or {})
    except ValueError:
        want = None  # a sea these values break: the run gives a reason, never a td_sea
    if row["td_sea"] != want:
        return f"td_sea is {json.dumps(row['td_sea'])[:40]}, variant {row['variant']}'s sea is {json.dumps(want)[:40]}"
    return None


def row_problem(sweep: Sweep, row, values_of) -> str | None:
    """Why ``row`` (read back from the journal) is not a row of ``sweep``, or None. ``values_of``:
    a variant's own swept values ({column: value}) from its index
    (:func:`aurgen.analysis.sweep.variants.values_of` with the sweep)."""
    from aurgen.analysis.sweep.table import jsonable

    if not isinstance(row, dict):
        return f"is a JSON {type(row).__name__}, not an object"
    columns = set(sweep.columns)
    missing, extra = sorted(columns - set(row)), sorted(set(row) - columns)
    if missing:
        return f"lacks the column(s) {', '.join(missing[:4])}" + (" ..." if len(missing) > 4 else "")
    if extra:
        return f"has column(s) this sweep does not compute: {', '.join(map(str, extra[:4]))}"
    i = row["variant"]
    if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < sweep.n:
        return f"variant {i!r}: not a variant of this sweep (0 to {sweep.n - 1})"
    values = jsonable(values_of(i))
    for c, v in values.items():
        if not _same(row[c], v):
            return f"{c} is {json.dumps(row[c])[:40]}, variant {i}'s value is {json.dumps(v)[:40]}"
    for c in sweep.columns:
        if c == "variant" or c in values:
            continue
        v = row[c]
        if v is None:
            continue
        if c in BOOLEANS and not isinstance(v, bool):
            return f"{c} is {json.dumps(v)[:40]}: expected true, false or null"
        if c in TEXTS and not isinstance(v, str):
            return f"{c} is {json.dumps(v)[:40]}: expected text or null"
        if c not in BOOLEANS | TEXTS and not _is_number(v):
            return f"{c} is {json.dumps(v)[:40]}: expected a number or null"
    if not isinstance(row["composed"], bool) or not isinstance(row["reason"], str):
        return "composed and reason are not a boolean and a text"
    if row.get("td_sea") is not None:  # a text the row's own values determine: the variant's sea, described
        why = _sea_problem(sweep, row, values)
        if why:
            return why
    if not row["composed"]:
        if not row["reason"]:
            return "did not compose and gives no reason"
        if any(row[c] is not None for c in FIGURES if c not in ("composed", "reason")):
            return "did not compose, yet has figures"
    elif not row["reason"]:
        empty = [c for c in COMPOSED_NEEDS if row[c] is None]
        if empty:
            return f"composed without a reason, yet {', '.join(empty[:4])} empty"
    return None


#: the key of a journal line holding its row's digest (not a column: dropped when the row is read back)
DIGEST = "digest"


def _canonical(obj) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)


def row_digest(sweep: Sweep, row: dict, values: dict) -> str:
    """The sha256 of ``row`` (jsonable, as read back: no digest) with what it was computed from: the sweep's
    sha256, the variant's own swept ``values`` (aurgen.analysis.sweep.variants.values_of) and aurgen's version."""
    from aurgen import __version__
    from aurgen.analysis.sweep.table import jsonable

    inputs = jsonable(values)
    blob = {"aurgen": __version__, "sweep": sweep.sha256, "variant": row["variant"], "inputs": inputs, "row": row}
    return hashlib.sha256(_canonical(blob).encode()).hexdigest()


def journal_line(sweep: Sweep, row: dict, values: dict) -> str:
    """``row``'s journal line (with its digest, and a newline); ``values`` its variant's swept values."""
    from aurgen.analysis.sweep.table import jsonable

    r = json.loads(json.dumps(jsonable(row)))  # the row as it reads back
    r.pop(DIGEST, None)
    return json.dumps({**r, DIGEST: row_digest(sweep, r, values)}) + "\n"


def digest_problem(sweep: Sweep, row: dict, digest, values: dict) -> str | None:
    """Why a row read back (valid by :func:`row_problem`, its ``digest`` taken out) cannot be trusted as
    computed by this aurgen from its variant's inputs (``values``: its swept values), or None."""
    from aurgen import __version__

    if digest is None:
        return "has no digest (a row written before aurgen recorded one, or edited)"
    if digest != row_digest(sweep, row, values):
        return (f"does not match its digest (its figures edited, or written by another aurgen than {__version__} "
                "or for other inputs)")
    return None
