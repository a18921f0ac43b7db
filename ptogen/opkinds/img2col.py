"""The img2col family: TIMG2COL (`img2col`) and its configuration ops SETFMATRIX,
SET_IMG2COL_PADDING and SET_IMG2COL_RPT (`img2col_config`).

Both read a `ConvTile` (pto/common/conv_tile.hpp), the feature map in L1 with its img2col
parameters. The configuration ops copy one group of those parameters into the simulated
configuration registers (pto/common/img2col_state.hpp: two sets, A and B, chosen by the
`SetFmatrixMode` template argument; in the AUTO modes they do nothing); TIMG2COL reads them (in the
AUTO modes it writes them from its source first), stopping with the name of the op that sets a
group no op has set, and writes the im2col matrix's `(posM + i, posK + j)` into `dst`'s valid region.

Test kernels: the generated plan holds compile cases (a legal call per profile and declaration
mode, one breaking call per rule; the ConvTile is a context object of the case, whose location and
element type follow the stand-in tile a rule's `break_static` changes); the element mapping, the
register state and its run-time errors are tested by tests/test_img2col.py against numpy.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from ..testing.golden import Check, GoldenContext
from ..testing.plan import BreakContext, Call, CompileCase, OpTests, TileDecl
from .base import DOMAIN, NamesOperand, PageOp

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

    def _call(self, op: OpViewAPI, tiles: dict[str, TileDecl], mode: str | None) -> Call:
        raise NotImplementedError

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
            # the kernel other tests also run (tests/test_generated_header.py): an AUTO mode, which
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
                broken = rv.rule.break_static(BreakContext(project, op, rv, p.name), dict(tiles)).tiles
                bctx = [self._conv_context(project, op, broken[src])]
                others = [t for n, t in broken.items() if n != src]
                call = self._call(op, broken, None)
                tests.compile.append(
                    CompileCase.breaking(f"fail_{low}_{rv.id}", p.name, rv, others, call, contexts=bctx)
                )

    def prepare_cases(self, gx: GoldenContext, data: Path) -> list[Check]:
        return []  # compile cases only: tests/test_img2col.py runs the ops


class Img2colConfig(_ConvSource):
    """SETFMATRIX, SET_IMG2COL_PADDING, SET_IMG2COL_RPT: one register group of a ConvTile's img2col
    parameters into the register set of the mode (MANUAL modes only)."""

    name: ClassVar[str] = "img2col_config"
    writes: ClassVar[bool] = False
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

    def _tiles(self, op: OpViewAPI, dtype: str) -> dict[str, TileDecl]:
        dst = op.spec.semantics.domain
        left = TileDecl(dst, dtype, 16, 32 if dtype in ("int8_t", "uint8_t") else 16, 16, 16, False, "Left",
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
