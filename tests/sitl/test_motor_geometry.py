"""ArduPilot's assumed motor geometry against aurgen's bundled models (issue 36).

ArduSub mixes a demand per axis into its motors with the fixed factors of
``AP_Motors6DOF::setup_motors`` (tests/sitl/ap_mix.py), ArduRover's skid mixer drives throttleLeft
(SERVOn_FUNCTION 73) and throttleRight (74). Those factors are only right if motor k really sits where
ArduPilot thinks: here the wrench each of aurgen's thrusters produces on the vehicle is computed from
the built MJCF and compared, per motor and per axis, with the factor signs.

The model side: each thruster is an MJCF ``<general site="<name>_thrust" gear="gx gy gz 0 0 0">``;
a positive ctrl is a force ``ctrl·g`` along g in the site's frame, applied at the site. The wrench of
ctrl = +1 N is expressed in base_link's frame (aurgen's bodies are REP-103, FLU: x forward, y left,
z up), taken about the vehicle's centre of mass (the whole model's ``subtree_com`` of base_link: the
point the vehicle rotates about, and the "centre" ArduSub's roll/pitch/yaw factors refer to; the base
link origin is the chassis' reference point, a few mm to cm away, and the test's tolerances cover
either), then turned into ArduPilot's body frame FRD: (x, -y, -z) for forces and moments alike.

Sign conventions (derived, see tests/sitl/ap_mix.py): a positive factor means the motor's positive
output pushes the axis' positive way: roll +Mx (starboard down), pitch +My (nose up), yaw +Mz
(clockwise from above), throttle -Fz (up), forward +Fx, lateral +Fy (starboard). A positive motor
output is PWM above 1500 µs (calc_thrust_to_pwm), and aurgen's thrust curve maps PWM above the trim to
a positive ctrl (checked end to end below when the curve numerics are present).

Motor k <-> thruster: the MJCF's ``aurgen:servo_channel:<thruster>`` (the SERVOn output) plus the
vehicle's ``<vehicle>_sitl.parm`` (SERVOn_FUNCTION: 32 + k is motor k, 73/74 throttle left/right);
a chassis whose catalog entry declares no ``ardupilot:`` wiring (the catalog before issue 36) has no
numerics, and the mapping falls back to the names (thruster_k on motor k, motor_port on 73,
motor_stbd on 74); a chassis that declares it must have the numerics.
"""

from __future__ import annotations

import itertools
import math
import re
from pathlib import Path

import numpy as np
import pytest

import ap_mix

ROOT = Path(__file__).parents[2]
VEHICLES = {"bluerov2": ap_mix.SUB_FRAME_VECTORED, "bluerov2_heavy": ap_mix.SUB_FRAME_VECTORED_6DOF,
            "blueboat": None}
FLU_TO_FRD = np.diag([1.0, -1.0, -1.0])
# the wrench component each factor drives, in FRD: (index into [Fx, Fy, Fz, Mx, My, Mz], sign)
AXIS_COMPONENT = {"roll": (3, 1), "pitch": (4, 1), "yaw": (5, 1), "throttle": (2, -1),
                  "forward": (0, 1), "lateral": (1, 1)}
STRONG = 0.3  # a non-zero factor: |component| at least this (force per N, moment per N per L)
WEAK = 0.15   # a zero factor: |component| at most this


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    from aurgen.emit.build import build

    out = tmp_path_factory.mktemp("sitl_geometry")
    build([str(ROOT / "vehicles" / f"{n}.yaml") for n in VEHICLES], out)
    import aurgen.runtime  # noqa: F401  (the hydrostatics plugin, should the MJCF name it)
    import mujoco

    models = {}
    for n in VEHICLES:
        m = mujoco.MjModel.from_xml_path(str(out / n / f"{n}.xml"))
        d = mujoco.MjData(m)
        mujoco.mj_forward(m, d)
        models[n] = (m, d, out / n)
    return models


def _numerics(m, prefix):
    out = {}
    for i in range(m.nnumeric):
        name = m.numeric(i).name
        if name.startswith(prefix):
            out[name[len(prefix):]] = np.array(m.numeric(i).data, dtype=float)
    return out


