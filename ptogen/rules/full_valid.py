"""`full_valid`: a tile's valid rows or columns are all of its static ones when the op runs,
optionally only while a value template parameter has one value: TGATHER's mask form with
`GATHER_ROW` writes the kept elements to consecutive storage, so `dst.GetValidCol()` is
`DstTileData::Cols`. Checked in the simulator (valid shapes may be dynamic)."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import Field

from ..spec.fields import Name
from .base import Problem, RuleBase, When, when_phrase, with_note
from .page import PageContext, PageLine
from .parts import Recognised, RuntimeCheck, TileFilter

if TYPE_CHECKING:
    from collections.abc import Iterator

    from ..rule_api import RuleLowering as RuleView
    from ..rule_api import RuleOp as OpView
    from ..rule_api import SpecFacts as OpSpec
    from ..rule_api import TargetFacts as Targets
    from ..rule_api import TileDecl

_STATIC = {"rows": "Rows", "cols": "Cols"}


class FullValidRule(RuleBase, Recognised, RuntimeCheck, TileFilter):
    """`operand`'s valid `extent` equals its static one (while `when` holds, if given)."""

    kind: Literal["full_valid"] = "full_valid"
    operand: Name
    extent: Literal["rows", "cols"]
    when: When | None = Field(
        default=None, description="the rule binds only while a value template parameter has this value"
    )
    page_prefixes: ClassVar[tuple[str, ...]] = ("runtime full:",)

    @property
    def rule_operands(self) -> list[str]:
        return [self.operand]

    def check(self, spec: OpSpec, targets: Targets) -> Iterator[Problem]:
        yield from super().check(spec, targets)
        intr = spec.intrinsic
        if self.when is None or intr is None:
            return
        decls = [intr.template] + [o.template for o in intr.overloads]
        checked = decls if self.forms is None else [decls[k] for k in self.forms if k < len(decls)]
        if not any(t.name == self.when.param and t.kind == "value" for d in checked for t in d):
            yield ("when", "param"), f"{self.when.param!r} is not a value template parameter it checks"

    def _value(self) -> str:
        return f"{self.operand}.{'GetValidRow' if self.extent == 'rows' else 'GetValidCol'}()"

    def condition(self, op: OpView, rv: RuleView) -> str:
        holds = f"{self._value()} == {rv.types[0]}::{_STATIC[self.extent]}"
        if self.when is None:
            return holds
        return f"!({self.when.param} == {self.when.equals}) || {holds}"

    def _when(self, code: bool) -> str:
        return when_phrase(self.when, code)

    def text(self, op: OpView) -> str:
        return f"the valid {self.extent} of {self.operand} must be all its {self.extent}{self._when(False)}"

    def doc(self, op: OpView) -> str:
        line = f"Runtime full: `{self._value()} == {_STATIC[self.extent]}`{self._when(True)}"
        return with_note(line, self.note)

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        m = re.match(
            r"Runtime full: (\w+)\.(GetValidRow|GetValidCol)\(\) == (Rows|Cols)"
            r"(?: when (?P<param>\w+) is (?P<value>[\w:]+))?\.?\s*(?:\((?P<note>[^()]*)\))?",
            line.text,
        )
        if m is None or m.group(1) not in page.data:
            return None
        extent = "rows" if m.group(2) == "GetValidRow" else "cols"
        if _STATIC[extent] != m.group(3):
            return None
        found: dict[str, Any] = {"operand": m.group(1), "extent": extent}
        if m.group("param"):
            found["when"] = {"param": m.group("param"), "equals": m.group("value")}
        if m.group("note"):
            found["note"] = m.group("note").strip()
        return found

    def _extents(self, t: TileDecl) -> tuple[int, int]:
        return (t.valid_rows, t.rows) if self.extent == "rows" else (t.valid_cols, t.cols)

    def admits_tiles(self, tiles: dict[str, TileDecl]) -> bool:
        # Tiles alone cannot tell a conditioned rule's value; an unconditioned one they can.
        t = tiles.get(self.operand)
        if t is None or self.when is not None:
            return True
        valid, static = self._extents(t)
        return valid == static

    def break_runtime(
        self, tiles: dict[str, TileDecl], addresses: dict[str, int]
    ) -> tuple[dict[str, TileDecl], dict[str, int]]:
        # One short of the static extent, at run time.
        t = tiles[self.operand]
        _, static = self._extents(t)
        short = max(1, static - 1)
        if self.extent == "rows":
            broken = replace(t, valid_rows=short, dynamic=True)
        else:
            broken = replace(t, valid_cols=short, dynamic=True)
        return {**tiles, self.operand: broken}, addresses
