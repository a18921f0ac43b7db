"""`derived_extent`: a tile's template `Rows` or `Cols` follows from another tile's: that extent
times `times`, divided by `per` rounded up, then rounded up to a multiple of `align`, optionally
only while a value template parameter has one value. TQUANT's interleave form: `exp::Rows ==
ceil(src::Rows / 64)` and `exp::Cols == align32(2 * src::Cols)`. Checked by `static_assert`."""

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

Count = Annotated[int, Field(ge=1, le=1 << 16)]


class DerivedExtentRule(RuleBase, Recognised, StaticBreak, TileFilter):
    """`operand::extent == align(ceil(of::of_extent * times / per), align)`."""

    kind: Literal["derived_extent"] = "derived_extent"
    operand: Name
    extent: Literal["Rows", "Cols"]
    of: Name = Field(description="the tile whose extent it follows")
    of_extent: Literal["Rows", "Cols"]
    times: Count = 1
    per: Count = Field(default=1, description="divided by this, rounded up")
    align: Count = Field(default=1, description="then rounded up to a multiple of this")
    when: When | None = Field(
        default=None, description="the rule binds only while a value template parameter has this value"
    )
    page_prefixes: ClassVar[tuple[str, ...]] = ("static derived shape:",)

    @property
    def rule_operands(self) -> list[str]:
        return [self.operand, self.of]

    def _formula(self, of: str) -> str:
        """The C++ (and page) spelling of the wanted extent, over `of` (the other extent)."""
        value = f"{of} * {self.times}" if self.times > 1 else of
        if self.per > 1:
            value = f"({value} + {self.per - 1}) / {self.per}"
        if self.align > 1:
            value = f"({value} + {self.align - 1}) / {self.align} * {self.align}"
        return value

    def want(self, of: int) -> int:
        value = -(-of * self.times // self.per)
        return -(-value // self.align) * self.align

    def condition(self, op: OpView, rv: RuleView) -> str:
        t, o = rv.types
        holds = f"{t}::{self.extent} == {self._formula(f'{o}::{self.of_extent}')}"
        return f"(!({self.when.param} == {self.when.equals}) || {holds})" if self.when is not None else holds

    def _spelled(self, code: bool = False) -> str:
        """The wanted extent in words the pages keep (no `*`, which a page reader drops as
        emphasis): `src::Cols, times 2, rounded up to a multiple of 32`."""
        tick = "`" if code else ""
        parts = [f"{tick}{self.of}::{self.of_extent}{tick}"]
        if self.times > 1:
            parts.append(f"times {self.times}")
        if self.per > 1:
            parts.append(f"divided by {self.per} rounded up")
        if self.align > 1:
            parts.append(f"rounded up to a multiple of {self.align}")
        return ", ".join(parts)

    def _when(self, code: bool) -> str:
        return when_phrase(self.when, code)

    def text(self, op: OpView) -> str:
        return f"{self.operand}::{self.extent} must be {self._spelled()}{self._when(False)}"

    def doc(self, op: OpView) -> str:
        wanted = f"{self._spelled(True)}{self._when(True)}"
        line = f"Static derived shape: `{self.operand}::{self.extent}` is {wanted}"
        return with_note(line, self.note)

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        m = re.match(
            r"Static derived shape: (\w+)::(Rows|Cols) is (\w+)::(Rows|Cols)"
            r"(?:, times (?P<times>\d+))?(?:, divided by (?P<per>\d+) rounded up)?"
            r"(?:, rounded up to a multiple of (?P<align>\d+))?"
            r"(?: when (?P<param>\w+) is (?P<value>[\w:]+))?\.?\s*(?:\((?P<note>[^()]*)\))?",
            line.text,
        )
        if m is None or not {m.group(1), m.group(3)} <= set(page.data):
            return None
        found: dict[str, Any] = {
            "operand": m.group(1),
            "extent": m.group(2),
            "of": m.group(3),
            "of_extent": m.group(4),
        }
        for key in ("times", "per", "align"):
            if m.group(key):
                found[key] = int(m.group(key))
        if m.group("param"):
            found["when"] = {"param": m.group("param"), "equals": m.group("value")}
        if m.group("note"):
            found["note"] = m.group("note").strip()
        return found

    def _resized(self, t: TileDecl, size: int) -> TileDecl:
        if self.extent == "Rows":
            return replace(t, rows=size, valid_rows=min(t.valid_rows, size))
        return replace(t, cols=size, valid_cols=min(t.valid_cols, size))

    def legalise(self, tiles: dict[str, TileDecl]) -> dict[str, TileDecl]:
        if self.operand not in tiles or self.of not in tiles:
            return tiles
        o = tiles[self.of]
        want = self.want(o.rows if self.of_extent == "Rows" else o.cols)
        return {**tiles, self.operand: self._resized(tiles[self.operand], want)}

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        # One `align` step (at least one row or column) more than the rule wants, under its value.
        t = tiles[self.operand]
        have = t.rows if self.extent == "Rows" else t.cols
        grown = self._resized(t, have + self.align)
        values = {self.when.param: str(self.when.equals)} if self.when is not None else {}
        return Broken({**tiles, self.operand: grown}, changed=self.operand, values=values)
