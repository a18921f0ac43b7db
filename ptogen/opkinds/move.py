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

from ..rules.parts import TileFilter, part
from ..testing.golden import Check, GoldenContext, Outcome, _bits, _describe, inputs, logical
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
from .base import DOMAIN, NamesOperand, PageOp, fixed_type

if TYPE_CHECKING:
    from ..kind_api import FormViewAPI, OpViewAPI, ProjectViewAPI

RELU_ENUM = "ReluPreMode"
RELU_ON = "NormalRelu"
PARAM_DTYPE = "uint64_t"  # the element type of a quantisation parameter tile

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
# Conversions of the plain path the CPU simulator's tests run (an accumulator's float to the
# narrower floating types and back): (source, destination).
CONVERSIONS = (("float", "half"), ("float", "bfloat16_t"), ("half", "float"))
# The pairs the vector path quantises (pto/cpu/sim_quant.hpp's vector_quant), tested with a
# parameter tile (TMOV_FP's `fp`): (source, destination).
QUANTISED = (
    ("float", "int8_t"),
    ("float", "uint8_t"),
    ("int32_t", "int8_t"),
    ("int32_t", "half"),
    ("int32_t", "int16_t"),
)


def boxed_logical(flat: np.ndarray, t: TileShape) -> np.ndarray:
    """A tile's storage as its rows x cols matrix, as GetTileElementOffset addresses it: plain row-
    or column-major, or 512-byte boxes (16 rows of 32 bytes row-major inside, or 32 bytes of 16
    columns column-major inside) placed row of boxes after row (RowMajor) or column after column."""
    rows, cols = t.rows, t.cols
    if t.slayout is None:
        return logical(flat.copy(), rows, cols, t.layout)
    per32 = 32 // flat.dtype.itemsize
    ir, ic = (16, per32) if t.slayout == "RowMajor" else (per32, 16)
    r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    box = ir * ic
    start = (
        (r // ir) * cols * ir + (c // ic) * box
        if t.layout == "RowMajor"
        else (c // ic) * rows * ic + (r // ir) * box
    )
    inner = (r % ir) * ic + (c % ic) if t.slayout == "RowMajor" else (c % ic) * ir + (r % ir)
    return flat[start + inner]


class Move(NamesOperand):
    name: ClassVar[str] = "move"

    # ----------------------------------------------------------------- import
    def recognise(self, page: PageOp) -> int | None:
        # templates/opkinds/move/domain.md.j2: "For each element ..., moved to the same position of"
        return DOMAIN if not page.vector and page.intro_says("moved to the same position") else None

    def result_index(self, op: OpViewAPI) -> str:
        return "i,j"

    def operand_index(self, op: OpViewAPI, operand: str) -> str:
        return "i,j"

    # ----------------------------------------------------------------- backend
    @staticmethod
    def relu(form: FormViewAPI) -> tuple[str, str]:
        """(adapter argument, test value) of the form's ReluPreMode, ReluPreMode::NoRelu if none."""
        tparams = {t.name: t for t in form.template}
        for i, expr in enumerate(form.dispatch.template_args):
            t = tparams.get(expr)
            if t is not None and t.kind == "value" and str(t.type) == RELU_ENUM:
                return expr, form.test.template_value(expr).split("::")[-1]
            if t is None and fixed_type(form, expr) == RELU_ENUM:
                return f"Fixed{i}", expr.split("::")[-1]
        return f"{RELU_ENUM}::NoRelu", "NoRelu"

    @staticmethod
    def param_tile(form: FormViewAPI) -> str | None:
        """The form's tile parameter besides the moved two (`fp`, or `tmp`, read as `fp`)."""
        main = {form.arg(form.op.domain), *(form.arg(n) for n in form.op.read_operands)}
        return next((p.name for p in form.params if p.type and not p.events and p.name not in main), None)

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
        for dtype, on in self.dtype_profiles(project, op):
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
            values = boxed_logical(flat_s, ts)[:vr, :vc]
            before = boxed_logical(flat_d, t)
            label = f"{gx.label} case {k} ({case.label})"
            with np.errstate(all="ignore"):
                moved = quantise(values, parameters[:vc], d_type) if quantised else values.astype(d_type)
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
                checks.append(_moved_check(out, t, want, before, what, d_type))
        return checks


def _moved_check(
    out: str, t: TileShape, want: np.ndarray, before: np.ndarray, label: str, dtype: Any
) -> Check:
    """The valid region holds `want` bit for bit (NaN for NaN); the rest of the tile is untouched."""
    vr, vc = t.valid_rows, t.valid_cols

    def check(data_dir: Path) -> Outcome:
        got = boxed_logical(np.fromfile(data_dir / out, dtype=dtype), t)
        region = got[:vr, :vc]
        bad = _bits(region) != _bits(want)
        if dtype.kind == "f" or dtype.name == "bfloat16":
            bad &= ~(np.isnan(region.astype(np.float32)) & np.isnan(want.astype(np.float32)))
        if bad.any():
            return Outcome("fail", label, _describe(bad, region, want, "valid"))
        outside = np.ones(got.shape, dtype=bool)
        outside[:vr, :vc] = False
        changed = outside & (_bits(got) != _bits(before))
        if changed.any():
            return Outcome("fail", label, _describe(changed, got, before, "outside-the-valid-region"))
        return Outcome("pass", label)

    return check


def quantisation_parameters(cols: int, signed: bool) -> np.ndarray:
    """One vector-quantisation parameter per column (pto/cpu/sim_quant.hpp's layout): scales 2^-7 to
    2^4 with varied fractions, some negative, offsets, a shift, and the 8-bit result signed when the
    destination is (an unsigned clamp into a signed type would make the final cast undefined)."""
    out = np.zeros(cols, dtype=np.uint64)
    for c in range(cols):
        field = ((1 if c % 5 == 0 else 0) << 18) | ((120 + c % 12) << 10) | ((c * 37) % 1024)
        offset, shift = (c * 11) % 300, c % 16
        out[c] = (field << 13) | (shift << 32) | (offset << 37) | (int(signed) << 46)
    return out


def quantise(values: np.ndarray, parameters: np.ndarray, d_type: Any) -> np.ndarray:
    """The vector path's quantisation (pto/cpu/sim_quant.hpp) of a valid region, column j by
    parameter j, in float32 as the simulator computes it."""
    q = parameters.astype(np.uint64)
    field = (q >> np.uint64(13)) & np.uint64(0x7FFFF)
    negative = ((field >> np.uint64(18)) & np.uint64(1)).astype(bool)
    exponent = ((field >> np.uint64(10)) & np.uint64(0xFF)).astype(np.int64)
    fraction = (field & np.uint64(0x3FF)).astype(np.float32)
    power = np.ldexp(np.float32(1), exponent - 127).astype(np.float32)
    scale = (np.float32(1) + fraction / np.float32(1024)) * power
    scale = np.where((exponent == 0) & (fraction == 0), np.float32(0), np.where(negative, -scale, scale))
    y = values.astype(np.float32) * scale.astype(np.float32)
    name = np.dtype(d_type).name
    if name in ("int8", "uint8"):
        offset = ((q >> np.uint64(37)) & np.uint64(0x1FF)).astype(np.float32)
        signed = ((q >> np.uint64(46)) & np.uint64(1)).astype(bool)
        rounded = np.rint((y + offset).astype(np.float32))
        y = np.clip(rounded, np.where(signed, -128, 0), np.where(signed, 127, 255)).astype(np.float32)
    elif name == "float16":
        y = np.clip(y, -65504, 65504).astype(np.float32)
    elif name == "int16":
        shift = ((q >> np.uint64(32)) & np.uint64(0xF)).astype(np.int64) + 1
        y = (values.astype(np.int64) >> shift).astype(np.int16).astype(np.float32)
    return y.astype(d_type)
