"""`union_region`: of two source tiles joined over the union of their valid regions (the TPART
ops), one has the destination's valid region and, unless `within` is false, the other's lies
inside it: the partial-validity patterns the pages support. Checked when the op runs (valid
shapes may be dynamic)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import Field

from ..spec.fields import Name
from .base import Problem, RuleBase, with_note
from .page import PageContext, PageLine
from .parts import Recognised, RuntimeCheck

if TYPE_CHECKING:
    from ..rule_api import RuleLowering as RuleView
    from ..rule_api import RuleOp as OpView
    from ..rule_api import SpecFacts as OpSpec
    from ..rule_api import TargetFacts as Targets
    from ..rule_api import TileDecl


class UnionRegionRule(RuleBase, Recognised, RuntimeCheck):
    """`operands` are the destination and the two sources, in that order."""

    kind: Literal["union_region"] = "union_region"
    operands: list[Name] = Field(
        min_length=3, max_length=3, description="the destination, then the two sources"
    )
    within: bool = Field(
        default=True, description="the other source's valid region must not exceed the destination's"
    )
    page_prefixes: ClassVar[tuple[str, ...]] = ("runtime region:",)

    def check(self, spec: OpSpec, targets: Targets) -> Iterator[Problem]:
        yield from super().check(spec, targets)
        if len(set(self.operands)) != 3:
            yield ("operands",), "names the destination and two distinct sources"

    @staticmethod
    def _equal(a: str, b: str) -> str:
        return f"{a}.GetValidRow() == {b}.GetValidRow() && {a}.GetValidCol() == {b}.GetValidCol()"

    @staticmethod
    def _inside(a: str, b: str) -> str:
        return f"{a}.GetValidRow() <= {b}.GetValidRow() && {a}.GetValidCol() <= {b}.GetValidCol()"

    def condition(self, op: OpView, rv: RuleView) -> str:
        dst, a, b = self.operands
        if not self.within:
            return f"({self._equal(a, dst)}) || ({self._equal(b, dst)})"
        first = f"{self._equal(a, dst)} && {self._inside(b, dst)}"
        second = f"{self._equal(b, dst)} && {self._inside(a, dst)}"
        return f"({first}) || ({second})"

    def text(self, op: OpView) -> str:
        dst, a, b = self.operands
        rest = " and the other's must lie within it" if self.within else ""
        return f"{a} or {b} must have the valid region of {dst}{rest}"

    def doc(self, op: OpView) -> str:
        dst, a, b = self.operands
        rest = ", and the other's valid rows and columns do not exceed it" if self.within else ""
        return with_note(f"Runtime region: `{a}` or `{b}` has the valid region of `{dst}`{rest}", self.note)

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        m = re.match(r"Runtime region: (\w+) or (\w+) has the valid region of (\w+)(,)?", line.text)
        if m is None or not {m.group(1), m.group(2), m.group(3)} <= set(page.data):
            return None
        found: dict[str, Any] = {"operands": [m.group(3), m.group(1), m.group(2)]}
        if m.group(4) is None:
            found["within"] = False
        return found

    def break_runtime(
        self, tiles: dict[str, TileDecl], addresses: dict[str, int]
    ) -> tuple[dict[str, TileDecl], dict[str, int]]:
        # Neither source keeps the destination's valid region: one loses a column, the other a row.
        _, a, b = self.operands
        ta, tb = tiles[a], tiles[b]
        return {
            **tiles,
            a: replace(ta, valid_cols=ta.valid_cols - 1),
            b: replace(tb, valid_rows=tb.valid_rows - 1),
        }, addresses
