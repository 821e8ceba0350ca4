"""ArduSub's and ArduRover's motor mixers, re-implemented in pure Python for the tests.

Sources read (the commit is the one the index named for the text read):

- ``ArduPilot/ardupilot libraries/AP_Motors/AP_Motors6DOF.cpp`` (commit
  0fd5fbf258e877389665051b1f7c7531ac1db76a): ``AP_Motors6DOF::setup_motors`` (the factor table),
  ``add_motor_raw_6dof``, ``output_armed_stabilizing`` (dispatch on the frame class),
  ``output_armed_stabilizing_vectored``, ``output_armed_stabilizing_vectored_6dof``,
  ``calc_thrust_to_pwm`` (``constrain_int16(1500 + thrust_in * 400, _throttle_radio_min,
  _throttle_radio_max)``), ``output_to_motors`` (THROTTLE_UNLIMITED: ``rc_write(i,
  calc_thrust_to_pwm(_thrust_rpyt_out[i]))``), ``MOT_n_DIRECTION`` (``_motor_reverse``, default 1).
  A later stored text of the same file (index id 52509242567, commit not reported) has the same
  factors and mixers (plus feed-forward terms, zero here) and writes
  ``1500 + thrust_in * (thrust_in > 0 ? max - 1500 : 1500 - min)`` from MOT_PWM_MIN/MAX: with
  1100/1900 the same PWM; it also passes |thrust| through the thrust linearisation
  (``thr_lin.thrust_to_actuator``: MOT_SPIN_MIN/MAX, MOT_THST_EXPO) and a slew limiter
  (``set_actuator_bidirectional_slew``). That text's repository and commit are unknown (it may be a
  fork or an unmerged branch); this module does not model it: with it the PWM of a given demand
  moves, and a zero demand maps to spin_min rather than 1500 µs unless MOT_SPIN_MIN is 0.
- ``ArduPilot/ardupilot libraries/AP_Motors/AP_Motors6DOF.h`` (commit
  de0002527a77afc0069735d51acac2cb584a2cee): ``sub_frame_t`` (BLUEROV1 = 0, VECTORED = 1,
  VECTORED_6DOF = 2, ...: FRAME_CONFIG's values), "Map thrust input -1~1 to pwm output 1100~1900".
- ``AP_Motors_Class.h`` ``get_throttle_bidirectional() = constrain(2 * (throttle - 0.5), -1, 1)``
  (stored text index id 259673242): ArduSub's throttle demand 0..1, 0.5 = neutral, seen by the mixer
  as -1..1; positive = up (``ArduSub/mode_surface.cpp`` ``ModeSurface::run``, commit
  ef273c61366b7db543feb312eb405bc2d400a248, surfaces with a positive climb rate through the z
  position controller, whose throttle rises with upward acceleration).
- ``ArduPilot/ardupilot libraries/AR_Motors/AP_MotorsUGV.cpp`` (commit
  0264b6719a646bd22e4bbf97c56d9983a68ffc3d): ``output_skid_steering`` (the mixer with
  MOT_THST_ASYM), ``output_throttle`` (``get_scaled_throttle``, then
  ``SRV_Channels::set_output_scaled(function, throttle * 10.0f)`` for throttleLeft/Right),
  ``get_scaled_throttle`` (MOT_THR_MIN default 0, MOT_THST_EXPO default 0: unchanged),
  ``setup_servo_output`` (``set_angle(k_throttleLeft, 1000)``, ``set_angle(k_throttleRight, 1000)``),
  the parameter defaults (THST_ASYM 1.0, STR_THR_MIX 0.5).
- ``ArduPilot/ardupilot libraries/SRV_Channel/SRV_Channel.cpp`` (commit
  dc5a27d1a33c2bc70b8b178c76d9dff0362e6935): ``SRV_Channel::pwm_from_angle`` (trim + (v * (max -
  trim)) / high_out, truncated to uint16, below trim symmetric), ``get_motor_num`` (k_motor1..8 ->
  motor 0..7).
- ``ArduPilot/ardupilot libraries/SRV_Channel/SRV_Channel.h`` (commit
  1db3b3168670b031477598f7e9ef5899e5d74bec): ``k_motor1 = 33`` ... ``k_motor8 = 40``,
  ``k_throttleLeft = 73``, ``k_throttleRight = 74``.

Conventions (ArduPilot's): demands roll, pitch, yaw, throttle, forward, lateral in [-1, 1]; roll > 0
rolls right (starboard down), pitch > 0 raises the nose, yaw > 0 turns clockwise seen from above, all
about the body FRD axes; throttle > 0 up, forward > 0 ahead, lateral > 0 to starboard. A motor's
positive output is the thrust direction its factors assume. ArduRover: throttle in -100..100 (%),
steering in -4500..4500 (centidegrees; > 0 = turn right / clockwise from above).

Arithmetic is in float32 where the C is, and float -> integer conversions truncate as C does.
"""

