"""The docs are true (issue 28): README's console examples parse as the CLI parses them, the runnable ones run
here (from an empty folder, in order) and print what the docs show where they show it (``...`` a wildcard
within a line); the docs' Python blocks run (a ``# prints TEXT`` comment on a print is checked); every file a
doc, config or part cites exists in the repository, every ``docs/sources.md §N`` names a section of it, and
no user doc cites a file users do not have or an internal tracker number."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import re
import shlex
from pathlib import Path

import pytest

from aurgen.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[1]
USER_DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "vehicles" / "parts" / "README.md"]
CITING = USER_DOCS + sorted(ROOT.glob("vehicles/**/*.yaml")) + sorted(ROOT.glob("worlds/*.yaml")) + \
    sorted(ROOT.glob("sweeps/*.yaml")) + sorted((ROOT / "aurgen").rglob("*.py")) + sorted((ROOT / "runtime").rglob("*.py"))
# commands run here: fast, on bundled configs and the files earlier examples wrote (the rest only parse)
RUN = {"specs", "catalog", "build", "worlds", "audit", "sim"}
USER_FILES = ("my_", "my/", "v.yaml", "/mnt/")


def _blocks(text: str):
    """(preceding paragraph, lines) of each 4-space indented block outside fenced code."""
    out, para, block, fenced = [], [], None, False
    for line in text.splitlines() + [""]:
        if line.startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        if line.startswith("    ") and (block is not None or not para or para[-1] == ""):
            if block is None:
                block = []
            block.append(line[4:])
            continue
        if block is not None:
            out.append((" ".join(p for p in para if p).strip(), block))
            block, para = None, []
        para = [] if line == "" and not para else para + [line]
        para = para[-6:]
    return out


def _examples():
    """(command, expected output lines or None) for every console example in README.md."""
    out = []
    for before, lines in _blocks((ROOT / "README.md").read_text(encoding="utf-8")):
        shown = re.search(r"`(aurgen [^`]+)` prints:$", before)
        if shown:
            out.append((shown.group(1), lines))
            continue
        if lines[0].startswith("$ aurgen "):
            out.append((lines[0][2:], [ln for ln in lines[1:] if ln]))
            continue
        for ln in lines:
            if ln.startswith("aurgen "):
                out.append((ln.split("  #")[0].strip(), None))
    return out


EXAMPLES = _examples()


def test_the_readme_has_examples_with_output():
    assert len(EXAMPLES) > 15 and sum(e is not None for _, e in EXAMPLES) >= 2


@pytest.mark.parametrize("command", sorted({c for c, _ in EXAMPLES}))
def test_every_console_example_parses(command):
    argv = shlex.split(command)[1:]
    only = argv[0] if argv else None
    build_parser(only).parse_args(argv)  # SystemExit(2) on an option that does not exist


def _matches(expected: list[str], got: list[str]) -> bool:
    if len(expected) != len(got):
        return False
    return all(re.fullmatch(".*".join(map(re.escape, e.split("..."))), g) for e, g in zip(expected, got))


def test_runnable_examples_run_and_print_what_the_docs_show(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    ran = 0
    for command, expected in EXAMPLES:
        argv = shlex.split(command)[1:]
        if argv[0] not in RUN or "--all" in argv or any(u in command for u in USER_FILES):
            continue
        status = main(argv)
        out, err = capsys.readouterr()
        assert status == 0, (command, err)
        ran += 1
        if expected is not None:
            assert _matches(expected, out.splitlines()), f"{command} prints:\n{out}\nthe docs show:\n" + \
                "\n".join(expected)
    assert ran >= 8


def _python_blocks():
    out = []
    for doc in USER_DOCS:
        for m in re.finditer(r"```python\n(.*?)```", doc.read_text(encoding="utf-8"), re.S):
            out.append(pytest.param(m.group(1), id=f"{doc.name}:{doc.read_text()[:m.start()].count(chr(10)) + 1}"))
    return out


@pytest.mark.parametrize("code", _python_blocks())
def test_python_blocks_run(code, tmp_path, monkeypatch):
    if "aurgen.gym" in code and importlib.util.find_spec("gymnasium") is None:
        pytest.skip("gymnasium is not installed")
    monkeypatch.chdir(tmp_path)
    if "build/worlds/open_water.xml" in code:
        assert main(["worlds", "open_water"]) == 0
    if "build/blueboat/blueboat.xml" in code:
        assert main(["build", "blueboat.yaml"]) == 0
    if "mujoco_warp" in code and importlib.util.find_spec("mujoco_warp") is None:
        pytest.skip("mujoco-warp is not installed (the gpu extra)")
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(compile(code, "<doc>", "exec"), {"__name__": "__doc__"})
    for shown in re.findall(r"print\(.*\)\s+# prints (.+?)(?: \(|$)", code, re.M):
        assert shown in buf.getvalue(), (shown, buf.getvalue())


# dotted names in the docs that are not Python paths: the MuJoCo plugin's name
NOT_PYTHON = {"aurgen.hydrostatics"}


def _doc_imports():
    """(doc, dotted name) for every Python name a user doc gives under aurgen: written out
    (``aurgen.runtime.sim.Simulation``) or imported (``from aurgen.runtime import mjwarp``)."""
    out = set()
    for doc in USER_DOCS:
        text = doc.read_text(encoding="utf-8")
        for m in re.finditer(r"\bfrom (aurgen(?:\.\w+)*) import \(?([\w, ]+)", text):
            out |= {(doc.name, f"{m.group(1)}.{n.split(' as ')[0].strip()}") for n in m.group(2).split(",") if n.strip()}
        for m in re.finditer(r"(?<![\w/.-])aurgen(?:\.[A-Za-z_]\w*)+", text):
            if m.group(0) not in NOT_PYTHON and not re.match(r"\.(?:yaml|xml|sdf|urdf|md|py|so)\b", text[m.end():]) \
                    and not m.group(0).endswith((".yaml", ".xml", ".py", ".md")):
                out.add((doc.name, m.group(0)))
    return sorted(out)


def _resolve(name: str):
    """The object a dotted name names: the longest importable module prefix, then attributes."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ModuleNotFoundError:
            continue
        for attr in parts[i:]:
            obj = getattr(obj, attr)
        return obj
    raise ModuleNotFoundError(name)


