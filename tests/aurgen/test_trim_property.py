"""The trim curve's free heel on the pitch-stable branch continuous with upright, for random BlueROV2 variants
(CoB offset, net buoyancy): the kernel's RightingArm (the report's trim curve: the body turned 90° in yaw) against
an independent pseudo-arclength continuation (tests/aurgen/hydro_ref.py: its own box clip and draft) that tests
pitch stability at every point.  Up to the reference's fold (or 60°) the free angles agree; where the reference
folds, the kernel records a jump there.  Includes issue 29's case (net 0.5 kg, CoB offset [0.01, -0.004, 0.046]:
the branch folds at 70.383° trim)."""
import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
import hydro_ref as hr  # noqa: E402

from aurgen.runtime.hydrostatics import Geom  # noqa: E402
from aurgen.runtime.hydrostatics.righting import RightingArm  # noqa: E402

MASS, RHO, FOOT = 11.544, 1025.0, (0.457, 0.338)
COM = np.array([0.0, 0.0, 0.0])
rng = np.random.default_rng(29)
CASES = [(0.5, (0.01, -0.004, 0.046), 75.0)] + [
    (float(rng.uniform(0.2, 1.5)), tuple(float(x) for x in (rng.uniform(-0.02, 0.02), rng.uniform(-0.01, 0.01),
                                                            rng.uniform(0.02, 0.06))), 60.0) for _ in range(2)]


@pytest.mark.parametrize("net,cob,upto", CASES)
def test_trim_branch_against_continuation(net, cob, upto):
    h = (MASS + net) / RHO / (FOOT[0] * FOOT[1])
    c = COM + np.array(cob)
    turn = lambda p: np.array([p[1], -p[0], p[2]])  # noqa: E731  (the report's trim curve: x -> -y')
    half = np.array([FOOT[1] / 2, FOOT[0] / 2, h / 2])
    H = hr.Hull([hr.aligned(turn(c), half)], MASS, turn(COM), RHO)
    ref = H.trim_branch(math.radians(upto), ds=math.radians(1.5))
    end = ref[-1][0]
    ra = RightingArm([Geom("box", half, turn(c), np.eye(3))], MASS, turn(COM), RHO)
    ang = np.radians(np.arange(0.0, upto + 1e-9, 3.0))
    states = ra.sweep(ang)
    for s in states:
        if s.heel < end - 1e-6:
            t = H.trim_at(ref, s.heel)
            assert abs(s.trim - t) < 1e-7, (math.degrees(s.heel), math.degrees(s.trim), math.degrees(t))
            assert s.pitch_slope > 0 and not s.jump
    if end < math.radians(upto) - 1e-6:  # the reference folds: the kernel jumps there
        assert ra.jumps and abs(ra.jumps[0][0] - end) < 1e-3, (np.degrees(end), ra.jumps)
    else:
        assert not [j for j in ra.jumps if j[0] < math.radians(upto)]
