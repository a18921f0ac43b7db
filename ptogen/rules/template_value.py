"""`template_value`: a value template argument of the intrinsic takes one of a few listed values
(TTRI's `isUpperOrLower` is 0 or 1, TGATHER's comparison `cmpMode` is `CmpMode::GT` or
`CmpMode::EQ`). Checked by `static_assert` on the argument itself, so it names no operand; the
failing kernel passes a value outside the list."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import Field

from ..spec.fields import CppIdent, CppQualified
from .base import Broken, PageContext, PageLine, Problem, RuleBase, _with_note, or_list

if TYPE_CHECKING:
    from ..rule_api import RuleBreak as BreakContext
    from ..rule_api import RuleLowering as RuleView
    from ..rule_api import RuleOp as OpView
    from ..rule_api import SpecFacts as OpSpec
    from ..rule_api import TargetFacts as Targets
    from ..rule_api import TileDecl

# "Template argument `isUpperOrLower` must be `0` or `1`." (the page's words after its subject)
_VALUE = r"`?(?:-?\d+|[A-Za-z_][\w:]*::\w+)`?"
_LINE = re.compile(
    rf"^template argument `?(?P<param>[A-Za-z_]\w*)`? must be (?P<values>{_VALUE}(?:(?:, | or ){_VALUE})*)",
    re.IGNORECASE,
)


class TemplateValueRule(RuleBase):
    """The value template parameter `param` of every declaration is one of `values`."""

    kind: Literal["template_value"] = "template_value"
    param: CppIdent = Field(description="a value template parameter of the intrinsic")
    values: list[int] | list[CppQualified] = Field(
        min_length=1, description="the values it may take: integers, or an enum's (`CmpMode::GT`)"
    )
    page_prefixes: ClassVar[tuple[str, ...]] = ("template argument ",)

    def check(self, spec: OpSpec, targets: Targets) -> Iterator[Problem]:
        yield from super().check(spec, targets)
        intr = spec.intrinsic
        if intr is None:
            return
        # The declarations it checks: every one, or those `forms` names.
        decls = [intr.template] + [o.template for o in intr.overloads]
        checked = decls if self.forms is None else [decls[k] for k in self.forms if k < len(decls)]
        params = [t for template in checked for t in template if t.kind == "value"]
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
            "values": [_value(v) for v in re.findall(_VALUE, m.group("values"))],
        }
        note = re.search(r"\((?P<note>[^()]*)\)\.?$", line.text)
        if note:
            out["note"] = note.group("note").strip()
        return out

    def outside(self, enums: dict[str, list[str]]) -> str:
        """A value the rule rejects: the least integer above the list, or the first value of the
        enum (`enums`: each enum's values) that the list leaves out."""
        ints = [v for v in self.values if isinstance(v, int)]
        if ints:
            return str(max(ints) + 1)
        enum = str(self.values[0]).rpartition("::")[0]
        left = [f"{enum}::{v}" for v in enums.get(enum, []) if f"{enum}::{v}" not in self.values]
        if not left:
            raise ValueError(
                f"{self.param}: every value of {enum} is allowed, so no kernel can break the rule"
            )
        return left[0]

    def break_static(self, bx: BreakContext, tiles: dict[str, TileDecl]) -> Broken:
        # Legal tiles, one template argument outside the list.
        enums = {e.name: list(e.values) for e in bx.op.targets.enums} if bx is not None else {}
        return Broken(dict(tiles), values={self.param: self.outside(enums)})


def _value(spelled: str) -> int | str:
    spelled = spelled.strip("`")
    return spelled if "::" in spelled else int(spelled)
