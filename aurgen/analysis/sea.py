"""A sea on open water from the world ``waves:`` keys (docs/config.md "Waves"), for the runs that
build their own open water rather than load a world: the sweep's time domain
(:mod:`aurgen.analysis.timedomain`, ``time_domain.waves`` and the swept ``waves.*`` keys) and the
gym environments' ``sea=`` (:mod:`aurgen.gym`).

That open water is the time domain's (:func:`aurgen.analysis.timedomain.environment_of`): one
level plane z = 0 (plane 0), water below, air above, gravity 9.81 m/s^2 along -z and no seabed,
so a sea there is deep unless it declares ``depth``. The keys are the world's but ``surface``
(there is one plane): :func:`sea_of` checks them with the world loader's own checks
(aurgen.config.world: which spectrum takes which key, the required ones, each number's range, the
whole numbers) and :func:`aurgen.runtime.environment.waves.synthesize` (the breaking limit, the steepness
warning), so a refusal has the world's words. ``fk`` and ``fk_tolerance`` (the Froude-Krylov method,
docs/kernel.md "Waves") ride on the Sea into the environment's ``waves`` block as declared: ``fk: exact``
is what the MuJoCo Warp backend integrates, so a CPU run declaring it matches a Warp one. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping

from aurgen.core.errors import ConfigError

#: the world keys a sea on open water takes (``surface`` is the one plane), in the docs' order
KEYS = ("spectrum", "height", "period", "hs", "tp", "gamma", "components", "seed", "spreading", "direction",
        "depth", "ramp", "fk", "fk_tolerance")
#: each key's unit (the sweep's column suffix: ``td_waves_period_s``); "" for none
UNITS = {"spectrum": "", "height": "m", "period": "s", "hs": "m", "tp": "s", "gamma": "", "components": "",
         "seed": "", "spreading": "", "direction": "deg", "depth": "m", "ramp": "s", "fk": "", "fk_tolerance": ""}
G = 9.81  # m/s^2, the time domain's open water (environment_of)


def unknown(waves: Mapping) -> str | None:
    """The first key of ``waves`` that is not a sea key (``surface`` included: open water has one plane), or None."""
    for k in waves:
        if k not in KEYS:
            return str(k)
    return None


def sea_of(waves: Mapping, path=None, prefix: str = "waves"):
    """The :class:`aurgen.runtime.environment.waves.Sea` that ``waves`` (a mapping of :data:`KEYS`) declares on open
    water. Raises ConfigError (``path``, the key as ``<prefix>.<key>``) in the world loader's words."""
    from aurgen.config.world import Cell, Plane, _waves
    from aurgen.core.yamlio import Reader

    if not isinstance(waves, Mapping):
        raise ConfigError(path, prefix, f"expected a mapping of the world's waves keys, got {type(waves).__name__}")
    bad = unknown(waves)
    if bad is not None:
        from aurgen.core.errors import did_you_mean

        hint = ("open water has one surface (z = 0): no surface key" if bad == "surface"
                else did_you_mean(bad, KEYS) or f"known keys: {', '.join(KEYS)}")
        raise ConfigError(path, f"{prefix}.{bad}", "unknown key", hint)
    planes = (Plane(name="surface", normal=(0.0, 0.0, 1.0), offset=0.0, size=(200.0, 200.0), centre=(0.0, 0.0, 0.0)),)
    cells = (Cell(name="air", signs=(1,), density=1.225, viscosity=1.81e-5, flow=(0.0, 0.0, 0.0), gravity=None),
             Cell(name="water", signs=(-1,), density=1000.0, viscosity=1.08e-3, flow=(0.0, 0.0, 0.0), gravity=None))
    data = {"waves": {**dict(waves), "surface": "surface"}}
    try:
        return _waves(Reader(path if path is not None else "<sea>"), data, {"type": "uniform", "g": [0.0, 0.0, -G]},
                      planes, cells, ())
    except ConfigError as exc:
        key = exc.key or "waves"
        key = prefix + key[len("waves"):] if key.startswith("waves") else key
        raise ConfigError(path, key, exc.message, exc.hint) from None


def describe(waves: Mapping) -> str:
    """The sea as one line of its declared keys (``spectrum=regular height=0.2 period=3``), in :data:`KEYS`
    order: for a table cell, from a declaration :func:`sea_of` took (its values numbers or a spectrum name)."""
    return " ".join(f"{k}={waves[k]}" for k in KEYS if k in waves and waves[k] is not None)
