"""Indexed transfers between a GlobalTensor table and a tile through an index tile: MGATHER
(tile <- table) and MSCATTER (table <- tile).

`Coalesce::Row`: index r picks a whole table row, `dst[r, j] = table[idx[r], j]` (gather) or
`table[idx[r], j] = src[r, j]` (scatter), the table being the rows x cols matrix of Shape
dimensions 3 and 4 (element (i, j) at i * stride[3] + j * stride[4]), with capacity Shape[3].
`Coalesce::Elem`: index (i, j) is a linear element offset into the table's data, with capacity
the product of the five Shape extents. Indices are read as `uint32_t` (a negative index is a large
one); the out-of-range policy is a template value (GatherOOB / ScatterOOB). Scatters run in
row-major order, so of several writes to one element the last one survives unless an atomic
operation combines them.

The kind defines the whole semantics; `semantics.expr` names the source operand (`src`). The index
operand is the tile operand that is neither the domain nor the source.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..importer.contract import OPERANDS, PageOp
from ..kindlib.layout import global_addresses, tile_logical
from ..lower.contract import FormBackend
from ..rules.parts import TileFilter, part
from ..testing.golden import Check, GoldenContext, describe_mismatch, inputs, logical, raw_bits
from ..testing.manifest import GlobalShape, TileShape
from ..testing.plan import (
    Call,
    GlobalDecl,
    OpTests,
    RuntimeCase,
    RuntimeKernel,
    TileDecl,
    dtype_profiles,
    layout_addresses,
    plan_rule_cases,
)
from ..testing.results import Outcome
from .base import NamesOperand

if TYPE_CHECKING:
    from ..kind_api import FormViewAPI, OpViewAPI, ProjectViewAPI
    from ..spec.model import OpSpec

# The mode template values of each intrinsic, in the simulator's order, with the value a form that
# does not take one uses (the documented defaults).
MODES = {
    "MGATHER": [("Coalesce", "Row"), ("GatherOOB", "Undefined")],
    "MSCATTER": [("Coalesce", "Row"), ("ScatterAtomicOp", "None"), ("ScatterOOB", "Undefined")],
}

# One runtime case: (label, mode, oob, atomic, table rows x cols and leading dimension, tile rows x
# cols, valid rows x cols, dynamic, index layout, out-of-range indices, table layout). ND Row tables
# are rows x cols matrices, ND Elem tables flat; NZ tables are their rows x cols matrix in both modes
# (with an NZ tile); an empty mode calls the plain form.
Case = tuple[str, str, str, str, tuple[int, int, int], tuple[int, int], tuple[int, int], bool, str, bool, str]


def _c(
    label: str,
    mode: str,
    oob: str,
    atomic: str,
    table: tuple[int, int, int],
    tile: tuple[int, int],
    valid: tuple[int, int],
    dynamic: bool = False,
    index_layout: str = "RowMajor",
    out_of_range: bool = False,
    table_layout: str = "ND",
) -> Case:
    return (label, mode, oob, atomic, table, tile, valid, dynamic, index_layout, out_of_range, table_layout)


CASES: list[Case] = [
    _c(
        "Row, full 8x16, table 12x16",
        "Row",
        "Undefined",
        "None",
        (12, 16, 16),
        (8, 16),
        (8, 16),
    ),
    _c(
        "Row, partial valid 5x10 of 8x16, table 7x10 with row stride 13",
        "Row",
        "Undefined",
        "None",
        (7, 10, 13),
        (8, 16),
        (5, 10),
    ),
    _c(
        "Row, run-time valid 6x9 of 8x16, run-time table 9x9 with row stride 11",
        "Row",
        "Undefined",
        "None",
        (9, 9, 11),
        (8, 16),
        (6, 9),
        dynamic=True,
    ),
    _c(
        "Row, Clamp, out-of-range and negative indices",
        "Row",
        "Clamp",
        "None",
        (6, 16, 16),
        (8, 16),
        (8, 16),
        out_of_range=True,
    ),
    _c(
        "Row, Wrap, out-of-range and negative indices",
        "Row",
        "Wrap",
        "None",
        (6, 16, 16),
        (8, 16),
        (8, 16),
        out_of_range=True,
    ),
    _c(
        "Elem, full 4x8, flat table of 40",
        "Elem",
        "Undefined",
        "None",
        (1, 40, 40),
        (4, 8),
        (4, 8),
    ),
    _c(
        "Elem, run-time valid 3x5 of 4x8, flat table of 23",
        "Elem",
        "Undefined",
        "None",
        (1, 23, 23),
        (4, 8),
        (3, 5),
        dynamic=True,
    ),
    _c(
        "Elem, Clamp, out-of-range and negative indices",
        "Elem",
        "Clamp",
        "None",
        (1, 20, 20),
        (4, 8),
        (4, 8),
        out_of_range=True,
    ),
    _c(
        "Elem, Wrap, out-of-range and negative indices",
        "Elem",
        "Wrap",
        "None",
        (1, 20, 20),
        (4, 8),
        (4, 8),
        out_of_range=True,
    ),
    _c(
        "main form (Row, Undefined), partial valid 3x16 of 8x16",
        "",
        "",
        "",
        (10, 16, 16),
        (8, 16),
        (3, 16),
    ),
]


def nz_cases(block: int) -> list[Case]:
    """Cases of an NZ table (fractal column blocks of `block` elements, 32 bytes) with an NZ tile:
    rows are whole 16-row fractals, columns whole blocks; the tile's valid region may be partial or
    set at run time (the table's shape is static, as the NZ rule asks)."""
    b2 = 2 * block
    return [
        _c(
            f"NZ Row, full 16x{b2} of table 48x{b2}",
            "Row",
            "Undefined",
            "None",
            (48, b2, b2),
            (16, b2),
            (16, b2),
            table_layout="NZ",
        ),
        _c(
            f"NZ Row, partial valid 5x{block + 3} of 16x{b2}, table 32x{b2}",
            "Row",
            "Undefined",
            "None",
            (32, b2, b2),
            (16, b2),
            (5, block + 3),
            table_layout="NZ",
        ),
        _c(
            f"NZ Row, Clamp, out-of-range and negative indices, table 32x{block}",
            "Row",
            "Clamp",
            "None",
            (32, block, block),
            (16, block),
            (16, block),
            out_of_range=True,
            table_layout="NZ",
        ),
        _c(
            f"NZ Elem, run-time valid 11x{block - 1} of 16x{b2}, table 32x{b2}",
            "Elem",
            "Undefined",
            "None",
            (32, b2, b2),
            (16, b2),
            (11, block - 1),
            dynamic=True,
            table_layout="NZ",
        ),
    ]


GATHER_ONLY: list[Case] = [
    _c(
        "Row, Zero, out-of-range and negative indices",
        "Row",
        "Zero",
        "None",
        (6, 16, 16),
        (8, 16),
        (8, 16),
        out_of_range=True,
    ),
    _c(
        "Elem, Zero, out-of-range and negative indices",
        "Elem",
        "Zero",
        "None",
        (1, 20, 20),
        (4, 8),
        (4, 8),
        out_of_range=True,
    ),
]
SCATTER_ONLY: list[Case] = [
    _c(
        "Row, Skip, out-of-range and negative indices",
        "Row",
        "Skip",
        "None",
        (6, 16, 16),
        (8, 16),
        (8, 16),
        out_of_range=True,
    ),
    _c(
        "Elem, Skip, out-of-range and negative indices",
        "Elem",
        "Skip",
        "None",
        (1, 20, 20),
        (4, 8),
        (4, 8),
        out_of_range=True,
    ),
    _c(
        "Elem, colliding indices, last write wins",
        "Elem",
        "Undefined",
        "None",
        (1, 9, 9),
        (4, 8),
        (4, 8),
    ),
]
ATOMIC: list[Case] = [
    _c(
        "Elem, atomic Add, colliding indices",
        "Elem",
        "Undefined",
        "Add",
        (1, 9, 9),
        (4, 8),
        (4, 8),
    ),
    _c(
        "Elem, atomic Max, colliding indices",
        "Elem",
        "Undefined",
        "Max",
        (1, 9, 9),
        (4, 8),
        (4, 8),
    ),
    _c(
        "Elem, atomic Min, colliding indices",
        "Elem",
        "Undefined",
        "Min",
        (1, 9, 9),
        (4, 8),
        (4, 8),
    ),
    _c(
        "Row, atomic Add, repeated rows",
        "Row",
        "Undefined",
        "Add",
        (5, 16, 16),
        (8, 16),
        (8, 16),
    ),
]
# A5 and the CPU simulator also take an R x 1 column-major index tile in Row mode.
COLUMN_INDEX: list[Case] = [
    _c(
        "Row, 8x1 column-major index tile",
        "Row",
        "Undefined",
        "None",
        (12, 16, 16),
        (8, 16),
        (8, 16),
        index_layout="ColMajor",
    ),
    _c(
        "Row, Clamp, 8x1 column-major index tile, partial valid 6x12",
        "Row",
        "Clamp",
        "None",
        (5, 12, 16),
        (8, 16),
        (6, 12),
        index_layout="ColMajor",
        out_of_range=True,
    ),
]
# Element types whose atomic Add/Max/Min every profile that takes MSCATTER's atomics documents.
ATOMIC_DTYPES = ("int32_t", "float")


class Indexed(NamesOperand):
    name: ClassVar[str] = "indexed"
    domain_starts: ClassVar[tuple[str, ...]] = ("With Coalesce::Row (the default), for each row",)

    # ----------------------------------------------------------------- import
    def recognise(self, page: PageOp) -> int | None:
        # A GlobalTensor table, and an index tile besides the data tile.
        return OPERANDS if not page.vector and page.has("global") and page.count("tile") > 1 else None

    # ----------------------------------------------------------------- spec checks
    def check_operands(self, spec: OpSpec) -> list[tuple[tuple[str | int, ...], str]]:
        kinds = sorted(o.kind for o in spec.operands)
        if kinds != ["global", "tile", "tile"]:
            return [(("operands",), "an indexed op takes two tiles (data, index) and one GlobalTensor table")]
        return []

    # ----------------------------------------------------------------- naming

    @staticmethod
    def table(op: OpViewAPI) -> str:
        return next(o.name for o in op.spec.operands if o.kind == "global")

    def data_tile(self, op: OpViewAPI) -> str:
        return op.spec.semantics.domain if self.gathers(op) else self.source(op)

    def index_tile(self, op: OpViewAPI) -> str:
        used = {op.spec.semantics.domain, self.source(op)}
        return next(o.name for o in op.spec.operands if o.kind == "tile" and o.name not in used)

    def gathers(self, op: OpViewAPI) -> bool:
        return self.table(op) != op.spec.semantics.domain

    def modes(self, op: OpViewAPI) -> list[tuple[str, str]]:
        return MODES[op.name]

    def sim_targs(self, op: OpViewAPI, form: FormViewAPI) -> list[str]:
        """Template arguments of the simulator call from a form's scope: its own mode parameters,
        the documented default for the ones it does not take."""
        own = {str(t.type): t.name for t in form.template if t.kind == "value"}
        return [own.get(enum, f"{enum}::{default}") for enum, default in self.modes(op)]

    def sim_args(self, op: OpViewAPI, form: FormViewAPI) -> list[str]:
        """Table, data and index operands as the form names them, in the main declaration's order."""
        intr = op.spec.intrinsic
        assert intr is not None
        return [form.arg(str(p.operand)) for p in intr.params if not p.events]

    def index_type(self, op: OpViewAPI, form: FormViewAPI) -> str:
        return str(next(p.type for p in form.params if p.operand == self.index_tile(op)))

    # ----------------------------------------------------------------- math
    def result_index(self, op: OpViewAPI) -> str:
        return "i,j" if self.gathers(op) else r"\mathrm{" + self.index_tile(op) + "}_{i},j"

    def operand_index(self, op: OpViewAPI, operand: str) -> str:
        if operand == self.table(op):
            return r"\mathrm{" + self.index_tile(op) + "}_{i},j"
        return "i,j"

    # ----------------------------------------------------------------- outputs
    unchecked_reason = "a GlobalTensor index (GM -> L1 gather): the profile rules speak of tiles"

    def form_backend(self, op: OpViewAPI, form: FormViewAPI) -> FormBackend:
        # A form with a GlobalTensor of its own (the scratch) is a GM -> L1 form: its index is a
        # GlobalTensor too.
        gm_to_l1 = any(o.kind == "global" for o in form.own)
        return FormBackend(
            unchecked_when=f"!is_tile_data_v<{self.index_type(op, form)}>",
            global_operands=(self.index_tile(op),) if gm_to_l1 else (),
        )

    # ----------------------------------------------------------------- tests
    def table_layouts(self, op: OpViewAPI, profile: str) -> list[str]:
        """GlobalTensor layouts the profile's table_layout rules admit (ND when none says)."""
        allowed: list[str] | None = None
        for rv in op.rules_for(profile, static=True):
            layouts = part(rv.rule, TileFilter).global_layouts()
            if layouts:
                allowed = [x for x in (allowed if allowed is not None else layouts) if x in layouts]
        return ["ND"] if allowed is None else allowed

    def plan_tests(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        data, index, table = self.data_tile(op), self.index_tile(op), self.table(op)
        gathers = self.gathers(op)
        first = 0
        for dtype, on in dtype_profiles(project, op):
            groups: list[tuple[str, str, list[Case], list[str]]] = [
                (dtype, "int32_t", CASES + (GATHER_ONLY if gathers else SCATTER_ONLY), on),
                (f"{dtype}_colidx", "int32_t", COLUMN_INDEX, [p for p in on if p != "A2A3"]),
            ]
            if dtype == "float":
                groups.append((f"{dtype}_u32", "uint32_t", CASES[:2] + CASES[5:6], on))
            if not gathers and dtype in ATOMIC_DTYPES:
                groups.append((f"{dtype}_atomic", "int32_t", ATOMIC, on))
            bits = next(d.bits for d in project.targets.dtypes if d.name == dtype)
            nz_on = [p for p in on if "NZ" in self.table_layouts(op, p)]
            if nz_on and bits <= 32:  # 64-bit elements have no NZ form on the pages
                groups.append((f"{dtype}_nz", "int32_t", nz_cases(256 // bits), nz_on))
            for gid, idx_dtype, cases, where in groups:
                planned = []
                for k, case in enumerate(cases, first):
                    planned.append(self._case(project, op, k, case, dtype, idx_dtype, data, index, table))
                first += len(cases)
                dts = {data: dtype, index: idx_dtype, table: dtype}
                tests.runtime.append(RuntimeKernel(gid, dts, {}, where, planned))
        plan_rule_cases(project, op, tests)

    def _case(
        self,
        project: ProjectViewAPI,
        op: OpViewAPI,
        k: int,
        case: Case,
        dtype: str,
        idx_dtype: str,
        data: str,
        index: str,
        table: str,
    ) -> RuntimeCase:
        label, mode, oob, atomic, (trows, tcols, ld), (rows, cols), (vr, vc), dyn, idx_layout, _, tl = case
        if tl == "NZ":
            t = TileDecl(data, dtype, rows, cols, vr, vc, dyn, "Vec", "ColMajor", slayout="RowMajor")
            block = 256 // next(d.bits for d in project.targets.dtypes if d.name == dtype)
            g = GlobalDecl(table, dtype, trows, tcols, tcols, "NZ", block=block)
        else:
            t = TileDecl(data, dtype, rows, cols, vr, vc, dyn, "Vec", "RowMajor")
            g = GlobalDecl(table, dtype, trows, tcols, ld, "ND", dyn)
        if (mode or "Row") == "Row":
            if idx_layout == "RowMajor":
                i = TileDecl(index, idx_dtype, 1, rows, 1, vr, dyn, "Vec", "RowMajor")
            else:
                i = TileDecl(index, idx_dtype, rows, 1, vr, 1, dyn, "Vec", "ColMajor")
        else:
            i = TileDecl(index, idx_dtype, rows, cols, vr, vc, dyn, "Vec", "RowMajor")
        targs: list[str] = []
        if mode:
            targs = [f"Coalesce::{mode}"]
            if self.gathers(op):
                targs.append(f"GatherOOB::{oob}")
            else:
                targs += [f"ScatterAtomicOp::{atomic}", f"ScatterOOB::{oob}"]
        intr = op.spec.intrinsic
        assert intr is not None
        call = Call(targs, [str(p.operand) for p in intr.params if not p.events])
        attrs = {"coalesce": mode or "Row", "oob": oob or "Undefined", "atomic": atomic or "None"}
        attrs["oob_indices"] = "yes" if case[9] else "no"
        attrs["index_layout"] = idx_layout
        return RuntimeCase(
            k, label, [t, i], {}, call, layout_addresses(project, [t, i]), attrs=attrs, globals=[g]
        )

    # ----------------------------------------------------------------- golden
    def prepare_cases(self, gx: GoldenContext, data_dir: Path) -> list[Check]:
        op = gx.op
        dst = op.domain
        names = op.operands
        table = next(n for n, kind in names.items() if kind == "global")
        gathers = table != dst
        tiles = [n for n, kind in names.items() if kind == "tile"]
        data = dst if gathers else op.inputs[0]  # the expression names the scattered tile
        index = next(n for n in tiles if n != data)
        checks: list[Check] = []
        for case in gx.group.cases:
            k = case.index
            t, it, g = case.tiles[data], case.tiles[index], case.globals[table]
            attrs = case.attrs
            dtype = gx.np_type(gx.group.dtypes[data])
            idt = gx.np_type(gx.group.dtypes[index])
            seed = f"{gx.op_name}/{gx.entry.group}/{k}"
            tile_flat = inputs(dtype, t.rows * t.cols, f"{seed}/{data}")
            buf = inputs(dtype, g.size, f"{seed}/{table}")
            vr, vc = t.valid_rows, t.valid_cols
            row_mode = attrs["coalesce"] == "Row"
            cap = g.rows if row_mode else g.rows * g.cols
            count = vr if row_mode else vr * vc
            raw = _indices(count, cap, attrs, f"{seed}/{index}", scatter=not gathers)
            idx_flat = np.zeros(it.rows * it.cols, dtype=idt)
            idx_tile = logical(idx_flat, it.rows, it.cols, it.layout)
            if row_mode:
                if it.rows == 1:
                    idx_tile[0, :vr] = raw.astype(np.int64).astype(idt)
                else:
                    idx_tile[:vr, 0] = raw.astype(np.int64).astype(idt)
            else:
                idx_tile[:vr, :vc] = raw.reshape(vr, vc).astype(np.int64).astype(idt)
            idx_flat = _flat(idx_tile, it.layout)
            tile_flat.tofile(data_dir / f"c{k}_{data}.bin")
            idx_flat.tofile(data_dir / f"c{k}_{index}.bin")
            buf.tofile(data_dir / f"c{k}_{table}.bin")
            tile = tile_logical(tile_flat, t)
            unsigned = (raw.astype(np.int64) & 0xFFFFFFFF).astype(np.int64)  # indices read as uint32_t
            # Buffer index of each table matrix element; an ND Elem index is a buffer index itself.
            addr = global_addresses(g, g.rows, g.cols)
            nz = g.layout == "NZ"

            def flat_at(slot: int, addr: np.ndarray = addr, nz: bool = nz, cols: int = g.cols) -> int:
                return int(addr[slot // cols, slot % cols]) if nz else slot

            if gathers:
                want = tile.copy()
                region = np.zeros(want.shape, dtype=bool)
                region[:vr, :vc] = True
                for n in range(count):
                    slot, keep = remap_index(int(unsigned[n]), cap, attrs["oob"])
                    if row_mode:
                        want[n, :vc] = buf[addr[slot, :vc]] if keep else dtype.type(0)
                    else:
                        want[n // vc, n % vc] = buf[flat_at(slot)] if keep else dtype.type(0)
                out: TileShape | GlobalShape = t
            else:
                want = buf.copy()
                region = np.zeros(want.shape, dtype=bool)
                for n in range(count):
                    slot, keep = remap_index(int(unsigned[n]), cap, attrs["oob"])
                    if not keep:
                        continue
                    if row_mode:
                        for j in range(vc):
                            at = int(addr[slot, j])
                            want[at] = _combine(want[at], tile[n, j], attrs["atomic"], dtype)
                            region[at] = True
                    else:
                        at = flat_at(slot)
                        want[at] = _combine(want[at], tile[n // vc, n % vc], attrs["atomic"], dtype)
                        region[at] = True
                out = g
            label = f"{gx.label} case {k} ({case.label})"

            def check(
                d: Path,
                k: int = k,
                want: np.ndarray = want,
                region: np.ndarray = region,
                out: TileShape | GlobalShape = out,
                label: str = label,
                dtype: np.dtype = dtype,
            ) -> Outcome:
                got = np.fromfile(d / f"c{k}_{dst}.out", dtype=dtype)
                if isinstance(out, TileShape) and out.layout in ("RowMajor", "ColMajor"):
                    got = tile_logical(got, out)
                differs = raw_bits(got) != raw_bits(want)
                inside, outside = differs & region, differs & ~region
                if inside.any():
                    return Outcome("fail", label, describe_mismatch(inside, got, want, "indexed"))
                if outside.any():
                    return Outcome("fail", label, describe_mismatch(outside, got, want, "untouched"))
                return Outcome("pass", label)

            checks.append(check)
        return checks


def _flat(tile: np.ndarray, layout: str) -> np.ndarray:
    return np.ascontiguousarray(tile if layout == "RowMajor" else tile.T).reshape(-1)


def _indices(count: int, cap: int, attrs: dict[str, str], seed: str, scatter: bool) -> np.ndarray:
    """Index values: in range, distinct where the case does not test collisions (so a scatter's
    result does not depend on write order), with out-of-range and negative ones where it tests them."""
    rng = np.random.default_rng(int.from_bytes(hashlib.sha256(seed.encode()).digest()[:8], "little"))
    collide = attrs["atomic"] != "None" or (scatter and "colliding" in seed)
    if scatter and not collide and count <= cap and attrs["oob_indices"] == "no":
        vals = rng.permutation(cap)[:count].astype(np.int64)
    else:
        vals = rng.integers(0, cap, size=count).astype(np.int64)
    if attrs["oob_indices"] == "yes":
        specials = [cap, cap + 3, 5 * cap + 1, -1, -cap]
        for n, v in enumerate(specials[: max(1, count // 2)]):
            vals[(n * 3 + 1) % count] = v
        if scatter and attrs["oob"] == "Skip":
            return vals
        if scatter:  # clamped or wrapped writes may collide; keep the test order-independent per slot
            return vals
    return vals


def remap_index(idx: int, cap: int, oob: str) -> tuple[int, bool]:
    if oob == "Clamp":
        return min(idx, cap - 1), True
    if oob == "Wrap":
        return idx % cap, True
    if oob in ("Zero", "Skip"):
        return (idx, True) if idx < cap else (0, False)
    return idx, True


def _combine(old: Any, new: Any, atomic: str, dtype: np.dtype) -> Any:
    with np.errstate(over="ignore", invalid="ignore"):
        if atomic == "Add":
            return (np.array([old], dtype=dtype) + np.array([new], dtype=dtype))[0]
        if atomic == "Max":
            return max(old, new)
        if atomic == "Min":
            return min(old, new)
    return new
