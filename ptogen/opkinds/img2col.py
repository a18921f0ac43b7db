"""The img2col family: TIMG2COL (`img2col`) and its configuration ops SETFMATRIX,
SET_IMG2COL_PADDING and SET_IMG2COL_RPT (`img2col_config`).

Both read a `ConvTile` (pto/common/conv_tile.hpp), the feature map in L1 with its img2col
parameters. The configuration ops copy one group of those parameters into the simulated
configuration registers (pto/common/img2col_state.hpp: two sets, A and B, chosen by the
`SetFmatrixMode` template argument; in the AUTO modes they do nothing); TIMG2COL reads them (in the
AUTO modes it writes them from its source first), stopping with the name of the op that sets a
group no op has set, and writes the im2col matrix's `(posM + i, posK + j)` into `dst`'s valid region.

Test kernels: compile cases (a legal call per profile and declaration mode, one breaking call per
rule; the ConvTile is a context object of the case, whose location and element type follow the
stand-in tile a rule's `break_static` changes), and runtime cases, each one sequence: the ConvTile's
img2col parameters set, SETFMATRIX, SET_IMG2COL_PADDING and SET_IMG2COL_RPT in the case's mode, then
TIMG2COL into a Left tile (the op under test called under the case's profile, the others plainly),
over both feature-map layouts, all four modes, padding, strides, dilations, offsets and partial valid
regions, for every element type TIMG2COL's profiles take (a configuration op: the first of them).
The golden is the im2col matrix built in numpy from the mapping the spec's notes state; a
configuration op's case also checks that its ConvTile is left as it was. tests/opkinds/test_img2col.py
keeps what these cannot show: that TIMG2COL reads the registers rather than its source, and the
run-time errors of a register group never set.

TIMG2COL is a kind apart from `img2col_config`, not data of one kind: it computes the im2col matrix,
while the configuration ops only copy registers and leave every element as it was.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..importer.contract import DOMAIN, PageOp
from ..kindlib.layout import tile_logical
from ..rules.parts import StaticBreak, part
from ..spec.kindfacts import KindFacts
from ..testing.golden import Check, GoldenContext, describe_mismatch, inputs, raw_bits
from ..testing.manifest import CaseEntry
from ..testing.plan import (
    BreakContext,
    Call,
    CompileCase,
    OpTests,
    RuntimeCase,
    RuntimeKernel,
    TileDecl,
    dtype_profiles,
)
from ..testing.results import Outcome
from .base import NamesOperand

if TYPE_CHECKING:
    from ..kind_api import FormViewAPI, OpViewAPI, ProjectViewAPI
    from ..spec.model import OpSpec

# The register group each configuration op writes (pto/common/img2col_state.hpp), by intrinsic name,
# with what TIMG2COL's message calls it.
REGISTER_GROUPS: dict[str, tuple[str, str]] = {
    "SETFMATRIX": ("fmatrix", "FMATRIX registers (feature-map size and padding)"),
    "SET_IMG2COL_PADDING": ("padding", "padding register (pad value)"),
    "SET_IMG2COL_RPT": ("repeat", "repeat register"),
}

# The ConvTile the compile cases declare: a 1 x 1 x 4 x 4 feature map (NC1HWC0, C0 from the type).
CONV_EXTENTS = (1, 1, 4, 4)


def conv_tile_type(dtype: str, loc: str, bits: int) -> str:
    """The C++ type of the compile cases' ConvTile of element type `dtype` in location `loc`."""
    c0 = 256 // bits
    size = CONV_EXTENTS[0] * CONV_EXTENTS[1] * CONV_EXTENTS[2] * CONV_EXTENTS[3] * c0 * bits // 8
    shape = ", ".join(str(e) for e in (*CONV_EXTENTS, c0))
    return f"ConvTile<TileType::{loc}, {dtype}, {size}, Layout::NC1HWC0, ConvTileShape<{shape}>>"


