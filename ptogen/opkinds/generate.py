"""Tiles computed from their own indices (TCI, TTRI): `dst[i,j] = f(i, j, scalars)`.

The spec writes the op in index notation with the index letters as values of the right side,
`dst[i,j] = select(descending == 1, start - j, start + j)` or
`dst[i,j] = select(is_upper_or_lower == 0, j <= i + diagonal, j >= i + diagonal)` (a comparison's
truth is 1 or 0).
One parse tree gives the page's formula, the simulator's loop nest over the destination's valid
region (`expr.to_cpp_loops`, each index a loop variable) and the golden's numpy (`rm.index_values`
lays each index over the region, `rm.index_extents` gives its extent). Index arithmetic is exact: for
an integer element type the math runs in `int64_t` (so TTRI's `i + diagonal` is signed whatever the
element type) and each element wraps to the element type when narrowed, which for TCI's sums and
differences is the element type's own wrapping arithmetic; a floating element type computes in its
compute type (`float` for `half` and `bfloat16_t`).

Scalars come as function parameters (`start`, `diagonal`) or as value template parameters that
carry an operand (`descending`, `isUpperOrLower`); the tests pass every template value of
`TEMPLATE_VALUES` with every scalar of the spec's `test_values`. An expression that never reads
the row index `i` describes a one-row tile (TCI), and its tests use one-row tiles.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..importer.contract import DOMAIN, PageOp
from ..kindlib.tilemath import tolerance_check
from ..rules.parts import TileFilter, part
from ..spec import expr as semantics
from ..testing import refmath as rm
from ..testing.golden import Check, GoldenContext, compute_dtype, inputs, is_float, logical
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
from ..testing.refmath import narrow
from .base import OpKind

if TYPE_CHECKING:
    from ..kind_api import FormViewAPI, OpViewAPI, ProjectViewAPI

# (label, rows, cols, valid rows, valid cols, run-time valid) of tiles with rows, and of one-row tiles.
SHAPES = [
    ("16x16", 16, 16, 16, 16, False),
    ("partial valid 13x7 of 16x16", 16, 16, 13, 7, False),
    ("run-time valid 5x19 of 8x32", 8, 32, 5, 19, True),
    ("wide 4x40 valid 4x33", 4, 40, 4, 33, False),
]
ROW_SHAPES = [
    ("1x16", 1, 16, 1, 16, False),
    ("partial valid 1x19 of 1x32", 1, 32, 1, 19, False),
    ("run-time valid 1x7 of 1x16", 1, 16, 1, 7, True),
]
COL_MAJOR_SHAPES = [("col-major 16x8 valid 11x6", 16, 8, 11, 6, False)]
# The values every template argument that carries an operand takes in the tests: both documented
# values of TCI's `descending` and TTRI's `isUpperOrLower`.
TEMPLATE_VALUES = [0, 1]


class Generate(OpKind):
    name: ClassVar[str] = "generate"
    index_notation: ClassVar[bool] = True
    domain_starts: ClassVar[tuple[str, ...]] = ("For each",)

    # ----------------------------------------------------------------- spec checks
    def check_expr(self, expr: semantics.Node) -> list[str]:
        wanted = "a generated tile is written in index notation over its indices, e.g. `dst[i,j] = start + j`"
        if not semantics.is_assignment(expr):
            return [wanted]
        problems = []
        if len(semantics.lhs_indices(expr)) != 2:
            problems.append(f"{wanted}: the destination has two indices")
        if semantics.indexed(expr.args[1]) or semantics.has_reduction(expr.args[1]):
            problems.append(f"{wanted}: the right side reads no tile and sums nothing")
        return problems

    # ----------------------------------------------------------------- operands
    @staticmethod
    def template_scalars(op: OpViewAPI, form: FormViewAPI | None = None) -> dict[str, str]:
        """Scalar operands carried by a value template parameter: operand -> the parameter."""
        template = (
            form.template if form is not None else (op.spec.intrinsic.template if op.spec.intrinsic else [])
        )
        return {str(t.operand): t.name for t in template if t.operand is not None}

    def call_scalars(self, op: OpViewAPI) -> list[str]:
        """Scalar operands passed as function parameters, in operand order."""
        carried = self.template_scalars(op)
        return [o.name for o in op.spec.operands if o.kind == "scalar" and o.name not in carried]

    def uses_rows(self, op: OpViewAPI) -> bool:
        rows = semantics.lhs_indices(op.loaded.expr)[0]
        return rows in _ivars(op.loaded.expr.args[1])

    def compute_type(self, op: OpViewAPI) -> str:
        """C++ of the compute type, in the simulator function's scope (see the module's docstring)."""
        elem = f"typename T_{op.domain}::DType"
        return f"std::conditional_t<is_integer_v<{elem}>, int64_t, sim::compute_t<{elem}>>"

    def sim_params(self, op: OpViewAPI) -> list[str]:
        """The simulator function's template parameters: the carried scalars, then the types."""
        return [f"int {n}" for n in self.template_scalars(op)] + [
            f"typename T_{n}" for n in (op.domain, *self.call_scalars(op))
        ]

    def loops(self, op: OpViewAPI) -> str:
        """The loop nest over the destination's valid region, writing each element."""
        rows, cols = semantics.lhs_indices(op.loaded.expr)
        return semantics.to_cpp_loops(
            op.loaded.expr,
            {rows: "rows", cols: "cols"},
            lambda name, idx: "",  # the right side reads no tile (check_expr)
            lambda idx, value: f"{op.domain}.at({', '.join(idx)}) = sim::narrow<T>({value});",
            "C",
        )

    # ----------------------------------------------------------------- math
    def math(self, op: OpViewAPI) -> str | None:
        def ref(name: str) -> str:
            escaped = name.replace("_", r"\_")  # an underscore in \mathrm is a subscript
            return rf"\mathrm{{{escaped}}}"

        return semantics.to_latex(op.loaded.expr, ref)

    def result_index(self, op: OpViewAPI) -> str:
        return ",".join(semantics.lhs_indices(op.loaded.expr))

    def operand_index(self, op: OpViewAPI, operand: str) -> str:
        return self.result_index(op)

    def recognise(self, page: PageOp) -> int | None:
        # templates/opkinds/generate/domain.md.j2: "For each element ..., computed from its indices"
        return DOMAIN if not page.vector and page.intro_says("computed from its indices") else None

    # ----------------------------------------------------------------- backend
    def sim_targs(self, op: OpViewAPI, form: FormViewAPI) -> list[str]:
        return list(self.template_scalars(op, form).values())

    def sim_args(self, op: OpViewAPI, form: FormViewAPI) -> list[str]:
        arg = {p.operand: p.name for p in form.params if p.operand is not None}
        return [arg[n] for n in (op.domain, *self.call_scalars(op))]

    # ----------------------------------------------------------------- tests
    def test_call(
        self, op: OpViewAPI, tiles: dict[str, TileDecl], variant: dict[str, str], scalar_expr: dict[str, str]
    ) -> tuple[list[str], list[str]] | None:
        intr = op.spec.intrinsic
        assert intr is not None
        types = {p.type: str(p.operand) for p in intr.params if p.type is not None}
        values = {p.value_type: str(p.operand) for p in intr.params if p.value_type is not None}
        targs: list[str] = []
        for t in intr.template:
            if t.kind == "pack":
                continue
            if t.operand is not None:
                targs.append(variant.get(t.name, str(TEMPLATE_VALUES[0])))
            elif t.name in types:
                targs.append(tiles[types[t.name]].type_name)
            elif t.name in values:  # a scalar's type (TCI's `T`): that of the argument passed
                targs.append(f"decltype({scalar_expr[values[t.name]]})")
        args: list[str] = []
        for p in intr.params:
            if p.events:
                continue
            args.append(str(p.operand) if p.type is not None else scalar_expr[str(p.operand)])
        return targs, args

    def form_template_args(
        self, form: FormViewAPI, main_explicit: list[str], type_names: dict[str, str]
    ) -> list[str] | None:
        intr = form.op.spec.intrinsic
        assert intr is not None
        main = dict(zip([t.name for t in intr.template if t.kind != "pack"], main_explicit, strict=False))
        holders = {p.type: str(p.operand) for p in form.params if p.type is not None and not p.events}
        out = []
        for t in form.template:
            if t.kind == "pack":
                continue
            if t.name in main:
                out.append(main[t.name])
            else:  # a tile only this form takes: its own declaration (a compile case's `tmp_f1`),
                # else declared like the destination (cases.cpp.j2)
                name = holders[t.name]
                own = type_names.get(f"{name}_f{form.index}")
                out.append(own or type_names.get(name, type_names[form.op.domain]))
        return out

    def tile_shape(
        self, op: OpViewAPI, operand: str, rows: int, cols: int, vr: int, vc: int
    ) -> tuple[int, int, int, int]:
        # An expression that never reads the row index describes a one-row tile (TCI).
        return (rows, cols, vr, vc) if self.uses_rows(op) else (1, cols, 1, vc)

    def scalar_dtype(self, op: OpViewAPI, name: str, dtype: str) -> str:
        """The element type a scalar operand has when the destination's is `dtype`."""
        intr = op.spec.intrinsic
        assert intr is not None
        p = next(p for p in intr.params if p.operand == name)
        known = {d.name for d in op.targets.dtypes} | {a for d in op.targets.dtypes for a in d.aliases}
        if p.value_type in known:
            return op.targets.dtype(str(p.value_type)).name
        return dtype

    def manifest_extra(self, op: OpViewAPI) -> dict[str, Any]:
        rows, cols = semantics.lhs_indices(op.loaded.expr)
        return {"indices": [rows, cols], "carried": list(self.template_scalars(op))}

    def plan_tests(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        dst = op.domain
        carried = self.template_scalars(op)
        scalars = self.call_scalars(op)
        profiles = [p.name for p in project.profiles]
        for dtype, on in dtype_profiles(project, op):
            dtypes = {dst: dtype, **{s: self.scalar_dtype(op, s, dtype) for s in scalars}}
            for layout in ("RowMajor", "ColMajor"):
                ok = [
                    p
                    for p in on
                    if p in profiles
                    and (
                        layout == "RowMajor"
                        or all(part(rv.rule, TileFilter).admits_layout(layout) for rv in op.rules_for(p))
                    )
                ]
                if not ok or (layout == "ColMajor" and not self.uses_rows(op)):
                    continue
                shapes = (
                    (SHAPES if self.uses_rows(op) else ROW_SHAPES)
                    if layout == "RowMajor"
                    else COL_MAJOR_SHAPES
                )
                plan: list[
                    tuple[tuple[str, int, int, int, int, bool], dict[str, int], dict[str, float | int]]
                ] = []
                for shape in shapes:
                    for v in TEMPLATE_VALUES:
                        plan.append(
                            (
                                shape,
                                dict.fromkeys(carried, v),
                                {s: self._values(op, dtypes[s])[-1] for s in scalars},
                            )
                        )
                for s in scalars:
                    for value in self._values(op, dtypes[s])[:-1]:
                        for v in TEMPLATE_VALUES:
                            others = {x: self._values(op, dtypes[x])[-1] for x in scalars}
                            plan.append((shapes[0], dict.fromkeys(carried, v), {**others, s: value}))
                first = sum(len(k.cases) for k in tests.runtime)
                cases = []
                for index, ((label, rows, cols, vr, vc, dyn), tvals, svals) in enumerate(plan, first):
                    tiles = {dst: TileDecl(dst, dtype, rows, cols, vr, vc, dyn, "Vec", layout)}
                    variant = {carried[n]: str(v) for n, v in tvals.items()}
                    call = make_call(op, tiles, variant, {s: f"{s}_value" for s in scalars})
                    decls = list(tiles.values())
                    what = ", ".join(
                        [f"{n} {v}" for n, v in tvals.items()] + [f"{n} {v}" for n, v in svals.items()]
                    )
                    cases.append(
                        RuntimeCase(
                            index,
                            f"{label}, {what}",
                            decls,
                            dict(svals),
                            call,
                            layout_addresses(project, decls),
                            {n: str(v) for n, v in tvals.items()},
                        )
                    )
                suffix = "_colmajor" if layout == "ColMajor" else ""
                tests.runtime.append(RuntimeKernel(f"{dtype}{suffix}", dtypes, {}, ok, cases))
        plan_rule_cases(project, op, tests)

    @staticmethod
    def _values(op: OpViewAPI, dtype: str) -> list[float | int]:
        """Scalar test values of an element type (the last is the one used with every shape)."""
        tv = op.spec.test_values
        floating = any(d.name == dtype and d.kind == "float" for d in op.targets.dtypes)
        return list(tv.float_scalars) if floating else list(tv.int_scalars)

    def prepare_cases(self, gx: GoldenContext, data: Path) -> list[Check]:
        op = gx.op
        dst = op.domain
        rows_letter, cols_letter = op.extra["indices"]
        carried = set(op.extra["carried"])
        storage = gx.np_type(gx.group.dtypes[dst])
        cdt = compute_dtype(storage) if is_float(storage) else np.dtype(np.int64)
        checks: list[Check] = []
        for case in gx.group.cases:
            k = case.index
            t = case.tiles[dst]
            flat = inputs(storage, t.rows * t.cols, f"{gx.op_name}/{gx.entry.group}/{k}/{dst}")
            flat.tofile(data / f"c{k}_{dst}.bin")
            before = logical(flat.copy(), t.rows, t.cols, t.layout)
            args: dict[str, Any] = {}
            for name, value in case.scalars.items():
                st = gx.np_type(gx.group.dtypes[name])
                s = np.array([value], dtype=np.float64 if is_float(st) else np.int64).astype(st)
                s.tofile(data / f"c{k}_{name}.bin")
                args[name] = s.reshape(()).astype(cdt)
            for name in carried:
                args[name] = np.array(int(case.attrs[name])).astype(cdt)
            vr, vc = t.valid_rows, t.valid_cols
            with np.errstate(all="ignore"), rm.index_extents({rows_letter: vr, cols_letter: vc}):
                want = gx.reference.reference(cdt.type, storage.type, *[args[n] for n in op.inputs])
            want = narrow(np.broadcast_to(np.asarray(want), (vr, vc)), storage)
            label = f"{gx.label} case {k} ({case.label})"
            checks.append(
                tolerance_check(f"c{k}_{dst}.out", t, want, before, label, dict(case.scalars), storage, op)
            )
        return checks


def _ivars(node: semantics.Node) -> set[str]:
    found = {str(node.value)} if node.op == "ivar" else set()
    for a in node.args:
        found |= _ivars(a)
    return found


__all__ = ["Generate"]
