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

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..importer.contract import OPERANDS, PageOp
from ..kindlib.conv import CONV_DTYPES, TRANSFER_SHAPES
from ..kindlib.layout import global_addresses, pad_value, tile_logical
from ..kindlib.quantise import (
    PARAM_DTYPE,
    VECTOR_QUANTISED,
    quantisation_parameters,
    scalar_mode,
    scalar_quantise,
    vector_quantise,
)
from ..rules.parts import TileFilter, part
from ..testing.golden import (
    Check,
    GoldenContext,
    compute_dtype,
    describe_mismatch,
    inputs,
    is_float,
    raw_bits,
)
from ..testing.manifest import CaseEntry, GlobalShape, TileShape
from ..testing.plan import (
    GlobalDecl,
    OpTests,
    RuntimeCase,
    RuntimeKernel,
    TileDecl,
    dtype_profiles,
    layout_addresses,
    make_call,
    plan_form_runs,
    plan_rule_cases,
)
from ..testing.results import Outcome
from .base import NamesOperand, fixed_type

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


# Loads into the cube's L1 tiles (`Mat`): (label, tile rows, cols, valid rows, valid cols, dynamic,
# BLayout, SLayout, global layout), for an element of `block` elements to 32 bytes. NZ and ZN boxes
# are 512 bytes (16 rows of 32 bytes, or 32 bytes of 16 columns); the ND pair has no boxes.
def mat_loads(block: int) -> list[tuple[str, int, int, int, int, bool, str, str | None, str]]:
    return [
        (
            f"Mat NZ from ND, valid 30x{2 * block - 3} of 32x{2 * block}",
            32,
            2 * block,
            30,
            2 * block - 3,
            False,
            "ColMajor",
            "RowMajor",
            "ND",
        ),
        (
            f"Mat ZN from DN, valid {2 * block - 1}x29 of {2 * block}x32",
            2 * block,
            32,
            2 * block - 1,
            29,
            False,
            "RowMajor",
            "ColMajor",
            "DN",
        ),
        (
            f"Mat NZ from ND, run-time valid 9x{block + 1} of 16x{2 * block}",
            16,
            2 * block,
            9,
            block + 1,
            True,
            "ColMajor",
            "RowMajor",
            "ND",
        ),
    ]


# Every element size loads a plain row-major Mat tile from ND (the 64-bit types' only Mat pair).
MAT_ND = ("Mat ND from ND, run-time valid 5x11 of 8x16", 8, 16, 5, 11, True, "RowMajor", None, "ND")

# The cube's other load targets (CPU profile): a bias table and a fix-pipe scaling table, one row.
# (location, element type, label, columns, valid columns)
ROW_LOADS = [
    ("Bias", "float", "Bias row, valid 1x50 of 1x64", 64, 50),
    ("Bias", "int32_t", "Bias row, valid 1x20 of 1x32", 32, 20),
    ("Scaling", "uint64_t", "Scaling row, valid 1x13 of 1x16", 16, 13),
]

# Accumulator stores: the accumulator's element type and the GlobalTensor types each page lists
# for the plain store (`quantised`: False) and for a store with a quantisation scalar (True). The
# plain call of a quantising pair converts without quantisation (the CPU profile only).
ACC_PAIRS = [
    ("float", "float", False),
    ("float", "half", False),
    ("float", "bfloat16_t", False),
    ("int32_t", "int32_t", False),
    ("float", "int8_t", True),
    ("float", "uint8_t", True),
    ("int32_t", "int8_t", True),
    ("int32_t", "uint8_t", True),
    ("int32_t", "half", True),
    ("int32_t", "int16_t", True),
]

