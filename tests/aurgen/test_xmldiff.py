"""aurgen.check.xmldiff on small hand-written documents: each kind of row, and what is not a difference."""

from __future__ import annotations

from aurgen.check.xmldiff import compare

DOC = """<!-- head -->
<m name="v" xmlns:gz="http://gazebosim.org/schema">
  <a name="x" v="1.0 2.0"/>
  <a name="y" v="3.0"/>
  <b gz:k="true"><c>0.5</c></b>
</m>
"""


def test_same_meaning_is_no_difference():
    assert compare(DOC, DOC) == []
    assert compare(DOC.replace('v="1.0 2.0"', 'v="1   2e0"').replace("  <b", "<b"), DOC) == []


def test_each_kind_of_row():
    (d,) = compare(DOC.replace('v="3.0"', 'v="nan"'), DOC)
    assert (d.line, d.element, d.attribute, d.found, d.expected) == (4, "a[y]", "v", "nan", "3.0")
    (d,) = compare(DOC.replace('gz:k="true"', 'gz:k="false"'), DOC)
    assert (d.line, d.element, d.attribute) == (5, "m[v]/b", "gz:k")
    (d,) = compare(DOC.replace("<c>0.5</c>", "<c>0.5</c><e/>"), DOC)
    assert (d.element, d.attribute, d.found, d.expected) == ("m[v]/b", "(element)", "<e>", "(absent)")
    (d,) = compare(DOC.replace(' v="3.0"', ""), DOC)
    assert (d.attribute, d.found, d.expected) == ("v", "(absent)", "3.0")
    (d,) = compare(DOC.replace("<c>0.5</c>", "<c>0.25</c>"), DOC)
    assert (d.element, d.attribute, d.found, d.expected, d.diff) == ("m[v]/b/c", "(text)", "0.25", "0.5", 0.25)
    (d,) = compare(DOC.replace("head", "neck"), DOC)
    assert (d.line, d.attribute, d.found, d.expected) == (1, "(comment)", "neck", "head")
    (d,) = compare(DOC + "<!-- tail -->\n", DOC)
    assert (d.line, d.element, d.attribute, d.found) == (7, "(top)", "(element)", "<!-- tail -->")


def test_children_in_another_order():
    swapped = DOC.replace('  <a name="x" v="1.0 2.0"/>\n  <a name="y" v="3.0"/>',
                          '  <a name="y" v="3.0"/>\n  <a name="x" v="1.0 2.0"/>')
    (d,) = compare(swapped, DOC)
    assert (d.line, d.element, d.attribute, d.found, d.expected) == (3, "m[v]", "(order)", '<a name="y">',
                                                                     '<a name="x">')


def test_roots_that_differ_or_no_xml_cannot_be_compared():
    assert compare(DOC.replace('<m name="v"', '<m name="w"'), DOC) is None
    assert compare("garbage", DOC) is None
