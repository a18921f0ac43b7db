"""Sorting ops on value-index records: TSORT32 (`block_sort`) and TMRGSORT (`merge_sort`).

A record is 8 bytes: the value in the first element and a `uint32_t` index in the last four bytes
(`float`/`int32_t`: two elements; `half`/`bfloat16_t`/`int16_t`: the value, one zero element and the
index in two elements). Both kinds order records by value from largest to smallest.

`block_sort` sorts each row of `src` in blocks of 32 columns, pairing element (i, j) with index
`idx[i, j]`; equal values keep the smaller index first. The golden computes the order from that
rule (Python's sort on the key (-value, index)), never from the simulator's output.

`merge_sort` merges descending record lists: 2, 3 or 4 tiles of one row each (`src0`.. `src3`,
through `tmp`, reporting how many records of each list it consumed in a `MrgSortExecutedNumList`
and, with `exhausted`, stopping when one list runs out), or the four consecutive blocks of `blockLen`
elements of one tile, group after group. At each step the largest head is taken; on equal values
the list with the smaller number wins.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..testing.golden import Check, GoldenContext, _bits, _describe, inputs
from ..testing.manifest import TileShape
from ..testing.plan import (
    OpTests,
    RuntimeCase,
    RuntimeKernel,
    TileDecl,
    layout_addresses,
    make_call,
    plan_rule_cases,
    tile_operands,
)
from ..testing.results import Outcome
from .base import DOMAIN, NamesOperand, PageOp
from .move import boxed_logical

if TYPE_CHECKING:
    from ..kind_api import FormViewAPI, OpViewAPI, ProjectViewAPI

RECORD_BYTES = 8
BLOCK = 32

# (label, rows, cols, valid rows, valid cols, run-time valid, ties): the source's shape; the
# destination is rows x (cols * elements per record); `ties` draws values from a few levels.
SORT_SHAPES = [
    ("2x64, values from four levels (ties by index)", 2, 64, 2, 64, False, True),
    ("4x96, valid 3x77 (a short last block)", 4, 96, 3, 77, False, False),
    ("8x64, run-time valid 5x40", 8, 64, 5, 40, True, False),
    ("1x32, one block", 1, 32, 1, 32, False, False),
]


def element_bytes(op: OpViewAPI, dtype: str) -> int:
    bits = next(d.bits for d in op.targets.dtypes if d.name == dtype)
    return int(bits) // 8


def per_record(op: OpViewAPI, dtype: str) -> int:
    """Elements of one 8-byte record of this element type."""
    return RECORD_BYTES // element_bytes(op, dtype)


def sort_key(value: Any, index: int) -> tuple[Any, int]:
    """The stated order: larger value first, then smaller index (Python numbers: no overflow)."""
    v = float(value) if isinstance(value, np.floating) or not isinstance(value, np.integer) else int(value)
    return (-v, index)


def records(values: np.ndarray, indices: np.ndarray, dt: np.dtype) -> np.ndarray:
    """Value-index records as bytes: the value, zero bytes up to 4, the index's 4 bytes."""
    n = len(values)
    out = np.zeros((n, RECORD_BYTES), dtype=np.uint8)
    out[:, : dt.itemsize] = np.ascontiguousarray(values.astype(dt)).view(np.uint8).reshape(n, dt.itemsize)
    out[:, 4:] = np.ascontiguousarray(indices.astype("<u4")).view(np.uint8).reshape(n, 4)
    return out.reshape(-1)


def no_nan(vals: np.ndarray, dt: np.dtype) -> np.ndarray:
    """The values with NaN replaced (a NaN has no place in a descending order)."""
    if dt.kind == "f" or dt.name == "bfloat16":
        as_f = vals.astype(np.float32)
        return np.where(np.isnan(as_f), np.float32(0.5), as_f).astype(dt)
    return vals


def region_check(
    out: str, t: TileShape, want: np.ndarray, before: np.ndarray, label: str, dt: np.dtype
) -> Check:
    """The valid region holds `want` bit for bit; the rest of the tile is untouched."""
    vr, vc = want.shape

    def check(data_dir: Path) -> Outcome:
        got = boxed_logical(np.fromfile(data_dir / out, dtype=dt), t)
        bad = _bits(got[:vr, :vc]) != _bits(want)
        if bad.any():
            return Outcome("fail", label, _describe(bad, got[:vr, :vc], want, "valid"))
        outside = np.ones(got.shape, dtype=bool)
        outside[:vr, :vc] = False
        changed = outside & (_bits(got) != _bits(before))
        if changed.any():
            return Outcome("fail", label, _describe(changed, got, before, "outside-the-sorted-region"))
        return Outcome("pass", label)

    return check


