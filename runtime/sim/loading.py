"""Loading a model for :class:`aurgen.runtime.sim.Simulation`: compile a source (an MjModel, an
MJCF string or file; a config is refused saying how to build it), MjSpec edits, and the note on a
model with no declared hydrodynamic damping."""

from __future__ import annotations

import contextlib
import math
import os
import stat
import sys

import mujoco
import numpy as np

from aurgen.runtime.sim import attach
from aurgen.runtime import plugin as hplugin
from aurgen.runtime.sim.plan import SimulationError

def _compile(source):
    try:  # a world declares the plugin: make sure it is registered (import mujoco loads it when installed)
        hplugin.load()
    except ImportError:
        pass
    try:
        if isinstance(source, mujoco.MjModel):
            return _check_timestep(source, "MjModel"), None
        s = str(source)
        if s.lstrip().startswith("<"):
            return _check_timestep(mujoco.MjModel.from_xml_string(s), "MJCF string"), ("string", s)
        if s.lower().endswith((".yaml", ".yml")):  # a config, not a model: say how to get the model
            raise SimulationError(f"{s}: a config, not a model: build it first ('aurgen build {s}' for a "
                                  f"vehicle, 'aurgen worlds {s}' for a world), then pass the MJCF it "
                                  f"writes (build/<name>/<name>.xml, build/worlds/<name>.xml)")
        if not os.path.exists(s):
            raise SimulationError(f"{s!r}: no such file (expected an MJCF world or model written by aurgen)")
        if not stat.S_ISREG(os.stat(s).st_mode):  # a FIFO would block MuJoCo's read forever
            raise SimulationError(f"{s}: not a regular file (expected an MJCF world or model written by aurgen)")
        _refuse_special_files(s)
        return _check_timestep(mujoco.MjModel.from_xml_path(s), s), ("path", s)
    except ValueError as exc:
        raise SimulationError(f"{source if not str(source).lstrip().startswith('<') else 'MJCF string'}: "
                              f"MuJoCo could not compile it: {mujoco_words(exc)}") from None


def mujoco_words(exc) -> str:
    """MuJoCo's compile error, one line: where the plugin refused the model at init ("plugin->init failed",
    then the plugin's own warning lines), the plugin's first line, which names the key and what to do."""
    lines = [x.strip() for x in str(exc).splitlines() if x.strip()]
    ours = [x for x in lines if x.startswith(f"{hplugin.NAME} instance ")]
    return ours[0] if ours else " ".join(lines)


def _check_timestep(m, source: str):
    """``m`` if its timestep is one the plugin takes (a model that declares the plugin was refused by it
    already, in these words); else SimulationError naming the source and the bound."""
    why = hplugin.timestep_problem(m.opt.timestep)
    if why:
        raise SimulationError(f"{source}: {why}: set <option timestep> (a world config's timestep:) within it")
    return m


def _body_names(m, ids) -> set:
    return {mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, int(b)) for b in ids}


# the MJCF elements whose file= MuJoCo opens itself (a world's <model>, an <include>, the assets)
_FILE_ELEMENTS = ("include", "model", "mesh", "hfield", "texture", "skin")


def _refuse_special_files(path, seen=None) -> None:
    """Every file an MJCF at ``path`` makes MuJoCo open (``<model file>``, ``<include file>``, the assets,
    relative to the including file or to ``<compiler meshdir/texturedir/assetdir>``), followed through the
    MJCF files it includes, is a regular file where it exists: MuJoCo's read of a FIFO blocks forever (a
    world whose vehicle file is a FIFO hung ``aurgen sim``), and a folder or device is no model. A missing
    file is left to MuJoCo, which names it. SimulationError names the file and who cites it."""
    from lxml import etree

    seen = set() if seen is None else seen
    here = os.path.realpath(path)
    if here in seen:
        return
    seen.add(here)
    try:
        root = etree.parse(path, etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)).getroot()
    except (OSError, etree.XMLSyntaxError):
        return  # MuJoCo says what is wrong with it
    base = os.path.dirname(path)
    comp = root.find("compiler")
    dirs = {} if comp is None else {k: comp.get(k) for k in ("meshdir", "texturedir", "assetdir") if comp.get(k)}
    for el in root.iter(*_FILE_ELEMENTS):
        f = el.get("file")
        if not f:
            continue
        kind = {"mesh": "meshdir", "hfield": "meshdir", "skin": "meshdir", "texture": "texturedir"}.get(el.tag)
        sub = "" if kind is None else dirs.get(kind) or dirs.get("assetdir", "")
        target = os.path.join(base, sub, f)
        try:
            st = os.stat(target)
        except (OSError, ValueError):
            continue
        if not stat.S_ISREG(st.st_mode):
            raise SimulationError(f"{path}: <{el.tag} file=\"{f}\"> is not a regular file ({target}); MuJoCo would "
                                  "block reading it, or fail: point it at the MJCF or asset aurgen wrote")
        if el.tag in ("include", "model"):
            _refuse_special_files(target, seen)


