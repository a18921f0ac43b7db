"""`valid_multiple`: a tile's valid rows or columns are a multiple of a count when the op runs, e.g.
TINTERLEAVE's even valid columns on A5 (the interleaved stream splits at a pair boundary), or, with
`unit: bytes`, span a multiple of a number of bytes (TGATHERB's rows of whole 32-byte blocks).
Checked in the simulator (valid shapes may be dynamic)."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal

from pydantic import Field

from ..rule_api import ELEMENT_BYTES
from ..spec.fields import Name
from .base import RuleBase, with_note
from .page import PageContext, PageLine
from .parts import Recognised, RuntimeCheck, TileFilter

if TYPE_CHECKING:
    from ..rule_api import RuleLowering as RuleView
    from ..rule_api import RuleOp as OpView
    from ..rule_api import TileDecl


class ValidMultipleRule(RuleBase, Recognised, RuntimeCheck, TileFilter):
    """`operand`'s valid `extent` is a multiple of `multiple`."""

    kind: Literal["valid_multiple"] = "valid_multiple"
    operand: Name
    extent: Literal["rows", "cols"]
    multiple: Annotated[int, Field(ge=2, le=1 << 16)]
    unit: Literal["elements", "bytes"] = Field(
        default="elements", description="bytes: the extent times the element size is the multiple"
    )
    page_prefixes: ClassVar[tuple[str, ...]] = ("runtime multiple:",)

    @property
    def rule_operands(self) -> list[str]:
        return [self.operand]

    def _value(self) -> str:
        return f"{self.operand}.{'GetValidRow' if self.extent == 'rows' else 'GetValidCol'}()"

    def condition(self, op: OpView, rv: RuleView) -> str:
        if self.unit == "bytes":
            return f"{self._value()} * sizeof(typename {rv.types[0]}::DType) % {self.multiple} == 0"
        return f"{self._value()} % {self.multiple} == 0"

    def text(self, op: OpView) -> str:
        if self.unit == "bytes":
            return f"the valid {self.extent} of {self.operand} must span a multiple of {self.multiple} bytes"
        return f"the valid {self.extent} of {self.operand} must be a multiple of {self.multiple}"

    def doc(self, op: OpView) -> str:
        size = " * sizeof(DType)" if self.unit == "bytes" else ""
        return with_note(f"Runtime multiple: `{self._value()}{size} % {self.multiple} == 0`", self.note)

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        m = re.match(
            r"Runtime multiple: (\w+)\.(GetValidRow|GetValidCol)\(\)(?P<bytes>\s*\*?\s*sizeof\(DType\))?"
            r" % (\d+) == 0"
            r"\.?\s*(?:\((?P<note>[^()]*)\))?",
            line.text,
        )
        if m is None or m.group(1) not in page.data:
            return None
        found: dict[str, Any] = {
            "operand": m.group(1),
            "extent": "rows" if m.group(2) == "GetValidRow" else "cols",
            "multiple": int(m.group(4)),
        }
        if m.group("bytes"):
            found["unit"] = "bytes"
        if m.group("note"):
            found["note"] = m.group("note").strip()
        return found

    def _extent(self, t: TileDecl) -> int:
        return t.valid_rows if self.extent == "rows" else t.valid_cols

    def _step(self, tiles: dict[str, TileDecl]) -> int:
        """The multiple in elements of the operand's type (whole elements at least)."""
        t = tiles.get(self.operand)
        if self.unit == "elements" or t is None:
            return self.multiple
        return max(1, self.multiple // ELEMENT_BYTES.get(t.dtype, 1))

    def admits_tiles(self, tiles: dict[str, TileDecl]) -> bool:
        t = tiles.get(self.operand)
        return t is None or self._extent(t) % self._step(tiles) == 0

    def legalise(self, tiles: dict[str, TileDecl]) -> dict[str, TileDecl]:
        step = self._step(tiles)
        return self._set(tiles, lambda have: have - have % step or step)

    def break_runtime(
        self, tiles: dict[str, TileDecl], addresses: dict[str, int]
    ) -> tuple[dict[str, TileDecl], dict[str, int]]:
        # One fewer: every tile that shares the operand's extent shrinks with it, so that rules
        # tying their valid shapes (TINTERLEAVE's `same_valid_shape`) still hold.
        return self._set(tiles, lambda have: have - 1 if have > 1 else have + 1), addresses

    def _set(self, tiles: dict[str, TileDecl], change: Any) -> dict[str, TileDecl]:
        t = tiles.get(self.operand)
        if t is None:
            return tiles
        have = self._extent(t)
        want = change(have)
        if want == have:
            return tiles
        field = "valid_rows" if self.extent == "rows" else "valid_cols"
        limit = "rows" if self.extent == "rows" else "cols"
        out = dict(tiles)
        for name, u in tiles.items():
            if self._extent(u) == have and getattr(u, limit) >= want:
                out[name] = replace(u, **{field: want})
        return out
