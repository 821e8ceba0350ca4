"""A world config's ``underwater`` key: the water as a camera under it sees it (loaded and checked here;
aurgen.emit.worlds writes it into the world MJCF, aurgen.runtime.sitl.camera draws it)."""

from __future__ import annotations

KEYS = {"rgb", "visibility"}


def underwater_of(r, data) -> tuple:
    """``underwater: {rgb: [r, g, b], visibility: m}``: the water's colour (0-1 each) and the distance (m)
    at which it hides everything, as a camera under it sees (``aurgen sitl --video`` draws them as MuJoCo's
    fog); (rgb or None, visibility or None), a key left out being the camera's default. ``r`` the world
    file's aurgen.core.yamlio.Reader, ``data`` its top mapping."""
    from aurgen.runtime.environment import underwater as water

    u = r.mapping(data["underwater"], "underwater", node=data, field="underwater")
    r.check_keys(u, KEYS, "underwater")
    rgb = r.vector(u, "rgb", "underwater", 3)
    if rgb is not None and not all(0.0 <= c <= 1.0 for c in rgb):
        raise r.error("underwater.rgb", f"each of red, green, blue is 0 to 1, got {list(rgb)}",
                      f"e.g. {list(water.WATER_RGB)}, blue-green coastal water", node=u, field="rgb")
    lo, hi = water.VISIBILITY_RANGE
    visibility = r.number(u, "visibility", "underwater", at_least=lo, at_most=hi)
    return rgb, visibility
