"""The sweep's figures (PNG, matplotlib's Agg backend): the distributions of the figure
columns (:func:`fig_distributions`), GM_T (m) against the payload (:func:`fig_gm`: the first
numeric swept catalog mass, kg, else ``payload_total_kg``) and the capsize / zero-freeboard
boundary in the payload plane (:func:`fig_capsize`, :func:`boundary_1d`).
"""

from __future__ import annotations

import math

import numpy as np

from aurgen.analysis.sweep.spec import Sweep, is_number


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def MaxNLocator(**kw):
    from matplotlib.ticker import MaxNLocator as M

    return M(**kw)


def _legend_below(ax, ncol=2, title=None):
    """The legend under the axes, off the data (loc="best" inside sat on points at the edges)."""
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=ncol, frameon=False, fontsize=9, title=title,
              title_fontsize=8)


def fig_distributions(sweep: Sweep, rows, tmp):
    plt = _plt()
    cols = [c for c in ("draft_m", "heel_deg", "trim_deg", "gm_t_m", "gm_l_m", "freeboard_m", "reserve_buoyancy_kg",
                        "max_gz_m", "avs_deg", "td_max_roll_deg", "td_settle_time_s")
            if any(r.get(c) is not None for r in rows)]
    n = max(len(cols), 1)
    ncol = 3
    nrow = (n + ncol - 1) // ncol
    fig, axs = plt.subplots(nrow, ncol, figsize=(11, 3.2 * nrow), squeeze=False)
    for ax, c in zip(axs.flat, cols):
        v = np.array([r[c] for r in rows if r.get(c) is not None], float)
        fin = v[np.isfinite(v)]
        if fin.size and fin.min() == fin.max():
            # a constant column: one bar at its value, the axis around it (hist's default of value +- 0.5
            # drew 0.1 s on an axis from -0.4 s), and the value said
            w = max(abs(float(fin[0])) * 0.05, 1e-3)
            ax.hist(v, bins=1, range=(fin[0] - 0.5 * w, fin[0] + 0.5 * w), color="tab:blue", alpha=0.8)
            ax.set_xlim(fin[0] - 2.0 * w, fin[0] + 2.0 * w)
            ax.set_xticks([fin[0]])
            ax.set_title(f"all {fin.size} = {fin[0]:.4g}", fontsize=9)
        else:
            ax.hist(v, bins=min(40, max(5, int(math.sqrt(len(v))))), color="tab:blue", alpha=0.8)
            ax.xaxis.set_major_locator(MaxNLocator(nbins=5))  # long tick labels do not run into each other
        ax.set_xlabel(c)
        ax.set_ylabel("variants")
    for ax in list(axs.flat)[len(cols):]:
        ax.axis("off")
    fig.suptitle(f"{sweep.label}: distributions over {len(rows)} variants")
    fig.tight_layout()
    fig.savefig(tmp, format="png", dpi=100)
    plt.close(fig)


def _payload_column(sweep: Sweep) -> str:
    """The payload axis of the figures: the first numeric swept catalog mass, else ``payload_total_kg``."""
    for a in sweep.axes:
        names = [t for t in a.key.tokens if isinstance(t, str)]
        numeric = a.dist in ("uniform", "normal") or (a.values is not None and all(is_number(v) for v in a.values))
        if a.key.kind == "catalog" and names and names[-1] == "mass" and numeric:
            return a.column
    return "payload_total_kg"


def fig_gm(sweep: Sweep, rows, tmp):
    plt = _plt()
    x = _payload_column(sweep)
    fig, ax = plt.subplots(figsize=(8, 5))
    ok = [r for r in rows if r.get("gm_t_m") is not None and is_number(r.get(x))]
    # the other swept key of the payload plane (e.g. the payload's station) told apart by colour, safe and unsafe
    # by marker (filled dot, cross); with none, safe blue and unsafe red as before
    px, other = plane_columns(sweep)
    other = other if px == x else None
    groups = sorted({r.get(other) for r in ok if is_number(r.get(other))}) if other else []
    if len(groups) > 1:
        for k, g in enumerate(groups):
            col = f"C{k % 10}"
            for flag, mk in ((True, "o"), (False, "x")):
                pts = [r for r in ok if r.get(other) == g and bool(r.get("safe")) == flag]
                if pts:
                    ax.scatter([r[x] for r in pts], [r["gm_t_m"] for r in pts], s=14, color=col, marker=mk,
                               label=f"{other} = {g:g}, " + ("safe" if flag else "unsafe"))
    else:
        safe = [r for r in ok if r.get("safe")]
        bad = [r for r in ok if not r.get("safe")]
        ax.scatter([r[x] for r in safe], [r["gm_t_m"] for r in safe], s=10, label="safe", color="tab:blue")
        ax.scatter([r[x] for r in bad], [r["gm_t_m"] for r in bad], s=10, label="unsafe (capsized, unstable or "
                   "freeboard ≤ 0)", color="tab:red")
    ax.axhline(0.0, color="k", lw=0.8)
    ax.set_xlabel(x)
    ax.set_ylabel("GM_T (m)")
    ax.set_title(f"{sweep.label}: GM_T against payload")
    _legend_below(ax, ncol=3 if len(groups) > 1 else 2,
                  title="unsafe: capsized, unstable or freeboard ≤ 0" if len(groups) > 1 else None)
    fig.tight_layout()
    fig.savefig(tmp, format="png", dpi=100)
    plt.close(fig)


