"""The timestep a model may have (issue 45): a world with a timestep of 1e-300 s built and ran, 1e300 steps a
simulated second. The plugin refuses a model whose timestep is outside 1e-6 .. 0.5 s at init (below, the 1 s
settle window of the health would hold more than the 1e6 heights it keeps; above, fewer than the 2 it needs),
and the runtime refuses the same models, the plugin's or not, in the same words (the bound and why come from
runtime/native/plugin/schema.h through aurgen.runtime._native); ``aurgen sim`` exits 2, one line, nothing
written."""

from __future__ import annotations

import mujoco
import pytest

from aurgen.cli import main
from aurgen.runtime.sim import Simulation, SimulationError
from simfixtures import body, geom, mjcf, water_env

RHO = 1025.0

WORDS = "the model's timestep is {} s; expected 1e-06 to 0.5 s (below, the 1 s settle window of the health"


def _xml(dt, env=True):
    return mjcf(body("a", (0, 0, 0.0), 0.5, (1e-3,) * 3, geom("box", [0.05] * 3)),
                env=water_env(RHO, None) if env else None, timestep=dt)


def _declared(xml):
    return xml.replace("<worldbody>", '<extension><plugin plugin="aurgen.hydrostatics"><instance name="hydrostatics"/>'
                                      "</plugin></extension><worldbody>", 1)


@pytest.mark.parametrize("dt", [1e-300, 1e-7, 0.6, 1e300])
def test_the_plugin_refuses_a_timestep_outside_its_bound(dt):
    from aurgen.runtime import plugin

    plugin.load()
    with pytest.raises(ValueError) as exc:
        mujoco.MjModel.from_xml_string(_declared(_xml(dt)))
    assert WORDS.format(f"{dt:g}") in str(exc.value), str(exc.value)


@pytest.mark.parametrize("dt", [1e-300, 0.6])
@pytest.mark.parametrize("env", [True, False])
def test_simulation_refuses_it_in_the_same_words(dt, env):
    with pytest.raises(SimulationError) as exc:
        Simulation(_xml(dt, env))
    assert WORDS.format(f"{dt:g}") in str(exc.value), str(exc.value)


@pytest.mark.parametrize("dt", [1e-6, 0.5])
def test_the_bounds_themselves_run(dt):
    with Simulation(_xml(dt)) as sim:
        sim.step(2)
        assert sim.model.opt.timestep == dt


@pytest.mark.parametrize("flags", [[], ["--water", "1025"], ["--vacuum"]])
def test_aurgen_sim_refuses_it_exit_2_nothing_written(tmp_path, capsys, flags):
    w = tmp_path / "w.xml"
    w.write_text(_xml(1e-300, env=not flags))
    assert main(["sim", str(w), "--duration", "0.01", "--quiet", "--out", str(tmp_path / "o.csv"), *flags]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and WORDS.format("1e-300") in err, err
    assert str(w) in err and not (tmp_path / "o.csv").exists()
