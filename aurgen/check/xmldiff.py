"""Compare two XML texts by meaning: elements matched by tag and name, numbers to a relative tolerance.

The audit compares a generated file with a fresh render of its config
(aurgen.check.audit_fresh.check_set). Byte equality is the fast path; when the bytes
differ, this module says *what* differs: each row names the line in the file,
the element (its path from the nearest named ancestor, e.g.
``body[base_link]/geom[hull]``), the attribute (``(text)`` for an element's
text, ``(element)`` for a missing or extra element, ``(comment)`` for a
comment, ``(order)`` for children in another order), and the value found and
expected.

Matching: both documents are walked in document order; the children of a
matched pair of elements are matched by (tag, ``name`` attribute, occurrence
among siblings with that tag and name). Comments are children too (the
header and the specs comment included), compared as text. A value that reads
as whitespace-separated numbers on both sides (the grammar MuJoCo, libsdformat
and urdfdom read: aurgen.core.numbers, ASCII digits and XML whitespace only) is
compared number by number: equal when ``|a - b| <= rel · max(1, |a|, |b|)``, an
infinity or NaN equal to nothing finite; a word the consumers do not read as a
number (``1_0``, ``١``, ``inf``) is compared as a string, and an integer the
render wrote (``group="3"``) must stay an integer. Any other value as a string.
Namespaces: elements and attributes are matched by URI, and the prefixes each
element declares must be the render's (``zz:buoyancy`` with ``zz`` bound to
the gz URI is a row: libsdformat reads ``gz:buoyancy`` by its written name).
A DOCTYPE (an entity, an external DTD) is a row: aurgen never writes one.
Whitespace between elements means nothing.

``compare`` returns None when the structure differs at the root (not XML,
another root element or root name): the caller falls back to a line diff.
"""

from __future__ import annotations

from aurgen.core import numbers
from aurgen.core.records import record

__all__ = ["Delta", "compare", "REL_TOL"]

REL_TOL = 1e-9


@record
class Delta:
    """One difference: ``line`` in the found text (1-based), ``element`` path, ``attribute``, values as text;
    ``diff``/``tol`` the largest numeric difference and its tolerance (None when not numeric)."""

    line: int
    element: str
    attribute: str
    found: str
    expected: str
    diff: float | None = None
    tol: float | None = None


def parse_safe(data: bytes):
    """The root element of ``data``, parsed without entities, DTDs or the network; None when it is not
    XML. :func:`doctype` says whether the document declares a DOCTYPE."""
    from lxml import etree

    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, remove_comments=False,
                             huge_tree=False)
    try:
        return etree.fromstring(data, parser)
    except (etree.XMLSyntaxError, ValueError):
        return None


def doctype(root) -> str | None:
    """The DOCTYPE line of ``root``'s document (internal subset, external DTD), or None."""
    info = root.getroottree().docinfo
    if info.doctype or info.internalDTD is not None or info.externalDTD is not None or info.system_url:
        return info.doctype or "<!DOCTYPE>"
    return None


def _parse(text: str):
    return parse_safe(text.encode("utf-8"))


def _qname(name: str, nsmap: dict) -> str:
    """``{uri}local`` as ``prefix:local`` (the prefix the document declares)."""
    if not name.startswith("{"):
        return name
    uri, local = name[1:].split("}", 1)
    prefix = next((p for p, u in nsmap.items() if u == uri and p), None)
    return f"{prefix}:{local}" if prefix else local


def _is_element(node) -> bool:
    return isinstance(node.tag, str)


def _label(el) -> str:
    """``tag[name]`` path from the nearest named ancestor (inclusive) down to ``el``."""
    parts = []
    node = el
    while node is not None:
        if not _is_element(node):
            parts.append("(comment)")
        else:
            name = node.get("name")
            parts.append(_qname(node.tag, node.nsmap) + (f"[{name}]" if name is not None else ""))
            if name is not None:
                break
        node = node.getparent()
    return "/".join(reversed(parts))


def _key(node) -> tuple:
    if _is_element(node):
        return (node.tag, node.get("name"))
    from lxml import etree

    return ("<!--",) if isinstance(node, etree._Comment) else ("<?",)


def _keyed(nodes) -> list:
    """[(key + (occurrence,), node)] in document order."""
    seen: dict = {}
    out = []
    for n in nodes:
        k = _key(n)
        seen[k] = seen.get(k, -1) + 1
        out.append((k + (seen[k],), n))
    return out


def _numbers(text: str):
    return numbers.xml_floats(text)


def _declared(el) -> dict:
    """The namespace prefixes ``el`` declares (or rebinds) beyond its parent's."""
    parent = el.getparent()
    above = parent.nsmap if parent is not None else {}
    return {p: u for p, u in el.nsmap.items() if above.get(p) != u}


def _ns_text(decl: dict) -> str:
    return " ".join(f"xmlns{':' + p if p else ''}={u}" for p, u in sorted(decl.items(), key=lambda x: x[0] or ""))


LONG = 6  # a vector longer than this is reported by its worst entry (``data[21]``), not in full


