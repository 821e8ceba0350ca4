"""``python -m aurgen``: the same as the ``aurgen`` command."""

import sys

from aurgen.cli import console

sys.exit(console())
