"""One hull, one drag: a hull drags as its shape does, however its displacement geoms are cut;
a degree of freedom the vehicle declares a Fossen term for is not dragged twice; and the bundled
vehicles resist in MuJoCo as their SDF's marked boxes do through gz-maritime.

References, none produced by the code under test:
- closed forms for a box's faces (exposure 0, 1/2, 1; ½ ρ C_D A |v| v on a face);
- gz-maritime (HonuRobotics, 13f11a9) ``gz_marked_shapes/src/MarkedShapes.cc``: ``Resolve`` (a box's
  areas (y z, x z, x y), ``gz:ocean_current_cd``), ``Cut`` (the share of the height below the water)
  and ``ApplyDrag`` (½ ρ Cd A_i |v_i| v_i per shape axis, the x and y areas times Cut's share, z whole),
  re-implemented in ``gz_drag`` below as tests/aurgen/test_gz_mass_drag.py ``apply_drag`` does, applied
  to the boxes read from the built model.sdf;
- the declared Fossen terms of the vehicle configs.
"""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest
import yaml
from lxml import etree

from aurgen.compose.resolve import resolve
from aurgen.emit.build import bundled_vehicles, model_mjcf
from aurgen.runtime._native import face_exposure
from aurgen.runtime.sim import Simulation

from numba_oracle.drag_faces import face_exposure as oracle_exposure
from simfixtures import body, geom, mjcf, water_env

RHO = 1025.0
VEHICLES = {p.stem: p for p in bundled_vehicles()}
GZ = "{http://gazebosim.org/schema}"


def _config(tmp_path, name, **hull):
    cfg = yaml.safe_load(VEHICLES[name].read_text())
    cfg["hull_displacement"].update(hull)
    p = tmp_path / f"{name}_{'_'.join(f'{k}{v}' for k, v in hull.items())}.yaml"
    p.write_text(yaml.safe_dump(cfg))
    return resolve(str(p))


def _settled(xml, seconds=20.0, **kw):
    sim = Simulation(xml, water=RHO, **kw)
    sim.run(seconds)
    return sim


def _resistance(sim, velocities=1.0):
    """Body-axis resistance (N; yaw N m) of the first free body at the settled pose: qfrc_passive at
    1 m/s surge, sway, heave and 1 rad/s yaw less its value at rest."""
    m, d = sim.model, sim.data
    q0 = d.qvel.copy()
    d.qvel[:] = 0
    mujoco.mj_forward(m, d)
    rest = d.qfrc_passive[:6].copy()
    R = d.xmat[1].reshape(3, 3)
    out = []
    for i in range(4):
        d.qvel[:] = 0
        if i < 3:
            d.qvel[:3] = velocities * R[:, i]
        else:
            d.qvel[5] = velocities
        mujoco.mj_forward(m, d)
        f = d.qfrc_passive[:6] - rest
        out.append(float((R.T @ f[:3])[i]) if i < 3 else float(f[5]))
    d.qvel[:] = q0
    mujoco.mj_forward(m, d)
    return np.array(out)


# ------------------------------------------------------------------ the faces' exposure


def _exposure(boxes, welds=None):
    """face_exposure of axis-aligned boxes [(centre, half)], one weld group unless welds says."""
    n = len(boxes)
    gi = np.array([(k, 1, 6, 1) for k in range(n)], np.int64)
    gsz = np.array([h for _, h in boxes], float)
    pos = np.array([c for c, _ in boxes], float)
    mats = np.tile(np.eye(3).reshape(9), (n, 1))
    gw = np.zeros(n, np.int64) if welds is None else np.array(welds, np.int64)
    out, cover = np.zeros((n, 6)), np.zeros((n, 6), np.int64)
    face_exposure(gi, gsz, np.zeros((n, 3)), gw, pos, mats, out, cover)
    want, wcover = oracle_exposure(gi, gsz, np.zeros((n, 3)), gw, pos, mats.reshape(n, 3, 3))
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(cover, wcover)
    return out, cover


