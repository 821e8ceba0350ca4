"""The hydrostatics on MuJoCo Warp against plain MuJoCo Warp: physics steps/s and env-steps/s.

Not a test; run by hand: ``python bench/gpu.py [--quick] [--device cpu|cuda:0] [--nworld 1 16 ...]``
(needs the gpu extra: ``pip install '.[gpu]'``).

The BlueBoat (vehicles/blueboat.yaml, built into a temporary folder) in open water (1025 kg/m^3)
is put on MuJoCo Warp twice from the same plain MjModel (the plugin instance taken out:
aurgen.runtime.mjwarp.plain_model): ``hydro``, aurgen.runtime.mjwarp.put_model (the hydrostatics
as the passive callback), and ``plain``, mujoco_warp.put_model (MuJoCo's gravity only: the boat
falls). For each nworld both are stepped in interleaved rounds from the same float32 states
(around the floating pose, jittered per world); the figures are medians over rounds:

* physics steps/s: nworld x steps / seconds of ``mujoco_warp.step`` (on CUDA the steps of a
  round are one captured graph, as MuJoCo Warp's own benchmarks run);
* env-steps/s: an RL step on the device, no host round trip: the actions (a device array) into
  ``ctrl``, ``FRAME_SKIP`` (10, aurgen.gym's default) physics steps, the observation (qpos, qvel)
  gathered and a reward and done flag computed by a kernel;
* the ratio hydro / plain time per step (the figure: the target is <= 1.5 on a GPU).

Contacts are disabled in both (``mjDSBL_CONTACT``) and the script asserts ``nacon == 0`` and
finite states at the end of every run, so neither pays for collisions the other doesn't.
On CUDA nworld runs 1 .. 65,536; on the CPU device (no GPU) 1, 16, 64. The device is printed.
The first run compiles MuJoCo Warp's kernels (minutes on a CPU; cached after).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import mujoco
import numpy as np

FRAME_SKIP = 10
CUDA_NWORLD = (1, 16, 256, 1024, 4096, 16384, 65536)
CPU_NWORLD = (1, 16, 64)


def build_blueboat(out: Path) -> Path:
    subprocess.run([sys.executable, "-m", "aurgen", "build", "blueboat.yaml", "-o", str(out)], check=True,
                   capture_output=True, cwd=out)
    return out / "blueboat" / "blueboat.xml"


def models(path: Path):
    from aurgen.runtime import mjwarp
    from aurgen.runtime.sim import Simulation
    import mujoco_warp as mjw

    with Simulation(str(path), water=1025.0) as sim:
        xml = sim.to_xml()
        q0 = sim.data.qpos.copy()
    mjm, config = mjwarp.plain_model(xml)
    mjm.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONTACT
    return mjm, mjwarp.put_model(mjm, config=config), mjw.put_model(mjm), q0


def _kernels(wp):
    @wp.kernel
    def act(a: wp.array2d(dtype=float), ctrl: wp.array2d(dtype=float)):
        w, j = wp.tid()
        ctrl[w, j] = a[w, j]

    @wp.kernel
    def observe(qpos: wp.array2d(dtype=float), qvel: wp.array2d(dtype=float), obs: wp.array2d(dtype=float),
                reward: wp.array(dtype=float), done: wp.array(dtype=int)):
        w = wp.tid()
        nq = qpos.shape[1]
        for i in range(nq):
            obs[w, i] = qpos[w, i]
        for i in range(qvel.shape[1]):
            obs[w, nq + i] = qvel[w, i]
        reward[w] = -wp.abs(qpos[w, 2]) + qvel[w, 0]
        done[w] = 0
        if qpos[w, 2] < -1.0 or not wp.isfinite(qpos[w, 2]):
            done[w] = 1

    return act, observe


class Run:
    """One model on nworld worlds: its data, the device buffers of an env-step, and timed calls."""

    def __init__(self, mjw, wp, mjm, m, nworld, q, v, kernels, cuda):
        self.mjw, self.wp, self.m, self.cuda = mjw, wp, m, cuda
        self.d = mjw.make_data(mjm, nworld=nworld)
        self.q, self.v = q, v
        self.act, self.observe = kernels
        self.actions = wp.array(np.tile(mjm.actuator_ctrlrange[:, 1] * 0.3, (nworld, 1)).astype(np.float32),
                                dtype=float)
        self.obs = wp.zeros((nworld, mjm.nq + mjm.nv), dtype=float)
        self.reward = wp.zeros(nworld, dtype=float)
        self.done = wp.zeros(nworld, dtype=int)
        self.graphs = {}

    def reset(self):
        self.d.qpos.assign(self.q)
        self.d.qvel.assign(self.v)
        self.d.time.zero_()

    def _physics(self, n):
        for _ in range(n):
            self.mjw.step(self.m, self.d)

    def _env(self, n):
        wp, d = self.wp, self.d
        for _ in range(n):
            wp.launch(self.act, dim=self.actions.shape, inputs=[self.actions], outputs=[d.ctrl])
            self._physics(FRAME_SKIP)
            wp.launch(self.observe, dim=d.nworld, inputs=[d.qpos, d.qvel], outputs=[self.obs, self.reward, self.done])

    def timed(self, kind, n):
        wp = self.wp
        fn = self._physics if kind == "physics" else self._env
        if self.cuda and (kind, n) not in self.graphs:
            fn(1)  # buffers allocated outside the capture
            with wp.ScopedCapture() as cap:
                fn(n)
            self.graphs[kind, n] = cap.graph
        self.reset()
        wp.synchronize()
        t = time.perf_counter()
        if self.cuda:
            wp.capture_launch(self.graphs[kind, n])
        else:
            fn(n)
        wp.synchronize()
        return time.perf_counter() - t

    def check(self):
        q, v = self.d.qpos.numpy(), self.d.qvel.numpy()
        assert np.all(np.isfinite(q)) and np.all(np.isfinite(v)), "a non-finite state"
        assert int(self.d.nacon.numpy()[0]) == 0, "a contact: the comparison would not be like for like"
        return q


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", default=None, help="warp device (default: cuda:0 if present, else cpu)")
    ap.add_argument("--nworld", type=int, nargs="*", default=None)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--steps", type=int, default=None, help="physics steps per round (env-steps: steps / 10)")
    ap.add_argument("--quick", action="store_true", help="2 rounds, fewer steps")
    ap.add_argument("--vehicle", type=Path, default=None, help="a built blueboat.xml (default: build one)")
    a = ap.parse_args(argv)
    import warp as wp

    wp.config.quiet = True
    import mujoco_warp as mjw

    device = a.device or ("cuda:0" if wp.get_cuda_device_count() > 0 else "cpu")
    wp.set_device(device)
    cuda = wp.get_device(device).is_cuda
    nworlds = a.nworld or (CUDA_NWORLD if cuda else CPU_NWORLD)
    rounds = 2 if a.quick else a.rounds
    steps = a.steps or ((200 if cuda else 50) if not a.quick else 20)
    steps = max(FRAME_SKIP, steps - steps % FRAME_SKIP)
    print(f"device: {device} ({wp.get_device(device).name}); "
          f"{'CUDA graphs' if cuda else 'Warp CPU device: no GPU here, small nworld only'}")
    with tempfile.TemporaryDirectory() as tmp:
        path = a.vehicle or build_blueboat(Path(tmp))
        t = time.perf_counter()
        mjm, mh, mp, q0 = models(path)
        kernels = _kernels(wp)
        print(f"BlueBoat: nq {mjm.nq}, nv {mjm.nv}, {mh.aurgen.ngeom} hydrostatic geoms, dt {mjm.opt.timestep} s; "
              f"contacts off; {rounds} interleaved rounds of {steps} physics steps / {steps // FRAME_SKIP} "
              f"env-steps (frame_skip {FRAME_SKIP})")
        rows = []
        for nw in nworlds:
            rng = np.random.default_rng(nw)
            q = np.tile(q0, (nw, 1))
            q[:, 2] += rng.uniform(-0.02, 0.02, nw)
            v = np.zeros((nw, mjm.nv))
            v[:, :6] = rng.normal(0, 0.05, (nw, 6))
            q, v = q.astype(np.float32), v.astype(np.float32)
            runs = {"hydro": Run(mjw, wp, mjm, mh, nw, q, v, kernels, cuda),
                    "plain": Run(mjw, wp, mjm, mp, nw, q, v, kernels, cuda)}
            for r in runs.values():  # compile and warm
                r.timed("physics", FRAME_SKIP)
                r.timed("env", 1)
            if len(rows) == 0:
                print(f"set-up and kernel compilation/load: {time.perf_counter() - t:.1f} s")
            tm = {(k, n): [] for k in runs for n in ("physics", "env")}
            for _ in range(rounds):
                for kind in ("physics", "env"):
                    for name, r in runs.items():
                        n = steps if kind == "physics" else steps // FRAME_SKIP
                        tm[name, kind].append(r.timed(kind, n))
            zs = {name: r.check()[:, 2] for name, r in runs.items()}
            assert np.all(zs["hydro"] > -1.0), "the hydrostatic BlueBoat sank"
            med = {k: statistics.median(x) for k, x in tm.items()}
            ps = {k: nw * steps / med[k, "physics"] for k in runs}
            es = {k: nw * (steps // FRAME_SKIP) / med[k, "env"] for k in runs}
            rows.append((nw, ps["hydro"], ps["plain"], ps["plain"] / ps["hydro"], es["hydro"], es["plain"],
                         es["plain"] / es["hydro"]))
            print(f"nworld {nw:6d}: physics steps/s hydro {ps['hydro']:12,.0f} plain {ps['plain']:12,.0f} "
                  f"(x{ps['plain'] / ps['hydro']:.2f} time); env-steps/s hydro {es['hydro']:11,.0f} "
                  f"plain {es['plain']:11,.0f} (x{es['plain'] / es['hydro']:.2f})", flush=True)
        print("\n| nworld | physics steps/s (hydro) | plain | hydro/plain time | env-steps/s (hydro) | plain | ratio |")
        print("|---:|---:|---:|---:|---:|---:|---:|")
        for nw, ph, pp, pr, eh, ep, er in rows:
            print(f"| {nw} | {ph:,.0f} | {pp:,.0f} | {pr:.2f} | {eh:,.0f} | {ep:,.0f} | {er:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
