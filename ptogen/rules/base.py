"""What every rule kind shares: RuleBase with its hooks and defaults, the page and test-break
records, and the prose helpers rules name their operands with."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal

from pydantic import Field

from ..spec.fields import CppIdent, CppQualified, InlineText, ProfileName, Strict

if TYPE_CHECKING:
    from ..rule_api import RuleBreak as BreakContext
    from ..rule_api import RuleLowering as RuleView
    from ..rule_api import RuleOp as OpView
    from ..rule_api import SpecFacts as OpSpec
    from ..rule_api import TargetFacts as Targets
    from ..rule_api import TileDecl

Problem = tuple[tuple[str | int, ...], str]  # (field path below the rule, message)


def and_list(names: list[str], code: bool = True) -> str:
    """`a`, `b` and `c` (or plain a, b and c): how rules name their operands in prose."""
    spelled = [f"`{n}`" if code else n for n in names]
    return spelled[0] if len(spelled) == 1 else ", ".join(spelled[:-1]) + " and " + spelled[-1]


def or_list(names: list[str], code: bool = True) -> str:
    """`a`, `b` or `c`: alternatives, spelled as and_list spells operands."""
    spelled = and_list(names, code)
    head, sep, last = spelled.rpartition(" and ")
    return f"{head} or {last}" if sep else spelled


def conj(parts: list[str]) -> str:
    return " && ".join(parts)


@dataclass
class Broken:
    """Tiles (and call adjustments) that violate exactly one rule, for a compile-fail case."""

    tiles: dict[str, TileDecl]
    with_tmp: bool = True
    scalar_types: dict[str, str] = field(default_factory=dict)  # scalar operand -> C++ value spelling
    changed: str | None = None  # operand whose type changed (tiles bound to its template type follow)
    global_layouts: dict[str, str] = field(default_factory=dict)  # GlobalTensor operand -> its layout
    values: dict[str, str] = field(default_factory=dict)  # value template parameter -> what the call passes


@dataclass(frozen=True)
class PageLine:
    group: str | None  # profile of an "Implementation checks (P)" block, None for common
    text: str  # the line without Markdown emphasis, code ticks and bullets

    @property
    def low(self) -> str:
        return self.text.lower()


@dataclass(frozen=True)
class TypeList:
    """A list of element types a page gives (read by pagefacts, in either page layout)."""

    key: str  # where the page gives it: a profile, `profile/condition`, a `Param::Value` condition, `forms`
    values: list[str]  # the types as the page spells them
    names: list[str | None]  # each one's name in the dtype vocabulary (None: unknown)
    named: list[str] | None  # the operands it is given for (None: the data tiles)
    note: str | None = None  # the parenthetical after it
    forms: list[int] | None = None  # the declarations it is checked on (None: all)


class PageContext:
    """What `ptogen import` knows of a page when rules look for themselves on it."""

    def __init__(
        self,
        lines: list[PageLine],
        profiles: set[str],
        data: list[str],
        distinct_types: bool,
        type_lists: list[TypeList] | tuple[TypeList, ...] = (),
        unplaced: list[str] | None = None,
        form_tiles: dict[int, list[str]] | None = None,
    ):
        self.lines = lines
        self.profiles = profiles
        self.data = data  # the data tile operands (what `TileData` stands for)
        self.distinct_types = distinct_types  # the operands have template types of their own
        self.type_lists = list(type_lists)
        self.unplaced = unplaced if unplaced is not None else []  # facts of the page no rule can place
        self.form_tiles = form_tiles or {}  # the data tiles each further declaration passes

    def for_forms(self, forms: list[int]) -> PageContext:
        """The page as a line limited to `forms` sees it: their tiles are its data tiles."""
        tiles = list(dict.fromkeys(n for k in forms for n in self.form_tiles.get(k, self.data)))
        if not self.form_tiles or not tiles:
            return self
        return PageContext(
            self.lines,
            self.profiles,
            tiles,
            self.distinct_types,
            self.type_lists,
            self.unplaced,
            self.form_tiles,
        )

    def scope(self, line: PageLine) -> dict[str, Any]:
        return {"profiles": [line.group]} if line.group in self.profiles else {}

    def named(self, text: str) -> list[str]:
        """Operands of the page named in `text`, in order of mention."""
        return [n for n in re.findall(r"\b(\w+)\b", text) if n in self.data]


class RuleBase(Strict):
    """Fields and behaviour every rule kind shares."""

    kind: str
    profiles: list[ProfileName] | None = Field(
        default=None, description="profiles it applies to; omitted = all"
    )
    note: InlineText | None = Field(default=None, description="parenthetical shown after the doc line")

    stage: ClassVar[Literal["static", "runtime"]] = "static"
    tile_intrinsic_only: ClassVar[bool] = True
    forms: list[Annotated[int, Field(ge=0)]] | None = Field(
        default=None,
        description="the declarations it checks (0: the main one, k: overload k), each in its own scope; "
        "omitted = every declaration, through the op's common check",
    )
    # The kind checks only the declarations `in_form` accepts, in their own scope (TASSIGN<Addr>'s
    # placement), through a check function of their own rather than the op's common one.
    scoped_by_kind: ClassVar[bool] = False
    scalar_operands: ClassVar[bool] = False  # may name a scalar operand (same_dtype)
    # Page line prefixes (lower case) that state this rule, so import does not keep them as prose.
    page_prefixes: ClassVar[tuple[str, ...]] = ()
    # A spec-level mapping (e.g. `dtypes:`) of profiles to values, each stating one rule of this
    # kind over the op class's `rule_operands` (spec/resolve.py expands it, spec/factor.py writes it).
    shorthand: ClassVar[str | None] = None

    @classmethod
    def from_shorthand(cls, profiles: list[str], operands: list[str], value: Any) -> dict[str, Any]:
        """The rule one entry of the shorthand states."""
        raise NotImplementedError(f"{cls.__name__} has no shorthand")

    @classmethod
    def to_shorthand(cls, rule: dict[str, Any], operands: list[str]) -> Any | None:
        """The shorthand value that states `rule` (plain data), or None when it cannot."""
        return None

    # The op is not offered, so the failing kernel takes its (legal) tiles from another profile.
    legal_elsewhere: ClassVar[bool] = False

    @property
    def form_scoped(self) -> bool:
        """Checked per declaration (its kind, or `forms`), not through the op's common check."""
        return self.scoped_by_kind or self.forms is not None

    def in_form(self, form: Any) -> bool:
        """Whether a form-scoped rule checks this declaration (a lower.views.FormView)."""
        return self.forms is not None and form.index in self.forms

    def forms_note(self) -> str:
        """What the doc line adds when `forms` limits the rule, numbering declarations as the page's
        C++ Intrinsic section lists them from 0 (read back by `ptogen import`)."""
        if self.forms is None:
            return ""
        plural = "s" if len(self.forms) > 1 else ""
        return f"Checked on declaration{plural} {and_list([str(k) for k in self.forms], code=False)} only."

    def global_dtypes(self, tiles: dict[str, TileDecl]) -> dict[str, str]:
        """Element types the GlobalTensor operands of a call with these tiles need to satisfy the
        rule, where not the compute tile's (which the test plan gives them otherwise)."""
        return {}

    def admits_location(self, operand: str, location: str) -> bool:
        """Whether a tile operand may live in `location` (a TileType) in every declaration this rule
        checks; a rule limited to some declarations (`forms`) leaves the others free, so it admits."""
        return True

    def admits_layout(self, layout: str) -> bool:
        """Whether tiles of this layout can satisfy the rule (the test plan skips layouts that cannot)."""
        return True

    def tabulated_operands(self) -> tuple[str, str] | None:
        """The two operands whose legal type pairs the rule tabulates (the op page draws the
        matrix); None for rules that do not constrain a pair of types jointly."""
        return None

    def tabulated_tuples(self, op: OpView) -> tuple[list[str], list[tuple[str, ...]]] | None:
        """The operands and the element-type combinations a rule lists for them jointly (a matrix
        product's accumulator, left and right), for a table on the op page; None otherwise."""
        return None

    def placement(self) -> tuple[str, str] | None:
        """What the rule fixes about where its operands live, for the op page's at-a-glance table:
        (aspect, value), such as ("Location", "`Vec`"); None for rules about anything else."""
        return None

    @property
    def is_static(self) -> bool:
        return self.stage == "static"

    @property
    def rule_operands(self) -> list[str]:
        return list(getattr(self, "operands", []))

    # ----------------------------------------------------------------- spec checks
    def checked_operands(self, spec: OpSpec) -> dict[str, Any]:
        """The operands of the declarations the rule checks, by name: the main declaration's, and
        those a declaration it is limited to (`forms`) takes on its own (TCONCAT's index tiles)."""
        operands = {o.name: o for o in spec.operands}
        overloads = spec.intrinsic.overloads if spec.intrinsic is not None else []
        for k in self.forms or []:
            if 0 < k <= len(overloads):
                operands.update({o.name: o for o in overloads[k - 1].operands if o.name not in operands})
        return operands

    def check(self, spec: OpSpec, targets: Targets) -> Iterator[Problem]:
        """Problems of this rule within its op (the shape of the rule itself is a validator)."""
        operands = self.checked_operands(spec)
        for j, name in enumerate(self.rule_operands):
            bound = operands.get(name)
            ok = bound is not None and (
                bound.kind in ("tile", "vreg") or (self.scalar_operands and bound.kind == "scalar")
            )
            if not ok:
                yield ("operands", j), f"{name!r} is not a tile or vector operand of this op"
        if self.tile_intrinsic_only and spec.intrinsic is None:
            yield ("kind",), f"{self.kind} rules apply to tile intrinsics only"

    # ----------------------------------------------------------------- lowering
    def condition(self, op: OpView, rv: RuleView) -> str:
        raise NotImplementedError

    def text(self, op: OpView) -> str:
        """Plain statement: the diagnostic after `OP [PROFILE]: ` and the tests' expectation."""
        raise NotImplementedError

    def doc(self, op: OpView) -> str:
        """The constraint line of the doc pages (Markdown)."""
        raise NotImplementedError

    def vacuous(self, op: OpView, rv: RuleView) -> bool:
        """A rule that cannot fail is documented but generates no check."""
        return False

    def admits(self, op: OpView, combo: dict[str, str]) -> bool:
        """Whether operands of these element types (canonical C++ names) can satisfy the rule;
        the test plan runs only combinations every rule of the profile admits."""
        return True

    # ----------------------------------------------------------------- what the other stages ask
    # Code outside this module never switches on a rule's kind or class (tests/test_contracts.py):
    # it asks these hooks, whose defaults suit every kind that does not override them.

    # The profiles it applies to do not offer the op: there it is the op's only rule (the others
    # are neither checked nor documented), and `OpView.available` is false.
    not_offered: ClassVar[bool] = False

    def listed_dtypes(self) -> list[str]:
        """The element types the rule names, as documented (the types a `dtype` rule allows, those a
        `value_range` rule checks); its view resolves them (`RuleView.dtypes_cpp`)."""
        return []

    def when_values(self) -> dict[str, str]:
        """The template-value settings under which the rule applies ({}: always); the test plan
        runs each setting that some rule names as a variant of its own."""
        return {}

    def enforced_by(self, profile: str) -> bool:
        """Whether the profile enforces the rule (a rule naming no profiles binds every one)."""
        return self.profiles is None or profile in self.profiles

    def applies_under(self, values: dict[str, str]) -> bool:
        """Whether the rule applies when the op's template values are `values`."""
        return all(values.get(k) == v for k, v in self.when_values().items())

    def operand_dtypes(self, rv: RuleView, operand: str, values: dict[str, str]) -> list[str] | None:
        """The element types (canonical C++ names) the rule allows `operand` under the template
        values `values`, or None: it says nothing of that operand's element type. An op's test
        dtypes are what every rule of a profile allows its compute operand."""
        return None

    def broken_by(self, op: OpView, rv: RuleView, combo: dict[str, str], values: dict[str, str]) -> bool:
        """Whether operands of these element types (canonical C++ names), under the template values
        `values`, violate the rule: a compile-fail case that breaks another rule with such tiles
        expects this rule's message too."""
        return not self.admits(op, combo)

    def global_layouts(self) -> list[str] | None:
        """The GlobalTensor layouts the rule admits (`ND`, `DN`, `NZ`), or None: it says nothing of
        them. The test plan runs the layouts every rule of a profile admits."""
        return None

    # ----------------------------------------------------------------- import
    @classmethod
    def from_page(cls, page: PageContext) -> list[dict[str, Any]]:
        out = []
        for line in page.lines:
            text, forms = split_forms(line.text)
            found = cls.recognise(
                PageLine(line.group, text), page if forms is None else page.for_forms(forms)
            )
            if found is not None:
                limited = {"forms": forms} if forms is not None else {}
                out.append({"kind": cls.model_fields["kind"].default, **page.scope(line), **found, **limited})
        return out

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        return None

    # ----------------------------------------------------------------- tests
    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        raise NotImplementedError

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

    def admits_tiles(self, tiles: dict[str, TileDecl]) -> bool:
        """Whether test tiles of these locations and layouts satisfy the rule (a kind that plans tiles
        of several locations runs each on the profiles whose rules admit them)."""
        return True

    def legalise(self, tiles: dict[str, TileDecl]) -> dict[str, TileDecl]:
        """The test plan's tiles adjusted so that this run-time rule holds (a scratch tile made
        taller, say); the plan's shapes already satisfy most rules as they are."""
        return tiles

    def input_range(self, operand: str, dtype: str, rv: RuleView) -> tuple[float, float] | None:
        """The range legal test data of `operand` (of element type `dtype`) must keep to, if any."""
        return None