class BlockSort(NamesOperand):
    """TSORT32: each row's valid region sorted in blocks of 32 into value-index records."""

    name: ClassVar[str] = "block_sort"

    def recognise(self, page: PageOp) -> int | None:
        # templates/opkinds/block_sort/domain.md.j2: "For each row ..., sorted in blocks of 32"
        return DOMAIN if not page.vector and page.intro_says("sorted in blocks of 32") else None

    @staticmethod
    def index_operand(op: OpViewAPI) -> str:
        src = NamesOperand.source(op)
        tiles = [o.name for o in op.spec.operands if o.kind == "tile" and o.role == "src"]
        return next(n for n in tiles if n != src)

    def sim_args(self, op: OpViewAPI, form: FormViewAPI) -> list[str]:
        return [form.arg(op.domain), form.arg(self.source(op)), form.arg(self.index_operand(op))]

    def region(self, op: OpViewAPI) -> str:
        return self.source(op)

    def result_index(self, op: OpViewAPI) -> str:
        return "i,k"

    def operand_index(self, op: OpViewAPI, operand: str) -> str:
        return "i,32b+\\pi_{i,b}(k)"

    def math(self, op: OpViewAPI) -> str | None:
        src, idx, dst = self.source(op), self.index_operand(op), op.domain
        return (
            rf"\mathrm{{{dst}}}_{{i,\,32b+k}} = \bigl(\mathrm{{{src}}}_{{i,\,32b+\pi_b(k)}},\;"
            rf"\mathrm{{{idx}}}_{{i,\,32b+\pi_b(k)}}\bigr),\quad "
            rf"\pi_b:\ \mathrm{{{src}}}\ \text{{descending, equal values by smaller }}\mathrm{{{idx}}}"
        )

    def shaped_tile(self, op: OpViewAPI, tile: TileDecl) -> TileDecl:
        """The destination holds one record (8 bytes) per source element."""
        if tile.name != op.domain:
            return tile
        k = per_record(op, tile.dtype)
        return replace(tile, cols=tile.cols * k, valid_cols=tile.valid_cols * k)

    def plan_tests(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        dst, src, idx = op.domain, self.source(op), self.index_operand(op)
        extra = [n for n in tile_operands(op) if n not in (dst, src, idx)]
        for dtype, on in self.dtype_profiles(project, op):
            first = sum(len(k.cases) for k in tests.runtime)
            cases = []
            k = per_record(op, dtype)
            for index, (label, rows, cols, vr, vc, dyn, _ties) in enumerate(SORT_SHAPES, first):
                tiles = {
                    dst: TileDecl(dst, dtype, rows, cols * k, vr, vc * k, dyn),
                    src: TileDecl(src, dtype, rows, cols, vr, vc, dyn),
                    idx: TileDecl(idx, "uint32_t", rows, cols, vr, vc, dyn),
                    **{n: TileDecl(n, dtype, 1, cols, 1, cols) for n in extra},
                }
                call = make_call(op, tiles, dict(op.default_values), {})
                decls = list(tiles.values())
                cases.append(RuntimeCase(index, label, decls, {}, call, layout_addresses(project, decls)))
            dtypes = {dst: dtype, src: dtype, idx: "uint32_t", **{n: dtype for n in extra}}
            tests.runtime.append(RuntimeKernel(dtype, dtypes, {}, on, cases))
        plan_rule_cases(project, op, tests)

    def manifest_extra(self, op: OpViewAPI) -> dict[str, Any]:
        return {"sorted": self.source(op), "carried": self.index_operand(op)}

    def prepare_cases(self, gx: GoldenContext, data: Path) -> list[Check]:
        op = gx.op
        dst, src, idx = op.domain, str(op.extra["sorted"]), str(op.extra["carried"])
        dt = gx.np_type(gx.group.dtypes[src])
        ties = {label for label, *_rest, tie in SORT_SHAPES if tie}
        checks: list[Check] = []
        for case in gx.group.cases:
            k = case.index
            seed = f"{gx.op_name}/{gx.entry.group}/{k}"
            flats: dict[str, np.ndarray] = {}
            for name, t in case.tiles.items():
                ty = np.dtype("<u4") if name == idx else dt
                flats[name] = inputs(ty, t.rows * t.cols, f"{seed}/{name}")
            if case.label in ties:
                levels = np.array([-1.5, 0.0, 2.0, 7.0] if dt.kind in "fV" else [-3, 0, 2, 7]).astype(dt)
                flats[src] = levels[np.arange(flats[src].size) * 7 % 4]
            flats[src] = no_nan(flats[src], dt)
            for name, flat in flats.items():
                flat.tofile(data / f"c{k}_{name}.bin")
            ts, ti, td = case.tiles[src], case.tiles[idx], case.tiles[dst]
            values = boxed_logical(flats[src], ts)[: ts.valid_rows, : ts.valid_cols]
            indices = boxed_logical(flats[idx], ti)[: ts.valid_rows, : ts.valid_cols]
            per = RECORD_BYTES // dt.itemsize
            want = np.zeros((ts.valid_rows, ts.valid_cols * per), dtype=dt)
            for r in range(ts.valid_rows):
                row: list[np.ndarray] = []
                for b in range(0, ts.valid_cols, BLOCK):
                    vs, ix = values[r, b : b + BLOCK], indices[r, b : b + BLOCK]
                    keys = [sort_key(vs[n], int(ix[n])) for n in range(len(vs))]
                    order = sorted(range(len(vs)), key=keys.__getitem__)
                    row.append(records(vs[order], ix[order], dt))
                want[r] = np.concatenate(row).view(dt)
            before = boxed_logical(flats[dst], td)
            label = f"{gx.label} case {k} ({case.label})"
            checks.append(region_check(f"c{k}_{dst}.out", td, want, before, label, dt))
        return checks
