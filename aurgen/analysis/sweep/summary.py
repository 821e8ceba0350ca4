"""A sweep's summary, ``sweep.md``, written last beside its table (:func:`summary`): what was swept,
how many variants and how many with a reason, the files and the sweep's inputs (the sweep file's,
the base config's and every catalog entry's sha256 a variant can use, aurgen's version), ending in a
seal line (:mod:`aurgen.core.seal`) naming the sha256 of each file of the set (the journal, the
table, the figures), so ``aurgen audit`` (:mod:`aurgen.check.audit_sweep`) can say that one was
edited, added or removed, or that an input changed since (stale: rerun ``aurgen sweep``).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from aurgen.analysis.sweep.spec import Sweep
from aurgen.core import seal

NAME = "sweep.md"
TITLE = "# Sweep: "
WHAT = {"rows.jsonl": "the journal: one JSON row per variant, the table's source (resumed from)",
        "sweep.csv": "the table: one row per variant", "sweep.parquet": "the table as Parquet",
        "distributions.png": "each figure's distribution", "gm_t_payload.png": "GM_T against the payload",
        "capsize_boundary.png": "safe and unsafe variants in the plots: plane"}


def inputs(sweep: Sweep, header_inputs: dict) -> dict:
    """{input: value} for the seal: ``sweep <file>`` and ``vehicle <file>`` (their sha256), and the
    journal header's (``aurgen``: its version; ``part <type>``: the catalog file's sha256 or absent)."""
    def file_sha(p):
        return "sha256:" + hashlib.sha256(Path(p).read_bytes()).hexdigest()

    out = {f"sweep {Path(sweep.path).name}": file_sha(sweep.path),
           f"vehicle {Path(sweep.base_path).name}": file_sha(sweep.base_path)}
    for k, v in header_inputs.items():
        out[k] = v if k == "aurgen" or v == "absent" else f"sha256:{v}"
    return dict(sorted(out.items()))


def summary(sweep: Sweep, table: list, blobs: dict, ins: dict, version: str) -> str:
    """sweep.md's text with its seal line; ``blobs``: {file name: bytes} of the set's other files."""
    failed = sum(1 for r in table if r.get("reason"))
    keys = ", ".join(f"`{a.key.text}` (column `{a.column}`)" for a in sweep.axes) or "none"
    lines = [f"{TITLE}{sweep.label}", "",
             f"{sweep.n} variants of {Path(sweep.base_path).name} ({failed} with a reason), swept keys: {keys}.",
             "", "| file | what |", "|---|---|"]
    if sweep.time_domain and sweep.sea:  # the runs' sea: the declared keys, the swept ones per row (td_sea)
        from aurgen.analysis.sea import describe

        swept = [a.key.text for a in sweep.axes if a.key.kind == "time" and a.key.tokens[0] == "waves"]
        lines[3:3] = ["", f"The time-domain runs are in a sea (docs/config.md, Waves): "
                      f"`{describe(sweep.td.get('waves') or {}) or 'none declared'}`"
                      + (f", with {', '.join(f'`{k}`' for k in swept)} swept" if swept else "")
                      + "; column `td_sea` names each variant's."]
    lines += [f"| {n} | {WHAT.get(n, '')} |" for n in sorted(blobs)]
    lines += ["", "The inputs every row depends on; `aurgen audit` says the sweep is stale when one changes",
              "(rerun `aurgen sweep`), and names any file of the set edited, missing or added:", ""]
    text = "\n".join(lines) + "\n" + seal.inputs_text(ins) + "\n"
    return seal.seal(text, version, Path(sweep.path).name, seal.inputs_sha(ins), blobs)
