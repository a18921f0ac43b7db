"""Copy and pad (TFILLPAD, TFILLPAD_INPLACE, TFILLPAD_EXPAND): `dst[i, j] = src[i, j]` inside the
source's valid region, the destination's pad value everywhere else in the destination tile.

The spec writes the copied part in index notation (`dst[i,j] = src[i,j]`); this kind owns the rest,
which the expression language cannot say yet: the walk covers the destination's whole static shape
(`Rows` x `Cols`, not its valid region), an element outside the source's valid rows and columns
takes the pad value, and a destination with an empty valid region is left as it is. The pad value is
the destination tile's `PadVal` (`pto/cpu/tile_offsets.hpp`'s `sim::pad_value`, the one definition
TLOAD's padding uses too), or the `PadVal` template argument of TFILLPAD's one-type (`Mat`) form.
This follows upstream's CPU simulator (include/pto/cpu/TFillPad.hpp).

Which variant an op is comes from its dispatch: the `TFillPadMode` template argument its
declarations pass to `TFILLPAD_IMPL` (TFILLPAD's `mode`, TFILLPAD_INPLACE's and TFILLPAD_EXPAND's
constants). `Expand` tests use a destination larger than the source; the others one shape.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..importer.contract import DOMAIN, PageOp
from ..kindlib.layout import pad_value, tile_logical
from ..kindlib.moves import TileMove
from ..kindlib.regions import region_check
from ..spec import expr as semantics
from ..spec.kindfacts import KindFacts
from ..testing.golden import Check, GoldenContext, inputs
from ..testing.plan import (
    OpTests,
    RuntimeCase,
    RuntimeKernel,
    TileDecl,
    dtype_profiles,
    layout_addresses,
    make_call,
    plan_rule_cases,
)
from .base import OpKind, fixed_type

if TYPE_CHECKING:
    from ..kind_api import FormViewAPI, OpViewAPI, ProjectViewAPI

MODE_ENUM = "TFillPadMode"
PAD_ENUM = "PadValue"

# (label, rows, cols, src valid rows, src valid cols, run-time valid, pad, boxed NZ). The first case
# declares both tiles alike (one type, as the one-type form takes them).
Case = tuple[str, int, int, int, int, bool, str, bool]
CASES: list[Case] = [
    ("16x16, run-time src valid 11x13, both PadValue::Max", 16, 16, 11, 13, True, "Max", False),
    ("16x32, src valid 9x20, PadValue::Min", 16, 32, 9, 20, False, "Min", False),
    ("8x32, src valid 3x1, PadValue::Zero", 8, 32, 3, 1, False, "Zero", False),
    ("4x32, src valid 4x32 (nothing padded), PadValue::Max", 4, 32, 4, 32, False, "Max", False),
    ("NZ 32x32, src valid 17x9, PadValue::Min", 32, 32, 17, 9, False, "Min", True),
]
# Expand: the destination is larger by these rows and columns.
GROW = (8, 32)
# NZ `Mat` tiles (TFILLPAD's one-type form on hardware). The first case declares both tiles alike, so
# the plain call resolves to the one-type form, whose default PadVal (Zero) the tiles' pad value matches;
# the second case's two types take the Vec form, padding with the destination's PadVal.
MAT_CASES: list[Case] = [
    ("Mat NZ 32x32, run-time src valid 17x9, both PadValue::Zero", 32, 32, 17, 9, True, "Zero", True),
    ("Mat NZ 16x32, run-time src valid 16x5, PadValue::Max", 16, 32, 16, 5, True, "Max", True),
]
MAT_DTYPES = ("float", "half", "int8_t")


class FillPad(TileMove):
    name: ClassVar[str] = "fillpad"
    index_notation: ClassVar[bool] = True
    # Its declarations take different value parameters: TFILLPAD's `mode`, its one-type form's `PadVal`.
    facts: ClassVar[KindFacts] = KindFacts(overloads_keep_values=False)

    # ----------------------------------------------------------------- spec checks
    def check_expr(self, expr: semantics.Node) -> list[str]:
        wanted = "a fillpad op copies at the same indices, written `dst[i,j] = src[i,j]`"
        if not semantics.is_assignment(expr) or expr.args[1].op != "index":
            return [wanted]
        lhs = semantics.lhs_indices(expr)
        ((_, rhs),) = semantics.indexed(expr.args[1])
        if len(lhs) != 2 or len(set(lhs)) != 2 or list(rhs) != lhs:
            return [wanted]
        return []

    @staticmethod
    def source(op: OpViewAPI) -> str:
        return str(op.loaded.expr.args[1].value)

    # ----------------------------------------------------------------- variant
    @staticmethod
    def mode(op: OpViewAPI) -> str:
        """The op's TFillPadMode (Normal, InPlace or Expand), from its main declaration's dispatch."""
        form = op.forms[0]
        tparams = {t.name: t for t in form.template}
        for expr in form.dispatch.template_args:
            t = tparams.get(expr)
            if t is not None and t.kind == "value" and str(t.type) == MODE_ENUM:
                return str(t.default or "TFillPadMode::Normal").split("::")[-1]
            if t is None and fixed_type(form, expr) == MODE_ENUM:
                return expr.split("::")[-1]
        return "Normal"

    # ----------------------------------------------------------------- math and pages
    def math(self, op: OpViewAPI) -> str | None:
        dst, src = op.domain, self.source(op)
        copied = semantics.to_latex(op.loaded.expr.args[1], str)
        return (
            rf"\mathrm{{{dst}}}_{{i,j}} = \begin{{cases}} {copied} & "
            rf"i < \mathrm{{{src}}}.\mathrm{{GetValidRow}}() \wedge "
            rf"j < \mathrm{{{src}}}.\mathrm{{GetValidCol}}() \\ "
            rf"\mathrm{{pad}} & \text{{otherwise}} \end{{cases}}"
        )

    def recognise(self, page: PageOp) -> int | None:
        # templates/opkinds/fillpad/domain.md.j2: "For each element ... of the whole destination tile"
        return DOMAIN if not page.vector and page.intro_says("of the whole destination tile") else None

    def complete_import(self, semantics: dict[str, Any], operands: list[dict[str, Any]]) -> None:
        # The page's formula is the piecewise copy-or-pad the kind writes (`math`); the spec states
        # its copied part, at the same indices, from the page's source tile.
        src = next(o["name"] for o in operands if o["kind"] == "tile" and o["role"] == "src")
        semantics["expr"] = f"{semantics['domain']}[i,j] = {src}[i,j]"

    def region(self, op: OpViewAPI) -> str:
        return op.domain

    def shaped_tile(self, op: OpViewAPI, tile: TileDecl) -> TileDecl:
        """The rule cases' tiles carry a pad value (the `Vec` form requires the destination's not
        to be `Null`), the same on both operands so that the one-type form takes them."""
        return replace(super().shaped_tile(op, tile), pad=tile.pad or "Max")

    # ----------------------------------------------------------------- backend
    def sim_targs(self, op: OpViewAPI, form: FormViewAPI) -> list[str]:
        """The variant or pad value the declaration passes its backend (a template parameter's name,
        or `Fixed<i>` for a constant the adapter takes in that position)."""
        tparams = {t.name: t for t in form.template}
        out = []
        for i, expr in enumerate(form.dispatch.template_args):
            t = tparams.get(expr)
            if t is not None and t.kind == "value":
                out.append(expr)
            elif t is None and fixed_type(form, expr) in (MODE_ENUM, PAD_ENUM):
                out.append(f"Fixed{i}")
        return out

    def sim_args(self, op: OpViewAPI, form: FormViewAPI) -> list[str]:
        return OpKind.sim_args(self, op, form)

    def form_changes_result(self, op: OpViewAPI, form: FormViewAPI) -> bool:
        return False

    def manifest_extra(self, op: OpViewAPI) -> dict[str, Any]:
        return {"mode": self.mode(op)}

    # ----------------------------------------------------------------- tests
    def plan_tests(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        dst, src = op.domain, self.source(op)
        grow = GROW if self.mode(op) == "Expand" else (0, 0)
        groups: list[tuple[str, str, str, list[Case], list[str]]] = []
        for dtype, on in dtype_profiles(project, op):
            groups.append((dtype, dtype, "Vec", CASES, on))
            if op.forms[1:] and dtype in MAT_DTYPES:  # the one-type form's Mat tiles
                groups.append((f"{dtype}_mat", dtype, "Mat", MAT_CASES, on))
        for gid, dtype, loc, shapes, on in groups:
            first = sum(len(k.cases) for k in tests.runtime)
            cases = []
            for index, (label, rows, cols, vr, vc, dyn, pad, nz) in enumerate(shapes, first):
                layout, slayout = ("ColMajor", "RowMajor") if nz else ("RowMajor", None)
                drows, dcols = rows + grow[0], cols + grow[1]
                alike = index == first  # one tile type for both operands
                d = TileDecl(
                    dst, dtype, drows, dcols, drows, dcols, alike and dyn, loc, layout, slayout=slayout
                )
                s = TileDecl(src, dtype, rows, cols, vr, vc, dyn, loc, layout, slayout=slayout)
                tiles = {dst: replace(d, pad=pad), src: replace(s, pad=pad if alike else None)}
                call = make_call(op, tiles, dict(op.default_values), {})
                decls = list(tiles.values())
                cases.append(RuntimeCase(index, label, decls, {}, call, layout_addresses(project, decls)))
            # Mat tiles on the CPU profile only: every case calls the Vec form too, which the hardware
            # profiles hold to Vec tiles (a location rule of that declaration alone)
            where = on if loc == "Vec" else [p for p in on if p == "CPU"]
            if where:
                tests.runtime.append(RuntimeKernel(gid, {n: dtype for n in (dst, src)}, {}, where, cases))
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
            assert t.pad is not None
            want = np.full((t.rows, t.cols), pad_value(d_type, t.pad), dtype=d_type)
            values = tile_logical(flats[src], ts)[: ts.valid_rows, : ts.valid_cols]
            want[: ts.valid_rows, : ts.valid_cols] = values.astype(d_type)
            before = tile_logical(flats[dst], t)
            whole = replace(t, valid_rows=t.rows, valid_cols=t.cols)
            label = f"{gx.label} case {k} ({case.label})"
            checks.append(region_check(f"c{k}_{dst}.out", whole, want, before, label, dtype=d_type))
        return checks
