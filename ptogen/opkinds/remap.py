"""Remaps (TEXTRACT, TINSERT and their quantising forms): `dst[g(i, j)] = src[h(i, j)]`.

The spec states the op in index notation with affine indices (spec/expr.py): a window read out of
a source (`dst[i,j] = src[i + index_row, j + index_col]`), a window written into a destination
(`dst[i + index_row, j + index_col] = src[i,j]`), a stride or an offset (`src[i, 2*j + 1]`). The
tile indexed by the bare letters `i, j` is the one whose valid region the op walks; every other
index is evaluated at each walked element. One parse tree gives the page's formula (`to_latex`),
the simulator's element mapping (`index_cpp`, one C++ expression per index) and the golden's
mapping (`index_value`, the same expression over numpy index grids).

Each element is read where the source's location and layout place it and written, converted to
the destination's element type, where the destination's place it (as the move kind does). The
forms follow upstream's CPU simulator (TExtract.hpp, TInsert.hpp): the plain and ReLU forms
rectify the source value before the conversion; a form with a quantisation parameter (a scalar,
or a tile `fp` holding one per source column) scales, offsets, rounds and saturates the pairs of
element types that quantise (pto/cpu/sim_quant.hpp) and rectifies the scaled value.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..importer.contract import DOMAIN, PageOp
from ..kindlib.conv import (
    CONV_DTYPES,
    channel_block,
    conv_tile,
    extracted,
    filter_matrix,
    plan_variant_rules,
    variant_profiles,
)
from ..kindlib.conv import EXTRACTS as CONV_EXTRACTS
from ..kindlib.layout import tile_logical
from ..kindlib.moves import CONVERSIONS, TileMove
from ..kindlib.quantise import (
    PARAM_DTYPE,
    QUANTISED,
    SCALAR_QUANTISED,
    quantisation_parameters,
    scalar_quantise,
    vector_quantise,
)
from ..kindlib.regions import region_check
from ..lower.contract import FormBackend
from ..rules.parts import TileFilter, TypeFilter, in_form, part
from ..spec import expr as semantics
from ..spec.kindfacts import KindFacts
from ..testing.golden import Check, GoldenContext, Outcome, describe_mismatch, inputs, raw_bits
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
    plan_form_runs,
    plan_rule_cases,
    tile_operands,
)
from .base import OpKind, operand_type

if TYPE_CHECKING:
    from ..kind_api import FormViewAPI, OpViewAPI, ProjectViewAPI
    from ..spec.model import OpSpec

# One test case: (label, the walked tile (rows, cols, valid rows, valid cols), the other tile's
# (rows, cols, valid rows, valid cols), scalar values, run-time valid shapes, src place, dst place).
Place = tuple[str, str, "str | None"]
Shape = tuple[int, int, int, int]
VEC_ROW: Place = ("Vec", "RowMajor", None)
VEC_COL: Place = ("Vec", "ColMajor", None)
VEC_NZ: Place = ("Vec", "ColMajor", "RowMajor")
ACC_NZ: Place = ("Acc", "ColMajor", "RowMajor")
MAT_NZ: Place = ("Mat", "ColMajor", "RowMajor")
LEFT_NZ: Place = ("Left", "ColMajor", "RowMajor")

# (label, walked shape, other shape, offsets (row, col), run-time valid, src place, dst place)
Case = tuple[str, Shape, Shape, tuple[int, int], bool, Place, Place]
VEC_CASES: list[Case] = [
    (
        "16x16 window at (8, 16) of 32x32, row-major",
        (16, 16, 16, 16),
        (32, 32, 32, 32),
        (8, 16),
        False,
        VEC_ROW,
        VEC_ROW,
    ),
    (
        "13x7 window at (3, 5), partial valid, col-major to row-major",
        (16, 16, 13, 7),
        (32, 32, 29, 30),
        (3, 5),
        False,
        VEC_COL,
        VEC_ROW,
    ),
    (
        "whole 16x32 at (0, 0), run-time valid 11x19",
        (16, 32, 11, 19),
        (16, 32, 11, 19),
        (0, 0),
        True,
        VEC_ROW,
        VEC_COL,
    ),
    (
        "32x32 window at (16, 0) of 64x32, NZ to row-major",
        (32, 32, 32, 32),
        (64, 32, 64, 32),
        (16, 0),
        False,
        VEC_NZ,
        VEC_ROW,
    ),
    (
        "32x32 window at (0, 32) of 32x64, row-major to NZ, valid 29x13",
        (32, 32, 29, 13),
        (32, 64, 32, 64),
        (0, 32),
        False,
        VEC_ROW,
        VEC_NZ,
    ),
]
CUBE_CASES: list[Case] = [
    (
        "Acc NZ to Mat NZ, 32x32 at (32, 0) of 64x64",
        (32, 32, 32, 32),
        (64, 64, 64, 64),
        (32, 0),
        False,
        ACC_NZ,
        MAT_NZ,
    ),
    (
        "Mat NZ to Left NZ, 32x32 at (0, 32) of 64x64",
        (32, 32, 32, 32),
        (64, 64, 64, 64),
        (0, 32),
        False,
        MAT_NZ,
        LEFT_NZ,
    ),
    (
        "Acc NZ to Vec row-major, 32x32 at (16, 32), valid 30x27",
        (32, 32, 30, 27),
        (64, 64, 60, 63),
        (16, 32),
        False,
        ACC_NZ,
        VEC_ROW,
    ),
]


# Piecewise reads (concatenation): (label, rows, valid rows, (cols, valid cols) of each read tile
# in order, run-time valid); the destination has the columns and valid columns of all of them.
PIECES: list[tuple[str, int, int, list[tuple[int, int]], bool]] = [
    ("16x32 and 16x32 into 16x64", 16, 16, [(32, 32), (32, 32)], False),
    ("valid 13x20 and 13x31 into 13x51 of 16x64", 16, 13, [(32, 20), (32, 31)], False),
    ("run-time valid 7x9 and 7x32 into 7x41 of 8x96", 8, 7, [(32, 9), (64, 32)], True),
]


# Pair sums: (label, rows, cols, valid rows, valid cols, run-time valid); dst has src's shape.
SUM_SHAPES: list[tuple[str, int, int, int, int, bool]] = [
    ("16x64", 16, 64, 16, 64, False),
    ("odd valid 13x37 of 16x64", 16, 64, 13, 37, False),
    ("run-time valid 7x20 of 8x32", 8, 32, 7, 20, True),
]


# Two destinations (TINTERLEAVE, TDEINTERLEAVE): (label, rows, valid rows, (cols, valid cols) of the
# destinations, of the reads; run-time valid). A read with twice the destinations' columns stands for
# the one-source form's source (`tdeinterleave`'s `src`).
MULTI_SHAPES: list[tuple[str, int, int, tuple[int, int], tuple[int, int], bool]] = [
    ("16x64", 16, 16, (64, 64), (64, 64), False),
    ("partial valid 13x20 of 16x32", 16, 13, (32, 20), (32, 20), False),
    ("odd valid columns 5x7 of 8x32", 8, 5, (32, 7), (32, 7), False),
    ("run-time valid 7x10 of 8x32", 8, 7, (32, 10), (32, 10), True),
]
# The same for a form that reads one source for several (TDEINTERLEAVE's `src`, twice the
# destinations' valid columns): each such form gets cases of its own, called through it, with the
# shapes its rules admit.
ONE_SOURCE_SHAPES: list[tuple[str, int, int, tuple[int, int], tuple[int, int], bool]] = [
    ("one source, 8x32 from 8x64", 8, 8, (32, 32), (64, 64), False),
    ("one source, run-time valid 7x10 of 8x32 from 7x20", 8, 7, (32, 10), (32, 20), True),
]


class Remap(TileMove):
    name: ClassVar[str] = "remap"
    index_notation: ClassVar[bool] = True
    facts: ClassVar[KindFacts] = KindFacts(
        # TINTERLEAVE and TDEINTERLEAVE write a second destination, stated as its own index expression
        # (`semantics.extra_outputs: {dst1: 'dst1[i,j] = ...'}`), each walked over its own valid region.
        tile_extra_outputs=True,
        # A ConvTile source: TEXTRACT's filter extraction (FRACTAL_Z to a Right tile; see the simulator).
        variant_names=("conv",),
        # A form may write further destinations, each its own window of the source (TEXTRACT's ND to 2xNZ).
        form_results=True,
    )

    def variant_condition(self, op: OpViewAPI, name: str) -> str:
        return f"is_conv_tile_v<{operand_type(op, self.source(op))}>"

    def own_impls(self, spec: OpSpec) -> set[str]:
        # The several-destination forms' `_IMPL` (window_forms), which this kind's simulator defines.
        intr = spec.intrinsic
        if intr is None:
            return set()
        return {
            str(ov.dispatch.impl)
            for ov in intr.overloads
            if ov.dispatch.impl is not None and any(o.kind == "tile" and o.role == "dst" for o in ov.operands)
        }

    def window_forms(self, op: OpViewAPI) -> list[dict[str, Any]]:
        """The forms that write several destinations, each a window of the source at its own offsets
        (TEXTRACT's ND to 2xNZ form), which dispatch to an `_IMPL` of their own: the simulator
        function its adapter runs, that `_IMPL`, the tile parameters (`(type, name)`), the offset
        parameters, the source parameter and each destination's (tile, row, column) parameters."""
        out: list[dict[str, Any]] = []
        if self.piecewise(op) or self.sums(op):
            return out
        for form in op.forms[1:]:
            results = {op.domain} | {o.name for o in form.own if o.kind == "tile" and o.role == "dst"}
            dsts = [p.name for p in form.params if p.type and not p.events and p.operand in results]
            if len(dsts) < 2:
                continue
            offsets = [p.name for p in form.params if p.value_type and not p.events]
            pairs = list(zip(offsets[0::2], offsets[1::2], strict=True))
            out.append(
                {
                    "function": form.impl_name,
                    "impl": form.dispatch.function,
                    "params": [(str(p.type), p.name) for p in form.params if p.type and not p.events],
                    "scalars": [p.name for p in form.params if p.value_type and not p.events],
                    "src": next(p.name for p in form.params if p.operand == self.source(op)),
                    "windows": [(d, r, c) for d, (r, c) in zip(dsts, pairs, strict=True)],
                }
            )
        return out

    # ----------------------------------------------------------------- spec checks
    def check_expr(self, expr: semantics.Node) -> list[str]:
        wanted = "a remap is index notation with affine indices, e.g. `dst[i,j] = src[i + r0, j + c0]`"
        if not semantics.is_assignment(expr):
            return [wanted]
        lhs, rhs = expr.args
        if len(lhs.args) != 2 or semantics.lhs_indices(expr) != ["i", "j"]:
            return [f"{wanted}: the left side's indices use `i` then `j`"]
        if rhs.op == "call" and rhs.value == "select":
            return self._check_piecewise(expr)
        if rhs.op == "bin" and rhs.value == "+":
            return self._check_sum(expr)
        if rhs.op != "index" or len(rhs.args) != 2:
            return [f"{wanted}: the right side reads one tile at two indices"]
        plain = [n for n in (lhs, rhs) if [a.op for a in n.args] == ["ivar", "ivar"]]
        if len(plain) != 1:
            return [f"{wanted}: exactly one side is indexed by the bare letters `i, j` (the walked tile)"]
        return []

    def _check_piecewise(self, expr: semantics.Node) -> list[str]:
        wanted = (
            "a piecewise remap is `select(j < cols(a), a[i,j], b[i, j - cols(a)])`, each branch one tile "
            "read at two indices, the destination indexed by `i, j`"
        )
        lhs, node = expr.args
        if [a.op for a in lhs.args] != ["ivar", "ivar"]:
            return [wanted]
        while node.op == "call" and node.value == "select":
            cond, first, node = node.args
            if cond.op != "icmp" or first.op != "index" or len(first.args) != 2:
                return [wanted]
        if node.op != "index" or len(node.args) != 2:
            return [wanted]
        return []

    def _check_sum(self, expr: semantics.Node) -> list[str]:
        wanted = "a pair sum is `dst[i,j] = src[i, 2 * j] + src[i, 2 * j + 1]`: reads of one tile added"
        lhs, rhs = expr.args
        terms = self._terms(rhs)
        if [a.op for a in lhs.args] != ["ivar", "ivar"] or any(
            t.op != "index" or len(t.args) != 2 for t in terms
        ):
            return [wanted]
        if len({str(t.value) for t in terms}) != 1:
            return [wanted]
        return []

    @staticmethod
    def _terms(node: semantics.Node) -> list[semantics.Node]:
        """The reads a sum adds, left to right."""
        if node.op == "bin" and node.value == "+":
            return [*Remap._terms(node.args[0]), *Remap._terms(node.args[1])]
        return [node]

    @classmethod
    def shape(cls, op: OpViewAPI) -> str:
        """Which of the kind's four shapes of mapping the op is, each with its own simulator walk
        (templates/opkinds/remap/<shape>.hpp.j2), test plan and golden: `multi` (several
        destinations, each its own expression: TINTERLEAVE), `sum` (a sum of reads of one tile:
        TPAIRREDUCESUM), `piecewise` (reads chosen by conditions on the indices: TCONCAT) or
        `window` (one read at mapped indices, with ReLU and quantising forms: TEXTRACT, TINSERT)."""
        if cls.multi(op):
            return "multi"
        if cls.sums(op):
            return "sum"
        return "piecewise" if cls.piecewise(op) else "window"

    @staticmethod
    def sums(op: OpViewAPI) -> bool:
        """Whether the right side adds reads of one tile (a pair reduction)."""
        rhs = op.loaded.expr.args[1]
        return bool(rhs.op == "bin" and rhs.value == "+")

    def terms(self, op: OpViewAPI) -> list[dict[str, str]]:
        """Each added read's C++ (row, column) at the walk's `r`, `c`, in order."""
        spell = {"i": "r", "j": "c"}.__getitem__
        return [
            dict(zip(("row", "col"), (semantics.index_cpp(a, spell) for a in t.args), strict=True))
            for t in self._terms(op.loaded.expr.args[1])
        ]

    @staticmethod
    def piecewise(op: OpViewAPI) -> bool:
        """Whether the right side chooses among reads by conditions on the indices (concatenation)."""
        return bool(op.loaded.expr.args[1].op == "call")

    @staticmethod
    def _leaves(op: OpViewAPI) -> list[tuple[semantics.Node | None, semantics.Node]]:
        """(condition or None for the last, read) of each branch of the right side, in order."""
        out: list[tuple[semantics.Node | None, semantics.Node]] = []
        node = op.loaded.expr.args[1]
        if node.op == "bin":  # a sum: its reads, none conditional
            return [(None, t) for t in Remap._terms(node)]
        while node.op == "call":
            cond, first, node = node.args
            out.append((cond, first))
        out.append((None, node))
        return out

    def reads(self, op: OpViewAPI) -> list[str]:
        """The tiles the right side reads, in order."""
        return [str(read.value) for _, read in self._leaves(op)]

    def branches(self, op: OpViewAPI) -> list[dict[str, str]]:
        """Each branch's C++ (condition, tile, row, column) at the walk's `r`, `c`; a tile's extent
        `cols(x)` is the local `cols_x` (its valid columns, or the row's count from an index tile).
        The last branch's condition is that its column lies within its tile's count."""

        def spell(name: str) -> str:
            return {"i": "r", "j": "c"}.get(name) or name.replace("(", "_").replace(")", "")

        out = []
        for cond, read in self._leaves(op):
            row, col = (semantics.index_cpp(a, spell) for a in read.args)
            guard = semantics.index_cpp(cond, spell) if cond is not None else f"{col} < cols_{read.value}"
            out.append({"cond": guard, "tile": str(read.value), "row": row, "col": col})
        return out

    def count_tiles(self, op: OpViewAPI) -> list[str]:
        """Tiles whose per-row counts the index forms read: `<tile>_idx` for each tile read."""
        return [f"{t}_idx" for t in self.reads(op)]

    # ----------------------------------------------------------------- several destinations
    @staticmethod
    def multi(op: OpViewAPI) -> bool:
        """Whether the op writes further destinations, each with its own expression."""
        return bool(op.extra_exprs)

    @staticmethod
    def _outputs(op: OpViewAPI) -> list[tuple[str, semantics.Node]]:
        """(destination, its parsed assignment) of every destination, the domain's first."""
        return [(op.domain, op.loaded.expr), *op.extra_exprs.items()]

    @staticmethod
    def _branches_of(rhs: semantics.Node) -> list[tuple[semantics.Node | None, semantics.Node]]:
        """(condition or None for the last, read) of each branch of one right side."""
        out: list[tuple[semantics.Node | None, semantics.Node]] = []
        node = rhs
        while node.op == "call":
            cond, first, node = node.args
            out.append((cond, first))
        out.append((None, node))
        return out

    def multi_reads(self, op: OpViewAPI) -> list[str]:
        """The tiles any destination's expression reads, in order of first mention."""
        out: list[str] = []
        for _, tree in self._outputs(op):
            out += [str(r.value) for _, r in self._branches_of(tree.args[1]) if str(r.value) not in out]
        return out

    def multi_extents(self, op: OpViewAPI) -> list[str]:
        """Every tile whose valid extent `cols(x)` an index names, or that a branch reads."""
        out = list(self.multi_reads(op))

        def go(n: semantics.Node) -> None:
            if n.op == "extent" and str(n.args[0].value) not in out:
                out.append(str(n.args[0].value))
            for a in n.args:
                go(a)

        for _, tree in self._outputs(op):
            go(tree)
        return out

    def multi_outputs(self, op: OpViewAPI) -> list[dict[str, Any]]:
        """Each destination with the C++ (condition, tile, row, column) of its branches at the walk's
        `r`, `c`; a tile's extent `cols(x)` is the local `cols_x`, its valid columns. The last
        branch's condition is that its column lies within its tile's valid columns."""

        def spell(name: str) -> str:
            return {"i": "r", "j": "c"}.get(name) or name.replace("(", "_").replace(")", "")

        out = []
        for dst, tree in self._outputs(op):
            branches = []
            for cond, read in self._branches_of(tree.args[1]):
                row, col = (semantics.index_cpp(a, spell) for a in read.args)
                guard = semantics.index_cpp(cond, spell) if cond is not None else f"{col} < cols_{read.value}"
                branches.append({"cond": guard, "tile": str(read.value), "row": row, "col": col})
            out.append({"dst": dst, "branches": branches})
        return out

    # ----------------------------------------------------------------- the parse tree's facts
    @staticmethod
    def _sides(op: OpViewAPI) -> tuple[semantics.Node, semantics.Node]:
        lhs, rhs = op.loaded.expr.args
        return lhs, rhs

    @staticmethod
    def source(op: OpViewAPI) -> str:
        node = op.loaded.expr.args[1]
        while node.op in ("call", "bin"):  # a piecewise read or a sum: its first read's tile
            node = node.args[1] if node.op == "call" else node.args[0]
        return str(node.value)

    def walked(self, op: OpViewAPI) -> str:
        """The tile indexed by the bare letters: the op walks its valid region."""
        lhs, rhs = self._sides(op)
        return str(lhs.value if [a.op for a in lhs.args] == ["ivar", "ivar"] else rhs.value)

    @staticmethod
    def index_scalars(op: OpViewAPI) -> list[str]:
        """The scalar operands the indices read, in the order the expression names them."""
        out: list[str] = []

        def go(n: semantics.Node) -> None:
            if n.op == "name" and str(n.value) not in out:
                out.append(str(n.value))
            for a in n.args:
                go(a)

        for side in op.loaded.expr.args:
            for a in side.args:
                go(a)
        return out

    def element_map(self, op: OpViewAPI) -> dict[str, str]:
        """C++ of each tile's (row, column) at the walk's loop indices `r`, `c`."""
        if self.piecewise(op) or self.sums(op):
            return {}  # a piecewise read maps each branch on its own (`branches`), a sum each term
        spell = {"i": "r", "j": "c", **{s: s for s in self.index_scalars(op)}}
        out = {}
        for side in self._sides(op):
            row, col = (semantics.index_cpp(a, spell.__getitem__) for a in side.args)
            out[f"{side.value}_row"], out[f"{side.value}_col"] = row, col
        return out

    def bounds(self, op: OpViewAPI) -> list[tuple[str, str, str]]:
        """(tile, C++ last row, C++ last column) of each tile the walk does not iterate: the index
        at the walk's last element must lie inside that tile's valid region."""
        walked = self.walked(op)
        if self.piecewise(op) or self.sums(op):
            return []
        spell = {"i": "(rows - 1)", "j": "(cols - 1)", **{s: s for s in self.index_scalars(op)}}
        return [
            (str(side.value), *(semantics.index_cpp(a, spell.__getitem__) for a in side.args))  # type: ignore[misc]
            for side in self._sides(op)
            if str(side.value) != walked
        ]

    def math(self, op: OpViewAPI) -> str | None:
        lines = [semantics.to_latex(tree, str) for _, tree in self._outputs(op)]
        if len(lines) == 1:
            return lines[0]
        return r"\begin{aligned}" + r" \\ ".join(lines) + r"\end{aligned}"  # one destination a line

    def region(self, op: OpViewAPI) -> str:
        return self.walked(op)

    def result_index(self, op: OpViewAPI) -> str:
        return ",".join(semantics.index_text(a) for a in self._sides(op)[0].args)

    def operand_index(self, op: OpViewAPI, operand: str) -> str:
        for _, read in self._leaves(op):
            if str(read.value) == operand:
                return ",".join(semantics.index_text(a) for a in read.args)
        for side in self._sides(op):
            if str(side.value) == operand:
                return ",".join(semantics.index_text(a) for a in side.args)
        return "i,j"

    def import_formulas(self, math: str) -> list[tuple[str | None, str]]:
        # `math` puts each destination's formula on a line of its own, the main one's first.
        body = math.removeprefix(r"\begin{aligned}").removesuffix(r"\end{aligned}")
        out: list[tuple[str | None, str]] = []
        for formula in body.split(r" \\ "):
            m = re.match(r"\\mathrm\{([\w\\]+)\}_\{", formula)
            out.append((m.group(1).replace(r"\_", "_") if m and out else None, formula))
        return out

    def complete_import(self, semantics: dict[str, Any], operands: list[dict[str, Any]]) -> None:
        # With several destinations the declaration may name another first (TINTERLEAVE's
        # `(dst1, dst0, ...)`): the domain is the tile the main formula assigns.
        if semantics.get("extra_outputs"):
            m = re.match(r"\s*(\w+)\[", str(semantics["expr"]))
            if m:
                semantics["domain"] = m.group(1)
            for o in operands:  # every assigned tile is a destination (a reference page cannot say)
                if o["name"] in (semantics["domain"], *semantics["extra_outputs"]):
                    o["role"] = "dst"

    def recognise(self, page: PageOp) -> int | None:
        # templates/opkinds/remap/domain.md.j2: "For each element ..., at the mapped position"
        return DOMAIN if not page.vector and page.intro_says("at the mapped position") else None

    # ----------------------------------------------------------------- backend
    @staticmethod
    def scalar_param(op: OpViewAPI, form: FormViewAPI) -> str | None:
        """The form's scalar quantisation parameter: a value parameter the expression does not read."""
        if any(o.kind == "tile" and o.role == "dst" for o in form.own):
            return None  # a form of several windows: its own scalars are the further windows' offsets
        read = set(op.read_operands) | {op.domain} | set(Remap.index_scalars(op))
        return next(
            (p.name for p in form.params if p.value_type and not p.events and p.operand not in read),
            None,
        )

    def sim_args(self, op: OpViewAPI, form: FormViewAPI) -> list[str]:
        if form.dispatch.impl in self.own_impls(op.spec):  # a form of several windows: all it takes
            return [p.name for p in form.params if not p.events]
        if self.multi(op):  # the destinations, then the reads (a form's stand-in for one it drops)
            return [form.arg(d) for d, _ in self._outputs(op)] + [form.arg(t) for t in self.multi_reads(op)]
        if self.sums(op):
            return [form.arg(op.domain), form.arg(self.source(op))]
        if self.piecewise(op):  # the reads, then the form's index tiles in its order
            main = [form.arg(op.domain), *(form.arg(t) for t in self.reads(op))]
            counts = [p.name for p in form.params if p.type and not p.events and p.name not in main]
            return [*main, *counts, self.relu(form)[0]]
        tiles = [form.arg(op.domain), form.arg(self.source(op))]
        extra = self.param_tile(form)
        scalar = self.scalar_param(op, form)
        quant = [extra] if extra else [f"sim::ScalarQuantParam{{{scalar}}}"] if scalar else []
        return [*tiles, *quant, self.relu(form)[0], *(form.arg(s) for s in self.index_scalars(op))]

    def form_backend(self, op: OpViewAPI, form: FormViewAPI) -> FormBackend:
        # A form of an op with several destinations that reads one source (TDEINTERLEAVE's
        # `(dst1, dst0, src)`) passes that source for every read it drops: the expressions, which
        # take their extents from it, then read the one tile.
        if not self.multi(op):
            return FormBackend()
        kept = [t for t in self.multi_reads(op) if any(p.operand == t for p in form.params)]
        return FormBackend(stand_ins={t: kept[0] for t in self.multi_reads(op)} if kept else {})

    def form_changes_result(self, op: OpViewAPI, form: FormViewAPI) -> bool:
        if self.multi(op):  # a form that drops a read computes with its stand-in: its own golden
            carried = {p.operand for p in form.params}
            return any(t not in carried for t in self.multi_reads(op))
        if self.piecewise(op):  # the index forms: the tests' index tiles are zeroed, no column moves
            return len(self.sim_args(op, form)) > len(self.reads(op)) + 2
        return self.relu(form)[1] == "NormalRelu" or self.scalar_param(op, form) is not None

    def manifest_extra(self, op: OpViewAPI) -> dict[str, Any]:
        if self.multi(op):
            return {
                "multi": True,
                "dst_exprs": {
                    d: op.spec.semantics.extra_outputs.get(d, op.spec.semantics.expr)
                    for d, _ in self._outputs(op)
                },
                "names": sorted({o.name for o in op.spec.operands}),
                "reads": self.multi_reads(op),
                # forms that drop reads: {form index: {dropped read: the read passed for it}}
                "stand_ins": {
                    str(f.index): {
                        t: self.form_backend(op, f).stand_ins.get(t)
                        for t in self.multi_reads(op)
                        if not any(p.operand == t for p in f.params)
                    }
                    for f in op.forms[1:]
                    if self.form_changes_result(op, f)
                },
            }
        forms = []
        for f in op.forms[1:]:
            if not f.own_result or self.piecewise(op):
                continue
            scalar = self.scalar_param(op, f)
            value = None
            if scalar is not None:
                operand = next(p.operand for p in f.params if p.name == scalar)
                intr = op.spec.intrinsic
                assert intr is not None
                value = int(intr.overloads[f.index - 1].test_args[str(operand)])
            forms.append({"index": f.index, "relu": self.relu(f)[1] == "NormalRelu", "scalar": value})
        names = sorted({o.name for o in op.spec.operands})
        return {
            "piecewise": self.piecewise(op),
            "sums": self.sums(op),
            "untouched_forms": [f.index for f in op.forms[1:] if self.piecewise(op) and f.own_result],
            "expr": op.spec.semantics.expr,
            "names": names,
            "remap_forms": forms,
            "walked": self.walked(op),
        }

    # ----------------------------------------------------------------- tests
    def _plan_piecewise(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        dst = op.domain
        reads = self.reads(op)
        for dtype, on in dtype_profiles(project, op):
            first = sum(len(x.cases) for x in tests.runtime)
            cases = []
            for index, (label, rows, vr, parts, dyn) in enumerate(PIECES, first):
                tiles = {
                    name: TileDecl(name, dtype, rows, cols, vr, vc, dyn)
                    for name, (cols, vc) in zip(reads, parts, strict=False)
                }
                cols = sum(c for c, _ in parts[: len(reads)])
                tiles[dst] = TileDecl(dst, dtype, rows, cols, vr, sum(v for _, v in parts[: len(reads)]), dyn)
                call = make_call(op, tiles, dict(op.default_values), {})
                decls = [tiles[dst], *(tiles[n] for n in reads)]
                cases.append(RuntimeCase(index, label, decls, {}, call, layout_addresses(project, decls)))
            tests.runtime.append(RuntimeKernel(dtype, {n: dtype for n in (dst, *reads)}, {}, on, cases))
        plan_rule_cases(project, op, tests)

    def _prepare_piecewise(self, gx: GoldenContext, data: Path) -> list[Check]:
        op = gx.op
        dst = op.domain
        tree = semantics.parse(str(op.extra["expr"]), set(op.extra["names"]))
        d_type = gx.np_type(gx.group.dtypes[dst])
        leaves: list[tuple[semantics.Node | None, semantics.Node]] = []
        node = tree.args[1]
        while node.op == "call":
            leaves.append((node.args[0], node.args[1]))
            node = node.args[2]
        leaves.append((None, node))
        checks: list[Check] = []
        for case in gx.group.cases:
            k = case.index
            seed = f"{gx.op_name}/{gx.entry.group}/{k}"
            flats = {}
            for name, t in case.tiles.items():
                flats[name] = inputs(gx.np_type(gx.group.dtypes[name]), t.rows * t.cols, f"{seed}/{name}")
                flats[name].tofile(data / f"c{k}_{name}.bin")
            t = case.tiles[dst]
            r, c = np.meshgrid(np.arange(t.valid_rows), np.arange(t.valid_cols), indexing="ij")
            env: dict[str, Any] = {"i": r, "j": c}
            for name, ts in case.tiles.items():
                env[f"rows({name})"], env[f"cols({name})"] = ts.valid_rows, ts.valid_cols
            want = tile_logical(flats[dst], t)
            taken = np.zeros(r.shape, dtype=bool)
            for cond, read in leaves:  # each element from the first branch whose condition holds
                ts = case.tiles[str(read.value)]
                rr, cc = (np.broadcast_to(semantics.index_value(a, env), r.shape) for a in read.args)
                here = ~taken & (
                    np.asarray(semantics.index_value(cond, env)) if cond is not None else (cc < ts.valid_cols)
                )
                values = tile_logical(flats[str(read.value)], ts)
                want[r[here], c[here]] = values[rr[here], cc[here]].astype(d_type)
                taken |= here
            label = f"{gx.label} case {k} ({case.label})"
            checks.append(_whole_check(f"c{k}_{dst}.out", t, want, label, d_type))
            if case is gx.group.cases[0]:  # index forms with zeroed counts leave dst as it was
                before = tile_logical(flats[dst], t)
                for index in op.extra.get("untouched_forms", []):
                    what = f"{label}, overload {index} (zero counts)"
                    checks.append(_whole_check(f"c{k}_{dst}.f{index}.out", t, before, what, d_type))
        return checks

    def _plan_sum(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        dst, src = op.domain, self.source(op)
        for dtype, on in dtype_profiles(project, op):
            first = sum(len(x.cases) for x in tests.runtime)
            cases = []
            for index, (label, rows, cols, vr, vc, dyn) in enumerate(SUM_SHAPES, first):
                tiles = {n: TileDecl(n, dtype, rows, cols, vr, vc, dyn) for n in (dst, src)}
                call = make_call(op, tiles, dict(op.default_values), {})
                decls = [tiles[dst], tiles[src]]
                cases.append(RuntimeCase(index, label, decls, {}, call, layout_addresses(project, decls)))
            tests.runtime.append(RuntimeKernel(dtype, {dst: dtype, src: dtype}, {}, on, cases))
        plan_rule_cases(project, op, tests)

    def _prepare_sum(self, gx: GoldenContext, data: Path) -> list[Check]:
        op = gx.op
        dst = op.domain
        tree = semantics.parse(str(op.extra["expr"]), set(op.extra["names"]))
        terms = Remap._terms(tree.args[1])
        d_type = gx.np_type(gx.group.dtypes[dst])
        checks: list[Check] = []
        for case in gx.group.cases:
            k = case.index
            seed = f"{gx.op_name}/{gx.entry.group}/{k}"
            flats = {}
            for name, t in case.tiles.items():
                flats[name] = inputs(gx.np_type(gx.group.dtypes[name]), t.rows * t.cols, f"{seed}/{name}")
                flats[name].tofile(data / f"c{k}_{name}.bin")
            t = case.tiles[dst]
            src = str(terms[0].value)
            ts = case.tiles[src]
            values = tile_logical(flats[src], ts)
            width = np.float64 if d_type.kind == "f" or d_type.name == "bfloat16" else np.int64
            want = np.zeros((t.rows, t.cols), dtype=d_type)  # the rest of the tile is zero
            r, c = np.meshgrid(np.arange(t.valid_rows), np.arange(t.valid_cols), indexing="ij")
            env: dict[str, Any] = {"i": r, "j": c}
            total = np.zeros(r.shape, dtype=width)
            first_in = None
            for n, term in enumerate(terms):  # a read outside the source's valid columns adds 0
                rr, cc = (np.broadcast_to(semantics.index_value(a, env), r.shape) for a in term.args)
                inside = cc < ts.valid_cols
                first_in = inside if n == 0 else first_in
                picked = values[rr, np.where(inside, cc, 0)].astype(width)
                total = total + np.where(inside, picked, 0)
            assert first_in is not None
            with np.errstate(all="ignore"):
                if width is np.float64:  # one rounding of the exact pair sum to the element type
                    sums = total.astype(np.float32).astype(d_type)
                else:
                    sums = total.astype(d_type)
            want[r[first_in], c[first_in]] = sums[first_in]
            label = f"{gx.label} case {k} ({case.label})"
            checks.append(_whole_check(f"c{k}_{dst}.out", t, want, label, d_type))
        return checks

    def _plan_multi(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        dsts = [d for d, _ in self._outputs(op)]
        reads = self.multi_reads(op)
        for dtype, on in dtype_profiles(project, op):
            # each shape runs on the profiles whose rules admit it (A5's even valid columns)
            kernels: dict[tuple[str, ...], list[tuple[str, dict[str, TileDecl]]]] = {}
            for label, rows, vr, (dc, dv), (sc, sv), dyn in MULTI_SHAPES:
                tiles = {n: TileDecl(n, dtype, rows, dc, vr, dv, dyn) for n in dsts}
                tiles.update({n: TileDecl(n, dtype, rows, sc, vr, sv, dyn) for n in reads})
                admitting = tuple(p for p in on if self._admits(op, p, tiles))
                if admitting:
                    kernels.setdefault(admitting, []).append((label, tiles))
            for k, (where, planned) in enumerate(kernels.items()):
                first = sum(len(x.cases) for x in tests.runtime)
                cases = []
                for index, (label, tiles) in enumerate(planned, first):
                    call = make_call(op, tiles, dict(op.default_values), {})
                    decls = [tiles[n] for n in (*dsts, *reads)]
                    cases.append(RuntimeCase(index, label, decls, {}, call, layout_addresses(project, decls)))
                gid = dtype + (f"_{k}" if k else "")
                tests.runtime.append(
                    RuntimeKernel(gid, {n: dtype for n in (*dsts, *reads)}, {}, list(where), cases)
                )
            self._plan_one_source(project, op, tests, dtype, on)
        plan_rule_cases(project, op, tests)

    def _plan_one_source(
        self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests, dtype: str, on: list[str]
    ) -> None:
        """The cases of each form that reads one source for several (`form_changes_result`), called
        through that form, on the profiles whose rules (the form's own among them) admit them."""
        dsts = [d for d, _ in self._outputs(op)]
        for form in op.forms[1:]:
            if not self.form_changes_result(op, form):
                continue
            kept = [t for t in self.multi_reads(op) if any(p.operand == t for p in form.params)]
            kernels: dict[tuple[str, ...], list[tuple[str, dict[str, TileDecl]]]] = {}
            for label, rows, vr, (dc, dv), (sc, sv), dyn in ONE_SOURCE_SHAPES:
                tiles = {n: TileDecl(n, dtype, rows, dc, vr, dv, dyn) for n in dsts}
                tiles.update({n: TileDecl(n, dtype, rows, sc, vr, sv, dyn) for n in kept})
                admitting = tuple(p for p in on if self._admits_form(op, form, p, tiles))
                if admitting:
                    kernels.setdefault(admitting, []).append((label, tiles))
            for k, (where, planned) in enumerate(kernels.items()):
                first = sum(len(x.cases) for x in tests.runtime)
                cases = []
                for index, (label, tiles) in enumerate(planned, first):
                    main = make_call(op, tiles, dict(op.default_values), {})
                    names = {t.name: t.type_name for t in tiles.values()}
                    call = Call(
                        form.test.template_args(main.template_args, names, main.args),
                        form.test.call_args(main.args),
                    )
                    decls = [tiles[n] for n in (*dsts, *kept)]
                    addresses = layout_addresses(project, decls)
                    attrs = {"form": str(form.index)}
                    cases.append(RuntimeCase(index, label, decls, {}, call, addresses, attrs))
                gid = f"{dtype}_f{form.index}" + (f"_{k}" if k else "")
                tests.runtime.append(
                    RuntimeKernel(gid, {n: dtype for n in (*dsts, *kept)}, {}, list(where), cases)
                )

    @staticmethod
    def _admits_form(op: OpViewAPI, form: FormViewAPI, profile: str, tiles: dict[str, TileDecl]) -> bool:
        """Whether a profile's common rules and those limited to `form` admit these tiles."""
        combo = {n: t.dtype for n, t in tiles.items()}
        own = [rv for rv in op.form_rules_for(profile) if in_form(rv.rule, form)]
        return all(
            part(rv.rule, TileFilter).admits_tiles(tiles) and part(rv.rule, TypeFilter).admits(op, combo)
            for rv in [*op.rules_for(profile), *own]
        )

    def _prepare_multi(self, gx: GoldenContext, data: Path) -> list[Check]:
        """Each destination's valid region from its expression (numpy over the index grids); the rest
        of each destination as it was."""
        op = gx.op
        names = set(op.extra["names"])
        checks: list[Check] = []
        for case in gx.group.cases:
            k = case.index
            seed = f"{gx.op_name}/{gx.entry.group}/{k}"
            flats = {}
            for name, t in case.tiles.items():
                flats[name] = inputs(gx.np_type(gx.group.dtypes[name]), t.rows * t.cols, f"{seed}/{name}")
                flats[name].tofile(data / f"c{k}_{name}.bin")
            # A case of a form that drops a read reads its stand-in for it (`_plan_one_source`).
            subs = dict(op.extra.get("stand_ins", {}).get(case.attrs.get("form", ""), {}))
            for dst in op.extra["dst_exprs"]:
                tree = semantics.parse(str(op.extra["dst_exprs"][dst]), names)
                want = self._multi_want(gx, case, flats, tree, dst, subs)
                label = f"{gx.label} case {k} ({case.label}), {dst}"
                d_type = gx.np_type(gx.group.dtypes[dst])
                checks.append(_whole_check(f"c{k}_{dst}.out", case.tiles[dst], want, label, d_type))
        return checks

    def _multi_want(
        self,
        gx: GoldenContext,
        case: Any,
        flats: dict[str, np.ndarray],
        tree: semantics.Node,
        dst: str,
        subs: dict[str, str],
    ) -> np.ndarray:
        """`dst` after the op: its valid region from the expression, each element from the first
        branch that holds (a read in `subs` reads its stand-in's tile), the rest as it was."""
        tiles = {n: case.tiles[subs.get(n, n)] for n in {*case.tiles, *subs}}
        t = case.tiles[dst]
        d_type = gx.np_type(gx.group.dtypes[dst])
        r, c = np.meshgrid(np.arange(t.valid_rows), np.arange(t.valid_cols), indexing="ij")
        env: dict[str, Any] = {"i": r, "j": c}
        for name, ts in tiles.items():
            env[f"rows({name})"], env[f"cols({name})"] = ts.valid_rows, ts.valid_cols
        want = tile_logical(flats[dst], t)
        taken = np.zeros(r.shape, dtype=bool)
        for cond, read in self._branches_of(tree.args[1]):
            name = str(read.value)
            ts = tiles[name]
            rr, cc = (np.broadcast_to(semantics.index_value(a, env), r.shape) for a in read.args)
            holds = np.asarray(semantics.index_value(cond, env)) if cond is not None else cc < ts.valid_cols
            here = ~taken & np.broadcast_to(holds, r.shape)
            values = tile_logical(flats[subs.get(name, name)], ts)
            want[r[here], c[here]] = values[rr[here], cc[here]].astype(d_type)
            taken |= here
        assert taken.all(), f"{gx.label} case {case.index}: the reads do not cover {dst}"
        return want

    def plan_tests(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        planner = {
            "multi": self._plan_multi,
            "sum": self._plan_sum,
            "piecewise": self._plan_piecewise,
            "window": self._plan_window,
        }[self.shape(op)]
        planner(project, op, tests)
        plan_form_runs(op, tests, lambda form, case: self._form_runs(op, form, case))

    def _plan_window(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        dst, src = op.domain, self.source(op)
        walked = self.walked(op)
        rs, cs = (self.index_scalars(op) + ["", ""])[:2]
        profiles = [p.name for p in project.profiles]
        cpu = [p for p in profiles if p == "CPU"]
        params = [n for n in tile_operands(op) if n not in (dst, src)]
        groups: list[tuple[str, str, str, list[Case], list[str]]] = []
        for dtype, on in dtype_profiles(project, op):
            groups.append((dtype, dtype, dtype, VEC_CASES, on))
            if dtype in ("float", "half", "int8_t"):
                groups.append((f"{dtype}_cube", dtype, dtype, CUBE_CASES, on))
        for s, d in CONVERSIONS:
            groups.append((f"{s}_to_{d}", s, d, VEC_CASES[:2] + CUBE_CASES[:1], cpu))
        if params:
            for s, d in QUANTISED:
                groups.append((f"{s}_to_{d}_quantised", s, d, VEC_CASES[:3] + CUBE_CASES[:1], cpu))
        for gid, s, d, cases_of, on in groups:
            kernels: dict[tuple[str, ...], list[tuple[str, dict[str, TileDecl], dict[str, int]]]] = {}
            for label, small, big, (r0, c0), dyn, ps, pd in cases_of:
                src_shape, dst_shape = (big, small) if walked == dst else (small, big)
                tiles = {
                    src: TileDecl(src, s, *src_shape, dyn, ps[0], ps[1], slayout=ps[2]),
                    dst: TileDecl(dst, d, *dst_shape, dyn, pd[0], pd[1], slayout=pd[2]),
                }
                tiles.update({n: TileDecl(n, PARAM_DTYPE, 1, src_shape[1], 1, src_shape[1]) for n in params})
                scalars = {k: v for k, v in ((rs, r0), (cs, c0)) if k}
                admitting = tuple(p for p in on if self._admits(op, p, tiles))
                if admitting:
                    kernels.setdefault(admitting, []).append((label, tiles, scalars))
            for k, (where, planned) in enumerate(kernels.items()):
                first = sum(len(x.cases) for x in tests.runtime)
                cases = []
                for index, (label, tiles, scalars) in enumerate(planned, first):
                    call = make_call(
                        op, tiles, dict(op.default_values), {n: str(v) for n, v in scalars.items()}
                    )
                    decls = [tiles[dst], tiles[src], *(tiles[n] for n in params)]
                    cases.append(
                        RuntimeCase(
                            index, label, decls, dict(scalars), call, layout_addresses(project, decls)
                        )
                    )
                dtypes = {
                    dst: d,
                    src: s,
                    **{n: PARAM_DTYPE for n in params},
                    **{n: "uint16_t" for n in (rs, cs) if n},
                }
                suffix = f"_{k}" if k else ""
                tests.runtime.append(RuntimeKernel(gid + suffix, dtypes, {}, list(where), cases))
        self._plan_conv(project, op, tests)
        plan_rule_cases(project, op, tests)

    def _plan_conv(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        """The `conv` variant: a window of a FRACTAL_Z (or FRACTAL_Z_3D) filter ConvTile into a Right
        tile, every shape of `conv_cases.EXTRACTS`, for each element type of the variant's rules, on
        the profiles those rules admit."""
        variant = next((v for v in op.variants if v.name == "conv"), None)
        if variant is None:
            return
        dst, src = op.domain, self.source(op)
        rs, cs = self.index_scalars(op)[:2]
        legal: dict[str, dict[str, TileDecl]] = {}  # each profile's first admitted case: the rules' twin
        for dtype in project.targets.dtype_sets[CONV_DTYPES]:
            c0 = channel_block(project, dtype)
            kernels: dict[tuple[str, ...], list[tuple[str, dict[str, TileDecl], tuple[int, int]]]] = {}
            for label, layout, extents, (rb, cb), (rshort, cshort), row, col, run in CONV_EXTRACTS:
                rows, cols = rb * c0, cb * 16
                tiles = {
                    dst: TileDecl(
                        dst,
                        dtype,
                        rows,
                        cols,
                        rows - rshort,
                        cols - cshort,
                        False,
                        "Right",
                        "RowMajor",
                        slayout="ColMajor",
                    ),  # fmt: skip
                    src: conv_tile(src, dtype, "Mat", layout, (*extents, c0), run),
                }
                where = tuple(variant_profiles(project, op, variant, tiles))
                for p in where:
                    legal.setdefault(p, tiles)
                if where:
                    kernels.setdefault(where, []).append((label, tiles, (row * c0, col)))
            for k, (where, planned) in enumerate(kernels.items()):
                first = sum(len(x.cases) for x in tests.runtime)
                cases = []
                for index, (label, tiles, (row, col)) in enumerate(planned, first):
                    call = make_call(op, tiles, dict(op.default_values), {rs: str(row), cs: str(col)})
                    decls = [tiles[dst], tiles[src]]
                    attrs = {"index_row": str(row), "index_col": str(col)}
                    cases.append(
                        RuntimeCase(index, label, decls, {}, call, layout_addresses(project, decls), attrs)
                    )
                gid = f"{dtype}_conv{f'_{k}' if k else ''}"
                tests.runtime.append(RuntimeKernel(gid, {dst: dtype, src: dtype}, {}, list(where), cases))

        def twin_call(tiles: dict[str, TileDecl]) -> Call:
            return make_call(op, tiles, dict(op.default_values), {rs: "0", cs: "0"})

        plan_variant_rules(project, op, tests, variant, legal.get, twin_call)

    def _form_runs(self, op: OpViewAPI, form: FormViewAPI, case: Any) -> bool:
        """Whether a kernel's first case also calls `form`: the variant's calls take the main
        declaration only; a form that reads one source for several has cases of its own
        (`_plan_one_source`)."""
        if self.multi(op) and self.form_changes_result(op, form):
            return False
        return not any(t.conv is not None for t in case.tiles)

    def _prepare_conv(self, gx: GoldenContext, data: Path) -> list[Check]:
        """The conv variant's cases: the filter matrix's fractals over `dst`'s valid region."""
        dst = gx.op.domain
        checks: list[Check] = []
        for case in gx.group.cases:
            k = case.index
            src = next(n for n, t in case.tiles.items() if t.conv)
            t, ts = case.tiles[dst], case.tiles[src]
            assert ts.conv is not None
            dt = gx.np_type(gx.group.dtypes[dst])
            seed = f"{gx.op_name}/{gx.entry.group}/{k}"
            flat_s = inputs(dt, ts.rows * ts.cols, f"{seed}/{src}")
            flat_d = inputs(dt, t.rows * t.cols, f"{seed}/{dst}")
            flat_s.tofile(data / f"c{k}_{src}.bin")
            flat_d.tofile(data / f"c{k}_{dst}.bin")
            extents = tuple(int(e) for e in ts.conv[1:])
            at = (int(case.attrs["index_row"]), int(case.attrs["index_col"]))
            c0 = extents[-1]
            want = extracted(filter_matrix(flat_s, extents), tile_logical(flat_d, t), c0,
                             (t.valid_rows, t.valid_cols), at)  # fmt: skip
            label = f"{gx.label} case {k} ({case.label})"

            def check(
                d: Path, k: int = k, want: np.ndarray = want, t: TileShape = t, label: str = label
            ) -> Outcome:
                got = tile_logical(np.fromfile(d / f"c{k}_{dst}.out", dtype=want.dtype), t)
                bad = raw_bits(got) != raw_bits(want)
                if bad.any():
                    return Outcome("fail", label, describe_mismatch(bad, got, want, "extracted"))
                return Outcome("pass", label)

            checks.append(check)
        return checks

    @staticmethod
    def _admits(op: OpViewAPI, profile: str, tiles: dict[str, TileDecl]) -> bool:
        """Whether a profile's rules admit a runtime case's tiles, which the main declaration moves:
        the common rules by their locations, and the rules checked on the main declaration alone
        (TINSERT's table of element-type pairs) by the tiles' element types as well."""
        combo = {n: t.dtype for n, t in tiles.items()}
        main = [rv for rv in op.form_rules_for(profile) if in_form(rv.rule, op.forms[0])]
        return all(
            part(rv.rule, TileFilter).admits_tiles(tiles) and part(rv.rule, TypeFilter).admits(op, combo)
            for rv in [*op.rules_for(profile), *main]
        )

    def prepare_cases(self, gx: GoldenContext, data: Path) -> list[Check]:
        if gx.op.extra.get("multi"):
            return self._prepare_multi(gx, data)
        if gx.op.extra.get("sums"):
            return self._prepare_sum(gx, data)
        if gx.op.extra.get("piecewise"):
            return self._prepare_piecewise(gx, data)
        if any(t.conv for c in gx.group.cases for t in c.tiles.values()):
            return self._prepare_conv(gx, data)
        op = gx.op
        dst = op.domain
        tree = semantics.parse(str(op.extra["expr"]), set(op.extra["names"]))
        lhs, rhs = tree.args
        src = str(rhs.value)
        walked = str(op.extra["walked"])
        d_type = gx.np_type(gx.group.dtypes[dst])
        s_type = gx.np_type(gx.group.dtypes[src])
        pair = (gx.group.dtypes[src], gx.group.dtypes[dst])
        checks: list[Check] = []
        for case in gx.group.cases:
            k = case.index
            seed = f"{gx.op_name}/{gx.entry.group}/{k}"
            t, ts = case.tiles[dst], case.tiles[src]
            params = [n for n in case.tiles if n not in (src, dst)]
            quantised = pair in QUANTISED and bool(params)
            flat_s = inputs(s_type, ts.rows * ts.cols, f"{seed}/{src}")
            if s_type.kind == "f" and pair[0] != pair[1]:  # NaN has no quantised or narrowed result
                flat_s = np.where(np.isnan(flat_s), s_type.type(0), flat_s).astype(s_type)
            flat_d = inputs(d_type, t.rows * t.cols, f"{seed}/{dst}")
            for name, value in case.scalars.items():  # the index scalars, as the kernel loads them
                np.array([value], dtype=gx.np_type(gx.group.dtypes[name])).tofile(data / f"c{k}_{name}.bin")
            flat_s.tofile(data / f"c{k}_{src}.bin")
            flat_d.tofile(data / f"c{k}_{dst}.bin")
            parameters = np.zeros(0, dtype=np.uint64)
            for name in params:
                parameters = quantisation_parameters(case.tiles[name].cols, signed=pair[1] == "int8_t")
                parameters.tofile(data / f"c{k}_{name}.bin")
            w = case.tiles[walked]
            r, c = np.meshgrid(np.arange(w.valid_rows), np.arange(w.valid_cols), indexing="ij")
            env: dict[str, Any] = {"i": r, "j": c, **case.scalars}
            sr, sc = (np.broadcast_to(semantics.index_value(a, env), r.shape) for a in rhs.args)
            dr, dc = (np.broadcast_to(semantics.index_value(a, env), r.shape) for a in lhs.args)
            values = tile_logical(flat_s, ts)[sr, sc]
            before = tile_logical(flat_d, t)
            label = f"{gx.label} case {k} ({case.label})"
            with np.errstate(all="ignore"):
                moved = (
                    vector_quantise(values, parameters[sc], d_type) if quantised else values.astype(d_type)
                )
                goldens = [(f"c{k}_{dst}.out", moved, label)]
                if case is gx.group.cases[0]:
                    for form in op.extra.get("remap_forms", []):
                        want = _form_result(values, pair, d_type, form)
                        what = f"{label}, overload {form['index']}"
                        goldens.append((f"c{k}_{dst}.f{form['index']}.out", want, what))
            for out, want, what in goldens:
                full = before.copy()
                full[dr, dc] = want
                checks.append(_whole_check(out, t, full, what, d_type))
        return checks


def _form_result(values: np.ndarray, pair: tuple[str, str], d_type: Any, form: dict[str, Any]) -> np.ndarray:
    """The result of a form with its own golden: ReLU of the source value before the conversion,
    or the scalar quantisation of the pairs that quantise (then ReLU of the scaled value)."""
    if form["scalar"] is not None and pair in SCALAR_QUANTISED:
        y = scalar_quantise(values, d_type, int(form["scalar"]))
        if form["relu"]:
            y = np.where(y > 0, y, np.float32(0)).astype(np.float32)
        return y.astype(d_type)
    if form["relu"]:
        zero = values.dtype.type(0)
        values = np.where(values > zero, values, zero).astype(values.dtype)
    return values.astype(d_type)


def _whole_check(out: str, t: TileShape, want: np.ndarray, label: str, dtype: Any) -> Check:
    """The whole tile holds `want` bit for bit (NaN for NaN): the mapped elements and, elsewhere,
    what the tile held before."""
    whole = (t.rows, t.cols)
    return region_check(out, t, want, want, label, dtype=dtype, extent=whole, names=("tile", "tile"))


__all__ = ["OpKind", "Remap"]