def test_faces_shared_by_neighbours_are_not_exposed():
    h = (0.1, 0.05, 0.05)
    e, cover = _exposure([((0, 0, 0), h), ((0.2, 0, 0), h), ((0.4, 0, 0), h)])
    np.testing.assert_array_equal(e[:, :2], [[1, 0], [0, 0], [0, 1]])  # -x, +x: one bow, one stern
    np.testing.assert_array_equal(cover[:, :2], [[-1, 1], [0, 2], [1, -1]])
    np.testing.assert_array_equal(e[:, 2:], 1.0)  # the sides and bottoms all exposed
    # half of the face covered: a neighbour offset by half its width across
    e, _ = _exposure([((0, 0, 0), h), ((0.2, 0.05, 0), h)])
    assert e[0, 1] == 0.5 and e[1, 0] == 0.5
    # another body's geom (another weld group) covers nothing; a gap leaves the face exposed
    assert np.all(_exposure([((0, 0, 0), h), ((0.2, 0, 0), h)], welds=[0, 1])[0] == 1.0)
    assert np.all(_exposure([((0, 0, 0), h), ((0.2001, 0, 0), h)])[0] == 1.0)


# ------------------------------------------------------------------ the same hull, however it is cut


def _split_box_xml(half, axis, n, mesh=False, z=0.0):
    """A free body of one box hull (half sizes), cut in n along axis, or as one mesh."""
    h = np.array(half, float)
    geoms = []
    if mesh:
        v = np.array([[sx * h[0], sy * h[1], sz * h[2]] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])
        geoms.append(f'<geom type="mesh" mesh="hull" user="1" contype="0" conaffinity="0" mass="0"/>')
        asset = '<asset><mesh name="hull" vertex="' + " ".join(repr(float(x)) for x in v.ravel()) + '"/></asset>'
    else:
        asset = ""
        hs = h.copy()
        hs[axis] = h[axis] / n
        for i in range(n):
            c = np.zeros(3)
            c[axis] = -h[axis] + hs[axis] * (2 * i + 1)
            sz, ps = " ".join(repr(float(x)) for x in hs), " ".join(repr(float(x)) for x in c)
            geoms.append(f'<geom type="box" size="{sz}" pos="{ps}" '
                         'user="1" contype="0" conaffinity="0" mass="0"/>')
    return (f'<mujoco><option timestep="0.002"/>{asset}<worldbody><body name="hull" pos="0 0 {z!r}"><freejoint/>'
            '<inertial pos="0 0 0" mass="10" diaginertia="1 1 1"/>' + "".join(geoms) + "</body></worldbody></mujoco>")


def _at_rest_resistance(xml, z, damping=False):
    """The resistance of the hull held at height z (level), drag model only unless damping."""
    with Simulation(xml, water=RHO, damping=damping) as sim:
        sim.data.qpos[:3] = (0.0, 0.0, z)
        sim.data.qpos[3:7] = (1.0, 0.0, 0.0, 0.0)
        return _resistance(sim)


