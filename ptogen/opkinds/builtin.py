"""Scalar builtins (kind `builtin`): free functions of the hand-written runtime that device code
calls by name, such as `set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0)` and `pipe_barrier(PIPE_ALL)`.

They order the pipes of a core and compute no element. Their operands are the builtin's scalar
arguments, in the order of its parameters; the spec's `builtin:` states the function as the runtime
declares it (name, parameter types, header), and `semantics.domain` and `expr` name the first
operand. The runtime checks each call's documented rules when it runs (a wait with no earlier
signal, an identifier out of range), so the builtin has no profile checks of its own. The generated
tests prove the declaration: the verify file takes the function's address as the spec's type and
calls it with a variable per parameter holding its `example`; the runtime behaviour is tested in
tests/runtime/.
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


class Builtin(NamesOperand):
    name: ClassVar[str] = "builtin"
    facts: ClassVar[KindFacts] = KindFacts(writes=False)
    domain_starts: ClassVar[tuple[str, ...]] = ("Not applicable: a scalar builtin",)
    computes: ClassVar[bool] = False

    # ----------------------------------------------------------------- import
    def recognise(self, page: PageOp) -> int | None:
        return OPERANDS if page.level == "scalar" and not page.has("mask") else None

    def import_domain(self, operands: list[dict[str, Any]]) -> str | None:
        # orders work and writes nothing: its domain is the operand that names what it orders
        return next((o["name"] for o in operands), None)

    def writes_domain(self, spec: OpSpec) -> bool:
        # one that returns a value (`get_block_idx()`) writes it: its first operand, the domain
        return spec.builtin is not None and spec.builtin.returns != "void"

    def check_operands(self, spec: OpSpec) -> list[tuple[tuple[str | int, ...], str]]:
        if any(o.kind != "scalar" for o in spec.operands) or spec.builtin is None:
            return [(("operands",), "a builtin's operands are the scalar arguments of its `builtin`")]
        return []

    # ----------------------------------------------------------------- math
    def math(self, op: OpViewAPI) -> str:
        return ""  # no element is computed: the page states no formula

    def result_index(self, op: OpViewAPI) -> str:
        return ""

    def operand_index(self, op: OpViewAPI, operand: str) -> str:
        return ""

    # ----------------------------------------------------------------- outputs
    def outputs(self, op: OpViewAPI) -> list[Job]:
        return [(op.doc_path, "docs/op_page.md.j2", {"op": op})]  # its C++ is the runtime's own

    # ----------------------------------------------------------------- tests
    def plan_tests(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        """One legal call per profile: the builtin is the same function under each, and the call
        passes a variable per parameter holding its example argument (a reference parameter needs
        one), as the op page's C++ section shows."""
        builtin = op.spec.builtin
        assert builtin is not None
        call = Call([], [p.name for p in builtin.params])
        for p in project.profiles:
            tests.compile.append(CompileCase.legal(f"legal_{p.name.lower()}", p.name, [], call))

    def prepare_cases(self, gx: GoldenContext, data: Path) -> list[Check]:
        return []  # compile cases only: the runtime's behaviour is tested beside the runtime


class PredicateBuiltin(Builtin):
    """Predicate builtins (kind `predicate_builtin`): the scalar unit's free functions that make,
    combine, load and store predicate registers (`pset_b32(PAT_ALL)`, `plt_b32(n, POST_UPDATE)`,
    `pand(dst, a, b, pg)`, `psts(p, ub, 0, PK)`).
    They are builtins as above whose operands include predicate registers (kind `mask`), and which
    may return their result; the lanes they set are the register model's (pto/vsim/predicate.hpp),
    tested beside it in tests/runtime/."""

    name: ClassVar[str] = "predicate_builtin"
    # It writes its first operand (the result); the two-result builtins (pintlv, pdintlv) also dst1.
    facts: ClassVar[KindFacts] = KindFacts(side_outputs=("dst1",))
    domain_starts: ClassVar[tuple[str, ...]] = ("Not applicable: a predicate builtin",)

    def recognise(self, page: PageOp) -> int | None:
        return OPERANDS if page.level == "scalar" and page.has("mask") else None

    def complete_import(self, semantics: dict[str, Any], operands: list[dict[str, Any]]) -> None:
        semantics["expr"] = semantics["domain"]  # it names its first operand, as the spec does

    def writes_domain(self, spec: OpSpec) -> bool:
        # a predicate store writes UB, not a register: its first operand is the predicate it reads
        return any(o.role == "dst" for o in spec.operands)

    def check_operands(self, spec: OpSpec) -> list[tuple[tuple[str | int, ...], str]]:
        if spec.builtin is None or not any(o.kind == "mask" for o in spec.operands):
            return [(("operands",), "a predicate builtin's operands include a predicate register (`mask`)")]
        if any(o.kind not in ("scalar", "mask") for o in spec.operands):
            return [(("operands",), "a predicate builtin's operands are predicate registers and scalars")]
        return []
