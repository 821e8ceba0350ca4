"""The flown vehicle's camera, drawn offscreen as it sees the water (reads MjModel; no I/O).

``aurgen build`` writes a MuJoCo ``<camera>`` per camera sensor of a part (named as the sensor; a
world prefixes it with the vehicle's name, ``bluerov2/camera``), in the optical frame MuJoCo expects
(looking along its -z, y up), with ``fovy`` (vertical field of view, degrees) from the sensor's
horizontal one and its aspect, and ``resolution`` its image size (width, height, px). The view is
drawn from a copy of the model (the physics' own is never touched) with MuJoCo's fog of the water's
colour between :data:`FOG_START` and the water's visibility (metres from the camera), so that an
underwater picture fades to the water's colour with distance: the world config's ``underwater: {rgb,
visibility}``, which ``aurgen build`` writes as the world's numeric ``aurgen:underwater`` (r, g, b,
visibility), each value left out there being :data:`WATER_RGB` and :data:`VISIBILITY`.
"""

from __future__ import annotations

import copy
import math

import mujoco
import numpy as np

from aurgen.core.errors import AurgenError
from aurgen.runtime.environment.underwater import NUMERIC as UNDERWATER
from aurgen.runtime.environment.underwater import VISIBILITY, VISIBILITY_RANGE, WATER_RGB

FOG_START = 0.5  # m from the camera where the fog begins (below any world's visibility)
HEADLIGHT = (0.45, 0.45, 0.45)  # the headlight's diffuse colour: the vehicle's lights, roughly


class CameraError(AurgenError):
    """The flown vehicle has no camera, or the size asked for cannot be drawn."""


def find(model, rig) -> int:
    """The id of the first MuJoCo camera on the flown vehicle (a body under ``rig.body``)."""
    for i in range(model.ncam):
        if int(model.body_rootid[model.cam_bodyid[i]]) == rig.body:
            return i
    raise CameraError(f"--video: {rig.name} carries no camera (no MuJoCo <camera> on it: give it a part with a "
                      "camera sensor, e.g. explorehd_camera in the BlueROV2's camera slot, and rebuild the model "
                      "with this aurgen: earlier builds wrote none)")


def name(model, cam: int) -> str:
    return mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_CAMERA, cam) or f"camera {cam}"


def sensor_size(model, cam: int) -> tuple | None:
    """The camera's image size (width, height) px as the build wrote it; None where it gave none."""
    w, h = (int(v) for v in model.cam_resolution[cam])
    return None if (w, h) == (1, 1) else (w, h)


def parse_size(text: str) -> tuple:
    """``--video-size WxH`` as (width, height) px: even (H.264's 4:2:0), 16–4096."""
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise CameraError(f"--video-size {text!r}: expected WIDTHxHEIGHT in pixels, e.g. 640x480") from None
    if not (16 <= w <= 4096 and 16 <= h <= 4096 and w % 2 == 0 and h % 2 == 0):
        raise CameraError(f"--video-size {text!r}: width and height must be even numbers of pixels, 16–4096")
    return w, h


def even_size(size: tuple) -> tuple:
    """A sensor's size rounded down to even pixels (H.264's 4:2:0 needs them)."""
    return max(16, size[0] // 2 * 2), max(16, size[1] // 2 * 2)


def water(model) -> tuple:
    """(rgb, visibility m) of the water ``model``'s camera looks through: its numeric ``aurgen:underwater``
    (a world built with an ``underwater`` key), else the defaults; CameraError for a numeric that is
    not four numbers in range (a hand-edited file)."""
    i = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_NUMERIC, UNDERWATER)
    if i < 0:
        return WATER_RGB, VISIBILITY
    adr, size = int(model.numeric_adr[i]), int(model.numeric_size[i])
    v = [float(x) for x in model.numeric_data[adr: adr + size]]
    lo, hi = VISIBILITY_RANGE
    if size != 4 or not all(0.0 <= c <= 1.0 for c in v[:3]) or not lo <= v[3] <= hi:
        raise CameraError(f"the model's numeric {UNDERWATER} is {v}: expected r g b (0 to 1) and a visibility of "
                          f"{lo:g} to {hi:g} m; rebuild the world with aurgen build")
    return tuple(v[:3]), v[3]


