"""The docs are true: every code block a page shows runs here and prints what the page shows, or says why not.

The pages: README.md, every docs/**/*.md (the site's pages, docs/reference and docs/api included) and
vehicles/parts/README.md. Their code blocks follow one convention (docs/getting-started.md shows it):

- ```` ```console ````: a line starting ``$ `` is a command (a trailing ``\\`` continues it on the next
  line); the lines after it, up to the next ``$ `` line, are what it prints. ``...`` is a wildcard
  within a line, and a line that is ``...`` alone stands for any number of lines; blank lines and
  trailing spaces are not compared. A command shown with no output lines: its output is not checked.
- ```` ```sh ````: every non-blank line is a command (a trailing ``  # comment`` allowed, a ``#`` line
  is a comment, a trailing ``\\`` continues the line).
- ```` ```python ````: run with ``exec``; a ``print(...)  # prints TEXT`` comment is checked (TEXT is
  found in what the block printed).
- Other fences (yaml, text, xml, json, ...) are not run.

Each page's blocks run in the page's order in an empty folder of its own (a later block sees the files an
earlier one wrote; the Python blocks of a page share one namespace), aurgen commands through
``aurgen.cli.main`` (exit status 0, unless the block shows the output of one that fails). A block is run
unless the line directly before its opening fence is ``<!-- not run: REASON -->`` with a reason. A
console or sh block that cannot run here unmarked fails, naming the page and line: a command that is
not an aurgen command (``pip``, ``pytest``, a pipe or redirection, an ``X=1`` prefix), or an aurgen
command that cannot run here (``view`` opens a window, ``sitl`` waits for ArduPilot). Every aurgen
command a page shows, run or not, parses as the CLI parses it.

Besides: 4-space indented code blocks are not used; every Python name a page gives under ``aurgen``
resolves in the installed package; every file a doc, config or part cites exists in the repository and
every ``docs/sources.md §N`` names a section of it; no user doc cites an internal tracker number; the
site's nav (mkdocs.yml) and docs/ hold the same pages; the CLI reference (docs/hooks/cli_reference.py)
names every command and option of the real parser."""

from __future__ import annotations

import importlib.util
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from aurgen.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.rglob("*.md")), ROOT / "vehicles" / "parts" / "README.md"]
USER_DOCS = PAGES
CITING = USER_DOCS + sorted(ROOT.glob("vehicles/**/*.yaml")) + sorted(ROOT.glob("worlds/*.yaml")) + \
    sorted(ROOT.glob("sweeps/*.yaml")) + sorted((ROOT / "aurgen").rglob("*.py")) + sorted((ROOT / "runtime").rglob("*.py"))
# aurgen commands that cannot run in a test, and why (a block showing one is marked `not run`)
NOT_HERE = {"view": "opens the MuJoCo viewer (a window)", "sitl": "serves until ArduPilot's SITL connects and stops"}
# the languages that are run (sh's other names are held to sh's rule, so none slips by unchecked)
SHELL = {"console", "sh", "bash", "shell", "zsh"}
PYTHON = {"python", "py", "python3"}
MARKER = re.compile(r"<!--\s*not run:(.*?)-->")
FENCE = re.compile(r"^(?P<indent> {0,12})(?P<fence>`{3,}|~{3,})\s*(?P<info>[^`]*)$")
SHELL_SYNTAX = re.compile(r"[|&;<>]|\$\(|`")
# a pymdownx.snippets line: the site shows the file there (mkdocs.yml: base_path is the repository's root)
SNIPPET = re.compile(r"""^\s*-{1,}8<-{1,}\s+["']([^"']+)["']\s*$""")


