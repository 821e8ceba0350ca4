"""Number grammars: what a consumer of aurgen's files (MuJoCo, libsdformat, urdfdom) and a YAML 1.2
core-schema reader accept, instead of Python's lenient ``float``/``int``.

Python's ``float`` reads ``1_0`` as 10, Arabic-Indic (``١٠``) and full-width (``１０``) digits, and
strips any Unicode space (a no-break space); ``str.split`` splits on a no-break space too. None of
that is a number to MuJoCo's ``strtod``, libsdformat's or urdfdom's ``istringstream`` (C locale), or
a YAML 1.2 core-schema resolver. Here, numbers are ASCII digits only, separated by ASCII whitespace.

- :func:`xml_words`, :func:`xml_float`, :func:`xml_floats`: numbers in a generated XML file
  (attribute values and texts): ``[+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?``;
  words separated by space, tab, CR, LF (XML's whitespace). No ``inf``/``nan`` words (aurgen never
  writes them), and an overflowing literal (``1e999``) reads as infinite: never equal to a finite
  value (:func:`close`).
- :func:`yaml_number`: a YAML 1.2 core-schema int or float (``0o17``, ``0x1f``, ``.inf``, ``.nan``),
  for a number written in a string (``xyz: '1 0 1'``, :func:`yaml_words`) or under an explicit
  ``!!int``/``!!float`` tag; :func:`yaml_refusal` says why a word is not one (for messages).
- :func:`vector_word`: a word of an "x y z" string: a YAML 1.2 number written in decimal.
- :func:`close`: two numbers equal within ``rel`` of the larger magnitude, with an absolute floor
  (``rel`` below magnitude 1); an infinity or NaN is equal to nothing finite (and NaN to nothing).
"""

from __future__ import annotations

import math
import re

XML_SPACE = " \t\n\r"
_XML_SPLIT = re.compile(r"[ \t\n\r]+")
XML_FLOAT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)
XML_INT = re.compile(r"[+-]?[0-9]+", re.ASCII)
YAML_INT = re.compile(r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+", re.ASCII)
YAML_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?", re.ASCII)
YAML_INF = re.compile(r"[-+]?\.(?:inf|Inf|INF)")
YAML_NAN = re.compile(r"\.(?:nan|NaN|NAN)")


def xml_words(text: str) -> list[str]:
    """``text`` split on XML whitespace only (a no-break space is part of a word)."""
    text = (text or "").strip(XML_SPACE)
    return _XML_SPLIT.split(text) if text else []


def xml_float(word: str) -> float | None:
    """The number ``word`` is in MuJoCo's, libsdformat's and urdfdom's grammar, or None."""
    if not XML_FLOAT.fullmatch(word):
        return None
    return float(word)


def xml_floats(text: str) -> list[float] | None:
    """Every word of ``text`` as a number (:func:`xml_float`), or None when one is not a number
    (or there is none)."""
    words = xml_words(text)
    out = [xml_float(w) for w in words]
    return out if out and None not in out else None


def yaml_number(text: str, integer: bool = False) -> int | float | None:
    """``text`` as a YAML 1.2 core-schema number (an int only, with ``integer``), or None."""
    if YAML_INT.fullmatch(text):
        if text.startswith(("0o", "0x")):
            return int(text[2:], 8 if text[1] == "o" else 16)
        if len(text.lstrip("+-")) > 4300:  # Python's int() limit: a refusal, never a ValueError
            return None
        return int(text)
    if integer:
        return None
    if YAML_FLOAT.fullmatch(text):
        return float(text)
    if YAML_INF.fullmatch(text):
        return -math.inf if text.startswith("-") else math.inf
    if YAML_NAN.fullmatch(text):
        return math.nan
    return None


def vector_word(word: str) -> int | float | None:
    """A word of an "x y z" vector string as a number, or None: a YAML 1.2 number in decimal only.
    ``0x1`` and ``0o7`` are YAML integers as scalars (``[0x1, 0, 0]``), but in an "x y z" string, which
    reads as an SDF pose does (decimal words), a hex or octal word is a typo, not a 1 or a 7."""
    if word.lstrip("+-").startswith(("0x", "0o")):
        return None
    return yaml_number(word)


def vector_refusal(word: str) -> str:
    """Why ``word`` is no :func:`vector_word`, for a message."""
    if word.lstrip("+-").startswith(("0x", "0o")):
        return (f"{word!r} is hex or octal, and the words of an \"x y z\" string are decimal numbers, as in an "
                "SDF pose (write it in decimal, or a YAML list [0x1, 0, 0] if a hex integer is meant)")
    return yaml_refusal(word)


YAML_SPACE = re.compile(r"[ \t\r\n]+")


def yaml_words(text: str) -> list[str]:
    """``text`` (an "x y z" vector string) split on ASCII whitespace only (a no-break space, an
    ideographic space are part of a word, and so make it no number)."""
    text = text.strip(XML_SPACE)
    return YAML_SPACE.split(text) if text else []


def yaml_refusal(text: str, integer: bool = False) -> str:
    """Why ``text`` is no YAML 1.2 core-schema number (an int, with ``integer``), for a message."""
    what = "a whole number" if integer else "a number"
    if YAML_INT.fullmatch(text):
        return f"unreadable integer: {len(text.lstrip('+-'))} digits, more than the 4300 a number may have"
    if not text.isascii():
        odd = next(c for c in text if not c.isascii())
        return (f"{text!r} is not {what}: {odd!r} (U+{ord(odd):04X}) is not an ASCII digit, sign, point "
                "or space")
    if "_" in text:
        return f"{text!r} is not {what}: YAML 1.2 has no '_' digit separator (write {text.replace('_', '')!r})"
    if integer and yaml_number(text) is not None:
        return f"{text!r} is not a whole number"
    return f"{text!r} is not {what} (YAML 1.2: 12, -0.5, 1e-3, 0x1f, 0o17, .inf)"


def close(x: float, y: float, rel: float) -> tuple[bool, float, float]:
    """(equal, |x - y|, tolerance): ``|x - y| <= rel · max(1, |x|, |y|)`` for finite numbers; an
    infinity equals only the same infinity, NaN nothing."""
    if not (math.isfinite(x) and math.isfinite(y)):
        return (x == y), (0.0 if x == y else math.inf), 0.0
    tol = rel * max(1.0, abs(x), abs(y))
    d = abs(x - y)
    return d <= tol, d, tol
