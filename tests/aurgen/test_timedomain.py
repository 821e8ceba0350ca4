"""aurgen sweep --time-domain: seeded disturbance runs on mujoco.batch.

References are independent of the time-domain code: ``aurgen specs --json`` (the
kernel's equilibrium draft) with the closed-form heave of air buoyancy, the static
analysis' equilibrium status and vanishing angle (aurgen.analysis.stability.gz_curve, the
report's), a second run of the same sweep (serial, resumed, -j 2, Ray), and the
start attitude the run is given (a run with no disturbance never rolls past it).
"""

from __future__ import annotations

import io
import json
import math
from contextlib import redirect_stdout
from pathlib import Path

import numpy as np
import pytest

from aurgen.analysis import stability as stb
from aurgen.analysis import timedomain as td
from aurgen.cli import main
from aurgen.compose.resolve import resolve
from aurgen.compose.stamp import equilibrium_of

from sweeptables import PAYLOAD_PART, have_ray, num, run_aurgen, table, write


def _sweep(seed=4, extra="", grid=None):
    grid = grid or """  catalog.payload.mass: {name: payload, values: [0, 8]}
  time_domain.heel: [0, 12]
  time_domain.roll_moment: [0, 30]
"""
    return f"""vehicle: blueboat.yaml
seed: {seed}
{PAYLOAD_PART}add:
  - {{type: payload, name: payload, parent: base_link, xyz: [0.299, 0.0, 0.147]}}
time_domain: {{duration: 6, period: 1.5, disturbance: 2{extra}}}
grid:
{grid}"""


def _run(tmp_path, text, out, *extra):
    p = write(tmp_path, text)
    assert main(["sweep", str(p), "-o", str(tmp_path / out), "--quiet", "--no-figures", "--time-domain",
                 *extra]) == 0
    return tmp_path / out


def _one(vehicle, **settings):
    eq = equilibrium_of(vehicle)
    st = td.settings_of(td.parse_settings(settings), {})
    return eq, td.run_variants([{"variant": 0, "vehicle": vehicle, "eq": eq, "settings": st}], 0)[0]


