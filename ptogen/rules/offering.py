"""Rule kinds on whether and how an op may be called at all: `unavailable` (a profile does not offer
it) and `tmp_required` (a tmp tile must be passed)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from .base import Problem, RuleBase, with_note
from .page import PageContext, PageLine
from .parts import Broken, NotOffered, Recognised, StaticBreak

if TYPE_CHECKING:
    from ..rule_api import RuleBreak as BreakContext
    from ..rule_api import RuleLowering as RuleView
    from ..rule_api import RuleOp as OpView
    from ..rule_api import SpecFacts as OpSpec
    from ..rule_api import TargetFacts as Targets
    from ..rule_api import TileDecl


# The note `doc` appends to the line (`with_note`).
_NOTE = re.compile(r"reject every use \((?P<note>.+)\)\.?$")


class UnavailableRule(RuleBase, Recognised, NotOffered, StaticBreak):
    """The profile does not offer the op: every use is rejected."""

    kind: Literal["unavailable"] = "unavailable"
    page_prefixes: ClassVar[tuple[str, ...]] = ("not offered",)

    def condition(self, op: OpView, rv: RuleView) -> str:
        return f"sim::always_false_v<{op.cpp.dependent_type}>"

    def text(self, op: OpView) -> str:
        return "not available on this target profile"

    def doc(self, op: OpView) -> str:
        return with_note(
            "Not offered: this profile documents no implementation of the op, and the profile checks "
            "reject every use",
            self.note,
        )

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        if not line.low.startswith("not offered") or line.group not in page.profiles:
            return None
        m = _NOTE.search(line.text)
        return {"note": m.group("note")} if m else {}

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        return Broken(dict(tiles))  # any legal use of another profile


class TmpRequiredRule(RuleBase, Recognised, StaticBreak):
    """A tmp tile must be passed (at the head of the events pack, TPRELU's documented form)."""

    kind: Literal["tmp_required"] = "tmp_required"
    page_prefixes: ClassVar[tuple[str, ...]] = ("a tmp tile must be passed",)

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        return {} if line.low.startswith(cls.page_prefixes) else None

    def check(self, spec: OpSpec, targets: Targets) -> Iterator[Problem]:
        yield from super().check(spec, targets)
        if spec.intrinsic is not None and spec.intrinsic.tmp_in_events is None:
            yield ("kind",), "tmp_required needs `intrinsic.tmp_in_events`"

    def condition(self, op: OpView, rv: RuleView) -> str:
        assert op.spec.intrinsic is not None  # check() demands a tile intrinsic
        return f"sim::leads_with_tile_v<{op.spec.intrinsic.template[-1].name}...>"

    def text(self, op: OpView) -> str:
        return "a tmp tile must be passed"

    def doc(self, op: OpView) -> str:
        assert op.spec.intrinsic is not None
        return with_note(
            f"A `{op.spec.intrinsic.tmp_in_events}` tile must be passed "
            "(as the first argument after the documented parameters)",
            self.note,
        )

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        return Broken(dict(tiles), with_tmp=False)