# (label, tile rows, cols, valid rows, valid cols, dynamic, global layout, leading dimension): the
# accumulator is NZ in 16 x 16 boxes of 1 KiB.
ACC_SHAPES = [
    ("Acc NZ 32x32 to ND", 32, 32, 32, 32, False, "ND", 32),
    ("Acc NZ partial valid 19x27 of 32x32 to ND, row stride 30", 32, 32, 19, 27, False, "ND", 30),
    ("Acc NZ run-time valid 13x5 of 16x16 to ND, run-time row stride 7", 16, 16, 13, 5, True, "ND", 7),
    ("Acc NZ 16x32 to NZ", 16, 32, 16, 32, False, "NZ", 32),
    ("Acc NZ 32x32 to an NC1HWC0 feature map (n 2, h 4, w 4)", 32, 32, 32, 32, False, "NC1HWC0", 0),
    ("Acc NZ partial valid 19x27 of 32x32 to an NDC1HWC0 feature map", 32, 32, 19, 27, False, "NDC1HWC0", 0),
]
# The feature-map stores: (n[*d], h, w) for the rows; the channel blocks of C0 = 32 bytes (of the
# stored type) for the columns. A2A3's page lists them too (NZ2NC1HWC0, NZ2NDC1HWC0), A5's page
# other ones (NHWC, NCHW, NCDHW), and no rule checks a GlobalTensor's layout: the CPU profile runs them.
FEATURE_MAP_ROWS = {"NC1HWC0": (2, 4, 4), "NDC1HWC0": (2, 2, 8)}


