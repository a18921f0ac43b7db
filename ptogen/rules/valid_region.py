"""Rule kinds on a tile's valid region as a whole: `valid_bounds` (the static region fits the tile)
and `same_valid_shape` (operands share one valid region, checked when the op runs)."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import Field

from ..spec.fields import Name, TileLocation
from .base import RuleBase, and_list, conj, or_list, with_note
from .page import PageContext, PageLine
from .parts import Broken, Recognised, RuntimeCheck, StaticBreak

if TYPE_CHECKING:
    from ..rule_api import RuleBreak as BreakContext
    from ..rule_api import RuleLowering as RuleView
    from ..rule_api import RuleOp as OpView
    from ..rule_api import TileDecl


class ValidBoundsRule(RuleBase, Recognised, StaticBreak):
    """The static valid region fits in the tile."""

    kind: Literal["valid_bounds"] = "valid_bounds"
    operands: list[Name] = Field(min_length=1)
    page_prefixes: ClassVar[tuple[str, ...]] = ("static valid",)

    def condition(self, op: OpView, rv: RuleView) -> str:
        return conj([f"{t}::ValidRow <= {t}::Rows && {t}::ValidCol <= {t}::Cols" for t in rv.types])

    def text(self, op: OpView) -> str:
        return "static valid bounds: ValidRow <= Rows and ValidCol <= Cols"

    def doc(self, op: OpView) -> str:
        return with_note(
            "Static valid bounds: `TileData::ValidRow <= TileData::Rows` and "
            "`TileData::ValidCol <= TileData::Cols`",
            self.note,
        )

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        return {"operands": page.data} if line.low.startswith("static valid bounds") else None

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        first = self.operands[0]
        t = tiles[first]
        return Broken({**tiles, first: replace(t, valid_rows=t.rows + 1)}, changed=first)




class SameValidShapeRule(RuleBase, Recognised, RuntimeCheck):
    """The operands have the valid rows and columns of the first (checked when the op runs)."""

    kind: Literal["same_valid_shape"] = "same_valid_shape"
    operands: list[Name] = Field(min_length=2)
    storage_read_into: list[TileLocation] = Field(
        default_factory=list,
        description=(
            "locations of the first operand whose valid region is read from the others' storage instead: "
            "there it only has to lie within each other operand's rows and columns"
        ),
    )
    warns: bool = Field(
        default=False,
        description="the pages leave other valid regions undefined and the profile's simulator computes "
        "them anyway (as upstream's does): the check warns once per call site and the op goes on",
    )
    page_prefixes: ClassVar[tuple[str, ...]] = ("runtime: ",)

    def warning(self) -> bool:
        return self.warns

    def condition(self, op: OpView, rv: RuleView) -> str:
        first, *rest = self.operands
        same = conj(
            [
                f"{first}.GetValidRow() == {o}.GetValidRow() && {first}.GetValidCol() == {o}.GetValidCol()"
                for o in rest
            ]
        )
        if not self.storage_read_into:
            return same
        first_t, *rest_t = rv.types
        into = " || ".join(f"{first_t}::Loc == TileType::{loc}" for loc in self.storage_read_into)
        within = conj(
            [f"{first}.GetValidRow() <= {t}::Rows && {first}.GetValidCol() <= {t}::Cols" for t in rest_t]
        )
        return f"(({into}) ? ({within}) : ({same}))"

    def _exception(self, code: bool) -> str:
        if not self.storage_read_into:
            return ""
        first, rest = self.operands[0], self.operands[1:]
        tick = "`" if code else ""
        into = or_list(list[str](self.storage_read_into), code=code)
        return (
            f", except when {tick}{first}{tick} is a {into} tile: "
            f"then its valid region is read from the storage of {and_list(rest, code=code)} "
            f"and must lie within {'its' if len(rest) == 1 else 'their'} rows and columns"
        )

    def text(self, op: OpView) -> str:
        return (
            f"{and_list(self.operands, code=False)} must have the same valid row/col{self._exception(False)}"
        )

    def doc(self, op: OpView) -> str:
        return with_note(
            f"Runtime: {and_list(self.operands)} must have the same valid row/col{self._exception(True)}",
            self.note,
        )

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        if line.low.startswith("runtime:") and "same valid" in line.low:
            head, _, tail = line.text.split(":", 1)[1].partition(", except when")
            rule: dict[str, Any] = {"operands": page.named(head) or page.data}
            into = re.match(r" \w+ is an? (.*?) tile:", tail)  # the page line has no code ticks
            if into:
                rule["storage_read_into"] = re.split(r", | or ", into.group(1))
            return rule
        return None

    def break_runtime(
        self, tiles: dict[str, TileDecl], addresses: dict[str, int]
    ) -> tuple[dict[str, TileDecl], dict[str, int]]:
        first, second = self.operands[0], self.operands[1]
        t = tiles[first]
        if t.loc in self.storage_read_into:
            # Read from the others' storage: only a valid region past their rows breaks it.
            return {**tiles, first: replace(t, rows=2 * t.rows, valid_rows=2 * t.rows)}, addresses
        # dynamic valid shape: same C++ type, another run-time shape
        return {**tiles, second: replace(tiles[second], valid_cols=tiles[second].valid_cols - 1)}, addresses
