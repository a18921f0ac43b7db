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
from .base import RuleBase, When, when_phrase, with_note
from .page import PageContext, PageLine
from .parts import Broken, Recognised, StaticBreak, TileFilter

if TYPE_CHECKING:
    from ..rule_api import RuleBreak as BreakContext
    from ..rule_api import RuleLowering as RuleView
    from ..rule_api import RuleOp as OpView
    from ..rule_api import TileDecl


class ShapeMultipleRule(RuleBase, Recognised, StaticBreak, TileFilter):
    """`operand`'s template `extent` is a multiple of `multiple`."""

    kind: Literal["shape_multiple"] = "shape_multiple"
    operand: Name
    extent: Literal["Rows", "Cols"]
    multiple: Annotated[int, Field(ge=2, le=1 << 16)]
    when: When | None = Field(
        default=None, description="the rule binds only while a value template parameter has this value"
    )
    page_prefixes: ClassVar[tuple[str, ...]] = ("static multiple:",)

    @property
    def rule_operands(self) -> list[str]:
        return [self.operand]

    def condition(self, op: OpView, rv: RuleView) -> str:
        (t,) = rv.types
        holds = f"{t}::{self.extent} % {self.multiple} == 0"
        return f"(!({self.when.param} == {self.when.equals}) || {holds})" if self.when is not None else holds

    def _when(self, code: bool) -> str:
        return when_phrase(self.when, code)

    def text(self, op: OpView) -> str:
        multiple = f"a multiple of {self.multiple}{self._when(False)}"
        return f"the static {self.extent.lower()} of {self.operand} must be {multiple}"

    def doc(self, op: OpView) -> str:
        return with_note(
            f"Static multiple: `{self.operand}::{self.extent} % {self.multiple} == 0`{self._when(True)}",
            self.note,
        )

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        m = re.match(r"Static multiple: (\w+)::(Rows|Cols) % (\d+) == 0", line.text)
        if m is None or m.group(1) not in page.data or int(m.group(3)) < 2:
            return None
        found: dict[str, Any] = {"operand": m.group(1), "extent": m.group(2), "multiple": int(m.group(3))}
        cond = re.match(r" when (\w+) is ([\w:]+)", line.text[m.end() :])
        if cond is not None:
            found["when"] = {"param": cond.group(1), "equals": cond.group(2)}
        note = re.search(r"\((?P<note>[^()]*)\)\.?$", line.text[m.end() :])
        if note:
            found["note"] = note.group("note").strip()
        return found

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        # Half a multiple more: still whole boxes of a boxed tile (whose extents the plan keeps at
        # multiples of 16 or 32), no longer a multiple of the count. With `when` (under its value),
        # half a multiple less where the tile has it: the extents that form's other rules derive
        # from this one (TQUANT's exponent rows, ceil(Rows / 64)) then keep their value.
        t = tiles[self.operand]
        step = max(1, self.multiple // 2)
        have = t.rows if self.extent == "Rows" else t.cols
        if self.when is not None and have > step:
            step = -step
        grown = replace(t, rows=t.rows + step) if self.extent == "Rows" else replace(t, cols=t.cols + step)
        values = {self.when.param: str(self.when.equals)} if self.when is not None else {}
        return Broken({**tiles, self.operand: grown}, changed=self.operand, values=values)

    def legalise(self, tiles: dict[str, TileDecl]) -> dict[str, TileDecl]:
        # The extent rounded up to the multiple, on every tile that shares it (a source and the
        # destination of one static shape stay alike).
        t = tiles.get(self.operand)
        if t is None:
            return tiles
        have = t.rows if self.extent == "Rows" else t.cols
        want = -(-have // self.multiple) * self.multiple
        if want == have:
            return tiles
        out = dict(tiles)
        for name, u in tiles.items():
            if self.extent == "Rows" and u.rows == have:
                out[name] = replace(u, rows=want)
            elif self.extent == "Cols" and u.cols == have:
                out[name] = replace(u, cols=want)
        return out
