"""The op view: the semantic core of each op that every output is derived from.

Templates only spell text; what is decided about an op (which rules a profile enforces, the dtype
combinations, its forms and their dispatch, which op comes before which) is computed here. How
each output spells it lives in its own module, reached from the view: C++ in `cpp.py`
(`op.cpp`), page text in `docs.py` (`op.doc`), test calls and the golden's numpy in
`testcalls.py` (`op.test`, `form.test`). Those modules, the op kinds and the test planner see
this view through the protocols of `kind_api`; templates see views only, never the spec model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, cast

from ..errors import located
from ..kind_api import EnumCase, EnumView, FormViewAPI
from ..opkinds import KINDS, OpKind
from ..rules import Rule
from ..rules.page import WARNS_NOTE, forms_note
from ..rules.parts import (
    Asserted,
    RuntimeCheck,
    StaticCheck,
    TypeFilter,
    TypeListing,
    enforced_by,
    form_scoped,
    in_form,
    is_static,
    not_offered,
    part,
    when_values,
)
from ..spec import expr as semantics
from ..spec.load import LoadedOp, SpecSet
from ..spec.model import (
    Builtin,
    Dispatch,
    GroupingDef,
    InstructionSetDef,
    Intrinsic,
    Operand,
    OpSpec,
    Param,
    ProfileDef,
    ProseConstraint,
    Spelling,
    Targets,
    TemplateParam,
    Variant,
)
from . import dispatch as dispatching
from .contract import FormBackend, LaneFold
from .cpp import OpCpp, tparam_decl
from .docs import OpDoc
from .testcalls import FormTestView, OpTestView
from .tiletype import TileTypeView

if TYPE_CHECKING:
    from ..rule_api import TileDecl


@dataclass(frozen=True)
class RuleView:
    rule: Rule
    index: int  # position in the spec's constraints list (stable id for tests)
    types: list[str]  # C++ types of the rule's operands, in the check function's scope
    dtype_exprs: list[str]  # C++ element types of the rule's operands
    dtypes_cpp: list[str]  # canonical C++ spellings, aliases resolved and de-duplicated
    dtypes_asm: list[str]

    op: OpView | None = None

    @property
    def kind(self) -> str:
        return self.rule.kind

    # What templates print: each rule kind decides its own spelling (ptogen/rules/).
    @property
    def condition(self) -> str:
        assert self.op is not None
        return self.rule.condition(self.op, self)

    @property
    def text(self) -> str:
        assert self.op is not None
        return self.rule.text(self.op)

    @property
    def doc(self) -> str:
        assert self.op is not None
        line = self.rule.doc(self.op)
        return line if self.stops else f"{line} {WARNS_NOTE}"

    @property
    def stops(self) -> bool:
        """Whether a breach stops the run (else it warns: RuntimeCheck.warning)."""
        return not part(self.rule, RuntimeCheck).warning()

    @property
    def forms_note(self) -> str:
        """What the doc line adds when `forms` limits the rule."""
        return forms_note(self.rule.forms)

    def where(self, profile: str) -> str:
        """Which op under which profile: how every diagnostic of a rule begins."""
        assert self.op is not None
        return f"{self.op.name} [{profile}]"

    def message(self, profile: str) -> str:
        """The static_assert message: names op, profile and rule."""
        return f"{self.where(profile)}: {self.text}"

    def runtime_message(self, profile: str) -> str:
        """What `sim::fail(where, text)` (or, for a rule that warns, `sim::warn`) prints (check_core.hpp)
        when a run-time rule is broken."""
        return f"PTO runtime {'error' if self.stops else 'warning'}: {self.message(profile)}"

    def _checks(self) -> list[StaticCheck]:
        assert self.op is not None
        if isinstance(self.rule, Asserted):
            return self.rule.static_checks(self.op, self)
        return [StaticCheck("", self.condition, self.text)]

    @property
    def compared(self) -> list[str]:
        """The run-time extents the rule's condition reads (`a.GetValidRow()`): what a failing check
        prints beside its message, spelled as the condition spells them."""
        return list(dict.fromkeys(re.findall(r"\b[A-Za-z_]\w*\.GetValid(?:Row|Col)\(\)", self.condition)))

    @property
    def static_checks(self) -> list[AssertView]:
        """The static_asserts checking the rule, each a named constant (`r04_shape_relation`)."""
        return [AssertView(self.check_name + c.suffix, c) for c in self._checks()]

    def broken_messages(self, profile: str, tiles: dict[str, TileDecl] | None = None) -> list[str]:
        """The messages a kernel breaking the rule with `tiles` gets: one per static check it breaks."""
        texts = [c.text for c in self._checks()]
        if isinstance(self.rule, Asserted) and tiles is not None:
            texts = self.rule.broken_texts(tiles) or texts
        return [f"{self.where(profile)}: {t}" for t in texts]

    @property
    def id(self) -> str:
        """Stable name of the rule, used in test file names."""
        suffix = "".join(f"_{v.split('::')[-1].lower()}" for v in when_values(self.rule).values())
        return f"{self.index:02d}_{self.rule.kind}{suffix}"

    @property
    def check_name(self) -> str:
        """The C++ constant a check function holds the rule's condition in (`r03_location`): named by
        the rule's place in the spec, so it is stable, and unique within the function."""
        return f"r{self.id}"


@dataclass(frozen=True)
class AssertView:
    """One static_assert as the check writer spells it: its named constant, and what it asserts (the
    constant, or the constant with what was passed, so the compiler's note shows the call's types or
    extents)."""

    name: str
    check: StaticCheck

    @property
    def condition(self) -> str:
        return self.check.condition

    @property
    def text(self) -> str:
        return self.check.text

    @property
    def asserted(self) -> str:
        if self.check.types:
            return f"sim::passed_types<{self.name}, {', '.join(self.check.types)}>"
        if self.check.values:
            return f"sim::passed_values<{self.name}, {', '.join(f'({v})' for v in self.check.values)}>"
        return self.name


def enum_views(specs: SpecSet) -> list[EnumView]:
    """Enums whose values carry semantics, with each case rendered for C++ and numpy."""
    out = []
    for e in specs.targets.enums:
        if e.apply is None:
            continue
        cases = [
            EnumCase(
                v,
                semantics.to_cpp(specs.enum_cases[e.name][v], lambda n: n, "C"),
                semantics.to_numpy(specs.enum_cases[e.name][v]),
            )
            for v in e.values
        ]
        qualified = f"{e.namespace}::{e.name}" if e.namespace else e.name
        out.append(EnumView(e.name, list(e.apply.params), cases, qualified))
    return out