@pytest.mark.parametrize("z", [0.03, 0.01, -0.3], ids=["floating-at-a-seam", "floating", "submerged"])
def test_a_box_hull_split_three_ways_and_its_mesh_drag_alike(z):
    """The same hull (1 x 0.2 x 0.18 m) as one box, as three boxes along x, along y, along z, and as one
    mesh: the same resistance in surge, sway and heave within 1 % (and its yaw about its middle,
    through the pieces' lever arms, within the cut's resolution where only x cuts matter: not asserted)."""
    half = (0.5, 0.1, 0.09)
    one = _at_rest_resistance(_split_box_xml(half, 0, 1), z)
    # the closed form of the uncut box, drag model only: 1/2 rho C_D A |v| v on the faces of its part in
    # each fluid (open water: sea water below z = 0, air above), a side face by its share of the height, a
    # face across up whole, plus the Stokes term 3 pi mu d by the part's share (d: the box's sphere)
    f = min(max(half[2] - z, 0.0), 2 * half[2]) / (2 * half[2])
    face = np.array([4 * half[1] * half[2], 4 * half[0] * half[2], 4 * half[0] * half[1]])
    d = (6 * 8 * half[0] * half[1] * half[2] / math.pi) ** (1 / 3)
    want = np.zeros(3)
    for rho, mu, share in ((RHO, 1.08e-3, f), (1.225, 1.81e-5, 1.0 - f)):
        if share > 0:
            want -= 0.5 * rho * face * np.array([share, share, 1.0]) + 3 * math.pi * mu * d * share
    np.testing.assert_allclose(one[:3], want, rtol=1e-9)
    for label, xml in [("x", _split_box_xml(half, 0, 3)), ("y", _split_box_xml(half, 1, 3)),
                       ("z", _split_box_xml(half, 2, 3)), ("mesh", _split_box_xml(half, 0, 1, mesh=True))]:
        got = _at_rest_resistance(xml, z)
        np.testing.assert_allclose(got[:3], one[:3], rtol=1e-2, err_msg=f"cut in {label}")


# ------------------------------------------------------------------ the BlueBoat: flat in segments, as in Gazebo