DOC_IMPORTS = _doc_imports()


# the paths the docs gave before the runtime moved into rooms: users' code imports them, so they stay
EARLIER_PATHS = ("aurgen.runtime.sim.Simulation", "aurgen.runtime.sim.register_engine", "aurgen.runtime.sim.SimulationError",
                 "aurgen.runtime.health.health_of", "aurgen.runtime.health.find_instance", "aurgen.runtime.mjwarp.put_model",
                 "aurgen.runtime.mjwarp.plain_model", "aurgen.runtime.mjwarp.MjWarpRefused", "aurgen.runtime.waves.synthesize",
                 "aurgen.runtime.waves.elevation", "aurgen.runtime.hydrostatics.Geom", "aurgen.runtime.hydrostatics.clip",
                 "aurgen.runtime.hydrostatics.equilibrium", "aurgen.runtime.env.parse", "aurgen.runtime.plugin.load",
                 "aurgen.runtime._native")


def test_the_docs_name_python_paths():
    names = {n for _, n in DOC_IMPORTS}
    assert {"aurgen.runtime.sim.Simulation", "aurgen.runtime.mjwarp.put_model", "aurgen.runtime.environment.waves.synthesize",
            "aurgen.runtime.hydrostatics", "aurgen.runtime.sim.health.health_of"} <= names, sorted(names)


@pytest.mark.parametrize("name", EARLIER_PATHS)
def test_the_earlier_documented_paths_still_resolve(name):
    """``import aurgen.runtime.waves`` and friends still work, and are the objects the new homes hold."""
    if "mjwarp" in name and importlib.util.find_spec("warp") is None:
        pytest.skip("the gpu extra is not installed")
    obj = _resolve(name)
    moved = {"aurgen.runtime.health.": "aurgen.runtime.sim.health.", "aurgen.runtime.waves.": "aurgen.runtime.environment.waves.",
             "aurgen.runtime.env.": "aurgen.runtime.environment.schema."}
    for before, after in moved.items():
        if name.startswith(before):
            assert _resolve(after + name[len(before):]) is obj


@pytest.mark.parametrize("doc,name", DOC_IMPORTS, ids=[f"{d}:{n}" for d, n in DOC_IMPORTS])
def test_every_import_the_docs_give_resolves(doc, name):
    """Every module path and name README and docs/ give resolves in the installed aurgen (the gpu
    and scale extras' names skip where those are not installed)."""
    if "mjwarp" in name and importlib.util.find_spec("warp") is None:
        pytest.skip("the gpu extra is not installed")
    if name.startswith("aurgen.gym") and importlib.util.find_spec("gymnasium") is None:
        pytest.skip("gymnasium is not installed")
    _resolve(name)


_CITE = re.compile(r"(?<![\w/.])((?:\.ci|docs|tests|aurgen|bench|runtime|vehicles|worlds|sweeps|templates)/"
                   r"[\w./-]*\w\.(?:md|py|yaml|cc|c|cpp|h|toml|j2|txt|sh)|\.ci/\w+)")


def _cited(path: Path):
    text = path.read_text(encoding="utf-8")
    for m in re.finditer(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text) if path.suffix == ".md" else ():
        if not re.match(r"\w+://|mailto:", m.group(1)):
            yield m.group(1), (path.parent / m.group(1))
    for m in _CITE.finditer(text):
        rel = m.group(1)
        if rel.startswith("aurgen/runtime/"):  # installed as aurgen.runtime, in the tree as runtime/
            rel = rel[len("aurgen/"):]
        yield rel, ROOT / rel


@pytest.mark.parametrize("path", CITING, ids=[str(p.relative_to(ROOT)) for p in CITING])
def test_every_cited_file_exists(path):
    missing = sorted({c for c, p in _cited(path) if not p.exists() and not p.name.startswith("my_")})
    assert not missing, f"{path.relative_to(ROOT)} cites files not in the repository: {missing}"
    text = path.read_text(encoding="utf-8")
    assert "bluerobotics_facts" not in text, "cite docs/sources.md, which users have"
    sections = set(re.findall(r"^## (\d+)\.", (ROOT / "docs" / "sources.md").read_text(encoding="utf-8"), re.M))
    for sec in re.findall(r"docs/sources\.md\)?,? *§(\d)", text):
        assert sec in sections, f"{path.relative_to(ROOT)}: docs/sources.md has no section {sec}"


@pytest.mark.parametrize("path", USER_DOCS, ids=[p.name for p in USER_DOCS])
def test_no_tracker_numbers_in_user_docs(path):
    text = path.read_text(encoding="utf-8")
    assert not re.findall(r"\bissues?\s+#?\d+", text), "internal tracker numbers mean nothing to a user"
