"""The parts of the rule contract that only some rule kinds have.

`RuleBase` (base.py) keeps what every rule has: its fields (`kind`, `profiles`, `note`, `forms`), the
spec check (`check`), the C++ predicate (`condition`), its message (`text`), its doc line (`doc`) and
its operands (`rule_operands`). Everything else is a part here: a small mixin that a kind inherits
when it has that behaviour, overriding its hooks. A consumer reaches a part through `part(rule, P)`,
which gives a kind without the part the part's defaults, or through the functions below; it never
asks which kind a rule is (tests/test_contracts.py). Who reads what:

- the lowering and the check writer (lower/views.py): `is_static`, `enforced_by`, `form_scoped`,
  `in_form`, `when_values`, `applies_under`, `not_offered`, and `TypeListing`;
- the doc writer (templates/docs, lower/glance.py): `Placed`, `Tabulated`, and page.forms_note;
- the spec loader (spec/): `ScalarOperands` and `VectorOps` (read by `RuleBase.check`), `Shorthand`;
- the importer (importer/build.py): `Recognised`, which every kind has;
- the test planner (testing/plan.py, the op kinds' case builders): `StaticBreak`, `RuntimeCheck`,
  `TypeFilter`, `TileFilter`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar

from .page import PageContext, PageLine

if TYPE_CHECKING:
    from ..rule_api import RuleBreak as BreakContext
    from ..rule_api import RuleLowering as RuleView
    from ..rule_api import RuleOp as OpView
    from ..rule_api import TileDecl

P = TypeVar("P")


class RuleFields(Protocol):
    """The fields every rule has that the functions below read (`RuleBase`'s)."""

    @property
    def profiles(self) -> list[str] | None: ...

    @property
    def forms(self) -> list[int] | None: ...


_DEFAULTS: dict[type[Any], Any] = {}


def part(rule: object, cls: type[P]) -> P:
    """`rule` as the part `cls`: the kind's own hooks, or the part's defaults when the kind lacks it."""
    if isinstance(rule, cls):
        return rule
    if cls not in _DEFAULTS:
        _DEFAULTS[cls] = cls()
    return _DEFAULTS[cls]  # type: ignore[no-any-return]


# ----------------------------------------------------------------------------- the spec loader


class ScalarOperands:
    """The rule may name a scalar operand (`same_dtype` over a tile and a scalar typed from it)."""


class VectorOps:
    """The kind applies to vector intrinsics too, not to tile intrinsics only (`dtype`)."""


class Shorthand:
    """A spec-level mapping (e.g. `dtypes:`) of profiles to values, each stating one rule of this
    kind over the op class's `rule_operands` (spec/resolve.py expands it, spec/factor.py writes it)."""

    shorthand: ClassVar[str]

    @classmethod
    def from_shorthand(cls, profiles: list[str], operands: list[str], value: Any) -> dict[str, Any]:
        """The rule one entry of the shorthand states."""
        raise NotImplementedError

    @classmethod
    def to_shorthand(cls, rule: dict[str, Any], operands: list[str]) -> Any | None:
        """The shorthand value that states `rule` (plain data), or None when it cannot."""
        raise NotImplementedError


# ----------------------------------------------------------------------------- the lowering


class RuntimeCheck:
    """Checked when the op runs (a `verify_` function) rather than by a static_assert; the test
    planner breaks it with `break_runtime` (the kernel must stop with the rule's message)."""

    def break_runtime(
        self, tiles: dict[str, TileDecl], addresses: dict[str, int]
    ) -> tuple[dict[str, TileDecl], dict[str, int]]:
        raise NotImplementedError

    def runtime_scalars(self) -> dict[str, str]:
        """Scalar arguments (operand -> C++ value) the runtime-fail case of a rule limited to some
        declarations passes instead of value-initialised ones (TMRGSORT's `blockLen` of 64, so the
        valid columns alone break `scalar_blocks`). Default: none."""
        return {}

    def runtime_dtypes(self, rv: RuleView) -> list[str]:
        """Element types the breaking case's operands must have (empty: any the profile allows)."""
        return []

    def input_range(self, operand: str, dtype: str, rv: RuleView) -> tuple[float, float] | None:
        """The range legal test data of `operand` (of element type `dtype`) must keep to, if any."""
        return None

    def warning(self) -> bool:
        """Whether a breach is undefined (the pages say so) and computed anyway, as upstream's simulator
        does: the check then warns once per call site (`sim::warn`) and the op goes on, and the
        breaking case must run to completion. Default: a breach stops the run."""
        return False


class OwnForms:
    """The kind checks only the declarations `in_form` accepts, in their own scope (TASSIGN<Addr>'s
    placement), through a check function of their own rather than the op's common one."""

    def in_form(self, form: Any) -> bool:
        raise NotImplementedError


class NotOffered:
    """The profiles the rule applies to do not offer the op: there it is the op's only rule (the others
    are neither checked nor documented), `OpView.available` is false, and the failing kernel takes its
    (legal) tiles from another profile."""


class Conditional:
    """The rule applies under some template-value settings only; the test plan runs each setting that
    some rule names as a variant of its own."""

    def when_values(self) -> dict[str, str]:
        """The settings under which the rule applies ({}: always)."""
        return {}


class TypeListing:
    """The rule names element types."""

    def listed_dtypes(self) -> list[str]:
        """The element types the rule names, as documented (the types a `dtype` rule allows, those a
        `value_range` rule checks); its view resolves them (`RuleView.dtypes_cpp`)."""
        return []

    def operand_dtypes(self, rv: RuleView, operand: str, values: dict[str, str]) -> list[str] | None:
        """The element types (canonical C++ names) the rule allows `operand` under the template
        values `values`, or None: it says nothing of that operand's element type. An op's test
        dtypes are what every rule of a profile allows its compute operand."""
        return None

    def vacuous(self, op: OpView, rv: RuleView) -> bool:
        """A rule that cannot fail is documented but generates no check."""
        return False


def is_static(rule: object) -> bool:
    """Checked at compile time (a static_assert), not when the op runs."""
    return not isinstance(rule, RuntimeCheck)


def not_offered(rule: object) -> bool:
    return isinstance(rule, NotOffered)


def enforced_by(rule: RuleFields, profile: str) -> bool:
    """Whether the profile enforces the rule (a rule naming no profiles binds every one)."""
    return rule.profiles is None or profile in rule.profiles


def form_scoped(rule: RuleFields) -> bool:
    """Checked per declaration (its kind, or `forms`), not through the op's common check."""
    return isinstance(rule, OwnForms) or rule.forms is not None


def in_form(rule: RuleFields, form: Any) -> bool:
    """Whether a form-scoped rule checks this declaration (a lower.views.FormView)."""
    if isinstance(rule, OwnForms):
        return rule.in_form(form)
    return rule.forms is not None and form.index in rule.forms


def when_values(rule: object) -> dict[str, str]:
    return part(rule, Conditional).when_values()


def applies_under(rule: object, values: dict[str, str]) -> bool:
    """Whether the rule applies when the op's template values are `values`."""
    return all(values.get(k) == v for k, v in when_values(rule).items())


# ----------------------------------------------------------------------------- the doc writer


class Placed:
    """The rule fixes where its operands live, for the op page's at-a-glance table."""

    def placement(self) -> tuple[str, str] | None:
        """(aspect, value), such as ("Location", "`Vec`")."""
        return None


class Tabulated:
    """The rule lists legal element-type combinations of some operands, for a table on the op page."""

    def tabulated_operands(self) -> tuple[str, str] | None:
        """The two operands whose legal type pairs the rule tabulates (the op page draws the matrix)."""
        return None

    def tabulated_tuples(self, op: OpView) -> tuple[list[str], list[tuple[str, ...]]] | None:
        """The operands and the element-type combinations a rule lists for them jointly (a matrix
        product's accumulator, left and right)."""
        return None


# ----------------------------------------------------------------------------- the importer


class Recognised:
    """How `ptogen import` finds the kind's rules on a page: its constraint lines (`recognise`), or
    the page as a whole (`from_page`)."""

    # Page line prefixes (lower case) that state this rule, so import does not keep them as prose.
    page_prefixes: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def from_page(cls, page: PageContext) -> list[dict[str, Any]]:
        out = []
        for (bare, forms, warns), line in zip(page.bare_lines(), page.lines, strict=True):
            found = cls.recognise(bare, page if forms is None else page.for_forms(forms))
            if found is not None:
                limited = {"forms": forms} if forms is not None else {}
                warning = {"warns": True} if warns else {}
                kind = cls.model_fields["kind"].default  # type: ignore[attr-defined]  # on a rule kind
                out.append({"kind": kind, **page.scope(line), **found, **warning, **limited})
        return out

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        return None


# ----------------------------------------------------------------------------- the check writer


@dataclass(frozen=True)
class StaticCheck:
    """One static_assert of a rule: its condition, its message, and what the compiler's note on a
    failure shows of the call (the element types passed, or both sides of the relation compared)."""

    suffix: str  # appended to the rule's constant (`r04_shape_relation_1`); "" for the rule's only one
    condition: str
    text: str
    types: tuple[str, ...] = ()  # C++ types the note lists
    values: tuple[str, ...] = ()  # C++ constant expressions the note lists


class Asserted:
    """The rule is asserted by its own static checks: piece by piece (one per relation, so the message
    names the one that failed) or with what was passed shown in the compiler's note."""

    def static_checks(self, op: OpView, rv: RuleView) -> list[StaticCheck]:
        raise NotImplementedError

    def broken_texts(self, tiles: dict[str, TileDecl]) -> list[str] | None:
        """The messages of the checks that tiles breaking the rule break; None: every check's."""
        return None


# ----------------------------------------------------------------------------- the test planner


@dataclass
class Broken:
    """Tiles (and call adjustments) that violate exactly one rule, for a compile-fail case."""

    tiles: dict[str, TileDecl]
    with_tmp: bool = True
    scalar_types: dict[str, str] = field(default_factory=dict)  # scalar operand -> C++ value spelling
    changed: str | None = None  # operand whose type changed (tiles bound to its template type follow)
    global_layouts: dict[str, str] = field(default_factory=dict)  # GlobalTensor operand -> its layout
    values: dict[str, str] = field(default_factory=dict)  # value template parameter -> what the call passes


class StaticBreak:
    """The test planner breaks the rule with `break_static`: tiles (and call adjustments) that violate
    it alone, for a kernel that must fail to compile with the rule's message."""

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        raise NotImplementedError


class TypeFilter:
    """The rule constrains element types jointly: the test plan runs only the combinations every rule
    of the profile admits."""

    def admits(self, op: OpView, combo: dict[str, str]) -> bool:
        """Whether operands of these element types (canonical C++ names) can satisfy the rule."""
        return True

    def broken_by(self, op: OpView, rv: RuleView, combo: dict[str, str], values: dict[str, str]) -> bool:
        """Whether operands of these element types (canonical C++ names), under the template values
        `values`, violate the rule: a compile-fail case that breaks another rule with such tiles
        expects this rule's message too."""
        return not self.admits(op, combo)


class TileFilter:
    """The rule constrains the test plan's tiles (locations, layouts, shapes, GlobalTensors)."""

    def admits_tiles(self, tiles: dict[str, TileDecl]) -> bool:
        """Whether test tiles of these locations and layouts satisfy the rule (a kind that plans tiles
        of several locations runs each on the profiles whose rules admit them)."""
        return True

    def admits_location(self, operand: str, location: str) -> bool:
        """Whether a tile operand may live in `location` (a TileType) in every declaration this rule
        checks; a rule limited to some declarations (`forms`) leaves the others free, so it admits."""
        return True

    def admits_layout(self, layout: str) -> bool:
        """Whether tiles of this layout can satisfy the rule (the test plan skips layouts that cannot)."""
        return True

    def global_layouts(self) -> list[str] | None:
        """The GlobalTensor layouts the rule admits (`ND`, `DN`, `NZ`), or None: it says nothing of
        them. The test plan runs the layouts every rule of a profile admits."""
        return None

    def global_dtypes(self, tiles: dict[str, TileDecl]) -> dict[str, str]:
        """Element types the GlobalTensor operands of a call with these tiles need to satisfy the
        rule, where not the compute tile's (which the test plan gives them otherwise)."""
        return {}

    def legalise(self, tiles: dict[str, TileDecl]) -> dict[str, TileDecl]:
        """The test plan's tiles adjusted so that this rule holds (a scratch tile made taller, say);
        the plan's shapes already satisfy most rules as they are."""
        return tiles

    def legalise_static(self, tiles: dict[str, TileDecl]) -> dict[str, TileDecl]:
        """The same for a static rule of one profile, which a kernel of that profile's tiles meets
        (a box layout the profile fixes); most static rules leave that to the kind's plan."""
        return tiles
