"""The `tile_fractal` rule kind: a tile's box arrangement, its `BLayout` (how the boxes, or the rows of
a plain tile, follow each other) and its `SLayout` (how a box stores its elements), e.g. the ZN
layout of a Right tile that TEXTRACT's filter extraction writes (`BLayout::RowMajor`,
`SLayout::ColMajor`). A `static_assert` on the tile's type.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import Field

from ..spec.fields import CppIdent, Name
from .base import RuleBase, with_note
from .page import PageContext, PageLine
from .parts import Broken, Placed, Recognised, StaticBreak, TileFilter

if TYPE_CHECKING:
    from ..rule_api import RuleBreak as BreakContext
    from ..rule_api import RuleLowering as RuleView
    from ..rule_api import RuleOp as OpView
    from ..rule_api import TileDecl


# The cube's names for box layouts: how the boxes follow each other (N: column-major, Z: row-major),
# then how each box stores its elements.
_SHORT = {
    ("ColMajor", "RowMajor"): "NZ",
    ("RowMajor", "RowMajor"): "ZZ",
    ("RowMajor", "ColMajor"): "ZN",
    ("ColMajor", "ColMajor"): "NN",
}


class TileFractalRule(RuleBase, Recognised, Placed, StaticBreak, TileFilter):
    """The operands' tiles have this BLayout and this SLayout."""

    kind: Literal["tile_fractal"] = "tile_fractal"
    operands: list[Name] = Field(min_length=1)
    blayout: Literal["RowMajor", "ColMajor"]
    slayout: Literal["NoneBox", "RowMajor", "ColMajor"]
    tile: CppIdent | None = Field(
        default=None,
        description="a cube tile alias (`TileLeft`) whose layout under each profile the operands take; "
        "the loader fills in `blayout` and `slayout` per profile from the alias",
    )
    page_prefixes: ClassVar[tuple[str, ...]] = ("box layout of",)

    @property
    def _named(self) -> str:
        """` (NZ, as TileAcc)`: the layout's short name and the alias it is the layout of."""
        short = _SHORT.get((self.blayout, self.slayout))
        said = [s for s in (short, f"as {self.tile}" if self.tile else None) if s]
        return f" ({', '.join(said)})" if said else ""

    def placement(self) -> tuple[str, str] | None:
        # The at-a-glance table's layout per profile: `ZZ boxes (TileLeft)`.
        short = _SHORT.get((self.blayout, self.slayout))
        spelled = f"{short} boxes" if short else f"`BLayout::{self.blayout}`, `SLayout::{self.slayout}`"
        return ("Layout", spelled + (f" (`{self.tile}`)" if self.tile else ""))

    def admits_layout(self, layout: str) -> bool:
        return layout == self.blayout

    def condition(self, op: OpView, rv: RuleView) -> str:
        row = "" if self.blayout == "RowMajor" else "!"
        return " && ".join(
            f"{row}{t}::isRowMajor && {t}::SFractal == SLayout::{self.slayout}" for t in rv.types
        )

    def text(self, op: OpView) -> str:
        what = " and ".join(self.operands)
        layout = f"BLayout::{self.blayout} with SLayout::{self.slayout}"
        return f"box layout of {what} must be {layout}{self._named}"

    def doc(self, op: OpView) -> str:
        what = " and ".join(f"`{o}`" for o in self.operands)
        return with_note(
            f"Box layout of {what} must be `BLayout::{self.blayout}` with `SLayout::{self.slayout}`"
            + self._named.replace(f"as {self.tile}", f"as `{self.tile}`"),
            self.note,
        )

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        m = re.match(
            r"Box layout of (.+?) must be BLayout::(\w+) with SLayout::(\w+)"
            r"(?: \((?:[NZ]{2})?(?:, )?(?:as (\w+))?\))?",
            line.text,
        )
        if m is None:
            return None
        operands = [o for o in re.findall(r"\w+", m.group(1)) if o != "and"]
        found: dict[str, Any] = {"operands": operands, "blayout": m.group(2), "slayout": m.group(3)}
        if m.group(4):
            found["tile"] = m.group(4)
        return found

    def legalise(self, tiles: dict[str, TileDecl]) -> dict[str, TileDecl]:
        slayout = None if self.slayout == "NoneBox" else self.slayout
        return {
            n: replace(t, layout=self.blayout, slayout=slayout) if n in self.operands else t
            for n, t in tiles.items()
        }

    def legalise_static(self, tiles: dict[str, TileDecl]) -> dict[str, TileDecl]:
        return self.legalise(tiles)

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        # A plain tile gets boxes (the other SLayout, same BLayout); a boxed one keeps its boxes, whose
        # shape the Tile type ties to the element size, and has them follow each other the other way
        # (an NZ tile becomes ZZ, a ZN one NN).
        first = self.operands[0]
        t = tiles[first]
        if self.slayout != "NoneBox" and t.slayout == self.slayout:
            other = "RowMajor" if self.blayout != "RowMajor" else "ColMajor"
            return Broken({**tiles, first: replace(t, layout=other)}, changed=first)
        other = "RowMajor" if self.slayout != "RowMajor" else "ColMajor"
        return Broken({**tiles, first: replace(t, slayout=other)}, changed=first)
