"""Transposes (TTRANS): `dst[i, j] = src[j, i]`, a move to the transposed position.

The spec states the permutation in index notation (spec/expr.py), and one parse tree gives the
page's formula (`semantics.to_latex`), the simulator's element mapping (`element_map`: which loop
index of the source's walk is the destination's row and which its column) and the golden's
`np.transpose` axes (`axes`). The kind walks the source's valid region, as upstream's CPU simulator
does (the transpose's extent is the source's valid rows and columns), writing each element in the
destination's element type, which must have the source's size. A scratch tile (`tmp`) is passed
through; the result does not depend on it.

A kind of its own, not `remap`'s: the destination's indices are the source's swapped, so the walk,
the element map and the golden (`np.transpose`) exchange the axes, where a remap keeps `i` on rows
and `j` on columns.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..importer.contract import DOMAIN, PageOp
from ..kindlib.conv import (
    CONV_DTYPES,
    channel_block,
    conv_tile,
    conversions,
    converted_from,
    mx_dtypes,
    plan_variant_rules,
    variant_profiles,
)
from ..kindlib.layout import tile_logical
from ..kindlib.moves import TileMove
from ..kindlib.regions import region_check
from ..spec import expr as semantics
from ..spec.kindfacts import KindFacts
from ..testing import fp4
from ..testing.golden import Check, GoldenContext, inputs, same_bits
from ..testing.plan import (
    Call,
    OpTests,
    RuntimeCase,
    RuntimeKernel,
    TileDecl,
    dtype_profiles,
    layout_addresses,
    make_call,
    plan_form_runs,
    plan_rule_cases,
    tile_operands,
)
from .base import OpKind, operand_type

if TYPE_CHECKING:
    from ..kind_api import FormViewAPI, OpViewAPI, ProjectViewAPI

# (label, src rows, src cols, src valid rows, src valid cols, run-time valid); dst is cols x rows.
SHAPES = [
    ("32x32", 32, 32, 32, 32, False),
    ("32x64, valid 29x45", 32, 64, 29, 45, False),
    ("64x32, run-time valid 50x17", 64, 32, 50, 17, True),
]


class Transpose(TileMove):
    name: ClassVar[str] = "transpose"
    index_notation: ClassVar[bool] = True
    # ConvTile operands: a conversion between conv layouts (NCHW to NC1HWC0, ...; see the simulator).
    facts: ClassVar[KindFacts] = KindFacts(variant_names=("conv",))

    def variant_condition(self, op: OpViewAPI, name: str) -> str:
        dst, src = operand_type(op, op.domain), operand_type(op, self.source(op))
        return f"is_conv_tile_v<{dst}> && is_conv_tile_v<{src}>"

    def check_expr(self, expr: semantics.Node) -> list[str]:
        wanted = "a transpose is written in index notation, e.g. `dst[i,j] = src[j,i]`"
        if not semantics.is_assignment(expr) or expr.args[1].op != "index":
            return [wanted]
        lhs = semantics.lhs_indices(expr)
        ((_, rhs),) = semantics.indexed(expr.args[1])
        if len(lhs) != 2 or len(set(lhs)) != 2 or list(rhs) != lhs[::-1]:
            return [f"{wanted}: the source's indices are the destination's swapped"]
        return []

    @staticmethod
    def source(op: OpViewAPI) -> str:
        return str(op.loaded.expr.args[1].value)

    @staticmethod
    def _indices(op: OpViewAPI) -> tuple[list[str], tuple[str, ...]]:
        ((_, rhs),) = semantics.indexed(op.loaded.expr.args[1])
        return semantics.lhs_indices(op.loaded.expr), rhs

    def math(self, op: OpViewAPI) -> str | None:
        return semantics.to_latex(op.loaded.expr, str)

    def element_map(self, op: OpViewAPI) -> tuple[str, str]:
        """The destination's (row, column) in terms of the source walk's loop indices `r`, `c`."""
        lhs, rhs = self._indices(op)
        loop = dict(zip(rhs, ("r", "c"), strict=True))
        return loop[lhs[0]], loop[lhs[1]]

    def axes(self, op: OpViewAPI) -> list[int]:
        """`np.transpose` axes that turn the source's matrix into the destination's."""
        lhs, rhs = self._indices(op)
        return [rhs.index(x) for x in lhs]

    def recognise(self, page: PageOp) -> int | None:
        # templates/opkinds/transpose/domain.md.j2: "For each element ..., written at the transposed position"
        return DOMAIN if not page.vector and page.intro_says("written at the transposed position") else None

    def operand_index(self, op: OpViewAPI, operand: str) -> str:
        lhs, rhs = self._indices(op)
        return ",".join(rhs if operand == self.source(op) else lhs)

    def result_index(self, op: OpViewAPI) -> str:
        return ",".join(self._indices(op)[0])

    def region(self, op: OpViewAPI) -> str:
        return self.source(op)

    def sim_args(self, op: OpViewAPI, form: FormViewAPI) -> list[str]:
        return OpKind.sim_args(self, op, form)

    def form_changes_result(self, op: OpViewAPI, form: FormViewAPI) -> bool:
        return False

    def manifest_extra(self, op: OpViewAPI) -> dict[str, list[object]]:
        return {"axes": list(self.axes(op))}

    def plan_tests(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        dst, src = op.domain, self.source(op)
        scratch = [n for n in tile_operands(op) if n not in (dst, src)]
        for dtype, on in dtype_profiles(project, op):
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
        self._plan_conv(project, op, tests)
        # The variant's calls take the main declaration only.
        plan_form_runs(op, tests, lambda form, case: not any(t.conv is not None for t in case.tiles))
        plan_rule_cases(project, op, tests)

    def _plan_conv(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        """The `conv` variant: every conversion of `conv_cases.conversions`, for each element type a
        ConvTile transfer moves and each MX type (`conv_cases.mx_dtypes`: 8-bit floats and twin 4-bit
        ones, which the CPU profile converts), on the profiles whose variant rules admit it (grouped by
        them)."""
        variant = next((v for v in op.variants if v.name == "conv"), None)
        if variant is None:
            return
        dst, src = op.domain, self.source(op)
        scratch = [n for n in tile_operands(op) if n not in (dst, src)]
        legal: dict[str, dict[str, TileDecl]] = {}  # each profile's first admitted case: the rules' twin
        for dtype in [*project.targets.dtype_sets[CONV_DTYPES], *mx_dtypes(project)]:
            c0 = channel_block(project, dtype)
            kernels: dict[tuple[str, ...], list[tuple[str, dict[str, TileDecl]]]] = {}
            for label, sl, se, sd, dl, de, dd in conversions(c0):
                tiles = {
                    dst: conv_tile(dst, dtype, "Vec", dl, de, dd),
                    src: conv_tile(src, dtype, "Vec", sl, se, sd),
                    **{n: TileDecl(n, dtype, 1, 32, 1, 32) for n in scratch},
                }
                where = tuple(variant_profiles(project, op, variant, tiles))
                for p in where:
                    legal.setdefault(p, tiles)
                if where:
                    kernels.setdefault(where, []).append((label, tiles))
            for k, (where, planned) in enumerate(kernels.items()):
                first = sum(len(x.cases) for x in tests.runtime)
                cases = []
                for index, (label, tiles) in enumerate(planned, first):
                    call = make_call(op, tiles, dict(op.default_values), {})
                    decls = list(tiles.values())
                    cases.append(RuntimeCase(index, label, decls, {}, call, layout_addresses(project, decls)))
                gid = f"{dtype}_conv{f'_{k}' if k else ''}"
                tests.runtime.append(RuntimeKernel(gid, {n: dtype for n in tiles}, {}, list(where), cases))

        def twin_call(tiles: dict[str, TileDecl]) -> Call:
            return make_call(op, tiles, dict(op.default_values), {})

        plan_variant_rules(project, op, tests, variant, legal.get, twin_call)

    @staticmethod
    def _conv_check(gx: GoldenContext, case: Any, dst: str, src: str, data: Path) -> Check:
        """A conv conversion's case: every tile's storage drawn (twin 4-bit types as packed bytes,
        moved code by code: `fp4.unpack`/`pack`; the 8-bit MX floats as bytes, every code among
        them), each destination element from the source element `converted_from` names, the
        padding lanes as they were."""
        k = case.index
        seed = f"{gx.op_name}/{gx.entry.group}/{k}"
        twin = gx.group.dtypes[dst] in fp4.TWINS
        flats = {}
        for name, tile in case.tiles.items():
            count = tile.rows * tile.cols
            dt = gx.np_type(gx.group.dtypes[name])
            if twin:
                flats[name] = inputs(np.dtype(np.uint8), fp4.units(count), f"{seed}/{name}")
            elif dt.itemsize == 1 and gx.group.dtypes[name].startswith("float8_"):  # drawn as bytes
                flats[name] = inputs(np.dtype(np.uint8), count, f"{seed}/{name}")
            else:
                flats[name] = inputs(dt, count, f"{seed}/{name}")
            flats[name].tofile(data / f"c{k}_{name}.bin")
        t, ts = case.tiles[dst], case.tiles[src]
        moved = converted_from(ts.conv[0], tuple(ts.conv[1:]), t.conv[0], tuple(t.conv[1:]))
        to, frm = moved >= 0, moved[moved >= 0]
        if twin:
            codes = fp4.unpack(flats[dst], moved.size)
            codes[to] = fp4.unpack(flats[src], ts.rows * ts.cols)[frm]
            want = fp4.pack(codes)
        else:
            want = flats[dst].copy()
            want[to] = flats[src][frm]
        return same_bits(f"c{k}_{dst}.out", want, f"{gx.label} case {k} ({case.label})", "moved")

    def prepare_cases(self, gx: GoldenContext, data: Path) -> list[Check]:
        op = gx.op
        dst = op.domain
        src = next(n for n in op.inputs if op.operands[n] == "tile")
        axes = list(op.extra["axes"])
        checks: list[Check] = []
        for case in gx.group.cases:
            k = case.index
            seed = f"{gx.op_name}/{gx.entry.group}/{k}"
            t, ts = case.tiles[dst], case.tiles[src]
            if t.conv and ts.conv:  # the conv variant: each destination element from its source element
                checks.append(self._conv_check(gx, case, dst, src, data))
                continue
            flats = {}
            for name, x in case.tiles.items():
                flats[name] = inputs(gx.np_type(gx.group.dtypes[name]), x.rows * x.cols, f"{seed}/{name}")
                flats[name].tofile(data / f"c{k}_{name}.bin")
            d_type = gx.np_type(gx.group.dtypes[dst])
            values = tile_logical(flats[src], ts)[: ts.valid_rows, : ts.valid_cols]
            with np.errstate(all="ignore"):
                want = np.ascontiguousarray(np.transpose(values, axes)).astype(d_type)
            before = tile_logical(flats[dst], t)
            label = f"{gx.label} case {k} ({case.label})"
            checks.append(region_check(f"c{k}_{dst}.out", t, want, before, label, dtype=d_type))
        return checks
