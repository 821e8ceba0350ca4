"""Golden files for the bundled vehicles: byte-compared (reviewed once, by a person).

Regenerate with ``AURGEN_UPDATE_GOLDEN=1 pytest tests/aurgen/test_emit_golden.py``
and review the diff. Files name their config by file name and sha256, never by
folder, so the goldens are the bytes any checkout or install builds: no
normalisation here.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from aurgen.emit.build import build, bundled_vehicles
from aurgen.compose.resolve import resolve

GOLDEN = Path(__file__).parents[1] / "data" / "golden"
UPDATE = os.environ.get("AURGEN_UPDATE_GOLDEN") == "1"
CONFIGS = [str(p) for p in bundled_vehicles()]


@pytest.mark.parametrize("config", CONFIGS, ids=[Path(c).stem for c in CONFIGS])
def test_golden(tmp_path, config):
    v = resolve(config)
    build([config], tmp_path)
    # the vehicle's files (the folder's hidden .aurgen marker is aurgen.core.files' business, not a golden)
    produced = sorted(p for p in (tmp_path / v.name).iterdir() if not p.name.startswith("."))
    parm = [f"{v.name}_sitl.parm"] if v.wiring is not None else []  # ArduPilot wiring: aurgen.emit.ardupilot
    assert [p.name for p in produced] == sorted(["model.sdf", "model.config", f"{v.name}.urdf", f"{v.name}.xml", *parm])
    gdir = GOLDEN / v.name
    if UPDATE:
        gdir.mkdir(parents=True, exist_ok=True)
        for p in produced:
            (gdir / p.name).write_text(p.read_text(encoding="utf-8"), encoding="utf-8", newline="\n")
        return
    if not gdir.is_dir():
        pytest.fail(f"no goldens for {v.name}: run with AURGEN_UPDATE_GOLDEN=1 and review them")
    for p in produced:
        want = (gdir / p.name).read_text(encoding="utf-8")
        got = p.read_text(encoding="utf-8")
        assert got == want, f"{v.name}/{p.name} differs from its golden (AURGEN_UPDATE_GOLDEN=1 to regenerate)"
