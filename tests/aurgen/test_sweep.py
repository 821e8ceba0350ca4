"""aurgen sweep: variants composed in memory, their static figures, the table, restart and Ray.

References are independent of the sweep's own code: the report's load line
(aurgen.analysis.payload.load_line adds a point mass to the composed body; the sweep
composes a catalog part through the config loaders), ``aurgen specs --json``, and
the config loaders' own refusal of an invalid combination.
"""

from __future__ import annotations

import io
import json
import math
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from aurgen.analysis import payload as pl, stability as stb
from aurgen.cli import main
from aurgen.compose.resolve import resolve
from aurgen.analysis.sweep.keys import parse_key
from aurgen.analysis.sweep.spec import load_sweep
from aurgen.analysis.sweep.variants import prepare, values_of

from sweeptables import PAYLOAD_PART, have_ray, num, run_aurgen, run_python, table, write


def _payload_at():
    v = resolve("blueboat.yaml")
    return [float(c) for c in pl.default_payload_point(v)]


@pytest.fixture(scope="module")
def payload_sweep(tmp_path_factory):
    """200 payload masses 0..30 kg at the BlueBoat's payload slot, through the CLI."""
    tmp = tmp_path_factory.mktemp("payload")
    at = _payload_at()
    path = write(tmp, f"""vehicle: blueboat.yaml
{PAYLOAD_PART}add:
  - {{type: payload, name: payload, parent: base_link, xyz: {json.dumps(at)}}}
grid:
  catalog.payload.mass: {{name: payload, from: 0, to: 30, num: 200}}
""")
    out = tmp / "out"
    assert main(["sweep", str(path), "-o", str(out), "--quiet"]) == 0
    return path, out, table(out)


def test_payload_sweep_boundary_agrees_with_the_load_line(payload_sweep):
    _, out, rows = payload_sweep
    assert len(rows) == 200 and all(r["composed"] == "true" and r["reason"] == "" for r in rows)
    v = resolve("blueboat.yaml")
    ll = pl.load_line(stb.body_of(v), pl.default_payload_point(v))
    assert ll.zero_freeboard is not None and 0 < ll.zero_freeboard < 30
    # the sweep's boundary: the first grid interval where the deck goes under, freeboard's linear zero
    m = [float(r["payload_kg"]) for r in rows]
    fb = [num(r["freeboard_m"]) for r in rows]
    k = next(i for i in range(199) if fb[i] is not None and fb[i] > 0 and (fb[i + 1] is None or fb[i + 1] <= 0))
    assert m[k] < ll.zero_freeboard <= m[k + 1]
    zero = m[k] + (m[k + 1] - m[k]) * fb[k] / (fb[k] - fb[k + 1])
    spacing = 30.0 / 199
    assert abs(zero - ll.zero_freeboard) < 0.05 * spacing
    # the safe flag flips there, once: below it every variant is safe, above it none is
    safe = [r["safe"] == "true" for r in rows]
    assert all(safe[: k + 1]) and not any(safe[k + 1:])
    # draft against the load line's samples (linear interpolation of the sweep's 200 points)
    import numpy as np

    dr = np.interp(ll.payload[ll.converged], m, [num(r["draft_m"]) or np.nan for r in rows])
    ok = ll.payload[ll.converged] < m[k]
    assert np.nanmax(np.abs(dr[ok] - ll.draft[ll.converged][ok])) < 1e-4
    for fig in ("distributions.png", "gm_t_payload.png", "capsize_boundary.png"):
        assert (out / fig).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_default_loadout_equals_aurgen_specs(payload_sweep):
    _, _, rows = payload_sweep
    r = rows[0]
    assert float(r["payload_kg"]) == 0.0
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert main(["specs", "blueboat.yaml", "--json"]) == 0
    s = json.loads(buf.getvalue())
    assert r["equilibrium_status"] == s["equilibrium_status"] == "floating"
    assert float(r["total_mass_kg"]) == s["total_mass"]
    assert [float(r[f"com_{a}_m"]) for a in "xyz"] == s["center_of_mass"]
    assert float(r["displaced_volume_m3"]) == s["displaced_volume"]
    assert float(r["reserve_buoyancy_kg"]) == s["reserve_buoyancy"]
    assert float(r["draft_m"]) == s["draft"]
    assert float(r["heel_deg"]) == math.degrees(s["heel"])
    assert float(r["trim_deg"]) == math.degrees(s["trim"])
    assert float(r["gm_t_m"]) == s["gm_t"]
    assert float(r["gm_l_m"]) == s["gm_l"]
    assert float(r["payload_total_kg"]) == 0.0


