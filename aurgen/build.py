"""``aurgen build``: resolve vehicle configs and write their files atomically.

For each vehicle, under ``<output>/<name>/``: ``model.sdf`` + ``model.config``
(a Gazebo model directory, name = the topic namespace), ``<name>.urdf`` and
``<name>.xml`` (MJCF). Every file is rendered before any is written; then each
goes to a temp file in its target directory and is moved into place with
``os.replace``, so a failed build leaves the previous files untouched.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from . import emit, stamp
from .compose import check_build, resolve
from .errors import AurgenError, BuildError
from .model import Vehicle
from .resources import data_dir

TMP_PREFIX = ".aurgen-"


def bundled_vehicles() -> list[Path]:
    """The bundled vehicle configs, sorted by name."""
    return sorted(data_dir("vehicles").glob("*.yaml"))


def outputs(vehicle: Vehicle, eq=None) -> dict[str, str]:
    """File name → stamped text for one vehicle (nothing written)."""
    check_build(vehicle)
    ctx = emit.context(vehicle)
    head = stamp.header(vehicle)
    comment = stamp.specs_comment(vehicle, eq)
    files = {"model.sdf": "sdf", "model.config": "config", f"{vehicle.name}.urdf": "urdf",
             f"{vehicle.name}.xml": "mjcf"}
    return {fname: stamp.stamp(emit.render(kind, vehicle, ctx), head, comment) for fname, kind in files.items()}


def write_atomic(files: dict[Path, str]) -> list[Path]:
    """Write every file to a temp file beside it, then move them all into place.

    If any write fails, the temp files are removed and no target is touched.
    Returns the targets in the given order.
    """
    staged: list[tuple[str, Path]] = []
    try:
        for target, text in files.items():
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=TMP_PREFIX, suffix=".tmp")
            staged.append((tmp, target))
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
            os.chmod(tmp, 0o644)
    except BaseException:
        for tmp, _ in staged:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        raise
    for tmp, target in staged:
        os.replace(tmp, target)
    return [t for _, t in staged]


def build(configs, output="build") -> list[Path]:
    """Resolve ``configs``, render them all, then write them all. Returns the paths written."""
    out_root = Path(output)
    files: dict[Path, str] = {}
    for config in configs:
        vehicle = resolve(config)
        eq = stamp.equilibrium_of(vehicle)
        for fname, text in outputs(vehicle, eq).items():
            target = out_root / vehicle.name / fname
            if target in files:
                raise BuildError(f"{config}: two configs write {target} (vehicle name '{vehicle.name}' twice)")
            files[target] = text
    try:
        return write_atomic(files)
    except OSError as exc:
        raise BuildError(f"cannot write under {out_root}: {exc}") from None


def cli_build(args) -> int:
    configs = list(args.config or [])
    if args.all:
        configs = [str(p) for p in bundled_vehicles()] + configs
    if not configs:
        raise AurgenError("nothing to build: name vehicle configs, or --all for every bundled vehicle and world")
    for path in build(configs, args.output):
        print(f"wrote {path}")
    if args.all:
        from .worlds import write_worlds

        # every bundled vehicle was just built: the worlds need not rebuild them
        for path in write_worlds(names=None, output=args.output, build_vehicles=False):
            print(f"wrote {path}")
    return 0