@dataclass(frozen=True)
class Scene:
    """One runtime case of the img2col family: a feature map (extents in units of its channel block
    C0, which the element type sets), its img2col parameters, the mode, and the window of the im2col
    matrix TIMG2COL writes (`dst` rows x `blocks` channel blocks, the valid region `valid` rows x
    `blocks * C0 - short` columns, starting at row `pos_m` and at channel block `pos_k`)."""

    label: str
    layout: str  # NC1HWC0 or NDC1HWC0
    fmap: tuple[int, int, int, int, int]  # n, d (1 for NC1HWC0), c1, h, w
    window: tuple[int, int]  # filter height, width
    stride: tuple[int, int]
    dilation: tuple[int, int]
    pads: tuple[int, int, int, int]  # left, right, top, bottom
    pad_value: int
    mode: str  # a SetFmatrixMode value
    pos_m: int
    pos_k: int  # in channel blocks
    rows: int
    blocks: int
    valid: int
    short: int
    dynamic: tuple[int, ...] = ()  # positions of the ConvTileShape's DYNAMIC extents

    def extents(self, c0: int) -> tuple[int, ...]:
        n, d, c1, h, w = self.fmap
        return (n, d, c1, h, w, c0) if self.layout == "NDC1HWC0" else (n, c1, h, w, c0)

    def attrs(self, c0: int) -> dict[str, str]:
        """The case's facts as the manifest keeps them (the golden reads them back)."""

        def text(v: tuple[int, ...]) -> str:
            return ",".join(map(str, v))

        return {
            "layout": self.layout,
            "fmap": text(self.fmap),
            "window": text(self.window),
            "stride": text(self.stride),
            "dilation": text(self.dilation),
            "pads": text(self.pads),
            "pad_value": str(self.pad_value),
            "mode": self.mode,
            "pos_m": str(self.pos_m),
            "pos_k": str(self.pos_k * c0),
        }


# Every mode, both layouts, padding on each side, strides, dilations, offsets, partial valid regions;
# two feature maps with extents given at run time (DYNAMIC in their ConvTileShape).
SCENES = (
    Scene("padded", "NC1HWC0", (1, 1, 1, 3, 4), (2, 2), (1, 1), (1, 1), (1, 0, 1, 0), 5, "FMATRIX_A_MANUAL",
          1, 1, 16, 4, 4, 0),
    Scene("strided, N and C1 at run time", "NC1HWC0", (2, 1, 2, 4, 4), (2, 2), (2, 2), (1, 1), (0, 0, 0, 0),
          0, "FMATRIX_B_AUTO", 0, 0, 16, 8, 8, 0, (0, 1)),
    Scene("dilated", "NC1HWC0", (2, 1, 2, 5, 6), (3, 2), (1, 2), (2, 1), (2, 1, 0, 3), 7, "FMATRIX_B_MANUAL",
          3, 5, 32, 6, 29, 3),
    Scene("volume, D and H at run time", "NDC1HWC0", (1, 2, 2, 3, 3), (2, 2), (1, 1), (1, 1), (0, 1, 1, 0), 2,
          "FMATRIX_A_AUTO", 2, 0, 32, 8, 17, 0, (1, 3)),
)  # fmt: skip

# The tile that receives the im2col matrix in a configuration op's runtime case (TIMG2COL's `dst`).
IM2COL_TILE = "im2col"


