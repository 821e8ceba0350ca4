"""The stale part of ``aurgen audit``'s report, grouped by figure (``aurgen audit --json`` keeps every row).

A config changed since a build makes every file built from it stale, and each of them repeats the same
figures (one changed battery: 11 figures × 4 files, each row ~600 characters wide). Here the rows of the
``config`` check are grouped: one row per changed figure, ``old → new`` (a shared unit or phrase
written once, a list of parts as what left and what came), and the files it affects as a reference to
a file set listed once above the table; a note other than the usual one follows its row. Every line is
at most :data:`WIDTH` columns (a long value wraps within its column; a path is never cut).
"""

from __future__ import annotations

import os
import textwrap
from collections import Counter

WIDTH = 100
ARROW = " → "


def _suffix(a: str, b: str) -> str:
    """The longest common tail of ``a`` and ``b`` that starts at a space before a letter (a unit, a
    phrase; never the last numbers of a vector)."""
    n = 0
    while n < min(len(a), len(b)) and a[-1 - n] == b[-1 - n]:
        n += 1
    tail = a[len(a) - n:] if n else ""
    for i, c in enumerate(tail[:-1]):
        if c == " " and tail[i + 1].isalpha():
            return tail[i:]
    return ""


def _multiset_minus(a: list, b: list) -> list:
    left = Counter(b)
    out = []
    for x in a:
        if left[x]:
            left[x] -= 1
        else:
            out.append(x)
    return out


def change(found: str, expected: str) -> str:
    """``found → expected`` written short: a list of parts (``; ``-separated) as the entries that
    left and those that came; else a unit or phrase both end with, once at the end."""
    if "; " in found and "; " in expected:
        a, b = found.split("; "), expected.split("; ")
        gone, came = _multiset_minus(a, b), _multiset_minus(b, a)
        if gone or came:
            return f"{'; '.join(gone) or '(none)'}{ARROW}{'; '.join(came) or '(none)'}"
    tail = _suffix(found, expected)
    if tail and len(tail) < min(len(found), len(expected)):
        return f"{found[:len(found) - len(tail)]}{ARROW}{expected[:len(expected) - len(tail)]}{tail}"
    return f"{found}{ARROW}{expected}"


def _file_set(files: list[str]) -> str:
    """``dir/{a, b}`` for files in one folder, else the paths joined by ``, ``."""
    by_dir: dict = {}
    for f in files:
        d, n = os.path.split(f)
        by_dir.setdefault(d, []).append(n)
    parts = []
    for d, names in by_dir.items():
        prefix = f"{d}/" if d else ""
        parts.append(f"{prefix}{names[0]}" if len(names) == 1 else f"{prefix}{{{', '.join(names)}}}")
    return ", ".join(parts)


def stale_table(diffs, width: int = WIDTH) -> str:
    """The ``config`` check's differences, one row per changed figure (see the module doc)."""
    groups: dict = {}
    for d in diffs:
        key = (d.figure, d.found, d.expected, d.diff, d.tol, d.note)
        groups.setdefault(key, []).append(d.file)
    sets: dict = {}
    for files in groups.values():
        sets.setdefault(tuple(files), len(sets) + 1)
    usual = Counter(k[5] for k in groups).most_common(1)[0][0] if groups else ""
    n = len({k[0] for k in groups})
    lines = textwrap.wrap(f"stale: {n} figure{'' if n == 1 else 's'} changed ({usual or 'the config'}), each "
                          "row naming the files it affects:", width, subsequent_indent="  ",
                          break_long_words=False, break_on_hyphens=False)
    for files, ref in sets.items():
        lines += textwrap.wrap(_file_set(list(files)), width, initial_indent=f"  [{ref}] ",
                               subsequent_indent=" " * (len(str(ref)) + 5), break_long_words=False,
                               break_on_hyphens=False)
    fig_w = min(24, max(len("figure"), *(len(k[0]) for k in groups)))
    ref_w = max(len("files"), *(len(f"[{sets[tuple(f)]}]") for f in groups.values()))
    chg_w = max(20, width - fig_w - ref_w - 4)
    lines += ["", f"{'figure'.ljust(fig_w)}  {'old → new'.ljust(chg_w)}  files".rstrip(),
              f"{'-' * fig_w}  {'-' * chg_w}  {'-' * ref_w}"]
    for key, files in groups.items():
        figure, found, expected, diff, tol, note = key
        text = change(found, expected)
        if diff is not None:
            text += f" (differs by {diff:.3g}" + (f", tolerance {tol:.3g})" if tol is not None else ")")
        body = textwrap.wrap(text, chg_w, break_long_words=False, break_on_hyphens=False) or [""]
        if note and note != usual:
            body += textwrap.wrap(f"note: {note}", chg_w, break_long_words=False, break_on_hyphens=False)
        fig = textwrap.wrap(figure, fig_w) or [""]
        ref = f"[{sets[tuple(files)]}]"
        for i in range(max(len(body), len(fig))):
            f = fig[i] if i < len(fig) else ""
            b = body[i] if i < len(body) else ""
            lines.append(f"{f.ljust(fig_w)}  {b.ljust(chg_w)}  {ref if i == 0 else ''}".rstrip())
    return "\n".join(lines)
