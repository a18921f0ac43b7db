"""Run-time rule kinds on one valid extent (rows or columns): `same_valid_extent` (two tiles agree on
it, or one is a multiple of the other) and `min_valid_extent` (a lower bound)."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field

from ..spec.fields import Name
from .base import RuleBase, with_note
from .page import PageContext, PageLine
from .parts import Recognised, RuntimeCheck, TileFilter

if TYPE_CHECKING:
    from ..rule_api import RuleLowering as RuleView
    from ..rule_api import RuleOp as OpView
    from ..rule_api import TileDecl


class SameValidExtentRule(RuleBase, Recognised, RuntimeCheck, TileFilter):
    """Two tiles agree on one valid extent: a row reduction's dst has src's valid rows (and a
    column reduction's dst src's valid columns), whatever the other extent."""

    kind: Literal["same_valid_extent"] = "same_valid_extent"
    operands: list[Name] = Field(min_length=2, max_length=2)
    extent: Literal["rows", "cols"]
    factor: Annotated[int, Field(ge=1, le=64)] = Field(
        default=1, description="the first tile's extent is this many times the second's (TDEINTERLEAVE's 2)"
    )

    def _getter(self) -> str:
        return "GetValidRow" if self.extent == "rows" else "GetValidCol"

    def _relation(self) -> str:
        a, b = self.operands
        times = f"{self.factor} * " if self.factor > 1 else ""
        return f"{a}.{self._getter()}() == {times}{b}.{self._getter()}()"

    def condition(self, op: OpView, rv: RuleView) -> str:
        return self._relation()

    def text(self, op: OpView) -> str:
        a, b = self.operands
        times = f"{self.factor} times " if self.factor > 1 else ""
        return f"{a} must have {times}the valid {self.extent} of {b}"

    def doc(self, op: OpView) -> str:
        if self.factor == 1:
            return with_note(f"Runtime: `{self._relation()}`", self.note)
        # No `*` on the line: the pages' reader drops it as Markdown emphasis.
        a, b = self.operands
        g = self._getter()
        return with_note(f"Runtime: `{a}.{g}()` is {self.factor} times `{b}.{g}()`", self.note)

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        m = re.search(
            r"\b(\w+)\.(GetValidRow|GetValidCol)\(\)(?: == | is (?P<factor>\d+) times )"
            r"(\w+)\.(GetValidRow|GetValidCol)\(\)",
            line.text,
        )
        if m is None or m.group(2) != m.group(5) or not {m.group(1), m.group(4)} <= set(page.data):
            return None
        found: dict[str, Any] = {
            "operands": [m.group(1), m.group(4)],
            "extent": "rows" if m.group(2) == "GetValidRow" else "cols",
        }
        if m.group("factor"):
            found["factor"] = int(m.group("factor"))
        return found

    def _valid(self, t: TileDecl) -> int:
        return t.valid_rows if self.extent == "rows" else t.valid_cols

    def admits_tiles(self, tiles: dict[str, TileDecl]) -> bool:
        # Only a ratio tells tiles apart here; equal extents are the plans' own shapes.
        a, b = self.operands
        if self.factor == 1 or a not in tiles or b not in tiles:
            return True
        return self._valid(tiles[a]) == self.factor * self._valid(tiles[b])

    def break_runtime(
        self, tiles: dict[str, TileDecl], addresses: dict[str, int]
    ) -> tuple[dict[str, TileDecl], dict[str, int]]:
        a, b = self.operands
        field_name = "valid_rows" if self.extent == "rows" else "valid_cols"
        if self.factor == 1:
            smaller = getattr(tiles[a], field_name) - 1
            return {**tiles, a: replace(tiles[a], **{field_name: smaller})}, addresses
        # One step of the ratio short (a multiple of it still, so that rules of evenness hold).
        want = self.factor * (self._valid(tiles[b]) - 1) or self.factor * (self._valid(tiles[b]) + 1)
        static = "rows" if self.extent == "rows" else "cols"
        t = tiles[a]
        grown = replace(t, **{static: max(getattr(t, static), want), field_name: want, "dynamic": True})
        return {**tiles, a: grown}, addresses


class MinValidExtentRule(RuleBase, Recognised, RuntimeCheck, TileFilter):
    """A tile's valid rows (or columns) are bounded below, by another operand's same extent or by a
    count: scratch tiles that hold intermediate rows (TREM's `tmp` on A2A3). Checked when the op runs."""

    kind: Literal["min_valid_extent"] = "min_valid_extent"
    operand: Name
    extent: Literal["rows", "cols"]
    at_least: Name | Annotated[int, Field(ge=1, le=1 << 20)] = Field(
        description="an operand (its same valid extent) or a count"
    )
    strict: bool = Field(default=False, description="more than the bound (`>`), not at least (`>=`)")

    @property
    def rule_operands(self) -> list[str]:
        return [self.operand] + ([self.at_least] if isinstance(self.at_least, str) else [])

    def _getter(self) -> str:
        return "GetValidRow" if self.extent == "rows" else "GetValidCol"

    def _relation(self) -> str:
        bound = self.at_least
        right = f"{bound}.{self._getter()}()" if isinstance(bound, str) else str(bound)
        return f"{self.operand}.{self._getter()}() {'>' if self.strict else '>='} {right}"

    def condition(self, op: OpView, rv: RuleView) -> str:
        return self._relation()

    def text(self, op: OpView) -> str:
        what = f"valid {self.extent}"
        if isinstance(self.at_least, str):
            bound = (
                f"more {what} than {self.at_least}"
                if self.strict
                else f"at least the {what} of {self.at_least}"
            )
            return f"{self.operand} must have {bound}"
        count = self.at_least + int(self.strict)
        what = what if count > 1 else what[:-1]  # "1 valid row", "2 valid rows"
        return f"{self.operand} must have at least {count} {what}"

    def doc(self, op: OpView) -> str:
        return with_note(f"Runtime: `{self._relation()}`", self.note)

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        m = re.search(
            r"\b(\w+)\.(GetValidRow|GetValidCol)\(\) (>=|>) "
            r"(?:(\w+)\.(GetValidRow|GetValidCol)\(\)|(\d+)(?!\d))`?\s*(?:\((?P<note>[^()]*)\))?",
            line.text,
        )
        if m is None or m.group(1) not in page.data:
            return None
        if m.group(4) is not None and (m.group(4) not in page.data or m.group(5) != m.group(2)):
            return None
        found: dict[str, Any] = {
            "operand": m.group(1),
            "extent": "rows" if m.group(2) == "GetValidRow" else "cols",
            "at_least": m.group(4) if m.group(4) is not None else int(m.group(6)),
        }
        if m.group(3) == ">":
            found["strict"] = True
        if m.group("note"):
            found["note"] = m.group("note").strip()
        return found

    def _needed(self, tiles: dict[str, TileDecl]) -> int:
        rows = self.extent == "rows"
        other = tiles[self.at_least] if isinstance(self.at_least, str) else None
        bound = self.at_least if other is None else (other.valid_rows if rows else other.valid_cols)
        return int(bound) + int(self.strict)

    def legalise(self, tiles: dict[str, TileDecl]) -> dict[str, TileDecl]:
        t = tiles.get(self.operand)
        if t is None:
            return tiles
        need = self._needed(tiles)
        if self.extent == "rows" and t.valid_rows < need:
            t = replace(t, rows=max(t.rows, need), valid_rows=need)
        elif self.extent == "cols" and t.valid_cols < need:
            t = replace(t, cols=max(t.cols, need), valid_cols=need)
        return {**tiles, self.operand: t}

    def break_runtime(
        self, tiles: dict[str, TileDecl], addresses: dict[str, int]
    ) -> tuple[dict[str, TileDecl], dict[str, int]]:
        rows = self.extent == "rows"
        other = tiles[self.at_least] if isinstance(self.at_least, str) else None
        bound = self.at_least if other is None else (other.valid_rows if rows else other.valid_cols)
        short = int(bound) if self.strict else int(bound) - 1  # just below what the rule asks
        t = tiles[self.operand]
        broken = replace(t, valid_rows=short) if rows else replace(t, valid_cols=short)
        return {**tiles, self.operand: broken}, addresses
