"""What a rule kind (ptogen/rules/) is handed, as interfaces below it.

The spec model holds rules and the lowering and the test planner call them, so the rule kinds
cannot name those classes without an import cycle. They are written against these protocols
instead; `spec.model.OpSpec` and `Targets`, `lower.views.OpView` and `RuleView` and
`testing.plan.BreakContext` satisfy them (the type checker verifies it where they are passed).
`TileDecl`, a plain record that rules rewrite to break themselves, lives here and is re-exported
by `testing.plan`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

# sizeof(DType) of every dtype spelling (one byte for the 4-bit types), filled when the targets load
# (spec.load), and the row or column bytes a tile without boxes must be a multiple of (the Tile type's
# plain_row_major and plain_col_major rules in targets.yaml, TileConfig::alignedSize).
ELEMENT_BYTES: dict[str, int] = {}
ALIGNED_BYTES = 32
# Elements one storage unit holds, for the spellings that hold more than one (the twin 4-bit floats:
# two a byte, targets.yaml's `per_byte`), filled with ELEMENT_BYTES.
PER_UNIT: dict[str, int] = {}


def aligned_extent(extent: int, dtype: str, size: int | None = None) -> int:
    """`extent` rounded up so that `extent` elements of `dtype` fill whole 32-byte units. `size` (the
    element's bytes) for a caller that has not loaded the specs, which fill ELEMENT_BYTES."""
    size = size if size is not None else ELEMENT_BYTES.get(dtype)
    if size is None or extent <= 0:
        return extent
    step = max(1, ALIGNED_BYTES // size)
    return -(-extent // step) * step


@dataclass(frozen=True)
class TileDecl:
    """A tile a generated test kernel declares. A tile without boxes keeps to the Tile type's own
    rules: its storage rows (row-major) or columns (column-major) are rounded up to whole 32 bytes;
    the valid region is what the test states."""

    name: str
    dtype: str
    rows: int = 16
    cols: int = 16
    valid_rows: int = 16
    valid_cols: int = 16
    dynamic: bool = False
    loc: str = "Vec"
    layout: str = "RowMajor"
    poke: str | None = None  # a value a runtime-fail case writes to element (0, 0) before the call
    slayout: str | None = None  # inner (fractal box) layout of a boxed tile: "RowMajor" for NZ
    pad: str | None = None  # PadValue of the tile ("Zero", "Max", "Min"); None: Null
    fractal: int | None = None  # bytes of one box of a boxed tile (None: 512; an accumulator's 1024)
    # A ConvTile (pto/common/conv_tile.hpp) rather than a Tile: its Layout and ConvTileShape extents; its
    # storage is rows x cols elements (rows * cols the extents' elements), declared by the op kind's size.
    conv: tuple[str, tuple[int, ...]] | None = None
    # Of a ConvTile: the positions of the ConvTileShape extents that are DYNAMIC (set at construction).
    conv_dynamic: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if self.conv is not None or (self.slayout is not None and self.slayout != "NoneBox"):
            return
        if self.layout == "RowMajor":
            object.__setattr__(self, "cols", aligned_extent(self.cols, self.dtype))
        else:
            object.__setattr__(self, "rows", aligned_extent(self.rows, self.dtype))

    @property
    def type_name(self) -> str:
        return f"Tile_{self.name}"

    @property
    def units(self) -> int:
        """Storage units (values of the element type) of the tile's rows x cols elements: fewer than
        the elements for a type that packs two to a byte."""
        per = PER_UNIT.get(self.dtype, 1)
        return -(-(self.rows * self.cols) // per)


class SpecFacts(Protocol):
    """An op spec (`spec.model.OpSpec`) as a rule reads it."""

    @property
    def operands(self) -> Sequence[Any]: ...

    @property
    def intrinsic(self) -> Any: ...

    @property
    def every_operand(self) -> Sequence[Any]: ...

    @property
    def constraints(self) -> Sequence[Any]: ...

    def operand(self, name: str) -> Any: ...


class TargetFacts(Protocol):
    """The targets (`spec.model.Targets`): dtype vocabulary, profiles, enums."""

    @property
    def dtypes(self) -> Sequence[Any]: ...

    @property
    def enums(self) -> Sequence[Any]: ...

    def dtype(self, spelling: str) -> Any: ...

    def has_dtype(self, spelling: str) -> bool: ...

    def profile(self, name: str) -> Any: ...


class KindFacts(Protocol):
    @property
    def lanes(self) -> bool: ...


class CppFacts(Protocol):
    """The C++ spellings of an op (`lower.cpp.OpCpp`) that rules use."""

    @property
    def dependent_type(self) -> str: ...


class RuleLowering(Protocol):
    """A rule as one op lowers it (`lower.views.RuleView`): the C++ of its operands in scope."""

    @property
    def types(self) -> list[str]: ...

    @property
    def dtype_exprs(self) -> list[str]: ...

    @property
    def dtypes_cpp(self) -> list[str]: ...

    @property
    def dtypes_asm(self) -> list[str]: ...


class RuleOp(Protocol):
    """The op a rule sits in, as lowered (`lower.views.OpView`)."""

    @property
    def spec(self) -> SpecFacts: ...

    @property
    def targets(self) -> TargetFacts: ...

    @property
    def kind(self) -> KindFacts: ...

    @property
    def name(self) -> str: ...

    @property
    def cpp(self) -> CppFacts: ...

    def rule_view(self, rule: Any) -> RuleLowering: ...

    def covers_data_tiles(self, operands: list[str]) -> bool: ...

    def operand_dtypes(
        self, profile: str, operand: str, when: dict[str, str] | None = None
    ) -> list[str] | None: ...

    def allowed_dtypes(self, profile: str, when: dict[str, str] | None = None) -> list[str]: ...


class RuleBreak(Protocol):
    """The test planner's context for breaking one rule (`testing.plan.BreakContext`)."""

    @property
    def op(self) -> RuleOp: ...

    @property
    def rv(self) -> RuleLowering: ...

    @property
    def profile(self) -> str: ...

    def other_dtype(self, avoid: list[str], prefer: list[str]) -> str: ...

    def follow_compute(self, operands: list[str]) -> set[str]: ...
