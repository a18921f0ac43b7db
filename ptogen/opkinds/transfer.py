"""Transfers between a GlobalTensor and a tile: TLOAD (`dst[i, j] = src[i, j]`, tile <- global) and
TSTORE (global <- tile), over the tile's valid region.

The kind defines the whole semantics; `semantics.expr` only names the source operand (`src`), so
the one fact "which operand is copied" is stated once. The global side is seen as a matrix over
Shape dimensions 3 (rows) and 4 (columns): element (i, j) lives at i * stride[3] + j * stride[4]
elements from the tensor's base, so Layout::ND (stride[4] == 1) keeps rows contiguous and
Layout::DN (stride[3] == 1) keeps columns contiguous. Nothing outside the valid region is
written: neither the rest of a loaded tile nor the rest of the stored-to buffer.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..spec import expr as semantics
from ..testing.golden import Check, GoldenContext, _bits, _describe, inputs, logical
from ..testing.plan import (
    GlobalDecl,
    OpTests,
    RuntimeCase,
    RuntimeKernel,
    TileDecl,
    layout_addresses,
    make_call,
    plan_rule_cases,
)
from ..testing.results import Outcome
from .base import Job, OpKind

if TYPE_CHECKING:
    from ..lower.views import OpView, ProjectView
    from ..spec.model import OpSpec

# (label, tile rows, cols, valid rows, valid cols, dynamic, global layout, leading dimension).
# The tile is row-major for ND and column-major for DN (the pairs every profile's Vec loads take);
# a leading dimension wider than the region leaves gaps in the buffer that a store must not touch.
SHAPES = [
    ("ND full 16x16", 16, 16, 16, 16, False, "ND", 16),
    ("ND partial valid 13x7 of 16x16, row stride 9", 16, 16, 13, 7, False, "ND", 9),
    ("ND non-square 6x40", 6, 40, 6, 40, False, "ND", 40),
    ("ND run-time valid 11x19 of 16x32, run-time row stride 24", 16, 32, 11, 19, True, "ND", 24),
    ("ND odd 3x5 valid 2x3, row stride 4", 3, 5, 2, 3, False, "ND", 4),
    ("DN full 8x8", 8, 8, 8, 8, False, "DN", 8),
    ("DN partial valid 9x15 of 12x20, column stride 11", 12, 20, 9, 15, False, "DN", 11),
    ("DN run-time valid 5x6 of 8x8, run-time column stride 7", 8, 8, 5, 6, True, "DN", 7),
]


class Transfer(OpKind):
    name: ClassVar[str] = "transfer"

    # ----------------------------------------------------------------- spec checks
    def check_operands(self, spec: OpSpec) -> list[tuple[tuple[str | int, ...], str]]:
        kinds = sorted(o.kind for o in spec.operands)
        if kinds != ["global", "tile"]:
            return [(("operands",), "a transfer op has one tile and one GlobalTensor (`global`) operand")]
        return []

    def check_expr(self, expr: semantics.Node) -> list[str]:
        if expr.op != "name":
            return [
                "a transfer op's expression is its source operand's name, e.g. `src`; it computes nothing"
            ]
        return []

    # ----------------------------------------------------------------- naming
    @staticmethod
    def source(op: OpView) -> str:
        return str(op.loaded.expr.value)

    @staticmethod
    def global_operand(op: OpView) -> str:
        return next(o.name for o in op.spec.operands if o.kind == "global")

    @staticmethod
    def tile_operand(op: OpView) -> str:
        return next(o.name for o in op.spec.operands if o.kind == "tile")

    def loads(self, op: OpView) -> bool:
        """True for global -> tile (TLOAD), False for tile -> global (TSTORE)."""
        return self.tile_operand(op) == op.spec.semantics.domain

    # ----------------------------------------------------------------- math
    def result_index(self, op: OpView) -> str:
        return "i,j"

    def operand_index(self, op: OpView, operand: str) -> str:
        return "i,j"

    # ----------------------------------------------------------------- outputs
    def outputs(self, op: OpView) -> list[Job]:
        return [
            (f"include/{op.sim_header}", self.template("sim.hpp.j2"), {"op": op}),
            (op.doc_path, "docs/op_page.md.j2", {"op": op}),
            (op.ref_doc_path, "docs/ref_page.md.j2", {"op": op}),
            (f"docs/isa/figures/{op.upper}.svg", "docs/figure.svg.j2", {"op": op}),
        ]

    def header_part(self, op: OpView) -> str | None:
        intr = op.spec.intrinsic
        if intr is not None and not any(t.kind == "pack" for t in intr.template):
            return self.template("intrinsic.hpp.j2")
        return None

    # ----------------------------------------------------------------- tests
    def plan_tests(self, project: ProjectView, op: OpView, tests: OpTests) -> None:
        profiles = [p.name for p in project.profiles]
        order = [d.name for d in project.targets.dtypes]
        tile, glob = self.tile_operand(op), self.global_operand(op)
        dtypes: list[str] = []
        for p in profiles:
            dtypes += [d for d in op.allowed_dtypes(p) if d not in dtypes]
        for dtype in sorted(dtypes, key=order.index):
            on = [p for p in profiles if dtype in op.allowed_dtypes(p)]
            first = sum(len(k.cases) for k in tests.runtime)
            cases = []
            for index, (label, rows, cols, vr, vc, dyn, layout, ld) in enumerate(SHAPES, first):
                t = TileDecl(
                    tile, dtype, rows, cols, vr, vc, dyn, "Vec", "RowMajor" if layout == "ND" else "ColMajor"
                )
                g = GlobalDecl(glob, dtype, vr, vc, ld, layout, dyn)
                call = make_call(op, {tile: t}, dict(op.default_values), {})
                cases.append(
                    RuntimeCase(index, label, [t], {}, call, layout_addresses(project, [t]), globals=[g])
                )
            tests.runtime.append(RuntimeKernel(dtype, {tile: dtype, glob: dtype}, {}, on, cases))
        plan_rule_cases(project, op, tests)

    def prepare_cases(self, gx: GoldenContext, data: Path) -> list[Check]:
        op = gx.op
        dst = op["domain"]
        src = next(n for n in op["operands"] if n != dst)
        checks: list[Check] = []
        for case in gx.entry["cases"]:
            k = case["index"]
            t_name = next(iter(case["tiles"]))
            g_name = next(iter(case["globals"]))
            t, g = case["tiles"][t_name], case["globals"][g_name]
            dtype = gx.np_type(gx.entry["dtypes"][t_name])
            seed = f"{gx.op_name}/{gx.entry['group']}/{k}"
            tile_flat = inputs(dtype, t["rows"] * t["cols"], f"{seed}/{t_name}")
            buf = inputs(dtype, g["size"], f"{seed}/{g_name}")
            tile_flat.tofile(data / f"c{k}_{t_name}.bin")
            buf.tofile(data / f"c{k}_{g_name}.bin")
            vr, vc = t["valid_rows"], t["valid_cols"]
            # Address of global element (i, j) in the buffer, as the layout maps it.
            i, j = np.meshgrid(np.arange(vr), np.arange(vc), indexing="ij")
            addr = i * g["ld"] + j if g["layout"] == "ND" else i + j * g["ld"]
            tile = logical(tile_flat.copy(), t["rows"], t["cols"], t["layout"])
            if dst == t_name:  # load: the tile's valid region takes the global elements
                want_tile = tile.copy()
                want_tile[:vr, :vc] = buf[addr]
                want, region = want_tile, np.zeros(want_tile.shape, dtype=bool)
                region[:vr, :vc] = True
                out = t
            else:  # store: the buffer's mapped positions take the tile's valid region
                want = buf.copy()
                want[addr] = tile[:vr, :vc]
                region = np.zeros(want.shape, dtype=bool)
                region[addr] = True
                out = g
            label = f"{gx.label} case {k} ({case['label']}; {src} -> {dst})"

            def check(
                data_dir: Path,
                k: int = k,
                want: np.ndarray = want,
                region: np.ndarray = region,
                out: dict[str, Any] = out,
                label: str = label,
                dtype: np.dtype = dtype,
            ) -> Outcome:
                got = np.fromfile(data_dir / f"c{k}_{dst}.out", dtype=dtype)
                if "layout" in out and out["layout"] in ("RowMajor", "ColMajor"):
                    got = logical(got, out["rows"], out["cols"], out["layout"])
                differs = _bits(got) != _bits(want)
                inside, outside = differs & region, differs & ~region
                if inside.any():
                    return Outcome("fail", label, _describe(inside, got, want, "transferred"))
                if outside.any():
                    return Outcome("fail", label, _describe(outside, got, want, "outside-the-transfer"))
                return Outcome("pass", label)

            checks.append(check)
        return checks
