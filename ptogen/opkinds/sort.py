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

Two kinds, not one: TSORT32 orders fixed blocks of one tile against an index tile, and TMRGSORT
merges lists through forms of other operands that report what they took; they share only the record
format.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..importer.contract import DOMAIN, PageOp
from ..kindlib.layout import tile_logical
from ..kindlib.regions import region_check, same_bits
from ..lower.contract import FormBackend
from ..rules.parts import TileFilter, in_form, part
from ..spec.kindfacts import KindFacts
from ..testing.golden import Check, GoldenContext, inputs
from ..testing.manifest import TileShape
from ..testing.plan import (
    Call,
    OpTests,
    RuntimeCase,
    RuntimeKernel,
    TileDecl,
    dtype_profiles,
    layout_addresses,
    make_call,
    plan_rule_cases,
    runtime_cases,
    tile_operands,
)
from ..testing.results import Outcome
from .base import NamesOperand

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


def sorted_check(
    out: str, t: TileShape, want: np.ndarray, before: np.ndarray, label: str, dt: np.dtype
) -> Check:
    """The sorted region (`want`'s shape) holds `want` bit for bit; the rest of the tile is untouched."""
    names = ("valid", "outside-the-sorted-region")
    extent = (want.shape[0], want.shape[1])
    return region_check(out, t, want, before, label, judge=same_bits, dtype=dt, extent=extent, names=names)