from __future__ import annotations

import numpy as np

f32 = np.float32

# SRV_Channel.h (commit 1db3b316) Aux_servo_function_t
K_MOTOR1 = 33
K_THROTTLE_LEFT = 73
K_THROTTLE_RIGHT = 74

# AP_Motors6DOF.h sub_frame_t: FRAME_CONFIG's values
SUB_FRAME_VECTORED = 1
SUB_FRAME_VECTORED_6DOF = 2

# AP_Motors6DOF.cpp setup_motors (commit 0fd5fbf2): per motor (roll, pitch, yaw, throttle, forward,
# lateral, testing order); motor k is list entry k - 1 (AP_MOTORS_MOT_k).
SUB_FACTORS = {
    SUB_FRAME_VECTORED: (
        (0, 0, 1.0, 0, -1.0, 1.0, 1),
        (0, 0, -1.0, 0, -1.0, -1.0, 2),
        (0, 0, -1.0, 0, 1.0, 1.0, 3),
        (0, 0, 1.0, 0, 1.0, -1.0, 4),
        (1.0, 0, 0, -1.0, 0, 0, 5),
        (-1.0, 0, 0, -1.0, 0, 0, 6),
    ),
    SUB_FRAME_VECTORED_6DOF: (
        (0, 0, 1.0, 0, -1.0, 1.0, 1),
        (0, 0, -1.0, 0, -1.0, -1.0, 2),
        (0, 0, -1.0, 0, 1.0, 1.0, 3),
        (0, 0, 1.0, 0, 1.0, -1.0, 4),
        (1.0, -1.0, 0, -1.0, 0, 0, 5),
        (-1.0, -1.0, 0, -1.0, 0, 0, 6),
        (1.0, 1.0, 0, -1.0, 0, 0, 7),
        (-1.0, 1.0, 0, -1.0, 0, 0, 8),
    ),
}
AXES = ("roll", "pitch", "yaw", "throttle", "forward", "lateral")


def _frame(frame) -> int:
    names = {"vectored": SUB_FRAME_VECTORED, "vectored_6dof": SUB_FRAME_VECTORED_6DOF}
    fr = names.get(frame, frame)
    if fr not in SUB_FACTORS:
        raise ValueError(f"frame {frame!r}: only FRAME_CONFIG 1 (vectored) and 2 (vectored_6dof)")
    return fr


def sub_factors(frame):
    """{motor number (1-based): dict(roll=..., pitch=..., yaw=..., throttle=..., forward=...,
    lateral=..., order=...)} for FRAME_CONFIG 1 / 2 (or 'vectored' / 'vectored_6dof')."""
    return {k + 1: dict(zip(AXES + ("order",), row)) for k, row in enumerate(SUB_FACTORS[_frame(frame)])}


