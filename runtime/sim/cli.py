"""``aurgen sim <world-or-model> --duration T [--out run.csv] [--plot run.png] [--water RHO | --vacuum]``.

Steps the file with the runtime, shows a progress bar (stderr), prints a
summary per free body (final pose, settled draft, heel, trim) and the health.
Exit status 0 when the run stayed healthy, 1 when it went invalid.
"""

from __future__ import annotations

import csv
import math
import sys
from pathlib import Path

import numpy as np

from aurgen.core.errors import AurgenError
from aurgen.core.files import check_replaceable, write_with


def _bar(frac: float, width: int = 30) -> str:
    n = int(round(frac * width))
    return "[" + "#" * n + "." * (width - n) + f"] {100 * frac:5.1f}%"


MAX_STEPS = 10_000_000  # a run longer than this many steps is refused before it starts


def _check_output(option: str, path, ours) -> None:
    """An output path must be writable as a file: its folder exists, it is not a folder itself,
    and a file already there is one aurgen wrote (``ours``: :func:`_our_csv`, :func:`_our_png`)."""
    import os

    if path is None:
        return
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise AurgenError(f"{option} {path}: the folder {folder} does not exist")
    if os.path.isdir(path):
        raise AurgenError(f"{option} {path}: is a folder; name a file")
    if not os.access(folder, os.W_OK):
        raise AurgenError(f"{option} {path}: the folder {folder} is not writable")
    try:
        check_replaceable(path, ours)
    except AurgenError as exc:
        raise AurgenError(f"{option} {exc}") from None


# what marks aurgen's own outputs, so that a rerun may replace them and nothing else
PNG_SOFTWARE = "aurgen"  # the PNG's tEXt Software entry (matplotlib's savefig metadata)


def _our_csv(head: bytes) -> bool:
    """A run CSV aurgen sim wrote: its header starts with the time column."""
    return head.startswith(CSV_COLUMNS[0].encode() + b",")


def _our_png(head: bytes) -> bool:
    """A plot aurgen sim wrote: a PNG whose tEXt Software entry is aurgen's (before the image data)."""
    return head.startswith(b"\x89PNG\r\n\x1a\n") and b"tEXtSoftware\x00" + PNG_SOFTWARE.encode() in head


def _declares_environment(path) -> bool:
    """Whether the model file itself carries an environment text (read from the file, not from the
    compiled model, to which ``--water`` attaches one)."""
    import mujoco

    from aurgen.runtime.environment.schema import ENV_TEXT

    try:
        spec = mujoco.MjSpec.from_file(str(path))
    except Exception:  # the Simulation already compiled it; a file MjSpec cannot read declares none here
        return False
    return any(t.name == ENV_TEXT for t in spec.texts)


def _check_model(model) -> None:
    """The model is a regular file, and so is every file it makes MuJoCo open (a FIFO would block every
    reader of it, MjSpec's included)."""
    import os
    import stat

    if str(model).lstrip().startswith("<") or str(model).lower().endswith((".yaml", ".yml")):
        return  # Simulation says what these are
    _refuse_other_format(str(model))
    try:
        st = os.stat(model)
    except (OSError, ValueError):
        raise AurgenError(f"{str(model)!r}: no such file (expected an MJCF world or model written by aurgen)") from None
    if not stat.S_ISREG(st.st_mode):
        raise AurgenError(f"{model}: not a regular file (expected an MJCF world or model written by aurgen)")
    from aurgen.runtime.sim.loading import _refuse_special_files

    # and every file it makes MuJoCo open (a world's <model file>, an <include>): --water and --vacuum
    # read the file (MjSpec) before the Simulation's own check, and a FIFO there blocked that read forever
    _refuse_special_files(str(model))


_OTHER_FORMATS = {".sdf": "an SDF file (Gazebo)", ".urdf": "a URDF file (ROS)", ".config": "a Gazebo model.config"}


def _refuse_other_format(model: str) -> None:
    """An SDF, URDF or model.config passed where the MJCF is expected (MuJoCo said only "Unrecognized
    XML model type: 'sdf'"): say which file of the build to simulate."""
    import os

    what = _OTHER_FORMATS.get(os.path.splitext(model)[1].lower())
    if what is None:
        return
    folder, stem = os.path.dirname(model), os.path.splitext(os.path.basename(model))[0]
    if stem in ("model", ""):  # build/<vehicle>/model.sdf: the MJCF is build/<vehicle>/<vehicle>.xml
        stem = os.path.basename(os.path.abspath(folder or "."))
    mjcf = os.path.join(folder, f"{stem}.xml")
    raise AurgenError(f"{model}: {what}; aurgen sim takes the MJCF (<vehicle>.xml) or a world "
                      f"(build/worlds/<world>.xml): simulate {mjcf}" + ("" if os.path.isfile(mjcf) else
                                                                       " (write it with 'aurgen build')"))


