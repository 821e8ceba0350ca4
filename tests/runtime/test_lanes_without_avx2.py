"""The paths a CPU without AVX2 takes give the bits the AVX2 paths give.

The four-wide lanes are built twice (runtime/native/core/vec4.h Lanes4): on V4 for AVX2 and on two
SSE2 registers for every x86-64 CPU, one chosen at run time (lanes.h W4Fast); still water's batches of
four run only in AVX2. ``AURGEN_NO_AVX2=1`` in the environment makes a process take the other paths,
as a CPU without AVX2 does. Two processes step the BlueBoat and the BlueROV2 (1.5 m down, where the
depth factors e^{k zeta} need their power of two) in the same states, one each way, through still water
and two seas, and every step's state and passive force must match bit for bit. The seas take every
four-wide function: a 12-component deep sea and a 9-component one at finite depth (the mirrored term),
whose phases (SinCosWide), depth factors (ExpWide), series (SeriesForces) and fan triangles (TakeLanes)
run in lanes; still water takes the box clip two at a time and the wrench pass one geom at a time.
Checked to fail when one operation of the SSE2 copies changes (the exponent's shift, a swapped
quadrant)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from aurgen.runtime import _native

SCRIPT = textwrap.dedent("""
    import hashlib, json, math, sys
    import mujoco, numpy as np
    from aurgen.emit.build import build
    from aurgen.runtime import _native
    from aurgen.runtime.sim import Simulation

    out = sys.argv[1]
    build(["blueboat.yaml", "bluerov2.yaml"], out)

    def sea(n, depth=None):
        rng = np.random.default_rng(n)
        comps = []
        for i in range(n):
            om = 1.2 + 0.25 * i
            k = om * om / 9.81
            if depth is not None:
                for _ in range(60):  # omega^2 = g k tanh(k h)
                    k -= (9.81 * k * math.tanh(k * depth) - om * om) / (
                        9.81 * math.tanh(k * depth) + 9.81 * k * depth / math.cosh(k * depth) ** 2)
            th = rng.uniform(-math.pi, math.pi)
            comps.append([0.04 / (1 + 0.2 * i), om, k * math.cos(th), k * math.sin(th), 0.0, rng.uniform(0, 6.28)])
        waves = {"surface": 0, "components": comps}
        if depth is not None:
            waves["depth"] = depth
        return {"planes": [[0.0, 0.0, 1.0, 0.0]],
                "cells": [{"name": "air", "signs": [1], "density": 1.225, "viscosity": 1.81e-5},
                          {"name": "water", "signs": [-1], "density": 1025.0, "viscosity": 1e-3}],
                "gravity": {"type": "uniform", "g": [0.0, 0.0, -9.81]}, "waves": waves}

    hashes = {}
    for vehicle, z in (("blueboat", 0.0), ("bluerov2", -1.5)):  # the ROV 1.5 m down: e^{k zeta} scaled by 2^k
        for name, kw in (("still water", {"water": 1025.0}), ("a deep sea", {"environment": sea(12)}),
                         ("a sea at finite depth", {"environment": sea(9, depth=6.0)})):
            sim = Simulation(f"{out}/{vehicle}/{vehicle}.xml", **kw)
            m, d = sim.model, sim.data
            rng = np.random.default_rng(5)
            d.qpos[2] += z
            d.qvel[:] = rng.normal(0.0, 0.4, m.nv)
            d.ctrl[:] = rng.uniform(-0.5, 0.5, m.nu)
            h = hashlib.sha256()
            for _ in range(400):
                mujoco.mj_step(m, d)
                for a in (d.qpos, d.qvel, d.qfrc_passive):
                    h.update(a.tobytes())
            hashes[f"{vehicle} in {name}"] = h.hexdigest()
    print(json.dumps({"avx2": _native.lanes_avx2(), "hashes": hashes}))
""")


def _run(tmp_path, name, **env):
    base = {k: v for k, v in os.environ.items() if k != "AURGEN_NO_AVX2"}
    (tmp_path / name).mkdir()
    r = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path / name)], capture_output=True, text=True,
                       cwd=tmp_path, env=base | env, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_without_avx2_the_same_bits(tmp_path):
    if not _native.lanes_avx2():
        pytest.skip("this CPU has no AVX2 (or the build has no AVX2 copies): it takes one path only")
    avx2 = _run(tmp_path, "avx2")
    sse2 = _run(tmp_path, "sse2", AURGEN_NO_AVX2="1")
    assert avx2["avx2"] is True and sse2["avx2"] is False
    assert sse2["hashes"] == avx2["hashes"]


def test_the_switch_reads_empty_and_zero_as_unset(tmp_path):
    """AURGEN_NO_AVX2 set to nothing or to 0 leaves AVX2 on, as an unset one."""
    if not _native.lanes_avx2():
        pytest.skip("this CPU has no AVX2 (or the build has no AVX2 copies)")
    probe = "from aurgen.runtime import _native; print(_native.lanes_avx2())"
    base = {k: v for k, v in os.environ.items() if k != "AURGEN_NO_AVX2"}
    for value, want in (("", "True"), ("0", "True"), ("1", "False"), ("yes", "False")):
        r = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path,
                           env=base | {"AURGEN_NO_AVX2": value}, timeout=120)
        assert r.stdout.strip() == want, (value, r.stdout, r.stderr[-2000:])