def unit_wrenches(m, d):
    """{actuator name: 6-vector [F, M] in FRD about the CoM for ctrl = +1}, and L (the largest
    thruster lever arm about the CoM, m) to scale moments by."""
    base = m.body("base_link").id
    R = d.xmat[base].reshape(3, 3)
    o = d.xpos[base]
    com = R.T @ (d.subtree_com[base] - o)
    out, arms = {}, []
    for i in range(m.nu):
        a = m.actuator(i)
        s = int(a.trnid[0])
        Rs = d.site_xmat[s].reshape(3, 3)
        F = R.T @ Rs @ np.asarray(a.gear[:3])
        T = R.T @ Rs @ np.asarray(a.gear[3:6])
        r = R.T @ (d.site_xpos[s] - o) - com
        M = np.cross(r, F) + T
        out[a.name] = np.concatenate([FLU_TO_FRD @ F, FLU_TO_FRD @ M])
        arms.append(float(np.linalg.norm(r)))
    return out, max(arms)


def parm(folder: Path, vehicle: str) -> dict:
    """The build's ``<vehicle>_sitl.parm`` as {name: value}, {} when the build writes none."""
    f = folder / f"{vehicle}_sitl.parm"
    if not f.is_file():
        return {}
    return {a: float(b) for a, b in re.findall(r"^([A-Z][A-Z0-9_]*)\s+(\S+)", f.read_text(encoding="utf-8"), re.M)}


def wiring(m, folder: Path, vehicle: str):
    """{thruster: SERVOn_FUNCTION} and where it came from ('numeric' or 'name')."""
    chans = {k: int(round(v[0])) for k, v in _numerics(m, "aurgen:servo_channel:").items()}
    chassis = ROOT / "vehicles" / "parts" / f"{vehicle}_chassis.yaml"
    declared = bool(re.search(r"^ardupilot:", chassis.read_text(encoding="utf-8"), re.M))
    assert chans or not declared, (f"{chassis.name} declares its ArduPilot wiring, but {vehicle}.xml carries "
                                   "no aurgen:servo_channel numerics")
    if not chans:
        if VEHICLES[vehicle] is None:
            return {"motor_port": ap_mix.K_THROTTLE_LEFT, "motor_stbd": ap_mix.K_THROTTLE_RIGHT}, "name"
        return {f"thruster_{k}": ap_mix.K_MOTOR1 + k - 1
                for k in range(1, len(ap_mix.SUB_FACTORS[VEHICLES[vehicle]]) + 1)}, "name"
    p = parm(folder, vehicle)
    assert p, f"{vehicle}_sitl.parm: the servo channels are in the MJCF but the parameter file is missing"
    return {t: int(p[f"SERVO{c}_FUNCTION"]) for t, c in chans.items()}, "numeric"


def sub_mismatches(frame, motor_wrench: dict, L: float):
    """ArduSub factor vs wrench disagreements: motor k's wrench (FRD, about the CoM, per N of positive
    output) against its (roll, pitch, yaw, throttle, forward, lateral) factors. Empty = consistent."""
    bad = []
    for k, fac in ap_mix.sub_factors(frame).items():
        if k not in motor_wrench:
            bad.append(f"motor {k}: no thruster wired to it")
            continue
        w = motor_wrench[k]
        for axis in ap_mix.AXES:
            idx, sign = AXIS_COMPONENT[axis]
            c = sign * w[idx] / (L if idx >= 3 else 1.0)
            f = fac[axis]
            if f != 0 and not (np.sign(c) == np.sign(f) and abs(c) >= STRONG):
                bad.append(f"motor {k} {axis}: factor {f:+g}, model {c:+.3f}")
            if f == 0 and abs(c) > WEAK:
                bad.append(f"motor {k} {axis}: factor 0, model {c:+.3f}")
    return bad


def _motor_wrenches(vehicle, built, func_of=None):
    m, d, folder = built[vehicle]
    W, L = unit_wrenches(m, d)
    funcs, _ = wiring(m, folder, vehicle) if func_of is None else (func_of, None)
    return {f - ap_mix.K_MOTOR1 + 1: W[t] for t, f in funcs.items()}, L, W, funcs


@pytest.mark.parametrize("vehicle", ["bluerov2", "bluerov2_heavy"])
def test_each_motor_pushes_the_way_its_ardusub_factors_say(vehicle, built):
    frame = VEHICLES[vehicle]
    mw, L, _, funcs = _motor_wrenches(vehicle, built)
    assert sorted(mw) == list(range(1, len(ap_mix.SUB_FACTORS[frame]) + 1)), funcs
    assert sub_mismatches(frame, mw, L) == []


