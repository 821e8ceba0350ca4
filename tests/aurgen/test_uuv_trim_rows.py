"""A UUV with ``cob_frame: com``: ``aurgen specs`` says what the declared trim holds fixed and shows the
as-built trim (the CoB fixed in the hull, as ``cob_frame: base_link``) of 1 kg more at the payload slot.

The reference is computed here: the payload's moment arm moves the CoM by probe (p − G)/(m + probe);
the attitude printed, turned by scipy's rotation, must put the fixed CoB straight above the new CoM;
and the same vehicle recomposed with ``cob_frame: base_link`` and that CoB, plus the 1 kg part, has
the kernel equilibrium the row says."""

from __future__ import annotations

import io
import json
import math
import re
from contextlib import redirect_stdout

import numpy as np
import pytest

from aurgen.cli import main


def _specs(*args):
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert main(["specs", *args]) == 0
    return buf.getvalue()


def test_rov_specs_say_the_trim_is_held_and_show_it_as_built():
    from scipy.spatial.transform import Rotation

    js = json.loads(_specs("bluerov2.yaml", "--json"))
    m, G = js["total_mass"], np.array(js["center_of_mass"])
    held, built = js["trim_held"], js["as_built_base_link"]
    assert held["cob_offset"] == js["declared_cob_offset"] and held["net_buoyancy"] == js["declared_net_buoyancy"]
    assert held["heel"] == pytest.approx(0.0, abs=1e-12) and held["trim"] == pytest.approx(0.0, abs=1e-12)
    B = np.array(built["center_of_buoyancy"])
    np.testing.assert_allclose(B, js["center_of_buoyancy"], atol=1e-12)  # where this load puts it
    p = np.array(built["payload_at"])
    assert built["payload"] == 1.0 and np.allclose(p, [0.0, 0.0, -0.17])  # the chassis' payload slot
    G2 = G + 1.0 * (p - G) / (m + 1.0)  # the payload's moment arm
    up = Rotation.from_euler("xy", [built["heel"], built["trim"]]).apply(B - G2)
    assert abs(up[0]) < 1e-12 and abs(up[1]) < 1e-12 and up[2] > 0  # CoB straight above CoM
    # the moment arm read off by hand: bow-up trim (the payload is aft of the CoM and below it)
    assert built["trim"] == pytest.approx(math.atan2(-(B - G2)[0], math.hypot((B - G2)[1], (B - G2)[2])), abs=1e-12)
    assert math.degrees(built["trim"]) < -0.5
    assert built["net_buoyancy"] == pytest.approx(js["declared_net_buoyancy"] - 1.0)
    text = _specs("bluerov2.yaml")
    labels = [ln.split(":")[0].strip() for ln in text.splitlines()[1:]]
    assert labels.index("trim held") == labels.index("GM_L") + 1 and labels.index("as built") + 1 == labels.index("parts")
    row = next(ln for ln in text.splitlines() if ln.strip().startswith("as built:"))
    got = re.search(r"trim ([-+][\d.]+) deg", row)
    assert float(got.group(1)) == pytest.approx(math.degrees(built["trim"]), abs=5e-5)


def test_the_as_built_row_is_what_cob_frame_base_link_composes(tmp_path):
    """The config rewritten with cob_frame: base_link at the CoB the row names, and a 1 kg part at the
    payload slot: the kernel's equilibrium (aurgen specs) has the trim the row gave."""
    import yaml

    from aurgen.config.vehicle import bundled_config

    js = json.loads(_specs("bluerov2.yaml", "--json"))
    built = js["as_built_base_link"]
    src = bundled_config("bluerov2.yaml")
    cfg = yaml.safe_load(src.read_text())
    cfg["buoyancy"]["cob_frame"] = "base_link"
    cfg["buoyancy"]["cob_offset"] = built["center_of_buoyancy"]
    cfg.setdefault("parts", []).append({"type": "probe_mass", "name": "probe", "parent": "base_link",
                                        "xyz": built["payload_at"]})
    (tmp_path / "parts").mkdir()
    (tmp_path / "parts" / "probe_mass.yaml").write_text(
        "description: a 1 kg point-like box (test)\nmass: 1.0\ncollision: [{shape: box, size: [0.01, 0.01, 0.01]}]\n")
    path = tmp_path / "bluerov2.yaml"
    path.write_text(yaml.safe_dump(cfg))
    out = json.loads(_specs(str(path), "--json"))
    assert out["total_mass"] == pytest.approx(js["total_mass"] + 1.0)
    assert "as_built_base_link" not in out  # cob_frame: base_link is already as built
    assert out["trim"] == pytest.approx(built["trim"], abs=2e-4)
    assert out["heel"] == pytest.approx(built["heel"], abs=2e-4)


def test_a_boat_has_no_trim_rows():
    js = json.loads(_specs("blueboat.yaml", "--json"))
    assert "trim_held" not in js and "trim held" not in _specs("blueboat.yaml")


def test_the_report_shows_both_rows():
    from aurgen.analysis import report
    from aurgen.compose.resolve import resolve

    rep = report.compute(resolve("bluerov2.yaml"), roll_decay=False, step_deg=10.0, load_samples=3)
    md = report.markdown(rep, {})
    specs = md[md.index("## Specs"):]
    assert "trim held:" in specs and "by cob_frame: com" in specs
    assert "as built:" in specs and "with cob_frame: base_link" in specs
