"""The command line: a thin layer over the library. ``main(argv=None)`` returns the exit status.

Exit status: 0 success, 1 a check found differences (audit), 2 bad input
(an AurgenError: message printed, no traceback).
"""

from __future__ import annotations

import argparse
import os
import sys

from aurgen import __version__
from aurgen.core.errors import AurgenError


def _cmd_specs(args) -> int:
    from aurgen.compose import specs
    from aurgen.compose.resolve import resolve

    from aurgen.compose.stamp import equilibrium_of

    vehicle = resolve(args.config)
    eq = equilibrium_of(vehicle)
    if args.json:
        import json

        print(json.dumps(specs.as_dict(vehicle, eq), indent=2, sort_keys=True))
    else:
        print(f"{vehicle.name} ({vehicle.source})")
        print(specs.table(specs.rows_with_trim(vehicle, eq)))
    return 0


def _cmd_catalog(args) -> int:
    from aurgen.config.catalog import catalog_for

    cat = catalog_for(None)  # $AURGEN_PARTS_PATH, then the bundled catalog
    names = cat.names()
    if args.json:
        import json

        out = []
        for n in names:
            p = cat.get(n)
            out.append({"type": n, "mass": p.mass, "slots": [s.name for s in p.slots],
                        "placeholder": p.placeholder, "inertia_from": p.inertia_from or None})
        print(json.dumps(out, indent=2))
        return 0
    width = max(len(n) for n in names)
    print(f"{'type'.ljust(width)}  {'mass kg':>10}  {'inertia':9}  slots")
    for n in names:
        p = cat.get(n)
        slots = ", ".join(s.name for s in p.slots) or "-"
        mark = " *" if p.placeholder else ""
        print(f"{n.ljust(width)}  {p.mass:10.6f}  {p.inertia_from or 'given':9}  {slots}{mark}")
    print("(inertia: given in the entry, or derived at uniform density from its collision or visual shapes)")
    print("(* placeholder figures: see the part's 'placeholder' note)")
    return 0


def _cmd_build(args) -> int:
    from aurgen.emit.build import all_configs, build

    configs = list(args.config or [])
    if args.all:
        configs = [str(p) for p in all_configs("vehicles")] + configs
    if not configs:
        raise AurgenError("nothing to build: name vehicle configs, or --all for every vehicle and world "
                          "(./vehicles, ./worlds and the bundled ones)")
    for path in build(configs, args.output):
        print(f"wrote {path}")
    if args.all:
        from aurgen.emit.worlds import write_worlds

        # every vehicle was just built: the worlds need not rebuild them
        for path in write_worlds(names=None, output=args.output, build_vehicles=False):
            print(f"wrote {path}")
    return 0


def _cmd_worlds(args) -> int:
    from aurgen.emit.worlds import write_worlds

    for path in write_worlds(args.names or None, args.output):
        print(f"wrote {path}")
    return 0