def _swaps(n):
    return [pytest.param(a, b, id=f"motors{a}-{b}") for a, b in itertools.combinations(range(1, n + 1), 2)]


@pytest.mark.parametrize("vehicle, a, b",
                         [pytest.param("bluerov2", *p.values, id="bluerov2-" + p.id) for p in _swaps(6)]
                         + [pytest.param("bluerov2_heavy", *p.values, id="heavy-" + p.id) for p in _swaps(8)])
def test_a_swapped_pair_of_motors_is_caught(vehicle, a, b, built):
    """Wiring motor a's thruster to b and b's to a must fail the check above (every pair)."""
    frame = VEHICLES[vehicle]
    mw, L, _, _ = _motor_wrenches(vehicle, built)
    mw[a], mw[b] = mw[b], mw[a]
    assert sub_mismatches(frame, mw, L) != []


@pytest.mark.parametrize("vehicle, k",
                         [("bluerov2", k) for k in range(1, 7)] + [("bluerov2_heavy", k) for k in range(1, 9)])
def test_a_reversed_thruster_is_caught(vehicle, k, built):
    """A thruster pushing the other way (gear flipped, or MOT_k_DIRECTION -1 left out) must fail."""
    frame = VEHICLES[vehicle]
    mw, L, _, _ = _motor_wrenches(vehicle, built)
    mw[k] = -mw[k]
    assert sub_mismatches(frame, mw, L) != []


def pwm_to_thrust(m, thruster):
    """The thruster's PWM -> thrust (N): aurgen's curve numeric when present (PWM, thrust pairs),
    else a sign-only stand-in, (pwm - 1500) / 400."""
    curves = _numerics(m, "aurgen:thrust_curve:")
    if thruster in curves:
        c = curves[thruster].reshape(-1, 2)
        return lambda pwm: float(np.interp(pwm, c[:, 0], c[:, 1]))
    return lambda pwm: (pwm - 1500) / 400.0


@pytest.mark.parametrize("vehicle", ["bluerov2", "bluerov2_heavy"])
@pytest.mark.parametrize("axis", ap_mix.AXES)
def test_ardusub_demand_moves_the_model_the_demanded_way(vehicle, axis, built):
    """End to end: a +0.5 demand on one axis through ArduSub's mixer and PWM (ap_mix.sub_mix), the
    model's thrust curves and wiring, summed into the model's wrench: the demanded component is
    positive and the largest of the six (moments per L)."""
    frame = VEHICLES[vehicle]
    if all(f[axis] == 0 for f in ap_mix.sub_factors(frame).values()):
        pytest.skip(f"FRAME_CONFIG {frame} has no {axis} authority (every factor 0)")
    m, d, folder = built[vehicle]
    W, L = unit_wrenches(m, d)
    funcs, _ = wiring(m, folder, vehicle)
    pwm = ap_mix.sub_mix(frame, **{axis: 0.5})
    total = np.zeros(6)
    for t, f in funcs.items():
        total += pwm_to_thrust(m, t)(pwm[f - ap_mix.K_MOTOR1]) * W[t]
    scaled = np.abs(total) / np.array([1, 1, 1, L, L, L])
    idx, sign = AXIS_COMPONENT[axis]
    assert sign * total[idx] > 0, (axis, pwm, total)
    assert scaled[idx] == scaled.max(), (axis, pwm, total)


def _boat(built):
    m, d, folder = built["blueboat"]
    W, L = unit_wrenches(m, d)
    funcs, _ = wiring(m, folder, "blueboat")
    by_fn = {f: t for t, f in funcs.items()}
    return m, W, L, by_fn


def _asym(built):
    """MOT_THST_ASYM from the build's parameter file, else the BlueBoat's documented 1.6."""
    return parm(built["blueboat"][2], "blueboat").get("MOT_THST_ASYM", 1.6)


