"""Shared fixtures: the real consumers of generated files (libsdformat, urdfdom, pybullet, Drake, pinocchio).

Each fixture skips with a reason when its tool is missing, unless
AURGEN_REQUIRE_CONSUMERS=1 (CI), where a missing consumer fails the test.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


def pytest_configure(config):
    """From a clone's root, ``python -m pytest`` imports the source tree's aurgen (the working
    folder comes first on sys.path), which has no aurgen.runtime: stop with aurgen's one-line
    explanation (aurgen.SourceTreeError) instead of modules failing to collect."""
    try:
        import aurgen.runtime  # noqa: F401
    except ModuleNotFoundError as exc:
        from aurgen import SourceTreeError

        if isinstance(exc, SourceTreeError):
            pytest.exit(str(exc), returncode=4)
        raise


# the slow tier (README "Set-up", docs/getting-started.md): tests/slow_tests.txt's node ids, written by tools/test_tiers.py from a
# timed run, are marked ``slow``; pyproject.toml's addopts leave them out of ``pytest -q`` and
# ``pytest -q -m slow`` runs them
SLOW = Path(__file__).with_name("slow_tests.txt")


@pytest.hookimpl(tryfirst=True)  # before pytest's own -m deselection reads the marks
def pytest_collection_modifyitems(config, items):
    slow = set(SLOW.read_text(encoding="utf-8").split()) if SLOW.is_file() else set()
    for item in items:
        if item.nodeid in slow:
            item.add_marker(pytest.mark.slow)


def _missing(reason: str):
    if os.environ.get("AURGEN_REQUIRE_CONSUMERS") == "1":
        pytest.fail(f"{reason} (AURGEN_REQUIRE_CONSUMERS=1: consumers are mandatory)", pytrace=False)
    pytest.skip(reason)


def _run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


@pytest.fixture(scope="session")
def sdf_checker(tmp_path_factory):
    """A function ``check(path) -> (ok, output)`` loading an SDF file with libsdformat (sdf::Root::Load).

    The checker (tests/data/sdf_check.cc) is compiled once per session;
    ``ok`` is False on any error, and ``output`` holds the errors.
    """
    gxx = shutil.which("g++")
    pkg = shutil.which("pkg-config")
    if gxx is None or pkg is None:
        _missing("g++ or pkg-config not found: cannot build the libsdformat checker")
    flags = _run([pkg, "--cflags", "--libs", "sdformat12"])
    if flags.returncode != 0:
        _missing("libsdformat (sdformat12, e.g. Debian libsdformat-dev) not found by pkg-config")
    exe = tmp_path_factory.mktemp("sdf_check") / "sdf_check"
    build = _run([gxx, "-std=c++17", str(DATA / "sdf_check.cc"), "-o", str(exe), *flags.stdout.split()])
    if build.returncode != 0:
        pytest.fail(f"cannot compile tests/data/sdf_check.cc:\n{build.stderr}", pytrace=False)

    def check(*paths):
        res = _run([str(exe), *map(str, paths)])
        return res.returncode == 0, res.stdout + res.stderr

    return check


@pytest.fixture(scope="session")
def gz_topics(tmp_path_factory):
    """A function ``topics(path, spawned_name=None) -> [(system, joint, topic)]``: the gz-transport topic
    each model plugin subscribes or publishes to, derived as gz-sim 8's systems derive it
    (tests/data/gz_topics.cc: libsdformat reads the plugin, ign-transport's TopicUtils cleans the name).
    """
    gxx = shutil.which("g++")
    pkg = shutil.which("pkg-config")
    if gxx is None or pkg is None:
        _missing("g++ or pkg-config not found: cannot build the gz topic checker")
    flags = _run([pkg, "--cflags", "--libs", "sdformat12", "ignition-transport11"])
    if flags.returncode != 0:
        _missing("libsdformat (sdformat12) or ign-transport (ignition-transport11, Debian "
                 "libignition-transport-dev) not found by pkg-config")
    exe = tmp_path_factory.mktemp("gz_topics") / "gz_topics"
    build = _run([gxx, "-std=c++17", str(DATA / "gz_topics.cc"), "-o", str(exe), *flags.stdout.split()])
    if build.returncode != 0:
        pytest.fail(f"cannot compile tests/data/gz_topics.cc:\n{build.stderr}", pytrace=False)

    def topics(path, spawned_name=None):
        res = _run([str(exe), str(path), *([spawned_name] if spawned_name else [])])
        assert res.returncode == 0, res.stdout + res.stderr
        return [tuple(line.split(" ", 2)) for line in res.stdout.splitlines()]

    return topics


@pytest.fixture(scope="session")
def mujoco_host(tmp_path_factory):
    """A function ``run(plugin_library or None, model, steps, body) -> CompletedProcess`` of a
    MuJoCo host with no Python: tests/data/mujoco_host.c, compiled once per session as C against
    the installed mujoco's headers and library (the C API a simulate app or controller uses)."""
    import mujoco

    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        _missing("no C compiler (cc, gcc) found: cannot build the C MuJoCo host")
    root = Path(mujoco.__file__).parent
    libs = sorted(root.glob("libmujoco.so*")) + sorted(root.glob("libmujoco*.dylib"))
    if not (root / "include" / "mujoco" / "mujoco.h").exists() or not libs:
        pytest.fail(f"the mujoco wheel at {root} has no headers or library to link a C host against",
                    pytrace=False)
    exe = tmp_path_factory.mktemp("mujoco_host") / "mujoco_host"
    build = _run([cc, str(DATA / "mujoco_host.c"), "-o", str(exe), f"-I{root / 'include'}", str(libs[0]),
                  f"-Wl,-rpath,{root}"])
    if build.returncode != 0:
        pytest.fail(f"cannot compile tests/data/mujoco_host.c:\n{build.stderr}", pytrace=False)

    def run(library, model, steps, body):
        return _run([str(exe), str(library) if library else "-", str(model), str(steps), body])

    return run


@pytest.fixture(scope="session")
def check_urdf():
    """A function ``check(path) -> (ok, output)`` running urdfdom's ``check_urdf``."""
    exe = shutil.which("check_urdf")
    if exe is None:
        _missing("check_urdf (urdfdom, e.g. Debian liburdfdom-tools) not found")

    def check(path):
        res = _run([exe, str(path)])
        return res.returncode == 0, res.stdout + res.stderr

    return check


def _import_consumer(module: str, what: str):
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as e:
        _missing(f"{what} (pip: the [test] extra) not importable: {e}")


@pytest.fixture(scope="session")
def pybullet():
    """pybullet (its URDF importer), or skip/fail as the other consumers."""
    return _import_consumer("pybullet", "pybullet")


@pytest.fixture(scope="session")
def pydrake():
    """Drake's multibody parser (pydrake.multibody), or skip/fail as the other consumers."""
    _import_consumer("pydrake.multibody.parsing", "Drake")
    import pydrake

    return pydrake


@pytest.fixture(scope="session")
def pinocchio():
    """pinocchio (pip: pin), or skip/fail as the other consumers."""
    return _import_consumer("pinocchio", "pinocchio")


# the vehicles most emit tests read: the bundled ones and tests/data/emit_features' (every shape,
# joint kind, bundled part type and topic key)
EMIT_FEATURES = DATA / "emit_features"
EMIT_CONFIGS = ("features.yaml", "equipped_rov.yaml", "equipped_boat.yaml", "topic_keys.yaml",
                "two_grippers.yaml")


@pytest.fixture(scope="session")
def built_vehicles(tmp_path_factory):
    """The bundled vehicles and the emit_features vehicles built once per session (per xdist
    worker) into one output root, for the tests that only read them (each module's ``out``)."""
    from aurgen.emit.build import build, bundled_vehicles

    root = tmp_path_factory.mktemp("built_vehicles")
    build([str(p) for p in bundled_vehicles()] + [str(EMIT_FEATURES / n) for n in EMIT_CONFIGS], root)
    return root


def ray_clusters() -> frozenset:
    """The GCS addresses of the Ray clusters running on this machine, as ``--ray auto`` finds them
    (ray/_private/services.py ``find_gcs_addresses``: it scans the processes, whatever RAY_TMPDIR
    says). Its answer is cached while it is not empty, so the cache is cleared before each look."""
    from ray._private import services

    services.find_gcs_addresses.cache_clear()
    return services.find_gcs_addresses()


@pytest.fixture
def ray_alone():
    """The test holds this machine's Ray lock (tests beside it under xdist that start or join a Ray
    cluster wait for it), and no Ray cluster runs when it starts: ``--ray auto`` joins any running
    cluster, and two local clusters on a loaded two-core machine time each other out. A cluster
    still running after 180 s fails the test, naming it (stop it with ``ray stop``)."""
    import fcntl
    import tempfile
    import time

    pytest.importorskip("ray", reason="ray is not installed (pip install '.[scale]')")
    with open(Path(tempfile.gettempdir()) / "aurgen-tests-ray.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, or when the process ends
        end = time.monotonic() + 180.0
        while ray_clusters():
            if time.monotonic() > end:
                pytest.fail(f"a Ray cluster kept running for 180 s: {sorted(ray_clusters())} "
                            "(ray stop ends a cluster started by ray start)", pytrace=False)
            time.sleep(0.5)
        yield
