"""Row and column reductions (kind `tile_reduce`): `dst[i, 0] = sum_j src[i, j]` (`folds: rows`) or
`dst[0, j] = sum_i src[i, j]` (`folds: cols`) over src's valid region; the spec names the axis.

The expression is one reduction at the top, e.g. `sum(src)` or `max(src * scale)`: the term is
evaluated per element in the compute type and folded left to right (j = 0, 1, ... for a row),
which is also how the numpy golden folds, so float sums compare exactly. The result tile is
R x 1 (row) or 1 x C (column) in its valid region; storage may be wider, and elements outside the
valid region are left untouched.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from ..importer.contract import FORMULA, PageOp
from ..kindlib.tilemath import TileMath
from ..spec import expr as semantics
from ..spec.kindfacts import KindFacts

if TYPE_CHECKING:
    from ..kind_api import OpViewAPI

# The extent a reduced result keeps along the reduced axis in the tests' storage (wider than
# the valid 1, so the tests see that the rest is left untouched).
RESULT_STORAGE = 8


# What one result folds (`semantics.folds`), and the axis of the source it runs along.
AXES = {"rows": "row", "cols": "col"}


class TileReduce(TileMath):
    name: ClassVar[str] = "tile_reduce"
    facts: ClassVar[KindFacts] = KindFacts(folds=tuple(AXES))
    whole_tile_bench: ClassVar[bool] = False  # the result is one column (row), not a whole tile

    @staticmethod
    def axis(op: OpViewAPI) -> str:
        """The axis each result folds along: "row" (an R x 1 result) or "col" (1 x C)."""
        return AXES[str(op.spec.semantics.folds)]

    # ----------------------------------------------------------------- import
    def recognise(self, page: PageOp) -> int | None:
        return None if page.vector or page.reduces_over is None else FORMULA

    def import_semantics(self, page: PageOp) -> dict[str, Any]:
        # The formula folds at the top of its right side: over `i` a column reduction
        # (`\sum_{i} src_{i,j}`), over any other index (`j`) a row reduction.
        return {"folds": "cols" if page.reduces_over == "i" else "rows"}

    def check_expr(self, expr: semantics.Node) -> list[str]:
        found = semantics.reduction(expr)
        if found is None:
            return [f"a {self.name} op's expression is one reduction, e.g. `sum(src)`"]
        if semantics.has_reduction(found[1]):
            return ["reductions do not nest"]
        return []

    def arg_value_output(self, expr: semantics.Node) -> bool:
        found = semantics.reduction(expr)
        return found is not None and semantics.is_arg_reduction(found[0])

    # ----------------------------------------------------------------- math
    def result_index(self, op: OpViewAPI) -> str:
        return "i,0" if self.axis(op) == "row" else "0,j"

    def operand_index(self, op: OpViewAPI, operand: str) -> str:
        return "i,j"

    def reduce_index(self, op: OpViewAPI) -> str:
        return "j" if self.axis(op) == "row" else "i"

    def reduce_axis(self, op: OpViewAPI) -> int:
        return 1 if self.axis(op) == "row" else 0

    # ----------------------------------------------------------------- lowering
    def region_source(self, op: OpViewAPI) -> str:
        return self.source(op)

    def source(self, op: OpViewAPI) -> str:
        """The tile whose valid region the reduction walks: the first tile its term reads."""
        found = semantics.reduction(op.loaded.expr)
        assert found is not None
        used = semantics.names_used(found[1])
        return next(o.name for o in op.spec.operands if o.kind == "tile" and o.name in used)

    def fold(self, op: OpViewAPI) -> dict[str, str | bool]:
        """C++ of the term (over `<name>_v` element values) and the helper that folds it in."""
        found = semantics.reduction(op.loaded.expr)
        assert found is not None
        reducer, term = found
        return {
            "term": semantics.to_cpp(term, lambda n: f"{n}_v", "C", op.enums_of),
            "step": semantics.reducer_step(reducer),
            "arg": semantics.is_arg_reduction(reducer),
        }

    # ----------------------------------------------------------------- tests
    def tile_shape(
        self, op: OpViewAPI, operand: str, rows: int, cols: int, vr: int, vc: int
    ) -> tuple[int, int, int, int]:
        if op.spec.operand(operand).role != "dst":
            return rows, cols, vr, vc
        if self.axis(op) == "row":
            return rows, RESULT_STORAGE, vr, 1
        return RESULT_STORAGE, cols, 1, vc
