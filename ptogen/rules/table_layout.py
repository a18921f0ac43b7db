"""Rule kind `table_layout`: a GlobalTensor's layout paired with the layout of the tile it moves to or
from (MGATHER, MSCATTER)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import Field

from ..spec.fields import Name
from .base import Problem, RuleBase, with_note
from .page import PageContext, PageLine
from .parts import Broken, Recognised, StaticBreak, TileFilter

if TYPE_CHECKING:
    from ..rule_api import RuleBreak as BreakContext
    from ..rule_api import RuleLowering as RuleView
    from ..rule_api import RuleOp as OpView
    from ..rule_api import SpecFacts as OpSpec
    from ..rule_api import TargetFacts as Targets
    from ..rule_api import TileDecl

TableLayout = Literal["ND", "DN", "NZ"]
TilePairing = Literal["row_major", "plain", "nz"]

# How each tile pairing reads in C++ (over the tile type T) and in prose.
_PAIRING_CPP = {
    "row_major": "{t}::isRowMajor && !{t}::isBoxedLayout",
    "plain": "!{t}::isBoxedLayout",
    "nz": "!{t}::isRowMajor && {t}::SFractal == SLayout::RowMajor && {t}::SFractalSize == 512 && "
    "{t}::Rows % 16 == 0 && {t}::Cols % (32 / sizeof(typename {t}::DType)) == 0 && "
    "{g}::staticShape[3] == 16 && {g}::staticShape[4] == 32 / sizeof(typename {t}::DType)",
}
_PAIRING_TEXT = {
    "row_major": "Layout::{lay} with a row-major {tile}",
    "plain": "Layout::{lay} with a row- or column-major {tile}",
    "nz": "Layout::{lay} of Shape[3] 16 and Shape[4] 32 bytes with an NZ {tile} (BLayout::ColMajor, "
    "SLayout::RowMajor, 512-byte fractals, whole 16-row, 32-byte boxes)",
}
_PAIRING_DOC = {
    "row_major": "`Layout::{lay}` with a row-major `{tile}` (`BLayout::RowMajor`, `SLayout::NoneBox`)",
    "plain": "`Layout::{lay}` with a row- or column-major `{tile}` (`SLayout::NoneBox`)",
    "nz": "`Layout::{lay}` with `Shape[3] == 16` and `Shape[4] == 32 / sizeof(T)`, with an NZ `{tile}` "
    "(`BLayout::ColMajor`, `SLayout::RowMajor`, `SFractalSize == 512`, `Rows % 16 == 0`, "
    "`Cols * sizeof(T) % 32 == 0`)",
}


class TableLayoutRule(RuleBase, Recognised, StaticBreak, TileFilter):
    """A GlobalTensor operand's layout is one of a list, each paired with the layout the tile it
    moves to or from must have (MGATHER/MSCATTER: an ND table with a plain tile, on A2/A3 also an NZ
    table with an NZ tile)."""

    kind: Literal["table_layout"] = "table_layout"
    operands: list[Name] = Field(min_length=2, max_length=2, description="[the GlobalTensor, the tile]")
    layouts: dict[TableLayout, TilePairing] = Field(
        min_length=1, description="each allowed GlobalTensor layout with the tile layout it pairs with"
    )
    page_prefixes: ClassVar[tuple[str, ...]] = ("the globaltensor ",)

    def check(self, spec: OpSpec, targets: Targets) -> Iterator[Problem]:
        kinds = {o.name: o.kind for o in spec.operands}
        table, tile = self.operands
        if kinds.get(table) != "global":
            yield ("operands", 0), f"{table!r} is not a GlobalTensor (`global`) operand of this op"
        if kinds.get(tile) != "tile":
            yield ("operands", 1), f"{tile!r} is not a tile operand of this op"
        if spec.intrinsic is None:
            yield ("kind",), "table_layout rules apply to tile intrinsics only"

    def admits_layout(self, layout: str) -> bool:
        return layout == "RowMajor" or any(p != "row_major" for p in self.layouts.values())

    def global_layouts(self) -> list[str] | None:
        return list(self.layouts)

    def condition(self, op: OpView, rv: RuleView) -> str:
        g, t = rv.types
        arms = [
            f"({g}::layout == Layout::{lay} && " + _PAIRING_CPP[pair].format(t=t, g=g) + ")"
            for lay, pair in self.layouts.items()
        ]
        return " || ".join(arms)

    def text(self, op: OpView) -> str:
        table, tile = self.operands
        arms = [_PAIRING_TEXT[pair].format(lay=lay, tile=tile) for lay, pair in self.layouts.items()]
        return f"{table} must be " + ", or ".join(arms)

    def doc(self, op: OpView) -> str:
        table, tile = self.operands
        arms = [_PAIRING_DOC[pair].format(lay=lay, tile=tile) for lay, pair in self.layouts.items()]
        return with_note(f"The GlobalTensor `{table}` must be " + "; or ".join(arms), self.note)

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        head = re.match(r"The GlobalTensor (\w+) must be (.*)$", line.text)
        if head is None:
            return None
        phrases = {"a row-major": "row_major", "a row- or column-major": "plain", "an NZ": "nz"}
        layouts: dict[str, str] = {}
        tile = None
        arm_re = r"Layout::(\w+) with (?:.*?, with )?(a row-major|a row- or column-major|an NZ) (\w+)"
        for arm in head.group(2).split("; or "):
            m = re.match(arm_re, arm)
            if m is None:
                return None
            layouts[m.group(1)] = phrases[m.group(2)]
            tile = m.group(3)
        return {"operands": [head.group(1), tile], "layouts": layouts}

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        # DN pairs with nothing in any profile: the table alone breaks the rule.
        return Broken(dict(tiles), global_layouts={self.operands[0]: "DN"})
