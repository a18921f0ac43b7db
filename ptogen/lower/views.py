"""Decisions the templates need, derived from a validated spec set.

Templates only spell text; everything that is decided (which rules apply to a profile, how an
operand is spelled in C++, which op comes before which) is computed here.
"""

from __future__ import annotations

import dataclasses
import posixpath
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from ..errors import located
from ..opkinds import KINDS, OpKind
from ..rules import DTypeRule, Rule
from ..spec import expr as semantics
from ..spec.load import LoadedOp, SpecSet
from ..spec.model import (
    Dispatch,
    InstructionSetDef,
    Operand,
    OpSpec,
    Param,
    ProfileDef,
    Targets,
    TemplateParam,
)
from . import dispatch as dispatching


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

    # What templates print: each rule kind decides its own spelling (rules.py).
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
        return self.rule.doc(self.op)

    def where(self, profile: str) -> str:
        """Which op under which profile: how every diagnostic of a rule begins."""
        assert self.op is not None
        return f"{self.op.name} [{profile}]"

    def message(self, profile: str) -> str:
        """The static_assert message: names op, profile and rule."""
        return f"{self.where(profile)}: {self.text}"

    def runtime_message(self, profile: str) -> str:
        """What `sim::fail(where, text)` prints (sim_support.hpp) when a run-time rule is broken."""
        return f"PTO runtime error: {self.message(profile)}"

    @property
    def id(self) -> str:
        """Stable name of the rule, used in test file names."""
        when = getattr(self.rule, "when", None)
        suffix = f"_{when.equals.split('::')[-1].lower()}" if when else ""
        return f"{self.index:02d}_{self.rule.kind}{suffix}"


@dataclass(frozen=True)
class EnumCase:
    value: str
    cpp: str
    numpy: str


