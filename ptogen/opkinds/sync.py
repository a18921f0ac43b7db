"""Synchronisation: ops that order execution and touch no element (TSYNC).

The main declaration waits on an `events` operand (the events earlier operations returned);
`semantics.expr` and `semantics.domain` name it. A further declaration may take an op class (an
attr operand of an enum with a pipeline trait, `Op`) as a template argument instead and drain that
class's pipeline. The CPU simulator completes every operation before it returns, so waiting and
draining only count (`sim::wait_count()`, `sim::barrier_count(pipe)`, tests/opkinds/test_sync.py); the
generated tests prove which calls each profile accepts and rejects.

A kind of its own, not `barrier`'s: it takes events or an op class, touches no memory and is tested
by compile cases alone.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from ..importer.contract import OPERANDS, PageOp
from ..rules.parts import form_scoped
from ..spec.kindfacts import KindFacts
from ..testing.golden import Check, GoldenContext
from ..testing.plan import Call, CompileCase, OpTests, TileDecl
from .base import NamesOperand

if TYPE_CHECKING:
    from ..kind_api import FormViewAPI, OpViewAPI, ProjectViewAPI
    from ..spec.model import OpSpec


class Sync(NamesOperand):
    name: ClassVar[str] = "sync"
    facts: ClassVar[KindFacts] = KindFacts(writes=False)
    domain_starts: ClassVar[tuple[str, ...]] = ("Not applicable: no element is read or written",)

    # ----------------------------------------------------------------- import
    def recognise(self, page: PageOp) -> int | None:
        # Orders work and computes nothing: it waits on events and has neither a tile nor a GlobalTensor.
        return OPERANDS if page.has("events") and not page.has("tile") and not page.has("global") else None

    def import_domain(self, operands: list[dict[str, Any]]) -> str | None:
        # orders work and writes nothing: its domain is the events it waits on
        return super().import_domain(operands) or next(
            (o["name"] for o in operands if o["kind"] == "events"), None
        )

    def check_operands(self, spec: OpSpec) -> list[tuple[tuple[str | int, ...], str]]:
        if [o.kind for o in spec.operands] != ["events"] or spec.semantics.domain != spec.operands[0].name:
            return [(("operands",), "a sync op has one operand, the `events` it waits on (its domain)")]
        return []

    # ----------------------------------------------------------------- math
    def math(self, op: OpViewAPI) -> str:
        return ""  # no element is computed: the page states no formula

    def result_index(self, op: OpViewAPI) -> str:
        return ""

    def operand_index(self, op: OpViewAPI, operand: str) -> str:
        return ""

    # ----------------------------------------------------------------- header and backend
    def sim_targs(self, op: OpViewAPI, form: FormViewAPI) -> list[str]:
        """A barrier form runs the simulator function of its op class."""
        return [t.name for t in form.template if t.operand is not None]

    def sim_args(self, op: OpViewAPI, form: FormViewAPI) -> list[str]:
        return []

    @staticmethod
    def barrier_enum(op: OpViewAPI) -> Any:
        """The enum of the op-class operand of the barrier form (its trait names the pipeline)."""
        attr = next((o for o in op.spec.every_operand if o.kind == "attr"), None)
        return next((e for e in op.targets.enums if attr is not None and e.name == attr.enum), None)

    # ----------------------------------------------------------------- tests
    def plan_tests(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        """Compile cases only (nothing to compute): per profile, a wait on two events and on none, a
        barrier on the first op class, and one breaking call per rule."""
        events = op.spec.semantics.domain
        contexts = [("RecordEvent", f"{events}0"), ("RecordEvent", f"{events}1")]
        barrier = next((f for f in op.forms if any(t.operand for t in f.template)), None)
        enum = self.barrier_enum(op)
        for p in project.profiles:
            prof, low = p.name, p.name.lower()
            waits = Call([], [f"{events}0", f"{events}1"])
            cases = [
                CompileCase.legal(f"legal_{low}", prof, [], waits, contexts=contexts),
                CompileCase.legal(f"legal_{low}_none", prof, [], Call([], [])),
            ]
            if barrier is not None and enum is not None:
                drain = Call([f"{enum.name}::{enum.values[0]}"], [])
                cases.append(CompileCase.legal(f"legal_{low}_f{barrier.index}", prof, [], drain))
            for rv in [*op.rules_for(prof, static=True), *op.form_rules_for(prof)]:
                if form_scoped(rv.rule):  # a class the rule does not allow
                    call = Call([rv.rule.breaking_value(op)], [])  # type: ignore[attr-defined]
                    cases.append(CompileCase.breaking(f"fail_{low}_{rv.id}", prof, rv, [], call))
                else:  # a tile where an event belongs
                    tile = TileDecl("not_an_event", (op.test_dtypes(prof) or ["float"])[0])
                    cases.append(
                        CompileCase.breaking(f"fail_{low}_{rv.id}", prof, rv, [tile], Call([], [tile.name]))
                    )
            tests.compile += cases

    def prepare_cases(self, gx: GoldenContext, data: Path) -> list[Check]:
        return []  # compile cases only
