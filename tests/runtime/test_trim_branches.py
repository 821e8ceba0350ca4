"""Pitch-stable trims at a fixed heel, the fold of the followed branch and where the body goes past it,
against an independent reference: trimesh clips of the hull boxes, the draft by brentq on the clipped
volume, and the potential per unit weight U(trim) = z_G - z_B at constant displacement minimised by scipy.

The body is the BlueBoat with a 10 kg payload 1 m above its deck (tests/aurgen/test_timedomain.py's
vanishing-angle variant): two hulls, each six contiguous 0.175 x 0.18 x 0.18 m boxes (one 1.05 m box here),
its CoM 0.41 m up.  Its free-trim GZ curve follows the pitch-stable trim from upright; that branch folds at
about 20 deg of heel, and past about 24.1 deg heel no trim within 150 deg of level is pitch-stable at all.
"""
import math

import numpy as np
import pytest
import trimesh
from scipy.optimize import brentq, fsolve, minimize_scalar

from aurgen.runtime.hydrostatics.equilibrium import _Body
from aurgen.runtime.hydrostatics.righting import RightingArm, _stable_trims
from aurgen.runtime.hydrostatics import Geom

RHO = 1025.0
MASS = 27.3  # kg, boat + 10 kg payload
COM = np.array([0.01413984, -0.00111968, 0.40995878])  # m, base_link
HULLS = [((0.027, y, 0.059), (0.525, 0.09, 0.09)) for y in (0.361, -0.361)]  # centre, half sizes (m)


def geoms():
    return [Geom("box", half, np.array(c), np.eye(3)) for c, half in HULLS]


# --------------------------------------------------------------------------- trimesh reference

_MESHES = []
for c, half in HULLS:
    m = trimesh.creation.box(extents=2 * np.array(half))
    m.apply_translation(c)
    _MESHES.append(m)


def _rot(heel, trim):
    ch, sh, ct, st = math.cos(heel), math.sin(heel), math.cos(trim), math.sin(trim)
    Rx = np.array([[1, 0, 0], [0, ch, -sh], [0, sh, ch]])
    Ry = np.array([[ct, 0, st], [0, 1, 0], [-st, 0, ct]])
    return Ry @ Rx


def _submerged(R, z0):
    """Volume (m^3) and centroid (m, world) of the hulls below z = 0, body origin at (0, 0, z0)."""
    V, M = 0.0, np.zeros(3)
    T = np.eye(4)
    T[:3, :3], T[2, 3] = R, z0
    for m in _MESHES:
        w = m.copy()
        w.apply_transform(T)
        if w.bounds[1][2] <= 0:
            part = w
        elif w.bounds[0][2] >= 0:
            continue
        else:
            part = w.slice_plane([0, 0, 0], [0, 0, -1], cap=True)
        V += part.volume
        M += part.volume * part.center_mass
    return V, (M / V if V > 0 else M)


_LAST = [0.0]  # the last draft found: a narrow first bracket for the next


def ref_state(heel, trim, mass=MASS, com=COM):
    """(U = z_G - z_B, B - G world) at constant displacement (m)."""
    R = _rot(heel, trim)
    zs = np.concatenate([(m.vertices @ R.T)[:, 2] for m in _MESHES])
    V0 = mass / RHO

    def f(z):
        return _submerged(R, z)[0] - V0

    lo, hi = max(-zs.max(), _LAST[0] - 0.01), min(-zs.min(), _LAST[0] + 0.01)
    if not (lo < hi and f(lo) < 0 < f(hi)):
        lo, hi = -zs.max(), -zs.min()
    z0 = _LAST[0] = brentq(f, lo, hi, xtol=1e-13)
    _, B = _submerged(R, z0)
    G = R @ np.asarray(com) + [0.0, 0.0, z0]
    return G[2] - B[2], B - G


def ref_stable_trims(heel, lo=-180.0, hi=180.0, step=3.0):
    """Local minima (rad) of U over trim in [lo, hi) deg (periodic when the whole circle), refined by scipy."""
    grid = np.radians(np.arange(lo, hi, step))
    u = np.array([ref_state(heel, t)[0] for t in grid])
    full = hi - lo >= 360.0
    h = math.radians(step)
    out = []
    for i in range(len(grid)):
        if not full and i in (0, len(grid) - 1):
            continue
        if u[i] < u[i - 1] and u[i] <= u[(i + 1) % len(grid)]:
            r = minimize_scalar(lambda t: ref_state(heel, t)[0], bounds=(grid[i] - h, grid[i] + h),
                                method="bounded", options={"xatol": 1e-10})
            out.append(float((r.x + math.pi) % (2 * math.pi) - math.pi))
    return sorted(out)


def _wrap(a):
    return (a + math.pi) % (2 * math.pi) - math.pi


# --------------------------------------------------------------------------- tests


@pytest.mark.parametrize("heel_deg", [24, 25, 26, 30, 40])
def test_all_pitch_stable_trims_against_the_potential_minima(heel_deg):
    """Every pitch-stable trim the kernel's full-circle scan finds at a fixed heel is a minimum of the
    reference potential, and there are no others: at 24 deg the nearly-level one (27 deg bow down) and the
    pitched-over one; from 25 deg only the pitched-over one (~ -179 deg)."""
    phi = math.radians(heel_deg)
    ref = ref_stable_trims(phi)
    got = sorted(_stable_trims(_Body(geoms(), MASS, COM, RHO), phi))
    assert len(got) == len(ref), (np.degrees(got), np.degrees(ref))
    for g, r in zip(got, ref):
        assert abs(_wrap(g - r)) < 1e-6, (math.degrees(g), math.degrees(r))
        assert abs(ref_state(phi, g)[1][0]) < 1e-9  # no pitch moment at the kernel's trim
    assert (len(ref) == 2) == (heel_deg == 24)
    assert all(abs(math.degrees(r)) > 150 for r in ref if heel_deg > 24)


