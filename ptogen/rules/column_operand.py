"""`column_operand`: of two sources, one must be column-major (the TROWEXPAND* scratch-tile
overload's Mode 1: the per-row operand is one column, column-major; the full-sized source is
row-major by `broadcast_role`). A compile-time check over the two tile types; which of the two
is the per-row operand is decided when the op runs."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import Field

from ..spec.fields import Name
from .base import RuleBase, with_note
from .page import PageContext, PageLine
from .parts import Broken, Recognised, StaticBreak, TileFilter

if TYPE_CHECKING:
    from ..rule_api import RuleBreak as BreakContext
    from ..rule_api import RuleLowering as RuleView
    from ..rule_api import RuleOp as OpView
    from ..rule_api import TileDecl


class ColumnOperandRule(RuleBase, Recognised, StaticBreak, TileFilter):
    """One of `operands` (two sources) is column-major."""

    kind: Literal["column_operand"] = "column_operand"
    operands: list[Name] = Field(min_length=2, max_length=2)
    page_prefixes: ClassVar[tuple[str, ...]] = ("one of the sources is column-major",)

    def condition(self, op: OpView, rv: RuleView) -> str:
        a, b = rv.types
        return f"!({a}::isRowMajor && {b}::isRowMajor)"

    def text(self, op: OpView) -> str:
        a, b = self.operands
        return f"one of {a} and {b} must be column-major (the per-row operand of one column)"

    def doc(self, op: OpView) -> str:
        a, b = self.operands
        return with_note(
            f"One of the sources is column-major: `{a}` or `{b}`, the per-row operand of one valid "
            "column (the pages' Mode 1)",
            self.note,
        )

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        if not line.low.startswith(cls.page_prefixes):
            return None
        named = list(dict.fromkeys(page.named(line.text)))
        return {"operands": named[:2]} if len(named) >= 2 else None

    def legalise(self, tiles: dict[str, TileDecl]) -> dict[str, TileDecl]:
        a, b = self.operands
        if a not in tiles or b not in tiles or tiles[a].layout != "RowMajor" or tiles[b].layout != "RowMajor":
            return tiles
        return {**tiles, b: replace(tiles[b], layout="ColMajor", valid_cols=1)}

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        # Both sources row-major: the per-row one a 32-byte block (Mode 2, legal without tmp).
        a, b = self.operands
        per_row = b if tiles[b].layout == "ColMajor" else a
        t = tiles[per_row]
        block = max(1, 32 // max(1, _size(t.dtype)))
        broken = replace(t, layout="RowMajor", cols=max(t.cols, block), valid_cols=block)
        return Broken({**tiles, per_row: broken}, changed=per_row)


def _size(dtype: str) -> int:
    from ..rule_api import ELEMENT_BYTES

    return ELEMENT_BYTES.get(dtype, 4)