class OpView:
    def __init__(self, loaded: LoadedOp, specs: SpecSet):
        self.loaded = loaded
        self.project_enums = enum_views(specs)
        self.spec: OpSpec = loaded.spec
        self.path = loaded.path
        self.targets: Targets = specs.targets
        self.iset: InstructionSetDef = specs.targets.instruction_set(self.spec.instruction_set)
        siblings = specs.ops_in_set(self.spec.instruction_set)
        pos = [o.spec.mnemonic for o in siblings].index(self.spec.mnemonic)
        self.prev = OpRef(siblings[pos - 1].spec, self.iset) if pos > 0 else None
        self.next = OpRef(siblings[pos + 1].spec, self.iset) if pos + 1 < len(siblings) else None
        # A family's other members that this tree specifies (a project may hold some of the ops).
        specified = {o.spec.mnemonic for o in specs.ops}
        self.families = [
            FamilyView(
                f.title, [m for m in f.ops if m != self.spec.mnemonic and m in specified], specs.targets
            )
            for f in specs.targets.families
            if self.spec.mnemonic in f.ops
        ]
        # The test planner asks for an op's rules and dtype combinations tens of thousands of times
        # per gen; a view never changes, so each answer is computed once.
        self._rules_for_memo: dict[tuple[str, bool | None], list[RuleView]] = {}
        self._combos_memo: dict[tuple[str, tuple[tuple[str, str], ...]], list[dict[str, str]]] = {}
        self._specs = specs

    # ------------------------------------------------------------------ outputs
    # The spellings of each output live in their own modules and see this view's semantic core.
    @cached_property
    def cpp(self) -> OpCpp:
        """C++ spellings (lower/cpp.py)."""
        return OpCpp(self)

    @cached_property
    def doc(self) -> OpDoc:
        """Doc-page text (lower/docs.py)."""
        return OpDoc(self)

    @cached_property
    def test(self) -> OpTestView:
        """The golden reference's numpy (lower/testcalls.py)."""
        return OpTestView(self)

    def context(self, what: str):  # type: ignore[no-untyped-def]
        """Errors raised inside name this op's spec file and line (see errors.located)."""
        line = self.loaded.source.line_of(("mnemonic",)) or 1
        return located(f"{self.path}:{line}", f"{self.spec.mnemonic}: {what}")

    # ------------------------------------------------------------------ naming
    @property
    def kind(self) -> OpKind:
        """The op kind strategy (opkinds/) named by `semantics.kind`."""
        return KINDS[self.spec.semantics.kind]

    @property
    def mnemonic(self) -> str:
        return self.spec.mnemonic

    @property
    def category(self) -> GroupingDef | None:
        """What the op does across instruction sets (targets.yaml `categories`, by op kind)."""
        return self.targets.category_of(self.spec.semantics.kind)

    @property
    def unit(self) -> GroupingDef | None:
        """The execution unit that runs the op (targets.yaml `units`, by op kind)."""
        return self.targets.unit_of(self.spec.semantics.kind)

    @property
    def domain(self) -> str:
        """The operand the op iterates over and (unless it only reads it: a hint) writes."""
        return self.spec.semantics.domain

    @property
    def operands(self) -> list[Operand]:
        return list(self.spec.operands)

    def operand(self, name: str) -> Operand:
        return self.spec.operand(name)

    @property
    def inputs(self) -> list[Operand]:
        """The main declaration's inputs."""
        return list(self.spec.inputs)

    @property
    def intrinsic(self) -> Intrinsic | None:
        """The C++ intrinsic (None: a vector op, spelled by the vector header)."""
        return self.spec.intrinsic

    @property
    def expr_source(self) -> str:
        """The spec's text of the element semantics (`semantics.expr`), as generated comments quote it."""
        return self.spec.semantics.expr

    @property
    def extra_output_sources(self) -> dict[str, str]:
        """The spec's text of each extra output's semantics (a lane op's carry mask)."""
        return dict(self.spec.semantics.extra_outputs)

    @property
    def inactive_lanes(self) -> str | None:
        """What a vector op's inactive lanes hold: "zero" or "preserve" (the incoming destination)."""
        return self.spec.semantics.inactive_lanes

    @property
    def is_vector(self) -> bool:
        return self.kind.lanes

    @cached_property
    def lane_fold(self) -> LaneFold | None:
        """How a vector op's builtin folds lanes into fewer results (pto/vsim/reduce.hpp); None: one
        result per lane (pto/vsim/ops.hpp)."""
        return self.kind.lane_fold(self) if self.is_vector else None

    @property
    def is_builtin(self) -> bool:
        """A scalar builtin of the runtime (`set_flag`): no intrinsic, no profile checks."""
        return self.spec.builtin is not None

    @property
    def builtin(self) -> Builtin | None:
        """The runtime function a scalar builtin is (None: a tile or vector op)."""
        return self.spec.builtin

    @property
    def spelling(self) -> Spelling | None:
        """The C++ an IR form is written as, which is no function (None: any other op)."""
        return self.spec.spelling

    @property
    def builtin_variables(self) -> list[str]:
        """A builtin's arguments as the generated calls declare them: each parameter's variable, of its
        type without the reference a parameter may bind (`vector_f32& dst` takes `vector_f32 dst{}`),
        holding its example value."""
        b = self.spec.builtin
        if b is None:
            return []
        return [
            f"{re.sub(r'&$', '', p.type.strip()).rstrip()} {p.name}"
            + ("{}" if p.example == "{}" else f" = {p.example}")
            for p in b.params
        ]

    @property
    def builtin_result(self) -> str | None:
        """The operand a builtin returns (its first, a destination no parameter carries), or None."""
        b = self.spec.builtin
        return self.spec.operands[0].name if b is not None and b.returns != "void" else None

    @property
    def result_operands(self) -> list[str]:
        """Operands the op writes: its domain, then a lane op's extra outputs."""
        return [self.domain, *self.spec.semantics.extra_outputs]

    @property
    def name(self) -> str:
        """C++ name: the intrinsic (TLRELU) or, for vector ops, the lower-case mnemonic (vlrelu)."""
        return self.spec.intrinsic.name if self.spec.intrinsic else self.spec.short

    @property
    def upper(self) -> str:
        """Name of the reference page and figure: the intrinsic (TSUBVIEW for pto.subview), else the
        upper-case mnemonic."""
        return self.spec.intrinsic.name if self.spec.intrinsic else self.spec.short.upper()

    @property
    def stem(self) -> str:
        """The op's name in file names and test ids shared by every set (tgather, comm_tgather)."""
        return self.spec.stem

    @property
    def doc_path(self) -> str:
        return _doc_path(self.spec, self.targets)

    @property
    def ref_doc_path(self) -> str:
        """The reference-layout page; a qualified key's under its namespace, as upstream's manual has
        it (docs/isa/comm/TGATHER.md beside the tile op's docs/isa/TGATHER.md)."""
        where = f"{self.spec.qualifier}/" if self.spec.qualifier else ""
        return f"docs/isa/{where}{self.upper}.md"

    @property
    def figure_path(self) -> str:
        where = f"{self.spec.qualifier}/" if self.spec.qualifier else ""
        return f"docs/isa/figures/{where}{self.upper}.svg"

    @property
    def sim_header(self) -> str:
        where = f"{self.iset.namespace}/" if self.iset.namespace else ""
        return f"pto/cpu/sim/{where}{self.spec.short}.hpp"

    @property
    def cpp_namespace(self) -> str:
        """The namespace that declares the intrinsic and its `_IMPL` (pto, or pto::comm)."""
        return f"pto::{self.iset.namespace}" if self.iset.namespace else "pto"

    @property
    def cpp_prefix(self) -> str:
        """How code in namespace pto qualifies the intrinsic's namespace (`comm::`, or nothing)."""
        return f"{self.iset.namespace}::" if self.iset.namespace else ""

    @property
    def header(self) -> str:
        """The header that declares the intrinsic, as upstream names it."""
        return self.iset.header or "pto/common/pto_instr.hpp"

    @property
    def has_backend(self) -> bool:
        """Whether the op defines `_IMPL` functions of its own (TRECIP runs TDIVS's)."""
        return bool(self.adapters)

    # ------------------------------------------------------------------ C++ types of operands
    @property
    def read_operands(self) -> list[str]:
        """Operands the math reads other than the destination (which it may also read: in/out ops)."""
        return [n for n in self.value_operands if n != self.domain]

    @property
    def reads_domain(self) -> bool:
        return self.domain in self.value_operands

    @property
    def mask_name(self) -> str:
        """The predicate mask of a vector op (other mask operands, like a carry-in, are values)."""
        return next(o.name for o in self.spec.operands if o.kind == "mask" and o.role == "mask")

    @property
    def extra_exprs(self) -> dict[str, semantics.Node]:
        return self.loaded.extra_exprs

    @property
    def impl_returns(self) -> str:
        """What the backend's `_IMPL` returns: nothing, unless the intrinsic hands back its result
        (an asynchronous op's `comm::AsyncEvent`); a `RecordEvent` is made by the intrinsic itself."""
        intr = self.spec.intrinsic
        return "void" if intr is None or intr.returns == "RecordEvent" else intr.returns

    def covers_data_tiles(self, operands: list[str]) -> bool:
        """True when a rule names every tile except scratch and mask tiles (doc wording `TileData`)."""
        data = [
            o.name for o in self.spec.operands if o.kind in ("tile", "vreg") and o.role not in ("tmp", "mask")
        ]
        return set(data) <= set(operands)

    @property
    def tiles(self) -> list[str]:
        return [o.name for o in self.spec.operands if o.kind in ("tile", "vreg")]

    @property
    def value_forms(self) -> list[FormView]:
        """Overloads of an arg-reduction that also write the picked source values."""
        return [f for f in self.forms if f.value_output is not None]

    @property
    def expr_forms(self) -> list[FormView]:
        """Overloads with their own element semantics (each has its own simulator function and golden)."""
        return [f for f in self.forms if f.expr is not None]

    @cached_property
    def adapters(self) -> list[dispatching.Adapter]:
        """The CPU backend's `_IMPL` functions of this op, one per distinct dispatch signature."""
        out: dict[str, dispatching.Adapter] = {}
        for form in self.forms:
            a = form.adapter
            if a is None:
                continue
            seen = out.setdefault(a.key, a)
            if seen.runs != a.runs:
                raise ValueError(
                    f"declaration {form.index} dispatches to the same {a.function} signature as "
                    "another declaration that computes something else; give it its own arguments"
                )
        # Another op's declarations that call this op's `_IMPL` (TMOV_FP's call TMOV_IMPL) need the
        # signatures this op's own declarations do not define (TRECIP's TDIVS_IMPL call has one).
        for other in self._callers():
            for form in other.forms:
                a = dispatching.adapter(form, owner=self)
                if a is not None:
                    out.setdefault(a.key, a)
        return list(out.values())

    def _callers(self) -> list[OpView]:
        """Views of the other ops some declaration of which dispatches to this op's `_IMPL`."""
        out = []
        for loaded in self._specs.ops:
            intr = loaded.spec.intrinsic
            if loaded.spec.mnemonic == self.spec.mnemonic or intr is None:
                continue
            impls = {intr.dispatch.impl, *(o.dispatch.impl for o in intr.overloads)}
            if self.name in impls:
                out.append(OpView(loaded, self._specs))
        return out

    @cached_property
    def forms(self) -> list[FormView]:
        """Every C++ declaration of the intrinsic, the main one first."""
        intr = self.spec.intrinsic
        if intr is None:
            return []
        main = FormView(self, 0, "", list(intr.template), list(intr.params), [], {})
        return [main] + [
            FormView(
                self,
                k,
                o.summary,
                list(o.template),
                list(o.params),
                list(o.operands),
                {n: str(v) for n, v in o.test_args.items()},
            )
            for k, o in enumerate(intr.overloads, start=1)
        ]

    # ------------------------------------------------------------------ rules
    def _view(self, index: int, rule: Rule) -> RuleView:
        cpp: list[str] = []
        asm: list[str] = []
        for spelling in part(rule, TypeListing).listed_dtypes():
            d = self.targets.dtype(spelling)
            if d.name not in cpp:
                cpp.append(d.name)
                asm.append(d.asm)
        operands = rule.rule_operands
        if form_scoped(rule):  # spelled in the scope of each form it checks (FormView.rules_for)
            return RuleView(rule, index, list(operands), list(operands), cpp, asm, self)
        return RuleView(
            rule,
            index,
            [self.cpp.type_of(o) for o in operands],
            [self.cpp.dtype_of(o) for o in operands],
            cpp,
            asm,
            self,
        )

    def rule_view(self, rule: Rule) -> RuleView:
        return next(rv for rv in self.rules if rv.rule is rule)

    @cached_property
    def rules(self) -> list[RuleView]:
        return [self._view(i, r) for i, r in enumerate(self.spec.constraints)]

    @cached_property
    def variants(self) -> list[VariantView]:
        """The variants of the main declaration the operands' types select (`variants:`)."""
        return [VariantView(self, k) for k in range(len(self.spec.variants))]

    def rules_for(self, profile: str, *, static: bool | None = None) -> list[RuleView]:
        """Rules a profile enforces; where the profile does not offer the op, only that fact."""
        key = (profile, static)
        if key not in self._rules_for_memo:
            self._rules_for_memo[key] = self._rules_for(profile, static)
        return list(self._rules_for_memo[key])

    def _rules_for(self, profile: str, static: bool | None) -> list[RuleView]:
        applying = [
            rv
            for rv in self.rules
            if enforced_by(rv.rule, profile) and not part(rv.rule, TypeListing).vacuous(self, rv)
        ]
        if any(not_offered(rv.rule) for rv in applying):
            applying = [rv for rv in applying if not_offered(rv.rule)]
        out = []
        for rv in applying:
            if (static is not None and is_static(rv.rule) != static) or form_scoped(rv.rule):
                continue
            out.append(rv)
        return out

    def form_rules_for(self, profile: str) -> list[RuleView]:
        """Form-scoped rules a profile enforces, each viewed in the scope of the first form it checks
        (their own check functions: FormView.rules_for)."""
        out: list[RuleView] = []
        for form in self.forms:
            out += [rv for rv in form.rules_for(profile) if rv.rule not in [o.rule for o in out]]
        return out

    def available(self, profile: str) -> bool:
        return not any(not_offered(r.rule) and enforced_by(r.rule, profile) for r in self.rules)

    def operand_dtypes(
        self, profile: str, operand: str, when: dict[str, str] | None = None
    ) -> list[str] | None:
        """Canonical dtypes the dtype rules of `profile` admit for one operand (None: no rule names it)."""
        when = when or self.default_values
        allowed: list[str] | None = None
        for rv in self.rules_for(profile):
            listed = part(rv.rule, TypeListing).operand_dtypes(rv, operand, when)
            if listed is None:
                continue
            allowed = [d for d in (allowed if allowed is not None else listed) if d in listed]
        return allowed

    def allowed_dtypes(self, profile: str, when: dict[str, str] | None = None) -> list[str]:
        """Element types `profile` admits for the op, i.e. for its compute operand (under `when`)."""
        if not self.available(profile):
            return []
        allowed = self.operand_dtypes(profile, self.compute_operand, when)
        if allowed is None:  # no dtype rule: every dtype of the vocabulary
            allowed = [d.name for d in self.targets.dtypes]
        return allowed

    def dtype_combos(self, profile: str, when: dict[str, str] | None = None) -> list[dict[str, str]]:
        """Every legal assignment of dtypes to the tile/vreg operands. Operands whose dtype rules
        admit the same list vary together; operands no rule names follow the compute operand."""
        key = (profile, tuple(sorted((when or {}).items())))
        if key not in self._combos_memo:
            self._combos_memo[key] = self._dtype_combos(profile, when)
        return [dict(c) for c in self._combos_memo[key]]

    def _dtype_combos(self, profile: str, when: dict[str, str] | None) -> list[dict[str, str]]:
        if not self.available(profile):
            return []
        lists = {o: self.operand_dtypes(profile, o, when) for o in self.tiles}
        lists[self.compute_operand] = self.allowed_dtypes(profile, when)
        groups: list[list[str]] = []
        for o in self.tiles:
            if lists[o] is not None and lists[o] not in groups:
                groups.append(lists[o])  # type: ignore[arg-type]
        combos: list[dict[str, str]] = [{}]
        for group in groups:
            combos = [{**c, "@" + ",".join(group): d} for c in combos for d in group]
        out = []
        for c in combos:
            chosen = {o: c["@" + ",".join(lists[o])] for o in self.tiles if lists[o] is not None}  # type: ignore[arg-type]
            compute = chosen[self.compute_operand]
            out.append({o: chosen.get(o, compute) for o in self.tiles})
        return [c for c in out if self.admits(profile, c)]

    def test_dtypes(self, profile: str, when: dict[str, str] | None = None) -> list[str]:
        """`allowed_dtypes` less the types the generated test plan leaves out (`test_matrix: false`)."""
        return [d for d in self.allowed_dtypes(profile, when) if d not in self._untested]

    def test_combos(self, profile: str, when: dict[str, str] | None = None) -> list[dict[str, str]]:
        """`dtype_combos` whose every type the generated test plan runs."""
        return [c for c in self.dtype_combos(profile, when) if not set(c.values()) & self._untested]

    @property
    def _untested(self) -> set[str]:
        runs = self.kind.runs_untested(self)
        return {d.name for d in self.targets.dtypes if not d.test_matrix and d.name not in runs}

    def admits(self, profile: str, combo: dict[str, str]) -> bool:
        """Whether every static rule of the profile admits operands of these element types."""
        rules = self.rules_for(profile, static=True)
        return all(part(rv.rule, TypeFilter).admits(self, combo) for rv in rules)

    @property
    def default_values(self) -> dict[str, str]:
        if self.spec.intrinsic is None:
            return {}
        return {t.name: t.default for t in self.spec.intrinsic.template if t.kind == "value" and t.default}

    @property
    def value_variants(self) -> list[dict[str, str]]:
        """Template-argument settings that change the checked rules (TPOWS: DEFAULT, HIGH_PRECISION)."""
        variants = [self.default_values]
        for rv in self.rules:
            w = when_values(rv.rule)
            if w and not any(all(v.get(k) == x for k, x in w.items()) for v in variants):
                variants.append({**self.default_values, **w})
        return variants

    # ------------------------------------------------------------------ semantics
    @property
    def enums_of(self) -> dict[str, str]:
        """Attribute operand -> its enum."""
        return {o.name: str(o.enum) for o in self.spec.operands if o.kind == "attr"}

    @property
    def compute_operand(self) -> str:
        return self.spec.semantics.compute or self.domain

    @property
    def varying_operands(self) -> frozenset[str]:
        """Operands whose element value changes across the iteration domain (tiles, vregs, masks)."""
        return frozenset(o.name for o in self.spec.operands if o.kind not in ("scalar", "attr"))

    @property
    def applied_enums(self) -> list[EnumView]:
        used = {self.enums_of[n] for n in self.value_operands if n in self.enums_of}
        # Enums of value template parameters (TSTORE's AtomicType, ReluPreMode), for kinds that apply them.
        used |= {str(t.type) for f in self.forms for t in f.template if t.kind == "value"}
        return [e for e in self.project_enums if e.name in used]

    @property
    def value_operands(self) -> list[str]:
        """Operands the element expressions read, in spec order."""
        used = semantics.names_used(self.loaded.expr)
        for node in self.extra_exprs.values():
            used |= semantics.names_used(node)
        return [o.name for o in self.spec.operands if o.name in used]


