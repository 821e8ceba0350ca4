"""YAML reading with line numbers, and the typed accessors validation uses.

``load(path)`` returns plain dicts and lists whose mappings are ``Mapping``
(a dict subclass) remembering the 1-based line of each key, so an error can
name the line. Duplicate keys are an error (PyYAML silently keeps the last).

Scalars follow the YAML 1.2 core schema, not PyYAML's YAML 1.1: ``1:30`` is a
string (not 90), ``yes``/``on`` are strings (not true), ``012`` is twelve and
``3.986e14`` a float. A key must be a scalar. Files larger than
``limits.MAX_FILE_BYTES``, nesting deeper than ``limits.MAX_DEPTH`` and more
than ``limits.MAX_NODES`` nodes after alias expansion are refused before
anything walks them.
"""

from __future__ import annotations

import math
import os
import re
import stat
from pathlib import Path

import yaml

from aurgen.core import limits, numbers
from aurgen.core.errors import ConfigError, did_you_mean


class Mapping(dict):
    """A dict that knows the line of each key (``lines``) and its own (``line``)."""

    line: int | None = None
    lines: dict


class _Limits(yaml.composer.Composer):
    """The composer with the nesting limit (the alias and size limits: ``_count_nodes``)."""

    _depth = 0

    def compose_node(self, parent, index):
        self._depth += 1
        try:
            if self._depth > limits.MAX_DEPTH:
                mark = self.peek_event().start_mark
                raise ConfigError(self.name, None, f"nested deeper than {limits.MAX_DEPTH} levels",
                                  "a config is a few levels of mappings and lists", line=mark.line + 1)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


class _PyLoader(_Limits, yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser,
                yaml.constructor.SafeConstructor, yaml.resolver.Resolver):
    """PyYAML's pure-Python scanner and parser under the composer with the limits."""

    def __init__(self, stream):
        yaml.reader.Reader.__init__(self, stream)
        yaml.scanner.Scanner.__init__(self)
        yaml.parser.Parser.__init__(self)
        yaml.composer.Composer.__init__(self)
        yaml.constructor.SafeConstructor.__init__(self)
        yaml.resolver.Resolver.__init__(self)


try:  # libyaml's scanner and parser (PyYAML's wheels ship it): 4-5x faster than the Python ones
    from yaml._yaml import CParser
except ImportError:  # pragma: no cover - a PyYAML built without libyaml
    CParser = None
else:
    class _CLoader(_Limits, CParser, yaml.constructor.SafeConstructor, yaml.resolver.Resolver):
        """libyaml parses into events; PyYAML's composer (with the nesting limit) builds the
        nodes, so every node keeps its line and the limits hold before anything is constructed."""

        def __init__(self, stream):
            CParser.__init__(self, stream)
            yaml.composer.Composer.__init__(self)
            yaml.constructor.SafeConstructor.__init__(self)
            yaml.resolver.Resolver.__init__(self)

LOADERS = (_PyLoader,) if CParser is None else (_CLoader, _PyLoader)
_Loader = LOADERS[0]  # the one load() uses; the tests hold the others to it


def _line(node) -> int:
    return node.start_mark.line + 1


def _construct_mapping(loader, node):
    loader.flatten_mapping(node)
    out = Mapping()
    out.line = _line(node)
    out.lines = {}
    for key_node, value_node in node.value:
        if not isinstance(key_node, yaml.ScalarNode):
            raise ConfigError(loader.name, None, "a key must be a plain name, not a list or a mapping "
                              "(a YAML complex key '? ...')", line=_line(key_node))
        key = loader.construct_object(key_node, deep=True)
        if key in out:
            raise ConfigError(loader.name, str(key), "duplicate key; YAML keeps only one of them",
                              "remove one", line=_line(key_node))
        try:
            out[key] = loader.construct_object(value_node, deep=True)
        except ConfigError as exc:
            raise (_keyed(exc, key) if hasattr(exc, "climb") else exc) from None
        out.lines[key] = _line(key_node)
    return out


