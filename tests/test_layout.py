"""The layout's rules (../shared/design/architecture.md), checked on the source.

- The import graph of aurgen and aurgen.runtime has no cycle, counting the imports
  inside functions too (a lazy import still ties two modules together: build and
  worlds once imported each other).
- The runtime reads only the edges of aurgen: its errors, its one writer, its
  version and its record decorator (aurgen.records, standard library only); never the
  composition or the emitters (it reads what they wrote).
"""

from __future__ import annotations

import ast
from pathlib import Path

import aurgen
import aurgen.runtime

PKG = Path(aurgen.__file__).resolve().parent
RUNTIME = Path(aurgen.runtime.__file__).resolve().parent  # runtime/ in a checkout, aurgen/runtime installed
RUNTIME_MAY_IMPORT = {"aurgen", "aurgen.errors", "aurgen.files", "aurgen.records"}


def _modules() -> dict[str, Path]:
    out = {}
    for name, folder in (("aurgen", PKG), ("aurgen.runtime", RUNTIME)):
        for f in folder.glob("*.py"):
            out[name if f.stem == "__init__" else f"{name}.{f.stem}"] = f
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


def test_runtime_reads_only_the_edges_of_aurgen():
    for m, deps in _graph().items():
        if m.startswith("aurgen.runtime"):
            outside = {d for d in deps if not d.startswith("aurgen.runtime")} - RUNTIME_MAY_IMPORT
            assert not outside, f"{m} imports {sorted(outside)}"


def test_the_edges_the_runtime_reads_import_nothing_of_aurgen():
    """What the runtime may import stays an edge: it imports nothing of aurgen but other edges."""
    graph = _graph()
    for m in RUNTIME_MAY_IMPORT:
        assert graph[m] <= RUNTIME_MAY_IMPORT, f"{m} imports {sorted(graph[m] - RUNTIME_MAY_IMPORT)}"
