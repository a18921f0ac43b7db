"""Element-wise tile ops: `dst[i, j] = f(src[i, j], ..., scalars)` over dst's valid region (the walk,
plans and goldens are the tile-math family's, kindlib/tilemath.py)."""

from __future__ import annotations

from typing import ClassVar

from ..importer.contract import FALLBACK, PageOp
from ..kindlib.tilemath import TileMath


class Elementwise(TileMath):
    name: ClassVar[str] = "elementwise"

    def recognise(self, page: PageOp) -> int | None:
        # Any tile page is element-wise unless another kind recognises more (the other kinds of the
        # tile-math family each recognise their own pages).
        return None if page.vector else FALLBACK
