"""Running a sweep's variants (the I/O edge): the journal ``rows.jsonl`` (first line: the
sweep's sha256; :func:`read_journal` resumes from it and refuses another sweep's), the progress
line on stderr (:class:`Progress`), and the runners: in this process (:func:`run_serial`), on
local processes (:func:`run_pool`, ``-j``) and on Ray (:func:`run_ray`, ``--ray``). Each hands
rows to a ``sink`` in chunks as they finish, in any order; the table is sorted by variant after.
"""

from __future__ import annotations

import itertools
import json
import math
import sys
import time
from pathlib import Path

from aurgen.analysis.sweep.rows import run_chunk
from aurgen.analysis.sweep.spec import Sweep, SweepError

FORMAT = 1  # the journal's format
JOURNAL = "rows.jsonl"


# --------------------------------------------------------------------------- the journal (I/O)


def header_of(sweep: Sweep) -> dict:
    from aurgen.analysis.sweep.journal import inputs_of

    return {"aurgen_sweep": FORMAT, "sha256": sweep.sha256, "sweep": sweep.label, "variants": sweep.n,
            "columns": list(sweep.columns), "inputs": inputs_of(sweep)}


def _journal_text(path: Path) -> str | None:
    """The journal's text (None: there is none); SweepError for a link, a folder, a FIFO or a
    device in its place, or bytes that are not UTF-8 (opened without following a link or blocking)."""
    import os
    import stat

    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise SweepError(f"{path}: cannot read the journal: {exc.strerror or exc}") from None
    if not stat.S_ISREG(st.st_mode):
        kind = "a link" if stat.S_ISLNK(st.st_mode) else "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file"
        raise SweepError(f"{path}: the sweep journal is {kind}; refusing to resume from it or replace it "
                         "(remove it, or give another -o)")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise SweepError(f"{path}: the sweep journal is not a regular file; refusing to resume from it")
            with os.fdopen(os.dup(fd), "rb") as fh:
                data = fh.read()
        finally:
            os.close(fd)
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SweepError(f"{path}: not an aurgen sweep journal (not UTF-8 text: {exc.reason} at byte {exc.start}); "
                         "refusing to resume into it (give another -o, or --fresh to start over)") from None
    except OSError as exc:
        raise SweepError(f"{path}: cannot read the journal: {exc.strerror or exc}") from None


def read_journal(path: Path, sweep: Sweep, notes: list | None = None) -> tuple[dict, bool]:
    """({variant: row}, rewrite) from a journal; ``rewrite``: the journal must be written again with
    the rows kept (a line after the last complete row, an interrupted write, was dropped; or a row
    that is not one this sweep computes, :func:`aurgen.analysis.sweep.journal.row_problem`, or whose
    digest does not match, :func:`~aurgen.analysis.sweep.journal.digest_problem`: each such row is
    dropped, to be recomputed, with a line in ``notes``). SweepError if it is another sweep's
    (naming the inputs that changed) or not a journal."""
    from aurgen.analysis.sweep.journal import DIGEST, changed, digest_problem, inputs_of, row_problem
    from aurgen.analysis.sweep.variants import values_of

    notes = [] if notes is None else notes
    rows: dict = {}
    text = _journal_text(Path(path))
    if text is None:
        return rows, False
    lines = text.split("\n")
    complete = lines[:-1]  # the text after the last newline is a torn write (or empty)
    rewrite = lines[-1] != ""
    if not complete:
        return rows, True
    try:
        head = json.loads(complete[0])
    except ValueError:
        head = None
    if not isinstance(head, dict) or head.get("aurgen_sweep") != FORMAT:
        raise SweepError(f"{path}: not an aurgen sweep journal; refusing to resume into it "
                         "(give another -o, or --fresh to start over)")
    if head.get("sha256") != sweep.sha256:
        what = changed(head.get("inputs"), inputs_of(sweep))
        why = ("changed: " + ", ".join(what[:6]) + (" ..." if len(what) > 6 else "")) if what else \
            "the sweep file, its base config, a catalog part a variant uses or aurgen's version changed"
        raise SweepError(f"{path}: holds the rows of another sweep (sha256 {str(head.get('sha256'))[:12]}, "
                         f"this one {sweep.sha256[:12]}: {why}); "
                         "refusing to resume (give another -o, or --fresh to start over)")
    for n, line in enumerate(complete[1:], start=2):
        try:
            r = json.loads(line)
        except ValueError:
            r, why = None, "is not JSON"
        else:
            digest = r.pop(DIGEST, None) if isinstance(r, dict) else None
            why = row_problem(sweep, r, lambda i: values_of(sweep, i))
            if why is None:  # a row of the right shape: was it computed from these inputs by this aurgen?
                why = digest_problem(sweep, r, digest, values_of(sweep, r["variant"]))
        if why is None and r["variant"] in rows:
            continue  # a second copy of a row (the first is kept)
        if why is not None:
            rewrite = True
            label = f"variant {r['variant']}" if isinstance(r, dict) and type(r.get("variant")) is int else "a row"
            notes.append(f"{path} line {n}: {label} {why}: dropped, recomputed")
            continue
        rows[r["variant"]] = r
    return rows, rewrite


