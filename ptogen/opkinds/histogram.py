"""Byte histograms (THISTOGRAM): per source row, 256 bins over one byte of each element, counting
only the elements whose higher bytes pass the cascaded filter. The bins hold running totals (bin b:
the elements whose byte is at most b), as upstream's CPU simulator writes them; see the spec's notes
for the page's per-bin counts.

A kind of its own: its result is 256 running bin totals per row under a byte filter, a shape no
element-wise or reduction kind computes.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from ..importer.contract import DOMAIN, PageOp
from ..kindlib.forms import FormsKind, form_call, written_check
from ..kindlib.layout import tile_logical
from ..testing.golden import Check, GoldenContext, inputs
from ..testing.plan import OpTests, RuntimeCase, TileDecl, plan_rule_cases

if TYPE_CHECKING:
    from ..kind_api import OpViewAPI, ProjectViewAPI

BINS = 256

# (label, source type, byte, rows, cols, valid rows, valid cols).
HIST_CASES = [
    ("uint16_t high byte, 2x16", "uint16_t", 1, 2, 16, 2, 16),
    ("uint16_t low byte filtered by each row's high byte, valid 3x20 of 4x32", "uint16_t", 0, 4, 32, 3, 20),
    ("uint32_t byte 3, 2x16", "uint32_t", 3, 2, 16, 2, 16),
    ("uint32_t byte 2 filtered by byte 3", "uint32_t", 2, 2, 32, 2, 32),
    ("uint32_t byte 1 filtered by bytes 3 and 2, 3x32", "uint32_t", 1, 3, 32, 3, 32),
    ("uint32_t byte 0 filtered by bytes 3, 2 and 1, valid 2x24 of 4x32", "uint32_t", 0, 4, 32, 2, 24),
]


def byte_of(values: np.ndarray, k: int) -> np.ndarray:
    return (values.astype(np.uint64) >> np.uint64(8 * k)) & np.uint64(0xFF)


class Histogram(FormsKind):
    name: ClassVar[str] = "histogram"

    def recognise(self, page: PageOp) -> int | None:
        # templates/opkinds/histogram/domain.md.j2: "..., counted in 256 bins"
        return DOMAIN if not page.vector and page.intro_says("counted in 256 bins") else None

    def math(self, op: OpViewAPI) -> str | None:
        return (
            rf"\mathrm{{{op.domain}}}_{{r,b}} = \bigl|\{{\,j \mid B_k(\mathrm{{src}}_{{r,j}}) \le b "
            r"\wedge F_k(r,j)\,\}\bigr|"
        )

    def shaped_tile(self, op: OpViewAPI, tile: TileDecl) -> TileDecl:
        """The destination has 256 bins a row."""
        return replace(tile, cols=BINS, valid_cols=BINS) if tile.name == op.domain else tile

    def plan_tests(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        form = op.forms[0]
        on = [p.name for p in project.profiles if op.available(p.name)]
        for s_type in ("uint16_t", "uint32_t"):
            cases: list[RuntimeCase] = []
            for label, t, k, r, c, vr, vc in HIST_CASES:
                if t != s_type:
                    continue
                if t == "uint16_t":
                    idx = TileDecl("idx", "uint8_t", 32, 1, vr, 1, layout="ColMajor")
                else:  # a filter row per byte above k (A5: `3 - k` rows as wide as the source)
                    idx = TileDecl("idx", "uint8_t", max(1, 3 - k), c, max(1, 3 - k), 1)
                tiles = [
                    TileDecl("dst", "uint32_t", r, BINS, vr, BINS),
                    TileDecl("src", t, r, c, vr, vc),
                    idx,
                ]
                call = form_call(form, {"byte": f"HistByte::BYTE_{k}"}, {})
                cases.append(self.case(project, tests, cases, label, tiles, call, {"byte": str(k)}))
            self.kernel(tests, s_type, cases, on)
        plan_rule_cases(project, op, tests)

    def prepare_cases(self, gx: GoldenContext, data: Path) -> list[Check]:
        checks: list[Check] = []
        for case in gx.group.cases:
            n = case.index
            seed = f"{gx.op_name}/{gx.entry.group}/{n}"
            label = f"{gx.label} case {n} ({case.label})"
            t = case.tiles
            s_dt = gx.np_type(gx.group.dtypes["src"])
            ts, td, ti = t["src"], t["dst"], t["idx"]
            k = int(case.attrs["byte"])
            width = s_dt.itemsize
            rng = np.random.default_rng(n * 31 + width)
            # Higher bytes from a few values, so that the filters keep some elements and drop others.
            raw = rng.integers(0, 256, size=(ts.rows * ts.cols, width)).astype(np.uint64)
            raw[:, 1:] = rng.integers(3, 6, size=(ts.rows * ts.cols, width - 1))
            packed = np.zeros(ts.rows * ts.cols, dtype=np.uint64)
            for b in range(width):
                packed |= raw[:, b] << np.uint64(8 * b)
            values = packed.astype(s_dt)
            idx = rng.integers(3, 6, size=ti.rows * ti.cols).astype(np.uint8)
            dst = inputs(np.dtype(np.uint32), td.rows * td.cols, f"{seed}/dst")
            for name, flat in (("src", values), ("idx", idx), ("dst", dst)):
                self.write(data, n, name, flat)
            grid = tile_logical(values, ts)
            filt = tile_logical(idx, ti)
            before = tile_logical(dst, td)
            want = before.copy()
            mask = np.zeros(want.shape, dtype=bool)
            for r in range(ts.valid_rows):
                row = grid[r, : ts.valid_cols]
                keep = np.ones(row.shape, dtype=bool)
                if width == 2 and k == 0:
                    keep &= byte_of(row, 1) == int(filt[r, 0])
                elif width == 4:
                    for level, higher in enumerate((3, 2, 1)):
                        if higher > k:
                            keep &= byte_of(row, higher) == int(filt[level, 0])
                counts = np.bincount(byte_of(row[keep], k).astype(np.int64), minlength=BINS)
                want[r, :BINS] = np.cumsum(counts).astype(np.uint32)
                mask[r, :BINS] = True
            checks.append(written_check(f"c{n}_dst.out", td, want, mask, before, label))
        return checks
