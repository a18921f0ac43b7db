"""`size_pairs`: the element sizes of two operands form one of a few listed pairs, whatever the types
(TSCATTER's indices on A2A3 and A5: 4-byte indices with 4-byte data, 2-byte indices with 1- or
2-byte data). Checked by `static_assert` on `sizeof` of both element types; the test plan runs only
the type combinations whose sizes pair (`admits`), and the failing kernel gives the second operand a
type of a size the first one does not pair with, from those the profile's other rules allow it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal

from pydantic import Field

from ..rule_api import ELEMENT_BYTES
from ..spec.fields import Name
from .base import Problem, RuleBase, allowed_by_others, or_list, with_note
from .page import PageContext, PageLine
from .parts import Broken, Recognised, StaticBreak, TypeFilter

if TYPE_CHECKING:
    from ..rule_api import RuleBreak as BreakContext
    from ..rule_api import RuleLowering as RuleView
    from ..rule_api import RuleOp as OpView
    from ..rule_api import SpecFacts as OpSpec
    from ..rule_api import TargetFacts as Targets
    from ..rule_api import TileDecl

Size = Annotated[int, Field(ge=1, le=16)]


class SizePairsRule(RuleBase, Recognised, StaticBreak, TypeFilter):
    """(sizeof(first's DType), sizeof(second's DType)) is one of `pairs`."""

    kind: Literal["size_pairs"] = "size_pairs"
    operands: list[Name] = Field(min_length=2, max_length=2)
    pairs: list[tuple[Size, Size]] = Field(min_length=1, description="(first's bytes, second's bytes)")
    page_prefixes: ClassVar[tuple[str, ...]] = ("element sizes:",)

    def check(self, spec: OpSpec, targets: Targets) -> Iterator[Problem]:
        yield from super().check(spec, targets)
        if len(set(self.pairs)) != len(self.pairs):
            yield ("pairs",), "each pair is listed once"

    def condition(self, op: OpView, rv: RuleView) -> str:
        a, b = rv.types
        return (
            "("
            + " || ".join(
                f"(sizeof(typename {a}::DType) == {x} && sizeof(typename {b}::DType) == {y})"
                for x, y in self.pairs
            )
            + ")"
        )

    def _spelled(self) -> list[str]:
        return [f"{x} with {y}" for x, y in self.pairs]

    def text(self, op: OpView) -> str:
        a, b = self.operands
        return f"the element sizes of {a} and {b} must pair as {or_list(self._spelled(), code=False)} bytes"

    def doc(self, op: OpView) -> str:
        a, b = self.operands
        listed = ", ".join(f"({x}, {y})" for x, y in self.pairs)
        return with_note(
            f"Element sizes: `(sizeof({a}::DType), sizeof({b}::DType))` is one of {listed}", self.note
        )

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        m = re.match(
            r"Element sizes: \(sizeof\((\w+)::DType\), sizeof\((\w+)::DType\)\) is one of "
            r"(?P<pairs>\(\d+, \d+\)(?:, \(\d+, \d+\))*)",
            line.text,
        )
        if m is None or {m.group(1), m.group(2)} - set(page.data):
            return None
        pairs = [[int(x), int(y)] for x, y in re.findall(r"\((\d+), (\d+)\)", m.group("pairs"))]
        found: dict[str, Any] = {"operands": [m.group(1), m.group(2)], "pairs": pairs}
        note = re.search(r"\((?P<note>[^()]*)\)\.?$", line.text[m.end() :])
        if note:
            found["note"] = note.group("note").strip()
        return found

    def _pairs(self, a: str, b: str) -> bool:
        return (ELEMENT_BYTES.get(a), ELEMENT_BYTES.get(b)) in set(self.pairs)

    def admits(self, op: OpView, combo: dict[str, str]) -> bool:
        a, b = self.operands
        return a not in combo or b not in combo or self._pairs(combo[a], combo[b])

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        # The second operand takes a type whose size the first one's does not pair with, from those
        # the profile's other rules on the same declarations allow it.
        first, second = self.operands
        allowed = allowed_by_others(bx, self, second)
        pick = next((d for d in allowed if not self._pairs(tiles[first].dtype, d)), None)
        if pick is None:
            raise ValueError(f"{second}: every type the rules allow pairs with {first}'s")
        return Broken({**tiles, second: replace(tiles[second], dtype=pick)}, changed=second)
