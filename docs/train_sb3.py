"""Moved: the stable-baselines3 training example is now ``examples/train_sb3.py``.

``python docs/train_sb3.py ARGS...`` still works: it says so and runs ``examples/train_sb3.py`` with the
same arguments (``python examples/train_sb3.py --help`` for them).
"""

import runpy
import sys
from pathlib import Path

if __name__ == "__main__":
    target = Path(__file__).resolve().parents[1] / "examples" / "train_sb3.py"
    print(f"docs/train_sb3.py moved to examples/train_sb3.py: running {target}", file=sys.stderr)
    sys.argv[0] = str(target)
    runpy.run_path(str(target), run_name="__main__")
