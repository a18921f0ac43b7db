"""`same_bytes`: two tiles span the same number of bytes (`sizeof(DType) * Numel`), so that one can
be a view of the other's storage under another shape or element type (TRESHAPE). Checked by
`static_assert` on the tiles' types."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import Field

from ..spec.fields import Name
from .base import RuleBase, with_note
from .page import PageContext, PageLine
from .parts import Broken, Recognised, StaticBreak

if TYPE_CHECKING:
    from ..rule_api import RuleBreak as BreakContext
    from ..rule_api import RuleLowering as RuleView
    from ..rule_api import RuleOp as OpView
    from ..rule_api import TileDecl


class SameBytesRule(RuleBase, Recognised, StaticBreak):
    """The two tiles' whole storage (every element, valid or not) has one size in bytes."""

    kind: Literal["same_bytes"] = "same_bytes"
    operands: list[Name] = Field(min_length=2, max_length=2)
    page_prefixes: ClassVar[tuple[str, ...]] = ("total byte size",)

    def condition(self, op: OpView, rv: RuleView) -> str:
        a, b = rv.types
        return f"sizeof(typename {a}::DType) * {a}::Numel == sizeof(typename {b}::DType) * {b}::Numel"

    def text(self, op: OpView) -> str:
        a, b = self.operands
        return f"{a} and {b} must span the same number of bytes (sizeof(DType) * Numel)"

    def doc(self, op: OpView) -> str:
        a, b = self.operands
        return with_note(
            "Total byte size must match: "
            f"`sizeof({a}::DType) * {a}::Numel == sizeof({b}::DType) * {b}::Numel`",
            self.note,
        )

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        if not line.low.startswith("total byte size"):
            return None
        names = re.findall(r"sizeof\((\w+)::DType\)", line.text)
        if len(names) != 2 or set(names) - set(page.data):
            return None
        return {"operands": names}

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        # Double the first operand's rows: its storage grows, the other's stays.
        first = self.operands[0]
        t = tiles[first]
        return Broken({**tiles, first: replace(t, rows=t.rows * 2)}, changed=first)
