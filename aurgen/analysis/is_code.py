"""The IMO 2008 IS Code's numbers, as data: the general criteria's limits (Part A, 2.2) and the severe wind and
rolling (weather) criterion's constants and tables (Part A, 2.3).

Source: International Code on Intact Stability, 2008 (2008 IS Code), adopted by resolution MSC.267(85), Part A,
chapter 2: 2.2.1-2.2.4 (the general criteria), 2.3.2 (the wind heeling levers, P = 504 N/m²), 2.3.4 (the
roll-back angle θ1 = 109 k X1 X2 √(r s), r = 0.73 + 0.6 OG/d, T = 2 C B/√GM, C = 0.373 + 0.023 (B/d)
− 0.043 (L_wl/100)) and its Tables 2.3.4-1 (X1 against B/d), 2.3.4-2 (X2 against C_B), 2.3.4-3 (k against
A_k·100/(L·B)) and 2.3.4-4 (s against T). "Intermediate values in these tables should be obtained by linear
interpolation"; outside a table its end value applies (the tables' own "≤" and "≥" rows).

The Code applies to ships of 24 m in length and over; for a smaller craft the figures are an indicative
equivalent (the small-craft standard is ISO 12217-1).
"""

from __future__ import annotations

import numpy as np

SOURCE = "IMO 2008 IS Code (resolution MSC.267(85)), Part A"

#: general criteria (2.2): m·rad for areas, m for arms, degrees for angles
AREA_30 = 0.055  # 2.2.1: area under GZ up to 30°
AREA_40 = 0.090  # 2.2.1: up to 40° or the downflooding angle θf if less
AREA_30_40 = 0.030  # 2.2.1: between 30° and 40° (or θf)
GZ_30 = 0.20  # 2.2.2: GZ at an angle of heel equal to or greater than 30°
ANGLE_MAX_GZ = 25.0  # 2.2.3: the maximum GZ at not less than 25° (preferably above 30°)
GM0 = 0.15  # 2.2.4: initial metacentric height

#: weather criterion (2.3)
WIND_PRESSURE = 504.0  # P, N/m² (2.3.2.2)
G = 9.81  # g, m/s², as the Code writes it in l_w1 = P A Z / (1000 g Δ)
GUST = 1.5  # l_w2 = 1.5 l_w1 (2.3.2.3)
WIND_HEEL = 16.0  # θ0 limit, degrees (2.3.1.2 and its guidance): 16° or 80 % of deck-edge immersion
DECK_EDGE_FRACTION = 0.8
THETA2_CAP = 50.0  # θ2 = min(θf, 50°, θc), degrees (2.3.4)
THETA1_COEFF = 109.0  # θ1 = 109 k X1 X2 √(r s), degrees
K_SHARP_BILGE = 0.7  # 2.3.4: "k = 0.7 for a ship having sharp bilges"

#: (source, [(argument, value), ...]) of each table, argument ascending
TABLES = {
    "X1": ("Table 2.3.4-1, X1 against B/d",
           [(2.4, 1.0), (2.5, 0.98), (2.6, 0.96), (2.7, 0.95), (2.8, 0.93), (2.9, 0.91), (3.0, 0.90),
            (3.1, 0.88), (3.2, 0.86), (3.4, 0.82), (3.5, 0.80)]),
    "X2": ("Table 2.3.4-2, X2 against C_B",
           [(0.45, 0.75), (0.50, 0.82), (0.55, 0.89), (0.60, 0.95), (0.65, 0.97), (0.70, 1.0)]),
    "k": ("Table 2.3.4-3, k against A_k·100/(L·B)",
          [(0.0, 1.0), (1.0, 0.98), (1.5, 0.95), (2.0, 0.88), (2.5, 0.79), (3.0, 0.74), (3.5, 0.72), (4.0, 0.70)]),
    "s": ("Table 2.3.4-4, s against the roll period T (s)",
          [(6.0, 0.100), (7.0, 0.098), (8.0, 0.093), (12.0, 0.065), (14.0, 0.053), (16.0, 0.044), (18.0, 0.038),
           (20.0, 0.035)]),
}


def table(name: str, x: float) -> float:
    """Table ``name`` (X1, X2, k, s) at argument ``x``: linear between rows, the end value outside."""
    _, rows = TABLES[name]
    xs, ys = np.array([r[0] for r in rows]), np.array([r[1] for r in rows])
    return float(np.interp(float(x), xs, ys))


def roll_coefficient(beam: float, draught: float, lwl: float) -> float:
    """C = 0.373 + 0.023 (B/d) − 0.043 (L_wl/100) (2.3.4), B, d, L_wl in m."""
    return 0.373 + 0.023 * beam / draught - 0.043 * lwl / 100.0


def roll_period(beam: float, draught: float, lwl: float, gm: float) -> float:
    """T = 2 C B / √GM (s), GM m (2.3.4)."""
    return 2.0 * roll_coefficient(beam, draught, lwl) * beam / np.sqrt(gm)


def roll_back(k: float, x1: float, x2: float, r: float, s: float) -> float:
    """θ1 = 109 k X1 X2 √(r s), degrees (2.3.4)."""
    return THETA1_COEFF * k * x1 * x2 * float(np.sqrt(r * s))


def wind_lever(area: float, lever: float, mass_kg: float) -> float:
    """l_w1 = P A Z / (1000 g Δ) (m): A m², Z m, Δ = mass_kg/1000 t (2.3.2.2)."""
    return WIND_PRESSURE * area * lever / (1000.0 * G * (mass_kg / 1000.0))
