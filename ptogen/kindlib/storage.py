"""Kinds whose destination tile reads and writes another tile's storage (views, reshapes): two
tiles, the view and the viewed, and optionally the row and column the view starts at."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from ..opkinds.base import NamesOperand

if TYPE_CHECKING:
    from ..kind_api import FormViewAPI, OpViewAPI
    from ..spec.model import OpSpec


class StorageView(NamesOperand):
    """`dst` is a view of `src`'s storage: nothing is copied."""

    domain_starts: ClassVar[tuple[str, ...]] = ("For each",)

    # ----------------------------------------------------------------- spec checks
    def check_operands(self, spec: OpSpec) -> list[tuple[tuple[str | int, ...], str]]:
        tiles = [o for o in spec.operands if o.kind == "tile"]
        scalars = [o for o in spec.operands if o.kind == "scalar"]
        if len(tiles) != 2 or len(scalars) not in (0, 2) or len(spec.operands) != 2 + len(scalars):
            return [
                (
                    ("operands",),
                    "a view op has two tiles (the view, the viewed) and two scalars (row, col) or none",
                )
            ]
        return []

    # ----------------------------------------------------------------- naming

    @staticmethod
    def offsets(op: OpViewAPI) -> tuple[str, str] | None:
        """The scalar operands giving the view's first row and column (None: it starts at (0, 0))."""
        names = [o.name for o in op.spec.operands if o.kind == "scalar"]
        return (names[0], names[1]) if names else None

    # ----------------------------------------------------------------- math
    def result_index(self, op: OpViewAPI) -> str:
        return "i,j"

    def operand_index(self, op: OpViewAPI, operand: str) -> str:
        offsets = self.offsets(op)
        if operand != self.source(op) or offsets is None:
            return "i,j"
        row, col = (n.replace("_", r"\_") for n in offsets)
        return rf"\mathrm{{{row}}} + i,\mathrm{{{col}}} + j"

    # ----------------------------------------------------------------- header and backend
    def sim_args(self, op: OpViewAPI, form: FormViewAPI) -> list[str]:
        """The view, the viewed tile, then the row and column (the math reads only the tile)."""
        offsets = self.offsets(op)
        return [*form.impl_args, *(form.arg(n) for n in offsets or ())]
