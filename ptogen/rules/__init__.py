"""Rule kinds: every checked constraint an op spec can state, one class per kind, in one registry.

A rule kind owns everything about itself (as an MLIR ODS constraint owns its predicate and its
summary). What every kind has is `RuleBase` (base.py):
- its fields (a Pydantic model; `kind` is the discriminator of the spec's `constraints` list);
- `check`: what it demands of the op it sits in (operands exist and have the right kind);
- `condition` and `text`: the C++ predicate and the statement that is both the `static_assert`
  (or run-time) message and the tests' expectation;
- `doc`: the constraint line of both doc pages; `rule_operands`: the operands it names.
What only some kinds have is a part (parts.py) those kinds inherit, each read by one consumer:
`Recognised` (how `ptogen import` finds it on a page), `StaticBreak` / `RuntimeCheck` (how the test
plan breaks it: the kernel that must fail to compile, or stop at run time, with `text` as the
message), `TypeListing`, `TypeFilter`, `TileFilter`, `OwnForms`, `Conditional`, `Placed`,
`Tabulated`, `Shorthand`, ... A consumer asks `part(rule, P)`, which gives kinds without the part
its defaults.

Templates ask a rule for these strings, and code outside this module asks its hooks; neither
switches on its kind or class (tests/test_contracts.py). Each module holds the kinds of one concern
(element types, layout, valid region, binding, synchronisation, ...); a new rule kind is one module
in this package (its class), one line in `RULE_KINDS` and its tests; see the contributor guide on the
documentation site, "Adding a rule kind".

The methods receive the op spec, the op's lowering and the test planner's context through the
interfaces of `rule_api` (`OpSpec`, `OpView`, `BreakContext` below name those protocols), so this
module depends on the spec fields and those interfaces only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Union

from pydantic import Field

from .base import RuleBase, kind_name
from .binding import AddressTypeRule, PlacementRule
from .broadcast_role import BroadcastRoleRule
from .column_operand import ColumnOperandRule
from .conv_layouts import ConvLayoutsRule
from .derived_extent import DerivedExtentRule
from .dtype import DTypeRule
from .dtype_relations import DTypePairsRule, SameDTypeRule
from .dtype_tuples import DTypeTuplesRule
from .full_valid import FullValidRule
from .location_pairs import LOCATION_PAIRS_KINDS
from .locations import LOCATION_KINDS
from .no_overlap import NoOverlapRule
from .offering import TmpRequiredRule, UnavailableRule
from .page import PageContext, PageLine, TypeList
from .parts import Broken, Recognised
from .pipe_locations import PipeLocationsRule
from .same_bytes import SameBytesRule
from .same_element_size import SameElementSizeRule
from .scalar_blocks import ScalarBlocksRule
from .scratch_bytes import ScratchBytesRule
from .shape_multiple import ShapeMultipleRule
from .shape_relation import ShapeRelationRule
from .size_pairs import SizePairsRule
from .store_pairs import STORE_PAIRS_KINDS
from .sync import EventsRule, PipelineRule
from .table_layout import TableLayoutRule
from .template_compare import TemplateCompareRule
from .template_value import TemplateValueRule
from .tensor_types import SameTensorDTypeRule, SameTensorLayoutRule, TensorDTypeRule
from .tile_fractal import TileFractalRule
from .tile_layout import LocationRule, RowMajorRule, SameStorageRule
from .total_bytes import TotalBytesRule
from .union_region import UnionRegionRule
from .valid_extent import MinValidExtentRule, SameValidExtentRule
from .valid_multiple import ValidMultipleRule
from .valid_range import ValidRangeRule
from .valid_region import SameValidShapeRule, ValidBoundsRule
from .value_range import ValueRangeRule

__all__ = [
    "PAGE_KINDS",
    "RULE_KINDS",
    "Broken",
    "PageContext",
    "PageLine",
    "Rule",
    "RuleBase",
    "TypeList",
    "kind_name",
    "page_prefixes",
]

# The registry, in the order of import output.
RULE_KINDS: tuple[type[RuleBase], ...] = (
    DTypeRule,
    DTypePairsRule,
    LocationRule,
    ValidBoundsRule,
    SameValidShapeRule,
    SameDTypeRule,
    RowMajorRule,
    UnavailableRule,
    TmpRequiredRule,
    NoOverlapRule,
    SameValidExtentRule,
    MinValidExtentRule,
    ValueRangeRule,
    TableLayoutRule,
    SameStorageRule,
    AddressTypeRule,
    PlacementRule,
    EventsRule,
    PipelineRule,
    *LOCATION_KINDS,
    *STORE_PAIRS_KINDS,
    *LOCATION_PAIRS_KINDS,
    ShapeRelationRule,
    ValidRangeRule,
    ValidMultipleRule,
    DTypeTuplesRule,
    UnionRegionRule,
    SameBytesRule,
    TemplateValueRule,
    BroadcastRoleRule,
    ColumnOperandRule,
    ScratchBytesRule,
    ConvLayoutsRule,
    TileFractalRule,
    SameElementSizeRule,
    TotalBytesRule,
    ShapeMultipleRule,
    SizePairsRule,
    ScalarBlocksRule,
    FullValidRule,
    DerivedExtentRule,
    PipeLocationsRule,
    TensorDTypeRule,
    SameTensorDTypeRule,
    SameTensorLayoutRule,
    TemplateCompareRule,
)

# The spec's `constraints` items: one of the registry's classes, chosen by `kind`.
# (Type checkers see the common base; Pydantic sees the union.)
if TYPE_CHECKING:
    Rule = RuleBase
else:
    Rule = Annotated[Union[RULE_KINDS], Field(discriminator="kind")]  # noqa: UP007 (a runtime union)


# The kinds `ptogen import` asks to find themselves on a page (`Recognised`; every kind is one).
PAGE_KINDS: tuple[type[Recognised], ...] = tuple(k for k in RULE_KINDS if issubclass(k, Recognised))


def page_prefixes() -> tuple[str, ...]:
    """Line starts that some rule kind states (import keeps other constraint lines as prose)."""
    return tuple(p for cls in PAGE_KINDS for p in cls.page_prefixes)
