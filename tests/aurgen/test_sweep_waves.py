"""aurgen sweep --time-domain in a sea: ``time_domain.waves`` and the swept ``waves.*`` keys.

References independent of the sweep code: the regular wave's components written here from
linear theory (a = H/2, omega = 2 pi / T, deep-water k = omega^2 / g along the travel direction),
the same sweep in still water (an undisturbed boat at its equilibrium does not roll), the world
loader's refusal words (aurgen.config.world, docs/config.md "Waves") and ``aurgen audit``.
"""

from __future__ import annotations

import io
import json
import math
from contextlib import redirect_stderr, redirect_stdout

import pytest

from aurgen.analysis import timedomain as td
from aurgen.cli import main

from sweeptables import num, table, write

BEAM_SEA = """vehicle: blueboat.yaml
time_domain:
  duration: 4
  waves: {spectrum: regular, height: 0.2, direction: 90}
grid:
  waves.period: [2, 3]
"""
STILL = """vehicle: blueboat.yaml
time_domain: {duration: 4}
grid:
  time_domain.heel: [0, 0.0]
"""


def _main(args):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        rc = main([str(a) for a in args])
    return rc, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def beam(tmp_path_factory):
    """The two-variant sweep over the period of a regular beam sea, run into build/sweeps/s."""
    work = tmp_path_factory.mktemp("waves")
    write(work, BEAM_SEA, "s.yaml")
    td._MODELS.clear()
    rc, _, err = _main(["sweep", work / "s.yaml", "-o", work / "build" / "sweeps" / "s", "--quiet", "--time-domain"])
    assert rc == 0, err
    envs = [json.loads(k[1]) for k in td._MODELS]  # the environments the variants' models were compiled with
    return work, work / "build" / "sweeps" / "s", envs


def test_each_variant_runs_in_its_own_sea_and_moves_with_it(beam, tmp_path):
    work, out, envs = beam
    rows = table(out)
    assert [r["td_waves_period_s"] for r in rows] == ["2", "3"]
    assert all(r["reason"] == "" and r["composed"] == "true" for r in rows)
    assert [r["td_sea"] for r in rows] == [f"spectrum=regular height=0.2 period={t} direction=90" for t in (2, 3)]
    # each variant's environment carries the regular wave of linear theory on the plane z = 0
    seas = sorted((e["waves"] for e in envs if "waves" in e), key=lambda w: -w["components"][0][1])
    assert len(seas) == 2
    for w, period in zip(seas, (2.0, 3.0)):
        omega = 2 * math.pi / period
        a, om, kx, ky, kz, phase = w["components"][0]
        assert (w["surface"], w["ramp"], len(w["components"])) == (0, 0.0, 1) and "depth" not in w
        assert a == pytest.approx(0.1, rel=1e-15) and om == pytest.approx(omega, rel=1e-15)
        assert (kx, kz, phase) == (0.0, 0.0, 0.0) and ky == pytest.approx(omega ** 2 / 9.81, rel=1e-12)
    # the beam sea rolls the boat; the still-water twin (same runs, no sea, no disturbance) does not
    rolls = [num(r["td_max_roll_deg"]) for r in rows]
    assert min(rolls) > 1.0 and abs(rolls[0] - rolls[1]) > 0.5, rolls
    assert num(rows[0]["td_draft_m"]) != num(rows[1]["td_draft_m"])
    write(tmp_path, STILL, "still.yaml")
    rc, _, err = _main(["sweep", tmp_path / "still.yaml", "-o", tmp_path / "still", "--quiet", "--no-figures",
                        "--time-domain"])
    assert rc == 0, err
    still = table(tmp_path / "still")
    assert "td_sea" not in still[0]  # a sweep without a sea writes the columns it always did
    assert max(num(r["td_max_roll_deg"]) for r in still) < 0.05
    assert max(rolls) > 20 * max(num(r["td_max_roll_deg"]) for r in still)
    md = (out / "sweep.md").read_text()
    assert "in a sea" in md and "`spectrum=regular height=0.2 direction=90`" in md and "`waves.period` swept" in md


def test_a_sweep_in_a_sea_audits_clean(beam):
    work, out, _ = beam
    for target in (work / "build", out, out / "sweep.md"):
        rc, text, err = _main(["audit", "--config", work / "s.yaml", target])
        assert rc == 0 and not err, text + err


def test_an_irregular_sea_and_its_seed_swept(tmp_path):
    """A seed is a whole number (a choice of seeds: distributions draw reals, refused by the world's words)."""
    write(tmp_path, """vehicle: blueboat.yaml
time_domain:
  duration: 2
  waves: {spectrum: jonswap, hs: 0.5, tp: 3, components: 8, direction: 90}
grid:
  waves.seed: [1, 2]
""")
    rc, _, err = _main(["sweep", tmp_path / "sweep.yaml", "-o", tmp_path / "o", "--quiet", "--no-figures",
                        "--time-domain"])
    assert rc == 0, err
    rows = table(tmp_path / "o")
    assert [r["td_sea"].split()[-2:] for r in rows] == [["seed=1", "direction=90"], ["seed=2", "direction=90"]]
    assert rows[0]["td_max_roll_deg"] != rows[1]["td_max_roll_deg"]



