"""Render every README and docs figure from the bundled configs: ``python docs/figures.py``.

Run from the repository root with aurgen installed (the script imports the INSTALLED aurgen:
``sys.path[0]`` is docs/, never the source tree). Every vehicle, world, report and sweep comes
from the bundled configs (``aurgen.config.vehicle.bundled_config``), built with aurgen's own CLI
(``aurgen.cli.main``) into a temporary folder that is also the working folder while the figures
are made, so nothing but the figures is written, and only into the output folder.

    python docs/figures.py                  # writes docs/img/*.png
    python docs/figures.py --out DIR        # writes DIR/*.png instead
    python docs/figures.py --only hero      # only the figures named (FIGURES' keys)
    python docs/figures.py --check          # renders into a temporary folder and compares with
                                            # docs/img/: exit 1 naming each figure that drifted

The figures (``FIGURES``: name -> what it shows):

* ``hero``: the bundled ``open_sea`` world (a JONSWAP sea of hs 1.0 m, tp 5.0 s ramped in over
  10 s; the BlueBoat at the surface, the BlueROV2 5 m ahead at 3 m depth) simulated with the
  runtime (``aurgen.runtime.sim.Simulation``) to t = 12 s, after the ramp, and rendered offscreen
  from the world's default camera: the free camera MuJoCo's viewer (``aurgen view``) opens with,
  ``mjv_defaultFreeCamera`` on the world's ``<statistic center extent>`` (azimuth 90°, elevation
  -45°, 1.5 extents, about 6.6 m, from the vehicles' mean position). Two switches differ from the
  viewer's defaults, both ones a user has too (the viewer's Rendering panel): static bodies hidden
  ("Static Body", key D, ``mjVIS_STATIC``) and additive transparency ("Additive", key L,
  ``mjRND_ADDITIVE``).
  With the defaults, the world body's flat translucent surface plane over the plugin's drawn sea
  (geom group 2, coloured trough to crest, alpha 0.7) hides the ROV 3 m down almost completely;
  without the plane and the seabed (the world body's geoms), and with the sea's colour added to
  what lies under it, the ROV shows through. The sea is drawn as the plugin draws it, on the
  elevation the forces use; where its square (about 32 m a side) ends, a top corner, the
  background is black.
* ``vehicle_<name>``: each bundled vehicle alone in a one-vehicle copy of the bundled
  ``open_water`` world (still water of 1025 kg/m^3, surface z = 0), built with ``aurgen worlds``,
  simulated 5 s to rest (the boats float; the ROVs, spawned 0.45 m down, hover) and rendered
  from a fixed free camera 3/4 from above-front (azimuth 215°: in front of the bow and to port;
  elevation -22° to -35°), the ROVs seen through the water's translucent surface. The
  BlueBoat with mesh hulls has the plain BlueBoat's visuals, so its picture shows what differs:
  its displacement geoms (geom group 3, the demihulls' mesh the hydrostatics integrate; the
  viewer's geom group 3 switch) in the water's surface, the other groups hidden.
* ``video_frame``: one frame of the BlueROV2's camera as ``aurgen sitl --video`` draws it before
  encoding (``aurgen.runtime.sitl.camera.Drawer``, the stream's own drawer, at 640x360): open_water
  after SETTLE s, the ROV put 2.7 m astern and to starboard of the BlueBoat and 0.9 m down, heading
  for it and pitched 18° up, looking at the boat's hulls from below through the default water
  (blue-green, 8 m visibility).
* ``sim_run``: the figure ``aurgen sim build/worlds/open_water.xml --duration 20 --plot run.png``
  writes, byte for byte.
* ``gz_curve``: the righting-arm (GZ) curve of ``aurgen report blueboat.yaml`` (its
  ``gz_heel.png``), byte for byte.
* ``sweep``: GM_T against payload from ``aurgen sweep blueboat_payload.yaml`` (its
  ``gm_t_payload.png``), byte for byte.

Determinism: fixed sizes and times; MuJoCo renders offscreen (``MUJOCO_GL=egl`` unless already
set, before mujoco is imported); renders are written with Pillow (no tIME or text chunks);
matplotlib's figures come from aurgen's own commands (Agg, no timestamp). On one machine two runs
write the same bytes. Across machines and package versions (another Mesa or GPU driver, another
FreeType or matplotlib) pixels move a little, so ``--check`` compares with a tolerance: see
``compare``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import shutil
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("MUJOCO_GL", "egl")  # before mujoco is imported: offscreen, no display

IMG = Path(__file__).resolve().parent / "img"  # the committed figures

FIGURES = {
    "hero": "the BlueBoat and the BlueROV2 in the open_sea world at t = 12 s, from the world's default camera",
    "vehicle_blueboat": "the BlueBoat at rest in still water, 3/4 from above-front",
    "vehicle_blueboat_hullmesh": "blueboat_hullmesh's mesh demihulls (its displacement geoms) at rest in still water",
    "vehicle_bluerov2": "the BlueROV2 hovering 0.45 m down in still water, 3/4 from above-front",
    "vehicle_bluerov2_heavy": "the BlueROV2 Heavy hovering 0.45 m down in still water, 3/4 from above-front",
    "video_frame": "the BlueROV2's camera as aurgen sitl --video streams it: the BlueBoat from below and astern",
    "sim_run": "aurgen sim build/worlds/open_water.xml --duration 20 --plot run.png",
    "gz_curve": "the BlueBoat's righting-arm (GZ) curve from aurgen report blueboat.yaml",
    "sweep": "GM_T against payload from aurgen sweep blueboat_payload.yaml",
}

HERO_SIZE = (960, 540)  # pixels, width x height
HERO_TIME = 12.0  # s: past the open_sea sea's 10 s ramp
VEHICLE_SIZE = (640, 400)
SETTLE = 5.0  # s of simulation before a vehicle's picture (the BlueBoat settles within 2 s)
# name -> (spawn height of base_link (m, world z, surface z = 0), camera distance (m),
#          camera elevation (deg), height of the look-at point above base_link (m), geom groups drawn)
VIEWER_GROUPS = (0, 1, 2)  # the geom groups MuJoCo's viewer draws by default
VEHICLES = {
    "blueboat": (0.05, 2.6, -22.0, 0.1, VIEWER_GROUPS),
    "blueboat_hullmesh": (0.05, 2.6, -22.0, 0.1, (2, 3)),  # the displacement meshes and the surface
    "bluerov2": (-0.45, 1.3, -35.0, 0.0, VIEWER_GROUPS),
    "bluerov2_heavy": (-0.45, 1.45, -35.0, 0.0, VIEWER_GROUPS),
}
VEHICLE_AZIMUTH = 215.0  # deg: the camera ahead of the bow (+x) and to port (+y), looking back
VIDEO_SIZE = (640, 360)
VIDEO_POSE = ((-2.2, -1.6, -0.9), -18.0)  # the ROV's base_link (world m), pitch about +y (deg; <0: nose up)

# compare's tolerance (0-255 scale): see compare
MAX_MEAN_DIFF = 1.0
PIXEL_DIFF = 32
MAX_FRACTION = 0.005


# ---------------------------------------------------------------------------------------------
# comparison


def _pixels(path):
    """The PNG at ``path`` as an int16 array (height, width, 4), RGBA 0-255."""
    import numpy as np
    from PIL import Image

    with Image.open(path) as im:
        return np.asarray(im.convert("RGBA"), dtype=np.int16)


def compare(a_png, b_png) -> tuple[bool, dict]:
    """(ok, figures) for two PNG files: ok when they have the same size, the mean absolute
    difference over all pixels and channels (RGBA, 0-255) is at most ``MAX_MEAN_DIFF`` (1.0) and
    at most ``MAX_FRACTION`` (0.5 %) of the pixels differ by more than ``PIXEL_DIFF`` (32) in
    any channel.

    Why: on one machine the script writes the same bytes twice, but another Mesa (llvmpipe) or
    GPU driver rasterises triangle edges and blends transparency slightly differently, and
    another FreeType or matplotlib moves anti-aliased text by a pixel: such noise is small on
    average and touches edge pixels only. A real change is larger: the sea at another time, a
    vehicle moved or recoloured, a curve or an axis that changed moves whole strokes and regions
    (measured here: the hero 0.1 s later, mean 2.4; the BlueBoat's picture from 5 cm further
    away, 0.72 % of its pixels; ``aurgen sim`` plotted for 19.5 s, not 20 s, 3.9 %; the hull-mesh
    boat's GZ curve for the BlueBoat's, 1.7 %: each fails; one 2 ms step later, mean 0.17 and
    0.005 %, passes). The 0.5 % is what a small real change of a render must exceed; 1 % let
    the 5 cm move pass. figures: ``size_a`` and ``size_b``
    ((width, height)), ``mean_diff``, ``fraction`` (of pixels over ``PIXEL_DIFF``); the last two
    are None when the sizes differ.
    """
    import numpy as np

    a, b = _pixels(a_png), _pixels(b_png)
    figures = {"size_a": (a.shape[1], a.shape[0]), "size_b": (b.shape[1], b.shape[0]),
               "mean_diff": None, "fraction": None}
    if a.shape != b.shape:
        return False, figures
    d = np.abs(a - b)
    figures["mean_diff"] = float(d.mean())
    figures["fraction"] = float((d.max(axis=2) > PIXEL_DIFF).mean())
    ok = figures["mean_diff"] <= MAX_MEAN_DIFF and figures["fraction"] <= MAX_FRACTION
    return ok, figures


# ---------------------------------------------------------------------------------------------
# building with aurgen's CLI


def _cli(*argv: str) -> None:
    """``aurgen ARGV...`` through aurgen.cli.main, its output kept back unless it fails."""
    from aurgen.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(argv))
    if status != 0:
        raise RuntimeError(f"aurgen {' '.join(argv)} failed ({status}): {err.getvalue().strip()[-2000:]}")


def _worlds(work: Path) -> Path:
    """The bundled open_sea and open_water worlds built into work/build/; their folder."""
    build = work / "build"
    if not (build / "worlds" / "open_sea.xml").is_file():
        _cli("worlds", "open_sea", "open_water", "-o", str(build))
    return build / "worlds"


def _save_rgb(rgb, path: Path) -> None:
    """An (height, width, 3) uint8 image as a PNG with no text or time chunks (Pillow)."""
    from PIL import Image

    Image.fromarray(rgb).save(path, format="PNG")


def _renderer(model, size):
    """A mujoco.Renderer of ``size`` (width, height) pixels; the model's offscreen buffer grown to
    fit (a framebuffer size only: the view is unchanged)."""
    import mujoco

    w, h = size
    model.vis.global_.offwidth = max(model.vis.global_.offwidth, w)
    model.vis.global_.offheight = max(model.vis.global_.offheight, h)
    return mujoco.Renderer(model, h, w)


def _step_to(sim, t: float) -> None:
    n = int(round((t - sim.data.time) / sim.model.opt.timestep))
    if n > 0:
        sim.step(n)


# ---------------------------------------------------------------------------------------------
# the figures: each writes the PNG ``path`` with ``work`` its scratch folder


def hero(work: Path, path: Path) -> None:
    """open_sea at HERO_TIME from the world's default free camera, static bodies hidden (module
    docstring)."""
    import mujoco

    from aurgen.runtime.sim import Simulation

    with Simulation(str(_worlds(work) / "open_sea.xml")) as sim:
        _step_to(sim, HERO_TIME)
        renderer = _renderer(sim.model, HERO_SIZE)
        try:
            cam = mujoco.MjvCamera()
            mujoco.mjv_defaultFreeCamera(sim.model, cam)
            option = mujoco.MjvOption()
            option.flags[mujoco.mjtVisFlag.mjVIS_STATIC] = 0
            renderer.update_scene(sim.data, cam, scene_option=option)
            renderer.scene.flags[mujoco.mjtRndFlag.mjRND_ADDITIVE] = 1  # after update_scene, as the viewer keeps it
            _save_rgb(renderer.render(), path)
        finally:
            renderer.close()


def _one_vehicle_world(work: Path, name: str, z: float) -> Path:
    """The bundled open_water world with ``name`` alone at (0, 0, z), built; its MJCF."""
    import yaml

    from aurgen.config.vehicle import bundled_config

    world = yaml.safe_load(bundled_config("open_water", "worlds").read_text(encoding="utf-8"))
    world["description"] = f"{name} alone in open water (docs/figures.py)"
    world["vehicles"] = [{"config": str(bundled_config(name)), "name": name, "xyz": [0, 0, z], "rpy": [0, 0, 0]}]
    src = work / "figure_worlds" / f"alone_{name}.yaml"
    src.parent.mkdir(exist_ok=True)
    src.write_text(yaml.safe_dump(world, sort_keys=False), encoding="utf-8")
    _cli("worlds", str(src), "-o", str(work / "alone"))
    return work / "alone" / "worlds" / f"alone_{name}.xml"


def vehicle(name: str, work: Path, path: Path) -> None:
    """The bundled vehicle ``name`` after SETTLE s in still open water, 3/4 from above-front."""
    import mujoco

    from aurgen.runtime.sim import Simulation

    z, distance, elevation, up, groups = VEHICLES[name]
    with Simulation(str(_one_vehicle_world(work, name, z))) as sim:
        _step_to(sim, SETTLE)
        body = mujoco.mj_name2id(sim.model, mujoco.mjtObj.mjOBJ_BODY, f"{name}/base_link")
        renderer = _renderer(sim.model, VEHICLE_SIZE)
        try:
            cam = mujoco.MjvCamera()
            mujoco.mjv_defaultFreeCamera(sim.model, cam)
            cam.lookat[:] = sim.data.xpos[body] + [0.0, 0.0, up]
            cam.distance, cam.azimuth, cam.elevation = distance, VEHICLE_AZIMUTH, elevation
            option = mujoco.MjvOption()
            for g in range(len(option.geomgroup)):
                option.geomgroup[g] = int(g in groups)
            renderer.update_scene(sim.data, cam, scene_option=option)
            _save_rgb(renderer.render(), path)
        finally:
            renderer.close()


def video_frame(work: Path, path: Path) -> None:
    """The BlueROV2's camera in open_water, drawn as the --video stream draws it (module docstring)."""
    import math

    from aurgen.runtime.sim import Simulation
    from aurgen.runtime.sitl import camera, rig

    world = str(_worlds(work) / "open_water.xml")
    with Simulation(world) as sim:
        _step_to(sim, SETTLE)
        rov = rig.find(sim.model, world, "bluerov2")
        cam = camera.find(sim.model, rov)
        qpos = sim.data.qpos.copy()
        (x, y, z), pitch = VIDEO_POSE
        yaw = math.atan2(-y, -x) / 2  # half angles: heading for the boat at the origin, then the pitch
        tilt = math.radians(pitch) / 2
        a, b, c, d = math.cos(yaw), math.sin(yaw), math.cos(tilt), math.sin(tilt)
        qpos[rov.qpos: rov.qpos + 7] = [x, y, z, a * c, -b * d, a * d, b * c]  # (w, x, y, z): yaw then pitch
        drawer = camera.Drawer(camera.view_model(sim.model, VIDEO_SIZE), cam, VIDEO_SIZE)
        try:
            _save_rgb(drawer.draw(qpos, float(sim.data.time)), path)
        finally:
            drawer.close()


