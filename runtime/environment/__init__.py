"""The environment a world carries: its schema (planes, cells, gravity field) and its sea.

What a world's ``aurgen:environment`` text may say, checked with the same words as the plugin
(``schema``: aurgen.runtime.native's ENV tables, runtime/native/plugin/schema.h), and the sea's
synthesis (``waves``: dispersion, spectra, the components). Pure Python over numpy; no MuJoCo.
Imported by the world config (aurgen.config.world: a world's ``waves:``), the seakeeping report,
the simulation (aurgen.runtime.sim) and the MuJoCo Warp backend (aurgen.runtime.mjwarp); it
imports only aurgen.core and the compiled core's tables.

Kept at their documented paths: ``aurgen.runtime.env`` is :mod:`aurgen.runtime.environment.schema`,
``aurgen.runtime.waves`` is :mod:`aurgen.runtime.environment.waves` (the same module objects).
"""