@dataclass(frozen=True)
class VariantView:
    """A variant of an op's main declaration (`variants:` of its spec): the calls whose operand
    types the op kind's `variant_condition` selects, checked by the variant's own rules in a check
    function of their own (`check_<OP>_<variant>`) instead of the op's."""

    op: OpView
    position: int  # in the spec's `variants` list

    @property
    def spec(self) -> Variant:
        return self.op.spec.variants[self.position]

    @property
    def name(self) -> str:
        return str(self.spec.name)

    @property
    def summary(self) -> str:
        return str(self.spec.summary)

    @property
    def mechanism(self) -> str:
        return str(self.spec.mechanism)

    @property
    def prose_constraints(self) -> list[ProseConstraint]:
        return list(self.spec.prose_constraints)

    @property
    def when(self) -> str:
        """The C++ condition on the main declaration's template types that selects the variant."""
        return self.op.kind.variant_condition(self.op, self.name)

    @property
    def check_name(self) -> str:
        return f"{self.op.name}_{self.name}"

    @cached_property
    def rules(self) -> list[RuleView]:
        # Numbered after the op's own rules, so that every rule of the op has its own id.
        first = 100 * (self.position + 1)
        return [self.op._view(first + i, r) for i, r in enumerate(self.spec.constraints)]

    def rules_for(self, profile: str) -> list[RuleView]:
        """The variant's rules a profile enforces."""
        return [rv for rv in self.rules if enforced_by(rv.rule, profile)]


