"""Twenty builds at once into one folder, alternating two configs of one vehicle name, some
killed at random points (issue 10): afterwards the folder holds a complete set from one config,
or the audit reports a difference. A mixed set is never reported clean.

"Mixed" is decided independently of the audit: the folder's files are compared byte for byte
with two reference builds, one of each config, made alone in other folders.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from aurgen.cli import main

HULL = "hull_displacement: {length: 1.05, width: 0.18, height: 0.18, x: 0.027, y: 0.361, z: 0.059, segments: 6}\n"
FILES = ("model.sdf", "model.config", "v.urdf", "v.xml")


def _set(folder: Path) -> dict:
    return {f: (folder / f).read_bytes() if (folder / f).is_file() else None for f in FILES}


def test_concurrent_killed_builds_never_leave_a_clean_mixed_set(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.yaml").write_text("name: v\nbase: {type: blueboat_chassis}\n" + HULL)
    (tmp_path / "b.yaml").write_text("name: v\nbase: {type: blueboat_chassis}\n" + HULL.replace("width: 0.18", "width: 0.2"))
    assert main(["build", "a.yaml", "-o", "ref_a"]) == 0
    assert main(["build", "b.yaml", "-o", "ref_b"]) == 0
    refs = [_set(tmp_path / "ref_a" / "v"), _set(tmp_path / "ref_b" / "v")]
    assert refs[0] != refs[1]

    rng = random.Random(10)
    # MUJOCO_GL=disable: `import mujoco` otherwise starts pyGLFW's library probe (a `python -c` child
    # reading its stdin); killed mid-probe, that child prints its own traceback into our pipe
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", MUJOCO_GL="disable")
    procs = [subprocess.Popen([sys.executable, "-m", "aurgen", "build", "ab"[i % 2] + ".yaml", "-o", "out"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env) for i in range(20)]
    doomed = rng.sample(range(20), 7)
    t0 = time.monotonic()
    for i in sorted(doomed, key=lambda _: rng.random()):
        time.sleep(max(0.0, rng.uniform(0.5, 6.0) - (time.monotonic() - t0)))
        procs[i].send_signal(signal.SIGKILL)
    for p in procs:
        _, err = p.communicate(timeout=600)
        assert b"Traceback" not in err, err.decode()
    folder = tmp_path / "out" / "v"
    got = _set(folder)
    mixed = got not in refs
    capsys.readouterr()
    code = main(["audit", str(folder)])
    report = capsys.readouterr().out
    if mixed:
        assert code != 0, f"a mixed set audited clean:\n{report}"
    else:
        assert code == 0, report
    # the next build cleans what killed runs left, and leaves a clean, complete set
    assert main(["build", "a.yaml", "-o", "out"]) == 0
    assert _set(folder) == refs[0]
    assert not list(folder.glob(".aurgen-*.tmp"))
    assert main(["audit", str(folder)]) == 0
