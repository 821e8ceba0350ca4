"""Config YAML: the YAML 1.2 core schema, the limits, and the two parser stacks agreeing.

``aurgen.core.yamlio.load`` parses with libyaml's scanner and parser (PyYAML's C extension) under
PyYAML's composer; a PyYAML without libyaml gets the pure-Python stack. Both must give the same
data, the same key lines and the same errors. The expected scalars are the YAML 1.2 core
schema's (https://yaml.org/spec/1.2.2/#1032-tag-resolution), not either stack's output.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import yaml

from aurgen.core import yamlio
from aurgen.core.errors import ConfigError
from aurgen.core.resources import data_dir

# (YAML scalar, the YAML 1.2 core schema's value)
CORE_SCHEMA = [
    ("1:30", "1:30"),          # no base 60 (YAML 1.1 read 90)
    ("yes", "yes"), ("on", "on"), ("No", "No"),  # no YAML 1.1 booleans
    ("true", True), ("False", False), ("TRUE", True),
    ("~", None), ("null", None), ("", None),
    ("012", 12),               # decimal, not YAML 1.1 octal 10
    ("0o17", 15), ("0x1F", 31), ("-7", -7), ("+3", 3),
    ("3.986e14", 3.986e14), ("1e3", 1000.0), (".5", 0.5), ("-2.", -2.0),
    (".inf", math.inf), ("-.Inf", -math.inf),
    ("1_000", "1_000"),        # no '_' separators
    ("0b101", "0b101"),        # no binary ints
]


def _loaders():
    return [pytest.param(L, id=L.__name__) for L in yamlio.LOADERS]


def test_libyaml_is_used_when_present():
    assert yaml.__with_libyaml__, "PyYAML's wheels ship libyaml"
    assert yamlio.LOADERS[0].__name__ == "_CLoader" and yamlio._Loader is yamlio.LOADERS[0]


@pytest.mark.parametrize("loader", _loaders())
@pytest.mark.parametrize("text, want", CORE_SCHEMA, ids=[t or "empty" for t, _ in CORE_SCHEMA])
def test_core_schema_scalars(loader, text, want):
    got = yamlio.parse(f"k: {text}\n", Path("t.yaml"), loader)["k"]
    assert type(got) is type(want) and (got == want), (text, got)


@pytest.mark.parametrize("loader", _loaders())
def test_nan_and_lines(loader):
    d = yamlio.parse("a: 1\n\nb:\n  c: .nan\n  d: [1, 2]\n", Path("t.yaml"), loader)
    assert math.isnan(d["b"]["c"])
    assert d.lines == {"a": 1, "b": 3} and d["b"].lines == {"c": 4, "d": 5} and d["b"].line == 4


ERRORS = [
    ("duplicate", "a: 1\nb: 2\na: 3\n", 3, "duplicate key"),
    ("complex key", "? [1, 2]\n: x\n", 1, "a key must be a plain name"),
    ("syntax", "a: [1, 2\nb: 3\n", None, "YAML syntax error"),
    ("tab indent", "a:\n\tb: 1\n", 2, "YAML syntax error"),
    ("deep", "a: " + "[" * 40 + "]" * 40 + "\n", 1, "nested deeper than"),
    # deeper than libyaml's own limit (1000 in PyYAML >= 6.0.4's libyaml): the same error
    ("very deep", "a: " + "[" * 100000 + "]" * 100000 + "\n", 1, "nested deeper than"),
    ("very deep block", "".join("  " * i + f"k{i}:\n" for i in range(1200)) + "  " * 1200 + "x: 1\n", None,
     "nested deeper than"),
    ("alias cycle", "a: &x [*x]\n", 1, "an alias refers to the node that contains it"),
    ("alias bomb", "a: &a [1,1,1,1,1,1,1,1,1,1]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
     "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
     "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]\n", None, "alias bomb"),
    ("control character", "a: b\x07c\n", None, "YAML"),
    ("not a mapping", "- 1\n- 2\n", None, "expected a mapping"),
    ("empty", "# nothing\n", None, "the file is empty"),
    ("NUL", "a: 1\0\n", None, "NUL"),
    ("unreadable int", "a: 0o\n", None, None),  # '0o' is a string in the core schema: no error
]


@pytest.mark.parametrize("loader", _loaders())
@pytest.mark.parametrize("name, text, line, message", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_name_the_file_and_line(loader, name, text, line, message):
    if message is None:
        assert yamlio.parse(text, Path("t.yaml"), loader) == {"a": "0o"}
        return
    with pytest.raises(ConfigError) as info:
        yamlio.parse(text, Path("t.yaml"), loader)
    err = info.value
    assert err.path == "t.yaml"
    assert message in err.message or message in str(err), str(err)
    if line is not None:
        assert err.line == line, str(err)


def _bundled_yaml():
    return sorted(p for sub in ("vehicles", "worlds", "sweeps") for p in data_dir(sub).rglob("*.yaml"))


def _same(a, b) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return (list(a) == list(b) and getattr(a, "lines", None) == getattr(b, "lines", None)
                and getattr(a, "line", None) == getattr(b, "line", None) and all(_same(a[k], b[k]) for k in a))
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b or (a != a and b != b)


@pytest.mark.skipif(len(yamlio.LOADERS) < 2, reason="PyYAML without libyaml: one stack only")
def test_stacks_agree_on_every_bundled_file_and_error():
    files = _bundled_yaml()
    assert len(files) > 20
    for f in files:
        text = f.read_text()
        fast, slow = (yamlio.parse(text, f, L) for L in yamlio.LOADERS)
        assert _same(fast, slow), f
    for name, text, _, message in ERRORS:
        if message is None:
            continue
        errs = []
        for L in yamlio.LOADERS:
            with pytest.raises(ConfigError) as info:
                yamlio.parse(text, Path("t.yaml"), L)
            errs.append(info.value)
        assert errs[0].line == errs[1].line or "syntax" in errs[0].message, name


def test_copy_tree_is_a_deep_copy_with_lines_and_aliases():
    import copy

    text = "a: &x [1, {b: 2.5}]\nc: *x\nd:\n  e: [true, ~, 'q']\n"
    d = yamlio.parse(text, Path("t.yaml"))
    c = yamlio.copy_tree(d)
    ref = copy.deepcopy(d)
    assert _same(c, ref) and _same(c, d)
    assert c["a"] is c["c"] and ref["a"] is ref["c"]        # the alias stays one node, as deepcopy keeps it
    assert c["a"] is not d["a"] and c["d"]["e"] is not d["d"]["e"]
    assert c.lines is not d.lines and c["d"].lines == {"e": 4}
    c["a"][1]["b"] = 9.0
    c["d"].lines["e"] = 99
    assert d["a"][1]["b"] == 2.5 and d["d"].lines["e"] == 4  # the original is untouched
