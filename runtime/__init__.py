"""aurgen.runtime: the hydrostatic engine on MuJoCo (importable as ``aurgen.runtime``)."""