def _rel(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


@dataclass
class Command:
    line: int          # 1-based line in the page
    text: str          # the command as written (continuations joined)
    expected: list[str] | None  # console: the lines shown after it (None: none shown)


@dataclass
class Block:
    page: Path
    line: int          # 1-based line of the opening fence
    lang: str
    lines: list[str]
    reason: str | None  # the `not run` reason (None: no marker; "": a marker without a reason)

    @property
    def where(self) -> str:
        return f"{_rel(self.page)}:{self.line}"

    @property
    def runs(self) -> bool:
        return self.reason is None and self.lang in SHELL | PYTHON

    def commands(self) -> list[Command]:
        """The shell commands of a console or sh block."""
        out: list[Command] = []
        if self.lang == "console":
            lines = iter(enumerate(self.lines, self.line + 1))
            for n, ln in lines:
                if ln.startswith("$ ") or ln == "$":
                    text = ln[2:]
                    while text.endswith("\\"):
                        text = text[:-1] + " " + next(lines, (n, ""))[1].removeprefix("> ")
                    out.append(Command(n, text.strip(), None))
                elif out:
                    out[-1].expected = (out[-1].expected or []) + [ln]
            for c in out:
                if c.expected is not None and not any(e.strip() for e in c.expected):
                    c.expected = None
            return out
        lines = iter(enumerate(self.lines, self.line + 1))
        for n, ln in lines:
            if not ln.strip() or ln.lstrip().startswith("#"):
                continue
            text = ln
            while text.rstrip().endswith("\\"):
                text = text.rstrip()[:-1] + " " + next(lines, (n, ""))[1].strip()
            out.append(Command(n, text.strip(), None))
        return out


def blocks(page: Path) -> list[Block]:
    """Every fenced code block of ``page``, in order."""
    text = page.read_text(encoding="utf-8").splitlines()
    out, i = [], 0
    while i < len(text):
        m = FENCE.match(text[i])
        if not m:
            i += 1
            continue
        indent, fence = len(m.group("indent")), m.group("fence")
        info = m.group("info").strip().lstrip("{").lstrip(".")
        lang = re.split(r"[\s{}]", info, maxsplit=1)[0].lower() if info else ""
        before = text[i - 1].strip() if i else ""
        marker = MARKER.fullmatch(before)
        body, j = [], i + 1
        close = re.compile(rf"^ {{0,{indent + 3}}}{re.escape(fence[0])}{{{len(fence)},}}\s*$")
        while j < len(text) and not close.match(text[j]):
            body.append(text[j][indent:] if text[j][:indent].strip() == "" else text[j].lstrip())
            j += 1
        out.append(Block(page, i + 1, lang, body, marker.group(1).strip() if marker else None))
        i = j + 1
    return out


BLOCKS = {page: blocks(page) for page in PAGES}


def _argv(command: Command) -> list[str] | None:
    """The aurgen arguments of ``command``, or None when it is not a plain aurgen command."""
    if SHELL_SYNTAX.search(re.sub(r"\s+#.*$", "", command.text)):
        return None
    try:
        words = shlex.split(command.text, comments=True)
    except ValueError:
        return None
    return words[1:] if words and words[0] == "aurgen" else None


def why_not_runnable(block: Block) -> str | None:
    """Why the console or sh ``block`` cannot run here (None: it can)."""
    for c in block.commands():
        argv = _argv(c)
        if argv is None:
            return f"line {c.line}: `{c.text}` is not an aurgen command"
        if argv and argv[0] in NOT_HERE:
            return f"line {c.line}: `{c.text}`: aurgen {argv[0]} {NOT_HERE[argv[0]]}"
    return None


# ----- the convention ------------------------------------------------------------------------------


def test_the_pages_have_runnable_blocks():
    """The parser finds what the pages hold (guards the checks below against finding nothing)."""
    found = [b for bs in BLOCKS.values() for b in bs]
    assert sum(b.runs for b in found) >= 10, [b.where for b in found]
    assert sum(b.lang in SHELL for b in found) >= 10


@pytest.mark.parametrize("page", PAGES, ids=_rel)
def test_every_block_runs_or_says_why_not(page):
    problems = []
    for b in BLOCKS[page]:
        if b.reason == "":
            problems.append(f"{b.where}: `<!-- not run: -->` gives no reason")
        for n, ln in enumerate(b.lines, b.line + 1):
            embeds = SNIPPET.match(ln)
            if embeds and not (ROOT / embeds.group(1)).is_file():
                problems.append(f"{_rel(page)}:{n}: embeds {embeds.group(1)}, which is not in the repository")
            if embeds and b.runs:
                problems.append(f"{_rel(page)}:{n}: a ```{b.lang} block embedding {embeds.group(1)} is not run here: "
                                "mark it <!-- not run: REASON --> (e.g. run by tests/test_examples.py)")
        if b.lang in SHELL and b.reason is None:
            why = why_not_runnable(b)
            if why:
                problems.append(f"{b.where}: a ```{b.lang} block that cannot run here ({why}): mark it "
                                "<!-- not run: REASON --> on the line before the fence")
    lines = page.read_text(encoding="utf-8").splitlines()
    fences = {b.line for b in BLOCKS[page]}
    for n, ln in enumerate(lines, 1):
        if MARKER.fullmatch(ln.strip()) and n + 1 not in fences:
            problems.append(f"{_rel(page)}:{n}: a `not run` marker not directly before a code block's fence")
    assert not problems, "\n".join(problems)


def _indented_blocks(text: str) -> list[int]:
    """Lines opening an indented code block outside fences: after a blank line, indented 4 spaces past
    the text it would continue (a list item's text, or the margin)."""
    out, fenced, prev, content = [], False, "", 0
    for n, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            prev = "x"
            continue
        if fenced:
            continue
        indent = len(line) - len(line.lstrip(" "))
        item = re.match(r"\s*(?:[-*+]|\d+\.)\s+", line)
        if line.strip() and prev == "" and indent >= content + 4:
            out.append(n)
        elif item:
            content = len(item.group(0))
        elif line.strip() and indent < content:
            content = 0 if indent == 0 else content
        if line.strip() and indent == 0 and not item:
            content = 0
        prev = line.strip()
    return out


@pytest.mark.parametrize("page", PAGES, ids=_rel)
def test_no_indented_code_blocks(page):
    """Code goes in fenced blocks with a language (the convention above), never in an indented block."""
    lines = _indented_blocks(page.read_text(encoding="utf-8"))
    assert not lines, f"{_rel(page)}: 4-space indented code blocks at lines {lines}: fence them (```text, ```sh, ...)"


def _aurgen_commands():
    out = []
    for page, bs in BLOCKS.items():
        for b in bs:
            if b.lang in SHELL:
                out += [pytest.param(_argv(c), id=f"{_rel(page)}:{c.line}") for c in b.commands() if _argv(c) is not None]
    return out


@pytest.mark.parametrize("argv", _aurgen_commands())
def test_every_aurgen_command_shown_parses(argv):
    """Run or not, every aurgen command a page shows is one the CLI takes (argparse exits 2 on an
    option that does not exist)."""
    if argv in (["--help"], ["-h"], ["--version"]):
        return
    build_parser(argv[0] if argv else None).parse_args(argv)


# ----- running the pages ---------------------------------------------------------------------------


def matches(expected: list[str], got: list[str]) -> bool:
    """``got`` is what ``expected`` shows: ``...`` a wildcard within a line, ``...`` alone any number of
    lines; blank lines and trailing spaces not compared."""
    want = [e.rstrip() for e in expected if e.strip()]
    have = "".join(g.rstrip() + "\n" for g in got if g.strip())
    pattern = "".join(r"(?:[^\n]*\n)*?" if w.strip() == "..." else
                      "[^\n]*".join(map(re.escape, w.split("..."))) + r"\n" for w in want)
    return re.fullmatch(pattern, have) is not None


def _run_aurgen(argv, capsys):
    try:
        status = main(argv)
    except SystemExit as exc:  # --help, --version, argparse's usage errors
        status = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    return status, out, err


def _needs(code: str) -> str | None:
    """The optional package a Python block needs and this environment lacks, if any."""
    for module, extra in (("gymnasium", "scale"), ("mujoco_warp", "gpu"), ("ray", "scale")):
        uses = module in code or (module == "gymnasium" and "aurgen.gym" in code)
        if uses and importlib.util.find_spec(module) is None:
            return f"{module} (the {extra} extra)"
    return None


def runs_here(b: Block) -> bool:
    """``b`` is run by the test of its page (the convention's test fails for the unmarked blocks that are not)."""
    return b.runs and not (b.lang in SHELL and why_not_runnable(b)) and not any(SNIPPET.match(ln) for ln in b.lines)


RUN_PAGES = [page for page in PAGES if any(runs_here(b) for b in BLOCKS[page])]


@pytest.mark.parametrize("page", RUN_PAGES, ids=_rel)
def test_page_blocks_run_and_print_what_the_page_shows(page, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    namespace = {"__name__": "__doc__"}
    skipped, ran = [], 0
    for b in BLOCKS[page]:
        if not runs_here(b):
            continue
        if b.lang in PYTHON:
            code = "\n".join(b.lines) + "\n"
            missing = _needs(code)
            if missing:
                skipped.append(f"{b.where} needs {missing}")
                continue
            capsys.readouterr()
            exec(compile(code, b.where, "exec"), namespace)
            printed = capsys.readouterr().out
            for shown in re.findall(r"print\(.*\)\s+# prints (.+?)(?: \(|$)", code, re.M):
                assert shown in printed, f"{b.where}: prints\n{printed}\nnot {shown!r} as the page shows"
            ran += 1
            continue
        for c in b.commands():
            argv = _argv(c)
            status, out, err = _run_aurgen(argv, capsys)
            where = f"{_rel(page)}:{c.line}: `{c.text}`"
            if c.expected is None:
                assert status == 0, f"{where} exited {status}:\n{err}"
            else:
                shown = matches(c.expected, out.splitlines()) or matches(c.expected, (out + err).splitlines())
                assert shown, f"{where} prints\n{out}{err}\nthe page shows\n" + "\n".join(c.expected)
                assert status == 0 or any("error" in e for e in c.expected), f"{where} exited {status}:\n{err}"
            ran += 1
    assert ran or skipped
    if skipped:
        pytest.skip(f"ran {ran} blocks and commands; not " + "; ".join(skipped))


# ----- what the pages name -------------------------------------------------------------------------


# dotted names in the docs that are not Python paths: the MuJoCo plugin's name
NOT_PYTHON = {"aurgen.hydrostatics"}


def _doc_imports():
    """(doc, dotted name) for every Python name a user doc gives under aurgen: written out
    (``aurgen.runtime.sim.Simulation``), imported (``from aurgen.runtime import mjwarp``) or
    documented (``::: aurgen.gym.MarineVectorEnv`` on the API pages)."""
    out = set()
    for doc in USER_DOCS:
        text = doc.read_text(encoding="utf-8")
        for m in re.finditer(r"\bfrom (aurgen(?:\.\w+)*) import \(?([\w, ]+)", text):
            out |= {(_rel(doc), f"{m.group(1)}.{n.split(' as ')[0].strip()}") for n in m.group(2).split(",") if n.strip()}
        for m in re.finditer(r"(?<![\w/.-])aurgen(?:\.[A-Za-z_]\w*)+", text):
            if m.group(0) not in NOT_PYTHON and not re.match(r"\.(?:yaml|xml|sdf|urdf|md|py|so)\b", text[m.end():]) \
                    and not m.group(0).endswith((".yaml", ".xml", ".py", ".md")):
                out.add((_rel(doc), m.group(0)))
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
            "aurgen.runtime.hydrostatics", "aurgen.runtime.sim.health.health_of", "aurgen.gym.MarineVectorEnv",
            "aurgen.runtime.environment.schema", "aurgen.runtime.sitl.server"} <= names, sorted(names)


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
# what only the pages cite (in code, `examples/` is as often another project's folder)
_CITE_PAGES = re.compile(r"(?<![\w/.])(examples/[\w./-]*\w\.(?:md|py|yaml|txt|sh)|CHANGELOG\.md)")


def _cited(path: Path):
    text = path.read_text(encoding="utf-8")
    for m in re.finditer(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text) if path.suffix == ".md" else ():
        if not re.match(r"\w+://|mailto:", m.group(1)):
            yield m.group(1), (path.parent / m.group(1))
    for m in [*_CITE.finditer(text), *(_CITE_PAGES.finditer(text) if path in PAGES else ())]:
        rel = m.group(1)
        if rel.startswith("aurgen/runtime/"):  # installed as aurgen.runtime, in the tree as runtime/
            rel = rel[len("aurgen/"):]
        yield rel, ROOT / rel


@pytest.mark.parametrize("path", CITING, ids=[_rel(p) for p in CITING])
def test_every_cited_file_exists(path):
    missing = sorted({c for c, p in _cited(path) if not p.exists() and not p.name.startswith("my_")})
    assert not missing, f"{_rel(path)} cites files not in the repository: {missing}"
    text = path.read_text(encoding="utf-8")
    assert "bluerobotics_facts" not in text, "cite docs/sources.md, which users have"
    sections = set(re.findall(r"^## (\d+)\.", (DOCS / "sources.md").read_text(encoding="utf-8"), re.M))
    for sec in re.findall(r"docs/sources\.md\)?,? *§(\d)", text):
        assert sec in sections, f"{_rel(path)}: docs/sources.md has no section {sec}"


@pytest.mark.parametrize("path", USER_DOCS, ids=_rel)
def test_no_tracker_numbers_in_user_docs(path):
    text = path.read_text(encoding="utf-8")
    assert not re.findall(r"\bissues?\s+#?\d+", text), "internal tracker numbers mean nothing to a user"
    assert "../shared" not in text, "users have no ../shared: cite what the repository holds"


# ----- the site ------------------------------------------------------------------------------------


def _nav_pages(nav) -> list[str]:
    out = []
    for item in nav:
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict):
            for v in item.values():
                out += _nav_pages(v) if isinstance(v, list) else [v]
    return out