def _scalar_error(loader, node, message, hint=None) -> ConfigError:
    """A scalar's error; the enclosing mappings and lists add its key on the way up (_keyed)."""
    exc = ConfigError(loader.name, None, message, hint, line=_line(node))
    exc.climb = ()
    return exc


def _keyed(exc: ConfigError, step) -> ConfigError:
    """``exc`` (a scalar's error) with ``step`` (a key or a list index) put in front of its key."""
    climb = (step,) + exc.climb
    key = "".join(f"[{t}]" if isinstance(t, int) else (f".{t}" if i else str(t)) for i, t in enumerate(climb))
    out = ConfigError(exc.path, key, exc.message, exc.hint, line=exc.line)
    out.climb = climb
    return out


def _construct_number(loader, node, integer: bool):
    """A YAML 1.2 core-schema int (``012`` is twelve, ``0o`` octal, ``0x`` hex) or float (no base
    60, no '_', ASCII digits only), also under an explicit ``!!int``/``!!float`` tag."""
    text = loader.construct_scalar(node)
    value = numbers.yaml_number(text, integer) if isinstance(text, str) else None
    if value is None:
        raise _scalar_error(loader, node, numbers.yaml_refusal(str(text), integer))
    return value if integer else float(value)


def _construct_bool(loader, node):
    """A YAML 1.2 core-schema boolean, also under an explicit ``!!bool`` tag (PyYAML's takes 1.1's
    ``yes``/``on`` as true, and raised a KeyError on any other word)."""
    text = loader.construct_scalar(node)
    if text in ("true", "True", "TRUE", "false", "False", "FALSE"):
        return text[0] in "tT"
    raise _scalar_error(loader, node, f"{text!r} is not a boolean", "write true or false")


def _refuse_tag(loader, node):
    """A type outside the YAML 1.2 core schema (``!!timestamp``, ``!!binary``, ``!!set``, ...)."""
    tag = node.tag.rsplit(":", 1)[-1]
    raise _scalar_error(loader, node, f"a !!{tag} value has no place in a config",
                        "a config holds strings, numbers, booleans, null, lists and mappings: YAML 1.2 core")


def _construct_seq(loader, node):
    out = []
    for i, child in enumerate(node.value):
        try:
            out.append(loader.construct_object(child, deep=True))
        except ConfigError as exc:
            raise (_keyed(exc, i) if hasattr(exc, "climb") else exc) from None
    return out


for _L in LOADERS:
    _L.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
    _L.add_constructor("tag:yaml.org,2002:seq", _construct_seq)
    _L.add_constructor("tag:yaml.org,2002:bool", _construct_bool)
    for _tag in ("timestamp", "binary", "set", "omap", "pairs"):
        _L.add_constructor(f"tag:yaml.org,2002:{_tag}", _refuse_tag)
    _L.add_constructor("tag:yaml.org,2002:int", lambda ld, node: _construct_number(ld, node, True))
    _L.add_constructor("tag:yaml.org,2002:float", lambda ld, node: _construct_number(ld, node, False))
    # the YAML 1.2 core schema's implicit scalars; anything else is a string
    _L.yaml_implicit_resolvers = {}
