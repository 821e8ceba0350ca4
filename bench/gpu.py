"""The hydrostatics on MuJoCo Warp against plain MuJoCo Warp: physics steps/s and env-steps/s.

Not a test; run by hand: ``python bench/gpu.py [--quick] [--device cpu|cuda:0] [--nworld 1 16 ...]``
(needs the gpu extra: ``pip install '.[gpu]'``).

Physics steps/s: the BlueBoat (vehicles/blueboat.yaml, built into a temporary folder) in open water
(1025 kg/m^3) is put on MuJoCo Warp twice from the same plain MjModel (the plugin instance taken out:
aurgen.runtime.mjwarp.plain_model): ``hydro``, aurgen.runtime.mjwarp.put_model (the hydrostatics as the
passive callback), and ``plain``, mujoco_warp.put_model (MuJoCo's gravity only: the boat falls), stepped
with ``mujoco_warp.step`` from the same float32 states (around the floating pose, jittered per world).
Contacts are disabled in both (``mjDSBL_CONTACT``).

Env-steps/s: the real environments, aurgen.gym.warp.WarpStationKeeping and
aurgen.gym.warp_waypoint.WarpWaypoint (their defaults: frame_skip 10, the bundled BlueBoat at its
declared density), each ``step`` given one device array of actions (a fixed thrust per world) and
timed from a ``reset(seed=0)``: the action kernel, 10 physics steps, the autoreset and the task's
observation, reward and end kernel, no host round trip. ``hydro`` is the environment as made;
``plain`` the same environment class with its model's passive callback removed (``mujoco_warp.Callback()``:
the same kernels and resets, minus the hydrostatics; the boat falls). Both run with ``max_distance``
and ``step_limit`` out of reach, so no world ends and both do the same work: the script asserts that
every world of both counted every step, and finite states and observations. The environments keep
MuJoCo's contacts on, as aurgen.gym's models have them (nothing to collide in open water: ``nacon == 0``
asserted), so an env-step also pays MuJoCo Warp's collision pipeline, which the physics figure does not
(on the CPU device about 2.4x the physics step at nworld 16).

For each nworld the runs are interleaved in rounds; the figures are medians over rounds, nworld x steps /
seconds, with the ratio plain / hydro rate (hydro's time per step over plain's: the target is <= 1.5 on a
GPU). On CUDA the steps of a round are one captured graph (as MuJoCo Warp's own benchmarks run; an
environment whose step cannot be captured runs eagerly, and the script says so). Every run asserts
``nacon == 0`` and finite states at its end, so neither side pays for collisions the other doesn't.
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


class _Timed:
    """A run timed by rounds: ``reset`` then ``steps(n)`` (on CUDA one captured graph per n, if it captures)."""

    wp, cuda = None, False

    def timed(self, n):
        wp = self.wp
        if self.cuda and n not in self.graphs:
            self.reset()
            self.steps(1)  # buffers allocated and modules loaded outside the capture
            try:
                with wp.ScopedCapture() as cap:
                    self.steps(n)
                self.graphs[n] = cap.graph
            except Exception as exc:  # noqa: BLE001 - reported, then run eagerly
                print(f"  {type(self).__name__}: graph capture failed ({type(exc).__name__}: {exc}); eager "
                      "launches", flush=True)
                self.graphs[n] = None
        self.reset()
        wp.synchronize()
        t = time.perf_counter()
        if self.cuda and self.graphs[n] is not None:
            wp.capture_launch(self.graphs[n])
        else:
            self.steps(n)
        wp.synchronize()
        return time.perf_counter() - t


def _check(d):
    """The data's state finite and contact-free (the comparison like for like); its qpos."""
    q, v = d.qpos.numpy(), d.qvel.numpy()
    assert np.all(np.isfinite(q)) and np.all(np.isfinite(v)), "a non-finite state"
    assert int(d.nacon.numpy()[0]) == 0, "a contact: the comparison would not be like for like"
    return q


class Run(_Timed):
    """One model on nworld worlds stepped with ``mujoco_warp.step`` from the states (q, v)."""

    def __init__(self, mjw, wp, mjm, m, nworld, q, v, cuda):
        self.mjw, self.wp, self.m, self.cuda, self.graphs = mjw, wp, m, cuda, {}
        self.d = mjw.make_data(mjm, nworld=nworld)
        self.q, self.v = q, v

    def reset(self):
        self.d.qpos.assign(self.q)
        self.d.qvel.assign(self.v)
        self.d.time.zero_()

    def steps(self, n):
        for _ in range(n):
            self.mjw.step(self.m, self.d)

    def check(self):
        return _check(self.d)


