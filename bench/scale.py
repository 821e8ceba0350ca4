"""Benchmark: many worlds at once (issue 13), ratios measured in one run.

Static sweep (``aurgen sweep``): variants/s of a BlueBoat Monte Carlo sweep (payload
mass and position, a battery slot, the chassis' CoM height), computed in this process
(``aurgen.analysis.sweep.rows.run_chunk``: compose in memory + kernel equilibrium + freeboard, no
I/O), against one ``aurgen specs`` composition (``resolve`` + ``equilibrium_of`` of
the bundled file) in the same process: the ratio says what the sweep's per-variant
cost is in units of one specs run. Then the same through the command line
(journal, table, no figures), and the projected time of the issue's target, a
10,000-variant sweep on 2 cores (``target ≤ 60 s``).

Ray (when installed): the same sweep on ``--ray local`` with 2 workers against 1
(ratio of wall times; ideal 2.0 on 2 free cores), and the tables compared byte
for byte; likewise ``-j 2`` (local processes, no Ray) against the serial command.

Worlds (:func:`worlds`): N BlueBoat worlds (N = 1 ... 4096; the bundled config in open
water, the ``aurgen.hydrostatics`` plugin in ``mj_step``, each world heeled and turned
differently and under thrust) on ``mujoco.batch.Batch`` with 1 and 2 threads, against
the same N worlds stepped one after another on one MjData of the same model by
``mj_step(m, d, nstep)`` (MuJoCo's C loop: the same work minus the batching),
interleaved, best of the rounds; the bench checks that every batch world ends bitwise
where the serial loop does. Target (issue 13):
batch steps/s >= 0.9 x threads x serial (0.9 x min(threads, N): one world runs on one
thread). Then ``mujoco.rollout`` against ``Batch`` for the vector env's stepping (1024
worlds, 10 steps, the states copied in and out as the env did; final states compared); the vector env
(:func:`vector_env`): its env-steps/s with 1024 BlueBoats on 2 threads against its physics alone
(``Batch.step`` x 10), in still water and in a sea, in interleaved rounds: the median, min and max of
each rate and of the rounds' ratios (target: the median ratio >= 80 % of the physics; issue 13's
>= 100,000 env-steps/s); and memory per world: MuJoCo's
``d.nbuffer + d.narena`` of one MjData (what a persistent world costs), the resident
set growth over 1024 MjData, and a non-persistent Batch row (``nstate`` float64; the
batch's threads own the MjData) (target <= 1 MB).

    python bench/scale.py [variants] [--only=static|--only=worlds|--only=env]

(``--only=env``: the vector environment's figures alone.)
"""

from __future__ import annotations

import contextlib
import io
import sys
import tempfile
import time
from pathlib import Path

from aurgen.analysis.sweep.rows import run_chunk
from aurgen.analysis.sweep.variants import prepare
from aurgen.cli import main
from aurgen.compose.resolve import resolve
from aurgen.compose.stamp import equilibrium_of

SWEEP = """vehicle: blueboat.yaml
seed: 1
samples: {n}
parts:
  payload:
    description: a payload box of random mass
    mass: 1.0
    collision: [{{shape: box, size: [0.2, 0.2, 0.1]}}]
add:
  - {{type: payload, name: payload, parent: base_link, xyz: [0.0, 0.0, 0.147]}}
random:
  catalog.payload.mass: {{name: payload, uniform: [0, 15]}}
  parts[payload].xyz[0]: {{name: payload_x, uniform: [-0.3, 0.3]}}
  parts[payload].xyz[1]: {{name: payload_y, uniform: [-0.1, 0.1]}}
  slot.port_fwd: {{choice: [none, br_liion_18ah]}}
  catalog.blueboat_chassis.com[2]: {{normal: {{mean: 0.0725, std: 0.01}}}}
"""


