"""The `location_pairs` rule kind: the tile locations of a move's source and destination form one
of a profile's allowed (from -> to) pairs.

TMOV states it now and TEXTRACT/TINSERT will state the same tables: the tables live once in an op
class (`specs/classes/tile_move.yaml`), one rule per profile, and every op of that class inherits
them. A profile without such a rule (the CPU simulator, which moves elements between any two
locations) accepts every pair.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import Field

from ..spec.fields import Name, TileLocation
from .base import RuleBase, pairs_line
from .page import PageContext, PageLine
from .parts import Broken, Recognised, StaticBreak, TileFilter

if TYPE_CHECKING:
    from ..rule_api import RuleBreak as BreakContext
    from ..rule_api import RuleLowering as RuleView
    from ..rule_api import RuleOp as OpView
    from ..rule_api import TileDecl

# Every location, in the order the table's complement is searched for a pair that breaks it.
LOCATIONS: tuple[str, ...] = (
    "Vec",
    "Mat",
    "Acc",
    "Left",
    "Right",
    "Bias",
    "Scaling",
    "ScaleLeft",
    "ScaleRight",
)


class LocationPairsRule(RuleBase, Recognised, StaticBreak, TileFilter):
    """`pairs` maps each location the first operand (the source) may have to the locations the
    second (the destination) may have with it."""

    kind: Literal["location_pairs"] = "location_pairs"
    operands: list[Name] = Field(min_length=2, max_length=2, description="[from, to]")
    pairs: dict[TileLocation, list[TileLocation]] = Field(min_length=1)
    page_prefixes: ClassVar[tuple[str, ...]] = ("location pairs (",)

    def _allowed(self) -> set[tuple[str, str]]:
        return {(s, d) for s, ds in self.pairs.items() for d in ds}

    def condition(self, op: OpView, rv: RuleView) -> str:
        a, b = rv.types
        terms = []
        for s, ds in self.pairs.items():
            to = " || ".join(f"{b}::Loc == TileType::{d}" for d in ds)
            terms.append(f"({a}::Loc == TileType::{s} && ({to}))")
        return "(" + " || ".join(terms) + ")"

    def text(self, op: OpView) -> str:
        a, b = self.operands
        return f"the tile locations of {a} and {b} must be one of the profile's move pairs"

    def doc(self, op: OpView) -> str:
        return pairs_line("Location pairs", self.operands, self.pairs.items(), self.note)

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        m = re.match(
            r"Location pairs \((\w+) to (\w+)\): (.+?)\.?\s*(?:\((?P<note>[^()]*)\))?\.?$", line.text
        )
        if m is None:
            return None
        pairs: dict[str, list[str]] = {}
        for part in m.group(3).split("; "):
            source, _, targets = part.partition(" to ")
            pairs[source.strip()] = [t.strip() for t in targets.split(",") if t.strip()]
        found: dict[str, Any] = {"operands": [m.group(1), m.group(2)], "pairs": pairs}
        if m.group("note"):
            found["note"] = m.group("note").strip()
        return found

    def admits_tiles(self, tiles: dict[str, TileDecl]) -> bool:
        a, b = self.operands
        return a not in tiles or b not in tiles or (tiles[a].loc, tiles[b].loc) in self._allowed()

    def legalise(self, tiles: dict[str, TileDecl]) -> dict[str, TileDecl]:
        """Legal tiles keep their locations when the table allows them (Vec -> Vec everywhere)."""
        a, b = self.operands
        if a not in tiles or b not in tiles or (tiles[a].loc, tiles[b].loc) in self._allowed():
            return tiles
        s, ds = next(iter(self.pairs.items()))
        return {**tiles, a: replace(tiles[a], loc=s), b: replace(tiles[b], loc=ds[0])}

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        # Keep the source where it is and move the destination to a location the table does not
        # pair with it (Vec -> Acc on every hardware profile).
        a, b = self.operands
        allowed = self._allowed()
        for d in LOCATIONS:
            if (tiles[a].loc, d) not in allowed:
                return Broken({**tiles, b: replace(tiles[b], loc=d)}, changed=b)
        raise ValueError(
            f"{bx.op.name} [{bx.profile}]: {tiles[a].loc} moves to every location; nothing breaks it"
        )


LOCATION_PAIRS_KINDS: tuple[type[RuleBase], ...] = (LocationPairsRule,)