def _displaces(m) -> bool:
    """Whether the compiled model has displacement geoms (aurgen's ``user="1"`` mark)."""
    from aurgen.runtime.sim.plan import MARK_DISPLACEMENT

    return m.nuser_geom > 0 and bool((np.rint(m.geom_user[:, 0]) == MARK_DISPLACEMENT).any())


def _check_water(model, water) -> None:
    """--water is for a file without an environment (said in the CLI's terms before
    Simulation, which refuses ``water=`` with an environment too, is asked)."""
    if water is not None and _declares_environment(model):
        raise AurgenError(f"{model}: --water is for a model without an environment; this file carries "
                          "one (a world): drop --water")


def cli_sim(args) -> int:
    from aurgen.runtime.environment import schema as envmod
    from aurgen.runtime.sim.simulation import Simulation

    # everything checked before the run, so a long run's results are never lost to a bad path
    _check_model(args.model)
    if not (math.isfinite(args.duration) and args.duration > 0):
        raise AurgenError(f"--duration must be a positive, finite number of seconds, got {args.duration}")
    _check_output("--out", getattr(args, "out", None), _our_csv)
    _check_output("--plot", getattr(args, "plot", None), _our_png)
    water = getattr(args, "water", None)
    if water is not None and not (math.isfinite(water) and 1e-3 <= water <= 1e5):
        raise AurgenError(f"--water must be a fluid density in kg/m^3 between 0.001 and 1e5, got {water}")
    vacuum = getattr(args, "vacuum", False)
    if vacuum and water is not None:
        raise AurgenError("--water and --vacuum: choose one (open water of that density, or none)")
    _check_water(args.model, water)
    if vacuum and _declares_environment(args.model):
        raise AurgenError(f"{args.model}: --vacuum is for a model without an environment; this file carries "
                          "one (a world): drop --vacuum")
    from aurgen.runtime.sim import loading

    with loading.deferred_notes() as notes:  # a refusal below is the one line printed: notes after it
        try:
            sim = Simulation(args.model, water=water)
        except envmod.EnvironmentInvalid as exc:  # name the file the environment came from
            raise envmod.EnvironmentInvalid(f"{args.model}: {exc}") from None
    try:
        steps = args.duration / sim.model.opt.timestep
        if steps < 1:
            raise AurgenError(f"--duration {args.duration:g} s is shorter than one step "
                              f"({sim.model.opt.timestep:g} s)")
        if steps > MAX_STEPS:
            raise AurgenError(f"--duration {args.duration:g} s is {steps:.3g} steps of {sim.model.opt.timestep:g} s, "
                              f"more than the {MAX_STEPS} a run may take")
        if sim.environment is None and not vacuum and _displaces(sim.model):
            raise AurgenError(f"{args.model}: a vehicle with displacement geoms and no environment in the file: "
                              "pass --water RHO (open water of that density at z = 0, e.g. --water 1025) or "
                              "--vacuum (plain MuJoCo, no fluid: it falls)")
    except BaseException:
        sim.close()
        raise
    loading.print_notes(notes)
    if sim.environment is None:
        print("aurgen sim: no environment in the file (and no --water): stepping as plain MuJoCo",
              file=sys.stderr)
    try:
        return _run(sim, args)
    finally:
        sim.close()