def plane_columns(sweep: Sweep) -> tuple:
    """The payload plane of the capsize figure: ``plots.plane``, else the payload column and the
    first other numeric swept key (None for the second when there is none)."""
    if "plane" in sweep.plots:
        return tuple(sweep.plots["plane"])
    x = _payload_column(sweep)
    for a in sweep.axes:
        vals = a.values if a.values is not None else (() if a.dist == "choice" else (0.0,))
        if a.column != x and vals and all(is_number(v) for v in vals):
            return x, a.column
    return x, None


def boundary_1d(rows, x: str) -> list:
    """Payload values (column ``x``) where ``safe`` flips between neighbouring variants sorted by
    ``x``: each the midpoint of the two, or, where both have a freeboard, its linear zero."""
    pts = sorted((r for r in rows if is_number(r.get(x)) and r.get("composed")), key=lambda r: r[x])
    out = []
    for a, b in zip(pts[:-1], pts[1:]):
        if bool(a.get("safe")) != bool(b.get("safe")):
            fa, fb = a.get("freeboard_m"), b.get("freeboard_m")
            if is_number(fa) and is_number(fb) and (fa > 0) != (fb > 0) and fa != fb:
                out.append(a[x] + (b[x] - a[x]) * fa / (fa - fb))
            else:
                out.append(0.5 * (a[x] + b[x]))
    return out


def fig_capsize(sweep: Sweep, rows, tmp):
    plt = _plt()
    x, y = plane_columns(sweep)
    fig, ax = plt.subplots(figsize=(8, 5))
    pts = [r for r in rows if r.get("composed") and is_number(r.get(x)) and (y is None or is_number(r.get(y)))]
    if y is None:
        fbs = [r for r in pts if is_number(r.get("freeboard_m"))]
        ax.plot([r[x] for r in fbs], [r["freeboard_m"] for r in fbs], ".", label="freeboard (m)")
        ax.plot([r[x] for r in pts if is_number(r.get("gm_t_m"))], [r["gm_t_m"] for r in pts if is_number(r.get("gm_t_m"))],
                ".", label="GM_T (m)")
        for k, b in enumerate(boundary_1d(rows, x)):
            ax.axvline(b, color="tab:red", ls="--", label="boundary" if k == 0 else None)
        ax.axhline(0.0, color="k", lw=0.8)
        ax.set_ylabel("m")
    else:
        s = [r for r in pts if r.get("safe")]
        u = [r for r in pts if not r.get("safe")]
        ax.scatter([r[x] for r in s], [r[y] for r in s], s=12, color="tab:blue", label="safe")
        ax.scatter([r[x] for r in u], [r[y] for r in u], s=12, color="tab:red", marker="x",
                   label="capsized, unstable or freeboard ≤ 0")
        if len(pts) >= 4:
            try:
                import matplotlib.tri as mtri

                tri = mtri.Triangulation([r[x] for r in pts], [r[y] for r in pts])
                ax.tricontour(tri, [1.0 if r.get("safe") else 0.0 for r in pts], levels=[0.5], colors="k")
            except (ValueError, RuntimeError):
                pass  # collinear points: no triangulation, the scatter says it
        ax.set_ylabel(y)
    # the contour's sticky edges put the axes on the outermost variants, half-clipping their markers: margins
    ax.use_sticky_edges = False
    ax.margins(0.04)
    ax.autoscale_view()
    ax.set_xlabel(x)
    ax.set_title(f"{sweep.label}: capsize / zero-freeboard boundary")
    _legend_below(ax)
    fig.tight_layout()
    fig.savefig(tmp, format="png", dpi=100)
    plt.close(fig)
