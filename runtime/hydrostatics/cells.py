"""An environment's planes and convex cells, as data, and the geom pieces in them.

Space is split by planes ``n·x = d`` (world, unit n).  A cell is given by a
sign per plane: -1 for the side ``n·x <= d``, +1 for ``n·x >= d``, 0 when the
plane does not bound it.  Cells must not overlap; this module requires that
any two cells lie on opposite sides of at least one plane (a sufficient,
checkable condition).  A point in no cell is vacuum.
"""
from __future__ import annotations

import numpy as np

from aurgen.runtime.hydrostatics import clip_cell
# compiled pieces: out[c, i, :] = the clip_into row of geom i in cell c, cell c
# being cell_planes[cell_start[c]:cell_start[c+1]] (see aurgen.runtime.hydrostatics.kernel)
from aurgen.runtime.hydrostatics.kernel import clip_cells_into  # noqa: F401


class Cells:
    """Planes (P, 4) rows (nx, ny, nz, d) and cells as sign vectors (length P)."""

    def __init__(self, planes, cells):
        p = np.array(planes, dtype=np.float64).reshape(-1, 4)
        nn = np.linalg.norm(p[:, :3], axis=1)
        if np.any(nn == 0) or not np.all(np.isfinite(p)):
            raise ValueError("Cells: plane normals must be finite and non-zero")
        self.planes = p / nn[:, None]
        signs = []
        for k, s in enumerate(cells):
            s = np.asarray(s, dtype=np.int64).reshape(-1)
            if len(s) != len(self.planes) or not set(s.tolist()) <= {-1, 0, 1}:
                raise ValueError(f"Cells: cell {k} must be {len(self.planes)} signs in {{-1, 0, +1}}, got {s.tolist()}")
            signs.append(s)
        for a in range(len(signs)):
            for b in range(a + 1, len(signs)):
                if not np.any(signs[a] * signs[b] < 0):
                    raise ValueError(f"Cells: cells {a} and {b} are on the same side of every plane and may overlap; "
                                     "give them opposite signs on a plane that separates them")
        self.cells = signs
        rows, start = [], [0]
        for s in signs:
            for j in np.nonzero(s)[0]:
                rows.append(self.planes[j] * (1.0 if s[j] < 0 else -1.0))
            start.append(len(rows))
        self.cell_planes = np.array(rows, dtype=np.float64).reshape(-1, 4)
        self.cell_start = np.array(start, dtype=np.int64)

    def __len__(self):
        return len(self.cells)

    def halfspaces(self, c: int) -> np.ndarray:
        """Rows (k, 4) of cell c as ``n·x <= d``."""
        return self.cell_planes[self.cell_start[c]:self.cell_start[c + 1]]

    def cell_of_point(self, x) -> int:
        """Index of the cell containing point x (world), or -1 for vacuum."""
        x = np.asarray(x, dtype=np.float64).reshape(3)
        for c in range(len(self.cells)):
            h = self.halfspaces(c)
            if np.all(h[:, :3] @ x <= h[:, 3]):
                return c
        return -1

    def pieces(self, geom):
        """[(cell index, Clip)] for every cell holding a positive volume of geom."""
        res = []
        for c in range(len(self.cells)):
            cl = clip_cell(geom, self.halfspaces(c))
            if cl.volume > 0.0:
                res.append((c, cl))
        return res

    def cells_of(self, geom) -> list:
        """Indices of the cells the geom meets (holds a positive volume in)."""
        return [c for c, _ in self.pieces(geom)]
