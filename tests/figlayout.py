"""Read a rendered matplotlib figure back (issue 28): every visible text's and marker's extent from the
renderer (``fig.canvas.get_renderer()``, ``artist.get_window_extent``); a text or marker outside the figure,
or two texts that overlap, is a problem named by its text."""

from __future__ import annotations

import numpy as np


def layout_problems(fig, tol: float = 1.0) -> list[str]:
    from matplotlib.lines import Line2D
    from matplotlib.text import Text

    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    W, H = fig.bbox.width, fig.bbox.height
    out, boxes = [], []
    ticks, drawn = set(), []  # tick labels: only those of the ticks drawn (in the view), as the renderer does
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                ticks.update((id(tick.label1), id(tick.label2)))
            for tick in axis._update_ticks():
                drawn += [lab for lab in (tick.label1, tick.label2) if lab.get_visible()]
    texts = [t for t in fig.findobj(Text) if id(t) not in ticks] + drawn
    for t in texts:
        if not t.get_visible() or not t.get_text().strip():
            continue
        b = t.get_window_extent(r)
        if b.x0 < -tol or b.y0 < -tol or b.x1 > W + tol or b.y1 > H + tol:
            out.append(f"text {t.get_text()!r} leaves the figure ({b.x0:.0f}, {b.y0:.0f}, {b.x1:.0f}, {b.y1:.0f}) "
                       f"of {W:.0f} x {H:.0f}")
        boxes.append((t.get_text(), b))
    for i, (ta, a) in enumerate(boxes):
        for tb, b in boxes[i + 1:]:
            w = min(a.x1, b.x1) - max(a.x0, b.x0)
            h = min(a.y1, b.y1) - max(a.y0, b.y0)
            if w > tol and h > tol:
                out.append(f"texts {ta!r} and {tb!r} overlap")
    for ln in fig.findobj(Line2D):
        if not ln.get_visible() or ln.get_marker() in (None, "None", "", " ") or ln.axes is None:
            continue
        xy = np.column_stack([ln.get_xdata(), ln.get_ydata()]).astype(float)
        xy = xy[np.isfinite(xy).all(axis=1)]
        if not len(xy):
            continue
        pix = ln.get_transform().transform(xy)
        lo, hi = ln.axes.bbox.x0, ln.axes.bbox.x1
        inside = (pix[:, 0] >= lo - 1) & (pix[:, 0] <= hi + 1) & (pix[:, 1] >= ln.axes.bbox.y0 - 1) & \
            (pix[:, 1] <= ln.axes.bbox.y1 + 1)
        half = ln.get_markersize() * fig.dpi / 72.0 / 2.0
        p = pix[inside] if ln.get_clip_on() else pix
        if len(p) and (p[:, 0].min() - half < -tol or p[:, 1].min() - half < -tol or
                       p[:, 0].max() + half > W + tol or p[:, 1].max() + half > H + tol):
            out.append(f"markers of {ln.get_label()!r} leave the figure")
        if ln.get_clip_on() and len(p) and (
                (p[:, 0] - half < ln.axes.bbox.x0 - tol).any() or (p[:, 0] + half > ln.axes.bbox.x1 + tol).any()
                or (p[:, 1] - half < ln.axes.bbox.y0 - tol).any() or (p[:, 1] + half > ln.axes.bbox.y1 + tol).any()):
            out.append(f"markers of {ln.get_label()!r} are clipped at the axes' edge")
    from matplotlib.collections import PathCollection

    for col in fig.findobj(PathCollection):  # scatter markers: offsets in data, sizes in points^2
        ax = col.axes
        if ax is None or not col.get_visible() or not len(col.get_offsets()):
            continue
        xy = np.asarray(col.get_offsets(), float)
        xy = xy[np.isfinite(xy).all(axis=1)]
        if not len(xy):
            continue
        pix = col.get_offset_transform().transform(xy)
        half = np.sqrt(np.max(col.get_sizes())) * fig.dpi / 72.0 / 2.0 if len(col.get_sizes()) else 0.0
        b = ax.bbox
        if col.get_clip_on():
            inside = (pix[:, 0] >= b.x0 - 1) & (pix[:, 0] <= b.x1 + 1) & (pix[:, 1] >= b.y0 - 1) & (pix[:, 1] <= b.y1 + 1)
            p = pix[inside]
            if len(p) and ((p[:, 0] - half < b.x0 - tol).any() or (p[:, 0] + half > b.x1 + tol).any()
                           or (p[:, 1] - half < b.y0 - tol).any() or (p[:, 1] + half > b.y1 + tol).any()):
                out.append(f"markers of {col.get_label()!r} are clipped at the axes' edge")
        elif (pix[:, 0].min() - half < -tol or pix[:, 1].min() - half < -tol or pix[:, 0].max() + half > W + tol
              or pix[:, 1].max() + half > H + tol):
            out.append(f"markers of {col.get_label()!r} leave the figure")
    return out


def legend_over_data(ax, tol: float = 1.0) -> list[str]:
    """The data points (lines' vertices, scatter offsets) of ``ax`` that its legend covers, named by artist."""
    from matplotlib.collections import PathCollection

    leg = ax.get_legend()
    if leg is None:
        return []
    fig = ax.figure
    fig.canvas.draw()
    b = leg.get_window_extent(fig.canvas.get_renderer())
    out = []
    arts = [(a.get_label(), a.get_transform(), np.column_stack([a.get_xdata(), a.get_ydata()])) for a in ax.get_lines()]
    arts += [(c.get_label(), c.get_offset_transform(), np.asarray(c.get_offsets()))
             for c in ax.collections if isinstance(c, PathCollection)]
    for name, tr, xy in arts:
        xy = np.asarray(xy, float)
        xy = xy[np.isfinite(xy).all(axis=1)] if len(xy) else xy
        if not len(xy):
            continue
        pix = tr.transform(xy)
        if ((pix[:, 0] > b.x0 + tol) & (pix[:, 0] < b.x1 - tol) & (pix[:, 1] > b.y0 + tol) & (pix[:, 1] < b.y1 - tol)).any():
            out.append(f"the legend covers {name!r}")
    return out
