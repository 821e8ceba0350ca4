"""The bundled templates precompiled (aurgen.emit.templating): the same bytes as compiled
from source, used only when the manifest matches the templates and jinja2."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jinja2
import pytest

from aurgen.emit import render as emit, templating
from aurgen.cli import main
from aurgen.core.resources import data_dir

FILTERS = {"f": emit.num, "v": emit.vec}


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def compiled(tmp_path):
    out = tmp_path / "compiled"
    templating.compile_templates(data_dir("templates"), out)
    return out


def test_compiled_and_source_templates_write_the_same_bytes(tmp_path, compiled, monkeypatch):
    trees = []
    for name, where in (("compiled", compiled), ("source", tmp_path / "nothing")):
        env = templating.environment(data_dir("templates"), where, FILTERS)
        want = jinja2.ModuleLoader if name == "compiled" else jinja2.FileSystemLoader
        assert isinstance(env.loader, want), name
        monkeypatch.setattr(emit, "_ENV", env)
        assert main(["build", "--all", "-o", str(tmp_path / f"out_{name}")]) == 0
        trees.append(_tree(tmp_path / f"out_{name}"))
    assert len(trees[0]) > 15 and any(k.startswith("worlds/") for k in trees[0])
    assert trees[0] == trees[1]


def test_compiled_templates_are_used_only_when_the_manifest_matches(tmp_path, compiled):
    src = tmp_path / "templates"
    shutil.copytree(data_dir("templates"), src)
    assert templating.compiled_matches(src, compiled)
    with open(src / "model.sdf.j2", "a") as f:  # a template edited after the compile
        f.write("\n")
    assert not templating.compiled_matches(src, compiled)
    assert isinstance(templating.environment(src, compiled, FILTERS).loader, jinja2.FileSystemLoader)
    shutil.copy(data_dir("templates") / "model.sdf.j2", src / "model.sdf.j2")
    manifest = json.loads((compiled / templating.MANIFEST).read_text())
    for key, value in (("jinja2", "0.0.1"), ("options", [])):  # another jinja2, other options
        (compiled / templating.MANIFEST).write_text(json.dumps(dict(manifest, **{key: value})))
        assert not templating.compiled_matches(src, compiled)
    (compiled / templating.MANIFEST).unlink()
    assert not templating.compiled_matches(src, compiled)
    with pytest.raises(ValueError, match="expected"):
        templating.environment(src, compiled, {"f": emit.num})


def test_a_removed_template_leaves_no_module(tmp_path):
    src = tmp_path / "templates"
    shutil.copytree(data_dir("templates"), src)
    out = tmp_path / "compiled"
    templating.compile_templates(src, out)
    n = len(list(out.glob("tmpl_*.py")))
    assert n == len(list(src.glob("*.j2")))
    (src / "model.config.j2").unlink()
    templating.compile_templates(src, out)
    assert len(list(out.glob("tmpl_*.py"))) == n - 1
