"""Rule kinds of binding a tile or GlobalTensor to memory (TASSIGN): `address_type` (what an address
may be) and `placement` (a compile-time address lies within the location's memory)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal

from pydantic import Field

from ..spec.fields import Name
from .base import Problem, RuleBase, with_note
from .page import PageContext, PageLine
from .parts import Broken, OwnForms, Recognised, ScalarOperands, StaticBreak

if TYPE_CHECKING:
    from ..rule_api import RuleBreak as BreakContext
    from ..rule_api import RuleLowering as RuleView
    from ..rule_api import RuleOp as OpView
    from ..rule_api import SpecFacts as OpSpec
    from ..rule_api import TargetFacts as Targets
    from ..rule_api import TileDecl


class AddressTypeRule(RuleBase, Recognised, ScalarOperands, StaticBreak):
    """What an address may be (TASSIGN): an integer byte offset when the bound object is a tile, a
    pointer to its element type when it is a GlobalTensor."""

    kind: Literal["address_type"] = "address_type"
    operands: list[Name] = Field(min_length=2, max_length=2, description="[the bound object, the address]")
    page_prefixes: ClassVar[tuple[str, ...]] = ("the address ",)

    def condition(self, op: OpView, rv: RuleView) -> str:
        t, a = rv.types
        element = f"std::is_same_v<std::remove_cv_t<std::remove_pointer_t<{a}>>, typename {t}::DType>"
        return (
            f"((is_tile_data_v<{t}> || is_conv_tile_v<{t}>) && std::is_integral_v<{a}>) || "
            f"(is_global_data_v<{t}> && std::is_pointer_v<{a}> && {element})"
        )

    def text(self, op: OpView) -> str:
        obj, addr = self.operands
        return f"{addr} must be an integer for a tile {obj}, a pointer to its element type for a GlobalTensor"

    def doc(self, op: OpView) -> str:
        obj, addr = self.operands
        return with_note(
            f"The address `{addr}` must be an integer (a byte offset) when `{obj}` is a tile, and a "
            f"pointer to `{obj}`'s element type when it is a GlobalTensor",
            self.note,
        )

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        m = re.match(
            r"The address (\w+) must be an integer \(a byte offset\) when (\w+) is a tile", line.text
        )
        return {"operands": [m.group(2), m.group(1)]} if m else None

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        return Broken(dict(tiles), scalar_types={self.operands[1]: "0.5"})


class PlacementRule(RuleBase, Recognised, ScalarOperands, OwnForms, StaticBreak):
    """A tile placed at a compile-time address (TASSIGN<Addr>) lies within the memory of its
    location at an aligned address. It checks the declarations whose template carries the address,
    against the `memories` of its one profile (targets.yaml); a location the profile does not list
    does not exist on the target."""

    kind: Literal["placement"] = "placement"
    operands: list[Name] = Field(min_length=2, max_length=2, description="[the tile, the address]")
    alignment: Annotated[int, Field(ge=1, le=4096)] = Field(description="bytes the address is a multiple of")
    page_prefixes: ClassVar[tuple[str, ...]] = ("with the address as a template argument",)

    def check(self, spec: OpSpec, targets: Targets) -> Iterator[Problem]:
        yield from super().check(spec, targets)
        if self.profiles is None or len(self.profiles) != 1:
            yield ("profiles",), "a placement rule names the one profile whose memories it checks"
        elif not targets.profile(self.profiles[0]).memories:
            yield ("profiles", 0), f"profile {self.profiles[0]} states no `memories` in targets.yaml"

    def in_form(self, form: Any) -> bool:
        return form.carrier(self.operands[1]) is not None

    def _memories(self, op: OpView) -> dict[str, int]:
        assert self.profiles is not None
        return {str(loc): cap for loc, cap in op.targets.profile(self.profiles[0]).memories.items()}

    def condition(self, op: OpView, rv: RuleView) -> str:
        t, a = rv.types
        size = f"sim::tile_storage_bytes<{t}>()"
        fits = " || ".join(
            f"({t}::Loc == TileType::{loc} && {a} <= {cap} && {size} <= {cap} - {a})"
            for loc, cap in self._memories(op).items()
        )
        return f"({fits}) && {a} % {self.alignment} == 0"

    def _sizes(self, op: OpView, code: bool = False) -> str:
        tick = "`" if code else ""
        return ", ".join(f"{tick}{loc}{tick} {cap}" for loc, cap in self._memories(op).items())

    def text(self, op: OpView) -> str:
        tile, addr = self.operands
        return (
            f"{tile} must lie within its memory at a {self.alignment}-byte aligned {addr} "
            f"(bytes per location: {self._sizes(op)})"
        )

    def doc(self, op: OpView) -> str:
        tile, addr = self.operands
        sizes = self._sizes(op, code=True)
        return with_note(
            f"With the address as a template argument, `{tile}` must lie within the memory of its "
            f"location at a {self.alignment}-byte aligned address: `{addr} % {self.alignment} == 0` and "
            f"`{addr}` plus the tile's bytes (`Rows * Cols * sizeof(DType)`, a ConvTile's `BufferSize`) "
            f"at most the memory's size in bytes ({sizes}; no "
            "other location exists on this target)",
            self.note,
        )

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        m = re.match(
            r"With the address as a template argument, (\w+) must lie within the memory of its location "
            r"at a (\d+)-byte aligned address: (\w+) % .*? \((.*?); no other location",
            line.text,
        )
        if m is None:
            return None  # the sizes the line lists are the profile's `memories` (targets.yaml)
        return {"operands": [m.group(1), m.group(3)], "alignment": int(m.group(2))}

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        # The last aligned address of the unified buffer: the tile no longer fits behind it.
        top = self._memories(bx.op).get("Vec", 0) - self.alignment
        return Broken(dict(tiles), scalar_types={self.operands[1]: hex(max(top, 0))})
