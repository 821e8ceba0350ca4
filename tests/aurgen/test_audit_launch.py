"""``aurgen audit`` covers the ROS 2 launch file ``aurgen worlds`` writes beside each Gazebo world
(``<output>/ros/<world>.launch.py``): a line appended, a line changed or the file removed is a row."""

from __future__ import annotations

import pytest

from aurgen.cli import main


@pytest.fixture
def out(tmp_path):
    root = tmp_path / "out"
    assert main(["worlds", "open_water", "-o", str(root)]) == 0
    return root


def _audit(out, capsys):
    capsys.readouterr()
    code = main(["audit", str(out)])
    return code, capsys.readouterr().out


def test_a_clean_world_launch_file_audits_clean(out, capsys):
    code, text = _audit(out, capsys)
    assert code == 0 and "launch" not in text, text


@pytest.mark.parametrize("edit", ["append", "change", "remove"])
def test_an_edited_or_missing_world_launch_file_is_a_row(out, capsys, edit):
    launch = out / "ros" / "open_water.launch.py"
    text = launch.read_text(encoding="utf-8")
    if edit == "append":
        launch.write_text(text + "print('hello')\n", encoding="utf-8")
    elif edit == "change":
        assert "ros_gz_bridge" in text
        launch.write_text(text.replace("ros_gz_bridge", "ros_gz_bridgE", 1), encoding="utf-8")
    else:
        launch.unlink()
    code, report = _audit(out, capsys)
    assert code != 0, report
    assert "open_water.launch.py" in report and ("rebuild with 'aurgen worlds'" in report), report
