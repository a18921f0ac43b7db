"""What every rule kind shares: RuleBase (what every rule has), the helpers kinds break themselves
with, and the prose helpers rules name their operands with. The parts only some kinds have (and the
test-break record) are in parts.py, the page records `ptogen import` hands them in page.py."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field

from ..spec.fields import CppIdent, CppQualified, InlineText, ProfileName, Strict
from .parts import (
    ScalarOperands,
    TileFilter,
    TypeListing,
    VectorOps,
    enforced_by,
    form_scoped,
    part,
    when_values,
)

if TYPE_CHECKING:
    from ..rule_api import RuleBreak as BreakContext
    from ..rule_api import RuleLowering as RuleView
    from ..rule_api import RuleOp as OpView
    from ..rule_api import SpecFacts as OpSpec
    from ..rule_api import TargetFacts as Targets

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


class RuleBase(Strict):
    """What every rule has: its fields, its spec check, its C++ condition, its message and its doc line.
    Behaviour only some kinds have is a part (parts.py) those kinds inherit; behaviour one kind has
    lives in that kind's module."""

    kind: str
    profiles: list[ProfileName] | None = Field(
        default=None, description="profiles it applies to; omitted = all"
    )
    note: InlineText | None = Field(default=None, description="parenthetical shown after the doc line")
    forms: list[Annotated[int, Field(ge=0)]] | None = Field(
        default=None,
        description="the declarations it checks (0: the main one, k: overload k), each in its own scope; "
        "omitted = every declaration, through the op's common check",
    )

    @property
    def rule_operands(self) -> list[str]:
        return list(getattr(self, "operands", []))

    def check(self, spec: OpSpec, targets: Targets) -> Iterator[Problem]:
        """Problems of this rule within its op (the shape of the rule itself is a validator)."""
        operands = checked_operands(self, spec)
        scalars = isinstance(self, ScalarOperands)
        for j, name in enumerate(self.rule_operands):
            bound = operands.get(name)
            ok = bound is not None and (
                bound.kind in ("tile", "vreg") or (scalars and bound.kind == "scalar")
            )
            if not ok:
                yield ("operands", j), f"{name!r} is not a tile or vector operand of this op"
        if not isinstance(self, VectorOps) and spec.intrinsic is None:
            yield ("kind",), f"{self.kind} rules apply to tile intrinsics only"

    def condition(self, op: OpView, rv: RuleView) -> str:
        """The C++ predicate, over the operands' types (`rv.types`) or, run-time, their names."""
        raise NotImplementedError

    def text(self, op: OpView) -> str:
        """Plain statement: the diagnostic after `OP [PROFILE]: ` and the tests' expectation."""
        raise NotImplementedError

    def doc(self, op: OpView) -> str:
        """The constraint line of the doc pages (Markdown)."""
        raise NotImplementedError


def checked_operands(rule: RuleBase, spec: OpSpec) -> dict[str, Any]:
    """The operands of the declarations the rule checks, by name: the main declaration's, and those a
    declaration it is limited to (`forms`) takes on its own (TCONCAT's index tiles)."""
    operands = {o.name: o for o in spec.operands}
    overloads = spec.intrinsic.overloads if spec.intrinsic is not None else []
    for k in rule.forms or []:
        if 0 < k <= len(overloads):
            operands.update({o.name: o for o in overloads[k - 1].operands if o.name not in operands})
    return operands


def free_location(bx: BreakContext, rule: RuleBase, operand: str, avoid: list[str]) -> str:
    """A location for `operand` outside `avoid` that every other rule of the profile checking all
    declarations admits, so that a case breaking `rule` by location breaks nothing else."""
    others = [
        part(r, TileFilter)
        for r in bx.op.spec.constraints
        if r is not rule and not form_scoped(r) and enforced_by(r, bx.profile)
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
        if other is rule or not enforced_by(other, bx.profile) or other.forms != rule.forms:
            continue
        listed = part(other, TypeListing).operand_dtypes(bx.op.rule_view(other), operand, when_values(other))
        if listed is not None:
            allowed = [d for d in allowed if d in listed]
    return allowed


def with_note(line: str, note: str | None) -> str:
    return f"{line} ({note})." if note else f"{line}."


def pairs_line(
    title: str, operands: list[str], pairs: Iterable[tuple[str, Sequence[str]]], note: str | None
) -> str:
    """The doc line of a table of pairs (`Type pairs (`a` to `b`): `x` to `y`, `z`; ...`), which the
    pair kinds' `recognise` reads back."""
    a, b = operands
    listed = "; ".join(f"`{s}` to {', '.join(f'`{d}`' for d in ds)}" for s, ds in pairs)
    return with_note(f"{title} (`{a}` to `{b}`): {listed}", note)


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
