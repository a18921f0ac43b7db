"""`valid_range`: a tile's valid rows or columns lie within [min, max] when the op runs, e.g. a
matrix product's m, k and n in [1, 4095]. Checked in the simulator (valid shapes may be dynamic)."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal

from pydantic import Field, model_validator

from ..spec.fields import Name
from .base import RuleBase, with_note
from .page import PageContext, PageLine
from .parts import Recognised, RuntimeCheck, TileFilter

if TYPE_CHECKING:
    from ..rule_api import RuleLowering as RuleView
    from ..rule_api import RuleOp as OpView
    from ..rule_api import TileDecl

Bound = Annotated[int, Field(ge=0, le=1 << 20)]


class ValidRangeRule(RuleBase, Recognised, RuntimeCheck, TileFilter):
    """`operand`'s valid `extent` is at least `min` and at most `max`."""

    kind: Literal["valid_range"] = "valid_range"
    operand: Name
    extent: Literal["rows", "cols"]
    min: Bound
    max: Bound
    label: Annotated[str, Field(pattern=r"^[a-z]$")] | None = Field(
        default=None, description="the letter the pages call this extent, e.g. `k`"
    )
    page_prefixes: ClassVar[tuple[str, ...]] = ("runtime range:",)

    @model_validator(mode="after")
    def _ordered(self) -> ValidRangeRule:
        if self.min > self.max:
            raise ValueError(f"min {self.min} is above max {self.max}")
        return self

    @property
    def rule_operands(self) -> list[str]:
        return [self.operand]

    def _value(self) -> str:
        return f"{self.operand}.{'GetValidRow' if self.extent == 'rows' else 'GetValidCol'}()"

    def condition(self, op: OpView, rv: RuleView) -> str:
        if self.min == self.max:
            return f"{self._value()} == {self.min}"
        return f"{self._value()} >= {self.min} && {self._value()} <= {self.max}"

    def _span(self) -> str:
        return f"{self.min}" if self.min == self.max else f"[{self.min}, {self.max}]"

    def text(self, op: OpView) -> str:
        named = f" ({self.label})" if self.label else ""
        verb = "must be" if self.min == self.max else "must lie in"
        return f"the valid {self.extent} of {self.operand}{named} {verb} {self._span()}"

    def doc(self, op: OpView) -> str:
        named = f" ({self.label})" if self.label else ""
        verb = "is" if self.min == self.max else "in"
        return with_note(f"Runtime range: `{self._value()}`{named} {verb} {self._span()}", self.note)

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        m = re.match(
            r"Runtime range: (\w+)\.(GetValidRow|GetValidCol)\(\)(?: \((\w)\))? "
            r"(?:in \[(\d+), (\d+)\]|is (\d+))\.?\s*(?:\((?P<note>[^()]*)\))?",
            line.text,
        )
        if m is None or m.group(1) not in page.data:
            return None
        lo, hi = (m.group(4), m.group(5)) if m.group(4) else (m.group(6), m.group(6))
        found: dict[str, Any] = {
            "operand": m.group(1),
            "extent": "rows" if m.group(2) == "GetValidRow" else "cols",
            "min": int(lo),
            "max": int(hi),
        }
        if m.group(3):
            found["label"] = m.group(3)
        if m.group("note"):
            found["note"] = m.group("note").strip()
        return found

    def legalise(self, tiles: dict[str, TileDecl]) -> dict[str, TileDecl]:
        t = tiles.get(self.operand)
        if t is None:
            return tiles
        rows = self.extent == "rows"
        have = t.valid_rows if rows else t.valid_cols
        want = min(max(have, self.min), self.max)
        if want == have:
            return tiles
        return {**tiles, self.operand: replace(t, valid_rows=want) if rows else replace(t, valid_cols=want)}

    def break_runtime(
        self, tiles: dict[str, TileDecl], addresses: dict[str, int]
    ) -> tuple[dict[str, TileDecl], dict[str, int]]:
        # One above the maximum when the tile holds that many (a wider range of the same extent,
        # [1, 4095] around a [1, 1], then still holds), else one below the minimum.
        t = tiles[self.operand]
        rows = self.extent == "rows"
        limit = t.rows if rows else t.cols
        value = self.max + 1 if self.max + 1 <= limit or self.min == 0 else self.min - 1
        if value > limit:
            t = replace(t, rows=value) if rows else replace(t, cols=value)
        broken = (
            replace(t, valid_rows=value, dynamic=True) if rows else replace(t, valid_cols=value, dynamic=True)
        )
        return {**tiles, self.operand: broken}, addresses
