"""The `conv_layouts` rule kind: the conv layouts (`Layout::NCHW`, `NC1HWC0`, `FRACTAL_Z`, ...) the
ConvTile operands of a call may have, as one layout per operand or as combinations of them (TTRANS
converts NCHW to NC1HWC0, NC1HWC0 to FRACTAL_Z, ...; TEXTRACT reads a FRACTAL_Z source).

A ConvTile names its layout in its type (`ConvTile<Loc, T, Bytes, Layout::NC1HWC0, Shape>`), so the
rule is a `static_assert` over `T::layout`. It speaks of ConvTiles only, so an op states it in a
variant (`variants:` of its spec), whose calls take ConvTile operands.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar, Literal, get_args

from pydantic import Field, model_validator

from ..spec.fields import Name
from .base import Problem, RuleBase, with_note
from .page import PageContext, PageLine
from .parts import Broken, Recognised, StaticBreak, TileFilter

if TYPE_CHECKING:
    from ..rule_api import RuleBreak as BreakContext
    from ..rule_api import RuleLowering as RuleView
    from ..rule_api import RuleOp as OpView
    from ..rule_api import SpecFacts as OpSpec
    from ..rule_api import TargetFacts as Targets
    from ..rule_api import TileDecl

# The layouts a ConvTile may have (pto/common/global_tensor.hpp's `Layout`, the conv ones).
ConvLayout = Literal[
    "NC1HWC0",
    "GNC1HWC0",
    "NCHW",
    "GNCHW",
    "NHWC",
    "NDC1HWC0",
    "NCDHW",
    "FRACTAL_Z",
    "FRACTAL_Z_S16S8",
    "FRACTAL_Z_3D",
]

CONV_LAYOUTS: tuple[str, ...] = get_args(ConvLayout)


class ConvLayoutsRule(RuleBase, Recognised, StaticBreak, TileFilter):
    """The layouts of the named ConvTile operands are one of the listed combinations (one layout
    per operand, in the operands' order)."""

    kind: Literal["conv_layouts"] = "conv_layouts"
    operands: list[Name] = Field(min_length=1, max_length=2)
    layouts: list[list[ConvLayout]] = Field(
        min_length=1,
        description="the allowed combinations, each one layout per operand in order, e.g. `[NCHW, NC1HWC0]`",
    )
    page_prefixes: ClassVar[tuple[str, ...]] = ("convtile layouts",)

    @model_validator(mode="after")
    def _one_per_operand(self) -> ConvLayoutsRule:
        for combo in self.layouts:
            if len(combo) != len(self.operands):
                raise ValueError(
                    f"each combination names one layout per operand ({len(self.operands)}), not {len(combo)}"
                )
        return self

    def check(self, spec: OpSpec, targets: Targets) -> Iterator[Problem]:
        yield from super().check(spec, targets)
        if spec.intrinsic is None:
            yield ("kind",), "conv_layouts rules apply to tile intrinsics only"

    def _arms(self, types: list[str]) -> list[str]:
        return [
            " && ".join(f"{t}::layout == Layout::{lay}" for t, lay in zip(types, combo, strict=True))
            for combo in self.layouts
        ]

    def condition(self, op: OpView, rv: RuleView) -> str:
        arms = self._arms(list(rv.types))
        return " || ".join(f"({a})" for a in arms) if len(arms) > 1 else arms[0]

    def _combos(self) -> list[str]:
        return [" to ".join(combo) for combo in self.layouts]

    def text(self, op: OpView) -> str:
        what = " and ".join(self.operands)
        return f"ConvTile layouts of {what} must be one of: {', '.join(self._combos())}"

    def doc(self, op: OpView) -> str:
        what = " and ".join(f"`{o}`" for o in self.operands)
        combos = ", ".join(" → ".join(f"`{lay}`" for lay in combo) for combo in self.layouts)
        return with_note(f"ConvTile layouts of {what} must be one of: {combos}", self.note)

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        m = re.match(r"ConvTile layouts of (.+?) must be one of: (.+?)\.?$", line.text)
        if m is None:
            return None
        operands = re.findall(r"(\w+)", m.group(1).replace(" and ", " "))
        combos = [re.findall(r"(\w+)", c) for c in m.group(2).split(", ")]
        if not combos or any(len(c) != len(operands) for c in combos):
            return None
        return {"operands": operands, "layouts": combos}

    def admits_tiles(self, tiles: dict[str, TileDecl]) -> bool:
        """Whether ConvTiles of these layouts (the test plan's `TileDecl.conv`) are a listed combination."""
        convs = [tiles[o].conv if o in tiles else None for o in self.operands]
        if any(c is None for c in convs):
            return True
        return [c[0] for c in convs if c is not None] in [list(combo) for combo in self.layouts]

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        """The last operand's ConvTile takes a layout that forms no listed combination with the
        others' (one the rule names elsewhere, else another conv layout)."""
        last = self.operands[-1]
        tile = tiles[last]
        if tile.conv is None:
            raise NotImplementedError("a conv_layouts rule is broken on ConvTile operands (TileDecl.conv)")
        given = [tiles[o].conv[0] if tiles[o].conv else "" for o in self.operands[:-1]]  # type: ignore[index]
        named = [combo[-1] for combo in self.layouts]
        candidates = [*dict.fromkeys(named), *(lay for lay in CONV_LAYOUTS if lay not in named)]
        listed = [list(combo) for combo in self.layouts]
        other = next(lay for lay in candidates if [*given, lay] not in listed)
        return Broken({**tiles, last: replace(tile, conv=(other, tile.conv[1]))}, changed=last)