def view_model(model, size: tuple):
    """A copy of ``model`` set up to draw the camera at ``size`` (width, height) px: the offscreen
    buffer that large, the underwater fog (the water's colour and visibility, :func:`water`; distances
    in metres, set as MuJoCo's fractions of the model's extent) and the headlight."""
    m = copy.copy(model)
    w, h = size
    m.vis.global_.offwidth = max(int(m.vis.global_.offwidth), w)
    m.vis.global_.offheight = max(int(m.vis.global_.offheight), h)
    extent = float(m.stat.extent) if m.stat.extent > 0 else 1.0
    rgb, visibility = water(model)
    m.vis.map.fogstart = FOG_START / extent
    m.vis.map.fogend = visibility / extent
    m.vis.rgba.fog[:] = (*rgb, 1.0)
    m.vis.headlight.diffuse[:] = HEADLIGHT
    return m


class Drawer:
    """Draws camera ``cam`` of ``model`` (a :func:`view_model` copy) at ``size`` (width, height) px for a
    state (``qpos``, and the simulated time ``t`` in s). Its GL context belongs to the thread that made
    it: make, use and close it in one thread. Fog on, shadows off."""

    def __init__(self, model, cam: int, size: tuple):
        self.model, self.cam = model, cam
        self.data = mujoco.MjData(model)
        self.renderer = mujoco.Renderer(model, size[1], size[0])
        self._fog, self._shadow = mujoco.mjtRndFlag.mjRND_FOG, mujoco.mjtRndFlag.mjRND_SHADOW
        self._backdrop = backdrop(model, cam, size)

    def draw(self, qpos, t: float = 0.0) -> np.ndarray:
        """The picture (height, width, 3) uint8 RGB of the state: positions only (kinematics), no physics."""
        d = self.data
        d.qpos[:] = qpos
        d.time = t
        mujoco.mj_kinematics(self.model, d)
        mujoco.mj_camlight(self.model, d)
        r = self.renderer
        r.update_scene(d, camera=self.cam)
        scn = r.scene
        if scn.ngeom < scn.maxgeom:  # the water beyond everything (MuJoCo clears to black where nothing is drawn)
            distance, half, rgba = self._backdrop
            pos = d.cam_xpos[self.cam] - d.cam_xmat[self.cam].reshape(3, 3)[:, 2] * distance
            mujoco.mjv_initGeom(scn.geoms[scn.ngeom], int(mujoco.mjtGeom.mjGEOM_BOX), half, pos,
                                d.cam_xmat[self.cam], rgba)
            scn.geoms[scn.ngeom].category = int(mujoco.mjtCatBit.mjCAT_DECOR)
            scn.ngeom += 1
        scn.flags[self._fog] = 1
        r.scene.flags[self._shadow] = 0  # shadow maps cost 4/5 of a software-GL (llvmpipe) frame
        return r.render()

    def close(self) -> None:
        self.renderer.close()


def backdrop(model, cam: int, size: tuple) -> tuple:
    """(distance m, half-sizes, rgba) of the box drawn behind everything the camera ``cam`` of a
    :func:`view_model` copy sees at ``size``: square to the view axis, past the water's visibility (so the
    fog paints it the water's colour) and covering the field of view twice over. Where MuJoCo draws
    nothing (open water beyond the seabed's plane, the sky) it would clear to black; under water the
    view fades to the water's colour everywhere."""
    extent = float(model.stat.extent) if model.stat.extent > 0 else 1.0
    fog_end = float(model.vis.map.fogend) * extent
    far = float(model.vis.map.zfar) * extent
    distance = min(1.5 * fog_end, 0.9 * far)
    tan_y = math.tan(math.radians(float(model.cam_fovy[cam])) / 2)
    half = np.array([2 * distance * tan_y * size[0] / size[1], 2 * distance * tan_y, 0.01 * distance])
    return distance, half, np.array([*model.vis.rgba.fog[:3], 1.0], dtype=np.float32)


def check_gl(model, cam: int, size: tuple) -> None:
    """Refuse, naming ``--video``, where no offscreen GL context can be made (before anything runs)."""
    try:
        Drawer(view_model(model, size), cam, size).close()
    except Exception as exc:  # noqa: BLE001 - MuJoCo's GL back ends raise what they like
        import os

        gl = os.environ.get("MUJOCO_GL", "(unset)")
        raise CameraError(f"--video: cannot draw offscreen with MUJOCO_GL={gl} ({type(exc).__name__}: "
                          f"{str(exc).splitlines()[0] if str(exc) else 'no reason given'}): install EGL (libegl1) "
                          "or OSMesa and set MUJOCO_GL=egl or osmesa") from None

