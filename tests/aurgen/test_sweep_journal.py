"""A sweep's journal (rows.jsonl) trusted only as far as it can be checked: its hash covers every
catalog entry any variant can use and aurgen's version (a part only a swept choice brings in,
changed, is a journal of another sweep); each row read back is checked against the rows this
sweep computes (its columns, their types, the variant's own swept values) and against its digest
(issue 45: over the variant's inputs, its figures and aurgen's version), and one that is not is
dropped and recomputed, with a note; a journal that is a folder, a FIFO or a link is refused.

The reference for a recomputed row is a fresh run of the same sweep in another folder.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from aurgen.analysis.sweep.journal import inputs_of, row_problem
from aurgen.analysis.sweep.variants import prepare, values_of
from aurgen.cli import main
from aurgen.core.resources import data_dir

from sweeptables import num, table, write

SWEEP = "vehicle: blueboat.yaml\ngrid:\n  slot.port_fwd: [none, br_lipo_10ah]\n  parts[payload].xyz[1]: {name: payload_y, values: [0.0, 0.1]}\n"


def _local(tmp_path) -> Path:
    """tmp_path/v: the BlueBoat's config and, in its parts/, a copy of br_lipo_10ah (the base
    fits none: only the swept choice uses it), and the sweep file."""
    v = tmp_path / "v"
    (v / "parts").mkdir(parents=True)
    shutil.copy(data_dir("vehicles") / "blueboat.yaml", v / "blueboat.yaml")
    shutil.copy(data_dir("vehicles") / "parts" / "br_lipo_10ah.yaml", v / "parts" / "br_lipo_10ah.yaml")
    add = "add:\n  - {type: basestation_antenna, name: payload, parent: base_link, xyz: [0.3, 0.0, 0.15]}\n"
    write(v, SWEEP + add, "s.yaml")
    return v


def _run(v, out, *more):
    return main(["sweep", str(v / "s.yaml"), "-o", str(out), "--quiet", "--no-figures", *more])


@pytest.fixture(scope="module")
def done(tmp_path_factory):
    """(v, out, sweep.csv bytes) of one complete run."""
    tmp = tmp_path_factory.mktemp("journal")
    v = _local(tmp)
    assert _run(v, tmp / "ref") == 0
    return v, tmp / "ref", (tmp / "ref" / "sweep.csv").read_bytes()


def test_a_part_only_a_swept_choice_uses_changes_the_sweep(tmp_path, capsys):
    v = _local(tmp_path)
    out = tmp_path / "o"
    assert _run(v, out) == 0
    before = {r["slot_port_fwd"]: num(r["total_mass_kg"]) for r in table(out) if r["payload_y_m"] == "0.0"}
    base = prepare(v / "s.yaml")
    assert "part br_lipo_10ah" in inputs_of(base) and "part basestation_antenna" in inputs_of(base)
    part = v / "parts" / "br_lipo_10ah.yaml"
    text = part.read_text()
    assert "\nmass: 0.750" in text
    part.write_text(text.replace("\nmass: 0.750", "\nmass: 0.950"))
    capsys.readouterr()
    # before: resumed, every row kept, the table of the old part (exit 0)
    assert _run(v, out) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "another sweep" in err and "part br_lipo_10ah" in err, err
    assert _run(v, out, "--fresh") == 0
    after = {r["slot_port_fwd"]: num(r["total_mass_kg"]) for r in table(out) if r["payload_y_m"] == "0.0"}
    assert after["none"] == before["none"]
    assert after["br_lipo_10ah"] == pytest.approx(before["br_lipo_10ah"] + 0.2, abs=1e-9)


def test_a_part_an_add_entry_brings_in_is_covered(tmp_path):
    v = _local(tmp_path)
    shutil.copy(data_dir("vehicles") / "parts" / "basestation_antenna.yaml", v / "parts" / "basestation_antenna.yaml")
    a = prepare(v / "s.yaml").sha256
    p = v / "parts" / "basestation_antenna.yaml"
    p.write_text(p.read_text() + "\n# edited\n")
    assert prepare(v / "s.yaml").sha256 != a


def test_a_swept_type_the_catalog_lacks_then_has(tmp_path):
    v = _local(tmp_path)
    sw = prepare(v / "s.yaml")
    write(v, SWEEP.replace("br_lipo_10ah]", "br_lipo_10ah, my_pack]"), "t.yaml")
    from aurgen.analysis.sweep.spec import load_sweep

    t = load_sweep(v / "t.yaml")
    assert inputs_of(t)["part my_pack"] == "absent"
    shutil.copy(v / "parts" / "br_lipo_10ah.yaml", v / "parts" / "my_pack.yaml")
    assert inputs_of(t)["part my_pack"] == inputs_of(sw)["part br_lipo_10ah"]


def test_aurgen_version_is_in_the_hash(tmp_path, monkeypatch):
    import aurgen

    v = _local(tmp_path)
    a = prepare(v / "s.yaml").sha256
    monkeypatch.setattr(aurgen, "__version__", aurgen.__version__ + ".post1")
    assert prepare(v / "s.yaml").sha256 != a


def _forge(journal: Path, edit):
    lines = journal.read_text().splitlines()
    edit(lines)
    journal.write_text("\n".join(lines) + "\n")


def _row(lines, k, **change):
    r = json.loads(lines[k])
    for c, x in change.items():
        if x is KeyError:
            del r[c]
        else:
            r[c] = x
    lines[k] = json.dumps(r)


FORGERIES = {
    "a number as text": lambda L: _row(L, 1, total_mass_kg="17.3"),
    "a column missing": lambda L: _row(L, 2, safe=KeyError),
    "a column added": lambda L: _row(L, 1, extra_m=1.0),
    "another variant's swept value": lambda L: _row(L, 2, slot_port_fwd="br_liion_18ah"),
    "a swept number moved": lambda L: _row(L, 3, payload_y_m=0.2),
    "a boolean as a number": lambda L: _row(L, 1, capsized=0),
    "a number as a boolean": lambda L: _row(L, 2, com_z_m=True),
    "the variant as text": lambda L: _row(L, 1, variant="0"),
    "the variant as a boolean": lambda L: _row(L, 2, variant=True),
    "a variant past the end": lambda L: _row(L, 1, variant=99),
    "infinity": lambda L: _row(L, 1, draft_m=float("inf")),
    "composed without its figures": lambda L: _row(L, 1, total_mass_kg=None, equilibrium_status=None),
    "no reason and not composed": lambda L: _row(L, 2, composed=False),
    "a line that is not JSON": lambda L: L.__setitem__(3, "garbage"),
    "an array": lambda L: L.__setitem__(1, "[1, 2]"),
    "an incomplete row": lambda L: L.__setitem__(4, '{"variant": 3, "slot_port_fwd": "br_lipo_10ah"}'),
}


@pytest.mark.parametrize("case", sorted(FORGERIES))
def test_a_forged_row_is_recomputed_with_a_note(done, tmp_path, capsys, case):
    v, ref, whole = done
    out = tmp_path / "o"
    shutil.copytree(ref, out)
    _forge(out / "rows.jsonl", FORGERIES[case])
    (out / "sweep.csv").unlink()
    capsys.readouterr()
    assert _run(v, out) == 0
    err = capsys.readouterr().err
    notes = [x for x in err.splitlines() if x.startswith("sweep: note:")]
    assert len(notes) == 1 and "rows.jsonl line" in notes[0] and "recomputed" in notes[0], err
    assert (out / "sweep.csv").read_bytes() == whole
    # the journal was written again with good rows only: a rerun has no note, computes nothing
    rows = [json.loads(x) for x in (out / "rows.jsonl").read_text().splitlines()[1:]]
    assert sorted(r["variant"] for r in rows) == [0, 1, 2, 3]
    assert _run(v, out) == 0
    assert "note" not in capsys.readouterr().err
    assert (out / "sweep.csv").read_bytes() == whole


def test_row_problem_accepts_what_the_sweep_computes(done):
    v, ref, _ = done
    sw = prepare(v / "s.yaml")
    rows = [json.loads(x) for x in (ref / "rows.jsonl").read_text().splitlines()[1:]]
    assert len(rows) == 4
    for r in rows:
        r.pop("digest")  # the journal line's, not a column
        assert row_problem(sw, r, lambda i: values_of(sw, i)) is None
        assert row_problem(sw, r, lambda i: values_of(sw, (i + 1) % 4)) is not None


@pytest.mark.parametrize("kind", ["folder", "fifo", "link", "not utf-8"])
def test_a_journal_that_is_not_a_file_is_refused(done, tmp_path, capsys, kind):
    v, ref, _ = done
    out = tmp_path / "o"
    shutil.copytree(ref, out)
    j = out / "rows.jsonl"
    j.unlink()
    outside = tmp_path / "outside.jsonl"
    outside.write_text((ref / "rows.jsonl").read_text())
    if kind == "folder":
        j.mkdir()
    elif kind == "fifo":
        os.mkfifo(j)
    elif kind == "link":
        j.symlink_to(outside)
    else:
        j.write_bytes(b'{"aurgen_sweep": 1}\n\xff\xfe\n')
    before = sorted((p.name, p.lstat().st_mtime_ns) for p in out.iterdir())
    capsys.readouterr()
    assert _run(v, out) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "rows.jsonl" in err and "Traceback" not in err, err
    assert sorted((p.name, p.lstat().st_mtime_ns) for p in out.iterdir()) == before
    assert outside.read_text() == (ref / "rows.jsonl").read_text()


# rows that row_problem cannot tell from computed ones: right columns, right types, the variant's own
# swept values; only the per-row digest (over the variant's inputs, its figures and aurgen's version) can
PLAUSIBLE = {
    "GM and draft edited": lambda L: _row(L, 2, gm_t_m=99.0, draft_m=0.001),
    "the digest removed": lambda L: _row(L, 1, digest=KeyError),
    "a digest copied from another row": lambda L: _row(L, 3, digest=json.loads(L[1])["digest"]),
    "another version's digest": lambda L: _row(L, 4, digest="0" * 64),
}


@pytest.mark.parametrize("case", sorted(PLAUSIBLE))
def test_a_plausible_edited_row_is_recomputed_with_a_note(done, tmp_path, capsys, case):
    """A row edited by hand to figures of the right kind (GM 99 m, draft 1 mm) survived a resume and was
    reported as computed (issue 45): its digest no longer matches, so it is recomputed, and said so."""
    v, ref, whole = done
    out = tmp_path / "o"
    shutil.copytree(ref, out)
    _forge(out / "rows.jsonl", PLAUSIBLE[case])
    (out / "sweep.csv").unlink()
    capsys.readouterr()
    assert _run(v, out) == 0
    err = capsys.readouterr().err
    notes = [x for x in err.splitlines() if x.startswith("sweep: note:")]
    assert len(notes) == 1 and "rows.jsonl line" in notes[0] and "digest" in notes[0], err
    assert "recomputed" in notes[0], err
    assert (out / "sweep.csv").read_bytes() == whole
    assert "99" not in [c for c in (out / "sweep.csv").read_text().split(",")]
    assert _run(v, out) == 0
    assert "note" not in capsys.readouterr().err


def test_every_journal_row_carries_its_digest(done):
    from aurgen.analysis.sweep.journal import row_digest

    v, ref, _ = done
    sw = prepare(v / "s.yaml")
    rows = [json.loads(x) for x in (ref / "rows.jsonl").read_text().splitlines()[1:]]
    for r in rows:
        d = r.pop("digest")
        assert len(d) == 64 and d == row_digest(sw, r, values_of(sw, r["variant"]))
    assert len({row_digest(sw, r, values_of(sw, r["variant"])) for r in rows}) == len(rows)
