"""Composition: derived mass properties and declared displacement (pure functions).

Mass, CoM and inertia are derived from the fitted parts; displacement is
declared (USV pontoon segments) or solved (UUV box). Frame: base_link
(REP-103). Units: kg, m, m³, kg·m².
"""

from __future__ import annotations

import math

import numpy as np

from aurgen.core import limits, spatial
from aurgen.config import sensors
from aurgen.compose import hull_mesh
from aurgen.compose.assemble import Assembly, assemble, part_links
from aurgen.config.catalog import Catalog, catalog_for
from aurgen.config.vehicle import Buoyancy, HullDisplacement, MeshHullDisplacement, VehicleConfig, load_vehicle
from aurgen.core.errors import BuildError, ConfigError, did_you_mean
from aurgen.compose.model import Displacement, Geom, Specs, Vehicle
from aurgen.config.shapes import Shape

MAX_BOX_ASPECT = 20.0  # a solved UUV box taller than this × its footprint is absurd


def mass_properties(asm: Assembly) -> tuple[float, np.ndarray, np.ndarray]:
    """(mass kg, CoM m, inertia about the CoM kg·m²) of all parts, in base_link.

    Each part's tensor is rotated into base_link (R I Rᵀ) and shifted by the
    parallel-axis theorem; accumulation follows placement order.
    """
    items = []
    for inst in asm.instances:
        R, t = inst.T[:3, :3], inst.T[:3, 3]
        c = t + spatial.matvec(R, inst.part.com)
        items.append((inst.part.mass, c, spatial.rotate_inertia(np.asarray(inst.part.inertia), R)))
    return spatial.combine(items)


def link_groups(asm: Assembly) -> dict[str, str]:
    """Map each link to the root of its rigid body (links joined by fixed joints)."""
    root = {inst.name: inst.name for inst in asm.instances}
    for j in asm.joints:  # joints are in placement order: a parent's root is known
        root[j.child] = root[j.parent] if j.type == "fixed" else j.child
    return root


def rigid_bodies(asm: Assembly) -> dict[str, tuple[float, np.ndarray, np.ndarray]]:
    """Mass properties of each rigid body (fixed-joined links), in its root link's frame."""
    groups = link_groups(asm)
    members: dict[str, list] = {}
    for inst in asm.instances:
        members.setdefault(groups[inst.name], []).append(inst)
    out = {}
    for rootname, insts in members.items():
        T_root = asm.instance(rootname).T
        items = []
        for inst in insts:
            T = spatial.relative(T_root, inst.T)
            R, t = T[:3, :3], T[:3, 3]
            items.append((inst.part.mass, t + spatial.matvec(R, inst.part.com),
                          spatial.rotate_inertia(np.asarray(inst.part.inertia), R)))
        out[rootname] = spatial.combine(items)
    return out


def hull_boxes(h: HullDisplacement) -> tuple[Geom, ...]:
    """Pontoon segment boxes in base_link: port (+y) then starboard (−y), bow-ward index.

    Segment i of n has length L/n, centre x = x − L/2 + (L/n)(i + ½).
    """
    seg = h.length / h.segments
    boxes = []
    for side, sy in (("port", 1.0), ("stbd", -1.0)):
        for i in range(h.segments):
            cx = h.x - h.length / 2 + seg * (i + 0.5)
            boxes.append(Geom(f"pontoon_{side}_{i}", Shape("box", (seg, h.width, h.height)),
                              (cx, sy * h.y, h.z), (0.0, 0.0, 0.0)))
    return tuple(boxes)


def windage_boxes(h: HullDisplacement) -> tuple[Geom, ...]:
    """One full-length box per hull, for wind on the part above the water."""
    return tuple(Geom(f"windage_{side}", Shape("box", (h.length, h.width, h.height)), (h.x, sy * h.y, h.z),
                      (0.0, 0.0, 0.0)) for side, sy in (("port", 1.0), ("stbd", -1.0)))