@pytest.fixture(scope="module")
def blueboat_table(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("segments")
    out = {}
    for n in (1, 2, 6, 12, 24):
        with _settled(model_mjcf(_config(tmp, "blueboat", segments=n))) as sim:
            out[n] = _resistance(sim)
    return out


def test_blueboat_resistance_is_flat_in_segments(blueboat_table):
    """The issue's table: surge, sway, heave and yaw at 1 m/s (1 rad/s) for 1 to 24 segments, within 1 %."""
    ref = blueboat_table[1]
    for n, row in blueboat_table.items():
        np.testing.assert_allclose(row, ref, rtol=1e-2, err_msg=f"segments: {n}")


def gz_drag(sdf_path, rel, rho, draft_z):
    """gz-maritime MarkedShapes::ApplyDrag summed over the model's gz:ocean_current boxes, the model
    level with its base at the origin, the water surface at z = 0 - draft_z in base_link's frame:
    per box, Cut's share of its height below the water scales the x and y areas, z is whole."""
    model = etree.parse(str(sdf_path)).getroot().find("model")
    total = np.zeros(3)
    for link in model.findall("link"):
        lz = float((link.findtext("pose") or "0 0 0").split()[2])
        for col in link.findall("collision"):
            if (col.get(GZ + "ocean_current") or "").strip().lower() not in ("true", "1"):
                continue
            size = np.array([float(x) for x in col.findtext("geometry/box/size").split()])
            cz = lz + float((col.findtext("pose") or "0 0 0").split()[2])
            cd = float(col.get(GZ + "ocean_current_cd", "1.0"))
            below = np.clip((draft_z - (cz - size[2] / 2)) / size[2], 0.0, 1.0)  # Cut: share below the water
            area = np.array([size[1] * size[2] * below, size[0] * size[2] * below, size[0] * size[1]])
            total += 0.5 * rho * cd * area * np.abs(rel) * rel
    return total


def test_blueboat_resists_as_its_sdf_boxes_do_in_gazebo(built_vehicles):
    """Surge and sway at the settled draft equal gz-maritime's drag on the SDF's windage boxes within
    1 %; heave too with the surface (radiation stand-in) damping off, which Gazebo does not have."""
    v = resolve(str(VEHICLES["blueboat"]))
    xml = model_mjcf(v)
    for damping in (True, False):
        with _settled(xml, damping=damping) as sim:
            d = sim.data
            waterline = -float(d.xpos[1, 2])  # the water surface in base_link's frame (level at rest)
            assert abs(d.xmat[1, 8] - 1.0) < 1e-5  # level: the boxes' heights are vertical
            got = _resistance(sim)
        for i in range(3):
            rel = np.zeros(3)
            rel[i] = -1.0  # the water relative to the boat moving at +1 m/s
            want = gz_drag(built_vehicles / v.name / "model.sdf", rel, RHO, waterline)[i]
            if i < 2 or not damping:
                assert got[i] == pytest.approx(want, rel=1e-2), (i, damping, got[i], want)
            else:
                assert got[i] < want  # heave: the surface damping on top (docs/runtime.md)


@pytest.mark.parametrize("name", ["bluerov2", "bluerov2_heavy"])
def test_rov_resists_with_its_declared_terms_alone(name, built_vehicles):
    """The ROVs declare a Fossen term for every degree of freedom: the geom drag model acts on none, so
    their translational resistance is the declared one and gz-maritime's on their water_drag box."""
    v = resolve(str(VEHICLES[name]))
    dec = dict(v.hydrodynamics)
    with Simulation(model_mjcf(v), water=RHO) as sim:
        sim.data.qpos[2] = -3.0
        got = _resistance(sim)
    for i, n in enumerate(("xUabsU", "yVabsV", "zWabsW")):
        assert dec.get(("xU", "yV", "zW")[i], 0.0) == 0.0  # quadratic terms only: at 1 m/s, the coefficient
        assert got[i] == pytest.approx(dec[n], rel=1e-9, abs=1e-9), (n, got[i], dec[n])
        rel = np.zeros(3)
        rel[i] = -1.0
        gz = gz_drag(built_vehicles / v.name / "model.sdf", rel, v.displacement.fluid_density, 1e9)[i]
        assert gz == pytest.approx(got[i], rel=1e-9), (n, gz, got[i])


# ------------------------------------------------------------------ the drag coefficient a geom carries


@pytest.mark.parametrize("cd", ["-2", "11", "nan", "inf"])
def test_a_bad_drag_coefficient_is_refused_by_the_plugin_and_python_alike(cd):
    """A marked geom's user[1] outside (0, 10]: the plugin (through Simulation) and Python's reader
    (runtime/sim/plan.py, MuJoCo Warp) refuse it with the same words, naming the geom."""
    from aurgen.runtime.hydrostatics.drag import DRAG_COEFFICIENT_ERROR, drag_coefficients
    from aurgen.runtime.sim.plan import SimulationError

    xml = ('<mujoco><worldbody><body name="b"><freejoint/><geom name="hullbox" type="box" size=".2 .1 .1" '
           f'mass="4" user="1 {cd}"/></body></worldbody></mujoco>')
    want = f"geom 'hullbox': {DRAG_COEFFICIENT_ERROR}"
    with pytest.raises(SimulationError) as plugin:
        Simulation(xml, water=RHO)
    assert str(plugin.value) == want
    with pytest.raises(ValueError) as python:
        drag_coefficients(mujoco.MjModel.from_xml_string(xml), [(0, 1)])
    assert str(python.value) == want


def test_a_geoms_drag_coefficient_scales_its_form_drag():
    """user[1] = 2 doubles a submerged box's form drag (the Stokes term keeps its own)."""
    xml = ('<mujoco><worldbody><body name="b" pos="0 0 -2"><freejoint/><geom type="box" size=".2 .1 .1" '
           'mass="4" user="1 {cd}"/></body></worldbody></mujoco>')
    got = {}
    for cd in ("0", "2"):
        with Simulation(xml.format(cd=cd), water=RHO, damping=False) as sim:
            got[cd] = _resistance(sim)[0]
    stokes = 3 * math.pi * 1.08e-3 * (6 * 0.016 / math.pi) ** (1 / 3)
    assert got["0"] == pytest.approx(-(0.5 * RHO * 0.04 + stokes), rel=1e-12)
    assert got["2"] == pytest.approx(-(0.5 * RHO * 2.0 * 0.04 + stokes), rel=1e-12)