def test_same_seed_same_bytes_resume_and_local_processes(tmp_path, capsys):
    a = _run(tmp_path, _sweep(), "a")
    b = _run(tmp_path, _sweep(), "b", "--chunk", "3")
    whole = (a / "sweep.csv").read_bytes()
    assert (b / "sweep.csv").read_bytes() == whole
    rows = table(a)
    assert len(rows) == 8 and all(r["reason"] == "" for r in rows)
    assert {r["td_capsized"] for r in rows} == {"false"}
    # the disturbance is seeded: another seed moves the disturbed variants' figures only
    c = _run(tmp_path, _sweep(seed=5), "c")
    other = table(c)
    for r, o in zip(rows, other):
        same = all(r[k] == o[k] for k in ("td_max_roll_deg", "td_max_pitch_deg", "td_draft_m"))
        assert same == (float(r["td_roll_moment_N_m"]) == 0.0)
    # interrupted after 3 rows, the fourth cut short; the resumed table is the same bytes
    journal = a / "rows.jsonl"
    lines = journal.read_text().split("\n")
    journal.write_text("\n".join(lines[:4]) + "\n" + lines[4][: len(lines[4]) // 2])
    (a / "sweep.csv").unlink()
    capsys.readouterr()
    p = write(tmp_path, _sweep())
    assert main(["sweep", str(p), "-o", str(a), "--no-figures", "--time-domain"]) == 0
    assert "resuming: 3 of 8" in capsys.readouterr().err
    assert (a / "sweep.csv").read_bytes() == whole
    # the static journal is another sweep's: the time domain's columns are not in it
    assert main(["sweep", str(p), "-o", str(a), "--no-figures", "--quiet"]) == 2
    j = _run(tmp_path, _sweep(), "j2", "-j", "2", "--chunk", "2")
    assert (j / "sweep.csv").read_bytes() == whole


@pytest.mark.scale
@pytest.mark.skipif(not have_ray(), reason="ray is not installed (pip install '.[scale]')")
def test_ray_local_same_table(tmp_path, ray_alone):
    serial = _run(tmp_path, _sweep(), "serial")
    p = write(tmp_path, _sweep(), "ray.yaml")
    r = run_aurgen(["sweep", p, "-o", tmp_path / "ray", "--quiet", "--no-figures", "--time-domain", "--ray", "local",
                    "--workers", "2", "--chunk", "3"], tmp_path)  # the driver in a process of its own
    assert r.returncode == 0, r.stderr[-3000:]
    assert (tmp_path / "ray" / "sweep.csv").read_bytes() == (serial / "sweep.csv").read_bytes()


def test_undisturbed_at_equilibrium_settles_at_once_and_never_exceeds_its_start():
    v = resolve("blueboat.yaml")
    eq, r = _one(v, duration=4.0)
    assert r["td_settle_time_s"] == 0.0 and r["td_capsized"] is False
    # the start attitude is the kernel's equilibrium and the boat stays there; the runtime's own
    # rest attitude differs by what air buoyancy on the dry hull moves (measured 8e-5 deg)
    assert r["td_max_roll_deg"] == pytest.approx(abs(math.degrees(eq.heel)), abs=1e-3)
    assert r["td_max_pitch_deg"] == pytest.approx(abs(math.degrees(eq.trim)), abs=1e-3)
    # released at 15 degrees of heel it rolls back: the start is the largest roll, settling takes time
    eq, r = _one(v, duration=6.0, heel=15.0)
    assert r["td_max_roll_deg"] == pytest.approx(15.0 + math.degrees(eq.heel), abs=1e-9)  # the t = 0 sample
    assert r["td_settle_time_s"] > 0.0 and not r["td_capsized"]


def test_default_loadout_draft_is_the_specs_draft():
    """At rest the runtime's draft is the kernel's less the heave that air buoyancy on the dry
    hull gives: δ = ρ_air (V_full − V_sub) / ((ρ_w − ρ_air) A_wp) (the kernel has no air;
    the runtime's air cell has 1.225 kg/m³). Tolerance 1e-6 m: 0.6% of δ = 1.6e-4 m; the
    linear heave neglects the waterplane's change over δ and the trim the air lift moves."""
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert main(["specs", "blueboat.yaml", "--json"]) == 0
    specs = json.loads(buf.getvalue())
    v = resolve("blueboat.yaml")
    eq, r = _one(v, duration=6.0)
    body = stb.body_of(v)
    v_full, _ = stb.full_volume(body)
    delta = 1.225 * (v_full - eq.volume) / ((body.rho - 1.225) * eq.waterplane_area)
    assert 1e-4 < delta < 3e-4
    assert r["td_draft_m"] == pytest.approx(specs["draft"] - delta, abs=1e-6)


def test_capsize_agrees_with_the_static_analysis(tmp_path):
    """A heavy high payload the kernel finds capsizes (no stable upright equilibrium) turns over
    in the time domain; a lighter one, released at rest a few degrees inside its vanishing angle
    (the report's GZ curve) rights itself and a few degrees beyond it capsizes."""
    grid = """  catalog.payload.mass: {name: payload, values: [20]}
  parts[payload].xyz[2]: {name: payload_z, values: [0.2, 2.0]}
"""
    text = _sweep(grid=grid).replace("xyz: [0.299, 0.0, 0.147]", "xyz: [0.0, 0.0, 0.147]")
    rows = {num(r["payload_z_m"]): r for r in table(_run(tmp_path, text, "cap"))}
    assert rows[2.0]["equilibrium_status"] == "capsizes" and rows[2.0]["td_capsized"] == "true"
    assert rows[2.0]["td_settle_time_s"] == "" and rows[2.0]["td_draft_m"] == ""
    assert rows[0.2]["equilibrium_status"] == "floating" and num(rows[0.2]["gm_t_m"]) > 0
    assert rows[0.2]["td_capsized"] == "false"
    # 10 kg one metre up: a vanishing angle of about 44 degrees
    sweep_text = _sweep(grid="""  catalog.payload.mass: {name: payload, values: [10]}
  parts[payload].xyz[2]: {name: payload_z, values: [1.0]}
""").replace("xyz: [0.299, 0.0, 0.147]", "xyz: [0.0, 0.0, 0.147]")
    from aurgen.analysis.sweep.variants import compose_variant, prepare, values_of

    sweep = prepare(write(tmp_path, sweep_text, "avs.yaml"), time_domain=True)
    v = compose_variant(sweep, values_of(sweep, 0), 0)
    # the static righting arm every 0.25 degrees at the equilibrium's trim; the vanishing angle is
    # its first fall through zero past its maximum. (The free-trim arm of this variant only falls
    # through zero where its trim jumps past a fold, onto a branch pitched far over, so
    # stb.gz_curve and the sweep give this held-trim curve and the fold, 20.04 deg:
    # tests/runtime/test_trim_branches.py; released at rest the boat keeps its trim within 3 deg.)
    ang = np.radians(np.arange(0.0, 90.0, 0.25))
    gz = stb.righting_arms(stb.body_of(v), ang, free_trim=False)
    k = int(np.argmax(gz))
    k += int(np.flatnonzero(gz[k:] <= 0.0)[0])
    avs = math.degrees(ang[k - 1] + (ang[k] - ang[k - 1]) * gz[k - 1] / (gz[k - 1] - gz[k]))
    assert 30.0 < avs < 60.0
    for heel, capsized in ((avs - 4.0, False), (avs + 4.0, True)):
        _, r = _one(v, duration=8.0, heel=heel)
        assert r["td_capsized"] is capsized, (avs, heel, r)


def test_time_domain_keys_are_checked_up_front(tmp_path, capsys):
    p = write(tmp_path, _sweep())
    capsys.readouterr()
    assert main(["sweep", str(p), "-o", str(tmp_path / "o"), "--quiet"]) == 2  # no --time-domain
    assert "sweep it with --time-domain" in capsys.readouterr().err
    bad = _sweep(grid="""  time_domain.heel: [0, 400]
  time_domain.current[3]: [1]
  time_domain.spin: [1]
""")
    p = write(tmp_path, bad, "bad.yaml")
    assert main(["sweep", str(p), "-o", str(tmp_path / "b"), "--time-domain", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "time_domain.current[3]" in err
    p = write(tmp_path, _sweep(grid="  time_domain.heel: [0, 400]\n"), "bad2.yaml")
    assert main(["sweep", str(p), "-o", str(tmp_path / "c"), "--time-domain", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "time_domain.heel" in err and "400" in err
    p = write(tmp_path, _sweep(extra=", settle_band: 0"), "bad3.yaml")
    assert main(["sweep", str(p), "-o", str(tmp_path / "d"), "--time-domain", "--quiet"]) == 2
    assert "time_domain.settle_band" in capsys.readouterr().err


def test_current_and_wind_reach_the_model():
    """The compiled model's environment (read back as the plugin reads it) carries the flows."""
    from aurgen.emit.build import outputs
    from aurgen.runtime.environment import schema as envmod

    v = resolve("blueboat.yaml")
    m = td.compiled(outputs(v)[f"{v.name}.xml"], td.environment_of(1025.0, [0.5, 0.0, 0.0], [0.0, 3.0, 0.0]))
    env = envmod.from_model(m)
    flows = {c.name: tuple(c.flow) for c in env.cells}
    assert flows == {"water": (0.5, 0.0, 0.0), "air": (0.0, 3.0, 0.0)}


# The BlueROV2 declares added mass: released at rest in the current it moves relative to the water,
# and the Munk moment of that relative motion yaws it while it closes on u, so with its anisotropic
# drag its velocity is along u only in the limit, not to the boat's tolerance at 60 s. Its drift is
# checked exactly instead, by Galilean invariance (tests/runtime/test_added_mass_current.py).
# the velocity's turn off u (relative to |u|^2): both vehicles drag per body axis, the BlueBoat 9.8 N along
# its hull and 57 N across it at 1 m/s, so the gap closes faster across than along and turns while it closes
ALONG_TOL = {"blueboat.yaml": 3e-2, "bluerov2.yaml": 2e-2}
# the gap at 120 s against |u|: quadratic drag alone closes it as M / (c t) along the weakest axis; the
# BlueBoat's hull along its length: 17.3 kg / (9.84 N s^2/m^2 x 120 s) = 0.015 m/s, 2.9 % of |u|
GAP_TOL = {"blueboat.yaml": 0.04, "bluerov2.yaml": 0.01}


@pytest.mark.parametrize("config", ["blueboat.yaml", "bluerov2.yaml"])
def test_a_uniform_flow_carries_the_vehicle_along(config):
    """Galilean invariance: with water and air moving at the same uniform velocity u, every force
    on a free vehicle depends on its velocity relative to u, so it drifts with u: its horizontal
    velocity turns parallel to u and closes on it as quadratic drag makes it, the gap falling as
    1/t (halving from 60 s to 120 s). Then wind over still water pushes a floating vehicle
    downwind and leaves a submerged one alone."""
    import mujoco

    v = resolve(config)
    xml, eq = td.mjcf_of(v), equilibrium_of(v)
    u = np.array([0.4, -0.3, 0.0])
    gaps = {}
    m = td.compiled(xml, td.environment_of(1025.0, u, u))
    d = mujoco.MjData(m)
    d.qpos[:7] = td.start_pose(v, eq, 0.0, 0.0)
    for t in (60.0, 120.0):
        while d.time < t - 1e-9:
            mujoco.mj_step(m, d)
        vel = np.array(d.qvel[:2])
        gaps[t] = np.linalg.norm(u[:2] - vel)
        assert abs(vel[0] * u[1] - vel[1] * u[0]) < ALONG_TOL[config] * np.linalg.norm(u) ** 2, vel  # along u
    assert gaps[120.0] < GAP_TOL[config] * np.linalg.norm(u)
    assert 0.35 < gaps[120.0] / gaps[60.0] < 0.65, gaps  # ~ 1/t

    m = td.compiled(xml, td.environment_of(1025.0, [0.0, 0.0, 0.0], [0.0, 5.0, 0.0]))
    d = mujoco.MjData(m)
    d.qpos[:7] = td.start_pose(v, eq, 0.0, 0.0)
    while d.time < 20.0:
        mujoco.mj_step(m, d)
    if eq.status == "floating":  # the BlueBoat: its windage and dry hull catch the wind
        assert 0.05 < d.qvel[1] < 5.0 and abs(d.qvel[0]) < 0.05 * d.qvel[1], np.array(d.qvel[:3])
    else:  # the BlueROV2, wholly submerged: the air exerts nothing on it
        assert np.abs(d.qvel).max() < 1e-9, np.array(d.qvel)
