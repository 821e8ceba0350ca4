"""What users install: the suite runs against the installed wheel, and every command the
README shows works from an empty folder outside the checkout.

``.ci/run`` installs the wheel (``pip install '.[test]'``, not editable) in a fresh venv;
an editable install or a checkout on ``sys.path`` hides packaging bugs (a data folder
installed as a package once hid ``aurgen/emit/worlds.py`` from every wheel user). A developer
running the suite on an editable install sets ``AURGEN_TEST_SOURCE=1`` to skip the first
test only.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import aurgen

CHECKOUT = Path(__file__).resolve().parents[1]


def test_aurgen_is_the_installed_package():
    where = Path(aurgen.__file__).resolve()
    if os.environ.get("AURGEN_TEST_SOURCE") == "1":
        pytest.skip("AURGEN_TEST_SOURCE=1: testing a source checkout on purpose")
    assert CHECKOUT not in where.parents, (
        f"aurgen was imported from the checkout ({where}), not from the installed wheel: "
        "install with `pip install '.[test]'` (not -e) and run pytest as the README says")
    assert (where.parent / "data" / "vehicles" / "blueboat.yaml").is_file()
    assert (where.parent / "data" / "templates" / "model.sdf.j2").is_file()
    # no data folder may be a package that shadows a module
    assert not (where.parent / "data" / "worlds" / "__init__.py").exists()
    from aurgen.emit import worlds

    assert Path(worlds.__file__).name == "worlds.py" and hasattr(worlds, "write_worlds")


def _aurgen(args, cwd, timeout=900, env_only=False):
    """Run the installed command as a user would (the console script beside this Python);
    env_only: the environment it would run in, instead."""
    exe = Path(sys.executable).parent / "aurgen"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "aurgen"]
    # nothing of the checkout on the path; anything else there (a wheel installed with
    # pip --target, the install under test) stays
    keep = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
            if p and CHECKOUT != Path(p).resolve() and CHECKOUT not in Path(p).resolve().parents]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(keep))
    env.setdefault("MPLBACKEND", "Agg")
    if env_only:
        return env
    return subprocess.run(cmd + args, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)


def test_cli_tour_from_an_empty_folder(tmp_path):
    """Every command of the README's tour and docs/guide/build.md's 'The CLI by example', in order,
    from an empty folder."""
    steps = [
        (["--version"], []),
        (["specs", "blueboat.yaml"], []),
        (["specs", "bluerov2", "--json"], []),
        (["catalog"], []),
        (["build", "blueboat.yaml"], ["build/blueboat/model.sdf", "build/blueboat/model.config",
                                      "build/blueboat/blueboat.urdf", "build/blueboat/blueboat.xml"]),
        (["build", "--all"], ["build/bluerov2/bluerov2.xml", "build/bluerov2_heavy/model.sdf",
                              "build/worlds/open_water.xml", "build/worlds/open_water.sdf",
                              "build/worlds/pool.sdf", "build/worlds/tilted_tank.xml",
                              "build/worlds/open_sea.xml"]),
        (["worlds", "open_water"], ["build/worlds/open_water.sdf"]),
        (["audit", "build/blueboat"], []),
        (["audit", "build"], []),
        (["sim", "build/worlds/open_water.xml", "--duration", "0.5", "--out", "run.csv", "--plot", "run.png"],
         ["run.csv", "run.png"]),
        (["report", "blueboat.yaml"], ["build/blueboat/report/report.md", "build/blueboat/report/gz_heel.png"]),
        (["sweep", "blueboat_payload.yaml"], ["build/sweeps/blueboat_payload/sweep.csv",
                                              "build/sweeps/blueboat_payload/capsize_boundary.png"]),
    ]
    # the commands run the aurgen under test, not another copy on the machine
    env = dict(os.environ, PYTHONPATH=_aurgen([], tmp_path, env_only=True)["PYTHONPATH"])
    where = subprocess.run([sys.executable, "-c", "import aurgen; print(aurgen.__file__)"], cwd=tmp_path,
                           capture_output=True, text=True, env=env).stdout.strip()
    assert Path(where).resolve() == Path(aurgen.__file__).resolve(), (where, aurgen.__file__)
    for args, outputs in steps:
        res = _aurgen(args, tmp_path)
        assert res.returncode == 0, f"aurgen {' '.join(args)} -> {res.returncode}\n{res.stdout}\n{res.stderr}"
        assert "Traceback" not in res.stderr, res.stderr
        for out in outputs:
            assert (tmp_path / out).is_file() and (tmp_path / out).stat().st_size > 0, f"{args}: no {out}"
    assert _aurgen(["--version"], tmp_path).stdout.strip() == f"aurgen {aurgen.__version__}"
    # nothing was written into the installed package (a JIT cache there outlives uninstall)
    pkg = Path(aurgen.__file__).resolve().parent
    if CHECKOUT not in pkg.parents:
        assert not list(pkg.rglob("*.nbi")) and not list(pkg.rglob("*.nbc"))


def test_python_dash_m_aurgen(tmp_path):
    res = subprocess.run([sys.executable, "-m", "aurgen", "--version"], cwd=tmp_path, capture_output=True, text=True)
    assert res.returncode == 0 and res.stdout.strip() == f"aurgen {aurgen.__version__}"


def _pyc_is_current(py: Path) -> bool:
    """The bytecode cache of ``py`` exists and matches it, so importing ``py`` compiles nothing:
    the header's magic is this Python's, and an mtime-stamped pyc records the source's mtime and
    size (a hash-based pyc is current by construction: pip writes it from the installed source)."""
    import importlib.util

    pyc = Path(importlib.util.cache_from_source(str(py)))
    if not pyc.is_file():
        return False
    head = pyc.read_bytes()[:16]
    if head[:4] != importlib.util.MAGIC_NUMBER:
        return False
    if int.from_bytes(head[4:8], "little") & 1:
        return True
    st = py.stat()
    return (int.from_bytes(head[8:12], "little") == int(st.st_mtime) & 0xFFFFFFFF
            and int.from_bytes(head[12:16], "little") == st.st_size & 0xFFFFFFFF)


def test_first_run_after_install_compiles_nothing(tmp_path):
    """Issue 11: the first run after an install is no slower than later runs. pip compiles the
    wheel's modules at install time, so every module has current bytecode, and a first
    ``aurgen specs`` or ``aurgen build`` writes nothing into the package (no bytecode, no cache;
    the templates come precompiled, aurgen.emit.templating)."""
    if os.environ.get("AURGEN_TEST_SOURCE") == "1":
        pytest.skip("AURGEN_TEST_SOURCE=1: a source checkout is not an install")
    pkg = Path(aurgen.__file__).resolve().parent
    stale = [str(p.relative_to(pkg)) for p in pkg.rglob("*.py") if not _pyc_is_current(p)]
    assert not stale, f"installed without current bytecode (pip install --no-compile?): {stale}"
    before = {p: p.stat().st_mtime_ns for p in pkg.rglob("*")}
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    for args in (["specs", "blueboat.yaml"], ["build", "blueboat.yaml", "-o", "out"]):
        res = subprocess.run([sys.executable, "-m", "aurgen", *args], cwd=tmp_path,
                             capture_output=True, text=True, env=env, timeout=300)
        assert res.returncode == 0, res.stderr
    after = {p: p.stat().st_mtime_ns for p in pkg.rglob("*")}
    assert after == before, sorted(str(p) for p in set(after) ^ set(before) or after)


def test_the_wheel_ships_its_templates_compiled_and_uses_them():
    """The wheel's build compiles the templates (aurgen.emit.templating); the installed aurgen
    loads them instead of compiling them in every process."""
    if os.environ.get("AURGEN_TEST_SOURCE") == "1":
        pytest.skip("AURGEN_TEST_SOURCE=1: a source checkout compiles its templates")
    import jinja2

    from aurgen.emit import render as emit, templating
    from aurgen.core.resources import data_dir

    compiled = data_dir("templates_compiled")
    assert (compiled / templating.MANIFEST).is_file(), compiled
    assert len(list(compiled.glob("tmpl_*.py"))) == len(list(data_dir("templates").glob("*.j2")))
    assert templating.compiled_matches(data_dir("templates"), compiled), (
        "the wheel's compiled templates do not match the installed jinja2 or templates")
    assert isinstance(emit.environment().loader, jinja2.ModuleLoader)


@pytest.mark.parametrize("entry", ["python -c", "python -m aurgen", "python -m pytest"])
def test_run_from_the_clone_root_says_what_happened(entry):
    """From the root of a clone with the wheel installed, `python -m` and `python -c` put the
    checkout first on sys.path, and its source aurgen/ has no aurgen.runtime (the folder runtime/
    is that only once installed): each entry point says so in one line and what to do, instead of
    a bare ModuleNotFoundError (or, for pytest, three modules failing to collect)."""
    if os.environ.get("AURGEN_TEST_SOURCE") == "1":
        pytest.skip("AURGEN_TEST_SOURCE=1: an editable install maps aurgen.runtime itself")
    argv = {"python -c": ["-c", "import aurgen.runtime"],
            "python -m aurgen": ["-m", "aurgen", "specs", "blueboat.yaml"],
            "python -m pytest": ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", "--collect-only",
                                 "tests/test_layout.py"]}[entry]
    res = subprocess.run([sys.executable, *argv], cwd=CHECKOUT, capture_output=True, text=True, timeout=300)
    out = res.stdout + res.stderr
    assert res.returncode != 0, out
    assert "imported from its source tree" in out and "Run from another folder" in out, out
    if entry == "python -m aurgen":
        assert res.returncode == 2 and "Traceback" not in res.stderr
        assert res.stderr.count("\n") == 1 and res.stderr.startswith("aurgen: error: "), res.stderr
