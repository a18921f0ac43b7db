"""Hints: ops that ask the memory system for something the CPU simulator has no state for, and
return a completion handle (TPREFETCH_ASYNC warms L2 with a GlobalTensor's region).

The op reads its GlobalTensor and changes no element of it (`semantics.expr` names it; the math is
the identity); its context operand carries the device workspace and the session the handle is waited
in. On the simulator the handle is complete when the op returns.

A kind of its own, not `transfer`'s: it writes no tile and returns a handle through a context
operand, so it has neither a transfer's tile region nor its golden.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from ..importer.contract import OPERANDS, PageOp
from ..spec.kindfacts import KindFacts
from ..testing.golden import Check, GoldenContext, inputs, same_bits
from ..testing.plan import Call, CompileCase, GlobalDecl, OpTests, RuntimeCase, RuntimeKernel, dtype_profiles
from .base import NamesOperand

if TYPE_CHECKING:
    from ..kind_api import OpViewAPI, ProjectViewAPI
    from ..spec.model import OpSpec

# (label, rows, cols, leading dimension, layout) of the GlobalTensor a case hints about.
SHAPES = [
    ("packed ND 8x16", 8, 16, 16, "ND"),
    ("ND 5x7 with row stride 9", 5, 7, 9, "ND"),
    ("DN 6x4 with column stride 8", 6, 4, 8, "DN"),
]


class Hint(NamesOperand):
    name: ClassVar[str] = "hint"
    facts: ClassVar[KindFacts] = KindFacts(writes=False)
    domain_starts: ClassVar[tuple[str, ...]] = ("No element of",)

    # ----------------------------------------------------------------- import
    def recognise(self, page: PageOp) -> int | None:
        # A GlobalTensor and a context, no tile.
        if page.vector or not page.has("global") or not page.has("context") or page.has("tile"):
            return None
        return OPERANDS

    def import_domain(self, operands: list[dict[str, Any]]) -> str | None:
        # writes nothing: its domain is the GlobalTensor it reads
        return next((o["name"] for o in operands if o["kind"] == "global"), None)

    def check_operands(self, spec: OpSpec) -> list[tuple[tuple[str | int, ...], str]]:
        kinds = sorted(o.kind for o in spec.operands)
        if kinds != ["context", "global"]:
            return [(("operands",), "a hint op has one GlobalTensor (`global`) and one `context` operand")]
        return []

    @staticmethod
    def context(op: OpViewAPI) -> str:
        return next(o.name for o in op.spec.operands if o.kind == "context")

    # ----------------------------------------------------------------- math
    def result_index(self, op: OpViewAPI) -> str:
        return "i,j"

    def operand_index(self, op: OpViewAPI, operand: str) -> str:
        return "i,j"

    # ----------------------------------------------------------------- header and backend
    def sim_args(self, op: OpViewAPI, form: Any) -> list[str]:
        return [*form.impl_args, form.arg(self.context(op))]

    # ----------------------------------------------------------------- outputs

    # ----------------------------------------------------------------- tests
    def plan_tests(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        profiles = [p.name for p in project.profiles]
        glob, ctx = op.spec.semantics.domain, self.context(op)
        intr = op.spec.intrinsic
        assert intr is not None
        ctx_type = next(str(p.type) for p in intr.params if p.operand == ctx)
        first = 0
        for dtype, on in dtype_profiles(project, op):
            cases = []
            for k, (label, rows, cols, ld, layout) in enumerate(SHAPES, first):
                g = GlobalDecl(glob, dtype, rows, cols, ld, layout)
                call = Call([], [glob, ctx])
                cases.append(RuntimeCase(k, label, [], {}, call, globals=[g], contexts=[(ctx_type, ctx)]))
            first += len(SHAPES)
            tests.runtime.append(RuntimeKernel(dtype, {glob: dtype}, {}, on, cases))
        # No rule to break (the pages state none a compiler can check); a legal call per profile
        # proves each profile takes the op, in the verify file every op has.
        for p in profiles:
            if not op.test_dtypes(p):
                continue
            g = GlobalDecl(glob, op.test_dtypes(p)[0], 8, 16, 16)
            call = Call([], [glob, ctx])
            tests.compile.append(
                CompileCase.legal(f"legal_{p.lower()}", p, [], call, globals=[g], contexts=[(ctx_type, ctx)])
            )

    def prepare_cases(self, gx: GoldenContext, data: Path) -> list[Check]:
        glob = gx.op.domain
        checks: list[Check] = []
        for case in gx.group.cases:
            k = case.index
            dtype = gx.np_type(gx.group.dtypes[glob])
            buf = inputs(dtype, case.globals[glob].size, f"{gx.op_name}/{gx.entry.group}/{k}/{glob}")
            buf.tofile(data / f"c{k}_{glob}.bin")
            label = f"{gx.label} case {k} ({case.label})"
            checks.append(same_bits(f"c{k}_{glob}.out", buf, label, "hinted (unchanged)"))
        return checks
