"""Views: a tile that reads and writes another tile's storage (TSUBVIEW, TALIAS).

`dst` becomes a view of `src` starting at element (row, col) of src's valid region:
`dst[i, j]` is `src[row + i, col + j]` for every element of dst's valid region, and a write through
either tile is seen by the other. Nothing is copied; the simulator points dst at src's storage, so
the two tiles must lay storage out the same way (the `same_storage` rule) and the view must lie
within src's valid region (the simulator stops otherwise). `semantics.expr` names the viewed tile;
two scalar operands, if the op has them, are the row and column of the view's first element, in
that order; without them the view starts at src's first element (an alias, TALIAS).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from ..importer.contract import DOMAIN, PageOp
from ..kindlib.storage import StorageView
from ..testing.golden import Check, GoldenContext, logical, same_bits, write_tile_inputs
from ..testing.manifest import TileShape
from ..testing.plan import (
    Call,
    OpTests,
    RuntimeCase,
    RuntimeKernel,
    TileDecl,
    dtype_profiles,
    layout_addresses,
    plan_rule_cases,
)

if TYPE_CHECKING:
    from ..kind_api import OpViewAPI, ProjectViewAPI

# (label, layout, rows, cols, src valid rows x cols, view valid rows x cols, row, col, run-time valid)
Case = tuple[str, str, int, int, tuple[int, int], tuple[int, int], int, int, bool]

CASES: list[Case] = [
    ("row-major 16x16, view 8x8 at (4, 6)", "RowMajor", 16, 16, (16, 16), (8, 8), 4, 6, False),
    (
        "row-major 8x32, run-time valid 7x30, view 3x20 at (4, 10)",
        "RowMajor",
        8,
        32,
        (7, 30),
        (3, 20),
        4,
        10,
        True,
    ),
    ("col-major 16x8, view 10x3 at (2, 5)", "ColMajor", 16, 8, (16, 8), (10, 3), 2, 5, False),
    ("the whole valid region 5x9 of 8x16 at (0, 0)", "RowMajor", 8, 16, (5, 9), (5, 9), 0, 0, False),
]

# An alias starts at (0, 0): the same storage under a valid shape of its own.
ALIAS_CASES: list[Case] = [
    ("row-major 16x16, alias valid 8x8", "RowMajor", 16, 16, (16, 16), (8, 8), 0, 0, False),
    ("row-major 8x32, run-time valid 7x30, alias 3x20", "RowMajor", 8, 32, (7, 30), (3, 20), 0, 0, True),
    ("col-major 16x8, alias valid 10x3", "ColMajor", 16, 8, (16, 8), (10, 3), 0, 0, False),
    ("the whole valid region 5x9 of 8x16", "RowMajor", 8, 16, (5, 9), (5, 9), 0, 0, False),
]


class View(StorageView):
    name: ClassVar[str] = "view"

    # ----------------------------------------------------------------- import
    def recognise(self, page: PageOp) -> int | None:
        # templates/opkinds/view/domain.md.j2: "For each element ..., `dst` reading and writing ..."
        return DOMAIN if not page.vector and page.intro_says("reading and writing") else None

    # ----------------------------------------------------------------- tests
    def plan_tests(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        dst, src = op.spec.semantics.domain, self.source(op)
        offsets = self.offsets(op) is not None
        plan = CASES if offsets else ALIAS_CASES
        first = 0
        for dtype, on in dtype_profiles(project, op):
            cases = []
            for k, (label, layout, rows, cols, (svr, svc), (vr, vc), row, col, dyn) in enumerate(plan, first):
                s = TileDecl(src, dtype, rows, cols, svr, svc, dyn, "Vec", layout)
                d = TileDecl(dst, dtype, rows, cols, vr, vc, dyn, "Vec", layout)
                call = Call([], [dst, src, *([str(row), str(col)] if offsets else [])])
                attrs = {"row": str(row), "col": str(col)}
                cases.append(
                    RuntimeCase(k, label, [d, s], {}, call, layout_addresses(project, [d, s]), attrs=attrs)
                )
            first += len(plan)
            tests.runtime.append(RuntimeKernel(dtype, {dst: dtype, src: dtype}, {}, on, cases))
        plan_rule_cases(project, op, tests)

    def prepare_cases(self, gx: GoldenContext, data: Path) -> list[Check]:
        dst = gx.op.domain
        checks: list[Check] = []
        for case in gx.group.cases:
            arrays = write_tile_inputs(gx, case, gx.np_type(gx.group.dtypes[dst]), data)
            src = next(n for n in case.tiles if n != dst)
            t, s = case.tiles[dst], case.tiles[src]
            row, col = int(case.attrs["row"]), int(case.attrs["col"])
            vr, vc = t.valid_rows, t.valid_cols
            whole = logical(arrays[src], s.rows, s.cols, s.layout)
            want = whole[row : row + vr, col : col + vc].copy()
            label = f"{gx.label} case {case.index} ({case.label})"

            def valid(flat: np.ndarray, t: TileShape = t, vr: int = vr, vc: int = vc) -> np.ndarray:
                # dst's storage now starts inside src's: its valid region must read src's elements.
                return logical(flat, t.rows, t.cols, t.layout)[:vr, :vc]

            checks.append(same_bits(f"c{case.index}_{dst}.out", want, label, "viewed", valid))
        return checks
