"""The text of an op's documentation pages: the spec's prose, the inputs table, the constraint
groups, the LaTeX of the semantics and the links between pages.

One of the lowering's outputs: templates reach it as `op.doc`. It reads only the op's semantic
core (`kind_api.OpViewAPI`).
"""

from __future__ import annotations

import posixpath

from ..kind_api import OpViewAPI, RuleViewAPI
from ..spec import expr as semantics
from ..spec.model import Example, Intrinsic, Operand, ProfileNote, SyntaxForms
from .glance import Glance


class OpDoc:
    """What the pages of one op say (`op.doc`)."""

    def __init__(self, op: OpViewAPI):
        self.op = op

    # The spec's own prose, as the pages show it.
    @property
    def mnemonic(self) -> str:
        return self.op.spec.mnemonic

    @property
    def summary(self) -> str:
        return self.op.spec.summary

    @property
    def mechanism(self) -> str:
        return self.op.spec.mechanism

    @property
    def syntax(self) -> SyntaxForms:
        return self.op.spec.syntax

    @property
    def side_effects(self) -> str:
        return self.op.spec.side_effects

    @property
    def exceptions(self) -> list[str]:
        return list(self.op.spec.exceptions)

    @property
    def profile_notes(self) -> list[ProfileNote]:
        return list(self.op.spec.profile_notes)

    @property
    def examples(self) -> list[Example]:
        return list(self.op.spec.examples)

    @property
    def notes(self) -> list[str]:
        """The spec's notes, then its argued upstream bugs, each in the sentence the importer reads."""
        return [*self.op.spec.notes, *(b.note for b in self.op.spec.upstream_bugs)]

    @property
    def intrinsic(self) -> Intrinsic | None:
        return self.op.spec.intrinsic

    @property
    def outputs(self) -> list[Operand]:
        """Rows of the Results table."""
        return list(self.op.spec.outputs)

    @property
    def glance(self) -> Glance:
        """The at-a-glance tables at the top of the pages."""
        return Glance(self.op)

    @property
    def index_link(self) -> str:
        return posixpath.relpath(f"docs/isa/{self.op.iset.index_page}", posixpath.dirname(self.op.doc_path))

    @property
    def inputs(self) -> list[Operand]:
        """Rows of the Inputs table: the main declaration's inputs, then those only overloads take."""
        out = list(self.op.spec.inputs)
        for form in self.op.forms[1:]:
            out += [o for o in form.own if o.name not in {x.name for x in out}]
        return out

    def rule_groups(self) -> list[tuple[str | None, list[RuleViewAPI]]]:
        """Doc grouping: (None, common rules) and (profile, its own rules) in first-appearance order."""
        groups: dict[str | None, list[RuleViewAPI]] = {}
        for rv in self.op.rules:
            keys = [None] if rv.rule.profiles is None else list(rv.rule.profiles)
            for key in keys:
                groups.setdefault(key, []).append(rv)
        for pc in self.op.spec.prose_constraints:  # a profile with prose constraints only (TPREFETCH_ASYNC)
            for key in pc.profiles or []:
                groups.setdefault(key, [])
        return list(groups.items())

    def prose_for(self, profile: str | None) -> list[str]:
        return [
            pc.text
            for pc in self.op.spec.prose_constraints
            if (pc.profiles is None and profile is None)
            or (profile is not None and profile in (pc.profiles or []))
        ]

    @property
    def math(self) -> str:
        """LaTeX of the semantics; the op kind supplies the index notation (or the whole math)."""
        own = self.op.kind.math(self.op)
        return own if own is not None else self.math_of(self.op.loaded.expr)

    def functions_used(self) -> list[str]:
        """The semantics language's functions the page's formulas call, in a fixed order (the page
        explains those whose symbol is not standard mathematics)."""
        exprs = [self.op.loaded.expr, *(f.expr for f in self.op.expr_forms)]
        return [
            name
            for name in semantics.FUNCTIONS
            if any(e is not None and semantics.uses_function(e, name) for e in exprs)
        ]

    def math_of(self, expr: semantics.Node) -> str:
        dst = self.op.domain
        lhs = rf"\mathrm{{{dst}}}_{{{self.op.kind.result_index(self.op)}}}"
        return f"{lhs} = {semantics.to_latex(expr, self._latex_ref, self.op.kind.reduce_index(self.op))}"

    def _latex_ref(self, name: str) -> str:
        kind = self.op.operand(name).kind
        index = self.op.kind.operand_index(self.op, name)
        return rf"\mathrm{{{name}}}" + (f"_{{{index}}}" if kind in ("tile", "vreg", "global") else "")
