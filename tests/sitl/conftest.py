"""The bundled vehicles and worlds, built once per module by the installed aurgen (the closed-loop and
world tests fly them)."""
from __future__ import annotations

import subprocess

import pytest

from sitl_client import aurgen_cmd, clean_env


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("sitl_build")
    r = subprocess.run(aurgen_cmd() + ["build", "--all", "-o", str(out)], capture_output=True, text=True,
                       env=clean_env(), timeout=900)
    assert r.returncode == 0, r.stderr
    return out
