"""MkDocs hook: the CLI reference (docs/reference/cli.md) written from aurgen's own argparse parser.

The page holds a marker, ``<!-- cli-reference -->``; at build time it is replaced by
:func:`reference` of the installed ``aurgen.cli.build_parser()``: the program's usage, then every
subcommand in the help's order with its usage, its description (its help line where it has no
description) and a table of its arguments and options (the option strings, the value it takes,
the default, the help). Nothing is written by hand, so the page cannot drift from the parser;
tests/test_docs.py checks that it names every subcommand and option string there is."""

from __future__ import annotations

import argparse
import html
import re

MARKER = "<!-- cli-reference -->"
PAGE = "reference/cli.md"
WIDTH = 88  # the usage lines' width (argparse's own wrapping; not the terminal's)


def _error(message: str) -> Exception:
    """MkDocs' error for a plugin (imported here: the tests load this module without MkDocs)."""
    from mkdocs.exceptions import PluginError

    return PluginError(message)


def _text(s: str) -> str:
    """Plain text for a Markdown table cell: HTML and Markdown characters escaped, one line."""
    s = html.escape(" ".join(s.split()), quote=False)
    s = re.sub(r"([\\`*_\[\]|])", r"\\\1", s)
    return s


def _usage(parser: argparse.ArgumentParser) -> str:
    fmt = argparse.HelpFormatter(parser.prog, width=WIDTH)
    fmt.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups, prefix="usage: ")
    return fmt.format_help().strip()


def _help(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    if not action.help or action.help == argparse.SUPPRESS:
        return ""
    return argparse.HelpFormatter(parser.prog)._expand_help(action)


def _value(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    """What an option takes, as argparse's help shows it (``PATH``, ``N``), or nothing for a flag."""
    if action.nargs == 0:
        return ""
    fmt = argparse.HelpFormatter(parser.prog)
    if not action.option_strings:  # a positional: its count (one, several, optional)
        return {None: "", "?": "optional", "*": "zero or more", "+": "one or more"}.get(action.nargs, str(action.nargs))
    return fmt._format_args(action, fmt._get_default_metavar_for_optional(action))


def _default(action: argparse.Action) -> str:
    if action.nargs == 0 or action.default in (None, argparse.SUPPRESS, [], False):
        return ""
    return str(action.default)


def _exclusive(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    for group in parser._mutually_exclusive_groups:
        if action in group._group_actions:
            others = [a.option_strings[-1] for a in group._group_actions if a is not action]
            return " (not with " + ", ".join(f"`{o}`" for o in others) + ")"
    return ""


def _table(parser: argparse.ArgumentParser) -> list[str]:
    rows = ["| argument | value | default | what it does |", "|---|---|---|---|"]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            continue
        names = ", ".join(f"`{o}`" for o in action.option_strings) or f"`{action.metavar or action.dest}`"
        value = _value(parser, action)
        rows.append(f"| {names} | {'`' + value + '`' if value and action.option_strings else _text(value)} | "
                    f"{'`' + _default(action) + '`' if _default(action) else ''} | "
                    f"{_text(_help(parser, action))}{_exclusive(parser, action)} |")
    return rows


def subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, str, argparse.ArgumentParser]]:
    """(name, help line, parser) of every subcommand of ``parser``, in the help's order."""
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {a.dest: a.help or "" for a in sub._choices_actions}
    return [(name, helps.get(name, ""), p) for name, p in sub.choices.items()]


def reference(parser: argparse.ArgumentParser) -> str:
    """The Markdown of the whole reference: the program, then each subcommand."""
    out = [f"The `{parser.prog}` program: {_text(parser.description or '')}", "",
           "```text", _usage(parser), "```", "", *_table(parser), ""]
    for name, helpline, p in subcommands(parser):
        described = p.description or (helpline[:1].upper() + helpline[1:] + "." if helpline else "")
        out += [f"## {parser.prog} {name}", "", _text(described), "", "```text", _usage(p), "```", "",
                *_table(p), ""]
    return "\n".join(out)


def on_page_markdown(markdown: str, page, **kwargs) -> str:
    if page.file.src_uri != PAGE:
        return markdown
    if MARKER not in markdown:
        raise _error(f"docs/{PAGE} has lost its marker {MARKER}: the CLI reference goes there")
    from aurgen.cli import build_parser

    return markdown.replace(MARKER, reference(build_parser()))
