"""MkDocs hook: the bundled parts catalog's README (vehicles/parts/README.md) as the page
docs/reference/parts.md.

The README stays where it is, beside the part files it describes, and is what GitHub shows for
the folder (the repository's README links it there). docs/reference/parts.md holds a marker,
``<!-- parts-catalog -->``, replaced at build time by the README's text with its relative
links rewritten for the page's place: a link into docs/ becomes a link to that page of the
site; a link to any other file of the repository (not a page of the site) becomes a code span
naming it. A README that is gone, or a link of it to a file that is not there, stops the build."""

from __future__ import annotations

import os
import re
from pathlib import Path

MARKER = "<!-- parts-catalog -->"
PAGE = "reference/parts.md"
SOURCE = Path("vehicles/parts/README.md")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s#]+)(#[^)\s]*)?\)")


def _error(message: str) -> Exception:
    """MkDocs' error for a plugin (imported here: the tests load this module without MkDocs)."""
    from mkdocs.exceptions import PluginError

    return PluginError(message)


def rewritten(text: str, root: Path, page: str = PAGE, source: Path = SOURCE) -> str:
    """``text`` (the file ``source``, relative to the repository ``root``) with its relative links
    pointing from the site page ``page`` (relative to docs/)."""
    here = (root / "docs" / page).parent

    def link(m: re.Match) -> str:
        label, target, anchor = m.group(1), m.group(2), m.group(3) or ""
        if re.match(r"\w+://|mailto:", target):
            return m.group(0)
        path = (root / source).parent.joinpath(target).resolve()
        if not path.exists():
            raise _error(f"{source} links {target}, which is not in the repository")
        try:
            path.relative_to((root / "docs").resolve())
        except ValueError:
            return f"`{path.relative_to(root.resolve()).as_posix()}`" if label == target else \
                f"{label} (`{path.relative_to(root.resolve()).as_posix()}`)"
        return f"[{label}]({Path(os.path.relpath(path, here.resolve())).as_posix()}{anchor})"

    return _LINK.sub(link, text)


def on_page_markdown(markdown: str, page, config, **kwargs) -> str:
    if page.file.src_uri != PAGE:
        return markdown
    if MARKER not in markdown:
        raise _error(f"docs/{PAGE} has lost its marker {MARKER}: {SOURCE} goes there")
    root = Path(config["config_file_path"]).parent
    if not (root / SOURCE).is_file():
        raise _error(f"{SOURCE} is gone: docs/{PAGE} shows it")
    return markdown.replace(MARKER, rewritten((root / SOURCE).read_text(encoding="utf-8"), root))
