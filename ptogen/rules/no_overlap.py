"""Run-time rule kind `no_overlap`: operands occupy disjoint buffer ranges."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from ..spec.fields import Name
from .base import RuleBase, and_list, conj, with_note
from .page import PageContext, PageLine
from .parts import Recognised, RuntimeCheck

if TYPE_CHECKING:
    from ..rule_api import RuleLowering as RuleView
    from ..rule_api import RuleOp as OpView
    from ..rule_api import TileDecl


class NoOverlapRule(RuleBase, Recognised, RuntimeCheck):
    """The operands occupy disjoint buffer ranges (checked when the op runs)."""

    kind: Literal["no_overlap"] = "no_overlap"
    operands: list[Name] = Field(min_length=2)

    def condition(self, op: OpView, rv: RuleView) -> str:
        pairs = [
            f"!sim::tiles_overlap({a}, {b})"
            for i, a in enumerate(self.operands)
            for b in self.operands[i + 1 :]
        ]
        return conj(pairs)

    def text(self, op: OpView) -> str:
        return f"{and_list(self.operands, code=False)} must not overlap in memory"

    def doc(self, op: OpView) -> str:
        return with_note(
            f"Runtime: {and_list(self.operands)} must occupy different memory ranges without overlapping",
            self.note,
        )

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        if line.low.startswith("runtime:") and "without overlapping" in line.low:
            return {"operands": page.named(line.text.split(":", 1)[1]) or page.data}
        return None

    def break_runtime(
        self, tiles: dict[str, TileDecl], addresses: dict[str, int]
    ) -> tuple[dict[str, TileDecl], dict[str, int]]:
        first, second = self.operands[0], self.operands[1]
        return tiles, {**addresses, first: addresses[second]}
