"""Default parts nested under a part are named under their carrier (issue 23).

The base's occupants keep the slot's name (``motor_port``, ``thruster_1``); a nested carrier's
occupants are ``<carrier>_<slot>`` (``gripper_jaw_left``, ``gripper2_jaw_left``), so two grippers
on one ROV compose. A slot's frame is ``<carrier>_<slot>_slot`` (it was ``<carrier>_<slot>``, the
name a nested occupant now takes). The topic derivation against the bridge runs for this vehicle in
test_gz_topics.py (tests/data/emit_features/two_grippers.yaml is one of its configs).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from lxml import etree

from aurgen.compose.resolve import resolve
from aurgen.core.errors import AurgenError

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
