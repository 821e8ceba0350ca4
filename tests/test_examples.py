"""The scripts in examples/ run as a user runs them (``python examples/NAME.py --quick --out DIR``, a process
of their own from an empty folder, the installed aurgen) and what they write is checked against figures
they did not produce: trimesh's volumes and the catalog's masses (the hull mesh), linear wave theory
(the sea), a local ``-j 1`` run of the same sweep (Ray), a rollout of the saved policy in a single
environment (stable-baselines3), the depth in the bridge's own JSON replies (ArduSub's stand-in).

All in the slow tier (tests/slow_tests.txt). An example whose optional packages are missing (Ray:
the scale extra; stable-baselines3: the examples extra) is skipped with the reason, or fails under
AURGEN_REQUIRE_CONSUMERS=1 (CI installs them).
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
G = 9.81  # m/s^2: the report's open water and the bundled worlds


def _env() -> dict:
    """This environment less the checkout on PYTHONPATH (the installed aurgen is the one under test),
    with a Ray temp folder of the example's own (RAY_TMPDIR: where Ray keeps its sessions and where
    ``--ray auto`` looks for a cluster), so a Ray cluster an example starts is never the one another
    test running beside it (xdist) finds, and no RAY_ADDRESS."""
    import tempfile

    keep = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
            if p and ROOT != Path(p).resolve() and ROOT not in Path(p).resolve().parents]
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    ray_tmp = tempfile.mkdtemp(prefix="ray", dir="/tmp")  # short: Ray's socket paths must fit 107 bytes
    return env | {"PYTHONPATH": os.pathsep.join(keep), "MPLBACKEND": "Agg", "RAY_TMPDIR": ray_tmp}


def _run(args, cwd, timeout=600) -> subprocess.CompletedProcess:
    import shutil

    env = _env()
    try:
        res = subprocess.run([sys.executable, *map(str, args)], cwd=cwd, capture_output=True, text=True,
                             env=env, timeout=timeout)
    finally:
        shutil.rmtree(env["RAY_TMPDIR"], ignore_errors=True)
    assert res.returncode == 0, f"{args} exited {res.returncode}\n{res.stdout[-4000:]}\n{res.stderr[-4000:]}"
    return res


def _example(name, tmp_path, *args) -> tuple:
    """Run examples/NAME.py --quick --out out ARGS from the empty ``tmp_path``: (stdout, the out folder)."""
    res = _run([EXAMPLES / f"{name}.py", "--quick", "--out", "out", *args], tmp_path)
    return res.stdout, tmp_path / "out"


def _aurgen(args, cwd) -> str:
    """The installed ``aurgen ARGS`` (python -m aurgen), its stdout."""
    return _run(["-m", "aurgen", *args], cwd).stdout


def _need(module: str, what: str):
    if importlib.util.find_spec(module) is None:
        reason = f"{module} is not installed ({what})"
        if os.environ.get("AURGEN_REQUIRE_CONSUMERS") == "1":
            pytest.fail(f"{reason} (AURGEN_REQUIRE_CONSUMERS=1: the examples' packages are mandatory)", pytrace=False)
        pytest.skip(reason)


def _is_png(path: Path) -> bool:
    return path.is_file() and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 5000


def test_every_example_is_tested_and_documented():
    """Each script in examples/ has a test here and a module docstring saying how to run it, what it
    writes and what it needs; each takes --out and --quick."""
    names = sorted(p.stem for p in EXAMPLES.glob("*.py"))
    assert names == sorted(["mesh_hull_vehicle", "sea_seakeeping", "ray_sweep", "train_sb3", "ardusub_mujoco"])
    tests = (Path(__file__).read_text(encoding="utf-8"))
    for name in names:
        text = (EXAMPLES / f"{name}.py").read_text(encoding="utf-8")
        doc = re.match(r'"""(.*?)"""', text, re.S)
        assert doc, name
        for word in ("Run it", "Writes", "Needs", "--quick", "--out"):
            assert word in doc.group(1), (name, word)
        assert f"def test_{name}" in tests, name


def test_what_needs_the_examples_extra_runs_in_the_slow_tier():
    """.ci/run installs the examples extra (stable-baselines3) only before ``pytest -m slow``: a test here
    that needs one of the examples' packages and sits in the fast tier fails CI's first command."""
    text = Path(__file__).read_text(encoding="utf-8")
    slow = set(Path(__file__).with_name("slow_tests.txt").read_text(encoding="utf-8").split())
    chunks = re.split(r"^def ", text, flags=re.M)[1:]
    bodies = {c.split("(", 1)[0]: c for c in chunks if c.startswith("test_")}
    needle = "_need(" + '"stable_baselines3"'  # built, so this test's own body does not match it
    needing = [name for name, body in bodies.items() if needle in body]
    assert "test_train_sb3" in needing and len(needing) >= 2
    assert [n for n in needing if f"tests/test_examples.py::{n}" not in slow] == []


def test_mesh_hull_vehicle(tmp_path):
    """The catamaran's specs displace its mesh: the specs' volume is trimesh's volume of the STL, the
    mass is the catalog's (the example's 20 kg chassis and two T200 propellers), the volume under the
    specs' design waterline (trimesh, cut and capped) is that mass over 1025 kg/m^3; the build, audit
    and report are written."""
    import trimesh

    out_text, out = _example("mesh_hull_vehicle", tmp_path)
    mesh = trimesh.load(out / "meshes" / "mycat_hulls.stl")
    assert mesh.is_watertight and len(mesh.split()) == 2
    specs = json.loads(_aurgen(["specs", "--json", out / "mycat.yaml"], tmp_path))
    assert specs["displacement"] == "mesh" and specs["hull_mesh"]["hulls"] == 2
    assert specs["displaced_volume"] == pytest.approx(mesh.volume, rel=1e-6)
    prop = yaml.safe_load((ROOT / "vehicles" / "parts" / "t200_prop_ccw.yaml").read_text())["mass"]
    assert specs["total_mass"] == pytest.approx(20.0 + 2 * prop, rel=1e-9)
    z = specs["gazebo_boxes"]["waterline_z"]
    below = trimesh.intersections.slice_mesh_plane(mesh, [0, 0, -1], [0, 0, z], cap=True).volume
    assert below == pytest.approx(specs["total_mass"] / 1025.0, rel=1e-3)
    assert f"trimesh {mesh.volume:.6f} m^3" in out_text
    for f in ("mycat/mycat.xml", "mycat/model.sdf", "mycat/mycat.urdf"):
        assert (out / "build" / f).is_file(), f
    assert "aurgen audit: clean" in out_text
    report = (out / "report" / "report.md").read_text(encoding="utf-8")
    assert "mycat" in report and _is_png(out / "report" / "gz_heel.png")


def _table_rows(section: str, first_cell: str) -> list:
    return [[c.strip() for c in line.strip("|").split("|")] for line in section.splitlines()
            if line.startswith("| " + first_cell)]


def test_sea_seakeeping(tmp_path):
    """In the example's world sea: the regular runs' wavelengths are deep water's g T^2 / 2 pi, a 10 s
    wave (156 m long under a 1.2 m boat) is followed (heave and pitch RAO 1, closed form of a surface
    follower), the irregular record's 4 sigma of the elevation is the world's Hs 0.5 m (within the
    sampling of a 60 s record), the short run heaves about as much; the figures are written."""
    out_text, out = _example("sea_seakeeping", tmp_path)
    world = yaml.safe_load((out / "choppy_bay.yaml").read_text())
    hs = world["waves"]["hs"]
    assert (out / "build" / "worlds" / "choppy_bay.xml").is_file()
    report = (out / "report" / "report.md").read_text(encoding="utf-8")
    section = re.search(r"^## Seakeeping\n(.*?)(?=^## )", report, re.S | re.M).group(1)
    rows = {float(r[0]): r for r in _table_rows(section, "")
            if re.fullmatch(r"[0-9.]+", r[0])}
    assert sorted(rows) == [2.0, 10.0]
    for period, r in rows.items():
        assert float(r[1]) == pytest.approx(G * period ** 2 / (2 * math.pi), rel=2e-3)
    assert float(rows[10.0][3]) == pytest.approx(1.0, abs=0.03)  # heave RAO
    assert float(rows[10.0][7]) == pytest.approx(1.0, abs=0.05)  # pitch RAO
    elevation = [r for r in _table_rows(section, "the world's sea") if r[1] == "wave elevation (m)"]
    assert len(elevation) == 1
    assert 4 * float(elevation[0][4]) == pytest.approx(hs, rel=0.2)  # 4 x RMS: the realised Hs
    import csv

    import numpy as np

    with open(out / "sim.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    t = np.array([float(r["time [s]"]) for r in rows])
    z = np.array([float(r["blueboat/base_link.z [m]"]) for r in rows])
    tail = z[t > t[-1] / 2]
    assert 0.4 * hs < 4 * tail.std() < 1.6 * hs
    for png in ("report/seakeeping.png", "report/sea_state.png", "sim.png"):
        assert _is_png(out / png), png
    assert "aurgen sim, the second half" in out_text


def test_ray_sweep(tmp_path, ray_alone):
    """The table Ray writes is byte for byte the table of a local ``-j 1`` run of the same file, and its
    bare boat (payload 0) is ``aurgen specs blueboat.yaml``."""
    _need("ray", "the scale extra")
    out_text, out = _example("ray_sweep", tmp_path)
    ray_csv = (out / "ray" / "sweep.csv").read_text(encoding="utf-8")
    _aurgen(["sweep", out / "deck_payload.yaml", "-j", "1", "-o", tmp_path / "local", "--no-figures", "--quiet"],
            tmp_path)
    assert ray_csv == (tmp_path / "local" / "sweep.csv").read_text(encoding="utf-8")
    header, *rows = [line.split(",") for line in ray_csv.splitlines()]
    assert len(rows) == 12
    bare = dict(zip(header, rows[0]))
    specs = json.loads(_aurgen(["specs", "--json", "blueboat.yaml"], tmp_path))
    assert float(bare["payload_kg"]) == 0.0
    assert float(bare["total_mass_kg"]) == pytest.approx(specs["total_mass"], rel=1e-9)
    assert float(bare["draft_m"]) == pytest.approx(specs["draft"], rel=1e-6)
    assert "12 variants" in out_text and _is_png(out / "ray" / "capsize_boundary.png")


ROLLOUT = textwrap.dedent("""
    import json, pickle, sys
    import gymnasium, numpy as np
    import aurgen.gym  # noqa: F401
    from stable_baselines3 import PPO
    out, seed = sys.argv[1], int(sys.argv[2])
    model = PPO.load(out + "/policy.zip", device="cpu")
    with open(out + "/vecnormalize.pkl", "rb") as f:
        norm = pickle.load(f)
    env = gymnasium.make("BlueBoatWaypoint-v0")
    obs, _ = env.reset(seed=seed)
    lo, hi = env.action_space.low, env.action_space.high
    total, steps = 0.0, 0
    for steps in range(1, 1001):
        x = np.clip((obs - norm.obs_rms.mean) / np.sqrt(norm.obs_rms.var + norm.epsilon), -norm.clip_obs, norm.clip_obs)
        action, _ = model.predict(x[None].astype(np.float32), deterministic=True)
        obs, reward, term, trunc, _ = env.step(np.clip(action[0].astype(np.float64), lo, hi))
        total += reward
        if term or trunc:
            break
    print(json.dumps({"return": total, "steps": steps, "trained": model.num_timesteps}))
