"""Rule kinds on how tiles are laid out and where they live: `row_major`, `location` (one TileType)
and `same_storage` (a view laid out as the tile it views)."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import Field

from ..spec.fields import Name
from .base import RuleBase, conj, free_location, with_note
from .page import PageContext, PageLine
from .parts import Broken, Placed, Recognised, StaticBreak, TileFilter, form_scoped

if TYPE_CHECKING:
    from ..rule_api import RuleBreak as BreakContext
    from ..rule_api import RuleLowering as RuleView
    from ..rule_api import RuleOp as OpView
    from ..rule_api import TileDecl


class RowMajorRule(RuleBase, Recognised, Placed, StaticBreak, TileFilter):
    """The operands' tile layout is row-major."""

    kind: Literal["row_major"] = "row_major"
    operands: list[Name] = Field(min_length=1)
    page_prefixes: ClassVar[tuple[str, ...]] = ("tile layout",)

    def admits_layout(self, layout: str) -> bool:
        return layout == "RowMajor"

    def placement(self) -> tuple[str, str] | None:
        return ("Layout", "row-major")

    def condition(self, op: OpView, rv: RuleView) -> str:
        return conj([f"{t}::isRowMajor" for t in rv.types])

    def text(self, op: OpView) -> str:
        return "tile layout must be row-major"

    def doc(self, op: OpView) -> str:
        return with_note("Tile layout must be row-major (`TileData::isRowMajor`)", self.note)

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        return {"operands": page.data} if line.low.startswith("tile layout must be row-major") else None

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        first = self.operands[0]
        tile = tiles[first]
        # A one-row tile (a bias) cannot be plain column-major (its column would be under 32 bytes,
        # which the Tile type refuses): it breaks the rule as column-major boxes instead.
        broken = (
            replace(tile, layout="ColMajor", slayout="RowMajor")
            if tile.rows == 1
            else replace(tile, layout="ColMajor")
        )
        return Broken({**tiles, first: broken}, changed=first)


Location = Literal["Vec", "Mat", "Left", "Right", "Acc", "Bias"]


class LocationRule(RuleBase, Recognised, Placed, StaticBreak, TileFilter):
    """The operands live in one tile location (TileType)."""

    kind: Literal["location"] = "location"
    operands: list[Name] = Field(min_length=1)
    location: Location
    page_prefixes: ClassVar[tuple[str, ...]] = ("tile location",)

    def placement(self) -> tuple[str, str] | None:
        return ("Location", self.location)

    def condition(self, op: OpView, rv: RuleView) -> str:
        return conj([f"{t}::Loc == TileType::{self.location}" for t in rv.types])

    def text(self, op: OpView) -> str:
        return f"tile location must be TileType::{self.location}"

    def doc(self, op: OpView) -> str:
        where = "vector" if self.location == "Vec" else f"`{self.location}`"
        return with_note(
            f"Tile location must be {where} (`TileData::Loc == TileType::{self.location}`)", self.note
        )

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        m = re.match(r"Tile location must be (?:vector|\w+) \(TileData::Loc == TileType::(\w+)\)", line.text)
        if m is None:
            return None
        found: dict[str, Any] = {"operands": page.data, "location": m.group(1)}
        note = re.match(r".*?\)\s*\((?P<note>.*)\)\.?$", line.text)
        if note:
            found["note"] = note.group("note")
        return found

    def legalise(self, tiles: dict[str, TileDecl]) -> dict[str, TileDecl]:
        return {n: replace(t, loc=self.location) if n in self.operands else t for n, t in tiles.items()}

    def admits_location(self, operand: str, location: str) -> bool:
        return form_scoped(self) or operand not in self.operands or location == self.location

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        first = self.operands[0]
        other = free_location(bx, self, first, [self.location])
        return Broken({**tiles, first: replace(tiles[first], loc=other)}, changed=first)




class SameStorageRule(RuleBase, Recognised, StaticBreak):
    """Two tiles lay out storage the same way (TileType, BLayout, SLayout and strides), so that one
    can be a view into the other's storage (TSUBVIEW): element (i, j) of the view is then element
    (row + i, col + j) of the viewed tile."""

    kind: Literal["same_storage"] = "same_storage"
    operands: list[Name] = Field(min_length=2, max_length=2)
    page_prefixes: ClassVar[tuple[str, ...]] = ("the tiles ",)

    def condition(self, op: OpView, rv: RuleView) -> str:
        a, b = rv.types
        return conj(
            [
                f"{a}::Loc == {b}::Loc",
                f"{a}::isRowMajor == {b}::isRowMajor",
                f"{a}::SFractal == {b}::SFractal",
                f"{a}::RowStride == {b}::RowStride",
                f"{a}::ColStride == {b}::ColStride",
            ]
        )

    def text(self, op: OpView) -> str:
        a, b = self.operands
        return f"{a} and {b} must have the same TileType, layout and strides"

    def doc(self, op: OpView) -> str:
        a, b = self.operands
        return with_note(
            f"The tiles `{a}` and `{b}` must have the same `TileType`, layout (`BLayout`, `SLayout`) and "
            f"strides (`RowStride`, `ColStride`), so that `{a}` reads `{b}`'s storage as `{b}` lays it out",
            self.note,
        )

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        m = re.match(r"The tiles (\w+) and (\w+) must have the same TileType, layout", line.text)
        return {"operands": [m.group(1), m.group(2)]} if m else None

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        # Wider rows: a row-major tile's RowStride changes, its TileType and layout do not.
        first = self.operands[0]
        t = tiles[first]
        return Broken({**tiles, first: replace(t, cols=t.cols + 16)}, changed=first)
