"""Synchronisation: ops that order execution and touch no element (TSYNC).

The main declaration waits on an `events` operand (the events earlier operations returned);
`semantics.expr` and `semantics.domain` name it. A further declaration may take an op class (an
attr operand of an enum with a pipeline trait, `Op`) as a template argument instead and drain that
class's pipeline. The CPU simulator completes every operation before it returns, so waiting and
draining only count (`sim::wait_count()`, `sim::barrier_count(pipe)`, tests/test_sync.py); the
generated tests prove which calls each profile accepts and rejects.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from ..testing.golden import Check, GoldenContext
from ..testing.plan import Call, CompileCase, OpTests, TileDecl
from .base import NamesOperand

if TYPE_CHECKING:
    from ..lower.views import FormView, OpView, ProjectView
    from ..spec.model import OpSpec


class Sync(NamesOperand):
    name: ClassVar[str] = "sync"
    writes: ClassVar[bool] = False

    def check_operands(self, spec: OpSpec) -> list[tuple[tuple[str | int, ...], str]]:
        if [o.kind for o in spec.operands] != ["events"] or spec.semantics.domain != spec.operands[0].name:
            return [(("operands",), "a sync op has one operand, the `events` it waits on (its domain)")]
        return []

    # ----------------------------------------------------------------- math
    def math(self, op: OpView) -> str:
        return ""  # no element is computed: the page states no formula

    def result_index(self, op: OpView) -> str:
        return ""

    def operand_index(self, op: OpView, operand: str) -> str:
        return ""

    # ----------------------------------------------------------------- header and backend
    def sim_targs(self, op: OpView, form: FormView) -> list[str]:
        """A barrier form runs the simulator function of its op class."""
        return [t.name for t in form.template if t.operand is not None]

    def sim_args(self, op: OpView, form: FormView) -> list[str]:
        return []

    @staticmethod
    def barrier_enum(op: OpView) -> Any:
        """The enum of the op-class operand of the barrier form (its trait names the pipeline)."""
        intr = op.spec.intrinsic
        own = [o for ov in (intr.overloads if intr else []) for o in ov.operands if o.kind == "attr"]
        return next((e for e in op.targets.enums if own and e.name == own[0].enum), None)

    # ----------------------------------------------------------------- tests
    @staticmethod
    def _carrier(op: OpView) -> tuple[int, str] | None:
        """(form index, operand) of the form taking an op class as a template argument, if any."""
        for form in op.forms[1:]:
            for t in form.template:
                if t.operand is not None:
                    return form.index, t.operand
        return None

    def plan_tests(self, project: ProjectView, op: OpView, tests: OpTests) -> None:
        """Compile cases only (nothing to compute): per profile, a wait on two events and on none, a
        barrier on the first op class, and one breaking call per rule."""
        events = op.spec.semantics.domain
        contexts = [("RecordEvent", f"{events}0"), ("RecordEvent", f"{events}1")]
        legal = "legal twin: every rule of the profile holds"
        barrier = self._carrier(op)
        enum = self.barrier_enum(op)
        for p in project.profiles:
            prof, low = p.name, p.name.lower()
            found: list[tuple[str, Call, str, Any, list[TileDecl], list[tuple[str, str]]]] = [
                (f"legal_{low}", Call([], [f"{events}0", f"{events}1"]), legal, None, [], contexts),
                (f"legal_{low}_none", Call([], []), legal, None, [], []),
            ]
            if barrier is not None and enum is not None:
                first = f"{enum.name}::{enum.values[0]}"
                found.append((f"legal_{low}_f{barrier[0]}", Call([first], []), legal, None, [], []))
            for rv in op.rules_for(prof, static=True) + op.form_rules_for(prof):
                note = f"breaks rule {rv.id} ({rv.kind}) of the {prof} profile"
                if rv.rule.form_scoped:  # a class the rule does not allow
                    call = Call([rv.rule.breaking_value(op)], [])  # type: ignore[attr-defined]
                    found.append((f"fail_{low}_{rv.id}", call, note, rv, [], []))
                else:  # a tile where an event belongs
                    tile = TileDecl(
                        "not_an_event", op.test_dtypes(prof)[0] if op.test_dtypes(prof) else "float"
                    )
                    found.append((f"fail_{low}_{rv.id}", Call([], [tile.name]), note, rv, [tile], []))
            for fn, call, note, rv, tiles, ctx in found:
                tests.compile.append(
                    CompileCase(fn, prof, rv, rv.id if rv else "legal", tiles, call, note, contexts=ctx)
                )

    def prepare_cases(self, gx: GoldenContext, data: Path) -> list[Check]:
        return []  # compile cases only
