"""Matrix products on the cube: `c[i,j] = sum(k, a[i,k] * b[k,j])`, optionally plus an
accumulator input (`+ c_in[i,j]`) or a bias row (`+ bias[0,j]`), over m x n = a's valid rows x b's
valid columns, k = a's valid columns.

The spec writes the semantics in index notation (spec/expr.py); one parse tree gives the pages'
LaTeX, the simulator's plain loop (`<OP>_plain`, the reference the benchmark compares) and the
golden's numpy. The simulator proper (`<OP>_impl`) copies the left and right tiles out of their
boxed layouts into row-major buffers of the compute type, multiplies them with the runtime's
contraction kernel (pto/common/sim_gemm.hpp: i-k-j over register blocks, an AVX2+FMA clone chosen
once at run time) and adds the rest of the expression per element. Each element is summed over k
in order from zero with one fused multiply-add per step (integers wrap), exactly as the plain loop
and upstream's CPU simulator do, so the three agree bit for bit.

Operand roles follow from the expression: the destination and any operand read at `[i,j]` are
accumulator tiles (`TileType::Acc`, 16 x 16 boxes of 1 KiB, NZ), the contraction's left factor a
`Left` tile (NZ), its right factor a `Right` tile (ZN), an operand read at `[0,j]` a one-row
`Bias` tile.

Block-scaled (MX) products (TMATMUL_MX, TGEMV_MX) contract four factors,
`sum(k, a[i,k] * b[k,j] * a_scale[i, k // 32] * b_scale[k // 32, j])`: the scale factors are
`ScaleLeft`/`ScaleRight` tiles of e8m0 powers of two, one per 32 k. Their simulator
(`sim_mx.hpp.j2`) forms each term in `double` and adds it to a `float` running sum, as upstream's
CPU simulator does; their accumulating and bias forms state their own expressions (`c_in[i,j]`,
`bias[0,j]` read only by that form) and run simulator functions of their own.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..importer.contract import DOMAIN, FORMULA, PageOp
from ..kindlib.layout import tile_logical
from ..kindlib.regions import region_check, within_tolerance
from ..lower.contract import FormBackend
from ..rule_api import TileDecl
from ..rules.parts import TileFilter, TypeFilter, in_form, part
from ..spec import expr as semantics
from ..spec.kindfacts import KindFacts
from ..testing import fp4
from ..testing.golden import Check, GoldenContext, compute_dtype, inputs
from ..testing.manifest import TileShape
from ..testing.plan import (
    OpTests,
    RuntimeCase,
    RuntimeKernel,
    layout_addresses,
    legalised,
    make_call,
    plan_form_runs,
    plan_rule_cases,
    profile_legalised,
    tile_operands,
)
from ..testing.refmath import narrow
from .base import Job, OpKind

if TYPE_CHECKING:
    from ..kind_api import FormViewAPI, OpViewAPI, ProjectViewAPI


@dataclass(frozen=True)
class Role:
    """How the tests declare one operand's tiles: location, layouts, fractal box bytes."""

    loc: str
    layout: str
    slayout: str | None
    fractal: int | None


ACC = Role("Acc", "ColMajor", "RowMajor", 1024)  # NZ, 16 x 16 boxes
LEFT = Role("Left", "ColMajor", "RowMajor", 512)  # NZ, 16 rows of 32 bytes a box
RIGHT = Role("Right", "RowMajor", "ColMajor", 512)  # ZN, 32 bytes of 16 columns a box
ROW = Role("Bias", "RowMajor", None, None)  # one plain row
LEFT_SCALE = Role("ScaleLeft", "RowMajor", "RowMajor", 32)  # 16 x 2 boxes of e8m0 scales
RIGHT_SCALE = Role("ScaleRight", "ColMajor", "ColMajor", 32)  # 2 x 16 boxes

# MX products: a's static columns are a multiple of 64 (both backends' rule); k need not fill the
# last group of 32, nor n and m whole boxes.
MX_SHAPES = [
    ("full 16x64x32", 16, 64, 32, 16, 64, 32, False),
    ("partial m, k, n 13x50x9 of 32x128x32", 32, 128, 32, 13, 50, 9, False),
    ("run-time m, k, n 5x100x21 of 16x128x32", 16, 128, 32, 5, 100, 21, True),
    ("non-square 48x64x16 valid 33x64x16", 48, 64, 16, 33, 64, 16, False),
]
# The element types outside the test matrix that MX tests run (the fp4 pairs hold two a byte).
MX_TESTED = ("float8_e4m3_t", "float8_e5m2_t", "float8_e8m0_t", *fp4.TWINS)
# The e8m0 scale codes the tests draw: powers of two 2^-6 .. 2^6, whose products stay exact.
MX_SCALE_CODES = (121, 133)