def _lazy(module: str, func: str):
    def run(args):
        import importlib

        return getattr(importlib.import_module(f"aurgen.{module}"), func)(args)

    return run


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The CLI's parser; ``only``: a command, whose sub-parser alone is made (the other
    nine cost about 1 ms of a cold ``aurgen specs``: argparse's gettext lookups)."""
    p = argparse.ArgumentParser(prog="aurgen", description="Compose marine vehicles from a parts catalog, "
                                "emit MJCF/SDF/URDF, and simulate them.")
    p.add_argument("--version", action="version", version=f"aurgen {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, adder, func in _PARSERS:
        if only is None or name == only:
            adder(sub).set_defaults(func=func)
    return p


def _add_specs(sub):
    s = sub.add_parser("specs", help="print a vehicle's composed figures")
    s.add_argument("config", help="vehicle config (path, or a bundled name such as blueboat.yaml)")
    s.add_argument("--json", action="store_true", help="machine-readable output")
    return s


def _add_catalog(sub):
    s = sub.add_parser("catalog", help="list part types with mass and slots")
    s.add_argument("--json", action="store_true",
                   help="machine-readable output: type, mass, slots, placeholder note and inertia_from of each part")
    return s


def _add_build(sub):
    s = sub.add_parser("build", help="write MJCF, SDF and URDF for a vehicle (and worlds with --all)")
    s.add_argument("config", nargs="*", help="vehicle configs")
    s.add_argument("-o", "--output", default="build", help="output root (default: build/)")
    s.add_argument("--all", action="store_true",
                   help="every vehicle and world: ./vehicles/*.yaml, ./worlds/*.yaml and the bundled ones")
    return s


def _add_worlds(sub):
    s = sub.add_parser("worlds", help="write world files (SDF and MJCF) from world configs")
    s.add_argument("names", nargs="*", help="world configs (default: ./worlds/*.yaml and the bundled worlds)")
    s.add_argument("-o", "--output", default="build", help="output root (default: build/)")
    return s


def _add_audit(sub):
    s = sub.add_parser("audit", help="check generated files against their specs, the config and each other")
    s.add_argument("paths", nargs="+", help="generated files or build directories")
    s.add_argument("--json", action="store_true", help="machine-readable output (same exit status)")
    s.add_argument("--config", action="append", default=[], metavar="PATH",
                   help="a config the files were built from (repeatable); by default each file's header names "
                        "its config by file name, looked up in ./, ./vehicles (./worlds) and the bundled ones")
    return s


def _add_sim(sub):
    s = sub.add_parser("sim", help="simulate a generated world or model with the hydrostatic runtime")
    s.add_argument("model", help="MJCF world (build/worlds/<world>.xml) or vehicle file (build/<name>/<name>.xml) "
                   "written by aurgen; not the SDF or URDF")
    s.add_argument("--duration", type=float, default=10.0, help="simulated seconds (default: 10)")
    s.add_argument("--out", help="write the trajectory as CSV")
    s.add_argument("--plot", help="write a PNG of the run")
    water = s.add_mutually_exclusive_group()
    water.add_argument("--water", type=float, metavar="RHO",
                       help="for a vehicle file with no environment: open water of this density (kg/m^3), surface "
                            "z=0 (a vehicle file needs this or --vacuum)")
    water.add_argument("--vacuum", action="store_true",
                       help="for a vehicle file with no environment: no fluid at all (plain MuJoCo: it falls)")
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    return s


def _add_sitl(sub):
    s = sub.add_parser("sitl", help="fly a world's vehicle with ArduPilot SITL (its JSON physics backend, over UDP)")
    s.add_argument("model", help="MJCF world (build/worlds/<world>.xml) or vehicle file (build/<name>/<name>.xml) "
                   "written by aurgen")
    s.add_argument("--vehicle", metavar="NAME[:PORT]", action="append",
                   help="the vehicle ArduPilot flies, by its name in the world (needed where the world has more "
                        "than one with thrusters); repeat it to fly several at once, each by its own ArduPilot "
                        "instance: the k-th listens on --port + 10k, where ArduPilot's instance k sends, or on "
                        "its :PORT")
    s.add_argument("--port", type=int, default=9002, help="UDP port ArduPilot sends its servo packets to "
                   "(default: 9002, ArduPilot's instance 0; 0: any free port, printed)")
    s.add_argument("--bind", default="127.0.0.1", metavar="ADDR",
                   help="address to listen on (default: 127.0.0.1; 0.0.0.0 for ArduPilot on another machine)")
    s.add_argument("--speedup", type=float, metavar="X",
                   help="run at most X times real time (default: as fast as ArduPilot's packets come)")
    s.add_argument("--water", type=float, metavar="RHO",
                   help="for a vehicle file with no environment: open water of this density (kg/m^3; default 1025)")
    s.add_argument("--wait", action="store_true",
                   help="with several vehicles: wait for one that goes silent instead of ending the run after 10 s")
    s.add_argument("--view", action="store_true",
                   help="open MuJoCo's viewer on the world, following the flown vehicle (needs a display); "
                        "closing it ends the run")
    s.add_argument("--video", metavar="udp://HOST:PORT",
                   help="stream the vehicle's camera as H.264 over RTP to HOST:PORT (QGroundControl: "
                        "udp://127.0.0.1:5600), 30 frames per simulated second; writes an SDP file (needs aurgen[video])")
    s.add_argument("--video-size", metavar="WxH", help="the video's size in pixels (default: the camera sensor's)")
    s.add_argument("--video-sdp", metavar="PATH", help="where to write the stream's SDP file "
                   "(default: <model stem>.sdp in the current folder)")
    return s


def _add_view(sub):
    s = sub.add_parser("view", help="open the MuJoCo viewer on a world or model, with the hydrostatic runtime")
    s.add_argument("model", help="MJCF world or model written by aurgen")
    s.add_argument("--water", type=float, metavar="RHO",
                   help="for a vehicle file with no environment: open water of this density (kg/m^3; default 1025)")
    return s


def _add_report(sub):
    s = sub.add_parser("report", help="stability and trim report with figures")
    s.add_argument("config", help="vehicle config (path, or a bundled name such as blueboat.yaml)")
    s.add_argument("-o", "--output", help="report directory (default: build/<name>/report)")
    s.add_argument("--payload-at", metavar='"X Y Z"',
                   help="point (m, base_link) where the load line adds payload (default: the payload slot)")
    s.add_argument("--no-roll-decay", action="store_true", help="skip the roll-decay run in the runtime")
    s.add_argument("--seakeeping", action="store_true",
                   help="add a seakeeping section: RAOs in regular head and beam waves and the motion statistics "
                        "in an irregular sea (runs in the runtime, about 45 s for the BlueBoat)")
    s.add_argument("--seakeeping-set", action="append", metavar="KEY=VALUE",
                   help="a seakeeping setting (implies --seakeeping; repeatable), e.g. periods=2,5,10, height=0.05, "
                        "headings=head, sea.hs=0.5, sea.tp=4, sea.duration=300, sea.world=open_sea.yaml "
                        "(docs/report.md, Seakeeping)")
    s.add_argument("--json", action="store_true",
                   help="print the headline figures and the IS Code criteria as JSON (the directory is written too)")
    s.add_argument("--quiet", action="store_true", help="no progress output")
    return s


def _add_sweep(sub):
    s = sub.add_parser("sweep", help="static figures of many variants of a vehicle (a sweep file: docs/config.md)")
    s.add_argument("sweep", help="sweep file (.yaml)")
    s.add_argument("-o", "--output", help="output folder (default: build/sweeps/<sweep file stem>)")
    s.add_argument("--ray", metavar="ADDRESS",
                   help="run on Ray: 'local' (a local cluster), 'auto' (the running cluster) or an address")
    s.add_argument("-j", "--jobs", type=int, metavar="N", help="local processes, without Ray (default 1)")
    s.add_argument("--workers", type=int, metavar="N", help="CPUs of a --ray local cluster (default: all)")
    s.add_argument("--chunk", type=int, metavar="N", help="variants per task (default: from the count)")
    s.add_argument("--emit", action="store_true",
                   help="also write each composed variant's MJCF/SDF/URDF and config under <output>/variants/")
    s.add_argument("--fresh", action="store_true", help="discard the rows of an earlier run in the folder")
    s.add_argument("--check", action="store_true", help="check the sweep's keys and count its variants; run nothing")
    s.add_argument("--no-figures", action="store_true", help="write the table only")
    s.add_argument("--time-domain", action="store_true",
                   help="also release each variant at its initial heel/trim (and the seeded roll moment of the sweep's "
                        "time_domain:, if any) on mujoco.batch: settle time, max roll, "
                        "capsized (the sweep's time_domain: settings)")
    s.add_argument("--quiet", action="store_true", help="no progress line")
    return s


# (command, parser-adder, function), in the order of the help; the lazy ones import
# their module only when their command runs
_PARSERS = [
    ("specs", _add_specs, _cmd_specs),
    ("catalog", _add_catalog, _cmd_catalog),
    ("build", _add_build, _cmd_build),
    ("worlds", _add_worlds, _cmd_worlds),
    ("audit", _add_audit, _lazy("check.audit", "cli_audit")),
    ("sim", _add_sim, _lazy("runtime.sim.cli", "cli_sim")),
    ("view", _add_view, _lazy("runtime.sim.view", "cli_view")),
    ("sitl", _add_sitl, _lazy("runtime.sitl.server", "cli_sitl")),
    ("report", _add_report, _lazy("analysis.report", "cli_report")),
    ("sweep", _add_sweep, _lazy("analysis.sweep.cli", "cli_sweep")),
]


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    # a command first: its parser alone (anything else, e.g. --help or a typo: the whole CLI's)
    only = argv[0] if argv and argv[0] in {name for name, _, _ in _PARSERS} else None
    args = build_parser(only).parse_args(argv)
    try:
        status = int(args.func(args) or 0)
        sys.stdout.flush()  # a closed pipe shows here, not at interpreter exit
        return status
    except BrokenPipeError:
        # the reader went away (`aurgen catalog | head`): stop quietly, as any Unix tool does
        _silence_stdout()
        return 128 + 13  # SIGPIPE
    except AurgenError as exc:
        print(f"aurgen: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("aurgen: interrupted", file=sys.stderr)
        return 130


def _draws(command: str | None, argv: list[str]) -> bool:
    """Whether the command opens a window or renders (then MuJoCo picks its GL back end itself)."""
    return command == "view" or (command == "sitl" and any(a == "--view" or a.split("=")[0] == "--video"
                                                           for a in argv))


def console() -> int:
    """The ``aurgen`` command (and ``python -m aurgen``): :func:`main` in a process of its own.

    No command but ``view`` and ``sitl --view`` draws with OpenGL, so unless the user chose a backend, MuJoCo's GL
    context is disabled before anything imports ``mujoco``: its default (GLFW) probes for the
    library with a fork and exec of a child Python on every import, a fifth of a cold
    ``aurgen build``. Set here, not in :func:`main`, which a program may call in-process before
    rendering with MuJoCo itself.
    """
    argv = sys.argv[1:]
    command = next((a for a in argv if not a.startswith("-")), None)
    if "MUJOCO_GL" not in os.environ and not _draws(command, argv):
        os.environ["MUJOCO_GL"] = "disable"
    elif ("MUJOCO_GL" not in os.environ and command == "sitl" and "--view" not in argv and sys.platform == "linux"
          and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))):
        os.environ["MUJOCO_GL"] = "egl"  # --video alone, no display: draw offscreen with EGL
    from aurgen import SourceTreeError

    try:
        return main(argv)
    except SourceTreeError as exc:  # run from a clone's root: the source tree came first on sys.path
        print(f"aurgen: error: {exc}", file=sys.stderr)
        return 2


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot raise again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    sys.exit(console())
