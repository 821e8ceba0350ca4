"""``python -m aurgen``: the same as the ``aurgen`` command."""

import sys

from .cli import console

sys.exit(console())
