"""A sea you can see (issue 38): the plugin's visualize callback draws the sea's surface, and every
world opens framed on its vehicles.

* The drawn surface is triangles (mjGEOM_TRIANGLE: a corner, legs along the geom frame's x and y)
  whose corners lie on the elevation: each triangle's corner is checked against
  aurgen.runtime.environment.waves.elevation (numpy, the convention's own implementation, not the
  plugin's), after mjv_updateScene (no OpenGL needed); hiding geom group 2 (the worlds' surface
  plane's group) hides it; still water draws none; it fits the scene's geom budget.
* Rendered offscreen (MuJoCo's Renderer on EGL: Mesa's software rasteriser here), the pixels of the
  surface change between two times.
* A world's ``<statistic center extent>``: MuJoCo's default free camera looks at the vehicles' mean
  position from 1.5 extents (mjv_defaultFreeCamera), not at the seabed's middle from 75 m.
"""
from __future__ import annotations

import math
import os

import mujoco
import numpy as np
import pytest

from aurgen.runtime.environment import schema, waves
from seascenes import component, deep_k, free_body, gm, scene, sea_env

SEA = [component(0.3, 1.2, deep_k(1.2), 0.4, 0.1), component(0.1, 2.0, deep_k(2.0), -0.9, 1.3)]


def _model(env):
    return mujoco.MjModel.from_xml_string(scene(free_body(gm("box", (0.4, 0.2, 0.1)), pos=(3.0, -2.0, 0.0),
                                                          mass=8.0), env, integrator="Euler"))


def _triangles(m, d, maxgeom=10000, hide_surface=False):
    opt = mujoco.MjvOption()
    if hide_surface:
        opt.geomgroup[2] = 0
    scn = mujoco.MjvScene(m, maxgeom=maxgeom)
    cam = mujoco.MjvCamera()
    mujoco.mjv_updateScene(m, d, opt, None, cam, mujoco.mjtCatBit.mjCAT_ALL, scn)
    geoms = [scn.geoms[i] for i in range(scn.ngeom)]
    return [g for g in geoms if g.type == mujoco.mjtGeom.mjGEOM_TRIANGLE], scn


def test_the_surface_is_drawn_on_the_elevation():
    env = sea_env(SEA)
    m = _model(env)
    d = mujoco.MjData(m)
    mujoco.mj_step(m, d, nstep=500)  # t = 1 s
    tris, scn = _triangles(m, d)
    assert len(tris) >= 2 * 40 * 40 and scn.ngeom <= scn.maxgeom
    sea = schema.parse(env).waves
    corners = np.array([g.pos for g in tris])
    eta = waves.elevation(sea, corners * [1, 1, 0], d.time)
    assert np.abs(corners[:, 2] - eta).max() < 1e-5, np.abs(corners[:, 2] - eta).max()  # float32 in the scene
    assert np.ptp(eta) > 0.5  # the waves are there to see
    # the grid is centred on the floating body where it is now, 10 m around it
    cx, cy = d.xpos[1][:2]
    assert corners[:, 0].min() == pytest.approx(cx - 10.0, abs=1e-4)
    assert corners[:, 1].max() == pytest.approx(cy + 10.0, abs=1e-4)  # the second triangles' corners
    # each triangle faces up and its legs reach the next corners (its size along its frame's x and y)
    for g in tris[:50]:
        R = np.array(g.mat).reshape(3, 3)
        assert np.cross(R[:, 0], R[:, 1])[2] > 0.9
    # the next time, other heights
    mujoco.mj_step(m, d, nstep=250)
    later, _ = _triangles(m, d)
    assert np.abs(np.array([g.pos[2] for g in later]) - corners[:, 2]).max() > 0.05


def test_it_can_be_hidden_and_still_water_draws_none():
    env = sea_env(SEA)
    m = _model(env)
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    assert _triangles(m, d, hide_surface=True)[0] == []
    still = sea_env(SEA)
    del still["waves"]
    m2 = _model(still)
    d2 = mujoco.MjData(m2)
    mujoco.mj_forward(m2, d2)
    assert _triangles(m2, d2)[0] == []