_FORMS_NOTE = re.compile(r"\s*Checked on declarations? (?P<forms>\d+(?:(?:, | and )\d+)*) only\.$")


def split_forms(text: str) -> tuple[str, list[int] | None]:
    """A doc line without its `forms_note`, and the declarations that note names (None: all)."""
    m = _FORMS_NOTE.search(text)
    if m is None:
        return text, None
    return text[: m.start()], [int(k) for k in re.findall(r"\d+", m.group("forms"))]


def free_location(bx: BreakContext, rule: RuleBase, operand: str, avoid: list[str]) -> str:
    """A location for `operand` outside `avoid` that every other rule of the profile checking all
    declarations admits, so that a case breaking `rule` by location breaks nothing else."""
    others = [
        r for r in bx.op.spec.constraints if r is not rule and not r.form_scoped and r.enforced_by(bx.profile)
    ]
    candidates = [
        loc for loc in ("Mat", "Vec", "Acc", "Left", "Right", "Bias", "Scaling") if loc not in avoid
    ]
    return next((c for c in candidates if all(r.admits_location(operand, c) for r in others)), candidates[0])


def allowed_by_others(bx: BreakContext, rule: RuleBase, operand: str) -> list[str]:
    """The element types the profile's other rules on `rule`'s declarations allow `operand` (every
    type of the vocabulary when none names it), in the vocabulary's order: what a case breaking
    `rule` by `operand`'s type may pick so that no other rule breaks."""
    allowed = [d.name for d in bx.op.targets.dtypes]
    for other in bx.op.spec.constraints:
        if other is rule or not other.enforced_by(bx.profile) or other.forms != rule.forms:
            continue
        listed = other.operand_dtypes(bx.op.rule_view(other), operand, other.when_values())
        if listed is not None:
            allowed = [d for d in allowed if d in listed]
    return allowed


def with_note(line: str, note: str | None) -> str:
    return f"{line} ({note})." if note else f"{line}."


# ----------------------------------------------------------------------------- static rules


class When(Strict):
    param: CppIdent
    equals: CppQualified

    def clause(self, code: bool) -> str:
        """`param is value`, as a rule's message (code: False) and doc line (True) spell it."""
        tick = "`" if code else ""
        return f"{tick}{self.param}{tick} is {tick}{self.equals}{tick}"


def when_phrase(when: When | None, code: bool) -> str:
    """` when param is value` ending a rule's message or doc line; empty without a condition."""
    return f" when {when.clause(code)}" if when is not None else ""


def kind_name(cls: type[RuleBase]) -> str:
    return str(cls.model_fields["kind"].default)
