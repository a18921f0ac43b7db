"""What the op kinds (opkinds/) and the test planner (testing/plan.py) are handed: the lowering's
views, as interfaces below both.

The lowering asks each op's kind for its index notation, outputs and tests, and the kinds read
the op's lowering back; these protocols break that circle. `lower.views.OpView`, `FormView`,
`RuleView` and `ProjectView` satisfy them (the type checker verifies it where they are passed).
The enum views are plain records and live here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from .rule_api import CppFacts, RuleLowering, RuleOp, TileDecl
from .rules import RuleBase
from .spec.expr import Node
from .spec.model import (
    Dispatch,
    InstructionSetDef,
    Operand,
    OpSpec,
    Param,
    ProfileDef,
    Targets,
    TemplateParam,
)


@dataclass(frozen=True)
class EnumCase:
    value: str
    cpp: str
    numpy: str


@dataclass(frozen=True)
class EnumView:
    """An enum whose values carry semantics, each case rendered for C++ and numpy."""

    name: str
    params: list[str]
    cases: list[EnumCase]
    qualified: str = ""  # the C++ name from namespace pto (`comm::WaitCmp`)


class RuleViewAPI(RuleLowering, Protocol):
    """One rule of an op, lowered (`lower.views.RuleView`): what a rule kind sees of it
    (`rule_api.RuleLowering`: the C++ of its operands) and its identity and messages."""

    @property
    def rule(self) -> RuleBase: ...

    @property
    def index(self) -> int: ...

    @property
    def kind(self) -> str: ...

    @property
    def id(self) -> str: ...

    def message(self, profile: str) -> str: ...

    def broken_messages(self, profile: str, tiles: dict[str, TileDecl] | None = None) -> list[str]: ...

    def runtime_message(self, profile: str) -> str: ...

    @property
    def stops(self) -> bool: ...


class FormTestsAPI(Protocol):
    """How a test kernel calls one form (`lower.testcalls.FormTestView`)."""

    @property
    def own_tiles(self) -> list[str]: ...

    @property
    def own_results(self) -> list[str]: ...

    def template_value(self, name: str) -> str: ...

    def call_args(self, main_args: list[str]) -> list[str]: ...

    def template_args(
        self,
        main_explicit: list[str],
        type_names: dict[str, str],
        main_args: list[str] | None = None,
        explicit: dict[str, str] | None = None,
    ) -> list[str]: ...


class OpCppAPI(CppFacts, Protocol):
    """The C++ spellings of one op (`lower.cpp.OpCpp`) that plug-ins use (`rule_api.CppFacts`)."""

    @property
    def stored_operands(self) -> list[str]: ...


class OpTestAPI(Protocol):
    """The golden reference's numpy of one op (`lower.testcalls.OpTestView`)."""

    def numpy_of(self, expr: Node) -> str: ...


class FormViewAPI(Protocol):
    """One C++ declaration of an intrinsic (`lower.views.FormView`)."""

    @property
    def op(self) -> OpViewAPI: ...

    @property
    def index(self) -> int: ...

    @property
    def template(self) -> list[TemplateParam]: ...

    @property
    def params(self) -> list[Param]: ...

    @property
    def own(self) -> list[Operand]: ...

    @property
    def test_args(self) -> dict[str, str]: ...

    @property
    def dispatch(self) -> Any: ...  # lower.dispatch.Call

    @property
    def dispatch_spec(self) -> Dispatch: ...

    @property
    def impl_args(self) -> list[str]: ...

    @property
    def impl_name(self) -> str: ...

    @property
    def test(self) -> FormTestsAPI: ...

    @property
    def extra_tiles(self) -> list[str]: ...

    @property
    def expr(self) -> Node | None: ...

    def rules_for(self, profile: str, static: bool | None = None) -> Sequence[RuleViewAPI]: ...

    def unchecked_profiles(self, profiles: list[str]) -> list[str]: ...

    @property
    def own_result(self) -> bool: ...

    @property
    def value_output(self) -> str | None: ...

    def arg(self, operand: str) -> str: ...

    def carrier(self, operand: str) -> TemplateParam | None: ...