def test_the_froude_krylov_method_swept(tmp_path):
    """waves.fk is a sea key like the others: each variant's environment carries the method it names
    (the plugin reads it there), and its row says which; the two methods agree to the moments' bound."""
    write(tmp_path, """vehicle: blueboat.yaml
time_domain:
  duration: 1
  waves: {spectrum: jonswap, hs: 0.5, tp: 3, components: 4, seed: 1, direction: 90}
grid:
  waves.fk: [exact, moments]
""")
    td._MODELS.clear()
    rc, _, err = _main(["sweep", tmp_path / "sweep.yaml", "-o", tmp_path / "o", "--quiet", "--no-figures",
                        "--time-domain"])
    assert rc == 0, err
    assert sorted(json.loads(k[1])["waves"]["fk"] for k in td._MODELS) == ["exact", "moments"]
    rows = table(tmp_path / "o")
    assert [r["td_sea"].split()[-1] for r in rows] == ["fk=exact", "fk=moments"]
    a, b = (num(r["td_max_roll_deg"]) for r in rows)
    assert abs(a - b) <= 1e-3 * max(abs(a), 1e-3)


def test_a_forged_sea_text_is_recomputed_on_resume(beam, tmp_path):
    """``td_sea`` is text the variant's own values determine: a journal row whose td_sea was edited is not
    trusted on a resume (recomputed, with a note), so the table says which sea each row ran in."""
    import shutil

    work, out, _ = beam
    resumed = tmp_path / "s"
    shutil.copytree(out, resumed)
    journal = resumed / "rows.jsonl"
    lines = journal.read_text().splitlines()
    row = json.loads(lines[1])
    row["td_sea"] = "spectrum=regular height=0.01 period=9 direction=0"
    lines[1] = json.dumps(row)
    journal.write_text("\n".join(lines) + "\n")
    (resumed / "sweep.csv").unlink()
    rc, _, err = _main(["sweep", work / "s.yaml", "-o", resumed, "--quiet", "--time-domain"])
    assert rc == 0, err
    notes = [x for x in err.splitlines() if x.startswith("sweep: note:")]
    assert len(notes) == 1 and "td_sea is" in notes[0] and "recomputed" in notes[0], err
    assert [r["td_sea"] for r in table(resumed)] == [f"spectrum=regular height=0.2 period={t} direction=90"
                                                     for t in (2, 3)]

@pytest.mark.parametrize("body, key, words", [
    ("time_domain: {waves: {spectrum: regular, height: 0.2}}\ngrid: {waves.period: [0, 3]}",
     "waves.period", "must be positive"),
    ("time_domain: {waves: {spectrum: regular, height: 0.2, period: 3}}\ngrid: {waves.seed: [1, 2]}",
     "waves.seed", "only for an irregular sea"),
    ("time_domain: {waves: {spectrum: jonswap, hs: 1, tp: 5}}\nrandom: {waves.seed: {uniform: [0, 9]}}\nsamples: 2",
     "waves.seed", "expected a whole number"),
    ("time_domain: {waves: {spectrum: jonswap, hs: 1, tp: 5}}\ngrid: {waves.components: [8, 300]}",
     "waves.components", "from 1 to 256"),
    ("time_domain: {waves: {spectrum: regular, height: 0.2}}\ngrid: {waves.period: [3, 0.5]}",
     "waves.period", "beyond the breaking limit 1/7"),
    ("grid: {waves.period: [2, 3]}", "time_domain.waves.spectrum", "required key is missing"),
    ("time_domain: {waves: {spectrum: regular, height: 0.2, period: 3, gamma: 2}}",
     "time_domain.waves.gamma", "only for spectrum jonswap"),
    ("time_domain: {waves: {surface: surface, spectrum: regular, height: 0.2, period: 3}}",
     "time_domain.waves.surface", "unknown key"),
    ("time_domain: {waves: [1, 2]}", "time_domain.waves", "expected a mapping"),
    ("grid: {waves.bogus: [1]}", "grid.waves.bogus", "a sea key is waves."),
    ("time_domain: {waves: {spectrum: choppy, height: 0.2, period: 3}}",
     "time_domain.waves.spectrum", "must be one of regular, pierson_moskowitz, jonswap"),
    ("time_domain: {waves: {spectrum: jonswap, hs: 0.5, tp: 3}}\ngrid: {waves.fk: [exact, fast]}",
     "waves.fk", "must be one of exact, moments, got 'fast'"),
])
def test_bad_sea_refused_at_the_cli_naming_the_file_and_key(tmp_path, body, key, words):
    p = write(tmp_path, f"vehicle: blueboat.yaml\n{body}\n")
    rc, out, err = _main(["sweep", p, "-o", tmp_path / "o", "--quiet", "--no-figures", "--time-domain"])
    assert rc == 2, out + err
    assert str(p) in err and key in err and words in err, err
    assert "Traceback" not in err and not (tmp_path / "o").exists()


def test_a_swept_sea_key_needs_the_time_domain(tmp_path):
    p = write(tmp_path, "vehicle: blueboat.yaml\ntime_domain: {waves: {spectrum: regular, height: 0.2}}\n"
                        "grid: {waves.period: [2, 3]}\n")
    rc, _, err = _main(["sweep", p, "-o", tmp_path / "o", "--quiet", "--no-figures"])
    assert rc == 2 and "waves.period" in err and "sweep it with --time-domain" in err
    assert not (tmp_path / "o").exists()
