"""Hostile numbers (issue 22): no tolerance that infinity slips through, numbers read with the grammar the
consumers read (not Python's ``float``), no DOCTYPE, namespaces compared by URI and by prefix.

Each audit case starts from a clean build (blueboat, and the open_water world), edits one file the way
a careless or hostile hand would, and asserts the audit no longer calls it clean: exit 1 with a row
naming the file (and its line), or exit 2 with a one-line message naming the file; never a traceback.
The reference is the consumer: MuJoCo's ``strtod``, libsdformat's and urdfdom's C-locale streams read
no ``1_0``, no Arabic-Indic or full-width digit, no no-break space as a separator; an ``inf`` ctrlrange
is unlimited thrust to MuJoCo; libsdformat reads ``gz:buoyancy`` by its written name.
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest

from aurgen.cli import main
from aurgen.core import numbers

DOCTYPE_ENTITY = '<!DOCTYPE mujoco [<!ENTITY up "51.4849125">]>\n'

# (id, file (under out/), old, new): every one audited clean before issue 22
AUDIT_EDITS = [
    # ---- infinity and overflow against a finite render (the relative tolerance was infinite)
    ("ctrlrange-inf", "blueboat/blueboat.xml", 'ctrlrange="-39.9130655 51.4849125"', 'ctrlrange="-inf inf"'),
    ("ctrlrange-1e999", "blueboat/blueboat.xml", 'ctrlrange="-39.9130655 51.4849125"', 'ctrlrange="-39.9130655 1e999"'),
    ("ctrlrange-minus-1e999", "blueboat/blueboat.xml", 'ctrlrange="-39.9130655 51.4849125"', 'ctrlrange="-1e999 51.4849125"'),
    ("ctrlrange-infinity-word", "blueboat/blueboat.xml", 'ctrlrange="-39.9130655 51.4849125"', 'ctrlrange="-39.9130655 Infinity"'),
    ("gear-inf", "blueboat/blueboat.xml", 'gear="1.0 0.0 0.0 0.0 0.0 0.0"', 'gear="inf 0.0 0.0 0.0 0.0 0.0"'),
    ("gear-1e999", "blueboat/blueboat.xml", 'gear="1.0 0.0 0.0 0.0 0.0 0.0"', 'gear="1e999 0.0 0.0 0.0 0.0 0.0"'),
    ("gear-1e400-torque", "blueboat/blueboat.xml", 'gear="1.0 0.0 0.0 0.0 0.0 0.0"',
     'gear="1.0 0.0 0.0 0.0 0.0 1e400"'),
    ("damping-minus-inf", "blueboat/blueboat.xml", "0.0 -20.0 0.0", "0.0 -inf 0.0"),
    ("damping-1e999", "blueboat/blueboat.xml", "0.0 -20.0 0.0", "0.0 -1e999 0.0"),
    ("damping-quadratic-inf", "blueboat/blueboat.xml", "0.0 -40.0 0.0", "0.0 -1e309 0.0"),
    ("mjcf-site-pos-inf", "blueboat/blueboat.xml", 'pos="-0.002666 0.368156 0.131239" group="1"',
     'pos="-0.002666 0.368156 1e999" group="1"'),
    ("sdf-max-thrust-inf", "blueboat/model.sdf", "<max_thrust_cmd>51.4849125</max_thrust_cmd>",
     "<max_thrust_cmd>inf</max_thrust_cmd>"),
    ("sdf-max-thrust-1e999", "blueboat/model.sdf", "<max_thrust_cmd>51.4849125</max_thrust_cmd>",
     "<max_thrust_cmd>1e999</max_thrust_cmd>"),
    ("sdf-min-thrust-minus-inf", "blueboat/model.sdf", "<min_thrust_cmd>-39.9130655</min_thrust_cmd>",
     "<min_thrust_cmd>-1e999</min_thrust_cmd>"),
    ("sdf-thrust-coefficient-inf", "blueboat/model.sdf", "<thrust_coefficient>0.02</thrust_coefficient>",
     "<thrust_coefficient>1e999</thrust_coefficient>"),
    ("sdf-frame-pose-inf", "blueboat/model.sdf", '<pose relative_to="base_link">0.0 0.0 0.15 0.0 0.0 0.0</pose>\n'
     "    </frame>", '<pose relative_to="base_link">0.0 0.0 1e999 0.0 0.0 0.0</pose>\n    </frame>'),
    ("sdf-frame-pose-yaw-inf", "blueboat/model.sdf", '<pose relative_to="base_link">-0.298 0.0 0.2 0.0 0.0 0.0</pose>',
     '<pose relative_to="base_link">-0.298 0.0 0.2 0.0 0.0 inf</pose>'),
    ("urdf-visual-origin-inf", "blueboat/blueboat.urdf", '<origin xyz="-0.002666 0.368156 0.131239" rpy="0.0 0.0 0.0"/>',
     '<origin xyz="-0.002666 0.368156 1e999" rpy="0.0 0.0 0.0"/>'),
    ("urdf-visual-rpy-inf", "blueboat/blueboat.urdf", '<origin xyz="-0.002666 0.368156 0.131239" rpy="0.0 0.0 0.0"/>',
     '<origin xyz="-0.002666 0.368156 0.131239" rpy="0.0 inf 0.0"/>'),
    ("world-frame-pos-1e999", "worlds/open_water.xml", '<frame name="blueboat" pos="0.0 0.0 0.05"',
     '<frame name="blueboat" pos="0.0 0.0 1e999"'),
    # ---- digits and separators Python's float reads and the consumers do not
    ("underscore-digits", "blueboat/blueboat.xml", 'ctrlrange="-39.9130655 51.4849125"', 'ctrlrange="-4_0.2 5_1.5"'),
    ("arabic-indic-digits", "blueboat/blueboat.xml", 'ctrlrange="-39.9130655 51.4849125"',
     'ctrlrange="-\u0664\u0660.\u0662 \u0665\u0661.\u0665"'),
    ("full-width-digits", "blueboat/blueboat.xml", 'ctrlrange="-39.9130655 51.4849125"', 'ctrlrange="-40.2 \uff15\uff11.\uff15"'),
    ("devanagari-digit", "blueboat/model.sdf", "<max_thrust_cmd>51.4849125</max_thrust_cmd>",
     "<max_thrust_cmd>\u096b1.5</max_thrust_cmd>"),
    ("no-break-space-separator", "blueboat/blueboat.xml", 'ctrlrange="-39.9130655 51.4849125"', 'ctrlrange="-40.2\u00a051.5"'),
    ("em-space-separator", "blueboat/blueboat.urdf", 'xyz="-0.002666 0.368156 0.131239" rpy',
     'xyz="-0.002666\u20030.368156 0.131239" rpy'),
    ("sdf-pose-nbsp", "blueboat/model.sdf", "<pose>0.0212659 0.0 0.0724998 0.0 0.0 0.0</pose>",
     "<pose>0.0212659\u00a00.0 0.0724998 0.0 0.0 0.0</pose>"),  # the base link's inertial
    ("integer-group-fraction", "blueboat/blueboat.xml", 'group="1" contype="0"', 'group="1.0000000001" contype="0"'),
    ("integer-contype-float", "blueboat/blueboat.xml", 'group="1" contype="0"', 'group="1" contype="0.0"'),
    ("integer-conaffinity-exp", "blueboat/blueboat.xml", 'contype="0" conaffinity="0"',
     'contype="0" conaffinity="0e0"'),
    ("mjcf-mass-arabic-indic", "blueboat/blueboat.xml", None, "mass-digits"),
    # ---- DOCTYPE, entities, namespaces
    ("mjcf-doctype-entity", "blueboat/blueboat.xml", 'ctrlrange="-39.9130655 51.4849125"', 'ctrlrange="-39.9130655 &up;"'),
    ("mjcf-doctype-empty", "blueboat/blueboat.xml", None, "doctype:<!DOCTYPE mujoco>\n"),
    ("urdf-external-doctype", "blueboat/blueboat.urdf", None, 'doctype:<!DOCTYPE robot SYSTEM "robot.dtd">\n'),
    ("sdf-doctype-entity", "blueboat/model.sdf", None, 'doctype:<!DOCTYPE sdf [<!ENTITY t "true">]>\n'),
    ("world-doctype", "worlds/open_water.xml", None, "doctype:<!DOCTYPE mujoco>\n"),
    ("sdf-gz-prefix-rebound", "blueboat/model.sdf", None, "rebind"),
    ("sdf-gz-extra-prefix", "blueboat/model.sdf", 'xmlns:gz="http://gazebosim.org/schema"',
     'xmlns:gz="http://gazebosim.org/schema" xmlns:zz="http://gazebosim.org/schema"'),
    ("sdf-gz-other-uri", "blueboat/model.sdf", 'xmlns:gz="http://gazebosim.org/schema"',
     'xmlns:gz="http://gazebosim.org/schemas"'),
]


def _apply(path: Path, old, new) -> None:
    text = path.read_text(encoding="utf-8")
    if old is not None:
        assert old in text, (old, path)
        if new.startswith('ctrlrange="-39.9130655 &up;"'):
            text = text.replace("\n<mujoco", "\n" + DOCTYPE_ENTITY.rstrip("\n") + "\n<mujoco", 1)
        text = text.replace(old, new, 1)
    elif new.startswith("doctype:"):
        head, rest = text.split("\n", 1)  # after the header line, before the specs comment
        text = head + "\n" + new[len("doctype:"):] + rest
    elif new == "rebind":
        import re

        text = text.replace('xmlns:gz="http://gazebosim.org/schema"', 'xmlns:zz="http://gazebosim.org/schema"')
        text = re.sub(r" gz:(\w+)=", r" zz:\1=", text)  # the attributes only: plugin names keep gz::
    elif new == "mass-digits":
        import re

        m = re.search(r'<inertial [^>]*mass="([0-9.]+)"', text)
        assert m, "no inertial mass"
        arabic = m.group(1).translate(str.maketrans("0123456789", "\u0660\u0661\u0662\u0663\u0664\u0665\u0666"
                                                    "\u0667\u0668\u0669"))
        text = text[:m.start(1)] + arabic + text[m.end(1):]
    path.write_text(text, encoding="utf-8")


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    root = tmp_path_factory.mktemp("clean")
    assert main(["build", "blueboat.yaml", "-o", str(root / "out")]) == 0
    assert main(["worlds", "open_water", "-o", str(root / "out")]) == 0
    return root


@pytest.fixture
def out(clean, tmp_path, capsys):
    shutil.copytree(clean / "out", tmp_path / "out", symlinks=True)
    capsys.readouterr()
    return tmp_path / "out"


def test_the_clean_build_audits_clean(out, capsys):
    assert main(["audit", str(out)]) == 0, capsys.readouterr().out


@pytest.mark.parametrize("fname,old,new", [c[1:] for c in AUDIT_EDITS], ids=[c[0] for c in AUDIT_EDITS])
def test_an_edited_number_is_never_clean(out, capsys, fname, old, new):
    path = out / fname
    _apply(path, old, new)
    code = main(["audit", "--json", str(path.parent if fname.startswith("blueboat") else path)])
    cap = capsys.readouterr()
    assert "Traceback" not in cap.err
    doc = json.loads(cap.out)
    assert code in (1, 2), doc
    if code == 1:
        assert any(d["file"].split(":")[0] == str(path) for d in doc["differences"]), doc["differences"]
    else:
        assert any(str(path) in m for m in doc["unreadable"]), doc["unreadable"]
        assert all("\n" not in m for m in doc["unreadable"])


def test_case_ids_are_unique():
    ids = [c[0] for c in AUDIT_EDITS]
    assert len(ids) == len(set(ids))


# ---- the grammar itself

@pytest.mark.parametrize("word", ["1_0", "\u0661", "\uff11", "1\u00a0", "inf", "-inf", "nan", "Infinity", "0x10",
                                  "1e", "e1", ".", "+", "1.0.0", "--1", " 1", "١.٥", "1,5", "٫5"])
def test_xml_grammar_refuses(word):
    assert numbers.xml_float(word) is None


@pytest.mark.parametrize("word,value", [("1", 1.0), ("-1.", -1.0), (".5", 0.5), ("+2e3", 2000.0), ("1E-2", 0.01),
                                        ("1e999", math.inf)])
def test_xml_grammar_reads(word, value):
    assert numbers.xml_float(word) == value


def test_xml_words_split_on_xml_space_only():
    assert numbers.xml_words(" 1\t2\r\n3 ") == ["1", "2", "3"]
    assert numbers.xml_words("1\u00a02") == ["1\u00a02"]
    assert numbers.xml_floats("1\u00a02") is None


@pytest.mark.parametrize("x,y,same", [(math.inf, 1.0, False), (1.0, math.inf, False), (-math.inf, math.inf, False),
                                      (math.inf, math.inf, True), (math.nan, math.nan, False), (math.nan, 1.0, False),
                                      (1e308, math.inf, False), (0.0, 1e-12, True), (1.0, 1.0 + 2e-9, False),
                                      (1e20, 1e20 * (1 + 1e-10), True)])
def test_close_has_a_floor_and_no_infinite_tolerance(x, y, same):
    ok, d, tol = numbers.close(x, y, 1e-9)
    assert ok is same and math.isfinite(tol)


def test_xmldiff_namespaces_by_uri_and_prefix():
    from aurgen.check.xmldiff import compare

    doc = '<m xmlns:gz="http://gazebosim.org/schema"><c gz:b="true"/></m>'
    rebound = '<m xmlns:zz="http://gazebosim.org/schema"><c zz:b="true"/></m>'
    rows = compare(rebound, doc)
    assert rows and any(r.attribute == "(namespaces)" for r in rows), rows
    inner = '<m xmlns:gz="http://gazebosim.org/schema"><c xmlns:gz="urn:x" gz:b="true"/></m>'
    assert compare(inner, doc), "a prefix rebound on an inner element"
    assert compare(doc, doc) == []
