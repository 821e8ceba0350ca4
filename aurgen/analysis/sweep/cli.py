"""``aurgen sweep`` (:func:`cli_sweep`): the sweep prepared and checked, its variants run into
the journal under ``build/sweeps/<sweep>/`` (or ``-o``), then the table and the figures written;
``--emit``: each composed variant's files and config (:func:`emit_variants`). Every file goes
through :mod:`aurgen.core.files`.
"""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
from pathlib import Path

from aurgen import __version__
from aurgen.analysis.sweep import summary

from aurgen.analysis.sweep.figures import fig_capsize, fig_distributions, fig_gm
from aurgen.analysis.sweep.journal import journal_line
from aurgen.analysis.sweep.runners import (JOURNAL, Progress, _journal_text, header_of, read_journal, run_pool,
                                          run_ray, run_serial)
from aurgen.analysis.sweep.spec import Sweep, SweepError, plain
from aurgen.analysis.sweep.table import csv_text, parquet_filler
from aurgen.analysis.sweep.variants import compose_variant, prepare, values_of, variant_mapping, variant_name


def emit_variants(sweep: Sweep, rows, out: Path, root: Path | None = None) -> int:
    """Write each composed variant's files (aurgen build's set) under ``out/variants/v<index>/``,
    and its config with, in ``parts/`` beside it, the catalog entries the sweep declares or changes,
    under ``out/variants/v<index>/config/``: ``aurgen specs`` (``build``, ``audit --config``) of that
    config composes the variant again. Returns how many."""
    import yaml

    from aurgen.emit import selfcheck
    from aurgen.compose import stamp
    from aurgen.emit.build import outputs
    from aurgen.core.files import write_set

    n = 0
    for r in rows:
        if not r.get("composed") or r.get("reason"):
            continue
        i = r["variant"]
        values = values_of(sweep, i)
        data, entries, absent = variant_mapping(sweep, values)
        folder = out / "variants" / f"v{i:06d}"
        text = (f"# variant {i} of {sweep.label} (aurgen sweep): {json.dumps(values)}\n"
                + yaml.safe_dump(data, sort_keys=False))
        files = {folder / "config" / variant_name(sweep, i): text}
        part_sha = {}
        for t, (entry, _) in sorted(entries.items()):
            if t not in absent:
                ptext = (f"# {t}: as swept in variant {i} of {sweep.label}\n"
                         + yaml.safe_dump(plain(entry), sort_keys=False))
                files[folder / "config" / "parts" / f"{t}.yaml"] = ptext
                part_sha[t] = hashlib.sha256(ptext.encode()).hexdigest()
        vehicle = compose_variant(sweep, values, i, hashlib.sha256(text.encode()).hexdigest(), part_sha)
        rendered = outputs(vehicle, stamp.equilibrium_of(vehicle))
        selfcheck.check_outputs(rendered, vehicle.source)
        # the model folder first: it is claimed (marked) before its config/ subfolder is made
        write_set({**{folder / f: t for f, t in rendered.items()}, **files}, root=root or out)
        n += 1
    return n


