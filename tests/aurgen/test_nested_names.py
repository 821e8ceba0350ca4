"""Default parts nested under a part: how they are named (issue 23, issue 37).

The base's occupants keep the slot's name (``motor_port``, ``thruster_1``). A nested occupant takes
its slot's name too (the BlueBoat's Ping2 on its mount is ``ping``, as in the reference models and
aurgen's earlier output: ``/blueboat/ping/range``, ``blueboat/ping_beam``), unless that name is taken
(by a part or frame placed before it, a slot of the base, or a config entry's ``name:``): then it is
``<carrier>_<slot>`` (a second mount's Ping2, ``ping_mount2_ping``). A slot marked ``carrier_prefix``
(the gripper's jaws, the sampler's cups: components of their part) always names its occupant
``<carrier>_<slot>`` (``gripper_jaw_left``, ``gripper2_jaw_left``), so two grippers on one ROV
compose. A slot's frame is ``<carrier>_<slot>_slot``. The topic derivation against the bridge runs
for the two-gripper vehicle in test_gz_topics.py (tests/data/emit_features/two_grippers.yaml is one
of its configs).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from lxml import etree

from aurgen.compose.resolve import resolve
from aurgen.core.errors import AurgenError
from aurgen.emit.build import build

TWO = Path(__file__).parents[1] / "data" / "emit_features" / "two_grippers.yaml"
JAWS = ["gripper2_jaw_left", "gripper2_jaw_right", "gripper_jaw_left", "gripper_jaw_right"]


def test_two_grippers_compose_their_jaws_named_under_each_carrier():
    v = resolve(TWO)
    names = [l.name for l in v.links]
    assert sorted(n for n in names if "jaw" in n) == JAWS
    assert {j.name: (j.parent, j.child) for j in v.joints if "jaw" in j.name} == {
        f"{c}_{s}_joint": (c, f"{c}_{s}") for c in ("gripper", "gripper2") for s in ("jaw_left", "jaw_right")}
    frames = {f.name: f.link for f in v.frames}
    assert frames["base_link_gripper_slot"] == "base_link"
    for c in ("gripper", "gripper2"):
        assert frames[f"{c}_jaw_left_slot"] == c and frames[f"{c}_jaw_right_slot"] == c
    # the base's occupants keep the slot's name
    assert "thruster_1" in names and "base_link_thruster_1_slot" in frames


def test_two_grippers_get_a_controller_and_a_bridge_entry_per_jaw(built_vehicles):
    sdf = etree.parse(str(built_vehicles / "two_grippers" / "model.sdf")).getroot()
    ctl = sdf.findall("model/plugin[@filename='gz-sim-joint-position-controller-system']")
    assert sorted(c.findtext("joint_name") for c in ctl) == [f"{j}_joint" for j in JAWS]
    assert sorted(c.findtext("topic") for c in ctl) == [f"/rov2g/{j}/cmd_pos" for j in JAWS]
    bridge = yaml.safe_load((built_vehicles / "ros" / "two_grippers_bridge.yaml").read_text(encoding="utf-8"))
    cmds = sorted(e["gz_topic_name"] for e in bridge if e["gz_topic_name"].endswith("/cmd_pos"))
    assert cmds == [f"/rov2g/{j}/cmd_pos" for j in JAWS]
    # every link, joint and frame name in the SDF once (they share one scope)
    model = sdf.find("model")
    scoped = [e.get("name") for e in model if e.tag in ("link", "joint", "frame")]
    assert len(scoped) == len(set(scoped))


def test_a_name_that_still_collides_names_both_entries(tmp_path):
    text = TWO.read_text(encoding="utf-8").replace("name: gripper2,", "name: gripper_jaw_left,")
    (tmp_path / "v.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(AurgenError) as ei:
        resolve(tmp_path / "v.yaml")
    msg = str(ei.value)
    # the second claimant (the config entry and its line), the first (the gripper's default jaw, its
    # catalog slot and the config entry that placed the gripper) and what to do
    assert "v.yaml:9: parts[1].type" in msg and "duplicate name 'gripper_jaw_left'" in msg
    assert "filling slot 'jaw_left' of 'gripper'" in msg and "v.yaml:8: parts[0].type places" in msg
    assert "newton_gripper.yaml: slots.jaw_left.default" in msg and "another 'name:'" in msg
    assert "Traceback" not in msg


ROOT = Path(__file__).parents[2]


def _boat(tmp_path, parts: str, slots: str = "") -> Path:
    text = (ROOT / "vehicles" / "blueboat.yaml").read_text(encoding="utf-8")
    assert "\nparts: []\n" in text
    p = tmp_path / "boat.yaml"
    p.write_text(text.replace("\nparts: []\n", ("\nparts:\n" + parts if parts else "\nparts: []") + "\n" + slots, 1)
                 .replace("name: blueboat\n", "name: boat\n"), encoding="utf-8")
    return p


def test_the_default_blueboat_ping2_keeps_the_reference_names():
    v = resolve(ROOT / "vehicles" / "blueboat.yaml")
    names = {l.name for l in v.links}
    assert {"ping_mount", "ping"} <= names and "ping_mount_ping" not in names
    assert {j.name: (j.parent, j.child) for j in v.joints}["ping_joint"] == ("ping_mount", "ping")
    frames = {f.name: f.link for f in v.frames}
    assert frames["ping_beam"] == "ping" and frames["ping_mount_ping_slot"] == "ping_mount"


def test_a_second_mount_names_its_ping2_under_the_mount(tmp_path):
    p = _boat(tmp_path, "  - {type: blueboat_ping_singlebeam_mount, name: ping_mount2, parent: base_link, "
                        "xyz: [0.0, 0.259, 0.01]}")
    v = resolve(p)
    names = [l.name for l in v.links]
    assert "ping" in names and "ping_mount2_ping" in names
    assert {f.name: f.link for f in v.frames}["ping_mount2_ping_beam"] == "ping_mount2_ping"
    out = tmp_path / "out"
    build([str(p)], out)
    sdf = etree.parse(str(out / "boat" / "model.sdf")).getroot()
    got = {s.get("name"): (s.findtext("topic"), s.findtext("gz_frame_id")) for s in sdf.iter("sensor")
           if s.get("type") == "gpu_lidar"}
    assert got == {"ping": ("/blueboat/ping/range", "blueboat/ping_beam"),  # its topic_namespace: blueboat
                   "ping_mount2_ping": ("/blueboat/ping_mount2_ping/range", "blueboat/ping_mount2_ping_beam")}


def test_a_name_a_config_entry_gives_is_never_taken_by_a_default(tmp_path):
    # the free part named 'ping' is placed after the base's slots fill: the default Ping2 yields to it
    p = _boat(tmp_path, "  - {type: ping_singlebeam, name: ping, parent: base_link, xyz: [0.3, 0.0, -0.05]}")
    v = resolve(p)
    parents = {j.child: j.parent for j in v.joints}
    assert parents["ping"] == "base_link" and parents["ping_mount_ping"] == "ping_mount"


def test_a_nested_slot_named_as_a_base_slot_is_named_under_its_carrier(tmp_path):
    # the base's 'payload' slot is empty by default, but its occupant would be 'payload': a nested
    # slot of that name yields, so filling the base's later renames nothing
    slot = ("slots:\n  - {of: ping_mount, name: payload, xyz: [0, 0, 0.05], accepts: [blueboat_payload_bracket], "
            "default: blueboat_payload_bracket}\n")
    v = resolve(_boat(tmp_path, "", slot))
    names = {l.name for l in v.links}
    assert "ping_mount_payload" in names and "payload" not in names
    p = _boat(tmp_path, "  - {slot: payload, type: blueboat_payload_bracket}", slot)
    names = {l.name for l in resolve(p).links}
    assert {"payload", "ping_mount_payload"} <= names


def test_carrier_prefix_must_be_a_boolean(tmp_path):
    text = (ROOT / "vehicles" / "parts" / "newton_gripper.yaml").read_text(encoding="utf-8")
    assert text.count("carrier_prefix: true") == 2
    (tmp_path / "parts").mkdir()
    (tmp_path / "parts" / "newton_gripper.yaml").write_text(text.replace("carrier_prefix: true", "carrier_prefix: 3", 1),
                                                            encoding="utf-8")
    cfg = tmp_path / "v.yaml"
    cfg.write_text(TWO.read_text(encoding="utf-8"), encoding="utf-8")
    with pytest.raises(AurgenError) as ei:
        resolve(cfg)
    assert "newton_gripper.yaml" in str(ei.value) and "slots.jaw_left.carrier_prefix" in str(ei.value), str(ei.value)