for _tag, _re, _first in (
        ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
        ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", list("tTfF")),
        ("tag:yaml.org,2002:int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", list("-+0123456789")),
        ("tag:yaml.org,2002:float", r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
                                    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$", list("-+0123456789.")),
        ("tag:yaml.org,2002:merge", r"^(?:<<)$", ["<"])):
    for _L in LOADERS:
        _L.add_implicit_resolver(_tag, re.compile(_re), _first)


def _count_nodes(loader, root) -> None:
    """Refuse a document whose alias expansion exceeds ``limits.MAX_NODES`` nodes, or an alias
    that contains itself. Linear in the distinct nodes (sizes are memoised)."""
    sizes: dict[int, int] = {}
    busy: set[int] = set()

    def size(node) -> int:
        k = id(node)
        if k in sizes:
            return sizes[k]
        if k in busy:
            raise ConfigError(loader.name, None, "an alias refers to the node that contains it (a cycle)",
                              line=_line(node))
        busy.add(k)
        n = 1
        if isinstance(node, yaml.SequenceNode):
            n += sum(size(c) for c in node.value)
        elif isinstance(node, yaml.MappingNode):
            n += sum(size(a) + size(b) for a, b in node.value)
        busy.discard(k)
        if n > limits.MAX_NODES:
            raise ConfigError(loader.name, None, f"more than {limits.MAX_NODES} values once aliases are "
                              "expanded (an alias bomb?)", "use fewer aliases", line=_line(node))
        sizes[k] = n
        return n

    size(root)


def read_text(path: Path) -> str:
    """A config file's text: a regular file of at most ``limits.MAX_FILE_BYTES``, UTF-8."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise ConfigError(path, None, "file not found") from None
    except OSError as exc:
        raise ConfigError(path, None, f"cannot read: {exc.strerror or exc}") from None
    if not stat.S_ISREG(st.st_mode):
        raise ConfigError(path, None, "not a regular file", "a config is a .yaml file")
    if st.st_size > limits.MAX_FILE_BYTES:
        raise ConfigError(path, None, f"{st.st_size} bytes: larger than the {limits.MAX_FILE_BYTES}-byte "
                          "limit for a config file")
    try:
        with open(path, "rb") as fh:
            data = fh.read(limits.MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise ConfigError(path, None, f"cannot read: {exc.strerror or exc}") from None
    if len(data) > limits.MAX_FILE_BYTES:
        raise ConfigError(path, None, f"larger than the {limits.MAX_FILE_BYTES}-byte limit for a config file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(path, None, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def load(path: Path):
    """Parse a YAML file; every failure is a ConfigError naming the file."""
    path = Path(path)
    return parse(read_text(path), path)


def parse(text: str, path: Path, loader=None):
    """Parse a config's text (``path`` names it in errors) with ``loader`` (default: the fastest
    of ``LOADERS``, which all give the same result); every failure is a ConfigError."""
    if "\0" in text:
        raise ConfigError(path, None, "holds a NUL character: not a text file")
    try:
        ld = (loader or _Loader)(text)
        ld.name = str(path)
        try:
            node = ld.get_single_node()
            if node is not None:
                _count_nodes(ld, node)
            data = ld.construct_document(node) if node is not None else None
        finally:
            ld.dispose()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        if "maximum nesting depth" in str(exc.problem):  # libyaml's own limit (PyYAML >= 6.0.4), beyond ours
            raise ConfigError(path, None, f"nested deeper than {limits.MAX_DEPTH} levels",
                              "a config is a few levels of mappings and lists",
                              line=mark.line + 1 if mark else None) from None
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


_SCALARS = (str, int, float, bool, type(None))


def copy_tree(node, _memo=None):
    """A deep copy of a loaded config (``Mapping``/dict, list, scalars): each ``Mapping`` keeps
    its ``line`` and a copy of its ``lines``, and a node shared through a YAML alias stays shared
    in the copy (as ``copy.deepcopy`` does), at a tenth of deepcopy's cost. Anything else is
    handed to ``copy.deepcopy``."""
    if isinstance(node, _SCALARS):
        return node
    memo = {} if _memo is None else _memo
    k = id(node)
    if k in memo:
        return memo[k]
    if type(node) is list:
        out = memo[k] = []
        out.extend(copy_tree(v, memo) for v in node)
    elif type(node) is dict or type(node) is Mapping:
        out = memo[k] = type(node)()
        for key, v in node.items():
            out[key] = copy_tree(v, memo)
        if type(node) is Mapping:
            out.line = node.line
            if "lines" in node.__dict__:
                out.lines = dict(node.lines)
    else:
        import copy

        out = memo[k] = copy.deepcopy(node)
    return out


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
            if k is True or k == "on":
                raise self.error(f"{key_prefix}.on" if key_prefix else "on",
                                 "an entry has a bare 'on:' key (YAML 1.1 readers take it as true); the key is "
                                 "'of:'",
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
               nonnegative=False, required=False, magnitude=None, at_least=None, at_most=None) -> float:
        key = _join(key_prefix, field)
        if self._absent(node, field, key, required):
            return default
        return self.as_number(node[field], key, node=node, field=field, positive=positive,
                              nonnegative=nonnegative, magnitude=magnitude, at_least=at_least, at_most=at_most)

    def as_number(self, value, key, *, node=None, field=None, positive=False, nonnegative=False,
                  magnitude=None, at_least=None, at_most=None) -> float:
        """A finite number; ``positive``/``nonnegative`` its sign, ``magnitude`` a bound on ``|x|``,
        ``at_least``/``at_most`` a closed range (the documented limits, aurgen.core.limits)."""
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.error(key, f"expected a number, got {_kind(value)}", node=node, field=field)
        try:
            value = float(value)
        except OverflowError:
            value = math.inf
        if not math.isfinite(value):
            raise self.error(key, f"must be a finite number, got {value}", node=node, field=field)
        if positive and value <= 0.0:
            raise self.error(key, f"must be positive, got {value:g}", node=node, field=field)
        if nonnegative and value < 0.0:
            raise self.error(key, f"must not be negative, got {value:g}", node=node, field=field)
        if magnitude is not None and abs(value) > magnitude:
            raise self.error(key, f"{value:g} is out of range: at most {magnitude:g} in magnitude",
                             "see the limits in docs/config.md", node=node, field=field)
        if at_least is not None and value < at_least:
            raise self.error(key, f"{value:g} is out of range: at least {at_least:g}",
                             "see the limits in docs/config.md", node=node, field=field)
        if at_most is not None and value > at_most:
            raise self.error(key, f"{value:g} is out of range: at most {at_most:g}",
                             "see the limits in docs/config.md", node=node, field=field)
        return value

    def vector(self, node: dict, field: str, key_prefix: str, n: int = 3, *, default=None,
               positive=False, required=False, magnitude=None, at_least=None, nonzero=False) -> tuple:
        """A vector as a YAML list or an "x y z" string; ``nonzero``: not the zero vector (an axis)."""
        key = _join(key_prefix, field)
        if self._absent(node, field, key, required):
            return default
        value = node[field]
        if isinstance(value, str):  # "x y z": each word a decimal YAML 1.2 number, ASCII digits and spaces only
            value = numbers.yaml_words(value)
            for word in value:
                if numbers.vector_word(word) is None:
                    raise self.error(key, f"expected {n} numbers, got {node[field]!r}: "
                                     f"{numbers.vector_refusal(word)}", node=node, field=field)
            value = [numbers.vector_word(w) for w in value]
        if not isinstance(value, (list, tuple)) or len(value) != n:
            raise self.error(key, f"expected {n} numbers (a list or an \"x y z\" string), got {_kind(node[field])}",
                             node=node, field=field)
        out = tuple(self.as_number(v, key, node=node, field=field, positive=positive, magnitude=magnitude,
                                   at_least=at_least) for v in value)
        if nonzero and math.sqrt(sum(v * v for v in out)) < 1e-9:
            raise self.error(key, f"must not be the zero vector, got {list(out)}", "an axis needs a direction",
                             node=node, field=field)
        return out

    def name(self, node: dict, field: str, key_prefix: str, *, default=None, required=False,
             part_type=False) -> str:
        """A name (aurgen.core.limits.NAME_PATTERN): it becomes a file name, an XML name and comment text."""
        key = _join(key_prefix, field)
        if self._absent(node, field, key, required):
            return default
        return self.as_name(node[field], key, node=node, field=field, part_type=part_type)

    def as_name(self, value, key, *, node=None, field=None, part_type=False) -> str:
        """``value`` if it is a name; ``part_type``: it names a catalog entry (never a path)."""
        why = limits.bad_name(value)
        if why:
            if part_type:
                why = f"a part type is a catalog name, never a path: {why}"
            raise self.error(key, why, node=node, field=field)
        return value

    def topic(self, node: dict, field: str, key_prefix: str, *, default=None, absolute=False) -> str:
        key = _join(key_prefix, field)
        if self._absent(node, field, key, False):
            return default
        why = limits.bad_topic(node[field], absolute)
        if why:
            raise self.error(key, why, node=node, field=field)
        return node[field]

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
