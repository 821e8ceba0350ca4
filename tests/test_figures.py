"""The figures the README and the docs show are the ones docs/figures.py renders.

Fast: ``compare`` (the tolerance ``--check`` applies) passes an identical image and small noise,
and fails a drawn rectangle, a shifted image and another size; every FIGURES entry has its
committed PNG in docs/img/ (small, no time chunk) and docs/img/ holds nothing else; every docs/img
image README.md or a docs page shows is one of them. Slow: ``python docs/figures.py --check`` from
the repository root renders them all again (offscreen, MUJOCO_GL=egl) and finds no drift.
"""

from __future__ import annotations

import importlib.util
import os
import re
import struct
import subprocess
import sys
from pathlib import Path
from unittest import mock

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "docs" / "figures.py"
IMG = ROOT / "docs" / "img"
MAX_BYTES = 400 * 1024


@pytest.fixture(scope="module")
def figures():
    spec = importlib.util.spec_from_file_location("aurgen_docs_figures", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    with mock.patch.dict(os.environ):  # its MUJOCO_GL default stays in the module
        spec.loader.exec_module(module)
    return module


def _png(path: Path, rgb: np.ndarray) -> Path:
    from PIL import Image

    Image.fromarray(rgb.astype(np.uint8)).save(path, format="PNG")
    return path


def _base() -> np.ndarray:
    """A committed render as an RGB array."""
    from PIL import Image

    with Image.open(IMG / "vehicle_blueboat.png") as im:
        return np.asarray(im.convert("RGB")).copy()


def test_compare_passes_the_same_image_and_small_noise(figures, tmp_path):
    rgb = _base()
    a = _png(tmp_path / "a.png", rgb)
    ok, f = figures.compare(a, a)
    assert ok and f["mean_diff"] == 0.0 and f["fraction"] == 0.0
    noisy = rgb.astype(int) + np.random.default_rng(1).integers(-2, 3, rgb.shape)  # +-2 everywhere
    noisy[:3, :40] = 255 - noisy[:3, :40]  # and 120 pixels (0.05 %) far off: edge noise
    ok, f = figures.compare(a, _png(tmp_path / "noisy.png", np.clip(noisy, 0, 255)))
    assert ok, f
    assert 0.5 < f["mean_diff"] < figures.MAX_MEAN_DIFF


def test_compare_fails_what_changed(figures, tmp_path):
    rgb = _base()
    a = _png(tmp_path / "a.png", rgb)
    boxed = rgb.copy()
    boxed[100:150, 200:250] = [255, 0, 0]  # a 50 x 50 rectangle: 1 % of a 640 x 400 picture
    ok, f = figures.compare(a, _png(tmp_path / "boxed.png", boxed))
    assert not ok and f["fraction"] > figures.MAX_FRACTION, f
    shifted = np.roll(rgb, 4, axis=1)  # the vehicle 4 pixels to the right
    ok, f = figures.compare(a, _png(tmp_path / "shifted.png", shifted))
    assert not ok, f
    ok, f = figures.compare(a, _png(tmp_path / "small.png", rgb[:-1]))
    assert not ok and f["size_a"] == (640, 400) and f["size_b"] == (640, 399) and f["mean_diff"] is None


def _chunks(path: Path) -> list[bytes]:
    """The PNG's chunk types, in order."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    types, at = [], 8
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        types.append(kind)
        at += 12 + length
    return types


def test_every_figure_is_committed_small_and_timeless(figures):
    assert set(figures.FIGURES) >= {"hero", "sim_run", "gz_curve", "vehicle_blueboat", "vehicle_bluerov2",
                                    "vehicle_bluerov2_heavy", "vehicle_blueboat_hullmesh"}
    for name in figures.FIGURES:
        figures._maker(name)  # each has its maker
        path = IMG / f"{name}.png"
        assert path.is_file(), f"{path} is missing: python docs/figures.py --only {name}"
        assert path.stat().st_size < MAX_BYTES, (path, path.stat().st_size)
        assert b"tIME" not in _chunks(path), path
    stray = sorted(p.name for p in IMG.glob("*.png") if p.stem not in figures.FIGURES)
    assert not stray, f"docs/img holds figures docs/figures.py does not make: {stray}"


def test_an_unknown_figure_is_a_clear_error(figures, capsys):
    with pytest.raises(SystemExit) as exc:
        figures.main(["--only", "nope", "--out", "unused"])
    assert exc.value.code == 2
    assert "no figure named nope" in capsys.readouterr().err


IMAGE = re.compile(r"!\[[^\]]*\]\(\s*<?([^)\s>]+)|<img\s[^>]*src=[\"']([^\"']+)")
MENTION = re.compile(r"docs/img/[\w.-]+")


def _pages():
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def _referenced(page: Path, text: str) -> set[Path]:
    """The files under docs/img/ a page shows (markdown or HTML images, relative to the page) or
    names (``docs/img/x.png`` anywhere)."""
    found = set()
    for m in IMAGE.finditer(text):
        target = (m.group(1) or m.group(2)).split("#")[0]
        if "://" not in target:
            found.add((page.parent / target).resolve())
    found |= {(ROOT / m.group(0)).resolve() for m in MENTION.finditer(text)}
    return {p for p in found if p.parent == IMG.resolve()}


def test_the_referencing_helper_finds_images(tmp_path):
    page = ROOT / "docs" / "x.md"
    text = "![a](img/hero.png) <img src=\"img/sim_run.png\"> see docs/img/gz_curve.png ![b](other/c.png)"
    assert {p.name for p in _referenced(page, text)} == {"hero.png", "sim_run.png", "gz_curve.png"}
    assert {p.name for p in _referenced(ROOT / "README.md", "![h](docs/img/hero.png)")} == {"hero.png"}


def test_the_docs_show_only_figures_the_script_makes(figures):
    for page in _pages():
        for path in _referenced(page, page.read_text(encoding="utf-8")):
            where = page.relative_to(ROOT)
            assert path.suffix == ".png" and path.stem in figures.FIGURES, \
                f"{where} shows {path.name}, which docs/figures.py does not make (FIGURES)"
            assert path.is_file(), f"{where} shows {path.name}: missing, run python docs/figures.py"


PROBE = """
import mujoco
m = mujoco.MjModel.from_xml_string("<mujoco><worldbody><geom size='1'/></worldbody></mujoco>")
mujoco.Renderer(m, 32, 32).render()
"""


def test_the_committed_figures_are_what_the_script_renders():
    """``python docs/figures.py --check`` from the repository root (as CI runs it) exits 0."""
    env = {**os.environ, "MUJOCO_GL": "egl"}
    probe = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, timeout=120,
                           cwd=ROOT / "docs")
    if probe.returncode != 0:
        reason = f"no offscreen OpenGL (EGL): {probe.stderr.strip().splitlines()[-1:]}"
        if os.environ.get("AURGEN_REQUIRE_CONSUMERS") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    r = subprocess.run([sys.executable, str(SCRIPT.relative_to(ROOT)), "--check"], capture_output=True, text=True,
                       env=env, timeout=900, cwd=ROOT)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "match docs/img" in r.stdout
