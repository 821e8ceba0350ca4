"""``aurgen build``: resolve vehicle configs and write their files atomically.

For each vehicle, under ``<output>/<name>/``: ``model.sdf`` + ``model.config``
(a Gazebo model directory, name = the topic namespace), ``<name>.urdf`` and
``<name>.xml`` (MJCF). Every file is rendered before any is written; then each
is staged beside its target and moved into place (aurgen.core.files), so a failed
build leaves the previous files untouched. Before anything is written, each
vehicle's files are loaded by their consumers (aurgen.emit.selfcheck: MuJoCo compiles
the MJCF; SDF and URDF get a structural check); a file MuJoCo refuses is a
BuildError carrying MuJoCo's message. The vehicle's ros_gz_bridge config goes to
``<output>/ros/<name>_bridge.yaml`` (aurgen.emit.ros), and its ROS 2 description package (the
URDF, the bridge config, a display launch, an RViz config) to
``<output>/ros/<name>_description/`` (aurgen.emit.ros_package). A vehicle whose chassis declares
ArduPilot wiring also gets ``<name>_sitl.parm`` in its folder (aurgen.emit.ardupilot).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from aurgen.emit import ardupilot, meshes, render as emit, ros, ros_package, selfcheck
from aurgen.compose import fit, stamp
from aurgen.compose.resolve import check_build, resolve
from aurgen.core.errors import BuildError
from aurgen.core.files import TMP_PREFIX, write_set
from aurgen.compose.model import Vehicle
from aurgen.core.resources import data_dir

__all__ = ["TMP_PREFIX", "all_configs", "bundled_vehicles", "outputs", "model_mjcf", "build"]


def bundled_vehicles() -> list[Path]:
    """The bundled vehicle configs, sorted by name."""
    return sorted(data_dir("vehicles").glob("*.yaml"))


def all_configs(kind: str = "vehicles") -> list[Path]:
    """Every config of ``kind`` (``vehicles`` or ``worlds``) that ``--all`` means: those in
    ``./<kind>/`` and the bundled ones, one per name, a local config hiding a bundled one of the
    same name (the order in which a bare name resolves). Sorted by name."""
    found: dict[str, Path] = {}
    for base in (data_dir(kind), Path.cwd() / kind):
        if base.is_dir():
            for p in base.glob("*.yaml"):
                found[p.stem] = p
    return [found[k] for k in sorted(found)]


def outputs(vehicle: Vehicle, eq=None) -> dict[str, str | bytes]:
    """File name → stamped text for one vehicle, and ``meshes/<name>`` → the bytes of each mesh it
    uses (aurgen.emit.meshes; nothing written)."""
    check_build(vehicle)
    ctx = emit.context(vehicle)
    head = stamp.header(vehicle)
    comment = stamp.specs_comment(vehicle, eq)
    files = {"model.sdf": "sdf", "model.config": "config", f"{vehicle.name}.urdf": "urdf",
             f"{vehicle.name}.xml": "mjcf"}
    out: dict = {fname: stamp.stamp(emit.render(kind, vehicle, ctx), head, comment) for fname, kind in files.items()}
    out.update(meshes.set_files(vehicle))
    return out


def model_mjcf(vehicle: Vehicle) -> str:
    """The vehicle's MJCF for a model compiled in memory (analysis, gym, a world's self-check): as
    built, but its meshes read from the catalog's files (absolute paths), since no set is beside it.
    Never written."""
    check_build(vehicle)
    ctx = dict(emit.context(vehicle), mesh_sources=True)
    return stamp.stamp(emit.render("mjcf", vehicle, ctx), stamp.header(vehicle), stamp.specs_comment(vehicle))


def _refuse_other_vehicles_package(pkg: Path, name: str, config) -> None:
    """A package name is the vehicle name in lower case (REP 144), so vehicles 'v' and 'V' share
    ``ros/v_description``: refuse to write one's package over the other's (found by its URDF,
    ``urdf/<vehicle>.urdf``; names only, no link followed), naming both and what to do."""
    try:
        names = [e.name for e in os.scandir(pkg / "urdf") if e.name.endswith(".urdf")]
    except (FileNotFoundError, NotADirectoryError):
        return
    except OSError:  # a link loop (ELOOP), no permission: the writer refuses that path, naming it
        return
    other = sorted(n[:-5] for n in names if n[:-5] != name and n[:-5].lower() == name.lower())
    if other:
        raise BuildError(f"{config}: vehicle {name!r} would write its ROS package {pkg} over vehicle {other[0]!r}'s "
                         f"(ROS package names are lower case, so both are {pkg.name!r}): rename one vehicle, or "
                         f"remove {pkg} if vehicle {other[0]!r} is gone")


def build(configs, output="build", *, warn=None) -> list[Path]:
    """Resolve ``configs``, render them all, then write them all. Returns the paths written.

    ``warn`` is told each warning (aurgen.compose.fit: a heel beyond its threshold, a discontinued
    part; never fatal), default a line ``aurgen: warning: ...`` on stderr."""
    warn = warn or (lambda msg: print(f"aurgen: warning: {msg}", file=sys.stderr))
    out_root = Path(output)
    files: dict = {}
    prune: set = set()
    for config in configs:
        vehicle = resolve(config)
        eq = stamp.equilibrium_of(vehicle)
        for msg in fit.warnings(vehicle, eq):
            warn(msg)
        rendered = outputs(vehicle, eq)
        selfcheck.check_outputs(rendered, config)  # MuJoCo compiles the MJCF before anything is written
        for fname, text in rendered.items():
            target = out_root / vehicle.name / fname
            if target in files:
                raise BuildError(f"{config}: two configs write {target} (vehicle name '{vehicle.name}' twice)")
            files[target] = text
        prune.add(out_root / vehicle.name / meshes.FOLDER)
        # a chassis with ArduPilot wiring: its SITL parameters beside the model (aurgen.emit.ardupilot)
        parm = ardupilot.parm_text(vehicle, stamp.hash_comment(vehicle))
        if parm is not None:
            files[out_root / vehicle.name / ardupilot.parm_name(vehicle)] = parm
        # the ROS side (aurgen.emit.ros): outside the vehicle's folder, which holds the model files only
        bridge = ros.bridge_yaml(vehicle)
        files[out_root / "ros" / f"{vehicle.name}_bridge.yaml"] = bridge
        pkg = out_root / "ros" / ros_package.package_name(vehicle)
        _refuse_other_vehicles_package(pkg, vehicle.name, config)
        for rel, text in ros_package.files(vehicle, rendered[f"{vehicle.name}.urdf"], bridge).items():
            if pkg / rel in files:
                raise BuildError(f"{config}: two configs write {pkg / rel} (package {pkg.name!r} twice)")
            files[pkg / rel] = text
        prune.add(pkg / meshes.FOLDER)
    # the meshes folders hold what this build copied: an earlier build's meshes (listed in the
    # folder's marker) that this one no longer uses are removed
    return write_set(files, root=out_root, prune=prune)  # the system's refusals: OutputError (aurgen.core.files)