def sub_thrust(frame, roll=0.0, pitch=0.0, yaw=0.0, throttle=0.0, forward=0.0, lateral=0.0,
               direction=None, fv_coupling=1.0, throttle_thrust_max=1.0):
    """``_thrust_rpyt_out[]`` per motor in [-1, 1] (float32 arithmetic as the C).

    ``throttle`` is the bidirectional throttle (get_throttle_bidirectional, -1..1, > 0 up);
    ``direction`` the MOT_n_DIRECTION list (default all +1); ``fv_coupling`` MOT_FV_CPLNG_K (default
    1.0, vectored frame only); ``throttle_thrust_max`` the current-limit ceiling (1 without a battery
    current limit)."""
    fr = _frame(frame)
    rows = SUB_FACTORS[fr]
    n = len(rows)
    rev = [f32(1)] * n if direction is None else [f32(d) for d in direction]
    r, p, y, fw, lt = (f32(v) for v in (roll, pitch, yaw, forward, lateral))
    thr = f32(throttle)
    tmax = f32(throttle_thrust_max)
    if thr <= -tmax:
        thr = -tmax
    if thr >= tmax:
        thr = tmax
    out = []
    if fr == SUB_FRAME_VECTORED:
        # output_armed_stabilizing_vectored
        rpy = [r * f32(a[0]) + p * f32(a[1]) + y * f32(a[2]) for a in rows]
        fcl = f32(1) - f32(fv_coupling) * f32(abs(thr))
        if fcl < 0:
            fcl = f32(0)
        direction_fc = (-1, -1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0)
        for i, a in enumerate(rows):
            fl = fw
            if fl != 0:  # !is_zero(forward_thrust_limited)
                if ((fw < 0) == (direction_fc[i] < 0)) and direction_fc[i] != 0:
                    fl = f32(min(max(fw, -fcl), fcl))
            lin = thr * f32(a[3]) + fl * f32(a[4]) + lt * f32(a[5])
            out.append(float(np.clip(rev[i] * (rpy[i] + lin), f32(-1), f32(1))))
        return out
    # output_armed_stabilizing_vectored_6dof: two groups, each normalised only when saturated
    rpt = [r * f32(a[0]) + p * f32(a[1]) + thr * f32(a[3]) for a in rows]
    yfl = [y * f32(a[2]) + fw * f32(a[4]) + lt * f32(a[5]) for a in rows]
    rpt_max = max([f32(1)] + [f32(abs(v)) for v in rpt])
    yfl_max = max([f32(1)] + [f32(abs(v)) for v in yfl])
    for i in range(n):
        out.append(float(np.clip(rev[i] * (rpt[i] / rpt_max + yfl[i] / yfl_max), f32(-1), f32(1))))
    return out


def sub_pwm(thrust: float, pwm_min: int = 1100, pwm_max: int = 1900) -> int:
    """AP_Motors6DOF::calc_thrust_to_pwm (commit 0fd5fbf2): ``constrain_int16(1500 + thrust_in * 400,
    _throttle_radio_min, _throttle_radio_max)``; the float argument converts to int16 by truncation.
    Defaults: MOT_PWM_MIN/MAX 1100/1900 (AP_Motors6DOF.h: "-1~1 to pwm output 1100~1900")."""
    v = int(f32(1500) + f32(thrust) * f32(400))  # C float -> int16: toward zero
    return max(pwm_min, min(pwm_max, v))


def sub_mix(frame, roll=0.0, pitch=0.0, yaw=0.0, throttle=0.0, forward=0.0, lateral=0.0, **kw):
    """PWM (µs) per motor, list index k - 1 for motor k (on the output whose SERVOn_FUNCTION is
    32 + k, by default SERVOk), armed and THROTTLE_UNLIMITED. Demands as in ``sub_thrust``."""
    pmin, pmax = kw.pop("pwm_min", 1100), kw.pop("pwm_max", 1900)
    return [sub_pwm(t, pmin, pmax) for t in
            sub_thrust(frame, roll, pitch, yaw, throttle, forward, lateral, **kw)]


# ---------------------------------------------------------------- ArduRover skid steering
def _lerp(low_output, high_output, var_value, var_low, var_high):
    """AP_Math linear_interpolate (float)."""
    if var_value <= var_low:
        return f32(low_output)
    if var_value >= var_high:
        return f32(high_output)
    p = f32((f32(var_value) - f32(var_low)) / (f32(var_high) - f32(var_low)))
    return f32(f32(low_output) + f32(p * (f32(high_output) - f32(low_output))))


