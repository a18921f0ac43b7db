"""What the builtins of the vector register model share (kinds `vmem`, `vmove`): loads, stores and
rearrangements hand-written in the runtime (ptogen/runtime/include/pto/vsim/), called as A5 vector code
calls them (`vlds(dst, ptr, offset, NORM)`, `vintlv(low, high, a, b)`).

Where each lane comes from is state of the register model, not a lane expression, so a spec states the
builtin's main call shape (`builtin:`, its parameter types a specialisation of the runtime's template:
`vector_f32&`, `const float*`) and its operands in the parameters' order; `semantics.domain` and
`expr` name the first operand, and the notes record each choice the pages leave open. The generated
verify file proves the declaration (the runtime has that specialisation) and compiles a call under
every profile, each register a local the call binds to; the values are tested beside the runtime
(tests/runtime/test_vsim_loadstore.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from ..importer.contract import DOMAIN, OPERANDS, PageOp
from ..opkinds.base import Job, NamesOperand
from ..spec.kindfacts import KindFacts
from ..testing.golden import Check, GoldenContext
from ..testing.plan import Call, CompileCase, OpTests

if TYPE_CHECKING:
    from ..kind_api import OpViewAPI, ProjectViewAPI
    from ..spec.model import OpSpec


class RegisterCall(NamesOperand):
    """A builtin of the vector register model, as A5 vector code calls it; a kind names itself and
    says how its pages' domain paragraph begins."""

    facts: ClassVar[KindFacts] = KindFacts(writes=False, runtime_calls=True)
    computes: ClassVar[bool] = False

    # ----------------------------------------------------------------- import
    def recognise(self, page: PageOp) -> int | None:
        # a vector page read as a builtin call: its operands are the call's arguments
        # (a predicate argument reads as a `mask` operand; here every argument is a scalar operand)
        if page.level != "vector" or not set(page.operand_kinds) <= {"scalar", "mask"}:
            return None
        # its own generated pages say which kind of register builtin they show
        return OPERANDS if page.intro.startswith(self.domain_starts) else DOMAIN

    def complete_import(self, semantics: dict[str, Any], operands: list[dict[str, Any]]) -> None:
        for o in operands:  # the call's arguments, predicate registers included
            if o["kind"] == "mask":
                o["kind"], o["role"] = "scalar", "scalar"

    def import_domain(self, operands: list[dict[str, Any]]) -> str | None:
        return next((o["name"] for o in operands), None)

    def check_operands(self, spec: OpSpec) -> list[tuple[tuple[str | int, ...], str]]:
        if any(o.kind != "scalar" for o in spec.operands) or spec.builtin is None:
            return [(("operands",), f"a {self.name} builtin's operands are the arguments of its `builtin`")]
        return []

    # ----------------------------------------------------------------- math
    def math(self, op: OpViewAPI) -> str:
        return ""  # no lane formula: the mechanism says where each lane comes from or goes

    def result_index(self, op: OpViewAPI) -> str:
        return ""

    def operand_index(self, op: OpViewAPI, operand: str) -> str:
        return ""

    # ----------------------------------------------------------------- outputs
    def outputs(self, op: OpViewAPI) -> list[Job]:
        return [(op.doc_path, "docs/op_page.md.j2", {"op": op})]  # its C++ is the register model's own

    # ----------------------------------------------------------------- tests
    def plan_tests(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        """One legal call per profile, as the builtin kind plans it: the verify file passes a variable
        per parameter holding its example (`{}`: value-initialised, a register the call binds to)."""
        builtin = op.spec.builtin
        assert builtin is not None
        tests.includes.append(builtin.header)
        call = Call([], [p.name for p in builtin.params])
        for p in project.profiles:
            tests.compile.append(CompileCase.legal(f"legal_{p.name.lower()}", p.name, [], call))

    def prepare_cases(self, gx: GoldenContext, data: Path) -> list[Check]:
        return []  # compile cases only: the values are tested beside the runtime (tests/runtime/)