def test_the_site_nav_and_the_pages_agree():
    """mkdocs.yml's nav names every page under docs/ (mkdocs build --strict refuses one left out) and
    only pages that are there."""
    nav = _nav_pages(yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))["nav"])
    pages = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    assert len(nav) == len(set(nav)), "a page twice in the nav"
    assert not pages - set(nav), f"pages not in mkdocs.yml's nav: {sorted(pages - set(nav))}"
    assert not set(nav) - pages, f"mkdocs.yml's nav names pages docs/ does not hold: {sorted(set(nav) - pages)}"


def _hook(name: str):
    spec = importlib.util.spec_from_file_location(f"docs_hook_{name}", DOCS / "hooks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _help(argv, capsys) -> str:
    """What ``aurgen ARGV --help`` prints."""
    with pytest.raises(SystemExit) as exited:
        main([*argv, "--help"])
    assert exited.value.code == 0
    return capsys.readouterr().out


def test_the_cli_reference_names_every_command_and_option(capsys):
    """The generated reference has a section per subcommand holding its usage and every option
    string and positional ``aurgen COMMAND --help`` prints (read from the help text, not from the
    parser's internals the generator walks)."""
    hook = _hook("cli_reference")
    text = hook.reference(build_parser())
    assert hook.MARKER in (DOCS / hook.PAGE).read_text(encoding="utf-8")
    top = _help([], capsys)
    commands = re.findall(r"^    (\w+)\s{2,}\S", top.split("positional arguments:")[1], re.M)
    assert len(commands) >= 10, top
    sections = dict(re.findall(r"^## aurgen (\w+)\n(.*?)(?=^## |\Z)", text, re.M | re.S))
    assert list(sections) == commands
    for command in commands:
        help_text = _help([command], capsys).split(f"usage: aurgen {command}")[1]
        options = set(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", help_text.split("options:")[1]))
        positionals = re.findall(r"^  (\w+)\s", help_text.split("positional arguments:")[1].split("options:")[0], re.M) \
            if "positional arguments:" in help_text else []
        assert "--help" in options and positionals or command == "catalog", help_text
        section = sections[command]
        missing = sorted(o for o in options if f"`{o}`" not in section) + \
            sorted(p for p in positionals if f"`{p}`" not in section)
        assert not missing, f"the CLI reference's aurgen {command} does not name {missing}"
        assert f"usage: aurgen {command}" in section


def test_the_parts_page_links_from_its_place_on_the_site():
    """vehicles/parts/README.md on the site (docs/reference/parts.md): its links into docs/ point from
    the page's place, and each resolves there."""
    hook = _hook("parts_catalog")
    assert hook.MARKER in (DOCS / hook.PAGE).read_text(encoding="utf-8")
    source = (ROOT / hook.SOURCE).read_text(encoding="utf-8")
    text = hook.rewritten(source, ROOT)
    links = re.findall(r"\]\(([^)#\s]+)", text)
    assert links, text
    for link in links:
        assert (DOCS / Path(hook.PAGE).parent / link).resolve().is_file(), link
        assert (DOCS / Path(hook.PAGE).parent / link).resolve().is_relative_to(DOCS.resolve()), link
