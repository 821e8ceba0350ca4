"""A griffe extension (mkdocs.yml, mkdocstrings' ``extensions``): aurgen's docstrings are free text
with reStructuredText roles (``:func:`aurgen.x.f```, ``:class:`~.spec.Sweep```) and ``Public API::``
literal-block leads, which Markdown would show as they are written. Each role becomes a code span
of its target (``~`` keeps the last component, as Sphinx shows it) and a paragraph's closing ``::``
a colon (the indented block after it is a code block in Markdown too). The docstrings themselves
are left alone in the package: this runs on griffe's copy while the site is built."""

from __future__ import annotations

import re

from griffe import Extension

_ROLE = re.compile(r":(?:py:)?(?:func|class|mod|meth|attr|data|exc|obj|const|ref|term):`([^`]+)`")
_LITERAL_LEAD = re.compile(r"(?<=\S)::$", re.M)


def _shown(target: str) -> str:
    """How Sphinx shows a role's target: ``~a.b.c`` as ``c``, ``title <a.b>`` as ``title``."""
    title = re.match(r"(.+?)\s*<[^>]+>$", target)
    if title:
        return title.group(1)
    target = target.lstrip("!")
    if target.startswith("~"):
        return target[1:].rsplit(".", 1)[-1]
    return target


def markdown_of(text: str) -> str:
    """The docstring ``text`` with its reST roles as code spans and ``::`` leads as colons."""
    text = _ROLE.sub(lambda m: f"`{_shown(m.group(1))}`", text)
    return _LITERAL_LEAD.sub(":", text)


class SphinxRolesToMarkdown(Extension):
    """Rewrites every loaded object's docstring with :func:`markdown_of`."""

    def on_instance(self, *, obj, **kwargs) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown_of(obj.docstring.value)