def cli_sweep(args) -> int:
    from aurgen.core.files import append_text, check_dir, write_set
    from aurgen.core.outdir import preflight

    if getattr(args, "jobs", None) is not None and not 1 <= args.jobs <= 1024:
        raise SweepError(f"--jobs wants 1 to 1024 processes, got {args.jobs}")
    if getattr(args, "jobs", None) and args.jobs > 1 and args.ray:
        raise SweepError("--jobs runs local processes, --ray a Ray cluster: give one of them")
    if args.workers is not None and not 1 <= args.workers <= 1024:
        raise SweepError(f"--workers wants 1 to 1024 CPUs, got {args.workers}")
    if args.chunk is not None and not 1 <= args.chunk <= 1_000_000:
        raise SweepError(f"--chunk wants 1 to 1000000 variants per task, got {args.chunk}")
    sweep = prepare(args.sweep, getattr(args, "time_domain", False))
    if args.check:
        print(f"{sweep.path}: {sweep.n} variants over {len(sweep.axes)} keys; every key checked")
        return 0
    out = Path(args.output) if args.output else Path("build") / "sweeps" / Path(sweep.path).stem
    # the default path lies in aurgen's tree: each of its folders from build/ opened without following a link
    root = out if args.output else Path("build")
    check_dir(out)
    preflight((), root, folders=[out])
    journal = out / JOURNAL
    notes: list = []
    rows, torn = ({}, True) if args.fresh else read_journal(journal, sweep, notes)
    for note in notes[:10]:
        print(f"sweep: note: {note}", file=sys.stderr)
    if len(notes) > 10:
        print(f"sweep: note: {len(notes) - 10} more rows of {journal} dropped, recomputed", file=sys.stderr)
    if not journal.exists() or torn:
        # a new journal, or one whose last line was cut short: rewrite it with its complete rows
        text = json.dumps(header_of(sweep)) + "\n" + "".join(
            journal_line(sweep, rows[i], values_of(sweep, i)) for i in sorted(rows))
        write_set({journal: text}, root=root)
    pending = [i for i in range(sweep.n) if i not in rows]
    progress = Progress(sweep.n, done=sweep.n - len(pending), quiet=args.quiet)
    if rows and pending and not args.quiet:
        print(f"sweep: resuming: {len(rows)} of {sweep.n} variants already in {journal}", file=sys.stderr)

    def sink(new):
        append_text(journal, "".join(journal_line(sweep, r, values_of(sweep, r["variant"])) for r in new), root=root)
        for r in new:
            rows[r["variant"]] = r
        progress(new)

    jobs = getattr(args, "jobs", None) or 1
    chunk = args.chunk or max(1, min(64, len(pending) // (8 * (args.workers or jobs or 2)) or 1))
    if args.ray:
        run_ray(sweep, pending, sink, args.ray, args.workers, chunk)
    elif jobs > 1 and pending:
        run_pool(sweep, pending, sink, jobs, chunk)
    else:
        run_serial(sweep, pending, sink, chunk)
    table = [rows[i] for i in range(sweep.n)]
    columns = sweep.columns
    fills = {}
    pq_fill = parquet_filler(columns, table)
    if pq_fill is not None:
        fills["sweep.parquet"] = pq_fill
    if not args.no_figures:
        fills["distributions.png"] = lambda tmp: fig_distributions(sweep, table, tmp)
        fills["gm_t_payload.png"] = lambda tmp: fig_gm(sweep, table, tmp)
        fills["capsize_boundary.png"] = lambda tmp: fig_capsize(sweep, table, tmp)
    # every file rendered first: sweep.md's seal names each one's sha256, and the journal's (aurgen audit)
    blobs = {"sweep.csv": csv_text(columns, table).encode(), JOURNAL: _journal_text(journal).encode()}
    with tempfile.TemporaryDirectory(prefix="aurgen-sweep-") as d:
        for name, fill in fills.items():
            fill(Path(d) / name)
            blobs[name] = (Path(d) / name).read_bytes()
    text = summary.summary(sweep, table, blobs, summary.inputs(sweep, header_of(sweep)["inputs"]), __version__)
    # the journal written again with the bytes its seal hashes; a file of an earlier run this one does not
    # write (figures before --no-figures, Parquet before pyarrow left) removed: the folder is what sweep.md lists
    files = {out / n: (lambda tmp, b=b: Path(tmp).write_bytes(b)) for n, b in blobs.items()}
    write_set(files | {out / summary.NAME: text}, root=root, prune=[out])
    emitted = emit_variants(sweep, table, out, root) if args.emit else 0
    failed = sum(1 for r in table if r.get("reason"))
    print(f"sweep: {sweep.n} variants ({failed} with a reason), table {out / 'sweep.csv'}"
          + ("" if pq_fill else " (no Parquet: pip install pyarrow)")
          + (f"; {emitted} variants' files under {out / 'variants'}" if args.emit else ""))
    return 0
