"""Tile math: kinds whose expression computes each destination element from source elements and
scalars, `dst[i, j] = f(src[i, j], ..., scalars)` over dst's valid region (element-wise ops, and
the conversions, predicates, reductions and partial ops that specialise the walk), and what their
plans and goldens share."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..opkinds.base import OpKind
from ..rule_api import aligned_extent
from ..rules.parts import RuntimeCheck, TileFilter, part
from ..spec.kindfacts import KindFacts
from ..testing.golden import (
    Check,
    GoldenContext,
    compute_dtype,
    inputs,
    is_float,
    logical,
    within,
)
from ..testing.manifest import CaseEntry, OpManifest, TileShape
from ..testing.plan import (
    OpTests,
    RuntimeCase,
    RuntimeKernel,
    TileDecl,
    dtype_def,
    layout_addresses,
    legalised,
    make_call,
    plan_rule_cases,
    scalar_dtypes,
    shaped,
    special_scalars,
    tile_operands,
    variant_suffix,
)
from ..testing.refmath import narrow
from .regions import region_check, within_tolerance

if TYPE_CHECKING:
    from ..kind_api import OpViewAPI, ProjectViewAPI

# Shapes that matter: full, partial static valid region, non-square and not a power of two,
# valid region given at run time. (rows, cols, valid_rows, valid_cols, dynamic)
ROW_MAJOR_SHAPES = [
    ("full 16x16", 16, 16, 16, 16, False),
    ("partial valid 13x7 of 16x16", 16, 16, 13, 7, False),
    ("non-square 6x40", 6, 40, 6, 40, False),
    ("run-time valid 11x19 of 16x32", 16, 32, 11, 19, True),
    ("odd 3x5 valid 2x3", 3, 5, 2, 3, False),
]
COL_MAJOR_SHAPES = [
    ("col-major 12x20 valid 9x15", 12, 20, 9, 15, False),
    ("col-major run-time valid 5x6 of 8x8", 8, 8, 5, 6, True),
]


def plan_runtime_groups(project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
    profiles = [p.name for p in project.profiles]
    order = [d.name for d in project.targets.dtypes]
    for variant in op.value_variants:
        combos: list[dict[str, str]] = []
        for p in profiles:
            combos += [c for c in op.test_combos(p, variant) if c not in combos]
        combos.sort(key=lambda c: [order.index(c[op.compute_operand])] + [order.index(v) for v in c.values()])
        col_kinds: set[str] = set()
        for combo, role in [(c, r) for c in combos for r in roles(op)]:
            on = [p for p in profiles if combo in op.test_combos(p, variant)]
            # Column-major addressing does not depend on the element type: one float and one
            # integer combination per op prove it; every combination is proven row-major.
            kind = "float" if dtype_def(project, combo[op.compute_operand]).kind == "float" else "int"
            for layout, shapes in (("RowMajor", ROW_MAJOR_SHAPES), ("ColMajor", COL_MAJOR_SHAPES)):
                ok = [
                    p
                    for p in on
                    if layout == "RowMajor"
                    or all(part(rv.rule, TileFilter).admits_layout(layout) for rv in op.rules_for(p))
                ]
                if not ok or (layout == "ColMajor" and (kind in col_kinds or role)):
                    continue
                if layout == "ColMajor":
                    col_kinds.add(kind)
                dtypes = {**combo, **scalar_dtypes(op, combo)}
                names = [combo[op.compute_operand]] + [
                    d for d in combo.values() if d != combo[op.compute_operand]
                ]
                stem = "_".join(dict.fromkeys(names))
                suffix = variant_suffix(op, variant) + ("_colmajor" if layout == "ColMajor" else "")
                suffix += f"_{role}" if role else ""
                # Profiles whose run-time rules bound the input values get data within the bounds,
                # in a group of their own; the others keep the full range of the type.
                by_range: dict[tuple[tuple[str, tuple[float, float]], ...], list[str]] = {}
                for p in ok:
                    by_range.setdefault(tuple(sorted(input_ranges(op, p, combo).items())), []).append(p)
                for ranges, group in by_range.items():
                    first = sum(len(k.cases) for k in tests.runtime)
                    cases = _runtime_cases(project, op, dtypes, variant, layout, shapes, first, role)
                    name = f"{stem}{suffix}" + ("_ranged" if ranges else "")
                    tests.runtime.append(RuntimeKernel(name, dtypes, variant, group, cases, dict(ranges)))


def broadcast_pair(op: OpViewAPI) -> tuple[str, str] | None:
    """(documented per-row operand, its `broadcast_swap` partner) of an op whose sources may swap
    roles (TROWEXPANDSUB's src1 and src0), else None."""
    return next(((o.name, o.broadcast_swap) for o in op.spec.operands if o.broadcast_swap), None)


def roles(op: OpViewAPI) -> list[str]:
    """The operand roles the runtime cases cover: the documented one (""), and for an op whose
    sources may swap, the swapped one and the documented one with a row-major 32-byte block as the
    per-row operand (the pages' Mode 2)."""
    return ["", "swapped", "block"] if broadcast_pair(op) else [""]


def with_role(op: OpViewAPI, tiles: dict[str, TileDecl], role: str) -> dict[str, TileDecl]:
    """A case's tiles in `role`: swapped, the two sources trade shapes and layouts (each keeps its
    name and element type), the per-row one stored in the full one's columns (a column-major tile
    wider than its one valid column, which the pages admit); block, the per-row operand holds one
    32-byte block per row, row-major."""
    pair = broadcast_pair(op)
    if pair is None or not role:
        return tiles
    bcast, full = pair
    a, b = tiles[bcast], tiles[full]
    if role == "swapped":
        return {
            **tiles,
            bcast: dataclasses.replace(b, name=a.name, dtype=a.dtype),
            full: dataclasses.replace(a, name=b.name, dtype=b.dtype, cols=b.cols),
        }
    block = aligned_extent(1, a.dtype)  # elements of one 32-byte block
    return {
        **tiles,
        bcast: dataclasses.replace(a, layout="RowMajor", cols=max(a.cols, block), valid_cols=block),
    }


def role_label(op: OpViewAPI, label: str, tiles: dict[str, TileDecl], role: str) -> str:
    """A case's label, naming the swapped per-row operand and its storage columns (an argued
    difference may concern only such cases)."""
    pair = broadcast_pair(op)
    if pair is None or role != "swapped":
        return label
    per_row = tiles[pair[1]]
    return f"{label}, per-row {per_row.name} of {per_row.cols} columns"


def input_ranges(op: OpViewAPI, profile: str, combo: dict[str, str]) -> dict[str, tuple[float, float]]:
    """The ranges the profile's run-time rules demand of the inputs of this dtype combination."""
    out: dict[str, tuple[float, float]] = {}
    for rv in op.rules_for(profile, static=False):
        for name, dtype in combo.items():
            found = part(rv.rule, RuntimeCheck).input_range(name, dtype, rv)
            if found is not None:
                lo, hi = out.get(name, found)
                out[name] = (max(lo, found[0]), min(hi, found[1]))
    return out


def _runtime_cases(
    project: ProjectViewAPI,
    op: OpViewAPI,
    dtypes: dict[str, str],
    variant: dict[str, str],
    layout: str,
    shapes: list[tuple[str, int, int, int, int, bool]],
    start: int,
    role: str = "",
) -> list[RuntimeCase]:
    scalars = [o.name for o in op.spec.operands if o.kind == "scalar"]
    attrs = {o.name: str(o.enum) for o in op.spec.operands if o.kind == "attr"}
    values = {e.name: e.values for e in project.targets.enums}
    scalar_type = (
        dtypes.get(scalars[0], dtypes[op.compute_operand]) if scalars else dtypes[op.compute_operand]
    )
    specials = special_scalars(op, dtype_def(project, scalar_type))
    typical = specials[-1] if specials else 0
    first = {a: values[e][0] for a, e in attrs.items()}
    plan: list[tuple[str, tuple[str, int, int, int, int, bool], float | int, dict[str, str]]] = []
    for label, *shape in shapes:
        plan.append((label, (label, *shape), typical, first))  # type: ignore[arg-type]
    if layout == "RowMajor":
        for value in specials[:-1]:
            plan.append((f"full 16x16, scalar {value}", ROW_MAJOR_SHAPES[0], value, first))
        for a, e in attrs.items():
            for v in values[e][1:]:
                plan.append((f"full 16x16, {a} {v}", ROW_MAJOR_SHAPES[0], typical, {**first, a: v}))
    cases = []
    for index, (label, (_, rows, cols, vr, vc, dyn), value, attr_values) in enumerate(plan, start):
        tiles = legalised(
            op,
            with_role(
                op,
                {
                    n: shaped(op, TileDecl(n, dtypes[n], rows, cols, vr, vc, dyn, "Vec", layout))
                    for n in tile_operands(op)
                },
                role,
            ),
        )
        scalar_values = dict.fromkeys(scalars, value)
        call = make_call(op, tiles, variant, {s: f"{s}_value" for s in scalars}, attrs=attr_values)
        decls = list(tiles.values())
        label = role_label(op, label, tiles, role)
        addresses = layout_addresses(project, decls)
        cases.append(RuntimeCase(index, label, decls, scalar_values, call, addresses, dict(attr_values)))
    return cases


BROADCAST_STORAGE = 8


class TileMath(OpKind):
    """The element walk of a destination tile's valid region, with broadcast sources and arg-value
    outputs; each kind of the family recognises its own pages."""

    facts: ClassVar[KindFacts] = KindFacts(form_exprs=True, rounds_to_element=True)
    domain_starts: ClassVar[tuple[str, ...]] = ("For each",)
    whole_tile_bench: ClassVar[bool] = True

    def result_index(self, op: OpViewAPI) -> str:
        return "i,j"

    def operand_index(self, op: OpViewAPI, operand: str) -> str:
        broadcast = op.spec.operand(operand).broadcast
        return {"per_row": "i,0", "per_col": "0,j"}.get(broadcast or "", "i,j")

    def tile_shape(
        self, op: OpViewAPI, operand: str, rows: int, cols: int, vr: int, vc: int
    ) -> tuple[int, int, int, int]:
        # A broadcast source holds one value per row (column) in a tile wider than that, so the
        # tests see that only element (i, 0) (or (0, j)) is read.
        if op.spec.operand(operand).packed:  # one bit per predicate: 8 to a byte at least
            return rows, -(-cols // 8), vr, -(-vc // 8)
        broadcast = op.spec.operand(operand).broadcast
        if broadcast == "per_row":
            return rows, BROADCAST_STORAGE, vr, 1
        if broadcast == "per_col":
            return BROADCAST_STORAGE, cols, 1, vc
        return rows, cols, vr, vc

    def shaped_tile(self, op: OpViewAPI, tile: TileDecl) -> TileDecl:
        # The documented per-row operand of ops whose sources may swap roles is one column,
        # column-major (the pages' Mode 1, as their example and upstream's tests declare it): a
        # row-major one-column tile is neither mode. The swapped cases store it wider.
        shaped = super().shaped_tile(op, tile)
        pair = broadcast_pair(op)
        if pair and tile.name == pair[0]:
            return dataclasses.replace(shaped, layout="ColMajor", cols=1)
        return shaped

    def manifest_extra(self, op: OpViewAPI) -> dict[str, Any]:
        # The sources that may be the per-row operand, read at column j mod w (w its valid columns).
        pair = broadcast_pair(op)
        extra: dict[str, Any] = {"row_blocks": list(pair)} if pair else {}
        if op.cpp.stored_operands:  # tiles the golden also reads as stored (`as_source(x)`)
            extra["stored"] = op.cpp.stored_operands
        return extra

    def plan_tests(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        plan_runtime_groups(project, op, tests)
        plan_rule_cases(project, op, tests)

    def prepare_cases(self, gx: GoldenContext, data: Path) -> list[Check]:
        op = gx.op
        ref = gx.reference
        types = {n: gx.np_type(d) for n, d in gx.group.dtypes.items()}
        domain = op.domain
        storage = types[domain]
        cdt = compute_dtype(types[op.compute])
        checks: list[Check] = []
        for case in gx.group.cases:
            k = case.index
            arrays, scalars, args = case_inputs(gx, case, data, cdt)
            source = stored_inputs(op, case, arrays, types)
            t = case.tiles[domain]
            vr, vc = t.valid_rows, t.valid_cols
            before = logical(arrays[domain].copy(), t.rows, t.cols, t.layout)
            label = f"{gx.label} case {k} ({case.label})"
            # The first case of each group also runs every overload with its own semantics.
            forms = op.forms if case is gx.group.cases[0] else []
            for form, fn in [(None, ref.reference)] + [(n, getattr(ref, f"reference_f{n}")) for n in forms]:
                with np.errstate(all="ignore"):
                    want = narrow(np.asarray(fn(cdt.type, storage.type, *args, **source)), storage)
                # A broadcast operand (or a scalar-only expression) gives fewer elements than the region.
                want = np.broadcast_to(want, (vr, vc))
                suffix = f".f{form}" if form is not None else ""
                what = f"{label}, overload {form}" if form is not None else label
                checks.append(
                    tolerance_check(f"c{k}_{domain}{suffix}.out", t, want, before, what, scalars, storage, op)
                )
                if form is None and case is gx.group.cases[0]:
                    checks += _value_checks(gx, case, want, args, label, scalars)
        return checks


def tolerance_check(
    out: str,
    t: TileShape,
    want: np.ndarray,
    before: np.ndarray,
    label: str,
    scalars: dict[str, Any],
    storage: Any,
    op: OpManifest,
) -> Check:
    """Judges one output file: the valid region within the op's tolerance of `want` (a failure
    names the case's scalars), everything else unchanged."""
    judge, detail = within_tolerance(op.tolerance), f"; scalars {scalars}"
    return region_check(out, t, want, before, label, judge=judge, dtype=storage, detail=detail)


def case_inputs(
    gx: GoldenContext, case: CaseEntry, data: Path, cdt: Any
) -> tuple[dict[str, np.ndarray], dict[str, Any], list[Any]]:
    """Writes a case's input files; returns the tile arrays (storage order), the scalars and the
    arguments of the reference (valid regions in the compute type, packed predicates unpacked)."""
    op = gx.op
    k = case.index
    types = {n: gx.np_type(d) for n, d in gx.group.dtypes.items()}
    arrays: dict[str, np.ndarray] = {}
    for name, t in case.tiles.items():
        count = t.rows * t.cols
        arrays[name] = inputs(types[name], count, f"{gx.op_name}/{gx.entry.group}/{k}/{name}")
        if name in gx.group.ranges:
            arrays[name] = within(arrays[name], *gx.group.ranges[name])
        arrays[name].tofile(data / f"c{k}_{name}.bin")
    scalars: dict[str, Any] = {}
    for name, value in case.scalars.items():
        st = types[name]
        s = np.array([value], dtype=np.float64 if is_float(st) else np.int64).astype(st)
        s.tofile(data / f"c{k}_{name}.bin")
        scalars[name] = s.reshape(()).astype(cdt)
    scalars.update(case.attrs)
    region = case.tiles[op.region] if True else case.tiles[op.domain]
    args: list[Any] = []
    for name in op.inputs:
        if name not in arrays:
            args.append(scalars[name])
            continue
        ti = case.tiles[name]
        full = logical(arrays[name], ti.rows, ti.cols, ti.layout)
        if name in op.streams:
            stream = full[: ti.valid_rows, : ti.valid_cols].reshape(1, -1)
            count = region.valid_rows * region.valid_cols
            bits = unpack_predicates(stream, 1, count)
            args.append(bits.reshape(region.valid_rows, region.valid_cols).astype(cdt))
        elif name in op.packed:
            args.append(unpack_predicates(full, region.valid_rows, region.valid_cols).astype(cdt))
        elif name in op.extra.get("row_blocks", []) and ti.valid_cols not in (1, region.valid_cols):
            # A per-row block of w columns is read at column j mod w across the region.
            picked = full[: ti.valid_rows, np.arange(region.valid_cols) % ti.valid_cols]
            args.append(picked.astype(cdt))
        else:
            args.append(full[: ti.valid_rows, : ti.valid_cols].astype(cdt))
    return arrays, scalars, args


def stored_inputs(
    op: OpManifest, case: CaseEntry, arrays: dict[str, np.ndarray], types: dict[str, Any]
) -> dict[str, Any]:
    """The golden's arguments for `as_source(x)`: the element type `S` of the first tile x reads, and
    each such tile's valid region as stored, in its element type's compute type (an integer exactly,
    a `half` widened), by name. Empty for an op that reads no tile as stored."""
    names = op.extra.get("stored", [])
    if not names:
        return {}
    stored = {}
    for name in names:
        ti = case.tiles[name]
        region = logical(arrays[name], ti.rows, ti.cols, ti.layout)[: ti.valid_rows, : ti.valid_cols]
        stored[name] = region.astype(compute_dtype(types[name]))
    return {"S": types[names[0]].type, "stored": stored}


def unpack_predicates(words: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """Predicates (rows x cols, 0/1) of a packed predicate tile: bit j % B of word (i, j // B)."""
    width = 8 * words.dtype.itemsize
    j = np.arange(cols)
    picked = words[:rows, j // width].astype(np.uint64)
    return (picked >> (j % width).astype(np.uint64)) & np.uint64(1)


def pack_predicates(pred: np.ndarray, dtype: Any, words: int) -> np.ndarray:
    """The first `words` words per row of a packed predicate tile holding `pred` (rows x cols)."""
    width = 8 * np.dtype(dtype).itemsize
    rows, cols = pred.shape
    out = np.zeros((rows, words), dtype=np.uint64)
    for j in range(min(cols, words * width)):
        out[:, j // width] |= pred[:, j].astype(np.uint64) << np.uint64(j % width)
    return out.astype(dtype)


def _value_checks(
    gx: GoldenContext,
    case: CaseEntry,
    indices: np.ndarray,
    args: list[Any],
    label: str,
    scalars: dict[str, Any],
) -> list[Check]:
    """Arg-reduction overloads that also write the picked values: each must hold the source element
    at every index the reduction chose (the rest of its fresh, zeroed tile untouched)."""
    op = gx.op
    out: list[Check] = []
    for vf in op.value_forms:
        source = op.source
        src = np.asarray(args[op.inputs.index(source)])
        storage = gx.np_type(gx.group.dtypes[source])
        picked = np.take_along_axis(src, np.asarray(indices).astype(np.intp), axis=op.axis)
        # The value tile has the destination's shape in the source's element type, storage rounded
        # to whole 32-byte rows (columns) for that type as every test tile is (rule_api.TileDecl).
        # The golden runs without the specs loaded (a job of `ptogen test`), so the size is numpy's.
        d = case.tiles[op.domain]
        dtype, size = gx.group.dtypes[source], storage.itemsize
        if d.layout == "RowMajor":
            t = dataclasses.replace(d, cols=aligned_extent(d.cols, dtype, size))
        else:
            t = dataclasses.replace(d, rows=aligned_extent(d.rows, dtype, size))
        want = narrow(picked, storage)
        before = np.zeros((t.rows, t.cols), dtype=storage)
        name = f"c{case.index}_{vf.output}.f{vf.index}.out"
        what = f"{label}, overload {vf.index} ({vf.output})"
        out.append(tolerance_check(name, t, want, before, what, scalars, storage, op))
    return out
