"""aurgen.runtime: the hydrostatic engine on MuJoCo (importable as ``aurgen.runtime``).

Its force stage and hydrostatics kernel are compiled at install time (C++17,
``aurgen.runtime._native`` and the MuJoCo plugin ``aurgen.hydrostatics``): nothing
is compiled at run time and nothing is ever written inside the installed package.
"""
