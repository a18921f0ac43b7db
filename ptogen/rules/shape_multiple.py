"""`shape_multiple`: a tile's template `Rows` or `Cols` is a multiple of a count, e.g. the MX products'
`a` (`TileLeft::Cols`, k as stored) in whole groups of 64, two 32-element scale groups. Checked by
`static_assert` on the tile's type (valid extents may be dynamic; `valid_multiple` states those);
the failing kernel widens the tile by half the count."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal

from pydantic import Field

from ..spec.fields import Name
from .base import Broken, PageContext, PageLine, RuleBase, _with_note

if TYPE_CHECKING:
    from ..rule_api import RuleBreak as BreakContext
    from ..rule_api import RuleLowering as RuleView
    from ..rule_api import RuleOp as OpView
    from ..rule_api import TileDecl


class ShapeMultipleRule(RuleBase):
    """`operand`'s template `extent` is a multiple of `multiple`."""

    kind: Literal["shape_multiple"] = "shape_multiple"
    operand: Name
    extent: Literal["Rows", "Cols"]
    multiple: Annotated[int, Field(ge=2, le=1 << 16)]
    page_prefixes: ClassVar[tuple[str, ...]] = ("static multiple:",)

    @property
    def rule_operands(self) -> list[str]:
        return [self.operand]

    def condition(self, op: OpView, rv: RuleView) -> str:
        (t,) = rv.types
        return f"{t}::{self.extent} % {self.multiple} == 0"

    def text(self, op: OpView) -> str:
        return f"the static {self.extent.lower()} of {self.operand} must be a multiple of {self.multiple}"

    def doc(self, op: OpView) -> str:
        return _with_note(
            f"Static multiple: `{self.operand}::{self.extent} % {self.multiple} == 0`", self.note
        )

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        m = re.match(r"Static multiple: (\w+)::(Rows|Cols) % (\d+) == 0", line.text)
        if m is None or m.group(1) not in page.data or int(m.group(3)) < 2:
            return None
        found: dict[str, Any] = {"operand": m.group(1), "extent": m.group(2), "multiple": int(m.group(3))}
        note = re.search(r"\((?P<note>[^()]*)\)\.?$", line.text[m.end() :])
        if note:
            found["note"] = note.group("note").strip()
        return found

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        # Half a multiple more: still whole boxes of a boxed tile (whose extents the plan keeps at
        # multiples of 16 or 32), no longer a multiple of the count.
        t = tiles[self.operand]
        step = max(1, self.multiple // 2)
        grown = replace(t, rows=t.rows + step) if self.extent == "Rows" else replace(t, cols=t.cols + step)
        return Broken({**tiles, self.operand: grown}, changed=self.operand)
