"""`template_value`: a value template parameter of the intrinsic takes one of a few values (TRANDOM's
`Rounds` is 7 or 10). Checked by `static_assert` in the op's common check, whose template carries the
parameter; its compile-fail case passes a value outside the list."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import Field

from ..spec.fields import CppConstant, CppIdent
from .base import Broken, PageContext, PageLine, Problem, RuleBase, _with_note, or_list

if TYPE_CHECKING:
    from ..rule_api import RuleBreak as BreakContext
    from ..rule_api import RuleLowering as RuleView
    from ..rule_api import RuleOp as OpView
    from ..rule_api import SpecFacts as OpSpec
    from ..rule_api import TargetFacts as Targets
    from ..rule_api import TileDecl


class TemplateValueRule(RuleBase):
    """The value template parameter `param` is one of `values`."""

    kind: Literal["template_value"] = "template_value"
    param: CppIdent = Field(description="a value template parameter of the main declaration, e.g. Rounds")
    values: list[CppConstant] = Field(min_length=1, description="the values it may take, e.g. [7, 10]")
    page_prefixes: ClassVar[tuple[str, ...]] = ("the template argument ",)

    def check(self, spec: OpSpec, targets: Targets) -> Iterator[Problem]:
        yield from super().check(spec, targets)
        intr = spec.intrinsic
        params = [t.name for t in intr.template if t.kind == "value"] if intr is not None else []
        if self.param not in params:
            yield ("param",), f"{self.param!r} is no value template parameter of the intrinsic"

    def condition(self, op: OpView, rv: RuleView) -> str:
        return "(" + " || ".join(f"{self.param} == {v}" for v in self.values) + ")"

    def text(self, op: OpView) -> str:
        return f"{self.param} must be one of: {', '.join(self.values)}"

    def doc(self, op: OpView) -> str:
        return _with_note(f"The template argument `{self.param}` must be {or_list(self.values)}", self.note)

    @classmethod
    def recognise(cls, line: PageLine, page: PageContext) -> dict[str, Any] | None:
        m = re.match(r"The template argument (\w+) must be (.+?)(?: \((?P<note>[^()]*)\))?\.?$", line.text)
        if m is None:
            return None
        values = re.findall(r"-?\w+(?:::\w+)*", m.group(2).replace(" or ", " "))
        if not values:
            return None
        out: dict[str, Any] = {"param": m.group(1), "values": values}
        if m.group("note"):
            out["note"] = m.group("note").strip()
        return out

    def breaking_value(self) -> str:
        """A value outside the list: one more than the largest number (the list's values are numbers)."""
        numbers = [int(v) for v in self.values if re.fullmatch(r"-?[0-9]+", v)]
        return str(max(numbers) + 1 if numbers else 0)

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        return Broken(dict(tiles), template_values={self.param: self.breaking_value()})
