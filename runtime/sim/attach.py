"""What ``Simulation`` attaches to a model, held once as data and applied two ways.

An :class:`Attachment` is the ``aurgen.hydrostatics`` instance's config, the
environment text, the options the plugin takes over and the bodies that need
full mass-matrix rows.  :func:`to_spec` applies it to the MjSpec the model is
compiled from; :func:`to_xml` applies the same edits to the source's MJCF text,
so ``Simulation.to_xml`` returns a file any MuJoCo host compiles to the same
model.  (MuJoCo's own writer, ``MjSpec.to_xml``, prints 6 significant digits:
its model is a different one.)
"""
from __future__ import annotations

from dataclasses import dataclass

from lxml import etree

from aurgen.runtime.environment import schema as envmod
from aurgen.runtime import plugin as hplugin
from aurgen.runtime.sim.health import PLUGIN_INSTANCE

HEADER = (" written by aurgen.runtime Simulation.to_xml: the model it simulates, with the "
          f"{hplugin.NAME} instance, the environment and the options the plugin takes over ")


class AttachError(ValueError):
    """The edits cannot be written into this MJCF text (the message says why)."""


@dataclass(frozen=True)
class Attachment:
    """config: the plugin instance's config (key -> text); environment: the JSON of
    ``<custom><text name="aurgen:environment">`` or None to leave the model's own;
    gravity (m/s^2, world frame) or None: with an environment, MuJoCo's built-in fluid
    model is switched off (density, viscosity, wind 0) and gravity set; not_simple:
    bodies written ``simple="false"`` (added mass needs their full mass-matrix rows)."""
    config: dict
    environment: str | None = None
    gravity: tuple | None = None
    not_simple: tuple = ()


def to_spec(spec, att: Attachment):
    """Apply ``att`` to an MjSpec (in place) and return it."""
    ours = [p for p in spec.plugins if p.plugin_name == hplugin.NAME]
    if ours:
        ours[0].config = dict(att.config)
    else:
        spec.activate_plugin(hplugin.NAME)
        p = spec.add_plugin()
        p.name = PLUGIN_INSTANCE
        p.plugin_name = hplugin.NAME
        p.active = True
        p.config = dict(att.config)
    if att.environment is not None:
        texts = [t for t in spec.texts if t.name == envmod.ENV_TEXT]
        t = texts[0] if texts else spec.add_text()
        t.name = envmod.ENV_TEXT
        t.data = att.environment
    if att.gravity is not None:
        spec.option.density = 0.0
        spec.option.viscosity = 0.0
        spec.option.wind = [0.0, 0.0, 0.0]
        spec.option.gravity = list(att.gravity)
    return not_simple(spec, att.not_simple)


def not_simple(spec, names):
    """The named bodies of an MjSpec given full mass-matrix rows (``simple="false"``)."""
    names = set(names)
    for b in spec.bodies:
        if b.name in names:
            b.simple = 0
    return spec


def _child(parent, tag, index=None):
    """parent's first <tag>, made if there is none (at ``index`` or at the end)."""
    found = parent.find(tag)
    if found is None:
        found = etree.Element(tag)
        if index is None:
            parent.append(found)
        else:
            parent.insert(index, found)
    return found


def to_xml(text: bytes, att: Attachment) -> str:
    """The MJCF ``text`` (bytes, as read) with ``att`` written in: the same model :func:`to_spec` makes
    of it, numbers written exactly (``repr``).  AttachError when a body that needs
    ``simple="false"`` is not in this text (it comes from an attached or included
    file: set it there)."""
    root = etree.fromstring(text, etree.XMLParser(remove_comments=False, resolve_entities=False))
    if root.tag != "mujoco":
        raise AttachError(f"the root element is <{root.tag}>, not <mujoco>")
    plugins = [p for p in root.iterfind("extension/plugin") if p.get("plugin") == hplugin.NAME]
    inst = plugins[0].find("instance") if plugins else None
    if inst is None:
        plugin = plugins[0] if plugins else etree.SubElement(_child(root, "extension"), "plugin",
                                                              plugin=hplugin.NAME)
        inst = etree.SubElement(plugin, "instance", name=PLUGIN_INSTANCE)
    for c in inst.findall("config"):
        inst.remove(c)
    inst.text = None
    for k, v in att.config.items():
        etree.SubElement(inst, "config", key=k, value=v)
    if att.environment is not None:
        texts = [t for t in root.iterfind("custom/text") if t.get("name") == envmod.ENV_TEXT]
        t = texts[0] if texts else etree.SubElement(_child(root, "custom"), "text", name=envmod.ENV_TEXT)
        t.set("data", att.environment)
    if att.gravity is not None:
        _child(root, "option", index=0)
        for opt in root.findall("option"):  # each, so a later one can't override the edit
            opt.set("density", "0")
            opt.set("viscosity", "0")
            opt.set("wind", "0 0 0")
            opt.set("gravity", " ".join(repr(float(g)) for g in att.gravity))
    for name in att.not_simple:
        bodies = [b for b in root.iter("body") if b.get("name") == name]
        if not bodies:
            raise AttachError(f'body {name!r} needs simple="false" (it carries added mass) and is not in this '
                              "file: it comes from an attached or included one; write it there")
        bodies[0].set("simple", "false")
    return f"<!--{HEADER}-->\n" + etree.tostring(root, encoding="unicode") + "\n"
