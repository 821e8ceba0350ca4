"""The sweep's table (pure): rows as CSV (:func:`csv_text`: floats in their shortest
round-trip form, booleans true/false, a missing value empty, so the bytes are the same for the
same rows) and as Parquet (:func:`parquet_filler`, with pyarrow). Each column's name ends in its
unit (``_kg``, ``_m``, ``_deg``).
"""

from __future__ import annotations

import csv
import io
import json
import math

from aurgen.analysis.sweep.spec import is_number


def _cell(v) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v) if math.isfinite(v) else ""
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return v
    return json.dumps(v)


def csv_text(columns, rows) -> str:
    """The table as CSV: one header line, rows in the given order; floats in their shortest
    round-trip form, booleans true/false, a missing value empty."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns)
    for r in rows:
        w.writerow([_cell(r.get(c)) for c in columns])
    return buf.getvalue()


def jsonable(row: dict) -> dict:
    return {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in row.items()}


def parquet_filler(columns, rows):
    """A ``fill(tmp)`` writing the table as Parquet, or None without pyarrow."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        return None

    def kind(c):
        vals = [r.get(c) for r in rows if r.get(c) is not None]
        if c == "variant":
            return pa.int64()
        if vals and all(isinstance(v, bool) for v in vals):
            return pa.bool_()
        if vals and all(is_number(v) for v in vals):
            return pa.float64()
        return pa.string()

    def conv(v, t):
        if v is None:
            return None
        if t == pa.float64():
            return float(v)
        if t == pa.string():
            return _cell(v)
        return v

    types = {c: kind(c) for c in columns}
    table = pa.table({c: pa.array([conv(r.get(c), types[c]) for r in rows], type=types[c]) for c in columns})

    def fill(tmp):
        pq.write_table(table, str(tmp))

    return fill