RANDOM = """vehicle: blueboat.yaml
seed: SEED
samples: 6
PAYLOAD_PART
add:
  - {type: payload, name: payload, parent: base_link, xyz: [0.3, 0.0, 0.15]}
grid:
  parts[payload].xyz[1]: {name: payload_y, values: [0.0, 0.2]}
random:
  catalog.payload.mass: {name: payload, uniform: [0, 25]}
  catalog.blueboat_chassis.com[2]: {normal: {mean: 0.0725, std: 0.01}}
  slot.port_fwd: {choice: [none, br_liion_18ah, br_lipo_10ah]}
  hull_displacement.length: {uniform: [1.0, 1.1]}
""".replace("PAYLOAD_PART\n", PAYLOAD_PART)


def _random(seed) -> str:
    return RANDOM.replace("SEED", str(seed))


def test_same_seed_same_bytes(tmp_path):
    p = write(tmp_path, _random(7))
    for name in ("a", "b"):
        assert main(["sweep", str(p), "-o", str(tmp_path / name), "--quiet", "--no-figures", "--chunk", "5"]) == 0
    a = (tmp_path / "a" / "sweep.csv").read_bytes()
    assert a == (tmp_path / "b" / "sweep.csv").read_bytes()
    rows = table(tmp_path / "a")
    assert len(rows) == 12 and [int(r["variant"]) for r in rows] == list(range(12))
    assert {r["payload_y_m"] for r in rows} == {"0.0", "0.2"}
    assert len({r["payload_kg"] for r in rows}) == 12  # one draw per variant
    assert {r["slot_port_fwd"] for r in rows} <= {"none", "br_liion_18ah", "br_lipo_10ah"}
    # another seed, another table
    p2 = write(tmp_path, _random(8), "other.yaml")
    assert main(["sweep", str(p2), "-o", str(tmp_path / "c"), "--quiet", "--no-figures"]) == 0
    assert (tmp_path / "c" / "sweep.csv").read_bytes() != a


def test_values_of_is_a_function_of_the_index(tmp_path):
    sw = load_sweep(write(tmp_path, _random(3)))
    assert sw.n == 12
    forward = [values_of(sw, i) for i in range(sw.n)]
    backward = [values_of(sw, i) for i in reversed(range(sw.n))][::-1]
    assert forward == backward
    # the grid key varies slowest across samples: samples 0..5 at y = 0, 6..11 at y = 0.2
    assert [v["payload_y_m"] for v in forward] == [0.0] * 6 + [0.2] * 6


