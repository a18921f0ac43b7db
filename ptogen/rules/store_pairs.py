"""Rule kind `location_dtype_pairs`: when a tile operand lives in one location (an accumulator,
`Acc`), its element type and a GlobalTensor's form one of a table of pairs; in any other location
the rule says nothing. TSTORE's accumulator stores convert `float` to `half` or `bfloat16_t`, and
their quantising declarations `float` to `int8_t`, as each page's table lists."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import Field

from ..spec.fields import Name, TileLocation, TypeName
from .base import Problem, with_note
from .dtype_relations import DTypePairsRule
from .page import PageContext, PageLine
from .parts import Broken, TileFilter

if TYPE_CHECKING:
    from ..rule_api import RuleBreak as BreakContext
    from ..rule_api import RuleLowering as RuleView
    from ..rule_api import RuleOp as OpView
    from ..rule_api import SpecFacts as OpSpec
    from ..rule_api import TargetFacts as Targets
    from ..rule_api import TileDecl


class LocationDTypePairsRule(DTypePairsRule, TileFilter):
    """`operands` is [tile, GlobalTensor]: a tile in `location` and the GlobalTensor have element
    types `pairs` lists."""

    kind: Literal["location_dtype_pairs"] = "location_dtype_pairs"  # type: ignore[assignment]
    operands: list[Name] = Field(min_length=2, max_length=2, description="[tile, GlobalTensor]")
    location: TileLocation
    pairs: dict[TypeName, list[TypeName]] = Field(min_length=1)
    page_prefixes: ClassVar[tuple[str, ...]] = ("type pairs of a tile in ",)

    def check(self, spec: OpSpec, targets: Targets) -> Iterator[Problem]:
        kinds = {o.name: o.kind for o in spec.operands}
        tile, glob = self.operands
        if kinds.get(tile) != "tile":
            yield ("operands", 0), f"{tile!r} is not a tile operand of this op"
        if kinds.get(glob) != "global":
            yield ("operands", 1), f"{glob!r} is not a GlobalTensor (`global`) operand of this op"
        yield from ((where, text) for where, text in super().check(spec, targets) if where[0] != "operands")

    def condition(self, op: OpView, rv: RuleView) -> str:
        tile = rv.types[0]
        return f"({tile}::Loc != TileType::{self.location} || {super().condition(op, rv)})"

    def text(self, op: OpView) -> str:
        a, b = self.operands
        return f"a TileType::{self.location} {a} and {b} must have one of the documented element type pairs"

    def doc(self, op: OpView) -> str:
        a, b = self.operands
        listed = "; ".join(f"`{s}` to {', '.join(f'`{d}`' for d in ds)}" for s, ds in self.pairs.items())
        return with_note(f"Type pairs of a tile in `{self.location}` (`{a}` to `{b}`): {listed}", self.note)

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        m = re.match(
            r"Type pairs of a tile in (\w+) \((\w+) to (\w+)\): (.+?)\.?\s*(?:\((?P<note>[^()]*)\))?\.?$",
            line.text,
        )
        if m is None:
            return None
        pairs: dict[str, list[str]] = {}
        for part in m.group(4).split("; "):
            source, _, targets = part.partition(" to ")
            pairs[source.strip()] = [t.strip() for t in targets.split(",") if t.strip()]
        found: dict[str, Any] = {"operands": [m.group(2), m.group(3)], "location": m.group(1), "pairs": pairs}
        if m.group("note"):
            found["note"] = m.group("note").strip()
        return found

    def admits(self, op: OpView, combo: dict[str, str]) -> bool:
        return True  # element types alone do not say where the tile lives

    def legalise(self, tiles: dict[str, TileDecl]) -> dict[str, TileDecl]:
        tile = self.operands[0]
        if tile not in tiles:
            return tiles
        return {**tiles, tile: replace(tiles[tile], loc=self.location, dtype=next(iter(self.pairs)))}

    def global_dtypes(self, tiles: dict[str, TileDecl]) -> dict[str, str]:
        tile, glob = self.operands
        t = tiles.get(tile)
        if t is None or t.loc != self.location or t.dtype not in self.pairs:
            return {}
        return {glob: self.pairs[t.dtype][0]}

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        # A tile in the location whose element type (the GlobalTensor's too) heads no pair.
        tile = self.operands[0]
        allowed = bx.op.operand_dtypes(bx.profile, tile) or [d.name for d in bx.op.targets.dtypes]
        table = self._table(bx.op)
        for d in allowed:
            if d not in table:
                return Broken({**tiles, tile: replace(tiles[tile], loc=self.location, dtype=d)}, changed=tile)
        raise ValueError(f"{bx.op.name} [{bx.profile}]: every allowed type heads a pair; nothing breaks it")


STORE_PAIRS_KINDS: tuple[type[DTypePairsRule], ...] = (LocationDTypePairsRule,)
