"""Rule kind `pipe_locations`: where a pipe op's tile lives depends on the pipe's direction, as the
TPUSH and TPOP pages tabulate it (cube to vector: the cube core pushes an Acc or Mat tile and a
vector core pops a Vec tile; vector to cube: a Vec tile pushed, a Mat tile popped). The direction is
a member of the pipe's type (`TPipe<..., DirType, ...>::DIR_TYPE`), so the rule names the pipe operand
beside the tile and is checked on the declarations that take a `TPipe` and a tile (`forms`)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import Field

from ..spec.fields import Name, TileLocation
from .base import Problem, RuleBase, conj, or_list, with_note
from .page import PageContext, PageLine
from .parts import Broken, Recognised, StaticBreak

if TYPE_CHECKING:
    from ..rule_api import RuleBreak as BreakContext
    from ..rule_api import RuleLowering as RuleView
    from ..rule_api import RuleOp as OpView
    from ..rule_api import SpecFacts as OpSpec
    from ..rule_api import TargetFacts as Targets
    from ..rule_api import TileDecl

PipeDirection = Literal["DIR_C2V", "DIR_V2C", "DIR_BOTH"]
# The doc line, with its code ticks or (as the import sees it) without them.
_LINE = re.compile(
    r"^Tile location by the pipe's direction \(`?(?P<tile>\w+)`? in `?(?P<pipe>\w+)`?\): (?P<dirs>.+?)"
    r"(?:\s*\((?P<note>[^()]*)\))?\.?$"
)


class PipeLocationsRule(RuleBase, Recognised, StaticBreak):
    """Per pipe direction, the locations the tile operand may have."""

    kind: Literal["pipe_locations"] = "pipe_locations"
    operands: list[Name] = Field(min_length=1, max_length=1, description="the tile the op moves")
    pipe: Name = Field(description="the pipe (`context`) operand whose type holds the direction")
    directions: dict[PipeDirection, list[TileLocation]] = Field(
        min_length=1, description="each direction the rule constrains, with the tile's admitted locations"
    )
    page_prefixes: ClassVar[tuple[str, ...]] = ("tile location by the pipe's direction",)

    @property
    def rule_operands(self) -> list[str]:
        # The tile, then the pipe: a form spells both by their types (FormView.rules_for).
        return [*self.operands, self.pipe]

    def check(self, spec: OpSpec, targets: Targets) -> Iterator[Problem]:
        pipe_at = len(self.operands)
        for where, message in super().check(spec, targets):
            if where != ("operands", pipe_at):  # the pipe is no tile: checked below
                yield where, message
        if not any(o.name == self.pipe and o.kind == "context" for o in spec.operands):
            yield ("pipe",), f"{self.pipe!r} is not a pipe (`context`) operand of this op"
        if self.forms is None:
            yield ("forms",), "name the declarations that take a TPipe and a tile (`forms`)"

    def condition(self, op: OpView, rv: RuleView) -> str:
        tile, pipe = rv.types

        def admits(direction: str, locations: list[str]) -> str:
            one_of = " || ".join(f"{tile}::Loc == TileType::{loc}" for loc in locations)
            return f"({pipe}::DIR_TYPE != Direction::{direction} || {one_of})"

        return conj([admits(d, list(locs)) for d, locs in self.directions.items()])

    def _listed(self, code: bool) -> str:
        def spell(loc: str) -> str:
            return f"`TileType::{loc}`" if code else f"TileType::{loc}"

        def name(d: str) -> str:
            return f"`Direction::{d}`" if code else f"Direction::{d}"

        return "; ".join(
            f"{name(d)}: {or_list([spell(loc) for loc in locs], code=False)}"
            for d, locs in self.directions.items()
        )

    def text(self, op: OpView) -> str:
        return f"tile location must suit the pipe's direction ({self._listed(code=False)})"

    def doc(self, op: OpView) -> str:
        head = f"Tile location by the pipe's direction (`{self.operands[0]}` in `{self.pipe}`)"
        return with_note(f"{head}: {self._listed(code=True)}", self.note)

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        m = _LINE.match(line.text)
        if m is None:
            return None
        directions: dict[str, list[str]] = {}
        for part in m.group("dirs").split("; "):
            d = re.match(r"`?Direction::(\w+)`?: (.+)$", part)
            if d is None:
                return None
            directions[d.group(1)] = re.findall(r"TileType::(\w+)", d.group(2))
        found: dict[str, Any] = {
            "operands": [m.group("tile")],
            "pipe": m.group("pipe"),
            "directions": directions,
        }
        if m.group("note"):
            found["note"] = m.group("note")
        return found

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        # The tile in a location the first listed direction does not admit (the planner pairs it
        # with a pipe of that direction).
        first = self.operands[0]
        admitted = next(iter(self.directions.values()))
        other = next(loc for loc in ("Vec", "Mat", "Acc") if loc not in admitted)
        return Broken({**tiles, first: replace(tiles[first], loc=other)}, changed=first)
