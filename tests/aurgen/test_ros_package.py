"""The ROS 2 description package ``aurgen build`` writes per vehicle (issue 23):
``<output>/ros/<vehicle>_description/``.

Checked as its consumers read it, without ROS installed:

- ``package.xml`` with catkin_pkg (pip), the parser colcon and ament use
  (``catkin_pkg.package.parse_package``, which runs ``Package.validate``): format 3, no error and no
  warning, build type ament_cmake, an exec_depend on every package the launch file starts;
- ``launch/display.launch.py`` compiled with Python's ``compile()`` (ros2 launch imports it), its
  ``generate_launch_description`` present, and every path it joins to the package's share
  directory (``get_package_share_directory``) a file of the package;
- ``CMakeLists.txt``: ``project()`` the package's name, every folder ``install(DIRECTORY ...)``
  names present, every file of the package installed (or package.xml / CMakeLists.txt itself);
- the URDF and the bridge YAML inside are the build's own bytes; the RViz config's fixed
  frame is the URDF's root link and its RobotModel reads ``/robot_description``;
- every file stamped with the config's file name and sha256, two builds byte-identical, and the
  audit clean on a fresh package and naming an edited, extra, missing or stale file.
"""

from __future__ import annotations

import ast
import re
import shutil
from pathlib import Path

import pytest
import yaml
from lxml import etree

from aurgen.cli import main
from aurgen.compose.resolve import resolve
from aurgen.emit.build import build, bundled_vehicles

catkin_pkg = pytest.importorskip("catkin_pkg.package", reason="catkin_pkg (pip) parses package.xml as colcon does")

ROOT = Path(__file__).resolve().parents[2]
FEATURES = ROOT / "tests" / "data" / "emit_features"
CONFIGS = [str(p) for p in bundled_vehicles()] + [str(FEATURES / n) for n in
                                                  ("features.yaml", "equipped_rov.yaml", "equipped_boat.yaml",
                                                   "topic_keys.yaml")]
IDS = [Path(c).stem for c in CONFIGS]


@pytest.fixture(scope="module")
def out(built_vehicles):
    return built_vehicles


def _pkg(out, config) -> tuple[object, Path]:
    v = resolve(config)
    return v, out / "ros" / f"{v.name.lower()}_description"


def _files(pkg: Path) -> set[str]:
    return {str(p.relative_to(pkg)) for p in pkg.rglob("*")
            if p.is_file() and not any(s.startswith(".") for s in p.relative_to(pkg).parts)}


