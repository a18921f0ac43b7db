"""Moves between tiles (TMOV, TMOV_FP): `dst[i, j] = src[i, j]` across locations and layouts.

Each element of the source's valid region is read at its place in the source's layout (plain, or
boxed fractals such as NZ and ZN) and written, converted to the destination's element type by the
host's cast, at its place in the destination's layout. The simulator follows upstream's CPU
simulator bit for bit (include/pto/cpu/TMov.hpp, TExtract.hpp), which has two paths:

- the plain path (the main form, ReLU, unit-flag phase, accumulator-to-vector mode, scalar
  quantisation): convert, then `NormalRelu` sets a result below zero to zero (a NaN stays);
- the vector path (the forms with a tile besides `dst` and `src`: `fp`, or `tmp`, which upstream's
  CPU simulator reads as `fp`): when the pair of element types quantises (float or int32_t to 8-bit
  integers, int32_t to half or int16_t) each column is scaled by its own parameter from that tile;
  otherwise `NormalRelu` applies `x > 0 ? x : 0` to the source value (a NaN becomes zero) before the
  conversion.

The expression names the source (`src`); the kind computes nothing else. `ReluPreMode` is the only
mode that changes the moved values; phases and `AccToVecMode` are hints.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..importer.contract import DOMAIN, PageOp
from ..kindlib.layout import tile_logical
from ..kindlib.moves import CONVERSIONS, RELU_ON, TileMove
from ..kindlib.quantise import PARAM_DTYPE, QUANTISED, quantisation_parameters, vector_quantise
from ..kindlib.regions import region_check
from ..rules.parts import TileFilter, part
from ..testing.golden import Check, GoldenContext, inputs
from ..testing.plan import (
    OpTests,
    RuntimeCase,
    RuntimeKernel,
    TileDecl,
    dtype_profiles,
    layout_addresses,
    make_call,
    plan_rule_cases,
    tile_operands,
)

if TYPE_CHECKING:
    from ..kind_api import FormViewAPI, OpViewAPI, ProjectViewAPI


# (label, rows, cols, valid rows, valid cols, run-time valid, src (loc, layout, slayout), dst (...))
Place = tuple[str, str, "str | None"]
Case = tuple[str, int, int, int, int, bool, Place, Place]
VEC_ROW: Place = ("Vec", "RowMajor", None)
VEC_COL: Place = ("Vec", "ColMajor", None)
VEC_NZ: Place = ("Vec", "ColMajor", "RowMajor")
VEC_ZN: Place = ("Vec", "RowMajor", "ColMajor")

# Vec -> Vec, which every profile's table allows: plain and boxed layouts both ways.
VEC_CASES: list[Case] = [
    ("row-major to row-major 16x16", 16, 16, 16, 16, False, VEC_ROW, VEC_ROW),
    ("row-major to col-major, valid 13x7 of 16x16", 16, 16, 13, 7, False, VEC_ROW, VEC_COL),
    ("col-major to row-major, run-time valid 11x19 of 16x32", 16, 32, 11, 19, True, VEC_COL, VEC_ROW),
    ("row-major to NZ 32x32, valid 29x30", 32, 32, 29, 30, False, VEC_ROW, VEC_NZ),
    ("NZ to col-major 32x32", 32, 32, 32, 32, False, VEC_NZ, VEC_COL),
    ("ZN to NZ 32x32, valid 17x31", 32, 32, 17, 31, False, VEC_ZN, VEC_NZ),
]
# Other location pairs the CPU simulator moves (accumulators to vectors and to L1, L1 to the cube's
# operand buffers, vectors to them): the same element walk under other TileTypes.
CUBE_CASES: list[Case] = [
    (
        "Acc NZ to Vec row-major 32x32, valid 30x27",
        32,
        32,
        30,
        27,
        False,
        ("Acc", "ColMajor", "RowMajor"),
        VEC_ROW,
    ),
    (
        "Acc NZ to Mat NZ 32x32",
        32,
        32,
        32,
        32,
        False,
        ("Acc", "ColMajor", "RowMajor"),
        ("Mat", "ColMajor", "RowMajor"),
    ),
    (
        "Mat NZ to Left NZ 32x32",
        32,
        32,
        32,
        32,
        False,
        ("Mat", "ColMajor", "RowMajor"),
        ("Left", "ColMajor", "RowMajor"),
    ),
    (
        "Mat NZ to Right ZN 32x32",
        32,
        32,
        32,
        32,
        False,
        ("Mat", "ColMajor", "RowMajor"),
        ("Right", "RowMajor", "ColMajor"),
    ),
    ("Vec row-major to Left NZ 32x32", 32, 32, 32, 32, False, VEC_ROW, ("Left", "ColMajor", "RowMajor")),
    (
        "Acc NZ to Right ZN 32x32",
        32,
        32,
        32,
        32,
        False,
        ("Acc", "ColMajor", "RowMajor"),
        ("Right", "RowMajor", "ColMajor"),
    ),
]


class Move(TileMove):
    name: ClassVar[str] = "move"

    # ----------------------------------------------------------------- import
    def recognise(self, page: PageOp) -> int | None:
        # templates/opkinds/move/domain.md.j2: "For each element ..., moved to the same position of"
        return DOMAIN if not page.vector and page.intro_says("moved to the same position") else None

    # ----------------------------------------------------------------- backend
    def sim_args(self, op: OpViewAPI, form: FormViewAPI) -> list[str]:
        extra = self.param_tile(form)
        return [*form.impl_args, *([extra] if extra else []), self.relu(form)[0]]

    def form_changes_result(self, op: OpViewAPI, form: FormViewAPI) -> bool:
        return self.relu(form)[1] == RELU_ON

    def manifest_extra(self, op: OpViewAPI) -> dict[str, Any]:
        """The forms judged against their own golden: ReLU on, applied before (the vector path) or
        after (the plain path) the conversion."""
        return {
            "relu_forms": [
                {"index": f.index, "before": self.param_tile(f) is not None}
                for f in op.forms[1:]
                if f.own_result
            ]
        }

    # ----------------------------------------------------------------- tests
    def plan_tests(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        dst, src = op.domain, self.source(op)
        profiles = [p.name for p in project.profiles]
        cpu = [p for p in profiles if p == "CPU"]
        groups: list[tuple[str, str, str, list[Case], list[str]]] = []
        for dtype, on in dtype_profiles(project, op):
            groups.append((dtype, dtype, dtype, VEC_CASES, on))
            if dtype in ("float", "half", "int8_t"):
                groups.append((f"{dtype}_cube", dtype, dtype, CUBE_CASES, on))
        for s, d in CONVERSIONS:
            groups.append((f"{s}_to_{d}", s, d, VEC_CASES[:2] + CUBE_CASES[:1], cpu))
        # A parameter tile the main form takes (TMOV_FP's `fp`): one row of uint64_t parameters.
        params = [n for n in tile_operands(op) if n not in (dst, src)]
        if params:  # the pairs that quantise, each column by its own parameter
            for s, d in QUANTISED:
                groups.append((f"{s}_to_{d}_quantised", s, d, VEC_CASES[:3] + CUBE_CASES[:1], cpu))
        for gid, s, d, cases_of, on in groups:
            # Each case runs on the profiles whose rules admit its tiles (a location pair off a
            # profile's table is that profile's compile-fail case, not a runtime one).
            kernels: dict[tuple[str, ...], list[dict[str, TileDecl]]] = {}
            labels: dict[int, str] = {}
            for label, rows, cols, vr, vc, dyn, ps, pd in cases_of:
                tiles = {
                    src: TileDecl(src, s, rows, cols, vr, vc, dyn, ps[0], ps[1], slayout=ps[2]),
                    dst: TileDecl(dst, d, rows, cols, vr, vc, dyn, pd[0], pd[1], slayout=pd[2]),
                }
                tiles.update({n: TileDecl(n, PARAM_DTYPE, 1, cols, 1, cols) for n in params})
                admitting = tuple(
                    p
                    for p in on
                    if all(part(rv.rule, TileFilter).admits_tiles(tiles) for rv in op.rules_for(p))
                )
                if admitting:
                    kernels.setdefault(admitting, []).append(tiles)
                    labels[id(tiles)] = label
            for k, (where, planned) in enumerate(kernels.items()):
                first = sum(len(x.cases) for x in tests.runtime)
                cases = []
                for index, tiles in enumerate(planned, first):
                    call = make_call(op, tiles, dict(op.default_values), {})
                    decls = [tiles[dst], tiles[src], *(tiles[n] for n in params)]
                    addresses = layout_addresses(project, decls)
                    cases.append(RuntimeCase(index, labels[id(tiles)], decls, {}, call, addresses))
                dtypes = {dst: d, src: s, **{n: PARAM_DTYPE for n in params}}
                suffix = f"_{k}" if k else ""
                tests.runtime.append(RuntimeKernel(gid + suffix, dtypes, {}, list(where), cases))
        plan_rule_cases(project, op, tests)

    def prepare_cases(self, gx: GoldenContext, data: Path) -> list[Check]:
        op = gx.op
        dst = op.domain
        src = next(n for n in op.inputs if op.operands[n] == "tile")
        d_type = gx.np_type(gx.group.dtypes[dst])
        s_type = gx.np_type(gx.group.dtypes[src])
        checks: list[Check] = []
        for case in gx.group.cases:
            k = case.index
            seed = f"{gx.op_name}/{gx.entry.group}/{k}"
            t, ts = case.tiles[dst], case.tiles[src]
            pair = (gx.group.dtypes[src], gx.group.dtypes[dst])
            quantised = pair in QUANTISED and len(case.tiles) > 2
            flat_s = inputs(s_type, ts.rows * ts.cols, f"{seed}/{src}")
            if quantised and s_type.kind == "f":  # a NaN has no 8-bit result (the cast is undefined)
                flat_s = np.where(np.isnan(flat_s), s_type.type(0), flat_s).astype(s_type)
            flat_d = inputs(d_type, t.rows * t.cols, f"{seed}/{dst}")
            flat_s.tofile(data / f"c{k}_{src}.bin")
            flat_d.tofile(data / f"c{k}_{dst}.bin")
            parameters = np.zeros(0, dtype=np.uint64)
            for name, tp in case.tiles.items():  # parameter tiles: one quantisation parameter a column
                if name not in (src, dst):
                    parameters = quantisation_parameters(tp.cols, signed=pair[1] == "int8_t")
                    parameters.tofile(data / f"c{k}_{name}.bin")
            vr, vc = t.valid_rows, t.valid_cols
            values = tile_logical(flat_s, ts)[:vr, :vc]
            before = tile_logical(flat_d, t)
            label = f"{gx.label} case {k} ({case.label})"
            with np.errstate(all="ignore"):
                moved = (
                    vector_quantise(values, parameters[:vc], d_type) if quantised else values.astype(d_type)
                )
                goldens: list[tuple[str, np.ndarray, str]] = [(f"c{k}_{dst}.out", moved, label)]
                if case is gx.group.cases[0]:
                    for form in op.extra.get("relu_forms", []):
                        if form["before"]:
                            zero = s_type.type(0)
                            want = np.where(values > zero, values, zero).astype(d_type)
                        else:
                            want = np.where(moved < d_type.type(0), d_type.type(0), moved).astype(d_type)
                        out = f"c{k}_{dst}.f{form['index']}.out"
                        checks_label = f"{label}, overload {form['index']} (NormalRelu)"
                        goldens.append((out, want, checks_label))
            for out, want, what in goldens:
                checks.append(region_check(out, t, want, before, what, dtype=d_type))
        return checks

