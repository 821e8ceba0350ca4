"""The numba implementations the native runtime was ported from, kept as test oracles.

``kernel`` (with ``clip_poly`` and ``clip_smooth``): the hydrostatics kernel;
``forces``: the force stage; ``ledger_step``: the health ledger.  They need
numba (in the ``test`` extra); nothing outside the tests imports them.
"""
