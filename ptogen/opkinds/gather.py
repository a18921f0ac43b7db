"""Gathers and scatters inside tiles: TGATHER (`gather`), TGATHERB (`block_gather`) and TSCATTER
(`scatter`).

Each kind writes the semantics of every declaration itself (the forms take other operands than
the main one, so the kinds plan each form's test calls, `plans_forms`), following upstream's CPU
simulator where the pages leave a detail open:

- `gather`: the index form `dst[i, j] = src0[k div Cols, k mod Cols]` for `k = src1[i, j]` over
  src0's whole static shape, 0 for an index outside it; the comparison form (the page's rule: the
  indices `offset + j` of the columns of row i passing `cmpMode` against threshold element i, and
  their count); the mask form (the elements or rows a `MaskPattern` selects, packed).
- `block_gather`: 32-byte blocks of the source at byte offsets, one offset per block of each row of
  the destination; a block that does not lie within the source is not written.
- `scatter`: the index form writes `src[i, j]` to the destination's storage element `indexes[i, j]`
  (row-major numbering of its static shape); the mask form spreads the source's elements over the
  selected columns or rows, writing 0 elsewhere.

Three kinds, not one: each op's forms compute something the others' do not (an index or comparison
gather, a copy of 32-byte blocks, a scatter), so one kind would only hide three implementations behind
a switch; what they share is `kindlib.forms`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..importer.contract import DOMAIN, PageOp
from ..kindlib.forms import FormsKind, form_call, written_check
from ..kindlib.layout import tile_logical
from ..rule_api import ELEMENT_BYTES
from ..rules.parts import TypeFilter, in_form, is_static, part
from ..spec.kindfacts import KindFacts
from ..testing.golden import Check, GoldenContext, inputs
from ..testing.plan import (
    OpTests,
    RuntimeCase,
    TileDecl,
    dtype_profiles,
    plan_rule_cases,
    runtime_cases,
    tile_stores,
)

if TYPE_CHECKING:
    from ..kind_api import FormViewAPI, OpViewAPI, ProjectViewAPI

# MaskPattern: which positions each pattern keeps (position mod period == kept).
PATTERNS = {
    "P0101": (2, 0),
    "P1010": (2, 1),
    "P0001": (4, 0),
    "P0010": (4, 1),
    "P0100": (4, 2),
    "P1000": (4, 3),
    "P1111": (1, 0),
}


def selected(pattern: str, n: int) -> bool:
    period, kept = PATTERNS[pattern]
    return n % period == kept


# ----------------------------------------------------------------------------- TGATHER

# Index form: (label, dst rows, cols, valid rows, valid cols, src0 rows, cols, run-time valid).
INDEX_CASES = [
    ("8x16 from a 16x16 source, some indices outside it", 8, 16, 8, 16, 16, 16, False),
    ("valid 5x7 of 8x16 from a 4x32 source", 8, 16, 5, 7, 4, 32, False),
    ("run-time valid 3x12 of 4x16 from an 8x16 source", 4, 16, 3, 12, 8, 16, True),
]
# Mask form: (label, pattern, axis, src rows, cols, valid rows, valid cols). GATHER_ROW columns are
# those of 8-byte elements, scaled by 8 / the element size (`mask_columns`): each row keeps a whole
# 32 bytes, so the destination's storage is exactly the kept columns (`full_valid`).
MASK_CASES = [
    ("P0101 rows", "P0101", "GATHER_ROW", 4, 8, 4, 8),
    ("P1000 rows, valid 3 of 4 rows and 2/3 of the columns", "P1000", "GATHER_ROW", 4, 24, 3, 16),
    ("P1111 rows", "P1111", "GATHER_ROW", 2, 4, 2, 4),
    ("P0010 columns of rows, 8x16", "P0010", "GATHER_COL", 8, 16, 8, 16),
    ("P1010 columns of rows, valid 6x10 of 8x16", "P1010", "GATHER_COL", 8, 16, 6, 10),
]


def mask_columns(axis: str, dtype: str, cols: int) -> int:
    """A mask case's columns for this element type: GATHER_ROW's scale with 8 / its size."""
    return cols * max(1, 8 // ELEMENT_BYTES.get(dtype, 4)) if axis == "GATHER_ROW" else cols


# Comparison form: (label, mode, rows, cols, valid rows, valid cols, offset).
CMP_CASES = [
    ("GT, 4x32, offset 0", "GT", 4, 32, 4, 32, 0),
    ("EQ, valid 3x20 of 4x32, offset 100", "EQ", 4, 32, 3, 20, 100),
]
CMP_SOURCES = ("float", "half")


def gather_index(src: np.ndarray, idx: np.ndarray, zero: Any) -> np.ndarray:
    rows, cols = src.shape
    flat = idx.astype(np.int64)
    inside = (flat >= 0) & (flat < rows * cols)
    safe = np.where(inside, flat, 0)
    return np.where(inside, src[safe // cols, safe % cols], zero).astype(src.dtype)


def _admits_call(
    op: OpViewAPI, form: FormViewAPI, profile: str, tiles: list[TileDecl], values: dict[str, str]
) -> bool:
    """No static rule the profile checks on this form is broken by these element types and
    template values."""
    combo = {t.name: t.dtype for t in tiles}
    rules = [*op.rules_for(profile, static=True)]
    rules += [rv for rv in op.form_rules_for(profile) if is_static(rv.rule) and in_form(rv.rule, form)]
    return not any(part(rv.rule, TypeFilter).broken_by(op, rv, combo, values) for rv in rules)


class Gather(FormsKind):
    name: ClassVar[str] = "gather"

    def recognise(self, page: PageOp) -> int | None:
        # templates/opkinds/gather/domain.md.j2: "..., gathered from the source"
        return DOMAIN if not page.vector and page.intro_says("gathered from the source") else None

    def math(self, op: OpViewAPI) -> str | None:
        return (
            rf"\mathrm{{{op.domain}}}_{{i,j}} = \mathrm{{src0}}_{{\lfloor k/C \rfloor,\, k \bmod C}},\quad "
            r"k = \mathrm{src1}_{i,j}"
        )

    def forms_by_role(self, op: OpViewAPI) -> tuple[FormViewAPI, FormViewAPI, FormViewAPI]:
        """(index form, comparison form, mask form): the comparison form takes a CmpMode."""
        cmp = next(f for f in op.forms[1:] if any(str(t.type) == "CmpMode" for t in f.template))
        mask = next(f for f in op.forms[1:] if f is not cmp)
        return op.forms[0], cmp, mask

    def plan_tests(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        index_form, cmp_form, mask_form = self.forms_by_role(op)
        for dtype, on in dtype_profiles(project, op):
            cases: list[RuntimeCase] = []
            for label, r, c, vr, vc, sr, sc, dyn in INDEX_CASES:
                tiles = [
                    TileDecl("dst", dtype, r, c, vr, vc, dyn),
                    TileDecl("src0", dtype, sr, sc, sr, sc),
                    TileDecl("src1", "int32_t", r, c, vr, vc, dyn),
                    TileDecl("tmp", "int32_t", r, c, vr, vc, dyn),
                ]
                call = form_call(index_form, {}, {})
                cases.append(self.case(project, tests, cases, label, tiles, call, {"form": "index"}))
            self.kernel(tests, dtype, cases, on)
            # The mask cases, one kernel per set of profiles whose rules admit them (A5 gathers
            # 8-byte elements by rows only).
            by_profiles: dict[
                tuple[str, ...], list[tuple[str, list[TileDecl], dict[str, str], dict[str, str]]]
            ] = {}
            for label, pattern, axis, sr, sc, vr, vc in MASK_CASES:
                sc, vc = mask_columns(axis, dtype, sc), mask_columns(axis, dtype, vc)
                label = f"{label}, valid {vr}x{vc} of {sr}x{sc}" if axis == "GATHER_ROW" else label
                kept_cols = sum(selected(pattern, j) for j in range(vc))
                kept_rows = sum(selected(pattern, i) for i in range(vr))
                dshape = (vr, kept_cols) if axis == "GATHER_ROW" else (kept_rows, vc)
                tiles = [
                    TileDecl("dst", dtype, dshape[0], dshape[1], dshape[0], dshape[1]),
                    TileDecl("src", dtype, sr, sc, vr, vc),
                ]
                values = {"maskPattern": f"MaskPattern::{pattern}", "gatherType": f"GatherAxis::{axis}"}
                admitted = tuple(p for p in on if _admits_call(op, mask_form, p, tiles, values))
                attrs = {"form": "mask", "pattern": pattern, "axis": axis}
                by_profiles.setdefault(admitted, []).append((label, tiles, values, attrs))
            for n, (profiles, specs) in enumerate(by_profiles.items()):
                cases = []
                for label, tiles, values, attrs in specs:
                    call = form_call(mask_form, values, {})
                    cases.append(self.case(project, tests, cases, label, tiles, call, attrs))
                gid = f"{dtype}_mask" if n == 0 else f"{dtype}_mask_{'_'.join(profiles).lower()}"
                self.kernel(tests, gid, cases, list(profiles))
        for s_type in CMP_SOURCES:
            cases = []
            for label, mode, r, c, vr, vc, offset in CMP_CASES:
                tiles = [
                    TileDecl("dst", "int32_t", r, c, vr, vc),
                    TileDecl("src0", s_type, r, c, vr, vc),
                    TileDecl("k_value", "uint32_t", 1, r, 1, r),
                    TileDecl("cdst", "int32_t", 1, r, 1, r),
                    TileDecl("tmp", "uint8_t", r, c, r, c),
                ]
                call = form_call(cmp_form, {"cmpMode": f"CmpMode::{mode}"}, {"offset": str(offset)})
                attrs = {"form": "cmp", "mode": mode, "offset": str(offset)}
                cases.append(self.case(project, tests, cases, label, tiles, call, attrs))
            self.kernel(tests, f"{s_type}_cmp", cases, [p.name for p in project.profiles])
        for case in runtime_cases(tests):  # the comparison form's count tile, judged too
            case.stored += tile_stores(case, ("cdst",))
        plan_rule_cases(project, op, tests)

    def prepare_cases(self, gx: GoldenContext, data: Path) -> list[Check]:
        checks: list[Check] = []
        for case in gx.group.cases:
            k = case.index
            seed = f"{gx.op_name}/{gx.entry.group}/{k}"
            label = f"{gx.label} case {k} ({case.label})"
            t = case.tiles
            dt = {n: gx.np_type(gx.group.dtypes[n]) for n in t}
            flat = {n: inputs(dt[n], t[n].rows * t[n].cols, f"{seed}/{n}") for n in t}
            td = t["dst"]
            before = tile_logical(flat["dst"], td)
            want = np.zeros((td.rows, td.cols), dtype=dt["dst"])
            mask = np.zeros((td.rows, td.cols), dtype=bool)
            form = case.attrs["form"]
            if form == "index":
                ts = t["src0"]
                n = ts.rows * ts.cols
                rng = np.random.default_rng(np.frombuffer(seed.encode(), dtype=np.uint8).sum())
                idx = rng.integers(0, n, size=t["src1"].rows * t["src1"].cols).astype(np.int32)
                if case is gx.group.cases[0]:
                    idx[:6] = [-1, n, n + 7, -100, 0, n - 1]
                flat["src1"] = idx
                vr, vc = td.valid_rows, td.valid_cols
                src = tile_logical(flat["src0"], ts)
                ind = tile_logical(idx, t["src1"])[:vr, :vc]
                want[:vr, :vc] = gather_index(src, ind, dt["dst"].type(0))
                mask[:vr, :vc] = True
            elif form == "mask":
                ts = t["src"]
                src = tile_logical(flat["src"], ts)[: ts.valid_rows, : ts.valid_cols]
                pattern = case.attrs["pattern"]
                if case.attrs["axis"] == "GATHER_ROW":
                    cols = [j for j in range(ts.valid_cols) if selected(pattern, j)]
                    kept = src[:, cols].reshape(-1)  # row by row into consecutive storage
                    linear = want.reshape(-1)
                    linear[: kept.size] = kept.view(dt["dst"])
                    mask.reshape(-1)[: kept.size] = True
                else:
                    rows = [i for i in range(ts.valid_rows) if selected(pattern, i)]
                    want[: len(rows), : ts.valid_cols] = src[rows, :].view(dt["dst"])
                    mask[: len(rows), : ts.valid_cols] = True
            else:
                ts = t["src0"]
                vr, vc = ts.valid_rows, ts.valid_cols
                levels = np.array([0, 1, 2, 3], dtype=np.uint32)
                kv = levels[np.arange(t["k_value"].cols) % 4]
                flat["k_value"] = kv
                rng = np.random.default_rng(len(seed))
                values = rng.integers(-1, 5, size=(ts.rows, ts.cols)).astype(dt["src0"])
                flat["src0"] = values.reshape(-1)
                src = values[:vr, :vc].astype(np.float64)
                offset = int(case.attrs["offset"])
                tc = t["cdst"]
                c_before = tile_logical(flat["cdst"], tc)
                counts = c_before.copy()
                for i in range(vr):
                    thr = float(kv[i])
                    gt = case.attrs["mode"] == "GT"
                    hits = [j for j in range(vc) if (src[i, j] > thr if gt else src[i, j] == thr)]
                    want[i, : len(hits)] = np.array([offset + j for j in hits], dtype=dt["dst"])
                    mask[i, : len(hits)] = True
                    counts[0, i] = len(hits)
                c_mask = np.zeros(counts.shape, dtype=bool)
                c_mask[0, :vr] = True
                c_label = f"{label}, cdst"
                checks.append(written_check(f"c{k}_cdst.out", tc, counts, c_mask, c_before, c_label))
            for name, values in flat.items():
                self.write(data, k, name, values.reshape(-1))
            checks.append(
                written_check(f"c{k}_dst.out", td, np.where(mask, want, before), mask, before, label)
            )
        return checks


# ----------------------------------------------------------------------------- TGATHERB

BLOCK_BYTES = 32

# (label, dst rows, blocks a row, valid rows, valid blocks, src rows, src bytes a row).
BLOCKB_CASES = [
    ("4 rows of 2 blocks from a 8-row source", 4, 2, 4, 2, 8, 64),
    ("valid 3 rows of 1 of 2 blocks, offsets beyond the source skipped", 4, 2, 3, 1, 4, 64),
]


class BlockGather(FormsKind):
    name: ClassVar[str] = "block_gather"
    facts: ClassVar[KindFacts] = KindFacts(plans_forms=False)

    def recognise(self, page: PageOp) -> int | None:
        # templates/opkinds/block_gather/domain.md.j2: "..., copied from the source's byte offset"
        return DOMAIN if not page.vector and page.intro_says("copied from the source's byte offset") else None

    def math(self, op: OpViewAPI) -> str | None:
        return (
            rf"\mathrm{{{op.domain}}}_{{i,\,b}} = \mathrm{{src}}[o],\quad "
            r"o = \mathrm{offset}_{i,b}"
        )

    def plan_tests(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        form = op.forms[0]
        for dtype, on in dtype_profiles(project, op):
            size = int(next(d.bits for d in op.targets.dtypes if d.name == dtype)) // 8
            per = BLOCK_BYTES // size
            cases: list[RuntimeCase] = []
            for label, r, blocks, vr, vb, sr, sbytes in BLOCKB_CASES:
                tiles = [
                    TileDecl("dst", dtype, r, blocks * per, vr, vb * per),
                    TileDecl("src", dtype, sr, sbytes // size, sr, sbytes // size),
                    TileDecl("offset", "uint32_t", r, 8, r, 8),
                ]
                cases.append(self.case(project, tests, cases, label, tiles, form_call(form, {}, {}), {}))
            self.kernel(tests, dtype, cases, on)
        plan_rule_cases(project, op, tests)

    def prepare_cases(self, gx: GoldenContext, data: Path) -> list[Check]:
        checks: list[Check] = []
        for case in gx.group.cases:
            k = case.index
            seed = f"{gx.op_name}/{gx.entry.group}/{k}"
            label = f"{gx.label} case {k} ({case.label})"
            t = case.tiles
            dt = gx.np_type(gx.group.dtypes["dst"])
            td, ts, to = t["dst"], t["src"], t["offset"]
            dst = inputs(dt, td.rows * td.cols, f"{seed}/dst")
            src = inputs(dt, ts.rows * ts.cols, f"{seed}/src")
            src_bytes = src.view(np.uint8)
            rng = np.random.default_rng(k + 17)
            limit = src_bytes.size - BLOCK_BYTES
            offsets = rng.integers(0, limit + 1, size=to.rows * to.cols).astype(np.uint32)
            if "skipped" in case.label:
                offsets[::3] = limit + 1 + np.arange(len(offsets[::3]), dtype=np.uint32) * 5
            for name, flat in (("dst", dst), ("src", src), ("offset", offsets)):
                self.write(data, k, name, flat)
            want = dst.copy().view(np.uint8)
            mask = np.zeros(want.size, dtype=bool)
            per = BLOCK_BYTES // dt.itemsize
            for i in range(td.valid_rows):
                for b in range(td.valid_cols // per):
                    o = int(offsets[i * to.cols + b])
                    at = (i * td.cols + b * per) * dt.itemsize
                    if o + BLOCK_BYTES <= src_bytes.size:
                        want[at : at + BLOCK_BYTES] = src_bytes[o : o + BLOCK_BYTES]
                        mask[at : at + BLOCK_BYTES] = True
            want_t = want.view(dt).reshape(td.rows, td.cols)
            mask_t = mask.reshape(-1, dt.itemsize).all(axis=1).reshape(td.rows, td.cols)
            before = dst.reshape(td.rows, td.cols)
            checks.append(written_check(f"c{k}_dst.out", td, want_t, mask_t, before, label))
        return checks


# ----------------------------------------------------------------------------- TSCATTER

# Index form: (label, dst rows, cols, index rows, cols, valid rows, valid cols, repeated indices).
SCATTER_CASES = [
    ("8x16 destination, 4x8 indices", 8, 16, 4, 8, 4, 8, False),
    ("valid 3x5 of 4x8 indices, repeated ones (the last write wins)", 8, 16, 4, 8, 3, 5, True),
]
# Mask form: (label, pattern, axis, dst rows, cols).
SCATTER_MASK_CASES = [
    ("P0101 rows, 4x32", "P0101", "SCATTER_ROW", 4, 32),
    ("P1000 rows, 2x32", "P1000", "SCATTER_ROW", 2, 32),
    ("P0010 columns of rows, 8x16", "P0010", "SCATTER_COL", 8, 16),
    ("P1111, 4x16", "P1111", "SCATTER_ROW", 4, 16),
]
INDEX_OF_SIZE = {1: "uint16_t", 2: "uint16_t", 4: "uint32_t", 8: "uint32_t"}


class Scatter(FormsKind):
    name: ClassVar[str] = "scatter"

    def recognise(self, page: PageOp) -> int | None:
        # templates/opkinds/scatter/domain.md.j2: "..., scattered to the destination element"
        return DOMAIN if not page.vector and page.intro_says("scattered to the destination element") else None

    def math(self, op: OpViewAPI) -> str | None:
        return (
            rf"\mathrm{{{op.domain}}}_{{\lfloor k/C \rfloor,\, k \bmod C}} = \mathrm{{src}}_{{i,j}},\quad "
            r"k = \mathrm{indexes}_{i,j}"
        )

    def plan_tests(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        index_form, mask_form = op.forms[0], op.forms[1]
        for dtype, on in dtype_profiles(project, op):
            size = int(next(d.bits for d in op.targets.dtypes if d.name == dtype)) // 8
            cases: list[RuntimeCase] = []
            for label, r, c, ir, ic, vr, vc, _rep in SCATTER_CASES:
                tiles = [
                    TileDecl("dst", dtype, r, c, r, c),
                    TileDecl("src", dtype, ir, ic, vr, vc),
                    TileDecl("indexes", INDEX_OF_SIZE[size], ir, ic, vr, vc),
                ]
                cases.append(
                    self.case(
                        project, tests, cases, label, tiles, form_call(index_form, {}, {}), {"form": "index"}
                    )
                )
            self.kernel(tests, dtype, cases, on)
            if size not in (2, 4):  # upstream's simulator scatters 2- and 4-byte elements by pattern
                continue
            cases = []
            for label, pattern, axis, r, c in SCATTER_MASK_CASES:
                kept_c = sum(selected(pattern, j) for j in range(c))
                kept_r = sum(selected(pattern, i) for i in range(r))
                sshape = (r, kept_c) if axis == "SCATTER_ROW" else (kept_r, c)
                tiles = [TileDecl("dst", dtype, r, c, r, c), TileDecl("src", dtype, *sshape, *sshape)]
                values = {"maskPattern": f"MaskPattern::{pattern}", "ScatterType": f"ScatterAxis::{axis}"}
                attrs = {"form": "mask", "pattern": pattern, "axis": axis}
                cases.append(
                    self.case(project, tests, cases, label, tiles, form_call(mask_form, values, {}), attrs)
                )
            self.kernel(tests, f"{dtype}_mask", cases, on)
        plan_rule_cases(project, op, tests)

    def prepare_cases(self, gx: GoldenContext, data: Path) -> list[Check]:
        checks: list[Check] = []
        for case in gx.group.cases:
            k = case.index
            seed = f"{gx.op_name}/{gx.entry.group}/{k}"
            label = f"{gx.label} case {k} ({case.label})"
            t = case.tiles
            dt = gx.np_type(gx.group.dtypes["dst"])
            td, ts = t["dst"], t["src"]
            dst = inputs(dt, td.rows * td.cols, f"{seed}/dst")
            src = inputs(dt, ts.rows * ts.cols, f"{seed}/src")
            self.write(data, k, "dst", dst)
            self.write(data, k, "src", src)
            before = tile_logical(dst, td)
            want = before.copy()
            mask = np.zeros(want.shape, dtype=bool)
            s = tile_logical(src, ts)
            if case.attrs["form"] == "index":
                ti = t["indexes"]
                rng = np.random.default_rng(k + 5)
                n = td.rows * td.cols
                idx = rng.permutation(n)[: ti.rows * ti.cols]
                if "repeated" in case.label:
                    idx[1 : ti.cols : 2] = idx[0]
                idx = idx.astype(gx.np_type(gx.group.dtypes["indexes"]))
                self.write(data, k, "indexes", idx)
                ind = tile_logical(idx, ti)
                flat_want, flat_mask = want.reshape(-1), mask.reshape(-1)
                for i in range(ti.valid_rows):
                    for j in range(ti.valid_cols):
                        flat_want[int(ind[i, j])] = s[i, j]
                        flat_mask[int(ind[i, j])] = True
            else:
                pattern, axis = case.attrs["pattern"], case.attrs["axis"]
                mask[: td.valid_rows, : td.valid_cols] = True
                if pattern == "P1111":
                    want[: td.valid_rows, : td.valid_cols] = s[: td.valid_rows, : td.valid_cols]
                elif axis == "SCATTER_ROW":
                    taken = 0
                    for i in range(td.valid_rows):
                        for j in range(td.valid_cols):
                            if selected(pattern, j):
                                want[i, j] = s[taken // ts.cols, taken % ts.cols]
                                taken += 1
                            else:
                                want[i, j] = 0
                else:
                    row = 0
                    for i in range(td.valid_rows):
                        if selected(pattern, i):
                            want[i, : td.valid_cols] = s[row, : td.valid_cols]
                            row += 1
                        else:
                            want[i, : td.valid_cols] = 0
            checks.append(written_check(f"c{k}_dst.out", td, want, mask, before, label))
        return checks
