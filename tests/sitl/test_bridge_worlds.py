"""Every bundled world that holds a vehicle ArduPilot can fly answers through ``aurgen sitl``: each
such vehicle, 2 s at 400 Hz of ArduPilot's neutral outputs, read by ArduPilot's own parser
(ap_json.Receiver: every reply accepted, no physics reset), the health ok (the summary says so), and
the accelerometer reading the world's gravity: |accel_body| within 3 % of g once the vehicle floats
(or hovers, neutrally buoyant) nearly at rest; a sea (open_sea) included."""
from __future__ import annotations

import math

import mujoco
import pytest

import ap_json
from sitl_client import Sitl

RATE = 400


def _flyable(world):
    """The vehicles of ``world`` that carry ArduPilot wiring (their servo-channel numerics' prefixes)."""
    m = mujoco.MjModel.from_xml_path(str(world))
    names = {m.numeric(i).name.split("aurgen:servo_channel:")[0].rstrip("/")
             for i in range(m.nnumeric) if "aurgen:servo_channel:" in m.numeric(i).name}
    return sorted(names)


def test_the_bundled_worlds_hold_flyable_vehicles(built):
    """open_water and open_sea hold the BlueBoat and the BlueROV2, tilted_tank the BlueROV2."""
    got = {w.stem: _flyable(w) for w in sorted((built / "worlds").glob("*.xml"))}
    assert got["open_water"] == ["blueboat", "bluerov2"] and got["open_sea"] == ["blueboat", "bluerov2"]
    assert got["tilted_tank"] == ["bluerov2"] and got["pool"] == []


@pytest.mark.parametrize("world, vehicle", [("open_water", "blueboat"), ("open_water", "bluerov2"),
                                            ("open_sea", "blueboat"), ("open_sea", "bluerov2"),
                                            ("tilted_tank", "bluerov2")])
def test_every_world_answers(built, world, vehicle):
    rx = ap_json.Receiver()
    pwm = [1500] * 8 + [0] * 8
    with Sitl(built / "worlds" / f"{world}.xml", "--vehicle", vehicle) as s:
        for _ in range(2 * RATE):
            a = rx.feed(s.ask(ap_json.servo_packet(RATE, rx.frame_counter, pwm)))
            assert a is not None, (rx.rejected, rx.missing)
        rc, out, err = s.stop()
    assert rc == 0 and "health: ok" in out, (out, err)
    assert not any("physics reset" in line for line in rx.log)
    assert a.timestamp == pytest.approx(2.0, abs=1e-9)
    assert math.hypot(*a.accel_body) == pytest.approx(9.81, rel=0.03), a.accel_body
