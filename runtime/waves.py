"""Kept for the documented import path ``aurgen.runtime.waves``: the module is aurgen.runtime.environment.waves.

This name is the same module object (``aurgen.runtime.waves is aurgen.runtime.environment.waves``), so attributes set on
either are seen through both. aurgen's own code imports aurgen.runtime.environment.waves.
"""

import sys

from aurgen.runtime.environment import waves as _module

sys.modules[__name__] = _module