def sim_run(work: Path, path: Path) -> None:
    """The --plot figure of a 20 s run of open_water, as ``aurgen sim`` writes it."""
    run = work / "run.png"
    _cli("sim", str(_worlds(work) / "open_water.xml"), "--duration", "20", "--plot", str(run), "--quiet")
    shutil.copyfile(run, path)


def gz_curve(work: Path, path: Path) -> None:
    """The report's GZ curve (gz_heel.png); the roll-decay run, which it does not use, skipped."""
    report = work / "report"
    _cli("report", "blueboat.yaml", "-o", str(report), "--no-roll-decay", "--quiet")
    shutil.copyfile(report / "gz_heel.png", path)


def sweep(work: Path, path: Path) -> None:
    """The bundled payload sweep's GM_T-against-payload figure (gm_t_payload.png)."""
    from aurgen.config.vehicle import bundled_config

    out = work / "sweep"
    _cli("sweep", str(bundled_config("blueboat_payload", "sweeps")), "-o", str(out), "--quiet")
    shutil.copyfile(out / "gm_t_payload.png", path)


def _maker(name: str):
    if name == "hero":
        return hero
    if name.startswith("vehicle_"):
        return lambda work, path: vehicle(name[len("vehicle_"):], work, path)
    return {"sim_run": sim_run, "gz_curve": gz_curve, "sweep": sweep, "video_frame": video_frame}[name]