@dataclass(frozen=True)
class FormSpelling:
    """One C++ declaration of a tile intrinsic (the main one, index 0, or an overload) as the header
    spells it: its operands in its own scope, its public declaration's guard and return type, the
    arguments it forwards. `FormRules` and `FormView` build on it."""

    op: OpView
    index: int
    summary: str
    template: list[TemplateParam]
    params: list[Param]
    own: list[Operand]  # operands only this form takes
    test_args: dict[str, str]

    @cached_property
    def backend(self) -> FormBackend:
        """What the op's kind says of this form beyond its declaration (lower/contract.py)."""
        return self.op.kind.form_backend(self.op, cast("FormViewAPI", self))  # every form is a FormView

    def _param_of(self, operand: str) -> Param:
        return next(p for p in self.params if p.operand == operand)

    def arg(self, operand: str) -> str:
        """The name under which this form's body sees an operand of the main declaration."""
        intr = self.op.spec.intrinsic
        assert intr is not None
        if operand == intr.tmp_in_events and not any(p.operand == operand for p in self.params):
            return operand  # bound from the events pack by the body
        carrier = self.carrier(operand)
        if carrier is not None:
            return carrier.name
        if not any(p.operand == operand for p in self.params):
            stand_in = self.backend.stand_ins.get(operand)
            if stand_in is None:
                raise KeyError(f"{self.op.name} declaration {self.index} does not take {operand!r}")
            return self.arg(stand_in)
        p = self._param_of(operand)
        if p.pointer:  # a tile passed by pointer (TQUANT's exp): the checks see the tile
            return f"(*{p.name})"
        return f"{p.name}.data()[0]" if p.from_tile else p.name  # element (0, 0) in every layout

    def carrier(self, operand: str) -> TemplateParam | None:
        """The value template parameter carrying an operand in this form (TASSIGN<Addr>), if any."""
        return next((t for t in self.template if t.operand == operand), None)

    @property
    def impl_args(self) -> list[str]:
        value = [self._param_of(self.value_output).name] if self.value_output else []
        reads = [self.arg(n) for n in self.op.read_operands]
        return [self.arg(self.op.domain), *value, *reads]

    @property
    def forward_targs(self) -> list[str]:
        """Template arguments the public intrinsic passes to its profiled twin (all but the pack)."""
        return [t.name for t in self.template if t.kind != "pack"]

    @property
    def events(self) -> str:
        """The events pack the intrinsic waits on before it runs, or "" when the declaration takes
        none (TPREFETCH) or its events are its operand (TSYNC, whose waiting is what it does)."""
        last = self.params[-1] if self.params else None
        return last.name if last is not None and last.events and last.operand is None else ""

    @property
    def expr(self) -> semantics.Node | None:
        """This form's own element semantics, or None when it computes what the main form does."""
        return self.op.loaded.form_exprs.get(self.index)

    @property
    def expr_source(self) -> str | None:
        """The spec's text of this form's own element semantics (None: the main form's)."""
        intr = self.op.spec.intrinsic
        return intr.overloads[self.index - 1].expr if intr is not None and self.index else None

    @property
    def value_output(self) -> str | None:
        """An own destination that receives the source value at each index an arg-reduction picks."""
        intr = self.op.spec.intrinsic
        return intr.overloads[self.index - 1].value_output if intr is not None and self.index else None

    @property
    def cpp_expr(self) -> str:
        assert self.expr is not None
        return self.op.cpp.expr_of(self.expr)

    @property
    def own_params(self) -> list[str]:
        """Parameters carrying this form's own operands, which the simulator does not read."""
        return [
            self._param_of(o.name).name
            for o in self.own
            if o.name != self.value_output and self.carrier(o.name) is None
        ]

    @property
    def guard(self) -> str:
        """The `std::enable_if_t` condition of the public declaration: upstream's, as the spec states
        it (`guard`), or empty when upstream's declaration has none."""
        intr = self.op.spec.intrinsic
        assert intr is not None
        names = intr.overloads[self.index - 1].guard if self.index else intr.guard
        kinds = {t.name: t.kind for t in self.template}
        every = {o.name: o for o in self.op.spec.every_operand}
        carried = {p.type: every.get(str(p.operand)) for p in self.params if p.type}
        globals_ = {t for t, o in carried.items() if o is not None and o.kind == "global"}
        pipes = {t for t, o in carried.items() if o is not None and o.kind == "context"}

        def term(n: str) -> str:
            if kinds[n] == "pack":
                return f"all_events_v<{n}...>"
            if n in pipes:  # the only pipe upstream guards on: a grid's (its TPipe forms take any type)
                return f"is_grid_pipe_v<{n}>"
            return f"is_global_data_v<{n}>" if n in globals_ else f"is_tile_data_v<{n}>"

        return " && ".join(term(n) for n in names)

    @property
    def returns(self) -> str:
        """The public declaration's return type: a form that takes some types only as tiles says so as
        upstream's `TASSIGN<Addr>` does, in an `enable_if_t` return type."""
        intr = self.op.spec.intrinsic
        assert intr is not None
        tile_only = intr.overloads[self.index - 1].tile_only if self.index else []
        if tile_only:
            assert intr.returns == "void"
            terms = [f"is_tile_data_v<{t}> || is_conv_tile_v<{t}>" for t in tile_only]
            return f"std::enable_if_t<{' && '.join(f'({t})' for t in terms) if len(terms) > 1 else terms[0]}>"
        return intr.returns

    @property
    def twin_guard(self) -> str:
        """SFINAE condition of the profiled twin, ptogen's own function behind the public declaration:
        the main form accepts only events in its pack, an overload only tiles in its own tile slots.
        Upstream's declarations leave the forms of most ops apart by partial ordering alone (the
        form with a further tile parameter is the more specialised), which also takes a call that
        passes an event to the main form (`TROWEXPANDADD(dst, src0, src1, event)`) to the form with
        a scratch tile; the public declaration forwards its template arguments to the twins, whose
        guards send that call to the main form's twin."""
        forms = self.op.forms
        intr = self.op.spec.intrinsic
        assert intr is not None
        tile_only = intr.overloads[self.index - 1].tile_only if self.index else []
        if tile_only:  # a form that takes only tiles (TASSIGN<Addr>)
            return " && ".join(f"(is_tile_data_v<{t}> || is_conv_tile_v<{t}>)" for t in tile_only)
        pack = next((t.name for t in self.template if t.kind == "pack"), None)
        if pack is None:  # a declaration without an events pack (TPREFETCH) needs no guard
            return ""
        own_tiles = self.tile_slots
        if own_tiles:
            terms = [f"is_tile_data_v<{t}>" for t in own_tiles] + [f"all_events_v<{pack}...>"]
        elif self.index == 0 and any(f.tile_slots for f in forms):
            terms = [f"all_events_v<{pack}...>"]
        else:
            terms = []
        # A public guard before the pack tells forms of one shape apart (a tile or a tensor); the
        # twins of such forms need it too.
        if self.guard_before_pack:
            terms = [t for t in self.guard.split(" && ") if t not in terms] + terms
        return " && ".join(terms)

    @property
    def guard_before_pack(self) -> bool:
        """Whether upstream's guard precedes the events pack in the template head (it ends it else)."""
        intr = self.op.spec.intrinsic
        assert intr is not None
        return (intr.overloads[self.index - 1] if self.index else intr).guard_before_pack

    @property
    def tile_slots(self) -> list[str]:
        """Types of this form's tile parameters the main form does not have as tiles: its extra
        tiles and the scalars it takes as tiles."""
        types = [str(self._param_of(o).type) for o in self.extra_tiles]
        return types + [str(p.type) for p in self.params if p.from_tile]

    @property
    def extra_tiles(self) -> list[str]:
        """Tile operands this form takes as parameters beyond the main form's: its own ones, and the
        tmp the main form takes at the head of its events pack."""
        intr = self.op.spec.intrinsic
        assert intr is not None
        out = [o.name for o in self.own if o.kind == "tile"]
        tmp = intr.tmp_in_events
        if self.index and tmp and any(p.operand == tmp for p in self.params):
            out.append(tmp)
        return out

    @property
    def call_args(self) -> list[str]:
        """Arguments the public intrinsic forwards to its profiled twin (a pack expanded)."""
        return [f"{p.name}..." if p.events else p.name for p in self.params]

    @property
    def trace(self) -> tuple[str, list[str]]:
        """What the instruction trace records of a call: one role letter per argument (`O` an operand
        the op writes, `I` one it reads, scalars included) and the arguments, events left out."""
        roles = {o.name: o.role for o in [*self.op.operands, *self.own]}
        args = [p for p in self.params if not p.events]
        letters = "".join("O" if roles.get(p.operand or "") == "dst" else "I" for p in args)
        return letters, [p.name for p in args]