def solve_buoyancy_box(b: Buoyancy, mass: float, com: np.ndarray, path: str | None = None) -> Geom:
    """The UUV displacement box: ``V = (m + net)/ρ``, ``h = V/(fx fy)``, centred at the CoB.

    CoB = CoM + offset (``cob_frame: com``) or the offset itself (``base_link``).
    A non-positive or absurd height is a ConfigError naming the key.
    """
    if abs(b.net_buoyancy) > limits.NET_BUOYANCY_RATIO * mass:
        raise ConfigError(path, "buoyancy.net_buoyancy",
                          f"{b.net_buoyancy:+g} kg is more than {limits.NET_BUOYANCY_RATIO:g} times the vehicle's "
                          f"mass ({mass:.6g} kg)", "net_buoyancy is a trim in kg of displaced fluid, a small "
                          "fraction of the mass")
    volume = (mass + b.net_buoyancy) / b.fluid_density
    fx, fy = b.footprint
    h = volume / (fx * fy)
    if not (h > 0.0) or not math.isfinite(h):
        raise ConfigError(path, "buoyancy.net_buoyancy",
                          f"the displacement box solves to a non-positive height ({h:.6g} m): "
                          f"net buoyancy {b.net_buoyancy:+g} kg with a vehicle of {mass:.6g} kg displaces "
                          f"{volume:.6g} m^3", "net_buoyancy must exceed minus the vehicle's mass")
    if h > MAX_BOX_ASPECT * max(fx, fy):
        raise ConfigError(path, "buoyancy.footprint",
                          f"the displacement box solves to {h:.6g} m tall on a {fx:g} x {fy:g} m footprint, "
                          f"more than {MAX_BOX_ASPECT:g} times its width", "check the footprint (m, not mm) "
                          "and net_buoyancy (kg)")
    centre = (np.asarray(com) + np.asarray(b.cob_offset)) if b.cob_frame == "com" else np.asarray(b.cob_offset)
    return Geom("displacement", Shape("box", (fx, fy, h)), tuple(float(c) for c in centre), (0.0, 0.0, 0.0))


def displacement(cfg: VehicleConfig, mass: float, com: np.ndarray) -> Displacement:
    """The declared displacement of ``cfg``, posed in base_link."""
    if isinstance(cfg.hull_displacement, MeshHullDisplacement):
        h = cfg.hull_displacement
        hull = hull_mesh.load_hull(h, cfg.path)
        boxes, fit = hull_mesh.fit_boxes(hull, mass, h.fluid_density, h.segments)
        return Displacement("mesh", "hull_displacement", boxes, h.fluid_density, hull=hull, fit=fit,
                            segments=h.segments)
    if cfg.hull_displacement is not None:
        h = cfg.hull_displacement
        return Displacement("hull", "hull_displacement", hull_boxes(h), h.fluid_density)
    b = cfg.buoyancy
    box = solve_buoyancy_box(b, mass, com, cfg.path)
    return Displacement("buoyancy", "buoyancy_displacement", (box,), b.fluid_density, b.net_buoyancy,
                        tuple(b.cob_offset), b.cob_frame)


def displaced_volume_centroid(disp: Displacement) -> tuple[float, np.ndarray]:
    """Total volume (m³) and centroid (m, base_link) of what displaces: whole boxes, or a mesh
    hull's convex pieces (the kernel's full volumes)."""
    if disp.kind != "mesh":
        return box_volume_centroid(disp.boxes)
    from aurgen.runtime import hydrostatics as hs

    V, first = 0.0, np.zeros(3)
    for g in hull_mesh.kernel_geoms(disp.hull.pieces):
        c = hs.clip(g, (0.0, 0.0, 1.0), hs.support(g, (0.0, 0.0, 1.0)) + 1.0)
        V += c.volume
        first = first + c.volume * np.asarray(c.centroid, float)
    return V, first / V


def kernel_geoms(disp: Displacement) -> list:
    """What displaces as the hydrostatics kernel's geoms (base_link poses; boxes by half sizes)."""
    if disp.kind == "mesh":
        return hull_mesh.kernel_geoms(disp.hull.pieces)
    from aurgen.runtime import hydrostatics as hs

    return [hs.Geom("box", np.asarray(b.shape.dims, dtype=float) / 2, np.asarray(b.xyz, dtype=float),
                    spatial.rot_rpy(b.rpy)) for b in disp.boxes]


def box_volume_centroid(boxes) -> tuple[float, np.ndarray]:
    """Total volume (m³) and centroid (m, base_link) of whole boxes."""
    V = 0.0
    first = np.zeros(3)
    for g in boxes:
        v = g.shape.dims[0] * g.shape.dims[1] * g.shape.dims[2]
        V += v
        first = first + v * np.asarray(g.xyz)
    return V, first / V


def specs(asm: Assembly, disp: Displacement, mass: float, com, inertia) -> Specs:
    """The composed figures (all in base_link)."""
    V, cob = displaced_volume_centroid(disp)
    rho = disp.fluid_density
    return Specs(
        total_mass=mass, com=tuple(float(c) for c in com),
        inertia=tuple(tuple(float(v) for v in row) for row in inertia),
        principal_moments=tuple(float(v) for v in spatial.principal_moments(inertia)),
        volume=V, fluid_density=rho, fluid_mass=rho * V, cob=tuple(float(c) for c in cob),
        bg=tuple(float(c) for c in (cob - np.asarray(com))), buoyancy_margin=rho * V - mass,
        parts=tuple((inst.part.type, inst.name) for inst in asm.instances))


