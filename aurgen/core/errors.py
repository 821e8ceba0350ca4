"""The exception hierarchy: every error a user can cause is an AurgenError.

The CLI prints ``str(error)`` and exits 2; nothing here carries a traceback to
the user. Messages say which file, which key (and line, where YAML knows it),
what was wrong and what to do.
"""

from __future__ import annotations

from typing import Iterable


class AurgenError(Exception):
    """Base of every error caused by user input (configs, paths, files)."""


class ConfigError(AurgenError):
    """A config or catalog file is unreadable or invalid.

    ``path`` is the file, ``key`` a dotted key path such as ``parts[2].type``,
    ``line`` the 1-based line in the file where known.
    """

    def __init__(self, path, key: str | None, message: str, hint: str | None = None,
                 line: int | None = None):
        self.path = str(path) if path is not None else None
        self.key = key
        self.message = message
        self.hint = hint
        self.line = line
        super().__init__(self.render())

    def render(self) -> str:
        where = self.path or ("<config>" if self.line is not None else "")
        if self.line is not None:
            where += f":{self.line}"
        text = f"{where}: " if where else ""
        if self.key:
            text += f"{self.key}: "
        text += self.message
        if self.hint:
            text += f" ({self.hint})"
        return one_line(text)


def one_line(text: str) -> str:
    """``text`` with every unprintable character (a newline, a NUL) escaped, so a message is
    one line whatever a file or a key holds."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


class AssemblyError(ConfigError):
    """The parts fit no valid vehicle: unknown slot, wrong type for a slot, ..."""


class BuildError(AurgenError):
    """The composed model cannot be emitted (e.g. a displacement solving to nothing)."""


def did_you_mean(word: str, known: Iterable[str]) -> str | None:
    """Return "did you mean 'x'?" for the closest known word, or None."""
    import difflib  # only an error needs it: not imported by every command

    close = difflib.get_close_matches(str(word), sorted(set(known)), n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else None
