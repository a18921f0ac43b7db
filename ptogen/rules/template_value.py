"""`template_value`: a value template argument of the intrinsic takes one of a few listed values
(TTRI's `isUpperOrLower` is 0 or 1). Checked by `static_assert` on the argument itself, so it names
no operand; the failing kernel passes a value outside the list."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import Field

from ..spec.fields import CppIdent
from .base import Broken, PageContext, PageLine, Problem, RuleBase, _with_note, or_list

if TYPE_CHECKING:
    from ..rule_api import RuleBreak as BreakContext
    from ..rule_api import RuleLowering as RuleView
    from ..rule_api import RuleOp as OpView
    from ..rule_api import SpecFacts as OpSpec
    from ..rule_api import TargetFacts as Targets
    from ..rule_api import TileDecl

# "Template argument `isUpperOrLower` must be `0` or `1`." (the page's words after its subject)
_LINE = re.compile(
    r"^template argument `?(?P<param>[A-Za-z_]\w*)`? must be `?(?P<values>-?\d+`?(?:(?:, | or )`?-?\d+`?)*)",
    re.IGNORECASE,
)


class TemplateValueRule(RuleBase):
    """The value template parameter `param` of every declaration is one of `values`."""

    kind: Literal["template_value"] = "template_value"
    param: CppIdent = Field(description="a value template parameter of the intrinsic")
    values: list[int] = Field(min_length=1, description="the values it may take")
    page_prefixes: ClassVar[tuple[str, ...]] = ("template argument ",)

    def check(self, spec: OpSpec, targets: Targets) -> Iterator[Problem]:
        yield from super().check(spec, targets)
        intr = spec.intrinsic
        if intr is None:
            return
        params = [t for t in intr.template if t.kind == "value"]
        if not any(t.name == self.param for t in params):
            known = ", ".join(t.name for t in params) or "none"
            yield ("param",), f"{self.param!r} is not a value template parameter of {intr.name} ({known})"
        if len(set(self.values)) != len(self.values):
            yield ("values",), "each value is listed once"

    def condition(self, op: OpView, rv: RuleView) -> str:
        return "(" + " || ".join(f"{self.param} == {v}" for v in self.values) + ")"

    def _spelled(self, code: bool) -> str:
        return or_list([str(v) for v in self.values], code=code)

    def text(self, op: OpView) -> str:
        return f"template argument {self.param} must be {self._spelled(code=False)}"

    def doc(self, op: OpView) -> str:
        return _with_note(f"Template argument `{self.param}` must be {self._spelled(code=True)}", self.note)

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        m = _LINE.match(line.text)
        if m is None:
            return None
        out: dict[str, Any] = {
            "param": m.group("param"),
            "values": [int(v) for v in re.findall(r"-?\d+", m.group("values"))],
        }
        note = re.search(r"\((?P<note>[^()]*)\)\.?$", line.text)
        if note:
            out["note"] = note.group("note").strip()
        return out

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        # The least value above the list: legal tiles, one template argument out of range.
        return Broken(dict(tiles), values={self.param: str(max(self.values) + 1)})