@dataclass(frozen=True)
class EnumView:
    name: str
    params: list[str]
    cases: list[EnumCase]


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
        out.append(EnumView(e.name, list(e.apply.params), cases))
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
        # The test planner asks for an op's rules and dtype combinations tens of thousands of times
        # per gen; a view never changes, so each answer is computed once.
        self._rules_for_memo: dict[tuple[str, bool | None], list[RuleView]] = {}
        self._combos_memo: dict[tuple[str, tuple[tuple[str, str], ...]], list[dict[str, str]]] = {}

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
    def is_vector(self) -> bool:
        return self.kind.lanes

    @property
    def result_operands(self) -> list[str]:
        """Operands the op writes: its domain, then a lane op's extra outputs."""
        return [self.spec.semantics.domain, *self.spec.semantics.extra_outputs]

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
    def doc_path(self) -> str:
        return f"docs/isa/{self.iset.doc_dir}/{self.spec.short}.md"

    @property
    def index_link(self) -> str:
        return posixpath.relpath(f"docs/isa/{self.iset.index_page}", posixpath.dirname(self.doc_path))

    @property
    def ref_doc_path(self) -> str:
        return f"docs/isa/{self.upper}.md"

    @property
    def sim_header(self) -> str:
        return f"pto/cpu/sim/{self.spec.short}.hpp"

    @property
    def has_backend(self) -> bool:
        """Whether the op defines `_IMPL` functions of its own (TRECIP runs TDIVS's)."""
        return bool(self.adapters)

    # ------------------------------------------------------------------ C++ types of operands
    def cpp_type(self, operand: str) -> str:
        """The C++ type of an operand inside check/verify functions."""
        if self.spec.intrinsic is None:
            return f"V_{operand}"
        if operand == self.spec.intrinsic.tmp_in_events:
            return "TmpT"
        for p in self.spec.intrinsic.params:
            if p.operand == operand:
                return p.type or p.value_type or f"typename {p.dtype_of}::DType"
        raise KeyError(operand)

    def dtype_expr(self, operand: str) -> str:
        """C++ spelling of an operand's element type inside the check function."""
        if self.spec.operand(operand).kind == "scalar":
            return self.cpp_type(operand)
        return f"typename {self.cpp_type(operand)}::DType"

    @property
    def check_template(self) -> list[str]:
        """Template parameter declarations of the profile check function."""
        if self.spec.intrinsic is None:
            return [f"typename V_{o.name}" for o in self.spec.operands if o.kind == "vreg"]
        return [_tparam_decl(t.kind, t.name, t.type) for t in self.spec.intrinsic.template]

    @property
    def check_args(self) -> list[str]:
        """Arguments that instantiate the check function from the intrinsic's scope."""
        if self.spec.intrinsic is None:
            return ["vreg<T, N>" for o in self.spec.operands if o.kind == "vreg"]
        return [f"{t.name}..." if t.kind == "pack" else t.name for t in self.spec.intrinsic.template]

    @property
    def verify_types(self) -> list[str]:
        """Distinct template types of the tile operands, for the run-time verify function."""
        out: list[str] = []
        for o in self.tiles:
            t = self.cpp_type(o)
            if t not in out:
                out.append(t)
        return out

    @property
    def dependent_type(self) -> str:
        """A type template parameter, to make an always-false static_assert dependent."""
        if self.spec.intrinsic is None:
            return self.check_args[0]
        return next(t.name for t in self.spec.intrinsic.template if t.kind == "typename")

    def _arg_name(self, operand: str) -> str:
        by_operand = {p.operand: p.name for p in self.spec.intrinsic.params} if self.spec.intrinsic else {}
        return by_operand.get(operand, operand)

    @property
    def verify_args(self) -> list[str]:
        return [self._arg_name(o) for o in self.tiles]

    @property
    def impl_args(self) -> list[str]:
        """Arguments of the simulator implementation: the domain operand, then what the math reads."""
        return [self._arg_name(n) for n in (self.spec.semantics.domain, *self.read_operands)]

    @property
    def read_operands(self) -> list[str]:
        """Operands the math reads other than the destination (which it may also read: in/out ops)."""
        return [n for n in self.value_operands if n != self.spec.semantics.domain]

    @property
    def reads_domain(self) -> bool:
        return self.spec.semantics.domain in self.value_operands

    @property
    def mask_name(self) -> str:
        """The predicate mask of a vector op (other mask operands, like a carry-in, are values)."""
        return next(o.name for o in self.spec.operands if o.kind == "mask" and o.role == "mask")

    @property
    def extra_exprs(self) -> dict[str, semantics.Node]:
        return self.loaded.extra_exprs

    @property
    def vector_outputs(self) -> list[dict[str, str]]:
        """Results of a vector op: the domain first, then extra outputs, with their C++ and numpy math."""
        if not self.kind.lanes:
            return []
        outs = [(self.spec.semantics.domain, self.loaded.expr)] + list(self.extra_exprs.items())
        return [
            {
                "name": name,
                "kind": self.spec.operand(name).kind,
                "type": "pto::vreg<T, N>" if self.spec.operand(name).kind == "vreg" else "pto::mask<N>",
                "cpp": self.cpp_of(node),
                "numpy": semantics.to_numpy(node, self.enums_of),
            }
            for name, node in outs
        ]

    @property
    def vector_return(self) -> str:
        types = [o["type"] for o in self.vector_outputs]
        return types[0] if len(types) == 1 else f"std::tuple<{', '.join(types)}>"

    @property
    def vector_params(self) -> list[str]:
        """Parameters of a vector op's C++ function, in operand order (dst first when merged)."""
        params = []
        if self.spec.semantics.inactive_lanes == "preserve":
            params.append(f"const vreg<T, N>& {self.spec.semantics.domain}_in")
        for o in self.spec.operands:
            if o.role == "dst":
                continue
            spelled = {"vreg": "const vreg<T, N>&", "scalar": "T", "mask": "const mask<N>&"}[o.kind]
            params.append(f"{spelled} {o.name}")
        return params

    def element_at(self, operand: str) -> tuple[str, str]:
        """Row and column (C++, over loop indices r and c) of the element a tile operand supplies."""
        broadcast = self.spec.operand(operand).broadcast
        return {"per_row": ("r", "0"), "per_col": ("0", "c")}.get(broadcast or "", ("r", "c"))

    @property
    def impl_returns(self) -> str:
        """What the backend's `_IMPL` returns: nothing, unless the intrinsic hands back its result
        (an asynchronous op's `comm::AsyncEvent`); a `RecordEvent` is made by the intrinsic itself."""
        intr = self.spec.intrinsic
        return "void" if intr is None or intr.returns == "RecordEvent" else intr.returns

    @property
    def flat_runs(self) -> bool:
        """Whether the simulator walks a valid region spanning whole rows of row-major tiles as one
        contiguous run: every tile the element math reads is read at (r, c) as a plain element (no
        broadcast, no packed bits), and the math makes a library call per element. A call-bound loop
        per row lost up to 1.5x to a single loop (TFMOD, TREM, TEXP on x86-64); vectorised math is
        as fast or faster per row, so it keeps that loop."""
        tiles = [n for n in self.value_operands if self.spec.operand(n).kind == "tile"]
        plain = all(self.element_at(n) == ("r", "c") and not self.spec.operand(n).packed for n in tiles)
        return plain and any(semantics.uses_function(self.loaded.expr, f) for f in semantics.LIBRARY_CALLS)

    @property
    def vector_param_names(self) -> list[str]:
        return [p.rsplit(" ", 1)[1] for p in self.vector_params]

    def covers_data_tiles(self, operands: list[str]) -> bool:
        """True when a rule names every tile except scratch and mask tiles (doc wording `TileData`)."""
        data = [
            o.name for o in self.spec.operands if o.kind in ("tile", "vreg") and o.role not in ("tmp", "mask")
        ]
        return set(data) <= set(operands)

    @property
    def call_spelling(self) -> str:
        """How an index page names the main declaration: `TADDS(dst, src, scalar)`, `TSYNC(events...)`."""
        if self.spec.intrinsic is None:
            return f"{self.name}({', '.join(o.name for o in self.spec.inputs)})"
        args = [f"{p.name}..." if p.events else p.name for p in self.spec.intrinsic.params if p.operand]
        return f"{self.name}({', '.join(args)})"

    @property
    def tiles(self) -> list[str]:
        return [o.name for o in self.spec.operands if o.kind in ("tile", "vreg")]

    @property
    def doc_inputs(self) -> list[Operand]:
        """Rows of the Inputs table: the main declaration's inputs, then those only overloads take."""
        out = list(self.spec.inputs)
        for form in self.forms[1:]:
            out += [o for o in form.own if o.name not in {x.name for x in out}]
        return out

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
        return list(out.values())

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
        for spelling in getattr(rule, "dtypes", []):
            d = self.targets.dtype(spelling)
            if d.name not in cpp:
                cpp.append(d.name)
                asm.append(d.asm)
        operands = rule.rule_operands
        if rule.form_scoped:  # spelled in the scope of each form it checks (FormView.rules_for)
            return RuleView(rule, index, list(operands), list(operands), cpp, asm, self)
        return RuleView(
            rule,
            index,
            [self.cpp_type(o) for o in operands],
            [self.dtype_expr(o) for o in operands],
            cpp,
            asm,
            self,
        )

    def rule_view(self, rule: Rule) -> RuleView:
        return next(rv for rv in self.rules if rv.rule is rule)

    @cached_property
    def rules(self) -> list[RuleView]:
        return [self._view(i, r) for i, r in enumerate(self.spec.constraints)]

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
            if (rv.rule.profiles is None or profile in rv.rule.profiles) and not rv.rule.vacuous(self, rv)
        ]
        if any(rv.kind == "unavailable" for rv in applying):
            applying = [rv for rv in applying if rv.kind == "unavailable"]
        out = []
        for rv in applying:
            if (static is not None and rv.rule.is_static != static) or rv.rule.form_scoped:
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
        return not any(
            r.kind == "unavailable" and (r.rule.profiles is None or profile in r.rule.profiles)
            for r in self.rules
        )

    def operand_dtypes(
        self, profile: str, operand: str, when: dict[str, str] | None = None
    ) -> list[str] | None:
        """Canonical dtypes the dtype rules of `profile` admit for one operand (None: no rule names it)."""
        when = when or self.default_values
        allowed: list[str] | None = None
        for rv in self.rules_for(profile):
            if not isinstance(rv.rule, DTypeRule) or operand not in rv.rule.operands:
                continue
            if rv.rule.when and when.get(rv.rule.when.param) != rv.rule.when.equals:
                continue
            allowed = [d for d in (allowed if allowed is not None else rv.dtypes_cpp) if d in rv.dtypes_cpp]
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
        return {d.name for d in self.targets.dtypes if not d.test_matrix}

    def admits(self, profile: str, combo: dict[str, str]) -> bool:
        """Whether every static rule of the profile admits operands of these element types."""
        return all(rv.rule.admits(self, combo) for rv in self.rules_for(profile, static=True))

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
            w = getattr(rv.rule, "when", None)
            if w and all(v.get(w.param) != w.equals for v in variants):
                variants.append({**self.default_values, w.param: w.equals})
        return variants

    def rule_groups(self) -> list[tuple[str | None, list[RuleView]]]:
        """Doc grouping: (None, common rules) and (profile, its own rules) in first-appearance order."""
        groups: dict[str | None, list[RuleView]] = {}
        for rv in self.rules:
            keys = [None] if rv.rule.profiles is None else list(rv.rule.profiles)
            for key in keys:
                groups.setdefault(key, []).append(rv)
        for pc in self.spec.prose_constraints:  # a profile with prose constraints only (TPREFETCH_ASYNC)
            for key in pc.profiles or []:
                groups.setdefault(key, [])
        return list(groups.items())

    def prose_for(self, profile: str | None) -> list[str]:
        return [
            pc.text
            for pc in self.spec.prose_constraints
            if (pc.profiles is None and profile is None)
            or (profile is not None and profile in (pc.profiles or []))
        ]

    # ------------------------------------------------------------------ semantics
    @property
    def math(self) -> str:
        """LaTeX of the semantics; the op kind supplies the index notation (or the whole math)."""
        own = self.kind.math(self)
        return own if own is not None else self.math_of(self.loaded.expr)

    def math_of(self, expr: semantics.Node) -> str:
        dst = self.spec.semantics.domain
        lhs = rf"\mathrm{{{dst}}}_{{{self.kind.result_index(self)}}}"
        return f"{lhs} = {semantics.to_latex(expr, self._latex_ref, self.kind.reduce_index(self))}"

    def _latex_ref(self, name: str) -> str:
        kind = self.spec.operand(name).kind
        index = self.kind.operand_index(self, name)
        return rf"\mathrm{{{name}}}" + (f"_{{{index}}}" if kind in ("tile", "vreg", "global") else "")

    @property
    def enums_of(self) -> dict[str, str]:
        """Attribute operand -> its enum."""
        return {o.name: str(o.enum) for o in self.spec.operands if o.kind == "attr"}

    @property
    def compute_operand(self) -> str:
        return self.spec.semantics.compute or self.spec.semantics.domain

    @property
    def cpp_expr(self) -> str:
        return self.cpp_of(self.loaded.expr)

    @property
    def numpy_expr(self) -> str:
        return self.numpy_of(self.loaded.expr)

    def cpp_of(self, expr: semantics.Node) -> str:
        """C++ of an expression over `<operand>_v` element values in the compute type `C`."""
        return semantics.to_cpp(expr, lambda n: f"{n}_v", "C", self.enums_of, self.varying_operands)

    @property
    def varying_operands(self) -> frozenset[str]:
        """Operands whose element value changes across the iteration domain (tiles, vregs, masks)."""
        return frozenset(o.name for o in self.spec.operands if o.kind not in ("scalar", "attr"))

    def numpy_of(self, expr: semantics.Node) -> str:
        return semantics.to_numpy(expr, self.enums_of, self.kind.reduce_axis(self))

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
class FormView:
    """One C++ declaration of a tile intrinsic: the main one (index 0) or an overload.

    Every form forwards to the same profile checks and simulator implementation, which are
    written against the main declaration; this class maps their arguments into the form's scope.
    """

    op: OpView
    index: int
    summary: str
    template: list[TemplateParam]
    params: list[Param]
    own: list[Operand]  # operands only this form takes
    test_args: dict[str, str]

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
        p = self._param_of(operand)
        return f"{p.name}.data()[0]" if p.from_tile else p.name  # element (0, 0) in every layout

    @property
    def scalar_tiles(self) -> list[dict[str, str]]:
        """Parameters passing a scalar operand as a tile: the name of the test's tile (`<param>_f<k>`),
        the main call's argument it carries and the tile operand whose type and data it copies (the
        one whose element type types the scalar in the main declaration)."""
        intr = self.op.spec.intrinsic
        assert intr is not None
        out = []
        for p in self.params:
            if not p.from_tile:
                continue
            main = next(q for q in intr.params if q.operand == p.operand)
            like = next(q.operand for q in intr.params if q.type is not None and q.type == main.dtype_of)
            out.append({"name": f"{p.operand}_f{self.index}", "operand": str(p.operand), "like": str(like)})
        return out

    def carrier(self, operand: str) -> TemplateParam | None:
        """The value template parameter carrying an operand in this form (TASSIGN<Addr>), if any."""
        return next((t for t in self.template if t.operand == operand), None)

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
                q = self._param_of(p.operand)
                t = str(q.type or q.value_type)
                if t not in out:
                    out.append(t)
        if not out:
            raise KeyError(main_param)
        return out

    @property
    def check_arg_lists(self) -> list[list[str]]:
        """Instantiations of the op's check function that cover this form's types: one, or one per
        type when the form types apart tiles the main form gives one type (TPRELU's four-tile form)."""
        intr = self.op.spec.intrinsic
        assert intr is not None
        if self.index == 0:
            return [self.op.check_args]
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
                    out.append(t.name)
                else:
                    types = mapped[t.name]
                    out.append(types[min(i, len(types) - 1)])
            lists.append(out)
        return lists

    @property
    def check_args(self) -> list[str]:
        """Arguments of the first instantiation of the op's check function from this form's scope."""
        return self.check_arg_lists[0]

    # ------------------------------------------------------------------ form-scoped rules
    def rules_for(self, profile: str) -> list[RuleView]:
        """Form-scoped rules (rules.RuleBase.form_scoped) that a profile checks on this form, their
        operands spelled in this form's scope: a tile by its type, a carried operand by its name."""
        out = []
        for i, rule in enumerate(self.op.spec.constraints):
            if not rule.form_scoped or not rule.in_form(self):
                continue
            if rule.profiles is not None and profile not in rule.profiles:
                continue
            types = []
            for name in rule.rule_operands:
                carrier = self.carrier(name)
                if carrier is not None:
                    types.append(carrier.name)
                    continue
                p = self._param_of(name)
                types.append(str(p.type or p.value_type or p.dtype_of))
            out.append(RuleView(rule, i, types, types, [], [], self.op))
        return out

    def unchecked_profiles(self, profiles: list[str]) -> list[str]:
        """Those of `profiles` that check this form by the op's common rules alone: the runtime
        cases, whose tiles those rules admit, call the form under them (the compile cases prove
        what its own rules admit)."""
        return [p for p in profiles if not self.rules_for(p)]

    @property
    def has_own_checks(self) -> bool:
        """Whether some form-scoped rule checks this form (under some profile): every profile then
        defines its check function `check_<OP>_f<index>`."""
        return any(r.form_scoped and r.in_form(self) for r in self.op.spec.constraints)

    @property
    def check_name(self) -> str:
        return f"{self.op.name}_f{self.index}"

    @property
    def own_check_template(self) -> list[str]:
        return [_tparam_decl(t.kind, t.name, t.type) for t in self.template if t.kind != "pack"]

    @property
    def own_check_args(self) -> list[str]:
        return [t.name for t in self.template if t.kind != "pack"]

    @property
    def verify_args(self) -> list[str]:
        return [self.arg(o) for o in self.op.tiles]

    @property
    def impl_args(self) -> list[str]:
        value = [self._param_of(self.value_output).name] if self.value_output else []
        reads = [self.arg(n) for n in self.op.read_operands]
        return [self.arg(self.op.spec.semantics.domain), *value, *reads]

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

    def test_call_args(self, main_args: list[str]) -> list[str]:
        """Arguments that call this form with the values a test passes to the main form (whose
        non-pack parameters `main_args` follows); own tiles are `<name>_f<index>` scratch tiles."""
        intr = self.op.spec.intrinsic
        assert intr is not None
        by_operand = self.main_args_by_operand(main_args)
        own = {o.name: o for o in self.own}
        out = []
        for p in self.params:
            if p.events:
                continue
            name = str(p.operand)
            if p.from_tile or (name in self.extra_tiles and name not in own):  # a tile the test declares
                out.append(f"{name}_f{self.index}")
            elif name in own:
                out.append(f"{name}_f{self.index}" if own[name].kind == "tile" else self.test_args[name])
            else:
                out.append(by_operand[name])
        return out

    def main_args_by_operand(self, main_args: list[str]) -> dict[str, str]:
        """The main call's arguments (`main_args`, its non-pack parameters in order) by operand."""
        intr = self.op.spec.intrinsic
        assert intr is not None
        return dict(zip([str(p.operand) for p in intr.params if not p.events], main_args, strict=False))

    @property
    def expr(self) -> semantics.Node | None:
        """This form's own element semantics, or None when it computes what the main form does."""
        return self.op.loaded.form_exprs.get(self.index)

    def template_value(self, name: str) -> str:
        """The value generated tests pass for one of this form's value template parameters: the
        overload's `test_template_args`, else its default, else the first value of its enum."""
        intr = self.op.spec.intrinsic
        given = intr.overloads[self.index - 1].test_template_args if intr is not None and self.index else {}
        t = next(t for t in self.template if t.name == name)
        if name in given:
            return given[name]
        if t.default is not None:
            return str(t.default)
        return f"{t.type}::{next(e.values[0] for e in self.op.targets.enums if e.name == t.type)}"

    def test_template_args(
        self, main_explicit: list[str], type_names: dict[str, str], main_args: list[str] | None = None
    ) -> list[str]:
        """Explicit template arguments of a test call of this form: the main form's explicit values
        (`main_explicit`) for the value parameters it shares, the test values of its own, and, where
        a value parameter follows type parameters (TSTORE's `atomicType`), those types too, spelled
        by `type_names` (operand -> C++ type). Empty when every value parameter may be deduced or
        defaulted and the main form passes none; the main form's explicit values unchanged when the
        form states no test values of its own."""
        intr = self.op.spec.intrinsic
        assert intr is not None
        main_values = [t.name for t in intr.template if t.kind == "value"]
        given = dict(zip(main_values, main_explicit, strict=False))
        intr_own = dict(intr.overloads[self.index - 1].test_template_args) if self.index else {}
        by_operand = self.main_args_by_operand(main_args or [])
        for t in self.template:  # an operand the main form passes as an argument (TASSIGN<Addr>)
            if t.operand is not None and t.operand in by_operand:
                intr_own[t.name] = by_operand[t.operand]
        if not intr_own:  # the form takes the main form's explicit values as they are
            return list(main_explicit)
        last = max(
            (
                i
                for i, t in enumerate(self.template)
                if t.kind == "value" and (t.name in given or t.name in intr_own)
            ),
            default=-1,
        )
        out = []
        for t in self.template[: last + 1]:
            if t.kind == "value":
                out.append(given.get(t.name) or intr_own.get(t.name) or self.template_value(t.name))
            else:
                holder = next(p for p in self.params if p.type == t.name and not p.events)
                out.append(type_names[str(holder.operand)])
        return out

    @property
    def own_result(self) -> bool:
        """Whether tests judge this form against its own golden (its own `expr`, or test values of
        its template parameters that change what the kind computes) rather than the main form's bytes."""
        return self.expr is not None or self.op.kind.form_changes_result(self.op, self)

    @property
    def value_output(self) -> str | None:
        """An own destination that receives the source value at each index an arg-reduction picks."""
        intr = self.op.spec.intrinsic
        return intr.overloads[self.index - 1].value_output if intr is not None and self.index else None

    @property
    def impl_name(self) -> str:
        """The simulator function this form runs (its own one when it computes something else)."""
        own = self.expr is not None or self.value_output is not None
        return f"{self.op.name}_impl" + (f"_f{self.index}" if own else "")

    def value_tile(self, tiles: list[Any]) -> Any:
        """Test declaration of the value output: the destination's shape, the source's element type."""
        by_name = {t.name: t for t in tiles}
        dst = by_name[self.op.spec.semantics.domain]
        src = by_name[self.op.kind.region_source(self.op)]
        return dataclasses.replace(dst, name=f"{self.value_output}_f{self.index}", dtype=src.dtype)

    @property
    def cpp_expr(self) -> str:
        assert self.expr is not None
        return self.op.cpp_of(self.expr)

    @property
    def numpy_expr(self) -> str:
        assert self.expr is not None
        return self.op.numpy_of(self.expr)

    @property
    def own_params(self) -> list[str]:
        """Parameters carrying this form's own operands, which the simulator does not read."""
        return [
            self._param_of(o.name).name
            for o in self.own
            if o.name != self.value_output and self.carrier(o.name) is None
        ]

    @property
    def own_tiles(self) -> list[str]:
        """Scratch tiles a test passes to this form (the value output is declared on its own)."""
        tiles = [o.name for o in self.own if o.kind == "tile" and o.name != self.value_output]
        tiles += [t for t in self.extra_tiles if t not in tiles and t != self.value_output]
        return [f"{name}_f{self.index}" for name in tiles]

    @property
    def guard(self) -> str:
        """The `std::enable_if_t` condition of the public declaration: upstream's, as the spec states
        it (`guard`), or empty when upstream's declaration has none."""
        intr = self.op.spec.intrinsic
        assert intr is not None
        names = intr.overloads[self.index - 1].guard if self.index else intr.guard
        kinds = {t.name: t.kind for t in self.template}
        return " && ".join(
            f"all_events_v<{n}...>" if kinds[n] == "pack" else f"is_tile_data_v<{n}>" for n in names
        )

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
            return " && ".join(f"is_tile_data_v<{t}>" for t in tile_only)
        pack = next((t.name for t in self.template if t.kind == "pack"), None)
        if pack is None:  # a declaration without an events pack (TPREFETCH) needs no guard
            return ""
        own_tiles = self.tile_slots
        if own_tiles:
            return " && ".join(f"is_tile_data_v<{t}>" for t in own_tiles) + f" && all_events_v<{pack}...>"
        if self.index == 0 and any(f.tile_slots for f in forms):
            return f"all_events_v<{pack}...>"
        return ""

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

    # ------------------------------------------------------------------ backend dispatch
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


