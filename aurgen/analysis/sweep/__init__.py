"""``aurgen sweep``: a declared family of vehicle variants and their static figures (docs/config.md, "Sweeps").

A sweep file names a base vehicle config and grids and/or seeded distributions
over config keys (payload mass and position, battery slots, catalog masses and
CoM offsets, hull sizes, declared buoyancy). Variant ``i`` is a pure function of
the sweep and ``i``: its mapping is built in memory from the base config, validated
by the same loaders as a file (:func:`aurgen.config.vehicle_from_mapping`,
:func:`aurgen.config.catalog.parse_part`), composed (:func:`aurgen.compose.resolve`) and
given the kernel's equilibrium (:func:`aurgen.compose.stamp.equilibrium_of`), the deck's
freeboard (:func:`aurgen.analysis.stability.freeboard_of`) and, on request, the righting
arm's figures (:mod:`aurgen.analysis.stability`). A variant that does not compose is a row
with its reason.

Layers, one module each, from the bottom up (a module imports only those above it):

- :mod:`aurgen.analysis.sweep.keys`: a swept key's path (:func:`~.keys.parse_key`), its
  column and unit, and setting it in a config mapping or a catalog entry;
- :mod:`aurgen.analysis.sweep.spec`: the sweep file, parsed and validated
  (:func:`~.spec.load_sweep`) into a :class:`~.spec.Sweep`;
- :mod:`aurgen.analysis.sweep.variants`: the variants (:func:`~.variants.values_of`,
  :func:`~.variants.compose_variant`) and the keys checked up front
  (:func:`~.variants.prepare`, :func:`~.variants.check`): pure, no I/O;
- :mod:`aurgen.analysis.sweep.rows`: a variant's row (:func:`~.rows.figures_of`,
  :func:`~.rows.run_chunk`): pure, no I/O;
- :mod:`aurgen.analysis.sweep.table`: the table (:func:`~.table.csv_text`, Parquet): pure;
- :mod:`aurgen.analysis.sweep.journal`: what the journal's sha256 covers (:func:`~.journal.inputs_of`:
  aurgen's version, every catalog entry any variant can use) and a row read back checked
  (:func:`~.journal.row_problem`);
- at the edges: :mod:`aurgen.analysis.sweep.runners` (the journal, the progress line, the
  runners: serial, local processes, Ray), :mod:`aurgen.analysis.sweep.figures` (the PNGs)
  and the command, :mod:`aurgen.analysis.sweep.cli` (:func:`~.cli.cli_sweep`). Every file
  goes through :mod:`aurgen.core.files`.

Restart: rows are appended to ``rows.jsonl`` (first line: the sweep's sha256) as
they are computed; a run on the same folder skips the variants already there (a row
that is not one this sweep computes is recomputed, with a note) and refuses a journal
of another sweep, naming what changed. The table (``sweep.csv``, ``sweep.parquet``)
is sorted by variant index, so it is the same row for row whatever the order of
computation, the chunking or the number of workers.
"""
