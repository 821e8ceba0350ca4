"""Split the test suite into its two tiers from a timed run: writes tests/slow_tests.txt.

    pytest -q -m "slow or not slow" --durations=0 -p no:randomly > durations.log
    python tools/test_tiers.py durations.log [--share 0.2]

Each test's time is its setup, call and teardown summed (pytest's ``--durations=0`` lines; a
session fixture's build counts against the first test that asked for it). The slowest tests go to
the slow tier (tests/slow_tests.txt, one node id a line, sorted) until what is left takes at most
``--share`` of the whole, keeping in the fast tier each test module's quickest test, so every
module still runs under ``pytest -q`` (tests/conftest.py marks the listed ids ``slow``;
pyproject.toml's addopts deselect them; ``pytest -q -m slow`` runs them). A test the log does not
name (a new one) is fast until the list is made again.
"""

from __future__ import annotations

import argparse
import re
from collections import defaultdict
from pathlib import Path

LINE = re.compile(r"^\s*([0-9.]+)s\s+(setup|call|teardown)\s+(\S.*?)\s*$")


def times(log: str) -> dict[str, float]:
    out: dict[str, float] = defaultdict(float)
    for line in log.splitlines():
        m = LINE.match(line)
        if m:
            out[m.group(3)] += float(m.group(1))
    return dict(out)


def split(t: dict[str, float], share: float) -> list[str]:
    """The node ids of the slow tier."""
    total = sum(t.values())
    keep = {}  # per module, its quickest test
    for node, s in t.items():
        mod = node.split("::")[0]
        if mod not in keep or s < t[keep[mod]]:
            keep[mod] = node
    fast = total
    slow = []
    for node in sorted(t, key=lambda n: (-t[n], n)):
        if fast <= share * total:
            break
        if node in keep.values():
            continue
        slow.append(node)
        fast -= t[node]
    return sorted(slow)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("log", type=Path, help="the output of pytest --durations=0")
    ap.add_argument("--share", type=float, default=0.2, help="the fast tier's share of the suite's time")
    ap.add_argument("-o", "--output", type=Path, default=Path(__file__).parents[1] / "tests" / "slow_tests.txt")
    a = ap.parse_args(argv)
    t = times(a.log.read_text(encoding="utf-8"))
    if not t:
        raise SystemExit(f"{a.log}: no --durations=0 lines (run pytest with --durations=0)")
    slow = split(t, a.share)
    a.output.write_text("".join(f"{n}\n" for n in slow), encoding="utf-8")
    total, left = sum(t.values()), sum(s for n, s in t.items() if n not in set(slow))
    print(f"{len(slow)} of {len(t)} tests slow; the fast tier {left:.0f} s of {total:.0f} s ({left / total:.0%})")


if __name__ == "__main__":
    main()
