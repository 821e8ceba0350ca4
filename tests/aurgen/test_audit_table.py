"""The stale audit table grouped by figure (issue 22): one row per changed figure, old → new, the files
it affects; every line at most 100 columns; ``--json`` keeps each file's rows.

Before, one changed battery printed 49 rows of ~700 characters (12 figures × the 4 vehicle files, and
the ROS package): unreadable in a terminal.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from aurgen.check.audit_table import WIDTH, change
from aurgen.cli import main

ROOT = Path(__file__).resolve().parents[2]
PARTS = "parts:\n  - {slot: port_mid_fwd, type: br_liion_15_6ah}\n"

# (id, edit of blueboat.yaml (old, new) or a local part file, figures that must be rows, a row's change text)
EDITS = [
    ("battery-swapped", ("parts: []\n", PARTS), None,
     {"total mass": "17.300000 → 17.063000 kg", "parts": "br_liion_18ah (port_mid_fwd) → br_liion_15_6ah (port_mid_fwd)",
      "heel": "+0.0349 → +0.1325 deg"}),
    ("battery-removed", ("parts: []\n", "parts:\n  - {slot: port_mid_fwd, type: none}\n"), None,
     {"parts": "br_liion_18ah (port_mid_fwd) → (none)"}),
    ("flag-removed", ("parts: []\n", "parts:\n  - {slot: flag, type: none}\n"), None,
     {"parts": "blueboat_flag (flag) → (none)"}),
    ("pontoon-higher", ("height: 0.18,", "height: 0.2,"), None, {"displaced volume": "→"}),
    ("hull-wider", ("width: 0.18,", "width: 0.2,"), None, {"draft": "→", "GM_T": "→"}),
    ("catalog-battery-heavier", None, "br_liion_18ah", {"total mass": "→"}),
    ("comment-only", ("name: blueboat", "# a comment\nname: blueboat"), None, {"config sha256": "→"}),
]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("stale")
    shutil.copy(ROOT / "vehicles" / "blueboat.yaml", root / "blueboat.yaml")
    assert main(["build", str(root / "blueboat.yaml"), "-o", str(root / "out")]) == 0
    return root



def _width(line: str) -> int:
    """A line's columns without its paths: a path is never cut (aurgen.check.audit_table), and a test's
    temporary folder is as long as pytest makes it (longer under xdist)."""
    return len(re.sub(r"\S*/\S*", "", line))

@pytest.mark.parametrize("case,edit,part,rows", EDITS, ids=[e[0] for e in EDITS])
def test_a_stale_build_is_one_row_per_figure(built, tmp_path, capsys, monkeypatch, case, edit, part, rows):
    work = tmp_path / "w"
    shutil.copytree(built, work)
    cfg = work / "blueboat.yaml"
    if edit is not None:
        text = cfg.read_text()
        assert edit[0] in text
        cfg.write_text(text.replace(edit[0], edit[1], 1))
    if part is not None:  # a local catalog entry (beside the config) that overrides the bundled one
        (work / "parts").mkdir()
        src = (ROOT / "vehicles" / "parts" / f"{part}.yaml").read_text()
        mass = re.search(r"^mass: ([0-9.]+)", src, re.M)
        (work / "parts" / f"{part}.yaml").write_text(src.replace(mass[0], f"mass: {float(mass[1]) + 1.0}", 1))
    capsys.readouterr()
    monkeypatch.chdir(work)
    assert main(["audit", "out", "--config", "blueboat.yaml"]) == 1
    out = capsys.readouterr().out
    lines = out.splitlines()
    lines = lines[next(i for i, x in enumerate(lines) if x.startswith("stale: ")):]  # the stale table
    assert max(map(_width, lines)) <= WIDTH, max(lines, key=_width)
    assert main(["audit", "out", "--config", "blueboat.yaml", "--json"]) == 1
    detail = [d for d in json.loads(capsys.readouterr().out)["differences"] if d["check"] == "config"]
    figures = {d["figure"] for d in detail}
    # one row per changed figure and file set: the figure starts the row, its file set ends it
    table = lines[lines.index(next(x for x in lines if x.startswith("figure "))) + 2:]
    starts = [x.split("  ")[0] for x in table if x and not x[0].isspace()]
    assert sorted(set(starts)) == sorted(figures), out
    assert len(starts) < len(detail) or len(detail) == 1, out  # grouped: fewer rows than the detail
    for d in detail:  # every file the detail names is in a file set above the table
        assert Path(d["file"]).name in out.split("\nfigure ", 1)[0], (d["file"], out)
    for figure, text in rows.items():
        row = " ".join(x.strip() for x in table if x.startswith(figure + " ") or x.startswith(" " * 10))
        assert text in row, (figure, text, out)


@pytest.mark.parametrize("found,expected,want", [
    ("17.300000 kg", "17.063000 kg", "17.300000 → 17.063000 kg"),
    ("[1.0, 2.0] m in the root link", "[1.5, 2.0] m in the root link", "[1.0, 2.0] → [1.5, 2.0] m in the root link"),
    ("+0.0349 deg", "+0.1325 deg", "+0.0349 → +0.1325 deg"),
    ("a (x); b (y); c (z)", "a (x); d (y); c (z)", "b (y) → d (y)"),
    ("a (x); b (y)", "a (x); b (y); e (w)", "(none) → e (w)"),
    ("a (x); b (y); b (z)", "a (x); b (y)", "b (z) → (none)"),
    ("9e0ef26d85348c3a...", "e972fdaab5fa21fe...", "9e0ef26d85348c3a... → e972fdaab5fa21fe..."),
    ("floating", "neutral", "floating → neutral"),
    ("1 kg", "2 kg", "1 → 2 kg"),
    ("same words", "other words", "same → other words"),
])
def test_change_is_written_short(found, expected, want):
    assert change(found, expected) == want


def test_a_long_value_wraps_inside_its_column():
    from aurgen.check.audit_files import Difference
    from aurgen.check.audit_table import stale_table

    d = [Difference(f"out/v/{f}", "config", "center of mass", "[0.022313, -0.001767, 0.068894] m in the root link "
                    "and a long phrase after it that goes on", "[0.021790, -0.006806, 0.069032] m in the root link and "
                    "a long phrase after it that goes on", note="specs comment vs the config composed now")
         for f in ("v.urdf", "v.xml", "model.sdf", "model.config")]
    text = stale_table(d)
    assert max(map(len, text.splitlines())) <= WIDTH, text
    assert sum(1 for x in text.splitlines() if x.startswith("center of mass")) == 1
    assert "[1] out/v/{v.urdf, v.xml, model.sdf, model.config}" in text
