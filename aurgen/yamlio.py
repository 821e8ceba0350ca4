"""YAML reading with line numbers, and the typed accessors validation uses.

``load(path)`` returns plain dicts and lists whose mappings are ``Mapping``
(a dict subclass) remembering the 1-based line of each key, so an error can
name the line. Duplicate keys are an error (PyYAML silently keeps the last).
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import yaml

from .errors import ConfigError, did_you_mean


class Mapping(dict):
    """A dict that knows the line of each key (``lines``) and its own (``line``)."""

    line: int | None = None
    lines: dict


class _Loader(yaml.SafeLoader):
    pass


def _construct_mapping(loader, node):
    loader.flatten_mapping(node)
    out = Mapping()
    out.line = node.start_mark.line + 1
    out.lines = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in out:
            raise ConfigError(loader.name, str(key), "duplicate key; YAML keeps only one of them",
                              "remove one", line=key_node.start_mark.line + 1)
        out[key] = loader.construct_object(value_node, deep=True)
        out.lines[key] = key_node.start_mark.line + 1
    return out


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
# YAML 1.2 floats: PyYAML (YAML 1.1) reads 3.986e14 (no sign, no dot) as a string
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)[eE][-+]?[0-9]+$"),
    list("-+0123456789."))


def load(path: Path):
    """Parse a YAML file; every failure is a ConfigError naming the file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(path, None, "file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(path, None, f"cannot read: {exc}") from None
    try:
        loader = _Loader(text)
        loader.name = str(path)
        try:
            data = loader.get_single_data()
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        raise ConfigError(path, None, f"YAML syntax error: {exc.problem}",
                          "fix the syntax at that line",
                          line=mark.line + 1 if mark else None) from None
    except yaml.YAMLError as exc:
        raise ConfigError(path, None, f"YAML error: {exc}") from None
    if data is None:
        raise ConfigError(path, None, "the file is empty", "it should hold a mapping of keys")
    if not isinstance(data, dict):
        raise ConfigError(path, None, f"expected a mapping at the top level, found {type(data).__name__}")
    return data


class Reader:
    """Typed access to one file's mappings, raising ConfigError with file/key/line."""

    def __init__(self, path):
        self.path = Path(path)

    def error(self, key: str | None, message: str, hint: str | None = None, node=None, field=None):
        line = None
        if isinstance(node, Mapping):
            line = node.lines.get(field, node.line) if field is not None else node.line
        return ConfigError(self.path, key, message, hint, line=line)

    def mapping(self, value, key, node=None, field=None) -> dict:
        if not isinstance(value, dict):
            raise self.error(key, f"expected a mapping, got {_kind(value)}", node=node, field=field)
        return value

    def check_keys(self, node: dict, allowed, key_prefix: str, required=()):
        for k in node:
            if k is True:
                raise self.error(f"{key_prefix}.on" if key_prefix else "on",
                                 "an entry has a bare 'on:' key, which YAML reads as true; the key is 'of:'",
                                 "write 'of: <instance>'", node=node, field=k)
            if k not in allowed:
                hint = did_you_mean(k, allowed) or f"known keys: {', '.join(sorted(allowed))}"
                raise self.error(_join(key_prefix, k), "unknown key", hint, node=node, field=k)
        for k in required:
            if k not in node:
                raise self.error(_join(key_prefix, k), "required key is missing", node=node)

    def _absent(self, node: dict, field: str, key: str, required: bool) -> bool:
        """True when ``field`` is not in ``node`` (an error if it is required)."""
        if field in node:
            return False
        if required:
            raise self.error(key, "required key is missing", node=node)
        return True

    def number(self, node: dict, field: str, key_prefix: str, *, default=None, positive=False,
               nonnegative=False, required=False) -> float:
        key = _join(key_prefix, field)
        if self._absent(node, field, key, required):
            return default
        return self.as_number(node[field], key, node=node, field=field, positive=positive,
                              nonnegative=nonnegative)

    def as_number(self, value, key, *, node=None, field=None, positive=False, nonnegative=False) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.error(key, f"expected a number, got {_kind(value)}", node=node, field=field)
        value = float(value)
        if not math.isfinite(value):
            raise self.error(key, f"must be a finite number, got {value}", node=node, field=field)
        if positive and value <= 0.0:
            raise self.error(key, f"must be positive, got {value:g}", node=node, field=field)
        if nonnegative and value < 0.0:
            raise self.error(key, f"must not be negative, got {value:g}", node=node, field=field)
        return value

    def vector(self, node: dict, field: str, key_prefix: str, n: int = 3, *, default=None,
               positive=False, required=False) -> tuple:
        """A vector as a YAML list or an "x y z" string."""
        key = _join(key_prefix, field)
        if self._absent(node, field, key, required):
            return default
        value = node[field]
        if isinstance(value, str):
            parts = value.split()
            try:
                value = [float(p) for p in parts]
            except ValueError:
                raise self.error(key, f"expected {n} numbers, got {node[field]!r}", node=node, field=field) from None
        if not isinstance(value, (list, tuple)) or len(value) != n:
            raise self.error(key, f"expected {n} numbers (a list or an \"x y z\" string), got {_kind(node[field])}",
                             node=node, field=field)
        return tuple(self.as_number(v, key, node=node, field=field, positive=positive) for v in value)

    def string(self, node: dict, field: str, key_prefix: str, *, default=None, required=False,
               choices=None) -> str:
        key = _join(key_prefix, field)
        if self._absent(node, field, key, required):
            return default
        value = node[field]
        if not isinstance(value, str) or not value:
            raise self.error(key, f"expected a name (a non-empty string), got {_kind(value)}", node=node, field=field)
        if choices is not None and value not in choices:
            raise self.error(key, f"must be one of {', '.join(choices)}, got {value!r}",
                             did_you_mean(value, choices), node=node, field=field)
        return value

    def boolean(self, node: dict, field: str, key_prefix: str, *, default=None) -> bool:
        if field not in node:
            return default
        value = node[field]
        if not isinstance(value, bool):
            raise self.error(_join(key_prefix, field), f"expected true or false, got {_kind(value)}",
                             node=node, field=field)
        return value

    def sequence(self, node: dict, field: str, key_prefix: str) -> list:
        if field not in node or node[field] is None:
            return []
        value = node[field]
        if not isinstance(value, list):
            raise self.error(_join(key_prefix, field), f"expected a list, got {_kind(value)}", node=node, field=field)
        return value


def _join(prefix: str, field) -> str:
    return f"{prefix}.{field}" if prefix else str(field)


def _kind(value) -> str:
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return f"a boolean ({value})"
    if isinstance(value, (int, float)):
        return f"a number ({value})"
    if isinstance(value, str):
        return f"a string ({value!r})"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__
