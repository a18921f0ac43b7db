"""Rule kind `locations`: a tile operand lives in one of several tile locations (TileType), as
TLOAD's destination does (`Vec` or `Mat` on A2A3) and TSTORE's source (`Vec`, `Mat` or `Acc`).
The one-location case is `location` (tile_layout.py)."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import Field

from ..spec.fields import Name, TileLocation
from .base import RuleBase, conj, free_location, or_list, with_note
from .page import PageContext, PageLine
from .parts import Broken, Recognised, StaticBreak, TileFilter, form_scoped

if TYPE_CHECKING:
    from ..rule_api import RuleBreak as BreakContext
    from ..rule_api import RuleLowering as RuleView
    from ..rule_api import RuleOp as OpView
    from ..rule_api import TileDecl


class LocationsRule(RuleBase, Recognised, StaticBreak, TileFilter):
    """The operands each live in one of `locations`."""

    kind: Literal["locations"] = "locations"
    operands: list[Name] = Field(min_length=1)
    locations: list[TileLocation] = Field(min_length=2, description="the admitted locations, in page order")
    page_prefixes: ClassVar[tuple[str, ...]] = ("tile location is one of",)

    def condition(self, op: OpView, rv: RuleView) -> str:
        def one_of(t: str) -> str:
            return "(" + " || ".join(f"{t}::Loc == TileType::{loc}" for loc in self.locations) + ")"

        return conj([one_of(t) for t in rv.types])

    def text(self, op: OpView) -> str:
        return "tile location must be one of " + ", ".join(f"TileType::{loc}" for loc in self.locations)

    def doc(self, op: OpView) -> str:
        listed = or_list([f"`TileType::{loc}`" for loc in self.locations], code=False)
        return with_note(f"Tile location is one of: {listed} (`{', '.join(self.operands)}`)", self.note)

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        m = re.match(r"Tile location is one of: (.+?) \(([\w, ]+)\)(?:\s*\((?P<note>.*)\))?\.?$", line.text)
        if m is None:
            return None
        locations = re.findall(r"TileType::(\w+)", m.group(1))
        operands = [o.strip() for o in m.group(2).split(",")]
        found: dict[str, Any] = {"operands": operands, "locations": locations}
        if m.group("note"):
            found["note"] = m.group("note")
        return found

    def legalise(self, tiles: dict[str, TileDecl]) -> dict[str, TileDecl]:
        return {
            n: t if n not in self.operands or t.loc in self.locations else replace(t, loc=self.locations[0])
            for n, t in tiles.items()
        }

    def admits_location(self, operand: str, location: str) -> bool:
        return form_scoped(self) or operand not in self.operands or location in self.locations

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        first = self.operands[0]
        other = free_location(bx, self, first, list(self.locations))
        return Broken({**tiles, first: replace(tiles[first], loc=other)}, changed=first)


LOCATION_KINDS: tuple[type[RuleBase], ...] = (LocationsRule,)
