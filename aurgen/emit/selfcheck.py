"""The build's self-check: the rendered files are loaded by their consumers before any is written.

- MJCF: compiled by MuJoCo (``mujoco.MjModel.from_xml_string``; mesh files are
  written as absolute paths, so the text compiles wherever it is). A file
  MuJoCo refuses is a BuildError carrying MuJoCo's message.
- SDF and URDF: no in-process parser exists (libsdformat and urdfdom are C++
  libraries without Python bindings here), so they get a structural check:
  well-formed XML, the expected root, unique link and joint names, every
  joint's parent and child an existing link, every link reached from the root
  exactly once (every number is already finite: aurgen.emit.render.num refuses any
  other). The tests load the same files with
  libsdformat and ``check_urdf`` (tests/aurgen/test_emit_consumers.py).

Nothing here writes a file: MuJoCo's compiler warnings are captured, never
sent to a ``MUJOCO_LOG.TXT``.
"""

from __future__ import annotations

from aurgen.core.errors import BuildError, one_line

__all__ = ["check_mjcf", "check_sdf", "check_urdf", "check_outputs", "check_world"]

def _mujoco_message(exc: Exception) -> str:
    text = str(exc).strip()
    if text.startswith("Error: "):
        text = text[len("Error: "):]
    return one_line("; ".join(line.strip() for line in text.splitlines() if line.strip()))


def check_mjcf(text: str, where: str, assets: dict | None = None) -> None:
    """Compile MJCF ``text`` in MuJoCo (``assets``: {file name as the text writes it: text or bytes}
    of the files it includes or reads, its meshes); a refusal is a BuildError naming ``where`` and
    MuJoCo's message."""
    import mujoco

    if "<plugin" in text:  # a world declaring the runtime's engine plugin: have it registered
        try:
            from aurgen.runtime import plugin

            plugin.load()
        except Exception:
            pass
    try:
        mujoco.MjModel.from_xml_string(text, {k: v if isinstance(v, bytes) else v.encode("utf-8")
                                              for k, v in (assets or {}).items()})
    except ValueError as exc:
        raise BuildError(f"{where}: MuJoCo refuses the generated MJCF: {_mujoco_message(exc)}; "
                         "nothing was written") from None


def _parse(text: str, where: str, fmt: str):
    from lxml import etree

    try:
        return etree.fromstring(text.encode("utf-8"), etree.XMLParser(resolve_entities=False, no_network=True))
    except etree.XMLSyntaxError as exc:
        raise BuildError(f"{where}: the generated {fmt} is not well-formed XML: {one_line(str(exc))}; "
                         "nothing was written") from None


def _refuse(where: str, fmt: str, el, why: str):
    line = f" (line {el.sourceline})" if el is not None and el.sourceline else ""
    raise BuildError(f"{where}: the generated {fmt} is invalid{line}: {why}; nothing was written")


def _tree(where: str, fmt: str, links: dict, joints: list) -> None:
    """``links``: name → element; ``joints``: (element, name, parent, child). Names unique, ends
    existing, each link but one root a child exactly once, no cycle."""
    seen_joint = {}
    parent_of = {}
    for el, name, parent, child in joints:
        if name in seen_joint:
            _refuse(where, fmt, el, f"joint name {name!r} repeated")
        seen_joint[name] = el
        for end, ref in (("parent", parent), ("child", child)):
            if ref not in links:
                _refuse(where, fmt, el, f"joint {name!r}: {end} {ref!r} is not a link of the model")
        if child in parent_of:
            _refuse(where, fmt, el, f"link {child!r} is the child of two joints")
        parent_of[child] = parent
    roots = [n for n in links if n not in parent_of]
    if len(roots) != 1:
        _refuse(where, fmt, None, f"expected one root link, found {len(roots)} ({', '.join(roots[:3])})")
    for n in links:  # walk up from every link: reaching the root within len(links) steps means no cycle
        k, steps = n, 0
        while k in parent_of:
            k, steps = parent_of[k], steps + 1
            if steps > len(links):
                _refuse(where, fmt, links[n], f"link {n!r} lies on a cycle of joints")


def _links(root_el, where: str, fmt: str) -> dict:
    links = {}
    for el in root_el.findall("link"):
        name = el.get("name")
        if not name:
            _refuse(where, fmt, el, "a link without a name")
        if name in links:
            _refuse(where, fmt, el, f"link name {name!r} repeated")
        links[name] = el
    return links