def _values(line: int, label: str, attr: str, found: str, expected: str, rel: float) -> Delta | None:
    """The Delta of one value (attribute or text), or None when the two mean the same."""
    a, b = _numbers(found), _numbers(expected)
    if a is None or b is None or len(a) != len(b):
        return None if found.strip() == expected.strip() else Delta(line, label, attr, found, expected)
    worst = None
    fw, ew = numbers.xml_words(found), numbers.xml_words(expected)
    for i, (x, y) in enumerate(zip(a, b)):
        same, d, tol = numbers.close(x, y, rel)
        if same and numbers.XML_INT.fullmatch(ew[i]) and not (numbers.XML_INT.fullmatch(fw[i])
                                                               and int(fw[i]) == int(ew[i])):
            same, d, tol = False, abs(x - y), 0.0  # an integer the render wrote (group, contype) stays one
        if not same and (worst is None or d > worst[1]):
            worst = (i, d, tol)
    if worst is None:
        return None
    i, d, tol = worst
    if len(a) > LONG:
        return Delta(line, label, f"{attr}[{i}]", fw[i], ew[i], d, tol)
    return Delta(line, label, attr, found, expected, d, tol)


def _describe(node) -> str:
    if not _is_element(node):
        first = (node.text or "").strip().splitlines()
        return "<!-- " + (first[0].strip() if first else "") + (" ..." if len(first) > 1 else "") + " -->"
    name = node.get("name")
    return f"<{_qname(node.tag, node.nsmap)}" + (f' name="{name}"' if name is not None else "") + ">"


def _comment(g, e, out: list) -> None:
    a, b = (g.text or "").splitlines(), (e.text or "").splitlines()
    if [x.strip() for x in a] == [x.strip() for x in b]:
        return
    i = next((k for k, (x, y) in enumerate(zip(a, b)) if x.strip() != y.strip()), min(len(a), len(b)))
    found = a[i].strip() if i < len(a) else "(end of comment)"
    expected = b[i].strip() if i < len(b) else "(end of comment)"
    start = (g.sourceline or 1) - (g.text or "").count("\n")  # libxml2 gives a comment's last line
    out.append(Delta(start + i, _label(g.getparent()) if g.getparent() is not None else "(top)",
                     "(comment)", found, expected))


def _element(g, e, rel: float, out: list) -> None:
    label = _label(g)
    line = g.sourceline or 1
    dg, de = _declared(g), _declared(e)
    if dg != de:
        out.append(Delta(line, label, "(namespaces)", _ns_text(dg) or "(none)", _ns_text(de) or "(none)"))
    names = list(e.attrib) + [n for n in g.attrib if n not in e.attrib]
    for n in names:
        attr = _qname(n, g.nsmap if n in g.attrib else e.nsmap)
        if n not in g.attrib:
            out.append(Delta(line, label, attr, "(absent)", e.get(n)))
        elif n not in e.attrib:
            out.append(Delta(line, label, attr, g.get(n), "(absent)"))
        else:
            d = _values(line, label, attr, g.get(n), e.get(n), rel)
            if d is not None:
                out.append(d)
    gt, et = (g.text or "").strip(), (e.text or "").strip()
    if gt != et:
        d = _values(line, label, "(text)", gt or "(empty)", et or "(empty)", rel)
        if d is not None:
            out.append(d)
    _children(g, list(g), list(e), rel, out)


def _children(parent, got: list, want: list, rel: float, out: list) -> None:
    """Match ``got`` against ``want`` (children of ``parent`` in the found document)."""
    gk, ek = _keyed(got), _keyed(want)
    gmap, emap = dict(gk), dict(ek)
    plabel = _label(parent) if parent is not None else "(top)"
    pline = (parent.sourceline or 1) if parent is not None else 1
    for k, e in ek:
        if k in gmap:
            g = gmap[k]
            if _is_element(e):
                _element(g, e, rel, out)
            else:
                _comment(g, e, out)
        else:
            out.append(Delta(pline, plabel, "(element)", "(absent)", _describe(e)))
    for k, g in gk:
        if k not in emap:
            out.append(Delta(g.sourceline or pline, plabel, "(element)", _describe(g), "(absent)"))
    common_g = [k for k, _ in gk if k in emap]
    common_e = [k for k, _ in ek if k in gmap]
    if common_g != common_e:
        i = next(i for i, (x, y) in enumerate(zip(common_g, common_e)) if x != y)
        out.append(Delta(gmap[common_g[i]].sourceline or pline, plabel, "(order)",
                         _describe(gmap[common_g[i]]), _describe(emap[common_e[i]])))


def _top(root) -> list:
    """The comments and processing instructions around the root element, and the root."""
    return list(reversed(list(root.itersiblings(preceding=True)))) + [root] + list(root.itersiblings())


def compare(found: str, expected: str, rel: float = REL_TOL) -> list[Delta] | None:
    """The differences of ``found`` from ``expected`` (empty: same meaning), or None when the two
    cannot be compared element by element (either is not XML, or the roots differ)."""
    g, e = _parse(found), _parse(expected)
    if g is not None and e is not None and doctype(g) is not None:
        return [Delta(1, "(top)", "(doctype)", doctype(g), "(absent)")]
    if g is None or e is None or g.tag != e.tag or g.get("name") != e.get("name"):
        return None
    out: list = []
    _children(None, _top(g), _top(e), rel, out)
    return out