# (label, M, K, N, m, k, n, run-time valid shape): tile extents in whole boxes (M, N multiples of
# 16, K of 32, so every element type's boxes fit) and the valid m, k, n the product runs over.
SHAPES = [
    ("full 16x32x16", 16, 32, 16, 16, 32, 16, False),
    ("partial m, k, n 13x27x9 of 32x32x32", 32, 32, 32, 13, 27, 9, False),
    ("run-time m, k, n 5x19x21 of 16x64x32", 16, 64, 32, 5, 19, 21, True),
    ("non-square 48x32x16 valid 33x32x16", 48, 32, 16, 33, 32, 16, False),
]


def factors(term: semantics.Node) -> list[semantics.Node]:
    """The factors of a product term, left to right (`a * b * s * t` parses as ((a*b)*s)*t)."""
    if term.op == "bin" and term.value == "*":
        return [f for a in term.args for f in factors(a)]
    return [term]


@dataclass(frozen=True)
class MxForm:
    """A form of an MX product with its own expression: its simulator function, the tile it adds
    and whether that is a bias row (else an accumulator input)."""

    function: str
    operand: str
    bias: bool


class Matmul(OpKind):
    name: ClassVar[str] = "matmul"
    index_notation: ClassVar[bool] = True
    # MX forms state their own expressions, reading their own `c_in` or `bias`.
    facts: ClassVar[KindFacts] = KindFacts(form_exprs=True, form_operands_in_expr=True)

    # ----------------------------------------------------------------- the expression
    def check_expr(self, expr: semantics.Node) -> list[str]:
        if not semantics.is_assignment(expr):
            return ["a matmul op's expression is index notation, e.g. `c[i,j] = sum(k, a[i,k] * b[k,j])`"]
        free = semantics.lhs_indices(expr)
        found = semantics.contractions(expr)
        if len(free) != 2 or len(found) != 1:
            return ["a matmul op's expression has a two-index left side and one contraction `sum(k, ...)`"]
        term = found[0].args[0]
        i, j, k = free[0], free[1], str(found[0].value)
        shapes = [
            (f.op, tuple(semantics.index_text(x) for x in f.args)) for f in factors(term) if f.op == "index"
        ]
        plain = [("index", (i, k)), ("index", (k, j))]
        scaled = [*plain, ("index", (i, f"{k} // 32")), ("index", (f"{k} // 32", j))]
        if len(shapes) != len(factors(term)) or shapes not in (plain, scaled):
            return [
                f"the contraction is `sum({k}, left[{i},{k}] * right[{k},{j}])`, one product of two tiles, "
                f"or the block-scaled `sum({k}, left[{i},{k}] * right[{k},{j}] * left_scale[{i}, {k} // 32] "
                f"* right_scale[{k} // 32, {j}])`"
            ]
        for name, idx in semantics.indexed(expr.args[1]):
            if idx not in ((i, k), (k, j), (i, j), ("0", j), (i, f"{k} // 32"), (f"{k} // 32", j)):
                return [f"{name}[{','.join(idx)}]: other operands are read at [{i},{j}] or [0,{j}]"]
        return []

    def parts(self, op: OpViewAPI) -> tuple[str, str, list[str], list[str]]:
        """(left factor, right factor, operands read at [i,j], operands read at [0,j])."""
        node = op.loaded.expr
        (contract,) = semantics.contractions(node)
        left, right = (str(f.value) for f in factors(contract.args[0])[:2])
        i, j = semantics.lhs_indices(node)
        scales = self.scales(op) or ()
        skip = (left, right, *scales)
        rest = [(n, idx) for n, idx in semantics.indexed(node.args[1]) if n not in skip]
        return left, right, [n for n, idx in rest if idx == (i, j)], [n for n, idx in rest if idx == ("0", j)]

    @staticmethod
    def scales(op: OpViewAPI) -> tuple[str, str] | None:
        """The left and right scale tiles of a block-scaled (MX) product, or None."""
        (contract,) = semantics.contractions(op.loaded.expr)
        found = factors(contract.args[0])
        return (str(found[2].value), str(found[3].value)) if len(found) == 4 else None

    def runs_untested(self, op: OpViewAPI) -> set[str]:
        return set(MX_TESTED) if self.scales(op) is not None else set()

    def role(self, op: OpViewAPI, operand: str) -> Role:
        left, right, _, rows = self.parts(op)
        scales = self.scales(op) or ("", "")
        if operand == left:
            return LEFT
        if operand == right:
            return RIGHT
        if operand == scales[0]:
            return LEFT_SCALE
        if operand == scales[1]:
            return RIGHT_SCALE
        return ROW if operand in rows else ACC

    # ----------------------------------------------------------------- import
    def recognise(self, page: PageOp) -> int | None:
        if page.vector or r"\sum_{k}" not in page.math or "_{i,k}" not in page.math:
            return None
        return DOMAIN if page.intro.startswith("For each output element") else FORMULA

    # ----------------------------------------------------------------- math
    def math(self, op: OpViewAPI) -> str | None:
        return semantics.to_latex(op.loaded.expr, str)

    def result_index(self, op: OpViewAPI) -> str:
        return "i,j"

    def operand_index(self, op: OpViewAPI, operand: str) -> str:
        left, right, _, rows = self.parts(op)
        scales = self.scales(op) or ("", "")
        group = r"\lfloor k / 32 \rfloor"
        at = {left: "i,k", right: "k,j", scales[0]: f"i,{group}", scales[1]: f"{group},j"}
        return at.get(operand, "0,j" if operand in rows else "i,j")

    def reduce_index(self, op: OpViewAPI) -> str:
        return str(semantics.contractions(op.loaded.expr)[0].value)

    def extents(self, op: OpViewAPI) -> dict[str, str]:
        """Each index letter's C++ trip count: the valid extent of the first source that reads it."""
        left, right, _, _ = self.parts(op)
        i, j = semantics.lhs_indices(op.loaded.expr)
        k = self.reduce_index(op)
        return {i: f"{left}.GetValidRow()", k: f"{left}.GetValidCol()", j: f"{right}.GetValidCol()"}

    # ----------------------------------------------------------------- simulator
    @staticmethod
    def _at(name: str, idx: tuple[str, ...]) -> str:
        return f"static_cast<C>({name}.GetElement({', '.join(idx)}))"

    def epilogue(self, op: OpViewAPI) -> str:
        """C++ of one result element in the compute type, given the contraction's value `prod_v`."""
        return semantics.to_cpp(op.loaded.expr.args[1], str, "C", at=self._at, contract=lambda _: "prod_v")

    def plain_loops(self, op: OpViewAPI) -> str:
        """The plain loop nest of the expression, rendered from the parse tree."""
        dst = op.domain
        return semantics.to_cpp_loops(
            op.loaded.expr,
            self.extents(op),
            self._at,
            lambda idx, v: f"{dst}.SetElement({', '.join(idx)}, sim::narrow<T>({v}));",
            "C",
        )

    def outputs(self, op: OpViewAPI) -> list[Job]:
        jobs = super().outputs(op)
        if self.scales(op) is None:
            return jobs
        mx = self.template("sim_mx.hpp.j2")
        return [(path, mx if tpl == self.template("sim.hpp.j2") else tpl, ctx) for path, tpl, ctx in jobs]

    def mx_forms(self, op: OpViewAPI) -> list[MxForm]:
        """The forms of an MX product that state their own expression: the simulator function each
        runs and the one tile it adds (`c_in` read at [i,j], or a bias row read at [0,j])."""
        found = []
        for form in op.forms[1:]:
            if form.expr is None:
                continue
            (own,) = [o.name for o in form.own if o.kind == "tile"]
            j = semantics.lhs_indices(form.expr)[1]
            bias = (own, ("0", j)) in semantics.indexed(form.expr.args[1])
            found.append(MxForm(form.impl_name, own, bias))
        return found

    def sim_args(self, op: OpViewAPI, form: FormViewAPI) -> list[str]:
        """A form with its own expression also passes the tile only it takes."""
        if form.expr is None:
            return form.impl_args
        own = {o.name for o in form.own if o.kind == "tile"}
        return [*form.impl_args, *(p.name for p in form.params if p.operand in own)]

    def form_backend(self, op: OpViewAPI, form: FormViewAPI) -> FormBackend:
        # A form that drops an accumulator input (TMATMUL_ACC in place) reads its destination there.
        return FormBackend(stand_ins={o: op.domain for o in op.read_operands if self.role(op, o) is ACC})

    def form_tile(self, op: OpViewAPI, form: FormViewAPI, operand: str, like: TileDecl) -> TileDecl:
        """MX products: a bias form's own row a one-row Bias tile of the destination's columns (the
        compile cases' `c_in` stays shaped like the destination)."""
        tile = super().form_tile(op, form, operand, like)
        own = {f.operand: f for f in self.mx_forms(op)} if self.scales(op) is not None else {}
        if operand not in own or not own[operand].bias:
            return tile
        return replace(
            tile,
            rows=1,
            valid_rows=1,
            loc=ROW.loc,
            layout=ROW.layout,
            slayout=ROW.slayout,
            fractal=ROW.fractal,
        )

    @staticmethod
    def mx_form_profiles(op: OpViewAPI, form: FormViewAPI, case: Any, profiles: list[str]) -> list[str]:
        """MX products: the cases declare the bias form's tile as that form's rules ask (a one-row
        `float` Bias tile), so the form runs under every profile whose rules limited to it admit the
        case's tiles (what the tiles cannot show, a static_assert checks as the case compiles)."""
        tiles = {t.name: t for t in case.tiles}
        combo = {n: t.dtype for n, t in tiles.items()}
        return [
            p
            for p in profiles
            if all(
                part(rv.rule, TileFilter).admits_tiles(tiles) and part(rv.rule, TypeFilter).admits(op, combo)
                for rv in op.form_rules_for(p)
                if in_form(rv.rule, form)
            )
        ]

    def form_changes_result(self, op: OpViewAPI, form: FormViewAPI) -> bool:
        bound = {p.operand for p in form.params if p.operand}
        return any(n not in bound for n in op.read_operands)

    def manifest_extra(self, op: OpViewAPI) -> dict[str, Any]:
        roles = {n: self.role(op, n) for n in tile_operands(op)}
        forms = {}
        for form in op.forms[1:]:
            bound = {p.operand for p in form.params if p.operand}
            forms[str(form.index)] = [n for n in op.read_operands if n not in bound]
        scales = self.scales(op)
        if scales is None:
            return {"fractal": {n: r.fractal for n, r in roles.items()}, "inplace_forms": forms}
        mx = {str(f.function.rsplit("_f", 1)[1]): [f.operand, f.bias] for f in self.mx_forms(op)}
        for f in self.mx_forms(op):
            roles[f.operand] = ROW if f.bias else ACC
        return {
            "fractal": {n: r.fractal for n, r in roles.items()},
            "inplace_forms": forms,
            "mx": [*self.parts(op)[:2], *scales],
            "mx_forms": mx,
        }

    # ----------------------------------------------------------------- tests
    def shaped_tile(self, op: OpViewAPI, tile: TileDecl) -> TileDecl:
        role = self.role(op, tile.name)
        left, right, _, _ = self.parts(op)
        mx = self.scales(op) is not None  # a's columns a multiple of 64, k's groups of 32 in the scales
        rows, cols = {
            id(LEFT): (16, 64 if mx else 32),
            id(RIGHT): (64 if mx else 32, 16),
            id(ACC): (16, 16),
            id(ROW): (1, 16),
            id(LEFT_SCALE): (16, 2),
            id(RIGHT_SCALE): (2, 16),
        }[id(role)]
        vr, vc = min(tile.valid_rows, rows), min(tile.valid_cols, cols)
        if role is LEFT:  # k = a's valid columns = b's valid rows
            vc = min(tile.valid_cols, 16)
        if role is RIGHT:
            vr = min(tile.valid_rows, 16)
        return replace(
            tile,
            rows=rows,
            cols=cols,
            valid_rows=vr,
            valid_cols=vc,
            loc=role.loc,
            layout=role.layout,
            slayout=role.slayout,
            fractal=role.fractal,
        )

    def plan_tests(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        if self.scales(op) is not None:
            self._plan_mx(project, op, tests)
            plan_form_runs(op, tests, profiles=lambda f, case, on: self.mx_form_profiles(op, f, case, on))
            return
        profiles = [p.name for p in project.profiles]
        order = [d.name for d in project.targets.dtypes]
        combos: list[dict[str, str]] = []
        for p in profiles:
            combos += [c for c in op.test_combos(p) if c not in combos]
        left, right, _, _ = self.parts(op)
        combos.sort(key=lambda c: [order.index(c[left]), order.index(c[op.domain])])
        for combo in combos:
            on = [p for p in profiles if combo in op.test_combos(p)]
            first = sum(len(k.cases) for k in tests.runtime)
            cases = [self._case(project, op, combo, shape, first + n) for n, shape in enumerate(SHAPES)]
            name = "_".join(dict.fromkeys([combo[op.domain], combo[left], combo[right]]))
            for suffix, group, laid in _by_box_layout(op, on, cases):
                kernel = RuntimeKernel(name + suffix, dict(combo), dict(op.default_values), group, laid)
                tests.runtime.append(kernel)
        plan_rule_cases(project, op, tests)

    def _plan_mx(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        """Every (c, a, b) triple with 8-bit or 4-bit elements any profile admits (the fp8 ones
        first; fp4 tiles hold two elements a byte), with e8m0 scales, in the MX shapes; the cases
        also declare the tiles only the accumulating and bias forms take, which those forms' calls
        copy."""
        profiles = [p.name for p in project.profiles]
        left, right, _, _ = self.parts(op)
        lscale, rscale = self.scales(op) or ("", "")
        small = sorted((d for d in project.targets.dtypes if d.bits in (4, 8)), key=lambda d: -d.bits)
        eight = [d.name for d in small]
        combos: list[dict[str, str]] = []
        for p in profiles:
            for c in op.test_combos(p):  # a and b vary together there: pair every a with every b
                for x in eight:
                    for y in eight:
                        combo = {**c, left: x, right: y, lscale: "float8_e8m0_t", rscale: "float8_e8m0_t"}
                        if op.admits(p, combo) and combo not in combos:
                            combos.append(combo)
        for combo in combos:
            on = [p for p in profiles if op.admits(p, combo) and op.test_combos(p)]
            first = sum(len(k.cases) for k in tests.runtime)
            cases = [self._case(project, op, combo, shape, first + n) for n, shape in enumerate(MX_SHAPES)]
            name = "_".join(dict.fromkeys([combo[op.domain], combo[left], combo[right]]))
            dtypes = {**combo, **{f.operand: combo[op.domain] for f in self.mx_forms(op)}}
            for suffix, group, laid in _by_box_layout(op, on, cases):
                kernel = RuntimeKernel(name + suffix, dtypes, dict(op.default_values), group, laid)
                tests.runtime.append(kernel)
        plan_rule_cases(project, op, tests)

    def _case(
        self,
        project: ProjectViewAPI,
        op: OpViewAPI,
        dtypes: dict[str, str],
        shape: tuple[str, int, int, int, int, int, int, bool],
        index: int,
    ) -> RuntimeCase:
        label, big_m, big_k, big_n, m, k, n, dyn = shape
        left, right, _, _ = self.parts(op)
        groups = -(-k // 32)
        extents = {
            id(LEFT): (big_m, big_k, m, k),
            id(RIGHT): (big_k, big_n, k, n),
            id(ACC): (big_m, big_n, m, n),
            id(ROW): (1, big_n, 1, n),
            id(LEFT_SCALE): (big_m, big_k // 32, m, groups),
            id(RIGHT_SCALE): (big_k // 32, big_n, groups, n),
        }
        mx = {f.operand: f for f in self.mx_forms(op)}  # the tiles only a form takes
        tiles: dict[str, TileDecl] = {}
        for name in [*tile_operands(op), *mx]:
            if name in mx:
                role = ROW if mx[name].bias else ACC
                rows, cols, vr, vc = extents[id(role)]
                tiles[name] = TileDecl(
                    name,
                    dtypes[op.domain],
                    rows,
                    cols,
                    vr,
                    vc,
                    dyn,
                    role.loc,
                    role.layout,
                    slayout=role.slayout,
                    fractal=role.fractal,
                )
                continue
            role = self.role(op, name)
            rows, cols, vr, vc = extents[id(role)]
            tiles[name] = TileDecl(
                name,
                dtypes[name],
                rows,
                cols,
                vr,
                vc,
                dyn,
                role.loc,
                role.layout,
                slayout=role.slayout,
                fractal=role.fractal,
            )
        own = {n: tiles.pop(n) for n in mx}
        tiles = legalised(op, tiles)
        # A run-time rule may have narrowed m (TGEMV: one row): the accumulators follow a and b.
        for name in tile_operands(op):
            if self.role(op, name) is ACC:
                t = tiles[name]
                tiles[name] = replace(
                    t, valid_rows=tiles[left].valid_rows, valid_cols=tiles[right].valid_cols
                )
        call = make_call(op, tiles, dict(op.default_values), {})
        decls = [*tiles.values(), *own.values()]
        if self.scales(op) is None:
            return RuntimeCase(index, label, decls, {}, call, layout_addresses(project, decls))
        # MX cases fill small memories (Bias, ScaleLeft, ScaleRight): each location's tiles from 0.
        addresses: dict[str, int] = {}
        for loc in dict.fromkeys(t.loc for t in decls):
            addresses.update(layout_addresses(project, [t for t in decls if t.loc == loc]))
        return RuntimeCase(index, label, decls, {}, call, addresses)

    def prepare_cases(self, gx: GoldenContext, data: Path) -> list[Check]:
        if gx.op.extra.get("mx"):
            return _prepare_mx(gx, data)
        op = gx.op
        ref = gx.reference
        types = {n: gx.np_type(d) for n, d in gx.group.dtypes.items()}
        fractal: dict[str, int | None] = op.extra["fractal"]
        inplace: dict[str, list[str]] = op.extra["inplace_forms"]
        dst = op.domain
        cdt = compute_dtype(types[dst])
        checks: list[Check] = []
        for case in gx.group.cases:
            k = case.index
            full: dict[str, np.ndarray] = {}
            for name, t in case.tiles.items():
                flat = inputs(types[name], t.rows * t.cols, f"{gx.op_name}/{gx.entry.group}/{k}/{name}")
                flat.tofile(data / f"c{k}_{name}.bin")
                full[name] = tile_logical(flat, t, fractal.get(name))
            region = {n: full[n][: t.valid_rows, : t.valid_cols].astype(cdt) for n, t in case.tiles.items()}
            label = f"{gx.label} case {k} ({case.label})"
            with np.errstate(all="ignore"):
                want = narrow(
                    np.asarray(ref.reference(cdt.type, types[dst].type, *[region[n] for n in op.inputs])),
                    types[dst],
                )
            t = case.tiles[dst]
            checks.append(_region_check(f"c{k}_{dst}.out", t, fractal.get(dst), want, full[dst], label, op))
            if case is not gx.group.cases[0]:
                continue
            for form, dropped in inplace.items():
                if not dropped:
                    continue
                # The form reads its destination where the main form reads what it dropped.
                args = [region[dst] if n in dropped else region[n] for n in op.inputs]
                with np.errstate(all="ignore"):
                    own = narrow(np.asarray(ref.reference(cdt.type, types[dst].type, *args)), types[dst])
                checks.append(
                    _region_check(
                        f"c{k}_{dst}.f{form}.out",
                        t,
                        fractal.get(dst),
                        own,
                        full[dst],
                        f"{label}, overload {form}",
                        op,
                    )
                )
        return checks


def _region_check(
    out_name: str,
    t: TileShape,
    fractal: int | None,
    want: np.ndarray,
    before: np.ndarray,
    label: str,
    op: Any,
) -> Check:
    """Judges one output: the valid region within the op's tolerance of `want`, the rest unchanged."""
    judge = within_tolerance(op.tolerance)
    return region_check(out_name, t, want, before, label, judge=judge, dtype=before.dtype, fractal=fractal)


def mx_product(a: np.ndarray, b: np.ndarray, a_scale: np.ndarray, b_scale: np.ndarray) -> np.ndarray:
    """The MX product as upstream's CPU simulator forms it: per k in order, the double term
    a * b * (a_scale * b_scale) of k's group of 32 added to a float running sum from zero."""
    m, k = a.shape
    n = b.shape[1]
    total = np.zeros((m, n), dtype=np.float32)
    for kk in range(k):
        scale = a_scale[:, kk // 32, None] * b_scale[None, kk // 32, :]
        term = a[:, kk, None] * b[None, kk, :] * scale
        total = (total.astype(np.float64) + term).astype(np.float32)
    return total


def _prepare_mx(gx: GoldenContext, data: Path) -> list[Check]:
    """Inputs and checks of an MX product's cases: fp8 elements drawn as the other float inputs,
    fp4 elements as uniformly drawn codes packed two a byte (decoded exactly by `testing/fp4.py`),
    scales as e8m0 powers of two, the form-only tiles (`c_in`, bias) as float inputs; the main
    form on every case, each form with its own expression on the first."""
    op = gx.op
    left, right, lscale, rscale = op.extra["mx"]
    forms: dict[str, list[Any]] = op.extra["mx_forms"]
    fractal: dict[str, int | None] = op.extra["fractal"]
    types = {n: gx.np_type(d) for n, d in gx.group.dtypes.items()}
    dst = op.domain
    checks: list[Check] = []
    for case in gx.group.cases:
        k = case.index
        seed = f"{gx.op_name}/{gx.entry.group}/{k}"
        full: dict[str, np.ndarray] = {}
        for name, t in case.tiles.items():
            count = t.rows * t.cols
            if name in (lscale, rscale):
                rng = np.random.default_rng(zlib.crc32(f"{seed}/{name}".encode()))
                low, high = MX_SCALE_CODES
                codes = rng.integers(low, high, count, endpoint=True, dtype=np.uint8)
                flat = codes.view(types[name])
            elif gx.group.dtypes[name] in fp4.TWINS:  # codes, boxed as one-byte elements, then decoded
                rng = np.random.default_rng(zlib.crc32(f"{seed}/{name}".encode()))
                codes = fp4.random_codes(rng, count)
                fp4.pack(codes).tofile(data / f"c{k}_{name}.bin")
                full[name] = fp4.decode(tile_logical(codes, t, fractal.get(name)), gx.group.dtypes[name])
                continue
            elif types[name].itemsize == 1:  # fp8: values drawn as floats, rounded to the type
                rng = np.random.default_rng(zlib.crc32(f"{seed}/{name}".encode()))
                flat = rng.uniform(-10.0, 10.0, count).astype(np.float32).astype(types[name])
            else:
                flat = inputs(types[name], count, f"{seed}/{name}")
            flat.tofile(data / f"c{k}_{name}.bin")
            full[name] = tile_logical(flat, t, fractal.get(name))
        region = {
            n: full[n][: t.valid_rows, : t.valid_cols].astype(np.float64) for n, t in case.tiles.items()
        }
        product = mx_product(region[left], region[right], region[lscale], region[rscale])
        label = f"{gx.label} case {k} ({case.label})"
        t = case.tiles[dst]
        checks.append(_region_check(f"c{k}_{dst}.out", t, fractal.get(dst), product, full[dst], label, op))
        if case is not gx.group.cases[0]:
            continue
        for form, (operand, bias) in forms.items():
            rows = 1 if bias else t.valid_rows
            add = full[operand][:rows, : t.valid_cols].astype(np.float32)
            own = (product + add) if bias else (add + product)
            out = f"c{k}_{dst}.f{form}.out"
            where = f"{label}, overload {form}"
            checks.append(_region_check(out, t, fractal.get(dst), own, full[dst], where, op))
    return checks


def _by_box_layout(
    op: OpViewAPI, profiles: list[str], cases: list[RuntimeCase]
) -> list[tuple[str, list[str], list[RuntimeCase]]]:
    """The cases once per box layout the profiles' rules give the cube operands (A2A3's Left tiles
    are ZZ, A5's NZ): (kernel name suffix, profiles, cases with those layouts); no suffix for one."""
    groups: dict[tuple[tuple[str, str, str | None], ...], tuple[list[str], list[RuntimeCase]]] = {}
    for p in profiles:
        laid = []
        for case in cases:
            tiles = profile_legalised(op, p, {t.name: t for t in case.tiles})
            laid.append(replace(case, tiles=list(tiles.values())))
        key = tuple((t.name, t.layout, t.slayout) for t in laid[0].tiles)
        groups.setdefault(key, ([], laid))[0].append(p)
    if len(groups) <= 1:
        return [("", profiles, next(iter(groups.values()))[1] if groups else cases)]
    # Each kernel's cases keep their own numbers: a later group's follow the earlier ones'.
    out = []
    for k, (group, laid) in enumerate(groups.values()):
        renumbered = [replace(c, index=c.index + k * len(cases)) for c in laid]
        out.append(("_" + "_".join(g.lower() for g in group), group, renumbered))
    return out
