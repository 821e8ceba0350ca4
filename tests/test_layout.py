"""The layout's rules (../shared/design/architecture.md, docs/architecture.md), checked on the source.

- aurgen is in stage packages whose imports point one way, down the pipeline:
  core → config → compose → emit → {check, analysis} → gym → cli (``STAGES``: a
  module may import its own package and any package of a lower stage, never one of
  its own stage or above; check and analysis share a stage and never import each
  other).  The runtime (aurgen.runtime) sits just above core: it reads only the edges
  of aurgen (the core package and the version), never the composition or the emitters
  (it reads what they wrote).
- The import graph of aurgen and aurgen.runtime has no cycle, counting the imports
  inside functions too (a lazy import still ties two modules together: build and
  worlds once imported each other).
- No module is over ``MAX_LINES`` lines.
"""

from __future__ import annotations

import ast
from pathlib import Path

import aurgen
import aurgen.runtime

PKG = Path(aurgen.__file__).resolve().parent
RUNTIME = Path(aurgen.runtime.__file__).resolve().parent  # runtime/ in a checkout, aurgen/runtime installed
# the stage of each package (the top-level aurgen module, its version, is the ground: anyone may read it)
STAGES = {"aurgen": 0, "aurgen.core": 0, "aurgen.runtime": 1, "aurgen.config": 2, "aurgen.compose": 3,
          "aurgen.emit": 4, "aurgen.check": 5, "aurgen.analysis": 5, "aurgen.gym": 6, "aurgen.cli": 7,
          "aurgen.__main__": 8}
MAX_LINES = 520


def _modules() -> dict[str, Path]:
    out = {}
    for name, folder in (("aurgen", PKG), ("aurgen.runtime", RUNTIME)):
        for f in sorted(folder.rglob("*.py")):
            rel = f.relative_to(folder).with_suffix("").parts
            if rel[0] in ("runtime", "data") and name == "aurgen":
                continue  # the runtime is scanned from its own folder; data holds no modules of aurgen's
            if rel[-1] == "__init__":
                rel = rel[:-1]
            out[".".join((name, *rel))] = f
    return out


def _graph() -> dict[str, set[str]]:
    mods = _modules()
    graph = {m: set() for m in mods}
    for m, f in mods.items():
        pkg = m if f.stem == "__init__" else m.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = pkg.split(".")[: len(pkg.split(".")) - node.level + 1]
                    base = ".".join(parts + ([base] if base else []))
                names = [f"{base}.{a.name}" for a in node.names] + [base]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            target = next((n for n in names if n in mods and n != m), None)
            if target is not None:
                graph[m].add(target)
    return graph


def stage_of(module: str) -> tuple[str, int]:
    """(package, stage) of an aurgen module: the longest ``STAGES`` key that is the module or a parent."""
    for key in sorted(STAGES, key=len, reverse=True):
        if module == key or module.startswith(key + "."):
            return key, STAGES[key]
    raise AssertionError(f"{module} is in no stage package: add it to STAGES (tests/test_layout.py)")


def upward_imports(graph) -> list[str]:
    """Every edge that breaks the stage rule, as 'a (package, stage) imports b (package, stage)'."""
    bad = []
    for m in sorted(graph):
        pm, sm = stage_of(m)
        for d in sorted(graph[m]):
            pd, sd = stage_of(d)
            if pd != pm and sd >= sm and pd != "aurgen":
                bad.append(f"{m} ({pm}, stage {sm}) imports {d} ({pd}, stage {sd})")
    return bad


def _cycle(graph) -> list[str] | None:
    """One cycle as a path of module names, or None (depth-first search, white/grey/black)."""
    colour, stack = {}, []

    def visit(v):
        colour[v] = 1
        stack.append(v)
        for w in sorted(graph[v]):
            if colour.get(w) == 1:
                return stack[stack.index(w):] + [w]
            if w not in colour:
                found = visit(w)
                if found:
                    return found
        stack.pop()
        colour[v] = 2
        return None

    for v in sorted(graph):
        if v not in colour:
            found = visit(v)
            if found:
                return found
    return None


def test_the_checker_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_cycles():
    graph = _graph()
    assert len(graph) > 30 and graph["aurgen.cli"], "the scan found the modules"
    assert _cycle(graph) is None, " -> ".join(_cycle(graph))


def test_the_stage_rule_finds_an_upward_import():
    """The rule itself: a lower package reaching up, or a sibling stage reached, is named."""
    graph = {"aurgen.core.files": {"aurgen.emit.build"}, "aurgen.emit.build": {"aurgen.core.files", "aurgen"},
             "aurgen.check.audit": {"aurgen.analysis.report"}, "aurgen.analysis.report": {"aurgen.emit.build"},
             "aurgen.runtime.sim": {"aurgen.compose.stamp"}, "aurgen.compose.stamp": {"aurgen.runtime.sim"},
             "aurgen": set()}
    assert upward_imports(graph) == [
        "aurgen.check.audit (aurgen.check, stage 5) imports aurgen.analysis.report (aurgen.analysis, stage 5)",
        "aurgen.core.files (aurgen.core, stage 0) imports aurgen.emit.build (aurgen.emit, stage 4)",
        "aurgen.runtime.sim (aurgen.runtime, stage 1) imports aurgen.compose.stamp (aurgen.compose, stage 3)",
    ]


def test_every_module_sits_in_a_stage_package():
    graph = _graph()
    assert {"aurgen.core.errors", "aurgen.emit.build", "aurgen.analysis.sweep", "aurgen.cli",
            "aurgen.runtime.sim"} <= set(graph), "the scan found the modules"
    top = sorted(m for m in graph if m.count(".") == 1 and m not in STAGES and not m.startswith("aurgen.runtime"))
    assert top == [], f"modules beside the stage packages: {top}"
    for m in graph:
        stage_of(m)


def test_imports_point_down_the_pipeline():
    bad = upward_imports(_graph())
    assert bad == [], "\n".join(bad)


def test_no_import_cycles():
    graph = _graph()
    assert len(graph) > 30 and graph["aurgen.cli"], "the scan found the modules"
    assert _cycle(graph) is None, " -> ".join(_cycle(graph))


def test_no_module_is_over_the_size_limit():
    long = {m: n for m, f in _modules().items()
            if (n := len(f.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}, f"modules over {MAX_LINES} lines: {long}"
