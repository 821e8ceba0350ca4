"""The sweep's payload column is ``payload_total_kg`` (it was ``added_mass_kg``, read as hydrodynamic
added mass): the swept box masses the test chose come back in it, beside the swept key's own
``payload_kg``; the old name, given in a sweep file, is refused naming the new one."""

from __future__ import annotations

import io
from contextlib import redirect_stderr

import pytest

from aurgen.cli import main
from aurgen.compose.resolve import resolve

from sweeptables import PAYLOAD_PART, num, table, write


def _sweep(plane: str = "") -> str:
    return f"""vehicle: blueboat.yaml
{PAYLOAD_PART}add:
  - {{type: payload, name: payload, parent: base_link, xyz: [0.299, 0.0, 0.147]}}
grid:
  catalog.payload.mass: {{name: payload, values: [0.0, 1.5, 7.25]}}
  parts[payload].xyz[1]: {{name: payload_y, values: [0.0, 0.2]}}
{plane}"""


def test_payload_total_is_the_mass_added_to_the_base_config(tmp_path):
    path = write(tmp_path, _sweep("plots: {plane: [payload_total_kg, payload_y_m]}\n"))
    assert main(["sweep", str(path), "-o", str(tmp_path / "out"), "--quiet", "--no-figures"]) == 0
    rows = table(tmp_path / "out")
    assert "added_mass_kg" not in rows[0]
    base = float(resolve("blueboat.yaml").specs.total_mass)
    for r in rows:
        m = float(r["payload_kg"])  # the swept box mass, as the test wrote it
        assert m in (0.0, 1.5, 7.25)
        assert num(r["payload_total_kg"]) == pytest.approx(m, abs=1e-9)
        assert num(r["total_mass_kg"]) == pytest.approx(base + m, abs=1e-9)


def test_the_old_column_name_is_refused_naming_the_new(tmp_path):
    path = write(tmp_path, _sweep("plots: {plane: [added_mass_kg, payload_y_m]}\n"))
    err = io.StringIO()
    with redirect_stderr(err):
        assert main(["sweep", str(path), "-o", str(tmp_path / "out"), "--quiet", "--no-figures"]) == 2
    msg = err.getvalue()
    assert "plots.plane" in msg and "'added_mass_kg' is now 'payload_total_kg'" in msg, msg
    assert not (tmp_path / "out" / "sweep.csv").exists()