class EnvRun(_Timed):
    """A real environment of aurgen.gym.warp (``cls``) on nworld worlds, the hydrostatics on or (``plain``)
    its model's passive callback removed, its ``step`` given one device array of actions (N)."""

    def __init__(self, mjw, wp, cls, nworld, plain, cuda):
        self.wp, self.cuda, self.graphs = wp, cuda, {}
        self.env = cls(num_envs=nworld, max_distance=1e9, step_limit=10 ** 9)  # no world ends
        assert self.env.frame_skip == FRAME_SKIP
        if plain:
            self.env.model.callback = mjw.Callback()  # no passive callback: MuJoCo Warp's gravity only
        hi = self.env.single_action_space.high
        a = np.random.default_rng(nworld).uniform(0.2, 0.6, (nworld, len(hi))) * hi
        self.actions = wp.array(a.astype(np.float32), dtype=float)
        self.n = 0

    def reset(self):
        self.env.reset(seed=0)

    def steps(self, n):
        self.n = n
        for _ in range(n):
            self.env.step(self.actions)

    def check(self):
        """Every world counted the last round's every step (none ended or reset: both sides did the same
        work) and its state and observation stayed finite."""
        e = self.env
        assert np.all(e._steps.numpy() == self.n), "a world ended: the two sides did not do the same work"
        assert np.all(np.isfinite(e.obs.numpy())) and not e.nonfinite.numpy().any(), "a non-finite observation"
        return _check(e.data)


def _states(q0, nv, nw):
    """nw float32 states around the floating pose q0: the height jittered by 2 cm, small velocities."""
    rng = np.random.default_rng(nw)
    q = np.tile(q0, (nw, 1))
    q[:, 2] += rng.uniform(-0.02, 0.02, nw)
    v = np.zeros((nw, nv))
    v[:, :6] = rng.normal(0, 0.05, (nw, 6))
    return q.astype(np.float32), v.astype(np.float32)


def _runs(mjw, wp, mjm, mh, mp, q0, nw, cuda):
    """{name: run} on nw worlds: the physics (``hydro``, ``plain``) and each environment's two sides."""
    from aurgen.gym.warp import WarpStationKeeping
    from aurgen.gym.warp_waypoint import WarpWaypoint

    q, v = _states(q0, mjm.nv, nw)
    runs = {f"physics {side}": Run(mjw, wp, mjm, m, nw, q, v, cuda) for side, m in (("hydro", mh), ("plain", mp))}
    for task, cls in (("station", WarpStationKeeping), ("waypoint", WarpWaypoint)):
        for side in ("hydro", "plain"):
            runs[f"{task} {side}"] = EnvRun(mjw, wp, cls, nw, side == "plain", cuda)
    return runs


def _measure(runs, rounds, steps, nw):
    """Interleaved rounds of every run: {name: median rate} (physics steps/s or env-steps/s, all worlds)."""
    n = {k: steps if k.startswith("physics") else steps // FRAME_SKIP for k in runs}
    for k, r in runs.items():  # compile and warm
        r.timed(min(n[k], FRAME_SKIP))
    tm = {k: [] for k in runs}
    for _ in range(rounds):
        for k, r in runs.items():
            tm[k].append(r.timed(n[k]))
    zs = {k: r.check()[:, 2] for k, r in runs.items()}
    assert np.all(zs["physics hydro"] > -1.0), "the hydrostatic BlueBoat sank"
    return {k: nw * n[k] / statistics.median(x) for k, x in tm.items()}


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
        print(f"BlueBoat: nq {mjm.nq}, nv {mjm.nv}, {mh.aurgen.ngeom} hydrostatic geoms, dt {mjm.opt.timestep} s; "
              f"{rounds} interleaved rounds of {steps} physics steps (contacts off) / {steps // FRAME_SKIP} "
              f"env-steps (WarpStationKeeping, WarpWaypoint; frame_skip {FRAME_SKIP})")
        rows = []
        for nw in nworlds:
            rate = _measure(_runs(mjw, wp, mjm, mh, mp, q0, nw, cuda), rounds, steps, nw)
            if not rows:
                print(f"set-up and kernel compilation/load: {time.perf_counter() - t:.1f} s")
            rows.append((nw, rate))
            print(f"nworld {nw:6d}: " + "; ".join(
                f"{what} hydro {rate[what + ' hydro']:,.0f} plain {rate[what + ' plain']:,.0f} "
                f"(x{rate[what + ' plain'] / rate[what + ' hydro']:.2f} time)"
                for what in ("physics", "station", "waypoint")), flush=True)
        print("\n| nworld | physics steps/s (hydro) | plain | hydro/plain time | station-keeping env-steps/s "
              "(hydro) | plain | ratio | waypoint env-steps/s (hydro) | plain | ratio |")
        print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for nw, rate in rows:
            cells = [f"{rate[w + ' hydro']:,.0f} | {rate[w + ' plain']:,.0f} | "
                     f"{rate[w + ' plain'] / rate[w + ' hydro']:.2f}" for w in ("physics", "station", "waypoint")]
            print(f"| {nw} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