""")


def test_train_sb3(tmp_path):
    """The saved policy and normalisation are the ones trained and evaluated: rolled out again here in a
    single gymnasium environment (not the vector one the example used), normalised by hand from the
    saved statistics, the episode's return and length are the example's."""
    _need("gymnasium", "the scale extra")
    _need("stable_baselines3", "the examples extra: pip install stable-baselines3")
    out_text, out = _example("train_sb3", tmp_path)
    m = re.search(r"one evaluation episode \(seed (\d+)\), return (\S+) in (\d+) steps", out_text)
    assert m, out_text[-2000:]
    (tmp_path / "rollout.py").write_text(ROLLOUT, encoding="utf-8")
    got = json.loads(_run([tmp_path / "rollout.py", out, m[1]], tmp_path).stdout.splitlines()[-1])
    assert got["trained"] >= 4096
    assert got["steps"] == int(m[3])
    assert got["return"] == pytest.approx(float(m[2]), abs=1e-4)


def test_train_sb3_docs_wrapper_runs_the_example(tmp_path):
    """``python docs/train_sb3.py`` still works: it says it moved and runs examples/train_sb3.py with the
    same arguments (here --help, which needs no training)."""
    _need("gymnasium", "the scale extra")
    _need("stable_baselines3", "the examples extra: pip install stable-baselines3")
    res = _run([ROOT / "docs" / "train_sb3.py", "--help"], tmp_path)
    assert "moved to examples/train_sb3.py" in res.stderr
    assert "--quick" in res.stdout and "--num-envs" in res.stdout


def test_ardusub_mujoco(tmp_path):
    """The stand-in autopilot, speaking ArduPilot's JSON SITL protocol to ``aurgen sitl``, takes the
    BlueROV2 from 3 m to 4 m and 45 deg and holds it: over the last 10 s of 30 the depth in the bridge's
    own replies (the world's start depth plus the NED position's down) is within 0.10 m of 4 m and the
    heading (from the replies' quaternion) within 3 deg of 45; the bridge ends healthy."""
    out_text, out = _example("ardusub_mujoco", tmp_path)
    world = yaml.safe_load((ROOT / "worlds" / "open_water.yaml").read_text())
    start = -next(v for v in world["vehicles"] if v["name"] == "bluerov2")["xyz"][2]
    replies = [json.loads(line) for line in (out / "replies.jsonl").read_text().splitlines()]
    assert len(replies) == 30 * 400 // 20
    t = [r["timestamp"] for r in replies]
    assert t[-1] == pytest.approx((30 * 400 - 20 + 1) / 400, abs=1e-6)  # the reply to frame n is at (n + 1) / 400 s
    tail = [r for r in replies if r["timestamp"] > t[-1] - 10.0]
    depth = [start + r["position"][2] for r in tail]
    assert max(abs(d - 4.0) for d in depth) < 0.10, (min(depth), max(depth))
    for r in tail:
        w, x, y, z = r["quaternion"]
        yaw = math.degrees(math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z)))
        assert abs(yaw - 45.0) < 3.0, yaw
    assert "THIS IS A STAND-IN" in out_text and "sim_vehicle.py -v ArduSub -f vectored" in out_text
    assert "health: ok" in out_text
