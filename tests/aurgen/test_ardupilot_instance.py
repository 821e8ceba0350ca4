"""``ardupilot: {instance: N}``: model.sdf's ArduPilotPlugin listens where ``sim_vehicle.py -I N`` sends,
and the ``.parm`` header names that command.

Consumers re-implemented:

- ArduPilot ``libraries/AP_HAL_SITL/SITL_cmdline.cpp`` (``-I``): ``_instance = atoi(optarg)`` (a
  uint8_t in SITL_State) and ``_simin_port += _instance * 10``, _simin_port 9002: the JSON backend
  (``libraries/SITL/SIM_JSON.cpp`` ``output_servos``) sends its servo packets to 9002 + 10·N.
- ardupilot_gazebo ``src/ArduPilotPlugin.cc`` (082a0fe231f6) ``Configure``: ``fdm_port_in`` read as
  ``Get<uint32_t>`` (default 9002) and bound; ``fdm_port_out`` and ``listen_addr`` are deprecated
  (the reply goes to the sender's address): read by tests/data/ardupilot_plugin.cc.

Before this change ``ardupilot:`` took only true or false (a mapping was refused) and the port was 9002
whatever the config said.
"""

from __future__ import annotations

import pytest

from aurgen.cli import main
from aurgen.core.resources import data_dir

from test_ardupilot_gazebo import plugin_reader  # noqa: F401  (the fixture: ArduPilotPlugin's reading)

SIMIN_PORT, STRIDE = 9002, 10  # SITL_cmdline.cpp


def sim_vehicle_port(instance: int) -> int:
    """Where ArduPilot SITL started with ``-I instance`` sends its servo packets."""
    return SIMIN_PORT + instance * STRIDE


def _config(tmp_path, vehicle: str, key: str | None):
    text = (data_dir("vehicles") / f"{vehicle}.yaml").read_text()
    p = tmp_path / f"{vehicle}.yaml"
    p.write_text(text + ("" if key is None else f"\nardupilot: {key}\n"))
    return p


def _build(tmp_path, cfg) -> int:
    return main(["build", str(cfg), "-o", str(tmp_path / "out")])


@pytest.mark.parametrize("vehicle", ["blueboat", "bluerov2"])
@pytest.mark.parametrize("key, instance", [("true", 0), ("{instance: 0}", 0), ("{instance: 1}", 1),
                                          ("{instance: 7}", 7), ("{instance: 255}", 255)],
                         ids=["true", "i0", "i1", "i7", "i255"])
def test_port_and_parm_per_instance(tmp_path, vehicle, key, instance, plugin_reader):  # noqa: F811
    assert _build(tmp_path, _config(tmp_path, vehicle, key)) == 0
    folder = tmp_path / "out" / vehicle
    conf = plugin_reader(folder / "model.sdf")["conf"]
    assert int(conf["fdm_port_in"]) == sim_vehicle_port(instance)
    assert conf["fdm_addr"] == "127.0.0.1"
    text = (folder / f"{vehicle}_sitl.parm").read_text()
    run = [line for line in text.splitlines() if "sim_vehicle.py" in line]
    assert len(run) == 1
    words = run[0].lstrip("# ").split()
    if instance:
        assert words[words.index("-I") + 1] == str(instance)
        assert f"UDP {sim_vehicle_port(instance)}" in text
    else:
        assert "-I" not in words  # instance 0: the command as before (the goldens' line)
    assert f"--add-param-file={vehicle}_sitl.parm" in words


def test_instance_0_is_the_default(tmp_path):
    """``true`` and ``{instance: 0}`` write the same files."""
    from aurgen.compose.stamp import strip

    out = {}
    for key in ("true", "{instance: 0}"):
        d = tmp_path / key.strip("{}: ").replace(" ", "_")
        d.mkdir()
        assert _build(d, _config(d, "bluerov2", key)) == 0
        folder = d / "out" / "bluerov2"
        parm = (folder / "bluerov2_sitl.parm").read_text().split("\n", 1)[1]  # less the header (the config's hash)
        out[key] = [strip((folder / "model.sdf").read_text()), parm]
    assert out["true"] == out["{instance: 0}"]


@pytest.mark.parametrize("key, words", [
    ("{instance: 256}", "ardupilot.instance: expected a whole number in 0..255, got 256"),
    ("{instance: -1}", "ardupilot.instance: expected a whole number in 0..255, got -1"),
    ("{instance: 1.5}", "ardupilot.instance: expected a whole number in 0..255, got 1.5"),
    ("{instance: '1'}", "ardupilot.instance: expected a whole number in 0..255, got '1'"),
    ("{instance: true}", "ardupilot.instance: expected a whole number in 0..255, got True"),
    ("{instance: 1, port: 9012}", "ardupilot.port: unknown key"),
    ("{}", "ardupilot.instance: required key is missing"),
    ("1", "ardupilot: expected true, false or {instance: N}, got 1"),
    ("yes", "ardupilot: expected true, false or {instance: N}, got 'yes'"),
    ("[1]", "ardupilot: expected true, false or {instance: N}, got [1]"),
], ids=["256", "negative", "fraction", "string", "bool", "unknown_key", "empty", "number", "yes", "list"])
def test_bad_instance_refused(tmp_path, capsys, key, words):
    assert _build(tmp_path, _config(tmp_path, "bluerov2", key)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bluerov2.yaml" in err and words in err, err
    assert not (tmp_path / "out").exists()
