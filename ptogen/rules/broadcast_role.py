"""`broadcast_role`: of two sources, one is full-sized and the other one value (or one 32-byte
block) per row, and either may take either role, as the TROWEXPAND* pages state: "exactly one of
`src0` or `src1` must have the same valid shape as `dst`"; that operand is row-major, the other
(the expanded operand) has dst's valid rows and either one valid column, column-major (the pages'
Mode 1), or `32 / sizeof(T)` valid columns, row-major (Mode 2). Checked when the op runs (valid
shapes may be dynamic), in the order upstream's CPU simulator checks it: the first source is the
full-sized one whenever it has dst's valid shape."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import Field

from ..rule_api import ELEMENT_BYTES
from ..spec.fields import Name
from .base import Problem, RuleBase, with_note
from .page import PageContext, PageLine
from .parts import Recognised, RuntimeCheck, TileFilter

if TYPE_CHECKING:
    from ..rule_api import RuleLowering as RuleView
    from ..rule_api import RuleOp as OpView
    from ..rule_api import SpecFacts as OpSpec
    from ..rule_api import TargetFacts as Targets
    from ..rule_api import TileDecl

# Bytes of the block a row-major expanded operand holds per row (the pages' Mode 2).
BLOCK_BYTES = 32


class BroadcastRoleRule(RuleBase, Recognised, RuntimeCheck, TileFilter):
    """`operands` are the result, then the documented full-sized source and the documented per-row
    source; the two sources may swap roles."""

    kind: Literal["broadcast_role"] = "broadcast_role"
    operands: list[Name] = Field(min_length=3, max_length=3, description="[dst, full-sized, per-row]")
    page_prefixes: ClassVar[tuple[str, ...]] = ("runtime: exactly one of",)

    def check(self, spec: OpSpec, targets: Targets) -> Iterator[Problem]:
        yield from super().check(spec, targets)
        names = {o.name for o in spec.operands}
        if set(self.operands) <= names and len(set(self.operands)) != 3:
            yield ("operands",), "broadcast_role names three distinct tiles: the result and the two sources"

    def condition(self, op: OpView, rv: RuleView) -> str:
        d, a, b = self.operands
        _, ta, tb = rv.types

        def same(x: str) -> str:
            return f"{x}.GetValidRow() == {d}.GetValidRow() && {x}.GetValidCol() == {d}.GetValidCol()"

        def per_row(x: str, tx: str) -> str:
            block = f"{BLOCK_BYTES} / sizeof(typename {tx}::DType)"
            return (
                f"{x}.GetValidRow() == {d}.GetValidRow() && "
                f"({tx}::isRowMajor ? {x}.GetValidCol() == {block} : {x}.GetValidCol() == 1)"
            )

        full = f"(({same(a)}) && {ta}::isRowMajor) || (({same(b)}) && {tb}::isRowMajor)"
        expanded = f"(({same(a)}) ? ({per_row(b, tb)}) : ({per_row(a, ta)}))"
        return f"({full}) && {expanded}"

    def text(self, op: OpView) -> str:
        d, a, b = self.operands
        return (
            f"one of {a} and {b} must have the valid shape of {d} and be row-major, the other the valid rows "
            f"of {d} and one column (column-major) or one 32-byte block (row-major)"
        )

    def doc(self, op: OpView) -> str:
        d, a, b = self.operands
        return with_note(
            f"Runtime: exactly one of `{a}` or `{b}` has the valid shape of `{d}` and is row-major (the "
            f"full-sized operand; `{a}` when both have it); the other, the expanded operand, has "
            f"`{d}.GetValidRow()` valid rows and either one valid column, column-major (a value per row), "
            f"or `32 / sizeof(T)` valid columns, row-major (a 32-byte block per row, read at column "
            f"`j mod (32 / sizeof(T))`)",
            self.note,
        )

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        if not line.low.startswith("runtime: exactly one of"):
            return None
        # The line names the two sources, then the result: "exactly one of `a` or `b` has the valid
        # shape of `d`".
        named = list(dict.fromkeys(page.named(line.text)))
        return {"operands": [named[2], named[0], named[1]]} if len(named) == 3 else None

    def legalise(self, tiles: dict[str, TileDecl]) -> dict[str, TileDecl]:
        """The expanded operand of a planned case (the source without dst's valid shape) made legal:
        kept as a row-major 32-byte block when it is one, else one valid column, column-major."""
        d, a, b = self.operands
        if d not in tiles or a not in tiles or b not in tiles:
            return tiles
        dst = tiles[d]

        def same(t: TileDecl) -> bool:
            return (t.valid_rows, t.valid_cols) == (dst.valid_rows, dst.valid_cols)

        expanded = b if same(tiles[a]) else a
        t = tiles[expanded]
        if t.layout == "RowMajor" and t.valid_cols == self.block(t.dtype) and t.valid_rows == dst.valid_rows:
            return tiles
        fixed = replace(
            t, layout="ColMajor", valid_cols=1, valid_rows=dst.valid_rows, rows=max(t.rows, dst.rows)
        )
        return {**tiles, expanded: fixed}

    @staticmethod
    def block(dtype: str) -> int:
        """Elements of `dtype` in one 32-byte block (the valid columns of Mode 2)."""
        return BLOCK_BYTES // ELEMENT_BYTES.get(dtype, BLOCK_BYTES)

    def break_runtime(
        self, tiles: dict[str, TileDecl], addresses: dict[str, int]
    ) -> tuple[dict[str, TileDecl], dict[str, int]]:
        # The expanded operand one valid column wider: neither one column nor a block.
        d, a, b = self.operands
        dst = tiles[d]
        same_a = (tiles[a].valid_rows, tiles[a].valid_cols) == (dst.valid_rows, dst.valid_cols)
        expanded = b if same_a else a
        t = tiles[expanded]
        return {
            **tiles,
            expanded: replace(t, valid_cols=t.valid_cols + 1, cols=max(t.cols, t.valid_cols + 1)),
        }, addresses