def im2col(fmap: np.ndarray, attrs: dict[str, str], rows: int, cols: int, pad: Any) -> np.ndarray:
    """The rows x cols window at (pos_m, pos_k) of the im2col matrix of `fmap` (n, d, c1, h, w, c0)
    under the case's parameters, as the spec's notes map it: row m is (n, d, output row, output
    column), column k (c1, filter row, filter column, c0); a position outside the feature map, or past
    its batches or channel blocks, holds the pad value."""

    def ints(key: str) -> list[int]:
        return [int(v) for v in attrs[key].split(",")]

    n_, d_, c1_, h_, w_, c0_ = fmap.shape
    kh_, kw_ = ints("window")
    sh, sw = ints("stride")
    dh, dw = ints("dilation")
    left, right, top, bottom = ints("pads")
    out_h = (h_ + top + bottom - dh * (kh_ - 1) - 1) // sh + 1
    out_w = (w_ + left + right - dw * (kw_ - 1) - 1) // sw + 1
    m = int(attrs["pos_m"]) + np.arange(rows)[:, None]
    k = int(attrs["pos_k"]) + np.arange(cols)[None, :]
    n, rest = np.divmod(m, d_ * out_h * out_w)
    d, rest = np.divmod(rest, out_h * out_w)
    oh, ow = np.divmod(rest, out_w)
    c1, rest = np.divmod(k, kh_ * kw_ * c0_)
    kh, kw = np.divmod(rest // c0_, kw_)
    c0 = k % c0_
    ih, iw = oh * sh + kh * dh - top, ow * sw + kw * dw - left
    inside = (n < n_) & (c1 < c1_) & (ih >= 0) & (ih < h_) & (iw >= 0) & (iw < w_)
    picked = fmap[
        np.where(inside, n, 0), np.where(inside, d, 0), np.where(inside, c1, 0),
        np.where(inside, ih, 0), np.where(inside, iw, 0), np.broadcast_to(c0, inside.shape),
    ]  # fmt: skip
    return np.where(inside, picked, pad).astype(fmap.dtype)


def fmatrix_modes(op: OpViewAPI) -> list[str]:
    """The `SetFmatrixMode` values, as C++ constants (targets.yaml's enum)."""
    enum = next(e for e in op.targets.enums if e.name == "SetFmatrixMode")
    return [f"SetFmatrixMode::{v}" for v in enum.values]


class _ConvSource(NamesOperand):
    """What both kinds share: a ConvTile source carrying the img2col parameters, a `SetFmatrixMode`
    template argument passed on to the simulator, and compile-only generated tests."""

    def conv_operand(self, op: OpViewAPI) -> str:
        return str(op.loaded.expr.value)

    def sim_targs(self, op: OpViewAPI, form: FormViewAPI) -> list[str]:
        return [t.name for t in form.template if t.kind == "value"]

    def operand_index(self, op: OpViewAPI, operand: str) -> str:
        return ""

    def _conv_context(self, project: ProjectViewAPI, op: OpViewAPI, stand_in: TileDecl) -> tuple[str, str]:
        bits = next(d.bits for d in project.targets.dtypes if d.name == stand_in.dtype)
        return (conv_tile_type(stand_in.dtype, stand_in.loc, bits), self.conv_operand(op))

    def _tiles(self, op: OpViewAPI, dtype: str) -> dict[str, TileDecl]:
        """The tiles of a legal call: the stand-in of the ConvTile (`Mat`) and any other tile operand."""
        return {self.conv_operand(op): TileDecl(self.conv_operand(op), dtype, 16, 16, 16, 16, False, "Mat")}

    # Whether the runtime cases take one element type only (the first TIMG2COL's profiles take): a
    # configuration op reads no element, so its cases vary the register groups and modes, not the type.
    one_type: ClassVar[bool] = False

    def _call(self, op: OpViewAPI, tiles: dict[str, TileDecl], mode: str | None) -> Call:
        raise NotImplementedError

    def test_call(
        self, op: OpViewAPI, tiles: dict[str, TileDecl], variant: dict[str, str], scalar_expr: dict[str, str]
    ) -> tuple[list[str], list[str]] | None:
        """Every template argument spelled: the tile types, then the mode (the variant's, else the
        declaration's default)."""
        mode = next((t.default for t in op.forms[0].template if t.kind == "value"), None)
        call = self._call(op, tiles, variant.get("FmatrixMode", mode))
        return call.template_args, call.args

    def _runnable(self, op: OpViewAPI, tiles: dict[str, TileDecl]) -> dict[str, TileDecl]:
        """The tiles of a legal call that also runs on a ConvTile whose parameters are the defaults."""
        return tiles

    def plan_tests(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        """Per profile: a legal call in every mode, and one call breaking each of the profile's rules
        (the ConvTile declared as the stand-in tile the rule's `break_static` left or changed)."""
        src = self.conv_operand(op)
        for p in project.profiles:
            dtypes = op.test_dtypes(p.name)
            if not dtypes:
                continue
            low = p.name.lower()
            tiles = self._tiles(op, dtypes[0])
            plain = {n: t for n, t in tiles.items() if n != src}
            ctx = [self._conv_context(project, op, tiles[src])]
            # the kernel other tests also run (tests/header/test_generated_header.py): an AUTO mode, which
            # needs no configuration op before it, on a default ConvTile (fmap size 0)
            runnable = self._runnable(op, tiles)
            call = self._call(op, runnable, fmatrix_modes(op)[0])
            others = [t for n, t in runnable.items() if n != src]
            tests.compile.append(CompileCase.legal(f"legal_{low}", p.name, others, call, contexts=ctx))
            for k, mode in enumerate(fmatrix_modes(op)):
                call = self._call(op, tiles, mode)
                tests.compile.append(
                    CompileCase.legal(f"legal_{low}_{k}", p.name, list(plain.values()), call, contexts=ctx)
                )
            for rv in op.rules_for(p.name, static=True):
                bx = BreakContext(project, op, rv, p.name)
                broken = part(rv.rule, StaticBreak).break_static(bx, dict(tiles)).tiles
                bctx = [self._conv_context(project, op, broken[src])]
                others = [t for n, t in broken.items() if n != src]
                call = self._call(op, broken, None)
                tests.compile.append(
                    CompileCase.breaking(f"fail_{low}_{rv.id}", p.name, rv, others, call, contexts=bctx)
                )

        self._plan_runtime(project, op, tests)

    # ----------------------------------------------------------------- runtime cases
    def _im2col_op(self, project: ProjectViewAPI, op: OpViewAPI) -> OpViewAPI:
        """The TIMG2COL op of the project (the sequence's last call)."""
        return next(o for o in project.ops if o.kind.name == Img2col.name)

    def _out_tile(self, op: OpViewAPI) -> str:
        """The tile that receives the im2col matrix in this op's cases."""
        return IM2COL_TILE

    def _plan_runtime(self, project: ProjectViewAPI, op: OpViewAPI, tests: OpTests) -> None:
        """One group per element type TIMG2COL's profiles take (under the profiles that take it for
        this op too), a case per scene."""
        src, out = self.conv_operand(op), self._out_tile(op)
        im2col_op = self._im2col_op(project, op)
        mine = dict(dtype_profiles(project, op))
        planned = 0
        for dtype, on in dtype_profiles(project, im2col_op):
            where = [p for p in on if p in mine.get(dtype, [])]
            if not where or (self.one_type and planned):
                continue
            planned += 1
            c0 = 256 // next(d.bits for d in project.targets.dtypes if d.name == dtype)
            cases: list[RuntimeCase] = []
            for scene in SCENES:
                ext = scene.extents(c0)
                count = int(np.prod(ext))
                conv = (scene.layout, ext)
                fmap = TileDecl(src, dtype, count // c0, c0, count // c0, c0, False, "Mat", conv=conv,
                                conv_dynamic=scene.dynamic)  # fmt: skip
                cols = scene.blocks * c0
                dst = TileDecl(out, dtype, scene.rows, cols, scene.valid, cols - scene.short, False, "Left",
                               "ColMajor", slayout="RowMajor")  # fmt: skip
                tiles = {src: fmap, out: dst}
                index = sum(len(k.cases) for k in tests.runtime) + len(cases)
                mode = f"SetFmatrixMode::{scene.mode}"
                call = self._runtime_call(op, tiles, mode, scene, c0)
                addresses = {src: 0, out: 0}  # a Mat and a Left tile: their own memories
                attrs = scene.attrs(c0)
                cases.append(RuntimeCase(index, scene.label, [fmap, dst], {}, call, addresses, attrs))
                cases[-1].before_call, cases[-1].after_call = self._around_call(op, cases[-1])
            tests.runtime.append(RuntimeKernel(dtype, {src: dtype, out: dtype}, {}, where, cases))

    def _runtime_call(
        self, op: OpViewAPI, tiles: dict[str, TileDecl], mode: str, scene: Scene, c0: int
    ) -> Call:
        return self._call(op, tiles, mode)

    def _around_call(self, op: OpViewAPI, case: Any) -> tuple[list[str], list[str]]:
        """Before the call: the ConvTile's img2col parameters; the sequence's other ops before or
        after it (the configuration ops, then TIMG2COL)."""
        src = next(t for t in case.tiles if t.conv is not None)
        a = case.attrs
        h, w = a["fmap"].split(",")[3:]
        kh, kw = a["window"].split(",")
        sh, sw = a["stride"].split(",")
        dh, dw = a["dilation"].split(",")
        s = src.name
        before = [
            f"const uint8_t {s}_pads[4] = {{{a['pads']}}};  // left, right, top, bottom",
            f"{s}.SetPadListArray({s}_pads);",
            f"{s}.SetFmapH({h});",
            f"{s}.SetFmapW({w});",
            f"{s}.SetFilterH({kh});",
            f"{s}.SetFilterW({kw});",
            f"{s}.SetStrideH({sh});",
            f"{s}.SetStrideW({sw});",
            f"{s}.SetDilationH({dh});",
            f"{s}.SetDilationW({dw});",
            f"{s}.SetPadValue(static_cast<{src.type_name}::DType>(static_cast<float>({a['pad_value']})));",
        ]
        return self._sequence(op, case, before)

    def _sequence(self, op: OpViewAPI, case: Any, before: list[str]) -> tuple[list[str], list[str]]:
        raise NotImplementedError

    def prepare_cases(self, gx: GoldenContext, data: Path) -> list[Check]:
        """Seeded feature maps and destination tiles; each case checks the im2col window in the
        destination's valid region, the rest of the destination as it was, and (a configuration op)
        its ConvTile as it was."""
        checks: list[Check] = []
        for case in gx.group.cases:
            src = next(n for n, t in case.tiles.items() if t.conv)
            out = next(n for n in case.tiles if n != src)
            checks += self._case_checks(gx, case, src, out, data)
        return checks

    def _case_checks(self, gx: GoldenContext, case: CaseEntry, src: str, out: str, data: Path) -> list[Check]:
        k = case.index
        dt = gx.np_type(gx.group.dtypes[src])
        seed = f"{gx.op_name}/{gx.entry.group}/{k}"
        s, o = case.tiles[src], case.tiles[out]
        assert s.conv is not None
        pad = np.array([float(case.attrs["pad_value"])]).astype(dt)
        if gx.group.dtypes[src].startswith("float8_"):  # moved bit for bit: drawn and judged as bytes
            dt, pad = np.dtype(np.uint8), pad.view(np.uint8)
        fmap = inputs(dt, s.rows * s.cols, f"{seed}/{src}")
        dst = inputs(dt, o.rows * o.cols, f"{seed}/{out}")
        fmap.tofile(data / f"c{k}_{src}.bin")
        dst.tofile(data / f"c{k}_{out}.bin")
        ext = [int(e) for e in s.conv[1:]]
        vol = fmap.reshape(ext if len(ext) == 6 else [ext[0], 1, *ext[1:]])
        want = tile_logical(dst, o)
        want[: o.valid_rows, : o.valid_cols] = im2col(vol, case.attrs, o.valid_rows, o.valid_cols, pad[0])
        label = f"{gx.label} case {k} ({case.label}; {case.attrs['layout']}, {case.attrs['mode']})"

        def check(d: Path, k: int = k, want: np.ndarray = want, o: Any = o, label: str = label) -> Outcome:
            got = tile_logical(np.fromfile(d / f"c{k}_{out}.out", dtype=want.dtype), o)
            bad = raw_bits(got) != raw_bits(want)
            if bad.any():
                return Outcome("fail", label, describe_mismatch(bad, got, want, "im2col"))
            return Outcome("pass", label)

        checks: list[Check] = [check]
        if gx.op.domain == src:  # a configuration op: it reads no element, and writes none

            def untouched(d: Path, k: int = k, fmap: np.ndarray = fmap, label: str = label) -> Outcome:
                got = np.fromfile(d / f"c{k}_{src}.out", dtype=fmap.dtype)
                bad = raw_bits(got) != raw_bits(fmap)
                if bad.any():
                    why = describe_mismatch(bad, got, fmap, "ConvTile")
                    return Outcome("fail", label + ", ConvTile", why)
                return Outcome("pass", label + ", ConvTile")

            checks.append(untouched)
        return checks


class Img2colConfig(_ConvSource):
    """SETFMATRIX, SET_IMG2COL_PADDING, SET_IMG2COL_RPT: one register group of a ConvTile's img2col
    parameters into the register set of the mode (MANUAL modes only)."""

    name: ClassVar[str] = "img2col_config"
    facts: ClassVar[KindFacts] = KindFacts(writes=False)
    one_type: ClassVar[bool] = True
    domain_starts: ClassVar[tuple[str, ...]] = ("No element is read or written: the op copies",)

    def recognise(self, page: PageOp) -> int | None:
        # templates/opkinds/img2col_config/domain.md.j2
        return DOMAIN if not page.vector and page.intro.startswith(self.domain_starts[0]) else None

    def import_domain(self, operands: list[dict[str, Any]]) -> str | None:
        return next((o["name"] for o in operands if o["kind"] == "tile"), None)

    def complete_import(self, semantics: dict[str, Any], operands: list[dict[str, Any]]) -> None:
        # the ConvTile is read, never written: it is the op's source and what `semantics.expr` names
        for o in operands:
            o["role"] = "src"
        semantics["expr"] = semantics["domain"]

    def check_operands(self, spec: OpSpec) -> list[tuple[tuple[str | int, ...], str]]:
        problems: list[tuple[tuple[str | int, ...], str]] = []
        if [o.kind for o in spec.operands] != ["tile"] or spec.semantics.domain != spec.operands[0].name:
            problems.append((("operands",), "an img2col_config op has one operand, the ConvTile it reads"))
        name = spec.intrinsic.name if spec.intrinsic is not None else None
        if name not in REGISTER_GROUPS:
            known = ", ".join(REGISTER_GROUPS)
            problems.append(
                (("intrinsic", "name"), f"an img2col_config op sets a known register group ({known})")
            )
        return problems

    @staticmethod
    def group(op: OpViewAPI) -> str:
        return REGISTER_GROUPS[op.name][0]

    def result_index(self, op: OpViewAPI) -> str:
        return ""

    def math(self, op: OpViewAPI) -> str:
        return ""  # configuration state only: the page states no formula

    def _call(self, op: OpViewAPI, tiles: dict[str, TileDecl], mode: str | None) -> Call:
        src = self.conv_operand(op)
        if mode is None:
            return Call([], [src])
        return Call([f"decltype({src})", mode], [src])

    def _sequence(self, op: OpViewAPI, case: Any, before: list[str]) -> tuple[list[str], list[str]]:
        """This op first (under the case's profile), then the other configuration ops and TIMG2COL."""
        src = next(t for t in case.tiles if t.conv is not None)
        out = next(t for t in case.tiles if t.conv is None)
        mode = f"SetFmatrixMode::{case.attrs['mode']}"
        others = [name for name in REGISTER_GROUPS if name != op.name]
        after = [f"{name}<{src.type_name}, {mode}>({src.name});" for name in others]
        pos = f"{case.attrs['pos_m']}, {case.attrs['pos_k']}"
        after.append(f"TIMG2COL<{out.type_name}, {src.type_name}, {mode}>({out.name}, {src.name}, {pos});")
        after.append(f'store("c{case.index}_{out.name}.out", {out.name}.data(), {out.rows * out.cols});')
        return before, after


class Img2col(_ConvSource):
    """TIMG2COL: `dst(i, j)` is element `(posM + i, posK + j)` of the im2col matrix of the ConvTile
    `src` (see the spec's notes for the mapping), or the pad value of the register set."""

    name: ClassVar[str] = "img2col"
    domain_starts: ClassVar[tuple[str, ...]] = ("Element (i, j) of the valid region of",)

    def recognise(self, page: PageOp) -> int | None:
        # templates/opkinds/img2col/domain.md.j2
        said = (
            page.intro.startswith(self.domain_starts[0])
            and "the im2col matrix of the feature map" in page.intro
        )
        return DOMAIN if not page.vector and said else None

    @staticmethod
    def register_groups() -> list[tuple[str, tuple[str, str]]]:
        """Each configuration op with the register group it sets, which TIMG2COL requires."""
        return list(REGISTER_GROUPS.items())

    def check_operands(self, spec: OpSpec) -> list[tuple[tuple[str | int, ...], str]]:
        kinds = [o.kind for o in spec.operands]
        if kinds != ["tile", "tile", "scalar", "scalar"] or spec.semantics.domain != spec.operands[0].name:
            return [(("operands",), "an img2col op has dst (its domain), the ConvTile src, posM and posK")]
        return []

    @staticmethod
    def positions(op: OpViewAPI) -> tuple[str, str]:
        m, k = (o.name for o in op.spec.operands if o.kind == "scalar")
        return m, k

    def result_index(self, op: OpViewAPI) -> str:
        return "i,j"

    def math(self, op: OpViewAPI) -> str:
        dst, src = op.spec.semantics.domain, self.conv_operand(op)
        m, k = self.positions(op)
        return (
            rf"\mathrm{{{dst}}}_{{i,j}} = \mathrm{{im2col}}(\mathrm{{{src}}})_{{\mathrm{{{m}}} + i,\, "
            rf"\mathrm{{{k}}} + j}}"
        )

    def sim_args(self, op: OpViewAPI, form: FormViewAPI) -> list[str]:
        """dst, src, posM, posK: every parameter of the declaration but the events."""
        return [p.name for p in form.params if not p.events]

    def runs_untested(self, op: OpViewAPI) -> set[str]:
        """The 8-bit MX floats, where a profile's rules admit them (the CPU's: upstream's CPU
        simulator checks no element type, and moves whole elements)."""
        return {d.name for d in op.targets.dtypes if d.numpy.startswith("float8_")}

    def _tiles(self, op: OpViewAPI, dtype: str) -> dict[str, TileDecl]:
        dst = op.spec.semantics.domain
        byte = next(d.bits for d in op.targets.dtypes if d.name == dtype) == 8
        left = TileDecl(dst, dtype, 16, 32 if byte else 16, 16, 16, False, "Left",
                        "ColMajor", slayout="RowMajor")  # fmt: skip
        return {dst: left, **super()._tiles(op, dtype)}

    def _runnable(self, op: OpViewAPI, tiles: dict[str, TileDecl]) -> dict[str, TileDecl]:
        # an empty destination: no output position is computed from the default fmap size (0)
        dst = op.spec.semantics.domain
        return {**tiles, dst: replace(tiles[dst], valid_rows=0, valid_cols=0)}

    def _call(self, op: OpViewAPI, tiles: dict[str, TileDecl], mode: str | None) -> Call:
        dst, src = op.spec.semantics.domain, self.conv_operand(op)
        if mode is None:
            return Call([], [dst, src, "0", "0"])
        return Call([tiles[dst].type_name, f"decltype({src})", mode], [dst, src, "0", "16"])

    def _out_tile(self, op: OpViewAPI) -> str:
        return op.spec.semantics.domain

    def _runtime_call(
        self, op: OpViewAPI, tiles: dict[str, TileDecl], mode: str, scene: Scene, c0: int
    ) -> Call:
        dst, src = op.spec.semantics.domain, self.conv_operand(op)
        pos = [str(scene.pos_m), str(scene.pos_k * c0)]
        return Call([tiles[dst].type_name, tiles[src].type_name, mode], [dst, src, *pos])

    def _sequence(self, op: OpViewAPI, case: Any, before: list[str]) -> tuple[list[str], list[str]]:
        """The three configuration ops (plain calls) before this one."""
        src = next(t for t in case.tiles if t.conv is not None)
        mode = f"SetFmatrixMode::{case.attrs['mode']}"
        return [*before, *(f"{name}<{src.type_name}, {mode}>({src.name});" for name in REGISTER_GROUPS)], []