def _launch_consts(path: Path) -> dict:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return {n.targets[0].id: ast.literal_eval(n.value) for n in tree.body
            if isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Name)
            and isinstance(n.value, ast.Constant)}


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_package_xml_is_a_valid_format_3_ament_package(out, config):
    v, pkg = _pkg(out, config)
    warnings = []
    p = catkin_pkg.parse_package(str(pkg / "package.xml"), warnings=warnings)  # validates; raises on an error
    assert warnings == []
    assert p.package_format == 3 and p.name == f"{v.name.lower()}_description"
    assert p.get_build_type() == "ament_cmake"
    assert [d.name for d in p.buildtool_depends] == ["ament_cmake"]
    execs = {d.name for d in p.exec_depends}
    assert {"robot_state_publisher", "rviz2", "joint_state_publisher", "launch_ros"} <= execs
    assert "xacro" not in execs  # the URDF is written out whole


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_the_launch_file_compiles_and_names_files_of_the_package(out, config):
    v, pkg = _pkg(out, config)
    path = pkg / "launch" / "display.launch.py"
    source = path.read_text(encoding="utf-8")
    code = compile(source, str(path), "exec")  # what ros2 launch does with it (a SyntaxError fails here)
    assert "generate_launch_description" in code.co_names
    tree = ast.parse(source)
    consts = _launch_consts(path)
    assert consts["PACKAGE"] == pkg.name
    # the share directory is looked up, never a path of the machine that built it
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") ==
             "get_package_share_directory"]
    assert len(calls) == 1 and ast.unparse(calls[0].args[0]) == "PACKAGE"
    joined = [ast.unparse(n.args[1]) for n in ast.walk(tree) if isinstance(n, ast.Call)
              and ast.unparse(n.func) == "os.path.join" and ast.unparse(n.args[0]) == "share"]
    assert sorted(joined) == ["RVIZ", "URDF"]
    for name in joined:
        assert (pkg / consts[name]).is_file(), consts[name]
    # every string that looks like a file of the package is one
    for s in (n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)):
        if re.fullmatch(r"[\w/]+\.(urdf|rviz|yaml|py)", s):
            assert (pkg / s).is_file(), s
    # each node's package is a dependency (the GUI one is optional: gui:=true)
    nodes = {kw.value.value for n in ast.walk(tree) if isinstance(n, ast.Call) and ast.unparse(n.func) == "Node"
             for kw in n.keywords if kw.arg == "package"}
    execs = {d.name for d in catkin_pkg.parse_package(str(pkg / "package.xml")).exec_depends}
    assert nodes - execs == {"joint_state_publisher_gui"}
    assert {"robot_state_publisher", "rviz2"} <= nodes


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_cmake_installs_every_folder_of_the_package(out, config):
    v, pkg = _pkg(out, config)
    cmake = (pkg / "CMakeLists.txt").read_text(encoding="utf-8")
    assert re.search(r"^project\((\w+)\)$", cmake, re.M).group(1) == pkg.name
    assert re.search(r"^find_package\(ament_cmake REQUIRED\)$", cmake, re.M)
    assert cmake.rstrip().endswith("ament_package()")
    folders = re.search(r"install\(DIRECTORY ([^\n]+)\n\s+DESTINATION share/\$\{PROJECT_NAME\}", cmake).group(1).split()
    for f in folders:
        assert (pkg / f).is_dir(), f
    files = _files(pkg)
    assert {f for f in files if f.split("/")[0] not in folders} == {"package.xml", "CMakeLists.txt"}
    assert 'PATTERN ".aurgen*" EXCLUDE' in cmake  # the folders' marker and lock stay out of share/
    # meshes/ exactly when the vehicle uses a mesh (tests/data/emit_features' widget does)
    assert ("meshes" in folders) == any(g.shape.kind == "mesh" for link in v.links
                                        for g in (*link.collisions, *link.visuals))


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_the_urdf_and_the_bridge_config_are_the_builds_own(out, config):
    v, pkg = _pkg(out, config)
    # the same bytes, but for each mesh: found through the package (package://) where the vehicle
    # folder's URDF finds it beside itself (meshes/...)
    own = (out / v.name / f"{v.name}.urdf").read_text()
    assert (pkg / "urdf" / f"{v.name}.urdf").read_text() == own.replace(
        'filename="meshes/', f'filename="package://{pkg.name}/meshes/')
    assert (pkg / "config" / f"{v.name}_bridge.yaml").read_bytes() == \
        (out / "ros" / f"{v.name}_bridge.yaml").read_bytes()
    for f in sorted((out / v.name / "meshes").glob("*")) if (out / v.name / "meshes").is_dir() else []:
        if not f.name.startswith("."):
            assert (pkg / "meshes" / f.name).read_bytes() == f.read_bytes()


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_rviz_shows_the_robot_model_in_the_root_links_frame(out, config):
    v, pkg = _pkg(out, config)
    rviz = yaml.safe_load((pkg / "rviz" / f"{v.name}.rviz").read_text(encoding="utf-8"))
    urdf = etree.parse(str(pkg / "urdf" / f"{v.name}.urdf")).getroot()
    children = {j.find("child").get("link") for j in urdf.iter("joint")}
    roots = [link.get("name") for link in urdf.iter("link") if link.get("name") not in children]
    manager = rviz["Visualization Manager"]
    assert manager["Global Options"]["Fixed Frame"] == roots[0] == v.base and len(roots) == 1
    displays = {d["Class"]: d for d in manager["Displays"]}
    model = displays["rviz_default_plugins/RobotModel"]
    assert model["Enabled"] and model["Description Source"] == "Topic"
    # robot_state_publisher publishes robot_description transient-local: a volatile subscriber misses it
    assert model["Description Topic"]["Value"] == "/robot_description"
    assert model["Description Topic"]["Durability Policy"] == "Transient Local"


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_every_file_is_stamped_with_the_config(out, config):
    v, pkg = _pkg(out, config)
    line = f"generated by aurgen {__import__('aurgen').__version__} from {Path(config).name} " \
           f"sha256:{v.config_sha256}; do not edit"
    for rel in sorted(_files(pkg)):
        if rel.startswith("meshes/"):
            continue  # the catalog's mesh files, byte for byte (test_mesh_sets.py)
        first = (pkg / rel).read_text(encoding="utf-8").split("\n", 1)[0]
        if rel.endswith((".xml", ".urdf")):
            assert first == f"<!-- {line} -->", rel
            assert "total mass:" in (pkg / rel).read_text(encoding="utf-8").split("-->", 2)[1], rel
        else:
            assert first == f"# {line}", rel
    assert (out / "ros" / f"{v.name}_bridge.yaml").read_text().split("\n", 1)[0] == f"# {line}"


