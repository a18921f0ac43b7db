"""`same_element_size`: two tiles' element types have one size in bytes, though they may differ
(TGATHER's mask form copies each element's bits unchanged, so a `half` source may fill an `int16_t`
destination but not a `float` one). Checked by `static_assert` on the tiles' types; the failing
kernel gives the first operand a type of another size that the profile's other rules allow."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import Field

from ..rule_api import ELEMENT_BYTES
from ..spec.fields import Name
from .base import RuleBase, allowed_by_others, with_note
from .page import PageContext, PageLine
from .parts import Broken, Recognised, StaticBreak, TypeFilter

if TYPE_CHECKING:
    from ..rule_api import RuleBreak as BreakContext
    from ..rule_api import RuleLowering as RuleView
    from ..rule_api import RuleOp as OpView
    from ..rule_api import TileDecl

_LINE = re.compile(r"^element size: sizeof\((\w+)::DType\) == sizeof\((\w+)::DType\)", re.IGNORECASE)


class SameElementSizeRule(RuleBase, Recognised, StaticBreak, TypeFilter):
    """`sizeof` of the two operands' element types is equal."""

    kind: Literal["same_element_size"] = "same_element_size"
    operands: list[Name] = Field(min_length=2, max_length=2)
    page_prefixes: ClassVar[tuple[str, ...]] = ("element size:",)

    def condition(self, op: OpView, rv: RuleView) -> str:
        a, b = rv.types
        return f"sizeof(typename {a}::DType) == sizeof(typename {b}::DType)"

    def text(self, op: OpView) -> str:
        a, b = self.operands
        return f"the element types of {a} and {b} must have the same size"

    def doc(self, op: OpView) -> str:
        a, b = self.operands
        return with_note(f"Element size: `sizeof({a}::DType) == sizeof({b}::DType)`", self.note)

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        m = _LINE.match(line.text)
        if m is None or {m.group(1), m.group(2)} - set(page.data):
            return None
        found: dict[str, Any] = {"operands": [m.group(1), m.group(2)]}
        note = re.search(r"\((?P<note>[^()]*)\)\.?$", line.text[m.end() :])
        if note:
            found["note"] = note.group("note").strip()
        return found

    def admits(self, op: OpView, combo: dict[str, str]) -> bool:
        a, b = self.operands
        if a not in combo or b not in combo:
            return True
        return ELEMENT_BYTES.get(combo[a]) == ELEMENT_BYTES.get(combo[b])

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        # The first operand takes a type of another size that the profile's other rules on the same
        # declarations allow it, so that only this rule breaks.
        first, second = self.operands
        size = ELEMENT_BYTES.get(tiles[second].dtype)
        allowed = allowed_by_others(bx, self, first)
        pick = next((d for d in allowed if ELEMENT_BYTES.get(d) != size), None)
        if pick is None:
            raise ValueError(f"{first}: every type the rules allow has the size of {second}'s")
        return Broken({**tiles, first: replace(tiles[first], dtype=pick)}, changed=first)