def tmp_call(form: FormViewAPI) -> Call:
    """A call of the declaration `form` with its template arguments explicit, each tile argument
    by its operand's test type (`Tile_<operand>`)."""
    by_type = {str(p.type): str(p.operand) for p in form.params if p.type and not p.events}
    targs = [f"Tile_{by_type[t.name]}" for t in form.template if t.kind == "typename"]
    return Call(targs, [str(p.operand) for p in form.params if not p.events])


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
        at = r"i,\,32b+\pi_b(k)"
        return rf"\mathrm{{{dst}}}_{{i,\,32b+k}} = (\mathrm{{{src}}}_{{{at}}},\ \mathrm{{{idx}}}_{{{at}}})"

    def shaped_tile(self, op: OpViewAPI, tile: TileDecl) -> TileDecl:
        """The destination holds one record (8 bytes) per source element."""
        if tile.name != op.domain:
            return tile
        k = per_record(op, tile.dtype)
        return replace(tile, cols=tile.cols * k, valid_cols=tile.valid_cols * k)

    @staticmethod
    def _main_admits(op: OpViewAPI, profile: str, tiles: dict[str, TileDecl]) -> bool:
        """Whether the profile's rules on the main declaration (the common ones and those limited to
        it: A2A3's and A5's whole blocks of 32 valid columns) admit these tiles."""
        main = [rv for rv in op.form_rules_for(profile) if in_form(rv.rule, op.forms[0])]
        return all(part(rv.rule, TileFilter).admits_tiles(tiles) for rv in [*op.rules_for(profile), *main])

    def plan_tests(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        """One group of the shapes every profile's main declaration admits, called through it; one
        of the others (a short last block, which A2A3 and A5 sort only with a scratch tile) called
        through the further declaration with `tmp`, sized as the page asks (the valid columns
        rounded up to 32)."""
        dst, src, idx = op.domain, self.source(op), self.index_operand(op)
        extra = [n for n in tile_operands(op) if n not in (dst, src, idx)]
        with_tmp = op.forms[1] if len(op.forms) > 1 else None  # the declaration with `tmp`
        for dtype, on in dtype_profiles(project, op):
            k = per_record(op, dtype)
            planned: dict[bool, list[tuple[str, dict[str, TileDecl]]]] = {}
            for label, rows, cols, vr, vc, dyn, _ties in SORT_SHAPES:
                tiles = {
                    dst: TileDecl(dst, dtype, rows, cols * k, vr, vc * k, dyn),
                    src: TileDecl(src, dtype, rows, cols, vr, vc, dyn),
                    idx: TileDecl(idx, "uint32_t", rows, cols, vr, vc, dyn),
                    **{n: TileDecl(n, dtype, 1, cols, 1, cols) for n in extra},
                }
                plain = with_tmp is None or all(self._main_admits(op, p, tiles) for p in on)
                planned.setdefault(plain, []).append((label, tiles))
            for plain, shapes in sorted(planned.items(), reverse=True):
                first = sum(len(x.cases) for x in tests.runtime)
                cases = []
                for index, (label, tiles) in enumerate(shapes, first):
                    if plain:
                        call = make_call(op, tiles, dict(op.default_values), {})
                    else:
                        assert with_tmp is not None
                        t = tiles[src]
                        padded = -(-t.valid_cols // BLOCK) * BLOCK
                        tiles = {**tiles, "tmp": TileDecl("tmp", dtype, 1, padded, 1, padded)}
                        call = tmp_call(with_tmp)
                        label = f"{label}, with tmp"
                    decls = list(tiles.values())
                    cases.append(RuntimeCase(index, label, decls, {}, call, layout_addresses(project, decls)))
                dtypes = {t.name: t.dtype for c in cases for t in c.tiles}
                tests.runtime.append(RuntimeKernel(dtype if plain else f"{dtype}_tmp", dtypes, {}, on, cases))
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
            values = tile_logical(flats[src], ts)[: ts.valid_rows, : ts.valid_cols]
            indices = tile_logical(flats[idx], ti)[: ts.valid_rows, : ts.valid_cols]
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
            before = tile_logical(flats[dst], td)
            label = f"{gx.label} case {k} ({case.label})"
            checks.append(sorted_check(f"c{k}_{dst}.out", td, want, before, label, dt))
        return checks


# ----------------------------------------------------------------------------- merge_sort

# Block form cases: (label, blockLen in elements, groups of four blocks the tiles hold, (valid
# columns of the source, of the destination) or None for the whole tiles, run-time valid, ties). The
# tiles are one row. Block lengths are multiples of 64 and the source holds whole groups (the page's
# rule on A2A3 and A5, `scalar_blocks`); a destination with more valid columns than the source's
# groups keeps the part beyond them.
BLOCK_CASES = [
    ("one group of four blocks of 128 elements", 128, 1, None, False, False),
    ("two groups of 64-element blocks, values from four levels (ties by block)", 64, 2, None, False, True),
    (
        "run-time valid: one group of 64-element blocks, dst valid 384 of 512, the rest untouched",
        64,
        2,
        (256, 384),
        True,
        False,
    ),
]

# List form cases: (label, records of each list, destination records, exhausted, run-time valid, ties).
LIST_CASES = [
    ("two lists of 5 and 7 records", (5, 7), 12, False, False, False),
    ("two lists of 6 and 2 records, exhausted, run-time valid", (6, 2), 8, True, True, False),
    ("three lists of 4, 6 and 3 records, exhausted", (4, 6, 3), 13, True, False, False),
    ("three lists of 3, 5 and 4 records", (3, 5, 4), 12, False, False, False),
    (
        "four lists of 4 records from four levels, 10 destination records (ties by list)",
        (4, 4, 4, 4),
        10,
        False,
        False,
        True,
    ),
    ("four lists of 2, 5, 3 and 6 records, exhausted", (2, 5, 3, 6), 16, True, False, False),
]


def record_value(rec: np.ndarray) -> float | int:
    """The value a record is ordered by (its first element), as a Python number."""
    v = rec[0]
    return int(v) if isinstance(v, np.integer) else float(v)


def merge(lists: list[np.ndarray], capacity: int, exhausted: bool) -> tuple[list[np.ndarray], list[int]]:
    """The stated merge: take the largest head (on equal values the lower list) until `capacity`
    records are written or every list is used up; with `exhausted`, stop once one list is used up.
    Returns the records taken and how many came from each list."""
    pos = [0] * len(lists)
    out: list[np.ndarray] = []
    while len(out) < capacity:
        pick, best = -1, 0.0
        for n, records_of in enumerate(lists):
            if pos[n] < len(records_of):
                v = record_value(records_of[pos[n]])
                if pick < 0 or v > best:
                    pick, best = n, v
        if pick < 0:
            break
        out.append(lists[pick][pos[pick]])
        pos[pick] += 1
        if exhausted and any(pos[n] == len(x) for n, x in enumerate(lists)):
            break
    return out, pos


def sorted_records(dt: np.dtype, count: int, seed: str, ties: bool) -> np.ndarray:
    """`count` records (rows of 8 / itemsize elements) in descending order of their values."""
    per = RECORD_BYTES // dt.itemsize
    values = no_nan(inputs(dt, count, f"{seed}/values"), dt)
    if ties:
        levels = np.array([-1.5, 0.0, 2.0, 7.0] if dt.kind in "fV" else [-3, 0, 2, 7]).astype(dt)
        values = levels[np.arange(count) * 3 % 4]
    indices = inputs(np.dtype("<u4"), count, f"{seed}/indices")
    order = sorted(range(count), key=[sort_key(values[n], int(indices[n])) for n in range(count)].__getitem__)
    return records(values[order], indices[order], dt).view(dt).reshape(count, per)


class MergeSort(NamesOperand):
    """TMRGSORT: records merged from sorted lists (four blocks of one tile, or 2..4 tiles)."""

    name: ClassVar[str] = "merge_sort"
    facts: ClassVar[KindFacts] = KindFacts(plans_forms=True)

    def recognise(self, page: PageOp) -> int | None:
        # templates/opkinds/merge_sort/domain.md.j2: "..., merged in descending order of their values"
        return DOMAIN if not page.vector and page.intro_says("merged in descending order") else None

    def region(self, op: OpViewAPI) -> str:
        return op.domain

    def result_index(self, op: OpViewAPI) -> str:
        return "k"

    def operand_index(self, op: OpViewAPI, operand: str) -> str:
        return "k"

    def math(self, op: OpViewAPI) -> str | None:
        lists = r"(\mathrm{src}_0, \mathrm{src}_1, \ldots)"
        return rf"\mathrm{{{op.domain}}} = \text{{merge}}_{{\downarrow}}{lists}"

    @staticmethod
    def block_length(op: OpViewAPI) -> str:
        """The main form's scalar: the elements of one sorted block."""
        return next(o.name for o in op.spec.operands if o.kind == "scalar")

    @staticmethod
    def form_operands(op: OpViewAPI, form: FormViewAPI) -> list[tuple[str, str]]:
        """(parameter, operand) of a form's non-event parameters, in order."""
        return [(p.name, str(p.operand)) for p in form.params if not p.events]

    @staticmethod
    def own_operands(op: OpViewAPI, form: FormViewAPI) -> dict[str, Any]:
        """The operands only this form takes, by name (none for the main form)."""
        intr = op.spec.intrinsic
        assert intr is not None
        return {o.name: o for o in intr.overloads[form.index - 1].operands} if form.index else {}

    def list_forms(self, op: OpViewAPI) -> dict[int, FormViewAPI]:
        """The list forms by their number of lists (the tile sources each merges)."""
        out = {}
        for form in op.forms[1:]:
            extra = self.own_operands(op, form)
            lists = [o for _, o in self.form_operands(op, form) if o in extra and extra[o].role == "src"]
            out[len(lists)] = form
        return out

    def shaped_tile(self, op: OpViewAPI, tile: TileDecl) -> TileDecl:
        """Every tile of a merge is one row."""
        return replace(tile, rows=1, valid_rows=1)

    def form_backend(self, op: OpViewAPI, form: FormViewAPI) -> FormBackend:
        # A list form's first list plays the main form's source in the rules both share.
        source = self.source(op)
        first = next((o for _, o in self.form_operands(op, form) if o.startswith(source)), None)
        return FormBackend(stand_ins={source: first} if first is not None else {})

    def sim_targs(self, op: OpViewAPI, form: FormViewAPI) -> list[str]:
        return [t.name for t in form.template if t.kind == "value"]

    def sim_args(self, op: OpViewAPI, form: FormViewAPI) -> list[str]:
        extra = self.own_operands(op, form)
        return [p for p, o in self.form_operands(op, form) if o not in extra or extra[o].role != "tmp"]

    def plan_tests(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        dst, src, blen = op.domain, self.source(op), self.block_length(op)
        forms = self.list_forms(op)
        for dtype, on in dtype_profiles(project, op):
            per = per_record(op, dtype)
            first = sum(len(k.cases) for k in tests.runtime)
            cases: list[RuntimeCase] = []
            for label, block, groups, valid, dyn, _ties in BLOCK_CASES:
                cols = 4 * block * groups
                vs, vd = valid or (cols, cols)
                tiles = [TileDecl(dst, dtype, 1, cols, 1, vd, dyn), TileDecl(src, dtype, 1, cols, 1, vs, dyn)]
                call = make_call(op, {t.name: t for t in tiles}, {}, {blen: f"{block}u"})
                attrs = {"form": "blocks", "block": str(block)}
                addresses = layout_addresses(project, tiles)
                cases.append(RuntimeCase(first + len(cases), label, tiles, {}, call, addresses, attrs))
            for label, sizes, capacity, exhausted, dyn, _ties in LIST_CASES:
                form = forms[len(sizes)]
                pairs = self.form_operands(op, form)
                extra = self.own_operands(op, form)
                lists = [o for _, o in pairs if o in extra and extra[o].role == "src"]
                decls: dict[str, TileDecl] = {
                    dst: TileDecl(dst, dtype, 1, capacity * per, 1, capacity * per, dyn)
                }
                contexts: list[tuple[str, str]] = []
                tmp_operand: str | None = None
                for (_, operand), p in zip(pairs, [p for p in form.params if not p.events], strict=True):
                    if operand in lists:
                        n = sizes[lists.index(operand)] * per
                        decls[operand] = TileDecl(operand, dtype, 1, n, 1, n, dyn)
                    elif operand in extra and extra[operand].role == "tmp":
                        tmp_operand = operand
                    elif operand in extra:
                        contexts.append((str(p.type), operand))
                # `tmp` spans the lists' declared columns (each list's row rounded up to 32 bytes),
                # as A2A3 and A5 demand (the page's GETMRGSORTTMPSIZE).
                if tmp_operand is not None:
                    n = sum(decls[o].cols for o in lists)
                    decls[tmp_operand] = TileDecl(tmp_operand, dtype, 1, n, 1, n)
                    decls = {o: decls[o] for o in (dst, *(o for _, o in pairs)) if o in decls}
                by_type = {p.type: str(p.operand) for p in form.params if p.type and not p.events}
                targs = [
                    (
                        f"Tile_{by_type[t.name]}"
                        if t.kind == "typename"
                        else ("true" if exhausted else "false")
                    )
                    for t in form.template
                    if t.kind != "pack"
                ]
                call = Call(targs, [o for _, o in pairs])
                attrs = {"form": "lists", "exhausted": str(exhausted).lower(), "lists": ",".join(lists)}
                attrs["executed"] = ",".join(name for _, name in contexts)
                tiles = list(decls.values())
                addresses = layout_addresses(project, tiles)
                cases.append(
                    RuntimeCase(
                        first + len(cases), label, tiles, {}, call, addresses, attrs, contexts=contexts
                    )
                )
            dtypes = {n: dtype for c in cases for n in (t.name for t in c.tiles)}
            tests.runtime.append(RuntimeKernel(dtype, dtypes, {}, on, cases))
        for case in runtime_cases(tests):  # the executed-number list, judged too
            case.stored += [(f"c{case.index}_{name}.out", f"&{name}", 1) for _, name in case.contexts]
        plan_rule_cases(project, op, tests)

    def prepare_cases(self, gx: GoldenContext, data: Path) -> list[Check]:
        op = gx.op
        dst = op.domain
        checks: list[Check] = []
        ties = {c[0] for c in BLOCK_CASES if c[-1]} | {c[0] for c in LIST_CASES if c[-1]}
        for case in gx.group.cases:
            k = case.index
            dt = gx.np_type(gx.group.dtypes[dst])
            per = RECORD_BYTES // dt.itemsize
            seed = f"{gx.op_name}/{gx.entry.group}/{k}"
            tie = case.label in ties
            td = case.tiles[dst]
            before = inputs(dt, td.rows * td.cols, f"{seed}/{dst}")
            before.tofile(data / f"c{k}_{dst}.bin")
            label = f"{gx.label} case {k} ({case.label})"
            if case.attrs["form"] == "blocks":
                src = next(n for n in case.tiles if n != dst)
                ts = case.tiles[src]
                block = int(case.attrs["block"]) // per
                flat = inputs(dt, ts.rows * ts.cols, f"{seed}/{src}")
                blocks = ts.cols // (block * per)
                for b in range(blocks):
                    recs = sorted_records(dt, block, f"{seed}/{b}", tie)
                    flat[b * block * per : (b + 1) * block * per] = recs.reshape(-1)
                flat.tofile(data / f"c{k}_{src}.bin")
                out: list[np.ndarray] = []
                group = 4 * block * per
                for base in range(0, td.valid_cols - group + 1, group):
                    heads = [
                        flat[base + b * block * per : base + (b + 1) * block * per].reshape(block, per)
                        for b in range(4)
                    ]
                    out += merge(heads, 4 * block, False)[0]
                want = np.array(out, dtype=dt).reshape(1, -1)
                checks.append(sorted_check(f"c{k}_{dst}.out", td, want, tile_logical(before, td), label, dt))
                continue
            names = case.attrs["lists"].split(",")
            lists = []
            for name in names:
                t = case.tiles[name]
                recs = sorted_records(dt, t.valid_cols // per, f"{seed}/{name}", tie)
                flat = inputs(dt, t.rows * t.cols, f"{seed}/{name}/raw")
                flat[: recs.size] = recs.reshape(-1)
                flat.tofile(data / f"c{k}_{name}.bin")
                lists.append(recs)
            for name, t in case.tiles.items():
                if name != dst and name not in names:
                    inputs(dt, t.rows * t.cols, f"{seed}/{name}").tofile(data / f"c{k}_{name}.bin")
            taken, counts = merge(lists, td.valid_cols // per, case.attrs["exhausted"] == "true")
            want = np.array(taken, dtype=dt).reshape(1, -1) if taken else np.zeros((1, 0), dtype=dt)
            checks.append(sorted_check(f"c{k}_{dst}.out", td, want, tile_logical(before, td), label, dt))
            executed = np.array((counts + [0, 0, 0, 0])[:4], dtype="<u2")
            for context in filter(None, case.attrs["executed"].split(",")):
                checks.append(counts_check(f"c{k}_{context}.out", executed, f"{label}, {context}"))
        return checks


def counts_check(out: str, want: np.ndarray, label: str) -> Check:
    """The struct the op wrote holds `want` (four uint16_t counts)."""

    def check(data_dir: Path) -> Outcome:
        got = np.fromfile(data_dir / out, dtype="<u2")
        if got.shape != want.shape or (got != want).any():
            return Outcome("fail", label, f"executed counts {got.tolist()}, want {want.tolist()}")
        return Outcome("pass", label)

    return check
