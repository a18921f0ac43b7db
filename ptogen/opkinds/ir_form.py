"""IR forms (kind `ir_form`): ops of the micro-instruction surface that C++ writes with the language
itself, not with a function: a typed pointer made from an address (`(__ubuf__ float*)addr`), pointer
arithmetic (`ptr + offset`), a scalar load or store (`ptr[offset]`), a vector scope
(`__VEC_SCOPE__ { ... }`).

A spec states the statements A5 code writes for the form (`spelling:`) instead of a runtime
`builtin`; its operands are the form's values, in the order of its SSA line, results first, and
`semantics.domain` and `expr` name the first operand. The simulation is the host's own meaning of that
code: the address-space qualifiers are empty and every simulated memory is host memory, and
`__VEC_SCOPE__` is a plain block (pto/vsim/scope.hpp). The generated tests compile the spelling once
(it names no profile's intrinsic); the spec examples run it (tests/header/test_generated_header.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from ..importer.contract import OPERANDS, PageOp
from ..spec.kindfacts import KindFacts
from ..testing.golden import Check, GoldenContext
from ..testing.plan import Call, CompileCase, OpTests
from .base import Job, NamesOperand

if TYPE_CHECKING:
    from ..kind_api import OpViewAPI, ProjectViewAPI
    from ..spec.model import OpSpec


class IrForm(NamesOperand):
    name: ClassVar[str] = "ir_form"
    facts: ClassVar[KindFacts] = KindFacts(writes=False, spelled=True)
    domain_starts: ClassVar[tuple[str, ...]] = ("Not applicable: an IR form",)
    computes: ClassVar[bool] = False

    # ----------------------------------------------------------------- import
    def recognise(self, page: PageOp) -> int | None:
        # its own pages say so in the paragraph its domain.md.j2 writes; a scalar page's operands
        # alone are a builtin's
        return OPERANDS if page.level == "scalar" and page.intro.startswith(self.domain_starts) else None

    def import_domain(self, operands: list[dict[str, Any]]) -> str | None:
        return next((o["name"] for o in operands), None)

    def complete_import(self, semantics: dict[str, Any], operands: list[dict[str, Any]]) -> None:
        semantics["expr"] = semantics["domain"]  # it names its first operand, as the spec does

    def writes_domain(self, spec: OpSpec) -> bool:
        # a form with a result (`castptr`) makes it: its first operand; a store or a scope makes none
        return spec.operands[0].role == "dst"

    def check_operands(self, spec: OpSpec) -> list[tuple[tuple[str | int, ...], str]]:
        if any(o.kind != "scalar" for o in spec.operands):
            return [(("operands",), "an IR form's operands are the scalar values its spelling names")]
        if spec.semantics.domain != spec.operands[0].name:
            return [(("semantics", "domain"), "an IR form's domain is its first operand")]
        return []

    # ----------------------------------------------------------------- math
    def math(self, op: OpViewAPI) -> str:
        return ""  # no element is computed: the mechanism and the spelling say what the form does

    def result_index(self, op: OpViewAPI) -> str:
        return ""

    def operand_index(self, op: OpViewAPI, operand: str) -> str:
        return ""

    # ----------------------------------------------------------------- outputs
    def outputs(self, op: OpViewAPI) -> list[Job]:
        return [(op.doc_path, "docs/op_page.md.j2", {"op": op})]  # its C++ is the language's own

    # ----------------------------------------------------------------- tests
    def plan_tests(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        """The spelling, compiled once as written: it names no profile's intrinsic, so every profile
        compiles the same code."""
        spelling = op.spec.spelling
        assert spelling is not None
        profile = project.simulated_profile.name
        case = CompileCase.legal(f"legal_{profile.lower()}", profile, [], Call([], []))
        case.statements = spelling.code.splitlines()
        tests.compile.append(case)
        tests.verify_includes.append(spelling.header)
        tests.values_unused = True  # the spelling shows the form alone

    def prepare_cases(self, gx: GoldenContext, data: Path) -> list[Check]:
        return []  # compile cases only: the spec examples run the forms
