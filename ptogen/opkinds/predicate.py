"""Comparisons that write a packed predicate tile (TCMP, TCMPS).

The expression is evaluated per element of the first source's valid region, like an element-wise
op; the result is one bit per element, B = 8 * sizeof(destination element) to an element, in the
destination operand's `packed` layout: `rows` (predicate (i, j) is bit j mod B of element
(i, j div B)) or `stream` (predicate n = i * cols + j is bit n mod B of the (n div B)-th element of
the destination's valid region, row-major). The whole destination is cleared first, so bits past
the predicates read as false (as upstream's CPU simulator does).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..importer.contract import FORMULA, PageOp
from ..kindlib.tilemath import TileMath, case_inputs, pack_predicates
from ..spec.kindfacts import KindFacts
from ..testing.golden import Check, GoldenContext, compute_dtype, describe_mismatch, logical
from ..testing.manifest import TileShape
from ..testing.results import Outcome

if TYPE_CHECKING:
    from ..kind_api import OpViewAPI
    from ..spec.model import OpSpec


class Predicate(TileMath):
    name: ClassVar[str] = "predicate"
    # Its result is a predicate, not a value of the sources' type (no rounding to it).
    facts: ClassVar[KindFacts] = KindFacts()

    # ----------------------------------------------------------------- import
    def recognise(self, page: PageOp) -> int | None:
        # The formula writes the packed result: `dst_{i,\lfloor j/B \rfloor} = ...`.
        if page.vector or page.reduces_over is not None or "lfloor" not in page.lhs:
            return None
        return FORMULA

    def complete_import(self, semantics: dict[str, Any], operands: list[dict[str, Any]]) -> None:
        # one predicate bit per element, a tile row per predicate row
        next(o for o in operands if o["name"] == semantics["domain"])["packed"] = "rows"

    def region(self, op: OpViewAPI) -> str:
        return op.compute_operand

    def check_operands(self, spec: OpSpec) -> list[tuple[tuple[str | int, ...], str]]:
        problems = super().check_operands(spec)
        for i, o in enumerate(spec.operands):
            if o.role == "dst" and not o.packed:
                problems.append((("operands", i, "packed"), "a predicate op's destination is `packed`"))
        return problems

    def result_index(self, op: OpViewAPI) -> str:
        return r"i,\lfloor j/B \rfloor"

    def template(self, part: str) -> str:
        return f"opkinds/predicate/{part}"

    def prepare_cases(self, gx: GoldenContext, data: Path) -> list[Check]:
        op = gx.op
        types = {n: gx.np_type(d) for n, d in gx.group.dtypes.items()}
        dst, region = op.domain, op.region
        storage = types[dst]
        width = 8 * np.dtype(storage).itemsize
        cdt = compute_dtype(types[op.compute])
        checks: list[Check] = []
        for case in gx.group.cases:
            _, scalars, args = case_inputs(gx, case, data, cdt)
            t, src = case.tiles[dst], case.tiles[region]
            vr, vc = src.valid_rows, src.valid_cols
            with np.errstate(all="ignore"):
                got = gx.reference.reference(cdt.type, storage.type, *args)
                pred = np.broadcast_to(np.asarray(got) != 0, (vr, vc))
            want = np.zeros((t.rows, t.cols), dtype=storage)
            if dst in op.streams:
                flat = np.asarray(pred).reshape(-1)[: t.valid_rows * t.valid_cols * width]
                count = math.ceil(flat.size / width)
                words = pack_predicates(flat.reshape(1, -1), storage, count).reshape(-1)
                filled = np.zeros(t.valid_rows * t.valid_cols, dtype=storage)
                filled[:count] = words
                want[: t.valid_rows, : t.valid_cols] = filled.reshape(t.valid_rows, t.valid_cols)
            else:
                words_per_row = min(math.ceil(vc / width), t.valid_cols)
                want[:vr, :words_per_row] = pack_predicates(np.asarray(pred), storage, words_per_row)
            label = f"{gx.label} case {case.index} ({case.label})"
            checks.append(_whole_tile_check(f"c{case.index}_{dst}.out", t, want, label, scalars, storage))
        return checks


def _whole_tile_check(
    out_name: str, t: TileShape, want: np.ndarray, label: str, scalars: dict[str, Any], storage: Any
) -> Check:
    """Every element of the destination tile, padding included, must be the expected word."""

    def check(data_dir: Path) -> Outcome:
        got = logical(np.fromfile(data_dir / out_name, dtype=storage), t.rows, t.cols, t.layout)
        bad = got != want
        if bad.any():
            return Outcome("fail", label, describe_mismatch(bad, got, want, "packed", f"; scalars {scalars}"))
        return Outcome("pass", label)

    return check
