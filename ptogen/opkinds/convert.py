"""Conversion ops (TCVT): `dst[i, j] = src[i, j]` in dst's element type, rounded by an enum attribute.

An element-wise op whose every pair of element types is its own computation: the simulator calls
`sim::convert` (pto/common/sim_convert.hpp) with the spec's rounding enum and a saturation flag,
and the golden is `testing/refconvert.py`. The expression is `mode(src)`: the rounding attribute
applied to the one source tile. A form that takes a `SaturationMode` operand passes it; the
others saturate (the spec's notes argue the default).

A kind of its own, not `elementwise` data: each pair of element types is its own computation with an
exact-arithmetic golden, and its tests run a table of type pairs with every rounding mode, not a
list of types.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..importer.contract import DOMAIN, PageOp
from ..kindlib.tilemath import COL_MAJOR_SHAPES, ROW_MAJOR_SHAPES, TileMath, case_inputs, tolerance_check
from ..spec.expr import Node
from ..spec.kindfacts import KindFacts
from ..testing import refconvert
from ..testing.golden import Check, GoldenContext, logical
from ..testing.plan import (
    OpTests,
    RuntimeCase,
    RuntimeKernel,
    TileDecl,
    dtype_def,
    layout_addresses,
    make_call,
    plan_rule_cases,
    shaped,
    tile_operands,
)

if TYPE_CHECKING:
    from ..kind_api import FormViewAPI, OpViewAPI, ProjectViewAPI

SATURATION_ENUM = "SaturationMode"
Shape = tuple[int, int, int, int, bool]  # rows, cols, valid rows, valid cols, valid shape at run time
# Pairs that run every shape (addressing does not depend on the element types; two pairs prove it).
SHAPE_PAIRS = (("float", "int32_t"), ("int32_t", "float"))
# Significand bits of each floating type: an integer source wider than that may need rounding.
SIGNIFICAND = {"half": 11, "bfloat16_t": 8, "float": 24}


@dataclass(frozen=True)
class Rounding:
    name: str  # the attribute operand
    enum: str  # its enum


class Convert(TileMath):
    name: ClassVar[str] = "convert"
    # Its overloads state no semantics of their own.
    facts: ClassVar[KindFacts] = KindFacts(rounds_to_element=True)

    # ----------------------------------------------------------------- import
    def recognise(self, page: PageOp) -> int | None:
        # templates/opkinds/convert/domain.md.j2: "For each element ..., converted to the element type of"
        return DOMAIN if not page.vector and page.intro_says("converted to the element type") else None

    def check_expr(self, expr: Node) -> list[str]:
        if expr.op != "apply" or len(expr.args) != 1 or expr.args[0].op != "name":
            return ["a convert op's expression applies its rounding attribute to its source, e.g. mode(src)"]
        return []

    @staticmethod
    def source(op: OpViewAPI) -> str:
        return str(op.loaded.expr.args[0].value)

    @staticmethod
    def rounding(op: OpViewAPI) -> Rounding:
        name = str(op.loaded.expr.value)
        return Rounding(name, op.enums_of[name])

    # ----------------------------------------------------------------- backend
    @staticmethod
    def saturation(form: FormViewAPI) -> tuple[str, str] | None:
        """(parameter, test value) of the form's SaturationMode operand, if it takes one."""
        for o in form.own:
            if o.kind == "attr" and str(o.enum) == SATURATION_ENUM:
                param = next(p.name for p in form.params if p.operand == o.name)
                return param, form.test_args.get(o.name, "").split("::")[-1]
        return None

    def sim_args(self, op: OpViewAPI, form: FormViewAPI) -> list[str]:
        sat = self.saturation(form)
        return [*form.impl_args, f"{sat[0]} == {SATURATION_ENUM}::ON" if sat else "true"]

    def form_changes_result(self, op: OpViewAPI, form: FormViewAPI) -> bool:
        sat = self.saturation(form)
        return sat is not None and sat[1] != "ON"

    def manifest_extra(self, op: OpViewAPI) -> dict[str, Any]:
        """The rounding attribute, and the overloads judged against their own (unsaturated) golden."""
        return {
            "rounding": self.rounding(op).name,
            "unsaturated_forms": [f.index for f in op.forms[1:] if f.own_result],
        }

    # ----------------------------------------------------------------- tests
    def plan_tests(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        dst, src = op.spec.semantics.domain, self.source(op)
        vocab = [d.name for d in project.targets.dtypes]
        untested = {d.name for d in project.targets.dtypes if not d.test_matrix}
        profiles = [p.name for p in project.profiles]

        def pairs(profile: str) -> list[tuple[str, str]]:
            if not op.available(profile):
                return []
            lists = [op.operand_dtypes(profile, n) or vocab for n in (src, dst)]
            return [
                (s, d)
                for s in lists[0]
                for d in lists[1]
                if op.admits(profile, {src: s, dst: d}) and not {s, d} & untested
            ]

        legal = {p: pairs(p) for p in profiles}
        every = sorted(
            {pair for p in profiles for pair in legal[p]},
            key=lambda x: (vocab.index(x[0]), vocab.index(x[1])),
        )
        rm = self.rounding(op)
        modes = next(e.values for e in project.targets.enums if e.name == rm.enum)
        for s, d in every:
            on = [p for p in profiles if (s, d) in legal[p]]
            dtypes = {src: s, dst: d}
            layouts = [("RowMajor", ROW_MAJOR_SHAPES)]
            if (s, d) in SHAPE_PAIRS:
                layouts.append(("ColMajor", COL_MAJOR_SHAPES))
            for layout, shapes in layouts:
                plan: list[tuple[str, Shape, str]] = [(x[0], x[1:], modes[0]) for x in shapes]
                if (s, d) not in SHAPE_PAIRS:
                    plan = plan[:1]  # the full 16x16 tile
                if layout == "RowMajor" and self._rounds(project, s, d):
                    full: Shape = ROW_MAJOR_SHAPES[0][1:]
                    plan += [(f"full 16x16, {rm.name} {m}", full, m) for m in modes[1:]]
                first = sum(len(k.cases) for k in tests.runtime)
                cases = []
                for index, (label, (rows, cols, vr, vc, dyn), mode) in enumerate(plan, first):
                    tiles = {
                        n: shaped(op, TileDecl(n, dtypes[n], rows, cols, vr, vc, dyn, "Vec", layout))
                        for n in tile_operands(op)
                    }
                    call = make_call(op, tiles, dict(op.default_values), {}, attrs={rm.name: mode})
                    decls = list(tiles.values())
                    addresses = layout_addresses(project, decls)
                    cases.append(RuntimeCase(index, label, decls, {}, call, addresses, {rm.name: mode}))
                suffix = "_colmajor" if layout == "ColMajor" else ""
                tests.runtime.append(RuntimeKernel(f"{s}_{d}{suffix}", dtypes, {}, on, cases))
        plan_rule_cases(project, op, tests)

    @staticmethod
    def _rounds(project: ProjectViewAPI, s: str, d: str) -> bool:
        """Whether the rounding mode can change a conversion from s to d."""
        if s == d:
            return False
        source = dtype_def(project, s)
        if source.kind == "float":
            return True
        value_bits = source.bits - (1 if source.kind == "int" else 0)
        return d in SIGNIFICAND and value_bits > SIGNIFICAND[d]

    def prepare_cases(self, gx: GoldenContext, data: Path) -> list[Check]:
        op = gx.op
        dst = op.domain
        src = next(n for n in op.inputs if op.operands[n] == "tile")
        dst_type = gx.np_type(gx.group.dtypes[dst])
        src_type = gx.np_type(gx.group.dtypes[src])
        checks: list[Check] = []
        for case in gx.group.cases:
            k = case.index
            arrays, scalars, _ = case_inputs(gx, case, data, src_type)
            t, ts = case.tiles[dst], case.tiles[src]
            vr, vc = t.valid_rows, t.valid_cols
            before = logical(arrays[dst].copy(), t.rows, t.cols, t.layout)
            values = logical(arrays[src], ts.rows, ts.cols, ts.layout)[:vr, :vc]
            mode = case.attrs[op.extra["rounding"]]
            label = f"{gx.label} case {k} ({case.label})"
            want = refconvert.convert(np.ascontiguousarray(values), dst_type, mode, saturate=True)
            checks.append(tolerance_check(f"c{k}_{dst}.out", t, want, before, label, scalars, dst_type, op))
            if case is gx.group.cases[0]:
                for form in op.extra.get("unsaturated_forms", []):
                    off = refconvert.convert(np.ascontiguousarray(values), dst_type, mode, saturate=False)
                    what = f"{label}, overload {form} (no saturation)"
                    checks.append(
                        tolerance_check(
                            f"c{k}_{dst}.f{form}.out", t, off, before, what, scalars, dst_type, op
                        )
                    )
        return checks