def boat_mismatches(m, W, L, by_fn, asym=1.6):
    """ArduRover's assumptions on the skid pair: throttleLeft (73) is on the port side (FRD y < 0 at
    the thruster, i.e. its forward thrust yaws the boat clockwise), throttleRight (74) starboard;
    both push forward for PWM above trim; and a positive steering demand (turn right, clockwise seen
    from above) gives a positive FRD yaw moment, forward throttle a forward force. (ArduRover's sign:
    AP_MotorsUGV.cpp output_skid_steering, left = throttle + steering; ArduPilot/ardupilot
    libraries/SITL/examples/JSON/python/velocity_controlled_robot.py pwm_to_command, commit
    b6f464f16f8171c81538cf11d7fd8cc180c367ba: "a positive turn rate (clockwise, NED) means the left
    motor runs faster".)"""
    bad = []
    if set(by_fn) != {ap_mix.K_THROTTLE_LEFT, ap_mix.K_THROTTLE_RIGHT}:
        return [f"functions wired: {sorted(by_fn)}"]
    left, right = W[by_fn[ap_mix.K_THROTTLE_LEFT]], W[by_fn[ap_mix.K_THROTTLE_RIGHT]]
    if not (left[0] > STRONG and right[0] > STRONG):
        bad.append(f"a positive output does not push forward: left Fx {left[0]:+.3f}, right {right[0]:+.3f}")
    if not (left[5] / L > STRONG and right[5] / L < -STRONG):
        bad.append(f"left/right yaw moments {left[5]:+.3f}/{right[5]:+.3f}: left is not port")
    for thr, steer, idx in ((0, 3000, 5), (0, -3000, 5), (60, 0, 0), (-40, 0, 0)):
        pl, pr = ap_mix.skid_mix(thr, steer, thst_asym=asym)
        total = (pwm_to_thrust(m, by_fn[ap_mix.K_THROTTLE_LEFT])(pl) * left
                 + pwm_to_thrust(m, by_fn[ap_mix.K_THROTTLE_RIGHT])(pr) * right)
        want = np.sign(steer if idx == 5 else thr)
        if np.sign(total[idx]) != want:
            bad.append(f"throttle {thr} steering {steer}: PWM {pl}/{pr}, component {idx} = {total[idx]:+.3f}")
    return bad


def test_blueboat_skid_pair_matches_ardurover(built):
    m, W, L, by_fn = _boat(built)
    assert by_fn.get(ap_mix.K_THROTTLE_LEFT) == "motor_port" and by_fn.get(ap_mix.K_THROTTLE_RIGHT) == "motor_stbd"
    assert boat_mismatches(m, W, L, by_fn, _asym(built)) == []


@pytest.mark.parametrize("mutation", ["swap_left_right", "reverse_port", "reverse_stbd"])
def test_blueboat_miswiring_is_caught(mutation, built):
    m, W, L, by_fn = _boat(built)
    if mutation == "swap_left_right":
        by_fn = {ap_mix.K_THROTTLE_LEFT: by_fn[ap_mix.K_THROTTLE_RIGHT],
                 ap_mix.K_THROTTLE_RIGHT: by_fn[ap_mix.K_THROTTLE_LEFT]}
    else:
        name = "motor_port" if mutation == "reverse_port" else "motor_stbd"
        W = dict(W)
        W[name] = -W[name]
    assert boat_mismatches(m, W, L, by_fn, _asym(built)) != []


def test_the_wiring_source_is_reported(built):
    """Which mapping the tests above used: the MJCF numerics when a build carries them (then every
    thruster must have one), else the names. Fails if some thrusters are wired and others are not."""
    for v, (m, d, folder) in built.items():
        chans = _numerics(m, "aurgen:servo_channel:")
        if chans:
            names = {m.actuator(i).name for i in range(m.nu)}
            assert set(chans) == names, (v, sorted(chans), sorted(names))
            assert all(math.isclose(c[0], round(c[0])) and 1 <= c[0] <= 32 for c in chans.values()), (v, chans)


@pytest.mark.parametrize("vehicle", ["bluerov2", "bluerov2_heavy"])
def test_the_parameter_file_picks_the_frame_these_factors_are(vehicle, built):
    """A build that writes ``<vehicle>_sitl.parm`` must select the frame the factors above are for
    (FRAME_CONFIG 1 vectored for the BlueROV2, 2 vectored 6DOF for the Heavy: ArduSub's
    AP_Motors6DOF.h sub_frame_t), and wire SERVOn_FUNCTION only to motors of that frame."""
    m, d, folder = built[vehicle]
    p = parm(folder, vehicle)
    if not p:
        pytest.skip(f"this build writes no {vehicle}_sitl.parm (the wiring numerics have not landed)")
    assert p.get("FRAME_CONFIG") == VEHICLES[vehicle]
    n = len(ap_mix.SUB_FACTORS[VEHICLES[vehicle]])
    fns = sorted(int(v) for k, v in p.items() if k.endswith("_FUNCTION"))
    assert fns == list(range(ap_mix.K_MOTOR1, ap_mix.K_MOTOR1 + n))