def _read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def _spec_of(src):
    """The MjSpec of a ("path" | "string", path or text) source."""
    kind, s = src
    return mujoco.MjSpec.from_string(s) if kind == "string" else mujoco.MjSpec.from_file(s)


def _recompile_not_simple(src, bodies):
    return attach.not_simple(_spec_of(src), bodies).compile()


NOTED_UNDAMPED: set = set()  # the sources already noted (once per process)
_DEFERRED: list | None = None  # notes held back (deferred_notes), else printed as they come


@contextlib.contextmanager
def deferred_notes():
    """Hold the notes given inside back, in the list it yields (``aurgen sim`` prints them with
    :func:`print_notes` once its checks have passed, so a refusal is the one line printed)."""
    global _DEFERRED
    prev, _DEFERRED = _DEFERRED, []
    try:
        yield _DEFERRED
    finally:
        _DEFERRED = prev


def _note(text: str) -> None:
    """One note line: held back inside deferred_notes, else printed on stderr."""
    if _DEFERRED is not None:
        _DEFERRED.append(text)
    else:
        print(text, file=sys.stderr)


def print_notes(notes) -> None:
    for n in notes:
        print(n, file=sys.stderr)


def note_undamped(m, source: str) -> None:
    """Once per source, one line on stderr: a model with displacement geoms and no declared
    hydrodynamic damping (no ``aurgen:damping_linear`` / ``aurgen:damping_quadratic`` numeric:
    a vehicle config without ``hydrodynamics:``) rolls on with only the drag model and surface
    damping, a damping ratio of about 0.01."""
    if source in NOTED_UNDAMPED or m.nuser_geom < 1:
        return
    if not np.any(np.rint(m.geom_user[:, 0]) == 1):
        return
    for i in range(m.nnumeric):
        name = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_NUMERIC, i) or ""
        if "aurgen:damping_linear:" in name or "aurgen:damping_quadratic:" in name:
            return
    NOTED_UNDAMPED.add(source)
    note = (f"aurgen: note: {source} declares no hydrodynamic damping (no aurgen:damping_linear or "
            "aurgen:damping_quadratic numeric; a vehicle config without hydrodynamics:): only the drag "
            "model and surface damping act, and a roll decays with a damping ratio of about 0.01")
    _note(note)


NOTED_LONG: set = set()  # the sources already noted for geoms long against a sea's waves
LONG_FRACTION = 8  # a geom longer than 1/8 of the shortest wavelength that matters is noted


def note_long_geoms(m, env, source: str) -> None:
    """Once per source, one line on stderr: a displacement geom longer than 1/8 of the shortest
    wavelength among the sea's components of at least a tenth of the largest amplitude (docs/kernel.md
    "Waves"), within reach of the surface at the model's initial pose. Each geom is clipped against its tangent plane of the sea: over a length L the plane
    departs from a wave of amplitude a by up to a (1 - cos(k L / 2)), 7.6 % of a at L = lambda / 8;
    segment such a hull (hull_displacement segments) to follow the wave."""
    if env is None or env.waves is None or source in NOTED_LONG or m.nuser_geom < 1:
        return
    c = np.asarray(env.waves.components, float)
    big = c[:, 0] >= 0.1 * c[:, 0].max()
    if not np.any(big):
        return
    lam = float(np.min(2.0 * np.pi / np.linalg.norm(c[big, 2:5], axis=1)))
    reach = 2.0 * math.sqrt(2.0 * float(np.sum(c[:, 0] ** 2)))  # Hs = 4 sqrt(m0): a crest this high is rare, m
    d = mujoco.MjData(m)
    mujoco.mj_kinematics(m, d)  # the initial pose: a geom far below the surface there is not noted
    n = np.asarray(env.planes[env.waves.surface, :3], float)
    off = float(env.planes[env.waves.surface, 3])
    long = []
    for g in range(m.ngeom):
        if round(float(m.geom_user[g, 0])) != 1:
            continue
        if abs(float(n @ d.geom_xpos[g]) - off) > float(m.geom_rbound[g]) + reach:
            continue
        L = 2.0 * float(np.max(m.geom_aabb[g, 3:6]))  # the geom's longest side (its own frame), m
        if L > lam / LONG_FRACTION:
            long.append((mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_GEOM, g) or f"geom {g}", L))
    if not long:
        return
    NOTED_LONG.add(source)
    names = ", ".join(f"{n} ({L:.3g} m)" for n, L in long[:5]) + (f" and {len(long) - 5} more" if len(long) > 5 else "")
    note = (f"aurgen: note: {source}: displacement geoms longer than 1/{LONG_FRACTION} of the sea's shortest "
            f"wavelength that matters ({lam:.3g} m): {names}; each is clipped against one tangent plane of the "
            "sea, which departs from the wave by up to 7.6 % of its amplitude at that length: segment the hull "
            "(hull_displacement segments) to follow the waves")
    _note(note)