def resolve(config, catalog: Catalog | None = None) -> Vehicle:
    """Load, validate, assemble and compose a vehicle config into a Vehicle."""
    cfg = config if isinstance(config, VehicleConfig) else load_vehicle(config)
    catalog = catalog or catalog_for(cfg.path)
    asm = assemble(cfg, catalog)
    mass, com, inertia = mass_properties(asm)
    disp = displacement(cfg, mass, com)
    windage = (hull_mesh.windage_boxes(disp.hull) if disp.kind == "mesh" else
               windage_boxes(cfg.hull_displacement) if cfg.hull_displacement else ())
    sp = specs(asm, disp, mass, com, inertia)
    check_figures(sp, cfg)
    return Vehicle(
        name=cfg.name, namespace=cfg.namespace, source=cfg.path, sha256=content_hash(cfg, asm),
        config_sha256=cfg.sha256,
        base=cfg.base_name, links=tuple(part_links(asm)), joints=tuple(asm.joints), frames=tuple(asm.frames),
        thrusters=tuple(asm.thrusters), displacement=disp, windage=windage, hydrodynamics=cfg.hydrodynamics,
        specs=sp, sensors=sensors.collect(asm, cfg.namespace, cfg.base_name),
        topic_bases=tuple((n, t.gz, t.ros, t.key, t.line) for n, t in asm.topics.items()),
        openings=openings(cfg, asm), extra_bridge=cfg.extra_bridge,
        discontinued=tuple((i.name, i.part.type, i.part.discontinued) for i in asm.instances
                           if i.part.discontinued is not None),
        ardupilot=cfg.ardupilot, ardupilot_instance=cfg.ardupilot_instance,
        wiring=asm.instance(cfg.base_name).part.ardupilot)


def openings(cfg: VehicleConfig, asm: Assembly) -> tuple:
    """The config's openings as (name, xyz m in base_link): each point placed by its link's pose in base_link
    (moving joints at zero). A link that does not exist is a ConfigError naming the entry."""
    out = []
    links = [inst.name for inst in asm.instances]
    for o in cfg.openings:
        link = o.link or cfg.base_name
        if link not in links:
            raise ConfigError(cfg.path, f"openings[{o.index}].link", f"no link named {link!r} in this vehicle",
                              did_you_mean(link, links) or "name a part's link (aurgen specs lists them)",
                              line=o.line)
        T = np.asarray(asm.instance(link).T, float)
        p = spatial.matvec(T[:3, :3], np.asarray(o.xyz, float)) + T[:3, 3]  # fixed order: no BLAS
        out.append((o.name, tuple(float(c) for c in p)))
    return tuple(out)


def content_hash(cfg: VehicleConfig, asm: Assembly) -> str:
    """sha256 over the config file, the catalog entries it uses (sorted by type) and a hull mesh.

    A change to the config or to any fitted part's catalog entry changes it,
    so the audit can call generated files stale.
    """
    import hashlib

    h = hashlib.sha256()
    h.update(cfg.sha256.encode())
    parts = {}
    for inst in asm.instances:
        parts.setdefault(inst.part.type, inst.part)
    for t in sorted(parts):
        h.update(f"\n{t}:{parts[t].sha256}".encode())
    if isinstance(cfg.hull_displacement, MeshHullDisplacement):  # the hull mesh's bytes
        with open(cfg.hull_displacement.mesh, "rb") as fh:
            h.update(b"\nhull mesh:" + hashlib.sha256(fh.read()).hexdigest().encode())
    return h.hexdigest()


FIGURE_RANGES = (  # (figure, lowest, highest magnitude): the documented sane range of composed figures
    ("total_mass", limits.MASS_MIN, limits.MAX_PARTS * limits.MASS_MAX),
    ("volume", 1e-12, 1e9),
)


def check_figures(sp: Specs, cfg: VehicleConfig) -> None:
    """Every composed figure finite and in its documented range; else a ConfigError naming the
    config key that made it (the displacement section for volume and CoB, the parts for mass)."""
    disp_key = "hull_displacement" if cfg.hull_displacement is not None else "buoyancy"
    blame = {"total_mass": "parts", "com": "parts", "inertia": "parts", "principal_moments": "parts",
             "volume": disp_key, "fluid_mass": disp_key, "cob": disp_key, "bg": disp_key,
             "buoyancy_margin": disp_key}
    for figure, key in blame.items():
        v = np.asarray(getattr(sp, figure), dtype=float)
        if not np.all(np.isfinite(v)):
            raise ConfigError(cfg.path, key, f"the composed {figure.replace('_', ' ')} is not finite ({v.tolist()})",
                              "check the sizes and positions under this key")
    for figure, lo, hi in FIGURE_RANGES:
        v = float(getattr(sp, figure))
        if not lo <= v <= hi:
            raise ConfigError(cfg.path, blame[figure], f"the composed {figure.replace('_', ' ')} {v:g} is outside "
                              f"the sane range [{lo:g}, {hi:g}]", "check the sizes under this key")


def check_build(vehicle: Vehicle) -> None:
    """Sanity of a composed vehicle before emitting (raises BuildError)."""
    if not vehicle.specs.total_mass > 0:
        raise BuildError(f"{vehicle.source}: the vehicle has no mass")