def test_a_small_scene_gets_what_fits():
    m = _model(sea_env(SEA))
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    tris, scn = _triangles(m, d, maxgeom=300)
    assert 0 < len(tris) <= 300 - 16 and scn.ngeom <= 300
    assert _triangles(m, d, maxgeom=20)[0] == []  # no room for a 2 x 2 grid: nothing


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    from aurgen.cli import main

    out = tmp_path_factory.mktemp("seavis")
    assert main(["worlds", "open_sea", "open_water", "-o", str(out)]) == 0
    return out


@pytest.mark.parametrize("world", ["open_water", "open_sea"])
def test_the_default_view_is_on_the_vehicles(built, world):
    """open_water and open_sea place the BlueBoat at (0, 0, 0.05) and the BlueROV2 at (5, 0, -3): the
    free camera looks at their mean from 1.5 × (the spread + 1.5 m), about 6.6 m, and both are in
    its view (their distance from the camera's axis within the 45° field of view's half-width)."""
    m = mujoco.MjModel.from_xml_path(str(built / "worlds" / f"{world}.xml"))
    cam = mujoco.MjvCamera()
    mujoco.mjv_defaultFreeCamera(m, cam)
    centre = np.array([2.5, 0.0, -1.475])
    spread = math.hypot(2.5, 3.05 / 2)
    assert np.allclose(cam.lookat, centre, atol=1e-12)
    assert cam.distance == pytest.approx(1.5 * (spread + 1.5), rel=1e-12)
    half_height = cam.distance * math.tan(math.radians(m.vis.global_.fovy / 2))
    assert spread < 16 / 9 * half_height and spread + 1.5 > 0.5 * half_height  # in view, and not lost in it


RENDER = """
import os, sys
os.environ["MUJOCO_GL"] = "egl"  # before mujoco: offscreen, no display
import mujoco, numpy as np
from aurgen.runtime.sim import Simulation
sim = Simulation(sys.argv[1])
try:
    r = mujoco.Renderer(sim.model, 240, 320)
except Exception as exc:
    print("NO-GL", exc)
    sys.exit(0)
cam = mujoco.MjvCamera()
mujoco.mjv_defaultFreeCamera(sim.model, cam)
images = []
for t in (11.0, 12.5):  # past the 10 s ramp
    sim.step(int(round((t - sim.data.time) / sim.model.opt.timestep)))
    r.update_scene(sim.data, cam)
    images.append(r.render().astype(int))
hidden = mujoco.MjvOption()
hidden.geomgroup[2] = 0
r.update_scene(sim.data, cam, scene_option=hidden)
images.append(r.render().astype(int))
np.save(sys.argv[2], np.array(images))
"""


def test_the_rendered_sea_moves(built, tmp_path):
    """Offscreen (MUJOCO_GL=egl, in a process of its own: the backend is chosen when mujoco is
    imported), the bottom third of the default view (the surface near the camera, no vehicle)
    changes between 11 and 12.5 s, and again when group 2 is hidden."""
    import subprocess
    import sys

    out = tmp_path / "frames.npy"
    r = subprocess.run([sys.executable, "-c", RENDER, str(built / "worlds" / "open_sea.xml"), str(out)],
                       capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    if "NO-GL" in r.stdout:
        if os.environ.get("AURGEN_REQUIRE_CONSUMERS") == "1":
            pytest.fail(f"no offscreen OpenGL (EGL): {r.stdout}")
        pytest.skip(f"no offscreen OpenGL (EGL): {r.stdout}")
    a, b, hidden = np.load(out)
    lower = slice(160, 240)
    assert np.abs(a[lower] - b[lower]).mean() > 3.0, np.abs(a[lower] - b[lower]).mean()
    assert np.abs(hidden[lower] - b[lower]).mean() > 3.0  # the switch shows
