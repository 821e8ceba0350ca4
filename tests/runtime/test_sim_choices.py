"""``aurgen sim`` never surprises (issue 28): a vehicle file with displacement geoms and no environment
needs an explicit ``--water RHO`` or ``--vacuum`` (it stepped in vacuum, fell 490 m in 10 s and said
"health: ok"); an SDF, URDF or model.config is refused naming the MJCF to simulate (MuJoCo said only
"Unrecognized XML model type: 'sdf'"); the help states the default duration."""

import pytest

from aurgen.cli import build_parser, main

from simfixtures import body, geom, mjcf, water_env

CUBE = body("cube", (0, 0, 0.11), 4.0, (0.027,) * 3, geom("box", [0.1, 0.1, 0.1]))


def _one_error(capsys) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.startswith("aurgen: error: ") and err.count("\n") == 1, err
    return err


def test_a_vehicle_file_without_environment_needs_water_or_vacuum(tmp_path, capsys):
    f = tmp_path / "v.xml"
    f.write_text(mjcf(CUBE))
    assert main(["sim", str(f), "--duration", "0.1", "--quiet"]) == 2
    err = _one_error(capsys)
    assert str(f) in err and "--water RHO" in err and "--vacuum" in err and "displacement" in err, err
    assert main(["sim", str(f), "--duration", "0.1", "--quiet", "--vacuum"]) == 0
    assert main(["sim", str(f), "--duration", "0.1", "--quiet", "--water", "1025"]) == 0
    capsys.readouterr()
    with pytest.raises(SystemExit) as exc:  # argparse: mutually exclusive, exit 2
        main(["sim", str(f), "--quiet", "--water", "1025", "--vacuum"])
    assert exc.value.code == 2
    assert "--vacuum" in capsys.readouterr().err


def test_no_displacement_or_an_environment_needs_no_choice(tmp_path, capsys):
    plain = tmp_path / "plain.xml"  # no geom marked to displace: plain MuJoCo, as before
    plain.write_text(mjcf(body("b", (0, 0, 0), 1.0, (1, 1, 1), geom("sphere", [0.1], mark=0))))
    assert main(["sim", str(plain), "--duration", "0.1", "--quiet"]) == 0
    world = tmp_path / "w.xml"
    world.write_text(mjcf(CUBE, env=water_env(1000.0)))
    assert main(["sim", str(world), "--duration", "0.1", "--quiet"]) == 0
    capsys.readouterr()
    assert main(["sim", str(world), "--duration", "0.1", "--quiet", "--vacuum"]) == 2
    err = _one_error(capsys)
    assert "--vacuum is for a model without an environment" in err, err


@pytest.mark.parametrize("rel,expected", [("build/boat/model.sdf", "build/boat/boat.xml"),
                                          ("build/boat/boat.urdf", "build/boat/boat.xml"),
                                          ("build/boat/model.config", "build/boat/boat.xml"),
                                          ("build/worlds/pool.sdf", "build/worlds/pool.xml")])
def test_an_sdf_or_urdf_names_the_mjcf_to_simulate(tmp_path, monkeypatch, capsys, rel, expected):
    monkeypatch.chdir(tmp_path)
    p = tmp_path / rel
    p.parent.mkdir(parents=True)
    p.write_text("<sdf version='1.9'/>\n")
    assert main(["sim", rel, "--quiet"]) == 2
    err = _one_error(capsys)
    assert "aurgen sim takes the MJCF (<vehicle>.xml) or a world" in err and f"simulate {expected}" in err, err
    assert "Unrecognized" not in err


def test_help_states_the_defaults_and_every_argument():
    sim = build_parser("sim")._subparsers._group_actions[0].choices["sim"]
    duration = next(a for a in sim._actions if a.dest == "duration")
    assert "default: 10" in duration.help
    for command, dest in (("catalog", "json"), ("report", "config"), ("sim", "vacuum")):
        sub = build_parser(command)._subparsers._group_actions[0].choices[command]
        action = next(a for a in sub._actions if a.dest == dest)
        assert action.help, (command, dest)