class FormRules(FormSpelling):
    """A declaration's rules: the form-scoped rules each profile checks on it and the arguments of
    the op's common check (and its own check and run-time verify) from its scope."""

    def _types_for(self, main_param: str) -> list[str]:
        """The distinct types of this form that play the role of a template type parameter of the
        main one (several when the main form has one type for tiles this form types apart)."""
        intr = self.op.spec.intrinsic
        assert intr is not None
        out: list[str] = []
        for p in intr.params:
            if p.operand and main_param in (p.type, p.value_type):
                carrier = self.carrier(p.operand)
                if carrier is not None:  # a compile-time constant of the parameter's type
                    t = str(carrier.type)
                    if t not in out:
                        out.append(t)
                    continue
                if not any(x.operand == p.operand for x in self.params):
                    continue  # an operand this form drops (TMATMUL_ACC in place: its input is dst)
                q = self._param_of(p.operand)
                t = str(q.type or q.value_type)
                if t not in out:
                    out.append(t)
        for p in intr.params if not out else []:  # every operand of that type dropped: their stand-ins'
            stand_ins = self.backend.stand_ins
            stand_in = stand_ins.get(str(p.operand)) if p.operand and main_param == p.type else None
            if stand_in is not None and str(self._param_of(stand_in).type) not in out:
                out.append(str(self._param_of(stand_in).type))
        if not out:
            stood = self.backend.dropped.get(main_param)
            if stood is None:
                raise KeyError(main_param)
            out.append(stood)
        return out

    @property
    def check_arg_lists(self) -> list[list[str]]:
        """Instantiations of the op's check function that cover this form's types: one, or one per
        type when the form types apart tiles the main form gives one type (TPRELU's four-tile form)."""
        intr = self.op.spec.intrinsic
        assert intr is not None
        if self.index == 0:
            return [self.op.cpp.check_args]
        pack = next((t.name for t in self.template if t.kind == "pack"), None)
        tmp = intr.tmp_in_events
        # A form that names the tmp the main form takes at the head of its pack passes it there.
        head = [str(p.type) for p in self.params if tmp and p.operand == tmp]
        mapped = {t.name: self._types_for(t.name) for t in intr.template if t.kind == "typename"}
        count = max((len(v) for v in mapped.values()), default=1)
        lists = []
        for i in range(count):
            out = []
            for t in intr.template:
                if t.kind == "pack":
                    # a form without events (MGATHER's GM -> L1 forms) passes none
                    out += head + ([f"{pack}..."] if pack is not None else [])
                elif t.kind == "value":
                    # a value this form does not declare (TFILLPAD's one-type form has no `mode`):
                    # the main declaration's default
                    declared = any(u.name == t.name for u in self.template)
                    stood = None if declared else self.backend.dropped.get(t.name)
                    if stood is not None:
                        out.append(stood)
                    else:
                        out.append(t.name if declared or t.default is None else str(t.default))
                else:
                    types = mapped[t.name]
                    out.append(types[min(i, len(types) - 1)])
            lists.append(out)
        return lists

    @property
    def check_args(self) -> list[str]:
        """Arguments of the first instantiation of the op's check function from this form's scope."""
        return self.check_arg_lists[0]

    def rules_for(self, profile: str, static: bool | None = None) -> list[RuleView]:
        """Form-scoped rules (rules.RuleBase.form_scoped) that a profile checks on this form, their
        operands spelled in this form's scope: a tile by its type, a carried operand by its name
        (`static`: only the compile-time rules, or only the run-time ones)."""
        out = []
        for i, rule in enumerate(self.op.spec.constraints):
            if not form_scoped(rule) or not in_form(rule, self):
                continue
            if not enforced_by(rule, profile) or (static is not None and is_static(rule) != static):
                continue
            types = []
            dtypes = []  # each operand's element type: a tile's DType, a scalar's own type
            for name in rule.rule_operands:
                carrier = self.carrier(name)
                if carrier is not None:
                    types.append(carrier.name)
                    dtypes.append(carrier.name)
                    continue
                p = self._param_of(name)
                types.append(str(p.type or p.value_type or p.dtype_of))
                dtypes.append(f"typename {p.type}::DType" if p.type else str(p.value_type or p.dtype_of))
            common = self.op.rule_view(rule)  # the listed element types, as the op spells them
            out.append(RuleView(rule, i, types, dtypes, common.dtypes_cpp, common.dtypes_asm, self.op))
        return out

    def unchecked_profiles(self, profiles: list[str]) -> list[str]:
        """Those of `profiles` that check this form by the op's common rules alone: the runtime
        cases, whose tiles those rules admit, call the form under them (the compile cases prove
        what its own rules admit)."""
        return [p for p in profiles if not self.rules_for(p)]

    @property
    def variants(self) -> list[VariantView]:
        """The op's variants, which the main declaration selects by its operands' types."""
        return self.op.variants if self.index == 0 else []

    @property
    def has_own_checks(self) -> bool:
        """Whether some form-scoped rule checks this form (under some profile): every profile then
        defines its check function `check_<OP>_f<index>`."""
        return any(form_scoped(r) and in_form(r, self) for r in self.op.spec.constraints)

    @property
    def has_own_verify(self) -> bool:
        """Whether some run-time rule is limited to this form (under some profile): every profile then
        defines its run-time check `verify_<OP>_f<index>`, which the form calls with its arguments."""
        return any(form_scoped(r) and in_form(r, self) and not is_static(r) for r in self.op.spec.constraints)

    @property
    def verify_params(self) -> list[Param]:
        """The parameters `verify_<OP>_f<index>` takes: the form's own, events aside."""
        return [p for p in self.params if not p.events]

    @property
    def verify_aliases(self) -> list[tuple[str, str]]:
        """(parameter, operand) for each parameter named apart from its operand (TDEINTERLEAVE's
        `src` for `src0`): the rules name operands, so the check binds each operand's name."""
        names = {p.name for p in self.verify_params}
        return [
            (p.name, str(p.operand))
            for p in self.verify_params
            if p.operand and p.operand != p.name and p.operand not in names
        ]

    @property
    def check_name(self) -> str:
        return f"{self.op.name}_f{self.index}"

    @property
    def own_check_template(self) -> list[str]:
        apart = self.op.iset.namespace is not None  # as OpCpp.check_template
        return [
            tparam_decl(t.kind, t.name, "auto" if apart else t.type)
            for t in self.template
            if t.kind != "pack"
        ]

    @property
    def own_check_args(self) -> list[str]:
        return [t.name for t in self.template if t.kind != "pack"]

    @property
    def verify_args(self) -> list[str]:
        return [self.arg(o) for o in self.op.tiles]


