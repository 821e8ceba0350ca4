"""The ROS package's audit sees what colcon would install, and a build never writes one vehicle's
package over another's:

- a hidden file (``launch/.evil.launch.py``): ament_cmake's ``install(DIRECTORY launch ...)`` installs it
  like any other, so the audit names it;
- a link in the package (a folder linked in, or the URDF replaced by a link to identical bytes): aurgen
  writes no links, and colcon installs whatever a link points to at its own build time;
- vehicles ``v`` and ``V`` share the package name ``v_description`` (REP 144: lower case): the second
  build is refused, naming both, and nothing of the first is touched.
"""

from __future__ import annotations

import os
import shutil


from aurgen.cli import main

from test_ros_package import ROOT, boat  # noqa: F401 (the built BlueBoat and its package, a fixture)


def _audit(capsys, cfg, pkg):
    code = main(["audit", str(pkg), "--config", str(cfg)])
    cap = capsys.readouterr()
    return code, cap.out + cap.err


def test_a_fresh_package_audits_clean(boat, capsys):
    code, out = _audit(capsys, *boat)
    assert code == 0 and "clean (6 files" in out, out


def test_a_hidden_launch_file_is_named(boat, capsys):
    cfg, pkg = boat
    evil = pkg / "launch" / ".evil.launch.py"
    evil.write_text("import os\n")
    code, out = _audit(capsys, cfg, pkg)
    assert code == 1 and str(evil) in out and "colcon would install it" in out, out


def test_a_linked_folder_is_named(boat, capsys, tmp_path):
    cfg, pkg = boat
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "x.launch.py").write_text("import os\n")
    os.symlink(tmp_path / "elsewhere", pkg / "launch" / "more")
    code, out = _audit(capsys, cfg, pkg)
    assert code == 1 and str(pkg / "launch" / "more") in out and "a link" in out, out


def test_a_urdf_replaced_by_a_link_to_the_same_bytes_is_named(boat, capsys, tmp_path):
    cfg, pkg = boat
    urdf = pkg / "urdf" / "blueboat.urdf"
    copy = tmp_path / "copy.urdf"
    shutil.copy(urdf, copy)
    urdf.unlink()
    os.symlink(copy, urdf)
    code, out = _audit(capsys, cfg, pkg)
    assert code == 1 and str(urdf) in out and "a link" in out, out


def test_vehicles_whose_names_differ_in_case_do_not_share_a_package(tmp_path, capsys, monkeypatch):
    text = (ROOT / "vehicles" / "blueboat.yaml").read_text()
    (tmp_path / "v.yaml").write_text(text.replace("name: blueboat", "name: v", 1))
    (tmp_path / "V2.yaml").write_text(text.replace("name: blueboat", "name: V", 1))
    assert "name: v\n" in (tmp_path / "v.yaml").read_text()
    monkeypatch.chdir(tmp_path)
    assert main(["build", "v.yaml", "-o", "out"]) == 0
    pkg = tmp_path / "out" / "ros" / "v_description"
    before = {p: p.read_bytes() for p in pkg.rglob("*") if p.is_file()}
    capsys.readouterr()
    assert main(["build", "V2.yaml", "-o", "out"]) == 2
    err = capsys.readouterr().err
    assert "vehicle 'V' would write its ROS package" in err and "over vehicle 'v''s" in err and "Traceback" not in err
    assert {p: p.read_bytes() for p in pkg.rglob("*") if p.is_file()} == before
    assert not (tmp_path / "out" / "V").exists()
    assert main(["audit", str(pkg), "--config", "v.yaml"]) == 0