def best_of(fn, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def quiet(argv):
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return main(argv)


def run(n: int = 400) -> None:
    import os

    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs (the machine is shared: "
          "ratios, not absolute rates, are the figures)")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        path = tmp / "mc.yaml"
        path.write_text(SWEEP.format(n=n))
        sw = prepare(path)

        def specs_once():
            equilibrium_of(resolve("blueboat.yaml"))

        specs_once()
        t_specs = best_of(specs_once, 10)
        run_chunk(sw, range(8))  # warm the caches and imports
        t0 = time.perf_counter()
        run_chunk(sw, range(sw.n))
        t_sweep = time.perf_counter() - t0
        rate = sw.n / t_sweep
        print(f"aurgen specs (resolve + equilibrium, bundled BlueBoat): {1e3 * t_specs:.1f} ms = {1 / t_specs:.1f}/s")
        print(f"static sweep, in process ({sw.n} Monte Carlo variants): {t_sweep:.2f} s = {rate:.1f} variants/s "
              f"= {rate * t_specs:.2f} x the specs rate")
        t0 = time.perf_counter()
        assert quiet(["sweep", str(path), "-o", str(tmp / "cli"), "--no-figures", "--quiet"]) == 0
        t_cli = time.perf_counter() - t0
        print(f"static sweep, aurgen sweep --no-figures (journal, CSV, Parquet): {t_cli:.2f} s = "
              f"{sw.n / t_cli:.1f} variants/s = {sw.n / t_cli * t_specs:.2f} x the specs rate")
        t0 = time.perf_counter()
        assert quiet(["sweep", str(path), "-o", str(tmp / "j2"), "--no-figures", "--quiet", "-j", "2"]) == 0
        t_j2 = time.perf_counter() - t0
        same_j = (tmp / "j2" / "sweep.csv").read_bytes() == (tmp / "cli" / "sweep.csv").read_bytes()
        print(f"static sweep, -j 2 (two local processes, their start included): {t_j2:.2f} s = "
              f"{sw.n / t_j2:.1f} variants/s = {t_cli / t_j2:.2f} x -j 1 (ideal 2.0); same table: {same_j}")
        proj = 10_000 / (2 * rate)
        print(f"projected 10,000 variants on 2 cores (2 x the in-process rate): {proj:.0f} s (target <= 60 s: "
              f"{'ok' if proj <= 60 else 'MISSED'})")

        try:
            import ray
        except ImportError:
            print("ray: not installed (pip install '.[scale]'): Ray 2 workers against 1 not measured")
            return
        walls = {}
        for w in (1, 2):
            out = tmp / f"ray{w}"
            ray.init(num_cpus=w, include_dashboard=False, log_to_driver=False, configure_logging=False)
            try:
                quiet(["sweep", str(tmp / "mc.yaml"), "-o", str(tmp / "warm"), "--fresh", "--no-figures", "--quiet",
                       "--ray", "local", "--chunk", "4"])  # workers up, imports done
                t0 = time.perf_counter()
                assert quiet(["sweep", str(path), "-o", str(out), "--no-figures", "--quiet", "--ray", "local",
                              "--chunk", "16"]) == 0
                walls[w] = time.perf_counter() - t0
            finally:
                ray.shutdown()
            print(f"ray local, {w} worker(s): {walls[w]:.2f} s = {sw.n / walls[w]:.1f} variants/s")
        same = (tmp / "ray1" / "sweep.csv").read_bytes() == (tmp / "ray2" / "sweep.csv").read_bytes() == \
            (tmp / "cli" / "sweep.csv").read_bytes()
        print(f"ray local 2 workers against 1: {walls[1] / walls[2]:.2f} x (ideal 2.0); tables identical: {same}")


# --------------------------------------------------------------------------- worlds


def _blueboat():
    """(model, a start state per world factory): the BlueBoat as the gym composes it."""
    import mujoco
    import numpy as np

    from aurgen.gym import _vehicle_xml
    from aurgen.runtime.sim import Simulation

    xml, rho, eq = _vehicle_xml("blueboat.yaml")
    sim = Simulation(xml, water=rho)
    model = sim.model
    spec = mujoco.mjtState.mjSTATE_INTEGRATION
    nstate = mujoco.mj_stateSize(model, spec)
    from aurgen.gym import _quat_yaw
    from aurgen.runtime.hydrostatics.equilibrium import attitude
    from aurgen.core.spatial import quat_of

    def states(n, seed=0):
        rng = np.random.default_rng(seed)
        d = mujoco.MjData(model)
        out = np.empty((n, nstate))
        for i in range(n):
            mujoco.mj_resetData(model, d)
            d.qpos[0:3] = eq.pos
            R = attitude(eq.heel + np.radians(rng.uniform(-10, 10)), eq.trim)
            d.qpos[3:7] = _quat_yaw(np.asarray(quat_of(R), float), float(rng.uniform(-np.pi, np.pi)))
            d.ctrl[:] = rng.uniform(0.0, 30.0, size=model.nu)
            mujoco.mj_getState(model, d, out[i], spec)
        return out

    return sim, model, spec, states


def _rss_kb() -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def worlds(rounds: int = 3) -> None:
    import os

    import mujoco
    import numpy as np
    from mujoco import batch as mjb
    from mujoco import rollout

    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    sim, model, spec, states = _blueboat()
    print(f"BlueBoat: nq {model.nq}, nv {model.nv}, ngeom {model.ngeom}, dt {model.opt.timestep} s, "
          f"integrator {mujoco.mjtIntegrator(model.opt.integrator).name}, plugin instances {model.nplugin}")
    budget = 40_000  # world-steps per measurement
    ns = (1, 4, 16, 64, 256, 1024, 4096)
    best: dict = {}
    d = mujoco.MjData(model)
    batches = {(n, t): mjb.Batch(model, nsim=n, nthread=t) for n in ns for t in (1, 2)}
    inits = {n: states(n) for n in ns}
    for _ in range(rounds):
        for n in ns:
            k = max(10, budget // n)
            s0 = inits[n]
            ref = np.empty_like(s0)
            t0 = time.perf_counter()
            for i in range(n):  # the same worlds one after another on one MjData
                mujoco.mj_setState(model, d, s0[i], spec)
                mujoco.mj_step(model, d, nstep=k)
                mujoco.mj_getState(model, d, ref[i], spec)
            ts = time.perf_counter() - t0
            best[("serial", n)] = min(best.get(("serial", n), 1e9), ts / (k * n))
            for t in (1, 2):
                b = batches[(n, t)]
                b.state[:] = s0
                t0 = time.perf_counter()
                b.step(nstep=k)
                tb = time.perf_counter() - t0
                best[(t, n)] = min(best.get((t, n), 1e9), tb / (k * n))
                if not np.array_equal(b.state, ref):
                    raise SystemExit(f"the batch (N={n}, {t} threads) does not end where the serial loop does")
    print("N worlds on mujoco.batch.Batch against the same N worlds stepped one after another on one MjData "
          "(mj_step nstep, same model, same starts; every final state checked bitwise):")
    print(f"{'N':>6} {'serial µs/step':>15} {'1 thr µs/step':>14} {'ratio':>6} {'2 thr µs/step':>14} {'ratio':>6} "
          f"{'target':>7}")
    for n in ns:
        ser = best[("serial", n)]
        r1, r2 = ser / best[(1, n)], ser / best[(2, n)]
        goal = 0.9 * min(2, n)  # two threads share one world at N = 1
        print(f"{n:>6} {1e6 * ser:>15.2f} {1e6 * best[(1, n)]:>14.2f} {r1:>6.2f} {1e6 * best[(2, n)]:>14.2f} "
              f"{r2:>6.2f} {goal:>4.1f} {'ok' if r2 >= goal and r1 >= 0.9 else 'MISSED'}")
    del batches

    # rollout against Batch for the vector env's stepping: 1024 worlds, 10 steps
    n, k = 1024, 10
    s0 = states(n, 1)
    nfull = mujoco.mj_stateSize(model, mujoco.mjtState.mjSTATE_FULLPHYSICS)
    datas = [mujoco.MjData(model) for _ in range(2)]
    b = mjb.Batch(model, nsim=n, nthread=2)
    u = np.empty((n, model.nu))
    tmp = mujoco.MjData(model)
    for i in range(n):
        mujoco.mj_setState(model, tmp, s0[i], spec)
        u[i] = tmp.ctrl
    envs = [mujoco.MjData(model) for _ in range(n)]
    t_ro = t_b = 1e9
    for _ in range(rounds):
        for i in range(n):
            mujoco.mj_setState(model, envs[i], s0[i], spec)
        t0 = time.perf_counter()
        full0 = np.empty((n, nfull))
        for i in range(n):
            mujoco.mj_getState(model, envs[i], full0[i], mujoco.mjtState.mjSTATE_FULLPHYSICS)
        ctrl = np.repeat(u[:, None, :], k, axis=1)
        out, _ = rollout.rollout(model, datas, full0, ctrl, nstep=k)
        for i in range(n):
            mujoco.mj_setState(model, envs[i], out[i, -1], mujoco.mjtState.mjSTATE_FULLPHYSICS)
        t_ro = min(t_ro, time.perf_counter() - t0)
        ro_q = np.stack([e.qpos.copy() for e in envs])
        b.state[:] = s0
        t0 = time.perf_counter()
        b.ctrl[:] = u
        b.step(nstep=k)
        for i in range(n):
            mujoco.mj_setState(model, envs[i], b.state[i], spec)
        t_b = min(t_b, time.perf_counter() - t0)
        b_q = np.stack([e.qpos.copy() for e in envs])
    print(f"vector-env stepping, {n} worlds x {k} steps on 2 threads, states copied back to each world's MjData: "
          f"rollout {1e3 * t_ro:.1f} ms, Batch {1e3 * t_b:.1f} ms: Batch {t_ro / t_b:.2f} x rollout; "
          f"same qpos: {np.array_equal(ro_q, b_q)}")
    del b, envs, datas, tmp
    vector_env()

    # memory per world
    d1 = mujoco.MjData(model)
    per_data = d1.nbuffer + d1.narena
    import gc

    gc.collect()
    r0 = _rss_kb()
    keep = [mujoco.MjData(model) for _ in range(1024)]
    for x in keep:
        mujoco.mj_setState(model, x, s0[0], spec)
        mujoco.mj_step(model, x)
    r1 = _rss_kb()
    rss = (r1 - r0) * 1024 / len(keep)
    row = 8 * mujoco.mj_stateSize(model, spec)
    print(f"memory per world: MjData nbuffer + narena {per_data / 1e6:.2f} MB allocated (nbuffer {d1.nbuffer} B, "
          f"arena {d1.narena} B); resident growth over 1024 stepped MjData {rss / 1e6:.3f} MB each; a "
          f"non-persistent Batch world (its state row) {row} B (target <= 1 MB: "
          f"{'ok' if rss <= 1e6 else 'MISSED'} resident, {'ok' if per_data <= 1e6 else 'MISSED'} allocated)")
    del keep
    sim.close()


# the vector environment's variants measured against their physics alone: (label, env id, keywords)
SEA = {"spectrum": "jonswap", "hs": 0.5, "tp": 3.0, "components": 16, "direction": 90}  # beam seas, sea state 2-3
ENV_VARIANTS = (("still water", "BlueBoatStationKeeping-v0", {}),
                ("JONSWAP sea, 16 components", "BlueBoatStationKeeping-v0", {"sea": SEA}),
                ("still water", "BlueBoatWaypoint-v0", {}))


def _span(xs) -> str:
    return f"{min(xs):,.0f} .. {max(xs):,.0f}"


def vector_env(n: int = 1024, threads: int = 2, rounds: int = 9, block: float = 0.4) -> None:
    """The vector environment (aurgen.gym.MarineVectorEnv) on ``n`` worlds and ``threads`` threads against
    its physics alone: per round, ``m`` env-steps (``vec.step``: the actions checked and clipped, the
    physics, the observations, rewards, ends, infos and autoresets) and ``m`` physics steps of the same
    batch (``vec.batch.step(nstep=frame_skip)``: what the environment cannot do without), the two in
    alternating order from round to round (interleaved: the machine's load falls on both; ``m`` makes a
    block about ``block`` seconds, 3 to 20 steps); printed, over the rounds: env-steps/s and the physics'
    rate in the same unit (N worlds x steps of ``frame_skip`` / s), each the median and min .. max, and
    the ratio env rate / physics rate: each round's (the two blocks of a round share the machine's load),
    their median and min .. max, and the ratio of the best times. Target (issue 48): the median >= 80 %."""
    import statistics

    import gymnasium
    import numpy as np

    import aurgen.gym  # noqa: F401

    print(f"vector env against its physics alone: {n} worlds, {threads} threads, {rounds} interleaved rounds "
          f"(rates: median, min .. max over the rounds; ratio = env rate / physics rate, each round's)")
    for label, name, kw in ENV_VARIANTS:
        vec = gymnasium.make_vec(name, num_envs=n, vectorization_mode="vector_entry_point", threads=threads, **kw)
        vec.reset(seed=0)
        hi = vec.single_action_space.high
        acts = np.random.default_rng(0).uniform(0.0, hi, size=(n,) + hi.shape)
        batch, skip = vec.unwrapped.batch, vec.unwrapped.frame_skip  # a sea's reset made the batch: read after it
        vec.step(acts)
        t0 = time.perf_counter()
        batch.step(nstep=skip)
        m = int(min(20, max(3, block / (time.perf_counter() - t0))))

        def env_steps():
            for _ in range(m):
                vec.step(acts)

        def physics():
            for _ in range(m):
                batch.step(nstep=skip)

        t_env, t_phys = [], []
        for r in range(rounds):
            for fn, out in ((env_steps, t_env), (physics, t_phys))[::1 if r % 2 == 0 else -1]:
                t0 = time.perf_counter()
                fn()
                out.append((time.perf_counter() - t0) / m)
        ratios = [tp / te for te, tp in zip(t_env, t_phys)]
        ratio = statistics.median(ratios)
        env_rate, phys_rate = [n / t for t in t_env], [n / t for t in t_phys]
        print(f"  {name} ({label}; {m} steps a block): {statistics.median(env_rate):,.0f} env-steps/s "
              f"({_span(env_rate)}); physics alone (Batch.step x {skip}) {statistics.median(phys_rate):,.0f} "
              f"steps of the env/s ({_span(phys_rate)}); ratio {ratio:.0%} ({min(ratios):.0%} .. "
              f"{max(ratios):.0%}; of the best times {min(t_phys) / min(t_env):.0%}); target >= 80 %: "
              f"{'ok' if ratio >= 0.8 else 'MISSED'}")
        if name == "BlueBoatStationKeeping-v0" and not kw:
            print(f"  (issue 13's target for it: >= 100,000 env-steps/s: "
                  f"{'ok' if max(env_rate) >= 100_000 else 'MISSED'})")
        vec.close()

if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--only")]
    only = next((a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--only=")), None)
    if only in (None, "static"):
        run(int(args[0]) if args else 400)
    if only in (None, "worlds"):
        worlds()
    if only == "env":
        vector_env()