def test_two_builds_write_the_same_package_bytes(tmp_path):
    config = str(FEATURES / "equipped_rov.yaml")
    trees = []
    for name in ("a", "b"):
        build([config], tmp_path / name)
        root = tmp_path / name / "ros"
        trees.append({str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
                      if p.is_file() and not p.name.startswith(".")})
    assert len(trees[0]) == 7 and trees[0] == trees[1]  # 6 package files and the bridge YAML


@pytest.fixture
def boat(tmp_path):
    cfg = tmp_path / "blueboat.yaml"
    shutil.copy(ROOT / "vehicles" / "blueboat.yaml", cfg)
    build([str(cfg)], tmp_path / "out")
    return cfg, tmp_path / "out" / "ros" / "blueboat_description"


def _audit(capsys, *paths):
    code = main(["audit", *map(str, paths), "--config", str(paths[0]).split("/out")[0] + "/blueboat.yaml"])
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def test_the_audit_covers_the_package(boat, capsys):
    cfg, pkg = boat
    code, out, err = _audit(capsys, pkg.parent.parent)
    assert code == 0 and "clean (10 files" in out, out + err  # 4 vehicle files, 6 of the package
    code, out, err = _audit(capsys, pkg / "urdf")  # a folder inside the package audits the package
    assert code == 0 and "clean (6 files" in out, out + err
    launch = pkg / "launch" / "display.launch.py"
    launch.write_text(launch.read_text().replace('default_value="false"', 'default_value="true"'))
    xml = pkg / "package.xml"
    xml.write_text(xml.read_text().replace("<exec_depend>rviz2</exec_depend>", ""))
    (pkg / "config" / "notes.yaml").write_text("# mine\n")
    (pkg / "rviz" / "blueboat.rviz").unlink()
    bridge = pkg.parent / "blueboat_bridge.yaml"
    bridge.write_text(bridge.read_text().replace("lazy: true", "lazy: false", 1))
    code, out, err = _audit(capsys, pkg.parent.parent)
    assert code == 1, out + err
    rows = [line for line in out.splitlines() if str(pkg.parent) in line]
    assert any(f"{launch}:" in r and "render" in r and 'default_value="true"' in r for r in rows), out
    assert any(f"{xml}:" in r and "exec_depend" in r for r in rows), out
    assert any(str(pkg / "config" / "notes.yaml") in r and "present" in r for r in rows), out
    assert any(str(pkg / "rviz" / "blueboat.rviz") in r and "missing" in r for r in rows), out
    assert any(f"{bridge}:" in r and "lazy: false" in r for r in rows), out
    assert len(rows) == 5, out


def test_a_stale_package_is_one_row(boat, capsys):
    cfg, pkg = boat
    cfg.write_text(cfg.read_text() + "\n# a comment changes the sha256\n")
    assert main(["audit", str(pkg), "--config", str(cfg)]) == 1
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("config sha256")]  # grouped by figure
    assert len(rows) == 1 and rows[0].endswith("[1]") and "stale" in out, out
    assert [line for line in out.splitlines() if line.startswith("  [")] == [f"  [1] {pkg}/package.xml"], out
