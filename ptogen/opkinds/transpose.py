"""Transposes (TTRANS): `dst[i, j] = src[j, i]`, a move to the transposed position.

The kind walks the source's valid region, as upstream's CPU simulator does (the transpose's extent
is the source's valid rows and columns), and writes element (i, j) of the source to element (j, i)
of the destination in the destination's element type, which must have the source's size. A
scratch tile (`tmp`) is passed through; the result does not depend on it.

Until the expression language has index notation the expression names the source (`src`) and
this kind supplies the permutation (`operand_index` gives the page's `src_{j,i}`, the simulator
and the golden swap the indices). With index notation the spec says `dst[i, j] = src[j, i]`
itself, and TTRANS becomes an element-wise op whose operand index is permuted; this module then
goes away.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from ..testing.golden import Check, GoldenContext, inputs
from ..testing.plan import (
    OpTests,
    RuntimeCase,
    RuntimeKernel,
    TileDecl,
    layout_addresses,
    make_call,
    plan_rule_cases,
    tile_operands,
)
from .base import DOMAIN, OpKind, PageOp
from .move import Move, _moved_check, boxed_logical

if TYPE_CHECKING:
    from ..kind_api import FormViewAPI, OpViewAPI, ProjectViewAPI

# (label, src rows, src cols, src valid rows, src valid cols, run-time valid); dst is cols x rows.
SHAPES = [
    ("32x32", 32, 32, 32, 32, False),
    ("32x64, valid 29x45", 32, 64, 29, 45, False),
    ("64x32, run-time valid 50x17", 64, 32, 50, 17, True),
]


class Transpose(Move):
    name: ClassVar[str] = "transpose"

    def recognise(self, page: PageOp) -> int | None:
        # templates/opkinds/transpose/domain.md.j2: "For each element ..., written at the transposed position"
        return DOMAIN if not page.vector and page.intro_says("written at the transposed position") else None

    def operand_index(self, op: OpViewAPI, operand: str) -> str:
        return "j,i" if operand == self.source(op) else "i,j"

    def region(self, op: OpViewAPI) -> str:
        return self.source(op)

    def sim_args(self, op: OpViewAPI, form: FormViewAPI) -> list[str]:
        return OpKind.sim_args(self, op, form)

    def form_changes_result(self, op: OpViewAPI, form: FormViewAPI) -> bool:
        return False

    def manifest_extra(self, op: OpViewAPI) -> dict[str, list[object]]:
        return {}

    def plan_tests(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        dst, src = op.domain, self.source(op)
        scratch = [n for n in tile_operands(op) if n not in (dst, src)]
        for dtype, on in self.dtype_profiles(project, op):
            first = sum(len(k.cases) for k in tests.runtime)
            cases = []
            for index, (label, rows, cols, vr, vc, dyn) in enumerate(SHAPES, first):
                tiles = {
                    dst: TileDecl(dst, dtype, cols, rows, vc, vr, dyn),
                    src: TileDecl(src, dtype, rows, cols, vr, vc, dyn),
                    **{n: TileDecl(n, dtype, cols, rows, vc, vr, dyn) for n in scratch},
                }
                call = make_call(op, tiles, dict(op.default_values), {})
                decls = list(tiles.values())
                cases.append(RuntimeCase(index, label, decls, {}, call, layout_addresses(project, decls)))
            tests.runtime.append(RuntimeKernel(dtype, {n: dtype for n in tiles}, {}, on, cases))
        plan_rule_cases(project, op, tests)

    def prepare_cases(self, gx: GoldenContext, data: Path) -> list[Check]:
        op = gx.op
        dst = op.domain
        src = next(n for n in op.inputs if op.operands[n] == "tile")
        checks: list[Check] = []
        for case in gx.group.cases:
            k = case.index
            seed = f"{gx.op_name}/{gx.entry.group}/{k}"
            flats = {}
            for name, t in case.tiles.items():
                flats[name] = inputs(gx.np_type(gx.group.dtypes[name]), t.rows * t.cols, f"{seed}/{name}")
                flats[name].tofile(data / f"c{k}_{name}.bin")
            t, ts = case.tiles[dst], case.tiles[src]
            d_type = gx.np_type(gx.group.dtypes[dst])
            values = boxed_logical(flats[src], ts)[: ts.valid_rows, : ts.valid_cols]
            with np.errstate(all="ignore"):
                want = np.ascontiguousarray(values.T).astype(d_type)
            before = boxed_logical(flats[dst], t)
            label = f"{gx.label} case {k} ({case.label})"
            checks.append(_moved_check(f"c{k}_{dst}.out", t, want, before, label, d_type))
        return checks
