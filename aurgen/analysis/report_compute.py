"""What ``aurgen report`` shows, computed (no files written): the :class:`Report` record and its progress line.

The righting-arm curves (heel; trim for a UUV), the load line, a UUV's balance,
the floating equilibrium at the base part's published payload capacity and the
roll figures, from :mod:`aurgen.analysis.stability`, :mod:`aurgen.analysis.payload`
and :mod:`aurgen.analysis.roll_decay`. SI units, angles rad; frame base_link
(x forward, y port, z up).
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field

import numpy as np

from aurgen.analysis import payload as pl
from aurgen.analysis import stability as st
from aurgen.analysis.roll_decay import roll_figures


# --------------------------------------------------------------------------- progress


class Progress:
    """Stage and count progress on a stream (stderr): a rewritten line on a terminal, stage lines otherwise."""

    def __init__(self, stream=None, quiet: bool = False):
        self.stream = stream if stream is not None else sys.stderr
        self.quiet = quiet
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.stage_name = ""
        self.t0 = time.monotonic()

    def stage(self, name: str):
        self.stage_name = name
        self.t0 = time.monotonic()
        if not self.quiet and not self.tty:
            print(f"report: {name} ...", file=self.stream, flush=True)

    def __call__(self, done: int, total: int):
        if self.quiet or not self.tty:
            return
        end = "\n" if done >= total else ""
        print(f"\rreport: {self.stage_name} {done}/{total} ({time.monotonic() - self.t0:.1f} s)", end=end,
              file=self.stream, flush=True)


# --------------------------------------------------------------------------- the computation


@dataclass
class Report:
    """Everything the report shows (SI units; angles rad)."""

    vehicle: object
    eq: object | None
    heel: st.GZCurve
    trim: st.GZCurve | None
    load: pl.LoadLine
    balance: pl.Balance | None
    roll: dict
    notes: list = field(default_factory=list)
    capacity: dict | None = None  # the vehicle at its base part's published payload capacity (capacity_point)
    criteria: object | None = None  # aurgen.analysis.criteria.Criteria (floating only)
    seakeeping: dict | None = None  # aurgen.analysis.seakeeping.run's (``--seakeeping``), or None

    @property
    def tag(self) -> str:
        return f"{self.vehicle.name} (config {self.vehicle.sha256[:12]})"


def compute(vehicle, payload_at=None, progress: Progress | None = None, roll_decay: bool = True,
            step_deg: float = 1.0, load_samples: int = 41, seakeeping: dict | None = None) -> Report:
    """All the report's figures for a resolved vehicle (no files written); ``seakeeping``: the settings
    (aurgen.analysis.seakeeping.parse_settings) of the seakeeping runs, None for none."""
    progress = progress or Progress(quiet=True)
    body = st.body_of(vehicle)
    uuv = vehicle.displacement.kind == "buoyancy"
    notes = []
    eq = None
    if st.floats(body):
        from aurgen.runtime import hydrostatics as hs

        eq = hs.equilibrium(list(body.geoms), body.mass, body.com, body.rho)
        if not getattr(eq, "converged", True):
            notes.append("the kernel found no converged floating equilibrium")
            eq = None
    progress.stage("righting arm (heel)")
    heel = st.gz_curve(body, "heel", step_deg, progress)
    crit = None
    if eq is not None and not heel.submerged:
        from aurgen.analysis import criteria as cr

        progress.stage("IS Code criteria")
        try:
            crit = cr.evaluate(vehicle, body, heel, eq)
        except ArithmeticError as exc:  # a curve the criteria's interpolant cannot resolve: said, not raised
            notes.append(f"IS Code criteria not evaluated: {exc}")
    trim = None
    if uuv:
        progress.stage("righting arm (trim)")
        trim = st.gz_curve(body, "trim", step_deg, progress)
    at = np.asarray(payload_at, float) if payload_at is not None else pl.default_payload_point(vehicle)
    progress.stage("load line")
    load = pl.load_line(body, at, load_samples, progress)
    balance = pl.uuv_balance(vehicle, at, body) if uuv else None
    capacity = None if uuv else capacity_point(vehicle, body, at)
    progress.stage("roll decay")
    roll = roll_figures(vehicle, body, heel, eq=eq, run=roll_decay, progress=progress)
    sk = None
    if seakeeping is not None:
        from aurgen.analysis import seakeeping as skm

        progress.stage("seakeeping (regular waves, then the irregular sea)")
        sk = skm.run(vehicle, body, eq, seakeeping, progress)
    return Report(vehicle, eq, heel, trim, load, balance, roll, notes, capacity, crit, sk)


def capacity_point(vehicle, body, at) -> dict | None:
    """The floating equilibrium with the base part's published ``payload_capacity`` (kg) at ``at``:
    {payload, draft m, heel rad, trim rad, freeboard m}, or None (no figure, or no upright
    equilibrium: then ``note`` says so)."""
    from aurgen.config.catalog import catalog_for
    from aurgen.runtime import hydrostatics as hs

    base = vehicle.link(vehicle.base).part_type
    cap = catalog_for(vehicle.source).get(base).payload_capacity
    if cap is None:
        return None
    bb = body.with_payload(cap, at)
    e = hs.equilibrium(list(bb.geoms), bb.mass, bb.com, bb.rho)
    if not getattr(e, "converged", True):
        return {"payload": cap, "source": base, "note": "no upright floating equilibrium at this payload"}
    return {"payload": cap, "source": base, "draft": float(e.draft), "heel": float(e.heel), "trim": float(e.trim),
            "freeboard": float(st.freeboard_of(bb, e))}