def test_branch_fold_and_where_the_body_goes_past_it():
    """The followed branch ends where the reference's minimum near it disappears, and past a fold the trim
    goes where the reference pitch moment turns it (the first minimum met that way), not to the nearest one."""
    ra = RightingArm(geoms(), MASS, COM, RHO)
    ra.sweep(np.radians(np.arange(0.0, 26.0, 1.0)))
    assert len(ra.jumps) >= 2
    (f1, t0, t1), (f2, s0, s1) = ra.jumps[:2]
    assert 19.5 < math.degrees(f1) < 20.5 and 21.0 < math.degrees(f2) < 21.5
    d = 1e-3  # rad: at the fold the minimum goes as sqrt(distance), ~1 deg of trim at this distance
    win = (math.degrees(t0) - 4.0, math.degrees(t0) + 4.0)
    assert len(ref_stable_trims(f1 - d, *win, step=0.5)) == 1
    assert ref_stable_trims(f1 + d, *win, step=0.5) == []
    # the jump is taken at the next sample (21, 22 deg); from the old trim the body turns bow up there
    for phi, before, after in ((math.radians(21.0), t0, t1), (math.radians(22.0), s0, s1)):
        assert ref_state(phi, before)[1][0] > 0  # B forward of G: the moment puts the bow up (trim decreasing)
        lo = math.degrees(after) - 4.0 if after < before else math.degrees(after) - 364.0
        ref = ref_stable_trims(phi, lo, math.degrees(before))  # every minimum from the old trim down past the new
        first = min(ref, key=lambda r: (before - r) % (2 * math.pi))  # the first met going bow up
        assert abs(_wrap(after - first)) < 1e-6, (math.degrees(after), np.degrees(ref))
    # past the second fold the body is pitched right over, not on the 17.6 deg bow-down branch
    assert abs(math.degrees(s1)) > 170


def test_held_trim_vanishing_angle_against_the_reference():
    """aurgen.analysis.stability.gz_curve reports the fold and, past it, the curve with the trim held at the
    equilibrium's: its vanishing angle is the reference's GZ zero at the reference equilibrium trim."""
    from aurgen.analysis import stability as st

    c = st.gz_curve(st.Body(tuple(geoms()), MASS, COM, RHO), step_deg=2.0)
    ra = RightingArm(geoms(), MASS, COM, RHO)
    ra.sweep(np.radians(np.arange(0.0, 26.0, 1.0)))
    assert not c.free_trim and c.fold == pytest.approx(ra.jumps[0][0], abs=1e-9)
    assert any("ends at heel 20.04°" in n for n in c.notes)

    def moments(x):
        b = ref_state(x[0], x[1])[1]
        return [b[0], b[1]]

    heel_e, trim_e = fsolve(moments, [0.0, 0.0], xtol=1e-13)
    assert abs(math.degrees(trim_e)) < 2.0
    avs = brentq(lambda p: -ref_state(p, trim_e)[1][1], math.radians(40), math.radians(50), xtol=1e-12)
    assert c.avs == pytest.approx(avs, abs=1e-7)
    assert np.all(np.abs(c.trims - trim_e) < 1e-8)
    # the sweep's sampled figures are on the same basis (they interpolated 24.3 deg across the jump)
    ang = np.radians(np.arange(0.0, 181.0, 10.0))
    gz, fold = st.sampled_arms(st.Body(tuple(geoms()), MASS, COM, RHO), ang)
    assert fold == pytest.approx(c.fold, abs=1e-9)
    for k in (2, 4, 5):
        assert gz[k] == pytest.approx(-ref_state(ang[k], trim_e)[1][1], abs=1e-9)


def test_a_long_step_on_a_continuous_branch_is_not_a_jump():
    """20 kg 0.2 m above the deck (the boat's own 17.3 kg at the CoM below): from 20 to 30 deg of heel the
    pitch-stable trim moves 14 deg, more than one Newton run from the last trim follows; sampled every 10 deg the
    branch is still followed (no jump), to the trim where the reference's minimum, tracked in 1 deg steps, is."""
    m0, c0 = MASS - 10.0, (MASS * COM - 10.0 * np.array([0.0, 0.0, 1.0])) / (MASS - 10.0)  # the boat alone
    mass = m0 + 20.0
    com = (m0 * c0 + 20.0 * np.array([0.0, 0.0, 0.2])) / mass
    ra = RightingArm(geoms(), mass, com, RHO)
    sts = ra.sweep(np.radians([10.0, 20.0, 30.0]))
    assert ra.jumps == [] and not sts[2].jump
    t = sts[1].trim
    for hd in range(21, 31):  # the reference branch: the potential's minimum followed from the 20 deg trim
        r = minimize_scalar(lambda x: ref_state(math.radians(hd), x, mass, com)[0],
                            bounds=(t - math.radians(3), t + math.radians(3)), method="bounded",
                            options={"xatol": 1e-10})
        assert abs(r.x - t) < math.radians(2.5)  # an interior minimum near the last: the same branch
        t = r.x
    assert math.degrees(sts[2].trim - sts[1].trim) < -10.0
    assert sts[2].trim == pytest.approx(t, abs=1e-7)