# --------------------------------------------------------------------------- progress


class Progress:
    """One progress line on stderr: rewritten in place on a terminal, a line every few seconds otherwise."""

    def __init__(self, total: int, done: int = 0, stream=None, quiet: bool = False):
        self.stream = stream if stream is not None else sys.stderr
        self.quiet = quiet
        self.total, self.done, self.start, self.failed = total, done, done, 0
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.t0 = self.last = time.monotonic()

    def __call__(self, rows):
        self.done += len(rows)
        self.failed += sum(1 for r in rows if r.get("reason"))
        now = time.monotonic()
        if self.quiet or (not self.tty and now - self.last < 5.0 and self.done < self.total):
            return
        self.last = now
        rate = (self.done - self.start) / max(now - self.t0, 1e-9)
        eta = (self.total - self.done) / rate if rate > 0 else math.inf
        text = (f"sweep: {self.done}/{self.total} variants ({self.failed} with a reason), "
                f"{rate:.1f}/s, {now - self.t0:.0f} s" + (f", ~{eta:.0f} s left" if self.done < self.total else ""))
        end = "\n" if self.done >= self.total or not self.tty else ""
        print(("\r" if self.tty else "") + text, end=end, file=self.stream, flush=True)


# --------------------------------------------------------------------------- runners


def chunks(indices, size: int):
    it = iter(indices)
    while True:
        c = list(itertools.islice(it, size))
        if not c:
            return
        yield c


def run_serial(sweep: Sweep, pending, sink, chunk: int = 16):
    for c in chunks(pending, chunk):
        sink(run_chunk(sweep, c))


def run_pool(sweep: Sweep, pending, sink, jobs: int, chunk: int = 16):
    """Variants in chunks on ``jobs`` local processes (no Ray); rows reach ``sink`` as chunks finish."""
    import concurrent.futures as cf
    import multiprocessing as mp

    ex = cf.ProcessPoolExecutor(max_workers=jobs, mp_context=mp.get_context("spawn"))
    try:
        todo = chunks(pending, chunk)
        futs = {ex.submit(run_chunk, sweep, c) for c in itertools.islice(todo, 4 * jobs)}
        while futs:
            done, futs = cf.wait(futs, return_when=cf.FIRST_COMPLETED)
            for f in done:
                sink(f.result())
            futs |= {ex.submit(run_chunk, sweep, c) for c in itertools.islice(todo, len(done))}
    finally:
        ex.shutdown(wait=True, cancel_futures=True)


def _ray_init(address: str, workers: int | None):
    """Ray, and whether this call connected it (False where the caller's own ``ray.init`` already ran)."""
    try:
        import ray
    except ImportError:
        raise SweepError("--ray needs ray: pip install ray (or pip install '.[scale]' in aurgen's clone)") from None
    if ray.is_initialized():
        return ray, False
    try:
        if address == "local":
            ray.init(num_cpus=workers or None, include_dashboard=False, log_to_driver=False,
                     configure_logging=False)
        else:
            ray.init(address=address, log_to_driver=False, configure_logging=False)
    except Exception as exc:  # noqa: BLE001 (ray raises ConnectionError, ValueError, RuntimeError...)
        raise SweepError(f"--ray {address}: cannot start or reach a Ray cluster: {type(exc).__name__}: "
                         f"{str(exc).splitlines()[0] if str(exc) else ''}") from None
    return ray, True


def run_ray(sweep: Sweep, pending, sink, address: str = "local", workers: int | None = None, chunk: int = 16):
    """Variants in chunks of ``chunk``, one Ray task per chunk; rows reach ``sink`` as tasks finish.

    Where this call connected Ray, it disconnects at the end (``ray.shutdown``, also on an error): the
    local cluster ``--ray local`` started stops, a cluster ``--ray auto`` or an address joined keeps
    running. A caller that ran ``ray.init`` itself keeps its connection."""
    ray, connected = _ray_init(address, workers)
    try:
        task = ray.remote(run_chunk)
        ref = ray.put(sweep)
        cs = list(chunks(pending, chunk))
        in_flight = []
        limit = max(4, 4 * int(ray.cluster_resources().get("CPU", 1)))
        k = 0
        while k < len(cs) or in_flight:
            while k < len(cs) and len(in_flight) < limit:
                in_flight.append(task.remote(ref, cs[k]))
                k += 1
            done, in_flight = ray.wait(in_flight, num_returns=1)
            for d in done:
                sink(ray.get(d))
    finally:
        if connected:
            ray.shutdown()
