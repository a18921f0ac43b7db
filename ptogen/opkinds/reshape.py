"""Reshapes (TRESHAPE): `dst` becomes a view of `src`'s bytes under its own shape, layout and
element type.

Nothing is copied: the simulator points `dst` at `src`'s storage, as upstream's CPU simulator
does, so element `(i, j)` of `dst` is whatever `src`'s bytes hold where `dst`'s layout places
`(i, j)`, and a write through either tile is seen by the other. The two tiles span the same bytes
(the `same_bytes` rule), share a TileType and are both boxed or both plain; their element types are
one, or both floating or both integral (checked at compile time in the simulator, as upstream's
does). The tests reinterpret `src`'s storage in numpy the same way.

A kind of its own, not `view`'s: `dst` keeps `src`'s bytes under its own shape, layout and element
type (the golden reinterprets bytes), where a view keeps each element at an offset (the golden
slices).
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

# (label, src (rows, cols, layout), dst (rows, cols, layout), dst valid (rows, cols), run-time valid)
Case = tuple[str, tuple[int, int, str], tuple[int, int, str], tuple[int, int], bool]
CASES: list[Case] = [
    ("16x32 as 8x64, row-major", (16, 32, "RowMajor"), (8, 64, "RowMajor"), (8, 64), False),
    ("32x32 as 16x64, valid 13x50", (32, 32, "RowMajor"), (16, 64, "RowMajor"), (13, 50), False),
    (
        "row-major 32x32 as col-major 32x32 (the transpose's bytes)",
        (32, 32, "RowMajor"),
        (32, 32, "ColMajor"),
        (32, 32),
        False,
    ),
    ("16x64 as 32x32, run-time valid 29x31", (16, 64, "RowMajor"), (32, 32, "RowMajor"), (29, 31), True),
]


class Reshape(StorageView):
    name: ClassVar[str] = "reshape"

    def recognise(self, page: PageOp) -> int | None:
        # templates/opkinds/reshape/domain.md.j2: "For each element ..., the same bytes as"
        return DOMAIN if not page.vector and page.intro_says("the same bytes as") else None

    def operand_index(self, op: OpViewAPI, operand: str) -> str:
        return "i,j"

    def plan_tests(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        dst, src = op.spec.semantics.domain, self.source(op)
        first = 0
        for dtype, on in dtype_profiles(project, op):
            cases = []
            for k, (label, (sr, sc, sl), (dr, dc, dl), (vr, vc), dyn) in enumerate(CASES, first):
                s = TileDecl(src, dtype, sr, sc, sr, sc, False, "Vec", sl)
                d = TileDecl(dst, dtype, dr, dc, vr, vc, dyn, "Vec", dl)
                call = Call([], [dst, src])
                cases.append(RuntimeCase(k, label, [d, s], {}, call, layout_addresses(project, [d, s])))
            first += len(CASES)
            tests.runtime.append(RuntimeKernel(dtype, {dst: dtype, src: dtype}, {}, on, cases))
        plan_rule_cases(project, op, tests)

    def prepare_cases(self, gx: GoldenContext, data: Path) -> list[Check]:
        dst = gx.op.domain
        checks: list[Check] = []
        for case in gx.group.cases:
            arrays = write_tile_inputs(gx, case, gx.np_type(gx.group.dtypes[dst]), data)
            src = next(n for n in case.tiles if n != dst)
            t = case.tiles[dst]
            vr, vc = t.valid_rows, t.valid_cols
            # dst's storage is src's bytes: read them in dst's layout and element type
            flat = np.ascontiguousarray(arrays[src]).view(gx.np_type(gx.group.dtypes[dst]))
            want = logical(flat, t.rows, t.cols, t.layout)[:vr, :vc].copy()
            label = f"{gx.label} case {case.index} ({case.label})"

            def valid(flat: np.ndarray, t: TileShape = t) -> np.ndarray:
                return logical(flat, t.rows, t.cols, t.layout)[: t.valid_rows, : t.valid_cols]

            checks.append(same_bits(f"c{case.index}_{dst}.out", want, label, "reshaped", valid))
        return checks