def render(names, out: Path, log=print) -> dict[str, Path]:
    """Write the figures ``names`` (FIGURES' keys) as out/<name>.png; {name: path}. Everything
    else is built in a temporary folder, the working folder meanwhile."""
    import time

    out = Path(out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    written = {}
    here = Path.cwd()
    with tempfile.TemporaryDirectory(prefix="aurgen-figures-") as tmp:
        work = Path(tmp)
        os.chdir(work)  # a stray file (MuJoCo's MUJOCO_LOG.TXT) lands here; the bundled configs win
        try:
            for name in names:
                t0 = time.perf_counter()
                path = out / f"{name}.png"
                _maker(name)(work, path)
                written[name] = path
                log(f"wrote {path} ({path.stat().st_size // 1024} kB, {time.perf_counter() - t0:.1f} s)")
        finally:
            os.chdir(here)
    return written


def check(names, reference: Path = IMG) -> list[str]:
    """Render ``names`` into a temporary folder and compare each with reference/<name>.png; the
    lines saying which drifted (empty: none)."""
    problems = []
    with tempfile.TemporaryDirectory(prefix="aurgen-figures-check-") as tmp:
        fresh = render(names, Path(tmp), log=lambda _: None)
        for name, path in fresh.items():
            committed = reference / f"{name}.png"
            if not committed.is_file():
                problems.append(f"{name}: {committed} is missing")
                continue
            ok, f = compare(committed, path)
            if ok:
                continue
            if f["mean_diff"] is None:
                problems.append(f"{name}: size {f['size_b'][0]}x{f['size_b'][1]}, committed "
                                f"{f['size_a'][0]}x{f['size_a'][1]}")
            else:
                problems.append(f"{name}: mean |difference| {f['mean_diff']:.2f} (at most {MAX_MEAN_DIFF}), "
                                f"{100 * f['fraction']:.2f} % of pixels off by more than {PIXEL_DIFF} "
                                f"(at most {100 * MAX_FRACTION:.1f} %)")
    return problems


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python docs/figures.py", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=IMG, help="output folder (default: docs/img)")
    parser.add_argument("--check", action="store_true",
                        help="render into a temporary folder and compare with docs/img (exit 1 on drift)")
    parser.add_argument("--only", nargs="+", metavar="NAME", help=f"only these figures: {', '.join(FIGURES)}")
    args = parser.parse_args(argv)
    names = list(FIGURES)
    if args.only:
        unknown = [n for n in args.only if n not in FIGURES]
        if unknown:
            parser.error(f"no figure named {', '.join(unknown)} (the figures: {', '.join(FIGURES)})")
        names = [n for n in FIGURES if n in args.only]
    if args.check:
        problems = check(names)
        if not problems:
            print(f"figures: {len(names)} match docs/img")
            return 0
        for line in problems:
            print(f"figure drifted: {line}")
        only = f" --only {' '.join(n for n in names if any(p.startswith(n + ':') for p in problems))}"
        print(f"regenerate with: python docs/figures.py{only}")
        return 1
    render(names, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