class VariantViewAPI(Protocol):
    """A variant of an op's main declaration (`lower.views.VariantView`): its name and the rules a
    profile enforces on the calls it selects."""

    @property
    def name(self) -> str: ...

    def rules_for(self, profile: str) -> Sequence[RuleViewAPI]: ...


class OpViewAPI(RuleOp, Protocol):
    """One op, lowered (`lower.views.OpView`): what a rule kind reads of it (`rule_api.RuleOp`)
    and its semantic core as the op kinds and the planner read it."""

    @property
    def spec(self) -> OpSpec: ...

    @property
    def targets(self) -> Targets: ...

    @property
    def path(self) -> str: ...

    @property
    def loaded(self) -> Any: ...  # spec.load.LoadedOp: the parsed expressions

    @property
    def kind(self) -> Any: ...  # opkinds.OpKind

    @property
    def lane_fold(self) -> Any: ...  # lower.contract.LaneFold | None: a reduction across lanes

    @property
    def project_enums(self) -> list[EnumView]: ...

    @property
    def name(self) -> str: ...

    @property
    def mnemonic(self) -> str: ...

    @property
    def domain(self) -> str: ...

    @property
    def operands(self) -> list[Operand]: ...

    def operand(self, name: str) -> Operand: ...

    @property
    def upper(self) -> str: ...

    @property
    def doc_path(self) -> str: ...

    @property
    def ref_doc_path(self) -> str: ...

    @property
    def figure_path(self) -> str: ...

    @property
    def stem(self) -> str: ...

    @property
    def sim_header(self) -> str: ...

    @property
    def has_backend(self) -> bool: ...

    @property
    def compute_operand(self) -> str: ...

    @property
    def iset(self) -> InstructionSetDef: ...

    @property
    def cpp(self) -> OpCppAPI: ...

    @property
    def test(self) -> OpTestAPI: ...

    @property
    def rules(self) -> Sequence[RuleViewAPI]: ...

    @property
    def tiles(self) -> list[str]: ...

    @property
    def read_operands(self) -> list[str]: ...

    @property
    def extra_exprs(self) -> dict[str, Node]: ...

    @property
    def varying_operands(self) -> frozenset[str]: ...

    @property
    def default_values(self) -> dict[str, str]: ...

    @property
    def enums_of(self) -> dict[str, str]: ...

    @property
    def forms(self) -> Sequence[FormViewAPI]: ...

    @property
    def expr_forms(self) -> Sequence[FormViewAPI]: ...

    @property
    def value_forms(self) -> Sequence[FormViewAPI]: ...

    @property
    def result_operands(self) -> list[str]: ...

    @property
    def value_operands(self) -> list[str]: ...

    @property
    def value_variants(self) -> list[dict[str, str]]: ...

    @property
    def variants(self) -> Sequence[VariantViewAPI]: ...

    def context(self, what: str) -> Any: ...

    def rule_view(self, rule: Any) -> RuleViewAPI: ...

    def rules_for(self, profile: str, *, static: bool | None = None) -> Sequence[RuleViewAPI]: ...

    def form_rules_for(self, profile: str) -> Sequence[RuleViewAPI]: ...

    def available(self, profile: str) -> bool: ...

    def admits(self, profile: str, combo: dict[str, str]) -> bool: ...

    def operand_dtypes(
        self, profile: str, operand: str, when: dict[str, str] | None = None
    ) -> list[str] | None: ...

    def allowed_dtypes(self, profile: str, when: dict[str, str] | None = None) -> list[str]: ...

    def test_dtypes(self, profile: str, when: dict[str, str] | None = None) -> list[str]: ...

    def test_combos(self, profile: str, when: dict[str, str] | None = None) -> list[dict[str, str]]: ...


class ProjectViewAPI(Protocol):
    """The whole project, lowered (`lower.views.ProjectView`)."""

    @property
    def ops(self) -> Sequence[OpViewAPI]: ...

    @property
    def profiles(self) -> list[ProfileDef]: ...

    @property
    def targets(self) -> Targets: ...

    @property
    def simulated_profile(self) -> ProfileDef: ...
