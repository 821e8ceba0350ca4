"""The water as a camera under it sees it: a world's ``underwater: {rgb, visibility}`` (its defaults and
limits; aurgen.config.underwater reads the key, aurgen.emit.worlds writes it as the world MJCF's numeric
:data:`NUMERIC`, aurgen.runtime.sitl.camera draws it as MuJoCo's fog)."""

WATER_RGB = (0.05, 0.30, 0.40)  # the water's colour, 0-1 RGB: blue-green coastal water
VISIBILITY = 8.0  # m from the camera where the water hides everything (a clear harbour's visibility)
VISIBILITY_RANGE = (1.0, 1000.0)  # m: a world's visibility (1 km: clear ocean water many times over)
NUMERIC = "aurgen:underwater"  # the world MJCF's numeric: r, g, b (0-1), visibility (m)
