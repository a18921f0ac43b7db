"""Rule kinds of synchronisation: `event_args` (TSYNC's arguments are events) and `pipeline` (an op
class runs on one of some pipelines)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import Field

from ..spec.fields import CppIdent, Name
from .base import Problem, RuleBase, or_list, with_note
from .page import PageContext, PageLine
from .parts import OwnForms, Recognised

if TYPE_CHECKING:
    from ..rule_api import RuleLowering as RuleView
    from ..rule_api import RuleOp as OpView
    from ..rule_api import SpecFacts as OpSpec
    from ..rule_api import TargetFacts as Targets


class EventsRule(RuleBase, Recognised):
    """Every argument of an events operand is an event (TSYNC(events...))."""

    kind: Literal["event_args"] = "event_args"
    operands: list[Name] = Field(min_length=1, max_length=1)
    page_prefixes: ClassVar[tuple[str, ...]] = ("every argument passed as",)

    def check(self, spec: OpSpec, targets: Targets) -> Iterator[Problem]:
        kinds = {o.name: o.kind for o in spec.operands}
        if kinds.get(self.operands[0]) != "events":
            yield ("operands", 0), f"{self.operands[0]!r} is not an `events` operand of this op"

    def condition(self, op: OpView, rv: RuleView) -> str:
        return f"all_events_v<{rv.types[0]}...>"

    def text(self, op: OpView) -> str:
        return f"every argument of {self.operands[0]} must be an event (RecordEvent)"

    def doc(self, op: OpView) -> str:
        return with_note(
            f"Every argument passed as `{self.operands[0]}` must be an event (a `RecordEvent` that an "
            "operation returned)",
            self.note,
        )

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        m = re.match(r"Every argument passed as (\w+) must be an event", line.text)
        return {"operands": [m.group(1)]} if m else None


class PipelineRule(RuleBase, Recognised, OwnForms):
    """An op-class template argument names a class run by one of some pipelines (the `Op` enum's
    `OpPipeEntry` trait in targets.yaml): TSYNC<Op>() on A5 drains MTE2, MTE3 or every pipeline
    only. It checks the declarations whose template carries the operand."""

    kind: Literal["pipeline"] = "pipeline"
    operands: list[Name] = Field(min_length=1, max_length=1, description="the op-class operand")
    pipes: list[CppIdent] = Field(min_length=1, description="the pipelines allowed, e.g. PIPE_MTE2")
    page_prefixes: ClassVar[tuple[str, ...]] = ("the op class ",)

    def _enum(self, spec: OpSpec, targets: Targets) -> Any:
        o = next((o for o in spec.every_operand if o.name == self.operands[0]), None)
        return next((e for e in targets.enums if o is not None and e.name == o.enum), None)

    def check(self, spec: OpSpec, targets: Targets) -> Iterator[Problem]:
        enum = self._enum(spec, targets)
        if enum is None or enum.trait is None:
            yield ("operands", 0), f"{self.operands[0]!r} is no attr operand of an enum with a trait"
            return
        for i, pipe in enumerate(self.pipes):
            if pipe not in {*enum.trait.values.values(), enum.trait.default}:
                yield ("pipes", i), f"{pipe!r} is no value of {enum.trait.name}"

    def in_form(self, form: Any) -> bool:
        return form.carrier(self.operands[0]) is not None

    def condition(self, op: OpView, rv: RuleView) -> str:
        trait = self._enum(op.spec, op.targets).trait
        return " || ".join(f"{trait.name}<{rv.types[0]}>::{trait.member} == {p}" for p in self.pipes)

    def text(self, op: OpView) -> str:
        return f"{self.operands[0]} must name an op class of the {or_list(self.pipes, code=False)} pipeline"

    def doc(self, op: OpView) -> str:
        trait = self._enum(op.spec, op.targets).trait
        return with_note(
            f"The op class `{self.operands[0]}` must run on the {or_list(self.pipes)} "
            f"pipeline (`{trait.name}<{self.operands[0]}>::{trait.member}`)",
            self.note,
        )

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        m = re.match(r"The op class (\w+) must run on the (.*?) pipeline \(", line.text)
        if m is None:
            return None
        return {"operands": [m.group(1)], "pipes": re.findall(r"\w+", m.group(2).replace(" or ", " "))}

    def breaking_value(self, op: OpView) -> str:
        """An enumerator whose class runs on a pipeline the rule does not allow."""
        enum = self._enum(op.spec, op.targets)
        value = next(v for v in enum.values if enum.trait.values.get(v, enum.trait.default) not in self.pipes)
        return f"{enum.name}::{value}"