@dataclass(frozen=True)
class OpRef:
    spec: OpSpec
    iset: InstructionSetDef

    @property
    def link(self) -> str:
        return f"./{self.spec.short}.md"


def _tparam_decl(kind: str, name: str, vtype: str | None) -> str:
    if kind == "pack":
        return f"typename... {name}"
    if kind == "value":
        return f"{vtype} {name}"
    return f"typename {name}"


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
    def tile_ops(self) -> list[OpView]:
        return [o for o in self.ops if not o.is_vector]

    @property
    def vector_ops(self) -> list[OpView]:
        return [o for o in self.ops if o.is_vector]

    @property
    def profiles(self) -> list[ProfileDef]:
        return list(self.targets.profiles)

    @property
    def simulated_profile(self) -> ProfileDef:
        """The profile whose backend ptogen generates: the CPU simulator."""
        return next(p for p in self.profiles if p.name == self.targets.default_profile)

    def backend_includes(self, profile: ProfileDef) -> list[str]:
        """Headers that define the `_IMPL` functions of the tile intrinsics for a profile's backend,
        in op order, as upstream's pto_instr_impl.hpp includes them. The simulated backend falls
        back to an op's own simulator header when upstream names no file for it."""
        out: list[str] = []
        for op in self.tile_ops:
            intr = op.spec.intrinsic
            assert intr is not None
            name = intr.backend_headers.get(profile.name)
            path = f"{profile.backend_dir}/{name}" if name else None
            if path is None and profile == self.simulated_profile and op.has_backend:
                path = op.sim_header
            if path is not None and path not in out:
                out.append(path)
        return out

    def simulated_backend_files(self) -> dict[str, list[OpView]]:
        """Upstream's CPU backend file names -> the ops whose generated `_IMPL`s each one gathers."""
        profile = self.simulated_profile
        files: dict[str, list[OpView]] = {}
        for op in self.tile_ops:
            intr = op.spec.intrinsic
            assert intr is not None
            name = intr.backend_headers.get(profile.name)
            if name and op.has_backend:
                files.setdefault(f"{profile.backend_dir}/{name}", []).append(op)
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


def _accepts(op: OpView, profile: str, dtype: str) -> bool:
    return any(dtype in op.allowed_dtypes(profile, v) for v in op.value_variants)
