"""`total_bytes`: some tiles together span fewer than a number of bytes (every element, valid or not:
`sizeof(DType) * Numel` each), so that they fit one on-chip buffer at once: TMRGSORT's tiles within
A2A3's and A5's 192 KiB unified buffer. Checked by `static_assert` on the tiles' types; the failing
kernel widens the first operand's storage until the sum reaches the bound."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal

from pydantic import Field

from ..rule_api import ELEMENT_BYTES, aligned_extent
from ..spec.fields import Name
from .base import RuleBase, with_note
from .page import PageContext, PageLine
from .parts import Broken, Recognised, StaticBreak

if TYPE_CHECKING:
    from ..rule_api import RuleBreak as BreakContext
    from ..rule_api import RuleLowering as RuleView
    from ..rule_api import RuleOp as OpView
    from ..rule_api import TileDecl


class TotalBytesRule(RuleBase, Recognised, StaticBreak):
    """The operands' storage, summed, is below `below` bytes."""

    kind: Literal["total_bytes"] = "total_bytes"
    operands: list[Name] = Field(min_length=1)
    below: Annotated[int, Field(ge=2, le=1 << 30)] = Field(description="the sum is less than this")
    page_prefixes: ClassVar[tuple[str, ...]] = ("total bytes:",)

    def _sum(self, types: list[str]) -> str:
        return " + ".join(f"sizeof(typename {t}::DType) * {t}::Numel" for t in types)

    def condition(self, op: OpView, rv: RuleView) -> str:
        return f"({self._sum(rv.types)}) < {self.below}"

    def _bound(self) -> str:
        kib = f" ({self.below // 1024} KiB)" if self.below % 1024 == 0 else ""
        return f"{self.below} bytes{kib}"

    def text(self, op: OpView) -> str:
        names = ", ".join(self.operands)
        return f"the storage of {names} together must be below {self._bound()}"

    def doc(self, op: OpView) -> str:
        terms = " + ".join(f"sizeof({o}::DType) * {o}::Numel" for o in self.operands)
        return with_note(f"Total bytes: `{terms} < {self.below}`", self.note)

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        if not line.low.startswith("total bytes:"):
            return None
        m = re.match(r"^Total bytes: (?P<terms>.+?) < (?P<below>\d+)", line.text)
        if m is None:
            return None
        # (the page line reaches here without Markdown emphasis, so a lone `*` may be gone)
        names = re.findall(r"sizeof\((\w+)::DType\)\s*\*?\s*(\w+)::Numel", m.group("terms"))
        if not names or any(a != b or a not in page.data for a, b in names):
            return None
        found: dict[str, Any] = {"operands": [a for a, _ in names], "below": int(m.group("below"))}
        note = re.search(r"\((?P<note>[^()]*)\)\.?$", line.text[m.end() :])
        if note:
            found["note"] = note.group("note").strip()
        return found

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        # Widen the first operand (a one-row list stays one row) until the sum reaches the bound.
        first = self.operands[0]
        t = tiles[first]
        size = ELEMENT_BYTES.get(t.dtype, 4)
        others = sum(
            ELEMENT_BYTES.get(tiles[o].dtype, 4) * tiles[o].rows * tiles[o].cols for o in self.operands[1:]
        )
        need = max(0, self.below - others)
        per_row = -(-need // (size * t.rows))
        cols = aligned_extent(max(per_row, t.cols), t.dtype, size)
        return Broken({**tiles, first: replace(t, cols=cols)}, changed=first)
