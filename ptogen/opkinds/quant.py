"""Quantisation (TQUANT): MX forms that write E4M3 bytes or packed E2M1 codes with a shared E8M0
exponent per group of 32 elements (ND groups along rows, DN groups down columns; OCP or NV scale),
and integer forms with a per-row scale and offset. The declarations take their MX side tiles by
pointer (`Param.pointer`) and the integer offset by a nullable pointer, so the kind spells its test
calls itself (`&exp`), plans each declaration's cases (`plans_forms`), and judges every output
(`dst`, `exp`, `max`, `scaling`, `exp_zz`) against `reference_mx`, a numpy model of upstream's CPU
simulator written from the spec's notes; packed E2M1 destinations are judged code by code
(`testing/fp4.py`), and the `interleave` form's exponents in A5's interleaved layout (`interleaved`).

A kind of its own, not `convert`'s: its MX forms share one exponent among each group of 32 elements
and write side outputs through pointers, which no per-element conversion does.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..importer.contract import DOMAIN, PageOp
from ..kindlib.forms import FormsKind, form_call, written_check
from ..kindlib.layout import tile_logical
from ..lower.contract import FormBackend
from ..spec.kindfacts import KindFacts
from ..testing import fp4
from ..testing.golden import Check, GoldenContext, inputs
from ..testing.plan import OpTests, RuntimeCase, TileDecl, plan_rule_cases, runtime_cases, tile_stores

if TYPE_CHECKING:
    from ..kind_api import FormViewAPI, OpViewAPI, ProjectViewAPI

GROUP = 32
POINTERS = ("exp", "max", "scaling", "exp_zz", "offset")

# MX cases: (label, form index (0: grouped, 1: QuantType, 2: VecStoreMode::NZ, 3: interleave),
# MxQuantAlg, grp_axis, source type, rows, cols, valid rows, valid cols, side type (max and scaling)).
# The Fp4 algorithms write packed E2M1 codes (float4_e2m1x2_t), the others E4M3 bytes (int8_t).
MX_CASES = [
    ("OCP E4M3, ND groups, float, valid 3x64 of 4x64", 0, "OcpMxFp8E4M3", 1, "float", 4, 64, 3, 64, "float"),
    ("NV E4M3, ND groups, bfloat16_t, 2x64", 0, "NvMxFp8E4M3", 1, "bfloat16_t", 2, 64, 2, 64, "float"),
    ("OCP E4M3, DN groups, half, valid 64x20 of 64x32", 0, "OcpMxFp8E4M3", 0, "half", 64, 32, 64, 20, "half"),
    ("NV E4M3, DN groups, float, 32x32", 0, "NvMxFp8E4M3", 0, "float", 32, 32, 32, 32, "float"),
    (
        "QuantType::MXFP8 with QuantScaleAlg::NV, half, valid 2x64 of 4x64",
        1,
        "NvMxFp8E4M3",
        1,
        "half",
        4,
        64,
        2,
        64,
        "float",
    ),
    ("VecStoreMode::NZ, float, 16x64", 2, "OcpMxFp8E4M3", 1, "float", 16, 64, 16, 64, "float"),
    (
        "interleaved exponents, OCP E4M3, DN, float, valid 64x20 of 64x32",
        3,
        "OcpMxFp8E4M3",
        0,
        "float",
        64,
        32,
        64,
        20,
        "float",
    ),
]
# The MXFP4 cases (E2M1 destinations, `half` and `bfloat16_t` sources as the pages allow), one kernel.
MX_FP4_CASES = [
    ("OCP E2M1, ND groups, half, valid 3x64 of 4x64", 0, "OcpMxFp4E2M1", 1, "half", 4, 64, 3, 64, "float"),
    ("NV E2M1, ND groups, half, 2x64", 0, "NvMxFp4E2M1", 1, "half", 2, 64, 2, 64, "float"),
    (
        "OCP E2M1, DN groups, bfloat16_t, valid 32x20 of 32x32",
        0,
        "OcpMxFp4E2M1",
        0,
        "bfloat16_t",
        32,
        32,
        32,
        20,
        "float",
    ),
    (
        "QuantType::MXFP4_E2M1 with QuantScaleAlg::NV, bfloat16_t, 2x64",
        1,
        "NvMxFp4E2M1",
        1,
        "bfloat16_t",
        2,
        64,
        2,
        64,
        "float",
    ),
    (
        "interleaved exponents, NV E2M1, DN, bfloat16_t, valid 128x24 of 128x32",
        3,
        "NvMxFp4E2M1",
        0,
        "bfloat16_t",
        128,
        32,
        128,
        24,
        "float",
    ),
]
# Integer cases: (label, QuantType, form index (3: plain, 4: with tmp), rows, cols, valid rows, valid cols).
INT_CASES = [
    ("INT8_SYM, valid 3x10 of 4x16", "INT8_SYM", 4, 4, 16, 3, 10),
    ("INT8_ASYM, 4x16", "INT8_ASYM", 4, 4, 16, 4, 16),
    ("INT8_ASYM with tmp, valid 2x12 of 4x16", "INT8_ASYM", 5, 4, 16, 2, 12),
]


def raw_bits(v: np.float32) -> int:
    return int(np.array(v, dtype=np.float32).view(np.uint32))


def _float(b: int) -> np.float32:
    return np.float32(np.array(b & 0xFFFFFFFF, dtype=np.uint32).view(np.float32)[()])


def e4m3_code(v: np.float32, nv: bool) -> int:
    """E4M3 byte of v as upstream's encoder gives it (see the spec's notes)."""
    import ml_dtypes

    if np.isnan(v):
        return 0x7F
    if nv and abs(float(v)) < 2.0**-10:
        return 0x80 if np.signbit(v) else 0x00
    clipped = np.float32(min(max(float(v), -448.0), 448.0))
    code = int(np.array([clipped], dtype=np.float32).astype(ml_dtypes.float8_e4m3fn).view(np.uint8)[0])
    return 0x00 if code == 0x80 else code


def ocp_exponent(m: np.float32, emax: int) -> int:
    b = raw_bits(m)
    e = (b >> 23) & 0xFF
    if e == 0xFF and b & 0x7FFFFF:
        return 0xFF
    return 0 if e <= emax else e - emax


def nv_exponent(m: np.float32, vmax: float) -> int:
    if m == 0:
        return 0
    with np.errstate(over="ignore", invalid="ignore"):
        d = np.float32(m * np.float32(np.float32(1.0) / np.float32(vmax)))
    b = raw_bits(d)
    e, f = (b >> 23) & 0xFF, b & 0x7FFFFF
    if e == 0xFF:
        return 0xFE if f == 0 else 0xFF
    up = f > 0 and e != 0xFE and not (e == 0 and f <= 0x400000)
    return e + (1 if up else 0)


def group_scaling(m: np.float32, e: int, nv: bool) -> np.float32:
    if e == 0xFF:
        return m
    if nv and e == 0xFE:
        return np.float32(2.0**-127)
    s = _float((254 - e) << 23)
    return np.float32(2.0**-127) if s == 0 else s


def e2m1_code(v: np.float32) -> int:
    """E2M1 code (sign in bit 3) of v: the nearest magnitude, ties to the even code, beyond 6 the
    largest; NaN gives 7 and an infinity 7 with its sign."""
    if np.isinf(v):
        return (8 if v < 0 else 0) | 7
    return fp4.nearest_code(float(v), fp4.E2M1)


def bf16_rounded(v: np.float32) -> np.float32:
    """v through bfloat16 as the simulator rounds a bfloat16_t source's scaled value: half to even on
    the bits, with no NaN case."""
    b = raw_bits(v)
    return _float((((b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFFFFFF) >> 16) << 16)


def group_max(values: list[np.float32], fp4_dst: bool, nv: bool) -> np.float32:
    """The group's largest magnitude: E4M3 ignores NaN; NV E2M1 stops at the first NaN; OCP E2M1 takes
    the largest magnitude truncated to bfloat16 (a NaN's bits outrank every number)."""
    if fp4_dst and not nv:
        return _float(max((raw_bits(x) >> 16) & 0x7FFF for x in values) << 16)
    m = np.float32(0)
    for x in values:
        if fp4_dst and np.isnan(x):
            return x
        a = np.float32(abs(x))
        if not np.isnan(a) and a > m:
            m = a
    return m


def reference_mx(
    src: np.ndarray,
    valid: tuple[int, int],
    grp_axis: int,
    nv: bool,
    fp4_dst: bool = False,
    bf16_src: bool = False,
) -> tuple[
    dict[tuple[int, int], int], dict[tuple[int, int], int], dict[int, np.float32], dict[int, np.float32]
]:
    """Grouped quantisation of `src` (its static shape, as float32): the dst codes (E4M3 bytes, or
    E2M1 codes with `fp4_dst`) and the exponents by (row, column) in the DN or ND exponent layout, the
    maxima and scalings by flat group index."""
    rows, cols = src.shape
    lines = valid[0] if grp_axis == 1 else valid[1]
    groups = cols // GROUP if grp_axis == 1 else rows // GROUP
    dst: dict[tuple[int, int], int] = {}
    exp: dict[tuple[int, int], int] = {}
    mx: dict[int, np.float32] = {}
    sc: dict[int, np.float32] = {}
    for line in range(lines):
        for g in range(groups):
            at = [(line, g * GROUP + k) if grp_axis == 1 else (g * GROUP + k, line) for k in range(GROUP)]
            m = group_max([np.float32(src[r, c]) for r, c in at], fp4_dst, nv)
            if fp4_dst:
                e = nv_exponent(m, 6.0) if nv else ocp_exponent(m, 2)
            else:
                e = nv_exponent(m, 448.0) if nv else ocp_exponent(m, 8)
            s = group_scaling(m, e, nv)
            flat = line * groups + g if grp_axis == 1 else g * lines + line
            mx[flat], sc[flat] = m, s
            exp[(line, g) if grp_axis == 1 else (g, line)] = e
            with np.errstate(over="ignore", invalid="ignore"):
                for r, c in at:
                    y = np.float32(src[r, c] * s)
                    if not fp4_dst:
                        dst[(r, c)] = e4m3_code(y, nv)
                    elif np.isinf(s):
                        dst[(r, c)] = 7 if s > 0 else 15
                    elif np.isnan(s):
                        dst[(r, c)] = 7
                    else:
                        dst[(r, c)] = e2m1_code(bf16_rounded(y) if bf16_src else y)
    return dst, exp, mx, sc


def interleaved(exp: dict[tuple[int, int], int]) -> dict[tuple[int, int], int]:
    """DN exponents (group, column) in the interleave form's layout: groups 2p and 2p + 1 of column c
    at (p, 2c) and (p, 2c + 1)."""
    return {(g // 2, 2 * c + g % 2): e for (g, c), e in exp.items()}


def mx_values(rng: np.random.Generator, n: int, with_specials: bool, fp4_dst: bool = False) -> np.ndarray:
    """Values over many binades (groups with other exponents), with exact E4M3 ties and, optionally,
    zeros of both signs, tiny values and an infinity. For E2M1: a first group of exact E2M1 ties
    after its scaling (its largest magnitude 48 gives 2^-3), zeros of both signs, and, with
    `with_specials`, a NaN in the second group and an infinity in the third."""
    mags = rng.uniform(-1, 1, n) * np.exp2(rng.integers(-6 if fp4_dst else -12, 6 if fp4_dst else 12, n))
    if fp4_dst:
        ties = [48.0, 2.0, 6.0, 10.0, 20.0, 36.0, 44.0, 0.0, -0.0, -2.0, -20.0, 0.25]
        mags[: len(ties)] = ties
        if with_specials:
            mags[40 % n], mags[70 % n] = np.nan, -np.inf
    elif with_specials:
        specials = [0.0, -0.0, 1e-8, -1e-8, 1.0625, 1.1875, -3.25, 464.0, 65504.0]
        mags[: len(specials)] = specials
    return mags.astype(np.float32)


class Quant(FormsKind):
    name: ClassVar[str] = "quant"
    facts: ClassVar[KindFacts] = KindFacts(
        plans_forms=True, overloads_keep_values=False, side_outputs=("exp", "max", "scaling", "exp_zz")
    )

    def recognise(self, page: PageOp) -> int | None:
        # templates/opkinds/quant/domain.md.j2: "..., quantised in groups of 32"
        return DOMAIN if not page.vector and page.intro_says("quantised in groups of 32") else None

    def math(self, op: OpViewAPI) -> str | None:
        return (
            r"\mathrm{dst}_{i} = \mathrm{rnd}\bigl(\mathrm{clip}(\mathrm{src}_{i} \cdot s_g)\bigr),\quad "
            r"s_g = 2^{127 - e_g},\quad m_g = \max_{i \in g} |\mathrm{src}_{i}|"
        )

    def form_backend(self, op: OpViewAPI, form: FormViewAPI) -> FormBackend:
        # The integer forms drop the MX side tiles, `src` standing in; their checks are not run
        # (unchecked_when). The backends type the `auto` value parameters by their enums.
        auto_types = {
            "quant_type": "QuantType",
            "scale_alg": "QuantScaleAlg",
            "mx_alg": "MxQuantAlg",
            "store_mode": "VecStoreMode",
        }
        stand_ins = {o.name: "src" for o in op.operands}
        return replace(super().form_backend(op, form), stand_ins=stand_ins, auto_types=auto_types)

    def shaped_tile(self, op: OpViewAPI, tile: TileDecl) -> TileDecl:
        """Compile cases: a 2 x 32 float source, E4M3 bytes, one uint8_t exponent row, float sides."""
        shapes = {
            "dst": ("int8_t", 2, 32),
            "src": ("float", 2, 32),
            "exp": ("uint8_t", 2, 32),
            "max": ("float", 1, 8),
            "scaling": ("float", 1, 8),
        }
        if tile.name not in shapes:
            return tile
        dtype, r, c = shapes[tile.name]
        dtype = tile.dtype if tile.name in ("dst", "src", "exp") else dtype
        return replace(tile, dtype=dtype, rows=r, cols=c, valid_rows=r, valid_cols=c)

    def test_call(
        self, op: OpViewAPI, tiles: dict[str, TileDecl], variant: dict[str, str], scalar_expr: dict[str, str]
    ) -> tuple[list[str], list[str]] | None:
        intr = op.spec.intrinsic
        assert intr is not None
        values = {"grp_axis": "1", "mx_alg": "MxQuantAlg::OcpMxFp8E4M3", **variant}
        types = {str(p.type): str(p.operand) for p in intr.params if p.type and not p.events}
        targs = [
            tiles[types[t.name]].type_name if t.kind == "typename" else values[t.name]
            for t in intr.template
            if t.kind != "pack"
        ]
        args = [(f"&{p.operand}" if p.pointer else str(p.operand)) for p in intr.params if not p.events]
        return targs, args

    def form_template_args(
        self, form: FormViewAPI, main_explicit: list[str], type_names: dict[str, str]
    ) -> list[str] | None:
        """The interleave form's compile cases (its own rules, `forms: [3]`): every template argument
        spelled, with `interleave` true and DN groups (`grp_axis` 0), as that form is meant; the
        other forms take the default."""
        if not any(t.name == "interleave" for t in form.template):
            return None
        intr = form.op.spec.intrinsic
        assert intr is not None
        main = dict(zip([t.name for t in intr.template if t.kind != "pack"], main_explicit, strict=False))
        values = {"grp_axis": "0", "interleave": "true"}
        holders = {p.type: str(p.operand) for p in form.params if p.type is not None and not p.events}
        out = []
        for t in form.template:
            if t.kind == "pack":
                continue
            if t.kind == "value":
                out.append(values.get(t.name) or main[t.name])
                continue
            name = holders[t.name]
            out.append(
                type_names.get(f"{name}_f{form.index}") or type_names.get(name) or type_names[form.op.domain]
            )
        return out

    def plan_tests(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        mx_on = [p.name for p in project.profiles if op.available(p.name)]
        every = [p.name for p in project.profiles]
        for gid, table in (("mx", MX_CASES), ("mx_fp4", MX_FP4_CASES)):
            cases: list[RuntimeCase] = []
            for row in table:
                cases.append(self._mx_case(project, op, tests, cases, row))
            self.kernel(tests, gid, cases, mx_on)
        cases = []
        for label, qt, index, r, c, vr, vc in INT_CASES:
            form = op.forms[index]
            tiles = [
                TileDecl("dst", "int8_t" if qt == "INT8_SYM" else "uint8_t", r, c, vr, vc),
                TileDecl("src", "float", r, c, vr, vc),
                TileDecl("scale", "float", r, 8, vr, 1),
                TileDecl("offset", "float", r, 8, vr, 1),
            ]
            if index == 5:
                tiles.append(TileDecl("tmp", "float", r, c, r, c))
            scalars = {"offset": "&offset" if qt == "INT8_ASYM" else "nullptr"}
            call = form_call(form, {"quant_type": f"QuantType::{qt}"}, scalars)
            attrs = {"form": str(index), "qt": qt, "src_t": "float", "dst_t": tiles[0].dtype}
            cases.append(self.case(project, tests, cases, label, tiles, call, attrs))
        self.kernel(tests, "int", cases, every)
        for case in runtime_cases(tests):  # the side outputs, judged too
            case.stored += tile_stores(case, ("exp", "max", "scaling", "exp_zz"))
        plan_rule_cases(project, op, tests)

    def _mx_case(
        self,
        project: ProjectViewAPI,
        op: OpViewAPI,
        tests: OpTests,
        pending: list[RuntimeCase],
        row: tuple[Any, ...],
    ) -> RuntimeCase:
        label, index, alg, axis, s_type, r, c, vr, vc, side = row
        fp4_dst = "Fp4" in alg
        groups = (r * (c // GROUP)) if axis == 1 else ((r // GROUP) * c)
        if index == 3:  # interleaved DN exponents: [ceil(rows / 64), 2 * cols], valid [.., 2 * valid cols]
            exp_r, exp_c, exp_vr, exp_vc = -(-r // 64), 2 * c, -(-vr // 64), 2 * vc
        else:
            exp_r, exp_c = (r, GROUP) if axis == 1 else (r // GROUP, max(c, GROUP))
            exp_vr, exp_vc = exp_r, exp_c
        side_cols = 32 // (4 if side == "float" else 2)
        side_rows = -(-groups // side_cols)
        dst_t = "float4_e2m1x2_t" if fp4_dst else "int8_t"
        tiles = [
            TileDecl("dst", dst_t, r, c, vr, vc),
            TileDecl("src", s_type, r, c, vr, vc),
            TileDecl("exp", "uint8_t", exp_r, exp_c, exp_vr, exp_vc),
            TileDecl("max", side, side_rows, side_cols, side_rows, side_cols),
            TileDecl("scaling", side, side_rows, side_cols, side_rows, side_cols),
        ]
        if index == 2:
            tiles.append(TileDecl("exp_zz", "uint8_t", exp_r, exp_c, exp_r, exp_c))
        nv = alg.startswith("Nv")
        values = {
            "grp_axis": str(axis),
            "mx_alg": f"MxQuantAlg::{alg}",
            "interleave": "true",
            "quant_type": "QuantType::MXFP4_E2M1" if fp4_dst else "QuantType::MXFP8",
            "scale_alg": "QuantScaleAlg::NV" if nv else "QuantScaleAlg::OCP",
            "store_mode": "VecStoreMode::NZ",
        }
        call = form_call(op.forms[index], values, {p: f"&{p}" for p in POINTERS})
        attrs = {
            "form": str(index),
            "alg": alg,
            "axis": str(axis),
            "src_t": s_type,
            "dst_t": dst_t,
            "side_t": side,
        }
        return self.case(project, tests, pending, label, tiles, call, attrs)

    def prepare_cases(self, gx: GoldenContext, data: Path) -> list[Check]:
        checks: list[Check] = []
        for case in gx.group.cases:
            n = case.index
            seed = f"{gx.op_name}/{gx.entry.group}/{n}"
            label = f"{gx.label} case {n} ({case.label})"
            t = case.tiles
            rng = np.random.default_rng(n * 131 + 7)
            ts, td = t["src"], t["dst"]
            s_dt = gx.np_type(case.attrs["src_t"])
            d_dt = gx.np_type(case.attrs["dst_t"])
            fp4_dst = case.attrs["dst_t"] in fp4.TWINS
            first = n == gx.group.cases[0].index
            src = mx_values(rng, ts.rows * ts.cols, first or fp4_dst, fp4_dst).astype(s_dt)
            self.write(data, n, "src", src)
            count = td.rows * td.cols
            dst0 = inputs(d_dt, fp4.units(count) if fp4_dst else count, f"{seed}/dst")
            self.write(data, n, "dst", dst0)
            grid = tile_logical(src, ts).astype(np.float32)
            # A packed destination is judged code by code; the simulator clears all of it first.
            before = np.zeros((td.rows, td.cols), np.uint8) if fp4_dst else tile_logical(dst0, td)
            if case.attrs["form"] in ("0", "1", "2", "3"):
                nv = case.attrs["alg"].startswith("Nv")
                axis = int(case.attrs["axis"])
                valid = (ts.valid_rows, ts.valid_cols)
                bf16 = case.attrs["src_t"] == "bfloat16_t"
                dst, exp, mx, sc = reference_mx(grid, valid, axis, nv, fp4_dst, bf16)
                if case.attrs["form"] == "3":
                    exp = interleaved(exp)
                want = before.copy()
                mask = np.zeros(want.shape, dtype=bool)
                for (r, c), code in dst.items():
                    want[r, c] = code if fp4_dst else np.array([code], dtype=np.uint8).view(np.int8)[0]
                    mask[r, c] = True
                if fp4_dst:
                    packed = td

                    def layout(codes: np.ndarray, tile: Any = packed) -> np.ndarray:
                        return tile_logical(codes[: tile.rows * tile.cols], tile)

                    checks.append(fp4.codes_check(f"c{n}_dst.out", layout, want, mask, before, label))
                else:
                    checks.append(written_check(f"c{n}_dst.out", td, want, mask, before, label))
                te = t["exp"]
                exp0 = inputs(np.dtype(np.uint8), te.rows * te.cols, f"{seed}/exp")
                self.write(data, n, "exp", exp0)
                eb = tile_logical(exp0, te)
                ew, em = eb.copy(), np.zeros(eb.shape, dtype=bool)
                for (r, c), e in exp.items():
                    ew[r, c], em[r, c] = e, True
                checks.append(written_check(f"c{n}_exp.out", te, ew, em, eb, label + " exp"))
                if "exp_zz" in t:
                    # exp's first rows * groups bytes in storage order, regrouped into 16 x 2 boxes
                    tz = t["exp_zz"]
                    zz0 = inputs(np.dtype(np.uint8), tz.rows * tz.cols, f"{seed}/exp_zz")
                    self.write(data, n, "exp_zz", zz0)
                    rows, groups = ts.valid_rows, ts.valid_cols // GROUP
                    flat = ew.reshape(-1)[: rows * groups]
                    order = [
                        (rb * 16 + r) * groups + gb * 2 + g
                        for rb in range(rows // 16)
                        for gb in range(groups // 2)
                        for r in range(16)
                        for g in range(2)
                    ]
                    zw, zm = zz0.copy(), np.zeros(zz0.shape, dtype=bool)
                    zw[: len(order)], zm[: len(order)] = flat[order], True
                    shape = (tz.rows, tz.cols)
                    checks.append(
                        written_check(
                            f"c{n}_exp_zz.out",
                            tz,
                            zw.reshape(shape),
                            zm.reshape(shape),
                            zz0.reshape(shape),
                            label + " exp_zz",
                        )
                    )
                for name, values in (("max", mx), ("scaling", sc)):
                    tt = t[name]
                    side = gx.np_type(case.attrs["side_t"])
                    flat0 = inputs(side, tt.rows * tt.cols, f"{seed}/{name}")
                    self.write(data, n, name, flat0)
                    fw, fm = flat0.copy(), np.zeros(flat0.shape, dtype=bool)
                    for k, v in values.items():
                        fw[k], fm[k] = np.float32(v).astype(side), True
                    checks.append(
                        written_check(
                            f"c{n}_{name}.out",
                            tt,
                            fw.reshape(tt.rows, tt.cols),
                            fm.reshape(tt.rows, tt.cols),
                            flat0.reshape(tt.rows, tt.cols),
                            f"{label} {name}",
                        )
                    )
            else:
                sym = case.attrs["qt"] == "INT8_SYM"
                scale = (rng.uniform(0.5, 40.0, t["scale"].rows * t["scale"].cols)).astype(np.float32)
                offset = rng.integers(-20, 150, t["offset"].rows * t["offset"].cols).astype(np.float32)
                self.write(data, n, "scale", scale)
                self.write(data, n, "offset", offset)
                if "tmp" in t:
                    self.write(
                        data,
                        n,
                        "tmp",
                        inputs(np.dtype(np.float32), t["tmp"].rows * t["tmp"].cols, f"{seed}/tmp"),
                    )
                sg, og = tile_logical(scale, t["scale"]), tile_logical(offset, t["offset"])
                want = before.copy()
                mask = np.zeros(want.shape, dtype=bool)
                for r in range(ts.valid_rows):
                    pr = min(r, t["scale"].valid_rows - 1)
                    for c in range(ts.valid_cols):
                        with np.errstate(over="ignore", invalid="ignore"):
                            v = np.float32(grid[r, c] * sg[pr, 0])
                            if not sym:
                                v = np.float32(v + og[min(r, t["offset"].valid_rows - 1), 0])
                        q = (
                            0.0
                            if np.isnan(v)
                            else float(np.clip(np.rint(v), -128 if sym else 0, 127 if sym else 255))
                        )
                        want[r, c] = np.array([int(q)]).astype(d_dt)[0]
                        mask[r, c] = True
                checks.append(written_check(f"c{n}_dst.out", td, want, mask, before, label))
        return checks
