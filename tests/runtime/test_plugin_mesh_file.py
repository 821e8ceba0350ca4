"""Mesh displacement geoms from mesh files, as a user's hull comes (issue: "your own hull").

MuJoCo computes a mesh's convex hull (mjModel.mesh_graph) only when some geom collides with
it, and a displacement geom never collides by design; the plugin builds the hull itself from
the mesh's vertices (runtime/native/core/hull.h BuildHull). The references here are trimesh
(the hull's volume, and its volume below the waterline by slicing) and scipy's qhull.
"""

from __future__ import annotations

import mujoco
import numpy as np
import pytest
import trimesh

from aurgen.runtime import plugin as hplugin
from aurgen.runtime.sim import Simulation

from simfixtures import body, mjcf, water_env

RHO = 1000.0


def _declared(xml: str) -> str:
    decl = f'<extension><plugin plugin="{hplugin.NAME}"><instance name="hydrostatics"/></plugin></extension>'
    return xml.replace("<worldbody", decl + "<worldbody", 1)


def _hull_file(tmp_path, mesh: trimesh.Trimesh, name="hull.stl"):
    path = tmp_path / name
    mesh.export(path)
    return path


def _world(path, *, collide: bool, mass: float, name="", inertia="", integrator="implicitfast",
           euler=(0.0, 0.0, 0.0), z=0.05):
    nm = f' name="{name}"' if name else ""
    c = "1" if collide else "0"
    g = f'<geom{nm} type="mesh" mesh="hull" user="1" contype="{c}" conaffinity="{c}"/>'
    b = body("hullbody", (0, 0, z), mass, (mass * 0.02,) * 3, g, euler=euler)
    xml = mjcf(b, env=water_env(RHO), integrator=integrator)
    asset = f'<asset><mesh name="hull" file="{path}"{inertia}/></asset>'
    return _declared(xml.replace("<worldbody>", asset + "<worldbody>", 1))


@pytest.mark.parametrize("integrator", ("Euler", "implicitfast", "RK4"))
def test_a_non_colliding_mesh_file_floats_bitwise_as_a_colliding_one(tmp_path, integrator):
    """The issue's case: a free body with a non-colliding mesh displacement geom compiles and
    simulates, and steps bitwise as the same hull with contype="1" (one hull builder for both)."""
    path = _hull_file(tmp_path, trimesh.creation.icosphere(subdivisions=2, radius=0.2))
    vol = trimesh.load(path).convex_hull.volume
    mass = 0.4 * RHO * vol
    runs = []
    for collide in (False, True):
        xml = _world(path, collide=collide, mass=mass, integrator=integrator, euler=(0.3, 0.1, 0.0))
        m = mujoco.MjModel.from_xml_string(xml)
        assert (m.mesh_graphadr[0] >= 0) == collide  # MuJoCo's hull only for the colliding one
        with Simulation(xml) as sim:
            assert sim._plugin
            sim.step(1000)
            assert sim.check().ok
            runs.append((sim.data.qpos.copy(), sim.data.qvel.copy()))
    assert np.array_equal(runs[0][0], runs[1][0]) and np.array_equal(runs[0][1], runs[1][1])


def test_a_mesh_hull_settles_at_the_draft_trimesh_computes(tmp_path):
    """A non-colliding hull (a cylinder of 48 sides lying along x) settles where the volume
    below the waterline balances its weight (Archimedes, water and air): the mesh's vertices as MuJoCo placed them at the final
    pose (geom_xpos, geom_xmat), hulled and cut at z = 0 by trimesh, an independent slicer."""
    mesh = trimesh.creation.cylinder(radius=0.12, height=0.6, sections=48)
    mesh.apply_transform(trimesh.transformations.rotation_matrix(np.pi / 2, [0, 1, 0]))
    path = _hull_file(tmp_path, mesh)
    mass = 0.35 * RHO * mesh.volume
    with Simulation(_world(path, collide=False, mass=mass, z=0.02)) as sim:
        sim.step(20000)  # 40 s: settled under surface damping
        assert sim.check().ok
        assert np.abs(sim.data.qvel).max() < 1e-6
        m, d = sim.model, sim.data
        va, vn = int(m.mesh_vertadr[0]), int(m.mesh_vertnum[0])
        world = np.array(m.mesh_vert[va:va + vn], dtype=float) @ d.geom_xmat[0].reshape(3, 3).T + d.geom_xpos[0]
    hull = trimesh.Trimesh(world).convex_hull
    below = trimesh.intersections.slice_mesh_plane(hull, plane_normal=[0, 0, -1], plane_origin=[0, 0, 0], cap=True)
    air = 1.225  # water_env's air cell buoys the dry part: mass = rho V_wet + rho_air (V - V_wet)
    assert below.volume == pytest.approx((mass - air * hull.volume) / (RHO - air), rel=1e-6)


def test_an_unnamed_flat_mesh_is_refused_naming_geom_body_and_mesh(tmp_path):
    """A flat mesh MuJoCo accepts (shell inertia) encloses no volume: compilation fails with
    the geom named by its index and body (it has no name), the mesh named, and why."""
    flat = trimesh.Trimesh([[0, 0, 0], [0.3, 0, 0], [0, 0.2, 0], [0.3, 0.2, 0]], [[0, 1, 2], [1, 3, 2]])
    path = _hull_file(tmp_path, flat, "flat.stl")
    xml = _world(path, collide=False, mass=1.0, inertia=' inertia="shell"')
    with pytest.raises(Exception, match=r"geom 0 \(unnamed\) of body 'hullbody' \(mesh displacement, "
                                         r"mesh 'hull'\): all the mesh's vertices lie on one plane"):
        mujoco.MjModel.from_xml_string(xml)


def test_a_named_geom_of_a_type_that_cannot_displace_is_named():
    xml = _declared(mjcf(body("b", (0, 0, 0), 1.0, (0.01,) * 3,
                              '<geom name="deck" type="box" size="0.1 0.1 0.1" contype="0" conaffinity="0"/>'
                              '<geom type="cylinder" fromto="0 0 0 0 0 0.1" size="0.01" user="1" '
                              'contype="0" conaffinity="0"/><geom type="ellipsoid" size="0.1 0.1 0.1"/>'
                              ), env=water_env(RHO)))
    mujoco.MjModel.from_xml_string(xml)  # kernel types: fine
    bad = xml.replace("<worldbody>", '<worldbody><geom type="plane" size="1 1 0.1" user="1"/>', 1)
    with pytest.raises(Exception, match=r"geom 0 \(unnamed\) of body 'world': this type cannot displace fluid"):
        mujoco.MjModel.from_xml_string(bad)
