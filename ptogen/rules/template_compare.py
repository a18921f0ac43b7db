"""`template_compare`: a value template argument of the intrinsic compared with one constant, where a
list of admitted values (`template_value`) does not fit: a bound (GridPipe's `Dist >= 1`, a hop
count) or one excluded value (`TPUSH<GridDirection::SOURCE>`: the host's queue is only popped).
Checked by `static_assert` on the argument; the failing kernel passes the nearest value the
comparison rejects, with legal tiles."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import Field

from ..spec.fields import CppIdent, CppQualified
from .base import Problem, RuleBase, with_note
from .page import PageContext, PageLine
from .parts import Broken, Recognised, StaticBreak, TypeFilter
from .template_value import value_params

if TYPE_CHECKING:
    from ..rule_api import RuleBreak as BreakContext
    from ..rule_api import RuleLowering as RuleView
    from ..rule_api import RuleOp as OpView
    from ..rule_api import SpecFacts as OpSpec
    from ..rule_api import TargetFacts as Targets
    from ..rule_api import TileDecl

Compare = Literal["!=", ">=", ">", "<=", "<"]
# How a page and a message say each comparison ("`Dist` must be at least `1`"), read back by `recognise`.
WORDS: dict[str, str] = {
    "!=": "must not be",
    ">=": "must be at least",
    ">": "must be greater than",
    "<=": "must be at most",
    "<": "must be less than",
}
_LINE = re.compile(
    r"^template argument `?(?P<param>[A-Za-z_]\w*)`? (?P<words>"
    + "|".join(re.escape(w) for w in sorted(WORDS.values(), key=len, reverse=True))
    + r") `?(?P<value>-?\d+|[A-Za-z_][\w:]*::\w+)`?(?: \((?P<note>[^()]*)\))?\.?$",
    re.IGNORECASE,
)


class TemplateCompareRule(RuleBase, Recognised, StaticBreak, TypeFilter):
    """The value template parameter `param` compares with `constant` as `compare` says."""

    kind: Literal["template_compare"] = "template_compare"
    param: CppIdent = Field(description="a value template parameter of the declarations checked")
    compare: Compare = Field(description="the comparison the argument must satisfy: `param compare constant`")
    constant: int | CppQualified = Field(description="an integer, or an enumerator (`GridDirection::SOURCE`)")
    page_prefixes: ClassVar[tuple[str, ...]] = ("template argument ",)

    @property
    def rule_operands(self) -> list[str]:
        return []

    def check(self, spec: OpSpec, targets: Targets) -> Iterator[Problem]:
        yield from super().check(spec, targets)
        intr = spec.intrinsic
        if intr is None:
            return
        params = value_params(intr, self.forms)
        if not any(t.name == self.param for t in params):
            known = ", ".join(t.name for t in params) or "none"
            yield ("param",), f"{self.param!r} is not a value template parameter of {intr.name} ({known})"
        if self.compare != "!=" and not isinstance(self.constant, int):
            yield ("constant",), f"`{self.compare}` orders integers; an enumerator is compared with `!=` only"

    def condition(self, op: OpView, rv: RuleView) -> str:
        return f"{self.param} {self.compare} {self.constant}"

    def text(self, op: OpView) -> str:
        return f"template argument {self.param} {WORDS[self.compare]} {self.constant}"

    def doc(self, op: OpView) -> str:
        line = f"Template argument `{self.param}` {WORDS[self.compare]} `{self.constant}`"
        return with_note(line, self.note)

    def rejected(self) -> str:
        """The value nearest the constant that the comparison rejects."""
        if not isinstance(self.constant, int):
            return str(self.constant)
        step = {"!=": 0, ">=": -1, ">": 0, "<=": 1, "<": 0}[self.compare]
        return str(self.constant + step)

    def broken_by(self, op: OpView, rv: RuleView, combo: dict[str, str], values: dict[str, str]) -> bool:
        if self.param not in values:
            return False
        got = values[self.param]
        if self.compare == "!=" or not re.fullmatch(r"-?\d+", got):
            return got == str(self.constant)
        return not _holds(int(got), self.compare, int(self.constant))

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        m = _LINE.match(line.text)
        if m is None:
            return None
        value = m.group("value")
        compare = next(c for c, w in WORDS.items() if w == m.group("words").lower())
        out: dict[str, Any] = {
            "param": m.group("param"),
            "compare": compare,
            "constant": value if "::" in value else int(value),
        }
        if m.group("note"):
            out["note"] = m.group("note").strip()
        return out

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        return Broken(dict(tiles), values={self.param: self.rejected()})


def _holds(got: int, compare: str, value: int) -> bool:
    return {">=": got >= value, ">": got > value, "<=": got <= value, "<": got < value}[compare]
