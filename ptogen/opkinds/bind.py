"""Bindings: ops that point a tile at bytes of its on-chip memory, or a GlobalTensor at global memory
(TASSIGN). Nothing is copied.

`semantics.domain` names the bound object and `semantics.expr` the address operand: afterwards the
tile's storage starts `addr` bytes into the memory of its location, so element (i, j) is whatever
that memory holds at `addr + offset(i, j)`, and tiles bound to overlapping bytes see each other's
writes. A declaration may carry the address as a template argument (`TASSIGN<Addr>(tile)`); rules
scoped to such forms (`placement`) check it at compile time.

A kind of its own, not `view`'s: it points a tile or a GlobalTensor at an address (a scalar or a
template argument), not at another tile's elements, and its kernels bind the tile back before
further calls (`rebinds`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from ..importer.contract import DOMAIN, PageOp
from ..rules.parts import StaticBreak, form_scoped, part
from ..testing.golden import Check, GoldenContext, same_bits, write_tile_inputs
from ..testing.plan import (
    BreakContext,
    Call,
    CompileCase,
    GlobalDecl,
    OpTests,
    RuntimeCase,
    RuntimeKernel,
    TileDecl,
    dtype_def,
    dtype_profiles,
    layout_addresses,
)
from .base import NamesOperand

if TYPE_CHECKING:
    from ..kind_api import OpViewAPI, ProjectViewAPI
    from ..spec.model import OpSpec

# The tile holding the bytes a case binds to (declared by the test, not an operand of the op).
BACKING = "backing"

# (label, location, layout, rows, cols, valid rows x cols or None for static, backing rows x cols,
# offset in elements into the backing tile's storage)
Case = tuple[str, str, str, int, int, tuple[int, int] | None, tuple[int, int], int]

CASES: list[Case] = [
    ("row-major 8x16 bound to another 8x16 tile's bytes", "Vec", "RowMajor", 8, 16, None, (8, 16), 0),
    ("row-major 4x16 bound two rows into an 8x16 tile", "Vec", "RowMajor", 4, 16, None, (8, 16), 32),
    ("col-major 16x8 bound 24 elements into a 16x16 tile", "Vec", "ColMajor", 16, 8, None, (16, 16), 24),
    (
        "run-time valid 5x9 of 8x16 bound 16 elements into a 16x16 tile",
        "Vec",
        "RowMajor",
        8,
        16,
        (5, 9),
        (16, 16),
        16,
    ),
    # another location: both tiles live in L0C, which the address is an offset into
    (
        "accumulator 8x16 bound 32 elements into a 16x16 accumulator",
        "Acc",
        "RowMajor",
        8,
        16,
        None,
        (16, 16),
        32,
    ),
]


class Bind(NamesOperand):
    name: ClassVar[str] = "bind"
    domain_starts: ClassVar[tuple[str, ...]] = ("For each",)

    # ----------------------------------------------------------------- import
    def recognise(self, page: PageOp) -> int | None:
        # templates/opkinds/bind/domain.md.j2: "For each element ... where `M` is the byte-addressed memory"
        return DOMAIN if not page.vector and page.intro_says("byte-addressed memory") else None

    def complete_import(self, semantics: dict[str, Any], operands: list[dict[str, Any]]) -> None:
        # the formula reads the memory at the address operand, which is what `semantics.expr` names
        semantics["expr"] = next((o["name"] for o in operands if o["kind"] == "scalar"), semantics["expr"])

    def check_operands(self, spec: OpSpec) -> list[tuple[tuple[str | int, ...], str]]:
        kinds = sorted(o.kind for o in spec.operands)
        if kinds != ["scalar", "tile"] or spec.semantics.domain != next(
            o.name for o in spec.operands if o.kind == "tile"
        ):
            return [(("operands",), "a bind op has the bound tile (its domain) and the address (a scalar)")]
        return []

    # ----------------------------------------------------------------- math
    def result_index(self, op: OpViewAPI) -> str:
        return "i,j"

    def operand_index(self, op: OpViewAPI, operand: str) -> str:
        return ""

    def math(self, op: OpViewAPI) -> str:
        obj, addr = op.spec.semantics.domain, self.source(op)
        return (
            rf"\mathrm{{{obj}}}_{{i,j}} = M_{{\mathrm{{{obj}.Loc}}}}\left[\mathrm{{{addr}}} + "
            rf"\mathrm{{sizeof}}(T)\cdot\mathrm{{offset}}(i, j)\right]"
        )

    # ----------------------------------------------------------------- tests
    def plan_tests(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        # The op rebinds its tile to other storage: before each further declaration the kernels bind
        # it back to its own bytes instead of reloading them through the binding.
        tests.rebinds = True
        obj, addr = op.spec.semantics.domain, self.source(op)
        first = 0
        for dtype, on in dtype_profiles(project, op):
            size = dtype_def(project, dtype).bits // 8
            cases = []
            for k, (label, loc, layout, rows, cols, valid, (br, bc), offset) in enumerate(CASES, first):
                vr, vc = valid or (rows, cols)
                t = TileDecl(obj, dtype, rows, cols, vr, vc, valid is not None, loc, layout)
                b = TileDecl(BACKING, dtype, br, bc, br, bc, False, loc, "RowMajor")
                at = layout_addresses(project, [b, t])
                call = Call([], [obj, hex(at[BACKING] + offset * size)])
                cases.append(RuntimeCase(k, label, [t, b], {}, call, at, attrs={"offset": str(offset)}))
            first += len(CASES)
            tests.runtime.append(RuntimeKernel(dtype, {obj: dtype, BACKING: dtype}, {}, on, cases))
        self._plan_compile(project, op, tests, obj, addr)

    def _plan_compile(
        self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests, obj: str, addr: str
    ) -> None:
        """Legal calls of every form (a tile at 0, a GlobalTensor at its buffer) and one breaking call
        per rule, each under every profile that has the rule."""
        for p in project.profiles:
            dtypes = op.test_dtypes(p.name)
            if not dtypes:
                continue
            tile = TileDecl(obj, dtypes[0])
            glob = GlobalDecl(obj, dtypes[0], 8, 16, 16)
            low = p.name.lower()
            tests.compile.append(CompileCase.legal(f"legal_{low}", p.name, [tile], Call([], [obj, "0x0"])))
            at_buffer = Call([], [obj, f"{obj}_buf.get()"])
            tests.compile.append(
                CompileCase.legal(f"legal_{low}_global", p.name, [], at_buffer, globals=[glob])
            )
            for form in op.forms[1:]:
                if form.carrier(addr) is not None:
                    call = Call(["0x0"], [obj])
                    tests.compile.append(
                        CompileCase.legal(f"legal_{low}_f{form.index}", p.name, [tile], call)
                    )
            for rv in [*op.rules_for(p.name, static=True), *op.form_rules_for(p.name)]:
                bx = BreakContext(project, op, rv, p.name)
                broken = part(rv.rule, StaticBreak).break_static(bx, {obj: tile})
                value = broken.scalar_types[addr]
                # a form-scoped rule checks the form that takes the address as a template argument
                call = Call([value], [obj]) if form_scoped(rv.rule) else Call([], [obj, value])
                tests.compile.append(CompileCase.breaking(f"fail_{low}_{rv.id}", p.name, rv, [tile], call))

    def prepare_cases(self, gx: GoldenContext, data: Path) -> list[Check]:
        obj = gx.op.domain
        checks: list[Check] = []
        for case in gx.group.cases:
            arrays = write_tile_inputs(gx, case, gx.np_type(gx.group.dtypes[obj]), data)
            t, offset = case.tiles[obj], int(case.attrs["offset"])
            # The bound tile's storage is the backing tile's, from the offset on.
            want = arrays[BACKING][offset : offset + t.rows * t.cols].copy()
            label = f"{gx.label} case {case.index} ({case.label})"
            checks.append(same_bits(f"c{case.index}_{obj}.out", want, label, "bound bytes"))
        return checks