def _run(sim, args) -> int:
    dt = sim.model.opt.timestep
    if not (args.duration > 0 and math.isfinite(args.duration)):
        raise AurgenError(f"--duration must be a positive number of seconds, got {args.duration}")
    n = int(round(args.duration / dt))
    bodies = sim.free_bodies() or [sim._track]
    every = max(1, int(round(0.01 / dt)))  # record at ~100 Hz
    rows = []
    quiet = getattr(args, "quiet", False) or not sys.stderr.isatty()
    chunk = max(1, n // 100)
    done = 0

    def record():
        row = [float(sim.data.time)]
        for b in bodies:
            s = sim.body_state(b)
            row += list(map(float, s["position"])) + [s["roll"], s["pitch"], s["yaw"]]
        rows.append(row)

    record()
    while done < n:
        k = min(every, n - done)
        sim.step(k)
        done += k
        record()
        if not quiet and (done % chunk < k or done == n):
            print("\r" + _bar(done / n), end="", file=sys.stderr, flush=True)
    if not quiet:
        print(file=sys.stderr)
    h = sim.check()
    names = [sim.body_state(b)["name"] for b in bodies]
    resets = sim.monitor.resets()
    if resets.count:  # MuJoCo restarted the state: the clock did not reach the duration asked
        print(f"{sim.source}: {n} steps of {dt:g} s, but MuJoCo reset the state {resets.count} times: "
              f"the simulated time reached {resets.time_reached:g} s of the {args.duration:g} s asked")
    else:
        print(f"{sim.source}: {args.duration:g} s in {n} steps of {dt:g} s")
    for b in bodies:
        s = sim.body_state(b)
        p = s["position"]
        print(f"  {s['name']}:")
        print(f"    position:  [{p[0]:+.6f}, {p[1]:+.6f}, {p[2]:+.6f}] m")
        print(f"    heel:      {math.degrees(s['roll']):+.4f} deg")
        print(f"    trim:      {math.degrees(s['pitch']):+.4f} deg")
        print(f"    yaw:       {math.degrees(s['yaw']):+.4f} deg")
        if "draft" in s:
            print(f"    draft:     {s['draft']:.6f} m at the body origin (positive: below the surface)")
    print(f"  health:      {h}")
    if not h.settled and not resets.count:
        print(f"  height range over the last {sim.monitor.window:g} s: {sim.height_range():.3g} m "
              f"(settled below {sim.monitor.tol:g} m)")
    if args.out:
        header = list(CSV_COLUMNS[:1])
        for nm in names:
            header += [f"{nm}.{c}" for c in CSV_COLUMNS[1:]]
        write_with(args.out, lambda tmp: _csv(tmp, header, rows), ours=_our_csv)
        print(f"wrote {args.out}")
    if args.plot:
        _plot(args.plot, names, np.array(rows), f"aurgen sim {Path(str(sim.source)).name}: {args.duration:g} s "
              "(from each body's start)")
        print(f"wrote {args.plot}")
    return 0 if h.ok else 1


# run.csv columns, each with its unit: time, then per free body its position (world frame) and
# fixed-axis roll, pitch, yaw (heel, trim, heading)
CSV_COLUMNS = ("time [s]", "x [m]", "y [m]", "z [m]", "roll [rad]", "pitch [rad]", "yaw [rad]")
TIME_DIGITS = 9  # times are sums of time steps: rounded to 1 ns, so 0.02 is not 0.020000000000000004


def _csv(path, header, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(header)
        for r in rows:
            w.writerow([repr(round(r[0], TIME_DIGITS) + 0.0)] + [repr(x) for x in r[1:]])


def _plot(path, names, a, title=None, keep=None):
    """run.png: per free body its heave (height relative to its own start, so a boat at the surface
    and an ROV 3 m down share one readable axis; a body starting below the surface also its depth),
    its horizontal displacement from its start (x solid, y dashed) and horizontal speed (a boat
    drifting in a current or driven by thrust showed nothing before), and its heel and trim; one
    colour per body in every panel. ``keep``: given the figure instead of closing it (tests)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = a[:, 0]
    deep = [i for i in range(len(names)) if a[0, 1 + 6 * i + 2] < -0.25]  # started below the surface
    n = 4 + bool(deep)
    fig, ax = plt.subplots(n, 1, figsize=(8, 2.1 * n + 0.8), sharex=True)
    dt = np.diff(t)
    for i, nm in enumerate(names):
        base = 1 + 6 * i
        colour = f"C{i % 10}"
        x, y, z = a[:, base], a[:, base + 1], a[:, base + 2]
        ax[0].plot(t, z - z[0], color=colour, label=f"{nm} (start z = {z[0]:+.3f} m)")
        ax[1].plot(t, x - x[0], color=colour, label=f"{nm} x")
        ax[1].plot(t, y - y[0], "--", color=colour, label=f"{nm} y")
        v = np.hypot(np.diff(x), np.diff(y)) / np.where(dt > 0, dt, np.inf)
        ax[2].plot(t, np.concatenate([[v[0] if v.size else 0.0], v]), color=colour, label=nm)
        if i in deep:
            ax[3].plot(t, -z, color=colour, label=nm)
        ax[-1].plot(t, np.degrees(a[:, base + 3]), color=colour, label=f"{nm} heel")
        ax[-1].plot(t, np.degrees(a[:, base + 4]), "--", color=colour, label=f"{nm} trim")
    ax[0].set_ylabel("heave: z − z(0) (m)")
    ax[1].set_ylabel("horizontal: from start (m)")
    ax[2].set_ylabel("horizontal speed (m/s)")
    if deep:
        ax[3].set_ylabel("depth: −z (m)")
        ax[3].invert_yaxis()
    ax[-1].set_ylabel("heel, trim (deg)")
    ax[-1].set_xlabel("time (s)")
    ax[-1].set_xlim(t[0], t[-1])
    for x_ in ax:
        x_.grid(True)
        x_.legend(fontsize=7, loc="best")
    fig.suptitle(title or "aurgen sim: motion of each free body", fontsize=10)
    fig.align_ylabels(ax)
    fig.tight_layout()
    if keep is not None:
        keep(fig)
        return
    try:
        write_with(path, lambda tmp: fig.savefig(tmp, dpi=100, format="png", metadata={"Software": PNG_SOFTWARE}),
                   ours=_our_png)
    finally:
        plt.close(fig)
