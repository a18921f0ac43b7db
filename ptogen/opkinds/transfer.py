"""Transfers between a GlobalTensor and a tile: TLOAD (`dst[i, j] = src[i, j]`, tile <- global) and
TSTORE (global <- tile), over the tile's valid region.

The kind defines the whole semantics; `semantics.expr` only names the source operand (`src`), so
the one fact "which operand is copied" is stated once. The global side is seen as a matrix over
Shape dimensions 3 (rows) and 4 (columns): element (i, j) lives at i * stride[3] + j * stride[4]
elements from the tensor's base, so Layout::ND (stride[4] == 1) keeps rows contiguous and
Layout::DN (stride[3] == 1) keeps columns contiguous. Nothing outside the valid region is
written: neither the rest of a loaded tile nor the rest of the stored-to buffer.

Store modes. A declaration may pass its backend template arguments typed by an enum of
targets.yaml that states its semantics (`apply`): TSTORE's `ReluPreMode` (one parameter, a map
of the stored value) and `AtomicType` (two, `prior` and `stored`: how the value combines with the
destination element already there; AtomicAdd reads the destination, which an op expression of
this kind cannot, since it names only the source). Those arguments are the form's *modes*: the
CPU backend passes them to the simulator, which applies the one-parameter modes to the source
element and then the two-parameter ones with the destination's prior element, in the compute
type, and copies bit for bit when every mode is the identity (`stored`, `x`). A form whose test
values change the result gets its own golden, computed with the same enum cases in numpy.
Other template arguments (`STPhase`, a scheduling hint) do not change what is stored.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..testing.golden import Check, GoldenContext, _bits, _describe, _is_float, compute_dtype, inputs, logical
from ..testing.manifest import GlobalShape, TileShape
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
from .base import OPERANDS, NamesOperand, PageOp, fixed_type

if TYPE_CHECKING:
    from ..kind_api import EnumView, FormViewAPI, OpViewAPI, ProjectViewAPI
    from ..spec.model import OpSpec

# (label, tile rows, cols, valid rows, valid cols, dynamic, global layout, leading dimension).
# The tile is row-major for ND and column-major for DN (the pairs every profile's Vec loads take);
# a leading dimension wider than the region leaves gaps in the buffer that a store must not touch.
SHAPES = [
    ("ND full 16x16", 16, 16, 16, 16, False, "ND", 16, None),
    ("ND partial valid 13x7 of 16x16, row stride 9", 16, 16, 13, 7, False, "ND", 9, None),
    ("ND non-square 6x40", 6, 40, 6, 40, False, "ND", 40, None),
    ("ND run-time valid 11x19 of 16x32, run-time row stride 24", 16, 32, 11, 19, True, "ND", 24, None),
    ("ND odd 3x5 valid 2x3, row stride 4", 3, 5, 2, 3, False, "ND", 4, None),
    ("DN full 8x8", 8, 8, 8, 8, False, "DN", 8, None),
    ("DN partial valid 9x15 of 12x20, column stride 11", 12, 20, 9, 15, False, "DN", 11, None),
    ("DN run-time valid 5x6 of 8x8, run-time column stride 7", 8, 8, 5, 6, True, "DN", 7, None),
    # A load pads the tile outside its valid region as its PadValue says (a store ignores it).
    ("ND partial valid 5x9 of 8x16, PadValue::Max", 8, 16, 5, 9, False, "ND", 12, "Max"),
    ("DN run-time valid 6x5 of 8x8, PadValue::Min", 8, 8, 6, 5, True, "DN", 9, "Min"),
    ("ND partial valid 3x4 of 4x8, PadValue::Zero", 4, 8, 3, 4, False, "ND", 4, "Zero"),
]


def nz_shapes(block: int) -> list[tuple[str, int, int, int, int, bool]]:
    """NZ cases for a block of `block` elements (32 bytes): the tile is the NZ tile (column-major
    boxes of 16 x `block`, row-major inside) and the GlobalTensor the same matrix in NZ order.
    (label, rows, cols, valid rows, valid cols, dynamic valid shape)"""
    return [
        (f"NZ full 32x{2 * block}", 32, 2 * block, 32, 2 * block, False),
        (f"NZ partial valid 13x{block + 3} of 16x{2 * block}", 16, 2 * block, 13, block + 3, False),
        (f"NZ run-time valid 11x{block - 1} of 32x{block}", 32, block, 11, block - 1, True),
    ]


class Transfer(NamesOperand):
    name: ClassVar[str] = "transfer"
    domain_starts: ClassVar[tuple[str, ...]] = ("For each",)

    # ----------------------------------------------------------------- import
    def recognise(self, page: PageOp) -> int | None:
        # Between a GlobalTensor and (at most) one tile (a hint has a context and no tile instead).
        if page.vector or not page.has("global") or page.count("tile") > 1:
            return None
        return None if page.has("context") and not page.has("tile") else OPERANDS

    # ----------------------------------------------------------------- spec checks
    def check_operands(self, spec: OpSpec) -> list[tuple[tuple[str | int, ...], str]]:
        kinds = sorted(o.kind for o in spec.operands)
        if kinds != ["global", "tile"]:
            return [(("operands",), "a transfer op has one tile and one GlobalTensor (`global`) operand")]
        return []

    # ----------------------------------------------------------------- naming

    @staticmethod
    def global_operand(op: OpViewAPI) -> str:
        return next(o.name for o in op.spec.operands if o.kind == "global")

    @staticmethod
    def tile_operand(op: OpViewAPI) -> str:
        return next(o.name for o in op.spec.operands if o.kind == "tile")

    def loads(self, op: OpViewAPI) -> bool:
        """True for global -> tile (TLOAD), False for tile -> global (TSTORE)."""
        return self.tile_operand(op) == op.spec.semantics.domain

    # ----------------------------------------------------------------- math
    def result_index(self, op: OpViewAPI) -> str:
        return "i,j"

    def operand_index(self, op: OpViewAPI, operand: str) -> str:
        return "i,j"

    # ----------------------------------------------------------------- store modes
    @staticmethod
    def modes(op: OpViewAPI, form: FormViewAPI) -> list[tuple[str, EnumView, str]]:
        """(adapter parameter, enum, test value) of each mode the form passes its backend, in the
        order the simulator applies them: value maps first, then the combination with the prior
        destination element."""
        call = form.dispatch
        if call.impl != op.name:
            return []
        enums = {e.name: e for e in op.project_enums}
        tparams = {t.name: t for t in form.template}
        out = []
        for i, expr in enumerate(call.template_args):
            t = tparams.get(expr)
            if t is not None and t.kind == "value":
                etype, name, value = str(t.type), expr, form.test.template_value(expr)
            elif t is None:
                etype, name, value = fixed_type(form, expr), f"Fixed{i}", expr
            else:
                continue
            if etype in enums:
                out.append((name, enums[etype], value.split("::")[-1]))
        return sorted(out, key=lambda m: len(m[1].params))

    @staticmethod
    def identity(e: EnumView) -> str:
        """The enum value whose case leaves the stored value as it is (`stored`, `x`)."""
        return next(c.value for c in e.cases if c.numpy.strip() == e.params[-1])

    def mode_signatures(self, op: OpViewAPI) -> list[list[EnumView]]:
        """Distinct mode lists of the op's forms (one simulator function each; [] is the plain copy)."""
        out: list[list[EnumView]] = [[]]
        for form in op.forms:
            sig = [e for _, e, _ in self.modes(op, form)]
            if sig not in out:
                out.append(sig)
        return out

    @staticmethod
    def scalars(form: FormViewAPI) -> list[str]:
        """The form's own scalar parameters (TSTORE's `preQuantScalar`), which its simulator
        function takes after the modes."""
        own = {o.name for o in form.own if o.kind == "scalar"}
        return [p.name for p in form.params if p.operand in own]

    def scalar_signatures(self, op: OpViewAPI) -> list[list[EnumView]]:
        """Distinct mode lists of the forms that also pass a quantisation scalar (one simulator
        function each, taking the modes then the scalar)."""
        out: list[list[EnumView]] = []
        for form in op.forms:
            sig = [e for _, e, _ in self.modes(op, form)]
            if self.scalars(form) and sig not in out:
                out.append(sig)
        return out

    def form_changes_result(self, op: OpViewAPI, form: FormViewAPI) -> bool:
        return any(value != self.identity(e) for _, e, value in self.modes(op, form))

    def sim_args(self, op: OpViewAPI, form: FormViewAPI) -> list[str]:
        return [*form.impl_args, *(name for name, _, _ in self.modes(op, form)), *self.scalars(form)]

    def manifest_extra(self, op: OpViewAPI) -> dict[str, Any]:
        """The overloads judged against their own golden, with the modes their tests apply."""
        return {
            "mode_forms": [
                {"index": f.index, "modes": [[e.name, value] for _, e, value in self.modes(op, f)]}
                for f in op.forms[1:]
                if f.own_result
            ]
        }

    # ----------------------------------------------------------------- outputs

    # ----------------------------------------------------------------- tests
    def plan_tests(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        tile, glob = self.tile_operand(op), self.global_operand(op)
        for dtype, on in self.dtype_profiles(project, op):
            first = sum(len(k.cases) for k in tests.runtime)
            cases = []
            for index, (label, rows, cols, vr, vc, dyn, layout, ld, pad) in enumerate(SHAPES, first):
                t = TileDecl(
                    tile,
                    dtype,
                    rows,
                    cols,
                    vr,
                    vc,
                    dyn,
                    "Vec",
                    "RowMajor" if layout == "ND" else "ColMajor",
                    pad=pad,
                )
                g = GlobalDecl(glob, dtype, vr, vc, ld, layout, dyn)
                call = make_call(op, {tile: t}, dict(op.default_values), {})
                cases.append(
                    RuntimeCase(index, label, [t], {}, call, layout_addresses(project, [t]), globals=[g])
                )
            bits = next(d.bits for d in project.targets.dtypes if d.name == dtype)
            # Every profile moves a Vec tile NZ to NZ, except 64-bit elements (ND or DN only).
            if bits <= 32:
                for label, rows, cols, vr, vc, dyn in nz_shapes(256 // bits):
                    t = TileDecl(tile, dtype, rows, cols, vr, vc, dyn, "Vec", "ColMajor", slayout="RowMajor")
                    g = GlobalDecl(glob, dtype, rows, cols, cols, "NZ", block=256 // bits)
                    call = make_call(op, {tile: t}, dict(op.default_values), {})
                    index = first + len(cases)
                    addresses = layout_addresses(project, [t])
                    cases.append(RuntimeCase(index, label, [t], {}, call, addresses, globals=[g]))
            tests.runtime.append(RuntimeKernel(dtype, {tile: dtype, glob: dtype}, {}, on, cases))
        plan_rule_cases(project, op, tests)

    def prepare_cases(self, gx: GoldenContext, data: Path) -> list[Check]:
        op = gx.op
        dst = op.domain
        src = next(n for n in op.operands if n != dst)
        checks: list[Check] = []
        for case in gx.group.cases:
            k = case.index
            t_name = next(iter(case.tiles))
            g_name = next(iter(case.globals))
            t, g = case.tiles[t_name], case.globals[g_name]
            dtype = gx.np_type(gx.group.dtypes[t_name])
            seed = f"{gx.op_name}/{gx.entry.group}/{k}"
            tile_flat = inputs(dtype, t.rows * t.cols, f"{seed}/{t_name}")
            buf = inputs(dtype, g.size, f"{seed}/{g_name}")
            tile_flat.tofile(data / f"c{k}_{t_name}.bin")
            buf.tofile(data / f"c{k}_{g_name}.bin")
            vr, vc = t.valid_rows, t.valid_cols
            addr = global_addresses(g, vr, vc)
            tile = tile_logical(tile_flat, t)
            if dst == t_name:  # load: the tile's valid region takes the global elements
                want_tile = tile.copy()
                region = np.zeros(want_tile.shape, dtype=bool)
                if t.pad:  # and the rest of the tile its pad value
                    want_tile[:, :] = pad_value(dtype, t.pad)
                    region[:, :] = True
                want_tile[:vr, :vc] = buf[addr]
                want = want_tile
                region[:vr, :vc] = True
                out: TileShape | GlobalShape = t
            else:  # store: the buffer's mapped positions take the tile's valid region
                want = buf.copy()
                want[addr] = tile[:vr, :vc]
                region = np.zeros(want.shape, dtype=bool)
                region[addr] = True
                out = g
            label = f"{gx.label} case {k} ({case.label}; {src} -> {dst})"

            def check(
                data_dir: Path,
                k: int = k,
                want: np.ndarray = want,
                region: np.ndarray = region,
                out: TileShape | GlobalShape = out,
                label: str = label,
                dtype: np.dtype = dtype,
            ) -> Outcome:
                got = np.fromfile(data_dir / f"c{k}_{dst}.out", dtype=dtype)
                if isinstance(out, TileShape) and out.layout in ("RowMajor", "ColMajor"):
                    got = tile_logical(got, out)
                differs = _bits(got) != _bits(want)
                inside, outside = differs & region, differs & ~region
                if inside.any():
                    return Outcome("fail", label, _describe(inside, got, want, "transferred"))
                if outside.any():
                    return Outcome("fail", label, _describe(outside, got, want, "outside-the-transfer"))
                return Outcome("pass", label)

            checks.append(check)
            if case is gx.group.cases[0] and dst != t_name:
                for form in gx.op.extra.get("mode_forms", []):
                    checks.append(self._form_check(gx, form, k, dst, buf, addr, tile[:vr, :vc], dtype, label))
        return checks

    @staticmethod
    def _form_check(
        gx: GoldenContext,
        form: dict[str, Any],
        k: int,
        dst: str,
        buf: np.ndarray,
        addr: np.ndarray,
        region_values: np.ndarray,
        dtype: np.dtype,
        label: str,
    ) -> Check:
        """A store overload run with modes (first case of the group): the buffer's mapped positions
        take the modes applied to the tile's region, in the compute type, as the simulator does;
        NaN matches NaN (an atomic add of a NaN keeps no particular payload)."""
        C = compute_dtype(dtype)
        value = region_values.astype(C)
        want = buf.copy()
        with np.errstate(over="ignore", invalid="ignore"):  # integers wrap, floats reach infinity
            for name, mode in form["modes"]:  # in the simulator's order: value maps, then combinations
                fn = getattr(gx.reference, f"apply_{name}")
                params = fn.__code__.co_argcount - 2
                prior = buf[addr].astype(C)
                value = fn(C.type, mode, value) if params == 1 else fn(C.type, mode, prior, value)
            want[addr] = np.asarray(value).astype(dtype)
        index = form["index"]
        what = f"{label.rsplit(' (', 1)[0]} overload {index} ({', '.join(v for _, v in form['modes'])})"

        def check(data_dir: Path) -> Outcome:
            got = np.fromfile(data_dir / f"c{k}_{dst}.f{index}.out", dtype=dtype)
            differs = _bits(got) != _bits(want)
            if _is_float(dtype):
                differs &= ~(np.isnan(got.astype(np.float32)) & np.isnan(want.astype(np.float32)))
            if differs.any():
                return Outcome("fail", what, _describe(differs, got, want, "stored"))
            return Outcome("pass", what)

        return check


def global_addresses(g: GlobalShape, rows: int, cols: int) -> np.ndarray:
    """Buffer index of each element (i, j) of the rows x cols region of a GlobalTensor's matrix: the
    matrix indices split over the five dimensions as the layout folds them (innermost last in each
    group), then weighted by the strides."""
    d, s = g.shape, g.strides
    i, j = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    groups = {"ND": ([0, 1, 2, 3], [4]), "DN": ([3], [0, 1, 2, 4]), "NZ": ([2, 3], [0, 1, 4])}
    row_dims, col_dims = groups[g.layout]
    addr = np.zeros_like(i)
    for index, dims in ((i, row_dims), (j, col_dims)):
        rest = index.copy()
        for dim in reversed(dims):
            addr += (rest % d[dim]) * s[dim]
            rest //= d[dim]
    return addr


def pad_value(dtype: np.dtype, pad: str) -> Any:
    """The element a PadValue names: 0 (Zero), +-infinity for a floating type, else the type's
    largest or smallest value (Max, Min)."""
    if pad == "Zero":
        return dtype.type(0)
    if dtype.kind == "f" or dtype.name == "bfloat16":
        return dtype.type(np.inf if pad == "Max" else -np.inf)
    info = np.iinfo(dtype)
    return dtype.type(info.max if pad == "Max" else info.min)


def tile_logical(flat: np.ndarray, t: TileShape) -> np.ndarray:
    """A tile's storage as its rows x cols matrix: plain row- or column-major, or boxed NZ
    (16-row boxes of 32 bytes, row-major inside, the boxes column after column)."""
    rows, cols = t.rows, t.cols
    if t.slayout != "RowMajor":
        return logical(flat.copy(), rows, cols, t.layout)
    inner_cols = 32 // flat.dtype.itemsize
    boxes = flat.reshape(cols // inner_cols, rows // 16, 16, inner_cols)  # [box col][box row][r][c]
    return boxes.transpose(1, 2, 0, 3).reshape(rows, cols).copy()
