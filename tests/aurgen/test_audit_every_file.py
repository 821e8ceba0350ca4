"""Acceptance: ``aurgen audit`` flags a one-character edit in every file of a ``build --all`` tree.

The tree is built once; every file aurgen wrote (each folder's ``.aurgen`` marker lists them) is
edited in turn, three ways, each edit one character or one line in the file's body (never its
header line or a comment, which are not what a consumer reads), and restored after the audit:

- a number: the first significant digit of a number in the middle of the body (1 -> 2, 9 -> 8,
  0 -> 1 where all are zero), so the value moves by far more than any tolerance;
- an attribute: the first letter of a value (an XML attribute, else an element's text; a quoted
  string, else a YAML key);
- a line: a line of the body duplicated (in XML a line holding one whole element: a second one).

Each edited tree's audit must not exit 0 and must name the edited file. The reference is the
edit itself: the file no longer says what a fresh build says.
"""

from __future__ import annotations

import io
import re
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from aurgen.cli import main

NUMBER = re.compile(r"(?<![\w.])-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?(?![\w.])")
XML_ATTR = re.compile(r'\s[\w:]+="([^"]*[A-Za-z][^"]*)"')
QUOTED = re.compile(r"[\"']([^\"'\n]*[A-Za-z][^\"'\n]*)[\"']")
YAML_KEY = re.compile(r"^[ \t-]*([A-Za-z_][\w]*):", re.M)
XML_TEXT = re.compile(r">([^<>]*[A-Za-z][^<>]*)</")
PARM_NAME = re.compile(r"^([A-Z][A-Z0-9_]*) \S", re.M)  # an ArduPilot parameter file's NAME value lines
XML_LEAF = re.compile(r"^[ \t]*<([A-Za-z][\w:]*)[^<>]*(?:/>|>[^<>]*</\1>)[ \t]*$", re.M)  # one whole element


def _listed(root: Path) -> list[Path]:
    """Every file aurgen wrote under ``root``, as its folders' markers list them."""
    out = []
    for marker in sorted(root.rglob(".aurgen")):
        for line in marker.read_text().splitlines():
            if line.startswith("file "):
                out.append(marker.parent / line[5:])
    return out


def _comments(text: str, xml: bool) -> list[tuple[int, int]]:
    """Spans that are comments (XML ``<!-- -->``; else from ``#`` to the line's end) or the header line."""
    spans = [(0, text.index("\n") + 1)]
    if xml:
        spans += [(m.start(), m.end()) for m in re.finditer(r"<!--.*?-->", text, re.S)]
    else:
        spans += [(m.start(), m.end()) for m in re.finditer(r"(?m)^[ \t]*#.*$", text)]
    return spans


def _in(spans, k: int) -> bool:
    return any(a <= k < b for a, b in spans)


def _middle(items):
    return items[len(items) // 2] if items else None


def edit_number(text: str, xml: bool) -> str | None:
    skip = _comments(text, xml)
    hits = [m for m in NUMBER.finditer(text) if not _in(skip, m.start())]
    hits = hits or [m for m in re.finditer(r"[0-9]+", text) if not _in(skip, m.start())]  # in a name
    m = _middle(hits)
    if m is None:
        return None
    tok = m.group()
    k = next((j for j, c in enumerate(tok) if c in "123456789"), None)
    if k is None:
        k = next(j for j, c in enumerate(tok) if c == "0")
        new = "1"
    else:
        new = "8" if tok[k] == "9" else str(int(tok[k]) + 1)
    at = m.start() + k
    return text[:at] + new + text[at + 1:]


def _letter(text: str, at: int) -> str:
    c = text[at]
    new = "q" if c.lower() != "q" else "x"
    return text[:at] + (new.upper() if c.isupper() else new) + text[at + 1:]


def edit_attribute(text: str, xml: bool) -> str | None:
    skip = _comments(text, xml)
    pats = [XML_ATTR, XML_TEXT] if xml else [QUOTED, YAML_KEY, PARM_NAME]
    for pat in pats:
        hits = [m for m in pat.finditer(text) if not _in(skip, m.start(1))]
        m = _middle(hits)
        if m is not None:
            at = m.start(1) + next(j for j, c in enumerate(m.group(1)) if c.isalpha())
            return _letter(text, at)
    return None


def edit_line(text: str, xml: bool) -> str | None:
    skip = _comments(text, xml)
    if xml:
        hits = [m for m in XML_LEAF.finditer(text) if not _in(skip, m.start())]
    else:
        hits = [m for m in re.finditer(r"(?m)^.*\S.*$", text) if not _in(skip, m.start())]
    m = _middle(hits)
    if m is None:
        return None
    return text[:m.end()] + "\n" + m.group() + text[m.end():]


EDITS = {"number": edit_number, "attribute": edit_attribute, "line": edit_line}


def _audit(root: Path) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        rc = main(["audit", str(root)])
    return rc, out.getvalue() + err.getvalue()


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    root = tmp_path_factory.mktemp("all") / "out"
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        assert main(["build", "--all", "-o", str(root)]) == 0, err.getvalue()
    assert _audit(root)[0] == 0
    return root


def test_the_markers_list_every_file_aurgen_wrote(tree):
    listed = set(_listed(tree))
    on_disk = {p for p in tree.rglob("*") if p.is_file() and not p.name.startswith(".aurgen")}
    assert listed == on_disk and len(listed) > 30


def test_every_one_character_edit_is_flagged(tree):
    missed, edited = [], 0
    for f in _listed(tree):
        original = f.read_bytes()
        text = original.decode()
        xml = f.suffix in (".sdf", ".urdf", ".xml", ".config") or f.name == "package.xml"
        for kind, edit in EDITS.items():
            new = edit(text, xml)
            assert new is not None and new != text, (f, kind)
            f.write_text(new)
            try:
                rc, said = _audit(tree)
            finally:
                f.write_bytes(original)
            edited += 1
            rel = str(f.relative_to(tree))
            if rc == 0 or rel not in said:
                missed.append(f"{rel} ({kind}): exit {rc}" + ("" if rc == 0 else ", file not named"))
    assert edited >= 90
    assert not missed, "\n".join(missed)
    assert _audit(tree)[0] == 0
