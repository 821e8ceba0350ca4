"""Emit: the resolved Vehicle as template contexts, rendered to SDF, URDF and MJCF text.

Templates (``templates/*.j2``) only format; every number comes from here or
from the resolved model, and is written losslessly (``repr`` of a Python
float, the shortest string that round-trips). No physics happens here either:
poses are the composed ones, converted only between notations (rpy to a
MuJoCo quaternion, full edge lengths to MuJoCo half sizes).

Conventions: a pose is (xyz m, rpy rad) of a child in its parent link frame
(aurgen.core.spatial); inertia about the link's CoM in link axes, kg·m².
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from aurgen import __version__
from aurgen.config import sensors
from aurgen.core import spatial
from aurgen.core.errors import BuildError
from aurgen.compose.model import Geom, Vehicle
from aurgen.emit import ardupilot, meshes as mesh_files

# gz-sim-thruster-system's thrust coefficient magnitude; the sign follows the
# propeller's rotation (ccw +, cw −), as the reference models write it.
THRUST_COEFFICIENT = 0.02

# Drag coefficient of the windage boxes for gz-maritime's ocean current (docs/sources.md §5,
# the reference's PR #72): chosen so that 0.5 ρ Cd (2 · width · draft) ≈ 7.0 N s²/m², the
# identified surge xUabsU, at the reference boat's draft (12.3047 kg: 0.0318 m). The Cd is the
# shape's; at a heavier loading the deeper draft gives proportionally more drag. A surface
# vessel's MJCF displacement geoms carry the same C_D (geom user[1], the runtime's form drag
# coefficient), so both simulators drag the hull alike (docs/runtime.md "Drag (the model)").
OCEAN_CURRENT_CD = 1.19

# Gripper (revolute/prismatic) joints: gz-sim's JointPositionController, driving the joint's
# velocity towards the commanded position (use_velocity_commands), at most the joint's velocity limit.
JOINT_POSITION_P_GAIN = 5.0

# Marker links (displacement, windage) need an inertial in SDF: libsdformat gives a link without
# one 1 kg, and DART (gz-physics' dartsim) asserts on a zero-mass body (gz-physics#849). Each
# carries this token, at the base link's centre of mass, and the base link's SDF inertial carries
# that much less (base_sdf_inertial), so the rigid body Gazebo welds together has exactly the
# composed mass, centre of mass and inertia: every <inertial> of model.sdf sums to the specs.
MARKER_MASS = 1e-6
MARKER_INERTIA = 1e-9

# The ROV's translational quadratic damping, as gz-maritime's ocean current wants it: a box
# marked gz:ocean_current about the vehicle (gz_marked_shapes/src/MarkedShapes.cc, ApplyDrag:
# 0.5 ρ Cd A_i |v_i| v_i per box axis, v relative to the water), not Hydrodynamics' xUabsU,
# yVabsV, zWabsW (gz-sim's Hydrodynamics damps against /ocean_current, which gz-maritime
# does not publish). Its length is the displacement box's; the other edges and the Cd make
# 0.5 ρ Cd A_i equal each declared coefficient exactly.
WATER_DRAG = ("xUabsU", "yVabsV", "zWabsW")

# Visual materials by role (RGBA): the base hull, propellers, sensors, any other part.
MATERIALS = {
    "hull": (0.1, 0.3, 0.6, 1.0),
    "propeller": (0.15, 0.15, 0.15, 1.0),
    "sensor": (0.95, 0.7, 0.1, 1.0),
    "part": (0.7, 0.7, 0.7, 1.0),
}


def material_of(rgba) -> dict:
    """A visual's own colour (catalog ``rgba:``) as a material: named by the colour's digest, so
    visuals of one colour share a material and a name always means one colour (URDF's global names)."""
    import hashlib

    rgba = tuple(float(c) for c in rgba)
    return {"name": "aurgen_rgba_" + hashlib.sha256(vec(rgba).encode()).hexdigest()[:8], "rgba": rgba}

_FORCES = "xyzkmn"
_VELS = "UVWPQR"


# ---------------------------------------------------------------- formatting

def num(x) -> str:
    """A float, losslessly: shortest round-trip repr; −0.0 is written 0.0."""
    x = float(x)
    if not math.isfinite(x):
        raise BuildError(f"refusing to write a non-finite number ({x})")
    return repr(x + 0.0)


def vec(v) -> str:
    """Space-separated lossless numbers (a pose, a size, an axis)."""
    return " ".join(num(x) for x in v)


def is_zero(v) -> bool:
    return all(float(x) == 0.0 for x in v)


def quat(rpy) -> tuple:
    """MuJoCo quaternion (w, x, y, z) of fixed-axis roll, pitch, yaw."""
    return tuple(float(q) for q in spatial.quat_of(spatial.rot_rpy(rpy)))


def inertia_entries(I) -> dict:
    """The six entries of a 3×3 tensor (URDF/SDF names; products as the tensor's off-diagonals)."""
    I = np.asarray(I, dtype=float)
    return {"ixx": float(I[0, 0]), "iyy": float(I[1, 1]), "izz": float(I[2, 2]),
            "ixy": float(I[0, 1]), "ixz": float(I[0, 2]), "iyz": float(I[1, 2])}


def fullinertia(I) -> tuple:
    """MJCF ``fullinertia`` order: ixx iyy izz ixy ixz iyz."""
    e = inertia_entries(I)
    return (e["ixx"], e["iyy"], e["izz"], e["ixy"], e["ixz"], e["iyz"])


# ---------------------------------------------------------------- geometry

def geom_ctx(g: Geom) -> dict:
    """A geom for SDF/MJCF: full sizes (SDF) and MuJoCo type/half sizes."""
    s = g.shape
    d = tuple(float(x) for x in s.dims)
    out = {"name": g.name, "kind": s.kind, "xyz": g.xyz, "rpy": g.rpy, "quat": quat(g.rpy),
           "rotated": not is_zero(g.rpy), "dims": d, "mesh": None, "rgba": g.rgba}
    if s.kind == "box":
        out.update(size=d, mj_type="box", mj_size=tuple(x / 2 for x in d))
    elif s.kind in ("cylinder", "capsule"):
        out.update(radius=d[0], length=d[1], mj_type=s.kind, mj_size=(d[0], d[1] / 2))
    elif s.kind == "sphere":
        out.update(radius=d[0], mj_type="sphere", mj_size=(d[0],))
    elif s.kind == "ellipsoid":
        out.update(radii=d, mj_type="ellipsoid", mj_size=d)
    elif s.kind == "mesh":
        src = str(Path(s.mesh).resolve())
        out.update(mj_type="mesh", scale=d, mesh=src, mesh_file=f"{mesh_files.FOLDER}/{mesh_files.name_of(src)}")
    else:
        raise BuildError(f"geom {g.name}: unknown shape {s.kind!r}")
    return out


def urdf_geoms(geoms) -> tuple[list, list]:
    """Geoms URDF can express, and notes on those it cannot.

    URDF has box, cylinder, sphere and mesh. A capsule is written as its exact
    union (a cylinder and two end spheres, names suffixed); an ellipsoid has no
    URDF form and is left out with a note (written as an XML comment).
    """
    out, notes = [], []
    for g in geoms:
        c = geom_ctx(g)
        if c["kind"] == "capsule":
            R = spatial.rot_rpy(g.rpy)
            h = c["length"]
            out.append(dict(c, kind="cylinder", name=f"{g.name}_cylinder"))
            for end, sgn in (("top", 1.0), ("bottom", -1.0)):
                xyz = tuple(float(a) for a in np.asarray(g.xyz, float) + spatial.matvec(R, (0.0, 0.0, sgn * h / 2)))
                out.append(dict(c, kind="sphere", name=f"{g.name}_{end}", xyz=xyz))
        elif c["kind"] == "ellipsoid":
            notes.append(f"{g.name}: ellipsoid (semi-axes {vec(c['radii'])}) left out: URDF has no ellipsoid")
        else:
            out.append(c)
    return out, notes


# ---------------------------------------------------------------- the model

def children_of(vehicle: Vehicle) -> dict:
    """Parent link name → [joint, ...] in placement order."""
    out: dict = {}
    for j in vehicle.joints:
        out.setdefault(j.parent, []).append(j)
    return out


def _joint_ctx(j) -> dict:
    lim = j.limits
    return {"name": j.name, "type": j.type, "parent": j.parent, "child": j.child, "xyz": j.xyz, "rpy": j.rpy,
            "quat": quat(j.rpy), "rotated": not is_zero(j.rpy), "axis": tuple(float(a) for a in j.axis),
            "limits": None if lim is None else {"lower": lim.lower, "upper": lim.upper, "effort": lim.effort,
                                                 "velocity": lim.velocity}}


def _frame_ctx(f) -> dict:
    return {"name": f.name, "link": f.link, "xyz": f.xyz, "rpy": f.rpy, "quat": quat(f.rpy),
            "rotated": not is_zero(f.rpy)}


def _link_ctx(link, frames: list) -> dict:
    """One link; ``frames``: the frame contexts attached to it."""
    return {"name": link.name, "type": link.part_type, "mass": float(link.mass), "com": link.com,
            "inertia": inertia_entries(link.inertia), "fullinertia": fullinertia(link.inertia),
            "collisions": [geom_ctx(g) for g in link.collisions], "visuals": [geom_ctx(g) for g in link.visuals],
            "frames": frames, "joint": None}


def thruster_ctx(vehicle: Vehicle) -> list:
    """The thrusters: limits N (a thrust curve's extremes where the drive names one), ``curve`` its
    (pwm µs, thrust N, ...) data or None, ``servo`` its ArduPilot SERVOn (1-based) or None."""
    out = []
    servo = ardupilot.servo_channels(vehicle)
    for t in vehicle.thrusters:
        d = t.drive
        sign = 1.0 if d.rotation == "ccw" else -1.0
        out.append({"name": t.name, "link": t.link, "joint": t.joint, "axis": tuple(float(a) for a in t.axis),
                    "topic": t.topic, "coefficient": sign * THRUST_COEFFICIENT, "diameter": d.diameter,
                    "max_thrust": d.max_thrust, "min_thrust": d.min_thrust, "rotation": d.rotation,
                    "deadband": d.deadband, "gz_topic": gz_topic(vehicle.namespace, t.topic, "cmd"),
                    "ros_topic": gz_topic(vehicle.namespace, t.ros_topic or t.topic, "cmd"),
                    "curve": None if d.thrust_curve is None else d.thrust_curve.flat(), "servo": servo.get(t.name)})
    return out


def gz_topic(namespace: str, base: str, quantity: str) -> str:
    """``/<ns>/<base>/<quantity>``; a base starting with ``/`` is absolute (the reference's rule)."""
    root = base if base.startswith("/") else f"/{namespace}/{base}"
    return f"{root}/{quantity}"


def sensor_ctx(s) -> dict:
    """One aurgen.config.sensors.Sensor for the SDF template (DVL beam angles in degrees, gz-sim's unit there)."""
    st = sensors.sensor_type(s.type)
    p = dict(s.params)
    if s.type == "dvl":  # a Janus X: four beams at 45, 135, -135 and -45 degrees about the sensor's z
        p["beams"] = [{"id": i + 1, "rotation": rot, "tilt": math.degrees(p["beam_tilt"]),
                       "aperture": math.degrees(p["beam_aperture"])} for i, rot in enumerate((45.0, 135.0, -135.0, -45.0))]
    return {"name": s.name, "type": s.type, "sdf_type": st.sdf, "gz_type": st.gz_type, "xyz": s.xyz, "rpy": s.rpy,
            "rate": s.rate, "topic": s.topic, "frame_id": s.frame_id, "p": p,
            "format": "R_FLOAT32" if st.sdf == "depth_camera" else "R8G8B8", "mj_camera": mj_camera(s)}


# A MuJoCo camera looks along its -z with y up; gz-sim's camera sensor along its +x with z up: the
# MuJoCo camera's axes in the sensor's frame (columns x, y, z: right = -y, up = +z, back = -x).
_MJ_CAMERA_AXES = np.array([[0.0, 0.0, -1.0], [-1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])


def mj_camera(s) -> dict | None:
    """A camera sensor (``camera``, ``rgbd_camera``) as a MuJoCo ``<camera>``: its pose in the link's
    frame (m; quaternion w, x, y, z of the sensor's rotation times the looking-along-x to
    looking-along-minus-z turn), ``fovy`` the vertical field of view in degrees (from the horizontal
    ``hfov``, rad, and the image's aspect), ``resolution`` (width, height) px. None for other sensors."""
    if s.type not in ("camera", "rgbd_camera"):
        return None
    p = dict(s.params)
    w, h = int(p["width"]), int(p["height"])
    fovy = math.degrees(2.0 * math.atan(math.tan(float(p["hfov"]) / 2.0) * h / w))
    q = spatial.quat_of(spatial.matmul(spatial.rot_rpy(s.rpy), _MJ_CAMERA_AXES))  # no BLAS: the same bits anywhere
    return {"xyz": s.xyz, "quat": tuple(float(x) for x in q), "fovy": round(fovy, 9), "resolution": (w, h)}


def controllers_ctx(vehicle: Vehicle) -> list:
    """A JointPositionController per revolute/prismatic joint (grippers): topic ``/<ns>/<child>/cmd_pos``."""
    out = []
    bases = {b[0]: b for b in vehicle.topic_bases}
    for j in vehicle.joints:
        if j.type in ("revolute", "prismatic"):
            lim = j.limits
            _, gz, ros, _, _ = bases.get(j.child, (j.child, None, None, None, None))
            out.append({"joint": j.name, "topic": gz_topic(vehicle.namespace, gz or j.child, "cmd_pos"),
                        "ros_topic": gz_topic(vehicle.namespace, ros or j.child, "cmd_pos"), "child": j.child,
                        "p_gain": JOINT_POSITION_P_GAIN,
                        "cmd_max": lim.velocity if lim is not None and lim.velocity > 0 else 1.0})
    return out


def hydro_matrices(hydrodynamics) -> tuple[dict, list]:
    """The Fossen coefficients as MJCF 6×6 matrices (docs/formats.md), and those that do not fit.

    kind → 36 numbers row-major: damping_linear [i][j] = {F_i}{V_j};
    damping_quadratic [i][j] = {F_i}{V_j}abs{V_i} (the row's own velocity);
    added_mass [i][j] = {F_i}Dot{V_j}. Only kinds with a coefficient appear.
    """
    mats: dict = {}
    skipped = []
    for name, value in hydrodynamics:
        f, v = name[0], name[1:]
        i = _FORCES.index(f)
        if v.startswith("Dot"):
            kind, j = "added_mass", _VELS.index(v[3])
        elif "abs" in v:
            kind, j = "damping_quadratic", _VELS.index(v[0])
            if _VELS.index(v[4]) != i:
                skipped.append(name)
                continue
        else:
            kind, j = "damping_linear", _VELS.index(v[0])
        mats.setdefault(kind, [0.0] * 36)[6 * i + j] = float(value)
    order = ("damping_linear", "damping_quadratic", "added_mass")
    return {k: mats[k] for k in order if k in mats}, skipped


def base_sdf_inertial(vehicle: Vehicle, markers: int) -> dict:
    """The base link's SDF inertial: the composed one less ``markers`` marker tokens (MARKER_MASS,
    MARKER_INERTIA about the same centre of mass), so the welded sum is the composed body."""
    base = vehicle.link(vehicle.base)
    m = float(base.mass) - markers * MARKER_MASS
    inertia = np.asarray(base.inertia, dtype=float) - markers * MARKER_INERTIA * np.eye(3)
    if markers and (m <= 10 * markers * MARKER_MASS or spatial.principal_moments(inertia)[0] <= 0.0):
        raise BuildError(f"{vehicle.source}: base link {vehicle.base}: mass {base.mass} kg is too small to carry "
                         f"the SDF marker links' token inertials ({markers} x {MARKER_MASS} kg); give the base "
                         "part a realistic mass")
    return {"mass": m, "inertia": inertia_entries(inertia)}


def water_drag(vehicle: Vehicle) -> dict | None:
    """The ROV's water_drag box (WATER_DRAG), or None (a USV, or not all three terms declared negative).

    Edges a × a·X/Y × a·X/Z (X, Y, Z the coefficients' magnitudes; a the displacement box's
    length) make the face areas A_x : A_y : A_z = X : Y : Z; Cd = X / (0.5 ρ A_x). Centred on the
    centre of buoyancy, axes base_link's.
    """
    coef = dict(vehicle.hydrodynamics)
    disp = vehicle.displacement
    if vehicle.windage or disp.kind != "buoyancy" or not all(float(coef.get(n, 0.0)) < 0.0 for n in WATER_DRAG):
        return None
    X, Y, Z = (-float(coef[n]) for n in WATER_DRAG)
    a = float(disp.boxes[0].shape.dims[0])
    size = (a, a * X / Y, a * X / Z)
    cd = X / (0.5 * float(disp.fluid_density) * size[1] * size[2])
    return {"name": "water_drag", "size": size, "xyz": tuple(float(c) for c in vehicle.specs.cob),
            "rpy": (0.0, 0.0, 0.0), "cd": cd}


def hull_pieces(disp) -> list:
    """A mesh hull's convex pieces for the MJCF (aurgen.compose.hull_mesh): each a vertex-only mesh
    asset (MuJoCo takes its convex hull, as the plugin does) and a displacement geom; [] otherwise."""
    if disp.kind != "mesh":
        return []
    return [{"name": f"hull_piece_{i}", "vertex": tuple(float(c) for v in p for c in v)}
            for i, p in enumerate(disp.hull.pieces)]


def context(vehicle: Vehicle) -> dict:
    """Everything the templates read, for one vehicle.

    Every lookup a template needs is made here, once, through maps (a link's
    frames, its parent joint, its children, its thrusters), so rendering is
    linear in the number of links: templates only format.
    """
    frames_of: dict = {}
    for f in vehicle.frames:
        frames_of.setdefault(f.link, []).append(_frame_ctx(f))
    links = [_link_ctx(link, frames_of.get(link.name, [])) for link in vehicle.links]
    by_name = {c["name"]: c for c in links}
    joints = [_joint_ctx(j) for j in vehicle.joints]
    for j in joints:
        by_name[j["child"]]["joint"] = j  # the joint placing this link in its parent (none for the base)
        by_name[j["parent"]].setdefault("children", []).append((j, by_name[j["child"]]))
    for c in links:
        c.setdefault("children", [])
        c["thrusters"] = []
    thrusters = thruster_ctx(vehicle)
    for t in thrusters:
        by_name[t["link"]]["thrusters"].append(t)
    sensor_links = {s.link for s in vehicle.sensors if s.link != vehicle.base}
    for c in links:
        role = ("hull" if c["name"] == vehicle.base else "propeller" if c["thrusters"]
                else "sensor" if c["name"] in sensor_links else "part")
        c["material"] = {"name": f"aurgen_{role}", "rgba": MATERIALS[role]}
    disp = vehicle.displacement
    drag = water_drag(vehicle)
    mats, skipped = hydro_matrices(vehicle.hydrodynamics)
    meshes = {}
    taken: set = set()
    next_suffix: dict = {}
    for c in links:
        for g in c["collisions"] + c["visuals"]:
            if g["mesh"] is not None:
                key = (g["mesh"], g["scale"])
                if key not in meshes:
                    stem = Path(g["mesh"]).stem
                    name, k = stem, next_suffix.get(stem, 1)
                    while name in taken:
                        name, k = f"{stem}_{k}", k + 1
                    next_suffix[stem] = k
                    taken.add(name)
                    meshes[key] = {"name": name, "file": g["mesh_file"], "source": g["mesh"], "scale": g["scale"]}
                g["mesh_name"] = meshes[key]["name"]
    sensors_of: dict = {}  # link name -> its sensors, in placement order (one pass: linear in links)
    for s in vehicle.sensors:
        sensors_of.setdefault(s.link, []).append(sensor_ctx(s))
    for c in links:
        c["sensors"] = sensors_of.get(c["name"], [])
    for c, link in zip(links, vehicle.links):
        c["urdf_collisions"], c["urdf_notes"] = urdf_geoms(link.collisions)
        vis, notes = urdf_geoms(link.visuals)
        c["urdf_visuals"] = vis
        c["urdf_notes"] = c["urdf_notes"] + notes
    used: dict = {}  # every visual's material, own colour or its link's role: name -> material
    for c in links:
        for g in c["visuals"] + c["urdf_visuals"]:  # a URDF capsule's pieces carry its rgba
            g["material"] = c["material"] if g["rgba"] is None else material_of(g["rgba"])
            used.setdefault(g["material"]["name"], g["material"])
    ardupilot.check(vehicle)
    return {
        "ardupilot": ardupilot.plugin_ctx(vehicle, thrusters),
        "version": __version__,
        "name": vehicle.name,
        "namespace": vehicle.namespace,
        "source": Path(vehicle.source).name,  # a file name: no local path in shared files
        "base": by_name[vehicle.base],
        "links": links,
        "joints": joints,
        "thrusters": thrusters,
        "curved_thrusters": [t for t in thrusters if t["curve"] is not None],  # MJCF numerics (docs/formats.md)
        "rangefinders": [{"site": n, "direction": d} for n, d in ardupilot.rangefinders(vehicle)] if thrusters else [],
        "hydrodynamics": [(n, float(v)) for n, v in vehicle.hydrodynamics],
        # added mass ({F}Dot{V}) stays out of Gazebo's Hydrodynamics plugin: it applies it as a force from the
        # last step's acceleration, which diverges when added mass exceeds the body's (MJCF carries it)
        "gz_hydrodynamics": [(n, float(v)) for n, v in vehicle.hydrodynamics
                             if "Dot" not in n and (drag is None or n not in WATER_DRAG)],
        "gz_added_mass_left_out": [n for n, _ in vehicle.hydrodynamics if "Dot" in n],
        "water_drag": drag,
        "base_sdf_inertial": base_sdf_inertial(vehicle, 1 + bool(vehicle.windage)),
        "hydro_matrices": mats,
        "hydro_skipped": skipped,
        "displacement": {"kind": disp.kind, "link": disp.link, "boxes": [geom_ctx(g) for g in disp.boxes],
                         "fluid_density": float(disp.fluid_density), "pieces": hull_pieces(disp),
                         # a hull's form drag C_D (the geoms' user[1] after the mark 1), or None
                         "cd": OCEAN_CURRENT_CD if vehicle.windage else None},
        "windage": [geom_ctx(g) for g in vehicle.windage],
        "ocean_current_cd": OCEAN_CURRENT_CD,
        "controllers": controllers_ctx(vehicle),
        "joint_states_topic": f"/{vehicle.namespace}/joint_states",
        "marker_mass": MARKER_MASS,
        "marker_inertia": MARKER_INERTIA,
        "meshes": list(meshes.values()),
        "mesh_sources": False,  # MJCF: the catalog's files (in-memory models only), not the set's copies
        "urdf_mesh_prefix": "",  # the ROS package's copy: package://<package>/
        "materials": [used[n] for n in sorted(used)],
    }


# ---------------------------------------------------------------- rendering

_ENV = None


def environment():
    """The Jinja environment over the bundled templates (``f``: a number, ``v``: a vector),
    precompiled in a wheel (aurgen.emit.templating)."""
    global _ENV
    if _ENV is None:
        from aurgen.emit import templating
        from aurgen.core.resources import data_dir

        _ENV = templating.environment(data_dir("templates"), data_dir("templates_compiled"),
                                      {"f": num, "v": vec})
    return _ENV


TEMPLATES = {"sdf": "model.sdf.j2", "config": "model.config.j2", "urdf": "vehicle.urdf.j2", "mjcf": "vehicle.xml.j2"}


def render(kind: str, vehicle: Vehicle, ctx: dict | None = None) -> str:
    """The body of one output (no header, no specs comment: see aurgen.compose.stamp)."""
    ctx = ctx if ctx is not None else context(vehicle)
    return environment().get_template(TEMPLATES[kind]).render(**ctx)
