"""aurgen: compose marine vehicles from a parts catalog, emit MJCF/SDF/URDF, simulate."""

__version__ = "0.1.0"