class FormView(FormRules):
    """One C++ declaration of a tile intrinsic: the main one (index 0) or an overload.

    Every form forwards to the same profile checks and simulator implementation, which are
    written against the main declaration; the spelling (`FormSpelling`) and rules (`FormRules`) map
    their arguments into the form's scope, and this class adds the backend dispatch and the tests.
    """

    @cached_property
    def test(self) -> FormTestView:
        """How a test kernel calls this form (lower/testcalls.py)."""
        return FormTestView(self)

    @property
    def own_result(self) -> bool:
        """Whether tests judge this form against its own golden (its own `expr`, or test values of
        its template parameters that change what the kind computes) rather than the main form's bytes."""
        return self.expr is not None or self.op.kind.form_changes_result(self.op, self)

    @property
    def impl_name(self) -> str:
        """The simulator function this form runs (its own one when it computes something else)."""
        own = self.expr is not None or self.value_output is not None
        own = own or self.dispatch.impl in self.op.kind.own_impls(self.op.spec)  # the kind's own `_IMPL`
        return f"{self.op.name}_impl" + (f"_f{self.index}" if own else "")

    @property
    def dispatch_spec(self) -> Dispatch:
        intr = self.op.spec.intrinsic
        assert intr is not None
        return intr.dispatch if self.index == 0 else intr.overloads[self.index - 1].dispatch

    @cached_property
    def dispatch(self) -> dispatching.Call:
        return dispatching.resolve(self)

    @property
    def unused_params(self) -> list[str]:
        """Own parameters the backend call does not receive either."""
        return [n for n in self.own_params if n not in self.dispatch.args]

    @cached_property
    def adapter(self) -> dispatching.Adapter | None:
        return dispatching.adapter(self)


