"""Kept for the documented import path ``aurgen.runtime.health``: the module is aurgen.runtime.sim.health.

This name is the same module object (``aurgen.runtime.health is aurgen.runtime.sim.health``), so attributes set on
either are seen through both. aurgen's own code imports aurgen.runtime.sim.health.
"""

import sys

from aurgen.runtime.sim import health as _module

sys.modules[__name__] = _module