def feature_map(layout: str, cols: int, itemsize: int) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """(extents, strides, elements) of a dense feature map whose matrix is 32 rows x `cols`."""
    c0 = 32 // itemsize
    n, h, w = FEATURE_MAP_ROWS[layout]
    blocks = -(-cols // c0)
    if layout == "NC1HWC0":  # (n, c1, h, w, c0)
        d = (n, blocks, h, w, c0)
        s = (blocks * h * w * c0, h * w * c0, w * c0, c0, 1)
    else:  # (n*d, c1 / 2, 2, h, w) and the channel block beyond them: 2 x (blocks / 2) channel blocks
        c1b = 2 if blocks % 2 == 0 else 1
        d = (n, blocks // c1b, c1b, h, w)
        s = (blocks * h * w * c0, c1b * h * w * c0, h * w * c0, w * c0, c0)
    return d, s, n * blocks * h * w * c0


# Stores with a parameter tile (TSTORE_FP): (label, tile rows, cols, valid rows, valid cols, dynamic,
# (location, BLayout, SLayout, box bytes), global layout, leading dimension). A row-major source takes a
# parameter per column, a column-major one per row; the accumulator (NZ boxes) is column-major.
ACC_NZ = ("Acc", "ColMajor", "RowMajor", 1024)
PARAM_SHAPES = [
    ("Acc NZ 32x32 to ND, a parameter per row", 32, 32, 32, 32, False, ACC_NZ, "ND", 32),
    ("Acc NZ partial valid 19x27 of 32x32 to ND, row stride 30", 32, 32, 19, 27, False, ACC_NZ, "ND", 30),
    ("Acc NZ run-time valid 13x5 of 16x16 to ND", 16, 16, 13, 5, True, ACC_NZ, "ND", 7),
    ("Acc NZ 16x32 to NZ", 16, 32, 16, 32, False, ACC_NZ, "NZ", 32),
    (
        "Vec row-major valid 6x40 to ND, a parameter per column",
        8,
        40,
        6,
        40,
        False,
        ("Vec", "RowMajor", None, None),
        "ND",
        44,
    ),
    (
        "Vec col-major valid 9x15 of 16x16 to DN",
        16,
        16,
        9,
        15,
        False,
        ("Vec", "ColMajor", None, None),
        "DN",
        11,
    ),
]
# (source, destination) of the parameter-tile stores: the pairs the vector path quantises
# (sim_quant.hpp's vector_quant) and a pair it does not (the parameters are not read).
PARAM_PAIRS = [*VECTOR_QUANTISED, ("float", "half")]
# Group id tags of the parameter-tile stores run with ReluPreMode::NormalRelu and AtomicType::AtomicAdd.
RELU_TAG, ATOMIC_TAG = "relu", "atomic"


class Transfer(NamesOperand):
    name: ClassVar[str] = "transfer"
    domain_starts: ClassVar[tuple[str, ...]] = ("For each",)

    # ----------------------------------------------------------------- import
    def recognise(self, page: PageOp) -> int | None:
        # Between a GlobalTensor and (at most) one tile (a hint has a context and no tile instead).
        if page.vector or not page.has("global") or page.count("tile") > 2:
            return None
        if page.count("tile") == 2:  # a store with a parameter tile (TSTORE_FP), by its domain paragraph
            return OPERANDS if page.intro_says("of the GlobalTensor seen as a matrix") else None
        return None if page.has("context") and not page.has("tile") else OPERANDS

    # ----------------------------------------------------------------- spec checks
    def check_operands(self, spec: OpSpec) -> list[tuple[tuple[str | int, ...], str]]:
        kinds = sorted(o.kind for o in spec.operands)
        params = [o for o in spec.operands if o.kind == "tile"][1:]
        stored = spec.semantics.domain == next((o.name for o in spec.operands if o.kind == "global"), None)
        if kinds[:2] != ["global", "tile"] or any(k != "tile" for k in kinds[2:]):
            return [(("operands",), "a transfer op has one tile and one GlobalTensor (`global`) operand")]
        if params and (not stored or any(o.role != "src" for o in params) or len(params) > 1):
            return [
                (
                    ("operands",),
                    "a transfer op's second tile is a store's parameter tile (role `src`, TSTORE_FP's `fp`)",
                )
            ]
        return []

    # ----------------------------------------------------------------- naming

    @staticmethod
    def global_operand(op: OpViewAPI) -> str:
        return next(o.name for o in op.spec.operands if o.kind == "global")

    @staticmethod
    def tile_operand(op: OpViewAPI) -> str:
        return next(o.name for o in op.spec.operands if o.kind == "tile")

    @staticmethod
    def param_operand(op: OpViewAPI) -> str | None:
        """A store's parameter tile (TSTORE_FP's `fp`: one vector-quantisation parameter per column of
        a row-major source, per row of a column-major one), or None."""
        tiles = [o.name for o in op.spec.operands if o.kind == "tile"]
        return tiles[1] if len(tiles) > 1 else None

    @staticmethod
    def param_tiles(form: FormViewAPI) -> list[str]:
        """The form's tile parameters besides the transferred ones (TSTORE_FP's `fp`), which its
        simulator function takes after the transferred two."""
        main = set(form.impl_args)
        tiles = {o.name for o in form.op.spec.operands if o.kind == "tile"}
        return [p.name for p in form.params if p.operand in tiles and p.name not in main and not p.events]

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

    def param_tile_signatures(self, op: OpViewAPI) -> list[list[EnumView]]:
        """Mode lists of the store functions that take a parameter tile (TSTORE_FP, which dispatches
        to TSTORE's `_IMPL` with a parameter tile): those of the forms that pass a quantisation scalar,
        whose modes TSTORE_FP's declaration repeats. Loads have none."""
        return [] if self.loads(op) else self.scalar_signatures(op)

    def form_changes_result(self, op: OpViewAPI, form: FormViewAPI) -> bool:
        return any(value != self.identity(e) for _, e, value in self.modes(op, form))

    def sim_args(self, op: OpViewAPI, form: FormViewAPI) -> list[str]:
        modes = (name for name, _, _ in self.modes(op, form))
        return [*form.impl_args, *self.param_tiles(form), *modes, *self.scalars(form)]

    def _form_runs(self, form: FormViewAPI, case: Any) -> bool:
        """Whether a kernel's first case also calls `form`: a ConvTile's store runs the mode forms
        without a quantisation scalar (the simulator quantises Tiles only)."""
        return not (self.scalars(form) and any(t.conv is not None for t in case.tiles))

    def manifest_extra(self, op: OpViewAPI) -> dict[str, Any]:
        """The overloads judged against their own golden, with the modes their tests apply, and a
        store's parameter tile."""
        param = self.param_operand(op)
        return {
            **({"param_tile": param} if param else {}),
            "mode_forms": [
                {
                    "index": f.index,
                    "modes": [[e.name, value] for _, e, value in self.modes(op, f)],
                    "scalars": [int(f.test_args[o.name]) for o in f.own if o.kind == "scalar"],
                }
                for f in op.forms[1:]
                if f.own_result
            ],
        }

    # ----------------------------------------------------------------- outputs

    # ----------------------------------------------------------------- tests
    def shaped_tile(self, op: OpViewAPI, tile: TileDecl) -> TileDecl:
        """A store with a parameter tile stores an accumulator (NZ in 1 KiB boxes) in the rule
        cases, the location every profile admits."""
        t = super().shaped_tile(op, tile)
        if self.param_operand(op) is None or tile.name != self.tile_operand(op):
            return t
        loc, layout, slayout, fractal = ACC_NZ
        return replace(t, loc=loc, layout=layout, slayout=slayout, fractal=fractal)

    def plan_tests(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        self._plan_cases(project, op, tests)
        plan_form_runs(op, tests, lambda form, case: self._form_runs(form, case))

    def _plan_cases(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        if self.param_operand(op) is not None:
            self._plan_param_stores(project, op, tests)
            plan_rule_cases(project, op, tests)
            return
        tile, glob = self.tile_operand(op), self.global_operand(op)
        for dtype, on in dtype_profiles(project, op):
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
        if self.loads(op):
            self._plan_cube_loads(project, op, tests)
        else:
            self._plan_acc_stores(project, op, tests)
        self._plan_conv(project, op, tests)
        plan_rule_cases(project, op, tests)

    @staticmethod
    def _admitting(op: OpViewAPI, profiles: list[str], operand: str, location: str) -> list[str]:
        """The profiles whose rules for every declaration admit `operand` in `location`."""
        return [
            p
            for p in profiles
            if all(
                part(rv.rule, TileFilter).admits_location(operand, location)
                for rv in op.rules_for(p, static=True)
            )
        ]

    def _plan_cube_loads(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        """Loads into `Mat` tiles (NZ from ND, ZN from DN, plain ND), and into one-row `Bias` and
        `Scaling` tiles, on the profiles that admit the location."""
        tile, glob = self.tile_operand(op), self.global_operand(op)
        for dtype, on in dtype_profiles(project, op):
            bits = next(d.bits for d in project.targets.dtypes if d.name == dtype)
            where = self._admitting(op, on, tile, "Mat")
            if bits < 8 or not where:
                continue
            shapes = [*mat_loads(256 // bits), MAT_ND] if bits <= 32 else [MAT_ND]
            first = sum(len(k.cases) for k in tests.runtime)
            cases = []
            for index, (label, rows, cols, vr, vc, dyn, bl, sl, layout) in enumerate(shapes, first):
                pad = "Min" if dyn and sl else None
                t = TileDecl(tile, dtype, rows, cols, vr, vc, dyn, "Mat", bl, slayout=sl, pad=pad)
                ld = vc + 2 if layout == "ND" else vr + 3
                g = GlobalDecl(glob, dtype, vr, vc, ld, layout, dyn)
                call = make_call(op, {tile: t}, dict(op.default_values), {})
                addresses = layout_addresses(project, [t])
                cases.append(RuntimeCase(index, label, [t], {}, call, addresses, globals=[g]))
            tests.runtime.append(RuntimeKernel(f"{dtype}_mat", {tile: dtype, glob: dtype}, {}, where, cases))
        offered = dict(dtype_profiles(project, op))
        for loc, dtype, label, cols, vc in ROW_LOADS:
            where = self._admitting(op, offered.get(dtype, []), tile, loc)
            if not where:
                continue
            index = sum(len(k.cases) for k in tests.runtime)
            t = TileDecl(tile, dtype, 1, cols, 1, vc, False, loc, "RowMajor")
            g = GlobalDecl(glob, dtype, 1, vc, vc, "ND")
            call = make_call(op, {tile: t}, dict(op.default_values), {})
            case = RuntimeCase(index, label, [t], {}, call, layout_addresses(project, [t]), globals=[g])
            kernel = RuntimeKernel(f"{dtype}_{loc.lower()}", {tile: dtype, glob: dtype}, {}, where, [case])
            tests.runtime.append(kernel)

    def _plan_conv(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        """ConvTiles (in `Mat`) of each element type the simulator moves (the named set CONV_DTYPES)
        to and from GlobalTensors of their layout: every layout and extent count of TRANSFER_SHAPES,
        on the profiles that admit a `Mat` tile of that type."""
        tile, glob = self.tile_operand(op), self.global_operand(op)
        movable = set(project.targets.dtype_sets[CONV_DTYPES])
        for dtype, on in dtype_profiles(project, op):
            where = self._admitting(op, on, tile, "Mat")
            if dtype not in movable or not where:
                continue
            c0 = 256 // next(d.bits for d in project.targets.dtypes if d.name == dtype)
            first = sum(len(k.cases) for k in tests.runtime)
            cases = []
            for index, shape in enumerate(TRANSFER_SHAPES, first):
                t, g = shape.decls(tile, glob, dtype, c0)
                call = make_call(op, {tile: t}, dict(op.default_values), {})
                cases.append(RuntimeCase(index, shape.label, [t], {}, call, {tile: 0}, globals=[g]))
            tests.runtime.append(RuntimeKernel(f"{dtype}_conv", {tile: dtype, glob: dtype}, {}, where, cases))

    def _plan_acc_stores(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        """Stores from NZ accumulator tiles to ND and NZ GlobalTensors of each documented element
        type; the quantising pairs (a plain call converts them unquantised) on the CPU profile only."""
        tile, glob = self.tile_operand(op), self.global_operand(op)
        offered = dict(dtype_profiles(project, op))
        for src_type, dst_type, quantised in ACC_PAIRS:
            where = self._admitting(op, offered.get(src_type, []), tile, "Acc")
            if quantised:
                where = [p for p in where if p == "CPU"]
            if not where:
                continue
            block = 256 // next(d.bits for d in project.targets.dtypes if d.name == dst_type)
            first = sum(len(k.cases) for k in tests.runtime)
            cases = []
            for index, (label, rows, cols, vr, vc, dyn, layout, ld) in enumerate(ACC_SHAPES, first):
                t = TileDecl(
                    tile,
                    src_type,
                    rows,
                    cols,
                    vr,
                    vc,
                    dyn,
                    "Acc",
                    "ColMajor",
                    slayout="RowMajor",
                    fractal=1024,
                )
                if layout == "NZ":
                    g = GlobalDecl(glob, dst_type, rows, cols, cols, "NZ", block=block)
                elif layout in FEATURE_MAP_ROWS:
                    dims = feature_map(layout, cols, 32 // block)
                    g = GlobalDecl(glob, dst_type, rows, cols, cols, layout, dims=dims)
                else:
                    g = GlobalDecl(glob, dst_type, vr, vc, ld, layout, dyn)
                call = make_call(op, {tile: t}, dict(op.default_values), {})
                addresses = layout_addresses(project, [t])
                cases.append(RuntimeCase(index, label, [t], {}, call, addresses, globals=[g]))
            dtypes = {tile: src_type, glob: dst_type}
            plain = [c for c in cases if c.globals[0].layout not in FEATURE_MAP_ROWS]
            maps = [c for c in cases if c.globals[0].layout in FEATURE_MAP_ROWS]
            for i, c in enumerate(plain + maps, first):
                c.index = i
            tests.runtime.append(RuntimeKernel(f"{src_type}_{dst_type}_acc", dtypes, {}, where, plain))
            if "CPU" in where:
                tests.runtime.append(
                    RuntimeKernel(f"{src_type}_{dst_type}_acc_fmap", dtypes, {}, ["CPU"], maps)
                )

    def _plan_param_stores(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        """Stores with a parameter tile: each pair of PARAM_PAIRS from accumulators and (the CPU
        profile) Vec tiles of either layout, ReLU off and on; the parameter tile is one row of
        uint64_t, one parameter per column (row-major source) or row (column-major)."""
        tile, glob = self.tile_operand(op), self.global_operand(op)
        fp = self.param_operand(op)
        assert fp is not None
        offered = dict(dtype_profiles(project, op))
        relu = next((t.name for t in op.forms[0].template if str(t.type) == "ReluPreMode"), None)
        atomic = next((t.name for t in op.forms[0].template if str(t.type) == "AtomicType"), None)
        for src_type, dst_type in PARAM_PAIRS:
            block = 256 // next(d.bits for d in project.targets.dtypes if d.name == dst_type)
            integer = next(d.kind for d in project.targets.dtypes if d.name == dst_type) != "float"
            variants: list[tuple[str, dict[str, str]]] = [("", {})]
            if relu is not None:
                variants.append((RELU_TAG, {relu: "ReluPreMode::NormalRelu"}))
            if relu is not None and atomic is not None and integer:  # a float sum's NaN keeps no payload
                both = {atomic: "AtomicType::AtomicAdd", relu: "ReluPreMode::NormalRelu"}
                variants.append((f"{RELU_TAG}_{ATOMIC_TAG}", both))
            for tag, variant in variants:
                kernels: dict[tuple[str, ...], list[RuntimeCase]] = {}
                for label, rows, cols, vr, vc, dyn, (loc, bl, sl, fr), layout, ld in PARAM_SHAPES:
                    where = tuple(self._admitting(op, offered.get(src_type, []), tile, loc))
                    if not where:
                        continue
                    t = TileDecl(tile, src_type, rows, cols, vr, vc, dyn, loc, bl, slayout=sl, fractal=fr)
                    n = cols if bl == "RowMajor" else rows
                    f = TileDecl(fp, PARAM_DTYPE, 1, n, 1, n)
                    if layout == "NZ":
                        g = GlobalDecl(glob, dst_type, rows, cols, cols, "NZ", block=block)
                    else:
                        g = GlobalDecl(glob, dst_type, vr, vc, ld, layout, dyn)
                    call = make_call(op, {tile: t, fp: f}, {**op.default_values, **variant}, {})
                    addresses = layout_addresses(project, [t, f])
                    cases = kernels.setdefault(where, [])
                    cases.append(RuntimeCase(0, label, [t, f], {}, call, addresses, globals=[g]))
                for k, (where, cases) in enumerate(kernels.items()):
                    first = sum(len(x.cases) for x in tests.runtime)
                    for i, case in enumerate(cases):
                        case.index = first + i
                    gid = f"{src_type}_{dst_type}{f'_{tag}' if tag else ''}{f'_{k}' if k else ''}"
                    dtypes = {tile: src_type, glob: dst_type, fp: PARAM_DTYPE}
                    tests.runtime.append(RuntimeKernel(gid, dtypes, variant, list(where), cases))

    def prepare_cases(self, gx: GoldenContext, data: Path) -> list[Check]:
        op = gx.op
        dst = op.domain
        fp = op.extra.get("param_tile")
        tags = gx.group.group.split("_")
        relu, atomic = RELU_TAG in tags, ATOMIC_TAG in tags
        checks: list[Check] = []
        for case in gx.group.cases:
            k = case.index
            t_name = next(n for n in case.tiles if n != fp)
            g_name = next(iter(case.globals))
            t, g = case.tiles[t_name], case.globals[g_name]
            if t.conv:
                checks += self._conv_checks(gx, case, t_name, g_name, data)
                continue
            tile_type = gx.np_type(gx.group.dtypes[t_name])
            dtype = gx.np_type(gx.group.dtypes[g_name])  # the stored (or loaded) element type
            seed = f"{gx.op_name}/{gx.entry.group}/{k}"
            tile_flat = inputs(tile_type, t.rows * t.cols, f"{seed}/{t_name}")
            if (
                fp in case.tiles and tile_type.kind == "f"
            ):  # a NaN has no 8-bit result (the cast is undefined)
                tile_flat = np.where(np.isnan(tile_flat), tile_type.type(0), tile_flat).astype(tile_type)
            buf = inputs(dtype, g.size, f"{seed}/{g_name}")
            tile_flat.tofile(data / f"c{k}_{t_name}.bin")
            buf.tofile(data / f"c{k}_{g_name}.bin")
            vr, vc = t.valid_rows, t.valid_cols
            addr = global_addresses(g, vr, vc, dtype.itemsize)
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
            elif fp in case.tiles:  # store with a parameter tile: quantised per column or row
                n = case.tiles[fp].cols
                params = quantisation_parameters(n, signed=dtype == np.dtype(np.int8))
                params.tofile(data / f"c{k}_{fp}.bin")
                want = buf.copy()
                stored = param_store(tile[:vr, :vc], params, t.layout == "RowMajor", dtype, relu)
                if atomic:  # added to the prior element in the stored type's compute type, as TSTORE's
                    C = compute_dtype(dtype)
                    with np.errstate(over="ignore"):
                        total = gx.reference.apply_AtomicType(
                            C.type, "AtomicAdd", buf[addr].astype(C), stored.astype(C)
                        )
                    stored = np.asarray(total).astype(dtype)
                want[addr] = stored
                region = np.zeros(want.shape, dtype=bool)
                region[addr] = True
                out = g
            else:  # store: the buffer's mapped positions take the tile's valid region
                want = buf.copy()
                want[addr] = store_cast(tile[:vr, :vc], dtype)
                region = np.zeros(want.shape, dtype=bool)
                region[addr] = True
                out = g
            label = f"{gx.label} case {k} ({case.label}; {g_name if dst == t_name else t_name} -> {dst})"

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
                if isinstance(out, TileShape):
                    got = tile_logical(got, out)
                differs = raw_bits(got) != raw_bits(want)
                inside, outside = differs & region, differs & ~region
                if inside.any():
                    return Outcome("fail", label, describe_mismatch(inside, got, want, "transferred"))
                if outside.any():
                    why = describe_mismatch(outside, got, want, "outside-the-transfer")
                    return Outcome("fail", label, why)
                return Outcome("pass", label)

            checks.append(check)
            if case is gx.group.cases[0] and dst != t_name:
                for form in gx.op.extra.get("mode_forms", []):
                    checks.append(self._form_check(gx, form, k, dst, buf, addr, tile[:vr, :vc], dtype, label))
        return checks

    def _conv_checks(
        self, gx: GoldenContext, case: CaseEntry, t_name: str, g_name: str, data: Path
    ) -> list[Check]:
        """A ConvTile moved whole: each element between its place in the tile's storage and its place
        in the tensor's buffer (conv_cases.ConvShape.positions, by the layout's indices); a store
        leaves the rest of the buffer as it was, and its first case runs the store modes' overloads."""
        k, dst = case.index, gx.op.domain
        t, g = case.tiles[t_name], case.globals[g_name]
        assert t.conv is not None
        dtype = gx.np_type(gx.group.dtypes[t_name])
        c0 = 32 // dtype.itemsize
        shape = next(s for s in TRANSFER_SHAPES if s.label == case.label)
        at, to = shape.positions(c0)
        seed = f"{gx.op_name}/{gx.entry.group}/{k}"
        tile = inputs(dtype, t.rows * t.cols, f"{seed}/{t_name}")
        buf = inputs(dtype, g.size, f"{seed}/{g_name}")
        tile.tofile(data / f"c{k}_{t_name}.bin")
        buf.tofile(data / f"c{k}_{g_name}.bin")
        if sorted(at.tolist()) != list(range(tile.size)):
            raise AssertionError(f"{case.label}: the positions must cover the ConvTile once")
        if dst == t_name:
            want = tile.copy()
            want[at] = buf[to]
        else:
            want = buf.copy()
            want[to] = tile[at]
        label = f"{gx.label} case {k} ({case.label}; {g_name if dst == t_name else t_name} -> {dst})"

        def check(d: Path, want: np.ndarray = want, label: str = label) -> Outcome:
            got = np.fromfile(d / f"c{k}_{dst}.out", dtype=want.dtype)
            bad = raw_bits(got) != raw_bits(want)
            if bad.any():
                return Outcome("fail", label, describe_mismatch(bad, got, want, "moved"))
            return Outcome("pass", label)

        checks: list[Check] = [check]
        if case is gx.group.cases[0] and dst != t_name:
            for form in gx.op.extra.get("mode_forms", []):
                if not form["scalars"]:  # form_runs: a quantising form takes no ConvTile
                    checks.append(self._form_check(gx, form, k, dst, buf, to, tile[at], dtype, label))
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
        take the modes applied to the tile's region as the simulator does: the value maps in the
        source's compute type (or, for a quantising store, on its float result), the conversion to
        the stored type, then the combinations in its compute type; NaN matches NaN (an atomic add
        of a NaN keeps no particular payload)."""
        C = compute_dtype(dtype)
        want = buf.copy()
        scalars = form.get("scalars", [])
        quant = scalars and scalar_mode(region_values.dtype, dtype) is not None
        with np.errstate(over="ignore", invalid="ignore"):  # integers wrap, floats reach infinity
            value = (
                scalar_quantise(region_values, dtype, scalars[0])
                if quant
                else region_values.astype(compute_dtype(region_values.dtype))
            )
            converted = False
            for name, mode in form["modes"]:  # in the simulator's order: value maps, then combinations
                fn = getattr(gx.reference, f"apply_{name}")
                params = fn.__code__.co_argcount - 2
                if params == 1:
                    value = fn(value.dtype.type, mode, value)
                    continue
                if not converted:
                    value = store_cast(
                        np.asarray(value).astype(region_values.dtype) if not quant else value, dtype
                    )
                    value, converted = value.astype(C), True
                prior = buf[addr].astype(C)
                value = fn(C.type, mode, prior, value)
            if not converted:
                value = store_cast(
                    np.asarray(value).astype(region_values.dtype) if not quant else value, dtype
                )
            want[addr] = np.asarray(value).astype(dtype)
        index = form["index"]
        what = f"{label.rsplit(' (', 1)[0]} overload {index} ({', '.join(v for _, v in form['modes'])})"

        def check(data_dir: Path) -> Outcome:
            got = np.fromfile(data_dir / f"c{k}_{dst}.f{index}.out", dtype=dtype)
            differs = raw_bits(got) != raw_bits(want)
            if is_float(dtype):
                differs &= ~(np.isnan(got.astype(np.float32)) & np.isnan(want.astype(np.float32)))
            if differs.any():
                return Outcome("fail", what, describe_mismatch(differs, got, want, "stored"))
            return Outcome("pass", what)

        return check


def store_cast(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Values converted to the stored element type as the simulator's store converts them (C++'s
    static_cast on an x86 host): the same type bit for bit; integers and floats into a floating
    type rounded once to nearest even; floats into an integer type truncated through a 32-bit (64
    for uint8_t, uint32_t and 64-bit types) conversion that gives its minimum for NaN or a value
    outside it, then wrapped to the destination's width; integers wrapped."""
    src = values.dtype
    if src == dtype:
        return values.copy()
    with np.errstate(over="ignore", invalid="ignore"):
        if is_float(dtype):
            wide = values.astype(np.float32) if is_float(src) else values.astype(np.float64)
            return wide.astype(dtype)
        if not is_float(src):
            return values.astype(np.int64).astype(dtype)
        wide_bits = 64 if dtype.itemsize == 8 or dtype in (np.dtype(np.uint32), np.dtype(np.uint8)) else 32
        lo, hi = -(2.0 ** (wide_bits - 1)), 2.0 ** (wide_bits - 1)
        f = values.astype(np.float64)
        t = np.trunc(np.where(np.isnan(f), 0.0, f))
        inside = ~np.isnan(f) & (t >= lo) & (t < hi)
        return np.where(inside, t, lo).astype(np.int64).astype(dtype)  # wraps to the width


def param_store(
    values: np.ndarray, params: np.ndarray, row_major: bool, dtype: np.dtype, relu: bool
) -> np.ndarray:
    """What a store with a parameter tile writes for a valid region: a pair the vector path quantises
    uses the parameter of each element's column (row-major source) or row (`vector_quantise`), ReLU
    on its float result (which commutes with the monotone conversion, 0 kept); any other pair stores
    as the ReLU store does (ReLU on the source value, then the host's cast)."""
    pair = (values.dtype, dtype)
    quantised = any((np.dtype(_NUMPY[s]), np.dtype(_NUMPY[d])) == pair for s, d in VECTOR_QUANTISED)
    with np.errstate(all="ignore"):
        if not quantised:
            if relu:
                values = np.where(values > 0, values, values.dtype.type(0)).astype(values.dtype)
            return store_cast(values, dtype)
        if row_major:
            out = vector_quantise(values, params[: values.shape[1]], dtype)
        else:
            out = vector_quantise(values.T, params[: values.shape[0]], dtype).T
        if relu:
            out = np.where(out > 0, out, dtype.type(0)).astype(dtype)
        return np.ascontiguousarray(out)


_NUMPY = {
    "float": "float32",
    "int32_t": "int32",
    "int8_t": "int8",
    "uint8_t": "uint8",
    "half": "float16",
    "int16_t": "int16",
}
