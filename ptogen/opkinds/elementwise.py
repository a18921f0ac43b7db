"""Element-wise tile ops: `dst[i, j] = f(src[i, j], ..., scalars)` over dst's valid region (the walk,
plans and goldens are the tile-math family's, kindlib/tilemath.py)."""

from __future__ import annotations

from typing import ClassVar

from ..importer.contract import FALLBACK, PageOp
from ..kindlib.tilemath import TileMath
from ..spec.kindfacts import KindFacts


class Elementwise(TileMath):
    name: ClassVar[str] = "elementwise"
    # Its simulator computes `as_source(x)` in the element type of the tiles x reads.
    facts: ClassVar[KindFacts] = KindFacts(form_exprs=True, rounds_to_element=True, rounds_to_source=True)

    def recognise(self, page: PageOp) -> int | None:
        # Any tile page is element-wise unless another kind recognises more (the other kinds of the
        # tile-math family each recognise their own pages).
        return None if page.vector else FALLBACK
