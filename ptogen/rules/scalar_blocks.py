"""`scalar_blocks`: a scalar parameter sets a block length, and a tile's valid extent is a whole
number of groups of such blocks: TMRGSORT's `blockLen` is a multiple of 64, and
`src.GetValidCol()` is `4 * blockLen` times a repeat count in [1, 255] (A2A3, A5). Checked when the
op runs (the scalar and the valid shape are run-time values), by the declaration that takes the
scalar (`forms`)."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal

from pydantic import Field, model_validator

from ..spec.fields import Name
from .base import Problem, RuleBase, checked_operands, with_note
from .page import PageContext, PageLine
from .parts import Recognised, RuntimeCheck

if TYPE_CHECKING:
    from collections.abc import Iterator

    from ..rule_api import RuleLowering as RuleView
    from ..rule_api import RuleOp as OpView
    from ..rule_api import SpecFacts as OpSpec
    from ..rule_api import TargetFacts as Targets
    from ..rule_api import TileDecl

Count = Annotated[int, Field(ge=1, le=1 << 16)]


class ScalarBlocksRule(RuleBase, Recognised, RuntimeCheck):
    """`scalar` is a positive multiple of `multiple`; `operand`'s valid `extent` is `per_group *
    scalar` times a count in [`min_groups`, `max_groups`]."""

    kind: Literal["scalar_blocks"] = "scalar_blocks"
    scalar: Name = Field(description="the scalar operand that sets the block length (elements)")
    multiple: Count = Field(description="the block length is a positive multiple of this")
    operand: Name
    extent: Literal["rows", "cols"]
    per_group: Count = Field(description="blocks in one group the valid extent holds whole")
    min_groups: Count = 1
    max_groups: Count
    page_prefixes: ClassVar[tuple[str, ...]] = ("runtime blocks:",)

    @model_validator(mode="after")
    def _ordered(self) -> ScalarBlocksRule:
        if self.min_groups > self.max_groups:
            raise ValueError(f"min_groups {self.min_groups} is above max_groups {self.max_groups}")
        return self

    @property
    def rule_operands(self) -> list[str]:
        return [self.operand]

    def check(self, spec: OpSpec, targets: Targets) -> Iterator[Problem]:
        yield from super().check(spec, targets)
        bound = checked_operands(self, spec).get(self.scalar)
        if bound is None or bound.kind != "scalar":
            yield ("scalar",), f"{self.scalar!r} is not a scalar operand of the declarations it checks"

    def _value(self) -> str:
        return f"{self.operand}.{'GetValidRow' if self.extent == 'rows' else 'GetValidCol'}()"

    def _group(self) -> str:
        return f"{self.per_group} * {self.scalar}" if self.per_group > 1 else self.scalar

    def condition(self, op: OpView, rv: RuleView) -> str:
        # The block length first: a zero one would divide by zero below.
        value, group = self._value(), f"({self._group()})"
        return (
            f"{self.scalar} > 0 && {self.scalar} % {self.multiple} == 0 && {value} % {group} == 0"
            f" && {value} / {group} >= {self.min_groups} && {value} / {group} <= {self.max_groups}"
        )

    def text(self, op: OpView) -> str:
        return (
            f"{self.scalar} must be a positive multiple of {self.multiple}, and the valid {self.extent}"
            f" of {self.operand} {self._group()} times a count in [{self.min_groups}, {self.max_groups}]"
        )

    def doc(self, op: OpView) -> str:
        # No `*` on the line: the pages' reader drops it as Markdown emphasis.
        return with_note(
            f"Runtime blocks: `{self.scalar}` is a multiple of {self.multiple} (not 0); "
            f"`{self._value()}` holds {self.min_groups} to {self.max_groups} groups of "
            f"{self.per_group} blocks of `{self.scalar}` elements",
            self.note,
        )

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        m = re.match(
            r"Runtime blocks: (\w+) is a multiple of (\d+) \(not 0\); (\w+)\.(GetValidRow|GetValidCol)\(\)"
            r" holds (\d+) to (\d+) groups of (\d+) blocks of (\w+) elements"
            r"\.?\s*(?:\((?P<note>[^()]*)\))?",
            line.text,
        )
        if m is None or m.group(3) not in page.data or m.group(8) != m.group(1):
            return None
        found: dict[str, Any] = {
            "scalar": m.group(1),
            "multiple": int(m.group(2)),
            "operand": m.group(3),
            "extent": "rows" if m.group(4) == "GetValidRow" else "cols",
            "per_group": int(m.group(7)),
            "max_groups": int(m.group(6)),
        }
        if int(m.group(5)) != 1:  # the default is left out, as specs leave it out
            found["min_groups"] = int(m.group(5))
        if m.group("note"):
            found["note"] = m.group("note").strip()
        return found

    def runtime_scalars(self) -> dict[str, str]:
        # The failing case passes a legal block length, so the valid extent alone breaks the rule.
        return {self.scalar: f"{self.multiple}u"}

    def break_runtime(
        self, tiles: dict[str, TileDecl], addresses: dict[str, int]
    ) -> tuple[dict[str, TileDecl], dict[str, int]]:
        # One element short of a whole group (or of the tile, when that is shorter).
        t = tiles[self.operand]
        rows = self.extent == "rows"
        limit = t.rows if rows else t.cols
        value = min(limit, self.per_group * self.multiple) - 1
        broken = (
            replace(t, valid_rows=value, dynamic=True) if rows else replace(t, valid_cols=value, dynamic=True)
        )
        return {**tiles, self.operand: broken}, addresses
