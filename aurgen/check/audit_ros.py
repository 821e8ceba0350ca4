"""``aurgen audit`` of a vehicle's ROS 2 description package (``<output>/ros/<vehicle>_description/``)
and its bridge config beside it (``<output>/ros/<vehicle>_bridge.yaml``).

A package is found by its ``package.xml`` carrying aurgen's header (aurgen.check.audit_files.package_of); its files are not vehicle sets
(its ``urdf/`` holds the URDF alone). Each package is compared with a fresh build of the config its
``package.xml`` header names (aurgen.emit.ros_package): every file it writes present with the same
bytes (or, for the XML ones, the same meaning: aurgen.check.audit_fresh.render_differences), no
other file in it, and the config unchanged since (a changed config is one row: rebuild).
"""

from __future__ import annotations

from pathlib import Path

from aurgen.check.audit_files import Difference


def files_in(folder: Path) -> list[str]:
    """Everything colcon would install from a package folder but its folders: files, hidden ones too
    (``launch/.x.launch.py`` is installed like any other), and links (to a file or a folder; aurgen writes
    none), as paths relative to it, sorted; aurgen's own marker and lock in each folder left out."""
    from aurgen.core.outdir import LOCK, MARKER

    out = []
    for p in folder.rglob("*"):
        if p.is_symlink() or (p.is_file() and p.name not in (MARKER, LOCK)):
            out.append(str(p.relative_to(folder)))
    return sorted(out)


def links_in(folder: Path) -> list[str]:
    """The links inside a package folder (relative paths, sorted)."""
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_symlink())


def check_package(folder: Path, cache: dict, given=()) -> tuple[list[Difference], list[str], str | None]:
    """(differences, unreadable messages, the config file name its header names or None) of one package."""
    from aurgen.check.audit_fresh import _fresh, _locate, check_copies, render_differences
    from aurgen.compose import stamp
    from aurgen.emit import ros, ros_package

    xml = folder / "package.xml"
    try:
        head = stamp.parse_header(xml.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        return [], [f"{xml}: cannot read: {exc}"], None
    if head is None:
        return [], [f"{xml}: its header is not a current aurgen header: rebuild it with this aurgen"], None
    _, name, sha = head
    path, label = _locate(name, "vehicles", given)
    if path is None:
        return [Difference(str(xml), "config", "config", f"{name} not found", "the config the header names",
                           note="looked in ./, ./vehicles and the bundled vehicles: pass --config PATH")], [], name
    got = _fresh(path, cache)
    if not isinstance(got, tuple):
        return [Difference(str(xml), "config", "config", label, "a config that composes",
                           note=f"cannot compose it now: {got}")], [], name
    vehicle, fresh = got
    if vehicle.config_sha256 != sha:
        return [Difference(str(xml), "config", "config sha256", sha[:16] + "...", vehicle.config_sha256[:16] + "...",
                           note=f"stale: {label} changed since: rebuild")], [], name
    bridge = ros.bridge_yaml(vehicle)
    want_rel = ros_package.files(vehicle, fresh[f"{vehicle.name}.urdf"], bridge)
    want = {folder / rel: text for rel, text in want_rel.items()}
    beside = folder.parent / f"{vehicle.name}_bridge.yaml"  # the build writes it beside the package
    if beside.is_file():
        want[beside] = bridge
    out = check_copies(folder, {rel: b for rel, b in want_rel.items() if isinstance(b, bytes)}, label)
    want = {t: text for t, text in want.items() if not isinstance(text, bytes)}
    for rel in links_in(folder):  # even a link to identical bytes: colcon installs what it points to, later
        out.append(Difference(str(folder / rel), "set", "file", "a link", f"a file {label}'s build writes (aurgen "
                              "writes no links)", note="replaced by hand: colcon would install what it points to; rebuild"))
    for target, text in want.items():
        if target.is_symlink():
            continue  # named above
        if not target.is_file():
            out.append(Difference(str(target), "set", "file", "missing", f"written by a build of {label}",
                                  note="the package is incomplete: rebuild"))
            continue
        try:
            body = target.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            out.append(Difference(str(target), "set", "file", f"unreadable: {exc}", f"written by a build of {label}"))
            continue
        if body != text:
            out.extend(render_differences(target, body, text, label))
    listed = {str(t.relative_to(folder)) for t in want if t.parent != folder.parent} | set(want_rel)
    for rel in sorted(set(files_in(folder)) - listed - set(links_in(folder))):
        if rel.startswith("meshes/"):
            continue  # check_copies
        out.append(Difference(str(folder / rel), "set", "file", "present", f"not a file {label}'s package holds",
                              note="hand-written, or left by another build: colcon would install it"))
    return out, [], name
