"""The layout's rules (../shared/design/architecture.md, docs/architecture.md), checked on the source.

- aurgen is in stage packages whose imports point one way, down the pipeline:
  core → config → compose → emit → {check, analysis} → gym → cli (``STAGES``: a
  module may import its own package and any package of a lower stage, never one of
  its own stage or above; check and analysis share a stage and never import each
  other).  The runtime (aurgen.runtime) sits just above core: it reads only the edges
  of aurgen (the core package and the version), never the composition or the emitters
  (it reads what they wrote).
- Inside the runtime, rooms by concern (docs/architecture.md "The runtime"), ``ROOMS``: the root
  (aurgen.runtime: the compiled core, the plugin's loader) imports no room; the static
  hydrostatics and the environment import only the root; the simulation imports those, never
  the MuJoCo Warp backend or the ArduPilot bridge; the Warp backend imports the statics and the
  environment, never the simulation; the bridge drives a simulation. And from aurgen, ``USERS``:
  only a room's users import it (the analyses, gym and the CLI the simulation; gym alone the Warp
  backend). The documented old paths (``SHIMS``) are for users: no module of aurgen imports one.
- The import graph of aurgen and aurgen.runtime has no cycle, counting the imports
  inside functions too (a lazy import still ties two modules together: build and
  worlds once imported each other).
- No module is over ``MAX_LINES`` lines.
"""

from __future__ import annotations

import ast
import importlib
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
# the runtime's rooms and what each may import of the others (the root is aurgen.runtime itself:
# runtime/__init__.py, plugin.py, the compiled _native)
ROOMS = {
    "aurgen.runtime": set(),
    "aurgen.runtime.hydrostatics": {"aurgen.runtime"},
    "aurgen.runtime.environment": {"aurgen.runtime"},
    "aurgen.runtime.sim": {"aurgen.runtime", "aurgen.runtime.hydrostatics", "aurgen.runtime.environment"},
    "aurgen.runtime.mjwarp": {"aurgen.runtime", "aurgen.runtime.hydrostatics", "aurgen.runtime.environment"},
    "aurgen.runtime.sitl": {"aurgen.runtime", "aurgen.runtime.hydrostatics", "aurgen.runtime.environment",
                            "aurgen.runtime.sim"},
}
# the rooms only some of aurgen's packages may import (the others: any stage package above the runtime)
USERS = {
    "aurgen.runtime.sim": {"aurgen.analysis", "aurgen.gym", "aurgen.cli"},
    "aurgen.runtime.mjwarp": {"aurgen.gym"},
    "aurgen.runtime.sitl": {"aurgen.cli"},
}
# the documented old import paths, each the same module object as its new home (runtime/env.py ...)
SHIMS = {"aurgen.runtime.env", "aurgen.runtime.waves", "aurgen.runtime.health"}


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


def room_of(module: str) -> str | None:
    """The runtime room of a module (the longest ``ROOMS`` key that is it or a parent), or None."""
    for key in sorted(ROOMS, key=len, reverse=True):
        if module == key or module.startswith(key + "."):
            return key
    return None


def wrong_way_imports(graph) -> list[str]:
    """Every edge that breaks the runtime's room rules or reaches a room from outside its users."""
    bad = []
    for m in sorted(graph):
        rm = room_of(m)
        for d in sorted(graph[m]):
            if d in SHIMS and m not in SHIMS:
                bad.append(f"{m} imports {d}, a documented old path kept for users: import its new home")
                continue
            rd = room_of(d)
            if rd is None or m in SHIMS:
                continue
            if rm is not None:
                if rd != rm and rd not in ROOMS[rm]:
                    bad.append(f"{m} (room {rm}) imports {d} (room {rd})")
            elif rd in USERS and stage_of(m)[0] not in USERS[rd]:
                bad.append(f"{m} ({stage_of(m)[0]}) imports {d} (room {rd}, for {sorted(USERS[rd])} only)")
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


def test_the_room_rule_finds_a_wrong_way_import():
    """The rule itself, on a made-up graph: the simulation reaching the Warp backend, the Warp
    backend reaching the simulation, the statics reaching the environment, a report reaching the
    Warp backend, and aurgen's own code using an old path are each named; the right ways are not."""
    graph = {"aurgen.runtime.sim.plan": {"aurgen.runtime.mjwarp.host", "aurgen.runtime.hydrostatics.geoms"},
             "aurgen.runtime.mjwarp.host": {"aurgen.runtime.sim.health", "aurgen.runtime.environment.schema"},
             "aurgen.runtime.hydrostatics.cells": {"aurgen.runtime.environment.waves", "aurgen.runtime.plugin"},
             "aurgen.runtime.sitl.bridge": {"aurgen.runtime.sim.simulation"},
             "aurgen.analysis.report": {"aurgen.runtime.mjwarp.host", "aurgen.runtime.sim.simulation"},
             "aurgen.gym.warp": {"aurgen.runtime.mjwarp", "aurgen.runtime.waves"},
             "aurgen.runtime.waves": {"aurgen.runtime.environment.waves"}}
    assert wrong_way_imports(graph) == [
        "aurgen.analysis.report (aurgen.analysis) imports aurgen.runtime.mjwarp.host "
        "(room aurgen.runtime.mjwarp, for ['aurgen.gym'] only)",
        "aurgen.gym.warp imports aurgen.runtime.waves, a documented old path kept for users: import its new home",
        "aurgen.runtime.hydrostatics.cells (room aurgen.runtime.hydrostatics) imports "
        "aurgen.runtime.environment.waves (room aurgen.runtime.environment)",
        "aurgen.runtime.mjwarp.host (room aurgen.runtime.mjwarp) imports aurgen.runtime.sim.health (room aurgen.runtime.sim)",
        "aurgen.runtime.sim.plan (room aurgen.runtime.sim) imports aurgen.runtime.mjwarp.host (room aurgen.runtime.mjwarp)",
    ]


def test_the_runtime_is_in_rooms():
    """Every runtime module is in a room package (or is the root's own, or a documented old path),
    and the rooms exist."""
    graph = _graph()
    runtime = sorted(m for m in graph if m.startswith("aurgen.runtime"))
    stray = [m for m in runtime if room_of(m) == "aurgen.runtime" and m not in SHIMS
             and m not in ("aurgen.runtime", "aurgen.runtime.plugin", "aurgen.runtime._build_info")]
    assert stray == [], f"runtime modules outside the rooms: {stray}"
    for room in ROOMS:
        if room != "aurgen.runtime.sitl" or any(m.startswith("aurgen.runtime.sitl") for m in runtime):
            assert room in graph, f"{room} has no package"
    for shim in SHIMS:
        mod = importlib.import_module(shim)
        assert mod.__name__ != shim and room_of(mod.__name__) != "aurgen.runtime", shim


def test_runtime_imports_go_the_right_way():
    bad = wrong_way_imports(_graph())
    assert bad == [], "\n".join(bad)


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


def test_no_module_is_over_the_size_limit():
    long = {m: n for m, f in _modules().items()
            if (n := len(f.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}, f"modules over {MAX_LINES} lines: {long}"