def test_resume_after_an_interruption(tmp_path, capsys):
    p = write(tmp_path, _random(11))
    assert main(["sweep", str(p), "-o", str(tmp_path / "full"), "--quiet", "--no-figures"]) == 0
    whole = (tmp_path / "full" / "sweep.csv").read_bytes()
    out = tmp_path / "cut"
    assert main(["sweep", str(p), "-o", str(out), "--quiet", "--no-figures"]) == 0
    journal = out / "rows.jsonl"
    lines = journal.read_text().split("\n")
    # interrupted after 5 rows, in the middle of writing the sixth
    journal.write_text("\n".join(lines[:6]) + "\n" + lines[6][: len(lines[6]) // 2])
    (out / "sweep.csv").unlink()
    capsys.readouterr()
    assert main(["sweep", str(p), "-o", str(out), "--no-figures"]) == 0
    err = capsys.readouterr().err
    assert "resuming: 5 of 12" in err
    assert (out / "sweep.csv").read_bytes() == whole
    # the journal holds every variant once, and a rerun computes nothing
    rows = [json.loads(x) for x in journal.read_text().splitlines()[1:]]
    assert sorted(r["variant"] for r in rows) == list(range(12))
    assert main(["sweep", str(p), "-o", str(out), "--no-figures"]) == 0
    assert "resuming" not in capsys.readouterr().err
    assert (out / "sweep.csv").read_bytes() == whole


def test_resume_refuses_another_sweep(tmp_path, capsys):
    p = write(tmp_path, _random(1))
    out = tmp_path / "o"
    assert main(["sweep", str(p), "-o", str(out), "--quiet", "--no-figures"]) == 0
    p.write_text(_random(2))
    capsys.readouterr()
    assert main(["sweep", str(p), "-o", str(out), "--quiet", "--no-figures"]) == 2
    assert "another sweep" in capsys.readouterr().err
    assert main(["sweep", str(p), "-o", str(out), "--quiet", "--no-figures", "--fresh"]) == 0


def test_bad_keys_reported_up_front(tmp_path, capsys):
    p = write(tmp_path, f"""vehicle: blueboat.yaml
{PAYLOAD_PART}add:
  - {{type: payload, name: payload, parent: base_link, xyz: [0.3, 0.0, 0.15]}}
grid:
  catalog.payload.mass: {{values: [0, 5, -1]}}
  hull_displacement.lenght: [1.0, 1.1]
  hull_displacement.width: [0.18, 0.9]
  buoyancy.net_buoyancy: [0, 1]
  slot.port_fwd: [none, t200_thruster]
  parts[cargo].xyz[1]: [0, 0.1]
  catalog.no_such_part.mass: [1]
  hull_displacement.x: [0.0, 0.1]
""")
    out = tmp_path / "o"
    assert main(["sweep", str(p), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    lines = [ln.strip() for ln in err.splitlines()[1:]]
    named = [ln.split(":")[0] for ln in lines]
    assert named == ["catalog.payload.mass", "hull_displacement.lenght", "hull_displacement.width",
                     "buoyancy.net_buoyancy", "slot.port_fwd", "parts[cargo].xyz[1]", "catalog.no_such_part.mass"]
    assert "-1" in lines[0] and "positive" in lines[0]
    assert "unknown key" in lines[1] and "length" in lines[1]
    assert "0.9" in lines[2] and "overlap" in lines[2]
    assert "t200_thruster" in lines[4]
    assert not out.exists()  # nothing ran, nothing written


def test_a_variant_that_does_not_compose_is_a_row(tmp_path):
    # each value is valid alone; width 0.6 with the pontoons at y = 0.25 overlaps them
    p = write(tmp_path, """vehicle: blueboat.yaml
grid:
  hull_displacement.width: [0.18, 0.6]
  hull_displacement.y: [0.361, 0.25]
""")
    out = tmp_path / "o"
    assert main(["sweep", str(p), "-o", str(out), "--quiet"]) == 0
    rows = table(out)
    assert [(r["hull_displacement_width_m"], r["hull_displacement_y_m"], r["composed"]) for r in rows] == [
        ("0.18", "0.361", "true"), ("0.18", "0.25", "true"), ("0.6", "0.361", "true"), ("0.6", "0.25", "false")]
    bad = rows[3]
    assert "hull_displacement.y" in bad["reason"] and "overlap" in bad["reason"]
    assert bad["draft_m"] == "" and bad["gm_t_m"] == ""
    assert all(r["reason"] == "" for r in rows[:3])


def test_check_and_emit(tmp_path, capsys):
    p = write(tmp_path, f"""vehicle: blueboat.yaml
{PAYLOAD_PART}add:
  - {{type: payload, name: payload, parent: base_link, xyz: [0.2, 0.1, 0.15]}}
grid:
  catalog.payload.mass: {{name: payload, values: [0, 5]}}
  slot.port_fwd: [none, br_liion_18ah]
""")
    assert main(["sweep", str(p), "--check"]) == 0
    assert "4 variants" in capsys.readouterr().out
    out = tmp_path / "o"
    assert main(["sweep", str(p), "-o", str(out), "--quiet", "--no-figures"]) == 0
    assert not (out / "variants").exists()  # files only with --emit
    assert main(["sweep", str(p), "-o", str(out), "--quiet", "--no-figures", "--emit"]) == 0
    rows = table(out)
    v3 = out / "variants" / "v000003"
    assert sorted(x.name for x in v3.iterdir() if not x.name.startswith(".")) == [
        "blueboat.urdf", "blueboat.xml", "config", "model.config", "model.sdf"]
    assert (v3 / "config" / "parts" / "payload.yaml").is_file()
    assert not (out / "variants" / "v000001" / "config" / "parts").exists()  # 0 kg: the payload is not fitted
    # the emitted config composes again, beside its parts, to the row's figures (aurgen specs),
    # and the audit finds the files current against it
    for i in (1, 3):
        capsys.readouterr()
        cfg = out / "variants" / f"v{i:06d}" / "config" / f"sweep.v{i}.yaml"
        assert main(["audit", str(cfg.parent.parent), "--config", str(cfg)]) == 0
        capsys.readouterr()
        assert main(["specs", str(cfg), "--json"]) == 0
        s = json.loads(capsys.readouterr().out)
        r = rows[i]
        assert float(r["total_mass_kg"]) == s["total_mass"]
        assert float(r["draft_m"]) == s["draft"] and float(r["gm_t_m"]) == s["gm_t"]
        assert float(r["heel_deg"]) == math.degrees(s["heel"])
    # and the MJCF carries the row's mass
    import mujoco

    m = mujoco.MjModel.from_xml_path(str(v3 / "blueboat.xml"))
    assert abs(float(m.body_subtreemass[1]) - float(rows[3]["total_mass_kg"])) < 1e-9
    assert float(rows[3]["total_mass_kg"]) - float(rows[1]["total_mass_kg"]) == pytest.approx(5.0, abs=1e-12)


def test_parse_key():
    k = parse_key("parts[payload].xyz[1]")
    assert k.kind == "config" and k.tokens == ("parts", ("sel", "payload"), "xyz", 1)
    k = parse_key("catalog.blueboat_chassis.com[2]")
    assert k.kind == "catalog" and k.part_type == "blueboat_chassis" and k.tokens == ("com", 2)
    k = parse_key("slot.ping_mount.ping")
    assert k.kind == "slot" and k.of == "ping_mount" and k.slot == "ping"
    for bad in ("", "a..b", "parts[", "parts[-1]", "slot", "catalog.x", "a b"):
        with pytest.raises(ValueError):
            parse_key(bad)


def test_uuv_buoyancy_sweep(tmp_path):
    """A BlueROV2 net-buoyancy sweep: the reserve buoyancy column is the declared net buoyancy."""
    p = write(tmp_path, """vehicle: bluerov2.yaml
grid:
  buoyancy.net_buoyancy: [-0.5, 0.0, 0.5]
""")
    sw = prepare(p)
    assert sw.n == 3
    out = tmp_path / "o"
    assert main(["sweep", str(p), "-o", str(out), "--quiet", "--no-figures"]) == 0
    rows = table(out)
    assert [r["equilibrium_status"] for r in rows] == ["sinks", "neutral", "floating"]
    for r, nb in zip(rows, (-0.5, 0.0, 0.5)):
        assert abs(float(r["reserve_buoyancy_kg"]) - nb) < 1e-9


# --------------------------------------------------------------------------- Ray (the scale extra)



@pytest.mark.scale
@pytest.mark.skipif(not have_ray(), reason="ray is not installed (pip install '.[scale]')")
def test_ray_local_two_workers_same_table(tmp_path, ray_alone):
    p = write(tmp_path, _random(5))
    assert main(["sweep", str(p), "-o", str(tmp_path / "serial"), "--quiet", "--no-figures"]) == 0
    r = run_aurgen(["sweep", p, "-o", tmp_path / "ray", "--quiet", "--no-figures", "--ray", "local",
                    "--workers", "2", "--chunk", "5"], tmp_path)  # the driver in a process of its own
    assert r.returncode == 0, r.stderr[-3000:]
    assert (tmp_path / "ray" / "sweep.csv").read_bytes() == (tmp_path / "serial" / "sweep.csv").read_bytes()


# the sweep in a Python process of its own (the driver, as run_aurgen): a local cluster the sweep
# started stops with it; a connection the caller made stays; ray_clusters as conftest.py's
IN_PROCESS = """\
import sys, time
import ray
from ray._private import services
from aurgen.cli import main


def clusters():
    services.find_gcs_addresses.cache_clear()
    return sorted(services.find_gcs_addresses())


args = ["sweep", "sweep.yaml", "--quiet", "--no-figures", "--ray", "local", "--workers", "1", "-o"]
assert main(args + ["local"]) == 0
print("connected after the sweep:", ray.is_initialized())
end = time.monotonic() + 60
while clusters() and time.monotonic() < end:
    time.sleep(0.5)
print("clusters left:", clusters())
ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False, configure_logging=False)
assert main(args + ["own"]) == 0
print("the caller's connection after the sweep:", ray.is_initialized())
ray.shutdown()
"""


@pytest.mark.scale
@pytest.mark.skipif(not have_ray(), reason="ray is not installed (pip install '.[scale]')")
def test_ray_local_cluster_stops_with_the_sweep(tmp_path, ray_alone):
    """aurgen.cli.main (as a script or a notebook calls it) stops the local cluster its --ray local
    started; where the caller ran ray.init itself, the sweep uses that connection and leaves it. Both
    tables are the serial run's."""
    p = write(tmp_path, _random(3))
    assert main(["sweep", str(p), "-o", str(tmp_path / "serial"), "--quiet", "--no-figures"]) == 0
    (tmp_path / "driver.py").write_text(IN_PROCESS)
    r = run_python(["driver.py"], tmp_path)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    assert "connected after the sweep: False" in r.stdout, r.stdout
    assert "clusters left: []" in r.stdout, r.stdout
    assert "the caller's connection after the sweep: True" in r.stdout, r.stdout
    for name in ("local", "own"):
        assert (tmp_path / name / "sweep.csv").read_bytes() == (tmp_path / "serial" / "sweep.csv").read_bytes()


def test_gz_figures_are_the_reports(tmp_path):
    """gz: exact gives the report's refined max GZ and vanishing angle (sampled every 5°: the
    refinement makes them independent of the step, checked against a 3° curve); gz: samples
    reads them off a 10° sampling: the largest sample is at most the true maximum, the AVS
    within the sampling's linear error."""
    body = stb.body_of(resolve("blueboat.yaml"))
    ref = stb.gz_curve(body, "heel", step_deg=3.0)
    rows = {}
    for mode in ("exact", "samples"):
        p = write(tmp_path, f"vehicle: blueboat.yaml\nfigures: {{gz: {mode}}}\n", f"{mode}.yaml")
        assert main(["sweep", str(p), "-o", str(tmp_path / mode), "--quiet", "--no-figures"]) == 0
        (rows[mode],) = table(tmp_path / mode)
    ex, sa = rows["exact"], rows["samples"]
    assert abs(float(ex["max_gz_m"]) - ref.max_gz) < 1e-9
    assert abs(float(ex["angle_max_gz_deg"]) - math.degrees(ref.angle_max_gz)) < 1e-4
    assert abs(float(ex["avs_deg"]) - math.degrees(ref.avs)) < 1e-7
    assert float(sa["max_gz_m"]) <= ref.max_gz + 1e-12 and float(sa["max_gz_m"]) > 0.9 * ref.max_gz
    assert float(sa["angle_max_gz_deg"]) % 10 == 0
    assert abs(float(sa["avs_deg"]) - math.degrees(ref.avs)) < 2.0


def test_parquet_is_the_csv(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet", reason="pyarrow is not installed (pip install '.[scale]')")
    p = write(tmp_path, _random(4))
    out = tmp_path / "o"
    assert main(["sweep", str(p), "-o", str(out), "--quiet", "--no-figures"]) == 0
    rows = table(out)
    t = pq.read_table(out / "sweep.parquet").to_pylist()
    assert len(t) == len(rows) == 12
    for a, b in zip(rows, t):
        assert list(a) == list(b)  # same columns, same order
        for k, v in b.items():
            if isinstance(v, bool):
                assert a[k] == ("true" if v else "false")
            elif isinstance(v, float):
                assert float(a[k]) == v  # exact: the CSV's floats round-trip
            elif v is None:
                assert a[k] == ""
            else:
                assert a[k] == str(v)


def test_ray_missing_is_a_clean_error(tmp_path, capsys, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    p = write(tmp_path, "vehicle: blueboat.yaml\n")
    assert main(["sweep", str(p), "-o", str(tmp_path / "o"), "--quiet", "--ray", "local"]) == 2
    assert "pip install ray" in capsys.readouterr().err


@pytest.mark.scale
def test_ray_auto_without_a_cluster_is_a_clean_error(tmp_path, ray_alone):
    p = write(tmp_path, "vehicle: blueboat.yaml\n")
    r = run_aurgen(["sweep", p, "-o", tmp_path / "o", "--quiet", "--ray", "auto"], tmp_path)  # a Ray folder with no cluster
    assert r.returncode == 2 and "--ray auto" in r.stderr, r.stderr[-3000:]
    assert "Traceback" not in r.stderr


def test_the_documented_example_checks(tmp_path, capsys):
    """docs/config.md's sweep example is a valid sweep: every key exists and every value composes."""
    import re

    doc = (Path(__file__).resolve().parents[2] / "docs" / "config.md").read_text(encoding="utf-8")
    section = doc[doc.index("## Sweeps"):]
    example = re.search(r"```yaml\n(.*?)```", section, re.S).group(1)
    p = write(tmp_path, example)
    assert main(["sweep", str(p), "--check"]) == 0
    assert "9300 variants over 6 keys" in capsys.readouterr().out  # 31 x 3 x 2 grid points x 50 samples


def test_local_processes_same_table(tmp_path, capsys):
    """-j 2 (two local processes, chunks of 5) gives the serial run's table byte for byte."""
    p = write(tmp_path, _random(9))
    assert main(["sweep", str(p), "-o", str(tmp_path / "serial"), "--quiet", "--no-figures"]) == 0
    assert main(["sweep", str(p), "-o", str(tmp_path / "j2"), "--quiet", "--no-figures", "-j", "2",
                 "--chunk", "5"]) == 0
    assert (tmp_path / "j2" / "sweep.csv").read_bytes() == (tmp_path / "serial" / "sweep.csv").read_bytes()
    assert main(["sweep", str(p), "-j", "0"]) == 2
    assert "--jobs" in capsys.readouterr().err
