"""Kept for the documented import path ``aurgen.runtime.env``: the module is aurgen.runtime.environment.schema.

This name is the same module object (``aurgen.runtime.env is aurgen.runtime.environment.schema``), so attributes set on
either are seen through both. aurgen's own code imports aurgen.runtime.environment.schema.
"""

import sys

from aurgen.runtime.environment import schema as _module

sys.modules[__name__] = _module