def check_sdf(text: str, where: str) -> None:
    """Structural check of a generated SDF model (see the module docstring)."""
    root = _parse(text, where, "SDF")
    if root.tag != "sdf" or not root.get("version"):
        _refuse(where, "SDF", root, "the root is not <sdf version=...>")
    models = root.findall("model")
    if len(models) != 1 or not models[0].get("name"):
        _refuse(where, "SDF", root, "expected exactly one named <model>")
    model = models[0]
    links = _links(model, where, "SDF")
    joints = [(j, j.get("name"), (j.findtext("parent") or "").strip(), (j.findtext("child") or "").strip())
              for j in model.findall("joint")]
    _tree(where, "SDF", links, joints)
    for el, name, *_ in joints:
        if name in links:
            _refuse(where, "SDF", el, f"joint name {name!r} is also a link's (links, joints and frames share one "
                    "scope)")
    frames = {}
    taken = dict(links)
    taken.update((name, el) for el, name, *_ in joints)
    for el in model.findall("frame"):
        name = el.get("name")
        if not name or name in taken or name in frames:
            _refuse(where, "SDF", el, f"frame name {name!r} repeated (links, joints and frames share one scope)")
        frames[name] = el
    for el in frames.values():
        if el.get("attached_to") not in links and el.get("attached_to") not in frames:
            _refuse(where, "SDF", el, f"frame {el.get('name')!r} is attached to {el.get('attached_to')!r}, "
                    "which is no link or frame of the model")
    for el in model.iter("pose"):
        rel = el.get("relative_to")
        if rel is not None and rel not in links and rel not in frames:
            _refuse(where, "SDF", el, f"<pose relative_to={rel!r}> names no link or frame of the model")
    names = {el.get("name") for el, *_ in joints}
    for el in model.iter("joint_name"):
        if (el.text or "").strip() not in names:
            _refuse(where, "SDF", el, f"<joint_name>{el.text}</joint_name> names no joint of the model")


def check_urdf(text: str, where: str) -> None:
    """Structural check of a generated URDF robot (see the module docstring)."""
    root = _parse(text, where, "URDF")
    if root.tag != "robot" or not root.get("name"):
        _refuse(where, "URDF", root, "the root is not a named <robot>")
    links = _links(root, where, "URDF")
    joints = []
    for j in root.findall("joint"):
        p, c = j.find("parent"), j.find("child")
        joints.append((j, j.get("name"), p.get("link") if p is not None else None,
                       c.get("link") if c is not None else None))
    _tree(where, "URDF", links, joints)


def check_outputs(files: dict, config) -> None:
    """Self-check one vehicle's ``{file name: text}`` (aurgen.emit.build.outputs); a BuildError names
    ``config`` and the file."""
    copies = {f: b for f, b in files.items() if isinstance(b, bytes)}  # the set's meshes, as the MJCF names them
    for fname, text in files.items():
        where = f"{config}: {fname}"
        if isinstance(text, bytes):
            continue  # a mesh: MuJoCo reads it with the MJCF
        if fname.endswith(".xml"):
            check_mjcf(text, where, copies)
        elif fname.endswith(".sdf"):
            check_sdf(text, where)
        elif fname.endswith(".urdf"):
            check_urdf(text, where)
        elif fname == "model.config":  # Gazebo's model manifest: well-formed, a <model> naming its SDF
            root = _parse(text, where, "model.config")
            if root.tag != "model" or (root.findtext("sdf") or "").strip() != "model.sdf":
                _refuse(where, "model.config", root, "expected <model> with <sdf>model.sdf</sdf>")


def check_world(files: dict, vehicles: dict, config) -> None:
    """Self-check one world's ``{file name: text}`` (aurgen.emit.worlds) before it is written: MuJoCo
    compiles the MJCF with ``vehicles`` ({vehicle name: its MJCF text}) as the files it attaches,
    and the SDF is well-formed with one <world>. A BuildError names ``config`` and the file."""
    import re

    for fname, text in files.items():
        where = f"{config}: {fname}"
        if fname.endswith(".xml"):
            assets = {}
            for path in re.findall(r'<model name="[^"]*" file="([^"]+)"', text):
                stem = path.rsplit("/", 1)[-1].removesuffix(".xml")
                if stem in vehicles:
                    assets[path] = vehicles[stem]
            check_mjcf(text, where, assets)
        elif fname.endswith(".sdf"):
            root = _parse(text, where, "SDF")
            if root.tag != "sdf" or len(root.findall("world")) != 1:
                _refuse(where, "SDF", root, "expected <sdf> holding one <world>")
