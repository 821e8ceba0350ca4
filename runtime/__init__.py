"""aurgen.runtime: the hydrostatic engine on MuJoCo (importable as ``aurgen.runtime``).

Its force stage and hydrostatics kernel are compiled at install time (C++17,
``aurgen.runtime._native`` and the MuJoCo plugin ``aurgen.hydrostatics``): nothing
is compiled at run time and nothing is ever written inside the installed package.

Its rooms, by who needs them (docs/architecture.md "The runtime"; tests/test_layout.py
keeps the imports between them one way):

- ``hydrostatics``: the static hydrostatics a report needs (the clip of every geom type,
  cells, equilibrium, GZ curves); no MuJoCo.
- ``environment``: what a world's environment may say (``schema``, the plugin's checks in
  Python) and its sea (``waves``).
- ``sim``: the simulation a MuJoCo host runs (``Simulation``, the force stage's plan,
  health, the ``aurgen sim`` and ``aurgen view`` commands).
- ``mjwarp``: the MuJoCo Warp backend (GPU), for its users only.
- ``sitl`` (to come): the ArduPilot bridge, a network component that drives a simulation.

Here at the root: ``_native`` (the compiled core's bindings), ``plugin`` (the engine
plugin's loader, the ``mujoco.plugins`` entry point) and the plugin library itself.
``aurgen.runtime.env``, ``.waves`` and ``.health`` are kept as the documented old paths.
"""
