"""The BlueBoat's speed in open water at full thrust, and at ArduRover's cruise throttle: a figure in
motion for the README, measured, not asserted.

Not a test; run by hand from an installed wheel: ``python bench/speed.py [--seconds S]``.

Each variant (the bundled config; its pontoons cut in 1, 6 and 24 segments; the hull-mesh config) is
built in memory (``aurgen.emit.build.model_mjcf``), floated in open sea water (1025 kg/m³) with the
hydrostatic runtime, settled, then driven straight ahead with both motors at a fixed thrust until its
speed stops changing (less than 1e-4 m/s over the last 5 s); printed: the settled speed (m/s, knots)
and the simulated time it took. Thrusts: the motors' full forward thrust (the catalog's thrust curve
at PWM 1900, 51.48 N each), and the thrust at ArduRover's CRUISE_THROTTLE 50 (ArduPilot/SITL_Models
``Gazebo/docs/BlueBoat.md`` flies the BlueBoat with CRUISE_SPEED 2.0 at CRUISE_THROTTLE 50: PWM 1700
on a 1100–1900 range trimmed at 1500, the same curve).
Reference: Blue Robotics gives the BlueBoat's top speed as about 3 m/s (docs/sources.md, "Other public
sources": quoted from memory of its product page, not re-read here).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np
import yaml

from aurgen.compose.resolve import resolve
from aurgen.emit.build import bundled_vehicles, model_mjcf
from aurgen.runtime.sim import Simulation

RHO = 1025.0


def variants(tmp: Path) -> list[tuple[str, str]]:
    vehicles = {p.stem: p for p in bundled_vehicles()}
    out = [("blueboat (bundled, 6 segments)", model_mjcf(resolve(str(vehicles["blueboat"]))))]
    for n in (1, 24):
        cfg = yaml.safe_load(vehicles["blueboat"].read_text())
        cfg["hull_displacement"]["segments"] = n
        p = tmp / f"blueboat_{n}.yaml"
        p.write_text(yaml.safe_dump(cfg))
        out.append((f"blueboat, {n} segment{'s' if n > 1 else ''}", model_mjcf(resolve(str(p)))))
    out.append(("blueboat_hullmesh", model_mjcf(resolve(str(vehicles["blueboat_hullmesh"])))))
    return out


def settled_speed(xml: str, thrust: float, seconds: float) -> tuple[float, float]:
    """(speed m/s, simulated s) of the boat driven by `thrust` N on each motor until steady."""
    with Simulation(xml, water=RHO) as sim:
        m, d = sim.model, sim.data
        sim.run(10.0)  # float to rest
        motors = [i for i in range(m.nu) if m.actuator(i).name.startswith("motor_")]
        d.ctrl[motors] = thrust
        dt = m.opt.timestep
        window = int(round(5.0 / dt))
        hist = []
        t = 0.0
        while t < seconds:
            sim.step(window // 10)
            t += window // 10 * dt
            R = d.xmat[1].reshape(3, 3)
            hist.append(float((R.T @ d.qvel[:3])[0]))
            if len(hist) > 10 and abs(hist[-1] - hist[-11]) < 1e-4:
                break
        return hist[-1], t


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=120.0, help="the longest run per variant (simulated s)")
    a = ap.parse_args(argv)
    from aurgen.config.catalog import catalog_for
    from aurgen.config.thrust_curve import find_curve

    vehicles = {p.stem: p for p in bundled_vehicles()}
    dirs = catalog_for(vehicles["blueboat"]).dirs
    curve = find_curve(dirs, "t200_16v", ("bench/speed.py", "t200_16v", None))
    full, cruise = curve.thrust(1900.0), curve.thrust(1700.0)
    with tempfile.TemporaryDirectory() as tmp:
        for label, xml in variants(Path(tmp)):
            for name, thrust in (("full thrust", full), ("CRUISE_THROTTLE 50", cruise)):
                if thrust is None:
                    continue
                v, t = settled_speed(xml, thrust, a.seconds)
                print(f"{label:34s} {name:19s} {2 * thrust:6.2f} N  {v:5.3f} m/s ({v / 0.514444:4.2f} kn)"
                      f"  steady after {t:5.1f} s", flush=True)


if __name__ == "__main__":
    main()
