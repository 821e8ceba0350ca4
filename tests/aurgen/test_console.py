"""The ``aurgen`` console entry: MuJoCo's GL probe is skipped for every command but ``view``."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from aurgen import cli


@pytest.mark.parametrize("argv, user, want", [
    (["specs", "blueboat.yaml"], None, "disable"),
    (["build", "--all", "-o", "out"], None, "disable"),
    (["--version"], None, "disable"),
    (["view", "w.xml"], None, None),          # the viewer needs OpenGL
    (["build", "view.yaml"], None, "disable"),  # a file named view is not the view command
    (["sim", "w.xml"], "egl", "egl"),         # the user's choice stands
])
def test_console_sets_mujoco_gl(monkeypatch, argv, user, want):
    seen = {}
    monkeypatch.setattr(sys, "argv", ["aurgen", *argv])
    monkeypatch.setattr(cli, "main", lambda a: seen.setdefault("gl", os.environ.get("MUJOCO_GL")) and 0)
    if user is None:
        monkeypatch.delenv("MUJOCO_GL", raising=False)
    else:
        monkeypatch.setenv("MUJOCO_GL", user)
    cli.console()
    assert seen["gl"] == want


def test_no_gl_probe_child_on_build(tmp_path):
    """``python -m aurgen build`` (which imports mujoco to compile the MJCF) starts no child
    process: pyGLFW's probe is a fork and exec of a Python child (seen by the audit hook
    'subprocess.Popen', which fires for every child Python starts)."""
    code = ("import sys\n"
            "seen = []\n"
            "sys.addaudithook(lambda ev, args: seen.append(args[1]) if ev == 'subprocess.Popen' else None)\n"
            "import runpy\n"
            "sys.argv = ['aurgen', 'build', 'blueboat.yaml', '-o', sys.argv[1]]\n"
            "try:\n"
            "    runpy.run_module('aurgen', run_name='__main__')\n"
            "except SystemExit as e:\n"
            "    assert e.code == 0, e.code\n"
            "print(len(seen), seen)\n")
    env = {k: v for k, v in os.environ.items() if k != "MUJOCO_GL"}
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "out")], env=env, cwd=tmp_path,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1].startswith("0 "), out.stdout
    # and without the console entry, import mujoco does start the probe: the check can fail
    probe = subprocess.run([sys.executable, "-c", code.replace("runpy.run_module('aurgen', run_name='__main__')",
                                                                "import mujoco"), str(tmp_path / "o2")],
                           env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert probe.returncode == 0, probe.stderr
    assert not probe.stdout.strip().splitlines()[-1].startswith("0 "), probe.stdout


HEAVY = ("mujoco", "jinja2", "lxml", "trimesh", "scipy", "matplotlib", "PIL", "numba", "ray",
         "aurgen.emit.render", "aurgen.check.audit", "aurgen.analysis.report", "aurgen.analysis.sweep",
         "aurgen.runtime.sim",
         "aurgen.runtime.plugin", "aurgen.runtime.sim.view")


def _modules_after(argv, cwd):
    """The top-level names and aurgen modules in sys.modules when ``python -m aurgen <argv>`` exits."""
    code = ("import atexit, runpy, sys\n"
            "atexit.register(lambda: print('MODULES', ' '.join(sorted(sys.modules)), file=sys.stderr))\n"
            f"sys.argv = ['aurgen', *{list(argv)!r}]\n"
            "runpy.run_module('aurgen', run_name='__main__')\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    line = next(s for s in out.stderr.splitlines() if s.startswith("MODULES "))
    return set(line.split()[1:])


def test_specs_imports_nothing_it_does_not_need(tmp_path):
    """A cold ``aurgen specs`` (issue 11: within 1.5x of ``import numpy, yaml``) loads neither MuJoCo
    nor the emitters' and reports' libraries; ``build``, which needs MuJoCo and Jinja, shows that
    the check sees them."""
    specs = _modules_after(["specs", "blueboat.yaml"], tmp_path)
    assert "aurgen.compose.resolve" in specs and "aurgen.runtime.hydrostatics.equilibrium" in specs
    assert not specs & set(HEAVY), sorted(specs & set(HEAVY))
    build = _modules_after(["build", "blueboat.yaml", "-o", str(tmp_path / "out")], tmp_path)
    assert {"mujoco", "jinja2", "aurgen.emit.render"} <= build


@pytest.mark.parametrize("argv", [
    ["specs", "blueboat.yaml", "--json"], ["catalog"], ["build", "a.yaml", "-o", "out", "--all"],
    ["worlds", "pool"], ["audit", "out", "--config", "a.yaml"], ["sim", "w.xml", "--water", "1025"],
    ["view", "w.xml"], ["report", "a.yaml", "--no-roll-decay"], ["sweep", "s.yaml", "-j", "2", "--check"],
])
def test_a_command_alone_parses_as_the_whole_cli(argv, capsys):
    """main() builds only the named command's parser: the same values, function and help."""
    whole, alone = cli.build_parser(), cli.build_parser(argv[0])
    assert vars(alone.parse_args(argv)) == vars(whole.parse_args(argv))
    for parser in (whole, alone):
        with pytest.raises(SystemExit):
            parser.parse_args([argv[0], "--help"])
    a, b = capsys.readouterr().out.split("usage: ")[1:]
    assert a == b and a.startswith(f"aurgen {argv[0]} ")