class FamilyView:
    """A family the op belongs to (targets.yaml `families`) with its other specified members and
    their pages, which follow from targets.yaml (each member's set and name) and from which specs
    exist (emit/incremental.py keys an op's unit on both)."""

    def __init__(self, title: str, members: list[str], targets: Targets):
        self.title = title
        self.members = [(m, _page_of(m, targets)) for m in members]


def _page(doc_dir: str, short: str) -> str:
    """Where an op's instruction-set page is generated."""
    return f"docs/isa/{doc_dir}/{short}.md"


def _page_of(mnemonic: str, targets: Targets) -> str:
    doc_dir = next(s.doc_dir for s in targets.instruction_sets if mnemonic in s.order)
    return _page(doc_dir, mnemonic.rsplit(".", 1)[1])


def _doc_path(spec: OpSpec, targets: Targets) -> str:
    return _page(targets.instruction_set(spec.instruction_set).doc_dir, spec.short)


@dataclass(frozen=True)
class OpRef:
    spec: OpSpec
    iset: InstructionSetDef

    @property
    def mnemonic(self) -> str:
        return self.spec.mnemonic

    @property
    def link(self) -> str:
        return f"./{self.spec.short}.md"


class ProjectView:
    def __init__(self, specs: SpecSet):
        self.specs = specs
        self.targets = specs.targets
        self.ops = [OpView(o, specs) for o in specs.ops]
        self.enums = enum_views(specs)
        self.ops.sort(key=lambda v: (self._set_pos(v.iset.id), v.iset.order.index(v.spec.mnemonic)))

    def _set_pos(self, set_id: str) -> int:
        return [s.id for s in self.targets.instruction_sets].index(set_id)

    @property
    def tile_type(self) -> TileTypeView | None:
        """The Tile type's static rules and the cube's aliases (targets.yaml `tile_type:`)."""
        if self.targets.tile_type is None:
            return None
        return TileTypeView(self.targets.tile_type, self.profiles, self.simulated_profile)

    @property
    def tile_ops(self) -> list[OpView]:
        return [o for o in self.ops if not o.is_vector and not o.is_builtin and o.spelling is None]

    def header_ops(self, header: str) -> list[OpView]:
        """The intrinsics a header declares: its instruction sets' (`header:`), else pto_instr.hpp's."""
        return [o for o in self.tile_ops if (o.iset.header or "pto/common/pto_instr.hpp") == header]

    @property
    def namespaced_headers(self) -> list[tuple[str, str, str]]:
        """(header, its backend header, namespace inside pto) of every instruction set declared
        apart (pto::comm)."""
        sets = self.targets.instruction_sets
        return sorted(
            {
                (s.header, s.impl_header, s.namespace)
                for s in sets
                if s.header and s.impl_header and s.namespace
            }
        )

    @property
    def vector_ops(self) -> list[OpView]:
        return [o for o in self.ops if o.is_vector]

    @property
    def lane_ops(self) -> list[OpView]:
        """The vector ops that compute one result per lane (pto/vsim/ops.hpp, pto_vec.hpp)."""
        return [o for o in self.vector_ops if o.lane_fold is None]

    @property
    def fold_ops(self) -> list[OpView]:
        """The vector ops that fold lanes into fewer results (pto/vsim/reduce.hpp)."""
        return [o for o in self.vector_ops if o.lane_fold is not None]

    @property
    def profiles(self) -> list[ProfileDef]:
        return list(self.targets.profiles)

    @property
    def simulated_profile(self) -> ProfileDef:
        """The profile whose backend ptogen generates: the CPU simulator."""
        return next(p for p in self.profiles if p.name == self.targets.default_profile)

    def backend_includes(self, profile: ProfileDef, header: str = "pto/common/pto_instr.hpp") -> list[str]:
        """Headers that define the `_IMPL` functions of a header's intrinsics for a profile's
        backend, in op order, as upstream's pto_instr_impl.hpp includes them. The simulated backend
        falls back to an op's own simulator header when upstream names no file for it."""
        out: list[str] = []
        for op in self.header_ops(header):
            intr = op.spec.intrinsic
            assert intr is not None
            name = intr.backend_headers.get(profile.name)
            path = f"{_backend_dir(op, profile)}/{name}" if name else None
            if path is None and profile == self.simulated_profile and op.has_backend:
                path = op.sim_header
            if path is not None and path not in out:
                out.append(path)
        return out

    @property
    def dtype_asm(self) -> dict[str, str]:
        """Element type -> its `asm` spelling, which also names its register kind in the builtins."""
        return {d.name: d.asm for d in self.targets.dtypes}

    def simulated_backend_files(self) -> dict[str, list[OpView]]:
        """Upstream's CPU backend file names -> the ops whose generated `_IMPL`s each one gathers."""
        profile = self.simulated_profile
        files: dict[str, list[OpView]] = {}
        for op in self.tile_ops:
            intr = op.spec.intrinsic
            assert intr is not None
            name = intr.backend_headers.get(profile.name)
            if name and op.has_backend:
                files.setdefault(f"{_backend_dir(op, profile)}/{name}", []).append(op)
        return files

    def ops_in(self, set_id: str) -> list[OpView]:
        return [o for o in self.ops if o.iset.id == set_id]

    def spec_paths(self, ops: list[OpView] | None = None, with_targets: bool = True) -> list[str]:
        paths = [o.path for o in (self.ops if ops is None else ops)]
        return ([self.specs.targets_path] if with_targets else []) + paths

    def typed_ops_in(self, set_id: str) -> list[OpView]:
        """Ops of the set with element-typed operands (TSYNC, which only orders work, has none)."""
        return [
            o
            for o in self.ops_in(set_id)
            if any(x.kind in ("tile", "vreg", "global") for x in o.spec.operands)
        ]

    def type_support(self, set_id: str) -> list[tuple[str, dict[str, list[str]]]]:
        """Per dtype of the vocabulary: profile -> ops of the set that accept it."""
        rows = []
        for d in self.targets.dtypes:
            per = {
                p.name: [o.spec.short for o in self.typed_ops_in(set_id) if _accepts(o, p.name, d.name)]
                for p in self.profiles
            }
            rows.append((d.name, per))
        return rows


def _backend_dir(op: OpView, profile: ProfileDef) -> str:
    return op.iset.backend_dirs.get(profile.name, profile.backend_dir)


def _accepts(op: OpView, profile: str, dtype: str) -> bool:
    return any(dtype in op.allowed_dtypes(profile, v) for v in op.value_variants)
