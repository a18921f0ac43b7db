"""Run-time rule kind `value_range`: the data in the operands' valid regions lies in a range."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from ..errors import did_you_mean
from ..spec.fields import Name, TypeName
from .base import Problem, RuleBase, and_list, conj, with_note
from .page import PageContext, PageLine
from .parts import Recognised, RuntimeCheck, TypeListing

if TYPE_CHECKING:
    from ..rule_api import RuleLowering as RuleView
    from ..rule_api import RuleOp as OpView
    from ..rule_api import SpecFacts as OpSpec
    from ..rule_api import TargetFacts as Targets
    from ..rule_api import TileDecl


def _number(v: float) -> str:
    """A bound as the pages and the C++ spell it: integers without a fraction."""
    return str(int(v)) if float(v).is_integer() else repr(float(v))


class ValueRangeRule(RuleBase, Recognised, TypeListing, RuntimeCheck):
    """Every element of the operands' valid regions lies in [min, max], optionally only for some
    element types: inputs a backend computes through another type (TREM's int32 through float on
    A2A3 is exact only up to 2^24). Checked when the op runs, over the data."""

    kind: Literal["value_range"] = "value_range"
    operands: list[Name] = Field(min_length=1)
    min: float = Field(ge=-(2.0**64), le=2.0**64)
    max: float = Field(ge=-(2.0**64), le=2.0**64)
    dtypes: list[TypeName] | None = Field(
        default=None, description="element types it applies to; omitted = all"
    )

    def check(self, spec: OpSpec, targets: Targets) -> Iterator[Problem]:
        yield from super().check(spec, targets)
        if self.min > self.max:
            yield ("min",), f"the range is empty: min {_number(self.min)} > max {_number(self.max)}"
        for j, d in enumerate(self.dtypes or []):
            if not targets.has_dtype(d):
                spellings = [n for t in targets.dtypes for n in (t.name, *t.aliases)]
                yield ("dtypes", j), f"unknown dtype {d!r}{did_you_mean(d, spellings)}"

    def _range(self) -> str:
        return f"[{_number(self.min)}, {_number(self.max)}]"

    def condition(self, op: OpView, rv: RuleView) -> str:
        only = f"<{', '.join(rv.dtypes_cpp)}>" if rv.dtypes_cpp else ""
        lo, hi = (f"{_number(v)}.0L" if float(v).is_integer() else f"{v!r}L" for v in (self.min, self.max))
        return conj([f"sim::values_within{only}({o}, {lo}, {hi})" for o in self.operands])

    def text(self, op: OpView) -> str:
        types = f" {' and '.join(self.dtypes)}" if self.dtypes else ""
        return f"the{types} elements of {and_list(self.operands, code=False)} must lie in {self._range()}"

    def doc(self, op: OpView) -> str:
        scope = f" of type {and_list(list(self.dtypes))}" if self.dtypes else ""
        return with_note(
            f"Runtime: every element{scope} in the valid region of {and_list(self.operands)} must lie in "
            f"`{self._range()}`",
            self.note,
        )

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        m = re.match(
            r"Runtime: every element(?: of type (?P<types>.+?))? in the valid region of (?P<ops>.+?) "
            r"must lie in "
            r"\[(?P<lo>-?[\d.e+]+), (?P<hi>-?[\d.e+]+)\]\s*(?:\((?P<note>[^()]*)\))?",
            line.text,
        )
        if m is None:
            return None
        operands = page.named(m.group("ops"))
        if not operands:
            return None

        def number(text: str) -> float | int:
            return float(text) if any(c in text for c in ".e") else int(text)

        found: dict[str, Any] = {
            "operands": operands,
            "min": number(m.group("lo")),
            "max": number(m.group("hi")),
        }
        if m.group("types"):
            found["dtypes"] = re.findall(r"[\w]+", m.group("types").replace(" and ", ", "))
        if m.group("note"):
            found["note"] = m.group("note").strip()
        return found

    def listed_dtypes(self) -> list[str]:
        return list(self.dtypes or [])

    def runtime_dtypes(self, rv: RuleView) -> list[str]:
        return list(rv.dtypes_cpp)  # the rule checks nothing for the other types

    def input_range(self, operand: str, dtype: str, rv: RuleView) -> tuple[float, float] | None:
        if operand in self.operands and (not rv.dtypes_cpp or dtype in rv.dtypes_cpp):
            return self.min, self.max
        return None

    def break_runtime(
        self, tiles: dict[str, TileDecl], addresses: dict[str, int]
    ) -> tuple[dict[str, TileDecl], dict[str, int]]:
        first = self.operands[0]
        over = self.max + 1 if float(self.max).is_integer() else self.max * 2 + 1
        return {**tiles, first: replace(tiles[first], poke=_number(over))}, addresses