def skid_outputs(throttle, steering, thst_asym=1.0, str_thr_mix=0.5):
    """AP_MotorsUGV::output_skid_steering (commit 0264b671), armed: (motor_left, motor_right) in
    -1..1 (×100 = the % output_throttle gets). ``throttle`` in %, ``steering`` in centidegrees."""
    steering = min(max(f32(steering), f32(-4500)), f32(4500))
    s = f32(steering / f32(4500))
    t = f32(f32(throttle) * f32(0.01))
    asym = f32(max(float(f32(thst_asym)), 1.0))            # MAX(_thrust_asymmetry, 1.0)
    lower = f32(-1.0 / float(asym))                          # -1.0 / thrust_asymmetry
    best = f32((1.0 + float(lower)) * 0.5)
    if t < best:
        rng = f32(max(float(t), 0.0) - float(lower))
    else:
        rng = f32(1 - float(best))
    if s > rng:
        s = rng
    elif s < -rng:
        s = f32(-rng)
    if t > 1.0:
        t = f32(1)
    elif t < lower:
        t = lower
    max_out = f32(t + f32(abs(s)))
    min_out = f32(t - f32(abs(s)))
    sat = max(float(max_out), float(f32(min_out / lower)))
    if sat > 1.0:
        mix = min(max(f32(str_thr_mix), f32(0)), f32(1))
        fair = f32(f32(1) / f32(sat))
        if mix >= 0.5:
            s = f32(s * _lerp(fair, 1.0, mix, 0.5, 1.0))
            t = f32(1.0 - abs(float(s))) if t >= best else f32(abs(float(s)) + float(lower))
        else:
            t = f32(t * _lerp(fair, 1.0, f32(0.5) - mix, 0.0, 0.5))
            sign = 1.0 if s > 0 else -1.0
            s = f32((1.0 - float(t)) * sign) if t >= best else f32((float(t) - float(lower)) * sign)
    left = f32(t + s)
    right = f32(t - s)
    if right < 0:
        right = f32(right * asym)
    if left < 0:
        left = f32(left * asym)
    return float(left), float(right)


def pwm_from_angle(scaled, high_out=1000, servo_min=1100, servo_max=1900, servo_trim=1500,
                   reversed_=False) -> int:
    """SRV_Channel::pwm_from_angle (commit dc5a27d1), float arithmetic, uint16 truncation."""
    v = f32(scaled)
    if reversed_:
        v = -v
    v = min(max(v, f32(-high_out)), f32(high_out))
    if v > 0:
        return servo_trim + int(f32(v * f32(servo_max - servo_trim)) / f32(high_out))
    return servo_trim - int(f32(-v * f32(servo_trim - servo_min)) / f32(high_out))


def skid_mix(throttle, steering, thst_asym=1.6, str_thr_mix=0.5, servo_min=1100, servo_max=1900,
             servo_trim=1500):
    """(pwm_left, pwm_right) in µs on the outputs with SERVOn_FUNCTION 73 (throttleLeft) and 74
    (throttleRight), armed: the skid mixer, ``output_throttle`` (THR_MIN 0, THST_EXPO 0, no wheel-rate
    control, no reverse delay: ``set_output_scaled(function, 100 * motor * 10)``, angle range 1000)
    and ``pwm_from_angle``. ``throttle`` in % (-100..100), ``steering`` in centidegrees (-4500..4500,
    > 0 = right). ``thst_asym`` defaults to the BlueBoat's MOT_THST_ASYM 1.6 (ArduPilot's own default
    is 1.0)."""
    left, right = skid_outputs(throttle, steering, thst_asym, str_thr_mix)
    out = []
    for m in (left, right):
        pct = f32(f32(100) * f32(m))
        out.append(pwm_from_angle(f32(pct * f32(10)), 1000, servo_min, servo_max, servo_trim))
    return tuple(out)
